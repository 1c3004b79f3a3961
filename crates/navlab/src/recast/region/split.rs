//! Cutting regions that overlap themselves in height into pieces that do not: what Recast's
//! `rcBuildRegions` leaves as a note after counting them. A spiral ramp's watershed region
//! winds round over itself, and the contour and polygon stages then lose part of it.
//!
//! A region overlaps when one column holds two of its spans. Such a region is cut with a
//! horizontal plane halfway up its floors; each side falls apart into its connected pieces, and
//! every piece that still overlaps is cut again, halfway up its own floors. A piece whose floors
//! span fewer cells than the smallest vertical distance between two of its stacked spans has no
//! column twice, so the cutting ends after a few rounds.

use crate::memory::try_filled;
use crate::recast::compact::CompactHeightfield;
use crate::recast::distance_field::neighbour;
use crate::recast::{BORDER_REG, Result};

/// What [`split_overlapping_regions`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct OverlapSplit {
    /// Regions that overlapped themselves.
    pub regions: usize,
    /// The pieces they were cut into.
    pub pieces: usize,
}

/// A connected set of spans of one region, each with its cell.
struct Piece {
    region: u16,
    spans: Vec<(usize, usize)>,
}

/// Cuts every non-border region of `chf` with two spans in one column into connected pieces
/// with at most one span per column. The largest piece of a region keeps its id, the others
/// get new ids after `chf.max_regions`, which grows to the last one. Returns `Ok(None)` when
/// a piece would need an id with the border bit ([`BORDER_REG`]), leaving `chf` unchanged.
pub(super) fn split_overlapping_regions(
    chf: &mut CompactHeightfield,
) -> Result<Option<OverlapSplit>> {
    let mut pending = overlapping_regions(chf);
    let regions = pending.len();
    if regions == 0 {
        return Ok(Some(OverlapSplit::default()));
    }

    // Which piece (or side of a cut) each span belongs to while cutting; labels are never
    // reused, so nothing needs clearing between cuts.
    let mut label = try_filled(chf.spans.len(), 0usize, || chf.describe("split labels"))?;
    let mut column_seen = try_filled(chf.cells.len(), 0usize, || chf.describe("split columns"))?;
    let mut next_label = 1usize;
    let mut done: Vec<Piece> = Vec::new();
    let mut queue = Vec::new();
    while let Some(piece) = pending.pop() {
        next_label += 1;
        let stamp = next_label;
        let overlaps = piece
            .spans
            .iter()
            .any(|&(_, cell)| std::mem::replace(&mut column_seen[cell], stamp) == stamp);
        if !overlaps {
            done.push(piece);
            continue;
        }
        let (low, high) = piece
            .spans
            .iter()
            .fold((u16::MAX, 0), |(low, high), &(span, _)| {
                let y = chf.spans[span].y;
                (low.min(y), high.max(y))
            });
        // Two spans of one column have different floors, so both sides are non-empty.
        let cut = low + (high - low).div_ceil(2);
        let (below, above) = (next_label + 1, next_label + 2);
        next_label += 2;
        for &(span, _) in &piece.spans {
            label[span] = if chf.spans[span].y < cut {
                below
            } else {
                above
            };
        }
        for &(seed, seed_cell) in &piece.spans {
            let side = label[seed];
            if side != below && side != above {
                continue;
            }
            next_label += 1;
            let own = next_label;
            label[seed] = own;
            let mut spans = vec![(seed, seed_cell)];
            queue.clear();
            queue.push((seed, seed_cell));
            while let Some((span, cell)) = queue.pop() {
                for dir in 0..4 {
                    if let Some((next, next_cell)) = neighbour(chf, cell, span, dir)
                        && label[next] == side
                    {
                        label[next] = own;
                        spans.push((next, next_cell));
                        queue.push((next, next_cell));
                    }
                }
            }
            pending.push(Piece {
                region: piece.region,
                spans,
            });
        }
    }

    // The largest piece of each region keeps its id, in the order the pieces were finished.
    done.sort_by_key(|piece| (piece.region, std::cmp::Reverse(piece.spans.len())));
    let pieces = done.len();
    let mut next_id = chf.max_regions;
    let mut ids = Vec::with_capacity(pieces);
    for (k, piece) in done.iter().enumerate() {
        if k > 0 && done[k - 1].region == piece.region {
            next_id += 1;
            if next_id & BORDER_REG != 0 {
                return Ok(None);
            }
            ids.push(next_id);
        } else {
            ids.push(piece.region);
        }
    }
    for (piece, id) in done.iter().zip(ids) {
        for &(span, _) in &piece.spans {
            chf.spans[span].reg = id;
        }
    }
    chf.max_regions = next_id;
    Ok(Some(OverlapSplit { regions, pieces }))
}

/// The spans of every non-border region that has two spans in one column, one piece per
/// region, in id order.
fn overlapping_regions(chf: &CompactHeightfield) -> Vec<Piece> {
    let region_count = usize::from(chf.max_regions) + 1;
    let mut last_column = vec![usize::MAX; region_count];
    let mut overlaps = vec![false; region_count];
    let region_of = |span: usize| {
        let reg = chf.spans[span].reg;
        (reg != 0 && reg & BORDER_REG == 0 && usize::from(reg) < region_count)
            .then_some(usize::from(reg))
    };
    for (span, cell) in spans_with_cells(chf) {
        if let Some(reg) = region_of(span) {
            overlaps[reg] |= std::mem::replace(&mut last_column[reg], cell) == cell;
        }
    }
    let mut pieces: Vec<Piece> = Vec::new();
    let mut piece_of = vec![usize::MAX; region_count];
    for (reg, _) in overlaps.iter().enumerate().filter(|&(_, &o)| o) {
        piece_of[reg] = pieces.len();
        pieces.push(Piece {
            region: reg as u16,
            spans: Vec::new(),
        });
    }
    for (span, cell) in spans_with_cells(chf) {
        if let Some(reg) = region_of(span)
            && overlaps[reg]
        {
            pieces[piece_of[reg]].spans.push((span, cell));
        }
    }
    // Popped last first: reversed, the lowest id is cut first.
    pieces.reverse();
    pieces
}

/// Every span index with its cell, in storage order.
fn spans_with_cells(chf: &CompactHeightfield) -> impl Iterator<Item = (usize, usize)> + '_ {
    chf.cells.iter().enumerate().flat_map(|(cell, c)| {
        (c.index as usize..(c.index + c.count) as usize).map(move |span| (span, cell))
    })
}
