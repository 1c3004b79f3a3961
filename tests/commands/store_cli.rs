//! `navlab store`: packs the reference authoring set's tiled navmesh (off-mesh links) into a
//! tile store, lists it, refuses to write over its input, and refuses what is not a navmesh
//! or not a store with one `navlab:` line (docs/streaming.md).
use crate::support as common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use navlab::detour::load_nav_mesh;
use navlab::detour::tile_store::TileStore;

fn navlab(args: &[&str], paths: &[&Path]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_navlab"))
        .args(args)
        .args(paths)
        .output()
        .unwrap()
}

/// A scratch folder of one test.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("navlab-store-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The one `navlab:` line of a failed run.
fn error_line(output: &Output) -> String {
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("navlab: "), "{stderr}");
    stderr
}

#[test]
fn store_packs_and_lists_a_navmesh() {
    let Some(reference) = common::reference_dir() else {
        return;
    };
    let input = reference.join("authoring/nav_test_authoring_tiled32.bin");
    let dir = temp_dir("pack");
    let store_path = dir.join("authoring.nlts");
    let packed = navlab(&["store"], &[&input, Path::new("-o"), &store_path]);
    assert!(
        packed.status.success(),
        "{}",
        String::from_utf8_lossy(&packed.stderr)
    );
    let mesh = load_nav_mesh(&input).unwrap();
    let store = TileStore::open(&store_path).unwrap();
    assert_eq!(store.tiles().len(), mesh.tile_count());
    assert_eq!(store.params(), mesh.params());
    let mut refs: Vec<_> = store.tiles().iter().map(|t| t.tile_ref).collect();
    let mut want: Vec<_> = mesh.tiles().map(|(r, _)| r).collect();
    refs.sort_unstable();
    want.sort_unstable();
    assert_eq!(refs, want);

    let info = navlab(&["store", "--info"], &[&store_path]);
    assert!(info.status.success());
    let text = String::from_utf8_lossy(&info.stdout);
    assert!(
        text.contains(&format!("{} tiles, 32-bit references", mesh.tile_count())),
        "{text}"
    );
    assert!(
        text.contains(&format!("{} bytes", store.file_len())),
        "{text}"
    );

    // A compact input packs to the same tiles.
    let compact = dir.join("authoring.nlmz");
    std::fs::write(&compact, mesh.to_compact_bytes().unwrap()).unwrap();
    let from_compact = dir.join("from-compact.nlts");
    assert!(
        navlab(&["store"], &[&compact, Path::new("-o"), &from_compact])
            .status
            .success()
    );
    assert_eq!(
        std::fs::read(&from_compact).unwrap(),
        std::fs::read(&store_path).unwrap()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn store_refuses_bad_input_with_one_line() {
    let Some(reference) = common::reference_dir() else {
        return;
    };
    let input = reference.join("authoring/nav_test_authoring_tiled32.bin");
    let dir = temp_dir("refuse");
    let copy = dir.join("level.bin");
    std::fs::copy(&input, &copy).unwrap();
    let before = std::fs::read(&copy).unwrap();
    let line = error_line(&navlab(&["store"], &[&copy, Path::new("-o"), &copy]));
    assert!(
        line.contains("-o") && line.contains("navmesh file"),
        "{line}"
    );
    assert_eq!(std::fs::read(&copy).unwrap(), before);

    let gset = reference.join("authoring/nav_test_authoring.gset");
    let line = error_line(&navlab(
        &["store"],
        &[&gset, Path::new("-o"), &dir.join("x.nlts")],
    ));
    assert!(line.contains("magic"), "{line}");
    assert!(!dir.join("x.nlts").exists());

    let line = error_line(&navlab(&["store", "--info"], &[&copy]));
    assert!(line.contains("not a tile store"), "{line}");
    let cut = dir.join("cut.nlts");
    let store_path = dir.join("whole.nlts");
    assert!(
        navlab(&["store"], &[&copy, Path::new("-o"), &store_path])
            .status
            .success()
    );
    let whole = std::fs::read(&store_path).unwrap();
    std::fs::write(&cut, &whole[..whole.len() / 2]).unwrap();
    let line = error_line(&navlab(&["store", "--info"], &[&cut]));
    assert!(line.contains("index row"), "{line}");
    let line = error_line(&navlab(&["store"], &[&copy]));
    assert!(line.contains("--output"), "{line}");
    let _ = std::fs::remove_dir_all(&dir);
}
