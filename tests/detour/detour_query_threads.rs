//! One navmesh, many threads: each thread's own query object gives exactly the results of a
//! serial run (skipped without the reference navmeshes).

use crate::support::queries as query_common;

use navlab::detour::query::{NavMeshQuery, QueryFilter};
use navlab_app::demo::workloads::{PathHashes, generate_path_pairs, run_paths};
use rayon::prelude::*;

#[test]
fn parallel_paths_equal_serial() {
    let Some(nav) = query_common::nav_mesh("navmesh/nav_test_tiled32.bin") else {
        return;
    };
    let pairs = generate_path_pairs(&NavMeshQuery::new(&nav, 2048).unwrap(), 400).pairs;
    let filter = QueryFilter::default();
    let run = |chunk: &[_]| {
        let mut query = NavMeshQuery::new(&nav, 2048).unwrap();
        let mut hashes = PathHashes::default();
        let sums = run_paths::<true, _>(&mut query, chunk, &filter, |_, o| hashes.add(&o));
        (sums, hashes)
    };
    let serial: Vec<_> = pairs.chunks(25).map(run).collect();
    let parallel: Vec<_> = pairs.par_chunks(25).map(run).collect();
    assert_eq!(serial, parallel);
    // The same query objects may also run concurrently on shared pairs.
    let again: Vec<_> = (0..4).into_par_iter().map(|_| run(&pairs)).collect();
    assert!(again.windows(2).all(|w| w[0] == w[1]));
}

#[test]
fn navmesh_is_shareable_and_queries_movable() {
    fn shareable<T: Send + Sync>() {}
    fn movable<T: Send>() {}
    shareable::<navlab::detour::NavMesh>();
    movable::<NavMeshQuery<'static>>();
}
