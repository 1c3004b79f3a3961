//! What can stop a Recast stage: a buffer that does not fit in memory, or the stage's own
//! failure in Recast's words (`rcBuildPolyMesh: Too many vertices.`).

use crate::memory::OutOfMemory;

/// A Recast stage that could not finish.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A buffer of the stage would not fit in memory.
    #[error(transparent)]
    OutOfMemory(#[from] OutOfMemory),
    /// The stage failed; Recast's wording is kept in `message` to help searching.
    #[error("{stage}: {message}")]
    Stage {
        /// The stage, by Recast's function name.
        stage: &'static str,
        /// What went wrong.
        message: String,
    },
}

/// Shorthand for the stages' results.
pub type Result<T, E = Error> = std::result::Result<T, E>;
