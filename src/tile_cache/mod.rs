//! DetourTileCache: navmesh tiles kept as compressed heightfield layers and rebuilt around
//! temporary obstacles. So far its compression format ([`fastlz`]) and the stored layer
//! ([`layer`], `dtBuildTileCacheLayer`). The layers come from Recast's
//! `rcBuildHeightfieldLayers`, which `bake` joins to this module.

pub mod fastlz;
pub mod layer;
