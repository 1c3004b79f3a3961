//! Random queries on the reference navmeshes (skipped without them), checking what must hold
//! whatever the input: paths start at the start polygon, end at the end polygon unless
//! partial, and step only between linked polygons; straight-path corners lie on their
//! polygons; raycast `t` is in [0, 1] or `f32::MAX`; nothing panics.

use crate::support::queries as query_common;

use std::sync::OnceLock;

use navlab::detour::NavMesh;
use navlab::detour::PolyRef;
use navlab::detour::query::{
    FINDPATH_ANY_ANGLE, NavMeshQuery, NeighbourPoly, QueryFilter, STRAIGHTPATH_ALL_CROSSINGS,
    Status, StraightPathPoint, VisitedPoly, WallSegment,
};
use navlab_app::demo::workloads::nav_mesh_bounds;
use proptest::prelude::*;

fn meshes() -> &'static [NavMesh] {
    static MESHES: OnceLock<Vec<NavMesh>> = OnceLock::new();
    MESHES.get_or_init(|| {
        [
            "navmesh/nav_test_solo.bin",
            "navmesh/nav_test_tiled32.bin",
            "navmesh/dungeon_tiled32.bin",
        ]
        .iter()
        .filter_map(|f| query_common::nav_mesh(f))
        .collect()
    })
}

/// A random polygon and point on it, from a seed.
fn random_start(q: &NavMeshQuery<'_>, seed: u32) -> (PolyRef, [f32; 3]) {
    let mut x = seed;
    let mut rand = move || {
        x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        (x >> 8) as f32 / 16_777_216.0
    };
    let (_, r, p) = q.find_random_point(&QueryFilter::default(), &mut rand);
    (r, p)
}

/// A point of mesh `m`'s bounds (grown by 10%) from unit coordinates.
fn point_in(nav: &NavMesh, u: [f32; 3]) -> [f32; 3] {
    let (bmin, bmax) = nav_mesh_bounds(nav).expect("tiles");
    std::array::from_fn(|k| {
        let pad = (bmax[k] - bmin[k]) * 0.1;
        bmin[k] - pad + u[k] * (bmax[k] - bmin[k] + 2.0 * pad)
    })
}

fn linked(nav: &NavMesh, a: PolyRef, b: PolyRef) -> bool {
    let Ok((tile, _)) = nav.tile_and_poly_by_ref(a) else {
        return false;
    };
    let ip = nav.decode_poly_id_poly(a) as usize;
    tile.poly_links(ip).any(|(_, l)| l.neighbour == b)
}

/// Whether `p` lies on polygon `r` in xz, up to `tolerance`.
fn on_poly(q: &NavMeshQuery<'_>, r: PolyRef, p: &[f32; 3], tolerance: f32) -> bool {
    let (status, c) = q.closest_point_on_poly_boundary(r, p);
    status.is_success() && (c[0] - p[0]).hypot(c[2] - p[2]) <= tolerance
}

fn unit() -> impl Strategy<Value = [f32; 3]> {
    [0.0f32..1.0, 0.0f32..1.0, 0.0f32..1.0]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn paths_and_straight_paths(mesh in 0usize..3, a in any::<u32>(), b in any::<u32>(), max_path in 1usize..64) {
        let Some(nav) = meshes().get(mesh) else { return Ok(()) };
        let filter = QueryFilter::default();
        let mut q = NavMeshQuery::new(nav, 2048).unwrap();
        let (s_ref, s_pos) = random_start(&q, a);
        let (e_ref, e_pos) = random_start(&q, b);
        let mut path = vec![PolyRef::default(); max_path];
        let (status, n) = q.find_path(s_ref, e_ref, &s_pos, &e_pos, &filter, &mut path);
        prop_assert!(status.is_success());
        prop_assert!(n >= 1 && n <= max_path);
        prop_assert_eq!(path[0], s_ref);
        if !status.has_detail(Status::PARTIAL_RESULT) && !status.has_detail(Status::BUFFER_TOO_SMALL) {
            prop_assert_eq!(path[n - 1], e_ref);
        }
        for w in path[..n].windows(2) {
            prop_assert!(linked(nav, w[0], w[1]), "{} -> {}", w[0], w[1]);
        }
        // The search is there to draw: every path polygon but the goal was expanded, and
        // parents point back along the tree.
        if n > 1 {
            let pool = q.node_pool();
            prop_assert!(pool.node_count() >= n);
            prop_assert!(path[..n - 1].iter().all(|&r| q.is_in_closed_list(r)));
            for (i, node) in pool.nodes().iter().enumerate() {
                if let Some(p) = pool.parent_of(i) {
                    prop_assert!(linked(nav, pool.node(p).unwrap().poly_ref, node.poly_ref));
                }
            }
        }
        for options in [0, STRAIGHTPATH_ALL_CROSSINGS] {
            let mut straight = vec![StraightPathPoint::default(); 2 * max_path];
            let (status, m) = q.find_straight_path(&s_pos, &e_pos, &path[..n], &mut straight, options);
            prop_assert!(status.is_success() && m >= 1);
            for (i, p) in straight[..m].iter().enumerate() {
                let r = if p.poly_ref != 0 { p.poly_ref } else { path[n - 1] };
                prop_assert!(path[..n].contains(&r));
                // Funnel corners lie on their polygons. Crossing points are where the straight
                // segment's line meets a portal's line, which Detour does not clamp to the
                // portal, so they can lie off it.
                if options == 0 {
                    prop_assert!(on_poly(&q, r, &p.pos, 1e-3), "corner {} {:?} not on {}", i, p.pos, r);
                }
            }
        }
        // The sliced any-angle search also starts at the start and only links neighbours.
        let init = q.init_sliced_find_path(s_ref, e_ref, &s_pos, &e_pos, &filter, FINDPATH_ANY_ANGLE);
        prop_assert!(!init.is_failure());
        let mut st = init;
        let mut rounds = 0;
        while st.is_in_progress() && rounds < 10_000 {
            st = q.update_sliced_find_path(&filter, 8).0;
            rounds += 1;
        }
        let (fs, fnn) = q.finalize_sliced_find_path(&filter, &mut path);
        prop_assert!(fs.is_success() && fnn >= 1);
        prop_assert_eq!(path[0], s_ref);
        for w in path[..fnn].windows(2) {
            prop_assert!(linked(nav, w[0], w[1]), "sliced {} -> {}", w[0], w[1]);
        }
        // A search cut short and finished towards an existing corridor ends on one of its
        // polygons the search reached (or its best guess), starting at the start.
        let existing = path[..fnn].to_vec();
        q.init_sliced_find_path(s_ref, e_ref, &s_pos, &e_pos, &filter, 0);
        q.update_sliced_find_path(&filter, 3);
        let (ps, pn) = q.finalize_sliced_find_path_partial(&filter, &existing, &mut path);
        prop_assert!(ps.is_success() && pn >= 1);
        prop_assert_eq!(path[0], s_ref);
        for w in path[..pn].windows(2) {
            prop_assert!(linked(nav, w[0], w[1]), "partial {} -> {}", w[0], w[1]);
        }
    }

    #[test]
    fn raycasts_and_local_queries(mesh in 0usize..3, a in any::<u32>(), b in unit(), radius in 0.0f32..30.0) {
        let Some(nav) = meshes().get(mesh) else { return Ok(()) };
        let filter = QueryFilter::default();
        let mut q = NavMeshQuery::new(nav, 512).unwrap();
        let (start_ref, start_pos) = random_start(&q, a);
        let s = navlab::detour::query::NearestPoly { poly_ref: start_ref, point: start_pos, is_over_poly: true };
        let end = point_in(nav, b);
        let mut path: [PolyRef; 64] = [0; 64];
        let (status, hit) = q.raycast(s.poly_ref, &s.point, &end, &filter, &mut path);
        prop_assert!(!status.is_failure());
        prop_assert!(hit.t == f32::MAX || (0.0..=1.0).contains(&hit.t), "t = {}", hit.t);
        // A ray that misses its start polygon (a start on its boundary, heading out) stops
        // at once, as in C++.
        prop_assert!(hit.path_count >= 1 && path[0] == s.poly_ref || hit.path_count == 0 && hit.t == 0.0);
        for w in path[..hit.path_count].windows(2) {
            prop_assert!(linked(nav, w[0], w[1]));
        }
        let (status, moved) = q.move_along_surface(s.poly_ref, &s.point, &end, &filter, &mut path[..16]);
        prop_assert!(!status.is_failure() && moved.visited_count >= 1 && path[0] == s.poly_ref);
        let last = path[moved.visited_count - 1];
        prop_assert!(
            status.has_detail(Status::BUFFER_TOO_SMALL) || on_poly(&q, last, &moved.position, 1e-3),
            "{} {} {:?}", status, moved.visited_count, moved.position
        );
        let mut visited = [VisitedPoly::default(); 64];
        let (status, n) = q.find_polys_around_circle(s.poly_ref, &s.point, radius, &filter, &mut visited);
        prop_assert!(status.is_success() && n >= 1 && visited[0].poly_ref == s.poly_ref);
        prop_assert!(visited[..n].windows(2).all(|w| w[0].cost <= w[1].cost));
        for v in &visited[1..n] {
            prop_assert!(visited[..n].iter().any(|p| p.poly_ref == v.parent_ref));
            let mut back: [PolyRef; 64] = [0; 64];
            let (ps, pn) = q.get_path_from_dijkstra_search(v.poly_ref, &mut back);
            prop_assert!(ps.is_success() && back[0] == s.poly_ref && back[pn - 1] == v.poly_ref);
        }
        let mut neighbours = [NeighbourPoly::default(); 32];
        let (status, n) = q.find_local_neighbourhood(s.poly_ref, &s.point, radius, &filter, &mut neighbours);
        prop_assert!(!status.is_failure() && n >= 1);
        let mut segs = [WallSegment::default(); 32];
        for nb in &neighbours[..n] {
            prop_assert!(!q.get_poly_wall_segments(nb.poly_ref, &filter, true, &mut segs).0.is_failure());
        }
        let (status, wall) = q.find_distance_to_wall(s.poly_ref, &s.point, radius, &filter);
        prop_assert!(status.is_success() && wall.distance <= radius);
        let mut seed = a ^ b[2].to_bits();
        let mut rand = move || {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (seed >> 8) as f32 / 16_777_216.0
        };
        let (status, r, p) = q.find_random_point_around_circle(s.poly_ref, &s.point, radius, &filter, &mut rand);
        prop_assert!(status.is_success() && r != 0);
        prop_assert!(on_poly(&q, r, &p, 1e-3));
        let (status, r, p) = q.find_random_point(&filter, &mut rand);
        prop_assert!(status.is_success() && on_poly(&q, r, &p, 1e-3));
    }

    /// The batch form of `queryPolygons` sees the collector's polygons, in order, in batches
    /// of at most 32 from one tile.
    #[test]
    fn query_polygons_batches(mesh in 0usize..3, a in unit(), extent in 0.1f32..40.0) {
        let Some(nav) = meshes().get(mesh) else { return Ok(()) };
        let filter = QueryFilter::default();
        let q = NavMeshQuery::new(nav, 64).unwrap();
        let center = point_in(nav, a);
        let ext = [extent, 40.0, extent];
        let mut collected = vec![PolyRef::default(); 4096];
        let (status, n) = q.query_polygons(&center, &ext, &filter, &mut collected);
        prop_assert!(status.is_success());
        let mut batched = Vec::new();
        let status = q.query_polygons_with(&center, &ext, &filter, &mut |tile: &navlab::detour::MeshTile, refs: &[PolyRef]| {
            assert!(!refs.is_empty() && refs.len() <= 32);
            for &r in refs {
                let t = nav.tile_by_ref(r).expect("live tile");
                assert!(std::ptr::eq(t, tile));
            }
            batched.extend_from_slice(refs);
        });
        prop_assert!(status.is_success());
        prop_assert_eq!(&batched[..], &collected[..n]);
        if n > 3 {
            let (status, m) = q.query_polygons(&center, &ext, &filter, &mut collected[..3]);
            prop_assert_eq!((status, m), (Status::SUCCESS | Status::BUFFER_TOO_SMALL, 3));
        }
    }

    /// Any floats at all, references included: no panic.
    #[test]
    fn arbitrary_input_never_panics(
        mesh in 0usize..3,
        p in prop::array::uniform3(any::<f32>()),
        e in prop::array::uniform3(any::<f32>()),
        r in any::<PolyRef>(),
        radius in any::<f32>(),
        buffer in 0usize..8,
    ) {
        let Some(nav) = meshes().get(mesh) else { return Ok(()) };
        let filter = QueryFilter::default();
        let mut q = NavMeshQuery::new(nav, 64).unwrap();
        let mut path = vec![PolyRef::default(); buffer];
        let mut straight = vec![StraightPathPoint::default(); buffer];
        let _ = q.find_nearest_poly(&p, &e, &filter);
        let _ = q.query_polygons(&p, &e, &filter, &mut path);
        let _ = q.find_path(r, r ^ 1, &p, &e, &filter, &mut path);
        let _ = q.find_straight_path(&p, &e, &[r, r ^ 1], &mut straight, STRAIGHTPATH_ALL_CROSSINGS);
        let _ = q.raycast(r, &p, &e, &filter, &mut path);
        let _ = q.move_along_surface(r, &p, &e, &filter, &mut path);
        let _ = q.closest_point_on_poly(r, &p);
        let _ = q.get_poly_height(r, &p);
        let _ = q.find_polys_around_circle(r, &p, radius, &filter, &mut []);
        let _ = q.find_distance_to_wall(r, &p, radius, &filter);
        let _ = q.get_poly_wall_segments(r, &filter, true, &mut []);
    }
}
