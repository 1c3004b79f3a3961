//! Runs one workload of tests/data/reference/PERF_DETOUR.md once, for callgrind:
//! `valgrind --tool=callgrind --toggle-collect='*run_queries*' target/release/examples/query_workloads Q_nav_mesh_test_solo REFERENCE_DIR`
//! (`*run_paths*` for the P workloads). Prints the workload's sums so the run can be checked.
//!
//! `query_workloads P NAVMESH_FILE [--hashes]` runs workload P on any MSET or compact navmesh
//! file, printing one `name value` line per check like the C++ driver it is compared with.
//! `--hashes` adds a second, recorded pass for the two FNV hashes; leave it out under callgrind,
//! where it would be counted too.

use std::path::Path;

use navlab::detour::load_nav_mesh;
use navlab::detour::query::{NavMeshQuery, QueryFilter};
use navlab_app::demo::text::TestFile;
use navlab_app::demo::workloads::{
    PathHashes, QueryCase, generate_path_pairs, run_paths, run_queries,
};

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
    let (name, reference) = match args.as_slice() {
        [p, file] if p == "P" => return paths_on_file(Path::new(file), false),
        [p, file, flag] if p == "P" && flag == "--hashes" => {
            return paths_on_file(Path::new(file), true);
        }
        [name, reference] => (name, reference),
        _ => {
            let names: Vec<&str> = WORKLOADS.iter().map(|w| w.0).collect();
            eprintln!(
                "usage: query_workloads WORKLOAD REFERENCE_DIR  (WORKLOAD: {})\n       \
                 query_workloads P NAVMESH_FILE [--hashes]",
                names.join(", ")
            );
            std::process::exit(2);
        }
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

/// Workload P on `file`: the 1000 pairs, the counted pass, and with `hashes` a recorded pass
/// for the FNV hashes (checked to give the same sums).
fn paths_on_file(file: &Path, hashes: bool) -> Result<(), Box<dyn std::error::Error>> {
    let nav = load_nav_mesh(file)?;
    let mut query = NavMeshQuery::new(&nav, 2048).map_err(|s| format!("query init: {s}"))?;
    let pairs = generate_path_pairs(&query, 1000);
    let filter = QueryFilter::default();
    let sums = run_paths::<false, _>(&mut query, &pairs.pairs, &filter, |_, _| {});
    println!("pairs {}", pairs.pairs.len());
    println!("attempts {}", pairs.attempts);
    println!("skipped {}", pairs.skipped_attempts);
    println!("sum_n {}", sums.path_polys);
    println!("sum_straight {}", sums.straight_points);
    println!("partial {}", sums.partial);
    println!("out_of_nodes {}", sums.out_of_nodes);
    if hashes {
        let mut fnv = PathHashes::default();
        let recorded = run_paths::<true, _>(&mut query, &pairs.pairs, &filter, |_, outcome| {
            fnv.add(&outcome)
        });
        if recorded != sums {
            return Err(format!("the recorded pass gave other sums: {recorded:?}").into());
        }
        println!("path_ref_hash {:016x}", fnv.path_refs);
        println!("straight_point_hash {:016x}", fnv.straight_points);
    }
    Ok(())
}
