//! Detour query speed on the reference navmeshes (skipped without the reference data): workloads Q
//! and P of tests/data/reference/PERF_DETOUR.md once per iteration, and the single queries they are
//! made of. Instruction counts for comparing with C++ come from callgrind over
//! `examples/query_workloads.rs`; this measures wall time.

#[path = "../tests/support/mod.rs"]
mod support;
use support::queries as query_common;

use criterion::{Criterion, criterion_group, criterion_main};
use navlab::detour::PolyRef;
use navlab::detour::query::{NavMeshQuery, QueryFilter, StraightPathPoint};
use navlab_app::demo::tester::POLY_PICK_EXT;
use navlab_app::demo::workloads::{QueryCase, generate_path_pairs, run_paths, run_queries};

fn detour_query(c: &mut Criterion) {
    for (name, navmesh, cases) in [
        (
            "Q_nav_mesh_test_solo",
            "navmesh/nav_test_solo.bin",
            "testcases/nav_mesh_test.txt",
        ),
        (
            "Q_raycast_test_tiled32",
            "navmesh/nav_test_tiled32.bin",
            "testcases/raycast_test.txt",
        ),
        (
            "Q_nav_mesh_test_tiled32",
            "navmesh/nav_test_tiled32.bin",
            "testcases/nav_mesh_test.txt",
        ),
    ] {
        let (Some(nav), Some(file)) = (
            query_common::nav_mesh(navmesh),
            query_common::test_file(cases),
        ) else {
            return;
        };
        let cases = QueryCase::from_lines(&file.tests);
        let mut query = NavMeshQuery::new(&nav, 2048).unwrap();
        c.bench_function(&format!("workload/{name}/one_pass"), |b| {
            b.iter(|| run_queries::<false>(&mut query, &cases, 1, |_, _| {}))
        });
    }
    for (name, navmesh) in [
        ("P_nav_test_solo", "navmesh/nav_test_solo.bin"),
        ("P_undulating_solo", "navmesh/undulating_solo.bin"),
    ] {
        let Some(nav) = query_common::nav_mesh(navmesh) else {
            return;
        };
        let mut query = NavMeshQuery::new(&nav, 2048).unwrap();
        let pairs = generate_path_pairs(&query, 1000).pairs;
        let filter = QueryFilter::default();
        c.bench_function(&format!("workload/{name}"), |b| {
            b.iter(|| run_paths::<false, _>(&mut query, &pairs, &filter, |_, _| {}))
        });
        // The single queries of the first pair.
        let p = pairs[0];
        c.bench_function(&format!("query/{name}/find_nearest_poly"), |b| {
            b.iter(|| query.find_nearest_poly(&p.raw_start, &POLY_PICK_EXT, &filter))
        });
        let mut path: [PolyRef; 256] = [0; 256];
        c.bench_function(&format!("query/{name}/find_path"), |b| {
            b.iter(|| {
                query.find_path(
                    p.start_ref,
                    p.end_ref,
                    &p.start_pos,
                    &p.end_pos,
                    &filter,
                    &mut path,
                )
            })
        });
        let (_, n) = query.find_path(
            p.start_ref,
            p.end_ref,
            &p.start_pos,
            &p.end_pos,
            &filter,
            &mut path,
        );
        let mut straight = [StraightPathPoint::default(); 256];
        c.bench_function(&format!("query/{name}/find_straight_path"), |b| {
            b.iter(|| {
                query.find_straight_path(&p.start_pos, &p.end_pos, &path[..n], &mut straight, 0)
            })
        });
        c.bench_function(&format!("query/{name}/raycast"), |b| {
            b.iter(|| query.raycast(p.start_ref, &p.start_pos, &p.end_pos, &filter, &mut path))
        });
    }
}

criterion_group!(benches, detour_query);
criterion_main!(benches);
