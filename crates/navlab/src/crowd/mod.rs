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
//! - [`phases`] names the update's phases and times them for [`Crowd::update_profiled`].
//! - [`agent`] holds an agent's state and parameters, the crowd's limits and its update flags
//!   (`dtCrowdAgent`, `dtCrowdAgentParams`).
//!
//! In a `dtCrowd` update these meet in this order: move requests go to the path queue and come
//! back as corridors; the proximity grid gives each agent its neighbours and the local
//! boundary its walls; the corridor gives the corners to steer to and is optimised; obstacle
//! avoidance adjusts the desired velocity; the corridor follows the agent's move. [`crowd`]
//! is `dtCrowd` itself: the agent pool, the update, collision resolution and off-mesh jumps.
//!
//! Like [`crate::detour::query`], every piece performs C++'s f32 operations in the same order
//! and keeps C++'s fixed-size buffers, so that results can equal C++ DetourCrowd's bit for
//! bit, checked against the reference crowd runs (`detour/crowd_nav_test_*.json`). This module
//! sits on [`crate::detour`] only.

pub mod agent;
/// `dtCrowd`, named after the module as in Detour.
#[allow(clippy::module_inception)]
pub mod crowd;
pub mod local_boundary;
pub mod obstacle_avoidance;
pub mod path_corridor;
pub mod path_queue;
pub mod phases;
pub mod proximity_grid;
#[cfg(test)]
mod test_mesh;

pub use agent::{CrowdAgent, CrowdAgentParams};
pub use crowd::{Crowd, CrowdAgentDebugInfo, CrowdState, DetachedCrowd};
pub use local_boundary::LocalBoundary;
pub use obstacle_avoidance::{
    ObstacleAvoidanceDebugData, ObstacleAvoidanceParams, ObstacleAvoidanceQuery,
};
pub use path_corridor::PathCorridor;
pub use path_queue::{DetachedPathQueue, PathQueue, PathQueueRef, PathQueueState};
pub use phases::{CrowdPhase, CrowdPhaseTimes};
pub use proximity_grid::ProximityGrid;
