//! Ear-clipping triangulation of contour outlines (Recast's `triangulate`).
//!
//! Recast cuts the ear with the shortest new edge, validating every candidate diagonal against
//! every polygon edge. That is quadratic (or worse) in the outline length, and outlines with
//! hundreds of holes merged in reach thousands of vertices. Large outlines therefore go through
//! [`EarClipper`], which keeps the ears in a heap and the edges in a uniform grid so a diagonal
//! is tested only against edges near it; it evaluates the same integer predicates and breaks
//! ties the same way, so it yields exactly the triangles of the plain transcription
//! ([`triangulate_by_scan`]), which small outlines still use.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Triangulation flag on a polygon index: the vertex is an ear tip that can be cut off.
const EAR_TIP: u32 = 0x8000_0000;
/// Mask that strips the triangulation flags from a polygon index.
const INDEX_MASK: u32 = 0x0fff_ffff;
/// "No vertex / no entry" in the linked lists below.
const NONE: u32 = u32::MAX;
/// Outlines shorter than this are clipped by plain scans, which cost less there.
const SCAN_LIMIT: usize = 64;
/// Largest coordinate extent for [`EarClipper`]: up to it no area or squared length wraps
/// (2 · 32767² < 2³¹), so a reported intersection is a real shared point and the grid cannot
/// miss it. Wider outlines keep the plain scans and their wrapping arithmetic.
const MAX_GRID_EXTENT: i32 = 32767;

#[inline]
fn next(i: usize, n: usize) -> usize {
    if i + 1 < n { i + 1 } else { 0 }
}

#[inline]
fn prev(i: usize, n: usize) -> usize {
    if i > 0 { i - 1 } else { n - 1 }
}

/// A vertex in the x-z plane (the triangulation ignores height).
pub(super) type Point = [i32; 2];

/// The x-z position of vertex `index` (flags stripped) of a 4-ints-per-vertex array.
#[inline]
fn point(verts: &[i32], index: u32) -> Point {
    let at = (index & INDEX_MASK) as usize * 4;
    [verts[at], verts[at + 2]]
}

/// Twice the signed area of triangle abc in the x-z plane; negative when c is left of a→b.
/// Wrapping like the C++ int arithmetic for (unrealistically) huge coordinates.
#[inline]
pub(super) fn area2(a: Point, b: Point, c: Point) -> i32 {
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
pub(super) fn left_on(a: Point, b: Point, c: Point) -> bool {
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

/// Whether c lies on the closed segment ab. For a zero-length ab this holds for every c at
/// the same z, whatever its x (as in Recast).
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

/// Whether the polygon edge p0–p1 blocks the diagonal d0–d1. Edges sharing an end point with
/// the diagonal never block it; `proper_only` tolerates edges that merely touch it.
#[inline]
fn edge_blocks(d0: Point, d1: Point, p0: Point, p1: Point, proper_only: bool) -> bool {
    if d0 == p0 || d1 == p0 || d0 == p1 || d1 == p1 {
        return false;
    }
    if proper_only {
        intersect_prop(d0, d1, p0, p1)
    } else {
        intersect(d0, d1, p0, p1)
    }
}

/// Whether the diagonal from `pi` (with neighbours `before` and `after`) to `pj` starts into
/// the polygon's interior. `loose` accepts diagonals along the corner's edges, used to recover
/// from contours with overlapping segments.
#[inline]
fn in_cone(before: Point, pi: Point, after: Point, pj: Point, loose: bool) -> bool {
    if left_on(before, pi, after) {
        // Convex corner.
        if loose {
            left_on(pi, pj, before) && left_on(pj, pi, after)
        } else {
            left(pi, pj, before) && left(pj, pi, after)
        }
    } else {
        // Reflex corner.
        !(left_on(pi, pj, after) && left_on(pj, pi, before))
    }
}

/// Squared x-z length of a segment.
#[inline]
fn squared_length(p0: Point, p1: Point) -> i32 {
    let dx = p1[0].wrapping_sub(p0[0]);
    let dz = p1[1].wrapping_sub(p0[1]);
    dx.wrapping_mul(dx).wrapping_add(dz.wrapping_mul(dz))
}

/// Buffers for triangulation, reused across outlines.
#[derive(Default)]
pub(super) struct Triangulator {
    clipper: EarClipper,
}

impl Triangulator {
    /// Ear-clips the polygon `indices` (into `verts`, 4 ints per vertex), always cutting the
    /// ear with the shortest new edge (ties to the first in outline order), and writes the
    /// triangles' vertex indices to `tris`.
    ///
    /// Returns false if the outline is too tangled to finish; `tris` then holds the triangles
    /// found so far. `indices` is consumed as scratch.
    pub(super) fn triangulate(
        &mut self,
        verts: &[i32],
        indices: &mut Vec<u32>,
        tris: &mut Vec<u32>,
    ) -> bool {
        if indices.len() >= SCAN_LIMIT && self.clipper.load(verts, indices) {
            self.clipper.clip(indices, tris)
        } else {
            triangulate_by_scan(verts, indices, tris)
        }
    }
}

/// Whether segment i–j crosses no polygon edge, ignoring edges that touch i or j (by position
/// or by coordinates).
fn diagonal_clear_by_scan(
    i: usize,
    j: usize,
    verts: &[i32],
    indices: &[u32],
    proper_only: bool,
) -> bool {
    let n = indices.len();
    let d0 = point(verts, indices[i]);
    let d1 = point(verts, indices[j]);
    (0..n).all(|k| {
        let k1 = next(k, n);
        k == i
            || k1 == i
            || k == j
            || k1 == j
            || !edge_blocks(
                d0,
                d1,
                point(verts, indices[k]),
                point(verts, indices[k1]),
                proper_only,
            )
    })
}

/// Recast's diagonal test (`loose` for its `diagonalLoose`), scanning every edge.
fn diagonal_by_scan(i: usize, j: usize, verts: &[i32], indices: &[u32], loose: bool) -> bool {
    let n = indices.len();
    let at = |k: usize| point(verts, indices[k]);
    in_cone(at(prev(i, n)), at(i), at(next(i, n)), at(j), loose)
        && diagonal_clear_by_scan(i, j, verts, indices, loose)
}

/// The plain transcription of Recast's ear clipping: a linear scan for the best ear and for
/// every diagonal test, the outline kept in `indices` with the ear-tip flag in its high bit.
fn triangulate_by_scan(verts: &[i32], indices: &mut Vec<u32>, tris: &mut Vec<u32>) -> bool {
    tris.clear();
    let mut n = indices.len();
    if n < 3 {
        return true;
    }
    let length = |a: u32, b: u32| squared_length(point(verts, a), point(verts, b));
    for i in 0..n {
        let i1 = next(i, n);
        if diagonal_by_scan(i, next(i1, n), verts, indices, false) {
            indices[i1] |= EAR_TIP;
        }
    }

    while n > 3 {
        let mut min_len = -1;
        let mut best = None;
        for i in 0..n {
            let i1 = next(i, n);
            if indices[i1] & EAR_TIP != 0 {
                let len = length(indices[i], indices[next(i1, n)]);
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
                if diagonal_by_scan(i, i2, verts, indices, true) {
                    let len = length(indices[i], indices[next(i2, n)]);
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
        if diagonal_by_scan(prev(i, n), i1, verts, indices, false) {
            indices[i] |= EAR_TIP;
        } else {
            indices[i] &= INDEX_MASK;
        }
        if diagonal_by_scan(i, next(i1, n), verts, indices, false) {
            indices[i1] |= EAR_TIP;
        } else {
            indices[i1] &= INDEX_MASK;
        }
    }

    tris.extend(indices[..3].iter().map(|v| v & INDEX_MASK));
    true
}

/// An ear waiting in [`EarClipper`]'s heap: ordered by the new edge's squared length, then by
/// the outline position of the vertex before the tip, which is the order in which Recast's
/// scan meets the ears (positions keep their order as vertices are cut).
type EarKey = Reverse<(i32, u32, u32, u32)>;

/// Ear clipping in near-linear time for large outlines. Vertices are named by their position
/// in the input outline; the live outline is a doubly linked list over those positions.
#[derive(Default)]
struct EarClipper {
    points: Vec<Point>,
    next: Vec<u32>,
    prev: Vec<u32>,
    is_ear: Vec<bool>,
    /// Bumped whenever a vertex's neighbours change, which invalidates its queued ear.
    stamp: Vec<u32>,
    /// (length, position before the tip, tip, tip's stamp) of every ear, plus stale entries.
    ears: BinaryHeap<EarKey>,
    grid: EdgeGrid,
    /// Smallest live position: where Recast's array of the outline starts.
    first: u32,
    remaining: usize,
}

impl EarClipper {
    /// Loads the outline; false if its extent is too wide for the grid's exactness argument.
    fn load(&mut self, verts: &[i32], indices: &[u32]) -> bool {
        let n = indices.len();
        self.points.clear();
        self.points
            .extend(indices.iter().map(|&index| point(verts, index)));
        let mut min = [i32::MAX; 2];
        let mut max = [i32::MIN; 2];
        for p in &self.points {
            for axis in 0..2 {
                min[axis] = min[axis].min(p[axis]);
                max[axis] = max[axis].max(p[axis]);
            }
        }
        let extent_ok = (0..2).all(|axis| {
            max[axis]
                .checked_sub(min[axis])
                .is_some_and(|extent| extent <= MAX_GRID_EXTENT)
        });
        if !extent_ok || u32::try_from(n).is_err() {
            return false;
        }
        let n32 = n as u32;
        self.next.clear();
        self.next.extend((1..n32).chain([0]));
        self.prev.clear();
        self.prev.extend([n32 - 1].into_iter().chain(0..n32 - 1));
        self.is_ear.clear();
        self.is_ear.resize(n, false);
        self.stamp.clear();
        self.stamp.resize(n, 0);
        self.ears.clear();
        self.first = 0;
        self.remaining = n;
        self.grid.reset(min, max, n);
        for k in 0..n {
            let k1 = next(k, n);
            self.grid
                .insert(k as u32, k1 as u32, self.points[k], self.points[k1]);
        }
        true
    }

    /// Clips the loaded outline as [`Triangulator::triangulate`] describes.
    fn clip(&mut self, indices: &[u32], tris: &mut Vec<u32>) -> bool {
        tris.clear();
        for tip in 0..self.remaining as u32 {
            self.evaluate_ear(tip);
        }

        while self.remaining > 3 {
            let best = match self.best_ear() {
                Some(before) => before,
                None => match self.best_loose_ear() {
                    Some(before) => before,
                    None => return false,
                },
            };
            let tip = self.next[best as usize];
            let after = self.next[tip as usize];
            tris.extend([best, tip, after].map(|k| indices[k as usize] & INDEX_MASK));
            self.cut(tip);
            if self.remaining > 3 {
                self.evaluate_ear(best);
                self.evaluate_ear(after);
            }
        }

        let a = self.first;
        let b = self.next[a as usize];
        let c = self.next[b as usize];
        tris.extend([a, b, c].map(|k| indices[k as usize] & INDEX_MASK));
        true
    }

    /// Re-tests whether `tip` is an ear and queues it if so.
    fn evaluate_ear(&mut self, tip: u32) {
        let t = tip as usize;
        let (before, after) = (self.prev[t], self.next[t]);
        self.stamp[t] = self.stamp[t].wrapping_add(1);
        self.is_ear[t] = self.diagonal(before, after, false);
        if self.is_ear[t] {
            let len = squared_length(self.points[before as usize], self.points[after as usize]);
            self.ears.push(Reverse((len, before, tip, self.stamp[t])));
        }
    }

    /// The vertex before the best current ear's tip, dropping stale heap entries.
    fn best_ear(&mut self) -> Option<u32> {
        while let Some(&Reverse((_, before, tip, stamp))) = self.ears.peek() {
            if self.is_ear[tip as usize] && self.stamp[tip as usize] == stamp {
                return Some(before);
            }
            self.ears.pop();
        }
        None
    }

    /// Recast's fallback when no strict ear exists: the loose diagonal from i to i + 2 whose
    /// length to i + 3 is shortest, first in outline order on ties.
    fn best_loose_ear(&mut self) -> Option<u32> {
        let mut best = None;
        let mut min_len = -1;
        let mut i = self.first;
        for _ in 0..self.remaining {
            let i2 = self.next[self.next[i as usize] as usize];
            if self.diagonal(i, i2, true) {
                let i3 = self.next[i2 as usize];
                let len = squared_length(self.points[i as usize], self.points[i3 as usize]);
                if min_len < 0 || len < min_len {
                    min_len = len;
                    best = Some(i);
                }
            }
            i = self.next[i as usize];
        }
        best
    }

    /// Removes `tip` from the outline; its neighbours become joined by a new edge.
    fn cut(&mut self, tip: u32) {
        let t = tip as usize;
        let (before, after) = (self.prev[t], self.next[t]);
        self.next[before as usize] = after;
        self.prev[after as usize] = before;
        self.next[t] = NONE;
        self.is_ear[t] = false;
        if self.first == tip {
            self.first = after;
        }
        self.remaining -= 1;
        self.grid.insert(
            before,
            after,
            self.points[before as usize],
            self.points[after as usize],
        );
    }

    fn diagonal(&mut self, i: u32, j: u32, loose: bool) -> bool {
        let at = |k: u32| self.points[k as usize];
        let (before, after) = (self.prev[i as usize], self.next[i as usize]);
        in_cone(at(before), at(i), at(after), at(j), loose) && self.diagonal_clear(i, j, loose)
    }

    /// Whether no live edge blocks the diagonal i–j; edges at positions i or j are exempt.
    fn diagonal_clear(&mut self, i: u32, j: u32, proper_only: bool) -> bool {
        let (d0, d1) = (self.points[i as usize], self.points[j as usize]);
        let points = &self.points;
        let blocks = |k: u32, k1: u32| {
            k != i
                && k1 != i
                && k != j
                && k1 != j
                && edge_blocks(d0, d1, points[k as usize], points[k1 as usize], proper_only)
        };
        if d0 == d1 {
            // A zero-length diagonal "touches" every edge with an end point at its z: no
            // locality to exploit, so test every edge (such diagonals are rare).
            let mut k = self.first;
            for _ in 0..self.remaining {
                let k1 = self.next[k as usize];
                if blocks(k, k1) {
                    return false;
                }
                k = k1;
            }
            return true;
        }
        !self.grid.any_edge(d0, d1, &self.next, points, blocks)
    }
}

/// One edge (from → to, by outline position) listed in a grid cell.
#[derive(Clone, Copy)]
struct GridEntry {
    from: u32,
    to: u32,
    next: u32,
}

/// The outline's edges bucketed in a uniform grid by the cells they pass through. Edges that
/// are cut away stay listed until a query meets them: an entry is live while `from` still
/// links to `to`.
#[derive(Default)]
struct EdgeGrid {
    origin: Point,
    cell_size: i32,
    columns: i32,
    rows: i32,
    first_entry: Vec<u32>,
    entries: Vec<GridEntry>,
    /// Zero-length edges: they touch every diagonal with an end point at their z, so every
    /// query tests them all.
    zero_length: Vec<(u32, u32)>,
}

impl EdgeGrid {
    /// Empties the grid and sizes it for `edges` edges spread over the box min–max.
    fn reset(&mut self, min: Point, max: Point, edges: usize) {
        let width = i64::from(max[0] - min[0]) + 1;
        let height = i64::from(max[1] - min[1]) + 1;
        // About one cell per edge.
        let cell_size = (width * height / edges.max(1) as i64).isqrt().max(1);
        self.origin = min;
        self.cell_size = cell_size as i32;
        self.columns = ((width - 1) / cell_size + 1) as i32;
        self.rows = ((height - 1) / cell_size + 1) as i32;
        self.first_entry.clear();
        self.first_entry
            .resize(self.columns as usize * self.rows as usize, NONE);
        self.entries.clear();
        self.zero_length.clear();
    }

    fn insert(&mut self, from: u32, to: u32, a: Point, b: Point) {
        if a == b {
            self.zero_length.push((from, to));
            return;
        }
        let (first_entry, entries) = (&mut self.first_entry, &mut self.entries);
        Self::cells_on_segment(
            self.origin,
            self.cell_size,
            self.columns,
            self.rows,
            a,
            b,
            |cell| {
                entries.push(GridEntry {
                    from,
                    to,
                    next: first_entry[cell],
                });
                first_entry[cell] = (entries.len() - 1) as u32;
                false
            },
        );
    }

    /// Whether `blocks` holds for some live edge that could touch the segment a–b (a ≠ b),
    /// unlisting the dead edges it meets. `next` is the outline's successor list, `points`
    /// its vertex positions.
    fn any_edge(
        &mut self,
        a: Point,
        b: Point,
        next: &[u32],
        points: &[Point],
        blocks: impl Fn(u32, u32) -> bool,
    ) -> bool {
        let live = |from: u32, to: u32| next[from as usize] == to;
        let mut k = 0;
        while k < self.zero_length.len() {
            let (from, to) = self.zero_length[k];
            if !live(from, to) {
                self.zero_length.swap_remove(k);
                continue;
            }
            if blocks(from, to) {
                return true;
            }
            k += 1;
        }

        let (lo, hi) = (
            [a[0].min(b[0]), a[1].min(b[1])],
            [a[0].max(b[0]), a[1].max(b[1])],
        );
        let (first_entry, entries) = (&mut self.first_entry, &mut self.entries);
        Self::cells_on_segment(
            self.origin,
            self.cell_size,
            self.columns,
            self.rows,
            a,
            b,
            |cell| {
                let mut previous = NONE;
                let mut e = first_entry[cell];
                while e != NONE {
                    let entry = entries[e as usize];
                    if !live(entry.from, entry.to) {
                        if previous == NONE {
                            first_entry[cell] = entry.next;
                        } else {
                            entries[previous as usize].next = entry.next;
                        }
                        e = entry.next;
                        continue;
                    }
                    previous = e;
                    e = entry.next;
                    // Within the grid's extent nothing wraps, so an edge can touch the segment
                    // only where their boxes overlap (both have length here).
                    let (p0, p1) = (points[entry.from as usize], points[entry.to as usize]);
                    let apart = (0..2).any(|axis| {
                        p0[axis].max(p1[axis]) < lo[axis] || p0[axis].min(p1[axis]) > hi[axis]
                    });
                    if !apart && blocks(entry.from, entry.to) {
                        return true;
                    }
                }
                false
            },
        )
    }

    /// Calls `visit` with every cell the segment a–b passes through (and maybe a few beside
    /// it), stopping as soon as `visit` returns true; returns whether it did.
    fn cells_on_segment(
        origin: Point,
        cell_size: i32,
        columns: i32,
        rows: i32,
        a: Point,
        b: Point,
        mut visit: impl FnMut(usize) -> bool,
    ) -> bool {
        let (a, b) = if a[0] <= b[0] { (a, b) } else { (b, a) };
        let size = i64::from(cell_size);
        let [ox, oz] = origin.map(i64::from);
        let (ax, az, bx, bz) = (
            i64::from(a[0]),
            i64::from(a[1]),
            i64::from(b[0]),
            i64::from(b[1]),
        );
        let (dx, dz) = (bx - ax, bz - az);
        let last_row = i64::from(rows) - 1;
        let first_column = (ax - ox) / size;
        let last_column = ((bx - ox) / size).min(i64::from(columns) - 1);
        for column in first_column..=last_column {
            let (row0, row1) = if dx == 0 {
                ((az - oz) / size, (bz - oz) / size)
            } else {
                // The segment's z over this column's x range, as rows: floor of
                // (z(x) - oz) / size with z(x) = az + (x - ax) dz / dx, in exact integers.
                let x0 = ax.max(ox + column * size);
                let x1 = bx.min(ox + (column + 1) * size);
                let row = |x: i64| ((az - oz) * dx + (x - ax) * dz).div_euclid(dx * size);
                (row(x0), row(x1))
            };
            let (low, high) = (row0.min(row1).max(0), row0.max(row1).min(last_row));
            for row in low..=high {
                if visit((row * i64::from(columns) + column) as usize) {
                    return true;
                }
            }
        }
        false
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::super::test_shapes::{Rng, contour_verts, floor_with_holes, random_polygon};
    use super::*;

    /// Triangulates with the plain scans and with the heap-and-grid clipper (whatever the
    /// outline's size) and checks they agree exactly; returns whether triangulation finished.
    pub(crate) fn assert_same_triangles(verts: &[i32]) -> bool {
        let n = verts.len() / 4;
        let mut scan_indices: Vec<u32> = (0..n as u32).collect();
        let mut scan_tris = Vec::new();
        let scan_ok = triangulate_by_scan(verts, &mut scan_indices, &mut scan_tris);

        let indices: Vec<u32> = (0..n as u32).collect();
        let mut clipper = EarClipper::default();
        assert!(clipper.load(verts, &indices));
        let mut tris = Vec::new();
        let ok = clipper.clip(&indices, &mut tris);
        assert_eq!((ok, &tris), (scan_ok, &scan_tris), "outline {verts:?}");
        ok
    }

    #[test]
    fn clipper_matches_scans_on_floors_with_holes() {
        let mut finished = 0;
        for seed in 0..600 {
            let mut rng = Rng::new(seed);
            let points = floor_with_holes(&mut rng, 30, false);
            finished += usize::from(assert_same_triangles(&contour_verts(&points)));
        }
        // Most clean outlines triangulate completely; the rest still agree on the partial result.
        assert!(finished > 500, "{finished}");
    }

    #[test]
    fn clipper_matches_scans_on_tangled_outlines() {
        let mut loose_or_failed = 0;
        for seed in 0..600 {
            let mut rng = Rng::new(1000 + seed);
            let points = floor_with_holes(&mut rng, 12, true);
            loose_or_failed += usize::from(!assert_same_triangles(&contour_verts(&points)));
        }
        for seed in 0..300 {
            let mut rng = Rng::new(5000 + seed);
            let n = 3 + rng.below(120) as usize;
            let points = random_polygon(&mut rng, n);
            loose_or_failed += usize::from(!assert_same_triangles(&contour_verts(&points)));
        }
        assert!(loose_or_failed > 0);
    }

    /// Cuts random vertices off the outline one by one and checks, before every cut, that the
    /// grid answers random diagonal queries like the full edge scan.
    fn assert_same_clearance(points: &[Point], rng: &mut Rng) {
        let verts = contour_verts(points);
        let indices: Vec<u32> = (0..points.len() as u32).collect();
        let mut clipper = EarClipper::default();
        assert!(clipper.load(&verts, &indices));
        while clipper.remaining > 3 {
            let mut outline = Vec::new();
            let mut k = clipper.first;
            for _ in 0..clipper.remaining {
                outline.push(k);
                k = clipper.next[k as usize];
            }
            let len = outline.len() as i32;
            for _ in 0..20 {
                let (a, b) = (rng.below(len) as usize, rng.below(len) as usize);
                for proper_only in [false, true] {
                    assert_eq!(
                        clipper.diagonal_clear(outline[a], outline[b], proper_only),
                        diagonal_clear_by_scan(a, b, &verts, &outline, proper_only),
                        "diagonal {a}-{b} of {outline:?} in {points:?}"
                    );
                }
            }
            clipper.cut(outline[rng.below(len) as usize]);
        }
    }

    #[test]
    fn grid_finds_the_blocking_edges_of_the_scan() {
        for seed in 0..150 {
            let mut rng = Rng::new(9000 + seed);
            let points = if seed % 2 == 0 {
                floor_with_holes(&mut rng, 10, true)
            } else {
                let n = 4 + rng.below(80) as usize;
                random_polygon(&mut rng, n)
            };
            assert_same_clearance(&points, &mut rng);
        }
    }

    #[test]
    fn wide_outlines_use_the_scans() {
        let mut rng = Rng::new(7);
        let mut points = floor_with_holes(&mut rng, 30, false);
        points[0][0] -= 40_000;
        let verts = contour_verts(&points);
        let n = points.len();
        assert!(n >= SCAN_LIMIT);
        let indices: Vec<u32> = (0..n as u32).collect();
        assert!(!EarClipper::default().load(&verts, &indices));

        let mut scan_indices = indices.clone();
        let mut scan_tris = Vec::new();
        let scan_ok = triangulate_by_scan(&verts, &mut scan_indices, &mut scan_tris);
        let mut tris = Vec::new();
        let ok = Triangulator::default().triangulate(&verts, &mut indices.clone(), &mut tris);
        assert_eq!((ok, tris), (scan_ok, scan_tris));
    }
}
