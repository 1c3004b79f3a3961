//! The convex polygon mesh with adjacency (Recast's `rcPolyMesh`).

/// Polygons in voxel coordinates, up to `nvp` vertices each.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PolyMesh {
    /// Vertices, 3 × u16 each (x, y, z in voxels).
    pub verts: Vec<u16>,
    /// Polygons, `2 * nvp` entries each: vertex indices then neighbour polygon indices (or edge
    /// flags), unused slots [`crate::MESH_NULL_IDX`].
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
    pub bmin: [f32; 3],
    pub bmax: [f32; 3],
    pub cs: f32,
    pub ch: f32,
    pub border_size: i32,
    pub max_edge_error: f32,
}

impl PolyMesh {
    /// The `2 * nvp` entries of polygon `i`.
    pub fn poly(&self, i: usize) -> &[u16] {
        &self.polys[i * 2 * self.nvp..(i + 1) * 2 * self.nvp]
    }
}

use crate::context::{BuildContext, TimerLabel};
use crate::contour::ContourSet;
use crate::{BORDER_VERTEX, MESH_NULL_IDX, MULTIPLE_REGS, NavlabError, Result};

/// Number of buckets of the vertex-welding hash (Recast's `VERTEX_BUCKET_COUNT`).
const VERTEX_BUCKET_COUNT: usize = 1 << 12;
/// "No vertex / no edge" in the index chains below.
const NO_INDEX: u32 = u32::MAX;
/// Triangulation flag on a polygon index: the vertex is an ear tip that can be cut off.
const EAR_TIP: u32 = 0x8000_0000;
/// Mask that strips the triangulation flags from a polygon index.
const INDEX_MASK: u32 = 0x0fff_ffff;
/// Neighbour-slot flag marking a polygon edge on the tile border (a portal to the next tile).
const PORTAL_EDGE: u16 = 0x8000;

/// Builds convex polygons (at most `nvp` vertices each) from the contours, welds shared
/// vertices, removes the tile-border vertices Recast flags, and links neighbouring polygons
/// (Recast's `rcBuildPolyMesh`).
pub fn build_poly_mesh(ctx: &mut BuildContext, cset: &ContourSet, nvp: usize) -> Result<PolyMesh> {
    ctx.start_timer(TimerLabel::BuildPolyMesh);
    let result = build_poly_mesh_untimed(ctx, cset, nvp);
    ctx.stop_timer(TimerLabel::BuildPolyMesh);
    result
}

fn stage_error(ctx: &mut BuildContext, stage: &'static str, message: String) -> NavlabError {
    ctx.error(format!("{stage}: {message}"));
    NavlabError::Stage { stage, message }
}

fn build_poly_mesh_untimed(
    ctx: &mut BuildContext,
    cset: &ContourSet,
    nvp: usize,
) -> Result<PolyMesh> {
    const STAGE: &str = "rcBuildPolyMesh";
    if nvp < 3 {
        return Err(stage_error(
            ctx,
            STAGE,
            format!("Vertices per polygon must be at least 3, got {nvp}."),
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
        return Err(stage_error(
            ctx,
            STAGE,
            format!("Too many vertices {max_vertices}."),
        ));
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
    let mut merged = vec![MESH_NULL_IDX; nvp];

    for (ci, cont) in cset.contours.iter().enumerate() {
        let n = cont.nverts();
        if n < 3 {
            continue;
        }

        indices.clear();
        indices.extend(0..n as u32);
        if !triangulate(&cont.verts, &mut indices, &mut tris) {
            ctx.warning(format!("{STAGE}: Bad triangulation Contour {ci}."));
        }

        vert_ids.clear();
        for v in cont.verts.chunks_exact(4) {
            // Contour coordinates fit in u16 for any grid Recast accepts; the cast mirrors its.
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
            merge_polygons(&mut polys, &mesh.verts, nvp, &mut merged, |_, _, _| {});
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

#[inline]
fn next(i: usize, n: usize) -> usize {
    if i + 1 < n { i + 1 } else { 0 }
}

#[inline]
fn prev(i: usize, n: usize) -> usize {
    if i > 0 { i - 1 } else { n - 1 }
}

/// A vertex in the x-z plane (the triangulation ignores height).
type Point = [i32; 2];

/// The x-z position of vertex `index` (flags stripped) of a 4-ints-per-vertex array.
#[inline]
fn point(verts: &[i32], index: u32) -> Point {
    let at = (index & INDEX_MASK) as usize * 4;
    [verts[at], verts[at + 2]]
}

/// Twice the signed area of triangle abc in the x-z plane; negative when c is left of a→b.
/// Wrapping like the C++ int arithmetic for (unrealistically) huge coordinates.
#[inline]
fn area2(a: Point, b: Point, c: Point) -> i32 {
    let abx = b[0].wrapping_sub(a[0]);
    let abz = b[1].wrapping_sub(a[1]);
    let acx = c[0].wrapping_sub(a[0]);
    let acz = c[1].wrapping_sub(a[1]);
    abx.wrapping_mul(acz).wrapping_sub(acx.wrapping_mul(abz))
}

#[inline]
fn left(a: Point, b: Point, c: Point) -> bool {
    area2(a, b, c) < 0
}

#[inline]
fn left_on(a: Point, b: Point, c: Point) -> bool {
    area2(a, b, c) <= 0
}

#[inline]
fn collinear(a: Point, b: Point, c: Point) -> bool {
    area2(a, b, c) == 0
}

/// Whether ab and cd cross at a point interior to both.
fn intersect_prop(a: Point, b: Point, c: Point, d: Point) -> bool {
    if collinear(a, b, c) || collinear(a, b, d) || collinear(c, d, a) || collinear(c, d, b) {
        return false;
    }
    (left(a, b, c) ^ left(a, b, d)) && (left(c, d, a) ^ left(c, d, b))
}

/// Whether c lies on the closed segment ab.
fn between(a: Point, b: Point, c: Point) -> bool {
    if !collinear(a, b, c) {
        return false;
    }
    let axis = if a[0] != b[0] { 0 } else { 1 };
    (a[axis] <= c[axis] && c[axis] <= b[axis]) || (a[axis] >= c[axis] && c[axis] >= b[axis])
}

/// Whether ab and cd touch or cross.
fn intersect(a: Point, b: Point, c: Point, d: Point) -> bool {
    intersect_prop(a, b, c, d)
        || between(a, b, c)
        || between(a, b, d)
        || between(c, d, a)
        || between(c, d, b)
}

/// Whether segment i–j crosses no polygon edge, ignoring edges that touch i or j (by position
/// or by coordinates). `proper_only` is the loose variant that tolerates touching edges.
fn diagonal_clear(i: usize, j: usize, verts: &[i32], indices: &[u32], proper_only: bool) -> bool {
    let n = indices.len();
    let d0 = point(verts, indices[i]);
    let d1 = point(verts, indices[j]);
    for k in 0..n {
        let k1 = next(k, n);
        if k == i || k1 == i || k == j || k1 == j {
            continue;
        }
        let p0 = point(verts, indices[k]);
        let p1 = point(verts, indices[k1]);
        if d0 == p0 || d1 == p0 || d0 == p1 || d1 == p1 {
            continue;
        }
        let crosses = if proper_only {
            intersect_prop(d0, d1, p0, p1)
        } else {
            intersect(d0, d1, p0, p1)
        };
        if crosses {
            return false;
        }
    }
    true
}

/// Whether the diagonal i–j starts into the polygon's interior at i. `loose` accepts diagonals
/// along i's edges, used to recover from contours with overlapping segments.
fn in_cone(i: usize, j: usize, verts: &[i32], indices: &[u32], loose: bool) -> bool {
    let n = indices.len();
    let pi = point(verts, indices[i]);
    let pj = point(verts, indices[j]);
    let pi1 = point(verts, indices[next(i, n)]);
    let pin1 = point(verts, indices[prev(i, n)]);
    if left_on(pin1, pi, pi1) {
        // Convex corner.
        if loose {
            left_on(pi, pj, pin1) && left_on(pj, pi, pi1)
        } else {
            left(pi, pj, pin1) && left(pj, pi, pi1)
        }
    } else {
        // Reflex corner.
        !(left_on(pi, pj, pi1) && left_on(pj, pi, pin1))
    }
}

fn diagonal(i: usize, j: usize, verts: &[i32], indices: &[u32]) -> bool {
    in_cone(i, j, verts, indices, false) && diagonal_clear(i, j, verts, indices, false)
}

fn diagonal_loose(i: usize, j: usize, verts: &[i32], indices: &[u32]) -> bool {
    in_cone(i, j, verts, indices, true) && diagonal_clear(i, j, verts, indices, true)
}

/// Squared x-z length of the segment between two polygon indices.
#[inline]
fn squared_length(verts: &[i32], a: u32, b: u32) -> i32 {
    let p0 = point(verts, a);
    let p1 = point(verts, b);
    let dx = p1[0].wrapping_sub(p0[0]);
    let dz = p1[1].wrapping_sub(p0[1]);
    dx.wrapping_mul(dx).wrapping_add(dz.wrapping_mul(dz))
}

/// Ear-clips the polygon `indices` (into `verts`, 4 ints per vertex), always cutting the ear
/// with the shortest new edge, and writes the triangles' vertex indices to `tris`.
///
/// Returns false if the outline is too tangled to finish; `tris` then holds the triangles found
/// so far. `indices` is consumed as scratch.
fn triangulate(verts: &[i32], indices: &mut Vec<u32>, tris: &mut Vec<u32>) -> bool {
    tris.clear();
    let mut n = indices.len();
    if n < 3 {
        return true;
    }
    for i in 0..n {
        let i1 = next(i, n);
        if diagonal(i, next(i1, n), verts, indices) {
            indices[i1] |= EAR_TIP;
        }
    }

    while n > 3 {
        let mut min_len = -1;
        let mut best = None;
        for i in 0..n {
            let i1 = next(i, n);
            if indices[i1] & EAR_TIP != 0 {
                let len = squared_length(verts, indices[i], indices[next(i1, n)]);
                if min_len < 0 || len < min_len {
                    min_len = len;
                    best = Some(i);
                }
            }
        }

        if best.is_none() {
            // Overlapping contour segments can leave no strict ear; retry with the loose test.
            // The length deliberately measures to the vertex after the ear, as Recast does.
            min_len = -1;
            for i in 0..n {
                let i2 = next(next(i, n), n);
                if diagonal_loose(i, i2, verts, indices) {
                    let len = squared_length(verts, indices[i], indices[next(i2, n)]);
                    if min_len < 0 || len < min_len {
                        min_len = len;
                        best = Some(i);
                    }
                }
            }
        }
        let Some(i) = best else {
            return false;
        };

        let mut i1 = next(i, n);
        let i2 = next(i1, n);
        tris.extend([indices[i], indices[i1], indices[i2]].map(|v| v & INDEX_MASK));

        indices.remove(i1);
        n -= 1;
        if i1 >= n {
            i1 = 0;
        }
        let i = prev(i1, n);
        if diagonal(prev(i, n), i1, verts, indices) {
            indices[i] |= EAR_TIP;
        } else {
            indices[i] &= INDEX_MASK;
        }
        if diagonal(i, next(i1, n), verts, indices) {
            indices[i1] |= EAR_TIP;
        } else {
            indices[i1] &= INDEX_MASK;
        }
    }

    tris.extend(indices[..3].iter().map(|v| v & INDEX_MASK));
    true
}

/// Number of used vertex slots of a polygon.
#[inline]
fn poly_vert_count(poly: &[u16]) -> usize {
    poly.iter()
        .position(|&v| v == MESH_NULL_IDX)
        .unwrap_or(poly.len())
}

/// Whether c is strictly left of a→b, for mesh vertices.
#[inline]
fn mesh_left(verts: &[u16], a: u16, b: u16, c: u16) -> bool {
    let at = |v: u16, axis: usize| i32::from(verts[usize::from(v) * 3 + axis]);
    (at(b, 0) - at(a, 0)) * (at(c, 2) - at(a, 2)) - (at(c, 0) - at(a, 0)) * (at(b, 2) - at(a, 2))
        < 0
}

/// If polygons `pa` and `pb` share an edge and their union is convex with at most `nvp`
/// vertices: the shared edge's squared length (longer shared edges merge first) and its index
/// in each polygon.
fn poly_merge_value(
    pa: &[u16],
    pb: &[u16],
    verts: &[u16],
    nvp: usize,
) -> Option<(i32, usize, usize)> {
    let na = poly_vert_count(pa);
    let nb = poly_vert_count(pb);
    if na + nb - 2 > nvp {
        return None;
    }

    // The last edge of pa that pb shares wins, like Recast's search.
    let mut shared = None;
    for i in 0..na {
        let (a0, a1) = (pa[i], pa[(i + 1) % na]);
        let ka = (a0.min(a1), a0.max(a1));
        if let Some(j) = (0..nb).find(|&j| {
            let (b0, b1) = (pb[j], pb[(j + 1) % nb]);
            ka == (b0.min(b1), b0.max(b1))
        }) {
            shared = Some((i, j));
        }
    }
    let (ea, eb) = shared?;

    if !mesh_left(verts, pa[(ea + na - 1) % na], pa[ea], pb[(eb + 2) % nb]) {
        return None;
    }
    if !mesh_left(verts, pb[(eb + nb - 1) % nb], pb[eb], pa[(ea + 2) % na]) {
        return None;
    }

    let va = usize::from(pa[ea]) * 3;
    let vb = usize::from(pa[(ea + 1) % na]) * 3;
    let dx = i32::from(verts[va]) - i32::from(verts[vb]);
    let dz = i32::from(verts[va + 2]) - i32::from(verts[vb + 2]);
    Some((dx * dx + dz * dz, ea, eb))
}

/// Greedily merges the polygons in `polys` (`nvp` slots each) into convex polygons, always
/// merging the pair with the longest shared edge first (ties go to the first pair found).
/// After each merge of polygon `b` into `a`, the last polygon moves into `b`'s slot and
/// `on_merge(a, b, last)` lets the caller move its per-polygon data the same way.
fn merge_polygons(
    polys: &mut Vec<u16>,
    verts: &[u16],
    nvp: usize,
    merged: &mut [u16],
    mut on_merge: impl FnMut(usize, usize, usize),
) {
    loop {
        let npolys = polys.len() / nvp;
        let mut best_value = 0;
        let mut best = (0, 0, 0, 0);
        for j in 0..npolys.saturating_sub(1) {
            let pj = &polys[j * nvp..(j + 1) * nvp];
            for k in j + 1..npolys {
                let pk = &polys[k * nvp..(k + 1) * nvp];
                if let Some((value, ea, eb)) = poly_merge_value(pj, pk, verts, nvp)
                    && value > best_value
                {
                    best_value = value;
                    best = (j, k, ea, eb);
                }
            }
        }
        if best_value <= 0 {
            return;
        }

        let (a, b, ea, eb) = best;
        let pa = &polys[a * nvp..(a + 1) * nvp];
        let pb = &polys[b * nvp..(b + 1) * nvp];
        let na = poly_vert_count(pa);
        let nb = poly_vert_count(pb);
        merged.fill(MESH_NULL_IDX);
        let from_a = (0..na - 1).map(|i| pa[(ea + 1 + i) % na]);
        let from_b = (0..nb - 1).map(|i| pb[(eb + 1 + i) % nb]);
        for (slot, v) in merged.iter_mut().zip(from_a.chain(from_b)) {
            *slot = v;
        }
        polys[a * nvp..(a + 1) * nvp].copy_from_slice(merged);

        let last = npolys - 1;
        if b != last {
            polys.copy_within(last * nvp..npolys * nvp, b * nvp);
        }
        polys.truncate(last * nvp);
        on_merge(a, b, last);
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
    polys: Vec<u16>,
    poly_regs: Vec<u16>,
    poly_areas: Vec<u8>,
    merged: Vec<u16>,
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
    if !triangulate(&scratch.hole_verts, &mut scratch.hole_indices, tris) && !tris.is_empty() {
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
        scratch.merged.resize(nvp, MESH_NULL_IDX);
        merge_polygons(
            polys,
            &mesh.verts,
            nvp,
            &mut scratch.merged,
            |a, b, last| {
                if poly_regs[a] != poly_regs[b] {
                    poly_regs[a] = MULTIPLE_REGS;
                }
                poly_regs[b] = poly_regs[last];
                poly_areas[b] = poly_areas[last];
                poly_regs.truncate(last);
                poly_areas.truncate(last);
            },
        );
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
