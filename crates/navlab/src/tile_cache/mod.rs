//! DetourTileCache: navmesh tiles kept as compressed heightfield layers and rebuilt around
//! temporary obstacles: its compression format ([`fastlz`]), the stored layer
//! ([`layer`], `dtBuildTileCacheLayer`), the store of layers with C++'s references ([`cache`]),
//! RecastDemo's tile-cache file ([`file`](mod@file), TSET) and the rebuild of a layer's navmesh
//! tile around obstacles ([`builder`], DetourTileCacheBuilder), driven by the obstacle queue
//! ([`obstacles`], `dtTileCache::update`). The
//! layers come from Recast's `rcBuildHeightfieldLayers`, which `bake` joins to this module.

pub mod builder;
pub mod cache;
pub mod fastlz;
pub mod file;
pub mod layer;
pub mod obstacles;
