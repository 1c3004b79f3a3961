//! The `navlab diff` command: two settings of one level compared, on nav_test.obj, whose two
//! flights of stairs an agent climbing 0.3 m (instead of RecastDemo's 0.9 m) cannot take.
use crate::support as common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn navlab() -> Command {
    Command::new(env!("CARGO_BIN_EXE_navlab"))
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("navlab-diff-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Up the stairs of the platform at x 0..8 (8.3 m to 15.3 m), up the ramp of stairs at
/// x 35..46 (-1.1 m to 7.9 m), and a path on the ground floor that climbs nothing (the
/// reference test cases' second line).
const CASES: &str = "s Solo Mesh
f nav_test.obj
pf -1.389315 8.330482 -10.50015  -0.889315 15.330483 12.39985 0x3 0x0
pf 33.585686 -1.119517 -3.47515  44.190685 7.930483 19.159851 0x3 0x0
pf 18.252758 -2.368240 -7.000238  -19.206181 -2.369133 24.802742  0x3 0x0
";

fn run(args: &[&str]) -> Output {
    navlab().args(args).output().unwrap()
}

fn succeeded(output: &Output) -> String {
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn a_lower_climb_loses_the_stairs_and_their_paths() {
    let Some(mesh) = common::mesh_path("nav_test") else {
        return;
    };
    let dir = temp_dir("stairs");
    let (cases, json) = (dir.join("stairs.txt"), dir.join("diff.json"));
    std::fs::write(&cases, CASES).unwrap();
    let stdout = succeeded(&run(&[
        "diff",
        mesh.to_str().unwrap(),
        "--set-b",
        "agentMaxClimb=0.3",
        "--cases",
        cases.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ]));
    for row in [
        "walkable area",
        "polygons",
        "islands",
        "build time",
        "reachable A",
    ] {
        assert!(stdout.contains(row), "{row}: {stdout}");
    }
    let report = read_json(&json);
    assert_eq!(report["settingsA"]["agentMaxClimb"], 0.9);
    assert_eq!(report["settingsB"]["agentMaxClimb"], 0.3);
    let area = |side: &str| report[side]["walkableArea"].as_f64().unwrap();
    // The stairs and the steps of the ramp are some 700 m² of the 4100.
    assert!(
        area("b") < area("a") - 500.0,
        "{} -> {}",
        area("a"),
        area("b")
    );
    let changes = &report["changes"];
    assert!(changes["polysLost"].as_u64().unwrap() >= 10, "{changes}");
    assert!(changes["areaLost"].as_f64().unwrap() > 500.0, "{changes}");
    assert!(changes["cellsLost"].as_u64().unwrap() > 1000, "{changes}");
    assert_eq!(changes["cellsGained"], 0);

    let paths = report["paths"].as_array().unwrap();
    assert_eq!(paths.len(), 3);
    for stairs in &paths[..2] {
        assert_eq!(stairs["reachableA"], true, "{stairs}");
        assert_eq!(stairs["reachableB"], false, "{stairs}");
        assert!(stairs["lengthA"].as_f64().unwrap() > 20.0);
        assert!(stairs["lengthB"].is_null());
    }
    let ground = &paths[2];
    assert_eq!(
        (&ground["reachableA"], &ground["reachableB"]),
        (&true.into(), &true.into())
    );
    assert_eq!(ground["lengthA"], ground["lengthB"]);
    assert_eq!(ground["start"][0], 18.252758);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn the_cells_lost_include_the_steps() {
    use navlab::bake::compare::span_changes;
    use navlab::bake::settings::BuildSettings;
    use navlab::bake::solo::Build;
    use navlab::input::InputGeom;

    let Some(mesh) = common::mesh_path("nav_test") else {
        return;
    };
    let input = InputGeom::load(&mesh).unwrap();
    let a = Build::from_input(&input, BuildSettings::default()).unwrap();
    let mut settings_b = BuildSettings::default();
    settings_b.set("agentMaxClimb=0.3").unwrap();
    let b = Build::from_input(&input, settings_b).unwrap();
    let changes = span_changes(&a.regions, &b.regions, 0.3);
    assert!(changes.gained.is_empty());
    // The flight between the platforms at 8.3 m and 15.3 m, over x 0..8.
    let on_the_stairs = changes
        .lost
        .iter()
        .filter(|cell| (0.0..8.0).contains(&cell.min[0]) && (8.6..15.0).contains(&cell.min[1]));
    assert!(on_the_stairs.count() > 50);
}

#[test]
fn the_same_settings_change_nothing() {
    let Some(mesh) = common::mesh_path("nav_test") else {
        return;
    };
    let dir = temp_dir("same");
    let json = dir.join("diff.json");
    let stdout = succeeded(&run(&[
        "diff",
        mesh.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ]));
    assert!(stdout.contains("0 polygons gained, 0 lost"), "{stdout}");
    assert!(stdout.contains("0 gained, 0 lost"), "{stdout}");
    let report = read_json(&json);
    for key in [
        "a",
        "b",
        "rows",
        "changes",
        "paths",
        "settingsA",
        "settingsB",
    ] {
        assert!(report.get(key).is_some(), "{key}");
    }
    for key in [
        "walkableArea",
        "polys",
        "verts",
        "detailTris",
        "regions",
        "islands",
        "islandAreas",
        "tiles",
        "bytes",
        "buildMs",
    ] {
        assert!(report["a"].get(key).is_some(), "{key}");
        if key != "buildMs" {
            assert_eq!(report["a"][key], report["b"][key], "{key}");
        }
    }
    assert_eq!(
        report["a"]["islands"].as_u64().unwrap() as usize,
        report["a"]["islandAreas"].as_array().unwrap().len()
    );
    for row in report["rows"].as_array().unwrap() {
        if row["name"] != "build time" {
            assert_eq!(row["change"], 0.0, "{row}");
        }
    }
    for key in ["polysGained", "polysLost", "cellsGained", "cellsLost"] {
        assert_eq!(report["changes"][key], 0, "{key}");
    }
    assert_eq!(report["settingsA"], report["settingsB"]);
    assert_eq!(report["paths"], Value::Array(Vec::new()));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn b_is_a_then_its_file_then_its_sets() {
    let Some(mesh) = common::mesh_path("nav_test") else {
        return;
    };
    let dir = temp_dir("layers");
    let (config_a, config_b, json) = (
        dir.join("a.toml"),
        dir.join("b.toml"),
        dir.join("diff.json"),
    );
    std::fs::write(&config_a, "cellSize = 0.4\nagentRadius = 0.5\n").unwrap();
    std::fs::write(&config_b, "agentMaxClimb = 0.3\nagentRadius = 0.4\n").unwrap();
    succeeded(&run(&[
        "diff",
        mesh.to_str().unwrap(),
        "--config",
        config_a.to_str().unwrap(),
        "--set",
        "edgeMaxLen=20",
        "--config-b",
        config_b.to_str().unwrap(),
        "--set-b",
        "agentRadius=0.3",
        "--tile-size",
        "48",
        "--json",
        json.to_str().unwrap(),
    ]));
    let report = read_json(&json);
    let (a, b) = (&report["settingsA"], &report["settingsB"]);
    let f = Value::from;
    assert_eq!((&a["cellSize"], &a["agentRadius"]), (&f(0.4), &f(0.5)));
    assert_eq!((&a["edgeMaxLen"], &a["agentMaxClimb"]), (&f(20.0), &f(0.9)));
    // A's file and A's --set, then B's file's keys, then --set-b.
    assert_eq!((&b["cellSize"], &b["edgeMaxLen"]), (&f(0.4), &f(20.0)));
    assert_eq!((&b["agentMaxClimb"], &b["agentRadius"]), (&f(0.3), &f(0.3)));
    assert_eq!(report["tileSize"], 48);
    assert!(report["a"]["tiles"].as_u64().unwrap() > 1);
    assert!(report["changes"]["cellsLost"].is_null());
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn bad_input_fails_with_one_line() {
    let Some(mesh) = common::mesh_path("nav_test") else {
        return;
    };
    let dir = temp_dir("bad");
    let misspelt = dir.join("b.toml");
    std::fs::write(&misspelt, "agentMaxClmb = 0.3\n").unwrap();
    let only_raycasts = dir.join("rc.txt");
    std::fs::write(&only_raycasts, "rc 0 0 0  1 0 1 0x3 0x0\n").unwrap();
    let mesh = mesh.to_str().unwrap();
    let missing = dir.join("missing.obj");
    let cases: [(Vec<&str>, &str); 5] = [
        (vec!["diff", missing.to_str().unwrap()], "missing.obj"),
        (
            vec!["diff", mesh, "--set-b", "nosuch=1"],
            "--set-b nosuch=1",
        ),
        (
            vec!["diff", mesh, "--config-b", misspelt.to_str().unwrap()],
            "agentMaxClimb",
        ),
        (
            vec!["diff", mesh, "--cases", only_raycasts.to_str().unwrap()],
            "no `pf` lines",
        ),
        (vec!["diff", mesh, "--json", mesh], "--json"),
    ];
    for (args, says) in cases {
        let output = run(&args);
        assert_eq!(output.status.code(), Some(1), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.starts_with("navlab: "), "{stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
    std::fs::remove_dir_all(dir).unwrap();
}
