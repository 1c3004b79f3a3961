//! The compact heightfield: only the open space above walkable spans, stored column-major in
//! flat arrays, with 6-bit links to the neighbouring spans (Recast's `rcCompactHeightfield`).

use crate::context::{BuildContext, TimerLabel};
use crate::heightfield::{Heightfield, NO_SPAN};
use crate::{NULL_AREA, NavlabError, Result, dir_offset_x, dir_offset_z};

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
        let nx = x + crate::dir_offset_x(dir);
        let nz = z + crate::dir_offset_z(dir);
        Some(self.cell(nx, nz).index as usize + con as usize)
    }

    /// Number of spans with a non-null area.
    pub fn walkable_span_count(&self) -> usize {
        self.areas
            .iter()
            .filter(|&&a| a != crate::NULL_AREA)
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
    let span_count = hf.walkable_span_count();
    if u32::try_from(span_count).is_err() {
        let message = format!("Out of memory 'chf.spans' ({span_count})");
        ctx.error(format!("rcBuildCompactHeightfield: {message}"));
        return Err(NavlabError::Stage {
            stage: "rcBuildCompactHeightfield",
            message,
        });
    }
    let mut bmax = hf.bmax;
    bmax[1] += walkable_height as f32 * hf.ch;

    let mut cells = vec![CompactCell::default(); hf.columns.len()];
    let mut spans = Vec::with_capacity(span_count);
    let mut areas = Vec::with_capacity(span_count);
    for (cell, &head) in cells.iter_mut().zip(&hf.columns) {
        // Empty columns keep index 0; columns with only unwalkable spans get the running index.
        if head == NO_SPAN {
            continue;
        }
        cell.index = spans.len() as u32;
        let mut index = head;
        while index != NO_SPAN {
            let span = hf.pool[index as usize];
            index = span.next;
            if span.area == NULL_AREA {
                continue;
            }
            let bottom = i32::from(span.smax);
            let top = if span.next == NO_SPAN {
                OPEN_SKY
            } else {
                i32::from(hf.pool[span.next as usize].smin)
            };
            spans.push(CompactSpan {
                y: bottom as u16,
                reg: 0,
                con: 0,
                h: (top - bottom).clamp(0, 0xff) as u8,
            });
            areas.push(span.area);
            cell.count += 1;
        }
    }

    let linker = Linker {
        cells: &cells,
        width,
        height,
        walkable_height,
        walkable_climb,
    };
    let mut max_layer_index = 0;
    for z in 0..height {
        for x in 0..width {
            let cell = cells[(x + z * width) as usize];
            for i in cell.index as usize..(cell.index + cell.count) as usize {
                let span = spans[i];
                let mut con = 0;
                for dir in 0..4 {
                    let layer =
                        linker.layer_towards(&spans, x, z, dir, &span, &mut max_layer_index);
                    con |= layer << (dir * 6);
                }
                spans[i].con = con;
            }
        }
    }
    if max_layer_index > MAX_LAYERS {
        ctx.error(format!(
            "rcBuildCompactHeightfield: Heightfield has too many layers {max_layer_index} (max: {MAX_LAYERS})"
        ));
    }

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

/// Finds the neighbour links of compact spans.
struct Linker<'a> {
    cells: &'a [CompactCell],
    width: i32,
    height: i32,
    walkable_height: i32,
    walkable_climb: i32,
}

impl Linker<'_> {
    /// The layer of the first of `spans` in the neighbour column of (`x`, `z`) in direction `dir`
    /// that `span` connects to, or [`NOT_CONNECTED`]. Layers too deep to encode raise
    /// `max_layer_index` instead.
    #[inline]
    fn layer_towards(
        &self,
        spans: &[CompactSpan],
        x: i32,
        z: i32,
        dir: usize,
        span: &CompactSpan,
        max_layer_index: &mut usize,
    ) -> u32 {
        let nx = x + dir_offset_x(dir);
        let nz = z + dir_offset_z(dir);
        if nx < 0 || nz < 0 || nx >= self.width || nz >= self.height {
            return NOT_CONNECTED;
        }
        let y = i32::from(span.y);
        let top = y + i32::from(span.h);
        let cell = self.cells[(nx + nz * self.width) as usize];
        let start = cell.index as usize;
        let neighbours = &spans[start..start + cell.count as usize];
        for (layer, neighbour) in neighbours.iter().enumerate() {
            let ny = i32::from(neighbour.y);
            let bottom = y.max(ny);
            let ceiling = top.min(ny + i32::from(neighbour.h));
            if ceiling - bottom >= self.walkable_height && (ny - y).abs() <= self.walkable_climb {
                if layer > MAX_LAYERS {
                    *max_layer_index = (*max_layer_index).max(layer);
                    continue;
                }
                return layer as u32;
            }
        }
        NOT_CONNECTED
    }
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
