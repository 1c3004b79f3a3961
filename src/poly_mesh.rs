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
    let mut merge_scratch = MergeScratch::default();

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

/// Whether c is strictly left of a→b, for mesh vertices (wrapping like Recast's int math).
#[inline]
fn mesh_left(verts: &[u16], a: u16, b: u16, c: u16) -> bool {
    let at = |v: u16| {
        let i = usize::from(v) * 3;
        [i32::from(verts[i]), i32::from(verts[i + 2])]
    };
    area2(at(a), at(b), at(c)) < 0
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
    Some((
        dx.wrapping_mul(dx).wrapping_add(dz.wrapping_mul(dz)),
        ea,
        eb,
    ))
}

/// Buffers for [`merge_polygons`], reused across contours.
#[derive(Default)]
struct MergeScratch {
    /// The polygon being assembled.
    merged: Vec<u16>,
    /// Merge value of every slot pair `(j, k)`, `j < k`, at `j * pair_stride + k`; values
    /// `<= 0` never merge.
    values: Vec<i32>,
    pair_stride: usize,
    /// Per row `j`: the best value among `(j, k > j)` and its first column (`usize::MAX` if
    /// nothing in the row can merge).
    row_best: Vec<(i32, usize)>,
}

impl MergeScratch {
    fn value(&self, j: usize, k: usize) -> i32 {
        self.values[j * self.pair_stride + k]
    }

    fn set_value(&mut self, j: usize, k: usize, value: i32) {
        self.values[j * self.pair_stride + k] = value;
    }

    /// Finds the best column of row `j` among the first `npolys` slots.
    fn rescan_row(&mut self, j: usize, npolys: usize) {
        let mut best = (0, usize::MAX);
        for k in j + 1..npolys {
            let value = self.value(j, k);
            if value > best.0 {
                best = (value, k);
            }
        }
        self.row_best[j] = best;
    }
}

/// The merge value of slots `j` and `k` (0 when they cannot merge).
fn slot_merge_value(polys: &[u16], verts: &[u16], nvp: usize, j: usize, k: usize) -> i32 {
    let pj = &polys[j * nvp..(j + 1) * nvp];
    let pk = &polys[k * nvp..(k + 1) * nvp];
    poly_merge_value(pj, pk, verts, nvp).map_or(0, |(value, _, _)| value)
}

/// Greedily merges the polygons in `polys` (`nvp` slots each) into convex polygons, always
/// merging the pair with the longest shared edge first (ties go to the first pair in slot
/// order), as Recast does. After each merge of polygon `b` into `a`, the last polygon moves
/// into `b`'s slot and `on_merge(a, b, last)` lets the caller move its per-polygon data the
/// same way.
///
/// Recast re-evaluates every pair after each merge; only pairs involving the two changed slots
/// can change, so the pair values are cached and the outcome is the same.
fn merge_polygons(
    polys: &mut Vec<u16>,
    verts: &[u16],
    nvp: usize,
    scratch: &mut MergeScratch,
    mut on_merge: impl FnMut(usize, usize, usize),
) {
    let mut npolys = polys.len() / nvp;
    if npolys < 2 {
        return;
    }
    scratch.merged.resize(nvp, MESH_NULL_IDX);
    scratch.pair_stride = npolys;
    scratch.values.clear();
    scratch.values.resize(npolys * npolys, 0);
    scratch.row_best.clear();
    scratch.row_best.resize(npolys, (0, usize::MAX));
    for j in 0..npolys {
        for k in j + 1..npolys {
            let value = slot_merge_value(polys, verts, nvp, j, k);
            scratch.set_value(j, k, value);
        }
        scratch.rescan_row(j, npolys);
    }

    loop {
        let mut best = (0, 0, 0);
        for (j, &(value, k)) in scratch.row_best[..npolys - 1].iter().enumerate() {
            if value > best.0 {
                best = (value, j, k);
            }
        }
        let (best_value, a, b) = best;
        if best_value <= 0 {
            return;
        }

        let pa = &polys[a * nvp..(a + 1) * nvp];
        let pb = &polys[b * nvp..(b + 1) * nvp];
        let Some((_, ea, eb)) = poly_merge_value(pa, pb, verts, nvp) else {
            return;
        };
        let na = poly_vert_count(pa);
        let nb = poly_vert_count(pb);
        let merged = &mut scratch.merged;
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
        npolys = last;

        // Slot b now holds the old last polygon: pairs before it keep their values (same
        // argument order); pairs after it are evaluated anew (the order flips).
        if b < npolys {
            for m in 0..b {
                let moved = scratch.value(m, last);
                scratch.set_value(m, b, moved);
            }
            for m in b + 1..npolys {
                let value = slot_merge_value(polys, verts, nvp, b, m);
                scratch.set_value(b, m, value);
            }
        }
        for m in 0..a {
            let value = slot_merge_value(polys, verts, nvp, m, a);
            scratch.set_value(m, a, value);
        }
        for m in a + 1..npolys {
            let value = slot_merge_value(polys, verts, nvp, a, m);
            scratch.set_value(a, m, value);
        }

        for m in 0..npolys {
            let (row_value, row_k) = scratch.row_best[m];
            if m == a || m == b || row_k == a || row_k == b || row_k == last {
                scratch.rescan_row(m, npolys);
                continue;
            }
            let mut row = (row_value, row_k);
            for k in [a, b] {
                if k > m && k < npolys {
                    let value = scratch.value(m, k);
                    if value > row.0 || (value > 0 && value == row.0 && k < row.1) {
                        row = (value, k);
                    }
                }
            }
            scratch.row_best[m] = row;
        }
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
    use crate::contour::Contour;

    const AREA: u8 = crate::WALKABLE_AREA;

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
        assert_eq!(err.to_string(), "rcBuildPolyMesh: Too many vertices 65534.");
        assert_eq!(ctx.entries()[0].message, err.to_string());
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
