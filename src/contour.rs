//! Region outlines: traced raw contours and their simplified versions (Recast's `rcContourSet`).

/// The outline of one region.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Contour {
    /// Simplified vertices, 4 values each: x, y, z and the neighbour region with flags
    /// ([`crate::BORDER_VERTEX`], [`crate::AREA_BORDER`]).
    pub verts: Vec<i32>,
    /// Raw traced vertices, 4 values each, same layout.
    pub raw_verts: Vec<i32>,
    /// Region id.
    pub reg: u16,
    /// Area id.
    pub area: u8,
}

impl Contour {
    /// Number of simplified vertices.
    pub fn nverts(&self) -> usize {
        self.verts.len() / 4
    }

    /// Number of raw vertices.
    pub fn nraw_verts(&self) -> usize {
        self.raw_verts.len() / 4
    }
}

/// All contours of a compact heightfield.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ContourSet {
    pub contours: Vec<Contour>,
    pub bmin: [f32; 3],
    pub bmax: [f32; 3],
    pub cs: f32,
    pub ch: f32,
    pub width: i32,
    pub height: i32,
    pub border_size: i32,
    pub max_error: f32,
}
