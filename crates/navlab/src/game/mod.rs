//! The game-facing layer: triangles in and a navmesh out in one expression
//! ([`NavMeshBuilder`]), queries that own their memory and return values ([`NavQuery`], and
//! the same queries as [`NavMesh`](crate::detour::NavMesh) methods), a [`Crowd`] without a
//! borrow, with [`AgentId`]s and typed flags, and a [`TileCache`] of obstacles that reports
//! the tiles it changed.
//!
//! It is a thin layer over the exact API (`detour`, `crowd`, `tile_cache`, `bake`): every
//! result is what those give for the same input, and each type hands out the exact one
//! underneath for what this layer does not cover.
//!
//! # Threads
//! A [`NavMesh`](crate::detour::NavMesh) is `Send + Sync`: share `&NavMesh` (or an `Arc`)
//! between threads and give each thread its own [`NavQuery`] (the navmesh's own query
//! methods keep one per thread for you). A [`Crowd`] or a [`TileCache`] belongs to one
//! thread at a time (`Send`), and changing the navmesh (`TileCache::update`) needs it
//! unshared, as Rust's borrows make sure.

mod builder;
mod crowd;
mod flags;
mod query;
mod tile_cache;

pub use builder::{NavMeshBuilder, OffMeshLink, UNWALKABLE};
pub use crowd::{AgentEvent, AgentId, AgentParams, Crowd, CrowdError};
pub use flags::{PolyFlags, StraightPathOptions, UpdateFlags, area};
pub use query::{
    DEFAULT_HALF_EXTENTS, DEFAULT_MAX_NODES, NavPoint, NavQuery, Path, QueryError, QueryResult,
    RayHit, RayWall, WallDistance, Waypoint, WaypointKind,
};
pub use tile_cache::{ChangedTile, Obstacle, ObstacleId, TileCache};
