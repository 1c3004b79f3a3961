//! The Create Convex Volumes tool (RecastDemo's ConvexVolumeTool): clicks add points (at most
//! 12) and the tool keeps their convex hull; clicking the last point again (or the first, as
//! users expect) closes the shape into a volume of the chosen area, Shape Height tall, its floor
//! Shape Descent below the lowest point, grown by Poly Offset. Shift+click deletes the volume
//! under the cursor. Each edit re-runs the build from erosion and can be undone (Ctrl+Z). The
//! rules are [`navlab::bake::authoring`]'s; a shape they refuse stays on screen with the reason.

use bevy::prelude::*;
use bevy_egui::egui;

use super::framework::{Tool, ToolAppExt, ToolContext, ToolOutput};
use crate::viewer::picking::Hit;
use navlab::bake::authoring::{
    VolumeShape, check_new_point, convex_hull_xz, volume_from_points, volume_to_delete,
};
use navlab::bake::sample_areas::area;

/// Registers the Create Convex Volumes tool.
pub struct ConvexVolumeToolPlugin;

impl Plugin for ConvexVolumeToolPlugin {
    fn build(&self, app: &mut App) {
        app.register_tool(ConvexVolumeTool::default());
    }
}

/// A click this close to the shape's last (or first) point closes it (RecastDemo's 0.2 m).
const CLOSE_DISTANCE: f32 = 0.2;

/// RecastDemo's area radio, in its order.
const AREAS: [(u8, &str); 6] = [
    (area::GROUND, "Ground"),
    (area::WATER, "Water"),
    (area::ROAD, "Road"),
    (area::DOOR, "Door"),
    (area::GRASS, "Grass"),
    (area::JUMP, "Jump"),
];

#[derive(Default)]
pub struct ConvexVolumeTool {
    shape: VolumeShape,
    /// The points clicked so far.
    points: Vec<[f32; 3]>,
    /// Indices into `points` of their hull on the xz-plane.
    hull: Vec<usize>,
    /// Why the last click did nothing, until the next one.
    problem: Option<String>,
}

impl ConvexVolumeTool {
    fn clear_shape(&mut self) {
        self.points.clear();
        self.hull.clear();
        self.problem = None;
    }

    /// Whether a click at `p` means "close the shape": on its last point, or its first.
    fn closes_shape(&self, p: [f32; 3]) -> bool {
        let near =
            |q: &[f32; 3]| Vec3::from(*q).distance_squared(Vec3::from(p)) < CLOSE_DISTANCE.powi(2);
        self.points.last().is_some_and(near) || self.points.first().is_some_and(near)
    }

    /// The shape's floor and ceiling as it would be made now.
    fn height_range(&self) -> (f32, f32) {
        let lowest = self.points.iter().fold(f32::MAX, |m, p| m.min(p[1]));
        let floor = lowest - self.shape.descent;
        (floor, floor + self.shape.height)
    }
}

impl Tool for ConvexVolumeTool {
    fn name(&self) -> &'static str {
        "Create Convex Volumes"
    }

    fn ui(&mut self, ui: &mut egui::Ui, ctx: &ToolContext, _out: &mut ToolOutput) {
        let shape = &mut self.shape;
        ui.add(egui::Slider::new(&mut shape.height, 0.1..=20.0).text("Shape Height"));
        ui.add(egui::Slider::new(&mut shape.descent, 0.1..=20.0).text("Shape Descent"));
        ui.add(egui::Slider::new(&mut shape.offset, 0.0..=10.0).text("Poly Offset"));
        ui.label("Area Type");
        ui.indent("area type", |ui| {
            for (id, label) in AREAS {
                ui.radio_value(&mut shape.area, id, label);
            }
        });
        ui.separator();
        if ui.button("Clear Shape").clicked() {
            self.clear_shape();
        }
        ui.small(if self.points.is_empty() {
            "Click: add a point.  Shift+click: delete the volume under the cursor."
        } else {
            "Click: add a point.  Click the last (or first) point: make the volume."
        });
        if !self.points.is_empty() {
            ui.label(format!(
                "{} points, {} on the hull",
                self.points.len(),
                self.hull.len()
            ));
        }
        if let Some(problem) = &self.problem {
            ui.colored_label(egui::Color32::from_rgb(230, 150, 40), problem);
        }
        let count = ctx.state.scene.input.geom_set.convex_volumes.len();
        ui.label(format!("{count} convex volumes"));
    }

    fn on_click(&mut self, ctx: &ToolContext, hit: Hit, shift: bool, out: &mut ToolOutput) {
        let p = hit.point.to_array();
        self.problem = None;
        let mut geom_set = ctx.state.scene.input.geom_set.clone();
        if shift {
            match volume_to_delete(&geom_set.convex_volumes, p) {
                Some(index) => {
                    geom_set.convex_volumes.remove(index);
                    out.authored = Some(geom_set);
                }
                None => self.problem = Some("No convex volume under the click".into()),
            }
            return;
        }
        if self.closes_shape(p) {
            match volume_from_points(&self.points, &self.shape) {
                Ok(volume) => {
                    geom_set.convex_volumes.push(volume);
                    out.authored = Some(geom_set);
                    self.clear_shape();
                }
                Err(e) => self.problem = Some(format!("Cannot make the volume: {e}")),
            }
            return;
        }
        match check_new_point(&self.points, p) {
            Ok(()) => {
                self.points.push(p);
                self.hull = if self.points.len() > 1 {
                    convex_hull_xz(&self.points)
                } else {
                    Vec::new()
                };
            }
            Err(e) => self.problem = Some(format!("Point not added: {e}")),
        }
    }

    fn activated(&mut self, _active: bool, _ctx: &ToolContext, _out: &mut ToolOutput) {
        self.clear_shape();
    }

    fn draw(&self, _ctx: &ToolContext, gizmos: &mut Gizmos) {
        let marker = 0.1;
        for (i, p) in self.points.iter().enumerate() {
            let color = if i + 1 == self.points.len() {
                Color::srgb_u8(240, 32, 16)
            } else {
                Color::WHITE
            };
            let p = Vec3::from(*p) + Vec3::Y * 0.1;
            for axis in [Vec3::X, Vec3::Z] {
                gizmos.line(p - axis * marker, p + axis * marker, color);
            }
        }
        let (floor, ceiling) = self.height_range();
        let color = Color::srgba_u8(255, 255, 255, 64);
        let corner = |i: usize, y: f32| {
            let p = self.points[self.hull[i]];
            Vec3::new(p[0], y, p[2])
        };
        for i in 0..self.hull.len() {
            let j = (i + self.hull.len() - 1) % self.hull.len();
            gizmos.line(corner(i, floor), corner(j, floor), color);
            gizmos.line(corner(i, ceiling), corner(j, ceiling), color);
            gizmos.line(corner(i, floor), corner(i, ceiling), color);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::viewer::build::BuildState;
    use crate::viewer::build::tests::{build_app, settle};
    use crate::viewer::navmesh::ShownNavMesh;
    use crate::viewer::picking::PointerHit;
    use crate::viewer::tools::tool_context;

    fn click(p: [f32; 3]) -> Hit {
        Hit::from_above(Vec3::from(p))
    }

    #[test]
    fn clicks_make_a_volume_refusals_keep_the_shape_and_shift_click_deletes() {
        let mut app = build_app();
        settle(&mut app);
        let state = app.world().resource::<BuildState>();
        let shown = ShownNavMesh::default();
        let ctx = tool_context(state, &shown, &PointerHit::default());
        let mut tool = ConvexVolumeTool::default();
        let mut out = ToolOutput::default();
        for p in [[0.0, 0.5, 0.0], [3.0, 0.0, 0.0]] {
            tool.on_click(&ctx, click(p), false, &mut out);
        }
        // Closing a two-point shape is refused and keeps the points.
        tool.on_click(&ctx, click([3.0, 0.0, 0.05]), false, &mut out);
        assert!(out.authored.is_none());
        assert!(tool.problem.as_deref().unwrap().contains("three points"));
        assert_eq!(tool.points.len(), 2);
        // A duplicate point is refused.
        tool.on_click(&ctx, click([0.0, 4.0, 0.0]), false, &mut out);
        assert!(tool.problem.as_deref().unwrap().contains("already"));
        tool.on_click(&ctx, click([3.0, 0.0, 3.0]), false, &mut out);
        tool.on_click(&ctx, click([0.0, 0.0, 3.0]), false, &mut out);
        assert_eq!(tool.hull.len(), 4);
        // Clicking the first point closes it, as the users expect.
        tool.on_click(&ctx, click([0.1, 0.5, 0.0]), false, &mut out);
        let volumes = out.authored.take().unwrap().convex_volumes;
        assert_eq!(volumes.len(), 1);
        assert_eq!(volumes[0].area, area::GRASS);
        assert_eq!((volumes[0].hmin, volumes[0].hmax), (-1.0, 5.0));
        assert!(tool.points.is_empty());

        // Delete from a scene that has the volume.
        let mut input = state.scene.input.clone();
        input.geom_set.convex_volumes = volumes;
        let name = state.scene.name.clone();
        app.world_mut().resource_mut::<BuildState>().scene =
            std::sync::Arc::new(crate::viewer::build::SceneData { input, name });
        let state = app.world().resource::<BuildState>();
        let ctx = tool_context(state, &shown, &PointerHit::default());
        tool.on_click(&ctx, click([9.0, 0.0, 9.0]), true, &mut out);
        assert!(out.authored.is_none());
        tool.on_click(&ctx, click([1.0, 0.0, 1.0]), true, &mut out);
        assert!(out.authored.take().unwrap().convex_volumes.is_empty());
    }
}
