//! Detour queries against the C++ reference (skipped without the reference data): the
//! NavMeshTesterTool's 8 modes on the 21 cases of `nav_mesh_test.txt` (solo and tiled
//! navmesh), and RecastDemo's TestCase results for every test file, field by field. Each runs
//! on the reference navmesh and on its 64-bit copy, whose references are mapped back to the
//! 32-bit ones (same salt, tile and polygon) before the comparison.

use crate::support::queries as query_common;

use navlab::detour::{NavMesh, RefWidth};
use navlab_app::demo::test_case::run_test_case;
use navlab_app::demo::tester::{AgentParams, TesterInput, run_tester};
use query_common::{assert_json_matches, json, narrow_refs, nav_mesh, test_file, widened};
use serde_json::Value;

/// A reference navmesh as the query runs on it (`width` wide) and its JSON report mapped to
/// the reference's 32-bit references.
struct Subject {
    nav: NavMesh,
    reference: NavMesh,
}

impl Subject {
    fn new(reference: NavMesh, width: RefWidth) -> Subject {
        let nav = match width {
            RefWidth::Bits32 => reference.clone(),
            RefWidth::Bits64 => widened(&reference),
        };
        Subject { nav, reference }
    }

    fn report(&self, report: &impl serde::Serialize) -> Value {
        let mut json = serde_json::to_value(report).expect("json");
        if self.nav.ref_width() == RefWidth::Bits64 {
            narrow_refs(&mut json, &self.nav, &self.reference);
        }
        json
    }
}

fn check_tester(navmesh: &str, reference: &str) {
    for width in [RefWidth::Bits32, RefWidth::Bits64] {
        check_tester_as(navmesh, reference, width);
    }
}

fn check_tester_as(navmesh: &str, reference: &str, width: RefWidth) {
    let (Some(nav), Some(file), Some(expected)) = (
        nav_mesh(navmesh),
        test_file("testcases/nav_mesh_test.txt"),
        json(reference),
    ) else {
        return;
    };
    let text = |key: &str| expected[key].as_str().expect("string").to_string();
    let input = TesterInput {
        test_file: text("testFile"),
        sample_named_in_file: text("sampleNamedInFile"),
        sample_used: text("sampleUsed"),
        geom: text("geom"),
        build: expected["settings"]["build"]
            .as_str()
            .expect("build")
            .to_string(),
    };
    let agent = AgentParams {
        radius: 0.6,
        height: 2.0,
    };
    let subject = Subject::new(nav, width);
    let report = run_tester(&subject.nav, &file.tests, &agent, &input).expect("2048 nodes");
    assert_eq!(report.cases.len(), 21);
    let text = serde_json::to_string(&subject.report(&report)).expect("json");
    // For a look with compare_json.py: NAVLAB_QUERY_JSON_DIR=dir writes our report there.
    if let Some(dir) = std::env::var_os("NAVLAB_QUERY_JSON_DIR") {
        let name = std::path::Path::new(reference)
            .file_name()
            .expect("file name");
        std::fs::write(std::path::Path::new(&dir).join(name), &text).expect("write report");
    }
    let ours: Value = serde_json::from_str(&text).expect("our JSON parses");
    assert_json_matches(&format!("{reference} ({width})"), &expected, &ours);
    // Keys beyond the reference's would be schema drift.
    let keys = |v: &Value| v.as_object().map(|o| o.keys().cloned().collect::<Vec<_>>());
    assert_eq!(keys(&ours), keys(&expected), "top-level keys");
    for (ours_case, expected_case) in ours["cases"]
        .as_array()
        .unwrap()
        .iter()
        .zip(expected["cases"].as_array().unwrap())
    {
        assert_eq!(keys(ours_case), keys(expected_case), "case keys");
    }
}

#[test]
fn tester_solo_equals_cpp() {
    check_tester(
        "navmesh/nav_test_solo.bin",
        "detour/nav_mesh_test_solo_tester.json",
    );
}

#[test]
fn tester_tiled_equals_cpp() {
    check_tester(
        "navmesh/nav_test_tiled32.bin",
        "detour/nav_mesh_test_tile_tester.json",
    );
}

/// Runs a test file on its sample's navmesh (`results`) and on the other one
/// (`results_other_sample`).
fn check_test_case(test: &str, reference: &str, solo: &str, tiled: &str) {
    let (Some(file), Some(expected)) = (test_file(test), json(reference)) else {
        return;
    };
    let name = expected["testFile"].as_str().expect("testFile");
    let settings = expected["settings"].as_str().expect("settings");
    let (own, other) = match file.sample_name.as_str() {
        "Solo Mesh" => (solo, tiled),
        "Tile Mesh" => (tiled, solo),
        s => panic!("unknown sample {s}"),
    };
    let runs = [(own, "results"), (other, "results_other_sample")]
        .into_iter()
        .flat_map(|run| [RefWidth::Bits32, RefWidth::Bits64].map(|width| (run, width)));
    for ((navmesh, key), width) in runs {
        let Some(nav) = nav_mesh(navmesh) else { return };
        let subject = Subject::new(nav, width);
        let report = run_test_case(&subject.nav, &file, name, settings).expect("query");
        let ours = subject.report(&report);
        let mut reference = expected.clone();
        let obj = reference.as_object_mut().unwrap();
        let results = obj[key].clone();
        obj.insert("results".into(), results);
        obj.retain(|k, _| {
            [
                "testFile", "sample", "geom", "numTests", "settings", "results",
            ]
            .contains(&k.as_str())
        });
        assert_json_matches(
            &format!(
                "{reference:.0} {key} on {navmesh} ({width})",
                reference = reference["testFile"]
            ),
            &reference,
            &ours,
        );
    }
}

#[test]
fn test_case_nav_mesh_test_equals_cpp() {
    check_test_case(
        "testcases/nav_mesh_test.txt",
        "queries/nav_mesh_test_results.json",
        "navmesh/nav_test_solo.bin",
        "navmesh/nav_test_tiled32.bin",
    );
}

#[test]
fn test_case_raycast_test_equals_cpp() {
    check_test_case(
        "testcases/raycast_test.txt",
        "queries/raycast_test_results.json",
        "navmesh/nav_test_solo.bin",
        "navmesh/nav_test_tiled32.bin",
    );
}

#[test]
fn test_case_authoring_equals_cpp() {
    check_test_case(
        "authoring/nav_test_authoring_test.txt",
        "authoring/nav_test_authoring_test_results.json",
        "authoring/nav_test_authoring_solo.bin",
        "authoring/nav_test_authoring_tiled32.bin",
    );
}
