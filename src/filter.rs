//! Walkability filters on the solid heightfield (Recast's `RecastFilter.cpp`). Each one only
//! clears or copies span area ids; the spans themselves stay.

use crate::context::{BuildContext, TimerLabel};
use crate::heightfield::{Heightfield, NO_SPAN};
use crate::{NULL_AREA, dir_offset_x, dir_offset_z};

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
    for column in 0..hf.columns.len() {
        let mut previous_walkable = false;
        let mut previous_area = NULL_AREA;
        let mut previous_smax = 0i32;
        let mut index = hf.columns[column];
        while index != NO_SPAN {
            let span = &mut hf.pool[index as usize];
            let walkable = span.area != NULL_AREA;
            if !walkable
                && previous_walkable
                && i32::from(span.smax) - previous_smax <= walkable_climb
            {
                span.area = previous_area;
            }
            // The original walkability is carried up, so a stack of obstacles is not chained.
            previous_walkable = walkable;
            previous_area = span.area;
            previous_smax = i32::from(span.smax);
            index = span.next;
        }
    }
    ctx.stop_timer(TimerLabel::FilterLowObstacles);
}

/// Marks walkable spans next to a drop deeper than `walkable_climb`, or whose reachable
/// neighbours differ in height by more than `walkable_climb`, as not walkable (Recast's
/// `rcFilterLedgeSpans`). Spans on the grid border count as ledges.
pub fn filter_ledge_spans(
    ctx: &mut BuildContext,
    walkable_height: i32,
    walkable_climb: i32,
    hf: &mut Heightfield,
) {
    ctx.start_timer(TimerLabel::FilterBorder);
    let (width, height) = (hf.width, hf.height);
    for z in 0..height {
        for x in 0..width {
            let mut index = hf.columns[(x + z * width) as usize];
            while index != NO_SPAN {
                let span = hf.pool[index as usize];
                if span.area != NULL_AREA
                    && is_ledge(
                        hf,
                        x,
                        z,
                        span.smax,
                        span.next,
                        walkable_height,
                        walkable_climb,
                    )
                {
                    hf.pool[index as usize].area = NULL_AREA;
                }
                index = span.next;
            }
        }
    }
    ctx.stop_timer(TimerLabel::FilterBorder);
}

/// Whether the walkable span in column (`x`, `z`) with top `smax` (and next span `next`) is a
/// ledge or on too steep a slope.
fn is_ledge(
    hf: &Heightfield,
    x: i32,
    z: i32,
    smax: u16,
    next: u32,
    walkable_height: i32,
    walkable_climb: i32,
) -> bool {
    let floor = i32::from(smax);
    let ceiling = span_floor_or_sky(hf, next);
    // The range of neighbour floors within climbing distance.
    let mut lowest_traversable_floor = floor;
    let mut highest_traversable_floor = floor;

    for dir in 0..4 {
        let nx = x + dir_offset_x(dir);
        let nz = z + dir_offset_z(dir);
        if nx < 0 || nz < 0 || nx >= hf.width || nz >= hf.height {
            return true;
        }
        let mut neighbour = hf.columns[(nx + nz * hf.width) as usize];
        // The open space below the neighbour column's lowest span is a drop to the void.
        if ceiling.min(span_floor_or_sky(hf, neighbour)) - floor >= walkable_height {
            return true;
        }
        while neighbour != NO_SPAN {
            let span = hf.pool[neighbour as usize];
            neighbour = span.next;
            let neighbour_floor = i32::from(span.smax);
            let neighbour_ceiling = span_floor_or_sky(hf, span.next);
            if ceiling.min(neighbour_ceiling) - floor.max(neighbour_floor) < walkable_height {
                continue;
            }
            // A reachable drop deeper than the climb makes this a ledge whatever else is around
            // (Recast notes the lowest such difference and decides after all neighbours).
            let difference = neighbour_floor - floor;
            if difference < -walkable_climb {
                return true;
            }
            if difference <= walkable_climb {
                lowest_traversable_floor = lowest_traversable_floor.min(neighbour_floor);
                highest_traversable_floor = highest_traversable_floor.max(neighbour_floor);
            }
        }
    }
    highest_traversable_floor - lowest_traversable_floor > walkable_climb
}

/// The bottom of span `index`, or open sky for [`NO_SPAN`].
#[inline]
fn span_floor_or_sky(hf: &Heightfield, index: u32) -> i32 {
    if index == NO_SPAN {
        MAX_HEIGHTFIELD_HEIGHT
    } else {
        i32::from(hf.pool[index as usize].smin)
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
    for column in 0..hf.columns.len() {
        let mut index = hf.columns[column];
        while index != NO_SPAN {
            let span = hf.pool[index as usize];
            let ceiling = span_floor_or_sky(hf, span.next);
            if ceiling - i32::from(span.smax) < walkable_height {
                hf.pool[index as usize].area = NULL_AREA;
            }
            index = span.next;
        }
    }
    ctx.stop_timer(TimerLabel::FilterWalkable);
}
