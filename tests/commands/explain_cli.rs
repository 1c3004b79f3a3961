//! The `navlab explain` command: the line, the JSON and one-line errors for bad input.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn navlab() -> Command {
    Command::new(env!("CARGO_BIN_EXE_navlab"))
}

/// A folder with a 10 m floor and a 1.2 m square platform 4 m from it, as OBJ.
fn level(name: &str) -> (PathBuf, PathBuf) {
    let dir = std::env::temp_dir().join(format!("navlab-explain-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mesh = dir.join("level.obj");
    std::fs::write(
        &mesh,
        "v 0 0 0\nv 10 0 0\nv 10 0 10\nv 0 0 10\nf 1 4 3\nf 1 3 2\n\
         v 14 0 2\nv 15.2 0 2\nv 15.2 0 3.2\nv 14 0 3.2\nf 5 8 7\nf 5 7 6\n",
    )
    .unwrap();
    (dir, mesh)
}

fn explain(mesh: &Path, args: &[&str]) -> Output {
    navlab()
        .arg("explain")
        .arg(mesh)
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn explain_prints_the_line_and_writes_the_json() {
    let (dir, mesh) = level("line");
    let walkable = explain(&mesh, &["5,0,5"]);
    assert!(
        walkable.status.success(),
        "{}",
        String::from_utf8_lossy(&walkable.stderr)
    );
    let line = String::from_utf8_lossy(&walkable.stdout);
    assert!(
        line.starts_with("walkable, polygon ") && line.contains("island 1 of 1"),
        "{line}"
    );

    let json = dir.join("why.json");
    let eroded = explain(
        &mesh,
        &[
            "0.75,0,5",
            "--set",
            "agentRadius=0.9",
            "--json",
            json.to_str().unwrap(),
        ],
    );
    assert!(
        eroded.status.success(),
        "{}",
        String::from_utf8_lossy(&eroded.stderr)
    );
    let line = String::from_utf8_lossy(&eroded.stdout);
    assert_eq!(
        line.trim(),
        "eroded: 0.3 m from the walkable edge < agentRadius 0.9 m"
    );
    let value: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(value["stage"], "Erode");
    assert_eq!(value["setting"], "agentRadius");
    assert_eq!(value["unit"], "m");
    assert_eq!(value["walkable"], false);
    assert_eq!(value["sentence"], line.trim());
    assert!(
        (value["measured"].as_f64().unwrap() - 0.3).abs() < 1e-3,
        "{value}"
    );
    assert!(
        (value["keepValue"].as_f64().unwrap() - 0.3).abs() < 1e-3,
        "{value}"
    );
    assert!(value["poly"].is_null() && value["island"].is_null() && value["islands"].is_null());
    assert_eq!(value["position"].as_array().unwrap().len(), 3);

    // Tiled: the spot in the tile that holds it, its polygon and island in the whole grid.
    let tiled = explain(&mesh, &["5,0,5", "--tile-size", "16"]);
    assert!(
        tiled.status.success(),
        "{}",
        String::from_utf8_lossy(&tiled.stderr)
    );
    let line = String::from_utf8_lossy(&tiled.stdout);
    assert!(
        line.starts_with("walkable, polygon ") && line.contains("island 1 of 1"),
        "{line}"
    );

    // The small platform's region is below regionMinSize² even though the build fails
    // (nothing else there): exit 0, the verdict on stdout.
    let small = explain(&mesh, &["14.6,0,2.6", "--set", "agentRadius=0"]);
    assert!(
        small.status.success(),
        "{}",
        String::from_utf8_lossy(&small.stderr)
    );
    let line = String::from_utf8_lossy(&small.stdout);
    assert!(
        line.starts_with("region of ") && line.contains("< minRegionArea 64"),
        "{line}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn explain_refuses_bad_input_in_one_line() {
    let (dir, mesh) = level("bad");
    let settings = dir.join("settings.toml");
    std::fs::write(&settings, "cellSize = 0.3\n").unwrap();
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec![mesh.display().to_string(), "1,2".into()],
            "three numbers",
        ),
        (
            vec![mesh.display().to_string(), "1,NaN,2".into()],
            "not a finite number",
        ),
        (
            vec![mesh.display().to_string(), "a,b,c".into()],
            "not a finite number",
        ),
        (
            vec![
                dir.join("missing.obj").display().to_string(),
                "1,2,3".into(),
            ],
            "missing.obj",
        ),
        (
            vec![
                mesh.display().to_string(),
                "1,0,1".into(),
                "--tile-size".into(),
                "0".into(),
            ],
            "tile",
        ),
        (
            vec![
                mesh.display().to_string(),
                "1,0,1".into(),
                "--config".into(),
                settings.display().to_string(),
                "--json".into(),
                settings.display().to_string(),
            ],
            "destroy",
        ),
    ];
    for (args, expected) in cases {
        let output = navlab().arg("explain").args(&args).output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(output.stdout.is_empty(), "{args:?}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(
            stderr.starts_with("navlab: ") && stderr.contains(expected),
            "{args:?}: {stderr}"
        );
    }
    assert_eq!(
        std::fs::read_to_string(&settings).unwrap(),
        "cellSize = 0.3\n"
    );
    std::fs::remove_dir_all(dir).unwrap();
}
