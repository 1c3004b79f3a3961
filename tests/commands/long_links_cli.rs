//! `longRangeLinks` through the commands: `navlab bake` joins the reference authoring set's
//! third link at tile size 32 (no more warning), and `navlab test`, `navlab crowd` and
//! `navlab tilecache` use it.
use crate::support as common;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn navlab() -> Command {
    Command::new(env!("CARGO_BIN_EXE_navlab"))
}

/// A scratch folder of one test, which removes it when it passes.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("navlab-long-links-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `navlab ARGS`, asserts it succeeded and returns its stderr.
fn run(args: &[&str], paths: &[&Path]) -> String {
    let output = navlab().args(args).args(paths).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{args:?}: {stderr}");
    stderr
}

fn has_long_link_block(path: &Path) -> bool {
    std::fs::read(path)
        .unwrap()
        .windows(4)
        .any(|w| w == b"NLLR")
}

/// Every value of `key` anywhere in `json`.
fn values_of<'a>(json: &'a Value, key: &str, found: &mut Vec<&'a Value>) {
    match json {
        Value::Object(map) => {
            for (k, v) in map {
                if k == key {
                    found.push(v);
                }
                values_of(v, key, found);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| values_of(v, key, found)),
        _ => {}
    }
}

#[test]
fn long_range_links_join_the_third_link_through_the_commands() {
    let Some(reference) = common::reference_dir() else {
        return;
    };
    let gset = reference.join("authoring/nav_test_authoring.gset");
    let dir = temp_dir("bake");
    let (plain, long, toml_long) = (
        dir.join("plain.bin"),
        dir.join("long.bin"),
        dir.join("toml.bin"),
    );
    let warning = "warning: off-mesh link 3:";
    let stderr = run(&["bake", "--tile-size", "32", "-o"], &[&plain, &gset]);
    assert!(stderr.contains(warning), "{stderr}");
    assert!(!has_long_link_block(&plain));
    assert_eq!(
        std::fs::read(&plain).unwrap(),
        std::fs::read(reference.join("authoring/nav_test_authoring_tiled32.bin")).unwrap(),
        "C++'s file"
    );
    let stderr = run(
        &[
            "bake",
            "--tile-size",
            "32",
            "--set",
            "longRangeLinks=true",
            "-o",
        ],
        &[&long, &gset],
    );
    assert!(!stderr.contains(warning), "{stderr}");
    assert!(has_long_link_block(&long));
    let config = dir.join("long.toml");
    std::fs::write(&config, "longRangeLinks = true\n").unwrap();
    let output = navlab()
        .args(["bake", "--quiet", "--tile-size", "32", "--config"])
        .arg(&config)
        .arg("-o")
        .arg(&toml_long)
        .arg(&gset)
        .output()
        .unwrap();
    assert!(output.status.success());
    assert_eq!(
        std::fs::read(&toml_long).unwrap(),
        std::fs::read(&long).unwrap()
    );

    // A path from beside the link's start to beside its end, on each file.
    let cases = dir.join("cases.txt");
    std::fs::write(
        &cases,
        "s Tile Mesh\nf nav_test.obj\npf -17.706181 -2.369133 26.302742  -21.259071 -2.369453 3.503946  0xffef 0x0\n",
    )
    .unwrap();
    let json = dir.join("test.json");
    let path_of = |navmesh: &Path| {
        run(
            &["test", "--quiet", "--navmesh"],
            &[navmesh, &cases, Path::new("--json"), &json],
        );
        let results: Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        results["results"][0].clone()
    };
    let through = path_of(&long);
    assert_eq!(through["findPathStatus"], "0x40000000", "{through}");
    assert!(
        through["straightFlags"]
            .as_array()
            .unwrap()
            .contains(&Value::from(4))
    );
    // C++ (and the plain file) walks round instead.
    let around = path_of(&plain);
    let flags = around["straightFlags"].as_array().unwrap();
    assert!(!flags.contains(&Value::from(4)), "{around}");

    // The crowd tool's agent walks that line on the saved file and crosses.
    let crowd = dir.join("crowd.json");
    run(
        &["crowd", "--navmesh"],
        &[&long, &cases, Path::new("--json"), &crowd],
    );
    let crowd: Value = serde_json::from_str(&std::fs::read_to_string(&crowd).unwrap()).unwrap();
    let mut distances = Vec::new();
    values_of(&crowd, "dist2D", &mut distances);
    assert!(!distances.is_empty(), "{crowd}");
    assert!(
        distances.iter().all(|d| d.as_f64().unwrap() < 1.0),
        "{distances:?}"
    );

    // The tile cache's navmesh with the setting on keeps the link, in its files too.
    let initial = dir.join("initial.bin");
    run(
        &[
            "tilecache",
            "--quiet",
            "--tile-size",
            "32",
            "--set",
            "longRangeLinks=true",
            "--initial-navmesh",
        ],
        &[&initial, &gset],
    );
    assert!(has_long_link_block(&initial));
    assert_eq!(path_of(&initial)["findPathStatus"], "0x40000000");
    std::fs::remove_dir_all(dir).unwrap();
}
