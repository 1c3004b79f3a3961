//! The compact heightfield: only the open space above walkable spans, stored column-major in
//! flat arrays, with 6-bit links to the neighbouring spans (Recast's `rcCompactHeightfield`).

use crate::memory::try_filled;
use crate::recast::NULL_AREA;
use crate::recast::context::{BuildContext, TimerLabel};
use crate::recast::heightfield::{Heightfield, NO_SPAN};
use crate::recast::parallel::Split;
use crate::recast::{Error, Result};

/// Connection value meaning "no neighbour in this direction" (Recast's `RC_NOT_CONNECTED`).
pub const NOT_CONNECTED: u32 = 0x3f;

/// A grid column: its spans are `index .. index + count` of [`CompactHeightfield::spans`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CompactCell {
    /// First span (24 bits in Recast).
    pub index: u32,
    /// Number of spans (8 bits in Recast).
    pub count: u32,
}

/// Open space above a walkable surface.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CompactSpan {
    /// Floor height, in cell-height units from the heightfield's base.
    pub y: u16,
    /// Region id, 0 when not in a region.
    pub reg: u16,
    /// Four 6-bit neighbour links packed in 24 bits (layer index within the neighbour column).
    pub con: u32,
    /// Clear height above the floor (8 bits).
    pub h: u8,
}

impl CompactSpan {
    /// The neighbour layer index in direction `dir`, or [`NOT_CONNECTED`].
    #[inline]
    pub fn con(&self, dir: usize) -> u32 {
        (self.con >> (dir * 6)) & 0x3f
    }

    /// Sets the neighbour layer index in direction `dir`.
    #[inline]
    pub fn set_con(&mut self, dir: usize, layer: u32) {
        let shift = dir * 6;
        self.con = (self.con & !(0x3f << shift)) | ((layer & 0x3f) << shift);
    }
}

/// The compact heightfield and the per-span data later stages attach to it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CompactHeightfield {
    /// Cells along x.
    pub width: i32,
    /// Cells along z.
    pub height: i32,
    /// Agent height in voxels the connections were computed for.
    pub walkable_height: i32,
    /// Agent climb in voxels the connections were computed for.
    pub walkable_climb: i32,
    /// Non-navigable border around the heightfield (tiles).
    pub border_size: i32,
    /// Largest value in `dist` (set by the distance field).
    pub max_distance: u16,
    /// One more than the largest region id (set by region building).
    pub max_regions: u16,
    /// Minimum corner of the bounds, world units.
    pub bmin: [f32; 3],
    /// Maximum corner.
    pub bmax: [f32; 3],
    /// Cell size on xz, world units.
    pub cs: f32,
    /// Cell height, world units.
    pub ch: f32,
    /// One cell per grid column, index `x + z * width`.
    pub cells: Vec<CompactCell>,
    /// Every span, column by column.
    pub spans: Vec<CompactSpan>,
    /// Distance to the nearest border per span (empty until the distance field is built).
    pub dist: Vec<u16>,
    /// Area id per span.
    pub areas: Vec<u8>,
}

impl CompactHeightfield {
    /// Number of spans.
    pub fn span_count(&self) -> usize {
        self.spans.len()
    }

    /// The cell of column (`x`, `z`).
    #[inline]
    pub fn cell(&self, x: i32, z: i32) -> CompactCell {
        self.cells[(x + z * self.width) as usize]
    }

    /// Span index of the neighbour of span `i` (in column `x`, `z`) in direction `dir`, if connected.
    #[inline]
    pub fn neighbour(&self, x: i32, z: i32, i: usize, dir: usize) -> Option<usize> {
        let con = self.spans[i].con(dir);
        if con == NOT_CONNECTED {
            return None;
        }
        let nx = x + crate::recast::dir_offset_x(dir);
        let nz = z + crate::recast::dir_offset_z(dir);
        Some(self.cell(nx, nz).index as usize + con as usize)
    }

    /// Names a per-span buffer of this heightfield in an out-of-memory error.
    pub(crate) fn describe(&self, buffer: &str) -> String {
        format!(
            "the {buffer} of {} spans ({} x {} cells)",
            self.spans.len(),
            self.width,
            self.height
        )
    }

    /// Number of spans with a non-null area.
    pub fn walkable_span_count(&self) -> usize {
        self.areas
            .iter()
            .filter(|&&a| a != crate::recast::NULL_AREA)
            .count()
    }
}

/// Builds the compact heightfield of the open space above every walkable span of `hf`, linking
/// each span to the neighbour spans an agent of `walkable_height` can step to within
/// `walkable_climb` (Recast's `rcBuildCompactHeightfield`).
///
/// As in Recast, a neighbour beyond layer 62 of its column cannot be linked; that is logged as an
/// error but the build still succeeds without the link.
pub fn build_compact_heightfield(
    ctx: &mut BuildContext,
    walkable_height: i32,
    walkable_climb: i32,
    hf: &Heightfield,
) -> Result<CompactHeightfield> {
    ctx.start_timer(TimerLabel::BuildCompactHeightfield);
    let result = build(ctx, walkable_height, walkable_climb, hf);
    ctx.stop_timer(TimerLabel::BuildCompactHeightfield);
    result
}

/// The top of the open space above a column's highest span.
const OPEN_SKY: i32 = 0xffff;
/// The highest neighbour layer index a 6-bit connection can hold.
const MAX_LAYERS: usize = NOT_CONNECTED as usize - 1;

/// Grid rows per task of the parallel passes below; the result does not depend on it.
const ROWS_PER_TASK: usize = 16;

/// Builds the compact heightfield in passes over bands of rows, each band on any of rayon's
/// threads: count the walkable spans, write each band's cells and spans from its running span
/// count, then link neighbour columns. A link depends only on the floors and heights of its two
/// columns, which linking never changes, so the order the pairs are linked in does not matter.
fn build(
    ctx: &mut BuildContext,
    walkable_height: i32,
    walkable_climb: i32,
    hf: &Heightfield,
) -> Result<CompactHeightfield> {
    let (width, height) = (hf.width, hf.height);
    let (w, h) = (width.max(0) as usize, height.max(0) as usize);
    let band_cells = (ROWS_PER_TASK * w).max(1);
    let walkable_in = |&head: &u32| {
        let mut count = 0;
        let mut index = head;
        while index != NO_SPAN {
            let span = &hf.pool[index as usize];
            count += usize::from(span.area != NULL_AREA);
            index = span.next;
        }
        count
    };
    let split = Split::for_cells(hf.columns.len());
    let rows: Vec<&[u32]> = hf.columns.chunks(w.max(1)).collect();
    let row_counts: Vec<usize> = split.map(rows, |heads| heads.iter().map(walkable_in).sum());
    let counts: Vec<usize> = row_counts
        .chunks(ROWS_PER_TASK)
        .map(|rows| rows.iter().sum())
        .collect();
    let span_count: usize = counts.iter().sum();
    if u32::try_from(span_count).is_err() {
        let message = format!("Out of memory 'chf.spans' ({span_count})");
        ctx.error(format!("rcBuildCompactHeightfield: {message}"));
        return Err(Error::Stage {
            stage: "rcBuildCompactHeightfield",
            message,
        });
    }
    let mut bmax = hf.bmax;
    bmax[1] += walkable_height as f32 * hf.ch;

    let what =
        || format!("the compact heightfield of {width} x {height} cells and {span_count} spans");
    let unlinked = CompactSpan {
        con: UNLINKED,
        ..CompactSpan::default()
    };
    let mut spans = try_filled(span_count, unlinked, what)?;
    let mut areas = try_filled(span_count, NULL_AREA, what)?;
    let mut cells = try_filled(hf.columns.len(), CompactCell::default(), what)?;
    let mut bases = Vec::with_capacity(counts.len());
    let mut base = 0;
    for &count in &counts {
        bases.push(base);
        base += count;
    }
    let mut band_spans = split_by_counts(&mut spans, &counts);
    let band_areas = split_by_counts(&mut areas, &counts);
    let bands: Vec<_> = cells
        .chunks_mut(band_cells)
        .zip(hf.columns.chunks(band_cells))
        .zip(band_spans.iter_mut().zip(band_areas).zip(&bases))
        .collect();
    split.for_each(bands, |((cells, heads), ((spans, areas), &base))| {
        fill_band(hf, heads, cells, spans, areas, base as u32);
    });

    // Each pair of neighbour columns is linked both ways at once, from the column with the
    // lower x or z: first the pairs within each band, then those across band boundaries (the
    // last row of a band and the first of the next), each band or boundary on any thread.
    let linker = Linker {
        walkable_height,
        walkable_climb,
    };
    let rows_of = |band: usize| band * ROWS_PER_TASK..((band + 1) * ROWS_PER_TASK).min(h);
    let bands: Vec<_> = band_spans.iter_mut().zip(&bases).enumerate().collect();
    let within = split
        .map(bands, |(band, (spans, &base))| {
            linker.link_band(&cells, spans, base, w, rows_of(band))
        })
        .into_iter()
        .max()
        .unwrap_or(0);
    let band_count = band_spans.len();
    let (mut lasts, mut firsts) = (Vec::new(), Vec::new());
    for (band, spans) in band_spans.into_iter().enumerate() {
        let rows = rows_of(band);
        let first_len = if band > 0 { row_counts[rows.start] } else { 0 };
        let last_len = if band + 1 < band_count {
            row_counts[rows.end - 1]
        } else {
            0
        };
        let (first, rest) = spans.split_at_mut(first_len);
        let rest_len = rest.len();
        let (_, last) = rest.split_at_mut(rest_len - last_len);
        if band > 0 {
            firsts.push((first, bases[band]));
        }
        if band + 1 < band_count {
            lasts.push((last, bases[band] + counts[band] - last_len));
        }
    }
    let boundaries: Vec<_> = lasts.into_iter().zip(firsts).enumerate().collect();
    let across = split
        .map(boundaries, |(band, (below, above))| {
            let z = rows_of(band).end - 1;
            linker.link_rows(&cells, below, above, w, z)
        })
        .into_iter()
        .max()
        .unwrap_or(0);
    let max_layer_index = within.max(across);
    if max_layer_index > MAX_LAYERS {
        ctx.error(format!(
            "rcBuildCompactHeightfield: Heightfield has too many layers {max_layer_index} (max: {MAX_LAYERS})"
        ));
    }

    Ok(CompactHeightfield {
        width,
        height,
        walkable_height,
        walkable_climb,
        border_size: 0,
        max_distance: 0,
        max_regions: 0,
        bmin: hf.bmin,
        bmax,
        cs: hf.cs,
        ch: hf.ch,
        cells,
        spans,
        dist: Vec::new(),
        areas,
    })
}

/// `items` cut into consecutive slices of `counts` items.
fn split_by_counts<'a, T>(mut items: &'a mut [T], counts: &[usize]) -> Vec<&'a mut [T]> {
    counts
        .iter()
        .map(|&count| {
            let (band, rest) = std::mem::take(&mut items).split_at_mut(count);
            items = rest;
            band
        })
        .collect()
}

/// Writes the cells of columns `heads` and the open space above their walkable spans, the first
/// at span index `base`.
fn fill_band(
    hf: &Heightfield,
    heads: &[u32],
    cells: &mut [CompactCell],
    spans: &mut [CompactSpan],
    areas: &mut [u8],
    base: u32,
) {
    let mut next = 0;
    for (cell, &head) in cells.iter_mut().zip(heads) {
        // Empty columns keep index 0; columns with only unwalkable spans get the running
        // index.
        if head == NO_SPAN {
            continue;
        }
        let first = next;
        let mut span = &hf.pool[head as usize];
        loop {
            let above = (span.next != NO_SPAN).then(|| &hf.pool[span.next as usize]);
            if span.area != NULL_AREA {
                let bottom = i32::from(span.smax);
                let top = above.map_or(OPEN_SKY, |above| i32::from(above.smin));
                spans[next].y = span.smax;
                spans[next].h = (top - bottom).clamp(0, 0xff) as u8;
                areas[next] = span.area;
                next += 1;
            }
            match above {
                Some(above) => span = above,
                None => break,
            }
        }
        *cell = CompactCell {
            index: base + first as u32,
            count: (next - first) as u32,
        };
    }
}

/// A span's connections before any link is found: [`NOT_CONNECTED`] in every direction.
const UNLINKED: u32 = 0xff_ffff;

/// Finds the neighbour links of compact spans.
struct Linker {
    walkable_height: i32,
    walkable_climb: i32,
}

/// The spans of `cell` within `spans`, which start at span index `base`.
#[inline]
fn column_in(spans: &mut [CompactSpan], base: usize, cell: CompactCell) -> &mut [CompactSpan] {
    let first = cell.index as usize - base;
    &mut spans[first..first + cell.count as usize]
}

impl Linker {
    /// Links the columns of `rows` (a grid `w` cells wide) whose spans are `spans` (from span
    /// index `base`) to their +x neighbours and, but in the last row, their +z ones. Returns the
    /// deepest layer too deep to encode, or 0.
    fn link_band(
        &self,
        cells: &[CompactCell],
        spans: &mut [CompactSpan],
        base: usize,
        w: usize,
        rows: std::ops::Range<usize>,
    ) -> usize {
        let mut max_layer_index = 0;
        for z in rows.clone() {
            let last_row = z + 1 == rows.end;
            for x in 0..w {
                let column = x + z * w;
                let cell = cells[column];
                if cell.count == 0 {
                    continue;
                }
                if x + 1 < w {
                    let neighbour = cells[column + 1];
                    self.link_later(spans, base, cell, neighbour, 2, &mut max_layer_index);
                }
                if !last_row {
                    let neighbour = cells[column + w];
                    self.link_later(spans, base, cell, neighbour, 1, &mut max_layer_index);
                }
            }
        }
        max_layer_index
    }

    /// [`Self::link`] for column `a` and its neighbour `b` at higher x or z, which comes later
    /// in `spans` (from span index `base`).
    #[inline(always)]
    fn link_later(
        &self,
        spans: &mut [CompactSpan],
        base: usize,
        a: CompactCell,
        b: CompactCell,
        dir: usize,
        max_layer_index: &mut usize,
    ) {
        if b.count == 0 {
            return;
        }
        let (i, j) = (a.index as usize - base, b.index as usize - base);
        if a.count == 1 && b.count == 1 {
            // The test is symmetric: one span each links both ways or not at all.
            if self.connects(&spans[i], &spans[j]) {
                set_layer(&mut spans[i].con, dir, 0);
                set_layer(&mut spans[j].con, (dir + 2) & 3, 0);
            }
            return;
        }
        let (here, there) = spans.split_at_mut(j);
        let a = &mut here[i..i + a.count as usize];
        self.link(a, &mut there[..b.count as usize], dir, max_layer_index);
    }

    /// Links the columns of row `z` (spans `below`, from span index `below_base`) to those of
    /// row `z + 1` (`above`, from `above_base`).
    fn link_rows(
        &self,
        cells: &[CompactCell],
        (below, below_base): (&mut [CompactSpan], usize),
        (above, above_base): (&mut [CompactSpan], usize),
        w: usize,
        z: usize,
    ) -> usize {
        let mut max_layer_index = 0;
        for x in 0..w {
            let (cell, neighbour) = (cells[x + z * w], cells[x + (z + 1) * w]);
            if cell.count == 0 || neighbour.count == 0 {
                continue;
            }
            let a = column_in(below, below_base, cell);
            let b = column_in(above, above_base, neighbour);
            self.link(a, b, 1, &mut max_layer_index);
        }
        max_layer_index
    }

    /// Links the spans `a` of a column to those, `b`, of its neighbour in direction `dir`, and
    /// back. Layers too deep to encode raise `max_layer_index` instead.
    #[inline(always)]
    fn link(
        &self,
        a: &mut [CompactSpan],
        b: &mut [CompactSpan],
        dir: usize,
        max_layer_index: &mut usize,
    ) {
        let back = (dir + 2) & 3;
        if let ([a], [b]) = (&mut *a, &mut *b) {
            // The test is symmetric: one span each links both ways or not at all.
            if self.connects(a, b) {
                set_layer(&mut a.con, dir, 0);
                set_layer(&mut b.con, back, 0);
            }
            return;
        }
        self.link_one_way(a, b, dir, max_layer_index);
        self.link_one_way(b, a, back, max_layer_index);
    }

    /// Links each of `spans` in direction `dir` to the first of `neighbours` it connects to.
    /// Both columns rise with their index, so the neighbours below climbing reach of one span
    /// are below it for every later span too: a cursor skips them once, and the search stops
    /// above reach. On stacked floors this keeps linking linear in the spans, where scanning
    /// each neighbour column from its bottom grows with the square of the floors.
    #[inline]
    fn link_one_way(
        &self,
        spans: &mut [CompactSpan],
        neighbours: &[CompactSpan],
        dir: usize,
        max_layer_index: &mut usize,
    ) {
        let mut first_in_reach = 0;
        for span in spans.iter_mut() {
            let y = i32::from(span.y);
            while first_in_reach < neighbours.len()
                && i32::from(neighbours[first_in_reach].y) < y - self.walkable_climb
            {
                first_in_reach += 1;
            }
            if let Some(layer) = self.first_layer(span, neighbours, first_in_reach, max_layer_index)
            {
                set_layer(&mut span.con, dir, layer);
            }
        }
    }

    /// Whether an agent can step between two spans of neighbour columns.
    #[inline]
    fn connects(&self, span: &CompactSpan, neighbour: &CompactSpan) -> bool {
        let (y, ny) = (i32::from(span.y), i32::from(neighbour.y));
        let bottom = y.max(ny);
        let ceiling = (y + i32::from(span.h)).min(ny + i32::from(neighbour.h));
        ceiling - bottom >= self.walkable_height && (ny - y).abs() <= self.walkable_climb
    }

    /// The layer of the first of `neighbours` (the spans of a neighbour column) that `span`
    /// connects to, searching from `first_in_reach`, the lowest within climbing reach, up to
    /// the last within reach. Layers too deep to encode raise `max_layer_index` instead.
    #[inline]
    fn first_layer(
        &self,
        span: &CompactSpan,
        neighbours: &[CompactSpan],
        first_in_reach: usize,
        max_layer_index: &mut usize,
    ) -> Option<u32> {
        let highest_reachable = i32::from(span.y) + self.walkable_climb;
        for (layer, neighbour) in neighbours.iter().enumerate().skip(first_in_reach) {
            if i32::from(neighbour.y) > highest_reachable {
                break;
            }
            if self.connects(span, neighbour) {
                if layer > MAX_LAYERS {
                    *max_layer_index = (*max_layer_index).max(layer);
                    continue;
                }
                return Some(layer as u32);
            }
        }
        None
    }
}

/// Sets the link of a still unlinked direction in packed links `con`.
#[inline]
fn set_layer(con: &mut u32, dir: usize, layer: u32) {
    *con ^= (NOT_CONNECTED ^ layer) << (dir * 6);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connections_pack_in_six_bits() {
        let mut span = CompactSpan::default();
        for dir in 0..4 {
            span.set_con(dir, NOT_CONNECTED);
        }
        assert_eq!(span.con, 0xff_ffff);
        span.set_con(2, 5);
        assert_eq!(span.con(2), 5);
        assert_eq!(span.con(1), NOT_CONNECTED);
        assert_eq!(span.con(3), NOT_CONNECTED);
    }
}
