//! DetourCrowd's building blocks: the pieces `dtCrowd` moves its agents with.
//!
//! - [`proximity_grid`] hashes agent ids into an xz grid to find neighbours
//!   (`dtProximityGrid`).
//! - [`local_boundary`] keeps the nearest wall segments around an agent (`dtLocalBoundary`).
//! - [`path_corridor`] keeps an agent's polygon corridor valid as it and its target move, and
//!   finds the next corners to steer to (`dtPathCorridor`).
//! - [`path_queue`] serves path requests a few search iterations per update (`dtPathQueue`).
//! - [`obstacle_avoidance`] picks a velocity that steers clear of nearby agents and walls by
//!   sampling (`dtObstacleAvoidanceQuery`), with RecastDemo's four quality presets.
//!
//! Like [`crate::detour::query`], every piece performs C++'s f32 operations in the same order
//! and keeps its fixed-size buffers, so results equal C++ DetourCrowd's bit for bit. This
//! module sits on [`crate::detour`] only.

pub mod local_boundary;
pub mod obstacle_avoidance;
pub mod path_corridor;
pub mod path_queue;
pub mod proximity_grid;
#[cfg(test)]
mod test_mesh;

pub use local_boundary::LocalBoundary;
pub use obstacle_avoidance::{
    ObstacleAvoidanceDebugData, ObstacleAvoidanceParams, ObstacleAvoidanceQuery,
};
pub use path_corridor::PathCorridor;
pub use path_queue::{PathQueue, PathQueueRef};
pub use proximity_grid::ProximityGrid;
