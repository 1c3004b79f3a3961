//! Debug geometry for a Detour navmesh, as RecastDemo draws it (`DetourDebugDraw`): polygons
//! filled by area through their detail triangles, inner and outer polygon edges, off-mesh
//! connection arcs, vertices, the BV tree and the tile portals.

use super::{DebugDraw, LineBatch, PointBatch, Rgba, TriangleBatch, append_arc, area_to_col};
use super::{append_circle, append_cylinder_wire, darken_col, int_to_col, rgba, trans_col};
use crate::detour::query::{NODE_CLOSED, NodePool};
use crate::detour::{
    DETAIL_EDGE_BOUNDARY, EXT_LINK, NavMesh, OFFMESH_CON_BIDIR, PolyRef, detail_tri_edge_flags,
};
use crate::detour::{MeshTile, OffMeshConnection};

/// What [`nav_mesh`] draws besides the polygons (RecastDemo's `DU_DRAWNAVMESH_*` flags; the
/// closed-list highlight waits for the queries).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NavMeshDrawFlags {
    /// Off-mesh connection arcs and end points (`DU_DRAWNAVMESH_OFFMESHCONS`).
    pub off_mesh_connections: bool,
    /// One colour per tile instead of per area (`DU_DRAWNAVMESH_COLOR_TILES`).
    pub color_tiles: bool,
}

impl Default for NavMeshDrawFlags {
    /// RecastDemo's default: off-mesh connections shown, coloured by area.
    fn default() -> Self {
        Self {
            off_mesh_connections: true,
            color_tiles: false,
        }
    }
}

/// Every tile of `mesh` (`duDebugDrawNavMesh`).
pub fn nav_mesh(mesh: &NavMesh, flags: NavMeshDrawFlags) -> DebugDraw {
    nav_mesh_with_closed_list(mesh, flags, None)
}

/// Every tile of `mesh`, the polygons in the closed list of a search (`closed`, a query's
/// node pool) tinted orange (`duDebugDrawNavMeshWithClosedList`).
pub fn nav_mesh_with_closed_list(
    mesh: &NavMesh,
    flags: NavMeshDrawFlags,
    closed: Option<&NodePool>,
) -> DebugDraw {
    let is_closed = |poly: PolyRef| closed.is_some_and(|pool| is_in_closed_list(pool, poly));
    let mut batches = NavMeshBatches::new();
    for (tile_ref, tile) in mesh.tiles() {
        let tile_color = int_to_col(mesh.decode_poly_id_tile(tile_ref) as i32, 128);
        batches.tile(tile_ref, tile, tile_color, flags, &is_closed);
        for &v in tile.verts() {
            batches.points.point(v, rgba(0, 0, 0, 196));
        }
    }
    batches.finish()
}

/// How much of each tile [`nav_mesh_cells`] draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TileDetail {
    /// As [`nav_mesh`] draws it, without the vertex dots: polygons filled by area, their edges
    /// and off-mesh links.
    Full,
    /// The walls alone, straight from corner to corner: a far tile at a small part of the
    /// cost, enough to show the world's shape.
    Outline,
}

/// The tiles of `mesh` in grid cells `first` to `last` (x and y, both included; every layer) at
/// `detail`. A viewer draws a navmesh too big to draw whole as such blocks of cells, near ones
/// in full and far ones as outlines.
pub fn nav_mesh_cells(
    mesh: &NavMesh,
    first: (i32, i32),
    last: (i32, i32),
    detail: TileDetail,
) -> DebugDraw {
    let mut batches = NavMeshBatches::new();
    for y in first.1..=last.1 {
        for x in first.0..=last.0 {
            for index in mesh.tile_indices_at(x, y) {
                let (Some(tile), Some(tile_ref)) = (mesh.tile(index), mesh.tile_ref(index)) else {
                    continue;
                };
                match detail {
                    TileDetail::Full => {
                        let tile_color = int_to_col(mesh.decode_poly_id_tile(tile_ref) as i32, 128);
                        let flags = NavMeshDrawFlags::default();
                        batches.tile(tile_ref, tile, tile_color, flags, &|_| false);
                    }
                    TileDetail::Outline => {
                        for wall in tile.boundary_edges(tile_ref) {
                            batches
                                .outer
                                .segment(wall.ends[0], wall.ends[1], WALL_COLOR);
                        }
                    }
                }
            }
        }
    }
    batches.finish()
}

/// The outer walls' colour.
const WALL_COLOR: Rgba = rgba(0, 48, 64, 220);

/// The batches a navmesh drawing fills, tile by tile.
struct NavMeshBatches {
    tris: TriangleBatch,
    inner: LineBatch,
    outer: LineBatch,
    links: LineBatch,
    points: PointBatch,
}

impl NavMeshBatches {
    fn new() -> Self {
        Self {
            tris: TriangleBatch::default(),
            inner: LineBatch::new(1.5),
            outer: LineBatch::new(2.5),
            links: LineBatch::new(2.0),
            points: PointBatch::new(3.0),
        }
    }

    /// One tile's polygons (by area, or `tile_color` with `flags.color_tiles`), their edges and
    /// off-mesh links.
    fn tile(
        &mut self,
        tile_ref: PolyRef,
        tile: &MeshTile,
        tile_color: Rgba,
        flags: NavMeshDrawFlags,
        is_closed: &dyn Fn(PolyRef) -> bool,
    ) {
        for (i, poly) in tile.polys().iter().enumerate() {
            if poly.is_off_mesh_connection() {
                continue;
            }
            let color = if is_closed(tile_ref | i as PolyRef) {
                rgba(255, 196, 0, 64)
            } else if flags.color_tiles {
                tile_color
            } else {
                trans_col(area_to_col(poly.area()), 64)
            };
            detail_triangles(tile, i, color, &mut self.tris);
        }
        poly_boundaries(tile, true, &mut self.inner);
        poly_boundaries(tile, false, &mut self.outer);
        if flags.off_mesh_connections {
            off_mesh_connections(tile, tile_ref, is_closed, &mut self.links);
        }
    }

    fn finish(self) -> DebugDraw {
        DebugDraw {
            triangles: self.tris,
            lines: vec![self.inner, self.outer, self.links],
            points: vec![self.points],
        }
    }
}

/// Whether a node of `poly` was expanded by the search (`isInClosedList`).
fn is_in_closed_list(pool: &NodePool, poly: PolyRef) -> bool {
    pool.find_nodes(poly)
        .any(|i| pool.node(i).is_some_and(|n| n.flags & NODE_CLOSED != 0))
}

/// A search's nodes: a dot where it entered each polygon and a line to its parent
/// (`duDebugDrawNavMeshNodes`).
pub fn nav_mesh_nodes(pool: &NodePool) -> DebugDraw {
    const LIFT: f32 = 0.5;
    let lifted = |p: [f32; 3]| [p[0], p[1] + LIFT, p[2]];
    let mut points = PointBatch::new(4.0);
    let mut lines = LineBatch::new(2.0);
    for (i, node) in pool.nodes().iter().enumerate() {
        points.point(lifted(node.pos), rgba(255, 192, 0, 255));
        if let Some(parent) = pool.parent_of(i).and_then(|p| pool.node(p)) {
            lines.segment(lifted(node.pos), lifted(parent.pos), rgba(255, 192, 0, 128));
        }
    }
    DebugDraw {
        lines: vec![lines],
        points: vec![points],
        ..Default::default()
    }
}

/// The polygons carrying any of `flags` veiled in `color` at a quarter opacity, as RecastDemo
/// darkens its disabled polygons (`duDebugDrawNavMeshPolysWithFlags`).
pub fn nav_mesh_polys_with_flags(mesh: &NavMesh, flags: u16, color: Rgba) -> DebugDraw {
    let mut drawing = DebugDraw {
        lines: vec![LineBatch::new(2.0)],
        ..Default::default()
    };
    for (tile_ref, tile) in mesh.tiles() {
        for (i, poly) in tile.polys().iter().enumerate() {
            if poly.flags & flags != 0 {
                append_nav_mesh_poly(&mut drawing, mesh, tile_ref | i as PolyRef, color);
            }
        }
    }
    drawing
}

/// Polygon `poly` veiled in `color` at a quarter opacity: its detail triangles, or the arc of
/// an off-mesh connection (`duDebugDrawNavMeshPoly`). Arcs go to the first line batch, which
/// the caller provides (2 px in RecastDemo). An invalid reference draws nothing.
pub fn append_nav_mesh_poly(drawing: &mut DebugDraw, mesh: &NavMesh, poly: PolyRef, color: Rgba) {
    append_nav_mesh_poly_filled(drawing, mesh, poly, trans_col(color, 64));
}

/// Like [`append_nav_mesh_poly`], in `color` with its own opacity: for marks that must stand
/// out from the navmesh under them.
pub fn append_nav_mesh_poly_filled(
    drawing: &mut DebugDraw,
    mesh: &NavMesh,
    poly: PolyRef,
    color: Rgba,
) {
    let Ok((slot, index)) = mesh.poly_location(poly) else {
        return;
    };
    let Some(tile) = mesh.tile(slot) else {
        return;
    };
    if !tile.polys()[index].is_off_mesh_connection() {
        detail_triangles(tile, index, color, &mut drawing.triangles);
    } else if let (Some(con), Some(lines)) = (
        off_mesh_connection_of(tile, index),
        drawing.lines.first_mut(),
    ) {
        let bidir = con.flags & OFFMESH_CON_BIDIR != 0;
        let [a, b] = con.pos;
        append_arc(lines, a, b, 0.25, if bidir { 0.6 } else { 0.0 }, 0.6, color);
    }
}

/// An agent standing at `pos`: its cylinder, a circle at climb height and a cross at its feet
/// (the Test Navmesh tool's `drawAgent`).
pub fn agent(pos: [f32; 3], radius: f32, height: f32, climb: f32, color: Rgba) -> DebugDraw {
    let [x, y, z] = pos;
    let mut cylinder = LineBatch::new(2.0);
    append_cylinder_wire(
        &mut cylinder,
        [x - radius, y + 0.02, z - radius],
        [x + radius, y + height, z + radius],
        color,
    );
    let mut marks = LineBatch::new(1.0);
    append_circle(&mut marks, [x, y + climb, z], radius, rgba(0, 0, 0, 64));
    let black = rgba(0, 0, 0, 196);
    marks.segment([x, y - climb, z], [x, y + climb, z], black);
    let half = radius / 2.0;
    marks.segment([x - half, y + 0.02, z], [x + half, y + 0.02, z], black);
    marks.segment([x, y + 0.02, z - half], [x, y + 0.02, z + half], black);
    DebugDraw {
        lines: vec![cylinder, marks],
        ..Default::default()
    }
}

/// Polygon `poly`'s detail triangles in one colour.
fn detail_triangles(tile: &MeshTile, poly: usize, color: Rgba, tris: &mut TriangleBatch) {
    let count = tile
        .detail_meshes()
        .get(poly)
        .map_or(0, |pd| usize::from(pd.tri_count));
    for t in 0..count {
        if let Some(corners) = tile.detail_tri_vertices(poly, t) {
            tris.triangle(corners, color);
        }
    }
}

/// Every wall of the navmesh's ground polygons: edges without a neighbour, and tile-border
/// edges no link crosses.
pub fn wall_segments(mesh: &NavMesh) -> Vec<[[f32; 3]; 2]> {
    mesh.boundary_edges()
        .into_iter()
        .map(|edge| edge.ends)
        .collect()
}

/// Squared 2-D distance from `pt` to the line through `p` and `q` (not the segment).
fn distance_to_line_2d_sqr(pt: [f32; 3], p: [f32; 3], q: [f32; 3]) -> f32 {
    let (pqx, pqz) = (q[0] - p[0], q[2] - p[2]);
    let (dx, dz) = (pt[0] - p[0], pt[2] - p[2]);
    let d = pqx * pqx + pqz * pqz;
    let mut t = pqx * dx + pqz * dz;
    if d != 0.0 {
        t /= d;
    }
    let (dx, dz) = (p[0] + t * pqx - pt[0], p[2] + t * pqz - pt[2]);
    dx * dx + dz * dz
}

/// The polygon edges, traced along the detail triangles' boundary edges so they follow the
/// surface: with `inner`, the edges between polygons (tile portals brighter when linked);
/// otherwise the outer walls.
fn poly_boundaries(tile: &MeshTile, inner: bool, lines: &mut LineBatch) {
    const ON_EDGE: f32 = 0.01 * 0.01;
    for (i, poly) in tile.polys().iter().enumerate() {
        if poly.is_off_mesh_connection() {
            continue;
        }
        let Some(pd) = tile.detail_meshes().get(i) else {
            continue;
        };
        let Some((corners, n)) = tile.poly_vertices(i) else {
            continue;
        };
        for j in 0..n {
            let nei = poly.neis[j];
            let color = if inner {
                if nei == 0 {
                    continue;
                }
                if nei & EXT_LINK != 0 {
                    let linked = tile.poly_links(i).any(|(_, l)| usize::from(l.edge) == j);
                    if linked {
                        rgba(255, 255, 255, 48)
                    } else {
                        rgba(0, 0, 0, 48)
                    }
                } else {
                    rgba(0, 48, 64, 32)
                }
            } else {
                if nei != 0 {
                    continue;
                }
                WALL_COLOR
            };
            let (v0, v1) = (corners[j], corners[(j + 1) % n]);
            for k in 0..usize::from(pd.tri_count) {
                let Some(t) = tile.detail_tris().get(pd.tri_base as usize + k) else {
                    continue;
                };
                let tv = [0, 1, 2].map(|m| tile.detail_vertex(poly, pd, t[m]));
                for (m, prev) in [(0, 2), (1, 0), (2, 1)] {
                    if detail_tri_edge_flags(t[3], prev) & DETAIL_EDGE_BOUNDARY == 0 {
                        continue;
                    }
                    if distance_to_line_2d_sqr(tv[prev], v0, v1) < ON_EDGE
                        && distance_to_line_2d_sqr(tv[m], v0, v1) < ON_EDGE
                    {
                        lines.segment(tv[prev], tv[m], color);
                    }
                }
            }
        }
    }
}

fn off_mesh_connection_of(tile: &MeshTile, poly: usize) -> Option<&OffMeshConnection> {
    tile.off_mesh_connections()
        .get(poly.checked_sub(tile.off_mesh_base())?)
}

/// Off-mesh connections: the arc, the end points tied to their polygons, a circle of the
/// connection radius at each end (red where the end found no polygon).
fn off_mesh_connections(
    tile: &MeshTile,
    tile_ref: PolyRef,
    is_closed: &dyn Fn(PolyRef) -> bool,
    lines: &mut LineBatch,
) {
    for (i, poly) in tile.polys().iter().enumerate() {
        if !poly.is_off_mesh_connection() {
            continue;
        }
        let (Some(con), Some((ends, _))) = (off_mesh_connection_of(tile, i), tile.poly_vertices(i))
        else {
            continue;
        };
        let color = if is_closed(tile_ref | i as PolyRef) {
            rgba(255, 196, 0, 220)
        } else {
            darken_col(trans_col(area_to_col(poly.area()), 220))
        };
        let (mut start_linked, mut end_linked) = (false, false);
        for (_, link) in tile.poly_links(i) {
            start_linked |= link.edge == 0;
            end_linked |= link.edge == 1;
        }
        let unlinked = rgba(220, 32, 16, 196);
        let post = rgba(0, 48, 64, 196);
        for (end, linked) in [(0, start_linked), (1, end_linked)] {
            let p = con.pos[end];
            lines.segment(ends[end], p, color);
            append_circle(
                lines,
                [p[0], p[1] + 0.1, p[2]],
                con.rad,
                if linked { color } else { unlinked },
            );
        }
        for p in con.pos {
            lines.segment(p, [p[0], p[1] + 0.2, p[2]], post);
        }
        let bidir = con.flags & OFFMESH_CON_BIDIR != 0;
        append_arc(
            lines,
            con.pos[0],
            con.pos[1],
            0.25,
            if bidir { 0.6 } else { 0.0 },
            0.6,
            color,
        );
    }
}

/// The leaf boxes of every tile's BV tree (`duDebugDrawNavMeshBVTree`).
pub fn nav_mesh_bv_tree(mesh: &NavMesh) -> DebugDraw {
    let mut lines = LineBatch::new(1.0);
    for (_, tile) in mesh.tiles() {
        let header = tile.header();
        let cs = 1.0 / header.bv_quant_factor;
        for node in tile.bv_tree() {
            if node.i < 0 {
                continue;
            }
            let corner = |q: [u16; 3]| std::array::from_fn(|k| header.bmin[k] + q[k] as f32 * cs);
            let wire = super::bounds_box(
                corner(node.bmin),
                corner(node.bmax),
                rgba(255, 255, 255, 128),
            );
            lines.segments.extend(wire.segments);
            lines.colors.extend(wire.colors);
        }
    }
    DebugDraw {
        lines: vec![lines],
        ..Default::default()
    }
}

/// The polygon edges that are portals to a neighbouring tile, as frames one climb high on
/// the tile side they face (`duDebugDrawNavMeshPortals`).
pub fn nav_mesh_portals(mesh: &NavMesh) -> DebugDraw {
    const PAD: f32 = 0.04;
    let mut lines = LineBatch::new(2.0);
    for (_, tile) in mesh.tiles() {
        let pady = tile.header().walkable_climb;
        for side in 0..8u16 {
            let (along_x, color, offset) = match side {
                0 => (true, rgba(128, 0, 0, 128), -PAD),
                4 => (true, rgba(128, 0, 128, 128), PAD),
                2 => (false, rgba(0, 128, 0, 128), -PAD),
                6 => (false, rgba(0, 128, 128, 128), PAD),
                _ => continue,
            };
            for (i, poly) in tile.polys().iter().enumerate() {
                let Some((corners, n)) = tile.poly_vertices(i) else {
                    continue;
                };
                for j in 0..n {
                    if poly.neis[j] != EXT_LINK | side {
                        continue;
                    }
                    let (va, vb) = (corners[j], corners[(j + 1) % n]);
                    // The frame lies in the plane just outside the tile side the edge is on.
                    let place = |v: [f32; 3], dy: f32| {
                        if along_x {
                            [va[0] + offset, v[1] + dy, v[2]]
                        } else {
                            [v[0], v[1] + dy, va[2] + offset]
                        }
                    };
                    let frame = [
                        place(va, -pady),
                        place(va, pady),
                        place(vb, pady),
                        place(vb, -pady),
                    ];
                    for k in 0..4 {
                        lines.segment(frame[k], frame[(k + 1) % 4], color);
                    }
                }
            }
        }
    }
    DebugDraw {
        lines: vec![lines],
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bake::settings::BuildSettings;
    use crate::bake::tiled::TiledBuild;
    use crate::input::input_geom::InputGeom;

    fn scene() -> InputGeom {
        InputGeom::from_mesh(crate::input::scene::default_scene()).unwrap()
    }

    #[test]
    fn solo_navmesh_draws_every_detail_triangle_and_its_walls() {
        let build =
            crate::bake::solo::Build::from_input(&scene(), BuildSettings::default()).unwrap();
        let mesh = build
            .nav_mesh
            .as_deref()
            .expect("six verts per poly makes a navmesh");
        let draw = nav_mesh(mesh, NavMeshDrawFlags::default());
        let detail_tris: usize = build
            .detail_mesh
            .meshes
            .chunks_exact(4)
            .map(|m| m[3] as usize)
            .sum();
        assert_eq!(draw.triangles.triangle_count(), detail_tris);
        let [inner, outer, _] = &draw.lines[..] else {
            panic!("inner, outer and link lines")
        };
        assert!(!inner.segments.is_empty() && !outer.segments.is_empty());
        assert_eq!(draw.triangles.colors[0], rgba(0, 192, 255, 64));
        // A solo tile has no portals; its BV tree has a box per leaf.
        assert!(nav_mesh_portals(mesh).is_empty());
        let leaves = mesh
            .tiles()
            .map(|(_, t)| t.bv_tree().iter().filter(|n| n.i >= 0).count())
            .sum::<usize>();
        assert_eq!(nav_mesh_bv_tree(mesh).lines[0].segments.len(), leaves * 12);
    }

    #[test]
    fn tiled_navmesh_shows_portals_between_tiles() {
        let tiled = TiledBuild::new(&scene(), BuildSettings::default(), 32).unwrap();
        assert!(tiled.nav_mesh.tile_count() > 1);
        let portals = nav_mesh_portals(&tiled.nav_mesh);
        assert!(!portals.lines[0].segments.is_empty());
        let tiles = nav_mesh(
            &tiled.nav_mesh,
            NavMeshDrawFlags {
                color_tiles: true,
                ..Default::default()
            },
        );
        let distinct: std::collections::HashSet<_> = tiles.triangles.colors.iter().collect();
        assert!(distinct.len() > 1, "one colour per tile");
    }

    /// Drawn block by block, a tiled navmesh is what it is drawn whole (less the vertex dots),
    /// and its outlines are its walls.
    #[test]
    fn blocks_of_cells_add_up_to_the_whole_navmesh() {
        let tiled = TiledBuild::new(&scene(), BuildSettings::default(), 16).unwrap();
        let mesh = &tiled.nav_mesh;
        let whole = nav_mesh(mesh, NavMeshDrawFlags::default());
        let (mut triangles, mut segments, mut walls) = (0, [0; 3], 0);
        let (mut lo, mut hi) = ((i32::MAX, i32::MAX), (i32::MIN, i32::MIN));
        for (_, tile) in mesh.tiles() {
            let h = tile.header();
            lo = (lo.0.min(h.x), lo.1.min(h.y));
            hi = (hi.0.max(h.x), hi.1.max(h.y));
        }
        // Blocks of 2 × 2 cells over the grid.
        for y in (lo.1..=hi.1).step_by(2) {
            for x in (lo.0..=hi.0).step_by(2) {
                let full = nav_mesh_cells(mesh, (x, y), (x + 1, y + 1), TileDetail::Full);
                triangles += full.triangles.triangle_count();
                for (total, batch) in segments.iter_mut().zip(&full.lines) {
                    *total += batch.segments.len();
                }
                let outline = nav_mesh_cells(mesh, (x, y), (x + 1, y + 1), TileDetail::Outline);
                assert_eq!(outline.triangles.triangle_count(), 0);
                walls += outline
                    .lines
                    .iter()
                    .map(|l| l.segments.len())
                    .sum::<usize>();
            }
        }
        assert!(mesh.tile_count() > 4);
        assert_eq!(triangles, whole.triangles.triangle_count());
        assert_eq!(segments, [0, 1, 2].map(|i| whole.lines[i].segments.len()));
        assert_eq!(walls, mesh.boundary_edges().len());
        assert!(walls > 0);
    }

    #[test]
    fn only_flagged_polygons_are_veiled() {
        let input = scene();
        let build = crate::bake::solo::Build::from_input(&input, BuildSettings::default()).unwrap();
        let mut mesh = NavMesh::clone(build.nav_mesh.as_deref().unwrap());
        let disabled = crate::bake::sample_areas::flags::DISABLED;
        assert!(nav_mesh_polys_with_flags(&mesh, disabled, 0).is_empty());
        let first = mesh.poly_ref_base(0);
        mesh.set_poly_flags(first, disabled).unwrap();
        let veil = nav_mesh_polys_with_flags(&mesh, disabled, rgba(0, 0, 0, 128));
        let expected = mesh.tile(0).unwrap().detail_meshes()[0].tri_count as usize;
        assert_eq!(veil.triangles.triangle_count(), expected);
        assert_eq!(veil.triangles.colors[0], rgba(0, 0, 0, 64));
    }
}
