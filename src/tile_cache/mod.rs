//! DetourTileCache: navmesh tiles kept as compressed heightfield layers and rebuilt around
//! temporary obstacles. So far its compression format ([`fastlz`]); the layers themselves are
//! Recast's ([`crate::recast::layers`]).

pub mod fastlz;
