//! The compact heightfield: only the open space above walkable spans, stored column-major in
//! flat arrays, with 6-bit links to the neighbouring spans (Recast's `rcCompactHeightfield`).

use crate::memory::try_with_capacity;
use crate::recast::context::{BuildContext, TimerLabel};
use crate::recast::heightfield::{Heightfield, NO_SPAN};
use crate::{NavlabError, Result, recast::NULL_AREA};

/// Connection value meaning "no neighbour in this direction" (Recast's `RC_NOT_CONNECTED`).
pub const NOT_CONNECTED: u32 = 0x3f;

/// A grid column: its spans are `index .. index + count` of [`CompactHeightfield::spans`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CompactCell {
    /// First span (24 bits in Recast).
    pub index: u32,
    /// Number of spans (8 bits in Recast).
    pub count: u32,
}

/// Open space above a walkable surface.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CompactSpan {
    /// Floor height, in cell-height units from the heightfield's base.
    pub y: u16,
    /// Region id, 0 when not in a region.
    pub reg: u16,
    /// Four 6-bit neighbour links packed in 24 bits (layer index within the neighbour column).
    pub con: u32,
    /// Clear height above the floor (8 bits).
    pub h: u8,
}

impl CompactSpan {
    /// The neighbour layer index in direction `dir`, or [`NOT_CONNECTED`].
    #[inline]
    pub fn con(&self, dir: usize) -> u32 {
        (self.con >> (dir * 6)) & 0x3f
    }

    /// Sets the neighbour layer index in direction `dir`.
    #[inline]
    pub fn set_con(&mut self, dir: usize, layer: u32) {
        let shift = dir * 6;
        self.con = (self.con & !(0x3f << shift)) | ((layer & 0x3f) << shift);
    }
}

/// The compact heightfield and the per-span data later stages attach to it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CompactHeightfield {
    pub width: i32,
    pub height: i32,
    /// Agent height in voxels the connections were computed for.
    pub walkable_height: i32,
    /// Agent climb in voxels the connections were computed for.
    pub walkable_climb: i32,
    /// Non-navigable border around the heightfield (tiles).
    pub border_size: i32,
    /// Largest value in `dist` (set by the distance field).
    pub max_distance: u16,
    /// One more than the largest region id (set by region building).
    pub max_regions: u16,
    pub bmin: [f32; 3],
    pub bmax: [f32; 3],
    pub cs: f32,
    pub ch: f32,
    /// One cell per grid column, index `x + z * width`.
    pub cells: Vec<CompactCell>,
    pub spans: Vec<CompactSpan>,
    /// Distance to the nearest border per span (empty until the distance field is built).
    pub dist: Vec<u16>,
    /// Area id per span.
    pub areas: Vec<u8>,
}

impl CompactHeightfield {
    /// Number of spans.
    pub fn span_count(&self) -> usize {
        self.spans.len()
    }

    /// The cell of column (`x`, `z`).
    #[inline]
    pub fn cell(&self, x: i32, z: i32) -> CompactCell {
        self.cells[(x + z * self.width) as usize]
    }

    /// Span index of the neighbour of span `i` (in column `x`, `z`) in direction `dir`, if connected.
    #[inline]
    pub fn neighbour(&self, x: i32, z: i32, i: usize, dir: usize) -> Option<usize> {
        let con = self.spans[i].con(dir);
        if con == NOT_CONNECTED {
            return None;
        }
        let nx = x + crate::recast::dir_offset_x(dir);
        let nz = z + crate::recast::dir_offset_z(dir);
        Some(self.cell(nx, nz).index as usize + con as usize)
    }

    /// Names a per-span buffer of this heightfield in an out-of-memory error.
    pub(crate) fn describe(&self, buffer: &str) -> String {
        format!(
            "the {buffer} of {} spans ({} x {} cells)",
            self.spans.len(),
            self.width,
            self.height
        )
    }

    /// Number of spans with a non-null area.
    pub fn walkable_span_count(&self) -> usize {
        self.areas
            .iter()
            .filter(|&&a| a != crate::recast::NULL_AREA)
            .count()
    }
}

/// Builds the compact heightfield of the open space above every walkable span of `hf`, linking
/// each span to the neighbour spans an agent of `walkable_height` can step to within
/// `walkable_climb` (Recast's `rcBuildCompactHeightfield`).
///
/// As in Recast, a neighbour beyond layer 62 of its column cannot be linked; that is logged as an
/// error but the build still succeeds without the link.
pub fn build_compact_heightfield(
    ctx: &mut BuildContext,
    walkable_height: i32,
    walkable_climb: i32,
    hf: &Heightfield,
) -> Result<CompactHeightfield> {
    ctx.start_timer(TimerLabel::BuildCompactHeightfield);
    let result = build(ctx, walkable_height, walkable_climb, hf);
    ctx.stop_timer(TimerLabel::BuildCompactHeightfield);
    result
}

/// The top of the open space above a column's highest span.
const OPEN_SKY: i32 = 0xffff;
/// The highest neighbour layer index a 6-bit connection can hold.
const MAX_LAYERS: usize = NOT_CONNECTED as usize - 1;

fn build(
    ctx: &mut BuildContext,
    walkable_height: i32,
    walkable_climb: i32,
    hf: &Heightfield,
) -> Result<CompactHeightfield> {
    let (width, height) = (hf.width, hf.height);
    // Counting the walkable spans first would cost a pass: the pool bounds them, and the
    // excess capacity is given back below.
    if u32::try_from(hf.pool.len()).is_err() {
        let span_count = hf.walkable_span_count();
        if u32::try_from(span_count).is_err() {
            let message = format!("Out of memory 'chf.spans' ({span_count})");
            ctx.error(format!("rcBuildCompactHeightfield: {message}"));
            return Err(NavlabError::Stage {
                stage: "rcBuildCompactHeightfield",
                message,
            });
        }
    }
    let mut bmax = hf.bmax;
    bmax[1] += walkable_height as f32 * hf.ch;

    let what = || {
        format!(
            "the compact heightfield of {width} x {height} cells and up to {} spans",
            hf.pool.len()
        )
    };
    let mut spans = try_with_capacity(hf.pool.len(), what)?;
    let mut areas = try_with_capacity(hf.pool.len(), what)?;
    let mut cells: Vec<CompactCell> = try_with_capacity(hf.columns.len(), what)?;
    cells.extend(hf.columns.iter().map(|&head| {
        // Empty columns keep index 0; columns with only unwalkable spans get the running
        // index.
        if head == NO_SPAN {
            return CompactCell::default();
        }
        let index = spans.len() as u32;
        let mut span = &hf.pool[head as usize];
        loop {
            let above = (span.next != NO_SPAN).then(|| &hf.pool[span.next as usize]);
            if span.area != NULL_AREA {
                let bottom = i32::from(span.smax);
                let top = above.map_or(OPEN_SKY, |above| i32::from(above.smin));
                spans.push(CompactSpan {
                    y: span.smax,
                    reg: 0,
                    con: UNLINKED,
                    h: (top - bottom).clamp(0, 0xff) as u8,
                });
                areas.push(span.area);
            }
            match above {
                Some(above) => span = above,
                None => break,
            }
        }
        CompactCell {
            index,
            count: spans.len() as u32 - index,
        }
    }));

    // Every pair of neighbour columns is linked both ways at once, from the column with the
    // lower x or z; links start out as "not connected".
    let linker = Linker {
        walkable_height,
        walkable_climb,
    };
    let (w, h) = (width.max(0) as usize, height.max(0) as usize);
    let mut max_layer_index = 0;
    for z in 0..h {
        for x in 0..w {
            let column = x + z * w;
            let cell = cells[column];
            if cell.count == 0 {
                continue;
            }
            if x + 1 < w {
                linker.link(&mut spans, cell, cells[column + 1], 2, &mut max_layer_index);
            }
            if z + 1 < h {
                linker.link(&mut spans, cell, cells[column + w], 1, &mut max_layer_index);
            }
        }
    }
    if max_layer_index > MAX_LAYERS {
        ctx.error(format!(
            "rcBuildCompactHeightfield: Heightfield has too many layers {max_layer_index} (max: {MAX_LAYERS})"
        ));
    }
    spans.shrink_to_fit();
    areas.shrink_to_fit();

    Ok(CompactHeightfield {
        width,
        height,
        walkable_height,
        walkable_climb,
        border_size: 0,
        max_distance: 0,
        max_regions: 0,
        bmin: hf.bmin,
        bmax,
        cs: hf.cs,
        ch: hf.ch,
        cells,
        spans,
        dist: Vec::new(),
        areas,
    })
}

/// A span's connections before any link is found: [`NOT_CONNECTED`] in every direction.
const UNLINKED: u32 = 0xff_ffff;

/// Finds the neighbour links of compact spans.
struct Linker {
    walkable_height: i32,
    walkable_climb: i32,
}

impl Linker {
    /// Links the spans of column `a` to those of its neighbour `b` in direction `dir`, and
    /// back. Layers too deep to encode raise `max_layer_index` instead.
    #[inline(always)]
    fn link(
        &self,
        spans: &mut [CompactSpan],
        a: CompactCell,
        b: CompactCell,
        dir: usize,
        max_layer_index: &mut usize,
    ) {
        if b.count == 0 {
            return;
        }
        let back = (dir + 2) & 3;
        let (a_first, b_first) = (a.index as usize, b.index as usize);
        if a.count == 1 && b.count == 1 {
            // The test is symmetric: one span each links both ways or not at all.
            if self.connects(&spans[a_first], &spans[b_first]) {
                set_layer(&mut spans[a_first], dir, 0);
                set_layer(&mut spans[b_first], back, 0);
            }
            return;
        }
        self.link_layers(spans, a, b, dir, max_layer_index);
    }

    /// [`Self::link`] for columns with several spans.
    fn link_layers(
        &self,
        spans: &mut [CompactSpan],
        a: CompactCell,
        b: CompactCell,
        dir: usize,
        max_layer_index: &mut usize,
    ) {
        let back = (dir + 2) & 3;
        let (a_first, b_first) = (a.index as usize, b.index as usize);
        let a_spans = a_first..a_first + a.count as usize;
        let b_spans = b_first..b_first + b.count as usize;
        for (from, to, dir) in [
            (a_spans.clone(), b_spans.clone(), dir),
            (b_spans, a_spans, back),
        ] {
            for i in from {
                if let Some(layer) =
                    self.first_layer(&spans[i], &spans[to.clone()], max_layer_index)
                {
                    set_layer(&mut spans[i], dir, layer);
                }
            }
        }
    }

    /// Whether an agent can step between two spans of neighbour columns.
    #[inline]
    fn connects(&self, span: &CompactSpan, neighbour: &CompactSpan) -> bool {
        let (y, ny) = (i32::from(span.y), i32::from(neighbour.y));
        let bottom = y.max(ny);
        let ceiling = (y + i32::from(span.h)).min(ny + i32::from(neighbour.h));
        ceiling - bottom >= self.walkable_height && (ny - y).abs() <= self.walkable_climb
    }

    /// The layer of the first of `neighbours` (the spans of a neighbour column) that `span`
    /// connects to. Layers too deep to encode raise `max_layer_index` instead.
    #[inline]
    fn first_layer(
        &self,
        span: &CompactSpan,
        neighbours: &[CompactSpan],
        max_layer_index: &mut usize,
    ) -> Option<u32> {
        for (layer, neighbour) in neighbours.iter().enumerate() {
            if self.connects(span, neighbour) {
                if layer > MAX_LAYERS {
                    *max_layer_index = (*max_layer_index).max(layer);
                    continue;
                }
                return Some(layer as u32);
            }
        }
        None
    }
}

/// Sets the link of a still unlinked direction.
#[inline]
fn set_layer(span: &mut CompactSpan, dir: usize, layer: u32) {
    span.con ^= (NOT_CONNECTED ^ layer) << (dir * 6);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connections_pack_in_six_bits() {
        let mut span = CompactSpan::default();
        for dir in 0..4 {
            span.set_con(dir, NOT_CONNECTED);
        }
        assert_eq!(span.con, 0xff_ffff);
        span.set_con(2, 5);
        assert_eq!(span.con(2), 5);
        assert_eq!(span.con(1), NOT_CONNECTED);
        assert_eq!(span.con(3), NOT_CONNECTED);
    }
}
