//! The Create Off-Mesh Links tool (RecastDemo's OffMeshConnectionTool): click the start, click
//! the end, and a link with the agent's radius, RecastDemo's jump area and jump flag joins
//! them (both ways when Bidirectional is on). Shift+click deletes the link whose end is
//! nearest, within the agent's radius. Each edit rebuilds only the Detour data and can be
//! undone (Ctrl+Z).

use bevy::prelude::*;
use bevy_egui::egui;

use super::framework::{Tool, ToolAppExt, ToolContext, ToolOutput};
use crate::viewer::picking::Hit;
use navlab::bake::sample_areas::{area, flags};
use navlab::input::geomset::OffMeshConnection;

/// Registers the Create Off-Mesh Links tool.
pub struct OffMeshLinkToolPlugin;

impl Plugin for OffMeshLinkToolPlugin {
    fn build(&self, app: &mut App) {
        app.register_tool(OffMeshLinkTool::default());
    }
}

pub struct OffMeshLinkTool {
    bidirectional: bool,
    /// The start of the link being made.
    start: Option<Vec3>,
}

impl Default for OffMeshLinkTool {
    fn default() -> Self {
        Self {
            bidirectional: true,
            start: None,
        }
    }
}

/// The index of the link with an end nearest to `p`, if that end is within `radius`.
pub fn nearest_link(links: &[OffMeshConnection], p: Vec3, radius: f32) -> Option<usize> {
    links
        .iter()
        .enumerate()
        .flat_map(|(i, c)| [(i, c.start), (i, c.end)])
        .map(|(i, end)| (i, p.distance_squared(Vec3::from(end))))
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .filter(|&(_, d)| d.sqrt() < radius)
        .map(|(i, _)| i)
}

impl Tool for OffMeshLinkTool {
    fn name(&self) -> &'static str {
        "Create Off-Mesh Links"
    }

    fn ui(&mut self, ui: &mut egui::Ui, ctx: &ToolContext, _out: &mut ToolOutput) {
        ui.checkbox(&mut self.bidirectional, "Bidirectional");
        ui.small(if self.start.is_some() {
            "Click: set the end and finish the link."
        } else {
            "Click: start a new link.  Shift+click: delete the link whose end is nearest."
        });
        let count = ctx.state.scene.input.geom_set.off_mesh_connections.len();
        ui.label(format!("{count} off-mesh links"));
    }

    fn on_click(&mut self, ctx: &ToolContext, hit: Hit, shift: bool, out: &mut ToolOutput) {
        let radius = ctx.state.settings.agent_radius;
        let mut geom_set = ctx.state.scene.input.geom_set.clone();
        if shift {
            match nearest_link(&geom_set.off_mesh_connections, hit.point, radius) {
                Some(index) => {
                    geom_set.off_mesh_connections.remove(index);
                    out.authored = Some(geom_set);
                }
                None => out
                    .log
                    .push("No off-mesh link end within the agent radius of the click".into()),
            }
            return;
        }
        let Some(start) = self.start.take() else {
            self.start = Some(hit.point);
            return;
        };
        if start.distance(hit.point) < f32::EPSILON {
            out.log.push(
                "An off-mesh link needs two different points; click the end elsewhere".into(),
            );
            self.start = Some(start);
            return;
        }
        geom_set.off_mesh_connections.push(OffMeshConnection {
            start: start.to_array(),
            end: hit.point.to_array(),
            radius,
            bidirectional: self.bidirectional,
            area: area::JUMP,
            flags: flags::JUMP,
        });
        out.authored = Some(geom_set);
    }

    fn activated(&mut self, _active: bool, _ctx: &ToolContext, _out: &mut ToolOutput) {
        self.start = None;
    }

    fn draw(&self, ctx: &ToolContext, gizmos: &mut Gizmos) {
        let Some(start) = self.start else { return };
        let r = ctx.state.settings.agent_radius;
        let p = start + Vec3::Y * 0.1;
        let color = Color::srgba(0.0, 0.0, 0.0, 0.5);
        for axis in [Vec3::X, Vec3::Y, Vec3::Z] {
            gizmos.line(p - axis * r, p + axis * r, color);
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
    fn two_clicks_make_a_link_and_shift_click_deletes_the_nearest() {
        let mut app = build_app();
        settle(&mut app);
        let state = app.world().resource::<BuildState>();
        let shown = ShownNavMesh::default();
        let ctx = tool_context(state, &shown, &PointerHit::default());
        let mut tool = OffMeshLinkTool::default();
        let mut out = ToolOutput::default();
        tool.on_click(&ctx, click([1.0, 0.0, 1.0]), false, &mut out);
        assert!(out.authored.is_none());
        tool.on_click(&ctx, click([1.0, 0.0, 1.0]), false, &mut out);
        assert!(out.authored.is_none(), "zero-length link refused");
        tool.on_click(&ctx, click([4.0, 2.0, 1.0]), false, &mut out);
        let links = out.authored.take().unwrap().off_mesh_connections;
        assert_eq!(links.len(), 1);
        assert_eq!(links[0].start, [1.0, 0.0, 1.0]);
        assert!(links[0].bidirectional);
        assert_eq!((links[0].area, links[0].flags), (area::JUMP, flags::JUMP));
        assert_eq!(nearest_link(&links, Vec3::new(4.1, 2.0, 1.0), 0.6), Some(0));
        assert_eq!(nearest_link(&links, Vec3::new(9.0, 2.0, 1.0), 0.6), None);
        // Deleting from a scene without links finds nothing.
        tool.on_click(&ctx, click([4.0, 2.0, 1.0]), true, &mut out);
        assert!(out.authored.is_none());
    }
}
