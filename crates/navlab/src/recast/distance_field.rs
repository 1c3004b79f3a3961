//! The distance field: for every walkable span, an approximate distance to the nearest border
//! (a span that lacks a same-area neighbour in one of the four directions). Watershed
//! partitioning floods regions outwards from the maxima of this field (Recast's
//! `rcBuildDistanceField`).

use crate::recast::parallel::Split;

use crate::memory::try_filled;
use std::ops::Range;

use crate::recast::compact::{CellRows, CompactCell, CompactHeightfield, NOT_CONNECTED};
use crate::recast::context::{BuildContext, TimerLabel};
use crate::recast::{Error, Result};

/// Distances at or below this value (in half-cells) are left unblurred, so thin corridors keep
/// their exact border distance.
const BLUR_THRESHOLD: u16 = 2;
/// Fewest spans per task of the per-span passes; the result does not depend on it.
const SPANS_PER_TASK: usize = 16 * 1024;
/// Grid rows per task of [`SpanLinks::new`]; the result does not depend on it.
const ROWS_PER_TASK: usize = 16;

/// Computes `chf.dist` (blurred border distance per span, in units of half a cell: 2 per straight
/// step, 3 per diagonal step) and `chf.max_distance` (the largest distance before blurring).
pub fn build_distance_field(ctx: &mut BuildContext, chf: &mut CompactHeightfield) -> Result<()> {
    build_distance_field_keeping_links(ctx, chf).map(drop)
}

/// [`build_distance_field`], returning the span links it resolved so that the watershed that
/// follows can reuse them (see [`crate::recast::region::build_regions_reusing_links`]).
pub(crate) fn build_distance_field_keeping_links(
    ctx: &mut BuildContext,
    chf: &mut CompactHeightfield,
) -> Result<SpanLinks> {
    if let Some(problem) = layout_problem(chf) {
        let message = problem.to_string();
        ctx.error(format!("rcBuildDistanceField: {message}"));
        return Err(Error::Stage {
            stage: "rcBuildDistanceField",
            message,
        });
    }
    let span_count = chf.spans.len();
    let links = SpanLinks::new(chf)?;
    chf.dist = Vec::new();
    let mut dist = try_filled(span_count, u16::MAX, || chf.describe("border distances"))?;
    let mut blurred = try_filled(span_count, 0u16, || chf.describe("blurred distances"))?;

    ctx.start_timer(TimerLabel::BuildDistanceField);
    ctx.start_timer(TimerLabel::BuildDistanceFieldDist);
    let split = Split::for_cells(chf.cells.len());
    mark_borders(split, &links, &chf.areas, &mut dist);
    chamfer_passes(&links, &mut dist);
    chf.max_distance = dist.iter().copied().max().unwrap_or(0);
    ctx.stop_timer(TimerLabel::BuildDistanceFieldDist);

    ctx.start_timer(TimerLabel::BuildDistanceFieldBlur);
    box_blur(split, &links, &dist, &mut blurred);
    chf.dist = blurred;
    ctx.stop_timer(TimerLabel::BuildDistanceFieldBlur);

    ctx.stop_timer(TimerLabel::BuildDistanceField);
    Ok(links)
}

/// What makes `chf` unusable for the passes over it (array sizes that disagree, cells whose
/// spans lie outside the span array), if anything.
pub(crate) fn layout_problem(chf: &CompactHeightfield) -> Option<&'static str> {
    let cells = (chf.width.max(0) as u64) * (chf.height.max(0) as u64);
    let cells_fit = !cells_overrun(&chf.cells, chf.spans.len());
    if cells != chf.cells.len() as u64 || chf.areas.len() != chf.spans.len() || !cells_fit {
        Some("inconsistent compact heightfield")
    } else {
        None
    }
}

/// Whether any cell's spans reach past `span_count` spans. A flag folded over every cell in
/// 32 bits, without early exit, so that the loop vectorises: it runs before every pass over
/// a compact heightfield.
pub(crate) fn cells_overrun(cells: &[CompactCell], span_count: usize) -> bool {
    match u32::try_from(span_count) {
        Ok(spans) => cells.iter().fold(false, |outside, c| {
            outside | (c.index > spans) | (c.count > spans.wrapping_sub(c.index))
        }),
        // No u32 index and count can reach this far.
        Err(_) => false,
    }
}

/// Index of the cell next to `cell` in direction `dir`, for a grid `width` cells wide.
#[inline(always)]
fn step_cell(cell: usize, width: usize, dir: usize) -> usize {
    match dir & 3 {
        0 => cell.wrapping_sub(1),
        1 => cell + width,
        2 => cell + 1,
        _ => cell.wrapping_sub(width),
    }
}

/// Span index and cell of the neighbour of span `span` (in `cell`) in direction `dir`.
#[inline(always)]
pub(crate) fn neighbour(
    chf: &CompactHeightfield,
    cell: usize,
    span: usize,
    dir: usize,
) -> Option<(usize, usize)> {
    let con = chf.spans[span].con(dir);
    if con == NOT_CONNECTED {
        return None;
    }
    let ncell = step_cell(cell, chf.width as usize, dir);
    Some((chf.cells[ncell].index as usize + con as usize, ncell))
}

/// The neighbouring span index of every span in each direction, resolved once. Passes that
/// look at neighbours many times (the distance field, the watershed) then need neither the
/// cells nor the packed links, and can walk the spans in storage order, which is the cells'
/// order since the compact heightfield stores them column by column.
pub(crate) struct SpanLinks {
    links: Vec<[u32; 4]>,
}

/// A build that holds links between its stages prints their count, not every link.
impl std::fmt::Debug for SpanLinks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SpanLinks")
            .field("spans", &self.links.len())
            .finish()
    }
}

impl SpanLinks {
    pub(crate) const NONE: u32 = u32::MAX;

    /// Resolves the links of `chf`; links leading outside the grid count as missing.
    ///
    /// Bands of rows whose spans lie in disjoint, increasing parts of the span array (as
    /// every compact heightfield built here has them) are resolved on rayon's threads.
    pub(crate) fn new(chf: &CompactHeightfield) -> Result<Self> {
        let span_count = chf.spans.len();
        let mut links = try_filled(span_count, [Self::NONE; 4], || chf.describe("span links"))?;
        let band_cells = (ROWS_PER_TASK * chf.width.max(0) as usize).max(1);
        let split = Split::for_cells(chf.cells.len());
        let bands: Vec<&[CompactCell]> = chf.cells.chunks(band_cells).collect();
        let ranges: Vec<Range<usize>> = split.map(bands, |cells| {
            let mut columns = cells.iter().filter_map(|c| Self::column(c, span_count));
            let first = columns.next().unwrap_or_default();
            columns.fold(first, |band, column| {
                band.start.min(column.start)..band.end.max(column.end)
            })
        });
        let disjoint = ranges
            .iter()
            .filter(|range| !range.is_empty())
            .try_fold(0, |end, range| (range.start >= end).then_some(range.end))
            .is_some();
        let rows = chf.height.max(0) as usize;
        if !disjoint {
            Self::resolve_rows(chf, 0..rows, &mut links, 0);
            return Ok(Self { links });
        }
        let mut previous_end = 0;
        let mut parts = Vec::with_capacity(ranges.len());
        let mut rest = links.as_mut_slice();
        for range in &ranges {
            if range.is_empty() {
                parts.push((&mut [][..], 0));
                continue;
            }
            let (_, tail) = std::mem::take(&mut rest).split_at_mut(range.start - previous_end);
            let (part, tail) = tail.split_at_mut(range.len());
            parts.push((part, range.start));
            (rest, previous_end) = (tail, range.end);
        }
        let parts: Vec<_> = parts.into_iter().enumerate().collect();
        split.for_each(parts, |(band, (part, first_span))| {
            let first_row = band * ROWS_PER_TASK;
            Self::resolve_rows(
                chf,
                first_row..rows.min(first_row + ROWS_PER_TASK),
                part,
                first_span,
            );
        });
        Ok(Self { links })
    }

    /// Whether these links can stand for `chf`'s: resolved for as many spans, so that every
    /// link is in range. Callers reuse links only for the heightfield they were resolved from.
    pub(crate) fn fits(&self, chf: &CompactHeightfield) -> bool {
        self.links.len() == chf.spans.len()
    }

    /// The span range of cell `c`, if it lies within `span_count` spans.
    fn column(c: &CompactCell, span_count: usize) -> Option<Range<usize>> {
        let column = c.index as usize..c.index as usize + c.count as usize;
        (!column.is_empty() && column.end <= span_count).then_some(column)
    }

    /// Resolves the links of the spans of grid rows `rows` whose spans lie in `out`, which
    /// starts at span `first_span`. Each row's neighbours are read through row slices, so a
    /// link is one load and a range check.
    fn resolve_rows(
        chf: &CompactHeightfield,
        rows: Range<usize>,
        out: &mut [[u32; 4]],
        first_span: usize,
    ) {
        let spans = &chf.spans[..];
        // The span linked through `con` in neighbour column `neighbour`, if both exist.
        let link = |neighbour: Option<&CompactCell>, con: u32| match neighbour {
            Some(n) if con != NOT_CONNECTED && ((n.index + con) as usize) < spans.len() => {
                n.index + con
            }
            _ => Self::NONE,
        };
        for z in rows {
            // The rows were checked against the cells before the links are resolved.
            let CellRows { before, row, after } = chf.cell_rows(z);
            for (x, c) in row.iter().enumerate() {
                let Some(column) = Self::column(c, spans.len()) else {
                    continue;
                };
                let Some(out) = column
                    .start
                    .checked_sub(first_span)
                    .and_then(|start| out.get_mut(start..column.end - first_span))
                else {
                    continue;
                };
                // Links off the grid's sides count as missing.
                let left = x.checked_sub(1).map(|left| &row[left]);
                let (right, up, down) = (
                    row.get(x + 1),
                    after.map(|after| &after[x]),
                    before.map(|before| &before[x]),
                );
                for (span, out) in spans[column].iter().zip(out) {
                    *out = [
                        link(left, span.con(0)),
                        link(up, span.con(1)),
                        link(right, span.con(2)),
                        link(down, span.con(3)),
                    ];
                }
            }
        }
    }

    /// The neighbour of span `i` in direction `dir`.
    #[inline(always)]
    pub(crate) fn get(&self, i: usize, dir: usize) -> Option<usize> {
        let n = self.links[i][dir & 3];
        (n != Self::NONE).then_some(n as usize)
    }

    /// The four links of every span ([`Self::NONE`] where missing).
    #[inline(always)]
    pub(crate) fn all(&self) -> &[[u32; 4]] {
        &self.links
    }
}

/// Sets the distance of every border span to zero (the others are already `u16::MAX`), span
/// by span on rayon's threads.
fn mark_borders(split: Split, links: &SpanLinks, areas: &[u8], dist: &mut [u16]) {
    let chunks: Vec<_> = links
        .all()
        .chunks(SPANS_PER_TASK)
        .zip(areas.chunks(SPANS_PER_TASK))
        .zip(dist.chunks_mut(SPANS_PER_TASK))
        .collect();
    split.for_each(chunks, |((links, own_areas), dist)| {
        for ((l, &area), d) in links.iter().zip(own_areas).zip(dist) {
            let enclosed = l
                .iter()
                .all(|&n| n != SpanLinks::NONE && areas[n as usize] == area);
            if !enclosed {
                *d = 0;
            }
        }
    });
}

/// Lowers `dist[i]` to the distance through `from` plus `step`, if that is shorter.
#[inline(always)]
fn relax(dist: &mut [u16], i: usize, from: usize, step: u32) {
    let through = dist[from] as u32 + step;
    if through < dist[i] as u32 {
        dist[i] = through as u16;
    }
}

/// The two chamfer sweeps: first from the (-x, -z) corner, looking at the -x, -z and both lower
/// diagonal neighbours; then back from the (+x, +z) corner, looking the other way. (Spans of one
/// column never look at each other, so walking the spans backwards equals Recast's walk of the
/// cells backwards.)
fn chamfer_passes(links: &SpanLinks, dist: &mut [u16]) {
    for i in 0..dist.len() {
        relax_span::<0, 3, 3, 2>(links, dist, i);
    }
    for i in (0..dist.len()).rev() {
        relax_span::<2, 1, 1, 0>(links, dist, i);
    }
}

/// Relaxes span `i` through its straight neighbours `A` and `B` and through the diagonal ones
/// reached by turning from them to `A2` and `B2`.
#[inline(always)]
fn relax_span<const A: usize, const A2: usize, const B: usize, const B2: usize>(
    links: &SpanLinks,
    dist: &mut [u16],
    i: usize,
) {
    if let Some(a) = links.get(i, A) {
        relax(dist, i, a, 2);
        if let Some(aa) = links.get(a, A2) {
            relax(dist, i, aa, 3);
        }
    }
    if let Some(b) = links.get(i, B) {
        relax(dist, i, b, 2);
        if let Some(bb) = links.get(b, B2) {
            relax(dist, i, bb, 3);
        }
    }
}

/// Averages each span's distance with its eight neighbours (missing ones count as the span
/// itself), leaving spans close to a border untouched; span by span on rayon's threads.
fn box_blur(split: Split, links: &SpanLinks, src: &[u16], dst: &mut [u16]) {
    let chunks: Vec<_> = dst.chunks_mut(SPANS_PER_TASK).enumerate().collect();
    split.for_each(chunks, |(chunk, dst)| {
        for (k, d) in dst.iter_mut().enumerate() {
            let i = chunk * SPANS_PER_TASK + k;
            let own = src[i];
            *d = if own <= BLUR_THRESHOLD {
                own
            } else {
                let own = own as u32;
                let mut sum = own;
                for dir in 0..4 {
                    sum += match links.get(i, dir) {
                        Some(a) => {
                            src[a] as u32
                                + links.get(a, (dir + 1) & 3).map_or(own, |aa| src[aa] as u32)
                        }
                        None => own * 2,
                    };
                }
                ((sum + 5) / 9) as u16
            };
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recast::compact::{CompactCell, CompactSpan};
    use crate::{recast::dir_offset_x, recast::dir_offset_z};

    /// A flat `size` x `size` open floor, one span per cell, all connected.
    fn flat_floor(size: i32) -> CompactHeightfield {
        let mut spans = Vec::new();
        let mut cells = Vec::new();
        for z in 0..size {
            for x in 0..size {
                cells.push(CompactCell {
                    index: (x + z * size) as u32,
                    count: 1,
                });
                let mut span = CompactSpan {
                    con: 0xff_ffff,
                    h: 255,
                    ..Default::default()
                };
                for dir in 0..4 {
                    let nx = x + dir_offset_x(dir);
                    let nz = z + dir_offset_z(dir);
                    if (0..size).contains(&nx) && (0..size).contains(&nz) {
                        span.set_con(dir, 0);
                    }
                }
                spans.push(span);
            }
        }
        CompactHeightfield {
            width: size,
            height: size,
            areas: vec![crate::recast::WALKABLE_AREA; spans.len()],
            cells,
            spans,
            ..Default::default()
        }
    }

    #[test]
    fn distance_grows_towards_the_centre() {
        let mut chf = flat_floor(9);
        build_distance_field(&mut BuildContext::silent(), &mut chf).unwrap();
        // The centre is 4 straight steps from the border: 8 half-cells before blurring.
        assert_eq!(chf.max_distance, 8);
        assert_eq!(chf.dist[0], 0);
        // Near the border distances stay exact.
        assert_eq!(chf.dist[1 + 9], 2);
        // The blur averages the centre (8) with its eight neighbours (6 each): 56 / 9, rounded.
        assert_eq!(chf.dist[4 + 4 * 9], 6);
    }
}
