//! A crowd agent's data (`dtCrowdAgent`, `dtCrowdAgentParams`, `dtCrowdAgentAnimation`) and
//! the crowd's limits and update flags, laid out for `dtCrowd`'s update to work on.

use super::local_boundary::LocalBoundary;
use super::path_corridor::PathCorridor;
use super::path_queue::{PATHQ_INVALID, PathQueueRef};
use crate::detour::PolyRef;
use crate::detour::common::Vec3;
use crate::detour::query::{Status, StraightPathPoint};

/// Neighbours an agent steers around (`DT_CROWDAGENT_MAX_NEIGHBOURS`).
pub const MAX_NEIGHBOURS: usize = 6;
/// Corners an agent looks ahead (`DT_CROWDAGENT_MAX_CORNERS`); the straight path search
/// keeps one slot for itself, so at most three are useful.
pub const MAX_CORNERS: usize = 4;
/// Avoidance configurations a crowd holds (`DT_CROWD_MAX_OBSTAVOIDANCE_PARAMS`).
pub const MAX_OBSTACLE_AVOIDANCE_PARAMS: usize = 8;
/// Query filters a crowd holds (`DT_CROWD_MAX_QUERY_FILTER_TYPE`).
pub const MAX_QUERY_FILTER_TYPE: usize = 16;

/// Steer towards the corner after next, for smoother turns (`DT_CROWD_ANTICIPATE_TURNS`).
pub const CROWD_ANTICIPATE_TURNS: u8 = 1;
/// Sample velocities around neighbours and walls (`DT_CROWD_OBSTACLE_AVOIDANCE`).
pub const CROWD_OBSTACLE_AVOIDANCE: u8 = 2;
/// Keep apart from neighbours (`DT_CROWD_SEPARATION`).
pub const CROWD_SEPARATION: u8 = 4;
/// Shortcut the corridor towards visible corners ([`PathCorridor::optimize_path_visibility`],
/// `DT_CROWD_OPTIMIZE_VIS`).
pub const CROWD_OPTIMIZE_VIS: u8 = 8;
/// Re-plan the corridor's start now and then ([`PathCorridor::optimize_path_topology`],
/// `DT_CROWD_OPTIMIZE_TOPO`).
pub const CROWD_OPTIMIZE_TOPO: u8 = 16;

/// What kind of polygon the agent is on (`CrowdAgentState`); the numbers are C++'s.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum AgentState {
    /// Not on the navmesh.
    #[default]
    Invalid = 0,
    /// Moving on the navmesh.
    Walking = 1,
    /// Crossing an off-mesh connection.
    OffMesh = 2,
}

/// Where the agent's move request stands (`MoveRequestState`); the numbers are C++'s.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum MoveRequestState {
    #[default]
    /// No move requested.
    None = 0,
    /// The request could not be served.
    Failed = 1,
    /// A corridor to the target exists.
    Valid = 2,
    /// Asked for, the quick search not run yet.
    Requesting = 3,
    /// Waiting for a path queue slot.
    WaitingForQueue = 4,
    /// In the path queue.
    WaitingForPath = 5,
    /// Moving at a requested velocity rather than to a target.
    Velocity = 6,
}

/// A neighbour found through the proximity grid (`dtCrowdNeighbour`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CrowdNeighbour {
    /// Its index in the crowd.
    pub index: usize,
    /// Squared xz distance to it, the sort key.
    pub dist: f32,
}

/// How an agent moves (`dtCrowdAgentParams`). C++'s `userData` pointer is left out: keep such
/// data beside the crowd, by agent index.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CrowdAgentParams {
    /// The agent's radius, world units.
    pub radius: f32,
    /// The agent's height, world units.
    pub height: f32,
    /// Largest acceleration, world units per second squared.
    pub max_acceleration: f32,
    /// Top speed, world units per second.
    pub max_speed: f32,
    /// How near walls and agents must be to be steered around.
    pub collision_query_range: f32,
    /// How far ahead [`CROWD_OPTIMIZE_VIS`] looks.
    pub path_optimization_range: f32,
    /// How hard others keep away from this agent with [`CROWD_SEPARATION`].
    pub separation_weight: f32,
    /// `CROWD_*` flags.
    pub update_flags: u8,
    /// Index of the crowd's avoidance configuration (below [`MAX_OBSTACLE_AVOIDANCE_PARAMS`]).
    pub obstacle_avoidance_type: u8,
    /// Index of the crowd's query filter (below [`MAX_QUERY_FILTER_TYPE`]).
    pub query_filter_type: u8,
}

/// Corridor polygons checked for validity each update (`CHECK_LOOKAHEAD`).
pub(super) const CHECK_LOOKAHEAD: usize = 10;

/// An agent of the crowd (`dtCrowdAgent`): its corridor, walls, neighbours, velocities and
/// move request. Buffers are allocated once, when the crowd makes its agent pool.
#[derive(Clone, Debug, PartialEq)]
pub struct CrowdAgent {
    /// Whether the slot holds an agent.
    pub active: bool,
    /// On the navmesh, off it, or on an off-mesh connection.
    pub state: AgentState,
    /// The corridor is valid but does not reach the requested target.
    pub partial: bool,
    /// The polygon corridor towards the target.
    pub corridor: PathCorridor,
    /// The wall segments near the agent.
    pub boundary: LocalBoundary,
    /// Seconds since the corridor's topology was last optimised.
    pub topology_opt_time: f32,
    /// The neighbours, filled by the crowd's update.
    pub(super) neis: [CrowdNeighbour; MAX_NEIGHBOURS],
    pub(super) nneis: usize,
    /// The speed it wants to move at, world units per second.
    pub desired_speed: f32,
    /// The position.
    pub npos: Vec3,
    /// Displacement gathered while resolving collisions.
    pub disp: Vec3,
    /// Desired velocity, from the corridor.
    pub dvel: Vec3,
    /// Desired velocity after avoidance.
    pub nvel: Vec3,
    /// Actual velocity, `nvel` reached within the maximum acceleration.
    pub vel: Vec3,
    /// The parameters the agent was added with.
    pub params: CrowdAgentParams,
    /// The corners, filled by the crowd's update.
    pub(super) corners: [StraightPathPoint; MAX_CORNERS],
    pub(super) ncorners: usize,
    /// Where the move request stands.
    pub target_state: MoveRequestState,
    /// The target's polygon.
    pub target_ref: PolyRef,
    /// The target position, or the velocity for [`MoveRequestState::Velocity`].
    pub target_pos: Vec3,
    /// The path-queue request serving the move, if any.
    pub target_pathq_ref: PathQueueRef,
    /// The current corridor is being re-planned.
    pub target_replan: bool,
    /// Seconds since the target was last re-planned.
    pub target_replan_time: f32,
    /// The corridor's first polygons when they were last all found valid, with the crowd's
    /// validity epoch and the filter number then.
    pub(super) valid_corridor_start: Option<ValidCorridorStart>,
}

/// Corridor polygons found valid together (up to the crowd's validity look-ahead), in a
/// validity epoch of the crowd (a span in which neither its navmesh nor its filters change)
/// with one filter: while the corridor starts with them, they need no checking again.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct ValidCorridorStart {
    epoch: u64,
    filter_type: u8,
    len: usize,
    polys: [PolyRef; CHECK_LOOKAHEAD],
}

impl CrowdAgent {
    /// An inactive agent whose corridor holds `max_path` polygons; fails as
    /// [`PathCorridor::new`] does.
    pub fn new(max_path: usize, params: CrowdAgentParams) -> Result<CrowdAgent, Status> {
        Ok(CrowdAgent {
            active: false,
            state: AgentState::Invalid,
            partial: false,
            corridor: PathCorridor::new(max_path)?,
            boundary: LocalBoundary::new(),
            topology_opt_time: 0.0,
            neis: [CrowdNeighbour::default(); MAX_NEIGHBOURS],
            nneis: 0,
            desired_speed: 0.0,
            npos: [0.0; 3],
            disp: [0.0; 3],
            dvel: [0.0; 3],
            nvel: [0.0; 3],
            vel: [0.0; 3],
            params,
            corners: [StraightPathPoint::default(); MAX_CORNERS],
            ncorners: 0,
            target_state: MoveRequestState::None,
            target_ref: 0,
            target_pos: [0.0; 3],
            target_pathq_ref: PATHQ_INVALID,
            target_replan: false,
            target_replan_time: 0.0,
            valid_corridor_start: None,
        })
    }

    /// Whether the corridor's first polygons (up to the validity look-ahead, at least one)
    /// were all found valid in `epoch` with the agent's filter.
    pub(super) fn corridor_start_known_valid(&self, epoch: u64) -> bool {
        let path = self.corridor.path();
        let len = path.len().min(CHECK_LOOKAHEAD);
        self.valid_corridor_start.is_some_and(|v| {
            v.epoch == epoch
                && v.filter_type == self.params.query_filter_type
                && v.len == len
                && len > 0
                && path[..len] == v.polys[..len]
        })
    }

    /// Remembers the corridor's first polygons (up to the validity look-ahead) as all found
    /// valid in `epoch` with the agent's filter.
    pub(super) fn remember_corridor_start_valid(&mut self, epoch: u64) {
        let path = self.corridor.path();
        let len = path.len().min(CHECK_LOOKAHEAD);
        let mut polys = [0; CHECK_LOOKAHEAD];
        polys[..len].copy_from_slice(&path[..len]);
        self.valid_corridor_start = Some(ValidCorridorStart {
            epoch,
            filter_type: self.params.query_filter_type,
            len,
            polys,
        });
    }

    /// The neighbours found in the last update, nearest first.
    pub fn neighbours(&self) -> &[CrowdNeighbour] {
        &self.neis[..self.nneis]
    }

    /// The corners the agent steers by, from [`PathCorridor::find_corners`].
    pub fn corners(&self) -> &[StraightPathPoint] {
        &self.corners[..self.ncorners]
    }
}

/// An agent's jump along an off-mesh connection (`dtCrowdAgentAnimation`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CrowdAgentAnimation {
    /// Whether the agent is on a connection now.
    pub active: bool,
    /// Where the agent was when the jump began, and the connection's two ends.
    pub init_pos: Vec3,
    /// The connection's start point.
    pub start_pos: Vec3,
    /// The connection's end point.
    pub end_pos: Vec3,
    /// The connection.
    pub poly_ref: PolyRef,
    /// Seconds into the jump, and its length.
    pub t: f32,
    /// Seconds the whole jump takes.
    pub tmax: f32,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RecastDemo's crowd tool agent, scenario A of the reference crowd runs.
    fn demo_params() -> CrowdAgentParams {
        CrowdAgentParams {
            radius: 0.6,
            height: 2.0,
            max_acceleration: 8.0,
            max_speed: 3.5,
            collision_query_range: 0.6 * 12.0,
            path_optimization_range: 0.6 * 30.0,
            separation_weight: 2.0,
            update_flags: CROWD_ANTICIPATE_TURNS
                | CROWD_OPTIMIZE_VIS
                | CROWD_OPTIMIZE_TOPO
                | CROWD_OBSTACLE_AVOIDANCE,
            obstacle_avoidance_type: 1,
            query_filter_type: 0,
        }
    }

    #[test]
    fn flags_and_states_have_cpp_numbers() {
        assert_eq!(demo_params().update_flags, 27);
        assert_eq!(demo_params().update_flags | CROWD_SEPARATION, 31);
        assert_eq!(
            [
                AgentState::Invalid,
                AgentState::Walking,
                AgentState::OffMesh
            ]
            .map(|s| s as u8),
            [0, 1, 2]
        );
        let states = [
            MoveRequestState::None,
            MoveRequestState::Failed,
            MoveRequestState::Valid,
            MoveRequestState::Requesting,
            MoveRequestState::WaitingForQueue,
            MoveRequestState::WaitingForPath,
            MoveRequestState::Velocity,
        ];
        assert_eq!(states.map(|s| s as u8), [0, 1, 2, 3, 4, 5, 6]);
    }

    #[test]
    fn a_new_agent_is_inactive_and_empty() {
        let agent = CrowdAgent::new(256, demo_params()).expect("agent");
        assert!(!agent.active);
        assert_eq!(agent.state, AgentState::Invalid);
        assert_eq!(agent.target_state, MoveRequestState::None);
        assert_eq!(agent.target_pathq_ref, PATHQ_INVALID);
        assert_eq!(agent.corridor.capacity(), 256);
        assert!(agent.corridor.path().is_empty());
        assert!(agent.neighbours().is_empty() && agent.corners().is_empty());
        assert!(agent.boundary.segments().is_empty());
        assert!(CrowdAgent::new(2, demo_params()).is_err());
    }
}
