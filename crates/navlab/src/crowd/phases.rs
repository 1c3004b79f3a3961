//! The phases of a crowd update and the clock that times them, for
//! [`Crowd::update_profiled`](super::Crowd::update_profiled).

use std::time::{Duration, Instant};

/// A phase of [`Crowd::update`](super::Crowd::update), in the order the update runs them
/// (the corridor phase also covers the final corridor move after collisions).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CrowdPhase {
    /// Validity checks, move requests, the path queue and topology optimisation.
    PathRequests,
    /// The proximity grid and each agent's neighbour search.
    Neighbours,
    /// Local boundary (wall) updates.
    Boundary,
    /// Corners, visibility optimisation, off-mesh triggers and the final corridor move.
    Corridor,
    /// Desired velocities, separation included.
    Steering,
    /// Obstacle avoidance.
    Avoidance,
    /// Velocity and position integration.
    Integration,
    /// Collision resolution.
    Collisions,
    /// Off-mesh connection animation.
    OffMesh,
}

impl CrowdPhase {
    /// Every phase, in update order.
    pub const ALL: [CrowdPhase; 9] = [
        CrowdPhase::PathRequests,
        CrowdPhase::Neighbours,
        CrowdPhase::Boundary,
        CrowdPhase::Corridor,
        CrowdPhase::Steering,
        CrowdPhase::Avoidance,
        CrowdPhase::Integration,
        CrowdPhase::Collisions,
        CrowdPhase::OffMesh,
    ];

    /// A short name for tables and JSON keys.
    pub fn label(self) -> &'static str {
        match self {
            CrowdPhase::PathRequests => "path_requests",
            CrowdPhase::Neighbours => "neighbours",
            CrowdPhase::Boundary => "boundary",
            CrowdPhase::Corridor => "corridor",
            CrowdPhase::Steering => "steering",
            CrowdPhase::Avoidance => "avoidance",
            CrowdPhase::Integration => "integration",
            CrowdPhase::Collisions => "collisions",
            CrowdPhase::OffMesh => "off_mesh",
        }
    }
}

/// Time spent per phase, summed over however many updates were added in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CrowdPhaseTimes {
    times: [Duration; CrowdPhase::ALL.len()],
}

impl CrowdPhaseTimes {
    /// Time spent in `phase`.
    pub fn get(&self, phase: CrowdPhase) -> Duration {
        self.times[phase as usize]
    }

    /// Adds `time` to `phase`.
    pub fn add_to(&mut self, phase: CrowdPhase, time: Duration) {
        self.times[phase as usize] += time;
    }

    /// All phases together.
    pub fn total(&self) -> Duration {
        self.times.iter().sum()
    }

    /// Adds every phase of `other`.
    pub fn add(&mut self, other: &CrowdPhaseTimes) {
        for (t, o) in self.times.iter_mut().zip(&other.times) {
            *t += *o;
        }
    }

    /// Keeps the larger time of each phase.
    pub fn max_assign(&mut self, other: &CrowdPhaseTimes) {
        for (t, o) in self.times.iter_mut().zip(&other.times) {
            *t = (*t).max(*o);
        }
    }

    /// Sets every phase back to zero.
    pub fn reset(&mut self) {
        *self = CrowdPhaseTimes::default();
    }

    /// The phases with their times, in update order.
    pub fn iter(&self) -> impl Iterator<Item = (CrowdPhase, Duration)> + '_ {
        CrowdPhase::ALL.iter().map(|&p| (p, self.get(p)))
    }
}

/// Times the phases of one timed update, adding each to `times`.
pub(crate) struct PhaseClock<'t> {
    pub(crate) times: &'t mut CrowdPhaseTimes,
    pub(crate) current: Option<(CrowdPhase, Instant)>,
}

impl PhaseClock<'_> {
    fn switch(&mut self, next: Option<CrowdPhase>) {
        let now = Instant::now();
        if let Some((previous, since)) = self.current.take() {
            self.times.add_to(previous, now - since);
        }
        self.current = next.map(|p| (p, now));
    }

    /// Ends the phase under way.
    pub(crate) fn stop(&mut self) {
        self.switch(None);
    }
}

/// Starts `phase` on the clock of a timed update; nothing for a plain one.
#[inline(always)]
pub(crate) fn enter(clock: &mut Option<&mut PhaseClock<'_>>, phase: CrowdPhase) {
    if let Some(clock) = clock {
        clock.switch(Some(phase));
    }
}
