//! Navlab: Recast & Detour navigation-mesh building, rewritten in Rust.
//!
//! The folders follow recastnavigation's own split, and dependencies run one way, downwards in
//! this table: a module uses only rows above it (and the shared `error`, `file`, `math`,
//! `memory`).
//!
//! | module | what lives there | C++ counterpart |
//! |---|---|---|
//! | [`recast`] | the build stages, from rasterization to the detail mesh, with `rcConfig` and `rcContext` | `Recast` |
//! | [`input`] | OBJ and glTF readers and the triangle mesh, `.gset` files, the partitioned mesh, `InputGeom`, generated scenes | RecastDemo's `MeshLoaderObj`, `InputGeom`, `PartitionedMesh` |
//! | [`detour`] | tile data, the navmesh, the tile builder (plain arrays in), the MSET file, the queries | `Detour` |
//! | [`crowd`] | DetourCrowd: proximity grid, local boundary, path corridor, path queue, obstacle avoidance and `dtCrowd` itself; sits on `detour` | `DetourCrowd` |
//! | [`tile_cache`] | DetourTileCache, sitting on `detour`: FastLZ, the stored layer, the cache, obstacles and the layer tile builder | `DetourTileCache` |
//! | [`bake`] | RecastDemo's samples as pipelines: settings, solo build, tiled build, temp obstacles, authoring rules, detail mesh export | RecastDemo's `Sample_SoloMesh`, `Sample_TileMesh`, `Sample_TempObstacles` |
//! | [`game`] | the game-facing layer: the navmesh builder, queries that return values, a crowd without a borrow, obstacles by id, typed flags | none: C++ has only the exact API |
//! | [`debug_draw`] | render-agnostic debug geometry of every stage, the navmesh, crowds and the tile cache | `DebugUtils` |
//!
//! `recast` and `input` know nothing of Detour (`input` takes only Recast's partition type, which
//! a `.gset` saves), and `detour` nothing of Recast: its tile builder takes plain arrays, which
//! `bake` fills from Recast's output. The `navlab` command line and the viewer live in the
//! application package at the repository's root, with RecastDemo's test harness.
//!
//! The algorithms are derived from recastnavigation (zlib licence, © 2009-2010 Mikko Mononen);
//! for the same input and settings the output equals C++ Recast's and Detour's, array for array
//! and byte for byte.

#![warn(missing_docs)]

/// The README's library snippet, run as a doctest so that it stays true.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;

pub mod bake;
pub mod crowd;
pub mod debug_draw;
pub mod detour;
pub mod error;
pub mod file;
pub mod game;
pub mod input;
pub mod math;
pub mod memory;
pub mod prelude;
pub mod recast;
pub mod tile_cache;
pub mod warnings;

/// Threads for tiles and big grids: rayon, or a one-thread stand-in without the `rayon` feature.
#[cfg(feature = "rayon")]
use rayon as threads;
#[cfg(not(feature = "rayon"))]
mod threads;

pub use error::{NavlabError, Result};
