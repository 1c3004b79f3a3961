//! The `navlab test` command: RecastDemo's test-case runner and the tester modes, through the
//! binary, against the C++ results; bad test files fail with one line naming the line.
use crate::support as common;
use crate::support::queries as query_common;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn navlab() -> Command {
    Command::new(env!("CARGO_BIN_EXE_navlab"))
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("navlab-cli-test-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `navlab test ARGS --json OUT --quiet` and returns the JSON.
fn run_json(args: &[&Path], extra: &[&str], dir: &Path) -> Value {
    let out = dir.join("out.json");
    let output = navlab()
        .arg("test")
        .args(args)
        .args(extra)
        .arg("--json")
        .arg(&out)
        .arg("--quiet")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.stdout.is_empty(), "--quiet printed output");
    serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap()
}

#[test]
fn test_cases_equal_cpp_on_both_samples() {
    let Some(dir) = common::reference_dir() else {
        return;
    };
    let out = temp_dir("cases");
    for (cases, reference) in [
        (
            "testcases/nav_mesh_test.txt",
            "queries/nav_mesh_test_results.json",
        ),
        (
            "testcases/raycast_test.txt",
            "queries/raycast_test_results.json",
        ),
    ] {
        let ours = run_json(&[&dir.join(cases)], &[], &out);
        let expected = query_common::json(reference).unwrap();
        query_common::assert_json_matches(cases, &expected, &ours);
    }
    std::fs::remove_dir_all(out).unwrap();
}

/// Detour's `DT_PARTIAL_RESULT` status bit: the path ends at the polygon nearest the goal.
const PARTIAL_RESULT: u32 = 0x40;

#[test]
fn sample_test_cases_run_and_find_full_paths() {
    let cases_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/TestCases");
    let out = temp_dir("samples");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&cases_dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "txt"))
        .collect();
    files.sort();
    assert!(files.len() >= 6, "{files:?}");
    for file in files {
        let ours = run_json(&[&file], &[], &out);
        let results = ours["results"].as_array().unwrap();
        let found = |r: &Value| r["pathCount"].as_u64().is_some_and(|n| n > 0);
        assert!(results.iter().any(found), "{}: no path", file.display());
        // Files with `pf` lines must reach at least one goal; raycast files have none.
        let paths: Vec<&Value> = results.iter().filter(|r| r["type"] == "pf").collect();
        let full = |r: &&Value| {
            let status = r["findPathStatus"].as_str().unwrap_or("0x0");
            let status = u32::from_str_radix(status.trim_start_matches("0x"), 16).unwrap();
            found(r) && status & PARTIAL_RESULT == 0
        };
        assert!(
            paths.is_empty() || paths.iter().any(full),
            "{}: every path is partial",
            file.display()
        );
    }
    std::fs::remove_dir_all(out).unwrap();
}

#[test]
fn authoring_paths_cross_off_mesh_links_as_in_cpp() {
    let Some(dir) = common::reference_dir() else {
        return;
    };
    let out = temp_dir("authoring");
    let cases = dir.join("authoring/nav_test_authoring_test.txt");
    let gset = dir.join("authoring/nav_test_authoring.gset");
    let ours = run_json(&[&cases], &["--mesh", gset.to_str().unwrap()], &out);
    let expected = query_common::json("authoring/nav_test_authoring_test_results.json").unwrap();
    query_common::assert_json_matches("authoring", &expected, &ours);
    std::fs::remove_dir_all(out).unwrap();
}

#[test]
fn tester_modes_equal_cpp_solo_and_tiled() {
    let Some(dir) = common::reference_dir() else {
        return;
    };
    let out = temp_dir("tester");
    let cases = dir.join("testcases/nav_mesh_test.txt");
    for (sample, reference) in [
        ("Solo Mesh", "detour/nav_mesh_test_solo_tester.json"),
        ("Tile Mesh", "detour/nav_mesh_test_tile_tester.json"),
    ] {
        let ours = run_json(&[&cases], &["--tester", "--sample", sample], &out);
        let expected = query_common::json(reference).unwrap();
        query_common::assert_json_matches(sample, &expected, &ours);
    }
    std::fs::remove_dir_all(out).unwrap();
}

#[test]
fn a_saved_navmesh_gives_the_same_results() {
    let Some(dir) = common::reference_dir() else {
        return;
    };
    let out = temp_dir("navmesh");
    let cases = dir.join("testcases/raycast_test.txt");
    let navmesh = dir.join("navmesh/nav_test_tiled32.bin");
    let ours = run_json(
        &[&cases],
        &["--navmesh", navmesh.to_str().unwrap(), "--repeat", "3"],
        &out,
    );
    let expected = query_common::json("queries/raycast_test_results.json").unwrap();
    query_common::assert_json_matches("--navmesh", &expected["results"], &ours["results"]);
    std::fs::remove_dir_all(out).unwrap();
}

#[test]
fn bad_test_files_fail_with_one_line_naming_the_line() {
    let Some(dir) = common::reference_dir() else {
        return;
    };
    let out = temp_dir("bad");
    let mesh = dir.join("meshes/nav_test.obj");
    let cases = [
        (
            "short.txt",
            "s Solo Mesh\nf nav_test.obj\npf 1 2 3 4 5 0x3 0x0\n",
            "line 3",
        ),
        (
            "flags.txt",
            "s Solo Mesh\n\npf 1 2 3 4 5 6 0xzz 0x0\n",
            "line 3",
        ),
        (
            "extra.txt",
            "s Solo Mesh\nrc 1 2 3 4 5 6 0x3 0x0 7\n",
            "line 2",
        ),
        (
            "nan.txt",
            "s Solo Mesh\npf 1 2 nan 4 5 6 0x3 0x0\n",
            "line 2",
        ),
        (
            "wide.txt",
            "s Solo Mesh\npf 1 2 3 4 5 6 0x10000 0x0\n",
            "line 2",
        ),
        (
            "sample.txt",
            "s Crowd Mesh\nf nav_test.obj\npf 1 2 3 4 5 6 0x3 0x0\n",
            "line 1",
        ),
        (
            "empty.txt",
            "s Solo Mesh\nf nav_test.obj\n",
            "no `pf` or `rc`",
        ),
        (
            "missing.txt",
            "s Solo Mesh\nf no_such.obj\npf 1 2 3 4 5 6 0x3 0x0\n",
            "line 2",
        ),
    ];
    for (name, text, expected) in cases {
        let path = out.join(name);
        std::fs::write(&path, text).unwrap();
        let mut command = navlab();
        command.arg("test").arg(&path);
        if name != "missing.txt" && name != "sample.txt" {
            command.arg("--mesh").arg(&mesh);
        }
        let output = command.output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{name}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{name}: {stderr}");
        assert!(
            stderr.starts_with("navlab: ") && stderr.contains(name) && stderr.contains(expected),
            "{name}: {stderr}"
        );
    }
    std::fs::remove_dir_all(out).unwrap();
}

/// `navlab test` on C++'s 64-bit nav_test tiled file gives C++'s `DT_POLYREF64` results, refs
/// as 64-bit integers (the test cases' `pf` lines, and the raycast file's `rc` lines), and so
/// does the navmesh `--poly-refs 64` builds.
#[test]
fn test_cases_on_64_bit_references_equal_cpps_polyref64_build() {
    let Some(dir) = common::reference_dir() else {
        return;
    };
    let out = temp_dir("polyref64");
    let expected = query_common::json("polyref64/queries_nav_test_tiled32_polyref64.json").unwrap();
    let navmesh = dir.join("polyref64/nav_test_tiled32.bin");
    let cases = dir.join("testcases/nav_mesh_test.txt");
    let loaded = run_json(&[&cases], &["--navmesh", navmesh.to_str().unwrap()], &out);
    query_common::assert_json_matches("loaded", &expected["results"], &loaded["results"]);
    assert_eq!(loaded["DT_POLYREF64"], true);
    assert_eq!(loaded["refBits"], expected["refBits"]);
    let built = run_json(
        &[&cases],
        &["--sample", "Tile Mesh", "--poly-refs", "64"],
        &out,
    );
    query_common::assert_json_matches("built", &expected["results"], &built["results"]);
    let raycasts = dir.join("testcases/raycast_test.txt");
    let rays = run_json(
        &[&raycasts],
        &["--navmesh", navmesh.to_str().unwrap()],
        &out,
    );
    query_common::assert_json_matches("rc", &expected["extra_results"], &rays["results"]);
    std::fs::remove_dir_all(out).unwrap();
}
