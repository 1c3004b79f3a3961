//! Agents for a game: a [`Crowd`] that borrows the navmesh only while it works, [`AgentId`]
//! handles that go stale when their agent is removed, human-sized [`AgentParams`] by default,
//! and [`AgentEvent`]s when an agent arrives or cannot.

use super::flags::UpdateFlags;
use super::query::{DEFAULT_HALF_EXTENTS, NavPoint};
use crate::crowd::agent::{AgentState, CrowdAgent, CrowdAgentParams, MoveRequestState};
use crate::crowd::{CrowdAgentDebugInfo, DetachedCrowd};
use crate::detour::NavMesh;
use crate::detour::query::{QueryFilter, Status};

/// How an agent moves. The default is RecastDemo's crowd agent: a human 0.6 m in radius and
/// 2 m tall, walking at up to 3.5 m/s.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AgentParams {
    /// Radius, world units.
    pub radius: f32,
    /// Height, world units.
    pub height: f32,
    /// Top speed, world units per second.
    pub max_speed: f32,
    /// Largest change of velocity, world units per second squared.
    pub max_acceleration: f32,
    /// How far it looks for neighbours and walls to steer around (RecastDemo: 12 radii).
    pub collision_query_range: f32,
    /// How far ahead it shortcuts its path (RecastDemo: 30 radii).
    pub path_optimization_range: f32,
    /// How hard others keep away from it, with [`UpdateFlags::SEPARATION`].
    pub separation_weight: f32,
    /// How it steers.
    pub update_flags: UpdateFlags,
    /// Avoidance quality, 0 (low) to 3 (high): RecastDemo's four sampling presets.
    pub avoidance_quality: u8,
    /// It has arrived once this near its target in xz (and within its height in y).
    pub arrival_distance: f32,
    /// Whether it stops when it arrives or cannot ([`AgentEvent`]); otherwise it keeps its
    /// request as C++'s crowd does, settling on the target or at the end of a partial path.
    pub stop_on_arrival: bool,
}

impl Default for AgentParams {
    fn default() -> Self {
        AgentParams::with_size(0.6, 2.0)
    }
}

impl AgentParams {
    /// RecastDemo's agent, scaled to `radius` and `height`.
    pub fn with_size(radius: f32, height: f32) -> AgentParams {
        AgentParams {
            radius,
            height,
            max_speed: 3.5,
            max_acceleration: 8.0,
            collision_query_range: radius * 12.0,
            path_optimization_range: radius * 30.0,
            separation_weight: 2.0,
            update_flags: UpdateFlags::default(),
            avoidance_quality: 3,
            arrival_distance: radius,
            stop_on_arrival: true,
        }
    }

    /// The exact crowd's parameters.
    pub fn to_crowd_params(&self) -> CrowdAgentParams {
        CrowdAgentParams {
            radius: self.radius,
            height: self.height,
            max_acceleration: self.max_acceleration,
            max_speed: self.max_speed,
            collision_query_range: self.collision_query_range,
            path_optimization_range: self.path_optimization_range,
            separation_weight: self.separation_weight,
            update_flags: self.update_flags.bits(),
            obstacle_avoidance_type: self.avoidance_quality.min(3),
            query_filter_type: 0,
        }
    }
}

/// An agent of a [`Crowd`]; stale once the agent is removed, even if its slot is reused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AgentId {
    index: u32,
    generation: u32,
}

impl AgentId {
    /// The agent's slot in the exact crowd ([`crate::crowd::Crowd::agent`]).
    pub fn index(self) -> usize {
        self.index as usize
    }
}

/// Something that happened to an agent during an update.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AgentEvent {
    /// The agent came within its arrival distance of its target (and stopped, with
    /// [`AgentParams::stop_on_arrival`]).
    Arrived(AgentId),
    /// The agent's target cannot be reached: no path leads there, or the agent got as near
    /// as the navmesh allows (and stopped, with [`AgentParams::stop_on_arrival`]).
    Unreachable(AgentId),
}

/// Why the crowd refused a request.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum CrowdError {
    /// The crowd could not be made (a zero size or a radius that is not positive).
    #[error(
        "a crowd of {max_agents} agents of radius up to {max_agent_radius} cannot be made ({status})"
    )]
    BadSize {
        /// The agents asked for.
        max_agents: usize,
        /// The radius asked for.
        max_agent_radius: f32,
        /// Detour's status.
        status: Status,
    },
    /// Every agent slot is taken.
    #[error("the crowd is full")]
    Full,
    /// The agent was removed.
    #[error("agent {0:?} is no longer in the crowd")]
    StaleAgent(AgentId),
    /// A position, velocity or parameter that is not a finite number.
    #[error("a position, velocity or parameter is not a finite number")]
    NotFinite,
    /// No navmesh polygon near a target.
    #[error("no navmesh polygon within {half_extents:?} of {position:?}")]
    NoPolygonNear {
        /// The target asked for.
        position: [f32; 3],
        /// The half size of the box searched.
        half_extents: [f32; 3],
    },
}

/// An agent's goal, for the events.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Goal {
    position: [f32; 3],
}

/// A crowd of agents walking over a navmesh (DetourCrowd): paths planned a little each update,
/// steering around each other and the walls, and off-mesh links crossed.
///
/// It holds no borrow of the navmesh: each call that needs it takes `&NavMesh`, so the
/// navmesh can change in between (a tile cache update, a rebuilt tile) as it would under
/// C++'s crowd, which then checks every agent's path on the next update. Pass the same
/// navmesh (or its updated self) every time.
///
/// ```
/// use navlab::prelude::*;
///
/// let nav = NavMeshBuilder::new(BuildSettings::default())
///     .triangles(&[[0.0, 0.0, 0.0], [0.0, 0.0, 20.0], [20.0, 0.0, 20.0], [20.0, 0.0, 0.0]], &[0, 1, 2, 0, 2, 3])
///     .build()
///     .unwrap();
/// let mut crowd = Crowd::new(&nav, 10, 0.6).unwrap();
/// let agent = crowd.add_agent(&nav, [3.0, 0.0, 3.0], AgentParams::default()).unwrap();
/// crowd.set_target(&nav, agent, [17.0, 0.0, 17.0]).unwrap();
/// let mut arrived = false;
/// for _ in 0..400 {
///     crowd.update(&nav, 1.0 / 30.0);
///     arrived |= crowd.events().contains(&AgentEvent::Arrived(agent));
/// }
/// assert!(arrived);
/// ```
#[derive(Clone, Debug)]
pub struct Crowd {
    /// The exact crowd; taken while it is attached to a navmesh.
    inner: Option<DetachedCrowd>,
    generations: Vec<u32>,
    arrival_distances: Vec<f32>,
    stops_on_arrival: Vec<bool>,
    goals: Vec<Option<Goal>>,
    events: Vec<AgentEvent>,
}

impl Crowd {
    /// A crowd of up to `max_agents` agents of radius up to `max_agent_radius`, with
    /// RecastDemo's four avoidance presets and a default filter (every polygon, cost 1).
    pub fn new(
        nav: &NavMesh,
        max_agents: usize,
        max_agent_radius: f32,
    ) -> Result<Crowd, CrowdError> {
        let bad_size = |status| CrowdError::BadSize {
            max_agents,
            max_agent_radius,
            status,
        };
        if u32::try_from(max_agents).is_err() {
            return Err(bad_size(Status::invalid_param()));
        }
        let mut crowd =
            crate::crowd::Crowd::new(max_agents, max_agent_radius, nav).map_err(bad_size)?;
        for (quality, params) in crate::crowd::ObstacleAvoidanceParams::recast_demo_presets()
            .iter()
            .enumerate()
        {
            crowd.set_obstacle_avoidance_params(quality, params);
        }
        Ok(Crowd {
            inner: Some(crowd.detach()),
            generations: vec![0; max_agents],
            arrival_distances: vec![0.0; max_agents],
            stops_on_arrival: vec![true; max_agents],
            goals: vec![None; max_agents],
            events: Vec::new(),
        })
    }

    /// The exact crowd, detached.
    fn detached(&self) -> &DetachedCrowd {
        // Only `with_attached` takes it, and it always puts it back.
        self.inner.as_ref().unwrap_or_else(|| unreachable!())
    }

    fn detached_mut(&mut self) -> &mut DetachedCrowd {
        self.inner.as_mut().unwrap_or_else(|| unreachable!())
    }

    /// Runs `f` on the exact crowd attached to `nav`.
    fn with_attached<T>(
        &mut self,
        nav: &NavMesh,
        f: impl FnOnce(&mut crate::crowd::Crowd<'_>) -> T,
    ) -> T {
        let mut crowd = self
            .inner
            .take()
            .unwrap_or_else(|| unreachable!())
            .attach(nav);
        let result = f(&mut crowd);
        self.inner = Some(crowd.detach());
        result
    }

    fn slot(&self, id: AgentId) -> Result<usize, CrowdError> {
        let index = id.index as usize;
        let live = self.generations.get(index) == Some(&id.generation)
            && self.detached().agent(index).is_some_and(|a| a.active);
        if live {
            Ok(index)
        } else {
            Err(CrowdError::StaleAgent(id))
        }
    }

    /// Adds an agent at the navmesh point nearest `position`.
    pub fn add_agent(
        &mut self,
        nav: &NavMesh,
        position: [f32; 3],
        params: AgentParams,
    ) -> Result<AgentId, CrowdError> {
        let exact = params.to_crowd_params();
        let numbers = [
            params.radius,
            params.height,
            params.max_speed,
            params.max_acceleration,
            params.collision_query_range,
            params.path_optimization_range,
            params.separation_weight,
            params.arrival_distance,
        ];
        if !position.iter().chain(&numbers).all(|v| v.is_finite()) {
            return Err(CrowdError::NotFinite);
        }
        // The position is finite and the parameters name slots the crowd has, so the exact
        // crowd refuses the agent only when it is full.
        let index = self
            .with_attached(nav, |crowd| crowd.add_agent(&position, &exact))
            .ok_or(CrowdError::Full)?;
        self.generations[index] = self.generations[index].wrapping_add(1);
        self.arrival_distances[index] = params.arrival_distance;
        self.stops_on_arrival[index] = params.stop_on_arrival;
        self.goals[index] = None;
        Ok(AgentId {
            // The pool size was checked to fit in u32.
            index: index as u32,
            generation: self.generations[index],
        })
    }

    /// Removes an agent; its id goes stale.
    pub fn remove_agent(&mut self, id: AgentId) -> Result<(), CrowdError> {
        let index = self.slot(id)?;
        self.detached_mut().remove_agent(index);
        self.goals[index] = None;
        Ok(())
    }

    /// Sends an agent to the navmesh point nearest `target` (within
    /// [`DEFAULT_HALF_EXTENTS`]); it plans its path over the next updates. Returns the point
    /// it walks to.
    pub fn set_target(
        &mut self,
        nav: &NavMesh,
        id: AgentId,
        target: [f32; 3],
    ) -> Result<NavPoint, CrowdError> {
        self.slot(id)?;
        if !target.iter().all(|v| v.is_finite()) {
            return Err(CrowdError::NotFinite);
        }
        let filter = QueryFilter::default();
        let point = nav
            .nearest_point(target, &filter)
            .map_err(|_| CrowdError::NoPolygonNear {
                position: target,
                half_extents: DEFAULT_HALF_EXTENTS,
            })?;
        self.set_target_point(id, point)?;
        Ok(point)
    }

    /// Sends an agent to a point already on the navmesh.
    pub fn set_target_point(&mut self, id: AgentId, target: NavPoint) -> Result<(), CrowdError> {
        let index = self.slot(id)?;
        if !self
            .detached_mut()
            .request_move_target(index, target.poly, &target.position)
        {
            return Err(CrowdError::NotFinite);
        }
        self.goals[index] = Some(Goal {
            position: target.position,
        });
        Ok(())
    }

    /// Moves an agent at `velocity` (world units per second) instead of towards a target.
    pub fn set_velocity(&mut self, id: AgentId, velocity: [f32; 3]) -> Result<(), CrowdError> {
        let index = self.slot(id)?;
        if !self.detached_mut().request_move_velocity(index, &velocity) {
            return Err(CrowdError::NotFinite);
        }
        self.goals[index] = None;
        Ok(())
    }

    /// Drops an agent's target or velocity; it slows to a stop.
    pub fn stop(&mut self, id: AgentId) -> Result<(), CrowdError> {
        let index = self.slot(id)?;
        self.detached_mut().reset_move_target(index);
        self.goals[index] = None;
        Ok(())
    }

    /// Moves every agent on by `dt` seconds over `nav` (`dtCrowd::update`), then records
    /// which agents arrived or cannot ([`Crowd::events`]).
    pub fn update(&mut self, nav: &NavMesh, dt: f32) {
        self.update_with_debug(nav, dt, None);
    }

    /// [`Crowd::update`], with one agent's steering recorded into `debug` for drawing.
    pub fn update_with_debug(
        &mut self,
        nav: &NavMesh,
        dt: f32,
        debug: Option<&mut CrowdAgentDebugInfo>,
    ) {
        self.with_attached(nav, |crowd| crowd.update(dt, debug));
        self.events.clear();
        for index in 0..self.goals.len() {
            let Some(goal) = self.goals[index] else {
                continue;
            };
            let Some(agent) = self.detached().agent(index) else {
                continue;
            };
            let id = AgentId {
                index: index as u32,
                generation: self.generations[index],
            };
            let event = match agent.target_state {
                MoveRequestState::Failed => Some(AgentEvent::Unreachable(id)),
                MoveRequestState::Valid if agent.state == AgentState::Walking => {
                    let near = |to: &[f32; 3]| {
                        let (dx, dz) = (to[0] - agent.npos[0], to[2] - agent.npos[2]);
                        (dx * dx + dz * dz).sqrt() <= self.arrival_distances[index]
                            && (to[1] - agent.npos[1]).abs() <= agent.params.height
                    };
                    if !agent.partial && near(&goal.position) {
                        Some(AgentEvent::Arrived(id))
                    } else if agent.partial && near(agent.corridor.target()) {
                        Some(AgentEvent::Unreachable(id))
                    } else {
                        None
                    }
                }
                _ => None,
            };
            if let Some(event) = event {
                self.goals[index] = None;
                if self.stops_on_arrival[index] {
                    self.detached_mut().reset_move_target(index);
                }
                self.events.push(event);
            }
        }
    }

    /// What happened during the last update, in agent order.
    pub fn events(&self) -> &[AgentEvent] {
        &self.events
    }

    /// An agent's position.
    pub fn position(&self, id: AgentId) -> Result<[f32; 3], CrowdError> {
        Ok(self
            .detached()
            .agent(self.slot(id)?)
            .map_or([0.0; 3], |a| a.npos))
    }

    /// An agent's velocity, world units per second.
    pub fn velocity(&self, id: AgentId) -> Result<[f32; 3], CrowdError> {
        Ok(self
            .detached()
            .agent(self.slot(id)?)
            .map_or([0.0; 3], |a| a.vel))
    }

    /// Whether an agent is walking towards a target it has not reached yet.
    pub fn has_target(&self, id: AgentId) -> Result<bool, CrowdError> {
        Ok(self.goals[self.slot(id)?].is_some())
    }

    /// An agent's full state in the exact crowd (corridor, neighbours, boundary).
    pub fn agent(&self, id: AgentId) -> Result<&CrowdAgent, CrowdError> {
        let index = self.slot(id)?;
        self.detached()
            .agent(index)
            .ok_or(CrowdError::StaleAgent(id))
    }

    /// Every agent in the crowd, with its id.
    pub fn agents(&self) -> impl Iterator<Item = (AgentId, &CrowdAgent)> + '_ {
        let crowd = self.detached();
        crowd.active_agents().filter_map(move |index| {
            let id = AgentId {
                index: index as u32,
                generation: self.generations[index],
            };
            crowd.agent(index).map(|agent| (id, agent))
        })
    }

    /// The number of agents in the crowd.
    pub fn len(&self) -> usize {
        self.detached().active_agents().count()
    }

    /// Whether the crowd has no agent.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The filter agents plan with, to change area costs or exclude flags.
    pub fn filter_mut(&mut self) -> &mut QueryFilter {
        // Slot 0 of the crowd's sixteen, the one every agent of this layer uses.
        self.detached_mut()
            .filter_mut(0)
            .unwrap_or_else(|| unreachable!())
    }

    /// The exact crowd underneath, detached, for what this layer does not cover.
    pub fn exact(&self) -> &DetachedCrowd {
        self.detached()
    }
}
