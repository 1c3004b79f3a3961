//! The crowd against C++ DetourCrowd's reference runs (`detour/crowd_nav_test_A.json` and
//! `_B.json`): every recorded frame, every agent field, f32 for f32, on the reference navmesh
//! and on its 64-bit copy (references mapped back to 32 bits). Skipped without the reference
//! data.

use crate::support as common;
use crate::support::queries as query_common;

use navlab::detour::RefWidth;
use navlab_app::demo::crowd_scenario::{ScenarioSettings, run_scenario};
use query_common::{json, json_differences, narrow_refs, nav_mesh, test_file, widened};
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
    for width in [RefWidth::Bits32, RefWidth::Bits64] {
        check_as(scenario, separation, quality, width);
    }
}

fn check_as(scenario: &str, separation: bool, quality: u8, width: RefWidth) {
    let Some(reference) = json(&format!("detour/crowd_nav_test_{scenario}.json")) else {
        return;
    };
    let Some(nav) = nav_mesh("navmesh/nav_test_solo.bin") else {
        return;
    };
    let Some(file) = test_file("testcases/nav_mesh_test.txt") else {
        return;
    };
    let walked = match width {
        RefWidth::Bits32 => nav.clone(),
        RefWidth::Bits64 => widened(&nav),
    };
    let settings = ScenarioSettings::reference(separation, quality);
    let result = run_scenario(&walked, &file.tests, &settings).expect("scenario runs");
    let mut ours: Value =
        serde_json::from_str(&serde_json::to_string(&result).expect("serialises")).expect("json");
    if width == RefWidth::Bits64 {
        narrow_refs(&mut ours, &walked, &nav);
    }
    let scenario = format!("{scenario} ({width})");
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

/// Runs `navlab crowd` on the reference test file with `extra` arguments.
fn navlab_crowd(extra: &[&str]) -> Option<std::process::Output> {
    let dir = common::reference_dir()?;
    let cases = dir.join("testcases/nav_mesh_test.txt");
    Some(
        std::process::Command::new(env!("CARGO_BIN_EXE_navlab"))
            .arg("crowd")
            .arg(&cases)
            .args(extra)
            .output()
            .expect("navlab runs"),
    )
}

fn cli_matches(scenario: &str, extra: &[&str]) {
    let Some(mut reference) = json(&format!("detour/crowd_nav_test_{scenario}.json")) else {
        return;
    };
    let Some(dir) = common::reference_dir() else {
        return;
    };
    let navmesh = dir.join("navmesh/nav_test_solo.bin");
    let navmesh = navmesh.to_string_lossy();
    // The build description is worded differently; everything else must be equal.
    if let Some(object) = reference.as_object_mut() {
        object.remove("build");
    }
    for source in [vec![], vec!["--navmesh", &*navmesh]] {
        let out = std::env::temp_dir().join(format!(
            "navlab_crowd_{scenario}_{}_{}.json",
            source.len(),
            std::process::id()
        ));
        let out_arg = out.to_string_lossy().into_owned();
        let mut args = vec!["--quiet", "--json", &out_arg];
        args.extend_from_slice(extra);
        args.extend(source.iter().copied());
        let Some(output) = navlab_crowd(&args) else {
            return;
        };
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let ours: Value =
            serde_json::from_slice(&std::fs::read(&out).expect("output")).expect("json");
        let _ = std::fs::remove_file(&out);
        let diffs = json_differences(&reference, &ours);
        assert!(
            diffs.is_empty(),
            "navlab crowd {scenario} {source:?}: {} differences:\n{}",
            diffs.len(),
            diffs[..diffs.len().min(20)].join("\n")
        );
    }
}

#[test]
fn cli_scenario_a_equals_the_reference() {
    cli_matches("A", &[]);
}

#[test]
fn cli_scenario_b_equals_the_reference() {
    cli_matches("B", &["--separation", "--avoidance-quality", "3"]);
}

#[test]
fn cli_bad_input_fails_with_one_line() {
    for bad in [
        &["--dt", "0"][..],
        &["--dt", "-0.5"],
        &["--dt", "NaN"],
        &["--dt", "1e30"],
        &["--steps", "0"],
        &["--record-every", "0"],
        &["--avoidance-quality", "4"],
        &["--agents", "0"],
    ] {
        let Some(output) = navlab_crowd(bad) else {
            return;
        };
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{bad:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{bad:?}: {stderr}");
        assert!(stderr.starts_with("navlab: "), "{bad:?}: {stderr}");
    }
    let Some(dir) = common::reference_dir() else {
        return;
    };
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_navlab"))
        .arg("crowd")
        .arg(dir.join("testcases/raycast_test.txt"))
        .output()
        .expect("navlab runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("no `pf` lines"), "{stderr}");
}
