//! Runs one workload of tests/data/reference/PERF_DETOUR.md once, for callgrind:
//! `valgrind --tool=callgrind --toggle-collect='*run_queries*' target/release/examples/query_workloads Q_nav_mesh_test_solo REFERENCE_DIR`
//! (`*run_paths*` for the P workloads). Prints the workload's sums so the run can be checked.

use std::path::Path;

use navlab::detour::load_nav_mesh;
use navlab::detour::query::{NavMeshQuery, QueryFilter};
use navlab_app::demo::text::TestFile;
use navlab_app::demo::workloads::{QueryCase, generate_path_pairs, run_paths, run_queries};

/// (name, navmesh, test-case file or "" for P, passes).
const WORKLOADS: [(&str, &str, &str, usize); 5] = [
    (
        "Q_nav_mesh_test_solo",
        "navmesh/nav_test_solo.bin",
        "testcases/nav_mesh_test.txt",
        200,
    ),
    (
        "Q_raycast_test_tiled32",
        "navmesh/nav_test_tiled32.bin",
        "testcases/raycast_test.txt",
        200,
    ),
    (
        "Q_nav_mesh_test_tiled32",
        "navmesh/nav_test_tiled32.bin",
        "testcases/nav_mesh_test.txt",
        200,
    ),
    ("P_nav_test_solo", "navmesh/nav_test_solo.bin", "", 1),
    ("P_undulating_solo", "navmesh/undulating_solo.bin", "", 1),
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [name, reference] = args.as_slice() else {
        let names: Vec<&str> = WORKLOADS.iter().map(|w| w.0).collect();
        eprintln!(
            "usage: query_workloads WORKLOAD REFERENCE_DIR  (WORKLOAD: {})",
            names.join(", ")
        );
        std::process::exit(2);
    };
    let Some(&(_, navmesh, cases, passes)) = WORKLOADS.iter().find(|w| w.0 == name) else {
        return Err(format!("unknown workload {name}").into());
    };
    let reference = Path::new(reference);
    let nav = load_nav_mesh(&reference.join(navmesh))?;
    let mut query = NavMeshQuery::new(&nav, 2048).map_err(|s| format!("query init: {s}"))?;
    if cases.is_empty() {
        let pairs = generate_path_pairs(&query, 1000);
        let sums =
            run_paths::<false, _>(&mut query, &pairs.pairs, &QueryFilter::default(), |_, _| {});
        println!("{name}: {} attempts, {sums:?}", pairs.attempts);
    } else {
        let text = std::fs::read_to_string(reference.join(cases))?;
        let cases = QueryCase::from_lines(&TestFile::parse(&text).tests);
        let sums = run_queries::<false>(&mut query, &cases, passes, |_, _| {});
        println!("{name}: {sums:?}");
    }
    Ok(())
}
