//! The egui interface, laid out as RecastDemo's: Properties on the right (mesh, every build
//! parameter with RecastDemo's defaults and ranges, Build, draw mode), Tools on the left, the Log
//! at the bottom, a menu bar, error toasts, and the keys (Tab hides the UI, `[` `]` step through
//! the stages; Esc is [`crate::viewer::quit`]'s).

use std::time::{Duration, Instant};

use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};

use crate::viewer::build::{BuildRequest, BuildState, BuildStatus, LogLevel, Sample, ViewerLog};
use crate::viewer::camera::MainCamera;
use crate::viewer::draw::{CullBackFaces, DrawMode, DrawStats, WatershedView};
use crate::viewer::files::{self, OpenDialog, RecentFiles, SampleMeshes};
use crate::viewer::navmesh::{NavMeshRequest, ShownNavMesh};
use crate::viewer::picking::PointerHit;
use crate::viewer::quit::QuitRequest;
use crate::viewer::saving::{MeshExportOptions, MeshFormat, SaveRequest};
use crate::viewer::test_cases::TestCases;
use crate::viewer::tools::{ToolOutput, Tools, tool_context};
use crate::viewer::typing::TypingInUi;
use navlab::bake::settings::BuildSettings;
use navlab::bake::solo::Stage;
use navlab::bake::validate::{BuildShape, Severity, settings_report};
use navlab::recast::config::calc_grid_size;
use navlab::recast::region::PartitionType;

/// Panel width: RecastDemo's 250 plus room for egui's value boxes beside the sliders.
const PANEL_WIDTH: f32 = 310.0;
/// RecastDemo's log height.
const LOG_HEIGHT: f32 = 200.0;
/// The smallest free area, in pixels, the 3D view is confined to.
const MIN_VIEWPORT: UVec2 = UVec2::new(200, 150);
/// How long an error toast stays up.
const TOAST_TIME: Duration = Duration::from_secs(6);
/// egui's Small text, which hints and read-outs use, in points (egui's own 9 is hard to read).
const SMALL_TEXT_SIZE: f32 = 12.0;

/// Which parts of the interface are shown.
#[derive(Resource)]
pub struct UiVisibility {
    /// Everything (Tab toggles).
    pub all: bool,
    pub log: bool,
    pub tools: bool,
}

impl Default for UiVisibility {
    fn default() -> Self {
        Self {
            all: true,
            log: true,
            tools: true,
        }
    }
}

pub struct UiPlugin;

impl Plugin for UiPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<UiVisibility>()
            .add_systems(Update, shortcuts)
            .add_systems(EguiPrimaryContextPass, draw_ui)
            .add_systems(EguiPrimaryContextPass, set_text_sizes.before(draw_ui));
    }
}

/// Sets the text sizes once, on the first frame of the panels' egui context.
fn set_text_sizes(mut contexts: EguiContexts, mut done: Local<bool>) -> Result {
    if !*done {
        readable_small_text(contexts.ctx_mut()?);
        *done = true;
    }
    Ok(())
}

/// Makes egui's Small text readable, in every theme.
fn readable_small_text(ctx: &egui::Context) {
    ctx.all_styles_mut(|style| {
        if let Some(font) = style.text_styles.get_mut(&egui::TextStyle::Small) {
            font.size = SMALL_TEXT_SIZE;
        }
    });
}

fn shortcuts(
    keys: Res<ButtonInput<KeyCode>>,
    typing: Option<Res<TypingInUi>>,
    mut visibility: ResMut<UiVisibility>,
    mut mode: ResMut<DrawMode>,
) {
    // A button focused by Tab keeps the shortcuts; only a text field takes the keys.
    if typing.is_some_and(|t| t.0) {
        return;
    }
    if keys.just_pressed(KeyCode::Tab) {
        visibility.all = !visibility.all;
    }
    if keys.just_pressed(KeyCode::BracketLeft) {
        *mode = mode.step(-1);
    }
    if keys.just_pressed(KeyCode::BracketRight) {
        *mode = mode.step(1);
    }
}

/// Everything the panels read or change.
#[derive(bevy::ecs::system::SystemParam)]
struct UiParams<'w, 's> {
    state: Res<'w, BuildState>,
    log: ResMut<'w, ViewerLog>,
    mode: ResMut<'w, DrawMode>,
    tools: ResMut<'w, Tools>,
    tool_output: ResMut<'w, ToolOutput>,
    test_cases: ResMut<'w, TestCases>,
    visibility: ResMut<'w, UiVisibility>,
    recent: Res<'w, RecentFiles>,
    samples: Res<'w, SampleMeshes>,
    dialog: ResMut<'w, OpenDialog>,
    pointer: Res<'w, PointerHit>,
    stats: Res<'w, DrawStats>,
    watershed: ResMut<'w, WatershedView>,
    cull_back_faces: ResMut<'w, CullBackFaces>,
    requests: MessageWriter<'w, BuildRequest>,
    shown_nav_mesh: Res<'w, ShownNavMesh>,
    nav_mesh_requests: MessageWriter<'w, NavMeshRequest>,
    save_requests: MessageWriter<'w, SaveRequest>,
    export_options: ResMut<'w, MeshExportOptions>,
    quit: MessageWriter<'w, QuitRequest>,
    game_link: ResMut<'w, crate::viewer::game_link::GameLink>,
    comparison: ResMut<'w, crate::viewer::compare::Comparison>,
    profiles: ResMut<'w, crate::viewer::profiles::AgentProfiles>,
    pins: MessageWriter<'w, crate::viewer::compare::PinBaseline>,
    heat_legend: Res<'w, crate::viewer::draw::heat_maps::HeatLegend>,
    cameras: Query<'w, 's, &'static mut Camera, With<MainCamera>>,
}

fn draw_ui(mut contexts: EguiContexts, mut p: UiParams) -> Result {
    let ctx = contexts.ctx_mut()?.clone();
    p.log.toasts.retain(|(_, at)| at.elapsed() < TOAST_TIME);
    show_toasts(&ctx, &p.log);
    if !p.visibility.all {
        set_3d_viewport(&mut p.cameras, None, 1.0);
        return Ok(());
    }
    let mut root = egui::Ui::new(
        ctx.clone(),
        "navlab-root".into(),
        egui::UiBuilder::new()
            .layer_id(egui::LayerId::background())
            .max_rect(ctx.viewport_rect()),
    );
    egui::Panel::top("menu").show(&mut root, |ui| menu_bar(ui, &mut p));
    egui::Panel::right("properties")
        .exact_size(PANEL_WIDTH)
        .show(&mut root, |ui| {
            egui::ScrollArea::vertical().show(ui, |ui| properties(ui, &mut p));
        });
    let tools_width = if p.visibility.tools {
        egui::Panel::left("tools")
            .exact_size(PANEL_WIDTH)
            .show(&mut root, |ui| tools_panel(ui, &mut p))
            .response
            .rect
            .width()
    } else {
        0.0
    };
    if p.visibility.log {
        egui::Panel::bottom("log")
            .resizable(true)
            .default_size(LOG_HEIGHT)
            .show(&mut root, |ui| log_panel(ui, &p.log));
    }
    let free = root.available_rect_before_wrap();
    set_3d_viewport(&mut p.cameras, Some(free), ctx.pixels_per_point());
    egui::Area::new("help".into())
        .fixed_pos(egui::pos2(tools_width + 30.0, 30.0))
        .interactable(false)
        .show(&ctx, |ui| {
            ui.label(
                egui::RichText::new(
                    "W/A/S/D: Move  RMB: Rotate  MMB: Pan  Wheel: Zoom  LMB: Pick  [ ]: Stage  Tab: UI",
                )
                .color(egui::Color32::from_gray(230)),
            );
        });
    egui::Area::new("stage-bar".into())
        .fixed_pos(egui::pos2(tools_width + 30.0, 56.0))
        .show(&ctx, |ui| {
            egui::Frame::popup(ui.style()).show(ui, |ui| stage_bar(ui, &mut p));
        });
    crate::viewer::draw::heat_maps::show_legend(&ctx, *p.mode, &p.heat_legend);
    Ok(())
}

/// Gives the 3D camera the part of the target the panels leave free (`None`: all of it), so
/// the scene is framed in what can be seen.
fn set_3d_viewport(
    cameras: &mut Query<&mut Camera, With<MainCamera>>,
    free: Option<egui::Rect>,
    pixels_per_point: f32,
) {
    let Ok(mut camera) = cameras.single_mut() else {
        return;
    };
    let viewport = free
        .zip(camera.physical_target_size())
        .and_then(|(rect, target)| {
            let min = (Vec2::new(rect.min.x, rect.min.y) * pixels_per_point)
                .round()
                .as_uvec2()
                .min(target);
            let max = (Vec2::new(rect.max.x, rect.max.y) * pixels_per_point)
                .round()
                .as_uvec2()
                .min(target);
            let size = max.saturating_sub(min);
            // In a window too small for the panels, draw under them rather than in a sliver.
            (size.x >= MIN_VIEWPORT.x && size.y >= MIN_VIEWPORT.y).then(|| bevy::camera::Viewport {
                physical_position: min,
                physical_size: size,
                ..default()
            })
        });
    // Only write on change: a write marks the camera changed and recomputes its projection.
    let key = |v: &Option<bevy::camera::Viewport>| {
        v.as_ref().map(|v| (v.physical_position, v.physical_size))
    };
    if key(&camera.viewport) != key(&viewport) {
        camera.viewport = viewport;
    }
}

fn show_toasts(ctx: &egui::Context, log: &ViewerLog) {
    if log.toasts.is_empty() {
        return;
    }
    egui::Area::new("toasts".into())
        .anchor(egui::Align2::CENTER_TOP, egui::vec2(0.0, 40.0))
        .interactable(false)
        .show(ctx, |ui| {
            for (text, _) in &log.toasts {
                egui::Frame::popup(ui.style())
                    .fill(egui::Color32::from_rgb(120, 30, 30))
                    .show(ui, |ui| {
                        ui.label(egui::RichText::new(text).color(egui::Color32::WHITE));
                    });
            }
        });
}

fn menu_bar(ui: &mut egui::Ui, p: &mut UiParams) {
    egui::MenuBar::new().ui(ui, |ui| {
        ui.menu_button("File", |ui| {
            if ui.button("Open…").clicked() {
                p.dialog.open();
            }
            ui.menu_button("Open Recent", |ui| {
                if p.recent.paths.is_empty() {
                    ui.label("(none)");
                }
                for path in &p.recent.paths {
                    if ui.button(path.display().to_string()).clicked() {
                        p.requests.write(BuildRequest::Open(path.clone()));
                    }
                }
            });
            if ui.button("Default Scene").clicked() {
                p.requests.write(BuildRequest::Scene(std::sync::Arc::new(
                    crate::viewer::build::SceneData::default_scene(),
                )));
            }
            if ui.button("Connect to a running Bevy game…").clicked() {
                p.game_link.open = true;
            }
            ui.separator();
            if ui.button("Export navmesh…").clicked() {
                p.nav_mesh_requests.write(NavMeshRequest::ExportDialog);
            }
            if ui.button("Load navmesh…").clicked() {
                p.nav_mesh_requests.write(NavMeshRequest::LoadDialog);
            }
            ui.menu_button("Export detail mesh", |ui| {
                if ui.button("OBJ…").clicked() {
                    p.save_requests
                        .write(SaveRequest::ExportMeshDialog(MeshFormat::Obj));
                }
                if ui.button("glTF…").clicked() {
                    p.save_requests
                        .write(SaveRequest::ExportMeshDialog(MeshFormat::Gltf));
                }
                let options = &mut p.export_options.0;
                ui.checkbox(&mut options.z_up, "Z up (Blender, Unreal)");
                ui.add(
                    egui::DragValue::new(&mut options.scale)
                        .range(0.001..=1000.0)
                        .speed(0.01)
                        .prefix("Scale "),
                );
            });
            if ui.button("Run test cases…  (T)").clicked() {
                p.test_cases.pick_file();
            }
            ui.separator();
            if ui.button("Save geometry set…  (9)").clicked() {
                p.save_requests.write(SaveRequest::GeomSetDialog);
            }
            if ui.button("Save settings…").clicked() {
                p.save_requests.write(SaveRequest::SettingsDialog);
            }
            if ui.button("Open settings…").clicked() {
                p.save_requests.write(SaveRequest::OpenSettingsDialog);
            }
            if ui.button("Reset to RecastDemo defaults").clicked() {
                p.requests
                    .write(BuildRequest::Settings(BuildSettings::default()));
            }
            ui.separator();
            if ui.button("Quit").clicked() {
                p.quit.write(QuitRequest);
            }
        });
        ui.menu_button("Tuning", |ui| {
            if ui.button("Compare A/B…  (B pins)").clicked() {
                p.comparison.open = true;
            }
            if ui.button("Agent Profiles…").clicked() {
                p.profiles.open = true;
            }
        });
        ui.menu_button("View", |ui| {
            ui.checkbox(&mut p.visibility.log, "Build Log");
            ui.checkbox(&mut p.visibility.tools, "Tools Panel");
            ui.checkbox(&mut p.cull_back_faces.0, "Cull back faces");
            let mut in_app = files::uses_in_app_browser();
            if ui
                .checkbox(&mut in_app, "In-app file browser")
                .on_hover_text(
                    "Open and save files in Navlab's own browser, not the desktop's dialog",
                )
                .changed()
            {
                files::use_in_app_browser(in_app);
            }
        });
    });
}

fn properties(ui: &mut egui::Ui, p: &mut UiParams) {
    ui.heading("Properties");
    ui.label("Show");
    ui.checkbox(&mut p.visibility.log, "Build Log");
    ui.checkbox(&mut p.visibility.tools, "Tools Panel");
    ui.separator();

    ui.label("Sample");
    let mut sample = p.state.sample;
    egui::ComboBox::from_id_salt("sample")
        .selected_text(sample.label())
        .width(PANEL_WIDTH - 30.0)
        .show_ui(ui, |ui| {
            for s in Sample::ALL {
                ui.selectable_value(&mut sample, s, s.label());
            }
        });
    if sample != p.state.sample {
        p.requests.write(BuildRequest::Sample(sample));
    }
    ui.label("Input Mesh");
    let state = &p.state;
    let mut open_path = None;
    egui::ComboBox::from_id_salt("input-mesh")
        .selected_text(state.scene.name.clone())
        .width(PANEL_WIDTH - 30.0)
        .show_ui(ui, |ui| {
            let shown = state.scene.input.source.as_deref();
            for path in &p.recent.paths {
                if mesh_choice(ui, path, shown) {
                    open_path = Some(path.clone());
                }
            }
            let samples: Vec<_> = p
                .samples
                .paths
                .iter()
                .filter(|path| !p.recent.paths.contains(path))
                .collect();
            if !samples.is_empty() && !p.recent.paths.is_empty() {
                ui.separator();
            }
            for path in samples {
                if mesh_choice(ui, path, shown) {
                    open_path = Some(path.clone());
                }
            }
            if p.recent.paths.is_empty() && p.samples.paths.is_empty() {
                ui.weak("(no recent or sample meshes)");
            }
        });
    if let Some(path) = open_path {
        p.requests.write(BuildRequest::Open(path));
    }
    if ui
        .add_enabled(!p.dialog.is_open(), egui::Button::new("Open…"))
        .clicked()
    {
        p.dialog.open();
    }
    let mesh = &state.scene.input.mesh;
    ui.label(format!(
        "Verts: {:.1}k  Tris: {:.1}k",
        mesh.vert_count() as f32 / 1000.0,
        mesh.tri_count() as f32 / 1000.0
    ));
    ui.separator();
    // Build and the draw mode come first, so they show without scrolling at 1280 x 800.
    let mut auto_rebuild = state.auto_rebuild;
    if setting_checkbox(ui, &mut auto_rebuild, "Auto-rebuild").changed() {
        p.requests.write(BuildRequest::AutoRebuild(auto_rebuild));
    }
    if ui
        .add_sized([PANEL_WIDTH - 30.0, 24.0], egui::Button::new("Build"))
        .clicked()
    {
        p.requests.write(BuildRequest::Rebuild);
    }
    status(ui, state, None);
    ui.horizontal(|ui| {
        if ui.button("Pin as baseline (B)").clicked() {
            p.pins.write(crate::viewer::compare::PinBaseline(true));
        }
        if ui.button("Agent profiles…").clicked() {
            p.profiles.open = true;
        }
    });
    nav_mesh_file(ui, state, &p.shown_nav_mesh, &mut p.nav_mesh_requests);
    ui.separator();
    ui.label("Debug Settings");
    let mut mode = *p.mode;
    let (recastdemo_text, heat_text) = mode.combo_texts();
    let (heat_maps, recastdemo_modes): (Vec<DrawMode>, Vec<DrawMode>) =
        DrawMode::ALL.iter().partition(|m| m.is_heat_map());
    egui::ComboBox::from_id_salt("draw-mode")
        .selected_text(recastdemo_text)
        .width(PANEL_WIDTH - 30.0)
        // Every mode in view at once, as RecastDemo lists them, rather than a list to scroll.
        .height(recastdemo_modes.len() as f32 * 24.0)
        .show_ui(ui, |ui| {
            for m in recastdemo_modes {
                ui.selectable_value(&mut mode, m, m.label());
            }
        });
    ui.horizontal(|ui| {
        ui.label("Heat map");
        egui::ComboBox::from_id_salt("heat-map")
            .selected_text(heat_text)
            .width(PANEL_WIDTH - 100.0)
            .height(heat_maps.len() as f32 * 24.0)
            .show_ui(ui, |ui| {
                for m in heat_maps {
                    ui.selectable_value(&mut mode, m, m.label());
                }
            });
    });
    ui.horizontal(|ui| {
        if ui.button("◀ Prev [").clicked() {
            mode = mode.step(-1);
        }
        if ui.button("Next ] ▶").clicked() {
            mode = mode.step(1);
        }
    });
    if mode != *p.mode {
        *p.mode = mode;
    }
    stage_info(ui, state, mode);
    ui.separator();

    let mut settings = state.settings.clone();
    settings_ui(ui, &mut settings, mesh.bounds());
    if settings != state.settings {
        p.requests.write(BuildRequest::Settings(settings));
    }
    if state.sample == Sample::TempObstacles {
        temp_obstacles_ui(ui, state, &mut p.requests);
    }
    if state.sample == Sample::TileMesh {
        ui.strong("Tiling");
        let mut tile_size = state.tile_size;
        setting_slider(ui, &mut tile_size, 16..=1024, 16.0, "Tile Size");
        if tile_size != state.tile_size {
            p.requests.write(BuildRequest::TileSize(tile_size));
        }
        let (w, h) = calc_grid_size(&mesh.bounds().0, &mesh.bounds().1, state.settings.cell_size);
        let tiles = |cells: i32| (cells + tile_size - 1) / tile_size;
        ui.label(format!("Tiles  {} x {}", tiles(w), tiles(h)));
    }
    settings_report_ui(ui, state);
    ui.separator();

    if let Some((layer, time, tris, lines)) = p.stats.last_rebuild {
        ui.small(format!(
            "Last redraw: {layer}, {tris} tris, {lines} lines, {:.1} ms",
            time.as_secs_f64() * 1000.0
        ));
    }
}

/// One mesh of the Input Mesh list (recent files, then the sample meshes), by its file name;
/// true when clicked.
fn mesh_choice(ui: &mut egui::Ui, path: &std::path::Path, shown: Option<&std::path::Path>) -> bool {
    let name = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into(),
    );
    ui.selectable_label(shown == Some(path), name)
        .on_hover_text(path.display().to_string())
        .clicked()
}

/// Over the 3D view: the draw mode with ◀ ▶ (the `[` `]` keys), the stage's time, the build's
/// progress or the last log line, and the watershed replay when Compact Regions is shown.
fn stage_bar(ui: &mut egui::Ui, p: &mut UiParams) {
    let mut mode = *p.mode;
    ui.horizontal(|ui| {
        if ui
            .small_button("◀")
            .on_hover_text("Previous stage ([)")
            .clicked()
        {
            mode = mode.step(-1);
        }
        ui.strong(mode.label());
        if ui
            .small_button("▶")
            .on_hover_text("Next stage (])")
            .clicked()
        {
            mode = mode.step(1);
        }
        stage_info(ui, &p.state, mode);
    });
    if mode != *p.mode {
        *p.mode = mode;
    }
    let last_line = p.log.lines.last().map(|(_, text)| text.as_str());
    status(ui, &p.state, Some(last_line.unwrap_or("")));
    if mode == DrawMode::CompactRegions && WatershedView::available(&p.state) {
        watershed_slider(ui, &mut p.watershed);
    }
}

/// Temp Obstacles' settings and read-outs (`Sample_TempObstacles::drawSettingsUI`).
fn temp_obstacles_ui(
    ui: &mut egui::Ui,
    state: &BuildState,
    requests: &mut MessageWriter<BuildRequest>,
) {
    let mut keep = state.keep_intermediate;
    if setting_checkbox(ui, &mut keep, "Keep Intermediate Results")
        .on_hover_text("Highlight Tile Cache keeps the steps of the layers it shows")
        .changed()
    {
        requests.write(BuildRequest::KeepIntermediate(keep));
    }
    ui.strong("Tiling");
    let mut tile_size = state.obstacle_tile_size;
    setting_slider(ui, &mut tile_size, 16..=128, 1.0, "TileSize");
    if tile_size != state.obstacle_tile_size {
        requests.write(BuildRequest::TileSize(tile_size));
    }
    let Some(view) = &state.temp_obstacles else {
        ui.small("Build to see the tile cache.");
        return;
    };
    let build = &view.build;
    let stats = &build.stats;
    ui.label(format!("Tiles  {} x {}", build.tiles_x, build.tiles_y));
    ui.label(format!("Max Tiles  {}", build.nav_mesh_params.max_tiles));
    ui.label(format!("Max Polys  {}", build.nav_mesh_params.max_polys));
    ui.strong("Tile Cache");
    let grid = (build.tiles_x * build.tiles_y).max(1);
    ui.label(format!("Layers  {}", stats.layers));
    ui.label(format!(
        "Layers (per tile)  {:.1}",
        stats.layers as f32 / grid as f32
    ));
    ui.label(format!(
        "Memory  {:.1} kB / {:.1} kB ({:.1}%)",
        stats.compressed_bytes as f32 / 1024.0,
        stats.raw_bytes as f32 / 1024.0,
        if stats.raw_bytes > 0 {
            stats.compressed_bytes as f32 / stats.raw_bytes as f32 * 100.0
        } else {
            0.0
        }
    ));
    ui.label(format!(
        "Navmesh Build Time  {:.1} ms",
        stats.nav_mesh_build_ms
    ));
    ui.label(format!("Whole Build Time  {:.1} ms", view.build_ms));
    ui.label(format!(
        "Build Peak Mem Usage  {:.1} kB",
        stats.peak_scratch_bytes as f32 / 1024.0
    ))
    .on_hover_text("Of the demo's 32000-byte scratch allocator, which a tile build must fit");
    if stats.failed_builds > 0 {
        ui.colored_label(
            egui::Color32::from_rgb(230, 150, 40),
            format!(
                "{} layer builds did not fit the scratch allocator (no tile, as in RecastDemo)",
                stats.failed_builds
            ),
        );
    }
    let live = build.obstacles.live().count();
    ui.label(format!("Obstacles  {live}"));
}

/// Adds what `add` draws under an id made from `key` alone. egui numbers widgets by their
/// position, and the rows above the settings change shape (a navmesh file shown, a build
/// running): a position-based id would hand a drag in progress to the widget above.
fn keyed<R>(ui: &mut egui::Ui, key: &str, add: impl FnOnce(&mut egui::Ui) -> R) -> R {
    let id = egui::Id::new(("navlab-setting", key));
    ui.scope_builder(egui::UiBuilder::new().id(id), add).inner
}

/// A setting's slider, keyed by its label.
fn setting_slider<N: egui::emath::Numeric>(
    ui: &mut egui::Ui,
    value: &mut N,
    range: std::ops::RangeInclusive<N>,
    step: f64,
    label: &str,
) {
    keyed(ui, label, |ui| {
        ui.add(egui::Slider::new(value, range).step_by(step).text(label))
    });
}

/// A setting's checkbox, keyed by its label.
fn setting_checkbox(ui: &mut egui::Ui, value: &mut bool, label: &str) -> egui::Response {
    keyed(ui, label, |ui| ui.checkbox(value, label))
}

/// RecastDemo's build parameters, with its ranges and steps.
fn settings_ui(ui: &mut egui::Ui, s: &mut BuildSettings, bounds: ([f32; 3], [f32; 3])) {
    ui.spacing_mut().slider_width = 100.0;
    ui.strong("Rasterization");
    setting_slider(ui, &mut s.cell_size, 0.1..=1.0, 0.01, "Cell Size");
    setting_slider(ui, &mut s.cell_height, 0.1..=1.0, 0.01, "Cell Height");
    let (w, h) = calc_grid_size(&bounds.0, &bounds.1, s.cell_size);
    ui.label(format!("Voxels  {w} x {h}"));
    ui.strong("Agent");
    setting_slider(ui, &mut s.agent_height, 0.1..=5.0, 0.1, "Height");
    setting_slider(ui, &mut s.agent_radius, 0.0..=5.0, 0.1, "Radius");
    setting_slider(ui, &mut s.agent_max_climb, 0.1..=5.0, 0.1, "Max Climb");
    setting_slider(ui, &mut s.agent_max_slope, 0.0..=90.0, 1.0, "Max Slope");
    ui.strong("Region");
    setting_slider(
        ui,
        &mut s.region_min_size,
        0.0..=150.0,
        1.0,
        "Min Region Size",
    );
    setting_slider(
        ui,
        &mut s.region_merge_size,
        0.0..=150.0,
        1.0,
        "Merged Region Size",
    );
    setting_checkbox(
        ui,
        &mut s.split_overlapping_regions,
        "Split Overlapping Regions",
    )
    .on_hover_text(
        "Beyond RecastDemo: cut a region that overlaps itself in height (a spiral ramp) \
         into pieces, so no part of it is lost",
    );
    ui.strong("Partitioning");
    for (partition, label) in
        PartitionType::ALL
            .into_iter()
            .zip(["Watershed", "Monotone", "Layers"])
    {
        keyed(ui, label, |ui| {
            ui.radio_value(&mut s.partition_type, partition, label)
        });
    }
    ui.strong("Filtering");
    setting_checkbox(
        ui,
        &mut s.filter_low_hanging_obstacles,
        "Low Hanging Obstacles",
    );
    setting_checkbox(ui, &mut s.filter_ledge_spans, "Ledge Spans");
    setting_checkbox(
        ui,
        &mut s.filter_walkable_low_height_spans,
        "Walkable Low Height Spans",
    );
    ui.strong("Polygonization");
    setting_slider(ui, &mut s.edge_max_len, 0.0..=50.0, 1.0, "Max Edge Length");
    setting_slider(ui, &mut s.edge_max_error, 0.1..=3.0, 0.1, "Max Edge Error");
    setting_slider(ui, &mut s.verts_per_poly, 3.0..=12.0, 1.0, "Verts Per Poly");
    ui.strong("Detail Mesh");
    setting_slider(
        ui,
        &mut s.detail_sample_dist,
        0.0..=16.0,
        1.0,
        "Sample Distance",
    );
    setting_slider(
        ui,
        &mut s.detail_sample_max_error,
        0.0..=16.0,
        1.0,
        "Max Sample Error",
    );
    ui.strong("Navmesh");
    setting_checkbox(ui, &mut s.long_range_links, "Long-Range Links").on_hover_text(
        "Beyond RecastDemo: off-mesh links whose ends lie in tiles that are not neighbours \
         are kept and joined (Detour drops them)",
    );
    let mut wide_refs = s.poly_refs == 64;
    let toggled = setting_checkbox(ui, &mut wide_refs, "64-bit Poly Refs")
        .on_hover_text(
            "Detour built with DT_POLYREF64: room for 2^28 tiles (32-bit references hold 2^14 in \
             Tile Mesh), and its files",
        )
        .changed();
    if toggled {
        s.poly_refs = if wide_refs { 64 } else { 32 };
    }
}

/// Beyond RecastDemo (Unity has one): the settings report, warnings in yellow and what would
/// stop the build in red, updated as the settings change.
fn settings_report_ui(ui: &mut egui::Ui, state: &BuildState) {
    let shape = BuildShape {
        bounds: state.scene.input.nav_mesh_bounds().ok(),
        tile_size: (state.sample == Sample::TileMesh).then_some(state.tile_size),
        detour: true,
    };
    let report = settings_report(&state.settings, shape);
    if report.is_empty() {
        return;
    }
    ui.strong("Check");
    for finding in report {
        let color = match finding.severity {
            Severity::Warning => egui::Color32::from_rgb(230, 190, 60),
            Severity::Error => egui::Color32::from_rgb(240, 90, 80),
        };
        ui.label(
            egui::RichText::new(format!("{}: {}", finding.setting, finding.message))
                .small()
                .color(color),
        );
    }
}

/// Beyond RecastDemo: the regions as they were after each watershed flooding level.
fn watershed_slider(ui: &mut egui::Ui, view: &mut WatershedView) {
    setting_checkbox(ui, &mut view.enabled, "Show watershed flooding");
    if !view.enabled || view.levels.is_empty() {
        return;
    }
    let last = view.levels.len() - 1;
    setting_slider(ui, &mut view.step, 0..=last, 1.0, "Step");
    let flood = &view.levels[view.step];
    ui.small(if view.step == last {
        format!("Final expansion: {} regions before merging", flood.count)
    } else {
        format!("Distance level {}: {} regions", flood.level, flood.count)
    });
}

/// The build's state as a row of fixed shape: a spinner (or its space), one line of text, and a
/// progress bar that is laid out even while idle. Widgets below it keep their place and ids
/// whether a build runs or not. `idle_text` replaces the idle line when given.
fn status(ui: &mut egui::Ui, state: &BuildState, idle_text: Option<&str>) {
    let busy = !matches!(state.status, BuildStatus::Idle);
    let text = match &state.status {
        BuildStatus::Idle => match (idle_text, state.last_build) {
            (Some(text), _) => text.to_owned(),
            (None, Some((from, time))) => format!(
                "Build Time: {:.1} ms (from {})",
                time.as_secs_f64() * 1000.0,
                from.name()
            ),
            (None, None) if state.build.is_none() => "No navmesh.".to_owned(),
            (None, None) => String::new(),
        },
        BuildStatus::Loading { name, since } => format!("Loading {name}… {}", elapsed_ms(*since)),
        BuildStatus::Building { from, since } => {
            format!("Building from {}… {}", from.name(), elapsed_ms(*since))
        }
    };
    ui.horizontal(|ui| {
        let size = egui::Vec2::splat(ui.spacing().interact_size.y);
        if busy {
            ui.add_sized(size, egui::Spinner::new());
        } else {
            ui.allocate_space(size);
        }
        ui.label(text);
    });
    progress_bar(ui, state, busy);
}

/// The running job's progress: its stage (k of n) and, for tiled builds, tiles done of total.
/// Always laid out; drawn only while `busy`.
fn progress_bar(ui: &mut egui::Ui, state: &BuildState, busy: bool) {
    let view = state.progress.view();
    let stage = view.stage.and_then(|i| Stage::ALL.get(i)).map(|s| s.name());
    let text = match (view.tiles, view.step, stage) {
        (Some((done, total)), _, _) => format!("{} {done} of {total}", view.tile_phase.label()),
        (None, Some((k, n)), Some(name)) => format!("Stage {k} of {n}: {name}"),
        _ => String::new(),
    };
    let fraction = view.fraction();
    ui.add_visible(
        busy && fraction.is_some(),
        egui::ProgressBar::new(fraction.unwrap_or(0.0))
            .desired_width(260.0)
            .text(text),
    );
}

/// Export and load buttons, and which navmesh is on screen.
fn nav_mesh_file(
    ui: &mut egui::Ui,
    state: &BuildState,
    shown: &ShownNavMesh,
    requests: &mut MessageWriter<NavMeshRequest>,
) {
    let can_export = shown.get(state).is_some();
    ui.horizontal(|ui| {
        if ui
            .add_enabled(can_export, egui::Button::new("Export navmesh…"))
            .clicked()
        {
            requests.write(NavMeshRequest::ExportDialog);
        }
        if ui.button("Load navmesh…").clicked() {
            requests.write(NavMeshRequest::LoadDialog);
        }
    });
    if let Some(loaded) = shown.loaded() {
        let name = loaded.path.file_name().map_or_else(
            || loaded.path.display().to_string(),
            |n| n.to_string_lossy().into(),
        );
        ui.small(format!(
            "Showing {name} ({} tiles) until the next build",
            loaded.mesh.tile_count()
        ))
        .on_hover_text(loaded.path.display().to_string());
    }
}

fn elapsed_ms(since: Instant) -> String {
    format!("{:.0} ms", since.elapsed().as_secs_f64() * 1000.0)
}

/// The stage the current mode shows, with the time it took in the last build that ran it.
fn stage_info(ui: &mut egui::Ui, state: &BuildState, mode: DrawMode) {
    let Some(stage) = mode.stage() else {
        ui.small("Stage: input geometry");
        return;
    };
    if state.temp_obstacles.is_some() && !mode.shows_nav_mesh() {
        ui.small(if mode == DrawMode::CacheBounds {
            "Cache Bounds: every stored layer's bounds"
        } else {
            "Temp Obstacles keeps no stages: see a tile's layers with Highlight Tile Cache."
        });
        return;
    }
    if mode == DrawMode::CacheBounds {
        ui.small("Cache Bounds: build the Temp Obstacles sample to see the tile cache.");
        return;
    }
    if state.tiled.is_some() && !mode.shows_nav_mesh() {
        match &state.tile_report {
            Some(r) if state.inspected_tile.is_some() => ui.small(format!(
                "Stage {}: tile ({}, {}), built by Create Tiles",
                stage.name(),
                r.x,
                r.y
            )),
            _ => ui.small("Tile Mesh: click a tile with Create Tiles to see its stages."),
        };
        return;
    }
    let time = state
        .build
        .as_ref()
        .and_then(|b| b.stage_times[stage as usize]);
    let index = Stage::ALL.iter().position(|&s| s == stage).unwrap_or(0) + 1;
    ui.small(match time {
        Some(t) => format!(
            "Stage {index}/{}: {} — {:.2} ms",
            Stage::ALL.len(),
            stage.name(),
            t.as_secs_f64() * 1000.0
        ),
        None => format!("Stage {index}/{}: {}", Stage::ALL.len(), stage.name()),
    });
}

fn tools_panel(ui: &mut egui::Ui, p: &mut UiParams) {
    ui.heading("Tools");
    let listed = p.tools.listed(p.state.sample);
    let Tools { tools, active, .. } = &mut *p.tools;
    for i in listed {
        ui.radio_value(active, i, tools[i].name());
    }
    ui.separator();
    let ctx = tool_context(&p.state, &p.shown_nav_mesh, &p.pointer);
    if let Some(tool) = tools.get_mut(*active) {
        tool.ui(ui, &ctx, &mut p.tool_output);
    }
}

fn log_panel(ui: &mut egui::Ui, log: &ViewerLog) {
    ui.strong("Log");
    egui::ScrollArea::vertical()
        .stick_to_bottom(true)
        .auto_shrink([false, false])
        .show(ui, |ui| {
            for (level, line) in &log.lines {
                let text = egui::RichText::new(line).monospace();
                ui.label(match level {
                    LogLevel::Info => text,
                    LogLevel::Warning => text.color(egui::Color32::from_rgb(230, 190, 60)),
                    LogLevel::Error => text.color(egui::Color32::from_rgb(240, 90, 80)),
                });
            }
        });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_text_is_readable_in_every_theme() {
        let ctx = egui::Context::default();
        readable_small_text(&ctx);
        for theme in [egui::Theme::Dark, egui::Theme::Light] {
            let size = ctx.style_of(theme).text_styles[&egui::TextStyle::Small].size;
            assert!(size >= 12.0, "{theme:?}: {size}");
        }
    }
}
