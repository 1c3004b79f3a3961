//! Bad input to every query: invalid and stale references, non-finite positions, bad extents
//! and radii, empty buffers, bad node counts. Each gives `FAILURE | INVALID_PARAM` (or the
//! C++ result where C++ accepts the input) and nothing panics. Skipped without the reference
//! navmeshes.

use crate::support::queries as query_common;

use navlab::detour::NavMesh;
use navlab::detour::PolyRef;
use navlab::detour::query::path_follow::{fixup_shortcuts, get_steer_target};
use navlab::detour::query::{
    FINDPATH_ANY_ANGLE, MAX_NODES, NavMeshQuery, NeighbourPoly, QueryFilter, RAYCAST_USE_COSTS,
    Status, StraightPathPoint, VisitedPoly, WallSegment,
};

const INVALID: Status = Status::from_bits(Status::FAILURE.bits() | Status::INVALID_PARAM.bits());

/// A valid polygon and a point on it.
fn some_poly(nav: &NavMesh) -> (PolyRef, [f32; 3]) {
    let (tile_ref, tile) = nav.tiles().next().expect("a tile");
    let (verts, nv) = tile.poly_vertices(0).expect("poly 0");
    let c = verts[..nv]
        .iter()
        .fold([0.0f32; 3], |a, v| [a[0] + v[0], a[1] + v[1], a[2] + v[2]]);
    (tile_ref, c.map(|x| x / nv as f32))
}

/// References that name nothing: 0, a tile slot past the grid, a wrong salt, a poly index
/// past the tile.
fn bad_refs(nav: &NavMesh, good: PolyRef) -> Vec<PolyRef> {
    let (salt, tile, _) = nav.decode_poly_id(good);
    vec![
        0,
        PolyRef::MAX,
        nav.encode_poly_id(salt + 1, tile, 0),
        nav.encode_poly_id(salt, tile, 0xfff),
        good ^ 0x8000_0000,
    ]
}

fn check_all_queries(nav: &NavMesh) {
    let filter = QueryFilter::default();
    let (good, center) = some_poly(nav);
    let mut q = NavMeshQuery::new(nav, 256).expect("query");
    let nan = [f32::NAN, 0.0, 0.0];
    let inf = [0.0, f32::INFINITY, 0.0];
    let ext = [2.0, 4.0, 2.0];
    let mut path: [PolyRef; 16] = [0; 16];
    let mut straight = [StraightPathPoint::default(); 16];
    let mut visited = [VisitedPoly::default(); 16];
    let mut neighbours = [NeighbourPoly::default(); 16];
    let mut segs = [WallSegment::default(); 16];
    let mut rand = || 0.5f32;

    for r in bad_refs(nav, good) {
        assert_eq!(
            q.find_path(r, good, &center, &center, &filter, &mut path).0,
            INVALID
        );
        assert_eq!(
            q.find_path(good, r, &center, &center, &filter, &mut path).0,
            INVALID
        );
        assert_eq!(q.closest_point_on_poly(r, &center).0, INVALID);
        assert_eq!(q.closest_point_on_poly_boundary(r, &center).0, INVALID);
        assert_eq!(q.get_poly_height(r, &center).0, INVALID);
        assert_eq!(
            q.raycast(r, &center, &center, &filter, &mut path).0,
            INVALID
        );
        assert_eq!(
            q.raycast_with_options(
                good,
                &center,
                &center,
                &filter,
                RAYCAST_USE_COSTS,
                r | 1,
                &mut path
            )
            .0,
            if r | 1 == good {
                Status::SUCCESS
            } else {
                INVALID
            }
        );
        assert_eq!(
            q.move_along_surface(r, &center, &center, &filter, &mut path)
                .0,
            INVALID
        );
        assert_eq!(
            q.find_polys_around_circle(r, &center, 5.0, &filter, &mut visited)
                .0,
            INVALID
        );
        let shape = [
            center,
            [center[0] + 1.0, center[1], center[2]],
            [center[0], center[1], center[2] + 1.0],
        ];
        assert_eq!(
            q.find_polys_around_shape(r, &shape, &filter, &mut visited)
                .0,
            INVALID
        );
        assert_eq!(
            q.find_local_neighbourhood(r, &center, 5.0, &filter, &mut neighbours)
                .0,
            INVALID
        );
        assert_eq!(
            q.get_poly_wall_segments(r, &filter, true, &mut segs).0,
            INVALID
        );
        assert_eq!(q.find_distance_to_wall(r, &center, 5.0, &filter).0, INVALID);
        assert_eq!(
            q.find_random_point_around_circle(r, &center, 5.0, &filter, &mut rand)
                .0,
            INVALID
        );
        assert_eq!(
            q.init_sliced_find_path(r, good, &center, &center, &filter, 0),
            INVALID
        );
        assert_eq!(q.update_sliced_find_path(&filter, 10).0, Status::FAILURE);
        assert_eq!(
            q.finalize_sliced_find_path(&filter, &mut path).0,
            Status::FAILURE
        );
        assert_eq!(q.get_path_from_dijkstra_search(r, &mut path).0, INVALID);
        assert!(!q.is_valid_poly_ref(r, &filter));
        assert!(!q.is_in_closed_list(r));
        // A corridor starting with a bad polygon has no straight path.
        let (s, n) = q.find_straight_path(&center, &center, &[r, good], &mut straight, 0);
        assert!(s.is_failure() && n == 0, "{s}");
        // A bad last polygon fails; a bad polygon inside a corridor ends it there, as C++
        // does.
        let (s, _) = q.find_straight_path(&center, &center, &[good, r], &mut straight, 0);
        assert!(s.is_failure(), "{s}");
        let (s, n) = q.find_straight_path(&center, &center, &[good, r, good], &mut straight, 0);
        assert!(
            s.is_success() && s.has_detail(Status::PARTIAL_RESULT) && n >= 1,
            "{s}"
        );
        let mut corridor = [r, good, good];
        assert_eq!(fixup_shortcuts(&mut corridor, 3, nav), 3);
        assert!(get_steer_target(&q, &center, &center, 0.01, &[r]).is_none());
    }

    for p in [nan, inf] {
        assert_eq!(q.find_nearest_poly(&p, &ext, &filter).0, INVALID);
        assert_eq!(q.find_nearest_poly(&center, &p, &filter).0, INVALID);
        assert_eq!(q.query_polygons(&p, &ext, &filter, &mut path).0, INVALID);
        assert_eq!(
            q.find_path(good, good, &p, &center, &filter, &mut path).0,
            INVALID
        );
        assert_eq!(
            q.find_path(good, good, &center, &p, &filter, &mut path).0,
            INVALID
        );
        assert_eq!(
            q.find_straight_path(&p, &center, &[good], &mut straight, 0)
                .0,
            INVALID
        );
        assert_eq!(q.closest_point_on_poly(good, &p).0, INVALID);
        assert_eq!(q.closest_point_on_poly_boundary(good, &p).0, INVALID);
        assert_eq!(q.raycast(good, &center, &p, &filter, &mut path).0, INVALID);
        assert_eq!(
            q.move_along_surface(good, &p, &center, &filter, &mut path)
                .0,
            INVALID
        );
        assert_eq!(
            q.find_polys_around_circle(good, &p, 5.0, &filter, &mut visited)
                .0,
            INVALID
        );
        assert_eq!(
            q.find_polys_around_shape(good, &[center, p, center], &filter, &mut visited)
                .0,
            INVALID
        );
        assert_eq!(
            q.find_local_neighbourhood(good, &p, 5.0, &filter, &mut neighbours)
                .0,
            INVALID
        );
        assert_eq!(q.find_distance_to_wall(good, &p, 5.0, &filter).0, INVALID);
        assert_eq!(
            q.init_sliced_find_path(good, good, &p, &center, &filter, FINDPATH_ANY_ANGLE),
            INVALID
        );
    }
    // getPolyHeight only needs x and z.
    assert_eq!(q.get_poly_height(good, &nan).0, INVALID);
    assert!(
        !q.get_poly_height(good, &[center[0], f32::NAN, center[2]])
            .0
            .is_failure()
    );

    // Extents must be positive and finite; radii non-negative and finite.
    for e in [
        [0.0, 4.0, 2.0],
        [2.0, -1.0, 2.0],
        [2.0, 4.0, f32::NAN],
        [f32::INFINITY, 1.0, 1.0],
    ] {
        assert_eq!(
            q.find_nearest_poly(&center, &e, &filter).0,
            INVALID,
            "{e:?}"
        );
        assert_eq!(
            q.query_polygons(&center, &e, &filter, &mut path).0,
            INVALID,
            "{e:?}"
        );
    }
    for radius in [-1.0, f32::NAN, f32::INFINITY] {
        assert_eq!(
            q.find_polys_around_circle(good, &center, radius, &filter, &mut visited)
                .0,
            INVALID
        );
        assert_eq!(
            q.find_local_neighbourhood(good, &center, radius, &filter, &mut neighbours)
                .0,
            INVALID
        );
        assert_eq!(
            q.find_distance_to_wall(good, &center, radius, &filter).0,
            INVALID
        );
        assert_eq!(
            q.find_random_point_around_circle(good, &center, radius, &filter, &mut rand)
                .0,
            INVALID
        );
    }
    // A shape needs 3 vertices.
    assert_eq!(
        q.find_polys_around_shape(good, &[center, center], &filter, &mut visited)
            .0,
        INVALID
    );

    // Empty buffers where C++ needs room.
    assert_eq!(
        q.find_path(good, good, &center, &center, &filter, &mut [])
            .0,
        INVALID
    );
    assert_eq!(
        q.find_straight_path(&center, &center, &[good], &mut [], 0)
            .0,
        INVALID
    );
    assert_eq!(
        q.find_straight_path(&center, &center, &[], &mut straight, 0)
            .0,
        INVALID
    );
    assert_eq!(
        q.move_along_surface(good, &center, &center, &filter, &mut [])
            .0,
        INVALID
    );
    assert_eq!(q.finalize_sliced_find_path(&filter, &mut []).0, INVALID);
    assert_eq!(
        q.finalize_sliced_find_path_partial(&filter, &[], &mut path)
            .0,
        INVALID
    );
    // Empty buffers C++ accepts: the result is cut to nothing.
    let (s, n) = q.query_polygons(&center, &ext, &filter, &mut []);
    assert_eq!((s, n), (Status::SUCCESS | Status::BUFFER_TOO_SMALL, 0));
    let (s, n) = q.find_polys_around_circle(good, &center, 5.0, &filter, &mut []);
    assert!(s.has_detail(Status::BUFFER_TOO_SMALL) && n == 0);
    let (s, n) = q.find_local_neighbourhood(good, &center, 5.0, &filter, &mut []);
    assert!(s.has_detail(Status::BUFFER_TOO_SMALL) && n == 0);
    let (s, hit) = q.raycast(
        good,
        &center,
        &[center[0] + 50.0, center[1], center[2]],
        &filter,
        &mut [],
    );
    assert!(!s.is_failure() && hit.path_count == 0);
    let (s, _) = q.get_poly_wall_segments(good, &filter, true, &mut []);
    assert!(s.has_detail(Status::BUFFER_TOO_SMALL));

    // Huge but finite input is fine: a box over the whole float range, far points.
    let far = [1e30, 1e30, -1e30];
    assert_eq!(q.find_nearest_poly(&far, &ext, &filter).0, Status::SUCCESS);
    assert!(
        !q.query_polygons(&center, &[1e30, 1e30, 1e30], &filter, &mut path)
            .0
            .is_failure()
    );
    let _ = q.raycast(good, &center, &far, &filter, &mut path);
    let _ = q.move_along_surface(good, &center, &far, &filter, &mut path);
    let _ = q.find_path(good, good, &far, &far, &filter, &mut path);
    let _ = q.find_polys_around_circle(good, &center, f32::MAX, &filter, &mut visited);
    let _ = q.find_distance_to_wall(good, &center, f32::MAX, &filter);
    let _ = q.find_random_point(&filter, &mut || 0.999_999);
    // A random source outside [0, 1) does not break anything either.
    let _ = q.find_random_point(&filter, &mut || f32::NAN);
    let _ = q.find_random_point_around_circle(good, &center, 5.0, &filter, &mut || -3.0);
}

#[test]
fn bad_input_on_solo_and_tiled_navmeshes() {
    for file in ["navmesh/nav_test_solo.bin", "navmesh/nav_test_tiled32.bin"] {
        let Some(nav) = query_common::nav_mesh(file) else {
            return;
        };
        check_all_queries(&nav);
    }
}

#[test]
fn stale_references_after_a_tile_is_replaced() {
    let Some(mut nav) = query_common::nav_mesh("navmesh/nav_test_tiled32.bin") else {
        return;
    };
    let (tile_ref, _) = nav.tiles().nth(3).expect("tile 3");
    let stale = tile_ref | 1;
    let tile = nav.remove_tile(tile_ref).expect("remove");
    nav.add_tile(tile, 0).expect("re-add under a new salt");
    let filter = QueryFilter::default();
    let mut q = NavMeshQuery::new(&nav, 512).expect("query");
    let (_, p) = some_poly(&nav);
    let mut path: [PolyRef; 8] = [0; 8];
    assert_eq!(
        q.find_path(stale, stale, &p, &p, &filter, &mut path).0,
        INVALID
    );
    assert_eq!(q.closest_point_on_poly(stale, &p).0, INVALID);
    assert_eq!(q.raycast(stale, &p, &p, &filter, &mut path).0, INVALID);
    assert!(!q.is_valid_poly_ref(stale, &filter));
}

#[test]
fn node_pool_sizes() {
    let Some(nav) = query_common::nav_mesh("navmesh/nav_test_solo.bin") else {
        return;
    };
    assert_eq!(NavMeshQuery::new(&nav, 0).err(), Some(INVALID));
    assert_eq!(NavMeshQuery::new(&nav, MAX_NODES + 1).err(), Some(INVALID));
    assert!(NavMeshQuery::new(&nav, MAX_NODES).is_ok());
    // A one-node pool runs out at once but still answers.
    let mut q = NavMeshQuery::new(&nav, 1).expect("1 node");
    let filter = QueryFilter::default();
    let (a, pa) = some_poly(&nav);
    let b = a + 100;
    let (_, pb, _) = q.closest_point_on_poly(b, &pa);
    let mut path: [PolyRef; 8] = [0; 8];
    let (s, n) = q.find_path(a, b, &pa, &pb, &filter, &mut path);
    assert!(s.has_detail(Status::OUT_OF_NODES) && s.has_detail(Status::PARTIAL_RESULT));
    assert_eq!(&path[..n], [a]);
    assert_eq!(q.node_pool().node_count(), 1);
    assert_eq!(q.node_pool().hash_size(), 1);
}
