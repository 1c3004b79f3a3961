//! RecastDemo's crowd tool run over a test-case file, as the reference crowd runs record it
//! (`detour/crowd_*.json`): agent k starts at the k-th `pf` line's start and walks to its
//! end, and the agents' state is recorded every few steps. Agents may also come from workload
//! P's random pairs (workload C128 of `tests/data/reference/PERF_DETOUR.md`).

use serde::Serialize;

use crate::demo::text::{JsonF32, RefJson, TestKind, TestLine, point};
use crate::demo::workloads::PathPair;
use navlab::crowd::agent::{
    CROWD_ANTICIPATE_TURNS, CROWD_OBSTACLE_AVOIDANCE, CROWD_OPTIMIZE_TOPO, CROWD_OPTIMIZE_VIS,
    CROWD_SEPARATION, CrowdAgent, CrowdAgentParams,
};
use navlab::crowd::crowd::{Crowd, CrowdAgentDebugInfo};
use navlab::crowd::obstacle_avoidance::{ObstacleAvoidanceDebugData, ObstacleAvoidanceParams};
use navlab::detour::NavMesh;
use navlab::detour::common::Vec3;
use navlab::detour::query::geometry::vdist_2d;
use navlab::detour::query::{NavMeshQuery, Status};
use navlab::memory::format_bytes;

/// The most random agents a set or scenario takes (memory grows with agents times crowds).
pub const MAX_RANDOM_AGENTS: usize = 100_000;

/// How a run makes each update: [`Untimed`] calls [`Crowd::update`]; the profiler's
/// `PhaseStats` times it with [`Crowd::update_profiled`] and keeps the figures.
pub trait CrowdStepper {
    fn step(&mut self, crowd: &mut Crowd<'_>, dt: f32, debug: Option<&mut CrowdAgentDebugInfo>);
}

/// Plain updates.
pub struct Untimed;

impl CrowdStepper for Untimed {
    #[inline]
    fn step(&mut self, crowd: &mut Crowd<'_>, dt: f32, debug: Option<&mut CrowdAgentDebugInfo>) {
        crowd.update(dt, debug);
    }
}

/// The demo's agent radius, which also sizes the crowd (`m_agentRadius`).
pub const DEMO_AGENT_RADIUS: f32 = 0.6;
/// Agents the demo's crowd holds.
pub const DEMO_MAX_AGENTS: usize = 128;
/// The demo's disabled-polygon flag, excluded by filter 0 (`SAMPLE_POLYFLAGS_DISABLED`).
const POLYFLAGS_DISABLED: u16 = 16;
/// Agents of the reference runs, from the first twelve `pf` lines.
pub const REFERENCE_AGENTS: usize = 12;
/// Velocity samples of the demo's debug buffer.
const DEBUG_SAMPLES: usize = 2048;
/// Search nodes of the sample's own query object, which looks targets up.
const SAMPLE_QUERY_NODES: usize = 2048;
/// The most crowd updates a run makes: 10 million, 93 hours of crowd time at 1/30 s.
pub const MAX_STEPS: usize = 10_000_000;
/// The most bytes a run records ([`Frame`]s of [`AgentRecord`]s), so that a long recording is
/// refused before it runs; its JSON is several times larger.
pub const RECORDING_BUDGET: u64 = 100_000_000;

/// How the crowd tool is set up and run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScenarioSettings {
    /// Agents keep apart ([`CROWD_SEPARATION`]).
    pub separation: bool,
    /// Avoidance quality, 0..=3 (the demo's presets).
    pub avoidance_quality: u8,
    pub steps: usize,
    pub dt: f32,
    /// Record the agents every this many steps (and before the first).
    pub record_every: usize,
    /// Agents, from the first `pf` lines (fewer when the file has fewer).
    pub agents: usize,
    /// Whether the agents are recorded into [`ScenarioResult::frames`] (only a report needs
    /// them; without, `frames` is empty).
    pub record_frames: bool,
}

impl ScenarioSettings {
    /// The reference runs' settings: 600 steps of 1/30 s, every tenth recorded.
    pub fn reference(separation: bool, avoidance_quality: u8) -> ScenarioSettings {
        ScenarioSettings {
            separation,
            avoidance_quality,
            steps: 600,
            dt: 1.0 / 30.0,
            record_every: 10,
            agents: REFERENCE_AGENTS,
            record_frames: true,
        }
    }

    /// The demo's crowd agent with these settings.
    pub fn agent_params(&self) -> CrowdAgentParams {
        let mut flags = CROWD_ANTICIPATE_TURNS
            | CROWD_OPTIMIZE_VIS
            | CROWD_OPTIMIZE_TOPO
            | CROWD_OBSTACLE_AVOIDANCE;
        if self.separation {
            flags |= CROWD_SEPARATION;
        }
        CrowdAgentParams {
            radius: DEMO_AGENT_RADIUS,
            height: 2.0,
            max_acceleration: 8.0,
            max_speed: 3.5,
            collision_query_range: DEMO_AGENT_RADIUS * 12.0,
            path_optimization_range: DEMO_AGENT_RADIUS * 30.0,
            separation_weight: 2.0,
            update_flags: flags,
            obstacle_avoidance_type: self.avoidance_quality,
            query_filter_type: 0,
        }
    }
}

/// Why a scenario cannot run.
#[derive(Clone, Debug, PartialEq)]
pub enum ScenarioError {
    NoPathLines,
    BadSettings(&'static str),
    /// The frames to record would take more than [`RECORDING_BUDGET`] bytes.
    RecordingTooLarge {
        frames: usize,
        agents: usize,
        bytes: u64,
        /// The fewest `--record-every` that fits at these steps, and the most `--steps` at
        /// this `--record-every` (`None` when not even the first frame fits).
        fitting: Option<(usize, usize)>,
    },
    Crowd(Status),
}

impl std::fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ScenarioError::NoPathLines => write!(f, "the test file has no pf lines"),
            ScenarioError::BadSettings(why) => write!(f, "{why}"),
            ScenarioError::RecordingTooLarge {
                frames,
                agents,
                bytes,
                fitting,
            } => {
                write!(
                    f,
                    "--steps and --record-every would record {frames} frames of {agents} agents, \
                     {}, more than the {} navlab records; ",
                    format_bytes(*bytes),
                    format_bytes(RECORDING_BUDGET)
                )?;
                match fitting {
                    Some((record_every, steps)) => write!(
                        f,
                        "use --record-every {record_every} or more, or --steps {steps} or fewer"
                    ),
                    None => write!(f, "use fewer agents"),
                }
            }
            ScenarioError::Crowd(status) => write!(f, "the crowd could not be made ({status:?})"),
        }
    }
}

impl std::error::Error for ScenarioError {}

/// An agent as it was added.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AddedAgent {
    pub agent: usize,
    pub pf_index: usize,
    pub add_pos: [JsonF32; 3],
    pub requested_end: [JsonF32; 3],
    pub target_find_nearest_status: String,
    pub target_ref: RefJson,
    pub target_pos: [JsonF32; 3],
    pub request_move_target_returned: bool,
    #[serde(rename = "npos_after_add")]
    pub npos_after_add: [JsonF32; 3],
    #[serde(rename = "state_after_add")]
    pub state_after_add: u8,
    #[serde(rename = "firstPoly_after_add")]
    pub first_poly_after_add: RefJson,
}

/// One agent in a recorded frame.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentRecord {
    pub i: usize,
    pub active: bool,
    pub state: u8,
    pub target_state: u8,
    pub npos: [JsonF32; 3],
    pub vel: [JsonF32; 3],
    pub dvel: [JsonF32; 3],
    pub nvel: [JsonF32; 3],
    pub desired_speed: JsonF32,
    pub ncorners: usize,
    pub nneis: usize,
    pub partial: bool,
    pub corridor_path_count: usize,
    pub corridor_first_poly: RefJson,
    pub target_ref: RefJson,
}

#[derive(Clone, Debug, Serialize)]
pub struct Frame {
    pub step: usize,
    pub time: JsonF32,
    pub agents: Vec<AgentRecord>,
}

/// Where an agent ended up.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FinalRecord {
    pub agent: usize,
    pub final_pos: [JsonF32; 3],
    pub target_pos: [JsonF32; 3],
    #[serde(rename = "dist2D")]
    pub dist_2d: JsonF32,
    #[serde(rename = "speed2D")]
    pub speed_2d: JsonF32,
    pub target_state: u8,
    pub reached_within_radius: bool,
}

/// The run, laid out as the reference's `result`.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScenarioResult {
    #[serde(rename = "dtCrowdDefaultAvoidanceParams0_beforeDemoOverride")]
    pub default_avoidance_params: AvoidanceParamsJson,
    pub avoidance_params: Vec<AvoidanceParamsJson>,
    pub crowd_query_half_extents: [JsonF32; 3],
    pub dt: JsonF32,
    pub steps: usize,
    pub agent_params: AgentParamsJson,
    pub record_every: usize,
    pub agents: Vec<AddedAgent>,
    #[serde(rename = "frames_note")]
    pub frames_note: &'static str,
    pub frames: Vec<Frame>,
    #[serde(rename = "final")]
    pub final_state: Vec<FinalRecord>,
    #[serde(rename = "reached_note")]
    pub reached_note: &'static str,
}

impl ScenarioResult {
    /// Whether `other` serialises as this run does, compared part by part and frame by frame
    /// so that neither run is held as one JSON text (a long recording makes hundreds of MB).
    pub fn serialises_like(&self, other: &ScenarioResult) -> bool {
        fn same<T: Serialize + ?Sized>(a: &T, b: &T) -> bool {
            match (serde_json::to_vec(a), serde_json::to_vec(b)) {
                (Ok(a), Ok(b)) => a == b,
                _ => false,
            }
        }
        let ScenarioResult {
            default_avoidance_params,
            avoidance_params,
            crowd_query_half_extents,
            dt,
            steps,
            agent_params,
            record_every,
            agents,
            frames_note,
            frames,
            final_state,
            reached_note,
        } = self;
        same(default_avoidance_params, &other.default_avoidance_params)
            && same(avoidance_params, &other.avoidance_params)
            && same(crowd_query_half_extents, &other.crowd_query_half_extents)
            && same(dt, &other.dt)
            && same(steps, &other.steps)
            && same(agent_params, &other.agent_params)
            && same(record_every, &other.record_every)
            && same(agents, &other.agents)
            && same(frames_note, &other.frames_note)
            && frames.len() == other.frames.len()
            && frames.iter().zip(&other.frames).all(|(a, b)| same(a, b))
            && same(final_state, &other.final_state)
            && same(reached_note, &other.reached_note)
    }
}

/// The agents' parameters as recorded.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentParamsJson {
    pub radius: JsonF32,
    pub height: JsonF32,
    pub max_acceleration: JsonF32,
    pub max_speed: JsonF32,
    pub collision_query_range: JsonF32,
    pub path_optimization_range: JsonF32,
    pub separation_weight: JsonF32,
    pub update_flags: u8,
    pub obstacle_avoidance_type: u8,
    pub query_filter_type: u8,
}

impl From<&CrowdAgentParams> for AgentParamsJson {
    fn from(p: &CrowdAgentParams) -> Self {
        AgentParamsJson {
            radius: JsonF32(p.radius),
            height: JsonF32(p.height),
            max_acceleration: JsonF32(p.max_acceleration),
            max_speed: JsonF32(p.max_speed),
            collision_query_range: JsonF32(p.collision_query_range),
            path_optimization_range: JsonF32(p.path_optimization_range),
            separation_weight: JsonF32(p.separation_weight),
            update_flags: p.update_flags,
            obstacle_avoidance_type: p.obstacle_avoidance_type,
            query_filter_type: p.query_filter_type,
        }
    }
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AvoidanceParamsJson {
    pub vel_bias: JsonF32,
    pub weight_des_vel: JsonF32,
    pub weight_cur_vel: JsonF32,
    pub weight_side: JsonF32,
    pub weight_toi: JsonF32,
    pub horiz_time: JsonF32,
    pub grid_size: u8,
    pub adaptive_divs: u8,
    pub adaptive_rings: u8,
    pub adaptive_depth: u8,
}

impl From<&ObstacleAvoidanceParams> for AvoidanceParamsJson {
    fn from(p: &ObstacleAvoidanceParams) -> Self {
        AvoidanceParamsJson {
            vel_bias: JsonF32(p.vel_bias),
            weight_des_vel: JsonF32(p.weight_des_vel),
            weight_cur_vel: JsonF32(p.weight_cur_vel),
            weight_side: JsonF32(p.weight_side),
            weight_toi: JsonF32(p.weight_toi),
            horiz_time: JsonF32(p.horiz_time),
            grid_size: p.grid_size,
            adaptive_divs: p.adaptive_divs,
            adaptive_rings: p.adaptive_rings,
            adaptive_depth: p.adaptive_depth,
        }
    }
}

fn record(nav: &NavMesh, i: usize, ag: &CrowdAgent) -> AgentRecord {
    AgentRecord {
        i,
        active: ag.active,
        state: ag.state as u8,
        target_state: ag.target_state as u8,
        npos: point(&ag.npos),
        vel: point(&ag.vel),
        dvel: point(&ag.dvel),
        nvel: point(&ag.nvel),
        desired_speed: JsonF32(ag.desired_speed),
        ncorners: ag.corners().len(),
        nneis: ag.neighbours().len(),
        partial: ag.partial,
        corridor_path_count: ag.corridor.path().len(),
        corridor_first_poly: RefJson::new(nav, ag.corridor.first_poly()),
        target_ref: RefJson::new(nav, ag.target_ref),
    }
}

/// A crowd set up as the demo's crowd tool: filter 0 excludes disabled polygons and the
/// four avoidance presets fill slots 0..3.
pub fn demo_crowd(nav: &NavMesh) -> Result<Crowd<'_>, Status> {
    demo_crowd_of(nav, DEMO_MAX_AGENTS)
}

/// [`demo_crowd`] with room for `max_agents` agents. The pool size changes no agent's
/// moves: the proximity grid's buckets only speed up its lookups.
pub fn demo_crowd_of(nav: &NavMesh, max_agents: usize) -> Result<Crowd<'_>, Status> {
    demo_crowd_sized(nav, max_agents, DEMO_AGENT_RADIUS)
}

/// [`demo_crowd_of`] for agents up to `max_agent_radius` (RecastDemo passes the sample's
/// agent radius).
pub fn demo_crowd_sized(
    nav: &NavMesh,
    max_agents: usize,
    max_agent_radius: f32,
) -> Result<Crowd<'_>, Status> {
    let mut crowd = Crowd::new(max_agents, max_agent_radius, nav)?;
    if let Some(filter) = crowd.filter_mut(0) {
        filter.set_exclude_flags(POLYFLAGS_DISABLED);
    }
    for (i, params) in ObstacleAvoidanceParams::recast_demo_presets()
        .iter()
        .enumerate()
    {
        crowd.set_obstacle_avoidance_params(i, params);
    }
    Ok(crowd)
}

/// Adds one agent per `pf` line (up to the crowd's size) and sends it to the line's end.
fn add_agents(
    crowd: &mut Crowd<'_>,
    sample_query: &NavMeshQuery<'_>,
    nav: &NavMesh,
    lines: &[&TestLine],
    params: &CrowdAgentParams,
) -> Vec<AddedAgent> {
    let mut added = Vec::with_capacity(lines.len());
    for (k, line) in lines.iter().enumerate() {
        let Some(idx) = crowd.add_agent(&line.start, params) else {
            break;
        };
        let extents = *crowd.query_half_extents();
        let (status, target) = match crowd.filter(0) {
            Some(filter) => sample_query.find_nearest_poly(&line.end, &extents, filter),
            None => continue,
        };
        let returned = crowd.request_move_target(idx, target.poly_ref, &target.point);
        let Some(ag) = crowd.agent(idx) else {
            continue;
        };
        added.push(AddedAgent {
            agent: idx,
            pf_index: k,
            add_pos: point(&line.start),
            requested_end: point(&line.end),
            target_find_nearest_status: format!("{:#010x}", status.bits()),
            target_ref: RefJson::new(nav, target.poly_ref),
            target_pos: point(&target.point),
            request_move_target_returned: returned,
            npos_after_add: point(&ag.npos),
            state_after_add: ag.state as u8,
            first_poly_after_add: RefJson::new(nav, ag.corridor.first_poly()),
        });
    }
    added
}

/// Adds agent k at pair k's start and sends it to the pair's end
/// (`tests/data/reference/PERF_DETOUR.md` §6), recording each as the `pf` agents are.
fn add_pair_agents(
    crowd: &mut Crowd<'_>,
    nav: &NavMesh,
    pairs: &[PathPair],
    params: &CrowdAgentParams,
) -> Vec<AddedAgent> {
    let mut added = Vec::with_capacity(pairs.len());
    for (k, pair) in pairs.iter().enumerate() {
        let Some(idx) = crowd.add_agent(&pair.start_pos, params) else {
            break;
        };
        let returned = crowd.request_move_target(idx, pair.end_ref, &pair.end_pos);
        let Some(ag) = crowd.agent(idx) else {
            continue;
        };
        added.push(AddedAgent {
            agent: idx,
            pf_index: k,
            add_pos: point(&pair.start_pos),
            requested_end: point(&pair.end_pos),
            target_find_nearest_status: format!("{:#010x}", Status::SUCCESS.bits()),
            target_ref: RefJson::new(nav, pair.end_ref),
            target_pos: point(&pair.end_pos),
            request_move_target_returned: returned,
            npos_after_add: point(&ag.npos),
            state_after_add: ag.state as u8,
            first_poly_after_add: RefJson::new(nav, ag.corridor.first_poly()),
        });
    }
    added
}

/// Where the scenario's agents come from.
#[derive(Clone, Copy, Debug)]
pub enum AgentSource<'s> {
    /// Agent k walks the k-th `pf` line (at most [`DEMO_MAX_AGENTS`]).
    PathLines(&'s [TestLine]),
    /// Agent k walks pair k (workload P's generator; at most [`MAX_RANDOM_AGENTS`]).
    Pairs(&'s [PathPair]),
}

/// Checks the settings the way the command line reports them.
pub fn check_settings(settings: &ScenarioSettings) -> Result<(), ScenarioError> {
    check_run_settings(settings)?;
    if settings.agents > DEMO_MAX_AGENTS {
        return Err(ScenarioError::BadSettings("--agents must be 1..128"));
    }
    check_recording(settings)
}

/// Checks the settings of a run whose `settings.agents` agents walk random pairs.
pub fn check_random_settings(settings: &ScenarioSettings) -> Result<(), ScenarioError> {
    check_run_settings(settings)?;
    if settings.agents > MAX_RANDOM_AGENTS {
        return Err(ScenarioError::BadSettings(
            "--random-agents must be 1..100000",
        ));
    }
    check_recording(settings)
}

/// The bytes a run records: frame 0 and every `record_every`-th step, each frame holding
/// every agent.
fn recording_bytes(frames: usize, agents: usize) -> u64 {
    let frame = std::mem::size_of::<Frame>() as u64
        + (agents as u64).saturating_mul(std::mem::size_of::<AgentRecord>() as u64);
    (frames as u64).saturating_mul(frame)
}

/// Refuses a recording larger than [`RECORDING_BUDGET`], saying which settings would fit.
fn check_recording(settings: &ScenarioSettings) -> Result<(), ScenarioError> {
    let frames = settings.steps / settings.record_every + 1;
    let bytes = recording_bytes(frames, settings.agents);
    if !settings.record_frames || bytes <= RECORDING_BUDGET {
        return Ok(());
    }
    let most_frames = (RECORDING_BUDGET / recording_bytes(1, settings.agents)) as usize;
    // Frames are step 0 and steps / record_every more.
    let fitting = (most_frames > 0).then(|| {
        (
            settings.steps / most_frames + 1,
            (most_frames * settings.record_every - 1).min(MAX_STEPS),
        )
    });
    Err(ScenarioError::RecordingTooLarge {
        frames,
        agents: settings.agents,
        bytes,
        fitting,
    })
}

/// The checks every run makes, whatever its agents come from.
fn check_run_settings(settings: &ScenarioSettings) -> Result<(), ScenarioError> {
    if !(settings.dt > 0.0 && settings.dt.is_finite() && settings.dt <= 10.0) {
        return Err(ScenarioError::BadSettings(
            "--dt must be a number of seconds above 0 and at most 10",
        ));
    }
    if !(1..=MAX_STEPS).contains(&settings.steps) {
        return Err(ScenarioError::BadSettings(
            "--steps must be 1..10000000 (10 million updates)",
        ));
    }
    if settings.record_every == 0 {
        return Err(ScenarioError::BadSettings(
            "--record-every must be at least 1",
        ));
    }
    if settings.agents == 0 {
        return Err(ScenarioError::BadSettings("--agents must be at least 1"));
    }
    if settings.avoidance_quality > 3 {
        return Err(ScenarioError::BadSettings(
            "--avoidance-quality must be 0..3",
        ));
    }
    Ok(())
}

/// Runs the crowd tool over the `pf` lines of `lines` on `nav`.
pub fn run_scenario(
    nav: &NavMesh,
    lines: &[TestLine],
    settings: &ScenarioSettings,
) -> Result<ScenarioResult, ScenarioError> {
    run_scenario_with(nav, AgentSource::PathLines(lines), settings, &mut Untimed)
}

/// Runs the crowd tool with `settings.agents` agents from `source`, each update made by
/// `stepper` ([`Untimed`], or the profiler's `PhaseStats` collecting a profile). Pair agents get a crowd
/// of at least [`DEMO_MAX_AGENTS`] slots, more if there are more agents.
pub fn run_scenario_with<S: CrowdStepper>(
    nav: &NavMesh,
    source: AgentSource<'_>,
    settings: &ScenarioSettings,
    stepper: &mut S,
) -> Result<ScenarioResult, ScenarioError> {
    let params = settings.agent_params();
    let (mut crowd, agents) = match source {
        AgentSource::PathLines(lines) => {
            check_settings(settings)?;
            let path_lines: Vec<&TestLine> = lines
                .iter()
                .filter(|l| l.kind == TestKind::Pathfind)
                .take(settings.agents)
                .collect();
            if path_lines.is_empty() {
                return Err(ScenarioError::NoPathLines);
            }
            let mut crowd = demo_crowd(nav).map_err(ScenarioError::Crowd)?;
            let sample_query =
                NavMeshQuery::new(nav, SAMPLE_QUERY_NODES).map_err(ScenarioError::Crowd)?;
            let agents = add_agents(&mut crowd, &sample_query, nav, &path_lines, &params);
            (crowd, agents)
        }
        AgentSource::Pairs(pairs) => {
            check_random_settings(settings)?;
            let pairs = &pairs[..settings.agents.min(pairs.len())];
            if pairs.is_empty() {
                return Err(ScenarioError::BadSettings("no agent pairs to start from"));
            }
            let mut crowd = demo_crowd_of(nav, pairs.len().max(DEMO_MAX_AGENTS))
                .map_err(ScenarioError::Crowd)?;
            let agents = add_pair_agents(&mut crowd, nav, pairs, &params);
            (crowd, agents)
        }
    };
    let mut debug = CrowdAgentDebugInfo {
        idx: None,
        vod: Some(ObstacleAvoidanceDebugData::new(DEBUG_SAMPLES)),
        ..CrowdAgentDebugInfo::default()
    };
    let frames = run_crowd(&mut crowd, nav, settings, &mut debug, stepper);
    let final_state = agents
        .iter()
        .filter_map(|a| {
            let ag = crowd.agent(a.agent)?;
            let dist = vdist_2d(&ag.npos, &ag.target_pos);
            let speed = speed_2d(&ag.vel);
            Some(FinalRecord {
                agent: a.agent,
                final_pos: point(&ag.npos),
                target_pos: point(&ag.target_pos),
                dist_2d: JsonF32(dist),
                speed_2d: JsonF32(speed),
                target_state: ag.target_state as u8,
                reached_within_radius: dist < ag.params.radius,
            })
        })
        .collect();
    let presets = ObstacleAvoidanceParams::recast_demo_presets();
    Ok(ScenarioResult {
        default_avoidance_params: AvoidanceParamsJson::from(&ObstacleAvoidanceParams::default()),
        avoidance_params: presets.iter().map(AvoidanceParamsJson::from).collect(),
        crowd_query_half_extents: point(crowd.query_half_extents()),
        dt: JsonF32(settings.dt),
        steps: settings.steps,
        agent_params: AgentParamsJson::from(&params),
        record_every: settings.record_every,
        agents,
        frames_note: "step 0 = after addAgent+requestMoveTarget, before the first update; then every recordEvery steps",
        frames,
        final_state,
        reached_note: "reachedWithinRadius = 2D distance from final npos to targetPos < agent radius (0.6)",
    })
}

/// The update loop alone, kept out of line so profiles show it as one function.
#[inline(never)]
pub fn run_crowd<S: CrowdStepper>(
    crowd: &mut Crowd<'_>,
    nav: &NavMesh,
    settings: &ScenarioSettings,
    debug: &mut CrowdAgentDebugInfo,
    stepper: &mut S,
) -> Vec<Frame> {
    let frame = |crowd: &Crowd<'_>, step: usize| Frame {
        step,
        time: JsonF32(step as f32 * settings.dt),
        agents: crowd
            .active_agents()
            .filter_map(|i| crowd.agent(i).map(|ag| record(nav, i, ag)))
            .collect(),
    };
    let mut frames = Vec::new();
    let record = settings.record_frames;
    if record {
        frames.push(frame(crowd, 0));
    }
    for step in 1..=settings.steps {
        stepper.step(crowd, settings.dt, Some(debug));
        if record && step % settings.record_every == 0 {
            frames.push(frame(crowd, step));
        }
    }
    frames
}

/// The xz speed of a velocity.
fn speed_2d(v: &Vec3) -> f32 {
    (v[0] * v[0] + v[2] * v[2]).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(steps: usize, record_every: usize, agents: usize) -> ScenarioSettings {
        ScenarioSettings {
            steps,
            record_every,
            agents,
            ..ScenarioSettings::reference(false, 1)
        }
    }

    #[test]
    fn a_recording_over_budget_offers_settings_that_fit_and_are_the_nearest() {
        for (steps, record_every, agents) in [
            (MAX_STEPS, 1, 12),
            (100_000, 1, 128),
            (MAX_STEPS, 1000, 128),
            (600, 10, MAX_RANDOM_AGENTS),
            (MAX_STEPS, 7, 1),
        ] {
            let asked = settings(steps, record_every, agents);
            let Err(ScenarioError::RecordingTooLarge {
                fitting: Some((sparser, fewer)),
                bytes,
                ..
            }) = check_random_settings(&asked)
            else {
                panic!("{asked:?} is over the budget");
            };
            assert!(bytes > RECORDING_BUDGET);
            let fits = |steps, record_every| {
                check_random_settings(&settings(steps, record_every, agents)).is_ok()
            };
            assert!(
                fits(steps, sparser) && !fits(steps, sparser - 1),
                "{asked:?}"
            );
            assert!(
                fits(fewer, record_every) && !fits(fewer + 1, record_every),
                "{asked:?}"
            );
            let unrecorded = ScenarioSettings {
                record_frames: false,
                ..asked
            };
            assert!(
                check_random_settings(&unrecorded).is_ok(),
                "nothing to record"
            );
        }
    }
}
