//! The error of the whole pipeline: each layer's own error ([`FileError`], [`OutOfMemory`],
//! [`recast::Error`](crate::recast::Error), [`input::Error`](crate::input::Error),
//! [`DetourError`], [`NavMeshFileError`]) wrapped as it is, and the problems only a bake has
//! (settings, tiles, merges). Callers (the command line, the viewer) show one clear message.

use std::path::PathBuf;

use crate::detour::{DetourError, NavMeshFileError, RefWidth};
use crate::file::FileError;
use crate::memory::OutOfMemory;

/// Everything that can go wrong when loading input or building a navmesh.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum NavlabError {
    /// A file could not be read or written, or is too large for its kind.
    #[error(transparent)]
    File(#[from] FileError),
    /// A buffer would not fit in memory.
    #[error(transparent)]
    OutOfMemory(#[from] OutOfMemory),
    /// A Recast stage failed.
    #[error(transparent)]
    Recast(#[from] crate::recast::Error),
    /// An input mesh or geometry set is unusable.
    #[error(transparent)]
    Input(#[from] crate::input::Error),
    /// Detour rejected navmesh data or an operation on a navmesh.
    #[error(transparent)]
    Detour(#[from] DetourError),
    /// A navmesh file could not be read or is not a navmesh.
    #[error(transparent)]
    NavMeshFile(#[from] NavMeshFileError),
    /// A tile store could not be written, opened or streamed from.
    #[cfg(feature = "zstd")]
    #[error(transparent)]
    TileStore(#[from] crate::detour::tile_store::TileStoreError),
    /// A navmesh query failed (`DT_FAILURE` with its detail bits).
    #[error("the navmesh query failed with status {0}")]
    Query(#[from] crate::detour::query::Status),
    /// A settings file (TOML) or a test-case file could not be parsed.
    #[error("{path}: {message}")]
    InvalidSettingsFile {
        /// The file.
        path: PathBuf,
        /// What is wrong, with the line where there is one.
        message: String,
    },
    /// A `--set NAME=VALUE` override could not be applied.
    #[error("{flag} {assignment}: {message}")]
    InvalidSettingOverride {
        /// The flag that gave it: `--set`, or a command's own (`navlab diff --set-b`).
        flag: &'static str,
        /// The `NAME=VALUE` as given (shortened).
        assignment: String,
        /// What is wrong with it.
        message: String,
    },
    /// An agent profile (`name=radius,height,climb,slope`) or a list of them is unusable.
    #[error("agent profile {profile}: {reason}")]
    InvalidAgentProfile {
        /// The profile as given (shortened), or the list's names.
        profile: String,
        /// What is wrong with it.
        reason: String,
    },
    /// One agent profile's build failed (`bake::profiles`).
    #[error("profile `{profile}`: {source}")]
    InProfile {
        /// The profile's name.
        profile: String,
        /// Why its build failed.
        source: Box<NavlabError>,
    },
    /// An output path the run may not write: one of its inputs, a file an input names, or
    /// another output of the same run.
    #[error("{flag} {}: {problem}", path.display())]
    OutputPath {
        /// The flag that named the output (`-o`, `--json`, …).
        flag: &'static str,
        /// The output path.
        path: PathBuf,
        /// Why it may not be written.
        problem: String,
    },
    /// A build setting is out of its valid range.
    #[error("setting `{name}` = {value}: {reason}")]
    InvalidSetting {
        /// The setting's name, as RecastDemo and settings files spell it.
        name: &'static str,
        /// Its value, as given.
        value: String,
        /// Its valid range, or why it is refused.
        reason: String,
    },
    /// The voxel grid would be too large to build.
    #[error(
        "the voxel grid would be {width} x {height} = {cells} cells, over the limit of {limit}; raise cellSize (now {cell_size})"
    )]
    GridTooLarge {
        /// Cells along x.
        width: i64,
        /// Cells along z.
        height: i64,
        /// Cells in all.
        cells: i64,
        /// The most cells a build may have (`maxGridCells`).
        limit: i64,
        /// The cell size, world units.
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
        /// Height of the bounds, world units.
        tall: f32,
        /// Lowest y of the bounds.
        bottom: f32,
        /// The cell height, world units.
        cell_height: f32,
        /// The smallest cell height that holds the bounds.
        min_cell_height: f32,
    },
    /// The build made no polygon; `what` says which stage removed the last walkable geometry.
    #[error("nothing is walkable: {what}; check {check}")]
    NothingWalkable {
        /// Which stage removed the last walkable geometry.
        what: String,
        /// The settings to look at.
        check: String,
    },
    /// The tile grid has more tiles than a Detour navmesh can address (with 64-bit references,
    /// than Navlab bakes into one).
    #[error(
        "{tiles_x} x {tiles_y} tiles exceed the {max_tiles} tiles {}; {}",
        match .ref_width {
            RefWidth::Bits32 => "a Detour navmesh with 32-bit polygon references can address",
            RefWidth::Bits64 => "Navlab bakes into one navmesh with 64-bit polygon references",
        },
        too_many_tiles_advice(*.ref_width, *.min_tile_size)
    )]
    TooManyTiles {
        /// Tiles along x.
        tiles_x: i64,
        /// Tiles along z.
        tiles_y: i64,
        /// The most tiles a navmesh can address.
        max_tiles: i64,
        /// The smallest tile size that fits, if any does.
        min_tile_size: Option<i32>,
        /// The width of the navmesh's references.
        ref_width: RefWidth,
    },
    /// A `--tiles` range that is malformed or does not fit the tile grid.
    #[error("--tiles {range}: {reason}")]
    InvalidTileRange {
        /// The range as given.
        range: String,
        /// Why it is refused.
        reason: String,
    },
    /// Parts given to `navlab merge` that do not make one navmesh.
    #[error("{0}")]
    MergeParts(String),
    /// A build stage failed (Recast's wording is kept in `message` to help searching).
    #[error("{stage}: {message}")]
    Stage {
        /// The stage, by Recast's function name.
        stage: &'static str,
        /// What went wrong, in Recast's words where it has them.
        message: String,
    },
}

/// A length in metres for messages, to a tenth.
fn round_tenth(metres: f32) -> f32 {
    (metres * 10.0).round() / 10.0
}

/// Shorthand for the pipeline's results.
pub type Result<T, E = NavlabError> = std::result::Result<T, E>;

impl NavlabError {
    /// The buffer that did not fit, however deep in the layers it was refused.
    pub fn out_of_memory(&self) -> Option<&OutOfMemory> {
        match self {
            NavlabError::OutOfMemory(e) => Some(e),
            NavlabError::Recast(crate::recast::Error::OutOfMemory(e)) => Some(e),
            NavlabError::Input(crate::input::Error::OutOfMemory(e)) => Some(e),
            _ => None,
        }
    }
}

/// What to do about a tile grid too big for the navmesh: 64-bit references first (they
/// number 2¹⁴ times more tiles), then larger tiles.
fn too_many_tiles_advice(ref_width: RefWidth, min_tile_size: Option<i32>) -> String {
    let larger_tiles = match min_tile_size {
        Some(size) => format!("use --tile-size {size} or more"),
        None => "no tile size up to 4096 is enough: raise cellSize".to_string(),
    };
    match ref_width {
        RefWidth::Bits32 => format!(
            "turn on 64-bit polygon references (--poly-refs 64, or polyRefs = 64 in the \
             settings), or {larger_tiles}"
        ),
        RefWidth::Bits64 => larger_tiles,
    }
}
