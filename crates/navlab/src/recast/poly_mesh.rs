//! The convex polygon mesh with adjacency (Recast's `rcPolyMesh`).

/// Polygons in voxel coordinates, up to `nvp` vertices each.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PolyMesh {
    /// Vertices, 3 × u16 each (x, y, z in voxels).
    pub verts: Vec<u16>,
    /// Polygons, `2 * nvp` entries each: vertex indices then neighbour polygon indices (or edge
    /// flags), unused slots [`crate::recast::MESH_NULL_IDX`].
    pub polys: Vec<u16>,
    /// Region id per polygon.
    pub regs: Vec<u16>,
    /// User flags per polygon (0 after building).
    pub flags: Vec<u16>,
    /// Area id per polygon.
    pub areas: Vec<u8>,
    /// Number of vertices.
    pub nverts: usize,
    /// Number of polygons.
    pub npolys: usize,
    /// Capacity the polygon arrays were allocated for (as Recast reports it).
    pub maxpolys: usize,
    /// Maximum vertices per polygon.
    pub nvp: usize,
    /// Minimum corner of the bounds, world units.
    pub bmin: [f32; 3],
    /// Maximum corner.
    pub bmax: [f32; 3],
    /// Cell size on xz, world units.
    pub cs: f32,
    /// Cell height, world units.
    pub ch: f32,
    /// Cells of border the build had (tiles).
    pub border_size: i32,
    /// Simplification error the contours were built with, cells.
    pub max_edge_error: f32,
}

impl PolyMesh {
    /// The `2 * nvp` entries of polygon `i`.
    pub fn poly(&self, i: usize) -> &[u16] {
        &self.polys[i * 2 * self.nvp..(i + 1) * 2 * self.nvp]
    }

    /// Whether polygon `i` encloses no area on the xz-plane (its vertices are collinear there)
    /// or visits a vertex position twice.
    pub fn is_degenerate(&self, i: usize) -> bool {
        let corners: Vec<[i64; 2]> = self.poly(i)[..self.nvp]
            .iter()
            .take_while(|&&v| v != MESH_NULL_IDX)
            .map(|&v| {
                let v = usize::from(v) * 3;
                [i64::from(self.verts[v]), i64::from(self.verts[v + 2])]
            })
            .collect();
        let n = corners.len();
        let twice_area: i64 = (0..n)
            .map(|k| {
                let (a, b) = (corners[k], corners[(k + 1) % n]);
                a[0] * b[1] - b[0] * a[1]
            })
            .sum();
        let repeats = (0..n).any(|k| corners[k + 1..].contains(&corners[k]));
        twice_area == 0 || repeats
    }

    /// Removes the [degenerate](Self::is_degenerate) polygons and renumbers the neighbour
    /// links (a link to a removed polygon becomes a wall); returns how many were removed.
    ///
    /// Random triangle soups make a few such polygons, in C++ Recast too (recastnavigation
    /// issue #414), so the builds keep them unless `removeDegeneratePolygons` is set.
    pub fn remove_degenerate_polygons(&mut self) -> usize {
        let stride = 2 * self.nvp;
        let mut new_index = vec![MESH_NULL_IDX; self.npolys];
        let mut kept = 0;
        for (i, slot) in new_index.iter_mut().enumerate() {
            if !self.is_degenerate(i) {
                *slot = kept as u16;
                kept += 1;
            }
        }
        let removed = self.npolys - kept;
        if removed == 0 {
            return 0;
        }
        for (i, &target) in new_index.iter().enumerate() {
            if target == MESH_NULL_IDX {
                continue;
            }
            let target = usize::from(target);
            self.polys
                .copy_within(i * stride..(i + 1) * stride, target * stride);
            self.regs[target] = self.regs[i];
            self.flags[target] = self.flags[i];
            self.areas[target] = self.areas[i];
        }
        self.npolys = kept;
        self.polys.truncate(kept * stride);
        self.regs.truncate(kept);
        self.flags.truncate(kept);
        self.areas.truncate(kept);
        for poly in self.polys.chunks_exact_mut(stride) {
            for link in &mut poly[self.nvp..] {
                if *link & PORTAL_EDGE == 0 {
                    *link = new_index
                        .get(usize::from(*link))
                        .copied()
                        .unwrap_or(MESH_NULL_IDX);
                }
            }
        }
        removed
    }
}

use crate::recast::context::{BuildContext, TimerLabel};
use crate::recast::contour::ContourSet;
use crate::recast::{Error, Result};
use crate::{recast::BORDER_VERTEX, recast::MESH_NULL_IDX, recast::MULTIPLE_REGS};

mod merge;
#[cfg(test)]
mod test_shapes;
mod triangulate;
use merge::{MergeScratch, NO_INDEX, merge_polygons, poly_vert_count};
use triangulate::Triangulator;
#[cfg(test)]
pub(crate) use triangulate::tests::assert_same_triangles as assert_ear_clipper_matches_scans;
#[cfg(test)]
use triangulate::{Point, area2, left_on};

/// Number of buckets of the vertex-welding hash (Recast's `VERTEX_BUCKET_COUNT`).
const VERTEX_BUCKET_COUNT: usize = 1 << 12;
/// Neighbour-slot flag marking a polygon edge on the tile border (a portal to the next tile).
const PORTAL_EDGE: u16 = 0x8000;
/// Largest `nvp` accepted (Recast sets none; this keeps every array size far from overflow).
pub const MAX_VERTS_PER_POLY: usize = 255;

/// Builds convex polygons (at most `nvp` vertices each) from the contours, welds shared
/// vertices, removes the tile-border vertices Recast flags, and links neighbouring polygons
/// (Recast's `rcBuildPolyMesh`).
pub fn build_poly_mesh(ctx: &mut BuildContext, cset: &ContourSet, nvp: usize) -> Result<PolyMesh> {
    ctx.start_timer(TimerLabel::BuildPolyMesh);
    let result = build_poly_mesh_untimed(ctx, cset, nvp);
    ctx.stop_timer(TimerLabel::BuildPolyMesh);
    result
}

fn stage_error(ctx: &mut BuildContext, stage: &'static str, message: String) -> Error {
    ctx.error(format!("{stage}: {message}"));
    Error::Stage { stage, message }
}

fn build_poly_mesh_untimed(
    ctx: &mut BuildContext,
    cset: &ContourSet,
    nvp: usize,
) -> Result<PolyMesh> {
    const STAGE: &str = "rcBuildPolyMesh";
    if !(3..=MAX_VERTS_PER_POLY).contains(&nvp) {
        return Err(stage_error(
            ctx,
            STAGE,
            format!("Vertices per polygon must be 3 to {MAX_VERTS_PER_POLY}, got {nvp}."),
        ));
    }

    let mut max_vertices = 0usize;
    let mut max_tris = 0usize;
    let mut max_verts_per_cont = 0usize;
    for cont in &cset.contours {
        let n = cont.nverts();
        if n < 3 {
            continue;
        }
        max_vertices = max_vertices.saturating_add(n);
        max_tris = max_tris.saturating_add(n - 2);
        max_verts_per_cont = max_verts_per_cont.max(n);
    }
    if max_vertices >= 0xfffe {
        // The log keeps Recast's words; the error adds what to do, since a big map hits this
        // as soon as it is built in one piece.
        ctx.error(format!("{STAGE}: Too many vertices {max_vertices}."));
        return Err(Error::Stage {
            stage: STAGE,
            message: format!(
                "Too many vertices {max_vertices} (a polygon mesh indexes at most {}: bake in \
                 tiles, with `--tile-size` or the Tile Mesh sample, or raise cellSize)",
                0xfffe - 1
            ),
        });
    }

    let stride = 2 * nvp;
    let mut mesh = PolyMesh {
        verts: Vec::with_capacity(max_vertices * 3),
        polys: Vec::with_capacity(max_tris * stride),
        regs: Vec::with_capacity(max_tris),
        flags: Vec::new(),
        areas: Vec::with_capacity(max_tris),
        nverts: 0,
        npolys: 0,
        maxpolys: max_tris,
        nvp,
        bmin: cset.bmin,
        bmax: cset.bmax,
        cs: cset.cs,
        ch: cset.ch,
        border_size: cset.border_size,
        max_edge_error: cset.max_error,
    };

    // Vertices on the tile border, to be removed once all polygons exist.
    let mut on_border = vec![false; max_vertices];
    let mut welder = VertexWelder::with_capacity(max_vertices);
    let mut indices: Vec<u32> = Vec::with_capacity(max_verts_per_cont);
    let mut tris: Vec<u32> = Vec::with_capacity(max_verts_per_cont * 3);
    let mut vert_ids: Vec<u16> = Vec::with_capacity(max_verts_per_cont);
    let mut polys: Vec<u16> = Vec::with_capacity(max_verts_per_cont * nvp);
    let mut merge_scratch = MergeScratch::default();
    let mut triangulator = Triangulator::default();

    for (ci, cont) in cset.contours.iter().enumerate() {
        let n = cont.nverts();
        if n < 3 {
            continue;
        }

        indices.clear();
        indices.extend(0..n as u32);
        if !triangulator.triangulate(&cont.verts, &mut indices, &mut tris) {
            ctx.warning(format!("{STAGE}: Bad triangulation Contour {ci}."));
        }

        vert_ids.clear();
        for v in cont.verts.chunks_exact(4) {
            // Contour coordinates fit in u16 for any grid Recast accepts; the cast matches C++'s.
            let id = welder.add(&mut mesh.verts, v[0] as u16, v[1] as u16, v[2] as u16);
            if v[3] & BORDER_VERTEX != 0 {
                on_border[usize::from(id)] = true;
            }
            vert_ids.push(id);
        }

        polys.clear();
        for t in tris.chunks_exact(3) {
            if t[0] != t[1] && t[0] != t[2] && t[1] != t[2] {
                polys.extend(t.iter().map(|&k| vert_ids[k as usize]));
                polys.resize(polys.len() + nvp - 3, MESH_NULL_IDX);
            }
        }
        if polys.is_empty() {
            continue;
        }
        if nvp > 3 {
            merge_polygons(
                &mut polys,
                &mesh.verts,
                nvp,
                &mut merge_scratch,
                |_, _, _| {},
            );
        }

        for poly in polys.chunks_exact(nvp) {
            if mesh.npolys >= max_tris {
                return Err(stage_error(
                    ctx,
                    STAGE,
                    format!("Too many polygons {} (max:{max_tris}).", mesh.npolys + 1),
                ));
            }
            mesh.polys.extend_from_slice(poly);
            mesh.polys.resize(mesh.polys.len() + nvp, MESH_NULL_IDX);
            mesh.regs.push(cont.reg);
            mesh.areas.push(cont.area);
            mesh.npolys += 1;
        }
    }
    mesh.nverts = mesh.verts.len() / 3;
    on_border.truncate(mesh.nverts);

    let mut scratch = RemovalScratch::default();
    let mut i = 0;
    while i < mesh.nverts {
        if on_border[i] && can_remove_vertex(&mesh, i as u16, &mut scratch.can_remove_edges) {
            remove_vertex(ctx, &mut mesh, i as u16, max_tris, &mut scratch);
            on_border.remove(i);
        } else {
            i += 1;
        }
    }

    build_mesh_adjacency(&mut mesh.polys, mesh.npolys, mesh.nverts, nvp);

    if mesh.border_size > 0 {
        mark_portal_edges(&mut mesh, cset.width, cset.height);
    }

    mesh.flags = vec![0; mesh.npolys];
    Ok(mesh)
}

/// Welds vertices that share x and z and lie within 2 voxels vertically, through a hash of
/// (x, z) chained most-recent-first, as Recast's `addVertex` does (the chain order decides which
/// of several candidates a vertex is welded to).
struct VertexWelder {
    bucket_first: Vec<u32>,
    next: Vec<u32>,
}

impl VertexWelder {
    fn with_capacity(nverts: usize) -> Self {
        Self {
            bucket_first: vec![NO_INDEX; VERTEX_BUCKET_COUNT],
            next: Vec::with_capacity(nverts),
        }
    }

    fn bucket(x: u16, z: u16) -> usize {
        const HASH_X: u32 = 0x8da6_b343;
        const HASH_Z: u32 = 0xcb1a_b31f;
        let n = HASH_X
            .wrapping_mul(u32::from(x))
            .wrapping_add(HASH_Z.wrapping_mul(u32::from(z)));
        n as usize & (VERTEX_BUCKET_COUNT - 1)
    }

    /// The index of the welded vertex, appending (x, y, z) to `verts` if it is new. Indices wrap
    /// at u16 like Recast's when more than 65536 vertices are added (callers report that).
    fn add(&mut self, verts: &mut Vec<u16>, x: u16, y: u16, z: u16) -> u16 {
        let bucket = Self::bucket(x, z);
        let mut i = self.bucket_first[bucket];
        while i != NO_INDEX {
            let v = &verts[i as usize * 3..i as usize * 3 + 3];
            if v[0] == x && (i32::from(v[1]) - i32::from(y)).abs() <= 2 && v[2] == z {
                return i as u16;
            }
            i = self.next[i as usize];
        }
        let new = self.next.len() as u32;
        verts.extend_from_slice(&[x, y, z]);
        self.next.push(self.bucket_first[bucket]);
        self.bucket_first[bucket] = new;
        new as u16
    }
}

/// An edge around a vertex being removed, with the data of the polygon it came from.
#[derive(Clone, Copy)]
struct HoleEdge {
    from: u16,
    to: u16,
    reg: u16,
    area: u8,
}

/// Buffers reused across vertex removals.
#[derive(Default)]
struct RemovalScratch {
    /// For `can_remove_vertex`: far end of each edge at the vertex and how many polygons use it.
    can_remove_edges: Vec<(u16, u32)>,
    edges: Vec<HoleEdge>,
    hole: Vec<u16>,
    hole_regs: Vec<u16>,
    hole_areas: Vec<u8>,
    hole_verts: Vec<i32>,
    hole_indices: Vec<u32>,
    tris: Vec<u32>,
    triangulator: Triangulator,
    polys: Vec<u16>,
    poly_regs: Vec<u16>,
    poly_areas: Vec<u8>,
    merge: MergeScratch,
}

/// Whether removing vertex `rem` leaves a single hole that can be re-triangulated: enough
/// edges remain and the polygons using it form one fan (at most two open edges).
fn can_remove_vertex(mesh: &PolyMesh, rem: u16, edges: &mut Vec<(u16, u32)>) -> bool {
    let nvp = mesh.nvp;
    let polys = || mesh.polys.chunks_exact(2 * nvp).take(mesh.npolys);

    let mut remaining_edges = 0isize;
    for p in polys() {
        let nv = poly_vert_count(&p[..nvp]);
        let removed = p[..nv].iter().filter(|&&v| v == rem).count();
        if removed > 0 {
            remaining_edges += nv as isize - (removed as isize + 1);
        }
    }
    if remaining_edges <= 2 {
        return false;
    }

    edges.clear();
    for p in polys() {
        let nv = poly_vert_count(&p[..nvp]);
        let mut k = nv - 1;
        for j in 0..nv {
            if p[j] == rem || p[k] == rem {
                let other = if p[k] == rem { p[j] } else { p[k] };
                let mut exists = false;
                for edge in edges.iter_mut().filter(|e| e.0 == other) {
                    edge.1 += 1;
                    exists = true;
                }
                if !exists {
                    edges.push((other, 1));
                }
            }
            k = j;
        }
    }
    edges.iter().filter(|e| e.1 < 2).count() <= 2
}

/// Removes vertex `rem` and the polygons using it, then fills the hole with new merged
/// polygons whose region becomes [`MULTIPLE_REGS`] where they span several regions.
fn remove_vertex(
    ctx: &mut BuildContext,
    mesh: &mut PolyMesh,
    rem: u16,
    max_tris: usize,
    scratch: &mut RemovalScratch,
) {
    let nvp = mesh.nvp;
    let stride = 2 * nvp;

    let edges = &mut scratch.edges;
    edges.clear();
    let mut i = 0;
    while i < mesh.npolys {
        let p = &mesh.polys[i * stride..i * stride + nvp];
        let nv = poly_vert_count(p);
        if !p[..nv].contains(&rem) {
            i += 1;
            continue;
        }
        let mut k = nv - 1;
        for j in 0..nv {
            if p[j] != rem && p[k] != rem {
                edges.push(HoleEdge {
                    from: p[k],
                    to: p[j],
                    reg: mesh.regs[i],
                    area: mesh.areas[i],
                });
            }
            k = j;
        }
        let last = mesh.npolys - 1;
        mesh.polys
            .copy_within(last * stride..last * stride + nvp, i * stride);
        mesh.polys[i * stride + nvp..(i + 1) * stride].fill(MESH_NULL_IDX);
        mesh.polys.truncate(last * stride);
        mesh.regs.swap_remove(i);
        mesh.areas.swap_remove(i);
        mesh.npolys = last;
    }

    let rem_at = usize::from(rem) * 3;
    mesh.verts.drain(rem_at..rem_at + 3);
    mesh.nverts -= 1;
    for p in mesh.polys.chunks_exact_mut(stride) {
        let nv = poly_vert_count(&p[..nvp]);
        for v in &mut p[..nv] {
            if *v > rem {
                *v -= 1;
            }
        }
    }
    for e in edges.iter_mut() {
        if e.from > rem {
            e.from -= 1;
        }
        if e.to > rem {
            e.to -= 1;
        }
    }
    if edges.is_empty() {
        return;
    }

    // Chain the edges into the hole's outline, growing it at both ends.
    let (hole, hole_regs, hole_areas) = (
        &mut scratch.hole,
        &mut scratch.hole_regs,
        &mut scratch.hole_areas,
    );
    hole.clear();
    hole_regs.clear();
    hole_areas.clear();
    hole.push(edges[0].from);
    hole_regs.push(edges[0].reg);
    hole_areas.push(edges[0].area);
    while !edges.is_empty() {
        let mut matched = false;
        let mut i = 0;
        while i < edges.len() {
            let e = edges[i];
            if hole[0] == e.to {
                hole.insert(0, e.from);
                hole_regs.insert(0, e.reg);
                hole_areas.insert(0, e.area);
            } else if hole[hole.len() - 1] == e.from {
                hole.push(e.to);
                hole_regs.push(e.reg);
                hole_areas.push(e.area);
            } else {
                i += 1;
                continue;
            }
            edges.swap_remove(i);
            matched = true;
        }
        if !matched {
            break;
        }
    }

    scratch.hole_verts.clear();
    for &v in hole.iter() {
        let at = usize::from(v) * 3;
        let [x, y, z] = [0, 1, 2].map(|axis| i32::from(mesh.verts[at + axis]));
        scratch.hole_verts.extend([x, y, z, 0]);
    }
    scratch.hole_indices.clear();
    scratch.hole_indices.extend(0..hole.len() as u32);
    let tris = &mut scratch.tris;
    let triangulated =
        scratch
            .triangulator
            .triangulate(&scratch.hole_verts, &mut scratch.hole_indices, tris);
    if !triangulated && !tris.is_empty() {
        ctx.warning("removeVertex: triangulate() returned bad results.");
    }

    let (polys, poly_regs, poly_areas) = (
        &mut scratch.polys,
        &mut scratch.poly_regs,
        &mut scratch.poly_areas,
    );
    polys.clear();
    poly_regs.clear();
    poly_areas.clear();
    for t in tris.chunks_exact(3) {
        let t = [t[0], t[1], t[2]].map(|k| k as usize);
        if t[0] == t[1] || t[0] == t[2] || t[1] == t[2] {
            continue;
        }
        polys.extend(t.map(|k| hole[k]));
        polys.resize(polys.len() + nvp - 3, MESH_NULL_IDX);
        let regs = t.map(|k| hole_regs[k]);
        poly_regs.push(if regs[0] != regs[1] || regs[1] != regs[2] {
            MULTIPLE_REGS
        } else {
            regs[0]
        });
        poly_areas.push(hole_areas[t[0]]);
    }
    if polys.is_empty() {
        return;
    }

    if nvp > 3 {
        merge_polygons(polys, &mesh.verts, nvp, &mut scratch.merge, |a, b, last| {
            if poly_regs[a] != poly_regs[b] {
                poly_regs[a] = MULTIPLE_REGS;
            }
            poly_regs[b] = poly_regs[last];
            poly_areas[b] = poly_areas[last];
            poly_regs.truncate(last);
            poly_areas.truncate(last);
        });
    }

    for ((poly, &reg), &area) in polys.chunks_exact(nvp).zip(&*poly_regs).zip(&*poly_areas) {
        if mesh.npolys >= max_tris {
            break;
        }
        mesh.polys.extend_from_slice(poly);
        mesh.polys.resize(mesh.polys.len() + nvp, MESH_NULL_IDX);
        mesh.regs.push(reg);
        mesh.areas.push(area);
        mesh.npolys += 1;
    }
}

/// One polygon edge, found from both sides (Eric Lengyel's method, as Recast uses it).
#[derive(Clone, Copy)]
struct AdjacencyEdge {
    /// End vertex (the start vertex is the chain this edge is in).
    to: u16,
    poly: [u16; 2],
    poly_edge: [u16; 2],
}

/// Fills the neighbour slots of every polygon with the polygon across each edge.
fn build_mesh_adjacency(polys: &mut [u16], npolys: usize, nverts: usize, nvp: usize) {
    let stride = 2 * nvp;
    let edge_end = |p: &[u16], j: usize| {
        if j + 1 >= nvp || p[j + 1] == MESH_NULL_IDX {
            p[0]
        } else {
            p[j + 1]
        }
    };

    let mut first_edge = vec![NO_INDEX; nverts];
    let mut next_edge: Vec<u32> = Vec::with_capacity(npolys * nvp);
    let mut edges: Vec<AdjacencyEdge> = Vec::with_capacity(npolys * nvp);
    for (i, p) in polys.chunks_exact(stride).take(npolys).enumerate() {
        for j in 0..nvp {
            if p[j] == MESH_NULL_IDX {
                break;
            }
            let (v0, v1) = (p[j], edge_end(p, j));
            if v0 < v1 {
                next_edge.push(first_edge[usize::from(v0)]);
                first_edge[usize::from(v0)] = edges.len() as u32;
                edges.push(AdjacencyEdge {
                    to: v1,
                    poly: [i as u16; 2],
                    poly_edge: [j as u16, 0],
                });
            }
        }
    }

    for (i, p) in polys.chunks_exact(stride).take(npolys).enumerate() {
        for j in 0..nvp {
            if p[j] == MESH_NULL_IDX {
                break;
            }
            let (v0, v1) = (p[j], edge_end(p, j));
            if v0 > v1 {
                let mut e = first_edge[usize::from(v1)];
                while e != NO_INDEX {
                    let edge = &mut edges[e as usize];
                    if edge.to == v0 && edge.poly[0] == edge.poly[1] {
                        edge.poly[1] = i as u16;
                        edge.poly_edge[1] = j as u16;
                        break;
                    }
                    e = next_edge[e as usize];
                }
            }
        }
    }

    for e in &edges {
        if e.poly[0] != e.poly[1] {
            let [p0, p1] = e.poly.map(usize::from);
            polys[p0 * stride + nvp + usize::from(e.poly_edge[0])] = e.poly[1];
            polys[p1 * stride + nvp + usize::from(e.poly_edge[1])] = e.poly[0];
        }
    }
}

/// Marks open edges lying on the tile's outer boundary as portals, tagged with the side
/// (0 = -x, 1 = +z, 2 = +x, 3 = -z) so Detour can link tiles.
fn mark_portal_edges(mesh: &mut PolyMesh, width: i32, height: i32) {
    let nvp = mesh.nvp;
    let verts = &mesh.verts;
    for p in mesh.polys.chunks_exact_mut(2 * nvp).take(mesh.npolys) {
        for j in 0..nvp {
            if p[j] == MESH_NULL_IDX {
                break;
            }
            if p[nvp + j] != MESH_NULL_IDX {
                continue;
            }
            let nj = if j + 1 >= nvp || p[j + 1] == MESH_NULL_IDX {
                0
            } else {
                j + 1
            };
            let va = usize::from(p[j]) * 3;
            let vb = usize::from(p[nj]) * 3;
            let (ax, az) = (i32::from(verts[va]), i32::from(verts[va + 2]));
            let (bx, bz) = (i32::from(verts[vb]), i32::from(verts[vb + 2]));
            let side = if ax == 0 && bx == 0 {
                Some(0)
            } else if az == height && bz == height {
                Some(1)
            } else if ax == width && bx == width {
                Some(2)
            } else if az == 0 && bz == 0 {
                Some(3)
            } else {
                None
            };
            if let Some(side) = side {
                p[nvp + j] = PORTAL_EDGE | side;
            }
        }
    }
}

/// Joins tile poly meshes into one, welding vertices shared across tiles and re-linking
/// neighbours; portal edges survive only on the sides of the combined mesh
/// (Recast's `rcMergePolyMeshes`). All meshes must have the same `nvp` and cell size.
///
/// `maxpolys` of the result is its polygon count (Recast leaves it unset); `border_size` and
/// `max_edge_error` are 0, as Recast leaves them.
pub fn merge_poly_meshes(ctx: &mut BuildContext, meshes: &[&PolyMesh]) -> Result<PolyMesh> {
    ctx.start_timer(TimerLabel::MergePolyMesh);
    let result = merge_poly_meshes_untimed(ctx, meshes);
    ctx.stop_timer(TimerLabel::MergePolyMesh);
    result
}

fn merge_poly_meshes_untimed(ctx: &mut BuildContext, meshes: &[&PolyMesh]) -> Result<PolyMesh> {
    const STAGE: &str = "rcMergePolyMeshes";
    let Some(first) = meshes.first() else {
        return Ok(PolyMesh::default());
    };
    let nvp = first.nvp;
    if !(3..=MAX_VERTS_PER_POLY).contains(&nvp) {
        return Err(stage_error(
            ctx,
            STAGE,
            format!("Vertices per polygon must be 3 to {MAX_VERTS_PER_POLY}, got {nvp}."),
        ));
    }
    let stride = 2 * nvp;
    for (i, m) in meshes.iter().enumerate() {
        if m.nvp != nvp
            || m.verts.len() / 3 < m.nverts
            || m.polys.len() / stride < m.npolys
            || m.regs.len() < m.npolys
            || m.areas.len() < m.npolys
            || m.flags.len() < m.npolys
        {
            return Err(stage_error(
                ctx,
                STAGE,
                format!(
                    "Mesh {i} is inconsistent (nvp {} vs {nvp}, or short arrays).",
                    m.nvp
                ),
            ));
        }
    }

    let mut mesh = PolyMesh {
        nvp,
        cs: first.cs,
        ch: first.ch,
        bmin: first.bmin,
        bmax: first.bmax,
        ..PolyMesh::default()
    };
    let mut max_verts = 0usize;
    let mut max_polys = 0usize;
    for m in meshes {
        for axis in 0..3 {
            mesh.bmin[axis] = mesh.bmin[axis].min(m.bmin[axis]);
            mesh.bmax[axis] = mesh.bmax[axis].max(m.bmax[axis]);
        }
        max_verts = max_verts.saturating_add(m.nverts);
        max_polys = max_polys.saturating_add(m.npolys);
    }
    mesh.verts.reserve(max_verts * 3);
    mesh.polys.reserve(max_polys * stride);
    mesh.regs.reserve(max_polys);
    mesh.areas.reserve(max_polys);
    mesh.flags.reserve(max_polys);

    // Offset in cells between two bounds, rounded as Recast does (to u16, as its C++ cast).
    let cells = |from: f32, to: f32| ((from - to) / mesh.cs + 0.5).floor() as i32 as u16;

    let mut welder = VertexWelder::with_capacity(max_verts);
    let mut remap: Vec<u16> = Vec::new();
    for m in meshes {
        let ox = cells(m.bmin[0], mesh.bmin[0]);
        let oz = cells(m.bmin[2], mesh.bmin[2]);
        let is_min_x = ox == 0;
        let is_min_z = oz == 0;
        let is_max_x = cells(mesh.bmax[0], m.bmax[0]) == 0;
        let is_max_z = cells(mesh.bmax[2], m.bmax[2]) == 0;
        let keeps_portal = [is_min_x, is_max_z, is_max_x, is_min_z];
        let on_border = keeps_portal.contains(&true);

        remap.clear();
        for v in m.verts[..m.nverts * 3].chunks_exact(3) {
            let id = welder.add(
                &mut mesh.verts,
                v[0].wrapping_add(ox),
                v[1],
                v[2].wrapping_add(oz),
            );
            remap.push(id);
        }

        for j in 0..m.npolys {
            let src = &m.polys[j * stride..(j + 1) * stride];
            let start = mesh.polys.len();
            mesh.polys.resize(start + stride, MESH_NULL_IDX);
            let tgt = &mut mesh.polys[start..];
            for k in 0..nvp {
                if src[k] == MESH_NULL_IDX {
                    break;
                }
                let Some(&id) = remap.get(usize::from(src[k])) else {
                    return Err(stage_error(
                        ctx,
                        STAGE,
                        format!("Polygon {j} uses vertex {} of {}.", src[k], m.nverts),
                    ));
                };
                tgt[k] = id;
            }
            if on_border {
                for k in nvp..stride {
                    let n = src[k];
                    if n & PORTAL_EDGE != 0
                        && n != MESH_NULL_IDX
                        && keeps_portal.get(usize::from(n & 0xf)) == Some(&true)
                    {
                        tgt[k] = n;
                    }
                }
            }
            mesh.regs.push(m.regs[j]);
            mesh.areas.push(m.areas[j]);
            mesh.flags.push(m.flags[j]);
        }
    }
    mesh.nverts = mesh.verts.len() / 3;
    mesh.npolys = mesh.regs.len();
    mesh.maxpolys = mesh.npolys;

    build_mesh_adjacency(&mut mesh.polys, mesh.npolys, mesh.nverts, nvp);

    if mesh.nverts > 0xffff {
        ctx.error(format!(
            "{STAGE}: The resulting mesh has too many vertices {} (max {}). Data can be corrupted.",
            mesh.nverts, 0xffff
        ));
    }
    if mesh.npolys > 0xffff {
        ctx.error(format!(
            "{STAGE}: The resulting mesh has too many polygons {} (max {}). Data can be corrupted.",
            mesh.npolys, 0xffff
        ));
    }
    Ok(mesh)
}

/// A copy of `src` whose arrays hold exactly its polygons, with `maxpolys` = `npolys`
/// (Recast's `rcCopyPolyMesh`).
pub fn copy_poly_mesh(src: &PolyMesh) -> PolyMesh {
    fn head<T: Copy>(values: &[T], len: usize) -> Vec<T> {
        values.iter().take(len).copied().collect()
    }
    PolyMesh {
        verts: head(&src.verts, src.nverts * 3),
        polys: head(&src.polys, src.npolys * 2 * src.nvp),
        regs: head(&src.regs, src.npolys),
        flags: head(&src.flags, src.npolys),
        areas: head(&src.areas, src.npolys),
        nverts: src.nverts,
        npolys: src.npolys,
        maxpolys: src.npolys,
        nvp: src.nvp,
        bmin: src.bmin,
        bmax: src.bmax,
        cs: src.cs,
        ch: src.ch,
        border_size: src.border_size,
        max_edge_error: src.max_edge_error,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recast::contour::Contour;

    const AREA: u8 = crate::recast::WALKABLE_AREA;

    /// A contour from (x, z, flags) corners, all at height 0.
    fn contour(reg: u16, corners: &[(i32, i32, i32)]) -> Contour {
        Contour {
            verts: corners.iter().flat_map(|&(x, z, f)| [x, 0, z, f]).collect(),
            raw_verts: Vec::new(),
            reg,
            area: AREA,
        }
    }

    fn contour_set(contours: Vec<Contour>, size: i32, border_size: i32) -> ContourSet {
        ContourSet {
            contours,
            bmin: [0.0; 3],
            bmax: [size as f32 * 0.3, 1.0, size as f32 * 0.3],
            cs: 0.3,
            ch: 0.2,
            width: size,
            height: size,
            border_size,
            max_error: 1.3,
        }
    }

    fn xz(mesh: &PolyMesh, v: u16) -> Point {
        let at = usize::from(v) * 3;
        [i32::from(mesh.verts[at]), i32::from(mesh.verts[at + 2])]
    }

    fn poly_verts(mesh: &PolyMesh, i: usize) -> &[u16] {
        let p = &mesh.poly(i)[..mesh.nvp];
        &p[..poly_vert_count(p)]
    }

    /// Twice the total polygon area (positive for Recast's winding).
    fn doubled_area(mesh: &PolyMesh) -> i32 {
        (0..mesh.npolys)
            .map(|i| {
                let p = poly_verts(mesh, i);
                (1..p.len() - 1)
                    .map(|k| -area2(xz(mesh, p[0]), xz(mesh, p[k]), xz(mesh, p[k + 1])))
                    .sum::<i32>()
            })
            .sum()
    }

    /// Checks that every polygon is convex, every neighbour link is mutual and sits on a
    /// shared edge, and that open edges really have no polygon on the other side.
    fn assert_convex_and_linked(mesh: &PolyMesh) {
        assert_eq!(mesh.polys.len(), mesh.npolys * 2 * mesh.nvp);
        for i in 0..mesh.npolys {
            let p = poly_verts(mesh, i);
            let n = p.len();
            assert!(n >= 3, "polygon {i} has {n} vertices");
            for k in 0..n {
                let [a, b, c] = [p[k], p[(k + 1) % n], p[(k + 2) % n]].map(|v| xz(mesh, v));
                assert!(left_on(a, b, c), "polygon {i} is not convex at {k}: {p:?}");
            }
            for k in 0..n {
                let (a, b) = (p[k], p[(k + 1) % n]);
                let neighbour = mesh.poly(i)[mesh.nvp + k];
                let twins: Vec<usize> = (0..mesh.npolys)
                    .filter(|&j| {
                        let q = poly_verts(mesh, j);
                        (0..q.len()).any(|m| q[m] == b && q[(m + 1) % q.len()] == a)
                    })
                    .collect();
                if neighbour == MESH_NULL_IDX || neighbour & PORTAL_EDGE != 0 {
                    assert!(twins.is_empty(), "polygon {i} edge {k} is open but shared");
                    continue;
                }
                let j = usize::from(neighbour);
                assert_eq!(twins, [j], "polygon {i} edge {k} links to {j}");
                let q = poly_verts(mesh, j);
                let m = (0..q.len()).find(|&m| q[m] == b).unwrap();
                assert_eq!(usize::from(mesh.poly(j)[mesh.nvp + m]), i, "link {j}->{i}");
            }
        }
    }

    fn build(cset: &ContourSet, nvp: usize) -> PolyMesh {
        let mut ctx = BuildContext::new();
        let mesh = build_poly_mesh(&mut ctx, cset, nvp).unwrap();
        assert!(ctx.entries().is_empty(), "{:?}", ctx.entries());
        assert_eq!(mesh.flags, vec![0; mesh.npolys]);
        assert_convex_and_linked(&mesh);
        mesh
    }

    #[test]
    fn square_becomes_one_quad() {
        let square = contour(1, &[(0, 0, 0), (0, 10, 0), (10, 10, 0), (10, 0, 0)]);
        let mesh = build(&contour_set(vec![square], 10, 0), 6);
        assert_eq!((mesh.nverts, mesh.npolys, mesh.maxpolys), (4, 1, 2));
        assert_eq!(mesh.regs, [1]);
        assert_eq!(mesh.areas, [AREA]);
        assert_eq!(doubled_area(&mesh), 200);
        assert!(mesh.poly(0)[6..].iter().all(|&n| n == MESH_NULL_IDX));
    }

    #[test]
    fn triangles_only_when_nvp_is_three() {
        let square = contour(1, &[(0, 0, 0), (0, 10, 0), (10, 10, 0), (10, 0, 0)]);
        let mesh = build(&contour_set(vec![square], 10, 0), 3);
        assert_eq!((mesh.nverts, mesh.npolys), (4, 2));
        assert_eq!(doubled_area(&mesh), 200);
    }

    #[test]
    fn l_shape_splits_into_two_linked_polygons() {
        let l_shape = contour(
            2,
            &[
                (0, 0, 0),
                (0, 10, 0),
                (5, 10, 0),
                (5, 5, 0),
                (10, 5, 0),
                (10, 0, 0),
            ],
        );
        let mesh = build(&contour_set(vec![l_shape], 10, 0), 6);
        assert_eq!((mesh.nverts, mesh.npolys), (6, 2));
        assert_eq!(doubled_area(&mesh), 150);
        let linked = (0..2).all(|i| mesh.poly(i)[6..].contains(&(1 - i as u16)));
        assert!(linked, "{:?}", mesh.polys);
    }

    #[test]
    fn neighbouring_contours_share_welded_vertices() {
        // The right contour's vertices are 1-2 voxels higher: still welded.
        let left = contour(1, &[(0, 0, 0), (0, 10, 0), (5, 10, 0), (5, 0, 0)]);
        let mut right = contour(2, &[(5, 0, 0), (5, 10, 0), (10, 10, 0), (10, 0, 0)]);
        right.verts[1] = 2;
        right.verts[5] = 1;
        let mesh = build(&contour_set(vec![left, right], 10, 0), 6);
        assert_eq!((mesh.nverts, mesh.npolys), (6, 2));
        assert_eq!(mesh.regs, [1, 2]);
        assert_eq!(
            mesh.poly(0)[6..],
            [MESH_NULL_IDX, MESH_NULL_IDX, 1, 0xffff, 0xffff, 0xffff]
        );
    }

    #[test]
    fn border_vertex_is_removed_and_hole_refilled() {
        // Two regions share the vertex (5, 0) on the tile border; removing it leaves a hole
        // spanning both regions.
        let b = BORDER_VERTEX;
        let left = contour(1, &[(0, 0, 0), (0, 10, 0), (5, 10, 0), (5, 0, b)]);
        let right = contour(2, &[(5, 0, b), (5, 10, 0), (10, 10, 0), (10, 0, 0)]);
        let mesh = build(&contour_set(vec![left, right], 10, 0), 6);
        assert_eq!(mesh.nverts, 5);
        assert!((0..5).all(|v| xz(&mesh, v) != [5, 0]));
        assert_eq!(doubled_area(&mesh), 200);
        // As C++ Recast gives for this input: both new polygons straddle the two regions.
        assert_eq!(
            mesh.verts,
            [0, 0, 0, 0, 0, 10, 5, 0, 10, 10, 0, 10, 10, 0, 0]
        );
        let null = MESH_NULL_IDX;
        assert_eq!(
            mesh.poly(0),
            [0, 1, 2, 4, null, null, null, null, 1, null, null, null]
        );
        assert_eq!(
            mesh.poly(1),
            [2, 3, 4, null, null, null, null, null, 0, null, null, null]
        );
        assert_eq!(mesh.regs, [MULTIPLE_REGS; 2]);
        assert_eq!(mesh.maxpolys, 4);
    }

    #[test]
    fn lone_triangle_tip_is_kept() {
        // Removing a triangle's only flagged corner would leave too few edges.
        let tri = contour(1, &[(0, 0, BORDER_VERTEX), (0, 10, 0), (10, 0, 0)]);
        let mesh = build(&contour_set(vec![tri], 10, 0), 6);
        assert_eq!((mesh.nverts, mesh.npolys), (3, 1));
    }

    #[test]
    fn tile_edges_become_portals() {
        let square = contour(1, &[(0, 0, 0), (0, 10, 0), (10, 10, 0), (10, 0, 0)]);
        let mesh = build(&contour_set(vec![square], 10, 2), 6);
        assert_eq!(mesh.border_size, 2);
        let p = poly_verts(&mesh, 0).to_vec();
        let sides: Vec<u16> = (0..4).map(|k| mesh.poly(0)[6 + k] & !PORTAL_EDGE).collect();
        let expected: Vec<u16> = (0..4)
            .map(|k| match (xz(&mesh, p[k]), xz(&mesh, p[(k + 1) % 4])) {
                ([0, _], [0, _]) => 0,
                ([_, 10], [_, 10]) => 1,
                ([10, _], [10, _]) => 2,
                _ => 3,
            })
            .collect();
        assert_eq!(sides, expected);
        assert!(mesh.poly(0)[6..10].iter().all(|&n| n & PORTAL_EDGE != 0));
    }

    #[test]
    fn inside_out_contour_warns_and_yields_no_polygons() {
        // Wound the wrong way round, every corner looks reflex and there is no ear to cut.
        let inside_out = contour(1, &[(0, 0, 0), (10, 0, 0), (10, 10, 0), (0, 10, 0)]);
        let mut ctx = BuildContext::new();
        let mesh = build_poly_mesh(&mut ctx, &contour_set(vec![inside_out], 10, 0), 6).unwrap();
        assert_eq!((mesh.nverts, mesh.npolys, mesh.maxpolys), (4, 0, 2));
        let messages: Vec<&str> = ctx.entries().iter().map(|e| e.message.as_str()).collect();
        assert_eq!(messages, ["rcBuildPolyMesh: Bad triangulation Contour 0."]);
    }

    #[test]
    fn rejects_too_many_vertices_and_bad_nvp() {
        let big = contour(1, &vec![(0, 0, 0); 0xfffe]);
        let mut ctx = BuildContext::new();
        let err = build_poly_mesh(&mut ctx, &contour_set(vec![big], 10, 0), 6).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("rcBuildPolyMesh: Too many vertices 65534 (a polygon mesh indexes at most 65533: bake in tiles"),
            "{err}"
        );
        assert_eq!(
            ctx.entries()[0].message,
            "rcBuildPolyMesh: Too many vertices 65534."
        );
        let square = contour(1, &[(0, 0, 0), (0, 10, 0), (10, 10, 0), (10, 0, 0)]);
        let cset = contour_set(vec![square], 10, 0);
        assert!(build_poly_mesh(&mut ctx, &cset, 2).is_err());
        assert!(build_poly_mesh(&mut ctx, &cset, MAX_VERTS_PER_POLY + 1).is_err());
        assert!(build_poly_mesh(&mut ctx, &cset, MAX_VERTS_PER_POLY).is_ok());
    }

    #[test]
    fn merged_tiles_link_across_the_seam_and_keep_outer_portals() {
        let square = || contour(1, &[(0, 0, 0), (0, 10, 0), (10, 10, 0), (10, 0, 0)]);
        let west = build(&contour_set(vec![square()], 10, 2), 6);
        let mut east = copy_poly_mesh(&west);
        east.bmin[0] += 3.0;
        east.bmax[0] += 3.0;

        let mut ctx = BuildContext::new();
        let merged = merge_poly_meshes(&mut ctx, &[&west, &east]).unwrap();
        assert!(ctx.entries().is_empty());
        assert_eq!((merged.nverts, merged.npolys, merged.maxpolys), (6, 2, 2));
        assert_eq!(merged.bmin, west.bmin);
        assert_eq!(merged.bmax, east.bmax);
        assert_convex_and_linked(&merged);
        let links = |i: usize| merged.poly(i)[6..10].to_vec();
        assert!(links(0).contains(&1) && links(1).contains(&0));
        // West keeps its -x portal but not +x; east the reverse; both keep z portals.
        let portal_sides = |i: usize| {
            let mut s: Vec<u16> = links(i)
                .into_iter()
                .filter(|&n| n != MESH_NULL_IDX && n & PORTAL_EDGE != 0)
                .map(|n| n & 0xf)
                .collect();
            s.sort_unstable();
            s
        };
        assert_eq!(portal_sides(0), [0, 1, 3]);
        assert_eq!(portal_sides(1), [1, 2, 3]);
    }

    #[test]
    fn merging_nothing_gives_an_empty_mesh() {
        let mut ctx = BuildContext::new();
        assert_eq!(
            merge_poly_meshes(&mut ctx, &[]).unwrap(),
            PolyMesh::default()
        );
    }

    #[test]
    fn copy_trims_to_the_polygons() {
        let square = contour(1, &[(0, 0, 0), (0, 10, 0), (10, 10, 0), (10, 0, 0)]);
        let mesh = build(&contour_set(vec![square], 10, 0), 6);
        let copy = copy_poly_mesh(&mesh);
        assert_eq!(copy.maxpolys, 1);
        assert_eq!(
            PolyMesh {
                maxpolys: 2,
                ..copy
            },
            mesh
        );
    }
}
