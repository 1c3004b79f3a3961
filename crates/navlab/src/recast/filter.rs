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
    let limits = LedgeLimits::new(walkable_height, walkable_climb);
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
    /// The pool index of the span below when it is walkable, else [`NO_SPAN`]: the spans
    /// the ledge test looks at, since inside the grid only those with room above can be
    /// ledges.
    walkable_span: u32,
}

/// What the ledge test needs of a column: where its open space starts and the gaps above its
/// spans that an agent fits in (the others never pass the test).
#[derive(Clone, Copy)]
struct ColumnSpace {
    /// [`Self::sky_floor`] in the high half and [`Self::lower_ceiling`] in the low half, so
    /// that [`Self::is_level_with`] tests both at once.
    sky_floor_and_lower_ceiling: u32,
    first_lower_gap: u32,
    /// The floor of the lowest gap an agent fits in (or [`SKY`]) in the high half and
    /// [`Self::bottom`] in the low half, so that [`Self::is_level_at_lowest_gap`] tests both
    /// at once.
    lowest_gap_floor_and_bottom: u32,
    /// The pool index of the highest span when it is walkable and an agent fits above it,
    /// else [`NO_SPAN`].
    sky_span: u32,
    /// How many other gaps an agent fits in, starting at `first_lower_gap` of
    /// [`RowSpace::gaps`].
    lower_gap_count: u16,
    /// The floor of the second lowest gap an agent fits in, or [`SKY`].
    second_gap_floor: u16,
}

impl ColumnSpace {
    /// The top of the highest span, when an agent fits under the open sky above it; else
    /// [`SKY`], which no agent of a positive height can reach (and others always fit).
    fn sky_floor(&self) -> i32 {
        (self.sky_floor_and_lower_ceiling >> 16) as i32
    }

    /// The highest ceiling of the open space below the top span: the top of the last of the
    /// lower gaps, else the bottom of the lowest span. A span whose agent reaches higher meets
    /// only this column's sky, the case of most spans.
    fn lower_ceiling(&self) -> i32 {
        (self.sky_floor_and_lower_ceiling & 0xffff) as i32
    }

    /// The bottom of the lowest span, or open sky.
    fn bottom(&self) -> i32 {
        (self.lowest_gap_floor_and_bottom & 0xffff) as i32
    }

    /// Whether this neighbour column adds nothing to the ledge test of a span with top `floor`
    /// whose agent reaches up from `lowest_reachable_ceiling`: its sky starts at that floor
    /// and none of its open space below reaches the agent. Most neighbours on level ground are
    /// so, and one subtraction and one unsigned comparison tell: the difference is the lower
    /// ceiling when the sky floors match, and at least 2^16 when they do not. (A level floor
    /// is within any climb the test meets: a negative one makes every span a ledge first.)
    #[inline(always)]
    fn is_level_with(&self, floor: i32, lowest_reachable_ceiling: i32) -> bool {
        let level = (floor as u32) << 16;
        self.sky_floor_and_lower_ceiling.wrapping_sub(level)
            < lowest_reachable_ceiling.max(0) as u32
    }

    /// Like [`Self::is_level_with`], for the lowest of a stack of floors: whether the void
    /// below this column stays below the agent, its lowest gap starts at `floor` and its next
    /// gap above the agent's room (which ends at `highest_reachable_floor`), the case of most
    /// neighbours of a ground floor under another.
    #[inline(always)]
    fn is_level_at_lowest_gap(
        &self,
        floor: i32,
        lowest_reachable_ceiling: i32,
        highest_reachable_floor: i32,
    ) -> bool {
        let level = (floor as u32) << 16;
        self.lowest_gap_floor_and_bottom.wrapping_sub(level)
            < lowest_reachable_ceiling.max(0) as u32
            && i32::from(self.second_gap_floor) > highest_reachable_floor
    }
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
        let walkable = |span: &Span, index: u32| {
            if span.area != NULL_AREA {
                index
            } else {
                NO_SPAN
            }
        };
        let gaps = &mut self.gaps;
        gaps.clear();
        // Every column starts empty (a third of them stay so).
        self.columns.clear();
        self.columns.resize(width, EMPTY_COLUMN);
        let heads = &hf.columns[first..first + width];
        for (column, &head) in self.columns.iter_mut().zip(heads) {
            if head == NO_SPAN {
                continue;
            }
            let mut index = head;
            let mut span = &pool[index as usize];
            let bottom = span.smin;
            let mut lower_ceiling = bottom;
            let first_lower_gap = gaps.len();
            while span.next != NO_SPAN {
                let above = &pool[span.next as usize];
                if has_room(span.smax, above.smin) {
                    lower_ceiling = above.smin;
                    gaps.push(Gap {
                        floor: span.smax,
                        ceiling: above.smin,
                        walkable_span: walkable(span, index),
                    });
                }
                index = span.next;
                span = above;
            }
            let (sky_floor, sky_span) = if has_room(span.smax, SKY) {
                (span.smax, walkable(span, index))
            } else {
                (SKY, NO_SPAN)
            };
            let (lowest_gap_floor, second_gap_floor) = match &gaps[first_lower_gap..] {
                [] => (sky_floor, SKY),
                [lowest] => (lowest.floor, sky_floor),
                [lowest, second, ..] => (lowest.floor, second.floor),
            };
            *column = ColumnSpace {
                sky_floor_and_lower_ceiling: u32::from(sky_floor) << 16 | u32::from(lower_ceiling),
                lowest_gap_floor_and_bottom: u32::from(lowest_gap_floor) << 16 | u32::from(bottom),
                first_lower_gap: first_lower_gap as u32,
                sky_span,
                // A column holds at most one span per two of the 2^13 span heights.
                lower_gap_count: (gaps.len() - first_lower_gap) as u16,
                second_gap_floor,
            };
        }
    }
}

/// The summary of a column without spans: open from the void to the sky.
const EMPTY_COLUMN: ColumnSpace = ColumnSpace {
    sky_floor_and_lower_ceiling: (SKY as u32) << 16 | SKY as u32,
    lowest_gap_floor_and_bottom: (SKY as u32) << 16 | SKY as u32,
    first_lower_gap: 0,
    sky_span: NO_SPAN,
    lower_gap_count: 0,
    second_gap_floor: SKY,
};

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

/// The agent limits of the ledge test, clamped to where every span height compares with them as
/// the given values do, so that no sum or difference overflows.
struct LedgeLimits {
    walkable_height: i32,
    walkable_climb: i32,
}

/// A bound beyond which the limits compare with span heights (`0..=0xffff`) and their
/// differences as any larger value does.
const LIMIT_BOUND: i32 = 0x2_0000;

/// The state of one span's ledge test: its floor and the range of neighbour floors it can step
/// to.
struct Reach {
    floor: i32,
    /// The climb, at least 0.
    walkable_climb: i32,
    lowest_traversable_floor: i32,
    highest_traversable_floor: i32,
}

impl Reach {
    /// Folds in a neighbour gap that overlaps the agent's room with floor `neighbour_floor`;
    /// true for a drop deeper than the climb, which makes this a ledge whatever else is around
    /// (Recast notes the lowest such difference and decides after all neighbours).
    #[inline(always)]
    fn is_drop(&mut self, neighbour_floor: i32) -> bool {
        let difference = neighbour_floor - self.floor;
        // One unsigned comparison for -climb <= difference <= climb, the common case.
        if (difference + self.walkable_climb) as u32 <= 2 * self.walkable_climb as u32 {
            self.lowest_traversable_floor = self.lowest_traversable_floor.min(neighbour_floor);
            self.highest_traversable_floor = self.highest_traversable_floor.max(neighbour_floor);
            return false;
        }
        difference < 0
    }

    /// Whether the floors the span can step to differ by more than the climb: a steep slope.
    fn is_steep(&self) -> bool {
        self.highest_traversable_floor - self.lowest_traversable_floor > self.walkable_climb
    }
}

impl LedgeLimits {
    fn new(walkable_height: i32, walkable_climb: i32) -> Self {
        Self {
            walkable_height: walkable_height.clamp(-LIMIT_BOUND, LIMIT_BOUND),
            walkable_climb: walkable_climb.clamp(-LIMIT_BOUND, LIMIT_BOUND),
        }
    }

    /// The walkable spans of grid rows `rows` that are ledges (border columns have a
    /// neighbour outside the grid: a ledge for every span).
    fn ledges_in_rows(&self, hf: &Heightfield, rows: std::ops::Range<usize>) -> Vec<u32> {
        let (width, height) = (hf.width.max(0) as usize, hf.height.max(0) as usize);
        let mut ledges = Vec::new();
        // With a negative climb, even a span's own floor is out of reach: every walkable span
        // is too steep, as for Recast.
        let all_ledges = height < 3 || width < 3 || self.walkable_climb < 0;
        // The open space of rows z - 1, z and z + 1 at slots (z - 1) % 3, z % 3 and
        // (z + 1) % 3: three rows stay in cache where a whole-grid summary would not.
        let mut space: [RowSpace; 3] = Default::default();
        if !all_ledges {
            let before = rows.start.max(1) - 1;
            for r in before..before + 2 {
                space[r % 3].fill(hf, r * width, width, self.walkable_height);
            }
        }
        for z in rows {
            let row = z * width;
            if z == 0 || z + 1 == height || all_ledges {
                (row..row + width).for_each(|column| walkable_spans(hf, column, &mut ledges));
                continue;
            }
            space[(z + 1) % 3].fill(hf, row + width, width, self.walkable_height);
            let [below, here, above] = [z - 1, z, z + 1].map(|r| &space[r % 3]);
            walkable_spans(hf, row, &mut ledges);
            walkable_spans(hf, row + width - 1, &mut ledges);
            // Each inner column (the middle one along x) with its neighbours along x and the
            // columns above and below it.
            let inner = here
                .columns
                .windows(3)
                .zip(above.columns[1..].iter().zip(&below.columns[1..]));
            for (along, (above_column, below_column)) in inner {
                let column = &along[1];
                // Most columns hold no walkable span but the highest, and most of those are
                // level with their neighbours: settled here without the general test.
                if column.lower_gap_count == 0 {
                    if column.sky_span == NO_SPAN {
                        continue;
                    }
                    let neighbours = [&along[0], above_column, &along[2], below_column];
                    if self.is_level_under_sky(column, neighbours) {
                        continue;
                    }
                }
                let neighbours = [
                    (here, &along[0]),
                    (above, above_column),
                    (here, &along[2]),
                    (below, below_column),
                ];
                self.column_ledges(here, column, neighbours, &mut ledges);
            }
        }
        ledges
    }

    /// Pushes the ledges of `column` (of row `here`), given its `neighbours` columns (with
    /// their rows).
    #[inline(always)]
    fn column_ledges(
        &self,
        here: &RowSpace,
        column: &ColumnSpace,
        neighbours: [(&RowSpace, &ColumnSpace); 4],
        ledges: &mut Vec<u32>,
    ) {
        let mut skipped_gaps = [0; 4];
        // Only walkable spans with room above can be ledges here: those below this column's
        // gaps, from the bottom up.
        let first = column.first_lower_gap as usize;
        let lower_gaps = &here.gaps[first..first + usize::from(column.lower_gap_count)];
        for gap in lower_gaps {
            if gap.walkable_span != NO_SPAN
                && !self.is_level_at_lowest_gap(gap, neighbours)
                && self.is_ledge(
                    i32::from(gap.floor),
                    i32::from(gap.ceiling),
                    neighbours,
                    &mut skipped_gaps,
                )
            {
                ledges.push(gap.walkable_span);
            }
        }
        // (Columns without lower gaps come here only when not level.)
        if column.sky_span != NO_SPAN
            && (column.lower_gap_count == 0
                || !self.is_level_under_sky(column, neighbours.map(|(_, neighbour)| neighbour)))
            && self.is_ledge(
                column.sky_floor(),
                MAX_HEIGHTFIELD_HEIGHT,
                neighbours,
                &mut skipped_gaps,
            )
        {
            ledges.push(column.sky_span);
        }
    }

    /// Whether the highest span of `column` is level with all its `neighbours` (see
    /// [`ColumnSpace::is_level_with`]): not a ledge, the case of most spans.
    #[inline(always)]
    fn is_level_under_sky(&self, column: &ColumnSpace, neighbours: [&ColumnSpace; 4]) -> bool {
        let floor = column.sky_floor();
        let lowest_reachable_ceiling = floor + self.walkable_height;
        neighbours
            .iter()
            .all(|neighbour| neighbour.is_level_with(floor, lowest_reachable_ceiling))
    }

    /// Whether the span below `gap` is level with all its `neighbours` at their lowest gaps
    /// (see [`ColumnSpace::is_level_at_lowest_gap`]): not a ledge, the case of most spans under
    /// another floor.
    #[inline(always)]
    fn is_level_at_lowest_gap(
        &self,
        gap: &Gap,
        neighbours: [(&RowSpace, &ColumnSpace); 4],
    ) -> bool {
        let floor = i32::from(gap.floor);
        let lowest_reachable_ceiling = floor + self.walkable_height;
        let highest_reachable_floor = i32::from(gap.ceiling) - self.walkable_height;
        neighbours.iter().all(|(_, neighbour)| {
            neighbour.is_level_at_lowest_gap(
                floor,
                lowest_reachable_ceiling,
                highest_reachable_floor,
            )
        })
    }

    /// Whether a walkable span with open space `floor..ceiling` above it that an agent fits in,
    /// inside the grid, is a ledge or on too steep a slope, given its `neighbours` columns
    /// (with their rows).
    /// `skipped_gaps` counts, per neighbour, the lower gaps whose ceilings are below the
    /// agent's reach: a column's spans are tested from the bottom up, so a gap below one span's
    /// reach is below every later span's too.
    #[inline(always)]
    fn is_ledge(
        &self,
        floor: i32,
        ceiling: i32,
        neighbours: [(&RowSpace, &ColumnSpace); 4],
        skipped_gaps: &mut [usize; 4],
    ) -> bool {
        let mut reach = Reach {
            floor,
            walkable_climb: self.walkable_climb,
            lowest_traversable_floor: floor,
            highest_traversable_floor: floor,
        };
        // The overlap with a gap the agent fits in fits the agent unless the gap's floor is
        // too high or its ceiling too low.
        let highest_reachable_floor = ceiling - self.walkable_height;
        let lowest_reachable_ceiling = floor + self.walkable_height;
        for ((row, column), skipped) in neighbours.into_iter().zip(skipped_gaps) {
            // Either test only finds neighbours that add nothing; the one that finds more
            // depends on where the span is.
            let level = if ceiling == MAX_HEIGHTFIELD_HEIGHT {
                column.is_level_with(floor, lowest_reachable_ceiling)
            } else {
                column.is_level_at_lowest_gap(
                    floor,
                    lowest_reachable_ceiling,
                    highest_reachable_floor,
                )
            };
            if !level
                && row.column_is_drop(
                    column,
                    &mut reach,
                    highest_reachable_floor,
                    lowest_reachable_ceiling,
                    skipped,
                )
            {
                return true;
            }
        }
        reach.is_steep()
    }
}

impl RowSpace {
    /// Folds the open space of `column` (one of this row's) into `reach`; true for a drop
    /// deeper than the climb. See [`LedgeLimits::is_ledge`] for `skipped`.
    #[inline(always)]
    fn column_is_drop(
        &self,
        column: &ColumnSpace,
        reach: &mut Reach,
        highest_reachable_floor: i32,
        lowest_reachable_ceiling: i32,
        skipped: &mut usize,
    ) -> bool {
        if column.lower_ceiling() >= lowest_reachable_ceiling
            && self.lower_space_is_drop(
                column,
                reach,
                highest_reachable_floor,
                lowest_reachable_ceiling,
                skipped,
            )
        {
            return true;
        }
        // The sky's ceiling is above any span's, so only its floor can miss the room.
        let sky_floor = column.sky_floor();
        sky_floor <= highest_reachable_floor && reach.is_drop(sky_floor)
    }

    /// Folds the open space below the top span of `column` (one of this row's) into `reach`;
    /// true for a drop deeper than the climb. See [`LedgeLimits::is_ledge`] for `skipped`.
    #[inline(always)]
    fn lower_space_is_drop(
        &self,
        column: &ColumnSpace,
        reach: &mut Reach,
        highest_reachable_floor: i32,
        lowest_reachable_ceiling: i32,
        skipped: &mut usize,
    ) -> bool {
        // The open space below the neighbour's lowest span is a drop to the void.
        if column.bottom() >= lowest_reachable_ceiling {
            return true;
        }
        let first = column.first_lower_gap as usize;
        let lower_gaps = &self.gaps[first..first + usize::from(column.lower_gap_count)];
        // A column's gaps rise with their index, floors and ceilings alike, so the gaps that
        // can overlap the agent's room are one run: from the first whose ceiling reaches it to
        // the last whose floor does. The others fold in nothing, and on stacked floors skipping
        // them keeps the test from growing with the square of the floors.
        while *skipped < lower_gaps.len()
            && i32::from(lower_gaps[*skipped].ceiling) < lowest_reachable_ceiling
        {
            *skipped += 1;
        }
        for gap in &lower_gaps[*skipped..] {
            if i32::from(gap.floor) > highest_reachable_floor {
                break;
            }
            if reach.is_drop(i32::from(gap.floor)) {
                return true;
            }
        }
        false
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
        // Nearly half the spans are not walkable (or no longer): no need to look above them.
        if span.area != NULL_AREA
            && span_floor_or_sky(pool, span.next) - i32::from(span.smax) < walkable_height
        {
            pool[index].area = NULL_AREA;
        }
    }
    ctx.stop_timer(TimerLabel::FilterWalkable);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recast::WALKABLE_AREA;
    use crate::recast::heightfield::SPAN_MAX_HEIGHT;
    use crate::recast::rasterize::add_span;

    /// A `width`×`height` heightfield whose columns hold from no span to a dozen, walkable or
    /// not, with gaps from one voxel to `widest_gap` (more than most agents' heights); some
    /// tops reach the heightfield's limit.
    fn random_heightfield(seed: u32, width: i32, height: i32, widest_gap: u32) -> Heightfield {
        let mut state = seed;
        let mut next = move |n: u32| {
            state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            (state >> 8) % n
        };
        let mut hf = Heightfield::new(width, height, [0.0; 3], [1.0; 3], 1.0, 1.0);
        let mut ctx = BuildContext::new();
        for z in 0..height {
            for x in 0..width {
                let spans = [0, 1, 1, 1, 2, 2, 3, 12][next(8) as usize];
                let mut bottom = next(8) as u16;
                for _ in 0..spans {
                    let top = (bottom + 1 + next(4) as u16).min(SPAN_MAX_HEIGHT);
                    if bottom >= top {
                        break;
                    }
                    let area = if next(4) == 0 {
                        NULL_AREA
                    } else {
                        WALKABLE_AREA
                    };
                    add_span(&mut ctx, &mut hf, x, z, bottom..top, area, 0).unwrap();
                    bottom = top + 1 + next(widest_gap) as u16;
                    if next(16) == 0 {
                        bottom = SPAN_MAX_HEIGHT - 2;
                    }
                }
            }
        }
        hf
    }

    /// Recast's ledge test as written, in 64-bit arithmetic: every walkable span against every
    /// gap of its four neighbours, the void below a column's lowest span included.
    fn ledges_by_full_scan(
        hf: &Heightfield,
        walkable_height: i32,
        walkable_climb: i32,
    ) -> Vec<bool> {
        let (walkable_height, walkable_climb) =
            (i64::from(walkable_height), i64::from(walkable_climb));
        let sky = i64::from(MAX_HEIGHTFIELD_HEIGHT);
        let gaps = |x: i32, z: i32| -> Vec<(i64, i64)> {
            let spans: Vec<_> = hf.column(x, z).collect();
            let mut gaps = vec![(
                i64::MIN / 4,
                spans.first().map_or(sky, |s| i64::from(s.smin)),
            )];
            for (k, span) in spans.iter().enumerate() {
                let ceiling = spans.get(k + 1).map_or(sky, |s| i64::from(s.smin));
                gaps.push((i64::from(span.smax), ceiling));
            }
            gaps
        };
        let mut ledges = Vec::new();
        for z in 0..hf.height {
            for x in 0..hf.width {
                let spans: Vec<_> = hf.column(x, z).collect();
                for (k, span) in spans.iter().enumerate() {
                    if span.area == NULL_AREA {
                        ledges.push(false);
                        continue;
                    }
                    let floor = i64::from(span.smax);
                    let ceiling = spans.get(k + 1).map_or(sky, |s| i64::from(s.smin));
                    let (mut lowest, mut highest) = (floor, floor);
                    let mut lowest_difference = sky;
                    for (dx, dz) in [(-1, 0), (0, 1), (1, 0), (0, -1)] {
                        let (nx, nz) = (x + dx, z + dz);
                        if nx < 0 || nz < 0 || nx >= hf.width || nz >= hf.height {
                            lowest_difference = -walkable_climb - 1;
                            break;
                        }
                        for (neighbour_floor, neighbour_ceiling) in gaps(nx, nz) {
                            let overlap =
                                ceiling.min(neighbour_ceiling) - floor.max(neighbour_floor);
                            if overlap >= walkable_height {
                                let difference = neighbour_floor - floor;
                                lowest_difference = lowest_difference.min(difference);
                                if difference.abs() <= walkable_climb {
                                    lowest = lowest.min(neighbour_floor);
                                    highest = highest.max(neighbour_floor);
                                }
                            }
                        }
                    }
                    ledges.push(
                        lowest_difference < -walkable_climb || highest - lowest > walkable_climb,
                    );
                }
            }
        }
        ledges
    }

    #[test]
    fn ledges_match_a_full_scan_for_any_agent() {
        let heights = [
            i32::MIN,
            -70_000,
            -5,
            -3,
            -2,
            -1,
            0,
            1,
            2,
            3,
            5,
            9,
            30,
            70_000,
            i32::MAX,
        ];
        let climbs = [i32::MIN + 1, -70_000, -1, 0, 1, 2, 3, 8, 70_000, i32::MAX];
        let fields = [
            (1, 1, 14),
            (1, 5, 14),
            (2, 2, 14),
            (3, 3, 14),
            (7, 4, 14),
            (9, 70, 14),
            (12, 12, 3),
            (20, 9, 6),
            (5, 40, 4),
        ];
        for (seed, &(width, height, widest_gap)) in (1..).zip(&fields) {
            let fresh = random_heightfield(seed, width, height, widest_gap);
            let walkable: Vec<bool> = fresh.spans().map(|s| s.area != NULL_AREA).collect();
            for walkable_height in heights {
                for walkable_climb in climbs {
                    let expected = ledges_by_full_scan(&fresh, walkable_height, walkable_climb);
                    let mut hf = fresh.clone();
                    let mut ctx = BuildContext::new();
                    filter_ledge_spans(&mut ctx, walkable_height, walkable_climb, &mut hf);
                    let kept: Vec<bool> = hf.spans().map(|s| s.area != NULL_AREA).collect();
                    let expected_kept: Vec<bool> = walkable
                        .iter()
                        .zip(&expected)
                        .map(|(&w, &l)| w && !l)
                        .collect();
                    assert_eq!(
                        kept, expected_kept,
                        "{width}x{height} height {walkable_height} climb {walkable_climb}"
                    );
                }
            }
        }
    }
}
