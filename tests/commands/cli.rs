//! The `navlab bake` command: output, dump and one-line errors for bad input.
use crate::support as common;

use std::process::Command;

fn navlab() -> Command {
    Command::new(env!("CARGO_BIN_EXE_navlab"))
}

fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("navlab-cli-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn bake_prints_counts_and_dump_matches_reference() {
    let Some(mesh) = common::mesh_path("nav_test") else {
        return;
    };
    let dir = temp_dir("bake");
    let dump = dir.join("out.json");
    let output = navlab()
        .args([
            "bake",
            mesh.to_str().unwrap(),
            "--partition",
            "monotone",
            "--dump-json",
        ])
        .arg(&dump)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    let reference = common::solo("nav_test", "monotone").unwrap();
    let counts = format!(
        "{} vertices  {} polygons",
        reference["polymesh"]["nverts"], reference["polymesh"]["npolys"]
    );
    assert!(stdout.contains(&counts), "{stdout}");
    assert!(stdout.contains("Rasterize"), "{stdout}");
    let ours: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&dump).unwrap()).unwrap();
    assert_eq!(ours["partition"], "monotone");
    assert_eq!(ours["polymesh"]["polys"], reference["polymesh"]["polys"]);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn bad_input_fails_with_one_line() {
    let dir = temp_dir("bad");
    let not_obj = dir.join("garbage.obj");
    std::fs::write(&not_obj, [0u8, 159, 146, 150, 0, 1]).unwrap();
    let empty = dir.join("empty.obj");
    std::fs::write(&empty, "# nothing here\n").unwrap();
    let bad_config = dir.join("bad.toml");
    std::fs::write(&bad_config, "cellSize = -1\n").unwrap();
    let missing = dir.join("missing.obj");
    let triangle = dir.join("tri.obj");
    std::fs::write(&triangle, "v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 3\n").unwrap();
    let cases: [(Vec<&str>, &str); 5] = [
        (vec!["bake", missing.to_str().unwrap()], "missing.obj"),
        (vec!["bake", not_obj.to_str().unwrap()], "not an OBJ"),
        (vec!["bake", empty.to_str().unwrap()], "no triangles"),
        (
            vec![
                "bake",
                triangle.to_str().unwrap(),
                "--config",
                bad_config.to_str().unwrap(),
            ],
            "cellSize",
        ),
        (
            vec!["bake", triangle.to_str().unwrap(), "--partition", "spiral"],
            "spiral",
        ),
    ];
    for (args, expected) in cases {
        let output = navlab().args(&args).output().unwrap();
        assert!(!output.status.success(), "{args:?} should fail");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn bake_writes_the_navmesh_file_cpp_writes() {
    let Some(dir) = common::reference_dir() else {
        return;
    };
    let out_dir = temp_dir("navmesh");
    // A .gset names its mesh relative to itself: put both side by side.
    std::fs::copy(
        dir.join("meshes/nav_test.obj"),
        out_dir.join("nav_test.obj"),
    )
    .unwrap();
    std::fs::copy(
        dir.join("authoring/nav_test_authoring.gset"),
        out_dir.join("authoring.gset"),
    )
    .unwrap();
    let cases = [
        (out_dir.join("nav_test.obj"), "navmesh/nav_test_solo.bin"),
        (
            out_dir.join("authoring.gset"),
            "authoring/nav_test_authoring_solo.bin",
        ),
    ];
    for (input, expected) in cases {
        let out = out_dir.join("out.bin");
        let output = navlab()
            .arg("bake")
            .arg(&input)
            .args(["--quiet", "-o"])
            .arg(&out)
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let ours = std::fs::read(&out).unwrap();
        let theirs = std::fs::read(dir.join(expected)).unwrap();
        assert!(
            ours == theirs,
            "{expected}: our file differs ({} vs {} bytes)",
            ours.len(),
            theirs.len()
        );
    }
    std::fs::remove_dir_all(out_dir).unwrap();
}

/// `--save-gset` writes what RecastDemo's key 9 writes; the saved set (now with an `s` line of
/// the settings and bounds used) builds the reference navmeshes again, solo and tiled.
#[test]
fn saved_geometry_sets_rebuild_the_reference_navmeshes() {
    let Some(reference) = common::reference_dir() else {
        return;
    };
    let authoring = reference.join("authoring");
    let dir = temp_dir("save-gset");
    let saved = dir.join("saved.gset");
    let status = navlab()
        .args(["bake", "--quiet", "--save-gset"])
        .arg(&saved)
        .arg(authoring.join("nav_test_authoring.gset"))
        .status()
        .unwrap();
    assert!(status.success());
    let text = std::fs::read_to_string(&saved).unwrap();
    assert_eq!(
        text.lines().filter(|l| l.starts_with("s ")).count(),
        1,
        "{text}"
    );
    assert_eq!(
        text.lines().filter(|l| l.starts_with("c ")).count(),
        3,
        "{text}"
    );
    assert_eq!(
        text.lines().filter(|l| l.starts_with("v ")).count(),
        4,
        "{text}"
    );
    // Saved again from the saved set: the same file (nothing drifts through a round trip).
    let again = dir.join("again.gset");
    let status = navlab()
        .args(["bake", "--quiet", "--save-gset"])
        .arg(&again)
        .arg(&saved)
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(std::fs::read_to_string(&again).unwrap(), text);

    for (tiles, bin) in [
        (None, "nav_test_authoring_solo.bin"),
        (Some("32"), "nav_test_authoring_tiled32.bin"),
    ] {
        let out = dir.join(bin);
        let mut command = navlab();
        command
            .args(["bake", "--quiet", "-o"])
            .arg(&out)
            .arg(&saved);
        if let Some(tile_size) = tiles {
            command.args(["--tile-size", tile_size]);
        }
        let output = command.output().unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(
            std::fs::read(&out).unwrap() == std::fs::read(authoring.join(bin)).unwrap(),
            "{bin} differs from C++'s"
        );
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// `--set` overrides settings by RecastDemo's names after the settings file, and refuses an
/// unknown name or a bad value in one line naming it.
#[test]
fn set_overrides_single_settings() {
    let Some(mesh) = common::mesh_path("nav_test") else {
        return;
    };
    let dir = temp_dir("set");
    let config = dir.join("monotone.toml");
    std::fs::write(&config, "partitionType = \"monotone\"\ncellSize = 0.5\n").unwrap();
    let dump = dir.join("dump.json");
    let output = navlab()
        .args(["bake", "--quiet", "--set", "cellSize=0.3", "--config"])
        .arg(&config)
        .arg("--dump-json")
        .arg(&dump)
        .arg(&mesh)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let ours: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&dump).unwrap()).unwrap();
    let reference = common::solo("nav_test", "monotone").unwrap();
    assert_eq!(ours["polymesh"]["polys"], reference["polymesh"]["polys"]);

    for (set, says) in [
        ("cell_size=0.2", "did you mean `cellSize`"),
        ("agentRadius=wide", "agentRadius"),
        ("cellSize", "NAME=VALUE"),
    ] {
        let output = navlab()
            .args(["bake", "--set", set])
            .arg(&mesh)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1), "{set}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.starts_with("navlab: --set"), "{stderr}");
        assert!(stderr.contains(says), "{stderr}");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// The settings report's warnings reach `navlab bake`'s stderr.
#[test]
fn settings_warnings_are_printed() {
    let Some(mesh) = common::mesh_path("nav_test") else {
        return;
    };
    let output = navlab()
        .args([
            "bake",
            "--set",
            "agentMaxClimb=2.5",
            "--set",
            "agentRadius=0",
        ])
        .arg(&mesh)
        .output()
        .unwrap();
    assert!(output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("warning: agentMaxClimb:"), "{stderr}");
    assert!(stderr.contains("warning: agentRadius:"), "{stderr}");
}

/// `--set splitOverlappingRegions=true` on a spiral ramp: Recast's warnings go, solo and tiled.
#[test]
fn split_overlapping_regions_silences_the_spiral_ramp() {
    let dir = temp_dir("split-overlapping");
    let mesh = dir.join("spiral_ramp.obj");
    let ramp = navlab::input::scene::spiral_ramp(3, 4.0);
    std::fs::write(&mesh, navlab::input::scene::obj_text(&ramp)).unwrap();
    for tiles in [&[][..], &["--tile-size", "96"]] {
        for split in [false, true] {
            let mut command = navlab();
            command.arg("bake").arg(&mesh).args(tiles);
            if split {
                command.args(["--set", "splitOverlappingRegions=true"]);
            }
            let output = command.output().unwrap();
            assert!(output.status.success());
            let stderr = String::from_utf8_lossy(&output.stderr);
            for warning in [
                "warning: rcBuildRegions: 1 overlapping regions.",
                "warning: rcBuildPolyMesh: Bad triangulation",
            ] {
                assert_eq!(stderr.contains(warning), !split, "{tiles:?}: {stderr}");
            }
        }
    }
    std::fs::remove_dir_all(dir).unwrap();
}
