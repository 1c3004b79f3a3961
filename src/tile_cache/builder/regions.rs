//! Monotone regions inside one layer (`dtBuildTileCacheRegions`): each row is swept into spans
//! that join the span above when they are its only continuation, then neighbouring regions of
//! the same area are merged where they touch along a single run.

use super::{BuildError, NO_REGION, WorkLayer};

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

/// Fills `layer.regs` with region ids (0xff for empty cells) and sets `layer.region_count`.
pub(super) fn build_regions(layer: &mut WorkLayer, walkable_climb: i32) -> Result<(), BuildError> {
    let (w, h) = (layer.width, layer.height);
    layer.regs.fill(NO_REGION);
    let mut sweeps = vec![SweepSpan::default(); w];
    let mut prev_count = [0u8; 256];
    let mut region_count = 0usize;

    // Disjoint borrows: the grids are read while the region ids are written.
    let (areas, heights, regs) = (&layer.areas[..], &layer.heights[..], &mut layer.regs[..]);
    for y in 0..h {
        prev_count[..region_count].fill(0);
        let mut sweep_count = 0usize;
        for x in 0..w {
            let idx = x + y * w;
            let area = areas[idx];
            if area == super::NULL_AREA {
                continue;
            }
            let height = i32::from(heights[idx]);
            let connected = |j: usize| {
                areas[j] == area && (height - i32::from(heights[j])).abs() <= walkable_climb
            };
            let mut sid = NO_REGION;
            if x > 0 && connected(idx - 1) {
                sid = regs[idx - 1];
            }
            if sid == NO_REGION {
                sid = sweep_count as u8;
                sweep_count += 1;
                sweeps[usize::from(sid)].neighbour = NO_REGION;
                sweeps[usize::from(sid)].samples = 0;
            }
            if y > 0 && connected(idx - w) {
                let above = regs[idx - w];
                let span = &mut sweeps[usize::from(sid)];
                if above != NO_REGION {
                    if span.samples == 0 {
                        span.neighbour = above;
                    }
                    if span.neighbour == above {
                        span.samples += 1;
                        prev_count[usize::from(above)] =
                            prev_count[usize::from(above)].wrapping_add(1);
                    } else {
                        span.neighbour = NO_REGION;
                    }
                }
            }
            regs[idx] = sid;
        }

        for span in &mut sweeps[..sweep_count] {
            if span.neighbour != NO_REGION
                && u16::from(prev_count[usize::from(span.neighbour)]) == span.samples
            {
                span.id = span.neighbour;
            } else {
                if region_count == MAX_REGIONS {
                    return Err(BuildError::TooManyRegions);
                }
                span.id = region_count as u8;
                region_count += 1;
            }
        }
        for reg in &mut regs[y * w..(y + 1) * w] {
            if *reg != NO_REGION {
                *reg = sweeps[usize::from(*reg)].id;
            }
        }
    }

    let mut regions = vec![
        MonotoneRegion {
            cells: 0,
            neighbours: [0; MAX_REGION_NEIGHBOURS],
            neighbour_count: 0,
            merged_id: NO_REGION,
            area: 0,
        };
        region_count
    ];
    for y in 0..h {
        for x in 0..w {
            let idx = x + y * w;
            let ri = layer.regs[idx];
            if ri == NO_REGION {
                continue;
            }
            let region = &mut regions[usize::from(ri)];
            region.cells += 1;
            region.area = layer.areas[idx];
            if y > 0 && layer.is_connected(idx, idx - w, walkable_climb) {
                let above = layer.regs[idx - w];
                if above != NO_REGION && above != ri {
                    regions[usize::from(ri)].add_neighbour(above)?;
                    regions[usize::from(above)].add_neighbour(ri)?;
                }
            }
        }
    }

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
            if other.cells > merge_cells && can_merge(region.merged_id, other.merged_id, &regions) {
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

    let mut remap = [0u8; 256];
    for r in &regions {
        remap[usize::from(r.merged_id)] = 1;
    }
    let mut next_id = 0u8;
    for slot in remap.iter_mut() {
        if *slot != 0 {
            *slot = next_id;
            next_id = next_id.wrapping_add(1);
        }
    }
    for r in &mut regions {
        r.merged_id = remap[usize::from(r.merged_id)];
    }
    layer.region_count = usize::from(next_id);
    layer.sweep_region_count = region_count;
    for reg in &mut layer.regs {
        if *reg != NO_REGION {
            *reg = regions[usize::from(*reg)].merged_id;
        }
    }
    Ok(())
}
