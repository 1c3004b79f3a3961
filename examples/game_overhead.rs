//! What the game-facing layer costs over the exact API, for callgrind: the same paths and the
//! same crowd, once through each.
//!
//! `valgrind --tool=callgrind --toggle-collect='*exact_paths*' target/release/examples/game_overhead paths REFERENCE_DIR`
//! and `--toggle-collect='*game_paths*'` count the 1000 paths of workload P (nearest polygons,
//! A*, straight path); `crowd` with `*exact_crowd*` and `*game_crowd*` counts 600 updates of
//! workload C128. Both halves run in every call, and their results are checked equal.

use std::path::Path;

use navlab::crowd::ObstacleAvoidanceParams;
use navlab::detour::query::{NavMeshQuery, QueryFilter, StraightPathPoint};
use navlab::detour::{NavMesh, PolyRef, load_nav_mesh};
use navlab::game::{AgentParams, Crowd, NavPoint, UpdateFlags};
use navlab_app::demo::crowd_scenario::ScenarioSettings;
use navlab_app::demo::workloads::{PathPair, generate_path_pairs};

const NAVMESH: &str = "navmesh/nav_test_solo.bin";
const EXTENTS: [f32; 3] = [2.0, 4.0, 2.0];
const STEPS: usize = 600;

/// Every pair's straight path through the exact API, as the game layer computes it.
#[inline(never)]
fn exact_paths(nav: &NavMesh, pairs: &[PathPair]) -> Vec<Vec<[f32; 3]>> {
    let filter = QueryFilter::default();
    let mut query = NavMeshQuery::new(nav, 2048).expect("2048 nodes are valid");
    let mut polys = vec![0 as PolyRef; 2048];
    let mut corners = vec![StraightPathPoint::default(); 4096];
    let mut out = Vec::with_capacity(pairs.len());
    for pair in pairs {
        let (_, from) = query.find_nearest_poly(&pair.start_pos, &EXTENTS, &filter);
        let (_, to) = query.find_nearest_poly(&pair.end_pos, &EXTENTS, &filter);
        let (_, n) = query.find_path(
            from.poly_ref,
            to.poly_ref,
            &from.point,
            &to.point,
            &filter,
            &mut polys,
        );
        let mut goal = to.point;
        if n > 0 && polys[n - 1] != to.poly_ref {
            goal = query.closest_point_on_poly(polys[n - 1], &to.point).1;
        }
        let (_, m) = query.find_straight_path(&from.point, &goal, &polys[..n], &mut corners, 0);
        out.push(corners[..m].iter().map(|c| c.pos).collect());
    }
    out
}

/// The same through `NavMesh::find_path`, partial paths included. Each half keeps what its
/// API gives (here whole `Path`s); their points are compared outside the counted calls.
#[inline(never)]
fn game_paths(nav: &NavMesh, pairs: &[PathPair]) -> Vec<Option<navlab::game::Path>> {
    let filter = QueryFilter::default();
    pairs
        .iter()
        .map(
            |pair| match nav.find_path(pair.start_pos, pair.end_pos, &filter) {
                Ok(path) => Some(path),
                Err(e) => e.into_partial_path(),
            },
        )
        .collect()
}

/// Workload C128's agents: where each starts and the navmesh point it walks to.
fn crowd_agents(nav: &NavMesh) -> Vec<([f32; 3], NavPoint)> {
    let query = NavMeshQuery::new(nav, 2048).expect("2048 nodes are valid");
    generate_path_pairs(&query, 128)
        .pairs
        .iter()
        .map(|p| {
            let target = NavPoint {
                poly: p.end_ref,
                position: p.end_pos,
            };
            (p.start_pos, target)
        })
        .collect()
}

#[inline(never)]
fn exact_crowd(nav: &NavMesh, agents: &[([f32; 3], NavPoint)]) -> Vec<[f32; 3]> {
    let mut crowd = navlab::crowd::Crowd::new(128, 0.6, nav).expect("a valid crowd");
    for (k, p) in ObstacleAvoidanceParams::recast_demo_presets()
        .iter()
        .enumerate()
    {
        crowd.set_obstacle_avoidance_params(k, p);
    }
    let params = ScenarioSettings::reference(false, 1).agent_params();
    for (start, target) in agents {
        let index = crowd.add_agent(start, &params).expect("room for the agent");
        crowd.request_move_target(index, target.poly, &target.position);
    }
    for _ in 0..STEPS {
        crowd.update(1.0 / 30.0, None);
    }
    (0..agents.len())
        .map(|k| crowd.agent(k).map_or([0.0; 3], |a| a.npos))
        .collect()
}

#[inline(never)]
fn game_crowd(nav: &NavMesh, agents: &[([f32; 3], NavPoint)]) -> Vec<[f32; 3]> {
    let mut crowd = Crowd::new(nav, 128, 0.6).expect("a valid crowd");
    let exact = ScenarioSettings::reference(false, 1).agent_params();
    let params = AgentParams {
        radius: exact.radius,
        height: exact.height,
        max_speed: exact.max_speed,
        max_acceleration: exact.max_acceleration,
        collision_query_range: exact.collision_query_range,
        path_optimization_range: exact.path_optimization_range,
        separation_weight: exact.separation_weight,
        update_flags: UpdateFlags::from_bits_retain(exact.update_flags),
        avoidance_quality: exact.obstacle_avoidance_type,
        arrival_distance: exact.radius,
        // Arrivals are reported; stopping the agents would depart from the exact crowd.
        stop_on_arrival: false,
    };
    let ids: Vec<_> = agents
        .iter()
        .map(|(start, target)| {
            let id = crowd
                .add_agent(nav, *start, params)
                .expect("room for the agent");
            crowd.set_target_point(id, *target).expect("a live agent");
            id
        })
        .collect();
    for _ in 0..STEPS {
        crowd.update(nav, 1.0 / 30.0);
    }
    ids.iter()
        .map(|&id| crowd.position(id).unwrap_or_default())
        .collect()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [what, reference] = args.as_slice() else {
        return Err("usage: game_overhead paths|crowd REFERENCE_DIR".into());
    };
    let nav = load_nav_mesh(&Path::new(reference).join(NAVMESH))?;
    match what.as_str() {
        "paths" => {
            let query = NavMeshQuery::new(&nav, 2048).map_err(|s| format!("query: {s}"))?;
            let pairs = generate_path_pairs(&query, 1000).pairs;
            let exact = exact_paths(&nav, &pairs);
            let game: Vec<Vec<[f32; 3]>> = game_paths(&nav, &pairs)
                .iter()
                .map(|path| {
                    path.as_ref()
                        .map_or_else(Vec::new, |p| p.points().collect())
                })
                .collect();
            if exact != game {
                return Err("the game layer's paths differ from the exact API's".into());
            }
            let corners: usize = game.iter().map(Vec::len).sum();
            println!(
                "{} paths, {corners} waypoints, equal through both APIs",
                game.len()
            );
        }
        "crowd" => {
            let agents = crowd_agents(&nav);
            let exact = exact_crowd(&nav, &agents);
            let game = game_crowd(&nav, &agents);
            if exact != game {
                return Err(
                    "the game crowd's agents ended elsewhere than the exact crowd's".into(),
                );
            }
            println!(
                "{} agents after {STEPS} updates, equal through both APIs",
                game.len()
            );
        }
        other => return Err(format!("unknown workload {other} (paths, crowd)").into()),
    }
    Ok(())
}
