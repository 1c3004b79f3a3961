//! Walkability filters on the solid heightfield (Recast's `RecastFilter.cpp`). Each one only
//! clears or copies span area ids; the spans themselves stay.

use crate::recast::parallel::Split;

use crate::recast::NULL_AREA;
use crate::recast::context::{BuildContext, TimerLabel};
use crate::recast::heightfield::{Heightfield, NO_SPAN, Span};

/// The ceiling of a column's top span: open sky.
const MAX_HEIGHTFIELD_HEIGHT: i32 = 0xffff;

/// Makes a non-walkable span walkable when it sits at most `walkable_climb` above a walkable span
/// directly below it, so agents can step onto curbs and stairs (Recast's
/// `rcFilterLowHangingWalkableObstacles`). Only the first of a stack of such spans is changed.
pub fn filter_low_hanging_walkable_obstacles(
    ctx: &mut BuildContext,
    walkable_climb: i32,
    hf: &mut Heightfield,
) {
    ctx.start_timer(TimerLabel::FilterLowObstacles);
    // A span's new area depends only on its own and the span below's original values, so the
    // pool is read in memory order, not column by column; the changes are applied afterwards so
    // that a changed span never counts as walkable for the one above it. Free pool slots only
    // chain to each other, so whatever the pass finds for them lands on free slots.
    let pool = &mut hf.pool;
    let mut raised = Vec::new();
    for below in pool.iter() {
        if below.area == NULL_AREA || below.next == NO_SPAN {
            continue;
        }
        let span = &pool[below.next as usize];
        if span.area == NULL_AREA && i32::from(span.smax) - i32::from(below.smax) <= walkable_climb
        {
            raised.push((below.next, below.area));
        }
    }
    for (index, area) in raised {
        pool[index as usize].area = area;
    }
    ctx.stop_timer(TimerLabel::FilterLowObstacles);
}

/// Marks walkable spans next to a drop deeper than `walkable_climb`, or whose reachable
/// neighbours differ in height by more than `walkable_climb`, as not walkable (Recast's
/// `rcFilterLedgeSpans`). Spans on the grid border count as ledges.
///
/// Only span heights decide, never the areas the filter clears, so the neighbours are looked up
/// in a summary of each column's open space (kept for three rows at a time) instead of walking
/// their span lists.
pub fn filter_ledge_spans(
    ctx: &mut BuildContext,
    walkable_height: i32,
    walkable_climb: i32,
    hf: &mut Heightfield,
) {
    ctx.start_timer(TimerLabel::FilterBorder);
    let height = hf.height.max(0) as usize;
    let limits = LedgeLimits {
        walkable_height,
        walkable_climb,
    };
    // Bands of rows find their ledges on rayon's threads, reading only span heights and the
    // areas of their own spans, which is all the test reads; the areas change afterwards.
    let firsts: Vec<usize> = (0..height).step_by(LEDGE_ROWS_PER_TASK).collect();
    let ledges: Vec<Vec<u32>> = Split::for_cells(hf.columns.len()).map(firsts, |first| {
        let rows = first..(first + LEDGE_ROWS_PER_TASK).min(height);
        limits.ledges_in_rows(hf, rows)
    });
    for index in ledges.into_iter().flatten() {
        hf.pool[index as usize].area = NULL_AREA;
    }
    ctx.stop_timer(TimerLabel::FilterBorder);
}

/// Grid rows per task of the ledge filter; the result does not depend on it.
const LEDGE_ROWS_PER_TASK: usize = 32;

/// Open space above a span: from its top to the bottom of the span above.
#[derive(Clone, Copy)]
struct Gap {
    floor: u16,
    ceiling: u16,
}

/// What the ledge test needs of a column: where its open space starts and the gaps above its
/// spans that an agent fits in (the others never pass the test).
#[derive(Clone, Copy)]
struct ColumnSpace {
    /// The bottom of the lowest span, or open sky.
    bottom: u16,
    /// The top of the highest span, when an agent fits under the open sky above it; else
    /// [`SKY`], which no agent of a positive height can reach (and others always fit).
    sky_floor: u16,
    /// How many other gaps an agent fits in, starting at `first_lower_gap` of
    /// [`RowSpace::gaps`].
    lower_gap_count: u32,
    first_lower_gap: u32,
}

/// The [`ColumnSpace`] of each column of one grid row. The sky above the highest span is kept
/// apart: most columns have no other gap an agent fits in.
#[derive(Default)]
struct RowSpace {
    columns: Vec<ColumnSpace>,
    gaps: Vec<Gap>,
}

impl RowSpace {
    /// Summarises the `width` columns from index `first`, reusing this row's buffers.
    fn fill(&mut self, hf: &Heightfield, first: usize, width: usize, walkable_height: i32) {
        let pool = &hf.pool;
        let has_room =
            |floor: u16, ceiling: u16| i32::from(ceiling) - i32::from(floor) >= walkable_height;
        let gaps = &mut self.gaps;
        gaps.clear();
        self.columns.clear();
        self.columns
            .extend(hf.columns[first..first + width].iter().map(|&head| {
                if head == NO_SPAN {
                    return ColumnSpace {
                        bottom: SKY,
                        sky_floor: SKY,
                        lower_gap_count: 0,
                        first_lower_gap: 0,
                    };
                }
                let mut span = &pool[head as usize];
                let bottom = span.smin;
                let first_lower_gap = gaps.len();
                while span.next != NO_SPAN {
                    let above = &pool[span.next as usize];
                    if has_room(span.smax, above.smin) {
                        gaps.push(Gap {
                            floor: span.smax,
                            ceiling: above.smin,
                        });
                    }
                    span = above;
                }
                ColumnSpace {
                    bottom,
                    sky_floor: if has_room(span.smax, SKY) {
                        span.smax
                    } else {
                        SKY
                    },
                    lower_gap_count: (gaps.len() - first_lower_gap) as u32,
                    first_lower_gap: first_lower_gap as u32,
                }
            }));
    }
}

/// Pushes the walkable spans of a column to `out`.
fn walkable_spans(hf: &Heightfield, column: usize, out: &mut Vec<u32>) {
    let mut index = hf.columns[column];
    while index != NO_SPAN {
        let span = &hf.pool[index as usize];
        if span.area != NULL_AREA {
            out.push(index);
        }
        index = span.next;
    }
}

/// The open sky above a column's highest span, as a `u16` height.
const SKY: u16 = MAX_HEIGHTFIELD_HEIGHT as u16;

/// The agent limits of the ledge test.
struct LedgeLimits {
    walkable_height: i32,
    walkable_climb: i32,
}

impl LedgeLimits {
    /// The walkable spans of grid rows `rows` that are ledges (border columns have a
    /// neighbour outside the grid: a ledge for every span).
    fn ledges_in_rows(&self, hf: &Heightfield, rows: std::ops::Range<usize>) -> Vec<u32> {
        let (width, height) = (hf.width.max(0) as usize, hf.height.max(0) as usize);
        let mut ledges = Vec::new();
        // The open space of rows z - 1, z and z + 1 at slots (z - 1) % 3, z % 3 and
        // (z + 1) % 3: three rows stay in cache where a whole-grid summary would not.
        let mut space: [RowSpace; 3] = Default::default();
        if height >= 3 && width >= 3 {
            let before = rows.start.max(1) - 1;
            for r in before..before + 2 {
                space[r % 3].fill(hf, r * width, width, self.walkable_height);
            }
        }
        for z in rows {
            let row = z * width;
            if z == 0 || z + 1 == height || width < 3 {
                (row..row + width).for_each(|column| walkable_spans(hf, column, &mut ledges));
                continue;
            }
            space[(z + 1) % 3].fill(hf, row + width, width, self.walkable_height);
            let [below, here, above] = [z - 1, z, z + 1].map(|r| &space[r % 3]);
            walkable_spans(hf, row, &mut ledges);
            walkable_spans(hf, row + width - 1, &mut ledges);
            for x in 1..width - 1 {
                let mut index = hf.columns[row + x];
                let mut skipped_gaps = [0; 4];
                while index != NO_SPAN {
                    let span = hf.pool[index as usize];
                    if span.area != NULL_AREA {
                        let floor = i32::from(span.smax);
                        let ceiling = span_floor_or_sky(&hf.pool, span.next);
                        let neighbours = [(here, x - 1), (above, x), (here, x + 1), (below, x)];
                        if self.is_ledge(floor, ceiling, neighbours, &mut skipped_gaps) {
                            ledges.push(index);
                        }
                    }
                    index = span.next;
                }
            }
        }
        ledges
    }

    /// Whether a walkable span with open space `floor..ceiling` above it, inside the grid, is a
    /// ledge or on too steep a slope, given its `neighbours` columns. `skipped_gaps` counts,
    /// per neighbour, the lower gaps whose ceilings are below the agent's reach: a column's
    /// spans are tested from the bottom up, so a gap below one span's reach is below every
    /// later span's too.
    fn is_ledge(
        &self,
        floor: i32,
        ceiling: i32,
        neighbours: [(&RowSpace, usize); 4],
        skipped_gaps: &mut [usize; 4],
    ) -> bool {
        // The range of neighbour floors within climbing distance.
        let mut lowest_traversable_floor = floor;
        let mut highest_traversable_floor = floor;
        // Where the agent does not fit above the span, it fits in no overlap with a neighbour.
        if ceiling - floor >= self.walkable_height {
            // The overlap with a gap the agent fits in fits the agent unless the gap's floor is
            // too high or its ceiling too low.
            let highest_reachable_floor = ceiling.saturating_sub(self.walkable_height);
            let lowest_reachable_ceiling = floor.saturating_add(self.walkable_height);
            // Folds in one neighbour gap; true for a drop deeper than the climb, which makes
            // this a ledge whatever else is around (Recast notes the lowest such difference and
            // decides after all neighbours).
            let mut is_drop = |neighbour_floor: i32, neighbour_ceiling: i32| {
                if neighbour_floor > highest_reachable_floor
                    || neighbour_ceiling < lowest_reachable_ceiling
                {
                    return false;
                }
                let difference = neighbour_floor - floor;
                if difference < -self.walkable_climb {
                    return true;
                }
                if difference <= self.walkable_climb {
                    lowest_traversable_floor = lowest_traversable_floor.min(neighbour_floor);
                    highest_traversable_floor = highest_traversable_floor.max(neighbour_floor);
                }
                false
            };
            for ((row, x), skipped) in neighbours.into_iter().zip(skipped_gaps) {
                let space = row.columns[x];
                // The open space below the neighbour's lowest span is a drop to the void.
                if i32::from(space.bottom) >= lowest_reachable_ceiling
                    || is_drop(i32::from(space.sky_floor), i32::from(SKY))
                {
                    return true;
                }
                if space.lower_gap_count > 0 {
                    let first = space.first_lower_gap as usize;
                    let lower_gaps = &row.gaps[first..first + space.lower_gap_count as usize];
                    // A column's gaps rise with their index, floors and ceilings alike, so the
                    // gaps that can overlap the agent's room are one run: from the first whose
                    // ceiling reaches it to the last whose floor does. The others fold in
                    // nothing, and on stacked floors skipping them keeps the test from growing
                    // with the square of the floors.
                    while *skipped < lower_gaps.len()
                        && i32::from(lower_gaps[*skipped].ceiling) < lowest_reachable_ceiling
                    {
                        *skipped += 1;
                    }
                    for gap in &lower_gaps[*skipped..] {
                        if i32::from(gap.floor) > highest_reachable_floor {
                            break;
                        }
                        if is_drop(i32::from(gap.floor), i32::from(gap.ceiling)) {
                            return true;
                        }
                    }
                }
            }
        }
        highest_traversable_floor - lowest_traversable_floor > self.walkable_climb
    }
}

/// The bottom of span `index`, or open sky for [`NO_SPAN`].
#[inline]
fn span_floor_or_sky(pool: &[Span], index: u32) -> i32 {
    if index == NO_SPAN {
        MAX_HEIGHTFIELD_HEIGHT
    } else {
        i32::from(pool[index as usize].smin)
    }
}

/// Marks spans with less than `walkable_height` of free space above them as not walkable
/// (Recast's `rcFilterWalkableLowHeightSpans`).
pub fn filter_walkable_low_height_spans(
    ctx: &mut BuildContext,
    walkable_height: i32,
    hf: &mut Heightfield,
) {
    ctx.start_timer(TimerLabel::FilterWalkable);
    // Each span is judged by its own top and the bottom of the span above, so the pool is read
    // in memory order, not column by column (free slots chain only to free slots, and what the
    // pass writes there is never read).
    let pool = &mut hf.pool;
    for index in 0..pool.len() {
        let span = pool[index];
        let ceiling = span_floor_or_sky(pool, span.next);
        if ceiling - i32::from(span.smax) < walkable_height {
            pool[index].area = NULL_AREA;
        }
    }
    ctx.stop_timer(TimerLabel::FilterWalkable);
}
