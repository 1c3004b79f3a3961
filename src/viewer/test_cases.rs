//! The Test Cases window (key T, File → Run test cases…): RecastDemo's test-case files run on
//! the navmesh on screen, as `navlab test` runs them. Each test is listed with its times and
//! drawn as in RecastDemo (start and end markers, the straight path or ray) in orange,
//! labelled "Path N", failures in red. The tests run again whenever the navmesh on screen changes.

use std::path::PathBuf;

use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};

use crate::debug_draw::{DebugDraw, LineBatch, Rgba, rgba};
use crate::detour::query::test_case::{TestCaseReport, TestResult, run_test_case};
use crate::detour::query::text::TestFile;
use crate::viewer::build::{BuildState, ViewerLog};
use crate::viewer::draw::{DrawSystems, LayerParams, sync_layer};
use crate::viewer::files::{FileDialog, FileFilter};
use crate::viewer::labels::{Label, WorldLabels};
use crate::viewer::navmesh::ShownNavMesh;

/// Test-case files are small; anything bigger is not one.
const MAX_TEST_FILE_BYTES: u64 = 16 << 20;

pub struct TestCasesPlugin;

impl Plugin for TestCasesPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<TestCases>()
            .add_systems(
                Update,
                (toggle_window, load_picked_file, run_tests, label_tests).chain(),
            )
            .add_systems(Update, sync_test_paths.in_set(DrawSystems))
            .add_systems(EguiPrimaryContextPass, test_cases_window);
    }
}

/// A test file and its results on the navmesh on screen.
#[derive(Resource, Default)]
pub struct TestCases {
    pub open: bool,
    dialog: FileDialog,
    loaded: Option<(PathBuf, TestFile)>,
    report: Option<TestCaseReport>,
    error: Option<String>,
    /// The navmesh version the report belongs to.
    ran_on: Option<u64>,
    /// Bumped whenever the report changes, for the drawing.
    version: u64,
}

impl TestCases {
    /// Opens the window and the file dialog (File → Run test cases…).
    pub fn pick_file(&mut self) {
        self.open = true;
        self.dialog.pick_file(
            "Run test cases",
            FileFilter {
                name: "RecastDemo test cases",
                extensions: &["txt"],
            },
        );
    }

    /// Reads and checks a test file; it runs on the next frame.
    pub fn load(&mut self, path: PathBuf) -> Result<(), String> {
        let file = read_test_file(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        self.loaded = Some((path, file));
        self.ran_on = None;
        self.error = None;
        Ok(())
    }
}

fn read_test_file(path: &std::path::Path) -> Result<TestFile, String> {
    let size = std::fs::metadata(path).map_err(|e| e.to_string())?.len();
    if size > MAX_TEST_FILE_BYTES {
        return Err(format!(
            "{size} bytes, over the limit of {MAX_TEST_FILE_BYTES} for a test file"
        ));
    }
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    let text = String::from_utf8(bytes).map_err(|_| "not a text file (not UTF-8)".to_string())?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let file = TestFile::parse_checked(text).map_err(|e| e.to_string())?;
    if file.tests.is_empty() {
        return Err("no `pf` or `rc` lines".into());
    }
    Ok(file)
}

fn toggle_window(
    keys: Res<ButtonInput<KeyCode>>,
    egui_input: Option<Res<bevy_egui::input::EguiWantsInput>>,
    mut tests: ResMut<TestCases>,
) {
    if egui_input.is_some_and(|e| e.wants_keyboard_input()) {
        return;
    }
    if keys.just_pressed(KeyCode::KeyT) {
        tests.open = !tests.open;
    }
}

fn load_picked_file(mut tests: ResMut<TestCases>, mut log: ResMut<ViewerLog>) {
    if let Some(Some(path)) = tests.dialog.poll()
        && let Err(error) = tests.load(path)
    {
        log.error(format!("Could not read the test cases {error}"));
        tests.error = Some(error);
    }
}

fn run_tests(
    state: Res<BuildState>,
    shown: Res<ShownNavMesh>,
    mut tests: ResMut<TestCases>,
    mut log: ResMut<ViewerLog>,
) {
    let version = shown.version(&state);
    if tests.ran_on == Some(version) || state.is_busy() {
        return;
    }
    let (Some((path, file)), Some(nav)) = (&tests.loaded, shown.get(&state)) else {
        return;
    };
    let name = path
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let report = run_test_case(nav, file, &name, "the navmesh on screen");
    tests.ran_on = Some(version);
    tests.version += 1;
    match report {
        Ok(report) => {
            let failed = report.results.iter().filter(|r| failed(r)).count();
            log.info(format!(
                "Ran {} tests of {name}: {failed} failed",
                report.results.len()
            ));
            tests.report = Some(report);
        }
        Err(status) => {
            tests.error = Some(format!("the query could not start ({status})"));
            tests.report = None;
        }
    }
}

/// A test that found no path, a partial path, or no polygon at an end.
fn failed(result: &TestResult) -> bool {
    result.skipped
        || result
            .path
            .as_ref()
            .is_some_and(|p| p.path_count == 0 || is_partial(&p.find_path_status))
}

/// Whether a printed status (`0x40000040`) has Detour's partial-result bit.
fn is_partial(status: &str) -> bool {
    const PARTIAL_RESULT: u32 = 0x40;
    u32::from_str_radix(status.trim_start_matches("0x"), 16).is_ok_and(|s| s & PARTIAL_RESULT != 0)
}

/// The points of a test's straight path (or ray).
fn straight_points(result: &TestResult) -> Vec<[f32; 3]> {
    let flat = match (&result.path, &result.raycast) {
        (Some(path), _) => &path.straight,
        (_, Some(ray)) => &ray.demo_straight,
        _ => return Vec::new(),
    };
    flat.chunks_exact(3)
        .map(|c| [c[0].0, c[1].0, c[2].0])
        .collect()
}

fn point_of(p: &[crate::detour::query::text::JsonF32; 3]) -> [f32; 3] {
    [p[0].0, p[1].0, p[2].0]
}

fn sync_test_paths(tests: Res<TestCases>, mut params: LayerParams) {
    let shown = tests.open && tests.report.is_some();
    sync_layer(
        &mut params,
        "Test cases",
        shown.then_some(tests.version),
        || tests.report.as_ref().map(test_paths).unwrap_or_default(),
    );
}

/// Every test's start and end markers and its straight path or ray, failures in red.
fn test_paths(report: &TestCaseReport) -> DebugDraw {
    let mut lines = LineBatch::new(3.0);
    let lift = |p: [f32; 3], dy: f32| [p[0], p[1] + dy, p[2]];
    for result in &report.results {
        let (spos, epos) = (point_of(&result.spos), point_of(&result.epos));
        lines.segment(lift(spos, -0.3), lift(spos, 0.5), rgba(128, 25, 0, 192));
        lines.segment(lift(epos, -0.3), lift(epos, 0.3), rgba(51, 102, 0, 129));
        let color: Rgba = if failed(result) {
            rgba(220, 32, 16, 230)
        } else {
            rgba(255, 192, 0, 230)
        };
        for pair in straight_points(result).windows(2) {
            lines.segment(lift(pair[0], 0.5), lift(pair[1], 0.5), color);
        }
    }
    DebugDraw {
        lines: vec![lines],
        ..Default::default()
    }
}

fn test_cases_window(mut contexts: EguiContexts, mut tests: ResMut<TestCases>) -> Result {
    if !tests.open {
        return Ok(());
    }
    let ctx = contexts.ctx_mut()?.clone();
    let mut open = true;
    egui::Window::new("Test Cases")
        .open(&mut open)
        .default_width(330.0)
        .default_pos(egui::pos2(620.0, 330.0))
        .show(&ctx, |ui| {
            if ui.button("Open test file…").clicked() {
                tests.pick_file();
            }
            if let Some(error) = &tests.error {
                ui.colored_label(egui::Color32::from_rgb(240, 90, 80), error);
            }
            let Some(report) = &tests.report else {
                ui.label("Pick a RecastDemo test file (pf and rc lines) to run on the navmesh.");
                return;
            };
            ui.label(format!(
                "{} ({}, {}): {} tests",
                report.test_file, report.sample, report.geom, report.num_tests
            ));
            egui::ScrollArea::vertical().max_height(200.0).show(ui, |ui| {
                for (n, result) in report.results.iter().enumerate() {
                    let total = result.find_nearest_poly_time
                        + result.find_path_time
                        + result.find_straight_path_time;
                    let polys = result
                        .path
                        .as_ref()
                        .map(|p| p.path_count)
                        .or(result.raycast.as_ref().map(|r| r.path_count))
                        .unwrap_or(0);
                    let text = format!(
                        "Path {n:02} {}: {:.3} ms (poly {:.3}, path {:.3}, straight {:.3}), {polys} polys",
                        result.kind,
                        total as f64 / 1000.0,
                        result.find_nearest_poly_time as f64 / 1000.0,
                        result.find_path_time as f64 / 1000.0,
                        result.find_straight_path_time as f64 / 1000.0,
                    );
                    let text = egui::RichText::new(text).monospace();
                    if failed(result) {
                        ui.colored_label(egui::Color32::from_rgb(240, 90, 80), text);
                    } else {
                        ui.label(text);
                    }
                }
            });
        });
    tests.open = open;
    Ok(())
}

/// "Path N" beside every test's start while the window is open, red for failures.
fn label_tests(
    tests: Res<TestCases>,
    mut labels: ResMut<WorldLabels>,
    mut labelled: Local<Option<(u64, bool)>>,
) {
    let now = (tests.version, tests.open);
    if *labelled == Some(now) {
        return;
    }
    *labelled = Some(now);
    let list = match (&tests.report, tests.open) {
        (Some(report), true) => report
            .results
            .iter()
            .enumerate()
            .map(|(n, result)| {
                let spos = point_of(&result.spos);
                Label {
                    position: Vec3::new(spos[0], spos[1] + 0.5, spos[2]),
                    text: format!("Path {n}"),
                    color: if failed(result) {
                        egui::Color32::from_rgb(240, 90, 80)
                    } else {
                        egui::Color32::from_black_alpha(220)
                    },
                }
            })
            .collect(),
        _ => Vec::new(),
    };
    labels.set("Test cases", list);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detour::query::text::{TestKind, TestLine};

    #[test]
    fn every_test_is_drawn_with_its_path() {
        let Some(nav) = crate::bake::solo::Build::new(
            std::sync::Arc::new(crate::input::scene::default_scene()),
            Default::default(),
        )
        .unwrap()
        .nav_mesh
        .clone() else {
            panic!("no navmesh")
        };
        let line = |kind, end: [f32; 3]| TestLine {
            kind,
            text: String::new(),
            start: [-20.0, 0.0, -20.0],
            end,
            include_flags: 0xffff,
            exclude_flags: 0,
        };
        let file = TestFile {
            sample_name: "Solo Mesh".into(),
            geom_file_name: String::new(),
            tests: vec![
                line(TestKind::Pathfind, [18.0, 0.0, 18.0]),
                line(TestKind::Raycast, [18.0, 0.0, 18.0]),
                line(TestKind::Pathfind, [500.0, 0.0, 500.0]),
            ],
        };
        let report = run_test_case(&nav, &file, "t.txt", "").unwrap();
        assert_eq!(
            report.results.iter().map(failed).collect::<Vec<_>>(),
            [false, false, true]
        );
        let drawing = test_paths(&report);
        let straight = straight_points(&report.results[0]).len();
        assert!(straight >= 2);
        // Two markers per test, then the path segments and the ray.
        assert_eq!(drawing.lines[0].segments.len(), 3 * 2 + (straight - 1) + 1);
    }
}
