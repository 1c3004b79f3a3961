//! RecastDemo's NavMeshTesterTool run over a test-case file: every mode of the tool for every
//! `pf` line, recorded in the schema of the C++ reference (`detour/*_tester.json`).
//!
//! [`run_tester`] is what `navlab test` and the viewer's tester tool share: give it a
//! navmesh, the lines and the agent's size, serialise the [`TesterReport`] with serde_json.

use serde::Serialize;

use crate::demo::text::{JsonF32, RefJson, TestKind, TestLine, decoded, flat_points, point};
use navlab::detour::common::{Vec3, distance_pt_seg_sqr_2d, sqr, vlerp};
use navlab::detour::query::path_follow::{FollowEnd, STEP_SIZE, follow_path};
use navlab::detour::query::{FINDPATH_ANY_ANGLE, NavMeshQuery, QueryFilter, Status};
use navlab::detour::query::{NeighbourPoly, VisitedPoly, WallSegment};
use navlab::detour::query::{
    STRAIGHTPATH_ALL_CROSSINGS, STRAIGHTPATH_AREA_CROSSINGS, StraightPathPoint,
};
use navlab::detour::{NavMesh, PolyRef};

/// The tester's query box (`polyPickExt`).
pub const POLY_PICK_EXT: Vec3 = [2.0, 4.0, 2.0];
/// Nodes of the sample's query object.
pub const QUERY_NODES: usize = 2048;
/// Path buffer size (`MAX_POLYS`).
pub const MAX_POLYS: usize = 256;
/// Smooth path buffer size (`MAX_SMOOTH`).
pub const MAX_SMOOTH: usize = 2048;
/// Wall segments fetched per polygon for drawing the neighbourhood (`MAX_SEGS`).
const MAX_SEGS: usize = 24;
/// Radius of the distance-to-wall mode.
const DISTANCE_TO_WALL_RADIUS: f32 = 100.0;

/// RecastDemo's area ids (`SamplePolyAreas`) and the costs the tester gives them.
const AREA_COSTS: [(&str, u8, f32); 6] = [
    ("ground", 0, 1.0),
    ("water", 1, 10.0),
    ("road", 2, 1.0),
    ("door", 3, 1.0),
    ("grass", 4, 2.0),
    ("jump", 5, 1.5),
];

/// The tester's filter for a line: the line's flags and the tool's area costs.
pub fn tester_filter(include_flags: u16, exclude_flags: u16) -> QueryFilter {
    let mut filter = QueryFilter::with_flags(include_flags, exclude_flags);
    for (_, area, cost) in AREA_COSTS {
        filter.set_area_cost(area, cost);
    }
    filter
}

/// The agent the navmesh was built for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AgentParams {
    pub radius: f32,
    pub height: f32,
}

/// What the report says about its input (copied into its header).
#[derive(Clone, Debug, PartialEq)]
pub struct TesterInput {
    /// The test-case file name.
    pub test_file: String,
    /// The sample the file names (its `s` row).
    pub sample_named_in_file: String,
    /// The sample the navmesh really comes from.
    pub sample_used: String,
    /// The geometry file (its `f` row).
    pub geom: String,
    /// How the navmesh was built.
    pub build: String,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct AreaCostsJson {
    pub ground: JsonF32,
    pub water: JsonF32,
    pub road: JsonF32,
    pub door: JsonF32,
    pub grass: JsonF32,
    pub jump: JsonF32,
    pub others: JsonF32,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct TesterSettings {
    pub build: String,
    pub poly_pick_ext: [JsonF32; 3],
    pub query_nodes: usize,
    #[serde(rename = "MAX_POLYS")]
    pub max_polys: usize,
    #[serde(rename = "MAX_SMOOTH")]
    pub max_smooth: usize,
    #[serde(rename = "STEP_SIZE")]
    pub step_size: f64,
    #[serde(rename = "SLOP")]
    pub slop: f64,
    pub area_costs: AreaCostsJson,
    pub filter_flags: &'static str,
    pub agent_radius: JsonF32,
    pub agent_height: JsonF32,
    pub neighbourhood_radius: JsonF32,
    pub distance_to_wall_max_radius: JsonF32,
    pub sliced_options: &'static str,
}

/// The whole report (`*_tester.json`).
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct TesterReport {
    pub test_file: String,
    pub sample_named_in_file: String,
    pub sample_used: String,
    pub geom: String,
    pub settings: TesterSettings,
    /// Polygon count of a single-tile navmesh.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub navmesh_polys: Option<usize>,
    #[serde(rename = "determinism_second_run_identical")]
    pub determinism_second_run_identical: bool,
    pub cases: Vec<TesterCase>,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct StartPolyJson {
    pub closest_point_on_poly_status: String,
    pub closest_point_on_poly: [JsonF32; 3],
    pub pos_over_poly: bool,
    pub get_poly_height_status: String,
    pub get_poly_height: JsonF32,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct FollowJson {
    pub find_path_status: String,
    pub npolys: usize,
    pub path: Vec<PolyRef>,
    pub path_decoded: Vec<[u32; 3]>,
    pub loop_iterations: usize,
    pub loop_end: &'static str,
    pub off_mesh_connections_traversed: usize,
    pub nsmooth_path: usize,
    pub smooth_path: Vec<JsonF32>,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct StraightJson {
    pub straight_path_options: u32,
    pub find_straight_path_status: String,
    pub nstraight_path: usize,
    pub points: Vec<JsonF32>,
    pub flags: Vec<u8>,
    pub refs: Vec<PolyRef>,
    pub refs_decoded: Vec<[u32; 3]>,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct PathfindStraightJson {
    pub find_path_status: String,
    pub npolys: usize,
    pub path: Vec<PolyRef>,
    pub path_decoded: Vec<[u32; 3]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_pos_used: Option<[JsonF32; 3]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_pos_clamped_to_last_poly: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub none: Option<StraightJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub area_crossings: Option<StraightJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub all_crossings: Option<StraightJson>,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct SlicedJson {
    pub init_status: String,
    pub options: u32,
    pub update_sliced_find_path_calls: usize,
    pub last_update_status: String,
    pub finalized: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub finalize_status: Option<String>,
    pub npolys: usize,
    pub path: Vec<PolyRef>,
    pub path_decoded: Vec<[u32; 3]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_pos_used: Option<[JsonF32; 3]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_pos_clamped_to_last_poly: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub straight: Option<StraightJson>,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct RaycastJson {
    pub raycast_status: String,
    pub t: JsonF32,
    #[serde(rename = "t_is_flt_max")]
    pub t_is_flt_max: bool,
    pub hit_result: bool,
    pub hit_normal: [JsonF32; 3],
    pub npolys: usize,
    pub path: Vec<PolyRef>,
    pub path_decoded: Vec<[u32; 3]>,
    pub hit_pos_before_height: [JsonF32; 3],
    #[serde(skip_serializing_if = "Option::is_none")]
    pub get_poly_height_status: Option<String>,
    pub hit_pos: [JsonF32; 3],
    pub demo_straight_path: [[JsonF32; 3]; 2],
}

#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct DistanceToWallJson {
    pub max_radius: JsonF32,
    pub status: String,
    pub distance: JsonF32,
    pub hit_pos: [JsonF32; 3],
    pub hit_normal: [JsonF32; 3],
}

#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct CircleJson {
    pub radius: JsonF32,
    pub status: String,
    pub npolys: usize,
    pub refs: Vec<PolyRef>,
    pub refs_decoded: Vec<[u32; 3]>,
    pub parents: Vec<PolyRef>,
    pub parents_decoded: Vec<[u32; 3]>,
    pub costs: Vec<JsonF32>,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ShapeJson {
    pub query_poly: Vec<JsonF32>,
    pub status: String,
    pub npolys: usize,
    pub refs: Vec<PolyRef>,
    pub refs_decoded: Vec<[u32; 3]>,
    pub parents: Vec<PolyRef>,
    pub parents_decoded: Vec<[u32; 3]>,
    pub costs: Vec<JsonF32>,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct WallSegmentsJson {
    pub poly: PolyRef,
    pub status: String,
    pub nsegs: usize,
    pub segs: Vec<JsonF32>,
    pub seg_refs: Vec<PolyRef>,
    pub seg_refs_decoded: Vec<[u32; 3]>,
    pub within_radius_drawn_by_demo: Vec<u8>,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct NeighbourhoodJson {
    pub radius: JsonF32,
    pub status: String,
    pub npolys: usize,
    pub refs: Vec<PolyRef>,
    pub refs_decoded: Vec<[u32; 3]>,
    pub parents: Vec<PolyRef>,
    pub parents_decoded: Vec<[u32; 3]>,
    pub wall_segments: Vec<WallSegmentsJson>,
}

/// Every mode of the tool for one `pf` line. Modes whose references the demo requires are
/// missing (`None`) when they are 0.
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct TesterCase {
    pub pf_index: usize,
    pub line_index_among_tests: usize,
    pub line: String,
    pub spos: [JsonF32; 3],
    pub epos: [JsonF32; 3],
    pub include_flags: u16,
    pub exclude_flags: u16,
    pub start_ref: RefJson,
    pub end_ref: RefJson,
    pub start_nearest_pt: [JsonF32; 3],
    pub end_nearest_pt: [JsonF32; 3],
    pub find_nearest_poly_status: [String; 2],
    pub start_poly: StartPolyJson,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pathfind_follow: Option<FollowJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pathfind_straight: Option<PathfindStraightJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pathfind_sliced: Option<SlicedJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub raycast: Option<RaycastJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub distance_to_wall: Option<DistanceToWallJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub find_polys_around_circle: Option<CircleJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub find_polys_around_shape: Option<ShapeJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub find_local_neighbourhood: Option<NeighbourhoodJson>,
}

/// Runs every tester mode for every `pf` line of `lines` (`rc` lines only count for
/// `lineIndexAmongTests`), twice, and reports the first run and whether the second equalled
/// it.
pub fn run_tester(
    nav: &NavMesh,
    lines: &[TestLine],
    agent: &AgentParams,
    input: &TesterInput,
) -> Result<TesterReport, Status> {
    let mut query = NavMeshQuery::new(nav, QUERY_NODES)?;
    let first = run_cases(&mut query, lines, agent);
    let second = run_cases(&mut query, lines, agent);
    let neighbourhood_radius = agent.radius * 20.0;
    let area_cost = |name: &str| {
        JsonF32(
            AREA_COSTS
                .iter()
                .find(|(n, _, _)| *n == name)
                .map_or(1.0, |&(_, _, c)| c),
        )
    };
    Ok(TesterReport {
        test_file: input.test_file.clone(),
        sample_named_in_file: input.sample_named_in_file.clone(),
        sample_used: input.sample_used.clone(),
        geom: input.geom.clone(),
        settings: TesterSettings {
            build: input.build.clone(),
            poly_pick_ext: point(&POLY_PICK_EXT),
            query_nodes: QUERY_NODES,
            max_polys: MAX_POLYS,
            max_smooth: MAX_SMOOTH,
            step_size: f64::from(STEP_SIZE),
            slop: 0.01,
            area_costs: AreaCostsJson {
                ground: area_cost("ground"),
                water: area_cost("water"),
                road: area_cost("road"),
                door: area_cost("door"),
                grass: area_cost("grass"),
                jump: area_cost("jump"),
                others: JsonF32(1.0),
            },
            filter_flags: "include/exclude flags from each test line",
            agent_radius: JsonF32(agent.radius),
            agent_height: JsonF32(agent.height),
            neighbourhood_radius: JsonF32(neighbourhood_radius),
            distance_to_wall_max_radius: JsonF32(DISTANCE_TO_WALL_RADIUS),
            sliced_options: "initSlicedFindPath(..., DT_FINDPATH_ANY_ANGLE); updateSlicedFindPath(1, 0) once per frame; straight path with DT_STRAIGHTPATH_ALL_CROSSINGS",
        },
        navmesh_polys: (nav.tile_count() == 1).then(|| nav.poly_count()),
        determinism_second_run_identical: first == second,
        cases: first,
    })
}

fn run_cases(
    query: &mut NavMeshQuery<'_>,
    lines: &[TestLine],
    agent: &AgentParams,
) -> Vec<TesterCase> {
    lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.kind == TestKind::Pathfind)
        .enumerate()
        .map(|(pf_index, (line_index, line))| run_case(query, pf_index, line_index, line, agent))
        .collect()
}

/// One straight path of the path modes.
fn straight_json(
    query: &NavMeshQuery<'_>,
    start: &Vec3,
    end: &Vec3,
    path: &[PolyRef],
    options: u32,
) -> StraightJson {
    let nav = query.nav_mesh();
    let (status, points) = straight_path(query, start, end, path, options);
    let n = points.len();
    let points = &points[..];
    let refs: Vec<PolyRef> = points.iter().map(|p| p.poly_ref).collect();
    StraightJson {
        straight_path_options: options,
        find_straight_path_status: status.to_string(),
        nstraight_path: n,
        points: flat_points(points.iter().map(|p| p.pos)),
        flags: points.iter().map(|p| p.flags).collect(),
        refs_decoded: decoded(nav, &refs),
        refs,
    }
}

/// The tester's straight path along `path` (at most [`MAX_POLYS`] points) and its status.
pub fn straight_path(
    query: &NavMeshQuery<'_>,
    start: &Vec3,
    end: &Vec3,
    path: &[PolyRef],
    options: u32,
) -> (Status, Vec<StraightPathPoint>) {
    straight_path_of_at_most(query, start, end, path, options, MAX_POLYS)
}

/// [`straight_path`] with room for `max_points` points instead of RecastDemo's buffer.
pub fn straight_path_of_at_most(
    query: &NavMeshQuery<'_>,
    start: &Vec3,
    end: &Vec3,
    path: &[PolyRef],
    options: u32,
    max_points: usize,
) -> (Status, Vec<StraightPathPoint>) {
    let mut out = vec![StraightPathPoint::default(); max_points];
    let (status, n) = query.find_straight_path(start, end, path, &mut out, options);
    out.truncate(n);
    (status, out)
}

/// The end point the demo's straight modes use: `epos`, clamped onto the last polygon when
/// the path is partial (and whether it was).
pub fn clamped_end(
    query: &NavMeshQuery<'_>,
    path: &[PolyRef],
    end_ref: PolyRef,
    epos: &Vec3,
) -> (Vec3, bool) {
    match path.last() {
        Some(&last) if last != end_ref => (query.closest_point_on_poly(last, epos).1, true),
        _ => (*epos, false),
    }
}

fn run_case(
    query: &mut NavMeshQuery<'_>,
    pf_index: usize,
    line_index: usize,
    line: &TestLine,
    agent: &AgentParams,
) -> TesterCase {
    let nav = query.nav_mesh();
    let filter = tester_filter(line.include_flags, line.exclude_flags);
    let spos = line.start;
    let epos = line.end;
    let (start_status, start) = query.find_nearest_poly(&spos, &POLY_PICK_EXT, &filter);
    let (end_status, end) = query.find_nearest_poly(&epos, &POLY_PICK_EXT, &filter);
    let start_ref = start.poly_ref;
    let end_ref = end.poly_ref;
    let (cp_status, cp, over) = query.closest_point_on_poly(start_ref, &spos);
    let (h_status, h) = query.get_poly_height(start_ref, &spos);
    let both = start_ref != 0 && end_ref != 0;
    let mut path = [0 as PolyRef; MAX_POLYS];

    let pathfind_follow = both.then(|| {
        let (status, n) = query.find_path(start_ref, end_ref, &spos, &epos, &filter, &mut path);
        let follow = follow_path(query, &filter, &spos, &epos, &path[..n], MAX_SMOOTH);
        FollowJson {
            find_path_status: status.to_string(),
            npolys: n,
            path: path[..n].to_vec(),
            path_decoded: decoded(nav, &path[..n]),
            loop_iterations: follow.iterations,
            loop_end: match follow.end {
                FollowEnd::EndOfPath => "end_of_path",
                FollowEnd::NoSteerTarget => "no_steer_target",
                FollowEnd::MaxSmooth => "max_smooth",
                FollowEnd::CorridorEmpty => "corridor_empty",
            },
            off_mesh_connections_traversed: follow.off_mesh_connections,
            nsmooth_path: follow.smooth_path.len(),
            smooth_path: flat_points(follow.smooth_path),
        }
    });

    let pathfind_straight = both.then(|| {
        let (status, n) = query.find_path(start_ref, end_ref, &spos, &epos, &filter, &mut path);
        let polys = &path[..n];
        let (end_used, clamped) = clamped_end(query, polys, end_ref, &epos);
        let straight =
            |options| (n > 0).then(|| straight_json(query, &spos, &end_used, polys, options));
        PathfindStraightJson {
            find_path_status: status.to_string(),
            npolys: n,
            path: polys.to_vec(),
            path_decoded: decoded(nav, polys),
            end_pos_used: (n > 0).then(|| point(&end_used)),
            end_pos_clamped_to_last_poly: (n > 0).then_some(clamped),
            none: straight(0),
            area_crossings: straight(STRAIGHTPATH_AREA_CROSSINGS),
            all_crossings: straight(STRAIGHTPATH_ALL_CROSSINGS),
        }
    });

    let pathfind_sliced = both.then(|| {
        let init_status = query.init_sliced_find_path(
            start_ref,
            end_ref,
            &spos,
            &epos,
            &filter,
            FINDPATH_ANY_ANGLE,
        );
        let mut status = init_status;
        let mut calls = 0;
        while status.is_in_progress() {
            status = query.update_sliced_find_path(&filter, 1).0;
            calls += 1;
        }
        let finalized = status.is_success();
        let (finalize_status, n) = if finalized {
            let (s, n) = query.finalize_sliced_find_path(&filter, &mut path);
            (Some(s.to_string()), n)
        } else {
            (None, 0)
        };
        let polys = &path[..n];
        let (end_used, clamped) = clamped_end(query, polys, end_ref, &epos);
        SlicedJson {
            init_status: init_status.to_string(),
            options: FINDPATH_ANY_ANGLE,
            update_sliced_find_path_calls: calls,
            last_update_status: status.to_string(),
            finalized,
            finalize_status,
            npolys: n,
            path: polys.to_vec(),
            path_decoded: decoded(nav, polys),
            end_pos_used: (n > 0).then(|| point(&end_used)),
            end_pos_clamped_to_last_poly: (n > 0).then_some(clamped),
            straight: (n > 0)
                .then(|| straight_json(query, &spos, &end_used, polys, STRAIGHTPATH_ALL_CROSSINGS)),
        }
    });

    let raycast = (start_ref != 0).then(|| {
        let (status, hit) = query.raycast(start_ref, &spos, &epos, &filter, &mut path);
        let n = hit.path_count;
        let hit_result = hit.t <= 1.0;
        let before = if hit_result {
            vlerp(&spos, &epos, hit.t)
        } else {
            epos
        };
        let mut hit_pos = before;
        let mut height_status = None;
        if n > 0 {
            let (s, h) = query.get_poly_height(path[n - 1], &before);
            hit_pos[1] = h;
            height_status = Some(s.to_string());
        }
        RaycastJson {
            raycast_status: status.to_string(),
            t: JsonF32(hit.t),
            t_is_flt_max: hit.t == f32::MAX,
            hit_result,
            hit_normal: point(&hit.hit_normal),
            npolys: n,
            path: path[..n].to_vec(),
            path_decoded: decoded(nav, &path[..n]),
            hit_pos_before_height: point(&before),
            get_poly_height_status: height_status,
            hit_pos: point(&hit_pos),
            demo_straight_path: [point(&spos), point(&hit_pos)],
        }
    });

    let distance_to_wall = (start_ref != 0).then(|| {
        let (status, wall) =
            query.find_distance_to_wall(start_ref, &spos, DISTANCE_TO_WALL_RADIUS, &filter);
        DistanceToWallJson {
            max_radius: JsonF32(DISTANCE_TO_WALL_RADIUS),
            status: status.to_string(),
            distance: JsonF32(wall.distance),
            hit_pos: point(&wall.position),
            hit_normal: point(&wall.normal),
        }
    });

    let mut visited = [VisitedPoly::default(); MAX_POLYS];
    let find_polys_around_circle = both.then(|| {
        let dx = epos[0] - spos[0];
        let dz = epos[2] - spos[2];
        let radius = (dx * dx + dz * dz).sqrt();
        let (status, n) =
            query.find_polys_around_circle(start_ref, &spos, radius, &filter, &mut visited);
        let (refs, parents, costs) = split_visited(&visited[..n]);
        CircleJson {
            radius: JsonF32(radius),
            status: status.to_string(),
            npolys: n,
            refs_decoded: decoded(nav, &refs),
            parents_decoded: decoded(nav, &parents),
            refs,
            parents,
            costs,
        }
    });

    let find_polys_around_shape = both.then(|| {
        let shape = demo_query_shape(&spos, &epos, agent.height);
        let (status, n) = query.find_polys_around_shape(start_ref, &shape, &filter, &mut visited);
        let (refs, parents, costs) = split_visited(&visited[..n]);
        ShapeJson {
            query_poly: flat_points(shape),
            status: status.to_string(),
            npolys: n,
            refs_decoded: decoded(nav, &refs),
            parents_decoded: decoded(nav, &parents),
            refs,
            parents,
            costs,
        }
    });

    let find_local_neighbourhood = (start_ref != 0).then(|| {
        let radius = agent.radius * 20.0;
        let mut found = [NeighbourPoly::default(); MAX_POLYS];
        let (status, n) =
            query.find_local_neighbourhood(start_ref, &spos, radius, &filter, &mut found);
        let refs: Vec<PolyRef> = found[..n].iter().map(|p| p.poly_ref).collect();
        let parents: Vec<PolyRef> = found[..n].iter().map(|p| p.parent_ref).collect();
        let wall_segments = refs
            .iter()
            .map(|&r| {
                let mut segs = [WallSegment::default(); MAX_SEGS];
                let (status, nsegs) = query.get_poly_wall_segments(r, &filter, true, &mut segs);
                let segs = &segs[..nsegs];
                let seg_refs: Vec<PolyRef> = segs.iter().map(|s| s.neighbour).collect();
                WallSegmentsJson {
                    poly: r,
                    status: status.to_string(),
                    nsegs,
                    segs: flat_points(segs.iter().flat_map(|s| [s.start, s.end])),
                    seg_refs_decoded: decoded(nav, &seg_refs),
                    seg_refs,
                    within_radius_drawn_by_demo: segs
                        .iter()
                        .map(|s| {
                            u8::from(
                                distance_pt_seg_sqr_2d(&spos, &s.start, &s.end).0 <= sqr(radius),
                            )
                        })
                        .collect(),
                }
            })
            .collect();
        NeighbourhoodJson {
            radius: JsonF32(radius),
            status: status.to_string(),
            npolys: n,
            refs_decoded: decoded(nav, &refs),
            parents_decoded: decoded(nav, &parents),
            refs,
            parents,
            wall_segments,
        }
    });

    TesterCase {
        pf_index,
        line_index_among_tests: line_index,
        line: line.text.clone(),
        spos: point(&spos),
        epos: point(&epos),
        include_flags: line.include_flags,
        exclude_flags: line.exclude_flags,
        start_ref: RefJson::new(nav, start_ref),
        end_ref: RefJson::new(nav, end_ref),
        start_nearest_pt: point(&start.point),
        end_nearest_pt: point(&end.point),
        find_nearest_poly_status: [start_status.to_string(), end_status.to_string()],
        start_poly: StartPolyJson {
            closest_point_on_poly_status: cp_status.to_string(),
            closest_point_on_poly: point(&cp),
            pos_over_poly: over,
            get_poly_height_status: h_status.to_string(),
            get_poly_height: JsonF32(h),
        },
        pathfind_follow,
        pathfind_straight,
        pathfind_sliced,
        raycast,
        distance_to_wall,
        find_polys_around_circle,
        find_polys_around_shape,
        find_local_neighbourhood,
    }
}

fn split_visited(visited: &[VisitedPoly]) -> (Vec<PolyRef>, Vec<PolyRef>, Vec<JsonF32>) {
    (
        visited.iter().map(|v| v.poly_ref).collect(),
        visited.iter().map(|v| v.parent_ref).collect(),
        visited.iter().map(|v| JsonF32(v.cost)).collect(),
    )
}

/// The tool's "find polys in shape" quad: a strip around the segment from `spos` to `epos`,
/// lifted by half the agent's height.
pub fn demo_query_shape(spos: &Vec3, epos: &Vec3, agent_height: f32) -> [Vec3; 4] {
    let nx = (epos[2] - spos[2]) * 0.25;
    let nz = -(epos[0] - spos[0]) * 0.25;
    let lift = agent_height / 2.0;
    [
        [spos[0] + nx * 1.2, spos[1] + lift, spos[2] + nz * 1.2],
        [spos[0] - nx * 1.3, spos[1] + lift, spos[2] - nz * 1.3],
        [epos[0] - nx * 0.8, epos[1] + lift, epos[2] - nz * 0.8],
        [epos[0] + nx, epos[1] + lift, epos[2] + nz],
    ]
}
