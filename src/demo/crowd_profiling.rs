//! Where a crowd update spends its time, and crowds of random agents to measure it on.
//!
//! [`Crowd::update_profiled`] times the update's phases ([`CrowdPhase`]) into
//! [`CrowdPhaseTimes`]; the plain [`Crowd::update`] runs the same body without a clock, at the
//! cost of a test per phase. [`CrowdSet`] spreads random
//! agents (workload P's pairs, `tests/data/reference/PERF_DETOUR.md` §6) over several crowds on one
//! navmesh and steps them, in parallel if asked, for profiles and the viewer.

use std::time::{Duration, Instant};

use rayon::prelude::*;
use serde::Serialize;

use crate::demo::crowd_scenario::{CrowdStepper, MAX_RANDOM_AGENTS, demo_crowd_of};
use crate::demo::workloads::{PathPair, generate_path_pairs_seeded};
use navlab::crowd::agent::CrowdAgentParams;
use navlab::crowd::crowd::{Crowd, CrowdAgentDebugInfo};
use navlab::crowd::{CrowdPhase, CrowdPhaseTimes};
use navlab::detour::NavMesh;
use navlab::detour::query::{NavMeshQuery, Status};
use navlab::memory::{format_bytes, memory_limit};

/// The most heap bytes the crowds of a [`CrowdSet`] may take ([`Crowd::heap_bytes`]), less
/// where the machine has less memory: each crowd has its own search nodes and path buffers
/// (about 200 KB), so a set of many small crowds is refused before it is made.
pub const CROWD_SET_MEMORY_BUDGET: u64 = 2_000_000_000;
/// Workload P's seed.
pub const DEFAULT_SEED: u32 = 12345;
/// Search nodes of the query that snaps the random points (as workload P's).
const PAIR_QUERY_NODES: usize = 2048;

/// Per-phase times over a run of updates: sums, and each phase's slowest update.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PhaseStats {
    pub updates: usize,
    /// Summed over the updates (and over the crowds of a set: CPU time).
    pub sum: CrowdPhaseTimes,
    /// Each phase's largest time in one update.
    pub max: CrowdPhaseTimes,
    /// The largest [`CrowdPhaseTimes::total`] of one update.
    pub max_total: Duration,
    /// Wall time of all the updates.
    pub wall: Duration,
}

impl PhaseStats {
    /// Adds one update that took `times` per phase and `wall` in all.
    pub fn record(&mut self, times: &CrowdPhaseTimes, wall: Duration) {
        self.updates += 1;
        self.sum.add(times);
        self.max.max_assign(times);
        self.max_total = self.max_total.max(times.total());
        self.wall += wall;
    }

    /// Milliseconds per update.
    pub fn report(&self, agents: usize, crowds: usize, parallel: bool) -> ProfileReport {
        let per_update = |d: Duration| {
            if self.updates == 0 {
                0.0
            } else {
                d.as_secs_f64() * 1e3 / self.updates as f64
            }
        };
        ProfileReport {
            agents,
            crowds,
            updates: self.updates,
            parallel,
            phases: CrowdPhase::ALL
                .iter()
                .map(|&p| PhaseLine {
                    phase: p.label(),
                    mean_ms: per_update(self.sum.get(p)),
                    max_ms: self.max.get(p).as_secs_f64() * 1e3,
                })
                .collect(),
            total_ms: per_update(self.sum.total()),
            max_total_ms: self.max_total.as_secs_f64() * 1e3,
            wall_ms: per_update(self.wall),
        }
    }
}

impl CrowdStepper for PhaseStats {
    fn step(&mut self, crowd: &mut Crowd<'_>, dt: f32, debug: Option<&mut CrowdAgentDebugInfo>) {
        let started = Instant::now();
        let mut times = CrowdPhaseTimes::default();
        crowd.update_profiled(dt, debug, &mut times);
        self.record(&times, started.elapsed());
    }
}

/// One phase of a [`ProfileReport`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PhaseLine {
    pub phase: &'static str,
    /// Mean milliseconds per update (summed over crowds).
    pub mean_ms: f64,
    /// The slowest update's milliseconds (summed over crowds).
    pub max_ms: f64,
}

/// Milliseconds per update of a profiled run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ProfileReport {
    pub agents: usize,
    pub crowds: usize,
    pub updates: usize,
    /// Whether the crowds were updated on several threads.
    pub parallel: bool,
    pub phases: Vec<PhaseLine>,
    /// Mean of all phases per update, summed over crowds (CPU time when parallel).
    pub total_ms: f64,
    pub max_total_ms: f64,
    /// Mean wall time per update.
    pub wall_ms: f64,
}

impl std::fmt::Display for ProfileReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "{} agents in {} crowd(s), {} updates{}; ms per update:",
            self.agents,
            self.crowds,
            self.updates,
            if self.parallel {
                ", crowds in parallel"
            } else {
                ""
            }
        )?;
        writeln!(f, "  {:<14} {:>9} {:>9}", "phase", "mean", "max")?;
        for line in &self.phases {
            writeln!(
                f,
                "  {:<14} {:>9.4} {:>9.4}",
                line.phase, line.mean_ms, line.max_ms
            )?;
        }
        writeln!(
            f,
            "  {:<14} {:>9.4} {:>9.4}",
            "total", self.total_ms, self.max_total_ms
        )?;
        write!(f, "  {:<14} {:>9.4}", "wall", self.wall_ms)
    }
}

/// Adds agent k at pair k's start (its nearest point) and sends it to pair k's end
/// (`tests/data/reference/PERF_DETOUR.md` §6); returns how many were added, stopping when the crowd
/// is full or refuses `params`.
pub fn spawn_pairs(crowd: &mut Crowd<'_>, pairs: &[PathPair], params: &CrowdAgentParams) -> usize {
    let mut added = 0;
    for pair in pairs {
        let Some(idx) = crowd.add_agent(&pair.start_pos, params) else {
            break;
        };
        crowd.request_move_target(idx, pair.end_ref, &pair.end_pos);
        added += 1;
    }
    added
}

/// Why a set of random crowds cannot be made.
#[derive(Clone, Debug, PartialEq)]
pub enum ProfileError {
    BadSpec(&'static str),
    /// The generator gave up before finding enough pairs.
    TooFewPairs {
        wanted: usize,
        found: usize,
        attempts: usize,
    },
    /// The crowds would take more than `budget` bytes; `fitting` crowds would fit.
    OverBudget {
        crowds: usize,
        bytes: u64,
        budget: u64,
        fitting: usize,
    },
    /// The crowd refused the agents' parameters.
    AgentsRefused,
    Crowd(Status),
}

impl std::fmt::Display for ProfileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ProfileError::BadSpec(why) => write!(f, "{why}"),
            ProfileError::TooFewPairs {
                wanted,
                found,
                attempts,
            } => write!(
                f,
                "the navmesh gave {found} of {wanted} agent start/end pairs in {attempts} attempts"
            ),
            ProfileError::OverBudget {
                crowds,
                bytes,
                budget,
                fitting,
            } => {
                write!(
                    f,
                    "--crowds {crowds} would need {} for the crowds (each has its own search \
                     nodes and path buffers), more than the {} navlab gives them; ",
                    format_bytes(*bytes),
                    format_bytes(*budget)
                )?;
                if *fitting == 0 {
                    write!(f, "lower --random-agents")
                } else {
                    write!(f, "use --crowds {fitting} or fewer")
                }
            }
            ProfileError::AgentsRefused => write!(f, "the crowd refused the agent parameters"),
            ProfileError::Crowd(status) => write!(f, "the crowd could not be made ({status:?})"),
        }
    }
}

impl std::error::Error for ProfileError {}

/// Random agents spread over crowds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CrowdSetSpec {
    /// Agents in all, 1..=[`MAX_RANDOM_AGENTS`].
    pub agents: usize,
    /// Crowds, 1..=`agents`; agents are dealt in pair order, the first crowds one more.
    pub crowds: usize,
    /// The pair generator's seed ([`DEFAULT_SEED`] gives workload P's pairs).
    pub seed: u32,
    pub params: CrowdAgentParams,
}

impl CrowdSetSpec {
    /// Refuses counts out of range, with a message for the command line.
    pub fn check(&self) -> Result<(), ProfileError> {
        if self.agents == 0 || self.agents > MAX_RANDOM_AGENTS {
            return Err(ProfileError::BadSpec("--random-agents must be 1..100000"));
        }
        if self.crowds == 0 || self.crowds > self.agents {
            return Err(ProfileError::BadSpec(
                "--crowds must be at least 1 and at most the number of agents",
            ));
        }
        let budget = memory_limit().map_or(CROWD_SET_MEMORY_BUDGET, |machine| {
            machine.min(CROWD_SET_MEMORY_BUDGET)
        });
        let bytes = self.heap_bytes(self.crowds);
        if bytes > budget {
            // Fewer crowds take less: the most that fit, found by bisection.
            let (mut fits, mut over) = (0, self.crowds);
            while over - fits > 1 {
                let mid = fits + (over - fits) / 2;
                if self.heap_bytes(mid) <= budget {
                    fits = mid;
                } else {
                    over = mid;
                }
            }
            return Err(ProfileError::OverBudget {
                crowds: self.crowds,
                bytes,
                budget,
                fitting: fits,
            });
        }
        Ok(())
    }

    /// The heap bytes of the agents dealt to `crowds` crowds ([`Crowd::heap_bytes`]).
    fn heap_bytes(&self, crowds: usize) -> u64 {
        let spec = CrowdSetSpec { crowds, ..*self };
        (0..crowds)
            .map(|k| Crowd::heap_bytes(spec.share(k)))
            .fold(0, u64::saturating_add)
    }

    /// Agents of crowd `k`.
    fn share(&self, k: usize) -> usize {
        self.agents / self.crowds + usize::from(k < self.agents % self.crowds)
    }
}

/// Several demo crowds on one navmesh, stepped together: each crowd has exactly its share
/// of agents as its pool ([`demo_crowd_of`]).
#[derive(Clone, Debug)]
pub struct CrowdSet<'a> {
    crowds: Vec<Crowd<'a>>,
    /// Each crowd's phase times in the last update.
    times: Vec<CrowdPhaseTimes>,
    last: CrowdPhaseTimes,
    last_wall: Duration,
    parallel: bool,
}

impl<'a> CrowdSet<'a> {
    /// The first `spec.agents` pairs of the generator seeded `spec.seed`, dealt to
    /// `spec.crowds` crowds in order; crowds are updated one after another until
    /// [`CrowdSet::set_parallel`].
    pub fn new(nav: &'a NavMesh, spec: &CrowdSetSpec) -> Result<CrowdSet<'a>, ProfileError> {
        spec.check()?;
        let query = NavMeshQuery::new(nav, PAIR_QUERY_NODES).map_err(ProfileError::Crowd)?;
        let generated = generate_path_pairs_seeded(&query, spec.agents, spec.seed);
        if generated.pairs.len() < spec.agents {
            return Err(ProfileError::TooFewPairs {
                wanted: spec.agents,
                found: generated.pairs.len(),
                attempts: generated.attempts,
            });
        }
        let mut crowds = Vec::with_capacity(spec.crowds);
        let mut rest = &generated.pairs[..];
        for k in 0..spec.crowds {
            let (mine, others) = rest.split_at(spec.share(k));
            rest = others;
            let mut crowd = demo_crowd_of(nav, mine.len()).map_err(ProfileError::Crowd)?;
            if spawn_pairs(&mut crowd, mine, &spec.params) < mine.len() {
                return Err(ProfileError::AgentsRefused);
            }
            crowds.push(crowd);
        }
        Ok(CrowdSet {
            times: vec![CrowdPhaseTimes::default(); crowds.len()],
            crowds,
            last: CrowdPhaseTimes::default(),
            last_wall: Duration::ZERO,
            parallel: false,
        })
    }

    pub fn crowds(&self) -> &[Crowd<'a>] {
        &self.crowds
    }

    /// The crowds, to add, remove or redirect agents.
    pub fn crowds_mut(&mut self) -> &mut [Crowd<'a>] {
        &mut self.crowds
    }

    /// Active agents over all crowds.
    pub fn agent_count(&self) -> usize {
        self.crowds.iter().map(|c| c.active_agents().count()).sum()
    }

    /// Update the crowds on rayon's threads, one crowd per task.
    pub fn set_parallel(&mut self, parallel: bool) {
        self.parallel = parallel;
    }

    pub fn parallel(&self) -> bool {
        self.parallel
    }

    /// Moves every crowd on by `dt` ([`Crowd::update`]).
    pub fn update(&mut self, dt: f32) {
        if self.parallel {
            self.crowds.par_iter_mut().for_each(|c| c.update(dt, None));
        } else {
            for crowd in &mut self.crowds {
                crowd.update(dt, None);
            }
        }
    }

    /// Moves every crowd on by `dt`, timed: returns the phase times summed over the crowds
    /// (CPU time when parallel), also kept as [`CrowdSet::last_times`] beside the update's
    /// wall time.
    pub fn update_profiled(&mut self, dt: f32) -> CrowdPhaseTimes {
        let started = Instant::now();
        let step = |(crowd, times): (&mut Crowd<'a>, &mut CrowdPhaseTimes)| {
            times.reset();
            crowd.update_profiled(dt, None, times);
        };
        if self.parallel {
            self.crowds
                .par_iter_mut()
                .zip(self.times.par_iter_mut())
                .for_each(step);
        } else {
            self.crowds
                .iter_mut()
                .zip(self.times.iter_mut())
                .for_each(step);
        }
        self.last_wall = started.elapsed();
        self.last.reset();
        for times in &self.times {
            self.last.add(times);
        }
        self.last
    }

    /// Phase times of the last [`CrowdSet::update_profiled`], summed over the crowds.
    pub fn last_times(&self) -> &CrowdPhaseTimes {
        &self.last
    }

    /// Each crowd's phase times in the last [`CrowdSet::update_profiled`].
    pub fn crowd_times(&self) -> &[CrowdPhaseTimes] {
        &self.times
    }

    /// Wall time of the last [`CrowdSet::update_profiled`].
    pub fn last_wall(&self) -> Duration {
        self.last_wall
    }

    /// Moves every crowd onto `nav` ([`Crowd::rebind`]).
    pub fn rebind<'b>(self, nav: &'b NavMesh) -> Result<CrowdSet<'b>, Status> {
        let crowds = self
            .crowds
            .into_iter()
            .map(|c| c.rebind(nav))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(CrowdSet {
            crowds,
            times: self.times,
            last: self.last,
            last_wall: self.last_wall,
            parallel: self.parallel,
        })
    }
}

/// Makes a [`CrowdSet`] from `spec`, runs `steps` updates of `dt` timed and reports
/// milliseconds per update: phases summed over crowds, and wall time.
pub fn profile_crowds(
    nav: &NavMesh,
    spec: &CrowdSetSpec,
    steps: usize,
    dt: f32,
    parallel: bool,
) -> Result<ProfileReport, ProfileError> {
    if steps == 0 || !(dt > 0.0 && dt.is_finite()) {
        return Err(ProfileError::BadSpec(
            "a profile needs at least one step of a positive, finite dt",
        ));
    }
    let mut set = CrowdSet::new(nav, spec)?;
    set.set_parallel(parallel);
    let mut stats = PhaseStats::default();
    for _ in 0..steps {
        let times = set.update_profiled(dt);
        stats.record(&times, set.last_wall());
    }
    Ok(stats.report(spec.agents, spec.crowds, parallel))
}
