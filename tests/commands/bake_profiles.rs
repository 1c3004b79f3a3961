//! `navlab bake --profile`: one navmesh per agent profile, each byte-identical to a single bake
//! with the profile's four settings given by `--set`, and one-line refusals of bad profiles and
//! of outputs that would collide.
use crate::support as common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn navlab() -> Command {
    Command::new(env!("CARGO_BIN_EXE_navlab"))
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("navlab-profiles-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Three profiles differing in slope and climb: (name, radius, height, climb, slope).
const PROFILES: [(&str, &str, &str, &str, &str); 3] = [
    ("human", "0.6", "2.0", "0.9", "45"),
    ("crouching", "0.6", "1.2", "0.5", "45"),
    ("vehicle", "1.5", "2.0", "0.3", "25"),
];

fn succeeded(output: &Output) {
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// A single bake with one profile's settings as `--set`s, plus `extra` arguments.
fn single_bake(mesh: &Path, profile: (&str, &str, &str, &str, &str), extra: &[&str], out: &Path) {
    let (_, radius, height, climb, slope) = profile;
    let output = navlab()
        .args(["bake", "--quiet"])
        .arg(mesh)
        .args(["--set", &format!("agentRadius={radius}")])
        .args(["--set", &format!("agentHeight={height}")])
        .args(["--set", &format!("agentMaxClimb={climb}")])
        .args(["--set", &format!("agentMaxSlope={slope}")])
        .args(extra)
        .arg("-o")
        .arg(out)
        .output()
        .unwrap();
    succeeded(&output);
}

fn profile_arguments() -> Vec<String> {
    PROFILES
        .iter()
        .flat_map(|(name, r, h, c, s)| ["--profile".to_owned(), format!("{name}={r},{h},{c},{s}")])
        .collect()
}

#[test]
fn profiles_write_the_navmeshes_single_bakes_write() {
    let Some(mesh) = common::mesh_path("nav_test") else {
        return;
    };
    let dir = temp_dir("solo");
    let output = navlab()
        .arg("bake")
        .arg(&mesh)
        .args(profile_arguments())
        .arg("-o")
        .arg(dir.join("out_{profile}.bin"))
        .arg("--export-obj")
        .arg(dir.join("{profile}.obj"))
        .output()
        .unwrap();
    succeeded(&output);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("Shared rasterization:"), "{stdout}");
    for profile in PROFILES {
        let name = profile.0;
        assert!(
            stdout.contains(&format!("Profile {name}: ")) && stdout.contains(" polygons, "),
            "{stdout}"
        );
        let single = dir.join(format!("single_{name}.bin"));
        single_bake(&mesh, profile, &[], &single);
        let ours = std::fs::read(dir.join(format!("out_{name}.bin"))).unwrap();
        assert!(
            ours == std::fs::read(&single).unwrap(),
            "{name}: navmesh bytes differ"
        );
        assert!(dir.join(format!("{name}.obj")).is_file(), "{name}.obj");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// Tiled profiles are tiled bakes one after the other, each as `--set` would make it.
#[test]
fn tiled_profiles_write_the_navmeshes_single_tiled_bakes_write() {
    let Some(mesh) = common::mesh_path("dungeon") else {
        return;
    };
    let dir = temp_dir("tiled");
    let output = navlab()
        .args(["bake", "--quiet", "--tile-size", "48"])
        .arg(&mesh)
        .args(profile_arguments())
        .arg("-o")
        .arg(dir.join("tiled_{profile}.bin"))
        .output()
        .unwrap();
    succeeded(&output);
    for profile in PROFILES {
        let name = profile.0;
        let single = dir.join(format!("single_{name}.bin"));
        single_bake(&mesh, profile, &["--tile-size", "48"], &single);
        let ours = std::fs::read(dir.join(format!("tiled_{name}.bin"))).unwrap();
        assert!(
            ours == std::fs::read(&single).unwrap(),
            "{name}: navmesh bytes differ"
        );
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// Bad profiles and colliding outputs are refused in one line, before anything is written.
#[test]
fn bad_profiles_and_outputs_are_refused() {
    let Some(mesh) = common::mesh_path("nav_test") else {
        return;
    };
    let dir = temp_dir("refused");
    let out = |name: &str| dir.join(name).to_string_lossy().into_owned();
    let nine: Vec<String> = (0..9)
        .flat_map(|k| ["--profile".to_owned(), format!("p{k}=0.6,2,0.9,45")])
        .collect();
    let two = ["--profile", "a=0.6,2,0.9,45", "--profile", "b=0.3,1,0.5,30"];
    let cases: Vec<(Vec<String>, &str)> = vec![
        (nine, "9 profiles, at most 8"),
        (
            ["--profile", "a=0.6,2,0.9,45", "--profile", "a=0.3,1,0.5,30"]
                .map(String::from)
                .to_vec(),
            "two profiles are named `a`",
        ),
        (
            ["--profile", "a=1,2,3"].map(String::from).to_vec(),
            "expected 4 numbers",
        ),
        (
            ["--profile", "a/b=1,2,3,4"].map(String::from).to_vec(),
            "only letters, digits",
        ),
        (
            two.iter()
                .map(|s| s.to_string())
                .chain(["-o".into(), out("out.bin")])
                .collect(),
            "must contain {profile} with 2 profiles",
        ),
        (
            two.iter()
                .map(|s| s.to_string())
                .chain([
                    "-o".into(),
                    out("{profile}.bin"),
                    "--export-obj".into(),
                    out("mesh.obj"),
                ])
                .collect(),
            "--export-obj",
        ),
        (
            two.iter()
                .map(|s| s.to_string())
                .chain([
                    "-o".into(),
                    out("{profile}.x"),
                    "--export-obj".into(),
                    out("{profile}.x"),
                ])
                .collect(),
            "overwrite each other",
        ),
        (
            ["--profile", "nav_test=0.6,2,0.9,45", "-o"]
                .map(String::from)
                .into_iter()
                .chain([mesh
                    .with_file_name("{profile}.obj")
                    .to_string_lossy()
                    .into_owned()])
                .collect(),
            "would destroy it",
        ),
    ];
    for (arguments, says) in cases {
        let output = navlab()
            .arg("bake")
            .arg(&mesh)
            .args(&arguments)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1), "{arguments:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.starts_with("navlab: "), "{stderr}");
        assert!(stderr.contains(says), "{arguments:?}: {stderr}");
    }
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        0,
        "nothing is written"
    );
    std::fs::remove_dir_all(dir).unwrap();
}
