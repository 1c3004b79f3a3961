//! The Pick tool: what is under the cursor at every stage (the triangle and its slope, the voxel
//! column, the compact span with its region and distance, the poly mesh polygon) and the
//! polygon of the navmesh on screen, whichever sample made it.

use bevy::prelude::*;
use bevy_egui::egui;

use super::framework::{Tool, ToolAppExt, ToolContext, ToolOutput};
use crate::demo::tester::POLY_PICK_EXT;
use crate::viewer::picking::Hit;
use navlab::bake::solo::Build;
use navlab::detour::query::{NavMeshQuery, QueryFilter};
use navlab::detour::{NavMesh, PolyRef};
use navlab::input::obj::TriMesh;
use navlab::recast::compact::CompactHeightfield;
use navlab::recast::poly_mesh::PolyMesh;
use navlab::recast::{MESH_NULL_IDX, NULL_AREA};

/// The Pick tool: what is under the cursor at every stage.
pub struct PickToolPlugin;

impl Plugin for PickToolPlugin {
    fn build(&self, app: &mut App) {
        app.register_tool(PickTool::default());
    }
}

/// Nodes of the query that finds the navmesh polygon (a nearest-polygon search uses none).
const PICK_QUERY_NODES: usize = 16;

/// Shows the triangle under the cursor with its slope, the voxel column's spans, the compact
/// span with its region and distance, and the polygons; a click pins the point.
#[derive(Default)]
pub struct PickTool {
    pinned: Option<Hit>,
    /// The navmesh polygon last reported, for a session's state.
    reported_polygon: Option<NavPolygon>,
}

/// Everything the Pick tool reports about one point.
#[derive(Debug, Default, PartialEq)]
pub struct PickInfo {
    /// The input triangle, when the point is on the scene (a navmesh file's own surface has
    /// none).
    pub triangle: Option<PickedTriangle>,
    /// Voxel column of the point, if inside the grid.
    pub column: Option<(i32, i32)>,
    /// The column's spans after filtering: (bottom, top, area) in world heights.
    pub spans: Vec<(f32, f32, u8)>,
    /// The compact span nearest the point: (floor height, region, area, distance).
    pub compact_span: Option<(f32, u16, u8, Option<u16>)>,
    /// The poly mesh polygon under the point, when the stages are shown: (index, region, area,
    /// vertex count).
    pub polygon: Option<(usize, u16, u8, usize)>,
    /// The polygon of the navmesh on screen under the point.
    pub nav_polygon: Option<NavPolygon>,
}

/// An input triangle as the Pick tool reports it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PickedTriangle {
    /// Vertex indices.
    pub corners: [i32; 3],
    /// Slope in degrees from horizontal.
    pub slope_degrees: f32,
    /// Below the agent's maximum slope.
    pub walkable: bool,
}

/// A navmesh polygon as the Pick tool reports it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NavPolygon {
    pub poly: PolyRef,
    /// Its tile's grid cell and layer.
    pub tile: (i32, i32, i32),
    pub vertices: usize,
    pub area: u8,
    pub flags: u16,
}

impl PickInfo {
    /// Gathers the report for `hit` from the input mesh and, when present, the build with its
    /// stages and the navmesh on screen (Tile Mesh and Temp Obstacles keep no stages but a
    /// tile's, yet show a navmesh).
    pub fn gather(
        mesh: &TriMesh,
        build: Option<&Build>,
        nav_mesh: Option<&NavMesh>,
        max_slope: f32,
        hit: Hit,
    ) -> Self {
        let triangle = hit
            .triangle
            .zip(hit.normal(mesh))
            .map(|(corners, n)| PickedTriangle {
                corners,
                slope_degrees: n.y.clamp(-1.0, 1.0).acos().to_degrees(),
                walkable: n.y >= max_slope.to_radians().cos(),
            });
        let mut info = PickInfo {
            triangle,
            nav_polygon: nav_mesh.and_then(|nav| nav_polygon_under(nav, hit.point)),
            ..Default::default()
        };
        let Some(build) = build else {
            return info;
        };
        let hf = &build.heightfield_filtered;
        let x = ((hit.point.x - hf.bmin[0]) / hf.cs).floor() as i32;
        let z = ((hit.point.z - hf.bmin[2]) / hf.cs).floor() as i32;
        if x < 0 || z < 0 || x >= hf.width || z >= hf.height {
            return info;
        }
        info.column = Some((x, z));
        info.spans = hf
            .column(x, z)
            .map(|s| {
                (
                    hf.bmin[1] + s.smin as f32 * hf.ch,
                    hf.bmin[1] + s.smax as f32 * hf.ch,
                    s.area,
                )
            })
            .collect();
        info.compact_span = nearest_compact_span(&build.regions, x, z, hit.point.y);
        info.polygon = polygon_under(&build.poly_mesh, hit.point);
        info
    }
}

fn nearest_compact_span(
    chf: &CompactHeightfield,
    x: i32,
    z: i32,
    y: f32,
) -> Option<(f32, u16, u8, Option<u16>)> {
    if chf.cells.is_empty() || x >= chf.width || z >= chf.height {
        return None;
    }
    let cell = chf.cell(x, z);
    (cell.index as usize..(cell.index + cell.count) as usize)
        .map(|i| (i, chf.bmin[1] + chf.spans[i].y as f32 * chf.ch))
        .min_by(|a, b| (a.1 - y).abs().total_cmp(&(b.1 - y).abs()))
        .map(|(i, floor)| {
            (
                floor,
                chf.spans[i].reg,
                chf.areas[i],
                chf.dist.get(i).copied(),
            )
        })
}

/// The navmesh polygon the point lies over (in xz), nearest in height within Test Navmesh's
/// pick box.
fn nav_polygon_under(nav: &NavMesh, p: Vec3) -> Option<NavPolygon> {
    let query = NavMeshQuery::new(nav, PICK_QUERY_NODES).ok()?;
    let (_, nearest) =
        query.find_nearest_poly(&p.to_array(), &POLY_PICK_EXT, &QueryFilter::default());
    if nearest.poly_ref == 0 || !nearest.is_over_poly {
        return None;
    }
    let (tile, poly) = nav.tile_and_poly_by_ref(nearest.poly_ref).ok()?;
    let header = tile.header();
    Some(NavPolygon {
        poly: nearest.poly_ref,
        tile: (header.x, header.y, header.layer),
        vertices: poly.vertex_indices().len(),
        area: poly.area(),
        flags: poly.flags,
    })
}

/// The polygon whose outline contains the point on the xz-plane, nearest in height.
fn polygon_under(mesh: &PolyMesh, p: Vec3) -> Option<(usize, u16, u8, usize)> {
    let nvp = mesh.nvp;
    let corner = |vi: u16| {
        let v = &mesh.verts[vi as usize * 3..][..3];
        Vec3::new(
            mesh.bmin[0] + v[0] as f32 * mesh.cs,
            mesh.bmin[1] + v[1] as f32 * mesh.ch,
            mesh.bmin[2] + v[2] as f32 * mesh.cs,
        )
    };
    (0..mesh.npolys)
        .filter_map(|i| {
            let poly = mesh.poly(i);
            let corners: Vec<Vec3> = poly[..nvp]
                .iter()
                .take_while(|&&v| v != MESH_NULL_IDX)
                .map(|&v| corner(v))
                .collect();
            let n = corners.len();
            let mut sign = 0.0f32;
            for j in 0..n {
                let (a, b) = (corners[j], corners[(j + 1) % n]);
                let cross = (b.x - a.x) * (p.z - a.z) - (b.z - a.z) * (p.x - a.x);
                if cross != 0.0 {
                    if sign != 0.0 && cross.signum() != sign {
                        return None;
                    }
                    sign = cross.signum();
                }
            }
            let height = corners.iter().map(|c| c.y).sum::<f32>() / n as f32;
            Some((i, (height - p.y).abs(), n))
        })
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(i, _, n)| (i, mesh.regs[i], mesh.areas[i], n))
}

impl PickTool {
    fn point(&self, ctx: &ToolContext) -> Option<Hit> {
        ctx.hover.or(self.pinned)
    }
}

impl Tool for PickTool {
    fn name(&self) -> &'static str {
        "Pick"
    }

    fn session_state(&self) -> Option<serde_json::Value> {
        Some(serde_json::json!({
            "navPolygon": self.reported_polygon.map(|p| format!("{:#x}", p.poly)),
        }))
    }

    fn ui(&mut self, ui: &mut egui::Ui, ctx: &ToolContext, _out: &mut ToolOutput) {
        ui.label("Hover the mesh to inspect it; click to pin a point.");
        let Some(hit) = self.point(ctx) else {
            ui.label("Nothing under the cursor.");
            return;
        };
        let state = ctx.state;
        let info = PickInfo::gather(
            &state.scene.input.mesh,
            state.stage_build(),
            ctx.nav_mesh,
            state.settings.agent_max_slope,
            hit,
        );
        self.reported_polygon = info.nav_polygon;
        let p = hit.point;
        ui.label(format!("Point: {:.2}, {:.2}, {:.2}", p.x, p.y, p.z));
        match info.triangle {
            Some(triangle) => {
                let [a, b, c] = triangle.corners;
                ui.label(format!(
                    "Triangle ({a}, {b}, {c}): slope {:.1}° ({})",
                    triangle.slope_degrees,
                    if triangle.walkable {
                        "walkable"
                    } else {
                        "too steep"
                    }
                ));
            }
            None => {
                ui.label("On the navmesh file's surface (no input triangle)");
            }
        }
        if let Some((x, z)) = info.column {
            ui.label(format!("Voxel column {x}, {z}:"));
            for (bottom, top, area) in &info.spans {
                let kind = if *area == NULL_AREA {
                    "solid"
                } else {
                    "walkable"
                };
                ui.label(format!(
                    "  span {bottom:.2} – {top:.2}  {kind} (area {area})"
                ));
            }
        }
        if let Some((floor, reg, area, dist)) = info.compact_span {
            let dist = dist.map_or_else(|| "–".to_string(), |d| d.to_string());
            ui.label(format!(
                "Compact span: floor {floor:.2}, region {reg}, area {area}, distance {dist}"
            ));
        }
        if let Some((index, reg, area, n)) = info.polygon {
            ui.label(format!(
                "Poly mesh polygon {index}: {n} vertices, region {reg}, area {area}"
            ));
        }
        match info.nav_polygon {
            Some(p) => ui.label(format!(
                "Navmesh polygon {:#x} (tile {}, {}, layer {}): {} vertices, area {}, flags {:#06x}",
                p.poly, p.tile.0, p.tile.1, p.tile.2, p.vertices, p.area, p.flags
            )),
            None => ui.label("No navmesh polygon here."),
        };
        if self.pinned.is_some() && ui.button("Unpin").clicked() {
            self.pinned = None;
        }
    }

    fn on_click(&mut self, _ctx: &ToolContext, hit: Hit, _shift: bool, _out: &mut ToolOutput) {
        self.pinned = Some(hit);
    }

    fn draw(&self, ctx: &ToolContext, gizmos: &mut Gizmos) {
        let Some(hit) = self.point(ctx) else {
            return;
        };
        let yellow = Color::srgb(1.0, 0.85, 0.1);
        if let Some(corners) = hit.corners(&ctx.state.scene.input.mesh) {
            for k in 0..3 {
                gizmos.line(corners[k], corners[(k + 1) % 3], yellow);
            }
        }
        if let Some(pinned) = self.pinned {
            gizmos.sphere(Isometry3d::from_translation(pinned.point), 0.15, yellow);
        }
        let Some(build) = ctx.state.stage_build() else {
            return;
        };
        let hf = &build.heightfield_filtered;
        let x = ((hit.point.x - hf.bmin[0]) / hf.cs).floor();
        let z = ((hit.point.z - hf.bmin[2]) / hf.cs).floor();
        if x < 0.0 || z < 0.0 || x >= hf.width as f32 || z >= hf.height as f32 {
            return;
        }
        for span in hf.column(x as i32, z as i32) {
            let min = Vec3::new(
                hf.bmin[0] + x * hf.cs,
                hf.bmin[1] + span.smin as f32 * hf.ch,
                hf.bmin[2] + z * hf.cs,
            );
            let max = Vec3::new(
                min.x + hf.cs,
                hf.bmin[1] + span.smax as f32 * hf.ch,
                min.z + hf.cs,
            );
            let color = if span.area == NULL_AREA {
                Color::srgb(0.8, 0.3, 0.2)
            } else {
                Color::srgb(0.3, 0.8, 1.0)
            };
            gizmos.cube(
                Transform::from_translation((min + max) / 2.0).with_scale(max - min),
                color,
            );
        }
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

    /// A point on the scene names its input triangle and slope; one on a navmesh file's own
    /// surface names none (it used to report the scene's triangle 0).
    #[test]
    fn only_a_scene_hit_reports_an_input_triangle() {
        let scene = crate::viewer::build::SceneData::default_scene();
        let ray = Ray3d::new(Vec3::new(0.5, 50.0, 0.5), Dir3::NEG_Y);
        let hit = crate::viewer::picking::raycast_scene(&scene, ray, 100.0).expect("the floor");
        let mesh = &scene.input.mesh;
        let triangle = PickInfo::gather(mesh, None, None, 45.0, hit)
            .triangle
            .expect("the floor's triangle");
        assert!(
            triangle.walkable && triangle.slope_degrees < 1.0,
            "{triangle:?}"
        );
        let on_nav_mesh = Hit {
            triangle: None,
            ..hit
        };
        assert_eq!(
            PickInfo::gather(mesh, None, None, 45.0, on_nav_mesh).triangle,
            None
        );
    }

    /// Every sample reports the polygon of the navmesh on screen; only the solo build's stages
    /// add the poly mesh's.
    #[test]
    fn the_navmesh_polygon_is_found_in_every_sample() {
        let mut app = build_app();
        settle(&mut app);
        for sample in Sample::ALL {
            app.world_mut().write_message(BuildRequest::Sample(sample));
            settle(&mut app);
            let state = app.world().resource::<BuildState>();
            let shown = ShownNavMesh::default();
            let ctx = tool_context(state, &shown, &PointerHit::default());
            let info = PickInfo::gather(
                &state.scene.input.mesh,
                state.stage_build(),
                ctx.nav_mesh,
                state.settings.agent_max_slope,
                Hit::from_above(Vec3::new(-20.0, 0.0, -20.0)),
            );
            let polygon = info
                .nav_polygon
                .unwrap_or_else(|| panic!("no navmesh polygon in {}", sample.label()));
            assert!(polygon.vertices >= 3, "{}", sample.label());
            assert_eq!(
                info.polygon.is_some(),
                sample == Sample::SoloMesh,
                "{}",
                sample.label()
            );
        }
    }
}
