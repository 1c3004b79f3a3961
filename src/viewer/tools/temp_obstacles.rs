//! The Create Temp Obstacles tool (RecastDemo's TempObstacleCreateTool, Temp Obstacles
//! sample): a click adds a cylinder obstacle (radius 1, height 2, from half a metre below the
//! click), Shift+click removes the obstacle under the cursor, Remove All clears them. The tile
//! cache carves one layer per frame, so the navmesh, the tester and crowds follow as tiles
//! are rebuilt.

use bevy::prelude::*;
use bevy_egui::egui;

use super::framework::{Tool, ToolAppExt, ToolContext, ToolOutput};
use crate::viewer::build::{BuildRequest, BuildState, ObstacleEdit, Sample};
use crate::viewer::picking::Hit;
use navlab::tile_cache::obstacles::ObstacleState;

/// Registers the Create Temp Obstacles tool.
pub struct TempObstacleToolPlugin;

impl Plugin for TempObstacleToolPlugin {
    fn build(&self, app: &mut App) {
        app.register_tool(TempObstacleTool)
            .init_resource::<StartupObstacles>()
            .add_systems(Update, add_startup_obstacles);
    }
}

/// Obstacles to add once the tile cache is built (`navlab view --obstacle X,Y,Z`), as clicks.
#[derive(Resource, Default)]
pub struct StartupObstacles(pub Vec<[f32; 3]>);

fn add_startup_obstacles(
    mut startup: ResMut<StartupObstacles>,
    state: Res<BuildState>,
    mut requests: MessageWriter<BuildRequest>,
) {
    if state.temp_obstacles.is_some() && !startup.0.is_empty() {
        for p in startup.0.drain(..) {
            requests.write(BuildRequest::Obstacle(ObstacleEdit::Add(p)));
        }
    }
}

#[derive(Default)]
pub struct TempObstacleTool;

impl Tool for TempObstacleTool {
    fn name(&self) -> &'static str {
        "Create Temp Obstacles"
    }

    fn ui(&mut self, ui: &mut egui::Ui, ctx: &ToolContext, out: &mut ToolOutput) {
        let Some(view) = &ctx.state.temp_obstacles else {
            ui.label(if ctx.state.sample == Sample::TempObstacles {
                "Waiting for the tile cache build."
            } else {
                "Needs the Temp Obstacles sample (Properties → Sample)."
            });
            return;
        };
        if ui.button("Remove All").clicked() {
            out.obstacle_edits.push(ObstacleEdit::RemoveAll);
        }
        ui.separator();
        ui.label("Click LMB to create an obstacle.");
        ui.label("Shift+LMB to remove an obstacle.");
        let obstacles = &view.build.obstacles;
        let count = |wanted: ObstacleState| obstacles.live().filter(|o| o.state == wanted).count();
        ui.label(format!(
            "{} obstacles in place, {} being added, {} being removed",
            count(ObstacleState::Processed),
            count(ObstacleState::Processing),
            count(ObstacleState::Removing)
        ));
        if !obstacles.up_to_date() {
            ui.small("Carving: one layer per frame.");
        }
    }

    fn on_click(&mut self, ctx: &ToolContext, hit: Hit, shift: bool, out: &mut ToolOutput) {
        if ctx.state.temp_obstacles.is_none() {
            out.log
                .push("Create Temp Obstacles: build the Temp Obstacles sample first".into());
            return;
        }
        let p = hit.point.to_array();
        out.obstacle_edits.push(if shift {
            ObstacleEdit::RemoveHitBy {
                start: hit.origin.to_array(),
                end: p,
            }
        } else {
            ObstacleEdit::Add(p)
        });
    }

    fn draw(&self, _ctx: &ToolContext, _gizmos: &mut Gizmos) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::viewer::build::tests::{build_app, settle};
    use crate::viewer::navmesh::ShownNavMesh;
    use crate::viewer::picking::PointerHit;
    use crate::viewer::tools::tool_context;

    #[test]
    fn clicks_add_and_remove_obstacles_and_the_navmesh_follows() {
        let mut app = build_app();
        settle(&mut app);
        app.world_mut()
            .write_message(BuildRequest::Sample(Sample::TempObstacles));
        settle(&mut app);
        let state = app.world().resource::<BuildState>();
        let view = state
            .temp_obstacles
            .as_ref()
            .expect("the tile cache is built");
        assert!(view.build.stats.layers > 0);
        let before = view.nav_mesh.clone();
        let shown = ShownNavMesh::default();
        assert!(std::ptr::eq(shown.get(state).unwrap(), &*before));
        // A point on the navmesh: the centre of its first polygon's first vertex's tile.
        let (_, tile) = before.tiles().next().unwrap();
        let h = tile.header();
        let point = Vec3::new(
            (h.bmin[0] + h.bmax[0]) * 0.5,
            h.bmin[1] + 0.5,
            (h.bmin[2] + h.bmax[2]) * 0.5,
        );
        let ctx = tool_context(state, &shown, &PointerHit::default());
        let mut tool = TempObstacleTool;
        let mut out = ToolOutput::default();
        tool.on_click(&ctx, Hit::from_above(point), false, &mut out);
        assert_eq!(
            out.obstacle_edits,
            vec![ObstacleEdit::Add(point.to_array())]
        );
        for edit in out.obstacle_edits.drain(..) {
            app.world_mut().write_message(BuildRequest::Obstacle(edit));
        }
        for _ in 0..200 {
            app.update();
        }
        let state = app.world().resource::<BuildState>();
        let view = state.temp_obstacles.as_ref().unwrap();
        assert!(
            view.build.obstacles.up_to_date(),
            "carved within 200 frames"
        );
        assert_eq!(view.build.obstacles.live().count(), 1);
        assert!(
            !std::sync::Arc::ptr_eq(&before, &view.nav_mesh),
            "republished"
        );

        // Shift+click on the cylinder's side from a low camera: the ray meets the ground 3 m
        // behind it, yet the obstacle it passes through is the one removed (RecastDemo's
        // hitTestObstacle); a ray that passes no obstacle removes nothing.
        let state = app.world().resource::<BuildState>();
        let ctx = tool_context(state, &shown, &PointerHit::default());
        let side_click = Hit {
            point: point + Vec3::new(3.0, -0.5, 0.0),
            origin: point + Vec3::new(-10.0, 1.0, 0.0),
            triangle: None,
            distance: 13.1,
        };
        tool.on_click(&ctx, side_click, true, &mut out);
        let miss = ObstacleEdit::RemoveHitBy {
            start: [1e6, 10.0, 1e6],
            end: [1e6, 0.0, 1e6],
        };
        for edit in out.obstacle_edits.drain(..).chain([miss]) {
            app.world_mut().write_message(BuildRequest::Obstacle(edit));
        }
        for _ in 0..200 {
            app.update();
        }
        let state = app.world().resource::<BuildState>();
        let view = state.temp_obstacles.as_ref().unwrap();
        assert_eq!(view.build.obstacles.live().count(), 0);

        // Many clicks: the table's 128 obstacles, then a clear refusal in the log.
        for i in 0..130 {
            let p = [
                point.x + (i % 10) as f32,
                point.y,
                point.z + (i / 10) as f32,
            ];
            app.world_mut()
                .write_message(BuildRequest::Obstacle(ObstacleEdit::Add(p)));
            app.update();
        }
        let log = app.world().resource::<crate::viewer::build::ViewerLog>();
        assert!(
            log.lines.iter().any(|l| l.1.contains("Obstacle refused")),
            "a full table is reported"
        );
        app.world_mut()
            .write_message(BuildRequest::Obstacle(ObstacleEdit::RemoveAll));
        for _ in 0..2000 {
            app.update();
        }
        let state = app.world().resource::<BuildState>();
        let view = state.temp_obstacles.as_ref().unwrap();
        assert_eq!(
            view.build.obstacles.live().count(),
            0,
            "Remove All takes them all out"
        );
    }
}
