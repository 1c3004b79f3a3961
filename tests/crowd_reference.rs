//! The crowd against C++ DetourCrowd's reference runs (`detour/crowd_nav_test_A.json` and
//! `_B.json`): every recorded frame, every agent field, f32 for f32. Skipped without the
//! reference data.

mod common;
mod query_common;

use navlab::crowd::scenario::{ScenarioSettings, run_scenario};
use query_common::{json, json_differences, nav_mesh, test_file};
use serde_json::Value;

/// The first recorded frame that differs, with its differences.
fn first_differing_frame(reference: &Value, ours: &Value) -> Option<(usize, Vec<String>)> {
    let (Some(rf), Some(of)) = (reference["frames"].as_array(), ours["frames"].as_array()) else {
        return Some((0, vec!["frames missing".into()]));
    };
    if rf.len() != of.len() {
        return Some((
            rf.len().min(of.len()),
            vec![format!("{} frames, ours {}", rf.len(), of.len())],
        ));
    }
    rf.iter().zip(of).enumerate().find_map(|(i, (r, o))| {
        let d = json_differences(r, o);
        (!d.is_empty()).then_some((i, d))
    })
}

fn check(scenario: &str, separation: bool, quality: u8) {
    let Some(reference) = json(&format!("detour/crowd_nav_test_{scenario}.json")) else {
        return;
    };
    let Some(nav) = nav_mesh("navmesh/nav_test_solo.bin") else {
        return;
    };
    let Some(file) = test_file("testcases/nav_mesh_test.txt") else {
        return;
    };
    let settings = ScenarioSettings::reference(separation, quality);
    let result = run_scenario(&nav, &file.tests, &settings).expect("scenario runs");
    let ours: Value =
        serde_json::from_str(&serde_json::to_string(&result).expect("serialises")).expect("json");
    let reference = &reference["result"];
    let added = json_differences(&reference["agents"], &ours["agents"]);
    assert!(
        added.is_empty(),
        "{scenario}: agents as added differ:\n{}",
        added.join("\n")
    );
    if let Some((frame, diffs)) = first_differing_frame(reference, &ours) {
        panic!(
            "{scenario}: frame {frame} (step {}) differs first, {} fields:\n{}",
            reference["frames"][frame]["step"],
            diffs.len(),
            diffs[..diffs.len().min(20)].join("\n")
        );
    }
    let finals = json_differences(&reference["final"], &ours["final"]);
    assert!(
        finals.is_empty(),
        "{scenario}: final state differs:\n{}",
        finals.join("\n")
    );
}

#[test]
fn scenario_a_equals_detour_crowd() {
    check("A", false, 1);
}

#[test]
fn scenario_b_equals_detour_crowd() {
    check("B", true, 3);
}
