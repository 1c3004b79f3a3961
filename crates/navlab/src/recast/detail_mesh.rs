//! The detail mesh: per polygon, a triangle mesh that follows the surface height (Recast's
//! `rcPolyMeshDetail`).

use crate::threads::prelude::*;

use crate::recast::parallel::Split;

use crate::recast::compact::{CompactCell, CompactHeightfield, NOT_CONNECTED};
use crate::recast::context::{BuildContext, TimerLabel};
use crate::recast::poly_mesh::PolyMesh;
use crate::recast::{Error, Result};
use crate::{
    recast::MESH_NULL_IDX, recast::MULTIPLE_REGS, recast::dir_for_offset, recast::dir_offset_x,
    recast::dir_offset_z,
};

/// Height detail for every polygon of a [`crate::recast::poly_mesh::PolyMesh`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PolyMeshDetail {
    /// Per polygon: first vertex, vertex count, first triangle, triangle count.
    pub meshes: Vec<u32>,
    /// Vertices in world units, 3 × f32 each.
    pub verts: Vec<f32>,
    /// Triangles, 4 bytes each: three local vertex indices and edge flags.
    pub tris: Vec<u8>,
}

impl PolyMeshDetail {
    /// Number of sub-meshes (one per polygon).
    pub fn nmeshes(&self) -> usize {
        self.meshes.len() / 4
    }

    /// Number of vertices.
    pub fn nverts(&self) -> usize {
        self.verts.len() / 3
    }

    /// Number of triangles.
    pub fn ntris(&self) -> usize {
        self.tris.len() / 4
    }
}

/// Patch cell whose height is not known (yet).
const UNSET_HEIGHT: u16 = 0xffff;
/// Most vertices one polygon's detail mesh may have: outline samples stop short of it and
/// interior samples stop at it.
const MAX_VERTS: usize = 127;
/// Most triangles one polygon's detail mesh keeps; Detour stores triangle counts in a byte.
const MAX_TRIS: usize = 255;
/// Most sample points along one polygon edge, end points included.
const MAX_VERTS_PER_EDGE: usize = 32;
/// Triangle edge flag: the edge lies on the polygon outline (Detour's
/// `DT_DETAIL_EDGE_BOUNDARY`).
const DETAIL_EDGE_BOUNDARY: u8 = 0x1;
/// Face id of a Delaunay edge side that has not been processed yet.
const FACE_UNDEF: i32 = -1;
/// Face id of a Delaunay edge side that faces outside the hull.
const FACE_HULL: i32 = -2;
/// Placeholder vertex of a Delaunay face that has not received all three corners.
const NO_VERTEX: usize = usize::MAX;

type Vec3 = [f32; 3];

/// The smaller value, resolving ties and NaN as Recast's `rcMin` does.
#[inline]
fn min_f(a: f32, b: f32) -> f32 {
    if a < b { a } else { b }
}

/// The larger value, resolving ties and NaN as Recast's `rcMax` does.
#[inline]
fn max_f(a: f32, b: f32) -> f32 {
    if a > b { a } else { b }
}

#[inline]
fn sub(a: &Vec3, b: &Vec3) -> Vec3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// Dot product in the xz plane.
#[inline]
fn dot2(a: &Vec3, b: &Vec3) -> f32 {
    a[0] * b[0] + a[2] * b[2]
}

/// Distance in the xz plane.
#[inline]
fn dist2(p: &Vec3, q: &Vec3) -> f32 {
    let dx = q[0] - p[0];
    let dz = q[2] - p[2];
    (dx * dx + dz * dz).sqrt()
}

/// Twice the signed xz area of the triangle `p1`, `p2`, `p3`.
#[inline]
fn cross2(p1: &Vec3, p2: &Vec3, p3: &Vec3) -> f32 {
    let u1 = p2[0] - p1[0];
    let v1 = p2[2] - p1[2];
    let u2 = p3[0] - p1[0];
    let v2 = p3[2] - p1[2];
    u1 * v2 - v1 * u2
}

/// The xz circumcircle (centre, radius) of a triangle, or (`p1`, 0) when it is degenerate.
/// Computed relative to `p1` to keep precision.
fn circumcircle(p1: &Vec3, p2: &Vec3, p3: &Vec3) -> (Vec3, f32) {
    const EPS: f32 = 1e-6;
    let v1 = [0.0f32; 3];
    let v2 = sub(p2, p1);
    let v3 = sub(p3, p1);
    let cp = cross2(&v1, &v2, &v3);
    if cp.abs() <= EPS {
        return (*p1, 0.0);
    }
    let v1_sq = dot2(&v1, &v1);
    let v2_sq = dot2(&v2, &v2);
    let v3_sq = dot2(&v3, &v3);
    let centre = [
        (v1_sq * (v2[2] - v3[2]) + v2_sq * (v3[2] - v1[2]) + v3_sq * (v1[2] - v2[2])) / (2.0 * cp),
        0.0,
        (v1_sq * (v3[0] - v2[0]) + v2_sq * (v1[0] - v3[0]) + v3_sq * (v2[0] - v1[0])) / (2.0 * cp),
    ];
    let radius = dist2(&centre, &v1);
    (
        [centre[0] + p1[0], centre[1] + p1[1], centre[2] + p1[2]],
        radius,
    )
}

/// A detail triangle prepared for height tests: the terms of the point-over-triangle test
/// that do not depend on the point, computed once instead of once per sample.
struct TriProbe {
    /// The triangle's vertex indices packed by [`triangle_key`].
    key: u32,
    a: Vec3,
    /// Edge vectors `c - a` and `b - a`.
    v0: Vec3,
    v1: Vec3,
    dot00: f32,
    dot01: f32,
    dot11: f32,
    inv_denom: f32,
}

impl TriProbe {
    fn new(verts: &[Vec3], t: &[usize; 4]) -> Self {
        let (a, b, c) = (&verts[t[0]], &verts[t[1]], &verts[t[2]]);
        let v0 = sub(c, a);
        let v1 = sub(b, a);
        let dot00 = dot2(&v0, &v0);
        let dot01 = dot2(&v0, &v1);
        let dot11 = dot2(&v1, &v1);
        Self {
            key: triangle_key(t),
            a: *a,
            v0,
            v1,
            dot00,
            dot01,
            dot11,
            inv_denom: 1.0 / (dot00 * dot11 - dot01 * dot01),
        }
    }

    /// Vertical distance from `p` to the triangle if `p` lies over it (in xz), else
    /// `f32::MAX`.
    #[inline]
    fn vertical_distance(&self, p: &Vec3) -> f32 {
        const EPS: f32 = 1e-4;
        let v2 = sub(p, &self.a);
        let dot02 = dot2(&self.v0, &v2);
        let dot12 = dot2(&self.v1, &v2);
        let u = (self.dot11 * dot02 - self.dot01 * dot12) * self.inv_denom;
        let v = (self.dot00 * dot12 - self.dot01 * dot02) * self.inv_denom;
        if u >= -EPS && v >= -EPS && (u + v) <= 1.0 + EPS {
            let y = self.a[1] + self.v0[1] * u + self.v1[1] * v;
            (y - p[1]).abs()
        } else {
            f32::MAX
        }
    }
}

/// Key of no triangle.
const NO_TRIANGLE: u32 = u32::MAX;
/// Bits per vertex index in a [`triangle_key`]; detail vertex indices stay below
/// [`MAX_VERTS`].
const KEY_BITS: u32 = 7;
const _: () = assert!(MAX_VERTS <= 1 << KEY_BITS);

/// Packs a triangle's vertex indices, in order, into one number. The order matters: the
/// height test's rounding depends on which corner comes first. The indices' bits are
/// interleaved, so a polygon with few detail vertices has small keys and a small
/// [`TriangleKeySet`] bitmap (below 2^15 bits up to 32 vertices) to clear and allocate.
#[inline]
fn triangle_key(t: &[usize; 4]) -> u32 {
    spread_bits(t[0]) | spread_bits(t[1]) << 1 | spread_bits(t[2]) << 2
}

/// The low [`KEY_BITS`] bits of `index`, moved to every third bit (bit k to bit 3k).
#[inline]
fn spread_bits(index: usize) -> u32 {
    let mut x = index as u32 & ((1 << KEY_BITS) - 1);
    x = (x | x << 8) & 0x0000_f00f;
    x = (x | x << 4) & 0x000c_30c3;
    (x | x << 2) & 0x0024_9249
}

/// A set of [`triangle_key`]s: a bitmap over the keys up to the largest inserted, emptied by
/// clearing only the bits that were set.
#[derive(Default)]
struct TriangleKeySet {
    bits: Vec<u64>,
    keys: Vec<u32>,
}

impl TriangleKeySet {
    fn contains(&self, key: u32) -> bool {
        self.bits
            .get(key as usize / 64)
            .is_some_and(|word| word & (1 << (key % 64)) != 0)
    }

    fn insert(&mut self, key: u32) {
        let word = key as usize / 64;
        if word >= self.bits.len() {
            // Grown to the keys in use (keys stay below 2^(3 * KEY_BITS)).
            self.bits.resize((word + 1).next_power_of_two(), 0);
        }
        self.bits[word] |= 1 << (key % 64);
        self.keys.push(key);
    }

    fn clear(&mut self) {
        for &key in &self.keys {
            self.bits[key as usize / 64] = 0;
        }
        self.keys.clear();
    }
}

/// Squared 3D distance from `pt` to segment `p`–`q`.
fn dist_sq_pt_seg(pt: &Vec3, p: &Vec3, q: &Vec3) -> f32 {
    let pqx = q[0] - p[0];
    let pqy = q[1] - p[1];
    let pqz = q[2] - p[2];
    let dx = pt[0] - p[0];
    let dy = pt[1] - p[1];
    let dz = pt[2] - p[2];
    let d = pqx * pqx + pqy * pqy + pqz * pqz;
    let mut t = pqx * dx + pqy * dy + pqz * dz;
    if d > 0.0 {
        t /= d;
    }
    t = t.clamp(0.0, 1.0);
    let dx = p[0] + t * pqx - pt[0];
    let dy = p[1] + t * pqy - pt[1];
    let dz = p[2] + t * pqz - pt[2];
    dx * dx + dy * dy + dz * dz
}

/// Squared xz distance from `pt` to segment `p`–`q`.
fn dist_sq_pt_seg_2d(pt: &Vec3, p: &Vec3, q: &Vec3) -> f32 {
    let pqx = q[0] - p[0];
    let pqz = q[2] - p[2];
    let dx = pt[0] - p[0];
    let dz = pt[2] - p[2];
    let d = pqx * pqx + pqz * pqz;
    let mut t = pqx * dx + pqz * dz;
    if d > 0.0 {
        t /= d;
    }
    t = t.clamp(0.0, 1.0);
    let dx = p[0] + t * pqx - pt[0];
    let dz = p[2] + t * pqz - pt[2];
    dx * dx + dz * dz
}

/// Squared xz distance from `p` to the outline of `poly`, negative when `p` is inside.
fn signed_dist_sq_to_poly(poly: &[Vec3], p: &Vec3) -> f32 {
    let mut dmin = f32::MAX;
    let mut inside = false;
    let mut j = poly.len() - 1;
    for (i, vi) in poly.iter().enumerate() {
        let vj = &poly[j];
        if ((vi[2] > p[2]) != (vj[2] > p[2]))
            && (p[0] < (vj[0] - vi[0]) * (p[2] - vi[2]) / (vj[2] - vi[2]) + vi[0])
        {
            inside = !inside;
        }
        dmin = min_f(dmin, dist_sq_pt_seg_2d(p, vj, vi));
        j = i;
    }
    if inside { -dmin } else { dmin }
}

/// The polygon's narrowest width: over all edges, the smallest of the largest distance from an
/// edge to the other vertices.
fn poly_min_extent(verts: &[Vec3]) -> f32 {
    let n = verts.len();
    let mut min_dist = f32::MAX;
    for i in 0..n {
        let ni = (i + 1) % n;
        let mut max_edge_dist = 0.0f32;
        for (j, v) in verts.iter().enumerate() {
            if j == i || j == ni {
                continue;
            }
            max_edge_dist = max_f(max_edge_dist, dist_sq_pt_seg_2d(v, &verts[i], &verts[ni]));
        }
        min_dist = min_f(min_dist, max_edge_dist);
    }
    min_dist.sqrt()
}

/// A deterministic pseudo-random offset in [-1, 1] that breaks the symmetry of the sample grid.
#[inline]
fn jitter(i: usize, multiplier: u32) -> f32 {
    // C++ multiplies an int by an unsigned constant: the product wraps in 32 bits.
    let hashed = (i as u32).wrapping_mul(multiplier) & 0xffff;
    hashed as f32 / 65535.0 * 2.0 - 1.0
}

#[inline]
fn jitter_x(i: usize) -> f32 {
    jitter(i, 0x8da6_b343)
}

#[inline]
fn jitter_z(i: usize) -> f32 {
    jitter(i, 0xd816_3841)
}

/// Span heights of the grid cells under one polygon's bounding box (plus a one-cell margin),
/// reused from polygon to polygon.
///
/// The cells are stored inside a ring of [`RING_HEIGHT`] cells, which the height flood and
/// the centre walk take for cells already reached: their steps to a neighbour need no test
/// of the patch bounds, only of the neighbour's height.
#[derive(Default)]
struct HeightPatch {
    /// Row by row, `width + 2` cells a row, the ring included.
    data: Vec<u16>,
    xmin: i32,
    zmin: i32,
    width: i32,
    height: i32,
}

/// The height of the ring around a [`HeightPatch`]: any height but [`UNSET_HEIGHT`].
const RING_HEIGHT: u16 = 0;

impl HeightPatch {
    /// Covers the cells `bounds` (xmin, xmax, zmin, zmax; max exclusive), every cell `fill`.
    fn reset(&mut self, bounds: &[i32; 4], fill: u16) {
        self.xmin = bounds[0];
        self.zmin = bounds[2];
        self.width = (bounds[1] - bounds[0]).max(0);
        self.height = (bounds[3] - bounds[2]).max(0);
        self.data.clear();
        self.data
            .resize(self.stride() * (self.height as usize + 2), fill);
        self.seal_ring();
    }

    /// Sets every cell to `fill`, leaving the ring as it is.
    fn fill(&mut self, fill: u16) {
        self.data.fill(fill);
        self.seal_ring();
    }

    fn seal_ring(&mut self) {
        let stride = self.stride();
        let (first, rest) = self.data.split_at_mut(stride);
        first.fill(RING_HEIGHT);
        let last_start = rest.len() - stride;
        rest[last_start..].fill(RING_HEIGHT);
        for row in rest[..last_start].chunks_exact_mut(stride) {
            row[0] = RING_HEIGHT;
            row[stride - 1] = RING_HEIGHT;
        }
    }

    /// Data entries per row.
    #[inline]
    fn stride(&self) -> usize {
        self.width as usize + 2
    }

    /// The data index of patch-local cell (`hx`, `hz`), if inside the patch.
    #[inline]
    fn index(&self, hx: i32, hz: i32) -> Option<usize> {
        // Negative coordinates wrap to large unsigned values and fail the test too.
        if (hx as u32) < (self.width as u32) && (hz as u32) < (self.height as u32) {
            Some(self.ring_index(hx, hz))
        } else {
            None
        }
    }

    /// The data index of patch-local cell (`hx`, `hz`), which may lie on the ring.
    #[inline]
    fn ring_index(&self, hx: i32, hz: i32) -> usize {
        (hx + 1) as usize + (hz + 1) as usize * self.stride()
    }

    /// The offset of a cell's neighbour in direction `dir` in `data`.
    #[inline]
    fn step(&self, dir: usize) -> isize {
        dir_offset_x(dir) as isize + dir_offset_z(dir) as isize * self.stride() as isize
    }

    /// The height under world-relative point (`fx`, `fz`). Where the patch has no height there,
    /// searches outward ring by ring (up to `radius` cells) and takes the height closest to `fy`
    /// from the first ring that has any.
    fn height_at(&self, fx: f32, fy: f32, fz: f32, ics: f32, ch: f32, radius: i32) -> u16 {
        if self.width <= 0 || self.height <= 0 {
            return UNSET_HEIGHT;
        }
        let clamp = |v: i32, hi: i32| {
            if v < 0 {
                0
            } else if v > hi {
                hi
            } else {
                v
            }
        };
        let ix = clamp(
            ((fx * ics + 0.01).floor() as i32).saturating_sub(self.xmin),
            self.width - 1,
        );
        let iz = clamp(
            ((fz * ics + 0.01).floor() as i32).saturating_sub(self.zmin),
            self.height - 1,
        );
        let mut h = self.data[self.ring_index(ix, iz)];
        if h != UNSET_HEIGHT {
            return h;
        }

        // Spiral around the cell; each ring holds 8 more cells than the previous one.
        let (mut x, mut z, mut dx, mut dz) = (1i32, 0i32, 1i32, 0i32);
        let max_size = i64::from(radius) * 2 + 1;
        let max_iter = max_size * max_size - 1;
        let mut next_ring_start = 8i64;
        let mut next_ring_len = 16i64;
        let mut dmin = f32::MAX;
        let mut i = 0i64;
        while i < max_iter {
            if let Some(idx) = self.index(ix + x, iz + z) {
                let nh = self.data[idx];
                if nh != UNSET_HEIGHT {
                    let d = (f32::from(nh) * ch - fy).abs();
                    if d < dmin {
                        h = nh;
                        dmin = d;
                    }
                }
            }
            // Stop at the end of the first ring that found a height.
            if i + 1 == next_ring_start {
                if h != UNSET_HEIGHT {
                    break;
                }
                next_ring_start += next_ring_len;
                next_ring_len += 8;
            }
            if x == z || (x < 0 && x == -z) || (x > 0 && x == 1 - z) {
                let turned = dx;
                dx = -dz;
                dz = turned;
            }
            x += dx;
            z += dz;
            i += 1;
        }
        h
    }
}

/// A cell being visited: its [`HeightPatch::data`] index, its heightfield cell index and the
/// span's index.
type CellVisit = (usize, usize, usize);

/// The offset of a cell's neighbour in direction `dir` among the heightfield's cells.
#[inline]
fn cell_step(chf: &CompactHeightfield, dir: usize) -> isize {
    dir_offset_x(dir) as isize + dir_offset_z(dir) as isize * chf.width as isize
}

/// Buffers of the height flood, reused from polygon to polygon.
#[derive(Default)]
struct FloodScratch {
    /// The cells filled by the flood, in the order they were filled; the walk to the
    /// polygon's centre uses it as its stack.
    queue: Vec<CellVisit>,
    /// Per patch cell (row by row, no ring): the span of the polygon's region there that
    /// seeds the flood, or [`NO_SEED`].
    seeds: Vec<u32>,
    /// The columns of one patch row whose seeds may fill something.
    open: Vec<usize>,
}

/// A patch cell that does not seed the height flood.
const NO_SEED: u32 = u32::MAX;

/// Fills `patch` with the heights under polygon `poly` (mesh vertex indices), flood-filling
/// from the polygon's region so that overlapping floors of other regions are not sampled.
///
/// Recast seeds the flood with the region's spans on the region's edge. Where columns are
/// scanned, every region span seeds it instead: a span inside the region links only to spans
/// of its region, whose cells the scan has already filled, so it fills nothing when its turn
/// comes, and the edge spans fill the same cells in the same order. Looking at a seed's four
/// neighbours in the patch costs less than testing its links for the region's edge (the
/// neighbour's cell and span, each).
///
/// Kept out of line: inlined into the per-polygon loop, its scan and flood spilled most of
/// their registers (0.9 M instructions more on nav_test).
#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn gather_heights(
    ctx: &mut BuildContext,
    chf: &CompactHeightfield,
    region_spans: Option<&RegionSpans>,
    mesh: &PolyMesh,
    poly: &[u16],
    region: u16,
    patch: &mut HeightPatch,
    flood: &mut FloodScratch,
) {
    let bs = mesh.border_size;
    flood.queue.clear();
    let mut empty = true;
    let (patch_width, stride) = (patch.width as usize, patch.stride());
    // Patch cells lie inside the heightfield (checked up front).
    let origin = (patch.xmin + bs + (patch.zmin + bs) * chf.width) as usize;
    let steps = FloodSteps::new(chf, patch);

    // A polygon merged from several regions may overlap other polygons of those regions, so
    // only single-region polygons copy their region's heights directly.
    if region != MULTIPLE_REGS && patch_width > 0 {
        let seeds = &mut flood.seeds;
        seeds.clear();
        seeds.resize(patch_width * patch.height as usize, NO_SEED);
        // Whether a region span has the height that marks a cell unset: that cell stays open
        // to the flood, so spans inside the region could reach it before Recast's seeds do.
        let mut unset_height_span = false;
        let rows = patch.data.chunks_exact_mut(stride).skip(1);
        for (hz, (row, row_seeds)) in rows.zip(seeds.chunks_exact_mut(patch_width)).enumerate() {
            let heights = &mut row[1..=patch_width];
            let row_start = origin + hz * chf.width as usize;
            let row_cells = &chf.cells[row_start..row_start + patch_width];
            match region_spans {
                Some(index) => index.visit_row(
                    chf,
                    region,
                    row_cells,
                    &mut |hx, span_index, y, on_border| {
                        heights[hx] = y;
                        empty = false;
                        if on_border {
                            row_seeds[hx] = span_index as u32;
                        }
                    },
                ),
                None => {
                    let (found, unset) = scan_row(chf, region, row_cells, heights, row_seeds);
                    empty &= !found;
                    unset_height_span |= unset;
                }
            }
        }

        // The seeds, in the order of the scan.
        for (hz, row_seeds) in seeds.chunks_exact(patch_width).enumerate() {
            let row_index = (hz + 1) * stride + 1;
            let row_start = origin + hz * chf.width as usize;
            // Found before the row's flood: cells only get filled, so a seed found closed stays
            // closed, and one found open may fill nothing by its turn.
            flood.open.clear();
            flood
                .open
                .extend(open_seeds(&patch.data, row_index, stride, row_seeds));
            for &hx in &flood.open {
                let visit = (row_index + hx, row_start + hx, row_seeds[hx] as usize);
                if unset_height_span && !is_on_region_border(chf, visit.1, visit.2) {
                    continue;
                }
                flood_from(chf, &mut patch.data, &steps, visit, &mut flood.queue);
            }
        }
    }

    let queue = &mut flood.queue;
    if empty {
        seed_with_poly_center(ctx, chf, poly, &mesh.verts, bs, patch, queue);
    }

    // Breadth-first from the seeds, so heights come from the floor connected to the polygon.
    let mut head = 0;
    while let Some(&visit) = queue.get(head) {
        head += 1;
        flood_from(chf, &mut patch.data, &steps, visit, queue);
    }
}

/// Scans one patch row for the polygon's region (`row_cells`, the heightfield cells under
/// it): where a column holds a span of `region`, the lowest one gives the cell's height and
/// seeds the flood. Returns whether any did, and whether any has [`UNSET_HEIGHT`].
///
/// Kept out of line: inside the gathering its loop spilled registers (0.24 M instructions
/// more on nav_test).
#[inline(never)]
fn scan_row(
    chf: &CompactHeightfield,
    region: u16,
    row_cells: &[CompactCell],
    heights: &mut [u16],
    seeds: &mut [u32],
) -> (bool, bool) {
    let (mut found, mut unset) = (false, false);
    for ((cell, height), seed) in row_cells.iter().zip(heights).zip(seeds) {
        let first = cell.index as usize;
        let Some(column) = chf.spans.get(first..first + cell.count as usize) else {
            continue;
        };
        if let Some(layer) = column.iter().position(|span| span.reg == region) {
            let y = column[layer].y;
            *height = y;
            unset |= y == UNSET_HEIGHT;
            found = true;
            // Span indices fit in 32 bits (checked up front).
            *seed = (first + layer) as u32;
        }
    }
    (found, unset)
}

/// The columns of one patch row whose seeds have a neighbour cell still unset: the others
/// lie inside their region and would fill nothing. `row_index` is the row's first cell in
/// `heights`.
fn open_seeds<'a>(
    heights: &'a [u16],
    row_index: usize,
    stride: usize,
    seeds: &'a [u32],
) -> impl Iterator<Item = usize> + 'a {
    let width = seeds.len();
    let above = &heights[row_index - stride..][..width];
    let below = &heights[row_index + stride..][..width];
    let around = heights[row_index - 1..][..width + 2].windows(3);
    seeds
        .iter()
        .zip(above.iter().zip(below))
        .zip(around)
        .enumerate()
        .filter(|&(_, ((&seed, (&up, &down)), sides))| {
            seed != NO_SEED
                && (up == UNSET_HEIGHT
                    || down == UNSET_HEIGHT
                    || sides[0] == UNSET_HEIGHT
                    || sides[2] == UNSET_HEIGHT)
        })
        .map(|(hx, _)| hx)
}

/// The offsets of a cell's four neighbours, in patch data and among the heightfield's cells.
struct FloodSteps {
    patch: [isize; 4],
    cells: [isize; 4],
}

impl FloodSteps {
    fn new(chf: &CompactHeightfield, patch: &HeightPatch) -> Self {
        Self {
            patch: std::array::from_fn(|dir| patch.step(dir)),
            cells: std::array::from_fn(|dir| cell_step(chf, dir)),
        }
    }
}

/// Gives each unset patch cell that the span of `visit` links to the height of the span it
/// links to, and queues it. The patch's ring stops the flood at the patch's edge.
#[inline(always)]
fn flood_from(
    chf: &CompactHeightfield,
    heights: &mut [u16],
    steps: &FloodSteps,
    (patch_index, cell_index, span_index): CellVisit,
    queue: &mut Vec<CellVisit>,
) {
    let span = chf.spans[span_index];
    for dir in 0..4 {
        let con = span.con(dir);
        if con == NOT_CONNECTED {
            continue;
        }
        let neighbour_index = patch_index.wrapping_add_signed(steps.patch[dir]);
        if heights[neighbour_index] != UNSET_HEIGHT {
            continue;
        }
        let neighbour_cell = cell_index.wrapping_add_signed(steps.cells[dir]);
        let ni = chf.cells[neighbour_cell].index as usize + con as usize;
        let Some(neighbour) = chf.spans.get(ni) else {
            continue;
        };
        heights[neighbour_index] = neighbour.y;
        queue.push((neighbour_index, neighbour_cell, ni));
    }
}

/// Whether span `span_index` of cell `cell_index` links to a span of another region: such
/// spans seed the flood fill of a polygon's heights. Links never leave the grid in a
/// well-formed heightfield; `get` keeps others safe.
fn is_on_region_border(chf: &CompactHeightfield, cell_index: usize, span_index: usize) -> bool {
    let span = &chf.spans[span_index];
    let w = chf.width as isize;
    let cell_step = [-1, w, 1, -w];
    (0..4).any(|dir| {
        let con = span.con(dir);
        con != NOT_CONNECTED
            && chf
                .cells
                .get(cell_index.wrapping_add_signed(cell_step[dir]))
                .and_then(|c| chf.spans.get(c.index as usize + con as usize))
                .is_some_and(|neighbour| neighbour.reg != span.reg)
    })
}

/// The spans of each region in heightfield order, for heightfields whose columns hold many
/// spans. A polygon's heights come from its region's spans in its bounds: scanning every span
/// of every column there costs as many times more as floors are stacked over the polygon
/// (41 in a parking garage), while a region's own spans are at most one or two per column.
///
/// A span's height, and whether it is on its region's edge, are kept here too: read per
/// polygon from the heightfield, they took a cache miss for every cell of every polygon's
/// bounds (a region's spans lie a whole column of floors apart), which made them most of the
/// detail stage's time. Here they are read in order.
struct RegionSpans {
    /// Where each region's spans start in `spans`, by region id (one more entry at the end).
    starts: Vec<u32>,
    /// Span indices grouped by region, ascending within each region, each with
    /// [`Self::ON_BORDER`] set when the span is on its region's edge.
    spans: Vec<u32>,
    /// The height (`y`) of each span of `spans`.
    heights: Vec<u16>,
}

impl RegionSpans {
    /// Spans per column on average past which the index pays for its memory (four bytes a
    /// span); single-floor levels have about one.
    const MIN_SPANS_PER_CELL: usize = 4;

    /// The index of `chf`'s region spans, or `None` when columns hold few spans.
    /// The bit of an entry of [`Self::spans`] that marks a span on its region's edge.
    const ON_BORDER: u32 = 1 << 31;

    fn new(chf: &CompactHeightfield) -> Option<RegionSpans> {
        if chf.spans.len() < chf.cells.len().saturating_mul(Self::MIN_SPANS_PER_CELL)
            || chf.spans.len() > Self::ON_BORDER as usize
        {
            return None;
        }
        let regions = 1 + chf.spans.iter().map(|s| usize::from(s.reg)).max()?;
        let mut starts = vec![0u32; regions + 1];
        for span in &chf.spans {
            starts[usize::from(span.reg) + 1] += 1;
        }
        for r in 0..regions {
            starts[r + 1] += starts[r];
        }
        let mut next = starts.clone();
        let mut spans = vec![0u32; chf.spans.len()];
        let mut heights = vec![0u16; chf.spans.len()];
        // Spans are stored column by column, so each region's list comes out ascending.
        for (cell_index, cell) in chf.cells.iter().enumerate() {
            let first = cell.index as usize;
            for i in first..(first + cell.count as usize).min(chf.spans.len()) {
                let slot = &mut next[usize::from(chf.spans[i].reg)];
                let on_border = is_on_region_border(chf, cell_index, i);
                spans[*slot as usize] = i as u32 | if on_border { Self::ON_BORDER } else { 0 };
                heights[*slot as usize] = chf.spans[i].y;
                *slot += 1;
            }
        }
        Some(RegionSpans {
            starts,
            spans,
            heights,
        })
    }

    /// Calls `take(column, span, y, on_border)` for each column of `row` (consecutive cells of
    /// one grid row) with its lowest span of `region`, in column order: what scanning each
    /// column does.
    fn visit_row(
        &self,
        chf: &CompactHeightfield,
        region: u16,
        row: &[crate::recast::compact::CompactCell],
        take: &mut impl FnMut(usize, usize, u16, bool),
    ) {
        let r = usize::from(region);
        let (Some(&start), Some(&end)) = (self.starts.get(r), self.starts.get(r + 1)) else {
            return;
        };
        let own = &self.spans[start as usize..end as usize];
        let own_heights = &self.heights[start as usize..end as usize];
        let (Some(first), Some(last)) = (row.first(), row.last()) else {
            return;
        };
        // A row's cells hold one run of span indices.
        let (lo, hi) = (first.index, last.index + last.count);
        let mut column = 0;
        let mut last_column = None;
        let first_in_row = own.partition_point(|&s| s & !Self::ON_BORDER < lo);
        for (&entry, &y) in own[first_in_row..].iter().zip(&own_heights[first_in_row..]) {
            let span_index = entry & !Self::ON_BORDER;
            if span_index >= hi {
                break;
            }
            while row[column].index + row[column].count <= span_index {
                column += 1;
            }
            if last_column != Some(column) && span_index < chf.spans.len() as u32 {
                last_column = Some(column);
                take(column, span_index as usize, y, entry & Self::ON_BORDER != 0);
            }
        }
    }
}

/// Seeds the height flood fill with the span at the polygon's centre, reached by a depth-first
/// walk from the span closest to one of its vertices. Used when the polygon's region gives no
/// heights. Leaves `patch` unset except for the seed.
fn seed_with_poly_center(
    ctx: &mut BuildContext,
    chf: &CompactHeightfield,
    poly: &[u16],
    mesh_verts: &[u16],
    bs: i32,
    patch: &mut HeightPatch,
    stack: &mut Vec<CellVisit>,
) {
    const OFFSETS: [(i32, i32); 9] = [
        (0, 0),
        (-1, -1),
        (0, -1),
        (1, -1),
        (1, 0),
        (1, 1),
        (0, 1),
        (-1, 1),
        (-1, 0),
    ];

    // The span closest in height to a polygon vertex, at or next to it.
    let mut start: Option<(i32, i32, usize)> = None;
    let mut dmin = i32::from(UNSET_HEIGHT);
    'search: for &v in poly {
        let v = &mesh_verts[usize::from(v) * 3..usize::from(v) * 3 + 3];
        for (ox, oz) in OFFSETS {
            if dmin <= 0 {
                break 'search;
            }
            let ax = i32::from(v[0]) + ox;
            let ay = i32::from(v[1]);
            let az = i32::from(v[2]) + oz;
            if ax < patch.xmin
                || ax >= patch.xmin + patch.width
                || az < patch.zmin
                || az >= patch.zmin + patch.height
            {
                continue;
            }
            let cell = chf.cells[((ax + bs) + (az + bs) * chf.width) as usize];
            let first = cell.index as usize;
            let end = (first + cell.count as usize).min(chf.spans.len());
            for i in first..end {
                if dmin <= 0 {
                    break;
                }
                let d = (ay - i32::from(chf.spans[i].y)).abs();
                if d < dmin {
                    start = Some((ax, az, i));
                    dmin = d;
                }
            }
        }
    }
    let Some((start_x, start_z, start_span)) = start else {
        return;
    };

    let n = poly.len() as i32;
    let (sum_x, sum_z) = poly.iter().fold((0i32, 0i32), |(sx, sz), &v| {
        let v = usize::from(v) * 3;
        (
            sx + i32::from(mesh_verts[v]),
            sz + i32::from(mesh_verts[v + 2]),
        )
    });
    let (pcx, pcz) = (sum_x / n, sum_z / n);

    // A depth-first walk that records the cells it passes: a straight walk towards the
    // centre can get stuck where contour simplification cut a corner. Visited cells are set
    // in the patch.
    let stride = patch.stride();
    let cell_of = |x: i32, z: i32| ((x + bs) + (z + bs) * chf.width) as usize;
    let start_index = patch.ring_index(start_x - patch.xmin, start_z - patch.zmin);
    stack.clear();
    stack.push((start_index, cell_of(start_x, start_z), start_span));
    patch.fill(UNSET_HEIGHT);
    let mut reached = stack[0];
    loop {
        let Some(top) = stack.pop() else {
            ctx.warning("Walk towards polygon center failed to reach center");
            break;
        };
        reached = top;
        let (patch_index, cell_index, span_index) = top;
        let cx = (patch_index % stride) as i32 - 1 + patch.xmin;
        let cz = (patch_index / stride) as i32 - 1 + patch.zmin;
        if cx == pcx && cz == pcz {
            break;
        }
        // Push the direction straight towards the centre last, so it is explored first.
        let direct = if cx == pcx {
            dir_for_offset(0, if pcz > cz { 1 } else { -1 })
        } else {
            dir_for_offset(if pcx > cx { 1 } else { -1 }, 0)
        };
        let mut dirs = [0, 1, 2, 3];
        dirs.swap(direct, 3);
        let span = chf.spans[span_index];
        for dir in dirs {
            let con = span.con(dir);
            if con == NOT_CONNECTED {
                continue;
            }
            // The ring counts as visited, which keeps the walk in the patch.
            let neighbour_index = patch_index.wrapping_add_signed(patch.step(dir));
            if patch.data[neighbour_index] != UNSET_HEIGHT {
                continue;
            }
            patch.data[neighbour_index] = 1;
            let neighbour_cell = cell_index.wrapping_add_signed(cell_step(chf, dir));
            let ni = chf.cells[neighbour_cell].index as usize + con as usize;
            if ni < chf.spans.len() {
                stack.push((neighbour_index, neighbour_cell, ni));
            }
        }
    }

    stack.clear();
    stack.push(reached);
    patch.fill(UNSET_HEIGHT);
    patch.data[reached.0] = chf.spans[reached.2].y;
}

/// An edge of the Delaunay triangulation with the faces on either side (face ids, or
/// [`FACE_UNDEF`] / [`FACE_HULL`]).
#[derive(Clone, Copy, Debug)]
struct DelaunayEdge {
    s: usize,
    t: usize,
    /// The face to the left of `s` → `t`.
    left: i32,
    /// The face to the left of `t` → `s`.
    right: i32,
}

/// Slot of an unused vertex pair in [`DelaunayEdges::lookup`].
const NO_EDGE: u32 = u32::MAX;

/// The edges of a Delaunay triangulation in creation order, with a table from vertex pair to
/// edge, so that finding an edge does not scan the list. A vertex pair has at most one edge,
/// so the table finds the same edge a scan in creation order would.
#[derive(Default)]
struct DelaunayEdges {
    list: Vec<DelaunayEdge>,
    /// Edge index per unordered vertex pair (lower × `stride` + higher), [`NO_EDGE`] if none.
    lookup: Vec<u32>,
    stride: usize,
    /// Recast's edge budget for the current point count.
    max_edges: usize,
}

impl DelaunayEdges {
    /// Empties the set for a triangulation of `npts` points.
    fn reset(&mut self, npts: usize) {
        if npts > self.stride {
            // Sized for the largest detail mesh so that growing meshes do not resize it.
            self.stride = npts.max(MAX_VERTS);
            self.lookup.clear();
            self.lookup.resize(self.stride * self.stride, NO_EDGE);
        } else {
            for e in &self.list {
                let slot = Self::slot(self.stride, e.s, e.t);
                self.lookup[slot] = NO_EDGE;
            }
        }
        self.list.clear();
        self.max_edges = npts * 10;
    }

    #[inline]
    fn slot(stride: usize, s: usize, t: usize) -> usize {
        if s < t {
            s * stride + t
        } else {
            t * stride + s
        }
    }

    /// The edge between `s` and `t`, in either direction.
    #[inline]
    fn find(&self, s: usize, t: usize) -> Option<usize> {
        let e = self.lookup[Self::slot(self.stride, s, t)];
        (e != NO_EDGE).then_some(e as usize)
    }

    /// Adds edge `s`–`t` unless it exists or the edge budget is spent.
    fn add(&mut self, ctx: &mut BuildContext, s: usize, t: usize, left: i32, right: i32) {
        if self.list.len() >= self.max_edges {
            ctx.error(format!(
                "addEdge: Too many edges ({}/{}).",
                self.list.len(),
                self.max_edges
            ));
            return;
        }
        let slot = Self::slot(self.stride, s, t);
        if self.lookup[slot] == NO_EDGE {
            // The budget (10 per point, at most MAX_VERTS points) keeps indices small.
            self.lookup[slot] = self.list.len() as u32;
            self.list.push(DelaunayEdge { s, t, left, right });
        }
    }
}

/// Records face `f` on the left of `s` → `t` if that side is still open.
fn update_left_face(e: &mut DelaunayEdge, s: usize, t: usize, f: i32) {
    if e.s == s && e.t == t && e.left == FACE_UNDEF {
        e.left = f;
    } else if e.t == s && e.s == t && e.right == FACE_UNDEF {
        e.right = f;
    }
}

/// Whether the xz segments `a`–`b` and `c`–`d` cross.
fn segments_cross_2d(a: &Vec3, b: &Vec3, c: &Vec3, d: &Vec3) -> bool {
    let a1 = cross2(a, b, d);
    let a2 = cross2(a, b, c);
    if a1 * a2 < 0.0 {
        let a3 = cross2(c, d, a);
        let a4 = a3 + a2 - a1;
        if a3 * a4 < 0.0 {
            return true;
        }
    }
    false
}

/// Whether segment `s1`–`t1` crosses any edge it does not share a vertex with.
///
/// The answer does not depend on the order the edges are tried in; the newest go first, since
/// they lie along the front the triangulation is growing, where a crossing is most likely:
/// on grid-sampled terrain (`undulating`) the search takes 3.7 M instructions instead of 12.9 M.
fn crosses_edges(pts: &[Vec3], edges: &[DelaunayEdge], s1: usize, t1: usize) -> bool {
    edges.iter().rev().any(|e| {
        let (s0, t0) = (e.s, e.t);
        !(s0 == s1 || s0 == t1 || t0 == s1 || t0 == t1)
            && segments_cross_2d(&pts[s0], &pts[t0], &pts[s1], &pts[t1])
    })
}

/// Bit set of point indices; detail meshes have at most [`MAX_VERTS`] points.
type PointSet = u128;
const _: () = assert!(MAX_VERTS <= PointSet::BITS as usize);

/// Bins per axis in [`PointBins`].
const POINT_BINS: usize = 64;

/// One axis of [`PointBins`]: the points' coordinates cut into equal bins.
#[derive(Clone, Copy)]
struct AxisBins {
    origin: f64,
    scale: f64,
    /// `below[b]`: the points in bins before `b`.
    below: [PointSet; POINT_BINS + 1],
}

impl Default for AxisBins {
    fn default() -> Self {
        Self {
            origin: 0.0,
            scale: 0.0,
            below: [0; POINT_BINS + 1],
        }
    }
}

impl AxisBins {
    /// The bin of coordinate `v`; never decreases as `v` grows, so the bins of a range's ends
    /// bound the bins of everything inside it.
    #[inline]
    fn bin(&self, v: f64) -> usize {
        // The conversion saturates: coordinates below the first point land in bin 0.
        (((v - self.origin) * self.scale) as i32).clamp(0, POINT_BINS as i32 - 1) as usize
    }

    fn rebuild(&mut self, pts: &[Vec3], finite: PointSet, axis: usize) {
        let coords = || {
            pts.iter()
                .enumerate()
                .filter(|&(i, _)| finite & (1 << i) != 0)
                .map(|(_, p)| f64::from(p[axis]))
        };
        let lo = coords().fold(f64::INFINITY, f64::min);
        let hi = coords().fold(f64::NEG_INFINITY, f64::max);
        self.origin = lo;
        self.scale = if hi > lo {
            POINT_BINS as f64 / (hi - lo)
        } else {
            0.0
        };
        let mut in_bin = [0 as PointSet; POINT_BINS];
        for (i, p) in pts.iter().enumerate() {
            if finite & (1 << i) != 0 {
                in_bin[self.bin(f64::from(p[axis]))] |= 1 << i;
            }
        }
        for (b, set) in in_bin.iter().enumerate() {
            self.below[b + 1] = self.below[b] | set;
        }
    }

    /// The points whose coordinate may lie in `lo..=hi` (a superset).
    #[inline]
    fn range(&self, lo: f64, hi: f64) -> PointSet {
        self.below[self.bin(hi) + 1] & !self.below[self.bin(lo)]
    }
}

/// The points of a triangulation binned along x and along z, to find the points near a
/// circle without testing them all. Points with a non-finite x or z are left out: they never
/// fall inside a finite circle.
#[derive(Default)]
struct PointBins {
    x: AxisBins,
    z: AxisBins,
}

impl PointBins {
    fn rebuild(&mut self, pts: &[Vec3]) {
        debug_assert!(pts.len() <= PointSet::BITS as usize);
        let finite = pts
            .iter()
            .enumerate()
            .filter(|(_, p)| p[0].is_finite() && p[2].is_finite())
            .fold(0 as PointSet, |set, (i, _)| set | 1 << i);
        self.x.rebuild(pts, finite, 0);
        self.z.rebuild(pts, finite, 2);
    }

    /// The points inside `area`; all points when it is unbounded.
    fn within(&self, area: &SearchArea, npts: usize) -> PointSet {
        match area {
            Some([x_lo, x_hi, z_lo, z_hi]) => {
                self.x.range(*x_lo, *x_hi) & self.z.range(*z_lo, *z_hi)
            }
            None if npts >= PointSet::BITS as usize => PointSet::MAX,
            None => (1 << npts) - 1,
        }
    }
}

/// An xz box (x range, z range), or `None` for the whole plane.
type SearchArea = Option<[f64; 4]>;

/// A box around every point whose computed xz distance from `centre` can be at most
/// `radius`, with a margin well beyond f32 rounding; unbounded when the circle is not finite.
fn search_area(centre: &Vec3, radius: f32) -> SearchArea {
    if !(centre[0].is_finite() && centre[2].is_finite() && radius.is_finite()) {
        return None;
    }
    let (x, z) = (f64::from(centre[0]), f64::from(centre[2]));
    let reach = f64::from(radius) * 1.001 + 1e-6;
    let x_reach = reach + x.abs() * 1e-9;
    let z_reach = reach + z.abs() * 1e-9;
    Some([x - x_reach, x + x_reach, z - z_reach, z + z_reach])
}

/// Closes the open side of edge `e` with the point whose circumcircle contains no other
/// point, or marks it as hull when no point lies on that side.
///
/// Points are tried in index order as Recast does, since near-cocircular ties go to the
/// first; but only the first point on the left is taken unconditionally, after which only
/// points near the current circle can change the choice, and `index` finds those.
fn complete_facet(
    ctx: &mut BuildContext,
    pts: &[Vec3],
    index: &PointBins,
    edges: &mut DelaunayEdges,
    nfaces: &mut i32,
    e: usize,
) {
    const EPS: f32 = 1e-5;
    const TOL: f32 = 0.001;

    let edge = edges.list[e];
    let (s, t) = if edge.left == FACE_UNDEF {
        (edge.s, edge.t)
    } else if edge.right == FACE_UNDEF {
        (edge.t, edge.s)
    } else {
        return;
    };

    let npts = pts.len();
    let left_of_edge = |u: usize| u != s && u != t && cross2(&pts[s], &pts[t], &pts[u]) > EPS;
    let Some(mut pt) = (0..npts).find(|&u| left_of_edge(u)) else {
        update_left_face(&mut edges.list[e], s, t, FACE_HULL);
        return;
    };
    let (mut centre, mut radius) = circumcircle(&pts[s], &pts[t], &pts[pt]);
    let mut area = search_area(&centre, radius * (1.0 + TOL));
    let mut candidates = index.within(&area, npts) & !0 << pt << 1;
    while candidates != 0 {
        let u = candidates.trailing_zeros() as usize;
        candidates &= candidates - 1;
        if !left_of_edge(u) {
            continue;
        }
        let d = dist2(&centre, &pts[u]);
        if d > radius * (1.0 + TOL) {
            continue;
        }
        // On the circle within tolerance: accept only if the new edges cross nothing.
        let safely_inside = d < radius * (1.0 - TOL);
        if !safely_inside
            && (crosses_edges(pts, &edges.list, s, u) || crosses_edges(pts, &edges.list, t, u))
        {
            continue;
        }
        pt = u;
        (centre, radius) = circumcircle(&pts[s], &pts[t], &pts[u]);
        area = search_area(&centre, radius * (1.0 + TOL));
        candidates = index.within(&area, npts) & !0 << pt << 1;
    }

    update_left_face(&mut edges.list[e], s, t, *nfaces);
    match edges.find(pt, s) {
        Some(i) => update_left_face(&mut edges.list[i], pt, s, *nfaces),
        None => edges.add(ctx, pt, s, *nfaces, FACE_UNDEF),
    }
    match edges.find(t, pt) {
        Some(i) => update_left_face(&mut edges.list[i], t, pt, *nfaces),
        None => edges.add(ctx, t, pt, *nfaces, FACE_UNDEF),
    }
    *nfaces += 1;
}

/// Renders a face corner for log messages the way C++ prints its -1 placeholder.
fn corner_for_log(v: usize) -> i64 {
    if v == NO_VERTEX { -1 } else { v as i64 }
}

/// Delaunay triangulation of `pts` inside the hull outline `hull`, by growing faces from the
/// hull edges inwards.
fn delaunay_hull(
    ctx: &mut BuildContext,
    pts: &[Vec3],
    hull: &[usize],
    tris: &mut Vec<[usize; 4]>,
    edges: &mut DelaunayEdges,
    index: &mut PointBins,
) {
    let mut nfaces = 0i32;
    edges.reset(pts.len());
    index.rebuild(pts);
    let mut j = hull.len().wrapping_sub(1);
    for (i, &hi) in hull.iter().enumerate() {
        edges.add(ctx, hull[j], hi, FACE_HULL, FACE_UNDEF);
        j = i;
    }

    let mut current = 0;
    while current < edges.list.len() {
        if edges.list[current].left == FACE_UNDEF {
            complete_facet(ctx, pts, index, edges, &mut nfaces, current);
        }
        if edges.list[current].right == FACE_UNDEF {
            complete_facet(ctx, pts, index, edges, &mut nfaces, current);
        }
        current += 1;
    }
    triangles_from_faces(ctx, &edges.list, nfaces as usize, tris);
}

/// Collects the faces recorded on `edges` into triangles, dropping faces that did not get
/// three corners.
fn triangles_from_faces(
    ctx: &mut BuildContext,
    edges: &[DelaunayEdge],
    nfaces: usize,
    tris: &mut Vec<[usize; 4]>,
) {
    tris.clear();
    tris.resize(nfaces, [NO_VERTEX; 4]);
    for e in edges {
        if e.right >= 0 {
            let t = &mut tris[e.right as usize];
            if t[0] == NO_VERTEX {
                t[0] = e.s;
                t[1] = e.t;
            } else if t[0] == e.t {
                t[2] = e.s;
            } else if t[1] == e.s {
                t[2] = e.t;
            }
        }
        if e.left >= 0 {
            let t = &mut tris[e.left as usize];
            if t[0] == NO_VERTEX {
                t[0] = e.t;
                t[1] = e.s;
            } else if t[0] == e.s {
                t[2] = e.t;
            } else if t[1] == e.t {
                t[2] = e.s;
            }
        }
    }

    let mut i = 0;
    while i < tris.len() {
        let t = tris[i];
        if t[..3].contains(&NO_VERTEX) {
            ctx.warning(format!(
                "delaunayHull: Removing dangling face {i} [{},{},{}].",
                corner_for_log(t[0]),
                corner_for_log(t[1]),
                corner_for_log(t[2])
            ));
            tris.swap_remove(i);
        } else {
            i += 1;
        }
    }
}

/// Fan-like triangulation of the hull outline: starts at the original-vertex ear with the
/// shortest perimeter, then advances whichever side gives the shorter new triangle.
fn triangulate_hull(verts: &[Vec3], hull: &[usize], nin: usize, tris: &mut Vec<[usize; 4]>) {
    let nhull = hull.len();
    if nhull < 3 {
        return;
    }
    let prev = |i: usize| if i == 0 { nhull - 1 } else { i - 1 };
    let next = |i: usize| if i + 1 < nhull { i + 1 } else { 0 };

    let (mut start, mut left, mut right) = (0, 1, nhull - 1);
    let mut dmin = f32::MAX;
    for (i, &hi) in hull.iter().enumerate() {
        // Only original vertices make ears; the others lie on straight edges.
        if hi >= nin {
            continue;
        }
        let (pi, ni) = (prev(i), next(i));
        let pv = &verts[hull[pi]];
        let cv = &verts[hi];
        let nv = &verts[hull[ni]];
        let d = dist2(pv, cv) + dist2(cv, nv) + dist2(nv, pv);
        if d < dmin {
            start = i;
            left = ni;
            right = pi;
            dmin = d;
        }
    }

    tris.push([hull[start], hull[left], hull[right], 0]);
    while next(left) != right {
        let nleft = next(left);
        let nright = prev(right);
        let cv_left = &verts[hull[left]];
        let nv_left = &verts[hull[nleft]];
        let cv_right = &verts[hull[right]];
        let nv_right = &verts[hull[nright]];
        let d_left = dist2(cv_left, nv_left) + dist2(nv_left, cv_right);
        let d_right = dist2(cv_right, nv_right) + dist2(cv_left, nv_right);
        if d_left < d_right {
            tris.push([hull[left], hull[nleft], hull[right], 0]);
            left = nleft;
        } else {
            tris.push([hull[left], hull[nright], hull[right], 0]);
            right = nright;
        }
    }
}

/// Whether the directed edge `a` → `b` is a hull edge. Hull vertices are exactly the first
/// `hull.len()` vertices, so interior samples are rejected early.
fn on_hull(a: usize, b: usize, hull: &[usize]) -> bool {
    let nhull = hull.len();
    if a >= nhull || b >= nhull {
        return false;
    }
    let mut j = nhull - 1;
    for (i, &hi) in hull.iter().enumerate() {
        if a == hull[j] && b == hi {
            return true;
        }
        j = i;
    }
    false
}

/// Marks each triangle edge that lies on the hull (2 bits per edge in the fourth slot).
fn set_tri_flags(tris: &mut [[usize; 4]], hull: &[usize]) {
    let flag = |a, b| {
        if on_hull(a, b, hull) {
            usize::from(DETAIL_EDGE_BOUNDARY)
        } else {
            0
        }
    };
    for t in tris {
        t[3] = flag(t[0], t[1]) | (flag(t[1], t[2]) << 2) | (flag(t[2], t[0]) << 4);
    }
}

/// A candidate interior sample: its (jittered) position, whether it has been added, and its
/// distance to the current triangulation.
#[derive(Clone, Copy)]
struct Sample {
    pos: Vec3,
    added: bool,
    /// Smallest vertical distance to the triangles the sample lies over, `f32::MAX` if none.
    dist: f32,
    /// Key of a triangle at that distance, [`NO_TRIANGLE`] if none.
    nearest: u32,
}

/// Buffers reused from polygon to polygon.
#[derive(Default)]
struct DetailScratch {
    /// The polygon's vertices (world-relative, in world units).
    poly: Vec<Vec3>,
    /// Detail vertices of the current polygon: its own first, then edge samples, then
    /// interior samples.
    verts: Vec<Vec3>,
    /// Detail triangles: three vertex indices and the edge flags.
    tris: Vec<[usize; 4]>,
    edges: DelaunayEdges,
    /// The detail vertices sorted for the Delaunay point search.
    sorted_verts: PointBins,
    samples: Vec<Sample>,
    /// The current triangulation prepared for sample height tests.
    probes: Vec<TriProbe>,
    /// Indices into `probes` of the triangles that the last re-triangulation created.
    fresh_probes: Vec<usize>,
    /// Keys of the triangles the sample distances were last measured against.
    measured: TriangleKeySet,
    /// Vertex indices of the outline, in order.
    hull: Vec<usize>,
    /// Indices of the kept points along one edge.
    edge_keep: Vec<usize>,
    patch: HeightPatch,
    flood: FloodScratch,
}

/// Sampling settings shared by all polygons.
struct Sampling {
    sample_dist: f32,
    sample_max_error: f32,
    height_search_radius: i32,
    cs: f32,
    ics: f32,
    ch: f32,
}

impl Sampling {
    fn height_at(&self, patch: &HeightPatch, p: &Vec3) -> u16 {
        patch.height_at(
            p[0],
            p[1],
            p[2],
            self.ics,
            self.ch,
            self.height_search_radius,
        )
    }
}

/// Splits each polygon edge into samples that follow the surface height and keeps the ones
/// needed to stay within the error; appends them to the vertices and builds the hull. Edges
/// are walked in a canonical direction so that neighbouring polygons get the same samples.
fn tessellate_outline(s: &mut DetailScratch, sampling: &Sampling) {
    let nin = s.poly.len();
    let max_error_sq = sampling.sample_max_error * sampling.sample_max_error;
    let mut edge_pts = [[0.0f32; 3]; MAX_VERTS_PER_EDGE + 1];
    let mut j = nin - 1;
    for i in 0..nin {
        let (mut a, mut b) = (s.poly[j], s.poly[i]);
        let swapped = if (a[0] - b[0]).abs() < 1e-6 {
            a[2] > b[2]
        } else {
            a[0] > b[0]
        };
        if swapped {
            std::mem::swap(&mut a, &mut b);
        }
        s.hull.push(j);
        j = i;

        let dx = b[0] - a[0];
        let dy = b[1] - a[1];
        let dz = b[2] - a[2];
        let d = (dx * dx + dz * dz).sqrt();
        let mut nn = 1i32.saturating_add((d / sampling.sample_dist).floor() as i32);
        if nn >= MAX_VERTS_PER_EDGE as i32 {
            nn = MAX_VERTS_PER_EDGE as i32 - 1;
        }
        let nverts = s.verts.len() as i32;
        if nverts + nn >= MAX_VERTS as i32 {
            nn = MAX_VERTS as i32 - 1 - nverts;
        }
        if nn <= 0 {
            // No room for points between the ends.
            continue;
        }
        let nn = nn as usize;

        for (k, pos) in edge_pts[..=nn].iter_mut().enumerate() {
            let u = k as f32 / nn as f32;
            *pos = [a[0] + dx * u, a[1] + dy * u, a[2] + dz * u];
            pos[1] = f32::from(sampling.height_at(&s.patch, pos)) * sampling.ch;
        }

        // Douglas-Peucker style: split at the farthest sample until all are within the error.
        s.edge_keep.clear();
        s.edge_keep.extend([0, nn]);
        let mut k = 0;
        while k + 1 < s.edge_keep.len() {
            let (ka, kb) = (s.edge_keep[k], s.edge_keep[k + 1]);
            let mut maxd = 0.0f32;
            let mut maxi = None;
            for m in ka + 1..kb {
                let dev = dist_sq_pt_seg(&edge_pts[m], &edge_pts[ka], &edge_pts[kb]);
                if dev > maxd {
                    maxd = dev;
                    maxi = Some(m);
                }
            }
            match maxi {
                Some(m) if maxd > max_error_sq => s.edge_keep.insert(k + 1, m),
                _ => k += 1,
            }
        }

        let inner = &s.edge_keep[1..s.edge_keep.len() - 1];
        if swapped {
            for &m in inner.iter().rev() {
                s.hull.push(s.verts.len());
                s.verts.push(edge_pts[m]);
            }
        } else {
            for &m in inner {
                s.hull.push(s.verts.len());
                s.verts.push(edge_pts[m]);
            }
        }
    }
}

/// Adds interior samples on a grid, worst-fitting first, re-triangulating after each, until
/// the surface is within the error or the vertex budget is spent.
fn refine_interior(ctx: &mut BuildContext, s: &mut DetailScratch, sampling: &Sampling) {
    let sample_dist = sampling.sample_dist;
    let mut bmin = s.poly[0];
    let mut bmax = s.poly[0];
    for p in &s.poly[1..] {
        for c in 0..3 {
            bmin[c] = min_f(bmin[c], p[c]);
            bmax[c] = max_f(bmax[c], p[c]);
        }
    }
    let x0 = (bmin[0] / sample_dist).floor() as i32;
    let x1 = (bmax[0] / sample_dist).ceil() as i32;
    let z0 = (bmin[2] / sample_dist).floor() as i32;
    let z1 = (bmax[2] / sample_dist).ceil() as i32;
    s.samples.clear();
    for z in z0..z1 {
        for x in x0..x1 {
            let pt = [
                x as f32 * sample_dist,
                (bmax[1] + bmin[1]) * 0.5,
                z as f32 * sample_dist,
            ];
            // Keep samples away from the edges.
            if signed_dist_sq_to_poly(&s.poly, &pt) > -sample_dist / 2.0 {
                continue;
            }
            let i = s.samples.len();
            let y = sampling.height_at(&s.patch, &pt);
            // Jitter breaks up bad triangulations caused by the grid's symmetry.
            s.samples.push(Sample {
                pos: [
                    x as f32 * sample_dist + jitter_x(i) * sampling.cs * 0.1,
                    f32::from(y) * sampling.ch,
                    z as f32 * sample_dist + jitter_z(i) * sampling.cs * 0.1,
                ],
                added: false,
                dist: f32::MAX,
                nearest: NO_TRIANGLE,
            });
        }
    }

    s.measured.clear();
    for _ in 0..s.samples.len() {
        if s.verts.len() >= MAX_VERTS || s.tris.is_empty() {
            break;
        }
        measure_samples(s);
        let mut best_d = 0.0f32;
        let mut best = None;
        for (i, sample) in s.samples.iter().enumerate() {
            if !sample.added && sample.dist != f32::MAX && sample.dist > best_d {
                best_d = sample.dist;
                best = Some(i);
            }
        }
        let Some(best) = best else {
            break;
        };
        if best_d <= sampling.sample_max_error {
            break;
        }
        s.samples[best].added = true;
        s.verts.push(s.samples[best].pos);
        delaunay_hull(
            ctx,
            &s.verts,
            &s.hull,
            &mut s.tris,
            &mut s.edges,
            &mut s.sorted_verts,
        );
    }
}

/// Brings each pending sample's distance to the triangulation up to date. A triangle that
/// survived re-triangulation (same corners in the same order) gives the same distance as
/// before, so a sample whose nearest triangle survived only needs the new triangles; the
/// others are measured against all of them.
fn measure_samples(s: &mut DetailScratch) {
    s.probes.clear();
    s.fresh_probes.clear();
    for t in &s.tris {
        let probe = TriProbe::new(&s.verts, t);
        if !s.measured.contains(probe.key) {
            s.fresh_probes.push(s.probes.len());
        }
        s.probes.push(probe);
    }
    s.measured.clear();
    for probe in &s.probes {
        s.measured.insert(probe.key);
    }

    for sample in s.samples.iter_mut().filter(|sample| !sample.added) {
        let nearest_survived = sample.nearest == NO_TRIANGLE || s.measured.contains(sample.nearest);
        if !nearest_survived {
            sample.dist = f32::MAX;
            sample.nearest = NO_TRIANGLE;
        }
        let mut measure = |probe: &TriProbe| {
            let d = probe.vertical_distance(&sample.pos);
            if d < sample.dist {
                sample.dist = d;
                sample.nearest = probe.key;
            }
        };
        if nearest_survived {
            s.fresh_probes.iter().for_each(|&i| measure(&s.probes[i]));
        } else {
            s.probes.iter().for_each(measure);
        }
    }
}

/// Builds the detail mesh of the polygon in `scratch.poly` into `scratch.verts` and
/// `scratch.tris`.
fn build_poly_detail(ctx: &mut BuildContext, s: &mut DetailScratch, sampling: &Sampling) {
    let nin = s.poly.len();
    s.verts.clear();
    s.verts.extend_from_slice(&s.poly);
    s.tris.clear();
    s.hull.clear();

    let min_extent = poly_min_extent(&s.verts);

    if sampling.sample_dist > 0.0 {
        tessellate_outline(s, sampling);
    } else {
        // Recast leaves the hull empty here and never finishes triangulating (issue #650);
        // the outline is the polygon itself.
        let mut j = nin - 1;
        for i in 0..nin {
            s.hull.push(j);
            j = i;
        }
    }

    // Slivers and small triangles get no interior points.
    if min_extent < sampling.sample_dist * 2.0 {
        triangulate_hull(&s.verts, &s.hull, nin, &mut s.tris);
        set_tri_flags(&mut s.tris, &s.hull);
        return;
    }

    // The hull triangulation handles long thin triangles better than Delaunay when no
    // interior points get added.
    triangulate_hull(&s.verts, &s.hull, nin, &mut s.tris);
    if s.tris.is_empty() {
        ctx.warning(format!(
            "buildPolyDetail: Could not triangulate polygon ({} verts).",
            s.verts.len()
        ));
        return;
    }

    if sampling.sample_dist > 0.0 {
        refine_interior(ctx, s, sampling);
    }

    let ntris = s.tris.len();
    if ntris > MAX_TRIS {
        s.tris.truncate(MAX_TRIS);
        ctx.error(format!(
            "rcBuildPolyMeshDetail: Shrinking triangle count from {ntris} to max {MAX_TRIS}."
        ));
    }
    set_tri_flags(&mut s.tris, &s.hull);
}

fn invalid(message: String) -> Error {
    Error::Stage {
        stage: "rcBuildPolyMeshDetail",
        message,
    }
}

/// Checks that the mesh and heightfield fit each other, so the build can index without
/// bounds failures; returns each polygon's patch bounds (xmin, xmax, zmin, zmax) and the
/// total polygon vertex count.
fn validate_and_bound(mesh: &PolyMesh, chf: &CompactHeightfield) -> Result<(Vec<[i32; 4]>, usize)> {
    let nvp = mesh.nvp;
    if nvp == 0 || nvp > MAX_VERTS {
        return Err(invalid(format!(
            "{nvp} vertices per polygon is outside 1..={MAX_VERTS}."
        )));
    }
    let poly_len = nvp
        .checked_mul(2)
        .and_then(|n| n.checked_mul(mesh.npolys))
        .ok_or_else(|| invalid("polygon array size overflows.".into()))?;
    if mesh.polys.len() < poly_len || mesh.regs.len() < mesh.npolys {
        return Err(invalid(format!(
            "polygon arrays are shorter than {} polygons.",
            mesh.npolys
        )));
    }
    if mesh.verts.len() / 3 < mesh.nverts {
        return Err(invalid(format!(
            "vertex array is shorter than {} vertices.",
            mesh.nverts
        )));
    }
    let cell_count = usize::try_from(chf.width)
        .ok()
        .zip(usize::try_from(chf.height).ok())
        .and_then(|(w, h)| w.checked_mul(h));
    if cell_count != Some(chf.cells.len()) {
        return Err(invalid(format!(
            "compact heightfield has {} cells for {} x {}.",
            chf.cells.len(),
            chf.width,
            chf.height
        )));
    }
    if chf.spans.len() > NO_SEED as usize {
        return Err(invalid(format!(
            "compact heightfield has {} spans, more than 32-bit indices reach.",
            chf.spans.len()
        )));
    }
    let bs = mesh.border_size;
    if bs < 0 {
        return Err(invalid(format!("negative border size {bs}.")));
    }

    let mut bounds = Vec::with_capacity(mesh.npolys);
    let mut total_verts = 0;
    for i in 0..mesh.npolys {
        let (mut xmin, mut xmax, mut zmin, mut zmax) = (chf.width, 0, chf.height, 0);
        let mut npoly = 0;
        for &vi in mesh.poly(i)[..nvp]
            .iter()
            .take_while(|&&v| v != MESH_NULL_IDX)
        {
            if usize::from(vi) >= mesh.nverts {
                return Err(invalid(format!(
                    "polygon {i} uses vertex {vi} of {}.",
                    mesh.nverts
                )));
            }
            let v = &mesh.verts[usize::from(vi) * 3..usize::from(vi) * 3 + 3];
            let (x, z) = (i32::from(v[0]), i32::from(v[2]));
            // Contour vertices are cell corners: the far grid edge (x = width) is legitimate.
            if x + bs > chf.width || z + bs > chf.height {
                return Err(invalid(format!(
                    "polygon {i} vertex ({x}, {z}) lies outside the {} x {} heightfield.",
                    chf.width, chf.height
                )));
            }
            xmin = xmin.min(x);
            xmax = xmax.max(x);
            zmin = zmin.min(z);
            zmax = zmax.max(z);
            npoly += 1;
        }
        if npoly < 3 {
            return Err(invalid(format!("polygon {i} has {npoly} vertices.")));
        }
        total_verts += npoly;
        // As Recast's, but a patch never reaches into the far border (where `+ bs` would leave
        // the grid); that changes nothing for vertices a real border build makes.
        bounds.push([
            (xmin - 1).max(0),
            (xmax + 1).min(chf.width - bs),
            (zmin - 1).max(0),
            (zmax + 1).min(chf.height - bs),
        ]);
    }
    Ok((bounds, total_verts))
}

/// Builds the detail mesh of every polygon of `mesh`, sampling heights from `chf` (Recast's
/// `rcBuildPolyMeshDetail`).
///
/// Polygon edges are sampled every `sample_dist` world units and interior points on a grid of
/// that spacing are added until the mesh is within `sample_max_error` of the surface.
pub fn build_poly_mesh_detail(
    ctx: &mut BuildContext,
    mesh: &PolyMesh,
    chf: &CompactHeightfield,
    sample_dist: f32,
    sample_max_error: f32,
) -> Result<PolyMeshDetail> {
    ctx.start_timer(TimerLabel::BuildPolyMeshDetail);
    let result = build_details(ctx, mesh, chf, sample_dist, sample_max_error);
    ctx.stop_timer(TimerLabel::BuildPolyMeshDetail);
    result
}

/// Polygons per task of the parallel detail build; the result does not depend on it.
const POLYS_PER_TASK: usize = 16;

/// The detail meshes of consecutive polygons, built on one of rayon's threads.
struct DetailPart {
    /// Their log lines.
    ctx: BuildContext,
    /// Per polygon: its vertex and triangle counts.
    counts: Vec<[usize; 2]>,
    verts: Vec<f32>,
    tris: Vec<u8>,
}

/// Builds the polygons' detail meshes in parts of [`POLYS_PER_TASK`] on rayon's threads (each
/// polygon's mesh depends only on the polygon and the heightfield), then joins the parts and
/// their logs in polygon order.
fn build_details(
    ctx: &mut BuildContext,
    mesh: &PolyMesh,
    chf: &CompactHeightfield,
    sample_dist: f32,
    sample_max_error: f32,
) -> Result<PolyMeshDetail> {
    if mesh.nverts == 0 || mesh.npolys == 0 {
        return Ok(PolyMeshDetail::default());
    }
    let (bounds, total_poly_verts) = validate_and_bound(mesh, chf)?;

    let sampling = Sampling {
        sample_dist,
        sample_max_error,
        height_search_radius: 1.max(mesh.max_edge_error.ceil() as i32),
        cs: chf.cs,
        ics: 1.0 / chf.cs,
        ch: chf.ch,
    };
    let (cs, ch) = (mesh.cs, mesh.ch);
    let orig = mesh.bmin;

    let vert_capacity = total_poly_verts + total_poly_verts / 2;
    let mut dmesh = PolyMeshDetail {
        meshes: Vec::with_capacity(mesh.npolys * 4),
        verts: Vec::with_capacity(vert_capacity * 3),
        tris: Vec::with_capacity(vert_capacity * 2 * 4),
    };
    let region_spans = RegionSpans::new(chf);
    let task_ctx = ctx.for_task();
    let build_part = |scratch: &mut DetailScratch, (chunk, bounds): (usize, &[[i32; 4]])| {
        let mut part = DetailPart {
            ctx: task_ctx.clone(),
            counts: Vec::with_capacity(bounds.len()),
            verts: Vec::new(),
            tris: Vec::new(),
        };
        for (k, poly_bounds) in bounds.iter().enumerate() {
            let i = chunk * POLYS_PER_TASK + k;
            let poly = mesh.poly(i);
            let npoly = poly[..mesh.nvp]
                .iter()
                .take_while(|&&v| v != MESH_NULL_IDX)
                .count();
            let poly = &poly[..npoly];

            scratch.poly.clear();
            scratch.poly.extend(poly.iter().map(|&vi| {
                let v = &mesh.verts[usize::from(vi) * 3..usize::from(vi) * 3 + 3];
                [
                    f32::from(v[0]) * cs,
                    f32::from(v[1]) * ch,
                    f32::from(v[2]) * cs,
                ]
            }));

            scratch.patch.reset(poly_bounds, UNSET_HEIGHT);
            gather_heights(
                &mut part.ctx,
                chf,
                region_spans.as_ref(),
                mesh,
                poly,
                mesh.regs[i],
                &mut scratch.patch,
                &mut scratch.flood,
            );

            build_poly_detail(&mut part.ctx, scratch, &sampling);

            part.counts.push([scratch.verts.len(), scratch.tris.len()]);
            // Detail vertices sit one cell height above the voxel floor, in world space.
            let y_offset = orig[1] + chf.ch;
            for v in &scratch.verts {
                part.verts
                    .extend([v[0] + orig[0], v[1] + y_offset, v[2] + orig[2]]);
            }
            // Vertex indices are below MAX_VERTS and flags use 6 bits, so bytes hold them.
            for t in &scratch.tris {
                part.tris
                    .extend([t[0] as u8, t[1] as u8, t[2] as u8, t[3] as u8]);
            }
        }
        part
    };
    // Polygons in chunks on rayon's threads, each thread with its own scratch, for a large
    // grid; in order on this thread otherwise.
    let parts: Vec<DetailPart> = if Split::for_cells(chf.cells.len()).is_parallel() {
        bounds
            .par_chunks(POLYS_PER_TASK)
            .enumerate()
            .map_init(DetailScratch::default, build_part)
            .collect()
    } else {
        let mut scratch = DetailScratch::default();
        bounds
            .chunks(POLYS_PER_TASK)
            .enumerate()
            .map(|item| build_part(&mut scratch, item))
            .collect()
    };

    let to_u32 =
        |n: usize| u32::try_from(n).map_err(|_| invalid(format!("detail mesh too large ({n}).")));
    for part in parts {
        ctx.absorb(part.ctx);
        let (mut vert_base, mut tri_base) = (dmesh.nverts(), dmesh.ntris());
        for [nverts, ntris] in part.counts {
            dmesh.meshes.extend([
                to_u32(vert_base)?,
                to_u32(nverts)?,
                to_u32(tri_base)?,
                to_u32(ntris)?,
            ]);
            vert_base += nverts;
            tri_base += ntris;
        }
        dmesh.verts.extend(part.verts);
        dmesh.tris.extend(part.tris);
    }
    Ok(dmesh)
}

/// Concatenates detail meshes (e.g. of tiles) into one, offsetting their vertex and triangle
/// bases (Recast's `rcMergePolyMeshDetails`).
pub fn merge_poly_mesh_details(
    ctx: &mut BuildContext,
    meshes: &[&PolyMeshDetail],
) -> Result<PolyMeshDetail> {
    ctx.start_timer(TimerLabel::MergePolyMeshDetail);
    let result = merge_details(meshes);
    ctx.stop_timer(TimerLabel::MergePolyMeshDetail);
    result
}

fn merge_details(meshes: &[&PolyMeshDetail]) -> Result<PolyMeshDetail> {
    let mut merged = PolyMeshDetail {
        meshes: Vec::with_capacity(meshes.iter().map(|m| m.meshes.len()).sum()),
        verts: Vec::with_capacity(meshes.iter().map(|m| m.verts.len()).sum()),
        tris: Vec::with_capacity(meshes.iter().map(|m| m.tris.len()).sum()),
    };
    let too_large = || Error::Stage {
        stage: "rcMergePolyMeshDetails",
        message: "merged detail mesh is too large.".into(),
    };
    for dm in meshes {
        let vert_base = u32::try_from(merged.nverts()).map_err(|_| too_large())?;
        let tri_base = u32::try_from(merged.ntris()).map_err(|_| too_large())?;
        for sub in dm.meshes.chunks_exact(4) {
            merged.meshes.extend([
                vert_base.checked_add(sub[0]).ok_or_else(too_large)?,
                sub[1],
                tri_base.checked_add(sub[2]).ok_or_else(too_large)?,
                sub[3],
            ]);
        }
        merged.verts.extend_from_slice(&dm.verts[..dm.nverts() * 3]);
        merged.tris.extend_from_slice(&dm.tris[..dm.ntris() * 4]);
    }
    Ok(merged)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recast::compact::{CompactCell, CompactSpan};

    /// A flat `size` × `size` floor at height `y`, every span in region 1.
    fn flat_floor(size: i32, y: u16) -> CompactHeightfield {
        let mut spans = Vec::new();
        let mut cells = Vec::new();
        for z in 0..size {
            for x in 0..size {
                let mut span = CompactSpan {
                    y,
                    reg: 1,
                    con: 0,
                    h: 20,
                };
                for dir in 0..4 {
                    let (nx, nz) = (x + dir_offset_x(dir), z + dir_offset_z(dir));
                    let inside = nx >= 0 && nz >= 0 && nx < size && nz < size;
                    span.set_con(dir, if inside { 0 } else { NOT_CONNECTED });
                }
                cells.push(CompactCell {
                    index: spans.len() as u32,
                    count: 1,
                });
                spans.push(span);
            }
        }
        CompactHeightfield {
            width: size,
            height: size,
            cs: 0.5,
            ch: 0.25,
            areas: vec![crate::recast::WALKABLE_AREA; spans.len()],
            cells,
            spans,
            ..Default::default()
        }
    }

    /// `floors` stacked floors on a `size` × `size` grid, some cells of each missing, each span
    /// in a region drawn from a few (so one column can hold a region twice), linked to the
    /// same floor's span across each side where there is one.
    fn stacked_floors(size: i32, floors: u16, seed: u32) -> CompactHeightfield {
        let mut state = seed;
        let mut next = move |n: u32| {
            state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (state >> 8) % n
        };
        // Per cell, the floors present and their regions.
        let mut layout: Vec<Vec<(u16, u16)>> = Vec::new();
        for _ in 0..size * size {
            let mut column = Vec::new();
            for floor in 0..floors {
                if next(10) < 8 {
                    column.push((floor, 1 + next(u32::from(floors) / 2 + 2) as u16));
                }
            }
            layout.push(column);
        }
        let mut chf = flat_floor(size, 0);
        chf.cells.clear();
        chf.spans.clear();
        for z in 0..size {
            for x in 0..size {
                let column = &layout[(x + z * size) as usize];
                chf.cells.push(CompactCell {
                    index: chf.spans.len() as u32,
                    count: column.len() as u32,
                });
                for &(floor, reg) in column {
                    let mut span = CompactSpan {
                        y: floor * 12,
                        reg,
                        con: 0,
                        h: 10,
                    };
                    for dir in 0..4 {
                        let (nx, nz) = (x + dir_offset_x(dir), z + dir_offset_z(dir));
                        let inside = nx >= 0 && nz >= 0 && nx < size && nz < size;
                        let layer = inside
                            .then(|| {
                                layout[(nx + nz * size) as usize]
                                    .iter()
                                    .position(|&(f, _)| f == floor)
                            })
                            .flatten();
                        span.set_con(dir, layer.map_or(NOT_CONNECTED, |l| l as u32));
                    }
                    chf.spans.push(span);
                }
            }
        }
        chf.areas = vec![crate::recast::WALKABLE_AREA; chf.spans.len()];
        chf
    }

    /// The region index gives the heights and seeds the scan of every column gives, on
    /// stacked floors whose columns hold a region more than once, for patches anywhere.
    #[test]
    fn region_spans_find_what_scanning_each_column_finds() {
        for (seed, floors) in [(1, 6), (2, 9), (3, 41)] {
            let size = 24;
            let chf = stacked_floors(size, floors, seed);
            let index = RegionSpans::new(&chf).expect("stacked floors are indexed");
            let mesh = square(1, 0);
            let mut state = seed;
            let mut next = move |n: i32| {
                state = state.wrapping_mul(22_695_477).wrapping_add(1);
                ((state >> 8) % n as u32) as i32
            };
            for _ in 0..200 {
                let (x0, z0) = (next(size), next(size));
                let bounds = [x0, x0 + 1 + next(size - x0), z0, z0 + 1 + next(size - z0)];
                let region = 1 + next(i32::from(floors) / 2 + 3) as u16;
                let mut gathered = Vec::new();
                for region_spans in [Some(&index), None] {
                    let mut ctx = BuildContext::new();
                    let mut patch = HeightPatch::default();
                    let mut flood = FloodScratch::default();
                    patch.reset(&bounds, UNSET_HEIGHT);
                    let poly = [0, 1, 2, 3];
                    gather_heights(
                        &mut ctx,
                        &chf,
                        region_spans,
                        &mesh,
                        &poly,
                        region,
                        &mut patch,
                        &mut flood,
                    );
                    gathered.push((patch.data, flood.queue));
                }
                assert_eq!(gathered[0], gathered[1], "{bounds:?} region {region}");
            }
        }
        assert!(RegionSpans::new(&flat_floor(12, 8)).is_none());
    }

    /// Up to `floors` spans a column at random heights, each in one of a few regions, each
    /// linked to a random span of each neighbouring column (or not at all): every path a flood
    /// or walk can take, in a small grid.
    fn tangled_floors(size: i32, floors: u16, rng: &mut Lcg) -> CompactHeightfield {
        let mut chf = flat_floor(size, 0);
        chf.spans.clear();
        for cell in &mut chf.cells {
            cell.index = chf.spans.len() as u32;
            cell.count = rng.below(u64::from(floors) + 1) as u32;
            let mut y = 0;
            for _ in 0..cell.count {
                y += 1 + rng.below(12) as u16;
                let reg = 1 + rng.below(u64::from(floors) / 2 + 2) as u16;
                chf.spans.push(CompactSpan {
                    y,
                    reg,
                    con: 0,
                    h: 10,
                });
            }
        }
        for z in 0..size {
            for x in 0..size {
                let c = chf.cells[(x + z * size) as usize];
                for i in c.index..c.index + c.count {
                    for dir in 0..4 {
                        let (nx, nz) = (x + dir_offset_x(dir), z + dir_offset_z(dir));
                        let inside = nx >= 0 && nz >= 0 && nx < size && nz < size;
                        let count = if inside {
                            chf.cells[(nx + nz * size) as usize].count
                        } else {
                            0
                        };
                        let layer = if count > 0 && rng.below(5) > 0 {
                            rng.below(u64::from(count)) as u32
                        } else {
                            NOT_CONNECTED
                        };
                        chf.spans[i as usize].set_con(dir, layer);
                    }
                }
            }
        }
        chf.areas = vec![crate::recast::WALKABLE_AREA; chf.spans.len()];
        chf
    }

    /// Recast's height gathering as written: the region's spans on its edge seed the flood,
    /// or, when the region gives no heights, a walk to the polygon's centre does. Returns the
    /// patch's heights, row by row.
    fn heights_as_recast(
        chf: &CompactHeightfield,
        mesh: &PolyMesh,
        poly: &[u16],
        region: u16,
        bounds: &[i32; 4],
    ) -> Vec<u16> {
        let (xmin, zmin) = (bounds[0], bounds[2]);
        let (w, h) = (bounds[1] - xmin, bounds[3] - zmin);
        let bs = mesh.border_size;
        let cell = |x: i32, z: i32| chf.cells[(x + bs + (z + bs) * chf.width) as usize];
        let patch_index = |x: i32, z: i32| {
            let (hx, hz) = (x - xmin, z - zmin);
            (hx >= 0 && hz >= 0 && hx < w && hz < h).then_some((hx + hz * w) as usize)
        };
        let neighbour = |x: i32, z: i32, dir: usize| (x + dir_offset_x(dir), z + dir_offset_z(dir));
        let mut data = vec![UNSET_HEIGHT; (w * h) as usize];
        let mut queue = Vec::new();
        let mut empty = true;
        if region != MULTIPLE_REGS {
            for z in zmin..zmin + h {
                for x in xmin..xmin + w {
                    let c = cell(x, z);
                    let column = c.index as usize..(c.index + c.count) as usize;
                    let Some(i) = column.into_iter().find(|&i| chf.spans[i].reg == region) else {
                        continue;
                    };
                    let span = chf.spans[i];
                    data[patch_index(x, z).unwrap()] = span.y;
                    empty = false;
                    let on_edge = (0..4).any(|dir| {
                        let (ax, az) = neighbour(x, z, dir);
                        span.con(dir) != NOT_CONNECTED
                            && chf.spans[(cell(ax, az).index + span.con(dir)) as usize].reg
                                != region
                    });
                    if on_edge {
                        queue.push((x, z, i));
                    }
                }
            }
        }
        if empty {
            const AROUND: [(i32, i32); 9] = [
                (0, 0),
                (-1, -1),
                (0, -1),
                (1, -1),
                (1, 0),
                (1, 1),
                (0, 1),
                (-1, 1),
                (-1, 0),
            ];
            let vert = |v: u16| &mesh.verts[usize::from(v) * 3..usize::from(v) * 3 + 3];
            let mut start = None;
            let mut dmin = i32::from(UNSET_HEIGHT);
            for &v in poly {
                let v = vert(v);
                for (ox, oz) in AROUND {
                    let (ax, az) = (i32::from(v[0]) + ox, i32::from(v[2]) + oz);
                    if patch_index(ax, az).is_none() {
                        continue;
                    }
                    let c = cell(ax, az);
                    for i in c.index as usize..(c.index + c.count) as usize {
                        let d = (i32::from(v[1]) - i32::from(chf.spans[i].y)).abs();
                        if d < dmin {
                            start = Some((ax, az, i));
                            dmin = d;
                        }
                    }
                }
            }
            let Some(start) = start else {
                return data;
            };
            let n = poly.len() as i32;
            let pcx = poly.iter().map(|&v| i32::from(vert(v)[0])).sum::<i32>() / n;
            let pcz = poly.iter().map(|&v| i32::from(vert(v)[2])).sum::<i32>() / n;
            let mut visited = vec![false; data.len()];
            let mut stack = vec![start];
            let mut reached = start;
            while let Some(top) = stack.pop() {
                reached = top;
                let (cx, cz, ci) = top;
                if (cx, cz) == (pcx, pcz) {
                    break;
                }
                let direct = if cx == pcx {
                    dir_for_offset(0, if pcz > cz { 1 } else { -1 })
                } else {
                    dir_for_offset(if pcx > cx { 1 } else { -1 }, 0)
                };
                let mut dirs = [0, 1, 2, 3];
                dirs.swap(direct, 3);
                for dir in dirs {
                    let con = chf.spans[ci].con(dir);
                    let (nx, nz) = neighbour(cx, cz, dir);
                    let Some(idx) = patch_index(nx, nz) else {
                        continue;
                    };
                    if con == NOT_CONNECTED || visited[idx] {
                        continue;
                    }
                    visited[idx] = true;
                    stack.push((nx, nz, (cell(nx, nz).index + con) as usize));
                }
            }
            let (cx, cz, ci) = reached;
            data[patch_index(cx, cz).unwrap()] = chf.spans[ci].y;
            queue = vec![reached];
        }
        let mut head = 0;
        while head < queue.len() {
            let (cx, cz, ci) = queue[head];
            head += 1;
            for dir in 0..4 {
                let con = chf.spans[ci].con(dir);
                let (ax, az) = neighbour(cx, cz, dir);
                let Some(idx) = patch_index(ax, az) else {
                    continue;
                };
                if con == NOT_CONNECTED || data[idx] != UNSET_HEIGHT {
                    continue;
                }
                let ai = (cell(ax, az).index + con) as usize;
                data[idx] = chf.spans[ai].y;
                queue.push((ax, az, ai));
            }
        }
        data
    }

    /// The gathered heights equal Recast's as written, on single and stacked floors, for
    /// polygons anywhere, for regions present and absent (the walk to the centre), and with
    /// spans at the height that marks a cell unset (where seeding every region span would
    /// fill cells out of Recast's order).
    #[test]
    fn gathered_heights_match_recasts() {
        let mut rng = Lcg(11);
        for case in 0..2000 {
            let size = 20;
            let floors = [2, 3, 7][case % 3];
            let mut chf = match case % 6 {
                0 => flat_floor(size, 8),
                1 => stacked_floors(size, floors, case as u32),
                _ => tangled_floors(size, floors, &mut rng),
            };
            if case % 4 == 0 {
                // Unset heights, never in neighbouring cells (whose links could then pass
                // a cell back and forth for ever, in Recast too).
                for z in (0..size).step_by(2) {
                    for x in (0..size).step_by(2) {
                        let c = chf.cells[(x + z * size) as usize];
                        if c.count > 0 && rng.below(4) > 0 {
                            let layer = rng.below(u64::from(c.count)) as u32;
                            chf.spans[(c.index + layer) as usize].y = UNSET_HEIGHT;
                        }
                    }
                }
            }
            let index = RegionSpans::new(&chf);
            let mut mesh = square(1, 0);
            for v in mesh.verts.chunks_mut(3) {
                v[0] = rng.below(size as u64) as u16;
                v[1] = rng.below(u64::from(floors) * 12 + 1) as u16;
                v[2] = rng.below(size as u64) as u16;
            }
            let (x0, z0) = (
                rng.below(size as u64 - 1) as i32,
                rng.below(size as u64 - 1) as i32,
            );
            let bounds = [
                x0,
                x0 + 1 + rng.below((size - x0) as u64) as i32,
                z0,
                z0 + 1 + rng.below((size - z0) as u64) as i32,
            ];
            let region = match case % 5 {
                0 => MULTIPLE_REGS,
                1 => 40,
                _ => 1 + rng.below(u64::from(floors) / 2 + 2) as u16,
            };
            let poly = [0, 1, 2, 3];
            let expected = heights_as_recast(&chf, &mesh, &poly, region, &bounds);
            for region_spans in [None, index.as_ref()] {
                let mut ctx = BuildContext::new();
                let mut patch = HeightPatch::default();
                let mut flood = FloodScratch::default();
                patch.reset(&bounds, UNSET_HEIGHT);
                gather_heights(
                    &mut ctx,
                    &chf,
                    region_spans,
                    &mesh,
                    &poly,
                    region,
                    &mut patch,
                    &mut flood,
                );
                let stride = patch.stride();
                let gathered: Vec<u16> = patch
                    .data
                    .chunks_exact(stride)
                    .skip(1)
                    .take(patch.height as usize)
                    .flat_map(|row| row[1..stride - 1].iter().copied())
                    .collect();
                assert_eq!(
                    gathered, expected,
                    "case {case} bounds {bounds:?} region {region}"
                );
            }
        }
    }

    /// One square polygon covering cells 1..=9 of a flat floor.
    fn square(region: u16, y: u16) -> PolyMesh {
        let nvp = 6;
        let mut polys = vec![MESH_NULL_IDX; 2 * nvp];
        polys[..4].copy_from_slice(&[0, 1, 2, 3]);
        PolyMesh {
            verts: vec![1, y, 1, 1, y, 9, 9, y, 9, 9, y, 1],
            polys,
            regs: vec![region],
            flags: vec![0],
            areas: vec![crate::recast::WALKABLE_AREA],
            nverts: 4,
            npolys: 1,
            maxpolys: 1,
            nvp,
            cs: 0.5,
            ch: 0.25,
            max_edge_error: 1.3,
            ..Default::default()
        }
    }

    fn assert_flat(dmesh: &PolyMeshDetail, y: f32) {
        assert_eq!(dmesh.nmeshes(), 1);
        assert!(dmesh.ntris() >= 2);
        assert!(dmesh.verts.chunks(3).all(|v| v[1] == y));
        assert!(
            dmesh
                .tris
                .chunks(4)
                .all(|t| t[..3].iter().all(|&i| usize::from(i) < dmesh.nverts()))
        );
    }

    #[test]
    fn flat_square_follows_the_floor_from_region_and_from_centre_seed() {
        let chf = flat_floor(12, 8);
        for region in [1, MULTIPLE_REGS] {
            let mut ctx = BuildContext::new();
            let dmesh =
                build_poly_mesh_detail(&mut ctx, &square(region, 8), &chf, 1.0, 0.1).unwrap();
            // Heights are voxel floor + one cell height.
            assert_flat(&dmesh, 8.0 * 0.25 + 0.25);
            assert!(ctx.entries().is_empty(), "{:?}", ctx.entries());
        }
    }

    #[test]
    fn zero_sample_distance_triangulates_the_polygon_itself() {
        let chf = flat_floor(12, 8);
        let mut ctx = BuildContext::new();
        let dmesh = build_poly_mesh_detail(&mut ctx, &square(1, 8), &chf, 0.0, 0.1).unwrap();
        assert_eq!(dmesh.nverts(), 4);
        assert_eq!(dmesh.ntris(), 2);
        // Every outline edge is flagged as boundary, the diagonal is not.
        let boundary_edges: u32 = dmesh
            .tris
            .chunks(4)
            .map(|t| (t[3] & 0x15).count_ones())
            .sum();
        assert_eq!(boundary_edges, 4);
    }

    #[test]
    fn inconsistent_input_is_an_error_not_a_panic() {
        let chf = flat_floor(12, 8);
        let mut ctx = BuildContext::new();
        let mut bad_index = square(1, 8);
        bad_index.polys[2] = 7;
        assert!(build_poly_mesh_detail(&mut ctx, &bad_index, &chf, 1.0, 0.1).is_err());
        let mut outside = square(1, 8);
        outside.verts[6] = 40;
        assert!(build_poly_mesh_detail(&mut ctx, &outside, &chf, 1.0, 0.1).is_err());
        let mut degenerate = square(1, 8);
        degenerate.polys[2] = MESH_NULL_IDX;
        assert!(build_poly_mesh_detail(&mut ctx, &degenerate, &chf, 1.0, 0.1).is_err());
        let empty = PolyMesh::default();
        let dmesh = build_poly_mesh_detail(&mut ctx, &empty, &chf, 1.0, 0.1).unwrap();
        assert_eq!(dmesh, PolyMeshDetail::default());
    }

    /// Recast's triangulation as written: each facet tries every point in turn, edges are
    /// found by scanning the edge list.
    fn delaunay_by_scanning(
        ctx: &mut BuildContext,
        pts: &[Vec3],
        hull: &[usize],
    ) -> Vec<[usize; 4]> {
        const EPS: f32 = 1e-5;
        const TOL: f32 = 0.001;
        let max_edges = pts.len() * 10;
        let find = |edges: &[DelaunayEdge], s: usize, t: usize| {
            edges
                .iter()
                .position(|e| (e.s == s && e.t == t) || (e.s == t && e.t == s))
        };
        let add = |ctx: &mut BuildContext, edges: &mut Vec<DelaunayEdge>, s, t, left| {
            if edges.len() >= max_edges {
                ctx.error(format!(
                    "addEdge: Too many edges ({}/{max_edges}).",
                    edges.len()
                ));
            } else if find(edges, s, t).is_none() {
                edges.push(DelaunayEdge {
                    s,
                    t,
                    left,
                    right: FACE_UNDEF,
                });
            }
        };
        let mut edges = Vec::new();
        let mut j = hull.len().wrapping_sub(1);
        for (i, &hi) in hull.iter().enumerate() {
            add(ctx, &mut edges, hull[j], hi, FACE_HULL);
            j = i;
        }
        let mut nfaces = 0;
        let mut current = 0;
        while current < edges.len() {
            for _side in 0..2 {
                let edge = edges[current];
                let (s, t) = if edge.left == FACE_UNDEF {
                    (edge.s, edge.t)
                } else if edge.right == FACE_UNDEF {
                    (edge.t, edge.s)
                } else {
                    continue;
                };
                let mut pt = pts.len();
                let (mut centre, mut radius) = ([0.0f32; 3], -1.0f32);
                for u in 0..pts.len() {
                    let left_of_edge = cross2(&pts[s], &pts[t], &pts[u]) > EPS;
                    if u == s || u == t || !left_of_edge {
                        continue;
                    }
                    if radius >= 0.0 || radius.is_nan() {
                        let d = dist2(&centre, &pts[u]);
                        let safely_inside = d < radius * (1.0 - TOL);
                        if d > radius * (1.0 + TOL)
                            || (!safely_inside
                                && (crosses_edges(pts, &edges, s, u)
                                    || crosses_edges(pts, &edges, t, u)))
                        {
                            continue;
                        }
                    }
                    pt = u;
                    (centre, radius) = circumcircle(&pts[s], &pts[t], &pts[u]);
                }
                if pt == pts.len() {
                    update_left_face(&mut edges[current], s, t, FACE_HULL);
                    continue;
                }
                update_left_face(&mut edges[current], s, t, nfaces);
                for (a, b) in [(pt, s), (t, pt)] {
                    match find(&edges, a, b) {
                        Some(i) => update_left_face(&mut edges[i], a, b, nfaces),
                        None => add(ctx, &mut edges, a, b, nfaces),
                    }
                }
                nfaces += 1;
            }
            current += 1;
        }
        let mut tris = Vec::new();
        triangles_from_faces(ctx, &edges, nfaces as usize, &mut tris);
        tris
    }

    /// A tiny deterministic generator, so the comparison needs no extra crate.
    struct Lcg(u64);

    impl Lcg {
        fn below(&mut self, n: u64) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (self.0 >> 33) % n
        }
    }

    #[test]
    fn delaunay_matches_recasts_full_scan() {
        let mut rng = Lcg(7);
        let (mut edges, mut bins, mut tris) =
            (DelaunayEdges::default(), PointBins::default(), Vec::new());
        for case in 0..3000 {
            // Coarse grids make many collinear and cocircular points, the cases where the
            // order points are tried in decides the result.
            let npts = 3 + rng.below(MAX_VERTS as u64 - 2) as usize;
            let grid = 2 + rng.below(12);
            let scale = [0.3f32, 1.0, 0.05, 7.5][case % 4];
            let offset = [0.0f32, 1000.0, -53.7][case % 3];
            let mut pts: Vec<Vec3> = (0..npts)
                .map(|_| {
                    let jitter = if case % 5 == 0 {
                        rng.below(1000) as f32 * 1e-4
                    } else {
                        0.0
                    };
                    [
                        offset + (rng.below(grid) as f32 + jitter) * scale,
                        rng.below(10) as f32,
                        offset + rng.below(grid) as f32 * scale,
                    ]
                })
                .collect();
            if case % 97 == 0 {
                pts[npts / 2][0] = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY][case % 3];
            }
            // A convex outline first, as the detail mesh has; sometimes any outline at all.
            let hull: Vec<usize> = if case % 7 == 0 {
                (0..1 + rng.below(npts as u64) as usize).collect()
            } else {
                let corners = npts.min(4);
                let side = grid as f32 * scale;
                let square = [[0.0, 0.0], [0.0, side], [side, side], [side, 0.0]];
                for (p, [x, z]) in pts.iter_mut().zip(square) {
                    (p[0], p[2]) = (offset + x, offset + z);
                }
                (0..corners).collect()
            };
            let mut expected_ctx = BuildContext::new();
            let expected = delaunay_by_scanning(&mut expected_ctx, &pts, &hull);
            let mut ctx = BuildContext::new();
            delaunay_hull(&mut ctx, &pts, &hull, &mut tris, &mut edges, &mut bins);
            assert_eq!(tris, expected, "case {case} hull {hull:?} pts {pts:?}");
            assert_eq!(ctx.entries(), expected_ctx.entries(), "case {case}");
        }
    }

    #[test]
    fn jitter_stays_in_unit_range() {
        for i in 0..1000 {
            assert!((-1.0..=1.0).contains(&jitter_x(i)));
            assert!((-1.0..=1.0).contains(&jitter_z(i)));
        }
    }
}
