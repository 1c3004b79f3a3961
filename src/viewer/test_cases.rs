//! The Test Cases window (key T, File → Run test cases…): RecastDemo's test-case files run as
//! RecastDemo runs them. Picking a file (from the list of `TestCases/*.txt` and
//! `assets/TestCases/*.txt`, or the file dialog) switches the viewer to the sample and mesh the
//! file names, with RecastDemo's default settings, builds, and runs every test; or, when asked
//! (or when the mesh cannot be found and the user accepts), runs them on the navmesh on screen
//! with a warning that the results are not the file's. Each test is listed with its times and
//! drawn as in RecastDemo (start and end markers, the straight path or ray) in orange,
//! labelled "Path N" (one label for tests sharing a start), failures in red. The tests run
//! again whenever the navmesh they ran on changes.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};

use crate::demo::test_case::{TestCaseReport, TestResult, run_test_case};
use crate::demo::test_file::{TestSample, find_test_mesh, read_test_file};
use crate::demo::tester::tester_filter;
use crate::demo::text::{TestFile, TestKind};
use crate::viewer::build::{BuildRequest, BuildState, DEFAULT_TILE_SIZE, Sample, ViewerLog};
use crate::viewer::draw::{DrawSystems, LayerParams, sync_layer};
use crate::viewer::files::{FileDialog, FileFilter};
use crate::viewer::labels::{Label, WorldLabels};
use crate::viewer::navmesh::ShownNavMesh;
use navlab::bake::settings::BuildSettings;
use navlab::debug_draw::{DebugDraw, LineBatch, Rgba, rgba};
use navlab::detour::query::QueryFilter;

/// Folders (under the working directory) whose `.txt` files the window lists, as RecastDemo
/// lists `TestCases/`.
const TEST_FOLDERS: [&str; 2] = ["TestCases", "assets/TestCases"];

/// Tests whose starts are closer than this (metres) share one label.
const SHARED_START: f32 = 0.05;

const ERROR_COLOR: egui::Color32 = egui::Color32::from_rgb(240, 90, 80);
const WARNING_COLOR: egui::Color32 = egui::Color32::from_rgb(240, 180, 60);

pub struct TestCasesPlugin;

impl Plugin for TestCasesPlugin {
    fn build(&self, app: &mut App) {
        add_test_runs(app);
        app.add_systems(Update, toggle_window)
            .add_systems(Update, sync_test_paths.in_set(DrawSystems))
            .add_systems(EguiPrimaryContextPass, test_cases_window);
    }
}

/// The resource and the systems that read, build for and run test files: everything but the
/// key, the window and the drawing, so tests run them without a window or renderer.
fn add_test_runs(app: &mut App) {
    app.init_resource::<TestCases>()
        .add_systems(Update, (load_picked_file, run_tests, label_tests).chain());
}

/// What a finished run ran and found, for scripted sessions' state dumps.
#[derive(serde::Serialize, Clone, Debug, PartialEq)]
pub struct TestCasesSummary {
    /// The test file, as its path displays.
    pub file: String,
    /// The mesh the navmesh was built from, as its path displays (or the scene's name, or the
    /// navmesh file's path, when run on the navmesh on screen).
    pub mesh: String,
    /// RecastDemo's name of the sample it ran on.
    pub sample: String,
    pub ran: usize,
    pub failed: usize,
}

/// A test file and its results.
#[derive(Resource, Default)]
pub struct TestCases {
    pub open: bool,
    dialog: FileDialog,
    /// The files in [`TEST_FOLDERS`], looked for when the window opens.
    listed: Option<Vec<PathBuf>>,
    /// A file picked in the list, the dialog or Run again, read on the next frame.
    picked: Option<PathBuf>,
    /// Run on whatever navmesh is on screen instead of the file's sample and mesh.
    on_screen: bool,
    loaded: Option<LoadedFile>,
    report: Option<TestCaseReport>,
    summary: Option<TestCasesSummary>,
    /// What the last run ran on and found ("Ran 21 tests of … on …: 0 failed").
    outcome: Option<String>,
    /// Why the file could not be read or run, in red.
    error: Option<String>,
    /// Why the results are not the file's, in orange.
    warning: Option<String>,
    /// The navmesh version the report belongs to.
    ran_on: Option<u64>,
    /// Bumped whenever the report changes, for the drawing.
    version: u64,
}

/// A read test file and how far its run has got.
struct LoadedFile {
    path: PathBuf,
    file: TestFile,
    /// The sample and mesh the file names, or why the viewer cannot build them.
    named: Result<FileNavMesh, String>,
    step: Step,
}

/// The sample and mesh a test file names.
#[derive(Clone, Debug, PartialEq)]
struct FileNavMesh {
    sample: Sample,
    mesh: PathBuf,
}

impl FileNavMesh {
    /// "nav_test.obj (Solo Mesh)".
    fn describe(&self) -> String {
        format!("{} ({})", file_name(&self.mesh), self.sample.label())
    }
}

/// Where a loaded file's run stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    /// Switch to the file's sample and mesh (or go on screen, if asked) on the next frame.
    Start,
    /// Waiting for the switch's build: the builds finished and the scene version before it.
    Building { finished: u64, scene_version: u64 },
    /// The file's navmesh is built (on the scene of this version): the tests run on it, again
    /// whenever it changes, while it is on screen.
    Built { scene_version: u64 },
    /// The tests run on whatever navmesh is on screen.
    OnScreen,
    /// The file's navmesh cannot be built (the error says why); waiting for the user.
    Blocked,
}

impl TestCases {
    /// The loaded file's `pf` lines as start, end and the tester's filter for their flags.
    pub fn path_lines(&self) -> Vec<([f32; 3], [f32; 3], QueryFilter)> {
        self.loaded.as_ref().map_or_else(Vec::new, |loaded| {
            loaded
                .file
                .tests
                .iter()
                .filter(|line| line.kind == TestKind::Pathfind)
                .map(|line| {
                    (
                        line.start,
                        line.end,
                        tester_filter(line.include_flags, line.exclude_flags),
                    )
                })
                .collect()
        })
    }

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

    /// Reads and checks a test file and finds the sample and mesh it names; from the next
    /// frame the viewer switches to them, builds, and runs the tests. An unreadable file is an
    /// error (and nothing changes); a missing mesh is reported on that frame and waits for
    /// the user.
    pub fn load(&mut self, path: PathBuf) -> Result<(), String> {
        let (_, file) = read_test_file(&path).map_err(|e| e.to_string())?;
        let named = file_nav_mesh(&path, &file);
        self.loaded = Some(LoadedFile {
            path,
            file,
            named,
            step: Step::Start,
        });
        self.restart();
        Ok(())
    }

    /// What the last finished run ran and found; `None` until a run finished.
    pub fn summary(&self) -> Option<TestCasesSummary> {
        self.summary.clone()
    }

    /// Runs on the navmesh on screen (`true`) or on the file's sample and mesh (`false`),
    /// starting the loaded file's run afresh.
    pub fn set_on_screen(&mut self, on_screen: bool) {
        self.on_screen = on_screen;
        self.restart();
    }

    /// Drops the last run's results; the loaded file (if any) starts again next frame.
    fn restart(&mut self) {
        if let Some(loaded) = &mut self.loaded {
            loaded.step = Step::Start;
        }
        self.report = None;
        self.summary = None;
        self.outcome = None;
        self.error = None;
        self.warning = None;
        self.ran_on = None;
        self.version += 1;
    }

    /// What the window says while the file's navmesh is being built.
    fn building_line(&self) -> Option<String> {
        let loaded = self.loaded.as_ref().filter(|_| !self.on_screen)?;
        let named = loaded.named.as_ref().ok()?;
        matches!(loaded.step, Step::Start | Step::Building { .. }).then(|| {
            format!(
                "Building {} with RecastDemo's default settings for {}…",
                named.describe(),
                file_name(&loaded.path)
            )
        })
    }
}

/// The sample and mesh `file` (read from `path`) names, or one line saying why the viewer
/// cannot build them.
fn file_nav_mesh(path: &Path, file: &TestFile) -> Result<FileNavMesh, String> {
    let sample = match TestSample::parse(&file.sample_name) {
        Some(TestSample::SoloMesh) => Sample::SoloMesh,
        Some(TestSample::TileMesh) => Sample::TileMesh,
        Some(TestSample::TempObstacles) => Sample::TempObstacles,
        None if file.sample_name.trim().is_empty() => {
            return Err(format!("{}: names no sample (no `s` line)", path.display()));
        }
        None => {
            return Err(format!(
                "{}: names the sample `{}`; the viewer has Solo Mesh, Tile Mesh and Temp Obstacles",
                path.display(),
                file.sample_name.trim()
            ));
        }
    };
    let mesh = find_test_mesh(path, &file.geom_file_name)
        .map_err(|missing| format!("{}: {missing}", path.display()))?;
    Ok(FileNavMesh { sample, mesh })
}

/// What RecastDemo does when a test file is picked: a new sample of the named kind (so its
/// default settings and tile size) on the named mesh, built. A geometry set's own settings
/// still win, as they do when RecastDemo opens one.
fn switch_requests(named: &FileNavMesh) -> Vec<BuildRequest> {
    let mut requests = vec![
        BuildRequest::Sample(named.sample),
        BuildRequest::Settings(BuildSettings::default()),
    ];
    match named.sample {
        Sample::SoloMesh => {}
        Sample::TileMesh => requests.push(BuildRequest::TileSize(DEFAULT_TILE_SIZE)),
        Sample::TempObstacles => requests.push(BuildRequest::TileSize(
            navlab::bake::temp_obstacles::DEFAULT_TILE_SIZE,
        )),
    }
    requests.push(BuildRequest::Open(named.mesh.clone()));
    requests
}

/// The mesh and sample a test file names, as written: "nav_test.obj (Solo Mesh)".
fn named_in_file(file: &TestFile) -> String {
    let or = |text: &str, missing: &str| match text.trim() {
        "" => missing.to_string(),
        text => text.to_string(),
    };
    format!(
        "{} ({})",
        or(&file.geom_file_name, "no mesh"),
        or(&file.sample_name, "no sample")
    )
}

fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// RecastDemo's Test Cases list: the `.txt` files directly in `root`'s [`TEST_FOLDERS`],
/// sorted within each.
fn listed_test_files(root: &Path) -> Vec<PathBuf> {
    let mut listed = Vec::new();
    for folder in TEST_FOLDERS {
        let Ok(entries) = std::fs::read_dir(root.join(folder)) else {
            continue;
        };
        let mut files: Vec<PathBuf> = entries
            .flatten()
            .map(|entry| entry.path())
            .filter(|path| {
                path.is_file()
                    && path
                        .extension()
                        .is_some_and(|e| e.eq_ignore_ascii_case("txt"))
            })
            .collect();
        files.sort();
        listed.extend(files);
    }
    listed
}

fn toggle_window(
    keys: Res<ButtonInput<KeyCode>>,
    typing: Option<Res<crate::viewer::typing::TypingInUi>>,
    mut tests: ResMut<TestCases>,
) {
    if typing.is_some_and(|t| t.0) {
        return;
    }
    if keys.just_pressed(KeyCode::KeyT) {
        tests.open = !tests.open;
    }
}

/// Reads the file picked in the dialog, the list or Run again.
fn load_picked_file(mut tests: ResMut<TestCases>, mut log: ResMut<ViewerLog>) {
    let picked = match tests.dialog.poll() {
        Some(Some(path)) => Some(path),
        _ => tests.picked.take(),
    };
    let Some(path) = picked else {
        return;
    };
    if let Err(error) = tests.load(path) {
        log.error(format!("Could not read the test cases {error}"));
        tests.error = Some(error);
    }
}

/// Moves the loaded file's run along: switches to its sample and mesh, waits for that build,
/// then runs the tests, and again whenever the navmesh they ran on changes.
fn run_tests(
    state: Res<BuildState>,
    shown: Res<ShownNavMesh>,
    mut tests: ResMut<TestCases>,
    mut requests: MessageWriter<BuildRequest>,
    mut log: ResMut<ViewerLog>,
) {
    let tests = &mut *tests;
    let Some(loaded) = &mut tests.loaded else {
        return;
    };
    match (loaded.step, &loaded.named) {
        (Step::Start, _) if tests.on_screen => loaded.step = Step::OnScreen,
        (Step::Start, Ok(named)) => {
            requests.write_batch(switch_requests(named));
            loaded.step = Step::Building {
                finished: state.finished,
                scene_version: state.scene_version,
            };
        }
        (Step::Start, Err(problem)) => {
            log.error(problem.clone());
            tests.error = Some(problem.clone());
            loaded.step = Step::Blocked;
        }
        (
            Step::Building {
                finished,
                scene_version,
            },
            Ok(named),
        ) => {
            if state.is_busy() || state.finished == finished {
                return;
            }
            if state.scene_version == scene_version {
                // The build logged (and popped up) why the mesh did not open.
                tests.error = Some(format!(
                    "Could not open {}, the mesh {} names (see the Log)",
                    named.mesh.display(),
                    file_name(&loaded.path)
                ));
                loaded.step = Step::Blocked;
            } else {
                loaded.step = Step::Built {
                    scene_version: state.scene_version,
                };
            }
        }
        _ => {}
    }
    let version = shown.version(&state);
    if tests.ran_on == Some(version) || state.is_busy() {
        return;
    }
    let target = match (loaded.step, &loaded.named) {
        (Step::Built { scene_version }, Ok(named)) => {
            let still_shown = state.scene_version == scene_version
                && state.sample == named.sample
                && shown.loaded().is_none();
            if !still_shown {
                tests.ran_on = Some(version);
                tests.warning = Some(format!(
                    "The navmesh on screen is no longer {}; the results are from it (Run again rebuilds it)",
                    named.describe()
                ));
                return;
            }
            RunTarget {
                mesh: named.mesh.display().to_string(),
                mesh_name: file_name(&named.mesh),
                sample: named.sample.label(),
                on_screen: false,
            }
        }
        (Step::OnScreen, _) => match shown.loaded() {
            Some(file) => RunTarget {
                mesh: file.path.display().to_string(),
                mesh_name: file_name(&file.path),
                sample: state.sample.label(),
                on_screen: true,
            },
            None => RunTarget {
                mesh: state.scene.name.clone(),
                mesh_name: state.scene.name.clone(),
                sample: state.sample.label(),
                on_screen: true,
            },
        },
        _ => return,
    };
    tests.ran_on = Some(version);
    tests.version += 1;
    let Some(nav) = shown.get(&state) else {
        tests.report = None;
        tests.error = Some(format!(
            "{} ({}) has no navmesh to run on (see the Log)",
            target.mesh_name, target.sample
        ));
        return;
    };
    let name = file_name(&loaded.path);
    let settings = format!("{} ({}) in the viewer", target.mesh_name, target.sample);
    let report = match run_test_case(nav, &loaded.file, &name, &settings) {
        Ok(report) => report,
        Err(status) => {
            tests.report = None;
            tests.error = Some(format!("The query could not start ({status})"));
            return;
        }
    };
    let ran = report.results.len();
    let failed = report.results.iter().filter(|r| failed(r)).count();
    tests.error = None;
    if target.on_screen {
        let outcome = format!(
            "Ran {ran} tests of {name} on the navmesh on screen, {} ({}): {failed} failed",
            target.mesh_name, target.sample
        );
        let warning = format!(
            "Not the file's results: it names {}",
            named_in_file(&loaded.file)
        );
        log.warning(format!("{outcome}. {warning}"));
        tests.outcome = Some(outcome);
        tests.warning = Some(warning);
    } else {
        let outcome = format!(
            "Ran {ran} tests of {name} on {} ({}): {failed} failed",
            target.mesh_name, target.sample
        );
        log.info(outcome.clone());
        tests.outcome = Some(outcome);
        tests.warning = None;
    }
    tests.summary = Some(TestCasesSummary {
        file: loaded.path.display().to_string(),
        mesh: target.mesh,
        sample: target.sample.to_string(),
        ran,
        failed,
    });
    tests.report = Some(report);
}

/// The navmesh a run is on, as reported.
struct RunTarget {
    /// As the summary shows it: the mesh's path, or the scene's name.
    mesh: String,
    /// As the window and the Log say it.
    mesh_name: String,
    sample: &'static str,
    /// Whether it is the navmesh on screen rather than the file's.
    on_screen: bool,
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

fn point_of(p: &[crate::demo::text::JsonF32; 3]) -> [f32; 3] {
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
        if tests.listed.is_some() {
            // Looked for again when the window reopens.
            tests.listed = None;
        }
        return Ok(());
    }
    let ctx = contexts.ctx_mut()?.clone();
    let tests = &mut *tests;
    let listed = tests
        .listed
        .get_or_insert_with(|| listed_test_files(Path::new("")))
        .clone();
    let current = tests.loaded.as_ref().map(|l| l.path.clone());
    let blocked = tests
        .loaded
        .as_ref()
        .is_some_and(|l| l.step == Step::Blocked);
    let building = tests.building_line();
    let mut open = true;
    let mut picked = None;
    let mut pick_dialog = false;
    let mut on_screen = tests.on_screen;
    egui::Window::new("Test Cases")
        .open(&mut open)
        .default_width(330.0)
        .default_pos(egui::pos2(620.0, 330.0))
        .show(&ctx, |ui| {
            if listed.is_empty() {
                ui.label("No test files in TestCases/ or assets/TestCases/.");
            }
            for path in &listed {
                let chosen = current.as_ref() == Some(path);
                if ui
                    .selectable_label(chosen, path.display().to_string())
                    .clicked()
                {
                    picked = Some(path.clone());
                }
            }
            ui.horizontal(|ui| {
                if ui.button("Open test file…").clicked() {
                    pick_dialog = true;
                }
                if current.is_some() && ui.button("Run again").clicked() {
                    picked.clone_from(&current);
                }
            });
            ui.checkbox(&mut on_screen, "Run on the navmesh on screen")
                .on_hover_text(
                    "Run on whatever navmesh is on screen instead of building the sample and \
                     mesh the file names",
                );
            if let Some(error) = &tests.error {
                ui.colored_label(ERROR_COLOR, error);
            }
            if blocked
                && !on_screen
                && ui
                    .button("Run on the navmesh on screen instead")
                    .clicked()
            {
                on_screen = true;
            }
            if let Some(line) = &building {
                ui.label(line);
            }
            if let Some(outcome) = &tests.outcome {
                ui.label(outcome);
            }
            match &tests.warning {
                Some(warning) => {
                    ui.colored_label(WARNING_COLOR, warning);
                }
                None if tests.on_screen => {
                    ui.colored_label(
                        WARNING_COLOR,
                        "Runs on the navmesh on screen: the results are not the file's",
                    );
                }
                None => {}
            }
            let Some(report) = &tests.report else {
                if current.is_none() {
                    ui.label("Pick a RecastDemo test file (s, f, pf and rc lines) to run.");
                }
                return;
            };
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
                        ui.colored_label(ERROR_COLOR, text);
                    } else {
                        ui.label(text);
                    }
                }
            });
        });
    tests.open = open;
    if pick_dialog {
        tests.pick_file();
    }
    if picked.is_some() {
        tests.picked = picked;
    }
    if on_screen != tests.on_screen {
        tests.set_on_screen(on_screen);
    }
    Ok(())
}

/// A label beside the tests' starts while the window is open (see [`start_labels`]).
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
        (Some(report), true) => start_labels(&report.results),
        _ => Vec::new(),
    };
    labels.set("Test cases", list);
}

/// One label per start that tests share (within [`SHARED_START`]), naming them all ("Paths
/// 0, 3, 7", "Paths 0–3"), red if any of them failed: RecastDemo's files start many tests at
/// one point, and a label each stacked into unreadable text.
fn start_labels(results: &[TestResult]) -> Vec<Label> {
    struct Group {
        start: [f32; 3],
        tests: Vec<usize>,
        failed: bool,
    }
    let cell_of = |p: [f32; 3]| p.map(|c| (c / SHARED_START).floor() as i32);
    let mut groups: Vec<Group> = Vec::new();
    // Groups by the grid cell of their start: a start's group is in its cell or a neighbour.
    let mut by_cell: HashMap<[i32; 3], Vec<usize>> = HashMap::new();
    for (n, result) in results.iter().enumerate() {
        let start = point_of(&result.spos);
        let [x, y, z] = cell_of(start);
        let near = (-1..=1)
            .flat_map(|dx| (-1..=1).flat_map(move |dy| (-1..=1).map(move |dz| (dx, dy, dz))))
            .filter_map(|(dx, dy, dz)| by_cell.get(&[x + dx, y + dy, z + dz]))
            .flatten()
            .copied()
            .filter(|&g| Vec3::from(groups[g].start).distance(Vec3::from(start)) <= SHARED_START)
            .min();
        let group = match near {
            Some(g) => g,
            None => {
                groups.push(Group {
                    start,
                    tests: Vec::new(),
                    failed: false,
                });
                by_cell.entry([x, y, z]).or_default().push(groups.len() - 1);
                groups.len() - 1
            }
        };
        groups[group].tests.push(n);
        groups[group].failed |= failed(result);
    }
    groups
        .into_iter()
        .map(|group| Label {
            position: Vec3::new(group.start[0], group.start[1] + 0.5, group.start[2]),
            text: paths_text(&group.tests),
            color: if group.failed {
                ERROR_COLOR
            } else {
                egui::Color32::from_black_alpha(220)
            },
        })
        .collect()
}

/// "Path 4", "Paths 0, 3, 7" or "Paths 0–3, 7" for ascending test numbers: runs of three or
/// more as ranges.
fn paths_text(tests: &[usize]) -> String {
    if let [single] = tests {
        return format!("Path {single}");
    }
    let parts: Vec<String> = tests
        .chunk_by(|a, b| *b == a + 1)
        .flat_map(|run| match run {
            [first, .., last] if run.len() >= 3 => vec![format!("{first}–{last}")],
            _ => run.iter().map(ToString::to_string).collect(),
        })
        .collect();
    format!("Paths {}", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::demo::text::{TestKind, TestLine};
    use crate::viewer::build::tests::{build_app, settle};
    use crate::viewer::draw::DrawMode;
    use crate::viewer::navmesh::NavMeshPlugin;

    /// The build and navmesh plugins and the test runs, with the default scene built.
    fn app() -> App {
        let mut app = build_app();
        app.init_resource::<DrawMode>()
            .init_resource::<WorldLabels>()
            .add_plugins(NavMeshPlugin);
        add_test_runs(&mut app);
        settle(&mut app);
        app
    }

    /// Runs frames until `done` holds of the test cases (builds run on the task pool).
    fn run_until(app: &mut App, done: impl Fn(&TestCases) -> bool) {
        for _ in 0..20_000 {
            app.update();
            if done(app.world().resource::<TestCases>()) {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        panic!("the test cases did not get there");
    }

    fn logged(app: &App, text: &str) -> bool {
        let log = app.world().resource::<ViewerLog>();
        log.lines.iter().any(|(_, line)| line.contains(text))
    }

    /// A file of the C++ reference data (the repository's `tests/data/reference`, or
    /// `$NAVLAB_REFERENCE_DIR`), else of the repository's `assets/`; `None`, and the test
    /// skipped, without either.
    fn reference_file(reference: &str, asset: &str) -> Option<PathBuf> {
        let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
        let found = std::env::var_os("NAVLAB_REFERENCE_DIR")
            .map(|dir| PathBuf::from(dir).join(reference))
            .into_iter()
            .chain([
                manifest.join("tests/data/reference").join(reference),
                manifest.join("assets").join(asset),
            ])
            .find(|p| p.is_file());
        if found.is_none() {
            eprintln!("notice: {reference} not found in the reference data or assets; skipping");
        }
        found
    }

    /// A fresh RecastDemo layout in the temporary folder: `meshes` copied into `Meshes/`,
    /// `cases` into `TestCases/`. Returns its root.
    fn layout(name: &str, meshes: &[&Path], cases: &[&Path]) -> PathBuf {
        let root = std::env::temp_dir().join(format!(
            "navlab-viewer-test-cases-{name}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&root);
        for (folder, files) in [("Meshes", meshes), ("TestCases", cases)] {
            std::fs::create_dir_all(root.join(folder)).unwrap();
            for file in files {
                std::fs::copy(file, root.join(folder).join(file.file_name().unwrap())).unwrap();
            }
        }
        root
    }

    #[test]
    fn a_file_switches_to_its_sample_and_mesh_builds_and_runs_there() {
        let (Some(mesh), Some(paths), Some(rays)) = (
            reference_file("meshes/nav_test.obj", "Meshes/nav_test.obj"),
            reference_file("testcases/nav_mesh_test.txt", "TestCases/nav_mesh_test.txt"),
            reference_file("testcases/raycast_test.txt", "TestCases/raycast_test.txt"),
        ) else {
            return;
        };
        let root = layout("switch", &[&mesh], &[&paths, &rays]);
        let mut app = app();
        assert_eq!(
            app.world().resource::<BuildState>().scene.name,
            "Default scene"
        );

        let file = root.join("TestCases/nav_mesh_test.txt");
        let mut tests = app.world_mut().resource_mut::<TestCases>();
        tests.load(file.clone()).unwrap();
        assert_eq!(tests.summary(), None);
        run_until(&mut app, |t| t.summary().is_some());
        let state = app.world().resource::<BuildState>();
        assert_eq!(state.scene.name, "nav_test.obj");
        assert_eq!(state.sample, Sample::SoloMesh);
        let tests = app.world().resource::<TestCases>();
        assert_eq!(
            tests.summary(),
            Some(TestCasesSummary {
                file: file.display().to_string(),
                mesh: root.join("Meshes/nav_test.obj").display().to_string(),
                sample: "Solo Mesh".into(),
                ran: 21,
                failed: 0,
            })
        );
        let said = "Ran 21 tests of nav_mesh_test.txt on nav_test.obj (Solo Mesh): 0 failed";
        assert_eq!(tests.outcome.as_deref(), Some(said));
        assert_eq!(tests.warning, None);
        assert!(logged(&app, said));

        // The raycast file names Tile Mesh: the sample switches too.
        let file = root.join("TestCases/raycast_test.txt");
        let mut tests = app.world_mut().resource_mut::<TestCases>();
        tests.load(file).unwrap();
        run_until(&mut app, |t| t.summary().is_some());
        assert_eq!(
            app.world().resource::<BuildState>().sample,
            Sample::TileMesh
        );
        let summary = app.world().resource::<TestCases>().summary().unwrap();
        assert_eq!(
            (summary.sample.as_str(), summary.ran, summary.failed),
            ("Tile Mesh", 4, 0)
        );
        std::fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn a_missing_mesh_is_reported_and_the_tests_run_on_screen_only_when_asked() {
        let root = layout("missing", &[], &[]);
        let file = root.join("TestCases/missing.txt");
        std::fs::write(
            &file,
            "s Solo Mesh\nf no_such_mesh.obj\npf -20 0 -20 18 0 18 0xffff 0x0\n",
        )
        .unwrap();
        let mut app = app();
        let mut tests = app.world_mut().resource_mut::<TestCases>();
        tests.load(file.clone()).unwrap();
        run_until(&mut app, |t| {
            t.loaded.as_ref().is_some_and(|l| l.step == Step::Blocked)
        });
        for _ in 0..5 {
            app.update();
        }
        let tests = app.world().resource::<TestCases>();
        let error = tests.error.clone().unwrap();
        assert!(error.contains("`no_such_mesh.obj`"), "{error}");
        assert!(logged(&app, &error));
        assert!(!app.world().resource::<ViewerLog>().toasts.is_empty());
        assert_eq!(tests.summary(), None);
        assert!(tests.report.is_none());
        assert_eq!(
            app.world().resource::<BuildState>().scene.name,
            "Default scene"
        );

        // Asked to, it runs on the default scene, and says the results are not the file's.
        app.world_mut()
            .resource_mut::<TestCases>()
            .set_on_screen(true);
        run_until(&mut app, |t| t.summary().is_some());
        let tests = app.world().resource::<TestCases>();
        let summary = tests.summary().unwrap();
        assert_eq!(
            (summary.mesh.as_str(), summary.sample.as_str(), summary.ran),
            ("Default scene", "Solo Mesh", 1)
        );
        let warning = tests.warning.clone().unwrap();
        assert!(
            warning.contains("no_such_mesh.obj (Solo Mesh)"),
            "{warning}"
        );
        assert!(logged(
            &app,
            "on the navmesh on screen, Default scene (Solo Mesh)"
        ));
        std::fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn unreadable_files_are_errors_that_change_nothing() {
        let root = layout("unreadable", &[], &[]);
        let file = root.join("TestCases/short.txt");
        std::fs::write(&file, "s Solo Mesh\npf 1 2 3\n").unwrap();
        let mut tests = TestCases::default();
        let error = tests.load(file).unwrap_err();
        assert!(error.contains("short.txt: line 2"), "{error}");
        assert!(tests.loaded.is_none());
        assert!(tests.load(root.join("TestCases/none.txt")).is_err());
        std::fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn the_list_holds_the_txt_files_of_both_test_folders() {
        let root = layout("list", &[], &[]);
        std::fs::create_dir_all(root.join("assets/TestCases")).unwrap();
        std::fs::create_dir_all(root.join("TestCases/sub.txt")).unwrap();
        for name in [
            "TestCases/b.txt",
            "TestCases/a.TXT",
            "TestCases/notes.md",
            "assets/TestCases/c.txt",
        ] {
            std::fs::write(root.join(name), "").unwrap();
        }
        assert_eq!(
            listed_test_files(&root),
            [
                root.join("TestCases/a.TXT"),
                root.join("TestCases/b.txt"),
                root.join("assets/TestCases/c.txt"),
            ]
        );
        std::fs::remove_dir_all(root).unwrap();
    }

    fn default_nav_mesh() -> navlab::detour::NavMesh {
        navlab::bake::solo::Build::new(
            std::sync::Arc::new(navlab::input::scene::default_scene()),
            Default::default(),
        )
        .unwrap()
        .nav_mesh
        .as_deref()
        .cloned()
        .expect("the default scene has a navmesh")
    }

    fn test_line(kind: TestKind, start: [f32; 3], end: [f32; 3]) -> TestLine {
        TestLine {
            kind,
            text: String::new(),
            start,
            end,
            include_flags: 0xffff,
            exclude_flags: 0,
        }
    }

    #[test]
    fn every_test_is_drawn_with_its_path() {
        let nav = default_nav_mesh();
        let start = [-20.0, 0.0, -20.0];
        let file = TestFile {
            sample_name: "Solo Mesh".into(),
            geom_file_name: String::new(),
            tests: vec![
                test_line(TestKind::Pathfind, start, [18.0, 0.0, 18.0]),
                test_line(TestKind::Raycast, start, [18.0, 0.0, 18.0]),
                test_line(TestKind::Pathfind, start, [500.0, 0.0, 500.0]),
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

    #[test]
    fn tests_sharing_a_start_share_one_label() {
        let nav = default_nav_mesh();
        let start = [-20.0, 0.0, -20.0];
        let near_start = [-20.01, 0.0, -20.02];
        let other = [18.0, 0.0, 18.0];
        let pf = |from, to| test_line(TestKind::Pathfind, from, to);
        let file = TestFile {
            sample_name: "Solo Mesh".into(),
            geom_file_name: String::new(),
            tests: vec![
                pf(start, other),
                pf(start, other),
                pf(start, other),
                pf(start, other),
                pf(other, start),
                pf(near_start, other),
                pf(start, [500.0, 0.0, 500.0]),
            ],
        };
        let report = run_test_case(&nav, &file, "t.txt", "").unwrap();
        assert!(!failed(&report.results[0]) && failed(&report.results[6]));
        let labels = start_labels(&report.results);
        let texts: Vec<&str> = labels.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(texts, ["Paths 0–3, 5, 6", "Path 4"]);
        assert_eq!(labels[0].color, ERROR_COLOR);
        assert_eq!(labels[0].position, Vec3::new(-20.0, 0.5, -20.0));

        assert_eq!(paths_text(&[5]), "Path 5");
        assert_eq!(paths_text(&[0, 1]), "Paths 0, 1");
        assert_eq!(paths_text(&[0, 3, 7]), "Paths 0, 3, 7");
        assert_eq!(paths_text(&[0, 1, 2, 3]), "Paths 0–3");
        assert_eq!(paths_text(&[0, 1, 2, 5, 6]), "Paths 0–2, 5, 6");
    }
}
