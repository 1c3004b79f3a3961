//! One error type for every fallible operation, so callers (CLI, viewer) can show a clear message.

use std::path::PathBuf;

/// Everything that can go wrong when loading input or building a navmesh.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum NavlabError {
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The input mesh file is not valid OBJ, or its content is unusable.
    #[error("{path}: {message}")]
    InvalidMesh { path: PathBuf, message: String },
    /// A settings file (TOML or `.gset`) could not be parsed.
    #[error("{path}: {message}")]
    InvalidSettingsFile { path: PathBuf, message: String },
    /// A build setting is out of its valid range.
    #[error("setting `{name}` = {value}: {reason}")]
    InvalidSetting {
        name: &'static str,
        value: String,
        reason: String,
    },
    /// The voxel grid would be too large to build.
    #[error(
        "the voxel grid would be {width} x {height} = {cells} cells, over the limit of {limit}; raise cellSize (now {cell_size})"
    )]
    GridTooLarge {
        width: i64,
        height: i64,
        cells: i64,
        limit: i64,
        cell_size: f32,
    },
    /// The bounds are taller than a span's height bits can hold at this cell height (Recast
    /// would clamp everything above to the top silently).
    #[error(
        "the mesh is {} m tall (y {} to {}), more than {} cells of cellHeight {cell_height} can hold; raise cellHeight to at least {min_cell_height}",
        round_tenth(*.tall),
        round_tenth(*.bottom),
        round_tenth(*.bottom + *.tall),
        crate::recast::heightfield::SPAN_MAX_HEIGHT
    )]
    TooTall {
        tall: f32,
        bottom: f32,
        cell_height: f32,
        min_cell_height: f32,
    },
    /// A buffer of the build would not fit in memory (`limit` is the machine's memory when that
    /// was the reason, `None` when the allocator refused).
    #[error("{}", out_of_memory(.what, *.bytes, *.limit))]
    OutOfMemory {
        what: String,
        bytes: u64,
        limit: Option<u64>,
    },
    /// The build made no polygon; `what` says which stage removed the last walkable geometry.
    #[error("nothing is walkable: {what}; check {check}")]
    NothingWalkable { what: String, check: String },
    /// The tile grid has more tiles than a Detour navmesh can address.
    #[error(
        "{tiles_x} x {tiles_y} tiles exceed the {max_tiles} tiles a Detour navmesh can address; {}",
        match .min_tile_size {
            Some(size) => format!("use --tile-size {size} or more"),
            None => "no tile size up to 4096 is enough: raise cellSize".to_string(),
        }
    )]
    TooManyTiles {
        tiles_x: i64,
        tiles_y: i64,
        max_tiles: i64,
        min_tile_size: Option<i32>,
    },
    /// A navmesh file is unreadable as Detour data (see [`crate::detour::DetourError`]).
    #[error("{path}: {source}")]
    InvalidNavMeshFile {
        path: PathBuf,
        #[source]
        source: crate::detour::DetourError,
    },
    /// Detour rejected navmesh data or an operation on a navmesh.
    #[error(transparent)]
    Detour(#[from] crate::detour::DetourError),
    /// A build stage failed (Recast's wording is kept in `message` to help searching).
    #[error("{stage}: {message}")]
    Stage {
        stage: &'static str,
        message: String,
    },
}

/// A length in metres for messages, to a tenth.
fn round_tenth(metres: f32) -> f32 {
    (metres * 10.0).round() / 10.0
}

fn out_of_memory(what: &str, bytes: u64, limit: Option<u64>) -> String {
    let size = crate::memory::format_bytes(bytes);
    let why = match limit {
        Some(limit) => format!(
            "{what} would need {size}, more than the {} of memory here",
            crate::memory::format_bytes(limit)
        ),
        None => format!("{what} would need {size}, which could not be allocated"),
    };
    format!("{why}; raise cellSize or cellHeight")
}

/// Shorthand used across the crate.
pub type Result<T, E = NavlabError> = std::result::Result<T, E>;
