//! `navlab bake --jump-links`: the links found go into the navmesh and the saved set, and a
//! path whose include flags allow jumping takes one across a gap (`navlab test`).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn navlab() -> Command {
    Command::new(env!("CARGO_BIN_EXE_navlab"))
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("navlab-jump-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The sample level with drops of 0.5, 1.5 and 3 m and gaps of 1, 2 and 4 m
/// (`scene::terraces`).
fn terraces() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/Meshes/terraces.obj")
}

fn succeeded(output: Output) -> String {
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// Runs `navlab test` on `navmesh` with two paths from the top platform across the 2 m gap:
/// one allowing walk and jump (0x9), one walk only (0x1).
fn paths_across_the_gap(navmesh: &Path, dir: &Path) -> Vec<Value> {
    let cases = dir.join("cases.txt");
    let line = |flags: &str| format!("pf 68 0 4  68 0 14  {flags} 0x0\n");
    let text = format!(
        "s Solo Mesh\nf terraces.obj\n{}{}",
        line("0x9"),
        line("0x1")
    );
    std::fs::write(&cases, text).unwrap();
    let json = dir.join("results.json");
    succeeded(
        navlab()
            .arg("test")
            .arg(&cases)
            .arg("--navmesh")
            .arg(navmesh)
            .arg("--json")
            .arg(&json)
            .arg("--quiet")
            .output()
            .unwrap(),
    );
    let results: Value = serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap();
    results["results"].as_array().unwrap().clone()
}

/// `DT_STRAIGHTPATH_OFFMESH_CONNECTION`, `DT_PARTIAL_RESULT`.
const OFF_MESH_CORNER: u64 = 4;
const PARTIAL: u64 = 1 << 6;

fn status(result: &Value) -> u64 {
    let text = result["findPathStatus"].as_str().unwrap();
    u64::from_str_radix(text.trim_start_matches("0x"), 16).unwrap()
}

fn takes_a_link(result: &Value) -> bool {
    result["straightFlags"]
        .as_array()
        .unwrap()
        .iter()
        .any(|flags| flags.as_u64().unwrap() & OFF_MESH_CORNER != 0)
}

#[test]
fn baked_links_carry_paths_across_the_gap_solo_and_tiled() {
    let dir = temp_dir("paths");
    for tiling in [None, Some("32")] {
        let navmesh = dir.join("nav.bin");
        let saved = dir.join("saved.gset");
        let mut bake = navlab();
        bake.arg("bake")
            .arg(terraces())
            .arg("--jump-links")
            .arg("-o")
            .arg(&navmesh)
            .arg("--save-gset")
            .arg(&saved);
        if let Some(size) = tiling {
            bake.args(["--tile-size", size]);
        }
        let stdout = succeeded(bake.output().unwrap());
        let summary = stdout
            .lines()
            .find(|line| line.starts_with("jump links: "))
            .unwrap_or_else(|| panic!("no summary in {stdout}"));
        let made: usize = summary["jump links: ".len()..]
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!(made > 0 && summary.contains("rejected: "), "{summary}");
        // Every link is in the saved set with area jump (5) and flags jump (8).
        let set = std::fs::read_to_string(&saved).unwrap();
        let links: Vec<&str> = set.lines().filter(|l| l.starts_with("c ")).collect();
        assert_eq!(links.len(), made, "{set}");
        assert!(links.iter().all(|l| l.ends_with(" 5 8")), "{set}");

        let results = paths_across_the_gap(&navmesh, &dir);
        let (jumping, walking) = (&results[0], &results[1]);
        assert_eq!(status(jumping) & PARTIAL, 0, "{jumping}");
        assert!(takes_a_link(jumping), "{jumping}");
        assert_ne!(status(walking) & PARTIAL, 0, "{walking}");
        assert!(!takes_a_link(walking), "{walking}");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn the_setting_the_flag_and_a_saved_set_bake_the_same_navmesh() {
    let dir = temp_dir("same");
    let bake = |extra: &[&str], input: &Path, out: &str| {
        succeeded(
            navlab()
                .arg("bake")
                .arg(input)
                .args(extra)
                .arg("--quiet")
                .arg("-o")
                .arg(dir.join(out))
                .output()
                .unwrap(),
        );
        std::fs::read(dir.join(out)).unwrap()
    };
    let toml = dir.join("jump.toml");
    std::fs::write(&toml, "jumpLinks = true\n").unwrap();
    let saved = dir.join("saved.gset");
    let saved_arg = saved.to_str().unwrap();
    let flag = bake(
        &["--jump-links", "--save-gset", saved_arg],
        &terraces(),
        "flag.bin",
    );
    let set = bake(&["--set", "jumpLinks=true"], &terraces(), "set.bin");
    let file = bake(
        &["--config", toml.to_str().unwrap()],
        &terraces(),
        "file.bin",
    );
    // The saved set holds the links; finding them again adds none.
    let again = bake(&["--jump-links"], &saved, "again.bin");
    let from_set = bake(&[], &saved, "from_set.bin");
    let plain = bake(&[], &terraces(), "plain.bin");
    assert!(flag == set && set == file && file == again && again == from_set);
    assert_ne!(flag, plain, "the links changed nothing");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn jump_links_are_refused_per_profile_and_in_a_split_bake() {
    for extra in [
        &["--profile", "small=0.3,1.5,0.5,45"][..],
        &["--tile-size", "32", "--tiles", "0..1,0..1"][..],
    ] {
        let output = navlab()
            .arg("bake")
            .arg(terraces())
            .arg("--jump-links")
            .args(extra)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.starts_with("navlab: ") && stderr.contains("jumpLinks"),
            "{stderr}"
        );
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
    }
}
