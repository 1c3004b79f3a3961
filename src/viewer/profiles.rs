//! Agent profiles side by side: up to eight agents (radius, height, climb, slope), built from one
//! rasterization of the scene ([`navlab::bake::profiles`]), each navmesh drawn in its own colour
//! with a toggle, and a reachability matrix: for each profile, which seed points (the Prune
//! tool's seeds, else the test file's path starts and ends, else the tester's start and end)
//! reach which.

use std::sync::Arc;

use bevy::prelude::*;
use bevy::tasks::futures::check_ready;
use bevy::tasks::{AsyncComputeTaskPool, Task};
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};

use crate::demo::tester::{POLY_PICK_EXT, tester_filter};
use crate::viewer::build::{BuildState, ViewerLog};
use crate::viewer::draw::{DrawSystems, LayerParams, sync_layer};
use crate::viewer::test_cases::TestCases;
use crate::viewer::tools::Tools;
use navlab::bake::compare;
use navlab::bake::profiles::{AgentProfile, MAX_PROFILES, build_profiles, default_profiles};
use navlab::bake::sample_areas::flags;
use navlab::bake::solo::Retention;
use navlab::debug_draw::detour::{append_nav_mesh_poly_filled, wall_segments};
use navlab::debug_draw::{DebugDraw, LineBatch, Rgba, rgba, trans_col};
use navlab::detour::NavMesh;

/// The layer of each profile slot.
const LAYERS: [&str; MAX_PROFILES] = [
    "Profile 1",
    "Profile 2",
    "Profile 3",
    "Profile 4",
    "Profile 5",
    "Profile 6",
    "Profile 7",
    "Profile 8",
];

/// Each slot's colour: distinct hues that read over the grey input mesh.
const COLORS: [Rgba; MAX_PROFILES] = [
    rgba(0, 192, 255, 150),
    rgba(255, 160, 0, 150),
    rgba(200, 60, 255, 150),
    rgba(60, 220, 90, 150),
    rgba(255, 70, 90, 150),
    rgba(240, 240, 60, 150),
    rgba(90, 110, 255, 150),
    rgba(255, 120, 200, 150),
];

/// Height each slot's drawing is lifted by, so surfaces two profiles share both show.
const LIFT_PER_SLOT: f32 = 0.04;

pub struct ProfilesPlugin;

impl Plugin for ProfilesPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<AgentProfiles>()
            .add_systems(Update, (finish_build, update_matrix).chain())
            .add_systems(Update, sync_profile_layers.in_set(DrawSystems))
            .add_systems(EguiPrimaryContextPass, profiles_window);
    }
}

/// One profile's navmesh, or why it has none.
pub struct ProfileResult {
    pub profile: AgentProfile,
    pub nav_mesh: Result<Arc<NavMesh>, String>,
    pub visible: bool,
}

/// The profiles being edited, the last build of them, and the matrix.
#[derive(Resource)]
pub struct AgentProfiles {
    pub open: bool,
    pub profiles: Vec<AgentProfile>,
    pub results: Vec<ProfileResult>,
    /// The seeds the matrix was made for.
    pub seeds: Vec<[f32; 3]>,
    /// Per result, `reach[i][j]`: seed i reaches seed j.
    pub matrix: Vec<Vec<Vec<bool>>>,
    /// Bumped whenever the results change.
    pub version: u64,
    pub build_ms: Option<f64>,
    pub error: Option<String>,
    task: Option<(Task<Outcome>, std::time::Instant)>,
    matrix_for: Option<(u64, Vec<[f32; 3]>)>,
}

type Outcome = Result<Vec<(AgentProfile, Result<Arc<NavMesh>, String>)>, String>;

impl Default for AgentProfiles {
    fn default() -> Self {
        Self {
            open: false,
            profiles: default_profiles(),
            results: Vec::new(),
            seeds: Vec::new(),
            matrix: Vec::new(),
            version: 0,
            build_ms: None,
            error: None,
            task: None,
            matrix_for: None,
        }
    }
}

impl AgentProfiles {
    /// Whether the profiles are being built.
    pub fn busy(&self) -> bool {
        self.task.is_some()
    }

    /// Builds every profile in the background from the scene and settings on screen.
    pub fn start_build(&mut self, state: &BuildState) {
        let scene = state.scene.clone();
        let settings = state.settings.clone();
        let profiles = self.profiles.clone();
        let task = AsyncComputeTaskPool::get().spawn(async move {
            let builds = build_profiles(&scene.input, &settings, &profiles, Retention::Final)
                .map_err(|err| err.to_string())?;
            Ok(profiles
                .into_iter()
                .zip(builds)
                .map(|(profile, build)| {
                    let nav_mesh = build.map_err(|err| err.to_string()).and_then(|build| {
                        build
                            .nav_mesh
                            .clone()
                            .ok_or_else(|| "no navmesh (vertsPerPoly above 6)".to_owned())
                    });
                    (profile, nav_mesh)
                })
                .collect())
        });
        self.task = Some((task, std::time::Instant::now()));
    }

    /// The state a session reports.
    pub fn session_state(&self) -> serde_json::Value {
        serde_json::json!({
            "profiles": self.results.iter().map(|r| serde_json::json!({
                "name": r.profile.name,
                "polys": r.nav_mesh.as_ref().ok().map(|m| m.poly_count()),
                "error": r.nav_mesh.as_ref().err(),
                "visible": r.visible,
            })).collect::<Vec<_>>(),
            "seeds": self.seeds.len(),
            "matrix": self.matrix,
            "building": self.busy(),
        })
    }
}

fn finish_build(mut profiles: ResMut<AgentProfiles>, mut log: ResMut<ViewerLog>) {
    let Some((task, started)) = &mut profiles.task else {
        return;
    };
    let Some(outcome) = check_ready(task) else {
        return;
    };
    let elapsed = started.elapsed();
    profiles.task = None;
    profiles.version += 1;
    profiles.matrix_for = None;
    match outcome {
        Ok(results) => {
            profiles.error = None;
            profiles.build_ms = Some(elapsed.as_secs_f64() * 1000.0);
            log.info(format!(
                "Agent profiles: {} built in {:.0} ms from one rasterization",
                results.len(),
                elapsed.as_secs_f64() * 1000.0
            ));
            profiles.results = results
                .into_iter()
                .map(|(profile, nav_mesh)| ProfileResult {
                    profile,
                    nav_mesh,
                    visible: true,
                })
                .collect();
        }
        Err(err) => {
            log.error(format!("Agent profiles: {err}"));
            profiles.error = Some(err);
        }
    }
}

/// The seed points: the Prune tool's seeds, else the test file's path starts and ends, else the
/// tester's start and end.
fn seeds(tools: Option<&Tools>, cases: Option<&TestCases>) -> Vec<[f32; 3]> {
    if let Some(tools) = tools {
        let pruned: Vec<[f32; 3]> = tools.tools.iter().flat_map(|t| t.seed_points()).collect();
        if !pruned.is_empty() {
            return pruned;
        }
    }
    let mut points: Vec<[f32; 3]> = Vec::new();
    for (start, end, _) in cases.map(TestCases::path_lines).unwrap_or_default() {
        for p in [start, end] {
            if !points.contains(&p) {
                points.push(p);
            }
        }
    }
    if points.is_empty()
        && let Some((start, end, _)) = tools.and_then(Tools::path_end_points)
    {
        points = vec![start, end];
    }
    points.truncate(12);
    points
}

fn update_matrix(
    tools: Option<Res<Tools>>,
    cases: Option<Res<TestCases>>,
    mut profiles: ResMut<AgentProfiles>,
) {
    let seeds = seeds(tools.as_deref(), cases.as_deref());
    let key = (profiles.version, seeds.clone());
    if profiles.matrix_for.as_ref() == Some(&key) {
        return;
    }
    profiles.matrix = profiles
        .results
        .iter()
        .map(|result| match &result.nav_mesh {
            // The tester's default filter: every flag but disabled.
            Ok(mesh) => compare::reachability(
                mesh,
                &seeds,
                &tester_filter(flags::ALL ^ flags::DISABLED, 0),
                POLY_PICK_EXT,
            ),
            Err(_) => vec![vec![false; seeds.len()]; seeds.len()],
        })
        .collect();
    profiles.seeds = seeds;
    profiles.matrix_for = Some(key);
}

fn sync_profile_layers(profiles: Res<AgentProfiles>, mut params: LayerParams) {
    for (slot, name) in LAYERS.iter().enumerate() {
        let result = profiles
            .results
            .get(slot)
            .filter(|r| r.visible)
            .and_then(|r| r.nav_mesh.as_ref().ok());
        let version = result.map(|_| profiles.version);
        sync_layer(&mut params, name, version, || {
            result.map_or_else(DebugDraw::default, |mesh| {
                profile_drawing(mesh, COLORS[slot], LIFT_PER_SLOT * (slot + 1) as f32)
            })
        });
    }
}

/// Every polygon of `mesh` filled in `color` and its walls outlined in the opaque colour,
/// lifted by `lift`, so each profile's extent reads over the others.
fn profile_drawing(mesh: &NavMesh, color: Rgba, lift: f32) -> DebugDraw {
    let mut drawing = DebugDraw::default();
    for (tile_ref, tile) in mesh.tiles() {
        for poly in 0..tile.poly_count() {
            append_nav_mesh_poly_filled(
                &mut drawing,
                mesh,
                tile_ref | poly as navlab::detour::PolyRef,
                color,
            );
        }
    }
    for position in &mut drawing.triangles.positions {
        position[1] += lift;
    }
    let mut walls = LineBatch::new(3.0);
    let lifted = |v: [f32; 3]| [v[0], v[1] + lift, v[2]];
    for [a, b] in wall_segments(mesh) {
        walls.segment(lifted(a), lifted(b), trans_col(color, 255));
    }
    drawing.lines.push(walls);
    drawing
}

fn profiles_window(
    mut contexts: EguiContexts,
    state: Res<BuildState>,
    mut profiles: ResMut<AgentProfiles>,
) -> Result {
    if !profiles.open {
        return Ok(());
    }
    let ctx = contexts.ctx_mut()?.clone();
    let mut open = true;
    let p = &mut *profiles;
    egui::Window::new("Agent Profiles")
        .open(&mut open)
        .default_width(300.0)
        // Over the Tools panel, leaving the 3D view to the navmeshes it builds.
        .default_pos(egui::pos2(6.0, 30.0))
        .show(&ctx, |ui| {
            ui.label("One rasterization, one navmesh per agent. Radius, height, climb in m; slope in °.");
            let mut remove = None;
            egui::Grid::new("profiles").striped(true).show(ui, |ui| {
                for title in ["", "Name", "Radius", "Height", "Climb", "Slope°", ""] {
                    ui.strong(title);
                }
                ui.end_row();
                for (slot, profile) in p.profiles.iter_mut().enumerate() {
                    let [r, g, b, _] = navlab::debug_draw::channels(COLORS[slot]);
                    ui.colored_label(egui::Color32::from_rgb(r, g, b), "■");
                    // A grid cell offers a text field only last frame's column width; a fixed size
                    // keeps the names readable.
                    ui.add_sized(
                        [88.0, 18.0],
                        egui::TextEdit::singleline(&mut profile.name),
                    );
                    ui.add(egui::DragValue::new(&mut profile.radius).range(0.0..=10.0).speed(0.05));
                    ui.add(egui::DragValue::new(&mut profile.height).range(0.1..=10.0).speed(0.05));
                    ui.add(egui::DragValue::new(&mut profile.climb).range(0.0..=10.0).speed(0.05));
                    ui.add(egui::DragValue::new(&mut profile.max_slope).range(0.0..=90.0).speed(0.5));
                    if ui.small_button("x").on_hover_text("Remove").clicked() {
                        remove = Some(slot);
                    }
                    ui.end_row();
                }
            });
            if let Some(slot) = remove {
                p.profiles.remove(slot);
            }
            ui.horizontal(|ui| {
                if ui
                    .add_enabled(p.profiles.len() < MAX_PROFILES, egui::Button::new("Add profile"))
                    .clicked()
                {
                    let n = p.profiles.len() + 1;
                    p.profiles.push(AgentProfile {
                        name: format!("agent{n}"),
                        ..default_profiles()[0].clone()
                    });
                }
                if ui.button("Defaults").clicked() {
                    p.profiles = default_profiles();
                }
                if ui
                    .add_enabled(
                        !p.busy() && !p.profiles.is_empty(),
                        egui::Button::new("Build profiles"),
                    )
                    .clicked()
                {
                    p.start_build(&state);
                }
            });
            if p.busy() {
                ui.label("Building…");
            }
            if let Some(err) = &p.error {
                ui.colored_label(egui::Color32::from_rgb(255, 110, 110), err);
            }
            if p.results.is_empty() {
                return;
            }
            ui.separator();
            if let Some(ms) = p.build_ms {
                ui.label(format!("{} profiles built in {ms:.0} ms", p.results.len()));
            }
            for (slot, result) in p.results.iter_mut().enumerate() {
                let [r, g, b, _] = navlab::debug_draw::channels(COLORS[slot]);
                ui.horizontal(|ui| {
                    ui.checkbox(&mut result.visible, "");
                    ui.colored_label(egui::Color32::from_rgb(r, g, b), &result.profile.name);
                    match &result.nav_mesh {
                        Ok(mesh) => ui.label(format!(
                            "{} polygons",
                            mesh.poly_count()
                        )),
                        Err(err) => ui.colored_label(egui::Color32::from_rgb(255, 110, 110), err),
                    };
                });
            }
            if p.seeds.len() < 2 {
                ui.label("Reachability: place seeds with Prune Navmesh, load test cases, or set the tester's start and end.");
                return;
            }
            ui.separator();
            ui.label(format!("Reachability between {} seeds (row reaches column)", p.seeds.len()));
            for (slot, (result, matrix)) in p.results.iter().zip(&p.matrix).enumerate() {
                let [r, g, b, _] = navlab::debug_draw::channels(COLORS[slot]);
                ui.colored_label(egui::Color32::from_rgb(r, g, b), &result.profile.name);
                egui::Grid::new(("reach", slot)).spacing([4.0, 2.0]).show(ui, |ui| {
                    ui.label("");
                    for j in 0..p.seeds.len() {
                        ui.label(format!("{}", j + 1));
                    }
                    ui.end_row();
                    for (i, row) in matrix.iter().enumerate() {
                        ui.label(format!("{}", i + 1));
                        for &reach in row {
                            if reach {
                                ui.colored_label(egui::Color32::from_rgb(90, 220, 110), "■");
                            } else {
                                ui.colored_label(egui::Color32::from_rgb(230, 80, 80), "–");
                            }
                        }
                        ui.end_row();
                    }
                });
            }
        });
    p.open = open;
    Ok(())
}
