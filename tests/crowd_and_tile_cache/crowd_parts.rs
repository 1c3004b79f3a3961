//! DetourCrowd's building blocks on the reference Solo Mesh navmesh of nav_test.obj, from the
//! `pf` lines of `nav_mesh_test.txt` (skipped without the reference data): corridors follow
//! their paths and stay valid while walked, local boundaries are sorted and in range, the
//! path queue finishes and equals a direct search, and avoidance keeps the desired velocity
//! when nothing is in the way.

use crate::support::queries as query_common;

use navlab::crowd::local_boundary::{LocalBoundary, MAX_LOCAL_POLYS, MAX_LOCAL_SEGS};
use navlab::crowd::obstacle_avoidance::{
    ObstacleAvoidanceDebugData, ObstacleAvoidanceParams, ObstacleAvoidanceQuery,
};
use navlab::crowd::path_corridor::PathCorridor;
use navlab::crowd::path_queue::{
    CROWD_ITERATIONS_PER_UPDATE, CROWD_PATH_QUEUE_NODES, MAX_QUEUE, PATHQ_INVALID, PathQueue,
};
use navlab::detour::common::{Vec3, distance_pt_seg_sqr_2d, sqr, vsub};
use navlab::detour::query::geometry::{vdist_2d, vmad};
use navlab::detour::query::{
    NavMeshQuery, QueryFilter, STRAIGHTPATH_END, STRAIGHTPATH_OFFMESH_CONNECTION, Status,
    StraightPathPoint,
};
use navlab::detour::{NavMesh, PolyRef};
use navlab_app::demo::text::{TestKind, TestLine};
use query_common::{nav_mesh, test_file};

/// The crowd's agent placement box for RecastDemo's agent radius 0.6 (`m_agentPlacementHalfExtents`).
const HALF_EXTENTS: Vec3 = [1.2, 0.9, 1.2];
/// The crowd's corridor and path result size (`m_maxPathResult`).
const MAX_PATH: usize = 256;
/// RecastDemo's agent: collision query range and path optimisation range (radius × 12, × 30).
const COLLISION_QUERY_RANGE: f32 = 7.2;
const PATH_OPTIMIZATION_RANGE: f32 = 18.0;

/// A `pf` line placed on the navmesh: start and end polygons and points.
struct Case {
    filter: QueryFilter,
    start_ref: PolyRef,
    start: Vec3,
    end_ref: PolyRef,
    end: Vec3,
}

/// The reference navmesh and the `pf` lines whose both ends lie on it.
fn setup() -> Option<(NavMesh, Vec<TestLine>)> {
    let nav = nav_mesh("navmesh/nav_test_solo.bin")?;
    let file = test_file("testcases/nav_mesh_test.txt")?;
    let lines = file
        .tests
        .into_iter()
        .filter(|t| t.kind == TestKind::Pathfind)
        .collect();
    Some((nav, lines))
}

fn place(query: &NavMeshQuery<'_>, line: &TestLine) -> Option<Case> {
    let filter = QueryFilter::with_flags(line.include_flags, line.exclude_flags);
    let (_, start) = query.find_nearest_poly(&line.start, &HALF_EXTENTS, &filter);
    let (_, end) = query.find_nearest_poly(&line.end, &HALF_EXTENTS, &filter);
    (start.poly_ref != 0 && end.poly_ref != 0).then_some(Case {
        filter,
        start_ref: start.poly_ref,
        start: start.point,
        end_ref: end.poly_ref,
        end: end.point,
    })
}

fn find_path(query: &mut NavMeshQuery<'_>, case: &Case) -> (Status, Vec<PolyRef>) {
    let mut path = [0; MAX_PATH];
    let (status, n) = query.find_path(
        case.start_ref,
        case.end_ref,
        &case.start,
        &case.end,
        &case.filter,
        &mut path,
    );
    (status, path[..n].to_vec())
}

/// A corner is on the navmesh: the end point is the target, every other corner lies on the
/// boundary of the polygon it enters.
fn assert_corners_on_mesh(
    query: &NavMeshQuery<'_>,
    corridor: &PathCorridor,
    corners: &[StraightPathPoint],
) {
    for c in corners {
        if c.flags & STRAIGHTPATH_END != 0 {
            assert_eq!(c.pos, *corridor.target());
            assert_eq!(c.poly_ref, 0);
            continue;
        }
        assert!(corridor.path().contains(&c.poly_ref), "{c:?}");
        let (status, on_boundary) = query.closest_point_on_poly_boundary(c.poly_ref, &c.pos);
        assert!(status.is_success());
        assert_eq!(on_boundary, c.pos, "corner off its polygon");
    }
}

#[test]
fn corridor_follows_the_path_and_stays_valid_while_walked() {
    let Some((nav, lines)) = setup() else { return };
    let mut query = NavMeshQuery::new(&nav, 2048).expect("query");
    let mut placed = 0;
    for line in &lines {
        let Some(case) = place(&query, line) else {
            continue;
        };
        placed += 1;
        let (status, path) = find_path(&mut query, &case);
        assert!(status.is_success());
        let mut corridor = PathCorridor::new(MAX_PATH).expect("corridor");
        corridor.reset(case.start_ref, &case.start);
        // A partial path ends on the polygon nearest the goal: aim at its closest point.
        let last = *path.last().expect("non-empty path");
        let target = if last == case.end_ref {
            case.end
        } else {
            query.closest_point_on_poly(last, &case.end).1
        };
        corridor.set_corridor(&target, &path);
        assert_eq!(corridor.path(), path);
        assert_eq!(
            (corridor.first_poly(), corridor.last_poly()),
            (path[0], last)
        );

        // All corners at once: they end with the target.
        let mut all = [StraightPathPoint::default(); MAX_PATH];
        let n = corridor.find_corners(&mut all, &query);
        assert!(n > 0 || vdist_2d(&case.start, &target) <= 0.01);
        assert!(
            all[..n]
                .iter()
                .all(|c| c.flags & STRAIGHTPATH_OFFMESH_CONNECTION == 0)
        );
        if n > 0 {
            assert_ne!(all[n - 1].flags & STRAIGHTPATH_END, 0);
            assert_corners_on_mesh(&query, &corridor, &all[..n]);
        }

        // Walk it as the crowd does: steer to the next corner, optimise, move.
        let mut corners = [StraightPathPoint::default(); 4];
        let mut steps = 0;
        loop {
            let n = corridor.find_corners(&mut corners, &query);
            if n == 0 {
                break;
            }
            assert_corners_on_mesh(&query, &corridor, &corners[..n]);
            steps += 1;
            assert!(steps <= 2000, "walk did not reach the target");
            corridor.optimize_path_visibility(
                &corners[0].pos,
                PATH_OPTIMIZATION_RANGE,
                &query,
                &case.filter,
            );
            if steps % 10 == 0 {
                corridor.optimize_path_topology(&mut query, &case.filter);
            }
            let pos = *corridor.pos();
            let to_corner = vsub(&corners[0].pos, &pos);
            let dist = vdist_2d(&pos, &corners[0].pos);
            let step = if dist > 0.5 { 0.5 / dist } else { 1.0 };
            assert!(corridor.move_position(
                &vmad(&pos, &to_corner, step),
                &mut query,
                &case.filter
            ));
            let path = corridor.path();
            assert!(corridor.is_valid(path.len(), &query, &case.filter));
            assert_eq!(corridor.last_poly(), last, "the target's polygon stays");
            // The position stays on the first polygon. On an edge, clamping it onto the
            // boundary can round by an ulp, so this one compares within a few ulps.
            let pos = corridor.pos();
            let (_, clamped) = query.closest_point_on_poly_boundary(path[0], pos);
            for k in [0, 2] {
                let ulps = 4.0 * f32::EPSILON * pos[k].abs().max(1.0);
                assert!(
                    (clamped[k] - pos[k]).abs() <= ulps,
                    "{pos:?} off {clamped:?}"
                );
            }
        }
        assert_eq!(corridor.first_poly(), last);
        assert!(vdist_2d(corridor.pos(), &target) <= 0.01);
    }
    assert!(placed > 10, "only {placed} lines on the navmesh");
}

#[test]
fn local_boundary_segments_are_in_range_and_sorted() {
    let Some((nav, lines)) = setup() else { return };
    let mut query = NavMeshQuery::new(&nav, 512).expect("query");
    for line in &lines {
        let Some(case) = place(&query, line) else {
            continue;
        };
        for (r, pos) in [(case.start_ref, case.start), (case.end_ref, case.end)] {
            let mut boundary = LocalBoundary::new();
            boundary.update(r, &pos, COLLISION_QUERY_RANGE, &mut query, &case.filter);
            assert_eq!(boundary.center(), &pos);
            assert!(boundary.is_valid(&query, &case.filter));
            assert_eq!(boundary.polys()[0], r);
            assert!(boundary.polys().len() <= MAX_LOCAL_POLYS);
            let segs = boundary.segments();
            assert!(!segs.is_empty() && segs.len() <= MAX_LOCAL_SEGS);
            assert!(segs.windows(2).all(|w| w[0].dist_sqr <= w[1].dist_sqr));
            for s in segs {
                let (d, _) = distance_pt_seg_sqr_2d(&pos, &s.start, &s.end);
                assert_eq!(d, s.dist_sqr);
                assert!(d <= sqr(COLLISION_QUERY_RANGE));
            }
        }
    }
}

#[test]
fn path_queue_finishes_within_bounded_updates_and_equals_find_path() {
    let Some((nav, lines)) = setup() else { return };
    let mut direct = NavMeshQuery::new(&nav, CROWD_PATH_QUEUE_NODES).expect("query");
    let mut queue = PathQueue::new(&nav, MAX_PATH, CROWD_PATH_QUEUE_NODES).expect("queue");
    let placer = NavMeshQuery::new(&nav, 512).expect("query");
    let cases: Vec<Case> = lines.iter().filter_map(|l| place(&placer, l)).collect();
    let filters: Vec<QueryFilter> = cases.iter().map(|c| c.filter.clone()).collect();
    // The queue holds 8 requests: submit in batches, and read each result as soon as it is
    // done, as the crowd does (an unread result expires after two more updates).
    for (batch_index, batch) in cases.chunks(MAX_QUEUE).enumerate() {
        let handles: Vec<_> = batch
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let filter = batch_index * MAX_QUEUE + i;
                queue.request(c.start_ref, c.end_ref, &c.start, &c.end, filter)
            })
            .collect();
        assert!(handles.iter().all(|&h| h != PATHQ_INVALID));
        let mut results: Vec<Option<(Status, Vec<PolyRef>)>> = vec![None; handles.len()];
        let mut updates = 0;
        while results.iter().any(Option::is_none) {
            queue.update(CROWD_ITERATIONS_PER_UPDATE, &filters);
            updates += 1;
            assert!(
                updates <= MAX_UPDATES_PER_BATCH,
                "batch {batch_index} did not finish"
            );
            for (&h, result) in handles.iter().zip(&mut results) {
                let s = queue.request_status(h);
                if result.is_none() && (s.is_success() || s.is_failure()) {
                    let mut path = [0; MAX_PATH];
                    let (status, n) = queue.path_result(h, &mut path);
                    *result = Some((status, path[..n].to_vec()));
                }
            }
        }
        for (result, c) in results.into_iter().zip(batch) {
            assert_eq!(result, Some(find_path(&mut direct, c)));
        }
    }
}

/// A search on this 155-polygon navmesh expands each polygon about once, so a batch of 8
/// needs about 8 × 155 iterations, 13 updates of 100; twice that is the bound.
const MAX_UPDATES_PER_BATCH: usize = 26;

#[test]
fn avoidance_keeps_the_desired_velocity_unless_something_is_ahead() {
    let Some((nav, lines)) = setup() else { return };
    let mut query = NavMeshQuery::new(&nav, 512).expect("query");
    let mut avoidance = ObstacleAvoidanceQuery::new(6, 8);
    let mut debug = ObstacleAvoidanceDebugData::new(2048);
    let presets = ObstacleAvoidanceParams::recast_demo_presets();
    let vmax = 3.5;
    for line in &lines {
        let Some(case) = place(&query, line) else {
            continue;
        };
        let (_, path) = find_path(&mut query, &case);
        let mut corridor = PathCorridor::new(MAX_PATH).expect("corridor");
        corridor.reset(case.start_ref, &case.start);
        corridor.set_corridor(&case.end, &path);
        let mut corners = [StraightPathPoint::default(); 4];
        if corridor.find_corners(&mut corners, &query) == 0 {
            continue;
        }
        let dir = vsub(&corners[0].pos, &case.start);
        let len = vdist_2d(&corners[0].pos, &case.start);
        let dvel = [dir[0] / len * vmax, 0.0, dir[2] / len * vmax];
        for params in &presets {
            // Nothing around: the sample nearest the desired velocity wins.
            avoidance.reset();
            let (free, ns) = avoidance.sample_velocity_adaptive(
                &case.start,
                0.6,
                vmax,
                &dvel,
                &dvel,
                params,
                Some(&mut debug),
            );
            // Samples that cannot win are cut short and not recorded.
            assert!(ns > 0 && debug.samples().len() <= ns);
            let best = vdist_2d(&free, &dvel);
            assert!(debug.samples().iter().any(|s| s.vel == free));
            assert!(
                debug
                    .samples()
                    .iter()
                    .all(|s| best <= vdist_2d(&s.vel, &dvel))
            );
            // An agent standing right ahead: the choice changes.
            avoidance.reset();
            let ahead = vmad(&case.start, &dvel, 1.2 / vmax);
            avoidance.add_circle(&ahead, 0.6, &[0.0; 3], &[0.0; 3]);
            let (avoiding, _) = avoidance.sample_velocity_adaptive(
                &case.start,
                0.6,
                vmax,
                &dvel,
                &dvel,
                params,
                None,
            );
            assert_ne!(avoiding, free, "{params:?}");
        }
    }
}
