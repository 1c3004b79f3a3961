//! The detail mesh: per polygon, a triangle mesh that follows the surface height (Recast's
//! `rcPolyMeshDetail`).

/// Height detail for every polygon of a [`crate::poly_mesh::PolyMesh`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PolyMeshDetail {
    /// Per polygon: first vertex, vertex count, first triangle, triangle count.
    pub meshes: Vec<u32>,
    /// Vertices in world units, 3 × f32 each.
    pub verts: Vec<f32>,
    /// Triangles, 4 bytes each: three local vertex indices and edge flags.
    pub tris: Vec<u8>,
}

impl PolyMeshDetail {
    /// Number of sub-meshes (one per polygon).
    pub fn nmeshes(&self) -> usize {
        self.meshes.len() / 4
    }

    /// Number of vertices.
    pub fn nverts(&self) -> usize {
        self.verts.len() / 3
    }

    /// Number of triangles.
    pub fn ntris(&self) -> usize {
        self.tris.len() / 4
    }
}
