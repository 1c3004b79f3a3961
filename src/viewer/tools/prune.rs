//! The Prune Navmesh tool (RecastDemo's NavMeshPruneTool): each click floods the polygons
//! reachable from the nearest polygon, through every link and off-mesh connection, and
//! "Prune Unselected" disables the rest. Beyond RecastDemo, the read-out says how many
//! polygons each seed reached and how many pruning would keep and disable; the pruned flags
//! are on the navmesh on screen, so Export writes them into the file; and the selection and
//! the disabled polygons are filled strongly enough to tell apart at any zoom (RecastDemo's
//! quarter-opacity veils vanish into the navmesh's own colours).

use bevy::prelude::*;
use bevy_egui::egui;

use super::framework::{Tool, ToolAppExt, ToolContext, ToolOutput};
use crate::demo::tester::POLY_PICK_EXT;
use crate::viewer::picking::Hit;
use navlab::bake::prune::{Reachable, disable_unreachable};
use navlab::bake::sample_areas::flags::DISABLED;
use navlab::debug_draw::detour::append_nav_mesh_poly_filled;
use navlab::debug_draw::{DebugDraw, LineBatch, Rgba, rgba};
use navlab::detour::query::{NavMeshQuery, QueryFilter};
use navlab::detour::{NavMesh, PolyRef};

/// Registers the Prune Navmesh tool.
pub struct PruneToolPlugin;

impl Plugin for PruneToolPlugin {
    fn build(&self, app: &mut App) {
        app.register_tool(PruneTool::default());
    }
}

/// Nodes of the query that finds the clicked polygon (a nearest-polygon search uses none).
const PICK_QUERY_NODES: usize = 16;
/// The polygons the floods reached (the selection pruning keeps).
const SELECTED_COLOR: Rgba = rgba(255, 220, 0, 150);
/// The polygons pruning disabled.
const DISABLED_COLOR: Rgba = rgba(150, 10, 10, 210);

/// A seed point and how many polygons its flood added.
struct Seed {
    point: Vec3,
    added: usize,
}

#[derive(Default)]
pub struct PruneTool {
    /// The navmesh version the selection belongs to; a new navmesh starts over.
    nav_mesh_version: Option<u64>,
    reachable: Option<Reachable>,
    seeds: Vec<Seed>,
}

impl PruneTool {
    /// Forgets the selection when the navmesh on screen is another one (a pruned one shows
    /// its disabled polygons).
    fn follow(&mut self, ctx: &ToolContext, out: &mut ToolOutput) {
        if self.nav_mesh_version != Some(ctx.nav_mesh_version) {
            self.nav_mesh_version = Some(ctx.nav_mesh_version);
            self.reachable = None;
            self.seeds.clear();
            out.overlay = Some(ctx.nav_mesh.map(|m| self.overlay(m)).unwrap_or_default());
        }
    }

    /// The disabled polygons of `mesh` and the selection on it.
    fn overlay(&self, mesh: &NavMesh) -> DebugDraw {
        let mut drawing = DebugDraw {
            lines: vec![LineBatch::new(2.0)],
            ..Default::default()
        };
        for (tile_ref, tile) in mesh.tiles() {
            for (i, poly) in tile.polys().iter().enumerate() {
                if poly.flags & DISABLED != 0 {
                    let poly = tile_ref | i as PolyRef;
                    append_nav_mesh_poly_filled(&mut drawing, mesh, poly, DISABLED_COLOR);
                }
            }
        }
        if let Some(reachable) = &self.reachable {
            for poly in reachable.polys(mesh) {
                append_nav_mesh_poly_filled(&mut drawing, mesh, poly, SELECTED_COLOR);
            }
        }
        drawing
    }
}

impl Tool for PruneTool {
    fn seed_points(&self) -> Vec<[f32; 3]> {
        self.seeds
            .iter()
            .map(|seed| seed.point.to_array())
            .collect()
    }

    fn name(&self) -> &'static str {
        "Prune Navmesh"
    }

    fn ui(&mut self, ui: &mut egui::Ui, ctx: &ToolContext, out: &mut ToolOutput) {
        self.follow(ctx, out);
        let Some(mesh) = ctx.nav_mesh else {
            ui.label("Build a navmesh first.");
            return;
        };
        ui.label("Click: flood from the polygon under the cursor. Clicks add up (spawn points).");
        let total = mesh.poly_count();
        let kept = self.reachable.as_ref().map_or(0, Reachable::count);
        for (i, seed) in self.seeds.iter().enumerate() {
            ui.small(format!("Seed {}: +{} polygons", i + 1, seed.added));
        }
        ui.label(format!(
            "{kept} of {total} polygons selected; pruning disables {}",
            total - kept
        ));
        ui.horizontal(|ui| {
            if ui
                .add_enabled(!self.seeds.is_empty(), egui::Button::new("Clear Selection"))
                .clicked()
            {
                if let Some(reachable) = &mut self.reachable {
                    reachable.clear();
                }
                self.seeds.clear();
                out.overlay = Some(self.overlay(mesh));
            }
            if ui
                .add_enabled(kept > 0, egui::Button::new("Prune Unselected"))
                .clicked()
                && let Some(reachable) = self.reachable.take()
            {
                let mut pruned = mesh.clone();
                let counts = disable_unreachable(&mut pruned, &reachable);
                out.log.push(format!(
                    "Pruned the navmesh: {} polygons kept, {} disabled (export to keep them)",
                    counts.kept, counts.disabled
                ));
                self.seeds.clear();
                out.overlay = Some(self.overlay(&pruned));
                out.edited_nav_mesh = Some(pruned);
            }
        });
    }

    fn on_click(&mut self, ctx: &ToolContext, hit: Hit, _shift: bool, out: &mut ToolOutput) {
        self.follow(ctx, out);
        let Some(mesh) = ctx.nav_mesh else {
            return;
        };
        let Ok(query) = NavMeshQuery::new(mesh, PICK_QUERY_NODES) else {
            return;
        };
        let point = hit.point.to_array();
        let (_, nearest) = query.find_nearest_poly(&point, &POLY_PICK_EXT, &QueryFilter::default());
        if nearest.poly_ref == 0 {
            out.log
                .push("Prune: no polygon near the clicked point (within 2 × 4 × 2 m)".into());
            return;
        }
        let reachable = self.reachable.get_or_insert_with(|| Reachable::new(mesh));
        let added = reachable.flood(mesh, nearest.poly_ref);
        self.seeds.push(Seed {
            point: hit.point,
            added,
        });
        out.overlay = Some(self.overlay(mesh));
    }

    fn update(&mut self, ctx: &ToolContext, _keys: &ButtonInput<KeyCode>, out: &mut ToolOutput) {
        self.follow(ctx, out);
    }

    fn activated(&mut self, active: bool, ctx: &ToolContext, out: &mut ToolOutput) {
        out.overlay = Some(match (active, ctx.nav_mesh) {
            (true, Some(mesh)) => self.overlay(mesh),
            _ => DebugDraw::default(),
        });
    }

    fn draw(&self, ctx: &ToolContext, gizmos: &mut Gizmos) {
        let radius = ctx.state.settings.agent_radius;
        for seed in &self.seeds {
            for axis in [Vec3::X, Vec3::Y, Vec3::Z] {
                gizmos.line(
                    seed.point - axis * radius,
                    seed.point + axis * radius,
                    Color::WHITE,
                );
            }
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

    #[test]
    fn clicks_flood_and_pruning_disables_the_rest() {
        let mut app = build_app();
        settle(&mut app);
        let state = app.world().resource::<BuildState>();
        let shown = ShownNavMesh::default();
        let ctx = tool_context(state, &shown, &PointerHit::default());
        let mesh = ctx.nav_mesh.unwrap();
        let total = mesh.poly_count();
        let mut tool = PruneTool::default();
        let mut out = ToolOutput::default();
        tool.update(&ctx, &ButtonInput::default(), &mut out);
        let click = |point: [f32; 3]| Hit::from_above(Vec3::from(point));
        tool.on_click(&ctx, click([-20.0, 0.0, -20.0]), false, &mut out);
        // Far from any polygon: a log line, no seed.
        tool.on_click(&ctx, click([500.0, 0.0, 500.0]), false, &mut out);
        assert_eq!(tool.seeds.len(), 1);
        assert_eq!(out.log.len(), 1);
        let kept = tool.reachable.as_ref().unwrap().count();
        assert!(kept > 0 && kept < total, "{kept} of {total}");
        let painted = |drawing: &DebugDraw, color: Rgba| {
            drawing
                .triangles
                .colors
                .iter()
                .filter(|&&c| c == color)
                .count()
                / 3
        };
        let overlay = out.overlay.take().unwrap();
        assert!(
            painted(&overlay, SELECTED_COLOR) > 0,
            "the selection is filled"
        );
        assert_eq!(painted(&overlay, DISABLED_COLOR), 0);

        let reachable = tool.reachable.take().unwrap();
        let mut pruned = mesh.clone();
        let counts = disable_unreachable(&mut pruned, &reachable);
        assert_eq!((counts.kept, counts.disabled), (kept, total - kept));
        let disabled = pruned
            .tiles()
            .flat_map(|(_, t)| t.polys().iter())
            .filter(|p| p.flags & DISABLED != 0)
            .count();
        assert_eq!(disabled, total - kept);
        // After pruning, the disabled polygons are filled in their own colour.
        let detail_tris: usize = pruned
            .tiles()
            .flat_map(|(_, t)| t.polys().iter().zip(t.detail_meshes()))
            .filter(|(p, _)| p.flags & DISABLED != 0)
            .map(|(_, d)| usize::from(d.tri_count))
            .sum();
        let overlay = tool.overlay(&pruned);
        assert_eq!(painted(&overlay, DISABLED_COLOR), detail_tris);
        assert_eq!(painted(&overlay, SELECTED_COLOR), 0);
        assert_ne!(SELECTED_COLOR, DISABLED_COLOR);
    }
}
