//! The game-facing layer gives what the exact API gives for the same input (navmesh bytes,
//! paths, crowd steps, carved tiles), names its failures, and keeps its threading promises.

use std::sync::Arc;

use navlab::bake::solo::{Build, Retention};
use navlab::bake::temp_obstacles::TempObstaclesBuild;
use navlab::bake::tiled::TiledBuild;
use navlab::crowd::ObstacleAvoidanceParams;
use navlab::detour::query::{NavMeshQuery, StraightPathPoint};
use navlab::game::{QueryResult, RayHit, UNWALKABLE, WallDistance};
use navlab::input::InputGeom;
use navlab::prelude::*;
use navlab::tile_cache::builder::ObstacleShape;

fn city() -> TriMesh {
    navlab::input::scene::city(3)
}

fn floor(size: f32) -> (Vec<[f32; 3]>, Vec<u32>) {
    (
        vec![
            [0.0, 0.0, 0.0],
            [0.0, 0.0, size],
            [size, 0.0, size],
            [size, 0.0, 0.0],
        ],
        vec![0, 1, 2, 0, 2, 3],
    )
}

#[test]
fn the_builder_bakes_what_the_solo_and_tiled_pipelines_bake() {
    let mesh = city();
    let settings = BuildSettings::default();
    let input = InputGeom::from_mesh(mesh.clone()).unwrap();

    let solo = NavMeshBuilder::new(settings.clone())
        .mesh(&mesh)
        .build()
        .unwrap();
    let exact = Build::from_input_keeping(&input, settings.clone(), Retention::Final).unwrap();
    assert_eq!(
        solo.to_mset_bytes(),
        exact.nav_mesh.unwrap().to_mset_bytes()
    );

    let tiled = NavMeshBuilder::new(settings.clone())
        .mesh(&mesh)
        .tiled(24)
        .build()
        .unwrap();
    let exact = TiledBuild::new(&input, settings, 24).unwrap();
    assert_eq!(tiled.to_mset_bytes(), exact.nav_mesh.to_mset_bytes());
}

#[test]
fn triangle_areas_give_their_flags_and_unwalkable_triangles_no_polygons() {
    // Two floors side by side: water on the left, never walkable on the right.
    let vertices = [
        [0.0, 0.0, 0.0],
        [0.0, 0.0, 10.0],
        [10.0, 0.0, 10.0],
        [10.0, 0.0, 0.0],
        [20.0, 0.0, 10.0],
        [20.0, 0.0, 0.0],
    ];
    let nav = NavMeshBuilder::new(BuildSettings::default())
        .triangles(&vertices, &[0, 1, 2, 0, 2, 3, 3, 2, 4, 3, 4, 5])
        .triangle_areas(&[area::WATER, area::WATER, UNWALKABLE, UNWALKABLE])
        .build()
        .unwrap();
    let polys: Vec<_> = nav
        .tiles()
        .flat_map(|(_, tile)| tile.polys().to_vec())
        .collect();
    assert!(!polys.is_empty());
    for poly in &polys {
        assert_eq!(poly.area(), area::WATER);
        assert_eq!(PolyFlags::from_bits_retain(poly.flags), PolyFlags::SWIM);
    }
    let over_right = nav.nearest_point([15.0, 0.0, 5.0], &QueryFilter::default());
    assert!(matches!(over_right, Err(QueryError::NoPolygonNear { .. })));
}

#[test]
fn bad_triangles_are_refused_with_a_message() {
    let (vertices, _) = floor(10.0);
    let error = NavMeshBuilder::new(BuildSettings::default())
        .triangles(&vertices, &[0, 1, 7])
        .build()
        .unwrap_err();
    assert!(error.to_string().contains("out of range"), "{error}");
    let error = NavMeshBuilder::new(BuildSettings::default())
        .triangles(&vertices, &[0, 1])
        .build()
        .unwrap_err();
    assert!(error.to_string().contains("whole triangles"), "{error}");
    let error = NavMeshBuilder::new(BuildSettings::default())
        .triangles(&vertices, &[0, 1, 2])
        .triangle_areas(&[area::WATER, area::WATER])
        .build()
        .unwrap_err();
    assert!(
        error.to_string().contains("2 triangle areas for 1"),
        "{error}"
    );
    let error = NavMeshBuilder::new(BuildSettings::default())
        .build()
        .unwrap_err();
    assert!(error.to_string().contains("no triangles"), "{error}");
}

/// The exact API's path between the same two points, as the game layer finds it.
fn exact_path(
    nav: &NavMesh,
    start: [f32; 3],
    end: [f32; 3],
) -> (Vec<PolyRef>, Vec<StraightPathPoint>) {
    let filter = QueryFilter::default();
    let mut query = NavMeshQuery::new(nav, 2048).unwrap();
    let extents = [2.0, 4.0, 2.0];
    let from = query.find_nearest_poly(&start, &extents, &filter).1;
    let to = query.find_nearest_poly(&end, &extents, &filter).1;
    let mut polys = vec![0; 2048];
    let (_, n) = query.find_path(
        from.poly_ref,
        to.poly_ref,
        &from.point,
        &to.point,
        &filter,
        &mut polys,
    );
    polys.truncate(n);
    let mut corners = vec![StraightPathPoint::default(); 256];
    let (_, m) = query.find_straight_path(&from.point, &to.point, &polys, &mut corners, 0);
    corners.truncate(m);
    (polys, corners)
}

#[test]
fn paths_are_the_exact_apis_paths() {
    let nav = NavMeshBuilder::new(BuildSettings::default())
        .mesh(&city())
        .tiled(16)
        .build()
        .unwrap();
    let ends = [
        ([1.0, 0.0, 1.0], [35.0, 0.0, 35.0]),
        ([13.0, 0.0, 1.0], [1.0, 0.0, 25.0]),
        ([1.0, 0.0, 13.5], [35.0, 0.0, 13.5]),
    ];
    let mut query = NavQuery::new();
    for (start, end) in ends {
        let path = nav.find_path(start, end, &QueryFilter::default()).unwrap();
        let (polys, corners) = exact_path(&nav, start, end);
        assert_eq!(path.polys, polys);
        let points: Vec<[f32; 3]> = path.points().collect();
        let exact: Vec<[f32; 3]> = corners.iter().map(|c| c.pos).collect();
        assert_eq!(points, exact);
        assert_eq!(path.waypoints[0].kind, WaypointKind::Start);
        assert_eq!(path.waypoints.last().unwrap().kind, WaypointKind::End);
        assert_eq!(
            query
                .find_path(&nav, start, end, &QueryFilter::default())
                .unwrap(),
            path
        );
    }
}

#[test]
fn query_failures_are_named() {
    // Two floors 10 m apart with nothing between them.
    let (mut vertices, mut indices) = floor(10.0);
    vertices.extend([
        [20.0, 0.0, 0.0],
        [20.0, 0.0, 10.0],
        [30.0, 0.0, 10.0],
        [30.0, 0.0, 0.0],
    ]);
    indices.extend([4, 5, 6, 4, 6, 7]);
    let nav = NavMeshBuilder::new(BuildSettings::default())
        .triangles(&vertices, &indices)
        .build()
        .unwrap();
    let filter = QueryFilter::default();

    let far = nav.find_path([5.0, 0.0, 5.0], [5.0, 0.0, 50.0], &filter);
    assert!(
        matches!(far, Err(QueryError::NoPolygonNearEnd { .. })),
        "{far:?}"
    );
    let far = nav.find_path([5.0, 30.0, 5.0], [5.0, 0.0, 5.0], &filter);
    assert!(
        matches!(far, Err(QueryError::NoPolygonNearStart { .. })),
        "{far:?}"
    );

    let across = nav
        .find_path([5.0, 0.0, 5.0], [25.0, 0.0, 5.0], &filter)
        .unwrap_err();
    assert!(across.to_string().contains("cannot be reached"), "{across}");
    let partial = across.into_partial_path().expect("a partial path");
    let stop = partial.end().unwrap();
    assert!(
        stop[0] < 10.0,
        "the partial path stays on the first floor: {stop:?}"
    );

    let nan = nav.find_path([f32::NAN, 0.0, 5.0], [5.0, 0.0, 5.0], &filter);
    assert_eq!(nan, Err(QueryError::NotFinite));
    assert!(matches!(
        NavQuery::with_max_nodes(0),
        Err(QueryError::BadNodeCount(0))
    ));
    assert!(matches!(
        NavQuery::with_max_nodes(70_000),
        Err(QueryError::BadNodeCount(70_000))
    ));

    // A tiny node budget runs out on a long path and says so.
    let nav = NavMeshBuilder::new(BuildSettings::default())
        .mesh(&city())
        .tiled(16)
        .build()
        .unwrap();
    let mut small = NavQuery::with_max_nodes(4).unwrap();
    let out = small.find_path(&nav, [1.0, 0.0, 1.0], [35.0, 0.0, 35.0], &filter);
    assert!(matches!(out, Err(QueryError::OutOfNodes(_))), "{out:?}");
}

#[test]
fn the_other_queries_answer_on_an_open_floor() {
    let (vertices, indices) = floor(20.0);
    let nav = NavMeshBuilder::new(BuildSettings::default())
        .triangles(&vertices, &indices)
        .build()
        .unwrap();
    let filter = QueryFilter::default();

    let point = nav.nearest_point([5.0, 1.0, 5.0], &filter).unwrap();
    assert!((point.position[1] - 0.0).abs() < 0.3 && point.poly != 0);

    let clear: RayHit = nav
        .raycast([5.0, 0.0, 5.0], [10.0, 0.0, 10.0], &filter)
        .unwrap();
    assert_eq!(clear.wall, None);
    assert_eq!([clear.position[0], clear.position[2]], [10.0, 10.0]);
    assert!(!clear.polys.is_empty());
    let blocked = nav
        .raycast([5.0, 0.0, 5.0], [30.0, 0.0, 5.0], &filter)
        .unwrap();
    let wall = blocked.wall.expect("the floor's edge stops the ray");
    assert!(wall.t > 0.0 && wall.t < 1.0 && blocked.position[0] < 20.0);

    let wall: WallDistance = nav
        .distance_to_wall([3.0, 0.0, 10.0], 5.0, &filter)
        .unwrap();
    let edge = wall.point.expect("the west edge is within 5 m");
    assert!((wall.distance - (3.0 - edge[0])).abs() < 1e-3, "{wall:?}");
    let none = nav
        .distance_to_wall([10.0, 0.0, 10.0], 1.0, &filter)
        .unwrap();
    assert_eq!(none.point, None);
    assert!(
        nav.distance_to_wall([10.0, 0.0, 10.0], f32::NAN, &filter)
            .is_err()
    );

    let moved = nav
        .move_along_surface(point, [30.0, 0.0, 5.0], &filter)
        .unwrap();
    assert!(
        moved.position[0] < 20.0 && moved.position[0] > 18.0,
        "slides to the edge: {moved:?}"
    );

    let mut seed = 1u32;
    let mut random = move || {
        seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        (seed >> 8) as f32 / (1u32 << 24) as f32
    };
    for _ in 0..20 {
        let p = nav.random_point(&filter, &mut random).unwrap();
        assert!((0.0..=20.0).contains(&p.position[0]) && (0.0..=20.0).contains(&p.position[2]));
    }
    let stale = navlab::game::NavPoint {
        poly: 0xdead_beef,
        position: [1.0, 0.0, 1.0],
    };
    let result: QueryResult<_> = nav.move_along_surface(stale, [2.0, 0.0, 2.0], &filter);
    assert!(matches!(result, Err(QueryError::StalePolygon(_))));
}

#[test]
fn navmeshes_are_shared_between_threads_and_queries_are_per_thread() {
    fn send_sync<T: Send + Sync>() {}
    fn send<T: Send>() {}
    send_sync::<NavMesh>();
    send::<NavQuery>();
    send::<Crowd>();
    send::<TileCache>();

    let nav = Arc::new(
        NavMeshBuilder::new(BuildSettings::default())
            .mesh(&city())
            .tiled(16)
            .build()
            .unwrap(),
    );
    let expected = nav
        .find_path([1.0, 0.0, 1.0], [35.0, 0.0, 35.0], &QueryFilter::default())
        .unwrap();
    let paths: Vec<Path> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..4)
            .map(|_| {
                let nav = Arc::clone(&nav);
                s.spawn(move || {
                    (0..10)
                        .map(|_| {
                            nav.find_path(
                                [1.0, 0.0, 1.0],
                                [35.0, 0.0, 35.0],
                                &QueryFilter::default(),
                            )
                            .unwrap()
                        })
                        .collect::<Vec<Path>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect()
    });
    for path in paths {
        assert_eq!(path, expected);
    }
}

#[test]
fn the_crowd_steps_as_the_exact_crowd_does() {
    let nav = NavMeshBuilder::new(BuildSettings::default())
        .mesh(&city())
        .tiled(16)
        .build()
        .unwrap();
    let starts = [[1.0, 0.0, 1.0], [13.0, 0.0, 1.5], [1.5, 0.0, 25.0]];
    let target = [35.0, 0.0, 35.0];
    let params = AgentParams::default();

    let mut game = Crowd::new(&nav, 8, 0.6).unwrap();
    let ids: Vec<AgentId> = starts
        .iter()
        .map(|&s| game.add_agent(&nav, s, params).unwrap())
        .collect();
    for &id in &ids {
        game.set_target(&nav, id, target).unwrap();
    }

    let mut exact = navlab::crowd::Crowd::new(8, 0.6, &nav).unwrap();
    for (i, p) in ObstacleAvoidanceParams::recast_demo_presets()
        .iter()
        .enumerate()
    {
        exact.set_obstacle_avoidance_params(i, p);
    }
    let goal = nav.nearest_point(target, &QueryFilter::default()).unwrap();
    for &s in &starts {
        let index = exact.add_agent(&s, &params.to_crowd_params()).unwrap();
        exact.request_move_target(index, goal.poly, &goal.position);
    }
    for _ in 0..90 {
        game.update(&nav, 1.0 / 30.0);
        exact.update(1.0 / 30.0, None);
        for (k, &id) in ids.iter().enumerate() {
            if game.has_target(id).unwrap() {
                assert_eq!(game.position(id).unwrap(), exact.agent(k).unwrap().npos);
            }
        }
    }
}

#[test]
fn agent_ids_go_stale_and_events_tell_arrivals() {
    let (vertices, indices) = floor(20.0);
    let nav = NavMeshBuilder::new(BuildSettings::default())
        .triangles(&vertices, &indices)
        .build()
        .unwrap();
    let mut crowd = Crowd::new(&nav, 2, 0.6).unwrap();
    let a = crowd
        .add_agent(&nav, [3.0, 0.0, 3.0], AgentParams::default())
        .unwrap();
    let b = crowd
        .add_agent(&nav, [3.0, 0.0, 17.0], AgentParams::default())
        .unwrap();
    assert_eq!(
        crowd.add_agent(&nav, [5.0, 0.0, 5.0], AgentParams::default()),
        Err(navlab::game::CrowdError::Full)
    );
    crowd.remove_agent(b).unwrap();
    assert_eq!(
        crowd.position(b),
        Err(navlab::game::CrowdError::StaleAgent(b))
    );
    let c = crowd
        .add_agent(&nav, [10.0, 0.0, 10.0], AgentParams::default())
        .unwrap();
    assert_eq!(c.index(), b.index());
    assert!(
        crowd.set_target(&nav, b, [1.0, 0.0, 1.0]).is_err(),
        "b's slot now holds c"
    );
    assert!(matches!(
        crowd.set_target(&nav, a, [3.0, 0.0, 60.0]),
        Err(navlab::game::CrowdError::NoPolygonNear { .. })
    ));
    assert!(
        crowd
            .add_agent(&nav, [f32::INFINITY, 0.0, 0.0], AgentParams::default())
            .is_err()
    );

    crowd.set_target(&nav, a, [17.0, 0.0, 17.0]).unwrap();
    let mut arrived_at = None;
    for step in 0..300 {
        crowd.update(&nav, 1.0 / 30.0);
        if crowd.events().contains(&AgentEvent::Arrived(a)) {
            arrived_at = Some(step);
            break;
        }
    }
    assert!(arrived_at.is_some(), "the agent arrives within ten seconds");
    assert!(!crowd.has_target(a).unwrap());
    assert_eq!(crowd.len(), 2);
}

#[test]
fn obstacles_carve_the_tiles_the_exact_tile_cache_carves() {
    let mesh = city();
    let settings = BuildSettings::default();
    let (mut cache, mut nav) = NavMeshBuilder::new(settings.clone())
        .mesh(&mesh)
        .build_tile_cache(48)
        .unwrap();
    let input = InputGeom::from_mesh(mesh).unwrap();
    let mut exact = TempObstaclesBuild::new(&input, &settings, 48).unwrap();
    assert_eq!(nav.to_mset_bytes(), exact.nav_mesh.to_mset_bytes());

    let shapes = [
        Obstacle::Cylinder {
            base: [13.5, 0.0, 13.5],
            radius: 1.0,
            height: 2.0,
        },
        Obstacle::Aabb {
            min: [1.0, -0.5, 20.0],
            max: [2.5, 2.0, 22.0],
        },
        Obstacle::OrientedBox {
            center: [25.0, 1.0, 13.5],
            half_extents: [1.0, 1.0, 0.5],
            y_rotation: 0.6,
        },
    ];
    let mut ids = Vec::new();
    for shape in shapes {
        ids.push(cache.add_obstacle(shape).unwrap());
    }
    let changed = cache.update(&mut nav).unwrap();
    assert!(!changed.is_empty() && cache.is_up_to_date());
    let exact_shapes = [
        ObstacleShape::Cylinder {
            pos: [13.5, 0.0, 13.5],
            radius: 1.0,
            height: 2.0,
        },
        ObstacleShape::Box {
            bmin: [1.0, -0.5, 20.0],
            bmax: [2.5, 2.0, 22.0],
        },
        ObstacleShape::oriented_box([25.0, 1.0, 13.5], [1.0, 1.0, 0.5], 0.6),
    ];
    for shape in exact_shapes {
        exact.add_obstacle(shape).unwrap();
    }
    while exact.update().unwrap() {}
    assert_eq!(nav.to_mset_bytes(), exact.nav_mesh.to_mset_bytes());

    cache
        .move_obstacle(
            ids[0],
            Obstacle::Cylinder {
                base: [20.0, 0.0, 13.5],
                radius: 1.0,
                height: 2.0,
            },
        )
        .unwrap();
    assert!(!cache.update(&mut nav).unwrap().is_empty());
    cache.remove_obstacle(ids[1]).unwrap();
    cache.update(&mut nav).unwrap();
    assert!(cache.remove_obstacle(ids[1]).is_err(), "the id went stale");
    assert!(
        cache
            .add_obstacle(Obstacle::Cylinder {
                base: [f32::NAN, 0.0, 0.0],
                radius: 1.0,
                height: 1.0
            })
            .is_err()
    );
}

/// A tile's grid place, vertices and polygon areas.
type TileSummary = ((i32, i32, i32), Vec<[f32; 3]>, Vec<u8>);

/// The polygons of every tile, by grid place, without the references that a rebuilt tile
/// changes.
fn tile_polygons(nav: &NavMesh) -> Vec<TileSummary> {
    let mut tiles: Vec<_> = nav
        .tiles()
        .map(|(_, tile)| {
            let header = tile.header();
            (
                (header.x, header.y, header.layer),
                tile.verts().to_vec(),
                tile.polys().iter().map(|p| p.area()).collect(),
            )
        })
        .collect();
    tiles.sort_by_key(|t| t.0);
    tiles
}

#[test]
fn rebaking_a_region_gives_the_tiles_a_whole_bake_gives() {
    // A ground with a wall; the wall then moves 3 m and the level gets a new crate.
    let (ground, ground_indices) = floor(30.0);
    let wall = |x: f32| {
        let c = [
            [x, 0.0, 5.0],
            [x + 1.0, 0.0, 5.0],
            [x + 1.0, 0.0, 25.0],
            [x, 0.0, 25.0],
            [x, 3.0, 5.0],
            [x + 1.0, 3.0, 5.0],
            [x + 1.0, 3.0, 25.0],
            [x, 3.0, 25.0],
        ];
        let sides = [
            0, 1, 5, 0, 5, 4, 1, 2, 6, 1, 6, 5, 2, 3, 7, 2, 7, 6, 3, 0, 4, 3, 4, 7, 4, 5, 6, 4, 6,
            7,
        ];
        (c.to_vec(), sides.to_vec())
    };
    let level = |x: f32| {
        let (w, wi) = wall(x);
        NavMeshBuilder::new(BuildSettings::default())
            .triangles(&ground, &ground_indices)
            .triangles(&w, &wi)
    };
    let (mut cache, mut nav) = level(10.0).build_tile_cache(16).unwrap();
    // An obstacle the re-bake must carve into the new tiles too.
    cache
        .add_obstacle(Obstacle::Cylinder {
            base: [12.0, 0.0, 15.0],
            radius: 1.0,
            height: 2.0,
        })
        .unwrap();
    cache.update(&mut nav).unwrap();

    let moved = level(13.0);
    let changed = moved
        .rebake_tiles(&mut cache, &mut nav, [10.0, 0.0, 5.0], [14.0, 3.0, 25.0])
        .unwrap();
    assert!(!changed.is_empty());
    assert!(
        cache
            .tiles_touching([10.0, 0.0, 5.0], [14.0, 3.0, 25.0])
            .len()
            < 7 * 7
    );

    let (mut whole_cache, mut whole) = moved.build_tile_cache(16).unwrap();
    whole_cache
        .add_obstacle(Obstacle::Cylinder {
            base: [12.0, 0.0, 15.0],
            radius: 1.0,
            height: 2.0,
        })
        .unwrap();
    whole_cache.update(&mut whole).unwrap();
    assert_eq!(tile_polygons(&nav), tile_polygons(&whole));
    assert!(
        cache
            .tiles_touching([100.0, 0.0, 100.0], [101.0, 1.0, 101.0])
            .is_empty()
    );
}
