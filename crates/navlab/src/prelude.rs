//! The types most programs use, in one import: `use navlab::prelude::*;` brings the
//! game-facing layer ([`game`](crate::game): the builder, queries that return values, the
//! crowd with agent ids, the tile cache of obstacles, typed flags), the settings, the navmesh
//! and its files, the query filter, and the pipeline's error. The exact C++-shaped types
//! (`detour::query::NavMeshQuery`, `crowd::Crowd`, `bake::Build`, ...) are one path away.

pub use crate::bake::BuildSettings;
pub use crate::detour::query::{QueryFilter, Status};
pub use crate::detour::{NavMesh, PolyRef, load_nav_mesh, save_nav_mesh};
pub use crate::error::{NavlabError, Result};
pub use crate::game::{
    AgentEvent, AgentId, AgentParams, ChangedTile, Crowd, NavMeshBuilder, NavPoint, NavQuery,
    Obstacle, ObstacleId, OffMeshLink, Path, PolyFlags, QueryError, StraightPathOptions, TileCache,
    UpdateFlags, Waypoint, WaypointKind, area,
};
pub use crate::input::TriMesh;
