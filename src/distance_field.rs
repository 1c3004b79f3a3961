//! The distance field: for every walkable span, an approximate distance to the nearest border
//! (a span that lacks a same-area neighbour in one of the four directions). Watershed
//! partitioning floods regions outwards from the maxima of this field (Recast's
//! `rcBuildDistanceField`).

use crate::Result;
use crate::compact::{CompactHeightfield, NOT_CONNECTED};
use crate::context::{BuildContext, TimerLabel};

/// Distances at or below this value (in half-cells) are left unblurred, so thin corridors keep
/// their exact border distance.
const BLUR_THRESHOLD: u16 = 2;

/// Computes `chf.dist` (blurred border distance per span, in units of half a cell: 2 per straight
/// step, 3 per diagonal step) and `chf.max_distance` (the largest distance before blurring).
pub fn build_distance_field(ctx: &mut BuildContext, chf: &mut CompactHeightfield) -> Result<()> {
    ctx.start_timer(TimerLabel::BuildDistanceField);

    let span_count = chf.spans.len();
    let mut dist = std::mem::take(&mut chf.dist);
    dist.clear();
    dist.resize(span_count, u16::MAX);

    ctx.start_timer(TimerLabel::BuildDistanceFieldDist);
    mark_borders(chf, &mut dist);
    chamfer_passes(chf, &mut dist);
    chf.max_distance = dist.iter().copied().max().unwrap_or(0);
    ctx.stop_timer(TimerLabel::BuildDistanceFieldDist);

    ctx.start_timer(TimerLabel::BuildDistanceFieldBlur);
    let mut blurred = vec![0u16; span_count];
    box_blur(chf, &dist, &mut blurred);
    chf.dist = blurred;
    ctx.stop_timer(TimerLabel::BuildDistanceFieldBlur);

    ctx.stop_timer(TimerLabel::BuildDistanceField);
    Ok(())
}

/// Index of the cell next to `cell` in direction `dir`, for a grid `width` cells wide.
#[inline]
fn step_cell(cell: usize, width: usize, dir: usize) -> usize {
    match dir & 3 {
        0 => cell.wrapping_sub(1),
        1 => cell + width,
        2 => cell + 1,
        _ => cell.wrapping_sub(width),
    }
}

/// Span index and cell of the neighbour of span `span` (in `cell`) in direction `dir`.
#[inline]
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

/// Sets the distance of every border span to zero (the others are already `u16::MAX`).
fn mark_borders(chf: &CompactHeightfield, dist: &mut [u16]) {
    for (cell, c) in chf.cells.iter().enumerate() {
        let column = c.index as usize..(c.index + c.count) as usize;
        for (i, d) in column.clone().zip(&mut dist[column]) {
            let area = chf.areas[i];
            let enclosed = (0..4).all(|dir| {
                neighbour(chf, cell, i, dir).is_some_and(|(ni, _)| chf.areas[ni] == area)
            });
            if !enclosed {
                *d = 0;
            }
        }
    }
}

/// Lowers `dist[i]` to the distance through `from` plus `step`, if that is shorter.
#[inline]
fn relax(dist: &mut [u16], i: usize, from: usize, step: u32) {
    let through = dist[from] as u32 + step;
    if through < dist[i] as u32 {
        dist[i] = through as u16;
    }
}

/// The two chamfer sweeps: first from the (-x, -z) corner, looking at the -x, -z and both lower
/// diagonal neighbours; then back from the (+x, +z) corner, looking the other way.
fn chamfer_passes(chf: &CompactHeightfield, dist: &mut [u16]) {
    let width = chf.width.max(0) as usize;
    let height = chf.height.max(0) as usize;
    // Each pass visits a straight neighbour and then the diagonal one reached by turning from it.
    let mut sweep = |cell: usize, first: [usize; 2], second: [usize; 2]| {
        let c = chf.cells[cell];
        for i in c.index as usize..(c.index + c.count) as usize {
            for [straight, turn] in [first, second] {
                if let Some((ai, acell)) = neighbour(chf, cell, i, straight) {
                    relax(dist, i, ai, 2);
                    if let Some((aai, _)) = neighbour(chf, acell, ai, turn) {
                        relax(dist, i, aai, 3);
                    }
                }
            }
        }
    };
    for cell in 0..width * height {
        sweep(cell, [0, 3], [3, 2]);
    }
    for cell in (0..width * height).rev() {
        sweep(cell, [2, 1], [1, 0]);
    }
}

/// Averages each span's distance with its eight neighbours (missing ones count as the span
/// itself), leaving spans close to a border untouched.
fn box_blur(chf: &CompactHeightfield, src: &[u16], dst: &mut [u16]) {
    let threshold = BLUR_THRESHOLD;
    for (cell, c) in chf.cells.iter().enumerate() {
        for i in c.index as usize..(c.index + c.count) as usize {
            let own = src[i];
            if own <= threshold {
                dst[i] = own;
                continue;
            }
            let own = own as u32;
            let mut sum = own;
            for dir in 0..4 {
                match neighbour(chf, cell, i, dir) {
                    Some((ai, acell)) => {
                        sum += src[ai] as u32;
                        sum += match neighbour(chf, acell, ai, (dir + 1) & 3) {
                            Some((ai2, _)) => src[ai2] as u32,
                            None => own,
                        };
                    }
                    None => sum += own * 2,
                }
            }
            dst[i] = ((sum + 5) / 9) as u16;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compact::{CompactCell, CompactSpan};
    use crate::{dir_offset_x, dir_offset_z};

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
            areas: vec![crate::WALKABLE_AREA; spans.len()],
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
