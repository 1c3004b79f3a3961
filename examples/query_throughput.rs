//! Path queries per second on 1 and 2 threads: workload P of tests/data/reference/PERF_DETOUR.md
//! (1000 paths, `findPath` + `findStraightPath`) repeated on every thread at once, each thread with
//! its own `NavMeshQuery` on the one shared `NavMesh`.
//!
//! `cargo run --release --no-default-features --example query_throughput -- REFERENCE_DIR [SECONDS]`

use std::path::Path;
use std::time::{Duration, Instant};

use navlab::detour::NavMesh;
use navlab::detour::load_nav_mesh;
use navlab::detour::query::{NavMeshQuery, QueryFilter};
use navlab_app::demo::tester::QUERY_NODES;
use navlab_app::demo::workloads::{PathPair, generate_path_pairs, run_paths};

/// Paths per second of `threads` threads each running the pairs over and over for `time`.
fn paths_per_second(nav: &NavMesh, pairs: &[PathPair], threads: usize, time: Duration) -> f64 {
    let started = Instant::now();
    let done: usize = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut query = NavMeshQuery::new(nav, QUERY_NODES).expect("query");
                    let mut paths = 0;
                    while started.elapsed() < time {
                        run_paths::<false, _>(
                            &mut query,
                            pairs,
                            &QueryFilter::default(),
                            |_, _| {},
                        );
                        paths += pairs.len();
                    }
                    paths
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().expect("worker")).sum()
    });
    done as f64 / started.elapsed().as_secs_f64()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(reference) = args.first() else {
        eprintln!("usage: query_throughput REFERENCE_DIR [SECONDS]");
        std::process::exit(2);
    };
    let seconds: f64 = args.get(1).map_or(Ok(3.0), |s| s.parse())?;
    let time = Duration::from_secs_f64(seconds);
    for navmesh in ["navmesh/nav_test_solo.bin", "navmesh/undulating_solo.bin"] {
        let nav = load_nav_mesh(&Path::new(reference).join(navmesh))?;
        let query = NavMeshQuery::new(&nav, QUERY_NODES).map_err(|s| format!("query: {s}"))?;
        let pairs = generate_path_pairs(&query, 1000).pairs;
        for threads in [1, 2] {
            let rate = paths_per_second(&nav, &pairs, threads, time);
            println!(
                "{navmesh}: {threads} thread(s): {rate:.0} paths/s ({:.2} µs per path per thread)",
                1e6 * threads as f64 / rate
            );
        }
    }
    Ok(())
}
