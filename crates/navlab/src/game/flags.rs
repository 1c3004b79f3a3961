//! Typed flags for the raw bit constants of the exact API: polygon abilities, crowd update
//! behaviours and straight-path options. Each converts to and from the raw bits the exact API
//! takes, so the two layers mix freely.

use crate::bake::sample_areas;
use crate::crowd::agent as crowd_agent;
use crate::detour::query as detour_query;

bitflags::bitflags! {
    /// What a polygon allows, as RecastDemo's builds mark it (`SamplePolyFlags`): the
    /// [`NavMeshBuilder`](super::NavMeshBuilder) gives ground, grass and road `WALK`, water
    /// `SWIM`, doors `WALK | DOOR`, and off-mesh links the flags they were made with. A query
    /// filter includes and excludes polygons by these.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub struct PolyFlags: u16 {
        /// Walkable on foot.
        const WALK = sample_areas::flags::WALK;
        /// Swimmable.
        const SWIM = sample_areas::flags::SWIM;
        /// Passable through a door.
        const DOOR = sample_areas::flags::DOOR;
        /// Jumpable (off-mesh jumps).
        const JUMP = sample_areas::flags::JUMP;
        /// Switched off: RecastDemo's tester excludes it.
        const DISABLED = sample_areas::flags::DISABLED;
        // Games define their own abilities in the other bits.
        const _ = !0;
    }
}

bitflags::bitflags! {
    /// How crowd agents steer (`UpdateFlags` of `dtCrowdAgentParams`).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub struct UpdateFlags: u8 {
        /// Steer towards the corner after next, for smoother turns.
        const ANTICIPATE_TURNS = crowd_agent::CROWD_ANTICIPATE_TURNS;
        /// Sample velocities around neighbours and walls.
        const OBSTACLE_AVOIDANCE = crowd_agent::CROWD_OBSTACLE_AVOIDANCE;
        /// Keep apart from neighbours.
        const SEPARATION = crowd_agent::CROWD_SEPARATION;
        /// Shortcut the corridor towards visible corners.
        const OPTIMIZE_VISIBILITY = crowd_agent::CROWD_OPTIMIZE_VIS;
        /// Re-plan the corridor's start now and then.
        const OPTIMIZE_TOPOLOGY = crowd_agent::CROWD_OPTIMIZE_TOPO;
    }
}

impl Default for UpdateFlags {
    /// What RecastDemo's crowd tool turns on: every behaviour but separation.
    fn default() -> Self {
        UpdateFlags::ANTICIPATE_TURNS
            | UpdateFlags::OBSTACLE_AVOIDANCE
            | UpdateFlags::OPTIMIZE_VISIBILITY
            | UpdateFlags::OPTIMIZE_TOPOLOGY
    }
}

bitflags::bitflags! {
    /// Extra points a straight path gets (`dtStraightPathOptions`).
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
    pub struct StraightPathOptions: u32 {
        /// A point wherever the path crosses into another area.
        const AREA_CROSSINGS = detour_query::STRAIGHTPATH_AREA_CROSSINGS;
        /// A point at every polygon edge crossed.
        const ALL_CROSSINGS = detour_query::STRAIGHTPATH_ALL_CROSSINGS;
    }
}

/// RecastDemo's area ids (`SamplePolyAreas`), which the builder's convex volumes, per-triangle
/// areas and off-mesh links use, and which decide the polygon flags above.
pub mod area {
    pub use crate::bake::sample_areas::area::*;
}
