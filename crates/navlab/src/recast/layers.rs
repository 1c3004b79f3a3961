//! Heightfield layers (Recast's `rcBuildHeightfieldLayers`): a tile's compact heightfield cut
//! into 2D layers, each a grid with at most one walkable span per cell, what DetourTileCache
//! compresses and rebuilds around obstacles.
//!
//! The walkable spans are first swept into monotone regions row by row, then regions that touch
//! and do not overlap in any column are flooded into layers, then layers close in height are
//! merged. Every count is a byte as in C++: region and sweep ids are `u8` (a row of more than 256
//! sweeps wraps its ids as C++ does), at most 63 regions may overlap one another and at most 16
//! neighbours are remembered per region. Running out of region ids or of overlap slots is an
//! error, as in C++.

use crate::recast::compact::{CompactCell, CompactHeightfield, NOT_CONNECTED};
use crate::recast::context::{BuildContext, TimerLabel};
use crate::recast::{Error, Result};
use crate::recast::{NULL_AREA, dir_offset_x, dir_offset_z};

/// Most regions one region may overlap (`RC_MAX_LAYERS`).
const MAX_LAYERS: usize = 63;
/// Most neighbours kept per region (`RC_MAX_NEIS`); more only make more layers.
const MAX_NEIGHBOURS: usize = 16;
/// Most regions waiting in the layer flood (its fixed stack).
const MAX_FLOOD: usize = 64;
/// "No region" / "no layer" in the byte-sized ids.
const NONE: u8 = 0xff;

const STAGE: &str = "rcBuildHeightfieldLayers";

/// One 2D layer: per cell of the tile (border removed) a height above `hmin`, an area and the
/// connection bits (low 4: neighbours in this layer, high 4: portals to other layers).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HeightfieldLayer {
    /// Minimum corner of the layer's bounds, world units.
    pub bmin: [f32; 3],
    /// Maximum corner.
    pub bmax: [f32; 3],
    /// Cell size on xz, world units.
    pub cs: f32,
    /// Cell height, world units.
    pub ch: f32,
    /// Cells along x.
    pub width: i32,
    /// Cells along z.
    pub height: i32,
    /// The cells that hold data, inclusive.
    pub minx: i32,
    /// Last column holding data.
    pub maxx: i32,
    /// First row holding data.
    pub miny: i32,
    /// Last row holding data.
    pub maxy: i32,
    /// Height range of the layer, in cells.
    pub hmin: i32,
    /// Highest cell, in cells.
    pub hmax: i32,
    /// 0xff where the layer has no span.
    pub heights: Vec<u8>,
    /// Area id per cell.
    pub areas: Vec<u8>,
    /// Connection bits per cell.
    pub cons: Vec<u8>,
}

/// The layers of one tile (`rcHeightfieldLayerSet`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HeightfieldLayerSet {
    /// The layers, in the order Recast makes them.
    pub layers: Vec<HeightfieldLayer>,
}

/// A region of the sweep, with what the layer flood needs of it.
#[derive(Clone)]
struct LayerRegion {
    /// Regions overlapping this one in some column.
    layers: Vec<u8>,
    neighbours: Vec<u8>,
    ymin: u16,
    ymax: u16,
    layer: u8,
    /// The first region of its layer (the one merges are done through).
    base: bool,
}

/// One sweep of a row: a run of spans joined along x.
#[derive(Clone, Copy, Default)]
struct Sweep {
    /// Spans of the sweep whose -y neighbour is `neighbour`.
    samples: u16,
    id: u8,
    neighbour: u8,
}

/// Adds `v` to `set` unless present; `false` when the set is full (`max` entries).
fn add_unique(set: &mut Vec<u8>, max: usize, v: u8) -> bool {
    if set.contains(&v) {
        return true;
    }
    if set.len() >= max {
        return false;
    }
    set.push(v);
    true
}

/// The span indices of a column.
fn spans_of(cell: CompactCell) -> std::ops::Range<usize> {
    cell.index as usize..(cell.index + cell.count) as usize
}

fn overlap_range(amin: u16, amax: u16, bmin: u16, bmax: u16) -> bool {
    !(amin > bmax || amax < bmin)
}

fn stage_error(ctx: &mut BuildContext, message: &str) -> Error {
    ctx.error(format!("{STAGE}: {message}"));
    Error::Stage {
        stage: STAGE,
        message: message.into(),
    }
}

const LAYER_OVERFLOW: &str =
    "layer overflow (too many overlapping walkable platforms). Try increasing RC_MAX_LAYERS.";

/// Builds the layers of `chf`, leaving out `border_size` cells on each side; regions within
/// `walkable_height * 4` cells of height of each other may share a layer.
pub fn build_heightfield_layers(
    ctx: &mut BuildContext,
    chf: &CompactHeightfield,
    border_size: i32,
    walkable_height: i32,
) -> Result<HeightfieldLayerSet> {
    ctx.start_timer(TimerLabel::BuildLayers);
    let result = build_layers(ctx, chf, border_size, walkable_height);
    ctx.stop_timer(TimerLabel::BuildLayers);
    result
}

fn build_layers(
    ctx: &mut BuildContext,
    chf: &CompactHeightfield,
    border_size: i32,
    walkable_height: i32,
) -> Result<HeightfieldLayerSet> {
    let (w, h) = (chf.width, chf.height);
    if chf.cells.len() != (w.max(0) as usize) * (h.max(0) as usize)
        || chf.areas.len() != chf.spans.len()
        || border_size < 0
        || border_size * 2 > w.min(h)
    {
        return Err(stage_error(
            ctx,
            "the compact heightfield and border size do not fit together",
        ));
    }
    let mut region_of =
        crate::memory::try_filled(chf.spans.len(), NONE, || chf.describe("layer region ids"))?;
    let region_count = sweep_regions(ctx, chf, border_size, &mut region_of)?;
    let mut regions = vec![
        LayerRegion {
            layers: Vec::new(),
            neighbours: Vec::new(),
            ymin: 0xffff,
            ymax: 0,
            layer: NONE,
            base: false,
        };
        region_count
    ];
    find_neighbours_and_overlaps(ctx, chf, &region_of, &mut regions)?;
    flood_layers(ctx, &mut regions)?;
    merge_close_layers(ctx, &mut regions, walkable_height)?;
    let layer_count = compact_layer_ids(&mut regions);
    if layer_count == 0 {
        return Ok(HeightfieldLayerSet::default());
    }
    let layers = (0..layer_count)
        .map(|id| store_layer(chf, border_size, &region_of, &regions, id))
        .collect::<Result<Vec<_>>>()?;
    Ok(HeightfieldLayerSet { layers })
}

/// Partitions the walkable spans inside the border into monotone regions, row by row; returns
/// how many. `region_of` gets each span's region.
fn sweep_regions(
    ctx: &mut BuildContext,
    chf: &CompactHeightfield,
    border_size: i32,
    region_of: &mut [u8],
) -> Result<usize> {
    let (w, h) = (chf.width, chf.height);
    // Sweep ids are bytes, as C++'s; a row has at most 256 distinct ones.
    let mut sweeps = [Sweep::default(); 256];
    let mut previous_count = [0i32; 256];
    let mut next_region: u8 = 0;
    for y in border_size..h - border_size {
        previous_count[..usize::from(next_region)].fill(0);
        let mut next_sweep: u8 = 0;
        for x in border_size..w - border_size {
            let cell = chf.cell(x, y);
            for i in spans_of(cell) {
                if chf.areas[i] == NULL_AREA {
                    continue;
                }
                let mut sweep = NONE;
                if let Some(ai) = chf.neighbour(x, y, i, 0)
                    && chf.areas[ai] != NULL_AREA
                    && region_of[ai] != NONE
                {
                    sweep = region_of[ai];
                }
                if sweep == NONE {
                    sweep = next_sweep;
                    next_sweep = next_sweep.wrapping_add(1);
                    sweeps[usize::from(sweep)].neighbour = NONE;
                    sweeps[usize::from(sweep)].samples = 0;
                }
                if let Some(ai) = chf.neighbour(x, y, i, 3) {
                    let neighbour = region_of[ai];
                    if neighbour != NONE {
                        let s = &mut sweeps[usize::from(sweep)];
                        if s.samples == 0 {
                            s.neighbour = neighbour;
                        }
                        if s.neighbour == neighbour {
                            s.samples = s.samples.wrapping_add(1);
                            previous_count[usize::from(neighbour)] += 1;
                        } else {
                            // More than one region below: no unique neighbour.
                            s.neighbour = NONE;
                        }
                    }
                }
                region_of[i] = sweep;
            }
        }
        for s in &mut sweeps[..usize::from(next_sweep)] {
            // A sweep joined to the previous row along its whole length continues that region.
            if s.neighbour != NONE
                && previous_count[usize::from(s.neighbour)] == i32::from(s.samples)
            {
                s.id = s.neighbour;
            } else {
                if next_region == 255 {
                    return Err(stage_error(ctx, "Region ID overflow."));
                }
                s.id = next_region;
                next_region += 1;
            }
        }
        for x in border_size..w - border_size {
            let cell = chf.cell(x, y);
            for i in spans_of(cell) {
                if region_of[i] != NONE {
                    region_of[i] = sweeps[usize::from(region_of[i])].id;
                }
            }
        }
    }
    Ok(usize::from(next_region))
}

/// Records each region's height range, its neighbours, and the regions it overlaps in a column.
fn find_neighbours_and_overlaps(
    ctx: &mut BuildContext,
    chf: &CompactHeightfield,
    region_of: &[u8],
    regions: &mut [LayerRegion],
) -> Result<()> {
    let mut column = Vec::with_capacity(MAX_LAYERS);
    for y in 0..chf.height {
        for x in 0..chf.width {
            let cell = chf.cell(x, y);
            column.clear();
            for i in spans_of(cell) {
                let span = &chf.spans[i];
                let ri = region_of[i];
                if ri == NONE {
                    continue;
                }
                let region = &mut regions[usize::from(ri)];
                region.ymin = region.ymin.min(span.y);
                region.ymax = region.ymax.max(span.y);
                if column.len() < MAX_LAYERS {
                    column.push(ri);
                }
                for dir in 0..4 {
                    if let Some(ai) = chf.neighbour(x, y, i, dir) {
                        let rai = region_of[ai];
                        if rai != NONE && rai != ri {
                            // A neighbour that does not fit only means more layers.
                            add_unique(
                                &mut regions[usize::from(ri)].neighbours,
                                MAX_NEIGHBOURS,
                                rai,
                            );
                        }
                    }
                }
            }
            for a in 0..column.len().saturating_sub(1) {
                for b in a + 1..column.len() {
                    let (ra, rb) = (column[a], column[b]);
                    if ra != rb
                        && (!add_unique(&mut regions[usize::from(ra)].layers, MAX_LAYERS, rb)
                            || !add_unique(&mut regions[usize::from(rb)].layers, MAX_LAYERS, ra))
                    {
                        return Err(stage_error(ctx, LAYER_OVERFLOW));
                    }
                }
            }
        }
    }
    Ok(())
}

/// Floods neighbouring regions into layers from each unvisited region (breadth first, through
/// a queue of at most [`MAX_FLOOD`]), never joining a region the layer's root overlaps or
/// stretching the layer over 255 cells of height.
fn flood_layers(ctx: &mut BuildContext, regions: &mut [LayerRegion]) -> Result<()> {
    let mut next_layer: u8 = 0;
    let mut queue = std::collections::VecDeque::with_capacity(MAX_FLOOD);
    for root in 0..regions.len() {
        if regions[root].layer != NONE {
            continue;
        }
        regions[root].layer = next_layer;
        regions[root].base = true;
        queue.clear();
        queue.push_back(root);
        while let Some(current) = queue.pop_front() {
            for k in 0..regions[current].neighbours.len() {
                let neighbour = regions[current].neighbours[k];
                let n = usize::from(neighbour);
                if regions[n].layer != NONE || regions[root].layers.contains(&neighbour) {
                    continue;
                }
                let ymin = i32::from(regions[root].ymin.min(regions[n].ymin));
                let ymax = i32::from(regions[root].ymax.max(regions[n].ymax));
                if ymax - ymin >= 255 || queue.len() >= MAX_FLOOD {
                    continue;
                }
                queue.push_back(n);
                regions[n].layer = next_layer;
                let overlapped = regions[n].layers.clone();
                let (nymin, nymax) = (regions[n].ymin, regions[n].ymax);
                let root_region = &mut regions[root];
                for v in overlapped {
                    if !add_unique(&mut root_region.layers, MAX_LAYERS, v) {
                        return Err(stage_error(ctx, LAYER_OVERFLOW));
                    }
                }
                root_region.ymin = root_region.ymin.min(nymin);
                root_region.ymax = root_region.ymax.max(nymax);
            }
        }
        next_layer = next_layer.wrapping_add(1);
    }
    Ok(())
}

/// Merges layers whose height ranges come within `walkable_height * 4` cells of each other and
/// that overlap nowhere, through their base regions.
fn merge_close_layers(
    ctx: &mut BuildContext,
    regions: &mut [LayerRegion],
    walkable_height: i32,
) -> Result<()> {
    // C++ computes this in 16 bits and adds it to 16-bit heights: both wrap.
    let merge_height = (walkable_height as u16).wrapping_mul(4);
    for i in 0..regions.len() {
        if !regions[i].base {
            continue;
        }
        let new_id = regions[i].layer;
        loop {
            let mut old_id = NONE;
            for j in 0..regions.len() {
                if i == j || !regions[j].base {
                    continue;
                }
                let (ri, rj) = (&regions[i], &regions[j]);
                if !overlap_range(
                    ri.ymin,
                    ri.ymax.wrapping_add(merge_height),
                    rj.ymin,
                    rj.ymax.wrapping_add(merge_height),
                ) {
                    continue;
                }
                let ymin = i32::from(ri.ymin.min(rj.ymin));
                let ymax = i32::from(ri.ymax.max(rj.ymax));
                if ymax - ymin >= 255 {
                    continue;
                }
                // No region of rj's layer may overlap ri.
                let overlap = (0..regions.len())
                    .any(|k| regions[k].layer == rj.layer && ri.layers.contains(&(k as u8)));
                if overlap {
                    continue;
                }
                old_id = rj.layer;
                break;
            }
            if old_id == NONE {
                break;
            }
            for j in 0..regions.len() {
                if regions[j].layer != old_id {
                    continue;
                }
                regions[j].base = false;
                regions[j].layer = new_id;
                let overlapped = regions[j].layers.clone();
                let (jymin, jymax) = (regions[j].ymin, regions[j].ymax);
                let ri = &mut regions[i];
                for v in overlapped {
                    if !add_unique(&mut ri.layers, MAX_LAYERS, v) {
                        return Err(stage_error(ctx, LAYER_OVERFLOW));
                    }
                }
                ri.ymin = ri.ymin.min(jymin);
                ri.ymax = ri.ymax.max(jymax);
            }
        }
    }
    Ok(())
}

/// Renumbers the layer ids used to 0, 1, …; returns how many there are.
fn compact_layer_ids(regions: &mut [LayerRegion]) -> usize {
    let mut used = [false; 256];
    for region in regions.iter() {
        used[usize::from(region.layer)] = true;
    }
    let mut remap = [NONE; 256];
    let mut count = 0u8;
    for (id, &is_used) in used.iter().enumerate() {
        if is_used {
            remap[id] = count;
            count = count.wrapping_add(1);
        }
    }
    for region in regions.iter_mut() {
        region.layer = remap[usize::from(region.layer)];
    }
    usize::from(count)
}

/// Copies the spans of layer `id` into its grid.
fn store_layer(
    chf: &CompactHeightfield,
    border_size: i32,
    region_of: &[u8],
    regions: &[LayerRegion],
    id: usize,
) -> Result<HeightfieldLayer> {
    let id = id as u8;
    let (w, border) = (chf.width, border_size);
    let lw = chf.width - border * 2;
    let lh = chf.height - border * 2;
    let mut bmin = chf.bmin;
    let mut bmax = chf.bmax;
    bmin[0] += border as f32 * chf.cs;
    bmin[2] += border as f32 * chf.cs;
    bmax[0] -= border as f32 * chf.cs;
    bmax[2] -= border as f32 * chf.cs;

    let grid = (lw as usize) * (lh as usize);
    let what = |name: &'static str| move || format!("the layer {name} of {lw} x {lh} cells");
    let mut layer = HeightfieldLayer {
        heights: crate::memory::try_filled(grid, 0xff, what("heights"))?,
        areas: crate::memory::try_filled(grid, 0, what("areas"))?,
        cons: crate::memory::try_filled(grid, 0, what("connections"))?,
        ..Default::default()
    };
    // The height range is the last base region's of this layer, as C++ takes it.
    let (mut hmin, mut hmax) = (0i32, 0i32);
    for region in regions.iter().filter(|r| r.base && r.layer == id) {
        hmin = i32::from(region.ymin);
        hmax = i32::from(region.ymax);
    }
    layer.width = lw;
    layer.height = lh;
    layer.cs = chf.cs;
    layer.ch = chf.ch;
    layer.bmin = bmin;
    layer.bmax = bmax;
    layer.bmin[1] = bmin[1] + hmin as f32 * chf.ch;
    layer.bmax[1] = bmin[1] + hmax as f32 * chf.ch;
    layer.hmin = hmin;
    layer.hmax = hmax;
    layer.minx = layer.width;
    layer.maxx = 0;
    layer.miny = layer.height;
    layer.maxy = 0;

    let layer_of = |span: usize| match region_of[span] {
        NONE => NONE,
        r => regions[usize::from(r)].layer,
    };
    for y in 0..lh {
        for x in 0..lw {
            let (cx, cy) = (border + x, border + y);
            let cell = chf.cell(cx, cy);
            for j in spans_of(cell) {
                if region_of[j] == NONE || layer_of(j) != id {
                    continue;
                }
                let span = &chf.spans[j];
                layer.minx = layer.minx.min(x);
                layer.maxx = layer.maxx.max(x);
                layer.miny = layer.miny.min(y);
                layer.maxy = layer.maxy.max(y);
                let idx = (x + y * lw) as usize;
                // Heights are bytes above hmin; C++ truncates.
                layer.heights[idx] = (i32::from(span.y) - hmin) as u8;
                layer.areas[idx] = chf.areas[j];
                let (mut portal, mut con) = (0u8, 0u8);
                for dir in 0..4 {
                    if span.con(dir) == NOT_CONNECTED {
                        continue;
                    }
                    let ax = cx + dir_offset_x(dir);
                    let ay = cy + dir_offset_z(dir);
                    let ai =
                        chf.cells[(ax + ay * w) as usize].index as usize + span.con(dir) as usize;
                    let neighbour_layer = layer_of(ai);
                    if chf.areas[ai] != NULL_AREA && neighbour_layer != id {
                        portal |= 1 << dir;
                        // The portal's height matches on both sides.
                        let ay_height = i32::from(chf.spans[ai].y);
                        if ay_height > hmin {
                            layer.heights[idx] = layer.heights[idx].max((ay_height - hmin) as u8);
                        }
                    }
                    if chf.areas[ai] != NULL_AREA && neighbour_layer == id {
                        let (nx, ny) = (ax - border, ay - border);
                        if nx >= 0 && ny >= 0 && nx < lw && ny < lh {
                            con |= 1 << dir;
                        }
                    }
                }
                layer.cons[idx] = (portal << 4) | con;
            }
        }
    }
    if layer.minx > layer.maxx {
        layer.minx = 0;
        layer.maxx = 0;
    }
    if layer.miny > layer.maxy {
        layer.miny = 0;
        layer.maxy = 0;
    }
    Ok(layer)
}
