//! Agents: every entity with a [`NavAgent`] walks in the navlab crowd, towards its
//! [`NavTarget`] when it has one. The crowd steps in `FixedUpdate`, writes the agents'
//! `Transform`s, and sends [`TargetReached`] or [`TargetUnreachable`] (removing the target).

use std::collections::HashMap;

use bevy::prelude::*;
use navlab::game::{AgentEvent, AgentId, AgentParams, Crowd};

use crate::{NavMeshSettings, Navigation};

/// A character that walks the navmesh. Its `Transform` (of an entity without a parent) is
/// where it starts, and then where the crowd puts it each fixed step.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[require(Transform)]
pub struct NavAgent {
    /// Radius, world units.
    pub radius: f32,
    /// Height, world units.
    pub height: f32,
    /// Top speed, world units per second.
    pub max_speed: f32,
    /// Largest change of velocity, world units per second squared.
    pub max_acceleration: f32,
}

impl Default for NavAgent {
    /// RecastDemo's crowd agent: 0.6 m radius, 2 m tall, 3.5 m/s, 8 m/s².
    fn default() -> Self {
        let params = AgentParams::default();
        NavAgent {
            radius: params.radius,
            height: params.height,
            max_speed: params.max_speed,
            max_acceleration: params.max_acceleration,
        }
    }
}

impl NavAgent {
    fn params(&self) -> AgentParams {
        AgentParams {
            max_speed: self.max_speed,
            max_acceleration: self.max_acceleration,
            ..AgentParams::with_size(self.radius, self.height)
        }
    }
}

/// Where a [`NavAgent`] walks to: the navmesh point nearest this position. Replace it to send
/// the agent elsewhere; it is removed when the agent arrives or cannot.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
pub struct NavTarget(pub Vec3);

/// An agent reached its [`NavTarget`].
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq)]
pub struct TargetReached {
    /// The agent's entity.
    pub agent: Entity,
}

/// An agent's [`NavTarget`] cannot be reached: no navmesh near it, no way there, or the agent
/// got as near as the navmesh allows.
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq)]
pub struct TargetUnreachable {
    /// The agent's entity.
    pub agent: Entity,
}

/// Which crowd agent each entity is, and the target it was last sent to.
#[derive(Resource, Default, Debug)]
pub struct AgentSet {
    agents: HashMap<Entity, AgentId>,
    entities: HashMap<AgentId, Entity>,
    targets: HashMap<Entity, Vec3>,
    /// The navmesh generation the crowd was made for.
    generation: u64,
}

impl AgentSet {
    /// The crowd agent of an entity.
    pub fn agent(&self, entity: Entity) -> Option<AgentId> {
        self.agents.get(&entity).copied()
    }

    fn forget(&mut self, entity: Entity) -> Option<AgentId> {
        self.targets.remove(&entity);
        let id = self.agents.remove(&entity)?;
        self.entities.remove(&id);
        Some(id)
    }
}

pub(crate) fn build(app: &mut App) {
    app.init_resource::<AgentSet>()
        .add_message::<TargetReached>()
        .add_message::<TargetUnreachable>()
        .add_systems(FixedUpdate, step_agents);
}

/// One fixed step: agents joined, left and re-targeted, the crowd moved, transforms written,
/// arrivals sent. Not inlined, so that profilers (`examples/thousand_agents.rs`) see it.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn step_agents(
    mut commands: Commands,
    mut navigation: ResMut<Navigation>,
    mut set: ResMut<AgentSet>,
    settings: Res<NavMeshSettings>,
    time: Res<Time>,
    mut removed: RemovedComponents<NavAgent>,
    mut agents: Query<(Entity, &NavAgent, &mut Transform, Option<&NavTarget>)>,
    mut reached: MessageWriter<TargetReached>,
    mut unreachable: MessageWriter<TargetUnreachable>,
) {
    let generation = navigation.generation;
    let Navigation {
        nav_mesh, crowd, ..
    } = &mut *navigation;
    let Some(nav) = nav_mesh.as_ref() else {
        return;
    };
    if crowd.is_none() || set.generation != generation {
        match Crowd::new(nav, settings.max_agents, settings.max_agent_radius) {
            Ok(new) => *crowd = Some(new),
            Err(e) => {
                error_once!("navlab: {e}");
                return;
            }
        }
        set.agents.clear();
        set.entities.clear();
        set.targets.clear();
        set.generation = generation;
    }
    let Some(crowd) = crowd.as_mut() else {
        return;
    };

    for entity in removed.read() {
        if let Some(id) = set.forget(entity) {
            let _ = crowd.remove_agent(id);
        }
    }
    for (entity, agent, transform, target) in &agents {
        let id = match set.agent(entity) {
            Some(id) => id,
            None => match crowd.add_agent(nav, transform.translation.to_array(), agent.params()) {
                Ok(id) => {
                    set.agents.insert(entity, id);
                    set.entities.insert(id, entity);
                    id
                }
                // A full crowd takes the agent once another leaves.
                Err(_) => continue,
            },
        };
        let wanted = target.map(|t| t.0);
        if wanted == set.targets.get(&entity).copied() {
            continue;
        }
        match wanted {
            Some(goal) => {
                set.targets.insert(entity, goal);
                if crowd.set_target(nav, id, goal.to_array()).is_err() {
                    set.targets.remove(&entity);
                    commands.entity(entity).remove::<NavTarget>();
                    unreachable.write(TargetUnreachable { agent: entity });
                }
            }
            None => {
                set.targets.remove(&entity);
                let _ = crowd.stop(id);
            }
        }
    }

    crowd.update(nav, time.delta_secs());

    for &event in crowd.events() {
        let (AgentEvent::Arrived(id) | AgentEvent::Unreachable(id)) = event;
        let Some(&entity) = set.entities.get(&id) else {
            continue;
        };
        set.targets.remove(&entity);
        commands.entity(entity).remove::<NavTarget>();
        match event {
            AgentEvent::Arrived(_) => {
                reached.write(TargetReached { agent: entity });
            }
            AgentEvent::Unreachable(_) => {
                unreachable.write(TargetUnreachable { agent: entity });
            }
        }
    }
    for (entity, _, mut transform, _) in &mut agents {
        let Some(id) = set.agent(entity) else {
            continue;
        };
        let (Ok(position), Ok(velocity)) = (crowd.position(id), crowd.velocity(id)) else {
            continue;
        };
        transform.translation = Vec3::from(position);
        let heading = Vec3::new(velocity[0], 0.0, velocity[2]);
        if heading.length_squared() > 0.01 {
            transform.look_to(heading, Vec3::Y);
        }
    }
}
