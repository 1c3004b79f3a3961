//! The types most programs use, in one import: `use navlab::prelude::*;` brings the build
//! (input, settings, solo and tiled builds), the navmesh and its files, queries and their
//! filter and status, the crowd, the tile cache and the pipeline's error.

pub use crate::bake::{Build, BuildSettings, TiledBuild};
pub use crate::crowd::{Crowd, CrowdAgentParams};
pub use crate::detour::query::{NavMeshQuery, QueryFilter, Status, StraightPathPoint};
pub use crate::detour::{NavMesh, NavMeshParams, PolyRef, load_nav_mesh, save_nav_mesh};
pub use crate::error::{NavlabError, Result};
pub use crate::input::{GeomSet, InputGeom, TriMesh};
pub use crate::tile_cache::builder::ObstacleShape;
pub use crate::tile_cache::cache::TileCache;
pub use crate::tile_cache::obstacles::Obstacles;
