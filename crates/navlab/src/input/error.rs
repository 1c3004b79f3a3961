//! What can make an input unusable: its file (unreadable, too large), its content (not OBJ or
//! glTF, no triangles, a `.gset` line that does not parse), or its size in memory.

use std::path::PathBuf;

use crate::file::FileError;
use crate::memory::OutOfMemory;

/// An input mesh or geometry set that could not be loaded.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The file could not be read, or is larger than Navlab reads for its kind.
    #[error(transparent)]
    File(#[from] FileError),
    /// The mesh file is not valid OBJ or glTF, or its content is unusable.
    #[error("{path}: {message}")]
    InvalidMesh {
        /// The file.
        path: PathBuf,
        /// What is wrong, with the line where there is one.
        message: String,
    },
    /// A geometry set (`.gset`) that does not parse, or whose saved bounds miss its mesh.
    #[error("{path}: {message}")]
    InvalidGeomSet {
        /// The file.
        path: PathBuf,
        /// What is wrong, with the line where there is one.
        message: String,
    },
    /// The mesh is too large for the triangle tree that tile builds and picking use.
    #[error("PartitionMesh: {0}")]
    Partition(String),
    /// A buffer for the mesh would not fit in memory.
    #[error(transparent)]
    OutOfMemory(#[from] OutOfMemory),
}

/// Shorthand for the readers' results.
pub type Result<T, E = Error> = std::result::Result<T, E>;
