//! A/B compare: **Pin as baseline** (the Compare window's button, or B) keeps the build on
//! screen as A; every later build is B, drawn against it: polygons and walkable spans gained
//! (green) and lost (red), a table of deltas (walkable area, polygons, vertices, detail
//! triangles, regions, islands, tiles, bytes, build time), and the paths of the Test Cases
//! file's `pf` lines and of the tester's current start and end run on both navmeshes. The
//! measures are the library's ([`navlab::bake::compare`]), the same `navlab diff` prints.

use std::sync::Arc;

use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};

use crate::demo::tester::POLY_PICK_EXT;
use crate::viewer::build::{BuildState, ViewerLog};
use crate::viewer::draw::{DrawSystems, LayerParams, sync_layer};
use crate::viewer::navmesh::{SharedNavMesh, ShownNavMesh};
use crate::viewer::test_cases::TestCases;
use crate::viewer::tools::Tools;
use crate::viewer::typing::TypingInUi;
use navlab::bake::compare::{
    self, BuildSummary, PathComparison, PolyChanges, SpanChanges, SummaryRow,
};
use navlab::bake::settings::BuildSettings;
use navlab::debug_draw::{self, DebugDraw};
use navlab::detour::query::QueryFilter;
use navlab::recast::compact::CompactHeightfield;

pub struct ComparePlugin;

impl Plugin for ComparePlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<Comparison>()
            .add_message::<PinBaseline>()
            .add_systems(Update, (pin_key, pin_baseline, compare_builds).chain())
            .add_systems(Update, sync_compare_overlay.in_set(DrawSystems))
            .add_systems(EguiPrimaryContextPass, compare_window);
    }
}

/// Keep the build on screen as the baseline (`true`), or drop the baseline (`false`).
#[derive(Message, Clone, Copy, Debug)]
pub struct PinBaseline(pub bool);

/// The pinned build: what B is compared with.
pub struct Baseline {
    pub settings: BuildSettings,
    pub summary: BuildSummary,
    pub nav_mesh: SharedNavMesh,
    /// The stages' final compact heightfield, for the walkable-span comparison (a solo build,
    /// or the tile Create Tiles inspected).
    pub compact: Option<Arc<CompactHeightfield>>,
}

/// One path compared: where it came from, and both results.
pub struct ComparedPath {
    pub label: String,
    pub result: PathComparison,
}

/// The baseline, the comparison with the build on screen, and what the window shows.
#[derive(Resource)]
pub struct Comparison {
    pub open: bool,
    pub baseline: Option<Baseline>,
    /// B's summary, polygon and span changes, and paths, for the navmesh version in `made_for`.
    pub current: Option<BuildSummary>,
    pub polys: Option<PolyChanges>,
    pub spans: Option<SpanChanges>,
    pub paths: Vec<ComparedPath>,
    made_for: Option<(u64, u64, u64)>,
    /// Bumped whenever the comparison changes, for the overlay.
    pub version: u64,
    pub show_polys: bool,
    pub show_spans: bool,
    pub show_paths: bool,
}

impl Default for Comparison {
    fn default() -> Self {
        Self {
            open: false,
            baseline: None,
            current: None,
            polys: None,
            spans: None,
            paths: Vec::new(),
            made_for: None,
            version: 0,
            show_polys: true,
            show_spans: false,
            show_paths: true,
        }
    }
}

impl Comparison {
    /// The delta table, when a baseline and a current build are both there.
    pub fn rows(&self) -> Vec<SummaryRow> {
        match (&self.baseline, &self.current) {
            (Some(a), Some(b)) => compare::delta_rows(&a.summary, b),
            _ => Vec::new(),
        }
    }

    /// The state a session reports.
    pub fn session_state(&self) -> serde_json::Value {
        let summary = |s: &BuildSummary| {
            serde_json::json!({
                "walkableArea": s.walkable_area,
                "polys": s.polys,
                "verts": s.verts,
                "islands": s.islands.len(),
            })
        };
        serde_json::json!({
            "pinned": self.baseline.is_some(),
            "a": self.baseline.as_ref().map(|b| summary(&b.summary)),
            "b": self.current.as_ref().map(summary),
            "polysGained": self.polys.as_ref().map(|c| c.gained.len()),
            "polysLost": self.polys.as_ref().map(|c| c.lost.len()),
            "spansGained": self.spans.as_ref().map(|c| c.gained.len()),
            "spansLost": self.spans.as_ref().map(|c| c.lost.len()),
            "paths": self.paths.iter().map(|p| serde_json::json!({
                "label": p.label,
                "reachableA": p.result.reachable_a,
                "reachableB": p.result.reachable_b,
                "lengthA": p.result.length_a,
                "lengthB": p.result.length_b,
            })).collect::<Vec<_>>(),
        })
    }
}

/// The summary of the build on screen (solo or tiled), if there is one.
fn summary_of(state: &BuildState) -> Option<BuildSummary> {
    match (&state.tiled, &state.build) {
        (Some(tiled), _) => Some(BuildSummary::of_tiled(tiled)),
        (None, Some(build)) if build.nav_mesh.is_some() => Some(BuildSummary::of_solo(build)),
        _ => None,
    }
}

fn pin_key(
    keys: Res<ButtonInput<KeyCode>>,
    typing: Option<Res<TypingInUi>>,
    mut pins: MessageWriter<PinBaseline>,
) {
    if keys.just_pressed(KeyCode::KeyB) && !typing.is_some_and(|t| t.0) {
        pins.write(PinBaseline(true));
    }
}

fn pin_baseline(
    mut pins: MessageReader<PinBaseline>,
    state: Res<BuildState>,
    shown: Res<ShownNavMesh>,
    mut comparison: ResMut<Comparison>,
    mut log: ResMut<ViewerLog>,
) {
    for PinBaseline(pin) in pins.read().copied().collect::<Vec<_>>() {
        comparison.made_for = None;
        comparison.current = None;
        comparison.polys = None;
        comparison.spans = None;
        comparison.paths.clear();
        comparison.version += 1;
        if !pin {
            comparison.baseline = None;
            log.info("Compare: baseline cleared");
            continue;
        }
        let (Some(summary), Some(nav_mesh)) = (summary_of(&state), shown.shared(&state)) else {
            log.warning("Compare: nothing built to pin yet");
            continue;
        };
        log.info(format!(
            "Compare: pinned the build on screen as A ({} polygons, {:.1} m² walkable)",
            summary.polys, summary.walkable_area
        ));
        comparison.baseline = Some(Baseline {
            settings: state.settings.clone(),
            summary,
            nav_mesh,
            compact: state
                .stage_build()
                .filter(|b| !b.regions.spans.is_empty())
                .map(|b| b.regions.clone()),
        });
        comparison.open = true;
    }
}

/// The tester's start and end, and the `pf` lines of the test file loaded, as paths to compare.
fn paths_to_compare(
    tools: Option<&Tools>,
    cases: Option<&TestCases>,
) -> Vec<(String, [f32; 3], [f32; 3], QueryFilter)> {
    let mut paths = Vec::new();
    if let Some((start, end, filter)) = tools.and_then(Tools::path_end_points) {
        paths.push(("Tester".to_owned(), start, end, filter));
    }
    if let Some(cases) = cases {
        for (index, (start, end, filter)) in cases.path_lines().into_iter().enumerate() {
            paths.push((format!("pf {}", index + 1), start, end, filter));
        }
    }
    paths
}

fn compare_builds(
    state: Res<BuildState>,
    shown: Res<ShownNavMesh>,
    tools: Option<Res<Tools>>,
    cases: Option<Res<TestCases>>,
    mut comparison: ResMut<Comparison>,
) {
    let Some(baseline) = &comparison.baseline else {
        return;
    };
    if state.is_busy() {
        return;
    }
    let ends = paths_to_compare(tools.as_deref(), cases.as_deref());
    let ends_key = {
        use std::hash::{Hash, Hasher};
        let mut key = std::collections::hash_map::DefaultHasher::new();
        for (label, start, end, _) in &ends {
            (label, start.map(f32::to_bits), end.map(f32::to_bits)).hash(&mut key);
        }
        key.finish()
    };
    let key = (
        shown.version(&state),
        state.stage_version(navlab::bake::solo::Stage::Regions),
        ends_key,
    );
    if comparison.made_for == Some(key) {
        return;
    }
    let Some(current) = shown.get(&state) else {
        return;
    };
    let polys = compare::poly_changes(&baseline.nav_mesh, current);
    let spans = match (&baseline.compact, state.stage_build()) {
        (Some(a), Some(b)) if !b.regions.spans.is_empty() => Some(compare::span_changes(
            a,
            &b.regions,
            state.settings.agent_max_climb,
        )),
        _ => None,
    };
    let paths = ends
        .into_iter()
        .map(|(label, start, end, filter)| ComparedPath {
            label,
            result: compare::compare_path(
                &baseline.nav_mesh,
                current,
                start,
                end,
                &filter,
                POLY_PICK_EXT,
            ),
        })
        .collect();
    let comparison = &mut *comparison;
    comparison.current = summary_of(&state);
    comparison.polys = Some(polys);
    comparison.spans = spans;
    comparison.paths = paths;
    comparison.made_for = Some(key);
    comparison.version += 1;
}

fn sync_compare_overlay(
    state: Res<BuildState>,
    shown: Res<ShownNavMesh>,
    comparison: Res<Comparison>,
    mut params: LayerParams,
) {
    let c = &*comparison;
    let version = c.baseline.is_some().then(|| {
        c.version << 3
            | u64::from(c.show_polys)
            | u64::from(c.show_spans) << 1
            | u64::from(c.show_paths) << 2
    });
    sync_layer(&mut params, "Compare", version, || {
        let mut drawing = DebugDraw::default();
        let (Some(baseline), Some(current)) = (&c.baseline, shown.get(&state)) else {
            return drawing;
        };
        if c.show_polys
            && let Some(polys) = &c.polys
        {
            drawing.append(debug_draw::compare::poly_changes(
                &baseline.nav_mesh,
                current,
                polys,
            ));
        }
        if c.show_spans
            && let Some(spans) = &c.spans
        {
            drawing.append(debug_draw::compare::span_changes(spans));
        }
        if c.show_paths {
            for path in &c.paths {
                drawing.append(debug_draw::compare::paths(&path.result));
            }
        }
        drawing
    });
}

/// The settings B changed from A, as "agentMaxClimb 0.9 -> 0.3" (egui's fonts have no arrow).
fn changed_settings(a: &BuildSettings, b: &BuildSettings) -> Vec<String> {
    let (Ok(a), Ok(b)) = (serde_json::to_value(a), serde_json::to_value(b)) else {
        return Vec::new();
    };
    let (Some(a), Some(b)) = (a.as_object(), b.as_object()) else {
        return Vec::new();
    };
    // The settings are f32: print them as f32 (0.9, not the f64 widening 0.8999999761581421).
    let show = |value: &serde_json::Value| match value.as_f64() {
        Some(number) => (number as f32).to_string(),
        None => value
            .as_str()
            .map_or_else(|| value.to_string(), str::to_owned),
    };
    a.iter()
        .filter_map(|(name, old)| {
            let new = b.get(name)?;
            (old != new).then(|| format!("{name} {} -> {}", show(old), show(new)))
        })
        .collect()
}

fn compare_window(
    mut contexts: EguiContexts,
    state: Res<BuildState>,
    mut comparison: ResMut<Comparison>,
    mut pins: MessageWriter<PinBaseline>,
) -> Result {
    if !comparison.open {
        return Ok(());
    }
    let ctx = contexts.ctx_mut()?.clone();
    let mut open = true;
    let c = &mut *comparison;
    egui::Window::new("Compare A/B")
        .open(&mut open)
        .default_width(300.0)
        // Over the Tools panel, leaving the 3D view to the overlay it describes.
        .default_pos(egui::pos2(6.0, 30.0))
        .show(&ctx, |ui| {
            ui.horizontal(|ui| {
                if ui.button("Pin as baseline (B)").clicked() {
                    pins.write(PinBaseline(true));
                }
                if c.baseline.is_some() && ui.button("Clear baseline").clicked() {
                    pins.write(PinBaseline(false));
                }
            });
            let Some(baseline) = &c.baseline else {
                ui.label("Pin a build as A, change settings, and the next build is B.");
                return;
            };
            let changes = changed_settings(&baseline.settings, &state.settings);
            if changes.is_empty() {
                ui.label("B has A's settings.");
            } else {
                ui.label(format!("B: {}", changes.join(", ")));
            }
            ui.horizontal(|ui| {
                ui.checkbox(&mut c.show_polys, "Polygons gained/lost");
                ui.checkbox(&mut c.show_spans, "Walkable spans");
                ui.checkbox(&mut c.show_paths, "Paths");
            });
            ui.label(
                egui::RichText::new(
                    "green: gained in B   red: lost from A   paths: A blue, B orange",
                )
                .small(),
            );
            if let Some(polys) = &c.polys {
                ui.label(format!(
                    "Polygons: {} gained, {} lost",
                    polys.gained.len(),
                    polys.lost.len()
                ));
            }
            if let Some(spans) = &c.spans {
                ui.label(format!(
                    "Walkable spans: {} gained, {} lost",
                    spans.gained.len(),
                    spans.lost.len()
                ));
            }
            egui::Grid::new("compare-rows")
                .striped(true)
                .show(ui, |ui| {
                    ui.strong("");
                    ui.strong("A");
                    ui.strong("B");
                    ui.strong("Δ");
                    ui.end_row();
                    for row in c.rows() {
                        if row.unit.is_empty() {
                            ui.label(row.name);
                        } else {
                            ui.label(format!("{} ({})", row.name, row.unit));
                        }
                        ui.label(format_value(row.a));
                        ui.label(format_value(row.b));
                        ui.label(format_delta(row.b - row.a));
                        ui.end_row();
                    }
                });
            if let Some(current) = &c.current {
                let islands = |s: &BuildSummary| {
                    s.islands
                        .iter()
                        .take(4)
                        .map(|i| format!("{:.0}", i.area))
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                ui.label(format!(
                    "Island areas A (m²): {}",
                    islands(&baseline.summary)
                ));
                ui.label(format!("Island areas B (m²): {}", islands(current)));
            }
            if !c.paths.is_empty() {
                ui.separator();
                egui::ScrollArea::vertical()
                    .max_height(180.0)
                    .show(ui, |ui| {
                        egui::Grid::new("compare-paths")
                            .striped(true)
                            .show(ui, |ui| {
                                for title in ["Path", "A", "B", "Length A", "Length B"] {
                                    ui.strong(title);
                                }
                                ui.end_row();
                                for path in &c.paths {
                                    let r = &path.result;
                                    ui.label(&path.label);
                                    ui.label(reach(r.reachable_a));
                                    ui.label(reach(r.reachable_b));
                                    ui.label(length(r.length_a));
                                    ui.label(length(r.length_b));
                                    ui.end_row();
                                }
                            });
                    });
            }
        });
    c.open = open;
    Ok(())
}

fn reach(reachable: bool) -> &'static str {
    if reachable { "reaches" } else { "no" }
}

fn length(length: Option<f32>) -> String {
    length.map_or_else(|| "–".to_owned(), |l| format!("{l:.2} m"))
}

fn format_value(v: f64) -> String {
    if v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

fn format_delta(d: f64) -> String {
    if d == 0.0 {
        "0".to_owned()
    } else if d.fract() == 0.0 {
        format!("{d:+.0}")
    } else {
        format!("{d:+.1}")
    }
}
