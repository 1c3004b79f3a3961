//! `navlab gen world`: the same bytes for the same size and seed, a grid line that sizes a
//! split bake, a world that bakes whole and split into the same file, and one `navlab:` line
//! for a bad size or output.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn navlab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_navlab"))
        .args(args)
        .output()
        .unwrap()
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("navlab-gen-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// Writes the world and returns its standard output.
fn gen_world(size: &str, seed: &str, out: &Path) -> String {
    let output = navlab(&["gen", "world", "--size", size, "--seed", seed, "-o", s(out)]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn same_seed_same_bytes_and_the_grid_is_printed() {
    let dir = temp_dir("seed");
    let (a, b, c) = (dir.join("a.obj"), dir.join("b.obj"), dir.join("c.obj"));
    let printed = gen_world("300", "5", &a);
    gen_world("300", "5", &b);
    gen_world("300", "6", &c);
    let bytes = std::fs::read(&a).unwrap();
    assert!(bytes == std::fs::read(&b).unwrap(), "one seed, two worlds");
    assert!(bytes != std::fs::read(&c).unwrap(), "two seeds, one world");
    // 300 m at 0.3 m cells: 1000 cells, 16 tiles of 64 along each side.
    assert!(
        printed.contains("1000 x 1000 cells, 16 x 16 tiles (256 tiles)"),
        "{printed}"
    );
    assert!(printed.contains("bounds: (0, "), "{printed}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn world_bakes_whole_and_split_into_the_same_file() {
    for (name, flags) in [("bake32", &[][..]), ("bake64", &["--poly-refs", "64"][..])] {
        let dir = temp_dir(name);
        let mesh = dir.join("world.obj");
        gen_world("300", "1", &mesh);
        crate::bake_split::split_and_merge(&dir, &mesh, "64", (16, 16), flags);
        std::fs::remove_dir_all(dir).unwrap();
    }
}

#[test]
fn bad_size_and_outputs_fail_with_one_line() {
    let dir = temp_dir("bad");
    let out = dir.join("w.obj");
    let missing = dir.join("missing/w.obj");
    for (args, needle) in [
        (
            vec!["--size", "50", "-o", s(&out)],
            "must be 300 to 20000 metres",
        ),
        (vec!["--size", "lots", "-o", s(&out)], "not a number"),
        (vec!["--size", "300", "-o", s(&dir)], "is a folder"),
        (vec!["--size", "300", "-o", s(&missing)], "does not exist"),
    ] {
        let mut all = vec!["gen", "world"];
        all.extend(args);
        let output = navlab(&all);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{all:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{all:?}: {stderr}");
        assert!(
            stderr.starts_with("navlab: ") && stderr.contains(needle),
            "{all:?}: {stderr}"
        );
    }
    assert!(!out.exists());
    std::fs::remove_dir_all(dir).unwrap();
}
