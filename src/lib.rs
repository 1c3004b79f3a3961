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
//! | [`detour`] | tile data, the navmesh, the tile builder (plain arrays in), the MSET file | `Detour` |
//! | [`crowd`] | DetourCrowd: proximity grid, local boundary, path corridor, path queue, obstacle avoidance, `dtCrowd` itself and RecastDemo's crowd tool scenario; sits on `detour` | `DetourCrowd` |
//! | [`tile_cache`] | DetourTileCache, sitting on `detour`: so far FastLZ and the stored (compressed) layer | `DetourTileCache` |
//! | [`bake`] | RecastDemo's samples as pipelines: settings, solo build, tiled build, temp obstacles (so far its layers), authoring rules, stage dumps, detail mesh export | RecastDemo's `Sample_SoloMesh`, `Sample_TileMesh`, `Sample_TempObstacles` |
//! | [`debug_draw`] | render-agnostic debug geometry of every stage, the navmesh, crowds and the tile cache | `DebugUtils` |
//! | [`session_script`] | the viewer's scripted sessions (one JSON action per line), read without Bevy so they are fuzzed | — |
//! | `viewer` (feature `viewer`) | the Bevy desktop viewer, one plugin per concern, one file per tool | RecastDemo |
//!
//! `recast` and `input` know nothing of Detour (`input` takes only Recast's partition type, which
//! a `.gset` saves), and `detour` nothing of Recast: its tile builder takes plain arrays, which
//! `bake` fills from Recast's output. `error` is the crate's one error type (and its bounded
//! warnings), and `file` reads every input file with a size cap; both are shared by all. The
//! `navlab` command line (`src/cli/`, one file per command) sits on top, beside the viewer.
//!
//! The algorithms are derived from recastnavigation (zlib licence, © 2009-2010 Mikko Mononen);
//! for the same input and settings the output equals C++ Recast's and Detour's, array for array
//! and byte for byte.

/// The README's library snippet, run as a doctest so that it stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

pub mod bake;
pub mod crowd;
pub mod debug_draw;
pub mod detour;
pub mod error;
pub mod file;
pub mod input;
pub mod math;
pub mod memory;
pub mod recast;
pub mod session_script;
pub mod tile_cache;
#[cfg(feature = "viewer")]
pub mod viewer;

pub use error::{NavlabError, Result};
