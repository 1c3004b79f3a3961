//! Greedy merging of triangles into convex polygons (the merge loops of Recast's
//! `rcBuildPolyMesh` and `removeVertex`).
//!
//! Recast rescans every pair of polygons after each merge, which is cubic in the number of
//! triangles of a contour. Only polygons sharing an edge can merge, and a merge changes just
//! two slots, so the candidates live in a heap ordered exactly like Recast's scan (best value,
//! then first slot pair) and only the changed slots' pairs are evaluated anew.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::triangulate::area2;
use crate::recast::MESH_NULL_IDX;

/// "No vertex / no edge" in the index chains of the poly mesh and of merging.
pub(super) const NO_INDEX: u32 = u32::MAX;

/// Number of used vertex slots of a polygon.
#[inline]
pub(super) fn poly_vert_count(poly: &[u16]) -> usize {
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

/// The merge value of slots `j` and `k` (0 when they cannot merge).
fn slot_merge_value(polys: &[u16], verts: &[u16], nvp: usize, j: usize, k: usize) -> i32 {
    let pj = &polys[j * nvp..(j + 1) * nvp];
    let pk = &polys[k * nvp..(k + 1) * nvp];
    poly_merge_value(pj, pk, verts, nvp).map_or(0, |(value, _, _)| value)
}

/// A possible merge of slots j < k: (value, Reverse(j), Reverse(k), version of j, version of
/// k). The heap's top is then the best value with the smallest (j, k), the pair Recast's scan
/// picks; entries whose slots changed since are skipped.
type Candidate = (i32, Reverse<u32>, Reverse<u32>, u32, u32);

/// A polygon edge listed under its lower vertex.
#[derive(Clone, Copy)]
struct EdgeEntry {
    upper: u16,
    slot: u32,
    /// The slot's version when listed; the entry is dead once the slot changes.
    version: u32,
    next: u32,
}

/// Buffers for [`merge_polygons`], reused across contours.
#[derive(Default)]
pub(super) struct MergeScratch {
    /// The polygon being assembled.
    merged: Vec<u16>,
    /// Per slot: bumped whenever the slot's polygon changes.
    version: Vec<u32>,
    candidates: BinaryHeap<Candidate>,
    /// Per mesh vertex: the first edge listed under it (`NO_INDEX` between calls).
    first_edge: Vec<u32>,
    /// Vertices whose `first_edge` is set, to clear after the call.
    touched: Vec<u16>,
    edges: Vec<EdgeEntry>,
}

impl MergeScratch {
    /// Lists the edges of slot `s` under their lower vertices.
    fn list_edges(&mut self, polys: &[u16], nvp: usize, s: usize) {
        let p = &polys[s * nvp..(s + 1) * nvp];
        let nv = poly_vert_count(p);
        for e in 0..nv {
            let (u, w) = (p[e], p[(e + 1) % nv]);
            let (lower, upper) = (usize::from(u.min(w)), u.max(w));
            if lower >= self.first_edge.len() {
                self.first_edge.resize(lower + 1, NO_INDEX);
            }
            if self.first_edge[lower] == NO_INDEX {
                self.touched.push(lower as u16);
            }
            self.edges.push(EdgeEntry {
                upper,
                slot: s as u32,
                version: self.version[s],
                next: self.first_edge[lower],
            });
            self.first_edge[lower] = (self.edges.len() - 1) as u32;
        }
    }

    /// Queues every mergeable pair of slot `s` with a slot sharing one of its edges (only
    /// later slots if `later_only`), unlisting dead edges on the way.
    fn queue_merges(
        &mut self,
        polys: &[u16],
        verts: &[u16],
        nvp: usize,
        npolys: usize,
        s: usize,
        later_only: bool,
    ) {
        let p = &polys[s * nvp..(s + 1) * nvp];
        let nv = poly_vert_count(p);
        for e in 0..nv {
            let (u, w) = (p[e], p[(e + 1) % nv]);
            let (lower, upper) = (usize::from(u.min(w)), u.max(w));
            let mut previous = NO_INDEX;
            let mut at = self.first_edge[lower];
            while at != NO_INDEX {
                let entry = self.edges[at as usize];
                let t = entry.slot as usize;
                if t >= npolys || self.version[t] != entry.version {
                    if previous == NO_INDEX {
                        self.first_edge[lower] = entry.next;
                    } else {
                        self.edges[previous as usize].next = entry.next;
                    }
                    at = entry.next;
                    continue;
                }
                previous = at;
                at = entry.next;
                if entry.upper != upper || t == s || (later_only && t < s) {
                    continue;
                }
                let (j, k) = (s.min(t), s.max(t));
                let value = slot_merge_value(polys, verts, nvp, j, k);
                if value > 0 {
                    self.candidates.push((
                        value,
                        Reverse(j as u32),
                        Reverse(k as u32),
                        self.version[j],
                        self.version[k],
                    ));
                }
            }
        }
    }

    /// The best current pair, dropping stale candidates.
    fn best_pair(&mut self, npolys: usize) -> Option<(usize, usize)> {
        while let Some(&(_, Reverse(j), Reverse(k), vj, vk)) = self.candidates.peek() {
            let (j, k) = (j as usize, k as usize);
            if k < npolys && self.version[j] == vj && self.version[k] == vk {
                return Some((j, k));
            }
            self.candidates.pop();
        }
        None
    }
}

/// Greedily merges the polygons in `polys` (`nvp` slots each) into convex polygons, always
/// merging the pair with the longest shared edge first (ties go to the first pair in slot
/// order), as Recast does. After each merge of polygon `b` into `a`, the last polygon moves
/// into `b`'s slot and `on_merge(a, b, last)` lets the caller move its per-polygon data the
/// same way.
pub(super) fn merge_polygons(
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
    scratch.version.clear();
    scratch.version.resize(npolys, 0);
    scratch.candidates.clear();
    scratch.edges.clear();
    for s in 0..npolys {
        scratch.list_edges(polys, nvp, s);
    }
    for s in 0..npolys {
        scratch.queue_merges(polys, verts, nvp, npolys, s, true);
    }

    while let Some((a, b)) = scratch.best_pair(npolys) {
        let pa = &polys[a * nvp..(a + 1) * nvp];
        let pb = &polys[b * nvp..(b + 1) * nvp];
        let Some((_, ea, eb)) = poly_merge_value(pa, pb, verts, nvp) else {
            break;
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

        // Slot a holds the merged polygon and slot b the old last one: their old pairs go
        // stale with the version bump, and their current pairs are queued afresh.
        let slots = [a, b];
        let changed = if b < npolys { &slots[..] } else { &slots[..1] };
        for &s in changed {
            scratch.version[s] += 1;
            scratch.list_edges(polys, nvp, s);
        }
        for &s in changed {
            scratch.queue_merges(polys, verts, nvp, npolys, s, false);
        }
    }

    for &v in &scratch.touched {
        scratch.first_edge[usize::from(v)] = NO_INDEX;
    }
    scratch.touched.clear();
}

#[cfg(test)]
mod tests {
    use super::super::test_shapes::{Rng, contour_verts, floor_with_holes};
    use super::super::triangulate::Triangulator;
    use super::*;
    use std::collections::BTreeMap;

    /// Recast's merge loop as written: every pair rescanned after every merge. Returns the
    /// (a, b, last) of each merge.
    fn merge_by_scan(polys: &mut Vec<u16>, verts: &[u16], nvp: usize) -> Vec<[usize; 3]> {
        let mut merges = Vec::new();
        let mut npolys = polys.len() / nvp;
        loop {
            let mut best = (0, 0, 0, 0, 0);
            for j in 0..npolys {
                for k in j + 1..npolys {
                    let pj = &polys[j * nvp..(j + 1) * nvp];
                    let pk = &polys[k * nvp..(k + 1) * nvp];
                    if let Some((value, ea, eb)) = poly_merge_value(pj, pk, verts, nvp)
                        && value > best.0
                    {
                        best = (value, j, k, ea, eb);
                    }
                }
            }
            let (value, a, b, ea, eb) = best;
            if value <= 0 {
                return merges;
            }
            let pa = polys[a * nvp..(a + 1) * nvp].to_vec();
            let pb = polys[b * nvp..(b + 1) * nvp].to_vec();
            let (na, nb) = (poly_vert_count(&pa), poly_vert_count(&pb));
            let mut merged = vec![MESH_NULL_IDX; nvp];
            let mut n = 0;
            for i in 0..na - 1 {
                merged[n] = pa[(ea + 1 + i) % na];
                n += 1;
            }
            for i in 0..nb - 1 {
                merged[n] = pb[(eb + 1 + i) % nb];
                n += 1;
            }
            polys[a * nvp..(a + 1) * nvp].copy_from_slice(&merged);
            let last = npolys - 1;
            polys.copy_within(last * nvp..npolys * nvp, b * nvp);
            polys.truncate(last * nvp);
            npolys = last;
            merges.push([a, b, last]);
        }
    }

    /// Triangles of a generated outline over welded mesh vertices, `nvp` slots each.
    fn triangles(rng: &mut Rng, tangle: bool, nvp: usize) -> (Vec<u16>, Vec<u16>) {
        let points = floor_with_holes(rng, 12, tangle);
        let mut indices: Vec<u32> = (0..points.len() as u32).collect();
        let mut tris = Vec::new();
        Triangulator::default().triangulate(&contour_verts(&points), &mut indices, &mut tris);

        let mut ids = BTreeMap::new();
        let mut verts = Vec::new();
        let id: Vec<u16> = points
            .iter()
            .map(|p| {
                *ids.entry(*p).or_insert_with(|| {
                    verts.extend([p[0] + 10, 0, p[1] + 10].map(|c| c as u16));
                    (verts.len() / 3 - 1) as u16
                })
            })
            .collect();
        let mut polys = Vec::new();
        for t in tris.chunks_exact(3) {
            let t = [t[0], t[1], t[2]].map(|k| id[k as usize]);
            if t[0] != t[1] && t[0] != t[2] && t[1] != t[2] {
                polys.extend(t);
                polys.resize(polys.len() + nvp - 3, MESH_NULL_IDX);
            }
        }
        (polys, verts)
    }

    #[test]
    fn heap_merges_like_recasts_rescans() {
        let mut scratch = MergeScratch::default();
        let mut total_merges = 0;
        for seed in 0..300 {
            let mut rng = Rng::new(20_000 + seed);
            let nvp = [4, 5, 6, 8, 12][seed as usize % 5];
            let (polys, verts) = triangles(&mut rng, seed % 3 == 0, nvp);
            let mut expected = polys.clone();
            let expected_merges = merge_by_scan(&mut expected, &verts, nvp);
            let mut ours = polys.clone();
            let mut merges = Vec::new();
            merge_polygons(&mut ours, &verts, nvp, &mut scratch, |a, b, last| {
                merges.push([a, b, last]);
            });
            assert_eq!(merges, expected_merges, "seed {seed}");
            assert_eq!(ours, expected, "seed {seed}");
            total_merges += merges.len();
        }
        assert!(total_merges > 10_000, "{total_merges}");
    }
}
