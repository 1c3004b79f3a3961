//! The `navlab bake` command: output, dump and one-line errors for bad input.
mod common;

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
