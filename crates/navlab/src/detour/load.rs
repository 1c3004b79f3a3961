//! Reading a navmesh file of either format, told apart by its first bytes: RecastDemo's MSET
//! ([`nav_mesh_file`](super::nav_mesh_file)) or Navlab's compact file (`nav_mesh_compact`).

use std::path::Path;

use super::DetourError;
use super::nav_mesh::NavMesh;
use super::nav_mesh_file::{COMPACT_MAGIC, MAX_NAVMESH_FILE_BYTES, NavMeshFileError};

/// Reads an "MSET" file (see [`NavMesh::from_mset_bytes`]) or a compact one (starting with
/// [`COMPACT_MAGIC`], see `NavMesh::from_compact_bytes`, feature `zstd`), refusing more than
/// [`MAX_NAVMESH_FILE_BYTES`] (a regular file before reading it, a pipe or device once more has
/// arrived).
pub fn load_nav_mesh(path: &Path) -> Result<NavMesh, NavMeshFileError> {
    let data = crate::file::read_capped(path, MAX_NAVMESH_FILE_BYTES)?;
    nav_mesh_from_bytes(&data).map_err(|source| NavMeshFileError::Invalid {
        path: path.to_path_buf(),
        source,
    })
}

/// A navmesh from a file's bytes already read (an engine's asset loader), either format, told
/// apart as [`load_nav_mesh`] does. Every count is checked against the bytes present.
pub fn nav_mesh_from_bytes(data: &[u8]) -> Result<NavMesh, DetourError> {
    if data.starts_with(&COMPACT_MAGIC) {
        from_compact_bytes(data)
    } else {
        NavMesh::from_mset_bytes(data)
    }
}

#[cfg(feature = "zstd")]
fn from_compact_bytes(data: &[u8]) -> Result<NavMesh, DetourError> {
    NavMesh::from_compact_bytes(data)
}

/// Without the `zstd` feature a compact file is refused, saying what would read it.
#[cfg(not(feature = "zstd"))]
fn from_compact_bytes(_: &[u8]) -> Result<NavMesh, DetourError> {
    Err(DetourError::Compression(
        "this build of navlab reads no compact navmesh files (its `zstd` feature is off)".into(),
    ))
}
