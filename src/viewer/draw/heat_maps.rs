//! Draw plugin for the heat maps: each colours one measure of the build on screen against the
//! setting that decides it (clearance, wall distance, slope, step height, overhead clearance,
//! region area, per-tile build time and bytes, the last search's nodes by cost), and a legend
//! in the corner of the 3D view names the colours. The maps themselves are the library's
//! ([`navlab::debug_draw::heat_map`]); this plugin picks the build data each one reads.

use std::hash::{Hash, Hasher};

use bevy::prelude::*;
use bevy_egui::egui;

use super::{DrawMode, DrawSystems, LayerParams, sync_layer};
use crate::viewer::build::BuildState;
use crate::viewer::navmesh::ShownNavMesh;
use crate::viewer::tools::QueryNodes;
use navlab::bake::solo::Build;
use navlab::debug_draw::heat_map::{self, HeatMap, Legend, TileStatKind};
use navlab::recast::compact::CompactHeightfield;
use navlab::recast::context::BuildContext;

pub struct HeatMapDrawPlugin;

impl Plugin for HeatMapDrawPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<HeatLegend>()
            .init_resource::<QueryNodes>()
            .add_systems(Update, sync_heat_map.in_set(DrawSystems));
    }
}

/// The legend of the heat map on screen (`None` when no heat map is shown).
#[derive(Resource, Default)]
pub struct HeatLegend {
    pub legend: Option<Legend>,
    /// What the map could not be made from, said in place of the legend.
    pub missing: Option<&'static str>,
}

/// Which data a map needs, and what to say when it is not there.
enum Source<'a> {
    Build(&'a Build),
    Missing(&'static str),
}

fn stage_source(state: &BuildState) -> Source<'_> {
    match state.stage_build() {
        Some(build) if build.holds_intermediates() => Source::Build(build),
        Some(_) => Source::Missing("the build kept no intermediate stages"),
        None if state.tiled.is_some() => {
            Source::Missing("click a tile with Create Tiles to see its stages")
        }
        None => Source::Missing("no build yet"),
    }
}

fn sync_heat_map(
    mode: Res<DrawMode>,
    state: Res<BuildState>,
    shown: Res<ShownNavMesh>,
    nodes: Res<QueryNodes>,
    mut legend: ResMut<HeatLegend>,
    mut params: LayerParams,
) {
    let mode = *mode;
    if !mode.is_heat_map() {
        sync_layer(
            &mut params,
            "Heat Map",
            None,
            navlab::debug_draw::DebugDraw::default,
        );
        if legend.legend.is_some() || legend.missing.is_some() {
            *legend = HeatLegend::default();
        }
        return;
    }
    let settings = &state.settings;
    let nav_mesh = shown.get(&state);
    let mut key = std::collections::hash_map::DefaultHasher::new();
    mode.hash(&mut key);
    match mode {
        DrawMode::HeatSlope => {
            (state.scene_version, settings.agent_max_slope.to_bits()).hash(&mut key)
        }
        DrawMode::HeatWallDistance | DrawMode::HeatTileBuildTime | DrawMode::HeatTileBytes => {
            shown.version(&state).hash(&mut key)
        }
        DrawMode::HeatSearchNodes => (shown.version(&state), nodes.version).hash(&mut key),
        _ => mode
            .stage()
            .map(|stage| state.stage_version(stage))
            .hash(&mut key),
    }
    let mut made: Option<Result<Legend, &'static str>> = None;
    sync_layer(&mut params, "Heat Map", Some(key.finish()), || {
        let map = match mode {
            DrawMode::HeatSlope => Ok(heat_map::input_slope(
                &state.scene.input.mesh,
                settings.agent_max_slope,
            )),
            DrawMode::HeatWallDistance => nav_mesh
                .map(heat_map::wall_distance)
                .ok_or("no navmesh on screen"),
            DrawMode::HeatTileBuildTime | DrawMode::HeatTileBytes => match &state.tiled {
                Some(tiled) => Ok(heat_map::tile_stats(
                    &heat_map::tile_stats_of(tiled),
                    if mode == DrawMode::HeatTileBytes {
                        TileStatKind::Bytes
                    } else {
                        TileStatKind::BuildTime
                    },
                )),
                None => Err("per-tile figures need the Tile Mesh sample"),
            },
            DrawMode::HeatSearchNodes => match (nav_mesh, nodes.pool.as_ref()) {
                (Some(mesh), Some(pool)) => Ok(heat_map::search_nodes(mesh, pool)),
                _ => Err("find a path with Test Navmesh first"),
            },
            _ => match stage_source(&state) {
                Source::Build(build) => Ok(stage_map(mode, build)),
                Source::Missing(why) => Err(why),
            },
        };
        match map {
            Ok(HeatMap { drawing, legend }) => {
                made = Some(Ok(legend));
                drawing
            }
            Err(why) => {
                made = Some(Err(why));
                Default::default()
            }
        }
    });
    match made {
        Some(Ok(new)) => {
            legend.legend = Some(new);
            legend.missing = None;
        }
        Some(Err(why)) => {
            legend.legend = None;
            legend.missing = Some(why);
        }
        None => {}
    }
}

/// The maps made from a build's stages.
fn stage_map(mode: DrawMode, build: &Build) -> HeatMap {
    let cfg = &build.config;
    let settings = &build.settings;
    match mode {
        DrawMode::HeatOverheadClearance => {
            heat_map::overhead_clearance(&build.heightfield_filtered, settings.agent_height)
        }
        DrawMode::HeatStepHeight => {
            heat_map::step_height(&build.compact_eroded(), settings.agent_max_climb)
        }
        DrawMode::HeatRegionArea => {
            heat_map::region_area(&build.regions, cfg.min_region_area, cfg.merge_region_area)
        }
        _ => heat_map::clearance(&with_distance_field(&build.regions)),
    }
}

/// The compact heightfield with its distance field: the build's own (watershed), or one made
/// on a copy for the other partitions, which do not need it.
fn with_distance_field(chf: &CompactHeightfield) -> std::borrow::Cow<'_, CompactHeightfield> {
    if chf.dist.len() == chf.spans.len() {
        return std::borrow::Cow::Borrowed(chf);
    }
    let mut copy = chf.clone();
    // A field that fails to build (out of memory) is drawn empty rather than stopping the view.
    if navlab::recast::distance_field::build_distance_field(&mut BuildContext::new(), &mut copy)
        .is_err()
    {
        copy.dist.clear();
    }
    std::borrow::Cow::Owned(copy)
}

/// The legend at the bottom right of the 3D view: a colour bar with the values at its stops
/// and the setting's marks. The panels draw it (so Tab hides it with them).
pub fn show_legend(ctx: &egui::Context, mode: DrawMode, legend: &HeatLegend) {
    if !mode.is_heat_map() {
        return;
    }
    egui::Window::new("Legend")
        .title_bar(false)
        .resizable(false)
        .anchor(egui::Align2::RIGHT_BOTTOM, egui::vec2(-330.0, -215.0))
        .show(ctx, |ui| {
            ui.strong(mode.label());
            match (&legend.legend, legend.missing) {
                (Some(legend), _) => legend_ui(ui, legend),
                (None, Some(why)) => {
                    ui.label(why);
                }
                (None, None) => {
                    ui.label("building…");
                }
            }
        });
}

fn legend_ui(ui: &mut egui::Ui, legend: &Legend) {
    let unit = if legend.unit.is_empty() {
        String::new()
    } else {
        format!(" ({})", legend.unit)
    };
    ui.label(format!("{}{unit}", legend.title));
    let (Some(first), Some(last)) = (legend.stops.first(), legend.stops.last()) else {
        ui.label("no values");
        return;
    };
    let (lo, hi) = (first.0, last.0);
    let width = 220.0;
    let (rect, _) = ui.allocate_exact_size(egui::vec2(width, 18.0), egui::Sense::hover());
    let painter = ui.painter_at(rect);
    let steps = 64;
    for i in 0..steps {
        let t0 = i as f32 / steps as f32;
        let value = lo + (hi - lo) * (t0 + 0.5 / steps as f32);
        let color = egui_color(heat_map::ramp_color(legend, value));
        let x0 = rect.left() + t0 * width;
        let x1 = rect.left() + (i + 1) as f32 / steps as f32 * width;
        painter.rect_filled(
            egui::Rect::from_min_max(egui::pos2(x0, rect.top()), egui::pos2(x1, rect.bottom())),
            0.0,
            color,
        );
    }
    let span = (hi - lo).max(f32::EPSILON);
    for (value, _) in &legend.marks {
        let x = rect.left() + ((value - lo) / span).clamp(0.0, 1.0) * width;
        painter.line_segment(
            [
                egui::pos2(x, rect.top() - 2.0),
                egui::pos2(x, rect.bottom() + 2.0),
            ],
            egui::Stroke::new(2.0, egui::Color32::WHITE),
        );
    }
    ui.horizontal(|ui| {
        ui.label(format_value(lo));
        ui.add_space(width - 80.0);
        ui.label(format_value(hi));
    });
    for (value, name) in &legend.marks {
        ui.label(format!(
            "{name} = {} (the white mark)",
            format_value(*value)
        ));
    }
}

fn format_value(v: f32) -> String {
    if v.abs() >= 100.0 || v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}

fn egui_color(c: navlab::debug_draw::Rgba) -> egui::Color32 {
    let [r, g, b, _] = navlab::debug_draw::channels(c);
    egui::Color32::from_rgb(r, g, b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_heat_map_is_after_the_recastdemo_modes_and_named_heat() {
        for mode in DrawMode::ALL {
            assert_eq!(
                mode.is_heat_map(),
                mode.label().starts_with("Heat: "),
                "{mode:?}"
            );
        }
        assert_eq!(DrawMode::HeatSlope.slug(), "heat-slope");
        assert_eq!(
            "heat-region-area".parse::<DrawMode>(),
            Ok(DrawMode::HeatRegionArea)
        );
    }
}
