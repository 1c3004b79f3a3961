//! The compact heightfield: only the open space above walkable spans, stored column-major in
//! flat arrays, with 6-bit links to the neighbouring spans (Recast's `rcCompactHeightfield`).

use crate::memory::{try_filled, try_with_capacity};
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

/// A grid row of cells and its neighbour rows ([`CompactHeightfield::cell_rows`]).
pub(crate) struct CellRows<'a> {
    pub before: Option<&'a [CompactCell]>,
    pub row: &'a [CompactCell],
    pub after: Option<&'a [CompactCell]>,
}

impl CompactHeightfield {
    /// Number of spans.
    pub fn span_count(&self) -> usize {
        self.spans.len()
    }

    /// Grid row `z` of the cells, with the rows before (-z) and after (+z) it, each `None` past
    /// the grid's edge: a walk along the row reads a span's neighbour cell with one load.
    #[inline]
    pub(crate) fn cell_rows(&self, z: usize) -> CellRows<'_> {
        let width = self.width.max(0) as usize;
        let row_start = z * width;
        CellRows {
            before: row_start
                .checked_sub(width)
                .map(|before_start| &self.cells[before_start..row_start]),
            row: &self.cells[row_start..row_start + width],
            after: self.cells.get(row_start + width..row_start + 2 * width),
        }
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

/// Grid rows per band when the stage is split over threads; the result does not depend on it.
const ROWS_PER_TASK: usize = 16;

/// Builds the compact heightfield in bands of rows, each band on any of rayon's threads: write
/// each band's cells and spans, link the neighbour columns within each band, then those across
/// band boundaries. A link depends only on the floors and heights of its two columns, which
/// linking never changes, so the order the pairs are linked in does not matter.
///
/// On one thread the grid is a single band, written straight into the final buffers, whose
/// spans get room for every span of the heightfield's pool and are cut to length after: that
/// saves walking every column twice, once to count the walkable spans and once to write them.
/// Split over threads, each band counts its spans first so that its buffers are exact and its
/// cells index the whole grid's spans; the bands are joined once linked. The cells are
/// collected, never zeroed before being written.
fn build(
    ctx: &mut BuildContext,
    walkable_height: i32,
    walkable_climb: i32,
    hf: &Heightfield,
) -> Result<CompactHeightfield> {
    let (width, height) = (hf.width, hf.height);
    let w = width.max(0) as usize;
    let split = Split::for_cells(hf.columns.len());
    let band_rows = if split.is_parallel() {
        ROWS_PER_TASK
    } else {
        height.max(1) as usize
    };
    let heads: Vec<&[u32]> = hf.columns.chunks((band_rows * w).max(1)).collect();
    let capacities: Vec<usize> = if split.is_parallel() {
        split.map(heads.clone(), |heads| {
            heads.iter().map(|&head| walkable_in(hf, head)).sum()
        })
    } else {
        heads.iter().map(|_| hf.pool.len()).collect()
    };
    let mut bases = Vec::with_capacity(capacities.len());
    let mut base = 0;
    for &capacity in &capacities {
        bases.push(base);
        base += capacity;
    }
    let what = |capacity: usize| {
        move || {
            format!(
                "the compact heightfield of {width} x {height} cells with room for {capacity} spans"
            )
        }
    };
    let jobs: Vec<_> = heads
        .into_iter()
        .zip(capacities.into_iter().zip(bases))
        .collect();
    let mut bands = split
        .map(jobs, |(heads, (capacity, base))| {
            Band::fill(hf, heads, base, capacity, what(capacity))
        })
        .into_iter()
        .collect::<std::result::Result<Vec<Band>, _>>()?;
    let span_count: usize = bands.iter().map(|band| band.spans.len()).sum();
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

    // Each pair of neighbour columns is linked both ways at once, from the column with the
    // lower x or z: first the pairs within each band, then those across band boundaries (the
    // last row of a band and the first of the next), each band or boundary on any thread.
    let linker = Linker {
        walkable_height,
        walkable_climb,
    };
    let within = split
        .map(bands.iter_mut().collect::<Vec<_>>(), |band| {
            linker.link_band(&band.cells, &mut band.spans, band.base, w)
        })
        .into_iter()
        .max()
        .unwrap_or(0);
    let band_count = bands.len();
    let (mut lasts, mut firsts) = (Vec::new(), Vec::new());
    for (index, band) in bands.iter_mut().enumerate() {
        let row_spans = |row: &[CompactCell]| row.iter().map(|c| c.count as usize).sum::<usize>();
        let first_row = &band.cells[..w];
        let last_row = &band.cells[band.cells.len() - w..];
        let first_len = if index > 0 { row_spans(first_row) } else { 0 };
        let last_len = if index + 1 < band_count {
            row_spans(last_row)
        } else {
            0
        };
        let last_base = band.base + band.spans.len() - last_len;
        let (first, rest) = band.spans.split_at_mut(first_len);
        let rest_len = rest.len();
        let (_, last) = rest.split_at_mut(rest_len - last_len);
        if index > 0 {
            firsts.push((first_row, first, band.base));
        }
        if index + 1 < band_count {
            lasts.push((last_row, last, last_base));
        }
    }
    let across = split
        .map(
            lasts.into_iter().zip(firsts).collect::<Vec<_>>(),
            |(below, above)| linker.link_rows(below, above),
        )
        .into_iter()
        .max()
        .unwrap_or(0);
    let max_layer_index = within.max(across);
    if max_layer_index > MAX_LAYERS {
        ctx.error(format!(
            "rcBuildCompactHeightfield: Heightfield has too many layers {max_layer_index} (max: {MAX_LAYERS})"
        ));
    }
    let (cells, spans, areas) = Band::join(bands, span_count, what(span_count))?;

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

/// The number of walkable spans in the column from pool index `head` up.
fn walkable_in(hf: &Heightfield, head: u32) -> usize {
    let mut count = 0;
    let mut index = head;
    while index != NO_SPAN {
        let span = &hf.pool[index as usize];
        count += usize::from(span.area != NULL_AREA);
        index = span.next;
    }
    count
}

/// The cells, spans and areas of a band of grid rows.
struct Band {
    cells: Vec<CompactCell>,
    spans: Vec<CompactSpan>,
    areas: Vec<u8>,
    /// Span index of the band's first span in the whole heightfield.
    base: usize,
}

impl Band {
    /// Writes the cells of columns `heads` and the open space above their walkable spans, the
    /// first at span index `base`, into buffers with room for `capacity` spans.
    fn fill(
        hf: &Heightfield,
        heads: &[u32],
        base: usize,
        capacity: usize,
        what: impl Fn() -> String,
    ) -> Result<Self> {
        let unlinked = CompactSpan {
            con: UNLINKED,
            ..CompactSpan::default()
        };
        let mut spans = try_filled(capacity, unlinked, &what)?;
        let mut areas = try_filled(capacity, NULL_AREA, &what)?;
        let mut cells = try_with_capacity(heads.len(), &what)?;
        let mut next = 0;
        cells.extend(heads.iter().map(|&head| {
            // Empty columns keep index 0; columns with only unwalkable spans get the running
            // index.
            if head == NO_SPAN {
                return CompactCell::default();
            }
            let first = next;
            let mut index = head;
            while index != NO_SPAN {
                let span = &hf.pool[index as usize];
                index = span.next;
                if span.area != NULL_AREA {
                    let top = if index == NO_SPAN {
                        OPEN_SKY
                    } else {
                        i32::from(hf.pool[index as usize].smin)
                    };
                    spans[next] = CompactSpan {
                        y: span.smax,
                        h: (top - i32::from(span.smax)).clamp(0, 0xff) as u8,
                        ..unlinked
                    };
                    areas[next] = span.area;
                    next += 1;
                }
            }
            CompactCell {
                index: (base + first) as u32,
                count: (next - first) as u32,
            }
        }));
        spans.truncate(next);
        areas.truncate(next);
        Ok(Self {
            cells,
            spans,
            areas,
            base,
        })
    }

    /// The whole grid's cells, spans and areas: the only band's buffers as they are, or those
    /// of all bands copied one after the other.
    fn join(
        mut bands: Vec<Band>,
        span_count: usize,
        what: impl Fn() -> String,
    ) -> Result<(Vec<CompactCell>, Vec<CompactSpan>, Vec<u8>)> {
        if bands.len() == 1 {
            let mut band = bands.pop().expect("one band");
            band.spans.shrink_to_fit();
            band.areas.shrink_to_fit();
            return Ok((band.cells, band.spans, band.areas));
        }
        let cell_count = bands.iter().map(|band| band.cells.len()).sum();
        let mut cells = try_with_capacity(cell_count, &what)?;
        let mut spans = try_with_capacity(span_count, &what)?;
        let mut areas = try_with_capacity(span_count, &what)?;
        for band in &bands {
            cells.extend_from_slice(&band.cells);
            spans.extend_from_slice(&band.spans);
            areas.extend_from_slice(&band.areas);
        }
        Ok((cells, spans, areas))
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
    /// Links the columns of the grid rows `cells` (`w` cells wide) whose spans are `spans`
    /// (from span index `base`) to their +x neighbours and, but in the last row, their +z ones.
    /// Returns the deepest layer too deep to encode, or 0.
    fn link_band(
        &self,
        cells: &[CompactCell],
        spans: &mut [CompactSpan],
        base: usize,
        w: usize,
    ) -> usize {
        let mut max_layer_index = 0;
        if w == 0 {
            return max_layer_index;
        }
        let mut rows = cells.chunks_exact(w).peekable();
        while let Some(row) = rows.next() {
            let next_row = rows.peek().copied().unwrap_or_default();
            for (x, &cell) in row.iter().enumerate() {
                if cell.count == 0 {
                    continue;
                }
                let right = row.get(x + 1).copied().unwrap_or_default();
                let up = next_row.get(x).copied().unwrap_or_default();
                if cell.count == 1 {
                    self.link_single(spans, base, cell, right, up, &mut max_layer_index);
                } else {
                    self.link_later(spans, base, cell, right, up, &mut max_layer_index);
                }
            }
        }
        max_layer_index
    }

    /// Links the one span of column `cell` to its neighbours in columns `right` (+x) and `up`
    /// (+z), either of which may be empty. Most columns hold a single span, and most of their
    /// neighbours too: the span is read once for both directions and a single-span neighbour
    /// is tested directly, without the search of [`Self::link`].
    #[inline(always)]
    fn link_single(
        &self,
        spans: &mut [CompactSpan],
        base: usize,
        cell: CompactCell,
        right: CompactCell,
        up: CompactCell,
        max_layer_index: &mut usize,
    ) {
        let i = cell.index as usize - base;
        let span = spans[i];
        let mut con = span.con;
        for (neighbour, dir) in [(right, 2), (up, 1)] {
            match neighbour.count {
                0 => {}
                1 => {
                    let other = &mut spans[neighbour.index as usize - base];
                    if self.connects(&span, other) {
                        set_layer(&mut con, dir, 0);
                        set_layer(&mut other.con, (dir + 2) & 3, 0);
                    }
                }
                _ => {
                    spans[i].con = con;
                    let empty = CompactCell::default();
                    let (right, up) = if dir == 2 {
                        (neighbour, empty)
                    } else {
                        (empty, neighbour)
                    };
                    self.link_later(spans, base, cell, right, up, max_layer_index);
                    con = spans[i].con;
                }
            }
        }
        spans[i].con = con;
    }

    /// [`Self::link`] for column `cell` and its neighbours `right` (+x) and `up` (+z), which
    /// come later in `spans` (from span index `base`); either may be empty. Out of line, as
    /// the rarer case, to leave the registers of the single-span loop free.
    #[inline(never)]
    fn link_later(
        &self,
        spans: &mut [CompactSpan],
        base: usize,
        cell: CompactCell,
        right: CompactCell,
        up: CompactCell,
        max_layer_index: &mut usize,
    ) {
        let i = cell.index as usize - base;
        for (neighbour, dir) in [(right, 2), (up, 1)] {
            if neighbour.count == 0 {
                continue;
            }
            let (here, there) = spans.split_at_mut(neighbour.index as usize - base);
            let a = &mut here[i..i + cell.count as usize];
            self.link(
                a,
                &mut there[..neighbour.count as usize],
                dir,
                max_layer_index,
            );
        }
    }

    /// Links the columns of a grid row (`cells`, their spans `spans` from span index `base`)
    /// to those of the next row.
    fn link_rows(
        &self,
        (below_cells, below, below_base): (&[CompactCell], &mut [CompactSpan], usize),
        (above_cells, above, above_base): (&[CompactCell], &mut [CompactSpan], usize),
    ) -> usize {
        let mut max_layer_index = 0;
        for (&cell, &neighbour) in below_cells.iter().zip(above_cells) {
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
    /// back: each span to the first of the other column it connects to. Layers too deep to
    /// encode raise `max_layer_index` instead.
    ///
    /// Both columns rise with their index, so the spans of `b` below climbing reach of one
    /// span of `a` are below it for every later span too: a cursor skips them once, and the
    /// search stops above reach. Each pair within reach is tested once for both directions:
    /// `a`'s spans are visited in order and the pairs of each in order, so the first link
    /// found for a span of either column is its lowest. On stacked floors this keeps linking
    /// linear in the spans, where scanning each neighbour column from its bottom grows with
    /// the square of the floors.
    #[inline(always)]
    fn link(
        &self,
        a: &mut [CompactSpan],
        b: &mut [CompactSpan],
        dir: usize,
        max_layer_index: &mut usize,
    ) {
        let back = (dir + 2) & 3;
        let mut first_in_reach = 0;
        for (layer, span) in a.iter_mut().enumerate() {
            let y = i32::from(span.y);
            while first_in_reach < b.len()
                && i32::from(b[first_in_reach].y) < y - self.walkable_climb
            {
                first_in_reach += 1;
            }
            let highest_reachable = y + self.walkable_climb;
            let top = y + i32::from(span.h);
            let mut con = span.con;
            let mut neighbour_layer = first_in_reach;
            while neighbour_layer < b.len() {
                let neighbour = &mut b[neighbour_layer];
                if i32::from(neighbour.y) > highest_reachable {
                    break;
                }
                // Within reach, so only the clearance is left to test.
                if self.clear(y, top, neighbour) {
                    if (con >> (dir * 6)) & NOT_CONNECTED == NOT_CONNECTED {
                        if neighbour_layer > MAX_LAYERS {
                            *max_layer_index = (*max_layer_index).max(neighbour_layer);
                        } else {
                            set_layer(&mut con, dir, neighbour_layer as u32);
                        }
                    }
                    if neighbour.con(back) == NOT_CONNECTED {
                        if layer > MAX_LAYERS {
                            *max_layer_index = (*max_layer_index).max(layer);
                        } else {
                            set_layer(&mut neighbour.con, back, layer as u32);
                        }
                    }
                }
                neighbour_layer += 1;
            }
            span.con = con;
        }
    }

    /// Whether an agent can step between two spans of neighbour columns.
    #[inline]
    fn connects(&self, span: &CompactSpan, neighbour: &CompactSpan) -> bool {
        let y = i32::from(span.y);
        self.clear(y, y + i32::from(span.h), neighbour)
            && (i32::from(neighbour.y) - y).abs() <= self.walkable_climb
    }

    /// Whether the open space from floor `y` up to `top` overlaps that above `neighbour` by an
    /// agent's height.
    #[inline]
    fn clear(&self, y: i32, top: i32, neighbour: &CompactSpan) -> bool {
        let ny = i32::from(neighbour.y);
        top.min(ny + i32::from(neighbour.h)) - y.max(ny) >= self.walkable_height
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

    /// Columns of up to 90 stacked spans (deeper than a link can encode), some single, some
    /// empty: every link, and the deepest layer reported as too deep, equal those of Recast's
    /// scan of each neighbour column from its bottom.
    #[test]
    fn links_match_a_full_scan_of_every_neighbour_column() {
        use crate::recast::rasterize::add_span;
        let (walkable_height, walkable_climb) = (3, 6);
        let mut state = 7u32;
        let mut next = move |n: u32| {
            state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            (state >> 8) % n
        };
        let size = 7;
        let mut hf = Heightfield::new(size, size, [0.0; 3], [7.0, 100.0, 7.0], 1.0, 0.1);
        let mut ctx = BuildContext::new();
        for z in 0..size {
            for x in 0..size {
                let spans = [0, 1, 1, 2, 90][next(5) as usize];
                let mut bottom = next(400) as u16;
                for _ in 0..spans {
                    let top = bottom + 1 + next(2) as u16;
                    add_span(&mut ctx, &mut hf, x, z, bottom..top, 63, 1).unwrap();
                    bottom = top + 1 + next(8) as u16;
                }
            }
        }
        let chf =
            build_compact_heightfield(&mut ctx, walkable_height, walkable_climb, &hf).unwrap();
        let column = |x: i32, z: i32| {
            let cell = chf.cell(x, z);
            &chf.spans[cell.index as usize..][..cell.count as usize]
        };
        let mut deepest = 0;
        for z in 0..size {
            for x in 0..size {
                for span in column(x, z) {
                    for dir in 0..4 {
                        let (nx, nz) = (
                            x + crate::recast::dir_offset_x(dir),
                            z + crate::recast::dir_offset_z(dir),
                        );
                        let mut expected = NOT_CONNECTED;
                        if nx >= 0 && nz >= 0 && nx < size && nz < size {
                            for (layer, other) in column(nx, nz).iter().enumerate() {
                                let (y, ny) = (i32::from(span.y), i32::from(other.y));
                                let ceiling = (y + i32::from(span.h)).min(ny + i32::from(other.h));
                                if ceiling - y.max(ny) >= walkable_height
                                    && (ny - y).abs() <= walkable_climb
                                {
                                    if layer > MAX_LAYERS {
                                        deepest = deepest.max(layer);
                                        continue;
                                    }
                                    expected = layer as u32;
                                    break;
                                }
                            }
                        }
                        assert_eq!(span.con(dir), expected, "({x}, {z}) y {}", span.y);
                    }
                }
            }
        }
        assert!(deepest > MAX_LAYERS);
        assert!(
            ctx.entries()
                .iter()
                .any(|entry| entry.message == too_many_layers(deepest))
        );
    }

    fn too_many_layers(layer: usize) -> String {
        format!(
            "rcBuildCompactHeightfield: Heightfield has too many layers {layer} (max: {MAX_LAYERS})"
        )
    }

    /// A single span next to layer 80 of a column of 90, on either side: the link from the
    /// single span to layer 80 cannot be encoded and is reported, whichever column is linked
    /// from.
    #[test]
    fn a_layer_too_deep_is_reported_from_either_column() {
        use crate::recast::rasterize::add_span;
        for deep_x in [0, 1] {
            let mut hf = Heightfield::new(2, 1, [0.0; 3], [2.0, 100.0, 1.0], 1.0, 0.1);
            let mut ctx = BuildContext::new();
            for layer in 0..90 {
                let bottom = layer * 10;
                add_span(&mut ctx, &mut hf, deep_x, 0, bottom..bottom + 5, 63, 1).unwrap();
            }
            add_span(&mut ctx, &mut hf, 1 - deep_x, 0, 800..805, 63, 1).unwrap();
            let chf = build_compact_heightfield(&mut ctx, 2, 1, &hf).unwrap();
            let single = chf.spans[chf.cell(1 - deep_x, 0).index as usize];
            let dir = if deep_x == 0 { 0 } else { 2 };
            assert_eq!(single.con(dir), NOT_CONNECTED);
            let messages: Vec<_> = ctx.entries().iter().map(|e| &e.message).collect();
            assert_eq!(
                messages,
                [&too_many_layers(80)],
                "deep column at x {deep_x}"
            );
        }
    }
}
