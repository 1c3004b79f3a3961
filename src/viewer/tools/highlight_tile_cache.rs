//! The Highlight Tile Cache tool (RecastDemo's TempObstacleHilightTool, Temp Obstacles sample):
//! a click picks a tile and every layer stored for it is built again step by step and drawn as
//! areas, regions, contours or its polygon mesh, each labelled "(x,y)/layer" with its
//! compressed and raw sizes. With Keep Intermediate Results on, the steps of every tile
//! highlighted stay in memory, so going back to one is instant.

use std::collections::HashMap;

use bevy::prelude::*;
use bevy_egui::egui;

use super::framework::{Tool, ToolAppExt, ToolContext, ToolOutput};
use crate::viewer::labels::Label;
use crate::viewer::picking::Hit;
use navlab::bake::temp_obstacles::{TempObstaclesBuild, raw_layer_size};
use navlab::debug_draw::DebugDraw;
use navlab::debug_draw::tile_cache::{self as draw, LayerDetail};
use navlab::tile_cache::builder::{LayerSteps, layer_steps};
use navlab::tile_cache::layer::decompress_layer;

/// Registers the Highlight Tile Cache tool.
pub struct HighlightTileCacheToolPlugin;

impl Plugin for HighlightTileCacheToolPlugin {
    fn build(&self, app: &mut App) {
        app.register_tool(HighlightTileCacheTool::default());
    }
}

/// One stored layer's steps and sizes.
struct HighlightedLayer {
    steps: LayerSteps,
    compressed_bytes: usize,
}

#[derive(Default)]
pub struct HighlightTileCacheTool {
    detail: LayerDetail,
    tile: Option<(i32, i32)>,
    /// The steps of the highlighted tiles' layers (only the current tile's unless Keep
    /// Intermediate Results is on), for the navmesh version they were made from.
    steps: HashMap<(i32, i32), Vec<HighlightedLayer>>,
    made_for: Option<u64>,
    problem: Option<String>,
}

/// The tile of the cache grid under `point`.
fn tile_at(build: &TempObstaclesBuild, point: [f32; 3]) -> Option<(i32, i32)> {
    let params = build.cache.params();
    let tile_world = params.width as f32 * params.cs;
    let tx = ((point[0] - params.orig[0]) / tile_world).floor();
    let ty = ((point[2] - params.orig[2]) / tile_world).floor();
    let inside = tx >= 0.0 && ty >= 0.0 && tx < build.tiles_x as f32 && ty < build.tiles_y as f32;
    inside.then_some((tx as i32, ty as i32))
}

/// Every layer of tile (`tx`, `ty`) built again, keeping the steps.
fn highlight(
    build: &TempObstaclesBuild,
    tx: i32,
    ty: i32,
) -> Result<Vec<HighlightedLayer>, String> {
    let cache = &build.cache;
    cache
        .layers_at(tx, ty)
        .into_iter()
        .filter_map(|r| cache.layer(r))
        .map(|(_, data)| {
            let layer = decompress_layer(data).map_err(|e| e.to_string())?;
            let steps = layer_steps(layer, cache.params(), &[]).map_err(|e| e.to_string())?;
            Ok(HighlightedLayer {
                steps,
                compressed_bytes: data.len(),
            })
        })
        .collect()
}

impl HighlightTileCacheTool {
    /// Builds the shown tile's steps if needed and hands over the drawing and labels.
    fn refresh(&mut self, ctx: &ToolContext, out: &mut ToolOutput) {
        let Some(view) = &ctx.state.temp_obstacles else {
            self.steps.clear();
            out.overlay = Some(DebugDraw::default());
            out.labels = Some(Vec::new());
            return;
        };
        if self.made_for != Some(ctx.nav_mesh_version) {
            self.steps.clear();
            self.made_for = Some(ctx.nav_mesh_version);
        }
        if !ctx.state.keep_intermediate {
            let tile = self.tile;
            self.steps.retain(|k, _| Some(*k) == tile);
        }
        let Some((tx, ty)) = self.tile else {
            out.overlay = Some(DebugDraw::default());
            out.labels = Some(Vec::new());
            return;
        };
        if let std::collections::hash_map::Entry::Vacant(slot) = self.steps.entry((tx, ty)) {
            match highlight(&view.build, tx, ty) {
                Ok(layers) => {
                    slot.insert(layers);
                    self.problem = None;
                }
                Err(e) => self.problem = Some(format!("Tile ({tx},{ty}): {e}")),
            }
        }
        let params = view.build.cache.params();
        let raw = raw_layer_size(params.width, params.height);
        let mut drawing = DebugDraw::default();
        let mut labels = Vec::new();
        for layer in self.steps.get(&(tx, ty)).into_iter().flatten() {
            drawing.append(draw::layer(&layer.steps, self.detail, params.cs, params.ch));
            let h = &layer.steps.header;
            let centre = Vec3::new(
                (h.bmin[0] + h.bmax[0]) / 2.0,
                h.bmin[1],
                (h.bmin[2] + h.bmax[2]) / 2.0,
            );
            let label = |text: String, alpha: u8, down: f32| Label {
                position: centre - Vec3::Y * down,
                text,
                color: egui::Color32::from_black_alpha(alpha),
            };
            labels.push(label(format!("({},{})/{}", h.tx, h.ty, h.tlayer), 220, 0.0));
            labels.push(label(
                format!(
                    "Compressed: {:.1} kB",
                    layer.compressed_bytes as f32 / 1024.0
                ),
                128,
                0.6,
            ));
            labels.push(label(
                format!("Raw: {:.1} kB", raw as f32 / 1024.0),
                128,
                1.2,
            ));
        }
        out.overlay = Some(drawing);
        out.labels = Some(labels);
    }
}

impl Tool for HighlightTileCacheTool {
    fn name(&self) -> &'static str {
        "Highlight Tile Cache"
    }

    fn ui(&mut self, ui: &mut egui::Ui, ctx: &ToolContext, out: &mut ToolOutput) {
        if ctx.state.temp_obstacles.is_none() {
            ui.label("Needs the Temp Obstacles sample (Properties → Sample), built.");
            return;
        }
        ui.label("Click LMB to highlight a tile.");
        ui.separator();
        let before = self.detail;
        for detail in LayerDetail::ALL {
            ui.radio_value(&mut self.detail, detail, detail.label());
        }
        if self.detail != before {
            self.refresh(ctx, out);
        }
        if let Some((x, y)) = self.tile {
            let layers = self.steps.get(&(x, y)).map_or(0, Vec::len);
            ui.label(format!("Tile ({x},{y}): {layers} layers"));
        }
        if let Some(problem) = &self.problem {
            ui.colored_label(egui::Color32::from_rgb(230, 150, 40), problem);
        }
    }

    fn on_click(&mut self, ctx: &ToolContext, hit: Hit, _shift: bool, out: &mut ToolOutput) {
        let Some(view) = &ctx.state.temp_obstacles else {
            return;
        };
        self.tile = tile_at(&view.build, hit.point.to_array());
        self.problem = self
            .tile
            .is_none()
            .then(|| "The click is outside the tile grid".into());
        self.refresh(ctx, out);
    }

    fn update(&mut self, ctx: &ToolContext, _keys: &ButtonInput<KeyCode>, out: &mut ToolOutput) {
        if self.made_for.is_some_and(|v| v != ctx.nav_mesh_version) {
            self.refresh(ctx, out);
        }
    }

    fn activated(&mut self, active: bool, ctx: &ToolContext, out: &mut ToolOutput) {
        if active {
            self.refresh(ctx, out);
        } else {
            out.overlay = Some(DebugDraw::default());
            out.labels = Some(Vec::new());
        }
    }

    fn draw(&self, ctx: &ToolContext, gizmos: &mut Gizmos) {
        let (Some(view), Some((x, y))) = (&ctx.state.temp_obstacles, self.tile) else {
            return;
        };
        let params = view.build.cache.params();
        let s = params.width as f32 * params.cs;
        let (x0, z0) = (params.orig[0] + x as f32 * s, params.orig[2] + y as f32 * s);
        let top = view.build.nav_mesh_params.orig[1];
        let corners = [
            Vec3::new(x0, top, z0),
            Vec3::new(x0 + s, top, z0),
            Vec3::new(x0 + s, top, z0 + s),
            Vec3::new(x0, top, z0 + s),
            Vec3::new(x0, top, z0),
        ];
        gizmos.linestrip(corners, Color::WHITE);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::viewer::build::tests::{build_app, settle};
    use crate::viewer::build::{BuildRequest, BuildState, Sample};
    use crate::viewer::navmesh::ShownNavMesh;
    use crate::viewer::picking::PointerHit;
    use crate::viewer::tools::tool_context;

    #[test]
    fn a_click_shows_the_tiles_layers_in_each_detail() {
        let mut app = build_app();
        app.world_mut()
            .write_message(BuildRequest::Sample(Sample::TempObstacles));
        settle(&mut app);
        let state = app.world().resource::<BuildState>();
        let view = state.temp_obstacles.as_ref().unwrap();
        let (_, header, _) = view.build.cache.layers().next().unwrap();
        let point = Vec3::new(
            (header.bmin[0] + header.bmax[0]) / 2.0,
            header.bmin[1],
            (header.bmin[2] + header.bmax[2]) / 2.0,
        );
        let shown = ShownNavMesh::default();
        let ctx = tool_context(state, &shown, &PointerHit::default());
        let mut tool = HighlightTileCacheTool::default();
        let mut out = ToolOutput::default();
        let hit = Hit::from_above;
        tool.on_click(&ctx, hit(point), false, &mut out);
        assert_eq!(tool.tile, Some((header.tx, header.ty)));
        assert!(tool.problem.is_none(), "{:?}", tool.problem);
        for detail in LayerDetail::ALL {
            tool.detail = detail;
            tool.refresh(&ctx, &mut out);
            let drawing = out.overlay.take().unwrap();
            assert!(!drawing.is_empty(), "{detail:?} draws something");
            assert!(out.labels.take().is_some_and(|l| l.len() >= 3));
        }
        tool.on_click(&ctx, hit(Vec3::splat(1e6)), false, &mut out);
        assert!(tool.problem.is_some(), "outside the grid says so");
    }
}
