//! The crowd itself (`dtCrowd`): a pool of agents moved together over a navmesh, each
//! update planning paths, finding neighbours and walls, steering, avoiding, resolving
//! collisions and following the corridor, in C++'s order and with its f32 arithmetic.
//!
//! Every buffer is allocated by [`Crowd::new`]; [`Crowd::update`] allocates nothing.

use super::agent::{
    AgentState, CHECK_LOOKAHEAD, CROWD_ANTICIPATE_TURNS, CROWD_OBSTACLE_AVOIDANCE,
    CROWD_OPTIMIZE_TOPO, CROWD_OPTIMIZE_VIS, CROWD_SEPARATION, CrowdAgent, CrowdAgentAnimation,
    CrowdAgentParams, CrowdNeighbour, MAX_NEIGHBOURS, MAX_OBSTACLE_AVOIDANCE_PARAMS,
    MAX_QUERY_FILTER_TYPE, MoveRequestState,
};
use super::obstacle_avoidance::{
    ObstacleAvoidanceDebugData, ObstacleAvoidanceParams, ObstacleAvoidanceQuery,
};
use super::path_queue::{
    CROWD_ITERATIONS_PER_UPDATE, CROWD_PATH_QUEUE_NODES, MAX_QUEUE, PATHQ_INVALID, PathQueue,
    PathQueueState,
};
use super::phases::{CrowdPhase, CrowdPhaseTimes, PhaseClock, enter};
use super::proximity_grid::ProximityGrid;
use crate::detour::common::{Vec3, clamp, min, next_pow2, sqr, vadd, vlen_sqr, vlerp, vsub};
use crate::detour::query::geometry::{
    tri_area_2d, vdist_2d, vdist_2d_sqr, vmad, vnormalize, vscale,
};
use crate::detour::query::{
    DetachedQuery, NavMeshQuery, Node, QueryFilter, STRAIGHTPATH_END,
    STRAIGHTPATH_OFFMESH_CONNECTION, Status,
};
use crate::detour::{NavMesh, PolyRef};

/// Polygons of an agent's corridor and of a path queue result (`m_maxPathResult`).
pub const MAX_PATH_RESULT: usize = 256;
/// Search nodes of the crowd's own query object (`MAX_COMMON_NODES`).
const COMMON_QUERY_NODES: usize = 512;
/// Agents that may enter the path queue per update (`PATH_MAX_AGENTS`).
const PATH_QUEUE_AGENTS_PER_UPDATE: usize = 8;
/// Iterations of the quick search a new move request gets (`MAX_ITER`).
const QUICK_SEARCH_ITERATIONS: usize = 20;
/// Polygons the quick search keeps (`MAX_RES`).
const QUICK_SEARCH_POLYS: usize = 32;
/// Seconds between topology optimisations of an agent (`OPT_TIME_THR`).
const TOPOLOGY_OPTIMIZATION_INTERVAL: f32 = 0.5;
/// Agents whose topology is optimised per update (`OPT_MAX_AGENTS`).
const TOPOLOGY_AGENTS_PER_UPDATE: usize = 1;
/// Seconds before a corridor that does not reach its target is re-planned.
const TARGET_REPLAN_DELAY: f32 = 1.0;
/// Share of the overlap an agent moves away per collision pass.
const COLLISION_RESOLVE_FACTOR: f32 = 0.7;
/// Collision resolution passes per update.
const COLLISION_ITERATIONS: usize = 4;
/// Neighbour candidates taken from the proximity grid (`MAX_NEIS`).
const GRID_QUERY_IDS: usize = 32;

/// What one agent's update looked like, for drawing it (`dtCrowdAgentDebugInfo`).
#[derive(Clone, Debug, Default)]
pub struct CrowdAgentDebugInfo {
    /// The agent's position in the active-agent list, or none.
    pub idx: Option<usize>,
    /// The visibility optimisation's ray.
    pub opt_start: Vec3,
    /// The ray's end.
    pub opt_end: Vec3,
    /// Where the velocity samples go, when wanted.
    pub vod: Option<ObstacleAvoidanceDebugData>,
}

/// A crowd of agents and the query memory `Q` it plans with: [`Crowd`] queries a navmesh it
/// borrows, [`DetachedCrowd`] holds the same memory between updates without the borrow.
#[derive(Clone, Debug)]
pub struct CrowdState<Q> {
    max_agent_radius: f32,
    placement_half_extents: Vec3,
    agents: Vec<CrowdAgent>,
    anims: Vec<CrowdAgentAnimation>,
    /// Indices of the active agents, rebuilt each update (`m_activeAgents`).
    active: Vec<usize>,
    filters: [QueryFilter; MAX_QUERY_FILTER_TYPE],
    avoidance_params: [ObstacleAvoidanceParams; MAX_OBSTACLE_AVOIDANCE_PARAMS],
    obstacle_query: ObstacleAvoidanceQuery,
    grid: ProximityGrid,
    path_result: Vec<PolyRef>,
    path_queue: PathQueueState<Q>,
    query: Q,
    velocity_sample_count: usize,
    /// Counts the changes that can make a valid polygon invalid (a filter handed out for
    /// editing, the crowd put on a navmesh again), so that an agent's wall boundary and
    /// corridor start found valid are not checked again until their polygons or this count
    /// change.
    validity_epoch: u64,
    /// The stamp of the navmesh the crowd was last on: put back on it unchanged, the crowd
    /// keeps its validity epoch.
    nav_stamp: u64,
}

/// A crowd of agents on one navmesh (`dtCrowd`).
pub type Crowd<'a> = CrowdState<NavMeshQuery<'a>>;

/// A crowd that lets go of its navmesh between updates ([`Crowd::detach`]): its agents can be
/// read and given targets, and [`DetachedCrowd::attach`] makes it a [`Crowd`] again without
/// allocating. A navmesh changed in place in between (tile cache, tile rebuilds) is met as
/// C++'s crowd meets it: the next update checks every corridor.
pub type DetachedCrowd = CrowdState<DetachedQuery>;

/// `dtCrowd`'s `tween`: where `t` lies between `t0` and `t1`, clamped to 0..1.
fn tween(t: f32, t0: f32, t1: f32) -> f32 {
    clamp((t - t0) / (t1 - t0), 0.0, 1.0)
}

fn vlen(v: &Vec3) -> f32 {
    vlen_sqr(v).sqrt()
}

/// Reaches the avoided velocity within the maximum acceleration and moves by it.
fn integrate(ag: &mut CrowdAgent, dt: f32) {
    let max_delta = ag.params.max_acceleration * dt;
    let mut dv = vsub(&ag.nvel, &ag.vel);
    let ds = vlen(&dv);
    if ds > max_delta {
        dv = vscale(&dv, max_delta / ds);
    }
    ag.vel = vadd(&ag.vel, &dv);
    if vlen(&ag.vel) > 0.0001 {
        ag.npos = vmad(&ag.npos, &ag.vel, dt);
    } else {
        ag.vel = [0.0; 3];
    }
}

/// Whether the last corner is an off-mesh connection within `radius`.
fn over_offmesh_connection(ag: &CrowdAgent, radius: f32) -> bool {
    match ag.corners().last() {
        Some(last) if last.flags & STRAIGHTPATH_OFFMESH_CONNECTION != 0 => {
            vdist_2d_sqr(&ag.npos, &last.pos) < radius * radius
        }
        _ => false,
    }
}

/// The distance to the path's end when it is among the corners, at most `range`.
fn distance_to_goal(ag: &CrowdAgent, range: f32) -> f32 {
    match ag.corners().last() {
        Some(last) if last.flags & STRAIGHTPATH_END != 0 => {
            min(vdist_2d(&ag.npos, &last.pos), range)
        }
        _ => range,
    }
}

/// A direction between the first two corners, so that turns start early.
fn smooth_steer_direction(ag: &CrowdAgent) -> Vec3 {
    let corners = ag.corners();
    let (Some(p0), Some(p1)) = (corners.first(), corners.get(1).or(corners.first())) else {
        return [0.0; 3];
    };
    let mut dir0 = vsub(&p0.pos, &ag.npos);
    let mut dir1 = vsub(&p1.pos, &ag.npos);
    dir0[1] = 0.0;
    dir1[1] = 0.0;
    let len0 = vlen(&dir0);
    let len1 = vlen(&dir1);
    if len1 > 0.001 {
        dir1 = vscale(&dir1, 1.0 / len1);
    }
    let mut dir = [
        dir0[0] - dir1[0] * len0 * 0.5,
        0.0,
        dir0[2] - dir1[2] * len0 * 0.5,
    ];
    vnormalize(&mut dir);
    dir
}

/// The direction to the first corner.
fn straight_steer_direction(ag: &CrowdAgent) -> Vec3 {
    let Some(p0) = ag.corners().first() else {
        return [0.0; 3];
    };
    let mut dir = vsub(&p0.pos, &ag.npos);
    dir[1] = 0.0;
    vnormalize(&mut dir);
    dir
}

/// Inserts a neighbour by distance, keeping the nearest `neis.len()`; returns the new count.
fn add_neighbour(index: usize, dist: f32, neis: &mut [CrowdNeighbour], nneis: usize) -> usize {
    let max_neis = neis.len();
    let slot = if nneis == 0 {
        0
    } else if dist >= neis[nneis - 1].dist {
        if nneis >= max_neis {
            return nneis;
        }
        nneis
    } else {
        let i = neis[..nneis]
            .iter()
            .position(|n| dist <= n.dist)
            .unwrap_or(nneis);
        if i >= max_neis {
            return nneis;
        }
        let moved = (nneis - i).min(max_neis - (i + 1));
        neis.copy_within(i..i + moved, i + 1);
        i
    };
    neis[slot] = CrowdNeighbour { index, dist };
    (nneis + 1).min(max_neis)
}

/// Inserts `agent` into `queue` by `key`, largest first, keeping `queue.len()`; returns the
/// new count (`addToOptQueue`, `addToPathQueue`).
fn add_to_queue(
    agent: usize,
    queue: &mut [usize],
    nqueue: usize,
    key: impl Fn(usize) -> f32,
) -> usize {
    let max = queue.len();
    let k = key(agent);
    let slot = if nqueue == 0 {
        0
    } else if k <= key(queue[nqueue - 1]) {
        if nqueue >= max {
            return nqueue;
        }
        nqueue
    } else {
        let i = queue[..nqueue]
            .iter()
            .position(|&a| k >= key(a))
            .unwrap_or(nqueue);
        if i >= max {
            return nqueue;
        }
        let moved = (nqueue - i).min(max - (i + 1));
        queue.copy_within(i..i + moved, i + 1);
        i
    };
    queue[slot] = agent;
    (nqueue + 1).min(max)
}

/// The agents (as active-list positions, mapped to agent indices) within `range` of
/// `active[skip]` and overlapping it in height, nearest first (`getNeighbours`).
fn find_neighbours(
    skip: usize,
    agents: &[CrowdAgent],
    active: &[usize],
    grid: &ProximityGrid,
    result: &mut [CrowdNeighbour; MAX_NEIGHBOURS],
) -> usize {
    let me = &agents[active[skip]];
    let pos = me.npos;
    let range = me.params.collision_query_range;
    let height = me.params.height;
    let mut ids = [0u32; GRID_QUERY_IDS];
    let nids = grid.query_items(
        pos[0] - range,
        pos[2] - range,
        pos[0] + range,
        pos[2] + range,
        &mut ids,
    );
    let mut n = 0;
    for &id in &ids[..nids] {
        let id = id as usize;
        if id == skip {
            continue;
        }
        let Some(&agent_index) = active.get(id) else {
            continue;
        };
        let other = &agents[agent_index];
        let mut diff = vsub(&pos, &other.npos);
        if diff[1].abs() >= (height + other.params.height) / 2.0 {
            continue;
        }
        diff[1] = 0.0;
        let dist_sqr = vlen_sqr(&diff);
        if dist_sqr > sqr(range) {
            continue;
        }
        n = add_neighbour(id, dist_sqr, result, n);
    }
    for nei in &mut result[..n] {
        nei.index = active[nei.index];
    }
    n
}

/// Whether the agent has no target to walk to (none, or a velocity).
fn moves_without_target(ag: &CrowdAgent) -> bool {
    matches!(
        ag.target_state,
        MoveRequestState::None | MoveRequestState::Velocity
    )
}

/// The main heap bytes of a query object with `max_nodes` search nodes
/// ([`NavMeshQuery::new`]): the nodes, their open-list entries (a cost and an index) and their
/// hash buckets (one per four nodes); its small pool for local searches is left out.
fn query_heap_bytes(max_nodes: usize) -> u64 {
    let nodes = max_nodes * std::mem::size_of::<Node>();
    let open_list = (max_nodes + 1) * std::mem::size_of::<(f32, u32)>();
    let buckets = next_pow2((max_nodes / 4) as u32) as usize * std::mem::size_of::<u16>();
    (nodes + open_list + buckets) as u64
}

impl<Q> CrowdState<Q> {
    /// Sets avoidance configuration `idx`; false when out of range.
    pub fn set_obstacle_avoidance_params(
        &mut self,
        idx: usize,
        params: &ObstacleAvoidanceParams,
    ) -> bool {
        match self.avoidance_params.get_mut(idx) {
            Some(slot) => {
                *slot = *params;
                true
            }
            None => false,
        }
    }

    /// Avoidance parameter set `idx` (of `DT_CROWD_MAX_OBSTAVOIDANCE_PARAMS`).
    pub fn obstacle_avoidance_params(&self, idx: usize) -> Option<&ObstacleAvoidanceParams> {
        self.avoidance_params.get(idx)
    }

    /// Query filter `idx` (of `DT_CROWD_MAX_QUERY_FILTER_TYPE`).
    pub fn filter(&self, idx: usize) -> Option<&QueryFilter> {
        self.filters.get(idx)
    }

    /// A filter to edit; agents using it see the change from the next update on.
    pub fn filter_mut(&mut self, idx: usize) -> Option<&mut QueryFilter> {
        self.validity_epoch += 1;
        self.filters.get_mut(idx)
    }

    /// The box agents are placed and targets looked up in (`getQueryHalfExtents`).
    pub fn query_half_extents(&self) -> &Vec3 {
        &self.placement_half_extents
    }

    /// The largest agent radius the crowd was made for (`getMaxAgentRadius`).
    pub fn max_agent_radius(&self) -> f32 {
        self.max_agent_radius
    }

    /// The size of the agent pool (`getAgentCount`).
    pub fn agent_count(&self) -> usize {
        self.agents.len()
    }

    /// Agent slot `idx`, active or not.
    pub fn agent(&self, idx: usize) -> Option<&CrowdAgent> {
        self.agents.get(idx)
    }

    /// Agent `idx`'s off-mesh jump.
    pub fn agent_animation(&self, idx: usize) -> Option<&CrowdAgentAnimation> {
        self.anims.get(idx)
    }

    /// The indices of the active agents, in pool order.
    pub fn active_agents(&self) -> impl Iterator<Item = usize> + '_ {
        self.agents
            .iter()
            .enumerate()
            .filter(|(_, ag)| ag.active)
            .map(|(i, _)| i)
    }

    /// Velocity samples the last update took (`getVelocitySampleCount`).
    pub fn velocity_sample_count(&self) -> usize {
        self.velocity_sample_count
    }

    /// The neighbour grid of the last update, for drawing it (`getGrid`).
    pub fn proximity_grid(&self) -> &ProximityGrid {
        &self.grid
    }

    /// Whether `params` names a filter and an avoidance configuration the crowd has.
    fn params_in_range(params: &CrowdAgentParams) -> bool {
        usize::from(params.query_filter_type) < MAX_QUERY_FILTER_TYPE
            && usize::from(params.obstacle_avoidance_type) < MAX_OBSTACLE_AVOIDANCE_PARAMS
    }

    /// Replaces agent `idx`'s parameters; false when `idx` or the filter or avoidance index
    /// is out of range.
    pub fn update_agent_parameters(&mut self, idx: usize, params: &CrowdAgentParams) -> bool {
        if !Self::params_in_range(params) {
            return false;
        }
        match self.agents.get_mut(idx) {
            Some(ag) => {
                ag.params = *params;
                true
            }
            None => false,
        }
    }

    /// Frees agent slot `idx` (`removeAgent`).
    pub fn remove_agent(&mut self, idx: usize) {
        if let Some(ag) = self.agents.get_mut(idx) {
            ag.active = false;
        }
    }

    fn set_move_target(&mut self, idx: usize, poly_ref: PolyRef, pos: &Vec3, replan: bool) {
        let ag = &mut self.agents[idx];
        ag.target_ref = poly_ref;
        ag.target_pos = *pos;
        ag.target_pathq_ref = PATHQ_INVALID;
        ag.target_replan = replan;
        ag.target_state = if poly_ref != 0 {
            MoveRequestState::Requesting
        } else {
            MoveRequestState::Failed
        };
    }

    /// Asks agent `idx` to walk to `pos` on polygon `poly_ref` (`requestMoveTarget`); the
    /// path is planned during the next updates. False for a bad index, a zero reference or
    /// a position that is not finite.
    pub fn request_move_target(&mut self, idx: usize, poly_ref: PolyRef, pos: &Vec3) -> bool {
        if idx >= self.agents.len() || poly_ref == 0 || !pos.iter().all(|v| v.is_finite()) {
            return false;
        }
        self.set_move_target(idx, poly_ref, pos, false);
        true
    }

    /// Asks agent `idx` to move at velocity `vel` (`requestMoveVelocity`); false for a bad
    /// index or a velocity that is not finite.
    pub fn request_move_velocity(&mut self, idx: usize, vel: &Vec3) -> bool {
        if !vel.iter().all(|v| v.is_finite()) {
            return false;
        }
        let Some(ag) = self.agents.get_mut(idx) else {
            return false;
        };
        ag.target_ref = 0;
        ag.target_pos = *vel;
        ag.target_pathq_ref = PATHQ_INVALID;
        ag.target_replan = false;
        ag.target_state = MoveRequestState::Velocity;
        true
    }

    /// Drops agent `idx`'s target or velocity request (`resetMoveTarget`).
    pub fn reset_move_target(&mut self, idx: usize) -> bool {
        let Some(ag) = self.agents.get_mut(idx) else {
            return false;
        };
        ag.target_ref = 0;
        ag.target_pos = [0.0; 3];
        ag.dvel = [0.0; 3];
        ag.target_pathq_ref = PATHQ_INVALID;
        ag.target_replan = false;
        ag.target_state = MoveRequestState::None;
        true
    }
}

impl DetachedCrowd {
    /// The crowd on `nav` again, with every agent, request and search as they were.
    pub fn attach(self, nav: &NavMesh) -> Crowd<'_> {
        CrowdState {
            max_agent_radius: self.max_agent_radius,
            placement_half_extents: self.placement_half_extents,
            agents: self.agents,
            anims: self.anims,
            active: self.active,
            filters: self.filters,
            avoidance_params: self.avoidance_params,
            obstacle_query: self.obstacle_query,
            grid: self.grid,
            path_result: self.path_result,
            path_queue: self.path_queue.attach(nav),
            query: self.query.attach(nav),
            velocity_sample_count: self.velocity_sample_count,
            validity_epoch: if nav.stamp() == self.nav_stamp {
                self.validity_epoch
            } else {
                self.validity_epoch + 1
            },
            nav_stamp: nav.stamp(),
        }
    }
}

impl<'a> Crowd<'a> {
    /// The crowd without its navmesh, keeping everything else (agents, requests, the
    /// search under way, the query memory): [`DetachedCrowd::attach`] undoes it.
    pub fn detach(self) -> DetachedCrowd {
        CrowdState {
            max_agent_radius: self.max_agent_radius,
            placement_half_extents: self.placement_half_extents,
            agents: self.agents,
            anims: self.anims,
            active: self.active,
            filters: self.filters,
            avoidance_params: self.avoidance_params,
            obstacle_query: self.obstacle_query,
            grid: self.grid,
            path_result: self.path_result,
            path_queue: self.path_queue.detach(),
            query: self.query.detach(),
            velocity_sample_count: self.velocity_sample_count,
            validity_epoch: self.validity_epoch,
            nav_stamp: self.nav_stamp,
        }
    }

    /// The heap bytes [`Crowd::new`] allocates for `max_agents` agents, so that a caller can
    /// refuse crowds that would not fit before making them: per crowd the path queue's and
    /// the crowd's query objects and the queue's result slots; per agent its state and
    /// corridor, its animation, its place in the active list and its four grid items.
    pub fn heap_bytes(max_agents: usize) -> u64 {
        let path = (MAX_PATH_RESULT * std::mem::size_of::<PolyRef>()) as u64;
        let per_crowd = query_heap_bytes(CROWD_PATH_QUEUE_NODES)
            + query_heap_bytes(COMMON_QUERY_NODES)
            + (MAX_QUEUE as u64 + 1) * path;
        let per_agent = (std::mem::size_of::<CrowdAgent>()
            + std::mem::size_of::<CrowdAgentAnimation>()
            + std::mem::size_of::<usize>()) as u64
            + path;
        (max_agents as u64)
            .saturating_mul(per_agent)
            .saturating_add(ProximityGrid::heap_bytes(max_agents.saturating_mul(4)))
            .saturating_add(per_crowd)
    }

    /// A crowd of up to `max_agents` agents of radius up to `max_agent_radius` on `nav`
    /// (`dtCrowd::init`): the proximity grid holds four cells per agent of size three radii,
    /// agents are placed within (2, 1.5, 2) radii, and every avoidance slot starts from
    /// [`ObstacleAvoidanceParams::default`]. Fails with `INVALID_PARAM` on a bad size.
    pub fn new(
        max_agents: usize,
        max_agent_radius: f32,
        nav: &'a NavMesh,
    ) -> Result<Crowd<'a>, Status> {
        let grid = ProximityGrid::new(max_agents.saturating_mul(4), max_agent_radius * 3.0)?;
        let path_queue = PathQueue::new(nav, MAX_PATH_RESULT, CROWD_PATH_QUEUE_NODES)?;
        let template = CrowdAgent::new(MAX_PATH_RESULT, default_agent_params())?;
        let query = NavMeshQuery::new(nav, COMMON_QUERY_NODES)?;
        Ok(CrowdState {
            max_agent_radius,
            placement_half_extents: [
                max_agent_radius * 2.0,
                max_agent_radius * 1.5,
                max_agent_radius * 2.0,
            ],
            agents: vec![template; max_agents],
            anims: vec![CrowdAgentAnimation::default(); max_agents],
            active: Vec::with_capacity(max_agents),
            filters: std::array::from_fn(|_| QueryFilter::default()),
            avoidance_params: [ObstacleAvoidanceParams::default(); MAX_OBSTACLE_AVOIDANCE_PARAMS],
            obstacle_query: ObstacleAvoidanceQuery::new(MAX_NEIGHBOURS, 8),
            grid,
            path_result: vec![0; MAX_PATH_RESULT],
            path_queue,
            query,
            velocity_sample_count: 0,
            validity_epoch: 0,
            nav_stamp: nav.stamp(),
        })
    }

    /// The crowd moved onto `nav` (another navmesh, or this one rebuilt): every agent keeps
    /// its state, parameters and corridor, the filters and avoidance presets are kept, and
    /// the query objects are made afresh for `nav`. The path queue keeps its requests and
    /// results ([`PathQueue::rebind`]); the one search under way starts over on `nav`, so an
    /// agent waiting for it gets its path later than without the move (the only way the
    /// next frames can differ from a crowd that was not moved). Polygon references `nav`
    /// does not have are found by the next update's validity checks: the agent is placed on
    /// the nearest polygon and re-plans, or stops (invalid) when there is none; a queued
    /// search between such references fails and its agent requests its target again.
    pub fn rebind<'b>(self, nav: &'b NavMesh) -> Result<Crowd<'b>, Status> {
        Ok(CrowdState {
            max_agent_radius: self.max_agent_radius,
            placement_half_extents: self.placement_half_extents,
            agents: self.agents,
            anims: self.anims,
            active: self.active,
            filters: self.filters,
            avoidance_params: self.avoidance_params,
            obstacle_query: self.obstacle_query,
            grid: self.grid,
            path_result: self.path_result,
            path_queue: self.path_queue.rebind(nav)?,
            query: NavMeshQuery::new(nav, COMMON_QUERY_NODES)?,
            velocity_sample_count: self.velocity_sample_count,
            validity_epoch: self.validity_epoch + 1,
            nav_stamp: nav.stamp(),
        })
    }

    /// The crowd's query object (`getNavMeshQuery`).
    pub fn nav_query(&self) -> &NavMeshQuery<'a> {
        &self.query
    }

    /// The path queue, whose query's search nodes show the last path searched (`getPathQueue`).
    pub fn path_queue(&self) -> &PathQueue<'a> {
        &self.path_queue
    }

    /// Adds an agent at the navmesh point nearest `pos` within the placement box (`addAgent`);
    /// with no polygon there it stays at `pos`, [`AgentState::Invalid`]. Returns its index,
    /// or none when the pool is full, `pos` is not finite or `params` names a filter or
    /// avoidance slot the crowd lacks.
    pub fn add_agent(&mut self, pos: &Vec3, params: &CrowdAgentParams) -> Option<usize> {
        if !Self::params_in_range(params) || !pos.iter().all(|v| v.is_finite()) {
            return None;
        }
        let idx = self.agents.iter().position(|ag| !ag.active)?;
        let filter = &self.filters[usize::from(params.query_filter_type)];
        let (status, found) =
            self.query
                .find_nearest_poly(pos, &self.placement_half_extents, filter);
        let (poly_ref, nearest) = if status.is_failure() {
            (0, *pos)
        } else {
            (found.poly_ref, found.point)
        };
        let ag = &mut self.agents[idx];
        ag.params = *params;
        ag.corridor.reset(poly_ref, &nearest);
        ag.boundary.reset();
        ag.partial = false;
        ag.topology_opt_time = 0.0;
        ag.target_replan_time = 0.0;
        ag.nneis = 0;
        ag.dvel = [0.0; 3];
        ag.nvel = [0.0; 3];
        ag.vel = [0.0; 3];
        ag.npos = nearest;
        ag.desired_speed = 0.0;
        ag.state = if poly_ref != 0 {
            AgentState::Walking
        } else {
            AgentState::Invalid
        };
        ag.target_state = MoveRequestState::None;
        ag.active = true;
        Some(idx)
    }

    /// Moves the crowd on by `dt` seconds (`dtCrowd::update`). A `dt` that is not a finite
    /// positive number leaves the crowd as it is. `debug` names an agent by its position
    /// among the active agents and receives its visibility ray and velocity samples.
    pub fn update(&mut self, dt: f32, debug: Option<&mut CrowdAgentDebugInfo>) {
        self.step(dt, debug, None);
    }

    /// [`Crowd::update`], adding the time each [`CrowdPhase`] took to `times` (nothing for a
    /// `dt` that leaves the crowd as it is). The results are those of `update`.
    pub fn update_profiled(
        &mut self,
        dt: f32,
        debug: Option<&mut CrowdAgentDebugInfo>,
        times: &mut CrowdPhaseTimes,
    ) {
        let mut clock = PhaseClock {
            times,
            current: None,
        };
        self.step(dt, debug, Some(&mut clock));
    }

    /// The update's body, telling `clock` (if timed) where each phase starts. One body with
    /// a run-time test, not a generic one: a second copy of the body would give its one-caller
    /// helpers a second caller, and the compiler would stop inlining them into `update`.
    fn step(
        &mut self,
        dt: f32,
        mut debug: Option<&mut CrowdAgentDebugInfo>,
        mut clock: Option<&mut PhaseClock<'_>>,
    ) {
        self.velocity_sample_count = 0;
        if !(dt > 0.0 && dt.is_finite()) {
            return;
        }
        enter(&mut clock, CrowdPhase::PathRequests);
        let debug_idx = debug.as_ref().and_then(|d| d.idx);
        self.active.clear();
        let agents = &self.agents;
        self.active
            .extend((0..agents.len()).filter(|&i| agents[i].active));

        self.check_path_validity(dt);
        self.update_move_request();
        self.update_topology_optimization(dt);

        enter(&mut clock, CrowdPhase::Neighbours);
        self.grid.clear();
        for (i, &a) in self.active.iter().enumerate() {
            let ag = &self.agents[a];
            let p = ag.npos;
            let r = ag.params.radius;
            self.grid
                .add_item(i as u32, p[0] - r, p[2] - r, p[0] + r, p[2] + r);
        }
        // Walls, then neighbours, agent by agent as C++ does (two loops would cost the plain
        // update instructions), so the clock switches phase per agent.
        for i in 0..self.active.len() {
            let a = self.active[i];
            let ag = &mut self.agents[a];
            if ag.state != AgentState::Walking {
                continue;
            }
            enter(&mut clock, CrowdPhase::Boundary);
            let filter = &self.filters[usize::from(ag.params.query_filter_type)];
            let update_thr = ag.params.collision_query_range * 0.25;
            if vdist_2d_sqr(&ag.npos, ag.boundary.center()) > sqr(update_thr)
                || !ag.boundary.is_valid_in_epoch(
                    self.validity_epoch,
                    ag.params.query_filter_type,
                    &self.query,
                    filter,
                )
            {
                ag.boundary.update(
                    ag.corridor.first_poly(),
                    &ag.npos,
                    ag.params.collision_query_range,
                    &mut self.query,
                    filter,
                );
            }
            enter(&mut clock, CrowdPhase::Neighbours);
            let mut neis = [CrowdNeighbour::default(); MAX_NEIGHBOURS];
            let n = find_neighbours(i, &self.agents, &self.active, &self.grid, &mut neis);
            let ag = &mut self.agents[a];
            ag.neis = neis;
            ag.nneis = n;
        }

        enter(&mut clock, CrowdPhase::Corridor);
        // Corners, and shortcuts towards them.
        for i in 0..self.active.len() {
            let ag = &mut self.agents[self.active[i]];
            if ag.state != AgentState::Walking || moves_without_target(ag) {
                continue;
            }
            let filter = &self.filters[usize::from(ag.params.query_filter_type)];
            ag.ncorners = ag.corridor.find_corners(&mut ag.corners, &self.query);
            if ag.params.update_flags & CROWD_OPTIMIZE_VIS != 0 && ag.ncorners > 0 {
                let target = ag.corners[1.min(ag.ncorners - 1)].pos;
                ag.corridor.optimize_path_visibility(
                    &target,
                    ag.params.path_optimization_range,
                    &self.query,
                    filter,
                );
                if let Some(d) = debug.as_deref_mut().filter(|_| debug_idx == Some(i)) {
                    d.opt_start = *ag.corridor.pos();
                    d.opt_end = target;
                }
            } else if let Some(d) = debug.as_deref_mut().filter(|_| debug_idx == Some(i)) {
                d.opt_start = [0.0; 3];
                d.opt_end = [0.0; 3];
            }
        }

        // Off-mesh connections reached.
        for i in 0..self.active.len() {
            let a = self.active[i];
            let ag = &mut self.agents[a];
            if ag.state != AgentState::Walking || moves_without_target(ag) {
                continue;
            }
            if !over_offmesh_connection(ag, ag.params.radius * 2.25) {
                continue;
            }
            let connection = ag.corners[ag.ncorners - 1].poly_ref;
            if let Some(crossing) = ag
                .corridor
                .move_over_offmesh_connection(connection, &self.query)
            {
                let anim = &mut self.anims[a];
                anim.init_pos = ag.npos;
                anim.start_pos = crossing.start;
                anim.end_pos = crossing.end;
                anim.poly_ref = crossing.refs[1];
                anim.active = true;
                anim.t = 0.0;
                anim.tmax = (vdist_2d(&anim.start_pos, &anim.end_pos) / ag.params.max_speed) * 0.5;
                ag.state = AgentState::OffMesh;
                ag.ncorners = 0;
                ag.nneis = 0;
            }
        }

        enter(&mut clock, CrowdPhase::Steering);
        // Desired velocities.
        for i in 0..self.active.len() {
            let a = self.active[i];
            let ag = &self.agents[a];
            if ag.state != AgentState::Walking || ag.target_state == MoveRequestState::None {
                continue;
            }
            let (mut dvel, desired_speed) = if ag.target_state == MoveRequestState::Velocity {
                (ag.target_pos, vlen(&ag.target_pos))
            } else {
                let dir = if ag.params.update_flags & CROWD_ANTICIPATE_TURNS != 0 {
                    smooth_steer_direction(ag)
                } else {
                    straight_steer_direction(ag)
                };
                let slow_down_radius = ag.params.radius * 2.0;
                let speed_scale = distance_to_goal(ag, slow_down_radius) / slow_down_radius;
                let speed = ag.params.max_speed;
                (vscale(&dir, speed * speed_scale), speed)
            };
            if ag.params.update_flags & CROWD_SEPARATION != 0 {
                let separation_dist = ag.params.collision_query_range;
                let inv_separation_dist = 1.0 / separation_dist;
                let separation_weight = ag.params.separation_weight;
                let mut w = 0.0;
                let mut disp = [0.0; 3];
                for nei in ag.neighbours() {
                    let other = &self.agents[nei.index];
                    let mut diff = vsub(&ag.npos, &other.npos);
                    diff[1] = 0.0;
                    let dist_sqr = vlen_sqr(&diff);
                    if dist_sqr < 0.00001 || dist_sqr > sqr(separation_dist) {
                        continue;
                    }
                    let dist = dist_sqr.sqrt();
                    let weight = separation_weight * (1.0 - sqr(dist * inv_separation_dist));
                    disp = vmad(&disp, &diff, weight / dist);
                    w += 1.0;
                }
                if w > 0.0001 {
                    dvel = vmad(&dvel, &disp, 1.0 / w);
                    let speed_sqr = vlen_sqr(&dvel);
                    let desired_sqr = sqr(desired_speed);
                    if speed_sqr > desired_sqr {
                        dvel = vscale(&dvel, desired_sqr / speed_sqr);
                    }
                }
            }
            let ag = &mut self.agents[a];
            ag.desired_speed = desired_speed;
            ag.dvel = dvel;
        }

        enter(&mut clock, CrowdPhase::Avoidance);
        for i in 0..self.active.len() {
            let a = self.active[i];
            let ag = &self.agents[a];
            if ag.state != AgentState::Walking {
                continue;
            }
            if ag.params.update_flags & CROWD_OBSTACLE_AVOIDANCE == 0 {
                let ag = &mut self.agents[a];
                ag.nvel = ag.dvel;
                continue;
            }
            self.obstacle_query.reset();
            for nei in ag.neighbours() {
                let other = &self.agents[nei.index];
                self.obstacle_query.add_circle(
                    &other.npos,
                    other.params.radius,
                    &other.vel,
                    &other.dvel,
                );
            }
            for seg in ag.boundary.segments() {
                if tri_area_2d(&ag.npos, &seg.start, &seg.end) < 0.0 {
                    continue;
                }
                self.obstacle_query.add_segment(&seg.start, &seg.end);
            }
            let vod = debug
                .as_deref_mut()
                .filter(|_| debug_idx == Some(i))
                .and_then(|d| d.vod.as_mut());
            let params = &self.avoidance_params[usize::from(ag.params.obstacle_avoidance_type)];
            let (nvel, ns) = self.obstacle_query.sample_velocity_adaptive(
                &ag.npos,
                ag.params.radius,
                ag.desired_speed,
                &ag.vel,
                &ag.dvel,
                params,
                vod,
            );
            self.velocity_sample_count += ns;
            self.agents[a].nvel = nvel;
        }

        enter(&mut clock, CrowdPhase::Integration);
        for &a in &self.active {
            let ag = &mut self.agents[a];
            if ag.state == AgentState::Walking {
                integrate(ag, dt);
            }
        }

        enter(&mut clock, CrowdPhase::Collisions);
        self.resolve_collisions();

        enter(&mut clock, CrowdPhase::Corridor);
        // Follow the corridor.
        for &a in &self.active {
            let ag = &mut self.agents[a];
            if ag.state != AgentState::Walking {
                continue;
            }
            let filter = &self.filters[usize::from(ag.params.query_filter_type)];
            let npos = ag.npos;
            ag.corridor.move_position(&npos, &mut self.query, filter);
            ag.npos = *ag.corridor.pos();
            if moves_without_target(ag) {
                let first = ag.corridor.first_poly();
                ag.corridor.reset(first, &ag.npos);
                ag.partial = false;
            }
        }

        enter(&mut clock, CrowdPhase::OffMesh);
        self.animate_offmesh(dt);
        if let Some(clock) = clock {
            clock.stop();
        }
    }

    /// Agents still at their off-mesh connection jump along it: a short run to its start,
    /// then across.
    fn animate_offmesh(&mut self, dt: f32) {
        for &a in &self.active {
            let anim = &mut self.anims[a];
            if !anim.active {
                continue;
            }
            let ag = &mut self.agents[a];
            anim.t += dt;
            if anim.t > anim.tmax {
                anim.active = false;
                ag.state = AgentState::Walking;
                continue;
            }
            let ta = anim.tmax * 0.15;
            let tb = anim.tmax;
            ag.npos = if anim.t < ta {
                vlerp(&anim.init_pos, &anim.start_pos, tween(anim.t, 0.0, ta))
            } else {
                vlerp(&anim.start_pos, &anim.end_pos, tween(anim.t, ta, tb))
            };
            ag.vel = [0.0; 3];
            ag.dvel = [0.0; 3];
        }
    }

    /// Pushes overlapping walking agents apart, in [`COLLISION_ITERATIONS`] passes.
    fn resolve_collisions(&mut self) {
        for _ in 0..COLLISION_ITERATIONS {
            for &a in &self.active {
                let ag = &self.agents[a];
                if ag.state != AgentState::Walking {
                    continue;
                }
                let mut disp = [0.0; 3];
                let mut w = 0.0;
                for nei in ag.neighbours() {
                    let other = &self.agents[nei.index];
                    let mut diff = vsub(&ag.npos, &other.npos);
                    diff[1] = 0.0;
                    let mut dist = vlen_sqr(&diff);
                    let reach = ag.params.radius + other.params.radius;
                    if dist > sqr(reach) {
                        continue;
                    }
                    dist = dist.sqrt();
                    let mut pen = reach - dist;
                    if dist < 0.0001 {
                        // Exactly on top of each other: step aside, each its own way.
                        diff = if a > nei.index {
                            [-ag.dvel[2], 0.0, ag.dvel[0]]
                        } else {
                            [ag.dvel[2], 0.0, -ag.dvel[0]]
                        };
                        pen = 0.01;
                    } else {
                        pen = (1.0 / dist) * (pen * 0.5) * COLLISION_RESOLVE_FACTOR;
                    }
                    disp = vmad(&disp, &diff, pen);
                    w += 1.0;
                }
                if w > 0.0001 {
                    disp = vscale(&disp, 1.0 / w);
                }
                self.agents[a].disp = disp;
            }
            for &a in &self.active {
                let ag = &mut self.agents[a];
                if ag.state == AgentState::Walking {
                    ag.npos = vadd(&ag.npos, &ag.disp);
                }
            }
        }
    }

    /// Re-plans agents whose corridor start, target or next polygons went invalid, and
    /// those whose corridor has long fallen short of the target (`checkPathValidity`).
    fn check_path_validity(&mut self, dt: f32) {
        for i in 0..self.active.len() {
            let a = self.active[i];
            let ag = &mut self.agents[a];
            if ag.state != AgentState::Walking {
                continue;
            }
            let filter = &self.filters[usize::from(ag.params.query_filter_type)];
            ag.target_replan_time += dt;
            let mut replan = false;
            let mut agent_ref = ag.corridor.first_poly();
            let mut agent_pos = ag.npos;
            let epoch = self.validity_epoch;
            if !ag.corridor_start_known_valid(epoch)
                && !self.query.is_valid_poly_ref(agent_ref, filter)
            {
                let (status, found) =
                    self.query
                        .find_nearest_poly(&ag.npos, &self.placement_half_extents, filter);
                if !status.is_failure() {
                    agent_ref = found.poly_ref;
                    agent_pos = found.point;
                } else {
                    agent_ref = 0;
                }
                if agent_ref == 0 {
                    ag.corridor.reset(0, &agent_pos);
                    ag.partial = false;
                    ag.boundary.reset();
                    ag.state = AgentState::Invalid;
                    continue;
                }
                ag.corridor.fix_path_start(agent_ref, &agent_pos);
                ag.boundary.reset();
                ag.npos = agent_pos;
                replan = true;
            }
            if moves_without_target(ag) {
                continue;
            }
            if ag.target_state != MoveRequestState::Failed {
                if !self.query.is_valid_poly_ref(ag.target_ref, filter) {
                    let (status, found) = self.query.find_nearest_poly(
                        &ag.target_pos,
                        &self.placement_half_extents,
                        filter,
                    );
                    ag.target_ref = 0;
                    if !status.is_failure() {
                        ag.target_ref = found.poly_ref;
                        ag.target_pos = found.point;
                    }
                    replan = true;
                }
                if ag.target_ref == 0 {
                    ag.corridor.reset(agent_ref, &agent_pos);
                    ag.partial = false;
                    ag.target_state = MoveRequestState::None;
                }
            }
            if !ag.corridor_start_known_valid(epoch) {
                if ag.corridor.is_valid(CHECK_LOOKAHEAD, &self.query, filter) {
                    ag.remember_corridor_start_valid(epoch);
                } else {
                    replan = true;
                }
            }
            if ag.target_state == MoveRequestState::Valid
                && ag.target_replan_time > TARGET_REPLAN_DELAY
                && ag.corridor.path().len() < CHECK_LOOKAHEAD
                && ag.corridor.last_poly() != ag.target_ref
            {
                replan = true;
            }
            if replan && ag.target_state != MoveRequestState::None {
                let (target_ref, target_pos) = (ag.target_ref, ag.target_pos);
                self.set_move_target(a, target_ref, &target_pos, true);
            }
        }
    }

    /// Serves move requests (`updateMoveRequest`): a quick search for new ones, the path
    /// queue for those it did not reach, and the queue's results spliced into corridors.
    fn update_move_request(&mut self) {
        let mut queue = [0usize; PATH_QUEUE_AGENTS_PER_UPDATE];
        let mut nqueue = 0;
        for a in 0..self.agents.len() {
            let ag = &mut self.agents[a];
            if !ag.active || ag.state == AgentState::Invalid || moves_without_target(ag) {
                continue;
            }
            if ag.target_state == MoveRequestState::Requesting {
                let filter = &self.filters[usize::from(ag.params.query_filter_type)];
                let start = ag.corridor.first_poly();
                let mut req_path = [0 as PolyRef; QUICK_SEARCH_POLYS];
                let mut req_pos = [0.0; 3];
                self.query.init_sliced_find_path(
                    start,
                    ag.target_ref,
                    &ag.npos,
                    &ag.target_pos,
                    filter,
                    0,
                );
                self.query
                    .update_sliced_find_path(filter, QUICK_SEARCH_ITERATIONS);
                let (status, mut req_count) = if ag.target_replan {
                    self.query.finalize_sliced_find_path_partial(
                        filter,
                        ag.corridor.path(),
                        &mut req_path,
                    )
                } else {
                    self.query.finalize_sliced_find_path(filter, &mut req_path)
                };
                if !status.is_failure() && req_count > 0 {
                    if req_path[req_count - 1] != ag.target_ref {
                        let (status, closest, _) = self
                            .query
                            .closest_point_on_poly(req_path[req_count - 1], &ag.target_pos);
                        if status.is_failure() {
                            req_count = 0;
                        } else {
                            req_pos = closest;
                        }
                    } else {
                        req_pos = ag.target_pos;
                    }
                } else {
                    req_count = 0;
                }
                if req_count == 0 {
                    req_pos = ag.npos;
                    req_path[0] = start;
                    req_count = 1;
                }
                ag.corridor.set_corridor(&req_pos, &req_path[..req_count]);
                ag.boundary.reset();
                ag.partial = false;
                if req_path[req_count - 1] == ag.target_ref {
                    ag.target_state = MoveRequestState::Valid;
                    ag.target_replan_time = 0.0;
                } else {
                    ag.target_state = MoveRequestState::WaitingForQueue;
                }
            }
            if ag.target_state == MoveRequestState::WaitingForQueue {
                let agents = &self.agents;
                nqueue = add_to_queue(a, &mut queue, nqueue, |i| agents[i].target_replan_time);
            }
        }

        for &a in &queue[..nqueue] {
            let ag = &mut self.agents[a];
            ag.target_pathq_ref = self.path_queue.request(
                ag.corridor.last_poly(),
                ag.target_ref,
                ag.corridor.target(),
                &ag.target_pos,
                usize::from(ag.params.query_filter_type),
            );
            if ag.target_pathq_ref != PATHQ_INVALID {
                ag.target_state = MoveRequestState::WaitingForPath;
            }
        }

        self.path_queue
            .update(CROWD_ITERATIONS_PER_UPDATE, &self.filters);

        for a in 0..self.agents.len() {
            let ag = &mut self.agents[a];
            if !ag.active || ag.target_state != MoveRequestState::WaitingForPath {
                continue;
            }
            let status = self.path_queue.request_status(ag.target_pathq_ref);
            if status.is_failure() {
                ag.target_pathq_ref = PATHQ_INVALID;
                ag.target_state = if ag.target_ref != 0 {
                    MoveRequestState::Requesting
                } else {
                    MoveRequestState::Failed
                };
                ag.target_replan_time = 0.0;
            } else if status.is_success() {
                let res = &mut self.path_result;
                let mut target_pos = ag.target_pos;
                let (status, mut nres) = self.path_queue.path_result(ag.target_pathq_ref, res);
                let mut valid = !status.is_failure() && nres > 0;
                ag.partial = status.has_detail(Status::PARTIAL_RESULT);
                let path = ag.corridor.path();
                let npath = path.len();
                if valid && path.last() != Some(&res[0]) {
                    valid = false;
                }
                if valid {
                    if npath > 1 {
                        // Splice the corridor's start before the result, then drop the
                        // back-and-forth visits the splice can make.
                        let kept = npath - 1;
                        if kept + nres > MAX_PATH_RESULT {
                            nres = MAX_PATH_RESULT - kept;
                        }
                        res.copy_within(0..nres, kept);
                        res[..kept].copy_from_slice(&path[..kept]);
                        nres += kept;
                        let mut j: isize = 0;
                        while (j as usize) < nres {
                            let ju = j as usize;
                            if j >= 1 && ju + 1 < nres && res[ju - 1] == res[ju + 1] {
                                res.copy_within(ju + 1..nres, ju - 1);
                                nres -= 2;
                                j -= 2;
                            }
                            j += 1;
                        }
                    }
                    if res[nres - 1] != ag.target_ref {
                        let (status, nearest, _) =
                            self.query.closest_point_on_poly(res[nres - 1], &target_pos);
                        if status.is_success() {
                            target_pos = nearest;
                        } else {
                            valid = false;
                        }
                    }
                }
                if valid {
                    ag.corridor.set_corridor(&target_pos, &res[..nres]);
                    ag.boundary.reset();
                    ag.target_state = MoveRequestState::Valid;
                } else {
                    ag.target_state = MoveRequestState::Failed;
                }
                ag.target_replan_time = 0.0;
            }
        }
    }

    /// Re-plans the corridor start of the walking agent that waited longest past
    /// [`TOPOLOGY_OPTIMIZATION_INTERVAL`] (`updateTopologyOptimization`).
    fn update_topology_optimization(&mut self, dt: f32) {
        let mut queue = [0usize; TOPOLOGY_AGENTS_PER_UPDATE];
        let mut nqueue = 0;
        for &a in &self.active {
            let ag = &mut self.agents[a];
            if ag.state != AgentState::Walking
                || moves_without_target(ag)
                || ag.params.update_flags & CROWD_OPTIMIZE_TOPO == 0
            {
                continue;
            }
            ag.topology_opt_time += dt;
            if ag.topology_opt_time >= TOPOLOGY_OPTIMIZATION_INTERVAL {
                let agents = &self.agents;
                nqueue = add_to_queue(a, &mut queue, nqueue, |i| agents[i].topology_opt_time);
            }
        }
        for &a in &queue[..nqueue] {
            let ag = &mut self.agents[a];
            let filter = &self.filters[usize::from(ag.params.query_filter_type)];
            ag.corridor.optimize_path_topology(&mut self.query, filter);
            ag.topology_opt_time = 0.0;
        }
    }
}

/// Parameters for the pool's empty slots; every agent brings its own.
fn default_agent_params() -> CrowdAgentParams {
    CrowdAgentParams {
        radius: 0.0,
        height: 0.0,
        max_acceleration: 0.0,
        max_speed: 0.0,
        collision_query_range: 0.0,
        path_optimization_range: 0.0,
        separation_weight: 0.0,
        update_flags: 0,
        obstacle_avoidance_type: 0,
        query_filter_type: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crowd::test_mesh::GridMesh;

    fn params() -> CrowdAgentParams {
        CrowdAgentParams {
            radius: 0.3,
            height: 2.0,
            max_acceleration: 8.0,
            max_speed: 3.5,
            collision_query_range: 3.6,
            path_optimization_range: 9.0,
            separation_weight: 2.0,
            update_flags: CROWD_ANTICIPATE_TURNS
                | CROWD_OPTIMIZE_VIS
                | CROWD_OPTIMIZE_TOPO
                | CROWD_OBSTACLE_AVOIDANCE
                | CROWD_SEPARATION,
            obstacle_avoidance_type: 0,
            query_filter_type: 0,
        }
    }

    fn strip() -> GridMesh {
        GridMesh::new(&["##########", "##########"], &[])
    }

    fn walk(crowd: &mut Crowd<'_>, steps: usize) {
        for _ in 0..steps {
            crowd.update(1.0 / 30.0, None);
        }
    }

    #[test]
    fn bad_sizes_fail() {
        let mesh = strip();
        assert!(Crowd::new(0, 0.3, &mesh.nav).is_err());
        assert!(Crowd::new(4, 0.0, &mesh.nav).is_err());
        assert!(Crowd::new(4, f32::NAN, &mesh.nav).is_err());
    }

    #[test]
    fn agents_past_the_pool_or_with_bad_params_are_refused() {
        let mesh = strip();
        let mut crowd = Crowd::new(2, 0.3, &mesh.nav).expect("crowd");
        assert_eq!(crowd.add_agent(&[0.5, 0.0, 0.5], &params()), Some(0));
        assert_eq!(crowd.add_agent(&[1.5, 0.0, 0.5], &params()), Some(1));
        assert_eq!(crowd.add_agent(&[2.5, 0.0, 0.5], &params()), None);
        crowd.remove_agent(0);
        assert_eq!(crowd.add_agent(&[2.5, 0.0, 0.5], &params()), Some(0));
        crowd.remove_agent(0);
        let bad_filter = CrowdAgentParams {
            query_filter_type: MAX_QUERY_FILTER_TYPE as u8,
            ..params()
        };
        let bad_avoidance = CrowdAgentParams {
            obstacle_avoidance_type: MAX_OBSTACLE_AVOIDANCE_PARAMS as u8,
            ..params()
        };
        assert_eq!(crowd.add_agent(&[0.5, 0.0, 0.5], &bad_filter), None);
        assert_eq!(crowd.add_agent(&[0.5, 0.0, 0.5], &bad_avoidance), None);
        assert_eq!(crowd.add_agent(&[f32::NAN, 0.0, 0.5], &params()), None);
        assert!(!crowd.update_agent_parameters(1, &bad_filter));
        assert!(!crowd.update_agent_parameters(7, &params()));
        assert!(!crowd.request_move_target(7, mesh.poly(9, 0), &[9.5, 0.0, 0.5]));
        assert!(!crowd.request_move_velocity(7, &[1.0, 0.0, 0.0]));
        assert!(!crowd.reset_move_target(7));
        // Off the mesh: placed as asked, but not walking.
        let off = crowd
            .add_agent(&[50.0, 0.0, 50.0], &params())
            .expect("slot");
        assert_eq!(crowd.agent(off).map(|a| a.state), Some(AgentState::Invalid));
        walk(&mut crowd, 5);
        assert_eq!(crowd.agent(off).map(|a| a.npos), Some([50.0, 0.0, 50.0]));
    }

    #[test]
    fn an_agent_walks_to_its_target() {
        let mesh = strip();
        let mut crowd = Crowd::new(4, 0.3, &mesh.nav).expect("crowd");
        let a = crowd.add_agent(&[0.5, 0.0, 0.5], &params()).expect("agent");
        let target = [9.5, 0.0, 1.5];
        assert!(crowd.request_move_target(a, mesh.poly(9, 1), &target));
        walk(&mut crowd, 150);
        let ag = crowd.agent(a).expect("agent");
        assert_eq!(ag.target_state, MoveRequestState::Valid);
        assert!(vdist_2d(&ag.npos, &target) < 0.1, "ended at {:?}", ag.npos);
        assert!(crowd.reset_move_target(a));
        walk(&mut crowd, 30);
        assert!(vlen(&crowd.agent(a).expect("agent").vel) < 0.01);
    }

    /// A crowd on a one-row `mesh` with one agent sent from its first cell to its fifth,
    /// after two updates. The agent is slow enough to stay on its first polygon, so its
    /// corridor keeps its start.
    fn slow_walker(mesh: &GridMesh) -> (Crowd<'_>, usize) {
        let mut crowd = Crowd::new(4, 0.3, &mesh.nav).expect("crowd");
        let slow = CrowdAgentParams {
            max_speed: 0.01,
            ..params()
        };
        let a = crowd.add_agent(&[0.5, 0.0, 0.5], &slow).expect("agent");
        assert!(crowd.request_move_target(a, mesh.poly(4, 0), &[4.5, 0.0, 0.5]));
        walk(&mut crowd, 2);
        (crowd, a)
    }

    #[test]
    fn an_edited_filter_is_met_by_the_next_update() {
        use crate::crowd::test_mesh::SWIM;
        let mesh = GridMesh::new(&["##~##"], &[]);
        let (mut crowd, a) = slow_walker(&mesh);
        let water = mesh.poly(2, 0);
        assert!(
            crowd
                .agent(a)
                .expect("agent")
                .corridor
                .path()
                .contains(&water)
        );
        // The corridor's polygons were found valid; excluding water makes one of them
        // invalid, and the agent re-plans short of it.
        crowd.filter_mut(0).expect("filter").set_exclude_flags(SWIM);
        walk(&mut crowd, 10);
        let ag = crowd.agent(a).expect("agent");
        assert_eq!(ag.corridor.first_poly(), mesh.poly(0, 0));
        assert!(
            !ag.corridor.path().contains(&water),
            "{:?}",
            ag.corridor.path()
        );
    }

    /// Detached and put back on its navmesh unchanged, the crowd trusts what it checked;
    /// after the navmesh changed in between (a polygon's flags), it checks again and the
    /// agent re-plans short of the polygon now excluded.
    #[test]
    fn a_navmesh_changed_while_detached_is_checked_again() {
        let mut mesh = GridMesh::new(&["#####"], &[]);
        let (crowd, a) = slow_walker(&mesh);
        let epoch = crowd.validity_epoch;
        let mut crowd = crowd.detach().attach(&mesh.nav);
        assert_eq!(crowd.validity_epoch, epoch, "the same navmesh, unchanged");
        walk(&mut crowd, 1);
        let detached = crowd.detach();
        let blocked = mesh.poly(2, 0);
        mesh.nav.set_poly_flags(blocked, 0).expect("a polygon");
        let mut crowd = detached.attach(&mesh.nav);
        assert_eq!(crowd.validity_epoch, epoch + 1);
        walk(&mut crowd, 10);
        let ag = crowd.agent(a).expect("agent");
        assert!(
            !ag.corridor.path().contains(&blocked),
            "{:?}",
            ag.corridor.path()
        );
    }

    #[test]
    fn a_velocity_request_moves_the_agent_that_way() {
        let mesh = strip();
        let mut crowd = Crowd::new(4, 0.3, &mesh.nav).expect("crowd");
        let a = crowd.add_agent(&[0.5, 0.0, 1.0], &params()).expect("agent");
        assert!(crowd.request_move_velocity(a, &[2.0, 0.0, 0.0]));
        walk(&mut crowd, 30);
        let ag = crowd.agent(a).expect("agent");
        assert!(ag.npos[0] > 1.5, "at {:?}", ag.npos);
        assert_eq!(ag.corridor.path().len(), 1);
    }

    #[test]
    fn nan_targets_are_refused() {
        let mesh = strip();
        let mut crowd = Crowd::new(4, 0.3, &mesh.nav).expect("crowd");
        let a = crowd.add_agent(&[0.5, 0.0, 0.5], &params()).expect("agent");
        assert!(!crowd.request_move_target(a, mesh.poly(9, 0), &[f32::NAN, 0.0, 0.5]));
        assert!(!crowd.request_move_velocity(a, &[f32::INFINITY, 0.0, 0.0]));
        assert!(!crowd.request_move_target(a, 0, &[9.5, 0.0, 0.5]));
        walk(&mut crowd, 10);
        assert_eq!(crowd.agent(a).map(|ag| ag.npos), Some([0.5, 0.0, 0.5]));
    }

    #[test]
    fn odd_time_steps_are_defined() {
        let mesh = strip();
        let mut crowd = Crowd::new(4, 0.3, &mesh.nav).expect("crowd");
        let a = crowd.add_agent(&[0.5, 0.0, 0.5], &params()).expect("agent");
        let b = crowd.add_agent(&[0.5, 0.0, 0.5], &params()).expect("agent");
        for idx in [a, b] {
            assert!(crowd.request_move_target(idx, mesh.poly(9, 0), &[9.5, 0.0, 0.5]));
        }
        walk(&mut crowd, 3);
        let before: Vec<Vec3> = [a, b].map(|i| crowd.agent(i).expect("agent").npos).to_vec();
        for dt in [-1.0, f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 0.0] {
            crowd.update(dt, None);
            let now: Vec<Vec3> = [a, b].map(|i| crowd.agent(i).expect("agent").npos).to_vec();
            assert_eq!(now, before, "dt {dt}");
        }
        let mut times = CrowdPhaseTimes::default();
        crowd.update_profiled(f32::NAN, None, &mut times);
        assert!(times.total().is_zero());
        // A huge step stays on the mesh.
        crowd.update(1.0e30, None);
        for idx in [a, b] {
            let ag = crowd.agent(idx).expect("agent");
            assert!(ag.npos.iter().all(|v| v.is_finite()), "{:?}", ag.npos);
            assert!((0.0..=10.0).contains(&ag.npos[0]) && (0.0..=2.0).contains(&ag.npos[2]));
        }
    }

    #[test]
    fn stacked_agents_are_pushed_apart() {
        let mesh = strip();
        let mut crowd = Crowd::new(4, 0.3, &mesh.nav).expect("crowd");
        let a = crowd.add_agent(&[4.5, 0.0, 1.0], &params()).expect("agent");
        let b = crowd.add_agent(&[4.5, 0.0, 1.0], &params()).expect("agent");
        for idx in [a, b] {
            assert!(crowd.request_move_target(idx, mesh.poly(9, 1), &[9.5, 0.0, 1.5]));
        }
        walk(&mut crowd, 20);
        let pa = crowd.agent(a).expect("agent").npos;
        let pb = crowd.agent(b).expect("agent").npos;
        assert!(vdist_2d(&pa, &pb) > 0.3, "{pa:?} {pb:?}");
        assert_eq!(crowd.agent(a).map(|ag| ag.neighbours().len()), Some(1));
    }

    #[test]
    fn an_agent_jumps_an_off_mesh_connection() {
        let mesh = GridMesh::new(&["###..###"], &[([2.5, 0.0, 0.5], [5.5, 0.0, 0.5])]);
        let mut crowd = Crowd::new(4, 0.3, &mesh.nav).expect("crowd");
        let a = crowd.add_agent(&[0.5, 0.0, 0.5], &params()).expect("agent");
        let target = [7.5, 0.0, 0.5];
        assert!(crowd.request_move_target(a, mesh.poly(7, 0), &target));
        let mut jumped = false;
        for _ in 0..200 {
            crowd.update(1.0 / 30.0, None);
            let ag = crowd.agent(a).expect("agent");
            if ag.state == AgentState::OffMesh {
                jumped = true;
                assert!(crowd.agent_animation(a).is_some_and(|anim| anim.active));
            }
        }
        let ag = crowd.agent(a).expect("agent");
        assert!(jumped);
        assert_eq!(ag.state, AgentState::Walking);
        assert!(vdist_2d(&ag.npos, &target) < 0.1, "ended at {:?}", ag.npos);
    }
}
