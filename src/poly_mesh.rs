//! The convex polygon mesh with adjacency (Recast's `rcPolyMesh`).

/// Polygons in voxel coordinates, up to `nvp` vertices each.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PolyMesh {
    /// Vertices, 3 × u16 each (x, y, z in voxels).
    pub verts: Vec<u16>,
    /// Polygons, `2 * nvp` entries each: vertex indices then neighbour polygon indices (or edge
    /// flags), unused slots [`crate::MESH_NULL_IDX`].
    pub polys: Vec<u16>,
    /// Region id per polygon.
    pub regs: Vec<u16>,
    /// User flags per polygon (0 after building).
    pub flags: Vec<u16>,
    /// Area id per polygon.
    pub areas: Vec<u8>,
    /// Number of vertices.
    pub nverts: usize,
    /// Number of polygons.
    pub npolys: usize,
    /// Capacity the polygon arrays were allocated for (as Recast reports it).
    pub maxpolys: usize,
    /// Maximum vertices per polygon.
    pub nvp: usize,
    pub bmin: [f32; 3],
    pub bmax: [f32; 3],
    pub cs: f32,
    pub ch: f32,
    pub border_size: i32,
    pub max_edge_error: f32,
}

impl PolyMesh {
    /// The `2 * nvp` entries of polygon `i`.
    pub fn poly(&self, i: usize) -> &[u16] {
        &self.polys[i * 2 * self.nvp..(i + 1) * 2 * self.nvp]
    }
}
