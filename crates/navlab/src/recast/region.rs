//! Region partitioning: splits the walkable spans of a compact heightfield into regions that
//! later become one contour each (Recast's `rcBuildRegions`, `rcBuildRegionsMonotone` and
//! `rcBuildLayerRegions`).
//!
//! - Watershed floods regions outwards from the maxima of the distance field, level by level,
//!   then merges small regions into neighbours. Nicest regions, slowest.
//! - Monotone sweeps rows and extends a row run into the region above it when that region
//!   continues only through this run. Fast, but long thin regions.
//! - Layers does the monotone sweep and then joins regions into non-overlapping layers.
//!
//! Results go to `CompactSpan::reg` (with [`BORDER_REG`] set on tile-border regions) and
//! `CompactHeightfield::max_regions`. With [`RegionOptions::split_overlapping`] the watershed
//! and monotone builders then cut regions that overlap themselves in height (`split`), which
//! Recast does not.

mod split;

use std::collections::HashSet;
use std::hash::BuildHasherDefault;

use crate::threads::prelude::*;

use crate::recast::parallel::Split;

use crate::memory::try_filled;
use crate::recast::compact::{CellRows, CompactHeightfield, NOT_CONNECTED};
use crate::recast::context::{BuildContext, TimerLabel};
use crate::recast::distance_field::{SpanLinks, layout_problem, neighbour};
use crate::recast::{Error, Result};
use crate::{recast::BORDER_REG, recast::NULL_AREA};

/// Which of this module's three partitioners a build uses (RecastDemo's partition radio).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum PartitionType {
    /// Distance-field watershed: the nicest polygons, the slowest.
    #[default]
    Watershed,
    /// Sweep-line monotone regions: the fastest, long thin polygons.
    Monotone,
    /// Non-overlapping layers: good for tiles.
    Layers,
}

impl PartitionType {
    /// Every partition type, in RecastDemo's order.
    pub const ALL: [PartitionType; 3] = [
        PartitionType::Watershed,
        PartitionType::Monotone,
        PartitionType::Layers,
    ];

    /// The lowercase name used on the command line and in dumps.
    pub fn name(self) -> &'static str {
        match self {
            PartitionType::Watershed => "watershed",
            PartitionType::Monotone => "monotone",
            PartitionType::Layers => "layers",
        }
    }
}

impl std::str::FromStr for PartitionType {
    type Err = String;

    fn from_str(s: &str) -> std::result::Result<Self, Self::Err> {
        PartitionType::ALL
            .into_iter()
            .find(|p| p.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| {
                format!("unknown partition `{s}` (expected watershed, monotone or layers)")
            })
    }
}

/// How many times a watershed level may grow its regions before new basins are flooded; more
/// makes regions "overflow" further and come out simpler.
const EXPAND_ITERS: i32 = 8;
/// The watershed sorts spans into this many stacks of two distance levels each at a time.
const LEVEL_STACK_COUNT: usize = 8;
/// Stops a region-contour walk that, on broken input, would never return to its start.
const MAX_CONTOUR_WALK: i32 = 40000;
/// Sweep-neighbour value meaning "touches more than one region of the previous row".
const NO_UNIQUE_NEIGHBOUR: u16 = 0xffff;

/// Marks an entry of the watershed's level stacks (span indices) that no longer needs a region.
const DONE: u32 = u32::MAX;

/// Logs `message` as Recast does and returns it as a stage error.
fn stage_error(ctx: &mut BuildContext, stage: &'static str, message: String) -> Error {
    ctx.error(format!("{stage}: {message}"));
    Error::Stage { stage, message }
}

/// Rejects inputs the partitioners would index out of bounds on.
fn check_input(
    ctx: &mut BuildContext,
    chf: &CompactHeightfield,
    stage: &'static str,
    border_size: i32,
    needs_distance: bool,
) -> Result<()> {
    let problem = if border_size < 0 {
        Some(format!("negative border size {border_size}"))
    } else if let Some(problem) = layout_problem(chf) {
        Some(problem.to_string())
    } else if needs_distance && chf.dist.len() != chf.spans.len() {
        Some("the distance field has not been built".to_string())
    } else {
        None
    };
    match problem {
        Some(message) => Err(stage_error(ctx, stage, message)),
        None => Ok(()),
    }
}

/// What the watershed and monotone builders do beyond Recast. The default is Recast's result.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RegionOptions {
    /// After merging, cut every region that has two spans in one column (a spiral ramp's) into
    /// connected pieces that do not, with new ids; Recast only logs "N overlapping regions",
    /// and its contours and polygons then lose part of such a region.
    pub split_overlapping: bool,
}

/// Builds watershed regions; the distance field must have been built.
pub fn build_regions(
    ctx: &mut BuildContext,
    chf: &mut CompactHeightfield,
    border_size: i32,
    min_region_area: i32,
    merge_region_area: i32,
) -> Result<()> {
    build_regions_observed(
        ctx,
        chf,
        border_size,
        min_region_area,
        merge_region_area,
        |_, _| {},
    )
}

/// Like [`build_regions`], and calls `observer(level, regions)` with the region id of every span
/// after each distance level has been expanded and flooded, and once more (level 0) after the
/// final expansion, before small regions are merged. Lets a viewer animate the flooding.
pub fn build_regions_observed(
    ctx: &mut BuildContext,
    chf: &mut CompactHeightfield,
    border_size: i32,
    min_region_area: i32,
    merge_region_area: i32,
    observer: impl FnMut(u16, &[u16]),
) -> Result<()> {
    build_regions_with(
        ctx,
        chf,
        border_size,
        min_region_area,
        merge_region_area,
        RegionOptions::default(),
        observer,
    )
}

/// [`build_regions_observed`] with `options`.
pub fn build_regions_with(
    ctx: &mut BuildContext,
    chf: &mut CompactHeightfield,
    border_size: i32,
    min_region_area: i32,
    merge_region_area: i32,
    options: RegionOptions,
    observer: impl FnMut(u16, &[u16]),
) -> Result<()> {
    build_regions_reusing_links(
        ctx,
        chf,
        border_size,
        (min_region_area, merge_region_area),
        options,
        None,
        observer,
    )
}

/// [`build_regions_with`] (`region_areas` being the minimum and merge region areas) reusing
/// the span links the distance field of this same `chf` resolved, when given and still fitting
/// its spans: resolving them is a sixth of the watershed's work.
pub(crate) fn build_regions_reusing_links(
    ctx: &mut BuildContext,
    chf: &mut CompactHeightfield,
    border_size: i32,
    region_areas: (i32, i32),
    options: RegionOptions,
    links: Option<&SpanLinks>,
    mut observer: impl FnMut(u16, &[u16]),
) -> Result<()> {
    ctx.start_timer(TimerLabel::BuildRegions);
    let result = watershed(
        ctx,
        chf,
        border_size,
        region_areas,
        options,
        links,
        &mut observer,
    );
    ctx.stop_timer(TimerLabel::BuildRegions);
    result
}

/// Builds monotone regions (no distance field needed).
pub fn build_regions_monotone(
    ctx: &mut BuildContext,
    chf: &mut CompactHeightfield,
    border_size: i32,
    min_region_area: i32,
    merge_region_area: i32,
) -> Result<()> {
    build_regions_monotone_with(
        ctx,
        chf,
        border_size,
        min_region_area,
        merge_region_area,
        RegionOptions::default(),
    )
}

/// [`build_regions_monotone`] with `options`.
pub fn build_regions_monotone_with(
    ctx: &mut BuildContext,
    chf: &mut CompactHeightfield,
    border_size: i32,
    min_region_area: i32,
    merge_region_area: i32,
    options: RegionOptions,
) -> Result<()> {
    const STAGE: &str = "rcBuildRegionsMonotone";
    ctx.start_timer(TimerLabel::BuildRegions);
    let result = (|| {
        check_input(ctx, chf, STAGE, border_size, false)?;
        let mut regs = try_filled(chf.spans.len(), 0u16, || chf.describe("region ids"))?;
        let next_id = sweep_rows(ctx, chf, border_size, &mut regs, STAGE)?;
        ctx.start_timer(TimerLabel::BuildRegionsFilter);
        let merged =
            merge_and_filter_regions(min_region_area, merge_region_area, next_id, chf, &regs);
        store_regions(chf, &regs, &merged);
        let split = split_if_asked(ctx, chf, options, STAGE);
        ctx.stop_timer(TimerLabel::BuildRegionsFilter);
        split
    })();
    ctx.stop_timer(TimerLabel::BuildRegions);
    result
}

/// Builds layer regions: monotone regions joined into areas without overlapping floors, as
/// tile-cache layers need (no distance field needed).
pub fn build_layer_regions(
    ctx: &mut BuildContext,
    chf: &mut CompactHeightfield,
    border_size: i32,
    min_region_area: i32,
) -> Result<()> {
    const STAGE: &str = "rcBuildLayerRegions";
    ctx.start_timer(TimerLabel::BuildRegions);
    let result = (|| {
        check_input(ctx, chf, STAGE, border_size, false)?;
        let mut regs = try_filled(chf.spans.len(), 0u16, || chf.describe("region ids"))?;
        let next_id = sweep_rows(ctx, chf, border_size, &mut regs, STAGE)?;
        ctx.start_timer(TimerLabel::BuildRegionsFilter);
        let merged = merge_and_filter_layer_regions(min_region_area, next_id, chf, &regs);
        ctx.stop_timer(TimerLabel::BuildRegionsFilter);
        store_regions(chf, &regs, &merged);
        Ok(())
    })();
    ctx.stop_timer(TimerLabel::BuildRegions);
    result
}

/// What merging and filtering decided: the largest new region id, how many regions overlap
/// themselves (only the watershed reports them), and the new id of every old non-border id.
struct MergeResult {
    max_id: u16,
    overlaps: usize,
    new_ids: Vec<u16>,
}

/// Writes the final region ids to the spans: border ids as they are, others renumbered.
fn store_regions(chf: &mut CompactHeightfield, regs: &[u16], merged: &MergeResult) {
    chf.max_regions = merged.max_id;
    for (span, &reg) in chf.spans.iter_mut().zip(regs) {
        span.reg = if reg & BORDER_REG == 0 {
            merged.new_ids[reg as usize]
        } else {
            reg
        };
    }
}

/// Gives the walkable spans of the cells in `min_x..max_x` × `min_z..max_z` region `id`.
fn paint_rect(
    chf: &CompactHeightfield,
    (min_x, max_x): (i32, i32),
    (min_z, max_z): (i32, i32),
    id: u16,
    regs: &mut [u16],
) {
    for z in min_z..max_z {
        for x in min_x..max_x {
            let c = chf.cells[(x + z * chf.width) as usize];
            let column = c.index as usize..(c.index + c.count) as usize;
            for (reg, &area) in regs[column.clone()].iter_mut().zip(&chf.areas[column]) {
                if area != NULL_AREA {
                    *reg = id;
                }
            }
        }
    }
}

/// Paints the four tile-border strips with border regions `first_id..first_id + 4` (the
/// [`BORDER_REG`] bit set) and returns the next free id.
fn paint_border_regions(
    chf: &CompactHeightfield,
    border_size: i32,
    first_id: u16,
    regs: &mut [u16],
) -> u16 {
    if border_size <= 0 {
        return first_id;
    }
    let (w, h) = (chf.width, chf.height);
    let bw = w.min(border_size);
    let bh = h.min(border_size);
    paint_rect(chf, (0, bw), (0, h), first_id | BORDER_REG, regs);
    paint_rect(chf, (w - bw, w), (0, h), (first_id + 1) | BORDER_REG, regs);
    paint_rect(chf, (0, w), (0, bh), (first_id + 2) | BORDER_REG, regs);
    paint_rect(chf, (0, w), (h - bh, h), (first_id + 3) | BORDER_REG, regs);
    first_id + 4
}

/// Scratch buffers of the watershed, reused across levels.
struct Watershed<'l> {
    links: &'l SpanLinks,
    regs: Vec<u16>,
    /// Distance (in half-cells) of each span from the seed of its region while expanding.
    dists: Vec<u16>,
    /// Spans waiting for a region, by distance level ([`DONE`] once they got one).
    level_stacks: [Vec<u32>; LEVEL_STACK_COUNT],
    flood_stack: Vec<u32>,
    assignments: Vec<Assignment>,
}

/// A span won by a region during one expansion step, applied after the step so that every span
/// of the step sees the same state.
#[derive(Clone, Copy)]
struct Assignment {
    span: usize,
    region: u16,
    dist: u16,
}

/// Cuts the regions that overlap themselves when `options` ask for it, logging what it did.
fn split_if_asked(
    ctx: &mut BuildContext,
    chf: &mut CompactHeightfield,
    options: RegionOptions,
    stage: &'static str,
) -> Result<()> {
    if !options.split_overlapping {
        return Ok(());
    }
    match split::split_overlapping_regions(chf)? {
        None => Err(stage_error(ctx, stage, "Region ID overflow".to_string())),
        Some(split) if split.regions > 0 => {
            ctx.progress(format!(
                "{stage}: {} regions that overlapped themselves cut into {}.",
                split.regions, split.pieces
            ));
            Ok(())
        }
        Some(_) => Ok(()),
    }
}

fn watershed(
    ctx: &mut BuildContext,
    chf: &mut CompactHeightfield,
    border_size: i32,
    (min_region_area, merge_region_area): (i32, i32),
    options: RegionOptions,
    links: Option<&SpanLinks>,
    observer: &mut impl FnMut(u16, &[u16]),
) -> Result<()> {
    const STAGE: &str = "rcBuildRegions";
    check_input(ctx, chf, STAGE, border_size, true)?;
    let span_count = chf.spans.len();
    let resolved;
    let links = match links {
        Some(links) if links.fits(chf) => links,
        _ => {
            resolved = SpanLinks::new(chf)?;
            &resolved
        }
    };
    let mut ws = Watershed {
        links,
        regs: try_filled(span_count, 0, || chf.describe("region ids"))?,
        dists: try_filled(span_count, 0, || chf.describe("region seed distances"))?,
        level_stacks: Default::default(),
        flood_stack: Vec::with_capacity(256),
        assignments: Vec::new(),
    };
    ctx.start_timer(TimerLabel::BuildRegionsWatershed);
    let mut region_id = paint_border_regions(chf, border_size, 1, &mut ws.regs);
    chf.border_size = border_size;

    let mut level = ((chf.max_distance as u32 + 1) & !1) as u16;
    let mut stack_id = LEVEL_STACK_COUNT - 1;
    while level > 0 {
        level = level.saturating_sub(2);
        stack_id = (stack_id + 1) % LEVEL_STACK_COUNT;
        if stack_id == 0 {
            ws.sort_spans_by_level(chf, level);
        } else {
            ws.carry_over_leftovers(stack_id);
        }

        ctx.start_timer(TimerLabel::BuildRegionsExpand);
        let mut stack = std::mem::take(&mut ws.level_stacks[stack_id]);
        ws.expand_regions(chf, EXPAND_ITERS, level, &mut stack, false);
        ctx.stop_timer(TimerLabel::BuildRegionsExpand);

        ctx.start_timer(TimerLabel::BuildRegionsFlood);
        for &span in &stack {
            if span == DONE || ws.regs[span as usize] != 0 {
                continue;
            }
            if ws.flood_region(chf, span as usize, level, region_id) {
                if region_id == u16::MAX {
                    ctx.stop_timer(TimerLabel::BuildRegionsFlood);
                    return Err(stage_error(ctx, STAGE, "Region ID overflow".to_string()));
                }
                region_id += 1;
            }
        }
        ws.level_stacks[stack_id] = stack;
        ctx.stop_timer(TimerLabel::BuildRegionsFlood);
        observer(level, &ws.regs);
    }

    let mut stack = std::mem::take(&mut ws.flood_stack);
    ws.expand_regions(chf, EXPAND_ITERS * 8, 0, &mut stack, true);
    observer(0, &ws.regs);
    ctx.stop_timer(TimerLabel::BuildRegionsWatershed);

    ctx.start_timer(TimerLabel::BuildRegionsFilter);
    let merged =
        merge_and_filter_regions(min_region_area, merge_region_area, region_id, chf, &ws.regs);
    if merged.overlaps > 0 && !options.split_overlapping {
        let message = format!("{STAGE}: {} overlapping regions.", merged.overlaps);
        ctx.error(message);
    }
    store_regions(chf, &ws.regs, &merged);
    let split = split_if_asked(ctx, chf, options, STAGE);
    ctx.stop_timer(TimerLabel::BuildRegionsFilter);
    split
}

/// Stack entries per task of a parallel expansion step: smaller stacks (and all stacks on one
/// thread) run on the calling thread. The result does not depend on it.
const PARALLEL_CHUNK: usize = 4 * 1024;

/// The state one expansion step reads.
struct Step<'a> {
    links: &'a [[u32; 4]],
    regs: &'a [u16],
    dists: &'a [u16],
    areas: &'a [u8],
}

impl<'a> Step<'a> {
    /// The per-span arrays cut to the links' length: one bounds check on a neighbour then
    /// covers all three.
    fn new(links: &'a SpanLinks, regs: &'a [u16], dists: &'a [u16], areas: &'a [u8]) -> Self {
        let links = links.all();
        let n = links.len();
        Self {
            links,
            regs: &regs[..n],
            dists: &dists[..n],
            areas: &areas[..n],
        }
    }

    /// Lets each span of `stack` join the same-area neighbour region whose seed is nearest,
    /// pushing what it finds to `assignments`, and moves the spans left without one, in order,
    /// to the front of `stack`; returns their number.
    fn run(&self, stack: &mut [u32], assignments: &mut Vec<Assignment>) -> usize {
        let mut kept = 0;
        for k in 0..stack.len() {
            let span = stack[k];
            if span == DONE {
                continue;
            }
            let i = span as usize;
            let mut region = self.regs[i];
            let mut best_dist = u16::MAX;
            let area = self.areas[i];
            for link in self.links[i] {
                if link == SpanLinks::NONE {
                    continue;
                }
                let ai = link as usize;
                if self.areas[ai] != area {
                    continue;
                }
                let nr = self.regs[ai];
                if nr > 0 && nr & BORDER_REG == 0 && (self.dists[ai] as u32 + 2) < best_dist as u32
                {
                    region = nr;
                    best_dist = self.dists[ai] + 2;
                }
            }
            if region != 0 {
                assignments.push(Assignment {
                    span: i,
                    region,
                    dist: best_dist,
                });
            } else {
                stack[kept] = span;
                kept += 1;
            }
        }
        kept
    }
}

impl Watershed<'_> {
    /// Distributes the spans without a region into the level stacks: stack `k` gets the spans
    /// whose distance level is `k` two-level steps below `start_level` (higher ones go to stack
    /// 0, lower ones wait for the next sort).
    fn sort_spans_by_level(&mut self, chf: &CompactHeightfield, start_level: u16) {
        let start = (start_level >> 1) as i32;
        for stack in &mut self.level_stacks {
            stack.clear();
        }
        for (i, ((&area, &reg), &dist)) in
            chf.areas.iter().zip(&self.regs).zip(&chf.dist).enumerate()
        {
            if area == NULL_AREA || reg != 0 {
                continue;
            }
            let stack = (start - (dist >> 1) as i32).max(0) as usize;
            if stack < LEVEL_STACK_COUNT {
                self.level_stacks[stack].push(i as u32);
            }
        }
    }

    /// Moves the spans of the previous level stack that still have no region into stack `to`.
    fn carry_over_leftovers(&mut self, to: usize) {
        let (before, after) = self.level_stacks.split_at_mut(to);
        let regs = &self.regs;
        after[0].extend(
            before[to - 1]
                .iter()
                .filter(|&&span| span != DONE && regs[span as usize] == 0),
        );
    }

    /// Grows the existing regions into the spans of `stack`, one ring per step, each span
    /// joining the neighbouring region whose seed is nearest. With `fill_stack` the stack is
    /// first filled with every regionless span at or above `level`. Stops when a step assigns
    /// nothing, or after `max_iter` steps unless `level` is 0.
    fn expand_regions(
        &mut self,
        chf: &CompactHeightfield,
        max_iter: i32,
        level: u16,
        stack: &mut Vec<u32>,
        fill_stack: bool,
    ) {
        if fill_stack {
            stack.clear();
            for (i, ((&area, &reg), &dist)) in
                chf.areas.iter().zip(&self.regs).zip(&chf.dist).enumerate()
            {
                if dist >= level && reg == 0 && area != NULL_AREA {
                    stack.push(i as u32);
                }
            }
        } else {
            for span in stack.iter_mut() {
                if *span != DONE && self.regs[*span as usize] != 0 {
                    *span = DONE;
                }
            }
        }

        let mut iter = 0;
        while !stack.is_empty() {
            self.expand_step(chf, stack);
            for a in &self.assignments {
                self.regs[a.span] = a.region;
                self.dists[a.span] = a.dist;
            }

            if self.assignments.is_empty() {
                break;
            }
            if level > 0 {
                iter += 1;
                if iter >= max_iter {
                    break;
                }
            }
        }
    }

    /// One expansion step: finds the region each span of `stack` joins, fills
    /// `self.assignments` in stack order and leaves in `stack`, in order, only the spans still
    /// without a region (every later use of the stack skips the others, so dropping them
    /// changes nothing but the time later steps take). The step reads only the state before it,
    /// so big stacks are split into chunks for rayon's threads; the chunks' assignments and
    /// spans are joined in stack order.
    fn expand_step(&mut self, chf: &CompactHeightfield, stack: &mut Vec<u32>) {
        let step = Step::new(self.links, &self.regs, &self.dists, &chf.areas);
        self.assignments.clear();
        if stack.len() <= PARALLEL_CHUNK || !Split::for_cells(chf.cells.len()).is_parallel() {
            let kept = step.run(stack, &mut self.assignments);
            stack.truncate(kept);
            return;
        }
        let chunks: Vec<(Vec<Assignment>, usize)> = stack
            .par_chunks_mut(PARALLEL_CHUNK)
            .map(|chunk| {
                let mut assignments = Vec::new();
                let kept = step.run(chunk, &mut assignments);
                (assignments, kept)
            })
            .collect();
        let mut end = 0;
        for (chunk, (assignments, kept)) in chunks.into_iter().enumerate() {
            self.assignments.extend(assignments);
            let start = chunk * PARALLEL_CHUNK;
            stack.copy_within(start..start + kept, end);
            end += kept;
        }
        stack.truncate(end);
    }

    /// Floods a new region `region` from span `seed` over connected same-area spans at or above
    /// the level below `level`, backing off from spans that touch (also diagonally) another
    /// region. Returns whether any span kept the new region.
    fn flood_region(
        &mut self,
        chf: &CompactHeightfield,
        seed: usize,
        level: u16,
        region: u16,
    ) -> bool {
        let area = chf.areas[seed];
        self.flood_stack.clear();
        self.flood_stack.push(seed as u32);
        self.regs[seed] = region;
        self.dists[seed] = 0;

        let lowest = level.saturating_sub(2);
        let mut count = 0;
        while let Some(current) = self.flood_stack.pop() {
            let ci = current as usize;
            if self.touches_other_region(chf, ci, area, region) {
                self.regs[ci] = 0;
                continue;
            }
            count += 1;
            for dir in 0..4 {
                let Some(ai) = self.links.get(ci, dir) else {
                    continue;
                };
                if chf.areas[ai] != area {
                    continue;
                }
                if chf.dist[ai] >= lowest && self.regs[ai] == 0 {
                    self.regs[ai] = region;
                    self.dists[ai] = 0;
                    self.flood_stack.push(ai as u32);
                }
            }
        }
        count > 0
    }

    /// Whether a same-area straight neighbour (border regions excepted) or the diagonal one
    /// after it already belongs to a region other than `region`.
    fn touches_other_region(
        &self,
        chf: &CompactHeightfield,
        i: usize,
        area: u8,
        region: u16,
    ) -> bool {
        for dir in 0..4 {
            let Some(ai) = self.links.get(i, dir) else {
                continue;
            };
            if chf.areas[ai] != area {
                continue;
            }
            let nr = self.regs[ai];
            if nr & BORDER_REG != 0 {
                continue;
            }
            if nr != 0 && nr != region {
                return true;
            }
            if let Some(ai2) = self.links.get(ai, (dir + 1) & 3) {
                if chf.areas[ai2] != area {
                    continue;
                }
                let nr2 = self.regs[ai2];
                if nr2 != 0 && nr2 != region {
                    return true;
                }
            }
        }
        false
    }
}

/// Per-row bookkeeping of the monotone sweep for one run of spans.
#[derive(Clone, Copy, Default)]
struct SweepRun {
    /// The region id the run finally gets.
    id: u16,
    /// How many of its spans touch `neighbour` in the previous row.
    samples: u16,
    /// The single previous-row region it touches, 0 if none, [`NO_UNIQUE_NEIGHBOUR`] if several.
    neighbour: u16,
}

/// The monotone sweep shared by the monotone and layer partitions: paints the border regions,
/// splits every row into runs of -x-connected same-area spans, and lets a run continue the
/// region of the previous row when it is the only run touching it. Returns the next free id.
fn sweep_rows(
    ctx: &mut BuildContext,
    chf: &mut CompactHeightfield,
    border_size: i32,
    regs: &mut [u16],
    stage: &'static str,
) -> Result<u16> {
    let mut id = paint_border_regions(chf, border_size, 1, regs);
    chf.border_size = border_size;
    let chf = &*chf;
    let (w, h) = (chf.width, chf.height);
    let (spans, areas) = (&chf.spans[..], &chf.areas[..]);
    let mut prev_samples: Vec<i32> = Vec::with_capacity(256);
    let mut runs: Vec<SweepRun> = vec![SweepRun::default(); w.max(h).max(1) as usize];
    let overflow = |ctx: &mut BuildContext| stage_error(ctx, stage, "Region ID overflow".into());

    // One length for the per-span arrays lets a single bounds check cover all three.
    let span_count = spans.len();
    let (areas, regs) = (&areas[..span_count], &mut regs[..span_count]);
    let xs = border_size as usize..(w - border_size) as usize;
    for z in border_size..h - border_size {
        prev_samples.clear();
        prev_samples.resize(id as usize + 1, 0);
        // Counted wide: a row that runs out of 16-bit run ids fails after its spans, which
        // keeps the error's early return out of the span loop.
        let mut next_run: usize = 1;
        // No span of the first row links to a row above it, so the row itself stands in for one.
        let CellRows { before, row, .. } = chf.cell_rows(z as usize);
        let above = before.unwrap_or(row);

        // The row's spans are contiguous (the compact heightfield stores them cell by cell):
        // track where its walkable ones start and end for the remapping.
        let (mut first_span, mut end_span) = (usize::MAX, 0);
        // The first span of the cell to the left, carried along instead of looked up per span.
        let mut left_first = 0usize;
        for (c, up) in row[xs.clone()].iter().zip(&above[xs.clone()]) {
            let cell_first = c.index as usize;
            for i in cell_first..cell_first + c.count as usize {
                let area = areas[i];
                if area == NULL_AREA {
                    continue;
                }
                end_span = i + 1;
                let span = spans[i];
                let mut run = 0;
                let con = span.con(0);
                if con != NOT_CONNECTED {
                    let ai = left_first + con as usize;
                    if regs[ai] & BORDER_REG == 0 && areas[ai] == area {
                        run = regs[ai];
                    }
                }
                if run == 0 {
                    // The row's first walkable span always starts the row's first run.
                    if next_run == 1 {
                        first_span = i;
                    }
                    run = next_run as u16;
                    if runs.len() <= next_run {
                        runs.resize(next_run + 1, SweepRun::default());
                    }
                    runs[next_run] = SweepRun::default();
                    next_run += 1;
                }

                let con = span.con(3);
                if con != NOT_CONNECTED {
                    let ai = up.index as usize + con as usize;
                    let nr = regs[ai];
                    if nr != 0 && nr & BORDER_REG == 0 && areas[ai] == area {
                        let r = &mut runs[run as usize];
                        if r.neighbour == 0 || r.neighbour == nr {
                            r.neighbour = nr;
                            r.samples = r.samples.wrapping_add(1);
                            if let Some(count) = prev_samples.get_mut(nr as usize) {
                                *count += 1;
                            }
                        } else {
                            r.neighbour = NO_UNIQUE_NEIGHBOUR;
                        }
                    }
                }
                regs[i] = run;
            }
            left_first = cell_first;
        }
        // Run ids are u16 (as Recast's): the row's last id must stay below u16::MAX.
        if next_run > usize::from(u16::MAX) {
            return Err(overflow(ctx));
        }

        for r in &mut runs[1..next_run] {
            let continues = r.neighbour != NO_UNIQUE_NEIGHBOUR
                && r.neighbour != 0
                && prev_samples.get(r.neighbour as usize) == Some(&(r.samples as i32));
            if continues {
                r.id = r.neighbour;
            } else {
                r.id = id;
                id = id.checked_add(1).ok_or_else(|| overflow(ctx))?;
            }
        }

        for reg in regs.get_mut(first_span..end_span).unwrap_or_default() {
            if *reg > 0 && usize::from(*reg) < next_run {
                *reg = runs[*reg as usize].id;
            }
        }
    }
    Ok(id)
}

/// Maps old region ids to consecutive new ones in order of first appearance in `ids`, leaving
/// 0 and border ids alone, and returns the number of new ids. Recast rescans the rest of the
/// table for every id, which would also rename a region whose new id equals the old id being
/// renamed; that never happens, because the `k`-th distinct id first appears at an index of at
/// least `k` and is itself at least that index, while the new ids handed out before it are
/// below `k`.
fn compact_ids(ids: &mut [u16], id_bound: usize) -> u16 {
    let mut new_id = vec![0u16; id_bound];
    let mut generated = 0u16;
    for id in ids.iter_mut() {
        if *id == 0 || *id & BORDER_REG != 0 {
            continue;
        }
        let slot = &mut new_id[*id as usize];
        if *slot == 0 {
            generated += 1;
            *slot = generated;
        }
        *id = *slot;
    }
    generated
}

/// Lists of other region ids per region, each id at most once, in the order first added
/// (Recast's `addUniqueConnection` and `addUniqueFloorRegion`). Duplicates are refused on insert,
/// so memory grows with the distinct pairs, never with the additions (a column of `n` stacked
/// floors adds `n * (n - 1)` pairs, again in every column); the membership test is a hash set
/// of pairs instead of Recast's scan of the list.
struct UniqueLists {
    lists: Vec<Vec<u16>>,
    seen: HashSet<u32, BuildHasherDefault<PairHasher>>,
}

impl UniqueLists {
    fn new(region_count: usize) -> Self {
        Self {
            lists: vec![Vec::new(); region_count],
            seen: HashSet::default(),
        }
    }

    /// Appends `other` to `region`'s list unless it is there already; `region` must be below
    /// the region count.
    #[inline]
    fn add(&mut self, region: u16, other: u16) {
        if self.seen.insert(u32::from(region) << 16 | u32::from(other)) {
            self.lists[region as usize].push(other);
        }
    }

    fn of(&self, region: usize) -> &[u16] {
        &self.lists[region]
    }

    /// The lists, indexed by region; the pair set is freed.
    fn into_lists(self) -> Vec<Vec<u16>> {
        self.lists
    }
}

/// Hashes the (region, other) keys of [`UniqueLists`]: one multiply, folded so that the low
/// bits (the bucket) and the high bits (the control byte) both depend on every key bit.
#[derive(Default)]
struct PairHasher(u64);

impl std::hash::Hasher for PairHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u32(u32::from(b));
        }
    }

    #[inline]
    fn write_u32(&mut self, key: u32) {
        let product = u128::from(self.0 ^ u64::from(key)) * 0x9e37_79b9_7f4a_7c15;
        self.0 = (product >> 64) as u64 ^ product as u64;
    }
}

/// A region of the watershed/monotone merge: its size, neighbours around its contour and the
/// regions above or below it.
#[derive(Clone, Debug, Default)]
struct Region {
    span_count: i32,
    id: u16,
    area: u8,
    visited: bool,
    overlap: bool,
    /// Neighbouring region ids in order around the contour (0 for no region).
    connections: Vec<u16>,
    /// Regions sharing a column with this one.
    floors: Vec<u16>,
}

impl Region {
    /// Removes consecutive repeats, cyclically, but never the last entry.
    fn remove_adjacent_repeats(&mut self) {
        let c = &mut self.connections;
        let mut i = 0;
        while i < c.len() && c.len() > 1 {
            if c[i] == c[(i + 1) % c.len()] {
                c.remove(i);
            } else {
                i += 1;
            }
        }
    }

    /// Renames `old_id` to `new_id` in both lists; returns whether it was mentioned.
    fn replace_neighbour(&mut self, old_id: u16, new_id: u16) -> bool {
        let mut changed = false;
        for c in &mut self.connections {
            if *c == old_id {
                *c = new_id;
                changed = true;
            }
        }
        let mut in_floors = false;
        for f in &mut self.floors {
            if *f == old_id {
                *f = new_id;
                in_floors = true;
            }
        }
        if changed {
            self.remove_adjacent_repeats();
        }
        changed || in_floors
    }

    fn can_merge_with(&self, other: &Region) -> bool {
        self.area == other.area
            && self.connections.iter().filter(|&&c| c == other.id).count() <= 1
            && !self.floors.contains(&other.id)
    }

    fn add_unique_floor(&mut self, floor: u16) {
        if !self.floors.contains(&floor) {
            self.floors.push(floor);
        }
    }

    fn connects_to_null_region(&self) -> bool {
        self.connections.contains(&0)
    }
}

/// Merges `b` into `a` by splicing their contours where they meet; fails (changing nothing)
/// unless each lists the other as a neighbour. `b`'s old neighbours are left in `b_neighbours`.
fn merge_regions(
    a: &mut Region,
    b: &mut Region,
    scratch: &mut Vec<u16>,
    b_neighbours: &mut Vec<u16>,
) -> bool {
    let Some(ins_a) = a.connections.iter().position(|&c| c == b.id) else {
        return false;
    };
    let Some(ins_b) = b.connections.iter().position(|&c| c == a.id) else {
        return false;
    };
    std::mem::swap(scratch, &mut a.connections);
    a.connections.clear();
    let na = scratch.len();
    a.connections
        .extend((0..na - 1).map(|k| scratch[(ins_a + 1 + k) % na]));
    let nb = b.connections.len();
    a.connections
        .extend((0..nb - 1).map(|k| b.connections[(ins_b + 1 + k) % nb]));
    a.remove_adjacent_repeats();
    for &f in &b.floors {
        a.add_unique_floor(f);
    }
    a.span_count += b.span_count;
    b.span_count = 0;
    b_neighbours.clear();
    std::mem::swap(b_neighbours, &mut b.connections);
    true
}

/// Whether the edge of span `i` (in `cell`) towards `dir` separates it from another region.
fn is_solid_edge(
    chf: &CompactHeightfield,
    regs: &[u16],
    cell: usize,
    i: usize,
    dir: usize,
) -> bool {
    let other = neighbour(chf, cell, i, dir).map_or(0, |(ai, _)| regs[ai]);
    other != regs[i]
}

/// Walks the contour of the region of span `i` starting at its solid edge `dir`, appending the
/// sequence of neighbouring region ids to `cont`.
///
/// Called once a region, from a loop over every cell: kept out of that loop, whose set-up per
/// cell it made several times dearer.
#[inline(never)]
fn walk_contour(
    chf: &CompactHeightfield,
    regs: &[u16],
    (mut cell, mut i, mut dir): (usize, usize, usize),
    cont: &mut Vec<u16>,
) {
    let (start_i, start_dir) = (i, dir);
    // The walk only steps onto spans of its own region.
    let own = regs[i];
    let mut current = neighbour(chf, cell, i, dir).map_or(0, |(ai, _)| regs[ai]);
    cont.push(current);

    let mut iter = 0;
    loop {
        iter += 1;
        if iter >= MAX_CONTOUR_WALK {
            break;
        }
        // One lookup serves both the solid-edge test and the step.
        let next = neighbour(chf, cell, i, dir);
        let r = next.map_or(0, |(ai, _)| regs[ai]);
        if r != own {
            if r != current {
                current = r;
                cont.push(r);
            }
            dir = (dir + 1) & 3;
        } else {
            let Some((ni, ncell)) = next else {
                return;
            };
            cell = ncell;
            i = ni;
            dir = (dir + 3) & 3;
        }
        if i == start_i && dir == start_dir {
            break;
        }
    }

    // Remove cyclic repeats; unlike `Region::remove_adjacent_repeats` this can empty the list.
    if cont.len() > 1 {
        let mut j = 0;
        while j < cont.len() {
            if cont[j] == cont[(j + 1) % cont.len()] {
                cont.remove(j);
            } else {
                j += 1;
            }
        }
    }
}

/// Recast's `mergeAndFilterRegions`: removes connected groups of regions smaller than
/// `min_region_area` (unless they touch a tile border), merges regions up to
/// `merge_region_size` spans into their smallest compatible neighbour, and renumbers the
/// survivors consecutively. `max_region_id` is one past the largest id in `regs`. Returns the
/// new ids.
fn merge_and_filter_regions(
    min_region_area: i32,
    merge_region_size: i32,
    max_region_id: u16,
    chf: &CompactHeightfield,
    regs: &[u16],
) -> MergeResult {
    let nreg = max_region_id as usize + 1;
    let mut regions: Vec<Region> = (0..nreg)
        .map(|i| Region {
            id: i as u16,
            ..Default::default()
        })
        .collect();

    // Floors and the contour neighbours. A column holding the same ids as the last column
    // whose floors were added adds nothing new (within a stack of floors that is every column
    // but the edges), so it is skipped.
    let mut floors = UniqueLists::new(nreg);
    let mut last_floor_column: &[u16] = &[];
    // A region's area and contour neighbours come from its first span met: called only while
    // its connections are empty, so that the once-a-region call stays out of the span loop.
    let first_meeting = |reg: &mut Region, cell: usize, i: usize| {
        reg.area = chf.areas[i];
        if let Some(dir) = (0..4).find(|&dir| is_solid_edge(chf, regs, cell, i, dir)) {
            walk_contour(chf, regs, (cell, i, dir), &mut reg.connections);
        }
    };
    for (cell, c) in chf.cells.iter().enumerate() {
        if c.count == 0 {
            continue;
        }
        let first = c.index as usize;
        if c.count == 1 {
            // Most columns hold one span, with no floors to add: kept apart from the general
            // loop, whose set-up per column cost more than the work.
            let r = regs[first];
            if r != 0 && (r as usize) < nreg {
                let reg = &mut regions[r as usize];
                reg.span_count += 1;
                if reg.connections.is_empty() {
                    first_meeting(reg, cell, first);
                }
            }
            continue;
        }
        let column = &regs[first..first + c.count as usize];
        let add_floors = column != last_floor_column;
        if add_floors {
            last_floor_column = column;
        }
        for (k, &r) in column.iter().enumerate() {
            if r == 0 || r as usize >= nreg {
                continue;
            }
            let reg = &mut regions[r as usize];
            reg.span_count += 1;
            if add_floors {
                for (k2, &floor) in column.iter().enumerate() {
                    if k2 == k || floor == 0 || floor as usize >= nreg {
                        continue;
                    }
                    if floor == r {
                        reg.overlap = true;
                    }
                    floors.add(r, floor);
                }
            }

            if reg.connections.is_empty() {
                first_meeting(reg, cell, first + k);
            }
        }
    }
    for (reg, list) in regions.iter_mut().zip(floors.into_lists()) {
        reg.floors = list;
    }

    remove_small_region_groups(&mut regions, min_region_area);
    merge_small_regions(&mut regions, merge_region_size);

    let overlaps = regions.iter().filter(|r| r.overlap).count();
    let mut ids = final_region_ids(&regions);
    let max_id = compact_ids(&mut ids, nreg);
    MergeResult {
        max_id,
        overlaps,
        new_ids: ids,
    }
}

/// Clears every connected group of regions smaller than `min_region_area` spans in total that
/// does not touch a tile border.
fn remove_small_region_groups(regions: &mut [Region], min_region_area: i32) {
    let mut stack: Vec<usize> = Vec::with_capacity(32);
    let mut trace: Vec<usize> = Vec::with_capacity(32);
    for i in 0..regions.len() {
        let reg = &regions[i];
        if reg.id == 0 || reg.id & BORDER_REG != 0 || reg.span_count == 0 || reg.visited {
            continue;
        }
        let mut connects_to_border = false;
        let mut span_count = 0;
        stack.clear();
        trace.clear();
        regions[i].visited = true;
        stack.push(i);
        while let Some(ri) = stack.pop() {
            span_count += regions[ri].span_count;
            trace.push(ri);
            for j in 0..regions[ri].connections.len() {
                let c = regions[ri].connections[j];
                if c & BORDER_REG != 0 {
                    connects_to_border = true;
                    continue;
                }
                let nei = &mut regions[c as usize];
                if nei.visited || nei.id == 0 || nei.id & BORDER_REG != 0 {
                    continue;
                }
                stack.push(nei.id as usize);
                nei.visited = true;
            }
        }
        if span_count < min_region_area && !connects_to_border {
            for &t in &trace {
                regions[t].span_count = 0;
                regions[t].id = 0;
            }
        }
    }
}

/// Repeatedly merges each region that is small (at most `merge_region_size` spans) or not
/// connected to the null region into its smallest mergeable neighbour, until nothing changes.
///
/// After a merge Recast renames the merged id in every region's lists and relabels every region
/// carrying it, scanning the whole table each time (quadratic on large maps). Here each id keeps
/// the regions whose lists may mention it, and a merged region only points at its target; the
/// chains are resolved by [`final_region_ids`]. Nothing observable changes: merged-away regions
/// are never looked at again except for their final id.
fn merge_small_regions(regions: &mut [Region], merge_region_size: i32) {
    let nreg = regions.len();
    let mut mentioned_by: Vec<Vec<u32>> = vec![Vec::new(); nreg];
    for (r, reg) in regions.iter().enumerate() {
        for &v in reg.connections.iter().chain(&reg.floors) {
            if let Some(list) = mentioned_by.get_mut(v as usize) {
                list.push(r as u32);
            }
        }
    }
    let mut visited_in_merge = vec![0u32; nreg];
    let mut merges_done = 0u32;
    let mut scratch = Vec::new();
    let mut b_neighbours = Vec::new();
    loop {
        let mut merge_count = 0;
        for i in 0..nreg {
            let reg = &regions[i];
            if reg.id == 0 || reg.id & BORDER_REG != 0 || reg.overlap || reg.span_count == 0 {
                continue;
            }
            if reg.span_count > merge_region_size && reg.connects_to_null_region() {
                continue;
            }

            let mut smallest = 0x0fff_ffff;
            let mut merge_id = reg.id;
            for &c in &reg.connections {
                if c & BORDER_REG != 0 {
                    continue;
                }
                let mreg = &regions[c as usize];
                if mreg.id == 0 || mreg.id & BORDER_REG != 0 || mreg.overlap {
                    continue;
                }
                if mreg.span_count < smallest
                    && reg.can_merge_with(mreg)
                    && mreg.can_merge_with(reg)
                {
                    smallest = mreg.span_count;
                    merge_id = mreg.id;
                }
            }
            let old_id = reg.id;
            let target = merge_id as usize;
            if merge_id == old_id || target == i {
                continue;
            }
            let (target_reg, reg) = pair_mut(regions, target, i);
            if !merge_regions(target_reg, reg, &mut scratch, &mut b_neighbours) {
                continue;
            }
            merge_count += 1;
            merges_done += 1;

            // The target now mentions whatever the merged region mentioned.
            for &v in b_neighbours.iter().chain(&regions[i].floors) {
                if let Some(list) = mentioned_by.get_mut(v as usize) {
                    list.push(target as u32);
                }
            }
            // Rename the merged id wherever a live region mentions it.
            let mentioning = std::mem::take(&mut mentioned_by[old_id as usize]);
            for &j in &mentioning {
                let j = j as usize;
                if visited_in_merge[j] == merges_done {
                    continue;
                }
                visited_in_merge[j] = merges_done;
                let other = &mut regions[j];
                if other.id == 0 || other.id & BORDER_REG != 0 {
                    continue;
                }
                if other.replace_neighbour(old_id, merge_id) {
                    mentioned_by[target].push(j as u32);
                }
            }
            regions[i].id = merge_id;
        }
        if merge_count == 0 {
            break;
        }
    }
}

/// The final id of every region: merged regions take the id at the end of their merge chain,
/// as Recast's eager relabelling gives them.
fn final_region_ids(regions: &[Region]) -> Vec<u16> {
    let mut ids: Vec<u16> = regions.iter().map(|r| r.id).collect();
    let is_chain_link = |ids: &[u16], id: u16| {
        id != 0 && id & BORDER_REG == 0 && ids.get(id as usize).is_some_and(|&next| next != id)
    };
    for j in 0..ids.len() {
        let mut root = ids[j];
        while is_chain_link(&ids, root) {
            root = ids[root as usize];
        }
        let mut x = j;
        while ids[x] != root {
            let next = ids[x] as usize;
            ids[x] = root;
            x = next;
        }
    }
    ids
}

/// Mutable references to two different elements.
fn pair_mut<T>(items: &mut [T], a: usize, b: usize) -> (&mut T, &mut T) {
    if a < b {
        let (lo, hi) = items.split_at_mut(b);
        (&mut lo[a], &mut hi[0])
    } else {
        let (lo, hi) = items.split_at_mut(a);
        (&mut hi[0], &mut lo[b])
    }
}

/// Recast's `mergeAndFilterLayerRegions`: joins monotone regions (`max_region_id` is one past
/// the largest id in `regs`) breadth-first into layers that never contain two regions sharing a
/// column, drops layers smaller than `min_region_area` that do not touch a tile border, and
/// renumbers.
///
/// Recast keeps neighbour and floor lists with linear `contains` scans and rescans the whole
/// region table per removed or renumbered layer, which is quadratic on large maps. Here the
/// lists refuse duplicates through a pair set ([`UniqueLists`]), the "floor of the current
/// layer" test is a stamp per region, and removal and renumbering are id maps; the result is
/// identical.
fn merge_and_filter_layer_regions(
    min_region_area: i32,
    max_region_id: u16,
    chf: &CompactHeightfield,
    regs: &[u16],
) -> MergeResult {
    let nreg = max_region_id as usize + 1;
    let mut span_count = vec![0i32; nreg];
    let mut area = vec![0u8; nreg];
    let mut touches_border = vec![false; nreg];

    let mut connections = UniqueLists::new(nreg);
    let mut last_connection = vec![0u16; nreg];
    let mut floors = UniqueLists::new(nreg);
    let mut column: Vec<u16> = Vec::with_capacity(32);
    // The ids of the last column whose floors were added: an identical column adds nothing.
    let mut last_floor_column: Vec<u16> = Vec::with_capacity(32);
    for (cell, c) in chf.cells.iter().enumerate() {
        if c.count == 0 {
            continue;
        }
        column.clear();
        for i in c.index as usize..(c.index + c.count) as usize {
            let ri = regs[i];
            if ri == 0 || ri as usize >= nreg {
                continue;
            }
            let r = ri as usize;
            span_count[r] += 1;
            area[r] = chf.areas[i];
            if c.count > 1 {
                column.push(ri);
            }
            for dir in 0..4 {
                let Some((ai, _)) = neighbour(chf, cell, i, dir) else {
                    continue;
                };
                let rai = regs[ai];
                // An immediate repeat is common and skips the set lookup.
                if rai > 0 && (rai as usize) < nreg && rai != ri && last_connection[r] != rai {
                    last_connection[r] = rai;
                    connections.add(ri, rai);
                }
                if rai & BORDER_REG != 0 {
                    touches_border[r] = true;
                }
            }
        }
        if column.len() > 1 && column != last_floor_column {
            for (k, &a) in column.iter().enumerate() {
                for &b in &column[k + 1..] {
                    if a != b {
                        floors.add(a, b);
                        floors.add(b, a);
                    }
                }
            }
            std::mem::swap(&mut column, &mut last_floor_column);
        }
    }
    drop(last_connection);

    // Breadth-first over neighbours of the same area, skipping any region that shares a column
    // with a region already in the layer (those are stamped with the layer's root).
    let mut layer = vec![0u16; nreg];
    let mut floor_of_root = vec![u32::MAX; nreg];
    let mut queue: Vec<usize> = Vec::with_capacity(32);
    let mut layer_id: u16 = 1;
    for root in 1..nreg {
        if layer[root] != 0 {
            continue;
        }
        layer[root] = layer_id;
        for &f in floors.of(root) {
            floor_of_root[f as usize] = root as u32;
        }
        queue.clear();
        queue.push(root);
        let mut head = 0;
        while head < queue.len() {
            let r = queue[head];
            head += 1;
            for &nei in connections.of(r) {
                let n = nei as usize;
                if layer[n] != 0 || area[r] != area[n] || floor_of_root[n] == root as u32 {
                    continue;
                }
                queue.push(n);
                layer[n] = layer_id;
                for &f in floors.of(n) {
                    floor_of_root[f as usize] = root as u32;
                }
                span_count[root] += span_count[n];
                span_count[n] = 0;
                touches_border[root] |= touches_border[n];
            }
        }
        layer_id = layer_id.wrapping_add(1);
    }

    // Remove small layers (only roots still have spans).
    let mut removed = vec![false; nreg + 1];
    for r in 0..nreg {
        if span_count[r] > 0 && span_count[r] < min_region_area && !touches_border[r] {
            removed[layer[r] as usize] = true;
        }
    }
    for l in &mut layer {
        if removed[*l as usize] {
            *l = 0;
        }
    }

    let max_id = compact_ids(&mut layer, nreg + 1);
    MergeResult {
        max_id,
        overlaps: 0,
        new_ids: layer,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recast::WALKABLE_AREA;
    use crate::recast::compact::{CompactCell, CompactSpan};

    /// One row of `width` walkable single-span cells, none linked to another: every span
    /// starts a run of its own.
    fn unlinked_row(width: i32) -> CompactHeightfield {
        let n = width as usize;
        CompactHeightfield {
            width,
            height: 1,
            walkable_height: 10,
            walkable_climb: 1,
            cells: (0..n as u32)
                .map(|index| CompactCell { index, count: 1 })
                .collect(),
            spans: vec![
                CompactSpan {
                    con: 0xff_ffff,
                    h: 10,
                    ..Default::default()
                };
                n
            ],
            areas: vec![WALKABLE_AREA; n],
            ..Default::default()
        }
    }

    /// The sweep counts a row's runs past 16 bits and fails after the row, as Recast's ids
    /// would overflow at run 65 535.
    #[test]
    fn a_row_of_more_runs_than_u16_ids_fails_cleanly() {
        let mut ctx = BuildContext::silent();
        let mut fits = unlinked_row(65_534);
        build_regions_monotone(&mut ctx, &mut fits, 0, 0, 0).unwrap();
        let mut overflows = unlinked_row(65_535);
        let error = build_regions_monotone(&mut ctx, &mut overflows, 0, 0, 0).unwrap_err();
        assert!(error.to_string().contains("Region ID overflow"), "{error}");
    }
}
