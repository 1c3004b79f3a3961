//! The Create Crowds tool (RecastDemo's CrowdTool): agents added with a click walk to a target
//! over the navmesh with DetourCrowd. Modes: Create Agents (click adds, Shift+click removes),
//! Move Target (click sets the target, Shift+click steers by velocity), Select Agent (its debug
//! drawings) and Toggle Polys (click disables or enables a polygon). Space runs or pauses, 1
//! takes a single step of 1/60 s (RecastDemo's is 1/20 s; ours equals one tick of the running
//! crowd); the crowd updates at a fixed 60 Hz. As RecastDemo keeps its crowd in a
//! tool state, the crowd keeps walking and is drawn while other tools are used, and it follows
//! navmesh changes (a rebuild, a toggled polygon) by moving its agents onto the new navmesh.
//!
//! Beyond RecastDemo: a graph of update times (egui_plot) and crowd profiling, which spawns
//! thousands of agents at seeded random points (workload P's generator) in one or several
//! crowds, updated in parallel if asked, with each update's time shown live.

use std::collections::VecDeque;
use std::time::Instant;

use bevy::prelude::*;
use bevy_egui::egui;
use rayon::prelude::*;

use super::framework::{Tool, ToolAppExt, ToolContext, ToolOutput};
use crate::demo::crowd_profiling::{DEFAULT_SEED, spawn_pairs};
use crate::demo::crowd_scenario::demo_crowd_sized;
use crate::demo::workloads::generate_path_pairs_seeded;
use crate::viewer::labels::Label;
use crate::viewer::navmesh::SharedNavMesh;
use crate::viewer::picking::Hit;
use navlab::crowd::agent::{
    CROWD_ANTICIPATE_TURNS, CROWD_OBSTACLE_AVOIDANCE, CROWD_OPTIMIZE_TOPO, CROWD_OPTIMIZE_VIS,
    CROWD_SEPARATION,
};
use navlab::crowd::{Crowd, CrowdAgentDebugInfo, CrowdAgentParams, ObstacleAvoidanceDebugData};
use navlab::crowd::{CrowdPhase, CrowdPhaseTimes};
use navlab::debug_draw::DebugDraw;
use navlab::debug_draw::crowd::{AgentTrail, CrowdDrawOptions, CrowdScene, crowd as draw_crowd};
use navlab::detour::query::{NavMeshQuery, QueryFilter};
use navlab::detour::{NavMesh, PolyRef};

/// Agents one crowd of the tool holds (RecastDemo's `MAX_AGENTS`).
pub const TOOL_MAX_AGENTS: usize = 128;
/// The most agents crowd profiling spawns.
pub const PROFILE_MAX_AGENTS: usize = 10_000;
/// The most crowds profiling splits its agents over.
pub const PROFILE_MAX_CROWDS: usize = 64;
/// The polygon flag the demo's filter 0 excludes (`SAMPLE_POLYFLAGS_DISABLED`).
const POLYFLAGS_DISABLED: u16 = 16;
/// Seconds per crowd update: a fixed 60 Hz, whatever the frame rate.
pub const UPDATE_DT: f32 = 1.0 / 60.0;
/// Updates one frame may catch up on, so a slow frame does not snowball.
const MAX_UPDATES_PER_FRAME: usize = 4;
/// Updates the performance graph remembers.
const GRAPH_LENGTH: usize = 300;
/// Velocity samples the selected agent's debug record keeps (RecastDemo's 2048).
const DEBUG_SAMPLES: usize = 2048;
/// Search nodes of the query that draws random agents for profiling.
const SPAWN_QUERY_NODES: usize = 2048;

/// Registers the Create Crowds tool.
pub struct CrowdToolPlugin;

impl Plugin for CrowdToolPlugin {
    fn build(&self, app: &mut App) {
        let mut tool = CrowdTool::default();
        let preset = app.world().get_resource::<CrowdPreset>().cloned();
        if let Some(preset) = &preset {
            tool.startup = Some(preset.clone());
            tool.profile.agents = preset.agents;
            tool.profile.crowds = preset.crowds;
        }
        app.register_tool(tool);
        if preset.is_some() {
            let mut tools = app.world_mut().resource_mut::<super::framework::Tools>();
            tools.active = tools.tools.len() - 1;
        }
    }
}

/// Agents to spawn when the navmesh is first built, and updates to run before the first
/// frame is shown (`navlab view --crowd-agents N --crowd-steps S`), for screenshots.
#[derive(Resource, Clone, Debug, PartialEq)]
pub struct CrowdPreset {
    pub agents: usize,
    pub crowds: usize,
    pub steps: usize,
}

/// What a click does (RecastDemo's `ToolMode`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CrowdMode {
    #[default]
    CreateAgents,
    MoveTarget,
    SelectAgent,
    TogglePolys,
}

/// The agents' update options and the debug drawings (RecastDemo's `CrowdToolParams`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CrowdToolSettings {
    pub optimize_visibility: bool,
    pub optimize_topology: bool,
    pub anticipate_turns: bool,
    pub obstacle_avoidance: bool,
    /// The avoidance preset, 0 (low) to 3 (high).
    pub avoidance_quality: u8,
    pub separation: bool,
    pub separation_weight: f32,
    pub draw: CrowdDrawOptions,
    pub show_labels: bool,
    pub show_perf_graph: bool,
}

impl Default for CrowdToolSettings {
    fn default() -> Self {
        Self {
            optimize_visibility: true,
            optimize_topology: true,
            anticipate_turns: true,
            obstacle_avoidance: true,
            avoidance_quality: 1,
            separation: false,
            separation_weight: 2.0,
            draw: CrowdDrawOptions::default(),
            show_labels: false,
            show_perf_graph: true,
        }
    }
}

impl CrowdToolSettings {
    /// The update flags these options ask for.
    fn update_flags(&self) -> u8 {
        [
            (self.anticipate_turns, CROWD_ANTICIPATE_TURNS),
            (self.optimize_visibility, CROWD_OPTIMIZE_VIS),
            (self.optimize_topology, CROWD_OPTIMIZE_TOPO),
            (self.obstacle_avoidance, CROWD_OBSTACLE_AVOIDANCE),
            (self.separation, CROWD_SEPARATION),
        ]
        .iter()
        .filter(|(on, _)| *on)
        .fold(0, |flags, (_, flag)| flags | flag)
    }

    /// A new agent's parameters (`CrowdToolState::addAgent`).
    fn agent_params(&self, radius: f32, height: f32) -> CrowdAgentParams {
        CrowdAgentParams {
            radius,
            height,
            max_acceleration: 8.0,
            max_speed: 3.5,
            collision_query_range: radius * 12.0,
            path_optimization_range: radius * 30.0,
            separation_weight: self.separation_weight,
            update_flags: self.update_flags(),
            obstacle_avoidance_type: self.avoidance_quality,
            query_filter_type: 0,
        }
    }
}

/// How profiling spawns agents.
#[derive(Clone, Copy, Debug, PartialEq)]
struct ProfileSettings {
    agents: usize,
    crowds: usize,
    parallel: bool,
    /// The pair generator's seed (workload P's is the default).
    seed: u32,
}

impl Default for ProfileSettings {
    fn default() -> Self {
        Self {
            agents: 1000,
            crowds: 1,
            parallel: false,
            seed: DEFAULT_SEED,
        }
    }
}

/// One update's cost, for the graph.
#[derive(Clone, Copy, Debug)]
struct UpdateSample {
    milliseconds: f64,
    velocity_samples: usize,
}

type Crowds<'a> = Vec<Crowd<'a>>;

self_cell::self_cell!(
    /// The crowds with the navmesh they walk on, which they borrow.
    struct CrowdCell {
        owner: SharedNavMesh,
        #[not_covariant]
        dependent: Crowds,
    }
);

/// The tool's state, kept across tool switches.
pub struct CrowdTool {
    mode: CrowdMode,
    pub settings: CrowdToolSettings,
    profile: ProfileSettings,
    cell: Option<CrowdCell>,
    /// The navmesh version the crowds were made for.
    nav_version: Option<u64>,
    pub running: bool,
    /// Seconds of simulation owed to the fixed-rate update.
    owed: f32,
    /// The selected agent: crowd and slot.
    selected: Option<(usize, usize)>,
    debug: CrowdAgentDebugInfo,
    /// The move target, on the navmesh.
    target: Option<(PolyRef, [f32; 3])>,
    /// One trail per slot of each crowd.
    trails: Vec<Vec<AgentTrail>>,
    history: VecDeque<UpdateSample>,
    /// Per phase, the last update's time summed over the crowds, and the sum over the updates
    /// since the agents were spawned (for the mean).
    last_phases: CrowdPhaseTimes,
    phase_sums: CrowdPhaseTimes,
    phase_updates: u32,
    /// The crowd drawing is out of date.
    redraw: bool,
    startup: Option<CrowdPreset>,
    /// Why the last click or spawn did nothing.
    problem: Option<String>,
}

impl Default for CrowdTool {
    fn default() -> Self {
        Self {
            mode: CrowdMode::default(),
            settings: CrowdToolSettings::default(),
            profile: ProfileSettings::default(),
            cell: None,
            nav_version: None,
            running: true,
            owed: 0.0,
            selected: None,
            debug: CrowdAgentDebugInfo {
                vod: Some(ObstacleAvoidanceDebugData::new(DEBUG_SAMPLES)),
                ..Default::default()
            },
            target: None,
            trails: Vec::new(),
            history: VecDeque::with_capacity(GRAPH_LENGTH),
            last_phases: CrowdPhaseTimes::default(),
            phase_sums: CrowdPhaseTimes::default(),
            phase_updates: 0,
            redraw: true,
            startup: None,
            problem: None,
        }
    }
}

/// The slot of the agent whose box the click's ray (from the camera `start` through the point
/// hit, `end`) enters first: RecastDemo's `hitTestAgents`, so a click on an agent's body picks
/// it though the ray meets the ground behind. The box spans the agent's radius around its
/// position and its height up from there; a box the camera is inside is passed over.
fn agent_hit_by(crowds: &[Crowd], start: [f32; 3], end: [f32; 3]) -> Option<(usize, usize)> {
    let mut best: Option<((usize, usize), f32)> = None;
    for (c, crowd) in crowds.iter().enumerate() {
        for i in crowd.active_agents() {
            let Some(ag) = crowd.agent(i) else { continue };
            let (p, r, h) = (ag.npos, ag.params.radius, ag.params.height);
            let bmin = [p[0] - r, p[1], p[2] - r];
            let bmax = [p[0] + r, p[1] + h, p[2] + r];
            if let Some(t) = navlab::math::ray_box_entry(&start, &end, &bmin, &bmax)
                && t > 0.0
                && best.is_none_or(|(_, nearest)| t < nearest)
            {
                best = Some(((c, i), t));
            }
        }
    }
    best.map(|(hit, _)| hit)
}

/// The xz velocity of `speed` from `pos` towards `target` (`calcVel`).
fn velocity_towards(pos: [f32; 3], target: [f32; 3], speed: f32) -> [f32; 3] {
    let (dx, dz) = (target[0] - pos[0], target[2] - pos[2]);
    let len = (dx * dx + dz * dz).sqrt();
    if len <= 0.0 {
        return [0.0; 3];
    }
    [dx / len * speed, 0.0, dz / len * speed]
}

impl CrowdTool {
    fn crowds_mut<R>(&mut self, f: impl FnOnce(&NavMesh, &mut Crowds) -> R) -> Option<R> {
        self.cell
            .as_mut()
            .map(|cell| cell.with_dependent_mut(|nav, crowds| f(nav, crowds)))
    }

    fn agent_count(&mut self) -> usize {
        self.crowds_mut(|_, crowds| crowds.iter().map(|c| c.active_agents().count()).sum())
            .unwrap_or(0)
    }

    /// Makes the crowds follow the navmesh on screen: the agents move onto a changed navmesh
    /// with their corridors and requests, as C++'s crowd does when its navmesh changes under
    /// it (stale polygons are caught by the usual checks); the first navmesh, or one they
    /// cannot move onto, gets a fresh, empty crowd.
    fn follow_nav_mesh(&mut self, ctx: &ToolContext, out: &mut ToolOutput) {
        if self.nav_version == Some(ctx.nav_mesh_version) {
            return;
        }
        self.nav_version = Some(ctx.nav_mesh_version);
        self.redraw = true;
        let target = self.target.map(|(_, p)| p);
        let Some(shared) = ctx.shared_nav_mesh() else {
            let removed = self.agent_count();
            self.cell = None;
            self.trails.clear();
            self.selected = None;
            if removed > 0 {
                out.log
                    .push(format!("Crowd: no navmesh; {removed} agents removed"));
            }
            return;
        };
        if let Some(old) = self.cell.as_mut() {
            let moved = old.with_dependent_mut(|_, crowds| {
                let taken = std::mem::take(crowds);
                CrowdCell::try_new(shared.clone(), |nav| {
                    taken
                        .into_iter()
                        .map(|crowd| crowd.rebind(nav))
                        .collect::<Result<Crowds, _>>()
                })
            });
            match moved {
                Ok(cell) => {
                    self.cell = Some(cell);
                    self.target = target.and_then(|p| self.nearest_poly(p));
                    return;
                }
                Err(status) => out.log.push(format!(
                    "Crowd: could not move onto the new navmesh ({status:?}); the agents are removed"
                )),
            }
        }
        let radius = ctx.state.settings.agent_radius;
        let cell = CrowdCell::try_new(shared, |nav| {
            demo_crowd_sized(nav, TOOL_MAX_AGENTS, radius).map(|crowd| vec![crowd])
        });
        self.selected = None;
        self.trails = vec![Vec::new()];
        match cell {
            Ok(cell) => {
                self.cell = Some(cell);
                self.target = target.and_then(|p| self.nearest_poly(p));
            }
            Err(status) => {
                self.cell = None;
                self.target = None;
                out.log
                    .push(format!("Crowd: the crowd could not be made ({status:?})"));
            }
        }
    }

    /// Removes every agent and the selection, keeping the crowds.
    fn clear_agents(&mut self) {
        self.crowds_mut(|_, crowds| {
            for crowd in crowds.iter_mut() {
                let active: Vec<usize> = crowd.active_agents().collect();
                for i in active {
                    crowd.remove_agent(i);
                }
            }
        });
        self.selected = None;
        self.redraw = true;
    }

    /// The navmesh point nearest `p` for the crowd's filter, within its placement box.
    fn nearest_poly(&mut self, p: [f32; 3]) -> Option<(PolyRef, [f32; 3])> {
        self.crowds_mut(|_, crowds| {
            let crowd = crowds.first()?;
            let extents = *crowd.query_half_extents();
            let filter = crowd.filter(0)?;
            let (_, nearest) = crowd.nav_query().find_nearest_poly(&p, &extents, filter);
            (nearest.poly_ref != 0).then_some((nearest.poly_ref, nearest.point))
        })
        .flatten()
    }

    fn add_agent(&mut self, ctx: &ToolContext, p: [f32; 3]) {
        let settings = &ctx.state.settings;
        let params = self
            .settings
            .agent_params(settings.agent_radius, settings.agent_height);
        let target = self.target;
        let trails = &mut self.trails;
        let added = self.cell.as_mut().map(|cell| {
            cell.with_dependent_mut(|_, crowds| {
                let crowd = crowds.first_mut()?;
                let idx = crowd.add_agent(&p, &params)?;
                if let Some((r, t)) = target {
                    crowd.request_move_target(idx, r, &t);
                }
                set_trail(&mut trails[0], idx, p);
                Some(())
            })
        });
        self.problem = match added {
            None => Some("Build a navmesh first".into()),
            Some(None) => Some(format!(
                "The crowd is full ({TOOL_MAX_AGENTS} agents), or the agent's size is out of range"
            )),
            Some(Some(())) => None,
        };
    }

    /// Removes the agent the click's ray from `start` through `end` enters first.
    fn remove_agent(&mut self, start: [f32; 3], end: [f32; 3]) {
        let selected = self.selected;
        let removed = self.crowds_mut(|_, crowds| {
            let (c, i) = agent_hit_by(crowds, start, end)?;
            crowds[c].remove_agent(i);
            Some((c, i))
        });
        match removed.flatten() {
            Some(hit) => {
                if selected == Some(hit) {
                    self.selected = None;
                }
                self.problem = None;
            }
            None => self.problem = Some("No agent under the click".into()),
        }
    }

    /// Sends the selected agent, or every agent, to `p` (or, with `steer`, moves them towards
    /// it by velocity, without paths).
    fn set_move_target(&mut self, p: [f32; 3], steer: bool) {
        if !steer {
            self.target = self.nearest_poly(p);
            if self.target.is_none() {
                self.problem = Some("No walkable polygon near the click".into());
                return;
            }
        }
        let target = self.target;
        let selected = self.selected;
        self.crowds_mut(|_, crowds| {
            for (c, crowd) in crowds.iter_mut().enumerate() {
                let agents: Vec<usize> = crowd
                    .active_agents()
                    .filter(|&i| selected.is_none_or(|s| s == (c, i)))
                    .collect();
                for i in agents {
                    let Some(ag) = crowd.agent(i) else { continue };
                    if steer {
                        let v = velocity_towards(ag.npos, p, ag.params.max_speed);
                        crowd.request_move_velocity(i, &v);
                    } else if let Some((r, t)) = target {
                        crowd.request_move_target(i, r, &t);
                    }
                }
            }
        });
        self.problem = None;
    }

    /// Flips the disabled flag of the polygon under `p` in a copy of the navmesh on screen.
    fn toggle_poly(&mut self, ctx: &ToolContext, p: [f32; 3], out: &mut ToolOutput) {
        let Some(nav) = ctx.nav_mesh else {
            self.problem = Some("Build a navmesh first".into());
            return;
        };
        let radius = ctx.state.settings.agent_radius;
        let extents = [radius * 2.0, radius * 1.5, radius * 2.0];
        let Ok(query) = NavMeshQuery::new(nav, 64) else {
            return;
        };
        let (_, nearest) = query.find_nearest_poly(&p, &extents, &QueryFilter::default());
        if nearest.poly_ref == 0 {
            self.problem = Some("No polygon near the click".into());
            return;
        }
        let mut edited = nav.clone();
        let Ok(flags) = edited.poly_flags(nearest.poly_ref) else {
            return;
        };
        if edited
            .set_poly_flags(nearest.poly_ref, flags ^ POLYFLAGS_DISABLED)
            .is_ok()
        {
            let state = if flags & POLYFLAGS_DISABLED != 0 {
                "enabled"
            } else {
                "disabled"
            };
            out.log.push(format!(
                "Crowd: polygon {:#x} {state} (export the navmesh to keep it)",
                nearest.poly_ref
            ));
            out.edited_nav_mesh = Some(edited);
            self.problem = None;
        }
    }

    /// Replaces every agent by `agents` random ones in `crowds` crowds, from workload P's
    /// seeded pair generator: each starts at a pair's start and walks to its end.
    fn spawn_random(&mut self, ctx: &ToolContext, agents: usize, crowds: usize) {
        let agents = agents.clamp(1, PROFILE_MAX_AGENTS);
        let crowds = crowds.clamp(1, PROFILE_MAX_CROWDS.min(agents));
        let Some(shared) = ctx.shared_nav_mesh() else {
            self.problem = Some("Build a navmesh first".into());
            return;
        };
        let settings = &ctx.state.settings;
        let params = self
            .settings
            .agent_params(settings.agent_radius, settings.agent_height);
        let per_crowd = agents.div_ceil(crowds);
        let seed = self.profile.seed;
        let mut placed = 0;
        let cell = CrowdCell::try_new(shared, |nav| {
            let query = NavMeshQuery::new(nav, SPAWN_QUERY_NODES).map_err(|_| ())?;
            let pairs = generate_path_pairs_seeded(&query, agents, seed);
            let mut list: Crowds = (0..crowds)
                .map(|_| demo_crowd_sized(nav, per_crowd, settings.agent_radius).ok())
                .collect::<Option<_>>()
                .ok_or(())?;
            for (crowd, chunk) in list.iter_mut().zip(pairs.pairs.chunks(per_crowd)) {
                placed += spawn_pairs(crowd, chunk, &params);
            }
            Ok::<_, ()>(list)
        });
        let Ok(cell) = cell else {
            self.problem = Some("The crowds could not be made".into());
            return;
        };
        self.cell = Some(cell);
        self.nav_version = Some(ctx.nav_mesh_version);
        self.selected = None;
        self.target = None;
        self.history.clear();
        self.reset_phases();
        self.trails = self
            .crowds_mut(|_, crowds| {
                crowds
                    .iter()
                    .map(|crowd| {
                        (0..crowd.agent_count())
                            .map(|i| AgentTrail::new(crowd.agent(i).map_or([0.0; 3], |a| a.npos)))
                            .collect()
                    })
                    .collect()
            })
            .unwrap_or_default();
        self.problem = (placed < agents).then(|| {
            format!("Only {placed} of {agents} agents found a place (the navmesh is small)")
        });
        self.redraw = true;
    }

    /// Applies the options to every agent (`updateAgentParams`).
    fn apply_settings(&mut self) {
        let settings = self.settings;
        self.crowds_mut(|_, crowds| {
            for crowd in crowds.iter_mut() {
                let active: Vec<usize> = crowd.active_agents().collect();
                for i in active {
                    let Some(ag) = crowd.agent(i) else { continue };
                    let params = CrowdAgentParams {
                        update_flags: settings.update_flags(),
                        obstacle_avoidance_type: settings.avoidance_quality,
                        separation_weight: settings.separation_weight,
                        ..ag.params
                    };
                    crowd.update_agent_parameters(i, &params);
                }
            }
        });
    }

    fn reset_phases(&mut self) {
        self.last_phases.reset();
        self.phase_sums.reset();
        self.phase_updates = 0;
    }

    /// One crowd update of `dt` seconds for every crowd, timed per phase, with the trails
    /// moved on.
    pub fn step(&mut self, dt: f32) {
        let selected = self.selected;
        let parallel = self.profile.parallel;
        let debug = &mut self.debug;
        let trails = &mut self.trails;
        let update = self.cell.as_mut().map(|cell| {
            cell.with_dependent_mut(|_, crowds| {
                let start = Instant::now();
                let mut phases = CrowdPhaseTimes::default();
                let skip = match selected {
                    Some((c, slot)) if c < crowds.len() => {
                        let crowd = &mut crowds[c];
                        debug.idx = crowd.active_agents().position(|i| i == slot);
                        if let Some(vod) = debug.vod.as_mut() {
                            vod.reset();
                        }
                        crowd.update_profiled(dt, Some(debug), &mut phases);
                        if let Some(vod) = debug.vod.as_mut() {
                            vod.normalize_samples();
                        }
                        Some(c)
                    }
                    _ => None,
                };
                phases.add(&update_all(crowds, dt, parallel, skip));
                let milliseconds = start.elapsed().as_secs_f64() * 1000.0;
                for (crowd, trails) in crowds.iter().zip(trails.iter_mut()) {
                    for i in crowd.active_agents() {
                        if let Some(ag) = crowd.agent(i) {
                            match trails.get_mut(i) {
                                Some(trail) => trail.push(ag.npos),
                                None => set_trail(trails, i, ag.npos),
                            }
                        }
                    }
                }
                let sample = UpdateSample {
                    milliseconds,
                    velocity_samples: crowds.iter().map(|c| c.velocity_sample_count()).sum(),
                };
                (sample, phases)
            })
        });
        if let Some((sample, phases)) = update {
            if self.history.len() == GRAPH_LENGTH {
                self.history.pop_front();
            }
            self.history.push_back(sample);
            self.phase_sums.add(&phases);
            self.phase_updates += 1;
            self.last_phases = phases;
            self.redraw = true;
        }
    }

    /// The crowd drawing and its labels.
    fn drawing(&mut self, ctx: &ToolContext) -> (DebugDraw, Vec<Label>) {
        let settings = self.settings;
        let selected = self.selected;
        let target = self.target.map(|(_, p)| p);
        let debug = &self.debug;
        let trails = &self.trails;
        let radius = ctx.state.settings.agent_radius;
        let Some(cell) = self.cell.as_mut() else {
            return (DebugDraw::default(), Vec::new());
        };
        cell.with_dependent_mut(|nav, crowds| {
            let mut drawing = DebugDraw::default();
            let mut labels = Vec::new();
            let black = egui::Color32::from_black_alpha(220);
            if let Some(t) = target {
                labels.push(Label {
                    position: Vec3::from_array(t),
                    text: "TARGET".into(),
                    color: black,
                });
            }
            for (c, crowd) in crowds.iter().enumerate() {
                let selected_here = selected.filter(|s| s.0 == c).map(|s| s.1);
                let scene = CrowdScene {
                    crowd,
                    nav,
                    trails: trails.get(c).map_or(&[], |t| t.as_slice()),
                    selected: selected_here,
                    debug: selected_here.map(|_| debug),
                    target: if c == 0 { target } else { None },
                    target_radius: radius,
                };
                drawing.append(draw_crowd(&scene, &settings.draw));
                append_labels(
                    &mut labels,
                    crowd,
                    selected_here,
                    &settings,
                    crowds.len() > 1,
                    c,
                );
            }
            (drawing, labels)
        })
    }

    fn graph_ui(&self, ui: &mut egui::Ui) {
        use egui_plot::{Legend, Line, Plot, PlotPoints};
        let first = self.history.len().saturating_sub(GRAPH_LENGTH);
        let total: PlotPoints = self
            .history
            .iter()
            .enumerate()
            .skip(first)
            .map(|(i, s)| [i as f64, s.milliseconds])
            .collect();
        Plot::new("crowd update time")
            .height(120.0)
            .include_y(0.0)
            .include_y(2.0)
            .allow_drag(false)
            .allow_zoom(false)
            .allow_scroll(false)
            .legend(Legend::default())
            .y_axis_label("ms")
            .show(ui, |plot| {
                plot.line(Line::new("Total update", total));
            });
        if let Some(last) = self.history.back() {
            let mean = self.history.iter().map(|s| s.milliseconds).sum::<f64>()
                / self.history.len() as f64;
            ui.label(format!(
                "Update {:.3} ms (mean {:.3} over {}), {} velocity samples",
                last.milliseconds,
                mean,
                self.history.len(),
                last.velocity_samples
            ));
        }
    }

    /// Each update phase's time in the last update and on average since the spawn, summed
    /// over the crowds.
    fn phase_table(&self, ui: &mut egui::Ui) {
        if self.phase_updates == 0 {
            return;
        }
        let ms = |d: std::time::Duration| d.as_secs_f64() * 1000.0;
        let mean = |d: std::time::Duration| ms(d) / f64::from(self.phase_updates);
        egui::Grid::new("crowd phases")
            .striped(true)
            .show(ui, |ui| {
                ui.strong("Phase");
                ui.strong("last ms");
                ui.strong("mean ms");
                ui.end_row();
                for phase in CrowdPhase::ALL {
                    ui.label(phase.label());
                    ui.label(format!("{:.3}", ms(self.last_phases.get(phase))));
                    ui.label(format!("{:.3}", mean(self.phase_sums.get(phase))));
                    ui.end_row();
                }
                ui.strong("Total");
                ui.label(format!("{:.3}", ms(self.last_phases.total())));
                ui.label(format!("{:.3}", mean(self.phase_sums.total())));
                ui.end_row();
            });
    }

    fn profile_ui(&mut self, ui: &mut egui::Ui, ctx: &ToolContext) {
        egui::CollapsingHeader::new("Crowd Profiling")
            .default_open(false)
            .show(ui, |ui| {
                ui.add(
                    egui::Slider::new(&mut self.profile.agents, 1..=PROFILE_MAX_AGENTS)
                        .logarithmic(true)
                        .text("Agents"),
                );
                ui.add(
                    egui::Slider::new(&mut self.profile.crowds, 1..=PROFILE_MAX_CROWDS)
                        .text("Crowds"),
                );
                ui.checkbox(&mut self.profile.parallel, "Update crowds in parallel");
                ui.horizontal(|ui| {
                    ui.label("Seed");
                    ui.add(egui::DragValue::new(&mut self.profile.seed));
                });
                ui.horizontal(|ui| {
                    if ui.button("Spawn random agents").clicked() {
                        self.spawn_random(ctx, self.profile.agents, self.profile.crowds);
                    }
                    if ui.button("Remove all agents").clicked() {
                        self.clear_agents();
                    }
                });
                ui.label("Starts and targets come from workload P's seeded generator.");
                self.phase_table(ui);
            });
    }
}

/// Updates every crowd but `skip` (already updated with the debug record), in parallel if
/// asked; returns the phase times summed over the crowds (CPU time, not wall time).
fn update_all(
    crowds: &mut Crowds,
    dt: f32,
    parallel: bool,
    skip: Option<usize>,
) -> CrowdPhaseTimes {
    let update = |(c, crowd): (usize, &mut Crowd)| {
        let mut times = CrowdPhaseTimes::default();
        if Some(c) != skip {
            crowd.update_profiled(dt, None, &mut times);
        }
        times
    };
    let sum = |mut a: CrowdPhaseTimes, b: CrowdPhaseTimes| {
        a.add(&b);
        a
    };
    if parallel {
        crowds
            .par_iter_mut()
            .enumerate()
            .map(update)
            .reduce(CrowdPhaseTimes::default, sum)
    } else {
        crowds
            .iter_mut()
            .enumerate()
            .map(update)
            .fold(CrowdPhaseTimes::default(), sum)
    }
}

/// Starts slot `idx`'s trail at `pos`.
fn set_trail(trails: &mut Vec<AgentTrail>, idx: usize, pos: [f32; 3]) {
    if trails.len() <= idx {
        trails.resize(idx + 1, AgentTrail::new(pos));
    }
    trails[idx] = AgentTrail::new(pos);
}

/// Agent numbers, search-node costs and the selected agent's neighbour distances.
fn append_labels(
    labels: &mut Vec<Label>,
    crowd: &Crowd,
    selected: Option<usize>,
    settings: &CrowdToolSettings,
    several: bool,
    crowd_index: usize,
) {
    let black = egui::Color32::from_black_alpha(220);
    if settings.draw.show_nodes {
        for node in crowd.path_queue().nav_query().node_pool().nodes() {
            labels.push(Label {
                position: Vec3::from_array(node.pos) + Vec3::Y * 0.5,
                text: format!("{:.2}", node.total),
                color: black,
            });
        }
    }
    if settings.show_labels {
        for i in crowd.active_agents() {
            let Some(ag) = crowd.agent(i) else { continue };
            labels.push(Label {
                position: Vec3::from_array(ag.npos) + Vec3::Y * ag.params.height,
                text: if several {
                    format!("{crowd_index}:{i}")
                } else {
                    i.to_string()
                },
                color: black,
            });
        }
    }
    if settings.draw.show_neighbours {
        let shown = crowd
            .active_agents()
            .filter(|&i| settings.draw.show_detail_all || selected == Some(i));
        for i in shown {
            let Some(ag) = crowd.agent(i) else { continue };
            for nei in ag.neighbours() {
                if let Some(other) = crowd.agent(nei.index).filter(|o| o.active) {
                    labels.push(Label {
                        position: Vec3::from_array(other.npos) + Vec3::Y * ag.params.radius,
                        text: format!("{:.3}", nei.dist),
                        color: egui::Color32::from_white_alpha(220),
                    });
                }
            }
        }
    }
}

impl Tool for CrowdTool {
    fn session_state(&self) -> Option<serde_json::Value> {
        let agents: usize = self.cell.as_ref().map_or(0, |cell| {
            cell.with_dependent(|_, crowds| crowds.iter().map(|c| c.active_agents().count()).sum())
        });
        Some(serde_json::json!({
            "agents": agents,
            "running": self.running,
            "updates": self.phase_updates,
        }))
    }

    fn name(&self) -> &'static str {
        "Create Crowds"
    }

    fn ui(&mut self, ui: &mut egui::Ui, ctx: &ToolContext, _out: &mut ToolOutput) {
        for (mode, name) in [
            (CrowdMode::CreateAgents, "Create Agents"),
            (CrowdMode::MoveTarget, "Move Target"),
            (CrowdMode::SelectAgent, "Select Agent"),
            (CrowdMode::TogglePolys, "Toggle Polys"),
        ] {
            ui.radio_value(&mut self.mode, mode, name);
        }
        ui.label(match self.mode {
            CrowdMode::CreateAgents => "Click: add agent. Shift+click: remove agent.",
            CrowdMode::MoveTarget => {
                "Click: set move target. Shift+click: steer by velocity, without paths."
            }
            CrowdMode::SelectAgent => "Click: select agent (click empty ground to deselect).",
            CrowdMode::TogglePolys => "Click: disable or enable a polygon.",
        });
        ui.label("Space: run/pause. 1: single step.");
        if self.running {
            ui.colored_label(egui::Color32::from_rgb(255, 32, 16), "- RUNNING -");
        } else {
            ui.label("- PAUSED -");
        }
        ui.separator();
        let s = &mut self.settings;
        let mut changed = false;
        egui::CollapsingHeader::new("Options")
            .default_open(true)
            .show(ui, |ui| {
                changed |= ui
                    .checkbox(&mut s.optimize_visibility, "Optimize Visibility")
                    .changed();
                changed |= ui
                    .checkbox(&mut s.optimize_topology, "Optimize Topology")
                    .changed();
                changed |= ui
                    .checkbox(&mut s.anticipate_turns, "Anticipate Turns")
                    .changed();
                changed |= ui
                    .checkbox(&mut s.obstacle_avoidance, "Obstacle Avoidance")
                    .changed();
                changed |= ui
                    .add(
                        egui::Slider::new(&mut s.avoidance_quality, 0..=3)
                            .text("Avoidance Quality"),
                    )
                    .changed();
                changed |= ui.checkbox(&mut s.separation, "Separation").changed();
                changed |= ui
                    .add(
                        egui::Slider::new(&mut s.separation_weight, 0.0..=20.0)
                            .text("Separation Weight"),
                    )
                    .changed();
            });
        let d = &mut s.draw;
        let before = (*d, s.show_labels);
        egui::CollapsingHeader::new("Selected Debug Draw").show(ui, |ui| {
            ui.checkbox(&mut d.show_corners, "Show Corners");
            ui.checkbox(&mut d.show_collision_segments, "Show Collision Segs");
            ui.checkbox(&mut d.show_path, "Show Path");
            ui.checkbox(&mut d.show_velocity_samples, "Show VO");
            ui.checkbox(&mut d.show_path_optimization, "Show Path Optimization");
            ui.checkbox(&mut d.show_neighbours, "Show Neighbours");
        });
        egui::CollapsingHeader::new("Debug Draw").show(ui, |ui| {
            ui.checkbox(&mut s.show_labels, "Show Labels");
            ui.checkbox(&mut d.show_grid, "Show Prox Grid");
            ui.checkbox(&mut d.show_nodes, "Show Nodes");
            ui.checkbox(&mut s.show_perf_graph, "Show Perf Graph");
            ui.checkbox(&mut d.show_detail_all, "Show Detail All");
        });
        if before != (*d, s.show_labels) {
            self.redraw = true;
        }
        if changed {
            self.apply_settings();
        }
        if self.settings.show_perf_graph {
            self.graph_ui(ui);
        }
        self.profile_ui(ui, ctx);
        let agents = self.agent_count();
        ui.label(format!("{agents} agents"));
        if let Some(problem) = &self.problem {
            ui.colored_label(egui::Color32::from_rgb(230, 150, 40), problem);
        }
    }

    fn on_click(&mut self, ctx: &ToolContext, hit: Hit, shift: bool, out: &mut ToolOutput) {
        self.follow_nav_mesh(ctx, out);
        let p = hit.point.to_array();
        if self.cell.is_none() && self.mode != CrowdMode::TogglePolys {
            self.problem = Some("Build a navmesh first".into());
            return;
        }
        let start = hit.origin.to_array();
        match (self.mode, shift) {
            (CrowdMode::CreateAgents, false) => self.add_agent(ctx, p),
            (CrowdMode::CreateAgents, true) => self.remove_agent(start, p),
            (CrowdMode::MoveTarget, steer) => self.set_move_target(p, steer),
            (CrowdMode::SelectAgent, _) => {
                self.selected = self
                    .crowds_mut(|_, crowds| agent_hit_by(crowds, start, p))
                    .flatten();
            }
            (CrowdMode::TogglePolys, _) => self.toggle_poly(ctx, p, out),
        }
        self.redraw = true;
    }

    fn update(&mut self, _ctx: &ToolContext, keys: &ButtonInput<KeyCode>, _out: &mut ToolOutput) {
        if keys.just_pressed(KeyCode::Space) {
            self.running = !self.running;
        }
        if keys.just_pressed(KeyCode::Digit1) {
            self.running = false;
            self.step(UPDATE_DT);
        }
    }

    fn update_state(&mut self, ctx: &ToolContext, dt: f32, out: &mut ToolOutput) {
        self.follow_nav_mesh(ctx, out);
        if let Some(preset) = self.startup.take_if(|_| self.cell.is_some()) {
            self.spawn_random(ctx, preset.agents, preset.crowds);
            for _ in 0..preset.steps {
                self.step(UPDATE_DT);
            }
            self.running = false;
        }
        if self.running {
            self.owed =
                (self.owed + dt.clamp(0.0, 1.0)).min(UPDATE_DT * MAX_UPDATES_PER_FRAME as f32);
            while self.owed >= UPDATE_DT {
                self.owed -= UPDATE_DT;
                self.step(UPDATE_DT);
            }
        } else {
            self.owed = 0.0;
        }
        if self.redraw {
            self.redraw = false;
            let (drawing, labels) = self.drawing(ctx);
            out.state_overlay = Some(drawing);
            out.state_labels = Some(labels);
        }
    }

    fn draw(&self, _ctx: &ToolContext, _gizmos: &mut Gizmos) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::viewer::build::BuildState;
    use crate::viewer::build::tests::{build_app, settle};
    use crate::viewer::navmesh::ShownNavMesh;
    use crate::viewer::picking::PointerHit;
    use crate::viewer::tools::tool_context;

    fn hit(p: [f32; 3]) -> Hit {
        Hit::from_above(Vec3::from_array(p))
    }

    /// A click on the update graph gives it no keyboard focus: the fly keys stay the 3D view's.
    #[test]
    fn clicking_the_graph_leaves_the_keyboard_to_the_view() {
        let tool = CrowdTool::default();
        let ctx = egui::Context::default();
        let at = egui::pos2(150.0, 60.0);
        let button = |pressed| egui::Event::PointerButton {
            pos: at,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: egui::Modifiers::NONE,
        };
        let mut pressed_on_graph = false;
        for events in [
            vec![egui::Event::PointerMoved(at)],
            vec![button(true)],
            vec![button(false)],
            vec![],
        ] {
            let input = egui::RawInput {
                screen_rect: Some(egui::Rect::from_min_size(
                    egui::Pos2::ZERO,
                    egui::vec2(800.0, 600.0),
                )),
                events,
                ..Default::default()
            };
            let _ = ctx.run_ui(input, |ui| tool.graph_ui(ui));
            pressed_on_graph |= ctx.egui_is_using_pointer();
        }
        assert!(pressed_on_graph, "the click landed on the graph");
        assert!(!ctx.egui_wants_keyboard_input());
    }

    /// Two points on the built navmesh, from workload P's generator.
    fn two_points(nav: &NavMesh) -> ([f32; 3], [f32; 3]) {
        let query = NavMeshQuery::new(nav, SPAWN_QUERY_NODES).unwrap();
        let pairs = generate_path_pairs_seeded(&query, 1, DEFAULT_SEED);
        let pair = &pairs.pairs[0];
        (pair.start_pos, pair.end_pos)
    }

    fn positions(tool: &mut CrowdTool) -> Vec<[f32; 3]> {
        tool.crowds_mut(|_, crowds| {
            crowds
                .iter()
                .flat_map(|c| c.active_agents().filter_map(|i| c.agent(i).map(|a| a.npos)))
                .collect()
        })
        .unwrap_or_default()
    }

    #[test]
    fn agents_are_added_sent_selected_and_removed() {
        let mut app = build_app();
        settle(&mut app);
        let state = app.world().resource::<BuildState>();
        let shown = ShownNavMesh::default();
        let ctx = tool_context(state, &shown, &PointerHit::default());
        let (a, b) = two_points(ctx.nav_mesh.expect("a navmesh"));
        let mut tool = CrowdTool::default();
        let mut out = ToolOutput::default();
        tool.update_state(&ctx, 0.0, &mut out);
        tool.on_click(&ctx, hit(a), false, &mut out);
        tool.on_click(&ctx, hit([a[0] + 1.5, a[1], a[2]]), false, &mut out);
        assert_eq!(tool.agent_count(), 2, "{:?}", tool.problem);
        tool.mode = CrowdMode::MoveTarget;
        tool.on_click(&ctx, hit(b), false, &mut out);
        assert!(tool.target.is_some());
        let before = positions(&mut tool);
        for _ in 0..30 {
            tool.update_state(&ctx, UPDATE_DT, &mut out);
        }
        let after = positions(&mut tool);
        assert_ne!(before, after, "the agents walk while running");
        assert_eq!(tool.history.len(), 30, "one timed update per 1/60 s");
        assert!(out.state_overlay.take().is_some_and(|d| !d.is_empty()));

        tool.mode = CrowdMode::SelectAgent;
        let first = positions(&mut tool)[0];
        tool.on_click(&ctx, hit(first), false, &mut out);
        assert!(tool.selected.is_some());
        // A click on the body from a low camera on the far side from the other agent: the ray
        // meets the ground 3 m behind the agent, and the agent is picked (hitTestAgents).
        tool.selected = None;
        let [first_v, other] = [0, 1].map(|k| Vec3::from(positions(&mut tool)[k]));
        let away = (first_v - other).with_y(0.0).normalize();
        let body_click = Hit {
            point: first_v - away * 3.0,
            origin: first_v + away * 10.0 + Vec3::Y,
            triangle: None,
            distance: 13.0,
        };
        tool.on_click(&ctx, body_click, false, &mut out);
        let picked = tool.selected.and_then(|(c, i)| {
            tool.crowds_mut(|_, crowds| crowds[c].agent(i).map(|a| a.npos))
                .flatten()
        });
        assert_eq!(picked, Some(first_v.to_array()));
        tool.settings.draw = CrowdDrawOptions {
            show_corners: true,
            show_collision_segments: true,
            show_path: true,
            show_velocity_samples: true,
            show_path_optimization: true,
            show_neighbours: true,
            show_grid: true,
            show_nodes: true,
            show_detail_all: false,
        };
        tool.update(&ctx, &ButtonInput::default(), &mut out);
        tool.step(UPDATE_DT);
        assert!(
            tool.debug
                .vod
                .as_ref()
                .is_some_and(|v| !v.samples().is_empty()),
            "the selected agent's velocity samples are recorded"
        );
        let (drawing, _) = tool.drawing(&ctx);
        assert!(!drawing.is_empty());

        tool.mode = CrowdMode::CreateAgents;
        let first = positions(&mut tool)[0];
        tool.on_click(&ctx, hit(first), true, &mut out);
        assert_eq!(tool.agent_count(), 1);
        assert_eq!(
            tool.selected, None,
            "removing the selected agent deselects it"
        );
        tool.on_click(&ctx, hit([1e6, 0.0, 1e6]), true, &mut out);
        assert_eq!(tool.agent_count(), 1);
        assert!(tool.problem.is_some(), "a click on no agent says so");
    }

    #[test]
    fn space_pauses_and_one_steps() {
        let mut app = build_app();
        settle(&mut app);
        let state = app.world().resource::<BuildState>();
        let shown = ShownNavMesh::default();
        let ctx = tool_context(state, &shown, &PointerHit::default());
        let mut tool = CrowdTool::default();
        let mut out = ToolOutput::default();
        tool.update_state(&ctx, 0.0, &mut out);
        let mut keys = ButtonInput::default();
        keys.press(KeyCode::Space);
        tool.update(&ctx, &keys, &mut out);
        assert!(!tool.running);
        tool.update_state(&ctx, 1.0, &mut out);
        assert!(tool.history.is_empty(), "paused: no update");
        let mut keys = ButtonInput::default();
        keys.press(KeyCode::Digit1);
        tool.update(&ctx, &keys, &mut out);
        assert_eq!(tool.history.len(), 1, "1 takes one step");
        tool.running = true;
        tool.update_state(&ctx, 10.0, &mut out);
        assert_eq!(
            tool.history.len(),
            1 + MAX_UPDATES_PER_FRAME,
            "a long frame catches up a bounded number of updates"
        );
        tool.update_state(&ctx, f32::NAN, &mut out);
        tool.update_state(&ctx, -1.0, &mut out);
    }

    #[test]
    fn profiling_spawns_many_agents_in_several_crowds() {
        let mut app = build_app();
        settle(&mut app);
        let state = app.world().resource::<BuildState>();
        let shown = ShownNavMesh::default();
        let ctx = tool_context(state, &shown, &PointerHit::default());
        let mut tool = CrowdTool::default();
        tool.profile.parallel = true;
        tool.spawn_random(&ctx, 300, 3);
        assert_eq!(tool.agent_count(), 300, "{:?}", tool.problem);
        for _ in 0..5 {
            tool.step(UPDATE_DT);
        }
        assert_eq!(tool.history.len(), 5);
        tool.spawn_random(&ctx, usize::MAX, 0);
        assert_eq!(
            tool.agent_count(),
            PROFILE_MAX_AGENTS,
            "clamped, not refused"
        );
        tool.clear_agents();
        assert_eq!(tool.agent_count(), 0);
    }

    #[test]
    fn toggled_polygons_and_new_navmeshes_keep_the_agents() {
        let mut app = build_app();
        settle(&mut app);
        let state = app.world().resource::<BuildState>();
        let mut shown = ShownNavMesh::default();
        let ctx = tool_context(state, &shown, &PointerHit::default());
        let (a, b) = two_points(ctx.nav_mesh.unwrap());
        let mut tool = CrowdTool::default();
        let mut out = ToolOutput::default();
        tool.update_state(&ctx, 0.0, &mut out);
        tool.on_click(&ctx, hit(a), false, &mut out);
        tool.mode = CrowdMode::MoveTarget;
        tool.on_click(&ctx, hit(b), false, &mut out);
        tool.mode = CrowdMode::TogglePolys;
        tool.on_click(&ctx, hit(b), false, &mut out);
        let edited = out.edited_nav_mesh.take().expect("a polygon was toggled");
        shown.show_edited(edited);
        let ctx = tool_context(state, &shown, &PointerHit::default());
        for _ in 0..60 {
            tool.update_state(&ctx, UPDATE_DT, &mut out);
        }
        assert_eq!(
            tool.agent_count(),
            1,
            "the agent moved onto the edited navmesh"
        );
        tool.on_click(&ctx, hit(b), false, &mut out);
        assert!(
            out.edited_nav_mesh.is_some(),
            "and the polygon can be enabled again"
        );
    }

    #[test]
    fn crowds_walk_on_tile_mesh_and_on_a_navmesh_obstacles_change() {
        use crate::viewer::build::{BuildRequest, ObstacleEdit, Sample};
        let mut app = build_app();
        for sample in [Sample::TileMesh, Sample::TempObstacles] {
            app.world_mut().write_message(BuildRequest::Sample(sample));
            settle(&mut app);
            let shown = ShownNavMesh::default();
            let mut tool = CrowdTool::default();
            let mut out = ToolOutput::default();
            {
                let state = app.world().resource::<BuildState>();
                let ctx = tool_context(state, &shown, &PointerHit::default());
                tool.spawn_random(&ctx, 50, 2);
            }
            assert_eq!(tool.agent_count(), 50, "{sample:?}: {:?}", tool.problem);
            let first = positions(&mut tool)[0];
            if sample == Sample::TempObstacles {
                app.world_mut()
                    .write_message(BuildRequest::Obstacle(ObstacleEdit::Add(first)));
            }
            let before = positions(&mut tool);
            for _ in 0..60 {
                app.update();
                let state = app.world().resource::<BuildState>();
                let ctx = tool_context(state, &shown, &PointerHit::default());
                tool.update_state(&ctx, UPDATE_DT, &mut out);
            }
            assert_eq!(tool.agent_count(), 50, "{sample:?}: every agent kept");
            assert_ne!(positions(&mut tool), before, "{sample:?}: the agents walk");
            if sample == Sample::TempObstacles {
                let state = app.world().resource::<BuildState>();
                let view = state.temp_obstacles.as_ref().unwrap();
                assert!(view.build.obstacles.up_to_date(), "the obstacle was carved");
            }
        }
    }
}
