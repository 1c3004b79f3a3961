//! The compact heightfield: only the open space above walkable spans, stored column-major in
//! flat arrays, with 6-bit links to the neighbouring spans (Recast's `rcCompactHeightfield`).

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
