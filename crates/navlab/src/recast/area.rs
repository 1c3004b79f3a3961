//! Area ids on the compact heightfield (Recast's `RecastArea.cpp`): eroding the walkable area by
//! the agent radius, smoothing area ids, and painting boxes, convex volumes and cylinders.

use std::ops::Range;

use crate::math::{fmax, fmin};
use crate::memory::try_filled;
use crate::recast::NULL_AREA;
use crate::recast::compact::{
    CellRows, CompactCell, CompactHeightfield, CompactSpan, NOT_CONNECTED,
};
use crate::recast::context::{BuildContext, TimerLabel};
use crate::recast::{Error, Result};

/// Fails unless `chf` has one area id per span.
fn check_areas(
    ctx: &mut BuildContext,
    stage: &'static str,
    chf: &CompactHeightfield,
) -> Result<()> {
    if chf.areas.len() == chf.spans.len() {
        return Ok(());
    }
    let message = format!(
        "{} area ids for {} spans.",
        chf.areas.len(),
        chf.spans.len()
    );
    ctx.error(format!("{stage}: {message}"));
    Err(Error::Stage { stage, message })
}

/// Neighbour lookups by column index (`x + z * width`), for the per-span loops.
struct Links<'a> {
    cells: &'a [CompactCell],
    spans: &'a [CompactSpan],
    /// Column index offset of the neighbour in each direction.
    steps: [isize; 4],
}

impl<'a> Links<'a> {
    fn new(chf: &'a CompactHeightfield) -> Self {
        let width = chf.width as isize;
        Self {
            cells: &chf.cells,
            spans: &chf.spans,
            steps: [-1, width, 1, -width],
        }
    }

    /// The spans of a column.
    #[inline]
    fn column_spans(&self, column: usize) -> Range<usize> {
        let cell = self.cells[column];
        cell.index as usize..(cell.index + cell.count) as usize
    }

    /// The column and span index of span `i`'s neighbour in direction `dir`, if connected.
    #[inline]
    fn neighbour(&self, column: usize, i: usize, dir: usize) -> Option<(usize, usize)> {
        let con = self.spans[i].con(dir);
        if con == NOT_CONNECTED {
            return None;
        }
        let neighbour_column = column.wrapping_add_signed(self.steps[dir]);
        Some((
            neighbour_column,
            self.cells[neighbour_column].index as usize + con as usize,
        ))
    }
}

/// Removes walkability from every span closer than `radius` cells to the edge of the walkable
/// area, so that agents of that radius keep clear of walls and ledges (Recast's
/// `rcErodeWalkableArea`).
///
/// Distances are chamfer distances (2 per straight step, 3 per diagonal) from a two-pass sweep.
/// Only whether a distance is below the threshold matters, and a span can only get below it
/// within a few cells of the boundary, so the sweeps visit only the columns near it; elsewhere
/// the distance stays at its start value, which is past the threshold like the distance the
/// full sweep would find there.
pub fn erode_walkable_area(
    ctx: &mut BuildContext,
    radius: i32,
    chf: &mut CompactHeightfield,
) -> Result<()> {
    check_areas(ctx, "rcErodeWalkableArea", chf)?;
    let mut dist = try_filled(chf.spans.len(), u8::MAX, || {
        chf.describe("erosion distances")
    })?;
    ctx.start_timer(TimerLabel::ErodeArea);
    // Recast keeps the threshold in a byte.
    let min_boundary_distance = radius.wrapping_mul(2) as u8;
    let links = Links::new(chf);
    let areas = &chf.areas;
    let (width, height) = (chf.width.max(0) as usize, chf.height.max(0) as usize);

    // Spans that are not walkable, or miss a walkable neighbour on any side, are the boundary.
    let mut near_boundary = ColumnSet::new(width, height);
    let spans = &chf.spans[..];
    for z in 0..height {
        // A grid edge's row stands in for the missing neighbour row (none of its spans links
        // there).
        let CellRows { before, row, after } = chf.cell_rows(z);
        let (before, after) = (before.unwrap_or(row), after.unwrap_or(row));
        for (x, cell) in row.iter().enumerate() {
            // A link off the grid's side (only in a malformed heightfield) leads nowhere.
            let left = x.checked_sub(1).and_then(|left| row.get(left));
            let (right, up, down) = (row.get(x + 1), after.get(x), before.get(x));
            let column = cell.index as usize..(cell.index + cell.count) as usize;
            for i in column {
                let span = spans[i];
                let walkable = |dir: usize, neighbour: Option<&CompactCell>| {
                    let con = span.con(dir);
                    con != NOT_CONNECTED
                        && neighbour.is_some_and(|n| areas[(n.index + con) as usize] != NULL_AREA)
                };
                let interior = areas[i] != NULL_AREA
                    && walkable(0, left)
                    && walkable(1, up)
                    && walkable(2, right)
                    && walkable(3, down);
                if !interior {
                    dist[i] = 0;
                    near_boundary.insert(x, z);
                }
            }
        }
    }
    // Each step costs at least 2 and moves at most one cell (diagonals too), so a distance
    // below the threshold is at most this many cells from a boundary span.
    let reach = usize::from(min_boundary_distance.saturating_sub(1) / 2);
    let near_boundary = near_boundary.grown(reach);

    // Each straight step (cost 2) also looks one turn further for the diagonal (cost 3). The
    // forward pass comes from -x and -z, the backward pass from +x and +z.
    let relax = |dist: &[u8], column: usize, i: usize, straight: usize, diagonal: usize, d: u8| {
        let Some((a_column, a)) = links.neighbour(column, i, straight) else {
            return d;
        };
        let d = d.min(dist[a].saturating_add(2));
        match links.neighbour(a_column, a, diagonal) {
            Some((_, b)) => d.min(dist[b].saturating_add(3)),
            None => d,
        }
    };
    // Boundary spans stay at zero, so they are skipped.
    for column in near_boundary.columns() {
        for i in links.column_spans(column) {
            if dist[i] != 0 {
                let d = relax(&dist, column, i, 0, 3, dist[i]);
                dist[i] = relax(&dist, column, i, 3, 2, d);
            }
        }
    }
    for column in near_boundary.columns().rev() {
        for i in links.column_spans(column) {
            if dist[i] != 0 {
                let d = relax(&dist, column, i, 2, 1, dist[i]);
                dist[i] = relax(&dist, column, i, 1, 0, d);
            }
        }
    }

    // A select rather than a conditional store, so that the loop vectorises.
    for (area, &d) in chf.areas.iter_mut().zip(&dist) {
        *area = if d < min_boundary_distance {
            NULL_AREA
        } else {
            *area
        };
    }
    ctx.stop_timer(TimerLabel::ErodeArea);
    Ok(())
}

/// A set of grid columns, one bit per column, row by row.
struct ColumnSet {
    width: usize,
    words_per_row: usize,
    words: Vec<u64>,
}

impl ColumnSet {
    fn new(width: usize, height: usize) -> Self {
        let words_per_row = width.div_ceil(64);
        Self {
            width,
            words_per_row,
            words: vec![0; words_per_row * height],
        }
    }

    fn insert(&mut self, x: usize, z: usize) {
        self.words[z * self.words_per_row + x / 64] |= 1 << (x % 64);
    }

    /// The set grown by `reach` cells in x and z (a square around every column).
    fn grown(mut self, reach: usize) -> Self {
        // Bits past the row end must stay clear.
        let last_word_mask = match self.width % 64 {
            0 => u64::MAX,
            bits => (1 << bits) - 1,
        };
        let per_row = self.words_per_row;
        for _ in 0..reach {
            let mut changed = false;
            // One cell along x, word by word with the bits carried across words.
            for row in self.words.chunks_exact_mut(per_row.max(1)) {
                let mut carry_in = 0;
                for j in 0..row.len() {
                    let word = row[j];
                    let next = row.get(j + 1).copied().unwrap_or(0);
                    let mut grown = word | word << 1 | word >> 1 | carry_in | next << 63;
                    if j + 1 == row.len() {
                        grown &= last_word_mask;
                    }
                    carry_in = word >> 63;
                    changed |= grown != word;
                    row[j] = grown;
                }
            }
            // One cell along z.
            let before = self.words.clone();
            for (k, word) in self.words.iter_mut().enumerate() {
                let above = before.get(k + per_row).copied().unwrap_or(0);
                let below = k.checked_sub(per_row).map_or(0, |k| before[k]);
                let grown = *word | above | below;
                changed |= grown != *word;
                *word = grown;
            }
            if !changed {
                break;
            }
        }
        self
    }

    /// The column indices (`x + z * width`) in the set, in increasing order.
    fn columns(&self) -> impl DoubleEndedIterator<Item = usize> + '_ {
        let per_row = self.words_per_row.max(1);
        self.words.iter().enumerate().flat_map(move |(k, &word)| {
            let (z, j) = (k / per_row, k % per_row);
            let base = z * self.width + j * 64;
            SetBits(word).map(move |bit| base + bit)
        })
    }
}

/// The set bits of a word, lowest first (or highest first from the back).
struct SetBits(u64);

impl Iterator for SetBits {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        if self.0 == 0 {
            return None;
        }
        let bit = self.0.trailing_zeros() as usize;
        self.0 &= self.0 - 1;
        Some(bit)
    }
}

impl DoubleEndedIterator for SetBits {
    fn next_back(&mut self) -> Option<usize> {
        if self.0 == 0 {
            return None;
        }
        let bit = 63 - self.0.leading_zeros() as usize;
        self.0 &= !(1 << bit);
        Some(bit)
    }
}

/// Replaces each walkable span's area id by the median of its 3×3 neighbourhood, ignoring
/// unwalkable neighbours, to remove speckles of painted areas (Recast's
/// `rcMedianFilterWalkableArea`).
pub fn median_filter_walkable_area(
    ctx: &mut BuildContext,
    chf: &mut CompactHeightfield,
) -> Result<()> {
    check_areas(ctx, "rcMedianFilterWalkableArea", chf)?;
    let mut filtered = try_filled(chf.spans.len(), u8::MAX, || chf.describe("median areas"))?;
    ctx.start_timer(TimerLabel::MedianArea);
    let links = Links::new(chf);
    let areas = &chf.areas;
    for column in 0..chf.cells.len() {
        for i in links.column_spans(column) {
            let own = areas[i];
            if own == NULL_AREA {
                filtered[i] = own;
                continue;
            }
            let mut neighbourhood = [own; 9];
            for dir in 0..4 {
                let Some((a_column, a)) = links.neighbour(column, i, dir) else {
                    continue;
                };
                if areas[a] != NULL_AREA {
                    neighbourhood[dir * 2] = areas[a];
                }
                let turned = (dir + 1) & 3;
                if let Some((_, b)) = links.neighbour(a_column, a, turned)
                    && areas[b] != NULL_AREA
                {
                    neighbourhood[dir * 2 + 1] = areas[b];
                }
            }
            neighbourhood.sort_unstable();
            filtered[i] = neighbourhood[4];
        }
    }
    chf.areas = filtered;
    ctx.stop_timer(TimerLabel::MedianArea);
    Ok(())
}

/// The grid cells `min..=max` covered by a world-space box, clamped to the grid.
struct Footprint {
    min_x: i32,
    max_x: i32,
    min_z: i32,
    max_z: i32,
}

impl Footprint {
    /// The footprint of the world box `bmin..bmax` (with Recast's truncating division), or
    /// `None` when the box misses the grid.
    fn of_box(chf: &CompactHeightfield, bmin: &[f32; 3], bmax: &[f32; 3]) -> Option<Self> {
        let min_x = ((bmin[0] - chf.bmin[0]) / chf.cs) as i32;
        let min_z = ((bmin[2] - chf.bmin[2]) / chf.cs) as i32;
        let max_x = ((bmax[0] - chf.bmin[0]) / chf.cs) as i32;
        let max_z = ((bmax[2] - chf.bmin[2]) / chf.cs) as i32;
        if max_x < 0 || min_x >= chf.width || max_z < 0 || min_z >= chf.height {
            return None;
        }
        Some(Self {
            min_x: min_x.max(0),
            max_x: max_x.min(chf.width - 1),
            min_z: min_z.max(0),
            max_z: max_z.min(chf.height - 1),
        })
    }
}

/// The span height range `[min, max]` (voxels) of world heights `lo..hi`.
fn height_range(chf: &CompactHeightfield, lo: f32, hi: f32) -> (i32, i32) {
    (
        ((lo - chf.bmin[1]) / chf.ch) as i32,
        ((hi - chf.bmin[1]) / chf.ch) as i32,
    )
}

/// Sets `area_id` on the walkable spans whose floor lies inside the box `bmin..bmax` (Recast's
/// `rcMarkBoxArea`).
pub fn mark_box_area(
    ctx: &mut BuildContext,
    bmin: &[f32; 3],
    bmax: &[f32; 3],
    area_id: u8,
    chf: &mut CompactHeightfield,
) {
    ctx.start_timer(TimerLabel::MarkBoxArea);
    let (min_y, max_y) = height_range(chf, bmin[1], bmax[1]);
    if let Some(footprint) = Footprint::of_box(chf, bmin, bmax) {
        for z in footprint.min_z..=footprint.max_z {
            for x in footprint.min_x..=footprint.max_x {
                let cell = chf.cell(x, z);
                for i in cell.index as usize..(cell.index + cell.count) as usize {
                    let y = i32::from(chf.spans[i].y);
                    if y < min_y || y > max_y || chf.areas[i] == NULL_AREA {
                        continue;
                    }
                    chf.areas[i] = area_id;
                }
            }
        }
    }
    ctx.stop_timer(TimerLabel::MarkBoxArea);
}

/// Sets `area_id` on the walkable spans whose cell centre lies inside the convex polygon `verts`
/// (flat `[x, y, z, …]`, only x and z used) and whose floor lies within `min_y..=max_y`
/// (Recast's `rcMarkConvexPolyArea`).
pub fn mark_convex_poly_area(
    ctx: &mut BuildContext,
    verts: &[f32],
    min_y: f32,
    max_y: f32,
    area_id: u8,
    chf: &mut CompactHeightfield,
) {
    let points = verts.len() / 3;
    if points == 0 {
        return;
    }
    ctx.start_timer(TimerLabel::MarkConvexPolyArea);
    let mut bmin = [verts[0], verts[1], verts[2]];
    let mut bmax = bmin;
    for v in verts[..points * 3].chunks_exact(3).skip(1) {
        for k in 0..3 {
            bmin[k] = fmin(bmin[k], v[k]);
            bmax[k] = fmax(bmax[k], v[k]);
        }
    }
    bmin[1] = min_y;
    bmax[1] = max_y;
    let (span_min_y, span_max_y) = height_range(chf, bmin[1], bmax[1]);
    if let Some(footprint) = Footprint::of_box(chf, &bmin, &bmax) {
        for z in footprint.min_z..=footprint.max_z {
            for x in footprint.min_x..=footprint.max_x {
                let cell = chf.cell(x, z);
                for i in cell.index as usize..(cell.index + cell.count) as usize {
                    if chf.areas[i] == NULL_AREA {
                        continue;
                    }
                    let y = i32::from(chf.spans[i].y);
                    if y < span_min_y || y > span_max_y {
                        continue;
                    }
                    let px = chf.bmin[0] + (x as f32 + 0.5) * chf.cs;
                    let pz = chf.bmin[2] + (z as f32 + 0.5) * chf.cs;
                    if point_in_poly(&verts[..points * 3], px, pz) {
                        chf.areas[i] = area_id;
                    }
                }
            }
        }
    }
    ctx.stop_timer(TimerLabel::MarkConvexPolyArea);
}

/// Even-odd test of point (`px`, `pz`) against the polygon `verts` on the xz-plane.
fn point_in_poly(verts: &[f32], px: f32, pz: f32) -> bool {
    let n = verts.len() / 3;
    let mut inside = false;
    let mut j = n - 1;
    for i in 0..n {
        let (vi, vj) = (&verts[i * 3..i * 3 + 3], &verts[j * 3..j * 3 + 3]);
        j = i;
        if (vi[2] > pz) == (vj[2] > pz) {
            continue;
        }
        if px >= (vj[0] - vi[0]) * (pz - vi[2]) / (vj[2] - vi[2]) + vi[0] {
            continue;
        }
        inside = !inside;
    }
    inside
}

/// Squared lengths at or below this are treated as zero.
const EPSILON: f32 = 1e-6;

/// Direction from `from` to `to` on the xz-plane, normalised unless (nearly) zero.
fn xz_direction(from: &[f32], to: &[f32]) -> [f32; 2] {
    let (dx, dz) = (to[0] - from[0], to[2] - from[2]);
    let squared = dx * dx + dz * dz;
    if squared > EPSILON {
        let inverse = 1.0 / squared.sqrt();
        [dx * inverse, dz * inverse]
    } else {
        [dx, dz]
    }
}

/// Grows the polygon `verts` (flat `[x, y, z, …]`, counter-clockwise seen from above) outward by
/// `offset` on the xz-plane, bevelling sharp convex corners with two vertices (Recast's
/// `rcOffsetPoly`). Used to expand convex volumes by the agent radius.
pub fn offset_poly(verts: &[f32], offset: f32) -> Vec<f32> {
    // Corners whose miter would be longer than this many offsets are bevelled.
    const MITER_LIMIT: f32 = 1.20;
    let n = verts.len() / 3;
    let mut out = Vec::with_capacity(n * 2 * 3);
    for b in 0..n {
        let a = (b + n - 1) % n;
        let c = (b + 1) % n;
        let (va, vb, vc) = (
            &verts[a * 3..a * 3 + 3],
            &verts[b * 3..b * 3 + 3],
            &verts[c * 3..c * 3 + 3],
        );
        let prev_dir = xz_direction(va, vb);
        let curr_dir = xz_direction(vb, vc);
        // y of the cross product curr × prev: negative at a convex corner.
        let cross = curr_dir[0] * prev_dir[1] - prev_dir[0] * curr_dir[1];

        // Edge normals (pointing left of each edge's direction).
        let (prev_norm_x, prev_norm_z) = (-prev_dir[1], prev_dir[0]);
        let (curr_norm_x, curr_norm_z) = (-curr_dir[1], curr_dir[0]);

        let mut miter_x = (prev_norm_x + curr_norm_x) * 0.5;
        let mut miter_z = (prev_norm_z + curr_norm_z) * 0.5;
        let miter_squared = miter_x * miter_x + miter_z * miter_z;
        let bevel = miter_squared * MITER_LIMIT * MITER_LIMIT < 1.0;
        if miter_squared > EPSILON {
            let scale = 1.0 / miter_squared;
            miter_x *= scale;
            miter_z *= scale;
        }

        if bevel && cross < 0.0 {
            let d = (1.0 - (prev_dir[0] * curr_dir[0] + prev_dir[1] * curr_dir[1])) * 0.5;
            out.extend_from_slice(&[
                vb[0] + (-prev_norm_x + prev_dir[0] * d) * offset,
                vb[1],
                vb[2] + (-prev_norm_z + prev_dir[1] * d) * offset,
                vb[0] + (-curr_norm_x - curr_dir[0] * d) * offset,
                vb[1],
                vb[2] + (-curr_norm_z - curr_dir[1] * d) * offset,
            ]);
        } else {
            out.extend_from_slice(&[vb[0] - miter_x * offset, vb[1], vb[2] - miter_z * offset]);
        }
    }
    out
}

/// Sets `area_id` on the walkable spans whose cell centre lies within `radius` of `position` on
/// the xz-plane and whose floor lies between `position[1]` and `position[1] + height` (Recast's
/// `rcMarkCylinderArea`).
pub fn mark_cylinder_area(
    ctx: &mut BuildContext,
    position: &[f32; 3],
    radius: f32,
    height: f32,
    area_id: u8,
    chf: &mut CompactHeightfield,
) {
    ctx.start_timer(TimerLabel::MarkCylinderArea);
    let bmin = [position[0] - radius, position[1], position[2] - radius];
    let bmax = [
        position[0] + radius,
        position[1] + height,
        position[2] + radius,
    ];
    let (min_y, max_y) = height_range(chf, bmin[1], bmax[1]);
    let radius_squared = radius * radius;
    if let Some(footprint) = Footprint::of_box(chf, &bmin, &bmax) {
        for z in footprint.min_z..=footprint.max_z {
            for x in footprint.min_x..=footprint.max_x {
                let cell = chf.cell(x, z);
                let cell_x = chf.bmin[0] + (x as f32 + 0.5) * chf.cs;
                let cell_z = chf.bmin[2] + (z as f32 + 0.5) * chf.cs;
                let dx = cell_x - position[0];
                let dz = cell_z - position[2];
                if dx * dx + dz * dz >= radius_squared {
                    continue;
                }
                for i in cell.index as usize..(cell.index + cell.count) as usize {
                    if chf.areas[i] == NULL_AREA {
                        continue;
                    }
                    let y = i32::from(chf.spans[i].y);
                    if y >= min_y && y <= max_y {
                        chf.areas[i] = area_id;
                    }
                }
            }
        }
    }
    ctx.stop_timer(TimerLabel::MarkCylinderArea);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recast::WALKABLE_AREA;
    use crate::recast::compact::build_compact_heightfield;
    use crate::recast::heightfield::Heightfield;
    use crate::recast::rasterize::add_span;

    /// A flat `size`×`size` floor of unit cells, one walkable span per column at height 1.
    fn flat_floor(size: i32) -> CompactHeightfield {
        let mut ctx = BuildContext::new();
        let extent = size as f32;
        let mut hf = Heightfield::new(size, size, [0.0; 3], [extent, 10.0, extent], 1.0, 1.0);
        for z in 0..size {
            for x in 0..size {
                add_span(&mut ctx, &mut hf, x, z, 0..1, WALKABLE_AREA, 1).unwrap();
            }
        }
        build_compact_heightfield(&mut ctx, 2, 1, &hf).unwrap()
    }

    /// The area id of the single span in each column, row by row.
    fn area_grid(chf: &CompactHeightfield) -> Vec<Vec<u8>> {
        (0..chf.height)
            .map(|z| {
                (0..chf.width)
                    .map(|x| chf.areas[chf.cell(x, z).index as usize])
                    .collect()
            })
            .collect()
    }

    #[test]
    fn erosion_clears_a_border_of_the_radius() {
        let mut ctx = BuildContext::new();
        let mut chf = flat_floor(7);
        erode_walkable_area(&mut ctx, 2, &mut chf).unwrap();
        for (z, row) in area_grid(&chf).iter().enumerate() {
            for (x, &area) in row.iter().enumerate() {
                let inner = (2..=4).contains(&x) && (2..=4).contains(&z);
                assert_eq!(
                    area,
                    if inner { WALKABLE_AREA } else { NULL_AREA },
                    "({x}, {z})"
                );
            }
        }
    }

    #[test]
    fn median_filter_removes_speckles_and_keeps_blocks() {
        let mut ctx = BuildContext::new();
        let mut chf = flat_floor(7);
        let speckle = chf.cell(1, 1).index as usize;
        chf.areas[speckle] = 5;
        for z in 3..6 {
            for x in 3..6 {
                let i = chf.cell(x, z).index as usize;
                chf.areas[i] = 7;
            }
        }
        median_filter_walkable_area(&mut ctx, &mut chf).unwrap();
        let grid = area_grid(&chf);
        assert_eq!(grid[1][1], WALKABLE_AREA);
        assert_eq!(grid[4][4], 7);
    }

    #[test]
    fn box_cylinder_and_polygon_mark_the_cells_they_cover() {
        let mut ctx = BuildContext::new();
        let mut chf = flat_floor(8);
        mark_box_area(&mut ctx, &[0.5, 0.0, 0.5], &[2.5, 2.0, 1.5], 1, &mut chf);
        mark_cylinder_area(&mut ctx, &[6.0, 0.0, 6.0], 1.0, 2.0, 2, &mut chf);
        let square = [4.0, 0.0, 0.0, 4.0, 0.0, 2.0, 6.0, 0.0, 2.0, 6.0, 0.0, 0.0];
        mark_convex_poly_area(&mut ctx, &square, -1.0, 3.0, 3, &mut chf);
        // A box spanning a height range the floor is not in leaves it alone.
        mark_box_area(&mut ctx, &[0.0, 5.0, 0.0], &[8.0, 6.0, 8.0], 4, &mut chf);
        let w = WALKABLE_AREA;
        let expected = [
            [1, 1, 1, w, 3, 3, w, w],
            [1, 1, 1, w, 3, 3, w, w],
            [w, w, w, w, w, w, w, w],
            [w, w, w, w, w, w, w, w],
            [w, w, w, w, w, w, w, w],
            [w, w, w, w, w, 2, 2, w],
            [w, w, w, w, w, 2, 2, w],
            [w, w, w, w, w, w, w, w],
        ];
        assert_eq!(area_grid(&chf), expected.map(Vec::from));
    }

    #[test]
    fn offset_square_grows_outward_with_bevelled_corners() {
        // (0,0) → (1,0) → (1,1) → (0,1) in (x, z): the winding whose outward side is its right.
        let square = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 1.0];
        let grown = offset_poly(&square, 0.5);
        assert_eq!(grown.len(), 8 * 3, "{grown:?}");
        // The corner at the origin becomes two points, each pushed out by the offset.
        assert_eq!(grown[..6], [-0.5, 0.0, -0.25, -0.25, 0.0, -0.5]);
        for v in grown.chunks_exact(3) {
            let outside_x = v[0] <= -0.5 || v[0] >= 1.5;
            let outside_z = v[2] <= -0.5 || v[2] >= 1.5;
            assert!(outside_x || outside_z, "{v:?} is not on the grown outline");
            assert!(
                v[0] >= -0.75 && v[0] <= 1.75 && v[2] >= -0.75 && v[2] <= 1.75,
                "{v:?}"
            );
        }
        assert!(offset_poly(&[], 1.0).is_empty());
    }
}
