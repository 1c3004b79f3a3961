//! The Test Navmesh tool (RecastDemo's NavMeshTesterTool): Shift+click sets the start, click
//! the end, and the chosen mode's Detour query runs on the navmesh on screen with RecastDemo's
//! drawing. Pathfind Sliced advances one search iteration per frame with the search nodes
//! visible (Navmesh Nodes mode); Space steps the follow walk. Beyond RecastDemo: editable area
//! costs, a read-out of path length, polygon count and query time, and a reproducible random
//! source for the random points.

use std::time::Instant;

use bevy::prelude::*;
use bevy_egui::egui;

use super::framework::{QueryNodes, Tool, ToolAppExt, ToolContext, ToolOutput};
use crate::demo::tester::{MAX_POLYS, MAX_SMOOTH, POLY_PICK_EXT, QUERY_NODES};
use crate::demo::tester::{clamped_end, demo_query_shape, straight_path, straight_path_of_at_most};
use crate::viewer::draw::parse_label;
use crate::viewer::labels::Label;
use crate::viewer::picking::Hit;
use navlab::bake::sample_areas::{area, flags, sample_area_flags};
use navlab::debug_draw::detour::{agent, append_nav_mesh_poly};
use navlab::debug_draw::{
    DebugDraw, LineBatch, PointBatch, Rgba, append_arc, append_circle, darken_col, rgba,
};
use navlab::detour::common::{Vec3 as DtVec3, distance_pt_seg_sqr_2d, sqr, vlerp};
use navlab::detour::query::path_follow::{MAX_STEER_POINTS, PathFollower};
use navlab::detour::query::{
    FINDPATH_ANY_ANGLE, NavMeshQuery, NeighbourPoly, QueryFilter, STRAIGHTPATH_ALL_CROSSINGS,
    STRAIGHTPATH_AREA_CROSSINGS, STRAIGHTPATH_END, STRAIGHTPATH_OFFMESH_CONNECTION,
    STRAIGHTPATH_START, Status, StraightPathPoint, VisitedPoly, WallSegment,
};
use navlab::detour::{NavMesh, PolyRef};

/// Registers the Test Navmesh tool.
pub struct TestNavMeshToolPlugin;

impl Plugin for TestNavMeshToolPlugin {
    fn build(&self, app: &mut App) {
        let mut tool = TestNavMeshTool::default();
        if let Some(preset) = app.world().get_resource::<TesterPreset>() {
            tool.mode = preset.mode;
            tool.start = preset.start;
            tool.end = preset.end;
        }
        app.register_tool(tool);
    }
}

/// The tool's mode and end points at start-up (`navlab view --test-mode ... --test-start
/// ... --test-end ...`), for screenshots and bug reports.
#[derive(Resource, Clone, Debug, Default, PartialEq)]
pub struct TesterPreset {
    pub mode: TesterMode,
    pub start: Option<[f32; 3]>,
    pub end: Option<[f32; 3]>,
}

/// The tool's modes, in RecastDemo's order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TesterMode {
    #[default]
    PathfindFollow,
    PathfindStraight,
    PathfindSliced,
    DistanceToWall,
    Raycast,
    FindPolysInCircle,
    FindPolysInShape,
    FindLocalNeighbourhood,
}

impl std::str::FromStr for TesterMode {
    type Err = String;

    /// Accepts the label in any case, with spaces, dashes or underscores.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse_label(s, &TesterMode::ALL, TesterMode::label, "test mode")
    }
}

impl TesterMode {
    pub const ALL: [TesterMode; 8] = [
        TesterMode::PathfindFollow,
        TesterMode::PathfindStraight,
        TesterMode::PathfindSliced,
        TesterMode::DistanceToWall,
        TesterMode::Raycast,
        TesterMode::FindPolysInCircle,
        TesterMode::FindPolysInShape,
        TesterMode::FindLocalNeighbourhood,
    ];

    /// RecastDemo's radio-button label.
    pub fn label(self) -> &'static str {
        match self {
            TesterMode::PathfindFollow => "Pathfind Follow",
            TesterMode::PathfindStraight => "Pathfind Straight",
            TesterMode::PathfindSliced => "Pathfind Sliced",
            TesterMode::DistanceToWall => "Distance to Wall",
            TesterMode::Raycast => "Raycast",
            TesterMode::FindPolysInCircle => "Find Polys in Circle",
            TesterMode::FindPolysInShape => "Find Polys in Shape",
            TesterMode::FindLocalNeighbourhood => "Find Local Neighborhood",
        }
    }
}

/// RecastDemo's sample areas with the costs its tester starts from.
const AREAS: [(&str, u8, f32); 6] = [
    ("Ground", area::GROUND, 1.0),
    ("Water", area::WATER, 10.0),
    ("Road", area::ROAD, 1.0),
    ("Door", area::DOOR, 1.0),
    ("Grass", area::GRASS, 2.0),
    ("Jump", area::JUMP, 1.5),
];

/// The flags the tester's checkboxes toggle.
const FLAG_NAMES: [(&str, u16); 5] = [
    ("Walk", flags::WALK),
    ("Swim", flags::SWIM),
    ("Door", flags::DOOR),
    ("Jump", flags::JUMP),
    ("Disabled", flags::DISABLED),
];

/// Random points the "Random Points" buttons make.
const MAX_RANDOM_POINTS: usize = 64;
/// Radius of the distance-to-wall search.
const WALL_SEARCH_RADIUS: f32 = 100.0;
/// Wall segments fetched per polygon when drawing the neighbourhood.
const MAX_WALL_SEGMENTS: usize = 24;

const START_COLOR: Rgba = rgba(128, 25, 0, 192);
const END_COLOR: Rgba = rgba(51, 102, 0, 129);
const PATH_COLOR: Rgba = rgba(0, 0, 0, 64);
const RESULT_COLOR: Rgba = rgba(64, 16, 0, 220);
/// A path's lines and corners: brighter and wider than RecastDemo's (dark brown or black, 2 or
/// 3 px), which vanish over the darkened path polygons.
const PATH_LINE_COLOR: Rgba = rgba(255, 230, 40, 255);
/// A straight path's off-mesh connection segments and corners.
const OFF_MESH_LINE_COLOR: Rgba = rgba(255, 128, 0, 255);
const PATH_LINE_WIDTH: f32 = 3.0;

/// How far a query may search and what it may return: RecastDemo's buffers, or on a world
/// (a navmesh drawn in blocks, `draw::world`) room for a path across kilometres of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct QueryLimits {
    nodes: usize,
    polys: usize,
    smooth: usize,
}

impl QueryLimits {
    const DEMO: QueryLimits = QueryLimits {
        nodes: QUERY_NODES,
        polys: MAX_POLYS,
        smooth: MAX_SMOOTH,
    };
    /// The node pool's most (16-bit node indices), and paths of that many polygons.
    const WORLD: QueryLimits = QueryLimits {
        nodes: 65_535,
        polys: 65_535,
        smooth: 65_535,
    };

    fn for_context(ctx: &ToolContext) -> QueryLimits {
        if ctx.shows_world() {
            QueryLimits::WORLD
        } else {
            QueryLimits::DEMO
        }
    }
}

/// What the last query found, for drawing and the read-out.
#[derive(Default)]
struct Outcome {
    start_ref: PolyRef,
    end_ref: PolyRef,
    status: Option<Status>,
    /// The path, or the polygons a search around the start found.
    polys: Vec<PolyRef>,
    /// Per polygon of `polys`, the one it was reached from (searches around the start).
    parents: Vec<PolyRef>,
    smooth_path: Vec<DtVec3>,
    straight_path: Vec<StraightPathPoint>,
    /// Raycast: where the ray stopped, the wall normal, whether it hit.
    ray: Option<(DtVec3, DtVec3, bool)>,
    /// Distance to wall: the distance and the nearest wall point.
    wall: Option<(f32, DtVec3)>,
    query_shape: Option<[DtVec3; 4]>,
    /// Wall segments of the neighbourhood's polygons.
    walls: Vec<WallSegment>,
    micros: f64,
}

/// A sliced search in progress: it is replayed from the start each frame, one iteration
/// further, so no query object has to outlive the frame.
#[derive(Clone, Copy)]
struct SlicedSearch {
    iterations: usize,
    done: bool,
}

/// A xorshift generator: random buttons give the same points on every run.
struct Xorshift(u32);

impl Xorshift {
    fn next_f32(&mut self) -> f32 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.0 = x;
        (x >> 8) as f32 / 16_777_216.0
    }
}

pub struct TestNavMeshTool {
    mode: TesterMode,
    straight_options: u32,
    start: Option<DtVec3>,
    end: Option<DtVec3>,
    include_flags: u16,
    exclude_flags: u16,
    area_costs: [f32; AREAS.len()],
    nav_mesh_version: Option<u64>,
    outcome: Outcome,
    sliced: Option<SlicedSearch>,
    /// The follow walk being stepped with Space.
    stepping: Option<PathFollower>,
    random_points: Vec<DtVec3>,
    random_around_start: bool,
    rng: Xorshift,
    /// Label every polygon with the cost of its area.
    show_costs: bool,
}

impl Default for TestNavMeshTool {
    fn default() -> Self {
        Self {
            mode: TesterMode::default(),
            straight_options: 0,
            start: None,
            end: None,
            include_flags: flags::ALL ^ flags::DISABLED,
            exclude_flags: 0,
            area_costs: AREAS.map(|(_, _, cost)| cost),
            nav_mesh_version: None,
            outcome: Outcome::default(),
            sliced: None,
            stepping: None,
            random_points: Vec::new(),
            random_around_start: false,
            rng: Xorshift(0x9e37_79b9),
            show_costs: false,
        }
    }
}

/// The agent the shapes are drawn for.
#[derive(Clone, Copy)]
struct AgentSize {
    radius: f32,
    height: f32,
    climb: f32,
}

fn agent_size(ctx: &ToolContext) -> AgentSize {
    let s = &ctx.state.settings;
    AgentSize {
        radius: s.agent_radius,
        height: s.agent_height,
        climb: s.agent_max_climb,
    }
}

impl TestNavMeshTool {
    fn filter(&self) -> QueryFilter {
        let mut filter = QueryFilter::with_flags(self.include_flags, self.exclude_flags);
        for ((_, id, _), cost) in AREAS.iter().zip(self.area_costs) {
            filter.set_area_cost(*id, cost);
        }
        filter
    }

    /// Runs the mode's queries again (RecastDemo's `recalc`) and redraws.
    fn recalc(&mut self, ctx: &ToolContext, out: &mut ToolOutput) {
        self.nav_mesh_version = Some(ctx.nav_mesh_version);
        self.stepping = None;
        self.sliced = None;
        self.outcome = Outcome::default();
        let Some(nav) = ctx.nav_mesh else {
            out.overlay = Some(self.drawing(None, agent_size(ctx)));
            out.query_nodes = Some(QueryNodes::default());
            out.labels = Some(Vec::new());
            return;
        };
        let limits = QueryLimits::for_context(ctx);
        let Ok(mut query) = NavMeshQuery::new(nav, limits.nodes) else {
            return;
        };
        let filter = self.filter();
        let started = Instant::now();
        let nearest = |query: &NavMeshQuery, p: Option<DtVec3>| {
            p.map_or(0, |p| {
                query
                    .find_nearest_poly(&p, &POLY_PICK_EXT, &filter)
                    .1
                    .poly_ref
            })
        };
        let mut outcome = Outcome {
            start_ref: nearest(&query, self.start),
            end_ref: nearest(&query, self.end),
            ..Outcome::default()
        };
        let agent = agent_size(ctx);
        match (self.start, self.end) {
            (Some(spos), Some(epos)) if outcome.start_ref != 0 => {
                self.run_mode(
                    &mut query,
                    &filter,
                    (spos, epos),
                    agent,
                    limits,
                    &mut outcome,
                );
            }
            (Some(spos), _) if outcome.start_ref != 0 => {
                self.run_start_only_mode(&mut query, &filter, spos, agent, &mut outcome);
            }
            _ => {}
        }
        outcome.micros = started.elapsed().as_secs_f64() * 1e6;
        self.outcome = outcome;
        if self.mode == TesterMode::PathfindSliced && self.outcome.status.is_some() {
            self.sliced = Some(SlicedSearch {
                iterations: 0,
                done: false,
            });
        }
        out.query_nodes = Some(QueryNodes::of(&query));
        out.overlay = Some(self.drawing(Some(nav), agent));
        out.labels = Some(self.cost_labels(nav, &filter));
    }

    /// The filter's cost of each polygon's area at the polygon's centre, when asked for.
    fn cost_labels(&self, nav: &NavMesh, filter: &QueryFilter) -> Vec<Label> {
        if !self.show_costs {
            return Vec::new();
        }
        let mut labels = Vec::new();
        for (tile_ref, tile) in nav.tiles() {
            for (i, poly) in tile.polys().iter().enumerate() {
                if poly.is_off_mesh_connection() {
                    continue;
                }
                let c = poly_center(nav, tile_ref | i as PolyRef);
                labels.push(Label {
                    position: Vec3::new(c[0], c[1] + 0.2, c[2]),
                    text: format!("{}", filter.area_cost(poly.area())),
                    color: egui::Color32::from_black_alpha(200),
                });
            }
        }
        labels
    }

    /// The modes that need both ends.
    fn run_mode(
        &self,
        query: &mut NavMeshQuery,
        filter: &QueryFilter,
        (spos, epos): (DtVec3, DtVec3),
        agent: AgentSize,
        limits: QueryLimits,
        outcome: &mut Outcome,
    ) {
        let (start_ref, end_ref) = (outcome.start_ref, outcome.end_ref);
        let mut path = [0 as PolyRef; MAX_POLYS];
        match self.mode {
            TesterMode::PathfindFollow | TesterMode::PathfindStraight if end_ref != 0 => {
                let mut path = vec![0 as PolyRef; limits.polys];
                let (status, n) =
                    query.find_path(start_ref, end_ref, &spos, &epos, filter, &mut path);
                outcome.status = Some(status);
                outcome.polys = path[..n].to_vec();
                if n == 0 {
                    return;
                }
                if self.mode == TesterMode::PathfindFollow {
                    let mut walk = PathFollower::new(query, &spos, &epos, &path[..n]);
                    while walk.step(query, filter, limits.smooth) {}
                    outcome.smooth_path = walk.result.smooth_path;
                } else {
                    let (end, _) = clamped_end(query, &path[..n], end_ref, &epos);
                    let options = self.straight_options;
                    outcome.straight_path = straight_path_of_at_most(
                        query,
                        &spos,
                        &end,
                        &path[..n],
                        options,
                        limits.polys,
                    )
                    .1;
                }
            }
            TesterMode::PathfindSliced if end_ref != 0 => {
                let status = query.init_sliced_find_path(
                    start_ref,
                    end_ref,
                    &spos,
                    &epos,
                    filter,
                    FINDPATH_ANY_ANGLE,
                );
                outcome.status = Some(status);
            }
            TesterMode::Raycast => {
                let (status, hit) = query.raycast(start_ref, &spos, &epos, filter, &mut path);
                outcome.status = Some(status);
                let n = hit.path_count;
                outcome.polys = path[..n].to_vec();
                let hit_result = hit.t <= 1.0;
                let mut hit_pos = if hit_result {
                    vlerp(&spos, &epos, hit.t)
                } else {
                    epos
                };
                if n > 0 {
                    hit_pos[1] = query.get_poly_height(path[n - 1], &hit_pos).1;
                }
                outcome.ray = Some((hit_pos, hit.hit_normal, hit_result));
            }
            TesterMode::FindPolysInCircle => {
                let (dx, dz) = (epos[0] - spos[0], epos[2] - spos[2]);
                let radius = (dx * dx + dz * dz).sqrt();
                let mut found = [VisitedPoly::default(); MAX_POLYS];
                let (status, n) =
                    query.find_polys_around_circle(start_ref, &spos, radius, filter, &mut found);
                outcome.status = Some(status);
                outcome.polys = found[..n].iter().map(|v| v.poly_ref).collect();
                outcome.parents = found[..n].iter().map(|v| v.parent_ref).collect();
            }
            TesterMode::FindPolysInShape => {
                let shape = demo_query_shape(&spos, &epos, agent.height);
                let mut found = [VisitedPoly::default(); MAX_POLYS];
                let (status, n) =
                    query.find_polys_around_shape(start_ref, &shape, filter, &mut found);
                outcome.status = Some(status);
                outcome.polys = found[..n].iter().map(|v| v.poly_ref).collect();
                outcome.parents = found[..n].iter().map(|v| v.parent_ref).collect();
                outcome.query_shape = Some(shape);
            }
            _ => self.run_start_only_mode(query, filter, spos, agent, outcome),
        }
    }

    /// The modes that need only the start.
    fn run_start_only_mode(
        &self,
        query: &mut NavMeshQuery,
        filter: &QueryFilter,
        spos: DtVec3,
        agent: AgentSize,
        outcome: &mut Outcome,
    ) {
        let start_ref = outcome.start_ref;
        match self.mode {
            TesterMode::DistanceToWall => {
                let (status, wall) =
                    query.find_distance_to_wall(start_ref, &spos, WALL_SEARCH_RADIUS, filter);
                outcome.status = Some(status);
                outcome.wall = Some((wall.distance, wall.position));
            }
            TesterMode::FindLocalNeighbourhood => {
                let radius = neighbourhood_radius(agent);
                let mut found = [NeighbourPoly::default(); MAX_POLYS];
                let (status, n) =
                    query.find_local_neighbourhood(start_ref, &spos, radius, filter, &mut found);
                outcome.status = Some(status);
                outcome.polys = found[..n].iter().map(|p| p.poly_ref).collect();
                outcome.parents = found[..n].iter().map(|p| p.parent_ref).collect();
                for &poly in &outcome.polys {
                    let mut segments = [WallSegment::default(); MAX_WALL_SEGMENTS];
                    let (_, count) =
                        query.get_poly_wall_segments(poly, filter, true, &mut segments);
                    outcome.walls.extend(segments[..count].iter().filter(|s| {
                        distance_pt_seg_sqr_2d(&spos, &s.start, &s.end).0 <= sqr(radius)
                    }));
                }
            }
            _ => {}
        }
    }

    /// One more iteration of the sliced search, replayed from its start (RecastDemo's
    /// `update`): finalised with its straight path once the search is done.
    fn advance_sliced(&mut self, ctx: &ToolContext, out: &mut ToolOutput) {
        let (Some(nav), Some(mut search), Some(spos), Some(epos)) =
            (ctx.nav_mesh, self.sliced, self.start, self.end)
        else {
            return;
        };
        if search.done {
            return;
        }
        let Ok(mut query) = NavMeshQuery::new(nav, QUERY_NODES) else {
            return;
        };
        let filter = self.filter();
        let (start_ref, end_ref) = (self.outcome.start_ref, self.outcome.end_ref);
        let started = Instant::now();
        let mut status = query.init_sliced_find_path(
            start_ref,
            end_ref,
            &spos,
            &epos,
            &filter,
            FINDPATH_ANY_ANGLE,
        );
        search.iterations += 1;
        for _ in 0..search.iterations {
            if !status.is_in_progress() {
                break;
            }
            status = query.update_sliced_find_path(&filter, 1).0;
        }
        self.outcome.status = Some(status);
        if !status.is_in_progress() {
            search.done = true;
            if status.is_success() {
                let mut path = [0 as PolyRef; MAX_POLYS];
                let (_, n) = query.finalize_sliced_find_path(&filter, &mut path);
                self.outcome.polys = path[..n].to_vec();
                if n > 0 {
                    let (end, _) = clamped_end(&query, &path[..n], end_ref, &epos);
                    self.outcome.straight_path =
                        straight_path(&query, &spos, &end, &path[..n], STRAIGHTPATH_ALL_CROSSINGS)
                            .1;
                }
            }
        }
        self.outcome.micros = started.elapsed().as_secs_f64() * 1e6;
        self.sliced = Some(search);
        out.query_nodes = Some(QueryNodes::of(&query));
        out.overlay = Some(self.drawing(Some(nav), agent_size(ctx)));
    }

    /// Space in follow mode: one step of the walk, drawn with its steer target.
    fn step_follow(&mut self, ctx: &ToolContext, out: &mut ToolOutput) {
        let (Some(nav), Some(spos), Some(epos)) = (ctx.nav_mesh, self.start, self.end) else {
            return;
        };
        if self.mode != TesterMode::PathfindFollow || self.outcome.polys.is_empty() {
            return;
        }
        let Ok(mut query) = NavMeshQuery::new(nav, QUERY_NODES) else {
            return;
        };
        let filter = self.filter();
        let walk = self
            .stepping
            .get_or_insert_with(|| PathFollower::new(&query, &spos, &epos, &self.outcome.polys));
        walk.step(&mut query, &filter, MAX_SMOOTH);
        out.overlay = Some(self.drawing(Some(nav), agent_size(ctx)));
    }

    /// Sets a random start or end on the navmesh.
    fn random_end(&mut self, ctx: &ToolContext, start: bool, out: &mut ToolOutput) {
        let Some(nav) = ctx.nav_mesh else { return };
        let Ok(query) = NavMeshQuery::new(nav, QUERY_NODES) else {
            return;
        };
        let filter = self.filter();
        let rng = &mut self.rng;
        let (status, _, point) = query.find_random_point(&filter, &mut || rng.next_f32());
        if status.is_success() {
            if start {
                self.start = Some(point);
            } else {
                self.end = Some(point);
            }
            self.recalc(ctx, out);
        }
    }

    /// RecastDemo's random point buttons: anywhere, or around the start.
    fn random_points(&mut self, ctx: &ToolContext, around_start: bool, out: &mut ToolOutput) {
        let Some(nav) = ctx.nav_mesh else { return };
        let Ok(mut query) = NavMeshQuery::new(nav, QUERY_NODES) else {
            return;
        };
        let filter = self.filter();
        let radius = agent_size(ctx).radius * 30.0;
        self.random_points.clear();
        self.random_around_start = around_start;
        let rng = &mut self.rng;
        for _ in 0..MAX_RANDOM_POINTS {
            let mut rand = || rng.next_f32();
            let (status, _, point) = match (around_start, self.start) {
                (true, Some(spos)) => query.find_random_point_around_circle(
                    self.outcome.start_ref,
                    &spos,
                    radius,
                    &filter,
                    &mut rand,
                ),
                _ => query.find_random_point(&filter, &mut rand),
            };
            if status.is_success() {
                self.random_points.push(point);
            }
        }
        out.overlay = Some(self.drawing(Some(nav), agent_size(ctx)));
    }

    /// The overlay of RecastDemo's `render` for the current mode and results.
    fn drawing(&self, nav: Option<&NavMesh>, agent: AgentSize) -> DebugDraw {
        let mut drawing = DebugDraw {
            lines: vec![LineBatch::new(2.0)],
            ..Default::default()
        };
        if let Some(p) = self.start {
            drawing.append(agent_drawing(p, agent, START_COLOR));
        }
        if let Some(p) = self.end {
            drawing.append(agent_drawing(p, agent, END_COLOR));
        }
        if let Some(nav) = nav {
            self.draw_results(&mut drawing, nav, agent);
        }
        if !self.random_points.is_empty() {
            let mut points = PointBatch::new(6.0);
            for p in &self.random_points {
                points.point([p[0], p[1] + 0.1, p[2]], rgba(220, 32, 16, 192));
            }
            drawing.points.push(points);
            if let (true, Some(p)) = (self.random_around_start, self.start) {
                let mut circle = LineBatch::new(2.0);
                append_circle(
                    &mut circle,
                    lifted(p, agent.height / 2.0),
                    agent.radius * 30.0,
                    RESULT_COLOR,
                );
                drawing.lines.push(circle);
            }
        }
        drawing
    }

    fn draw_results(&self, drawing: &mut DebugDraw, nav: &NavMesh, agent: AgentSize) {
        let o = &self.outcome;
        let highlight = |drawing: &mut DebugDraw, poly: PolyRef, color: Rgba| {
            append_nav_mesh_poly(drawing, nav, poly, color);
        };
        let path_polys = |drawing: &mut DebugDraw| {
            highlight(drawing, o.start_ref, START_COLOR);
            highlight(drawing, o.end_ref, END_COLOR);
            for &poly in &o.polys {
                if poly != o.start_ref && poly != o.end_ref {
                    highlight(drawing, poly, PATH_COLOR);
                }
            }
        };
        match self.mode {
            TesterMode::PathfindFollow => {
                path_polys(drawing);
                let mut smooth = LineBatch::new(PATH_LINE_WIDTH);
                for pair in o.smooth_path.chunks_exact(2) {
                    smooth.segment(lifted(pair[0], 0.1), lifted(pair[1], 0.1), PATH_LINE_COLOR);
                }
                drawing.lines.push(smooth);
                if let Some(walk) = &self.stepping {
                    self.draw_step(drawing, nav, walk);
                }
            }
            TesterMode::PathfindStraight | TesterMode::PathfindSliced => {
                path_polys(drawing);
                draw_straight_path(drawing, &o.straight_path);
            }
            TesterMode::Raycast => {
                highlight(drawing, o.start_ref, START_COLOR);
                let (Some(spos), Some((hit_pos, normal, hit))) = (self.start, o.ray) else {
                    return;
                };
                for &poly in o.polys.iter().skip(1) {
                    highlight(drawing, poly, PATH_COLOR);
                }
                let color = if hit {
                    RESULT_COLOR
                } else {
                    rgba(240, 240, 240, 220)
                };
                let mut lines = LineBatch::new(2.0);
                lines.segment(lifted(spos, 0.4), lifted(hit_pos, 0.4), color);
                let mut points = PointBatch::new(4.0);
                points.point(lifted(spos, 0.4), color);
                points.point(lifted(hit_pos, 0.4), color);
                if hit {
                    let tip = [
                        hit_pos[0] + normal[0] * agent.radius,
                        hit_pos[1] + 0.4 + normal[1] * agent.radius,
                        hit_pos[2] + normal[2] * agent.radius,
                    ];
                    lines.segment(lifted(hit_pos, 0.4), tip, rgba(0, 0, 0, 128));
                }
                drawing.lines.push(lines);
                drawing.points.push(points);
            }
            TesterMode::DistanceToWall => {
                highlight(drawing, o.start_ref, START_COLOR);
                let (Some(spos), Some((distance, hit_pos))) = (self.start, o.wall) else {
                    return;
                };
                let mut circle = LineBatch::new(2.0);
                append_circle(
                    &mut circle,
                    lifted(spos, agent.height / 2.0),
                    distance,
                    RESULT_COLOR,
                );
                let mut marker = LineBatch::new(3.0);
                marker.segment(
                    lifted(hit_pos, 0.02),
                    lifted(hit_pos, agent.height),
                    rgba(0, 0, 0, 192),
                );
                drawing.lines.extend([circle, marker]);
            }
            TesterMode::FindPolysInCircle
            | TesterMode::FindPolysInShape
            | TesterMode::FindLocalNeighbourhood => {
                self.draw_search_tree(drawing, nav);
                let Some(spos) = self.start else { return };
                let mut outline = LineBatch::new(2.0);
                match self.mode {
                    TesterMode::FindPolysInCircle => {
                        if let Some(epos) = self.end {
                            let (dx, dz) = (epos[0] - spos[0], epos[2] - spos[2]);
                            let radius = (dx * dx + dz * dz).sqrt();
                            append_circle(
                                &mut outline,
                                lifted(spos, agent.height / 2.0),
                                radius,
                                RESULT_COLOR,
                            );
                        }
                    }
                    TesterMode::FindPolysInShape => {
                        if let Some(shape) = o.query_shape {
                            for i in 0..4 {
                                outline.segment(shape[(i + 3) % 4], shape[i], RESULT_COLOR);
                            }
                        }
                    }
                    _ => {
                        append_circle(
                            &mut outline,
                            lifted(spos, agent.height / 2.0),
                            neighbourhood_radius(agent),
                            RESULT_COLOR,
                        );
                        drawing.lines.push(wall_segments(&o.walls, spos, agent));
                    }
                }
                drawing.lines.push(outline);
            }
        }
    }

    /// The polygons a search around the start found, with arcs from each to its parent.
    fn draw_search_tree(&self, drawing: &mut DebugDraw, nav: &NavMesh) {
        let mut arcs = LineBatch::new(2.0);
        for (&poly, &parent) in self.outcome.polys.iter().zip(&self.outcome.parents) {
            append_nav_mesh_poly(drawing, nav, poly, PATH_COLOR);
            if parent != 0 {
                let (from, to) = (poly_center(nav, parent), poly_center(nav, poly));
                append_arc(&mut arcs, from, to, 0.25, 0.0, 0.4, rgba(0, 0, 0, 128));
            }
        }
        drawing.lines.push(arcs);
    }

    /// The follow walk's last step: the corridor's first polygon, the previous and current
    /// positions, the steer target and the corners looked at.
    fn draw_step(&self, drawing: &mut DebugDraw, nav: &NavMesh, walk: &PathFollower) {
        if let Some(&first) = walk.corridor().first() {
            append_nav_mesh_poly(drawing, nav, first, rgba(255, 255, 255, 128));
        }
        let prev_color = rgba(255, 192, 0, 220);
        let current_color = rgba(255, 255, 255, 220);
        let steer_color = rgba(0, 192, 255, 220);
        let (prev, current) = (walk.previous_position, walk.position);
        let mut lines = LineBatch::new(1.0);
        lines.segment(lifted(prev, -0.3), lifted(prev, 0.3), prev_color);
        lines.segment(lifted(current, -0.3), lifted(current, 0.3), current_color);
        lines.segment(lifted(prev, 0.3), lifted(current, 0.3), prev_color);
        if let Some(steer) = walk.steer {
            lines.segment(lifted(prev, 0.3), lifted(steer.pos, 0.3), steer_color);
            let corners = &steer.points[..steer.point_count.min(MAX_STEER_POINTS)];
            for pair in corners.windows(2) {
                lines.segment(
                    lifted(pair[0], 0.2),
                    lifted(pair[1], 0.2),
                    darken_col(steer_color),
                );
            }
        }
        drawing.lines.push(lines);
    }

    /// Length of the path drawn, in metres.
    fn path_length(&self) -> f32 {
        let length = |points: &mut dyn Iterator<Item = DtVec3>| {
            let points: Vec<DtVec3> = points.collect();
            points
                .windows(2)
                .map(|w| Vec3::from(w[0]).distance(Vec3::from(w[1])))
                .sum()
        };
        match self.mode {
            TesterMode::PathfindFollow => length(&mut self.outcome.smooth_path.iter().copied()),
            _ => length(&mut self.outcome.straight_path.iter().map(|p| p.pos)),
        }
    }
}

fn neighbourhood_radius(agent: AgentSize) -> f32 {
    agent.radius * 20.0
}

fn lifted(p: DtVec3, dy: f32) -> [f32; 3] {
    [p[0], p[1] + dy, p[2]]
}

fn agent_drawing(p: DtVec3, size: AgentSize, color: Rgba) -> DebugDraw {
    agent(p, size.radius, size.height, size.climb, color)
}

/// The average of a polygon's vertices (the tester's `getPolyCenter`).
fn poly_center(nav: &NavMesh, poly: PolyRef) -> [f32; 3] {
    let Ok((tile, p)) = nav.tile_and_poly_by_ref(poly) else {
        return [0.0; 3];
    };
    let indices = p.vertex_indices();
    let mut center = [0.0f32; 3];
    for &i in indices {
        let v = tile.verts()[usize::from(i)];
        for k in 0..3 {
            center[k] += v[k];
        }
    }
    let s = 1.0 / indices.len().max(1) as f32;
    center.map(|c| c * s)
}

/// A straight path: segments coloured by crossing type, corners by start/end/off-mesh.
fn draw_straight_path(drawing: &mut DebugDraw, path: &[StraightPathPoint]) {
    let mut lines = LineBatch::new(PATH_LINE_WIDTH);
    let mut points = PointBatch::new(6.0);
    for pair in path.windows(2) {
        let color = if pair[0].flags & STRAIGHTPATH_OFFMESH_CONNECTION != 0 {
            OFF_MESH_LINE_COLOR
        } else {
            PATH_LINE_COLOR
        };
        lines.segment(lifted(pair[0].pos, 0.4), lifted(pair[1].pos, 0.4), color);
    }
    for p in path {
        let color = if p.flags & STRAIGHTPATH_START != 0 {
            START_COLOR
        } else if p.flags & STRAIGHTPATH_END != 0 {
            END_COLOR
        } else if p.flags & STRAIGHTPATH_OFFMESH_CONNECTION != 0 {
            OFF_MESH_LINE_COLOR
        } else {
            PATH_LINE_COLOR
        };
        points.point(lifted(p.pos, 0.4), color);
    }
    drawing.lines.push(lines);
    drawing.points.push(points);
}

/// The neighbourhood's walls as the tester draws them: portals faint, walls red with a tick
/// towards the inside (darker when facing away from the start).
fn wall_segments(walls: &[WallSegment], spos: DtVec3, agent: AgentSize) -> LineBatch {
    let mut lines = LineBatch::new(2.0);
    let up = |p: DtVec3| lifted(p, agent.climb);
    for s in walls {
        if s.neighbour != 0 {
            lines.segment(up(s.start), up(s.end), rgba(255, 255, 255, 32));
            continue;
        }
        let delta = Vec3::from(s.end) - Vec3::from(s.start);
        let mid = Vec3::from(s.start) + delta * 0.5;
        let normal = Vec3::new(delta.z, 0.0, -delta.x).normalize_or_zero();
        let tick = mid + normal * agent.radius * 0.5;
        let facing_away = tri_area_2d(spos, s.start, s.end) < 0.0;
        let color = if facing_away {
            rgba(96, 32, 16, 192)
        } else {
            rgba(192, 32, 16, 192)
        };
        lines.segment(up(mid.to_array()), up(tick.to_array()), color);
        lines.segment(up(s.start), up(s.end), color);
    }
    lines
}

/// Twice the signed xz area of the triangle (`dtTriArea2D`).
fn tri_area_2d(a: DtVec3, b: DtVec3, c: DtVec3) -> f32 {
    let (abx, abz) = (b[0] - a[0], b[2] - a[2]);
    let (acx, acz) = (c[0] - a[0], c[2] - a[2]);
    acx * abz - abx * acz
}

impl Tool for TestNavMeshTool {
    fn path_end_points(&self) -> Option<([f32; 3], [f32; 3], QueryFilter)> {
        Some((self.start?, self.end?, self.filter()))
    }

    /// The query's ends and what it found: a session checks that a path reaches its end and
    /// which off-mesh links it takes.
    fn session_state(&self) -> Option<serde_json::Value> {
        let outcome = &self.outcome;
        let corners: Vec<[f32; 3]> = outcome.straight_path.iter().map(|p| p.pos).collect();
        let off_mesh_corners = outcome
            .straight_path
            .iter()
            .filter(|p| p.flags & STRAIGHTPATH_OFFMESH_CONNECTION != 0)
            .count();
        Some(serde_json::json!({
            "mode": self.mode.label(),
            "start": self.start,
            "end": self.end,
            "polys": outcome.polys.len(),
            "pathLength": self.path_length(),
            "straightPath": corners,
            "offMeshCorners": off_mesh_corners,
            "smoothPathEnd": outcome.smooth_path.last(),
        }))
    }

    fn name(&self) -> &'static str {
        "Test Navmesh"
    }

    fn ui(&mut self, ui: &mut egui::Ui, ctx: &ToolContext, out: &mut ToolOutput) {
        let mut changed = false;
        for mode in TesterMode::ALL {
            changed |= ui.radio_value(&mut self.mode, mode, mode.label()).changed();
            if mode == TesterMode::PathfindStraight && self.mode == TesterMode::PathfindStraight {
                ui.indent("crossings", |ui| {
                    ui.label("Vertices at crossings");
                    for (label, option) in [
                        ("None", 0),
                        ("Area", STRAIGHTPATH_AREA_CROSSINGS),
                        ("All", STRAIGHTPATH_ALL_CROSSINGS),
                    ] {
                        changed |= ui
                            .radio_value(&mut self.straight_options, option, label)
                            .changed();
                    }
                });
            }
        }
        ui.small("Shift+click: start   click: end   Space: step the follow walk");
        self.read_out(ui);

        ui.separator();
        ui.label("Generate random path");
        ui.horizontal(|ui| {
            if ui.button("Set Random Start").clicked() {
                self.random_end(ctx, true, out);
            }
            if ui.button("Set Random End").clicked() {
                self.random_end(ctx, false, out);
            }
        });
        ui.label("Generate random points");
        ui.horizontal_wrapped(|ui| {
            if ui.button("Random Points").clicked() {
                self.random_points(ctx, false, out);
            }
            if ui
                .add_enabled(
                    self.start.is_some(),
                    egui::Button::new("Random Points Around Path Start"),
                )
                .clicked()
            {
                self.random_points(ctx, true, out);
            }
            if ui.button("Clear").clicked() {
                self.random_points.clear();
                out.overlay = Some(self.drawing(ctx.nav_mesh, agent_size(ctx)));
            }
        });

        ui.separator();
        egui::Grid::new("tester-flags").show(ui, |ui| {
            ui.label("");
            ui.label("Include");
            ui.label("Exclude");
            ui.end_row();
            for (name, flag) in FLAG_NAMES {
                ui.label(name);
                changed |= flag_checkbox(ui, &mut self.include_flags, flag);
                changed |= flag_checkbox(ui, &mut self.exclude_flags, flag);
                ui.end_row();
            }
        });
        ui.separator();
        ui.label("Area costs");
        egui::Grid::new("tester-area-costs").show(ui, |ui| {
            for ((name, id, _), cost) in AREAS.iter().zip(&mut self.area_costs) {
                ui.label(*name);
                changed |= ui
                    .add(egui::DragValue::new(cost).speed(0.1).range(0.0..=1000.0))
                    .changed();
                let (_, area_flags) = sample_area_flags(*id, 0);
                let names: Vec<&str> = FLAG_NAMES
                    .iter()
                    .filter(|(_, f)| area_flags & f != 0)
                    .map(|(n, _)| *n)
                    .collect();
                ui.small(names.join(" + "));
                ui.end_row();
            }
        });
        changed |= ui
            .checkbox(&mut self.show_costs, "Show area costs on polygons")
            .changed();
        if changed {
            self.recalc(ctx, out);
        }
    }

    fn on_click(&mut self, ctx: &ToolContext, hit: Hit, shift: bool, out: &mut ToolOutput) {
        if shift {
            self.start = Some(hit.point.to_array());
        } else {
            self.end = Some(hit.point.to_array());
        }
        self.recalc(ctx, out);
    }

    fn update(&mut self, ctx: &ToolContext, keys: &ButtonInput<KeyCode>, out: &mut ToolOutput) {
        if self.nav_mesh_version != Some(ctx.nav_mesh_version) {
            self.recalc(ctx, out);
        }
        if self.mode == TesterMode::PathfindSliced {
            self.advance_sliced(ctx, out);
        }
        if keys.just_pressed(KeyCode::Space) {
            self.step_follow(ctx, out);
        }
    }

    fn activated(&mut self, active: bool, ctx: &ToolContext, out: &mut ToolOutput) {
        if active {
            self.recalc(ctx, out);
        } else {
            out.overlay = Some(DebugDraw::default());
            out.query_nodes = Some(QueryNodes::default());
            out.labels = Some(Vec::new());
        }
    }

    fn draw(&self, _ctx: &ToolContext, _gizmos: &mut Gizmos) {}
}

impl TestNavMeshTool {
    /// Path length, polygon count, status and query time.
    fn read_out(&self, ui: &mut egui::Ui) {
        let o = &self.outcome;
        let Some(status) = o.status else {
            let hint = match (self.start, self.end) {
                (None, _) => "Set a start (Shift+click).",
                (Some(_), None) => "Set an end (click).",
                _ if o.start_ref == 0 || o.end_ref == 0 => "No polygon near the start or end.",
                _ => "",
            };
            ui.small(hint);
            return;
        };
        let sliced = self
            .sliced
            .map(|s| format!(", {} iterations", s.iterations))
            .unwrap_or_default();
        let length = match self.mode {
            TesterMode::PathfindFollow
            | TesterMode::PathfindStraight
            | TesterMode::PathfindSliced => format!(", {:.2} m", self.path_length()),
            _ => String::new(),
        };
        ui.small(format!(
            "{} polys{length}, {:.0} µs, {}{sliced}",
            o.polys.len(),
            o.micros,
            status_words(status)
        ))
        .on_hover_text(format!("Detour status {status}"));
    }
}

/// A Detour status in words: its outcome, then its details ("Success, partial result").
fn status_words(status: Status) -> String {
    const DETAILS: [(Status, &str); 8] = [
        (Status::WRONG_MAGIC, "wrong magic"),
        (Status::WRONG_VERSION, "wrong version"),
        (Status::OUT_OF_MEMORY, "out of memory"),
        (Status::INVALID_PARAM, "invalid parameter"),
        (Status::BUFFER_TOO_SMALL, "buffer too small"),
        (Status::OUT_OF_NODES, "out of nodes"),
        (Status::PARTIAL_RESULT, "partial result"),
        (Status::ALREADY_OCCUPIED, "already occupied"),
    ];
    let outcome = if status.is_failure() {
        "Failure"
    } else if status.is_in_progress() {
        "In progress"
    } else if status.is_success() {
        "Success"
    } else {
        "No outcome"
    };
    let details = DETAILS
        .iter()
        .filter(|(detail, _)| status.has_detail(*detail))
        .map(|(_, words)| *words);
    std::iter::once(outcome)
        .chain(details)
        .collect::<Vec<_>>()
        .join(", ")
}

fn flag_checkbox(ui: &mut egui::Ui, flags: &mut u16, flag: u16) -> bool {
    let mut on = *flags & flag != 0;
    let changed = ui.checkbox(&mut on, "").changed();
    if changed {
        *flags ^= flag;
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::demo::tester::{AgentParams, TesterInput, run_tester};
    use crate::demo::text::{TestKind, TestLine};
    use crate::viewer::build::BuildState;
    use crate::viewer::build::tests::{build_app, settle};
    use crate::viewer::navmesh::ShownNavMesh;
    use crate::viewer::picking::PointerHit;
    use crate::viewer::tools::tool_context;

    const START: [f32; 3] = [-20.0, 0.0, -20.0];
    const END: [f32; 3] = [18.0, 0.0, 18.0];

    #[test]
    fn statuses_read_as_words() {
        assert_eq!(status_words(Status::SUCCESS), "Success");
        assert_eq!(
            status_words(Status::SUCCESS | Status::PARTIAL_RESULT),
            "Success, partial result"
        );
        assert_eq!(
            status_words(Status::SUCCESS | Status::OUT_OF_NODES | Status::PARTIAL_RESULT),
            "Success, out of nodes, partial result"
        );
        assert_eq!(
            status_words(Status::FAILURE | Status::INVALID_PARAM),
            "Failure, invalid parameter"
        );
        assert_eq!(status_words(Status::IN_PROGRESS), "In progress");
    }

    fn hit(p: [f32; 3]) -> Hit {
        Hit::from_above(Vec3::from(p))
    }

    /// The library tester's results for the same two points, with the tool's default flags.
    fn library_case(nav: &NavMesh, state: &BuildState) -> crate::demo::tester::TesterCase {
        let line = TestLine {
            kind: TestKind::Pathfind,
            text: String::new(),
            start: START,
            end: END,
            include_flags: flags::ALL ^ flags::DISABLED,
            exclude_flags: 0,
        };
        let agent = AgentParams {
            radius: state.settings.agent_radius,
            height: state.settings.agent_height,
        };
        let input = TesterInput {
            test_file: String::new(),
            sample_named_in_file: String::new(),
            sample_used: String::new(),
            geom: String::new(),
            build: String::new(),
        };
        let mut report = run_tester(nav, &[line], &agent, &input).unwrap();
        report.cases.remove(0)
    }

    #[test]
    fn path_modes_find_what_the_library_tester_finds() {
        let mut app = build_app();
        settle(&mut app);
        let state = app.world().resource::<BuildState>();
        let shown = ShownNavMesh::default();
        let ctx = tool_context(state, &shown, &PointerHit::default());
        let nav = ctx.nav_mesh.expect("the default scene has a navmesh");
        let expected = library_case(nav, state);
        let mut tool = TestNavMeshTool::default();
        let mut out = ToolOutput::default();

        tool.mode = TesterMode::PathfindStraight;
        tool.on_click(&ctx, hit(START), true, &mut out);
        tool.on_click(&ctx, hit(END), false, &mut out);
        let straight = expected.pathfind_straight.as_ref().unwrap();
        assert_eq!(tool.outcome.polys, straight.path);
        let none = straight.none.as_ref().unwrap();
        assert_eq!(tool.outcome.straight_path.len(), none.nstraight_path);
        assert!(out.overlay.take().is_some_and(|d| !d.is_empty()));
        assert!(out.query_nodes.take().is_some_and(|n| n.pool.is_some()));

        tool.mode = TesterMode::PathfindFollow;
        tool.recalc(&ctx, &mut out);
        let follow = expected.pathfind_follow.as_ref().unwrap();
        assert_eq!(tool.outcome.smooth_path.len(), follow.nsmooth_path);
        // Space steps the same walk from the start.
        let keys = ButtonInput::<KeyCode>::default();
        tool.step_follow(&ctx, &mut out);
        let walk = tool.stepping.as_ref().unwrap();
        assert_eq!(walk.result.smooth_path[..], tool.outcome.smooth_path[..2]);
        tool.update(&ctx, &keys, &mut out);

        tool.mode = TesterMode::PathfindSliced;
        tool.recalc(&ctx, &mut out);
        for _ in 0..10_000 {
            if tool.sliced.is_some_and(|s| s.done) {
                break;
            }
            tool.update(&ctx, &keys, &mut out);
        }
        let sliced = expected.pathfind_sliced.as_ref().unwrap();
        assert_eq!(
            tool.sliced.map(|s| s.iterations),
            Some(sliced.update_sliced_find_path_calls)
        );
        assert_eq!(tool.outcome.polys, sliced.path);
    }

    #[test]
    fn every_mode_draws_and_reports_without_a_navmesh_too() {
        let mut app = build_app();
        settle(&mut app);
        let state = app.world().resource::<BuildState>();
        let shown = ShownNavMesh::default();
        let with_mesh = tool_context(state, &shown, &PointerHit::default());
        let mut without_mesh = tool_context(state, &shown, &PointerHit::default());
        without_mesh.nav_mesh = None;
        without_mesh.nav_mesh_version += 1;
        for ctx in [&with_mesh, &without_mesh] {
            for mode in TesterMode::ALL {
                let mut tool = TestNavMeshTool {
                    mode,
                    ..TestNavMeshTool::default()
                };
                let mut out = ToolOutput::default();
                tool.on_click(ctx, hit(START), true, &mut out);
                tool.on_click(ctx, hit(END), false, &mut out);
                tool.random_points(ctx, true, &mut out);
                tool.random_end(ctx, false, &mut out);
                assert!(out.overlay.is_some(), "{mode:?}");
                if ctx.nav_mesh.is_some() {
                    assert!(tool.outcome.start_ref != 0, "{mode:?}");
                    assert!(!tool.random_points.is_empty(), "{mode:?}");
                }
            }
        }
    }

    /// Paths are drawn wide and bright, to stand out over the darkened path polygons.
    #[test]
    fn paths_are_drawn_wide_and_bright() {
        let mut app = build_app();
        settle(&mut app);
        let state = app.world().resource::<BuildState>();
        let shown = ShownNavMesh::default();
        let ctx = tool_context(state, &shown, &PointerHit::default());
        for mode in [TesterMode::PathfindFollow, TesterMode::PathfindStraight] {
            let mut tool = TestNavMeshTool {
                mode,
                ..TestNavMeshTool::default()
            };
            let mut out = ToolOutput::default();
            tool.on_click(&ctx, hit(START), true, &mut out);
            tool.on_click(&ctx, hit(END), false, &mut out);
            let overlay = out.overlay.take().unwrap();
            let path = overlay
                .lines
                .iter()
                .find(|batch| batch.colors.contains(&PATH_LINE_COLOR))
                .unwrap_or_else(|| panic!("{mode:?}: no path lines"));
            assert!(path.width >= 3.0, "{mode:?}");
            assert!(path.segments.len() > 1, "{mode:?}");
        }
        let [r, g, b, a] = navlab::debug_draw::channels(PATH_LINE_COLOR);
        assert!(u32::from(r) + u32::from(g) + u32::from(b) > 3 * 160 && a == 255);
    }

    #[test]
    fn area_costs_label_every_polygon_when_shown() {
        let mut app = build_app();
        settle(&mut app);
        let state = app.world().resource::<BuildState>();
        let shown = ShownNavMesh::default();
        let ctx = tool_context(state, &shown, &PointerHit::default());
        let nav = ctx.nav_mesh.unwrap();
        let polys = nav.poly_count();
        let mut tool = TestNavMeshTool::default();
        let mut out = ToolOutput::default();
        tool.recalc(&ctx, &mut out);
        assert_eq!(out.labels.take().map(|l| l.len()), Some(0));
        tool.show_costs = true;
        tool.area_costs[0] = 3.5;
        tool.recalc(&ctx, &mut out);
        let labels = out.labels.take().unwrap();
        assert_eq!(labels.len(), polys);
        assert!(
            labels.iter().all(|l| l.text == "3.5"),
            "the default scene is all ground"
        );
    }

    #[test]
    fn mode_names_parse_as_labels_or_slugs() {
        for mode in TesterMode::ALL {
            let slug = mode.label().to_ascii_lowercase().replace(' ', "-");
            assert_eq!(slug.parse::<TesterMode>(), Ok(mode));
            assert_eq!(mode.label().parse::<TesterMode>(), Ok(mode));
        }
        assert!("pathfind".parse::<TesterMode>().is_err());
    }
}
