//! The layer's polygon mesh (`dtBuildTileCachePolyMesh`): contours triangulated on the byte
//! grid, vertices shared through a hash, triangles merged into convex polygons of up to six
//! vertices, removable border vertices taken out, and neighbours and tile-side portals linked.

use super::contours::{Contour, NO_PORTAL, REMOVABLE_VERTEX};
use super::work_layer::{BuildError, MAX_VERTS_PER_POLY as NVP};

/// An unused vertex or neighbour slot.
pub(super) const NULL_IDX: u16 = 0xffff;
/// Triangulation mark on an index: the vertex after it may be cut off as an ear.
const EAR: u16 = 0x8000;
/// Edges and hole vertices that removing one vertex may touch.
const MAX_REM_EDGES: usize = 48;
const VERTEX_BUCKETS: usize = 1 << 8;

/// The mesh of one layer, laid out as Detour's builder takes it: vertices in cells, polygons
/// of `2 * 6` entries (vertices, then neighbours, portals as 0x8000 | side).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LayerPolyMesh {
    /// Vertices, three cell coordinates each.
    pub verts: Vec<u16>,
    /// Polygons, `2 * 6` entries each.
    pub polys: Vec<u16>,
    /// Area id per polygon.
    pub areas: Vec<u8>,
    /// Ability flags per polygon (set by the mesh process).
    pub flags: Vec<u16>,
}

impl LayerPolyMesh {
    /// How many vertices the mesh has.
    pub fn vert_count(&self) -> usize {
        self.verts.len() / 3
    }

    /// How many polygons the mesh has.
    pub fn poly_count(&self) -> usize {
        self.areas.len()
    }

    fn poly(&self, i: usize) -> &[u16] {
        &self.polys[i * NVP * 2..i * NVP * 2 + NVP]
    }
}

/// Vertices as the triangulation reads them: x at 0, z at 2 of each 4-byte entry.
type ByteVert = [u8; 4];

fn prev(i: usize, n: usize) -> usize {
    if i == 0 { n - 1 } else { i - 1 }
}

fn next(i: usize, n: usize) -> usize {
    if i + 1 < n { i + 1 } else { 0 }
}

fn area2(a: &ByteVert, b: &ByteVert, c: &ByteVert) -> i32 {
    let [ax, az, bx, bz, cx, cz] = [a[0], a[2], b[0], b[2], c[0], c[2]].map(i32::from);
    (bx - ax) * (cz - az) - (cx - ax) * (bz - az)
}

fn left(a: &ByteVert, b: &ByteVert, c: &ByteVert) -> bool {
    area2(a, b, c) < 0
}

fn left_on(a: &ByteVert, b: &ByteVert, c: &ByteVert) -> bool {
    area2(a, b, c) <= 0
}

fn collinear(a: &ByteVert, b: &ByteVert, c: &ByteVert) -> bool {
    area2(a, b, c) == 0
}

fn intersect_prop(a: &ByteVert, b: &ByteVert, c: &ByteVert, d: &ByteVert) -> bool {
    if collinear(a, b, c) || collinear(a, b, d) || collinear(c, d, a) || collinear(c, d, b) {
        return false;
    }
    (left(a, b, c) ^ left(a, b, d)) && (left(c, d, a) ^ left(c, d, b))
}

fn between(a: &ByteVert, b: &ByteVert, c: &ByteVert) -> bool {
    if !collinear(a, b, c) {
        return false;
    }
    let k = if a[0] != b[0] { 0 } else { 2 };
    (a[k] <= c[k] && c[k] <= b[k]) || (a[k] >= c[k] && c[k] >= b[k])
}

fn intersect(a: &ByteVert, b: &ByteVert, c: &ByteVert, d: &ByteVert) -> bool {
    intersect_prop(a, b, c, d)
        || between(a, b, c)
        || between(a, b, d)
        || between(c, d, a)
        || between(c, d, b)
}

fn same_xz(a: &ByteVert, b: &ByteVert) -> bool {
    a[0] == b[0] && a[2] == b[2]
}

fn vert<'a>(verts: &'a [ByteVert], indices: &[u16], i: usize) -> &'a ByteVert {
    &verts[usize::from(indices[i] & !EAR)]
}

/// Whether segment i–j crosses no edge of the polygon (edges sharing its ends excepted).
fn diagonalie(i: usize, j: usize, verts: &[ByteVert], indices: &[u16]) -> bool {
    let n = indices.len();
    let (d0, d1) = (vert(verts, indices, i), vert(verts, indices, j));
    (0..n).all(|k| {
        let k1 = next(k, n);
        if k == i || k1 == i || k == j || k1 == j {
            return true;
        }
        let (p0, p1) = (vert(verts, indices, k), vert(verts, indices, k1));
        if same_xz(d0, p0) || same_xz(d1, p0) || same_xz(d0, p1) || same_xz(d1, p1) {
            return true;
        }
        !intersect(d0, d1, p0, p1)
    })
}

/// Whether j lies inside the angle of the polygon at i.
fn in_cone(i: usize, j: usize, verts: &[ByteVert], indices: &[u16]) -> bool {
    let n = indices.len();
    let pi = vert(verts, indices, i);
    let pj = vert(verts, indices, j);
    let pi1 = vert(verts, indices, next(i, n));
    let pin1 = vert(verts, indices, prev(i, n));
    if left_on(pin1, pi, pi1) {
        return left(pi, pj, pin1) && left(pj, pi, pi1);
    }
    !(left_on(pi, pj, pi1) && left_on(pj, pi, pin1))
}

fn diagonal(i: usize, j: usize, verts: &[ByteVert], indices: &[u16]) -> bool {
    in_cone(i, j, verts, indices) && diagonalie(i, j, verts, indices)
}

/// Ear-clips the polygon `verts`, shortest ear first, into `tris` (vertex indices), with
/// `indices` as working memory. A polygon that cannot be finished yields the triangles made
/// so far.
fn triangulate(verts: &[ByteVert], indices: &mut Vec<u16>, tris: &mut Vec<[u16; 3]>) {
    tris.clear();
    indices.clear();
    indices.extend(0..verts.len() as u16);
    let n = indices.len();
    if n < 3 {
        return;
    }
    for i in 0..n {
        let i1 = next(i, n);
        let i2 = next(i1, n);
        if diagonal(i, i2, verts, indices) {
            indices[i1] |= EAR;
        }
    }
    while indices.len() > 3 {
        let n = indices.len();
        let mut best: Option<(i32, usize)> = None;
        for i in 0..n {
            let i1 = next(i, n);
            if indices[i1] & EAR == 0 {
                continue;
            }
            let p0 = vert(verts, indices, i);
            let p2 = vert(verts, indices, next(i1, n));
            let dx = i32::from(p2[0]) - i32::from(p0[0]);
            let dz = i32::from(p2[2]) - i32::from(p0[2]);
            let len = dx * dx + dz * dz;
            if best.is_none_or(|(min_len, _)| len < min_len) {
                best = Some((len, i));
            }
        }
        let Some((_, i)) = best else {
            return;
        };
        let mut i1 = next(i, n);
        let i2 = next(i1, n);
        tris.push([indices[i], indices[i1], indices[i2]].map(|v| v & !EAR));
        indices.remove(i1);
        let n = indices.len();
        if i1 >= n {
            i1 = 0;
        }
        let i = prev(i1, n);
        if diagonal(prev(i, n), i1, verts, indices) {
            indices[i] |= EAR;
        } else {
            indices[i] &= !EAR;
        }
        if diagonal(i, next(i1, n), verts, indices) {
            indices[i1] |= EAR;
        } else {
            indices[i1] &= !EAR;
        }
    }
    tris.push([indices[0], indices[1], indices[2]].map(|v| v & !EAR));
}

fn count_poly_verts(p: &[u16]) -> usize {
    p[..NVP].iter().take_while(|&&v| v != NULL_IDX).count()
}

fn uleft(verts: &[u16], a: u16, b: u16, c: u16) -> bool {
    let at = |v: u16, k: usize| i32::from(verts[usize::from(v) * 3 + k]);
    (at(b, 0) - at(a, 0)) * (at(c, 2) - at(a, 2)) - (at(c, 0) - at(a, 0)) * (at(b, 2) - at(a, 2))
        < 0
}

/// A polygon's vertex count and its edges as sorted vertex pairs (`min << 16 | max`), so that
/// finding the edge two polygons share compares one number per pair of edges.
#[derive(Clone, Copy, Default)]
struct PolyEdges {
    count: usize,
    keys: [u32; NVP],
}

impl PolyEdges {
    fn of(p: &[u16]) -> Self {
        let count = count_poly_verts(p);
        let mut keys = [0; NVP];
        for (i, key) in keys.iter_mut().enumerate().take(count) {
            let (a, b) = minmax(p[i], p[next(i, count)]);
            *key = (u32::from(a) << 16) | u32::from(b);
        }
        Self { count, keys }
    }
}

/// The squared length of the edge `pa` and `pb` share if merging them stays convex and within
/// six vertices, with the edge's index in each; `None` otherwise. Where they share several
/// edges, the last of `pa`'s counts, matched to the first of `pb`'s, as in C++.
fn poly_merge_value(
    pa: &[u16],
    ea_edges: &PolyEdges,
    pb: &[u16],
    eb_edges: &PolyEdges,
    verts: &[u16],
) -> Option<(i32, usize, usize)> {
    let (na, nb) = (ea_edges.count, eb_edges.count);
    if na + nb - 2 > NVP {
        return None;
    }
    let mut shared = None;
    for (i, key) in ea_edges.keys[..na].iter().enumerate() {
        if let Some(j) = eb_edges.keys[..nb].iter().position(|k| k == key) {
            shared = Some((i, j));
        }
    }
    let (ea, eb) = shared?;
    if !uleft(verts, pa[(ea + na - 1) % na], pa[ea], pb[(eb + 2) % nb]) {
        return None;
    }
    if !uleft(verts, pb[(eb + nb - 1) % nb], pb[eb], pa[(ea + 2) % na]) {
        return None;
    }
    let (va, vb) = (usize::from(pa[ea]), usize::from(pa[(ea + 1) % na]));
    let dx = i32::from(verts[va * 3]) - i32::from(verts[vb * 3]);
    let dz = i32::from(verts[va * 3 + 2]) - i32::from(verts[vb * 3 + 2]);
    Some((dx * dx + dz * dz, ea, eb))
}

/// `pa` with `pb` joined along their shared edges `ea`, `eb`.
fn merged(pa: &[u16], pb: &[u16], ea: usize, eb: usize) -> [u16; NVP] {
    let na = count_poly_verts(pa);
    let nb = count_poly_verts(pb);
    let mut out = [NULL_IDX; NVP];
    let walk = (0..na - 1)
        .map(|i| pa[(ea + 1 + i) % na])
        .chain((0..nb - 1).map(|i| pb[(eb + 1 + i) % nb]));
    for (slot, v) in out.iter_mut().zip(walk) {
        *slot = v;
    }
    out
}

/// Greedily merges `polys` (and their `areas`), longest shared edge first, until no pair can
/// be merged; `edges` is working memory.
fn merge_polys(
    polys: &mut Vec<[u16; NVP]>,
    areas: &mut Vec<u8>,
    edges: &mut Vec<PolyEdges>,
    verts: &[u16],
) {
    edges.clear();
    edges.extend(polys.iter().map(|p| PolyEdges::of(p)));
    loop {
        let mut best = None;
        let mut best_value = 0;
        for j in 0..polys.len().saturating_sub(1) {
            for k in j + 1..polys.len() {
                if let Some((value, ea, eb)) =
                    poly_merge_value(&polys[j], &edges[j], &polys[k], &edges[k], verts)
                    && value > best_value
                {
                    best_value = value;
                    best = Some((j, k, ea, eb));
                }
            }
        }
        let Some((pa, pb, ea, eb)) = best else {
            return;
        };
        polys[pa] = merged(&polys[pa], &polys[pb], ea, eb);
        edges[pa] = PolyEdges::of(&polys[pa]);
        polys.swap_remove(pb);
        edges.swap_remove(pb);
        areas.swap_remove(pb);
    }
}

/// Where mesh vertices are shared: a hash on x and z, heights within 2 cells matching.
struct VertexHash<'a> {
    first: [u16; VERTEX_BUCKETS],
    next: &'a mut Vec<u16>,
}

impl VertexHash<'_> {
    fn bucket(x: u16, z: u16) -> usize {
        let n = 0x8da6_b343u32
            .wrapping_mul(u32::from(x))
            .wrapping_add(0xcb1a_b31fu32.wrapping_mul(u32::from(z)));
        (n & (VERTEX_BUCKETS as u32 - 1)) as usize
    }

    fn add(&mut self, verts: &mut Vec<u16>, x: u16, y: u16, z: u16) -> u16 {
        let bucket = Self::bucket(x, z);
        let mut i = self.first[bucket];
        while i != NULL_IDX {
            let v = &verts[usize::from(i) * 3..usize::from(i) * 3 + 3];
            if v[0] == x && v[2] == z && (i32::from(v[1]) - i32::from(y)).abs() <= 2 {
                return i;
            }
            i = self.next[usize::from(i)];
        }
        let i = (verts.len() / 3) as u16;
        verts.extend_from_slice(&[x, y, z]);
        self.next.push(self.first[bucket]);
        self.first[bucket] = i;
        i
    }
}

/// Whether removing vertex `rem` leaves a hole that can be re-triangulated: enough edges
/// remain and at most two of the touching edges are open.
fn can_remove_vertex(mesh: &LayerPolyMesh, rem: u16) -> bool {
    let mut touched = 0;
    let mut remaining_edges = 0;
    for i in 0..mesh.poly_count() {
        let p = mesh.poly(i);
        let nv = count_poly_verts(p);
        let removed = p[..nv].iter().filter(|&&v| v == rem).count();
        touched += removed;
        if removed > 0 {
            remaining_edges += nv as i32 - (removed as i32 + 1);
        }
    }
    if remaining_edges <= 2 || touched * 2 > MAX_REM_EDGES {
        return false;
    }
    // (other end, count); C++ matches an existing edge by this end only. At most two edges
    // per touched polygon, within the bound checked above.
    let mut edges = [(0u16, 0u16, 0u32); MAX_REM_EDGES];
    let mut edge_count = 0;
    for i in 0..mesh.poly_count() {
        let p = mesh.poly(i);
        let nv = count_poly_verts(p);
        let mut k = nv - 1;
        for j in 0..nv {
            if p[j] == rem || p[k] == rem {
                let (mut a, mut b) = (p[j], p[k]);
                if b == rem {
                    std::mem::swap(&mut a, &mut b);
                }
                let mut exists = false;
                for e in edges[..edge_count].iter_mut().filter(|e| e.1 == b) {
                    e.2 += 1;
                    exists = true;
                }
                if !exists {
                    edges[edge_count] = (a, b, 1);
                    edge_count += 1;
                }
            }
            k = j;
        }
    }
    edges[..edge_count].iter().filter(|e| e.2 < 2).count() <= 2
}

/// Removes vertex `rem` and its polygons, then fills the hole they leave with merged
/// triangles of the first removed polygon's area, at most `max_polys` polygons in all.
fn remove_vertex(
    mesh: &mut LayerPolyMesh,
    rem: u16,
    max_polys: usize,
    buffers: &mut MeshBuffers,
) -> Result<(), BuildError> {
    let MeshBuffers {
        indices,
        tris,
        polys,
        areas,
        poly_edges,
        hole_edges: edges,
        hole,
        hole_areas,
        hole_verts: tverts,
        ..
    } = buffers;
    edges.clear();
    let mut i = 0;
    while i < mesh.poly_count() {
        let mut p = [NULL_IDX; NVP];
        p.copy_from_slice(mesh.poly(i));
        let nv = count_poly_verts(&p);
        if !p[..nv].contains(&rem) {
            i += 1;
            continue;
        }
        let mut k = nv - 1;
        for j in 0..nv {
            if p[j] != rem && p[k] != rem {
                if edges.len() >= MAX_REM_EDGES {
                    return Err(BuildError::HoleTooLarge);
                }
                edges.push([p[k], p[j], u16::from(mesh.areas[i])]);
            }
            k = j;
        }
        let last = mesh.poly_count() - 1;
        mesh.polys
            .copy_within(last * NVP * 2..last * NVP * 2 + NVP, i * NVP * 2);
        mesh.polys[i * NVP * 2 + NVP..(i + 1) * NVP * 2].fill(NULL_IDX);
        mesh.polys.truncate(last * NVP * 2);
        mesh.areas.swap_remove(i);
        mesh.flags.swap_remove(i);
    }

    let r = usize::from(rem);
    mesh.verts.drain(r * 3..r * 3 + 3);
    for i in 0..mesh.poly_count() {
        let p = &mut mesh.polys[i * NVP * 2..i * NVP * 2 + NVP];
        let nv = count_poly_verts(p);
        for v in &mut p[..nv] {
            if *v > rem {
                *v -= 1;
            }
        }
    }
    for e in edges.iter_mut() {
        for v in &mut e[..2] {
            if *v > rem {
                *v -= 1;
            }
        }
    }
    let Some(&[first_vert, _, first_area]) = edges.first() else {
        return Ok(());
    };

    hole.clear();
    hole.push(first_vert);
    hole_areas.clear();
    hole_areas.push(first_area);
    while !edges.is_empty() {
        let mut matched = false;
        let mut i = 0;
        while i < edges.len() {
            let [ea, eb, area] = edges[i];
            let grows_front = hole[0] == eb;
            let grows_back = !grows_front && hole[hole.len() - 1] == ea;
            if grows_front || grows_back {
                if hole.len() >= MAX_REM_EDGES {
                    return Err(BuildError::HoleTooLarge);
                }
                if grows_front {
                    hole.insert(0, ea);
                    hole_areas.insert(0, area);
                } else {
                    hole.push(eb);
                    hole_areas.push(area);
                }
                edges.swap_remove(i);
                matched = true;
            } else {
                i += 1;
            }
        }
        if !matched {
            break;
        }
    }

    tverts.clear();
    tverts.extend(hole.iter().map(|&v| {
        let at = usize::from(v) * 3;
        [
            mesh.verts[at] as u8,
            mesh.verts[at + 1] as u8,
            mesh.verts[at + 2] as u8,
            0,
        ]
    }));
    triangulate(tverts, indices, tris);
    if tris.len() > MAX_REM_EDGES {
        return Err(BuildError::HoleTooLarge);
    }
    polys.clear();
    areas.clear();
    for t in tris.iter() {
        if t[0] != t[1] && t[0] != t[2] && t[1] != t[2] {
            let mut p = [NULL_IDX; NVP];
            for (slot, &v) in p.iter_mut().zip(t) {
                *slot = hole[usize::from(v)];
            }
            polys.push(p);
            areas.push(hole_areas[usize::from(t[0])] as u8);
        }
    }
    merge_polys(polys, areas, poly_edges, &mesh.verts);
    for (p, &area) in polys.iter().zip(areas.iter()) {
        if mesh.poly_count() >= max_polys {
            break;
        }
        mesh.polys.extend_from_slice(p);
        mesh.polys.extend_from_slice(&[NULL_IDX; NVP]);
        mesh.areas.push(area);
        mesh.flags.push(0);
    }
    Ok(())
}

/// One edge of the mesh with the polygons on each side; `poly_edge[1]` holds a portal side
/// when the edge has a single polygon.
struct Edge {
    vert: [u16; 2],
    poly: [u16; 2],
    poly_edge: [u16; 2],
}

/// Fills the polygons' neighbour slots: the polygon across each shared edge, or 0x8000 | side
/// for border edges lying on a contour's portal segment. Edge indices are 16-bit as in C++, so
/// a mesh with more potential edges than that is refused.
fn build_mesh_adjacency(
    mesh: &mut LayerPolyMesh,
    contours: &[Contour],
    buffers: &mut MeshBuffers,
) -> Result<(), BuildError> {
    if mesh.poly_count() * NVP >= usize::from(NULL_IDX) {
        return Err(BuildError::TooManyPolys);
    }
    let MeshBuffers {
        first_edge,
        next_edge,
        edges,
        ..
    } = buffers;
    first_edge.clear();
    first_edge.resize(mesh.vert_count(), NULL_IDX);
    next_edge.clear();
    edges.clear();
    let edge_ends = |p: &[u16], j: usize| {
        let v1 = if j + 1 >= NVP || p[j + 1] == NULL_IDX {
            p[0]
        } else {
            p[j + 1]
        };
        (p[j], v1)
    };
    for i in 0..mesh.poly_count() {
        let p = mesh.poly(i);
        for j in (0..NVP).take_while(|&j| p[j] != NULL_IDX) {
            let (v0, v1) = edge_ends(p, j);
            if v0 < v1 {
                next_edge.push(first_edge[usize::from(v0)]);
                first_edge[usize::from(v0)] = edges.len() as u16;
                edges.push(Edge {
                    vert: [v0, v1],
                    poly: [i as u16; 2],
                    poly_edge: [j as u16, 0xff],
                });
            }
        }
    }
    for i in 0..mesh.poly_count() {
        let p = mesh.poly(i);
        for j in (0..NVP).take_while(|&j| p[j] != NULL_IDX) {
            let (v0, v1) = edge_ends(p, j);
            if v0 <= v1 {
                continue;
            }
            let mut e = first_edge[usize::from(v1)];
            let mut found = false;
            while e != NULL_IDX {
                let edge = &mut edges[usize::from(e)];
                if edge.vert[1] == v0 && edge.poly[0] == edge.poly[1] {
                    edge.poly[1] = i as u16;
                    edge.poly_edge[1] = j as u16;
                    found = true;
                    break;
                }
                e = next_edge[usize::from(e)];
            }
            if !found {
                next_edge.push(first_edge[usize::from(v1)]);
                first_edge[usize::from(v1)] = edges.len() as u16;
                edges.push(Edge {
                    vert: [v1, v0],
                    poly: [i as u16; 2],
                    poly_edge: [j as u16, 0xff],
                });
            }
        }
    }

    let verts = &mesh.verts;
    for contour in contours.iter().filter(|c| c.verts.len() >= 3) {
        let n = contour.verts.len();
        let mut k = n - 1;
        for j in 0..n {
            let (va, vb) = (contour.verts[k], contour.verts[j]);
            k = j;
            let dir = va[3] & 0xf;
            if dir == NO_PORTAL {
                continue;
            }
            // Sides 0 and 2 run along z at fixed x, sides 1 and 3 along x at fixed z.
            let (fixed, along) = if dir == 0 || dir == 2 { (0, 2) } else { (2, 0) };
            let at = u16::from(va[fixed]);
            let (lo, hi) = minmax(u16::from(va[along]), u16::from(vb[along]));
            for e in edges.iter_mut().filter(|e| e.poly[0] == e.poly[1]) {
                let eva = &verts[usize::from(e.vert[0]) * 3..];
                let evb = &verts[usize::from(e.vert[1]) * 3..];
                if eva[fixed] == at && evb[fixed] == at {
                    let (elo, ehi) = minmax(eva[along], evb[along]);
                    if lo < ehi && hi > elo {
                        e.poly_edge[1] = u16::from(dir);
                    }
                }
            }
        }
    }

    for e in edges.iter() {
        let (p0, p1) = (usize::from(e.poly[0]), usize::from(e.poly[1]));
        if p0 != p1 {
            mesh.polys[p0 * NVP * 2 + NVP + usize::from(e.poly_edge[0])] = e.poly[1];
            mesh.polys[p1 * NVP * 2 + NVP + usize::from(e.poly_edge[1])] = e.poly[0];
        } else if e.poly_edge[1] != 0xff {
            mesh.polys[p0 * NVP * 2 + NVP + usize::from(e.poly_edge[0])] = 0x8000 | e.poly_edge[1];
        }
    }
    Ok(())
}

fn minmax(a: u16, b: u16) -> (u16, u16) {
    if a > b { (b, a) } else { (a, b) }
}

/// The polygon step's working memory, kept from one layer to the next.
#[derive(Default)]
pub(super) struct MeshBuffers {
    removable: Vec<bool>,
    hash_next: Vec<u16>,
    /// Triangulation: the polygon being clipped and the triangles cut off.
    indices: Vec<u16>,
    tris: Vec<[u16; 3]>,
    /// Mesh vertex of each contour vertex.
    vert_ids: Vec<u16>,
    /// Polygons being merged and their areas.
    polys: Vec<[u16; NVP]>,
    areas: Vec<u8>,
    poly_edges: Vec<PolyEdges>,
    /// Vertex removal: the hole's edges, its outline, the outline's areas and positions.
    hole_edges: Vec<[u16; 3]>,
    hole: Vec<u16>,
    hole_areas: Vec<u16>,
    hole_verts: Vec<ByteVert>,
    /// Adjacency: per vertex the first edge starting there, a chain, the edges.
    first_edge: Vec<u16>,
    next_edge: Vec<u16>,
    edges: Vec<Edge>,
}

/// The polygon mesh of a layer's contours, into `mesh`.
pub(super) fn build_poly_mesh(
    contours: &[Contour],
    mesh: &mut LayerPolyMesh,
    buffers: &mut MeshBuffers,
) -> Result<(), BuildError> {
    let usable = || contours.iter().filter(|c| c.verts.len() >= 3);
    let max_vertices: usize = usable().map(|c| c.verts.len()).sum();
    let max_tris: usize = usable().map(|c| c.verts.len() - 2).sum();
    if max_vertices >= usize::from(NULL_IDX) {
        return Err(BuildError::TooManyVertices(max_vertices));
    }
    mesh.verts.clear();
    mesh.polys.clear();
    mesh.areas.clear();
    mesh.flags.clear();
    buffers.removable.clear();
    buffers.removable.resize(max_vertices, false);
    buffers.hash_next.clear();
    let mut hash = VertexHash {
        first: [NULL_IDX; VERTEX_BUCKETS],
        next: &mut buffers.hash_next,
    };
    let MeshBuffers {
        removable,
        indices,
        tris,
        vert_ids,
        polys,
        areas,
        poly_edges,
        ..
    } = buffers;
    for contour in usable() {
        triangulate(&contour.verts, indices, tris);
        vert_ids.clear();
        vert_ids.extend(contour.verts.iter().map(|v| {
            let i = hash.add(&mut mesh.verts, v[0].into(), v[1].into(), v[2].into());
            if v[3] & REMOVABLE_VERTEX != 0 {
                removable[usize::from(i)] = true;
            }
            i
        }));
        polys.clear();
        for t in tris.iter() {
            if t[0] != t[1] && t[0] != t[2] && t[1] != t[2] {
                let mut p = [NULL_IDX; NVP];
                for (slot, &v) in p.iter_mut().zip(t) {
                    *slot = vert_ids[usize::from(v)];
                }
                polys.push(p);
            }
        }
        areas.clear();
        areas.resize(polys.len(), contour.area);
        merge_polys(polys, areas, poly_edges, &mesh.verts);
        for p in polys.iter() {
            mesh.polys.extend_from_slice(p);
            mesh.polys.extend_from_slice(&[NULL_IDX; NVP]);
            mesh.areas.push(contour.area);
            mesh.flags.push(0);
            if mesh.poly_count() > max_tris {
                return Err(BuildError::TooManyPolys);
            }
        }
    }

    let mut i = 0;
    while i < mesh.vert_count() {
        if buffers.removable[i] && can_remove_vertex(mesh, i as u16) {
            remove_vertex(mesh, i as u16, max_tris, buffers)?;
            buffers.removable.remove(i);
        } else {
            i += 1;
        }
    }
    build_mesh_adjacency(mesh, contours, buffers)
}
