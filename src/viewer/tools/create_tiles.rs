//! The Create Tiles tool (RecastDemo's NavMeshTileTool, Tile Mesh sample): a click rebuilds the
//! tile under the cursor, Shift+click removes it, Create All / Remove All do every tile. The
//! click point is marked with its tile's "(x,y)" and the last tile built shows RecastDemo's
//! "ms / Tris / kB" read-out at its centre; the hovered tile is outlined. Beyond RecastDemo, the clicked tile keeps every stage, so the stage draw modes
//! (Voxels … Poly Mesh Detail) show it; edits can be undone (Ctrl+Z).

use bevy::prelude::*;
use bevy_egui::egui;

use super::framework::{Tool, ToolAppExt, ToolContext, ToolOutput};
use crate::viewer::build::{BuildRequest, BuildState, Sample, TileEdit, TileReport};
use crate::viewer::labels::Label;
use crate::viewer::picking::Hit;
use navlab::bake::tiled::TiledBuild;

/// Registers the Create Tiles tool.
pub struct CreateTilesToolPlugin;

impl Plugin for CreateTilesToolPlugin {
    fn build(&self, app: &mut App) {
        app.register_tool(CreateTilesTool::default())
            .init_resource::<StartupTile>()
            .add_systems(Update, build_startup_tile);
    }
}

/// The tile `navlab view --tile X,Y` builds once the grid is (as a click would).
#[derive(Resource, Default)]
pub struct StartupTile(pub Option<(i32, i32)>);

fn build_startup_tile(
    mut startup: ResMut<StartupTile>,
    state: Res<BuildState>,
    mut requests: MessageWriter<BuildRequest>,
) {
    if state.tiled.is_some()
        && !state.is_busy()
        && let Some((x, y)) = startup.0.take()
    {
        requests.write(BuildRequest::Tiles(TileEdit::Build(x, y)));
    }
}

#[derive(Default)]
pub struct CreateTilesTool {
    /// Where the last click hit (RecastDemo's `hitPos`).
    clicked: Option<Vec3>,
    /// The labels last handed to the view, to replace them only when they change.
    shown_labels: Vec<Label>,
}

/// RecastDemo's read-out of a tile build.
pub fn report_text(report: &TileReport) -> String {
    format!(
        "{:.3}ms / {}Tris / {:.1}kB",
        report.milliseconds, report.triangles, report.kilobytes
    )
}

/// The centre of tile (`x`, `y`) at height `y_level`.
fn tile_centre(tiled: &TiledBuild, x: i32, y: i32, y_level: f32) -> Vec3 {
    let (lo, hi) = tiled.tile_bounds(x, y);
    Vec3::new((lo[0] + hi[0]) * 0.5, y_level, (lo[2] + hi[2]) * 0.5)
}

impl CreateTilesTool {
    fn labels(&self, ctx: &ToolContext) -> Vec<Label> {
        let Some(tiled) = ctx.state.tiled.as_deref() else {
            return Vec::new();
        };
        let mut labels = Vec::new();
        if let Some(point) = self.clicked
            && let Some((x, y)) = tiled.tile_at(point.to_array())
        {
            labels.push(Label {
                position: point,
                text: format!("({x},{y})"),
                color: egui::Color32::WHITE,
            });
        }
        if let Some(report) = &ctx.state.tile_report {
            let level = (tiled.bmin[1] + tiled.bmax[1]) * 0.5;
            labels.push(Label {
                position: tile_centre(tiled, report.x, report.y, level),
                text: report_text(report),
                color: egui::Color32::from_rgb(255, 230, 120),
            });
        }
        labels
    }
}

impl Tool for CreateTilesTool {
    fn name(&self) -> &'static str {
        "Create Tiles"
    }

    fn ui(&mut self, ui: &mut egui::Ui, ctx: &ToolContext, out: &mut ToolOutput) {
        if ctx.state.sample != Sample::TileMesh {
            ui.label("Create Tiles edits the Tile Mesh sample: choose it under Sample.");
            return;
        }
        let Some(tiled) = ctx.state.tiled.as_deref() else {
            ui.label("Build the tiles first.");
            return;
        };
        ui.horizontal(|ui| {
            if ui.button("Create All").clicked() {
                out.tile_edit = Some(TileEdit::BuildAll);
            }
            if ui.button("Remove All").clicked() {
                out.tile_edit = Some(TileEdit::RemoveAll);
            }
        });
        ui.small("Click: rebuild the tile (its stages drawn).  Shift+click: remove it.");
        ui.label(format!(
            "{} x {} tiles, {} in the navmesh",
            tiled.tiles_x,
            tiled.tiles_y,
            tiled.nav_mesh.tile_count()
        ));
        if let Some(report) = &ctx.state.tile_report {
            ui.label(format!(
                "Tile ({}, {}): {}",
                report.x,
                report.y,
                report_text(report)
            ));
        }
    }

    fn on_click(&mut self, ctx: &ToolContext, hit: Hit, shift: bool, out: &mut ToolOutput) {
        let Some(tiled) = ctx.state.tiled.as_deref() else {
            out.log
                .push("Create Tiles needs the Tile Mesh sample and a built grid".into());
            return;
        };
        self.clicked = Some(hit.point);
        match tiled.tile_at(hit.point.to_array()) {
            Some((x, y)) if shift => out.tile_edit = Some(TileEdit::Remove(x, y)),
            Some((x, y)) => out.tile_edit = Some(TileEdit::Build(x, y)),
            None => out.log.push("The click is outside the tile grid".into()),
        }
    }

    fn update(&mut self, ctx: &ToolContext, _keys: &ButtonInput<KeyCode>, out: &mut ToolOutput) {
        let labels = self.labels(ctx);
        if labels != self.shown_labels {
            self.shown_labels = labels.clone();
            out.labels = Some(labels);
        }
    }

    fn activated(&mut self, _active: bool, _ctx: &ToolContext, out: &mut ToolOutput) {
        self.clicked = None;
        self.shown_labels.clear();
        out.labels = Some(Vec::new());
    }

    fn draw(&self, ctx: &ToolContext, gizmos: &mut Gizmos) {
        let Some(tiled) = ctx.state.tiled.as_deref() else {
            return;
        };
        let mut outline = |x: i32, y: i32, level: f32, color: Color| {
            let (lo, hi) = tiled.tile_bounds(x, y);
            let corners = [
                Vec3::new(lo[0], level, lo[2]),
                Vec3::new(hi[0], level, lo[2]),
                Vec3::new(hi[0], level, hi[2]),
                Vec3::new(lo[0], level, hi[2]),
            ];
            for i in 0..4 {
                gizmos.line(corners[i], corners[(i + 1) % 4], color);
            }
        };
        if let Some(hit) = ctx.hover
            && let Some((x, y)) = tiled.tile_at(hit.point.to_array())
        {
            outline(x, y, hit.point.y + 0.1, Color::srgba(1.0, 1.0, 1.0, 0.8));
        }
        if let Some(report) = &ctx.state.tile_report {
            let level = ctx.hover.map_or(tiled.bmin[1], |h| h.point.y) + 0.1;
            outline(report.x, report.y, level, Color::srgb(1.0, 0.9, 0.45));
        }
        // RecastDemo's cross at the click, the agent's radius long.
        if let Some(point) = self.clicked {
            let r = ctx.state.settings.agent_radius;
            let p = point + Vec3::Y * 0.1;
            for axis in [Vec3::X, Vec3::Y, Vec3::Z] {
                gizmos.line(p - axis * r, p + axis * r, Color::srgba(0.0, 0.0, 0.0, 0.5));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::viewer::build::tests::{build_app, first_built_tile, settle};
    use crate::viewer::build::{ViewerLog, tile_presence};
    use crate::viewer::navmesh::ShownNavMesh;
    use crate::viewer::picking::PointerHit;
    use crate::viewer::tools::tool_context;

    #[test]
    fn clicks_rebuild_inspect_and_remove_tiles() {
        let mut app = build_app();
        settle(&mut app);
        app.world_mut()
            .write_message(BuildRequest::Sample(Sample::TileMesh));
        settle(&mut app);
        let state = app.world().resource::<BuildState>();
        let tiled = state.tiled.clone().expect("tiles built");
        let (x, y) = first_built_tile(&tiled);
        let centre = tile_centre(&tiled, x, y, 0.0);
        let shown = ShownNavMesh::default();
        let ctx = tool_context(state, &shown, &PointerHit::default());
        let mut tool = CreateTilesTool::default();
        let mut out = ToolOutput::default();
        let hit = Hit::from_above;
        tool.on_click(&ctx, hit(centre), false, &mut out);
        let edit = out.tile_edit.take().unwrap();
        assert_eq!(edit, TileEdit::Build(x, y));
        tool.on_click(&ctx, hit(Vec3::splat(1e6)), false, &mut out);
        assert!(out.tile_edit.is_none());

        app.world_mut().write_message(BuildRequest::Tiles(edit));
        settle(&mut app);
        let state = app.world().resource::<BuildState>();
        let report = state.tile_report.clone().unwrap();
        assert_eq!((report.x, report.y), (x, y));
        assert!(report.triangles > 0 && report.kilobytes > 0.0);
        let inspected = state.stage_build().expect("the tile's stages are shown");
        assert!(inspected.heightfield_rasterized().span_counts().0 > 0);

        app.world_mut()
            .write_message(BuildRequest::Tiles(TileEdit::Remove(x, y)));
        settle(&mut app);
        let log = &app.world().resource::<ViewerLog>().lines;
        let removed = format!("Removed tile ({x}, {y})");
        assert!(log.iter().any(|(_, line)| *line == removed), "{log:?}");
        let state = app.world().resource::<BuildState>();
        let tiled = state.tiled.as_deref().unwrap();
        assert!(tiled.nav_mesh.tile_at(x, y, 0).is_none());
        assert!(
            state.tile_report.is_none(),
            "the removed tile's read-out goes"
        );
        let presence = tile_presence(tiled);
        assert!(presence.contains(&false));
        app.world_mut()
            .write_message(BuildRequest::Tiles(TileEdit::Restore(vec![
                true;
                presence.len()
            ])));
        settle(&mut app);
        let tiled = app.world().resource::<BuildState>().tiled.clone().unwrap();
        assert!(tiled.nav_mesh.tile_at(x, y, 0).is_some());
    }
}
