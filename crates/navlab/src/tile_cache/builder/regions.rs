//! Monotone regions inside one layer (`dtBuildTileCacheRegions`): each row is swept into spans
//! that join the span above when they are its only continuation, then neighbouring regions of
//! the same area are merged where they touch along a single run.
//!
//! The sweep and C++'s separate pass that counts cells and records neighbours run as one pass
//! per row (a row's region ids are final once the row is resolved, and the neighbours are
//! recorded in the same row-major order), and each region remembers its first cell so that
//! the contour step starts its walks there without scanning the grid again.

use super::work_layer::{BuildError, NO_REGION, NULL_AREA, WorkLayer};

/// Regions a region may border; C++ keeps them in a fixed array of this size.
const MAX_REGION_NEIGHBOURS: usize = 16;
/// Region ids are bytes and 0xff means none, so at most 255 monotone regions fit.
const MAX_REGIONS: usize = 255;

/// A run of cells in the current row that will become one region.
#[derive(Clone, Copy, Default)]
struct SweepSpan {
    /// Cells of the run connected to the region above.
    samples: u16,
    id: u8,
    /// The region above, or [`NO_REGION`] when the run touches more than one.
    neighbour: u8,
    /// Cell index where the run starts.
    start: u32,
}

#[derive(Clone, Copy)]
struct MonotoneRegion {
    cells: i32,
    neighbours: [u8; MAX_REGION_NEIGHBOURS],
    neighbour_count: usize,
    merged_id: u8,
    area: u8,
}

impl MonotoneRegion {
    /// Records `region` as a neighbour unless it is already the last one recorded.
    fn add_neighbour(&mut self, region: u8) -> Result<(), BuildError> {
        if self.neighbour_count > 0 && self.neighbours[self.neighbour_count - 1] == region {
            return Ok(());
        }
        let slot = self
            .neighbours
            .get_mut(self.neighbour_count)
            .ok_or(BuildError::TooManyRegionNeighbours)?;
        *slot = region;
        self.neighbour_count += 1;
        Ok(())
    }
}

/// The region step's working memory, kept from one layer to the next.
#[derive(Default)]
pub(super) struct RegionBuffers {
    sweeps: Vec<SweepSpan>,
    regions: Vec<MonotoneRegion>,
    /// First cell (row-major) of each region of the sweep, in increasing order.
    first_cells: Vec<u32>,
    /// The final region of each region of the sweep.
    final_ids: Vec<u8>,
    /// Per cell of the row being swept, the region above it joins, or [`NO_REGION`].
    joined_above: Vec<u8>,
}

impl RegionBuffers {
    /// Each final region once with the first cell it covers, in row-major order of those
    /// cells (the order a scan of the grid meets them in).
    pub(super) fn region_starts(&self) -> impl Iterator<Item = (u8, usize)> + '_ {
        let mut seen = [false; 256];
        self.final_ids
            .iter()
            .zip(&self.first_cells)
            .filter_map(move |(&id, &cell)| {
                let first = !std::mem::replace(&mut seen[usize::from(id)], true);
                first.then_some((id, cell as usize))
            })
    }
}

/// Whether merging `old` into `new` joins them through exactly one neighbour link, which keeps
/// the merged region free of holes.
fn can_merge(old: u8, new: u8, regions: &[MonotoneRegion]) -> bool {
    let links = regions
        .iter()
        .filter(|r| r.merged_id == old)
        .flat_map(|r| &r.neighbours[..r.neighbour_count])
        .filter(|&&n| regions[usize::from(n)].merged_id == new)
        .count();
    links == 1
}

/// The heights and areas of one row of cells.
#[derive(Clone, Copy)]
struct RowCells<'a> {
    areas: &'a [u8],
    heights: &'a [u8],
}

/// Above row 0 nothing is joined; its stand-in row of region ids.
static NO_REGIONS: [u8; 256] = [NO_REGION; 256];

/// Sweeps one row into runs (`sweeps`), writing each cell's run index into `regs` and the
/// region of the row above it joins (`ABOVE`: there is one) into `joined_above`; returns the
/// number of runs. `prev_count` counts, per region above, the cells joining it.
#[allow(clippy::too_many_arguments)]
fn sweep_row<const ABOVE: bool>(
    row: RowCells,
    above: RowCells,
    above_regs: &[u8],
    regs: &mut [u8],
    joined_above: &mut [u8],
    row_start: usize,
    climb: i32,
    sweeps: &mut [SweepSpan],
    prev_count: &mut [u8; 256],
) -> usize {
    // Every row has the layer's width; cut to it once so the cell loop needs no checks.
    let n = regs.len();
    let (areas, heights) = (&row.areas[..n], &row.heights[..n]);
    let (above_areas, above_heights) = (&above.areas[..n], &above.heights[..n]);
    let (above_regs, joined_above) = (&above_regs[..n], &mut joined_above[..n]);
    let mut sweep_count = 0usize;
    let (mut left_area, mut left_height, mut left_run) = (NULL_AREA, 0i32, NO_REGION);
    for x in 0..n {
        joined_above[x] = NO_REGION;
        let area = areas[x];
        if area == NULL_AREA {
            left_area = NULL_AREA;
            continue;
        }
        let height = i32::from(heights[x]);
        let run = if left_area == area && (height - left_height).abs() <= climb {
            left_run
        } else {
            let run = sweep_count as u8;
            sweeps[sweep_count] = SweepSpan {
                samples: 0,
                id: 0,
                neighbour: NO_REGION,
                start: (row_start + x) as u32,
            };
            sweep_count += 1;
            run
        };
        if ABOVE
            && above_areas[x] == area
            && (height - i32::from(above_heights[x])).abs() <= climb
            && above_regs[x] != NO_REGION
        {
            let above = above_regs[x];
            joined_above[x] = above;
            let span = &mut sweeps[usize::from(run)];
            if span.samples == 0 {
                span.neighbour = above;
            }
            if span.neighbour == above {
                span.samples += 1;
                prev_count[usize::from(above)] = prev_count[usize::from(above)].wrapping_add(1);
            } else {
                span.neighbour = NO_REGION;
            }
        }
        regs[x] = run;
        left_area = area;
        left_height = height;
        left_run = run;
    }
    sweep_count
}

/// Fills `layer.regs` with region ids (0xff for empty cells) and sets `layer.region_count`.
pub(super) fn build_regions(
    layer: &mut WorkLayer,
    walkable_climb: i32,
    buffers: &mut RegionBuffers,
) -> Result<(), BuildError> {
    let (w, h) = (layer.width, layer.height);
    layer.regs.clear();
    layer.regs.resize(w * h, NO_REGION);
    let RegionBuffers {
        sweeps,
        regions,
        first_cells,
        final_ids,
        joined_above,
    } = buffers;
    joined_above.clear();
    joined_above.resize(w, NO_REGION);
    sweeps.clear();
    sweeps.resize(w, SweepSpan::default());
    regions.clear();
    first_cells.clear();
    let mut prev_count = [0u8; 256];

    let (areas, heights) = (&layer.areas[..], &layer.heights[..]);
    for y in 0..h {
        prev_count[..regions.len()].fill(0);
        let (done, rest) = layer.regs.split_at_mut(y * w);
        let row_start = y * w;
        let cells_of = |start: usize| RowCells {
            areas: &areas[start..start + w],
            heights: &heights[start..start + w],
        };
        let row = cells_of(row_start);
        let regs = &mut rest[..w];
        let sweep_count = if y > 0 {
            let above_start = row_start - w;
            sweep_row::<true>(
                row,
                cells_of(above_start),
                &done[above_start..],
                regs,
                joined_above,
                row_start,
                walkable_climb,
                sweeps,
                &mut prev_count,
            )
        } else {
            sweep_row::<false>(
                row,
                row,
                &NO_REGIONS[..w],
                regs,
                joined_above,
                row_start,
                walkable_climb,
                sweeps,
                &mut prev_count,
            )
        };

        for span in &mut sweeps[..sweep_count] {
            if span.neighbour != NO_REGION
                && u16::from(prev_count[usize::from(span.neighbour)]) == span.samples
            {
                span.id = span.neighbour;
            } else {
                if regions.len() == MAX_REGIONS {
                    return Err(BuildError::TooManyRegions);
                }
                span.id = regions.len() as u8;
                regions.push(MonotoneRegion {
                    cells: 0,
                    neighbours: [0; MAX_REGION_NEIGHBOURS],
                    neighbour_count: 0,
                    merged_id: NO_REGION,
                    area: 0,
                });
                first_cells.push(span.start);
            }
        }
        // The row's ids are final now: count its cells and record the regions above it.
        for ((reg, &area), &above) in regs.iter_mut().zip(row.areas).zip(joined_above.iter()) {
            if *reg == NO_REGION {
                continue;
            }
            let ri = sweeps[usize::from(*reg)].id;
            *reg = ri;
            let region = &mut regions[usize::from(ri)];
            region.cells += 1;
            region.area = area;
            if above != NO_REGION && above != ri {
                regions[usize::from(ri)].add_neighbour(above)?;
                regions[usize::from(above)].add_neighbour(ri)?;
            }
        }
    }

    let region_count = regions.len();
    for (i, region) in regions.iter_mut().enumerate() {
        region.merged_id = i as u8;
    }
    for i in 0..region_count {
        let region = regions[i];
        let mut merge = None;
        let mut merge_cells = 0;
        for &nei in &region.neighbours[..region.neighbour_count] {
            let other = &regions[usize::from(nei)];
            if region.merged_id == other.merged_id || region.area != other.area {
                continue;
            }
            if other.cells > merge_cells && can_merge(region.merged_id, other.merged_id, regions) {
                merge_cells = other.cells;
                merge = Some(usize::from(nei));
            }
        }
        if let Some(target) = merge {
            let (old, new) = (region.merged_id, regions[target].merged_id);
            for r in regions.iter_mut().filter(|r| r.merged_id == old) {
                r.merged_id = new;
            }
        }
    }

    // Final ids are the merged ids in increasing order, packed from 0.
    let mut remap = [0u8; 256];
    for r in regions.iter() {
        remap[usize::from(r.merged_id)] = 1;
    }
    let mut next_id = 0u8;
    for slot in remap.iter_mut() {
        if *slot != 0 {
            *slot = next_id;
            next_id = next_id.wrapping_add(1);
        }
    }
    final_ids.clear();
    final_ids.extend(regions.iter().map(|r| remap[usize::from(r.merged_id)]));
    layer.region_count = usize::from(next_id);
    layer.sweep_region_count = region_count;
    let mut cell_ids = [NO_REGION; 256];
    cell_ids[..region_count].copy_from_slice(final_ids);
    for reg in &mut layer.regs {
        *reg = cell_ids[usize::from(*reg)];
    }
    Ok(())
}
