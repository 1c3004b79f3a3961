//! Bakes split by tile range (`navlab bake --tiles`) and joined (`navlab merge`) equal the
//! one-shot bake byte for byte; compact navmesh files load to the MSET file's navmesh; bad
//! ranges and parts fail with one `navlab:` line.
use crate::support as common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use navlab::bake::settings::BuildSettings;
use navlab::bake::tiled::TiledBuild;
use navlab::detour::NavMesh;
use navlab::detour::load_nav_mesh;
use navlab::input::input_geom::InputGeom;
use navlab::input::scene;

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("navlab-split-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn navlab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_navlab"))
        .args(args)
        .output()
        .unwrap()
}

fn succeeds(args: &[&str]) {
    let output = navlab(args);
    assert!(
        output.status.success(),
        "navlab {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Runs `navlab` expecting exit code 1 and one `navlab:` line containing `needle`.
fn fails_with(args: &[&str], needle: &str) {
    let output = navlab(args);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "navlab {args:?}: {stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "navlab {args:?}: {stderr}");
    assert!(lines[0].starts_with("navlab: "), "{stderr}");
    assert!(lines[0].contains(needle), "navlab {args:?}: {stderr}");
}

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// A city of 16 x 16 blocks (192 m) as OBJ.
fn city_obj(dir: &Path) -> PathBuf {
    let path = dir.join("city.obj");
    std::fs::write(&path, scene::obj_text(&scene::city(16))).unwrap();
    path
}

/// Bakes `mesh` whole and in the four quarters of its `tiles_x` x `tiles_y` grid, merges the
/// quarters in order and reversed, and checks both merges and the compact files. Every bake
/// gets `extra` too.
pub(crate) fn split_and_merge(
    dir: &Path,
    mesh: &Path,
    tile_size: &str,
    (tiles_x, tiles_y): (i32, i32),
    extra: &[&str],
) {
    let bake = |args: &[&str]| {
        let mut all = vec!["bake", s(mesh), "--tile-size", tile_size, "--quiet"];
        all.extend(extra);
        all.extend(args);
        succeeds(&all);
    };
    let whole = dir.join("whole.bin");
    bake(&["-o", s(&whole)]);
    let (mx, my) = (tiles_x / 2, tiles_y / 2);
    let ranges = [
        format!("0..{},0..{}", mx - 1, my - 1),
        format!("{mx}..{},0..{}", tiles_x - 1, my - 1),
        format!("0..{},{my}..{}", mx - 1, tiles_y - 1),
        format!("{mx}..{},{my}..{}", tiles_x - 1, tiles_y - 1),
    ];
    let mut parts = Vec::new();
    for (i, range) in ranges.iter().enumerate() {
        let part = dir.join(format!("part{i}.bin"));
        bake(&["--tiles", range, "-o", s(&part)]);
        parts.push(part);
    }
    let expected = std::fs::read(&whole).unwrap();
    let merged = dir.join("merged.bin");
    let mut args = vec!["merge"];
    args.extend(parts.iter().map(|p| s(p)));
    args.extend(["-o", s(&merged)]);
    succeeds(&args);
    assert!(
        std::fs::read(&merged).unwrap() == expected,
        "merged parts differ from the one-shot bake"
    );

    let reversed = dir.join("reversed.bin");
    let mut args = vec!["merge"];
    args.extend(parts.iter().rev().map(|p| s(p)));
    args.extend(["-o", s(&reversed)]);
    succeeds(&args);
    assert!(
        std::fs::read(&reversed).unwrap() == expected,
        "parts merged out of order differ"
    );

    // Compact parts merge to the same navmesh, and a compact whole bake loads to it too.
    let compact_parts: Vec<PathBuf> = parts
        .iter()
        .map(|part| {
            let compact = part.with_extension("nlm");
            let mset = load_nav_mesh(part).unwrap();
            navlab::detour::nav_mesh_compact::save_compact_nav_mesh(&compact, &mset).unwrap();
            compact
        })
        .collect();
    let compact_merged = dir.join("merged.nlm");
    let mut args = vec!["merge", "--compact"];
    args.extend(compact_parts.iter().map(|p| s(p)));
    args.extend(["-o", s(&compact_merged)]);
    succeeds(&args);
    assert!(load_nav_mesh(&compact_merged).unwrap().to_mset_bytes() == expected);
    let compact_whole = dir.join("whole.nlm");
    bake(&["--compact", "-o", s(&compact_whole)]);
    assert!(load_nav_mesh(&compact_whole).unwrap().to_mset_bytes() == expected);
    assert!(std::fs::metadata(&compact_whole).unwrap().len() * 2 < expected.len() as u64);
}

#[test]
fn split_city_merges_to_the_one_shot_file() {
    let dir = temp_dir("city");
    let mesh = city_obj(&dir);
    // 192 m at 0.3 m cells: 640 cells, 20 x 20 tiles of 32.
    split_and_merge(&dir, &mesh, "32", (20, 20), &[]);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn split_city_with_64_bit_references_merges_to_the_one_shot_file() {
    let dir = temp_dir("city64");
    let mesh = city_obj(&dir);
    split_and_merge(&dir, &mesh, "32", (20, 20), &["--poly-refs", "64"]);
    let merged = load_nav_mesh(&dir.join("merged.bin")).unwrap();
    assert_eq!(merged.ref_width(), navlab::detour::RefWidth::Bits64);
    // Parts of different widths are not parts of one bake.
    let narrow = dir.join("narrow.bin");
    succeeds(&[
        "bake",
        s(&mesh),
        "--tile-size",
        "32",
        "--tiles",
        "0..0,0..0",
        "--quiet",
        "-o",
        s(&narrow),
    ]);
    fails_with(
        &[
            "merge",
            s(&dir.join("part3.bin")),
            s(&narrow),
            "-o",
            s(&dir.join("mixed.bin")),
        ],
        "same --poly-refs",
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// A flat square of `size` metres, two triangles.
fn plane_obj(dir: &Path, size: f32) -> PathBuf {
    let path = dir.join("plane.obj");
    std::fs::write(
        &path,
        format!("v 0 0 0\nv {size} 0 0\nv {size} 0 {size}\nv 0 0 {size}\nf 1 3 2\nf 1 4 3\n"),
    )
    .unwrap();
    path
}

/// A grid of more than 2^14 tiles: 32-bit references refuse it naming the flag, 64-bit ones
/// get a tile slot for every tile, and its split bake merges to the one-shot file.
#[test]
fn grids_beyond_16384_tiles_need_and_get_64_bit_references() {
    let dir = temp_dir("beyond16k");
    // 262 m at 0.5 m cells, tiles of 4 cells: 131 x 131 = 17 161 tiles.
    let mesh = plane_obj(&dir, 262.0);
    let coarse = [
        "--set",
        "cellSize=0.5",
        "--set",
        "cellHeight=0.5",
        "--set",
        "regionMinSize=0",
    ];
    let refused = dir.join("refused.bin");
    let mut narrow = vec![
        "bake",
        s(&mesh),
        "--tile-size",
        "4",
        "--quiet",
        "-o",
        s(&refused),
    ];
    narrow.extend(coarse);
    fails_with(&narrow, "--poly-refs 64");
    let wide: Vec<&str> = coarse
        .iter()
        .copied()
        .chain(["--poly-refs", "64"])
        .collect();
    split_and_merge(&dir, &mesh, "4", (131, 131), &wide);
    let merged = load_nav_mesh(&dir.join("merged.bin")).unwrap();
    assert_eq!(merged.params().max_tiles, 32768);
    assert!(merged.tile_count() > 1 << 14);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn split_reference_meshes_merge_to_the_one_shot_file() {
    for name in common::MESHES {
        let Some(mesh) = common::mesh_path(name) else {
            return;
        };
        let input = InputGeom::load(&mesh).unwrap();
        let build = TiledBuild::new(&input, BuildSettings::for_input(&input), 32).unwrap();
        let dir = temp_dir(name);
        split_and_merge(
            &dir,
            &mesh,
            "32",
            (build.tiles_x.max(2), build.tiles_y.max(2)),
            &[],
        );
        std::fs::remove_dir_all(dir).unwrap();
    }
}

/// Compact files of a navmesh with edited tiles (stale link slots) still load to what its
/// MSET file loads to.
#[test]
fn compact_file_of_an_edited_navmesh_loads_like_mset() {
    let input = InputGeom::from_mesh(scene::city(6)).unwrap();
    let mut build = TiledBuild::new(&input, BuildSettings::for_input(&input), 32).unwrap();
    build.remove_tile(1, 1).unwrap();
    build.rebuild_tile(&input, 1, 1).unwrap();
    build.remove_tile(2, 1).unwrap();
    let mset = build.nav_mesh.to_mset_bytes();
    let from_mset = NavMesh::from_mset_bytes(&mset).unwrap();
    let compact = build.nav_mesh.to_compact_bytes().unwrap();
    let from_compact = NavMesh::from_compact_bytes(&compact).unwrap();
    assert!(from_compact.to_mset_bytes() == from_mset.to_mset_bytes());
}

/// Every truncation and many single-byte changes of a compact file are errors or navmeshes,
/// never panics.
#[test]
fn damaged_compact_files_fail_cleanly() {
    let input = InputGeom::from_mesh(scene::city(3)).unwrap();
    let build = TiledBuild::new(&input, BuildSettings::for_input(&input), 32).unwrap();
    let compact = build.nav_mesh.to_compact_bytes().unwrap();
    for cut in 0..compact.len() {
        assert!(
            NavMesh::from_compact_bytes(&compact[..cut]).is_err(),
            "cut at {cut}"
        );
    }
    for at in 0..compact.len().min(400) {
        let mut damaged = compact.clone();
        damaged[at] ^= 0x5a;
        let _ = NavMesh::from_compact_bytes(&damaged);
    }
}

#[test]
fn bad_ranges_and_parts_fail_with_one_line() {
    let dir = temp_dir("bad");
    let city = city_obj(&dir);
    let city = s(&city);
    let bake = |tiles: &str, needle: &str| {
        fails_with(
            &[
                "bake",
                city,
                "--tile-size",
                "32",
                "--tiles",
                tiles,
                "-o",
                s(&dir.join("x.bin")),
            ],
            needle,
        )
    };
    bake("0..20,0..3", "the grid is 20 x 20 tiles (0..19,0..19)");
    bake("0..3,5..25", "y reaches tile 25");
    bake("3..1,0..0", "x bounds are reversed");
    bake("0..1,4..2", "y bounds are reversed");
    for malformed in ["0..3", "a..b,0..1", "1-3,0..2", "0..1,", "-1..2,0..1", ""] {
        bake(malformed, "expected X0..X1,Y0..Y1");
    }
    fails_with(&["bake", city, "--tiles", "0..1,0..1"], "--tile-size");

    // Two floors in opposite corners: the tiles between them are empty.
    let corners = dir.join("corners.obj");
    std::fs::write(
        &corners,
        "v 0 0 0\nv 10 0 0\nv 10 0 10\nv 0 0 10\nv 90 0 90\nv 100 0 90\nv 100 0 100\nv 90 0 100\n\
         f 1 3 2\nf 1 4 3\nf 5 7 6\nf 5 8 7\n",
    )
    .unwrap();
    fails_with(
        &[
            "bake",
            s(&corners),
            "--tile-size",
            "32",
            "--tiles",
            "4..6,4..6",
            "-o",
            s(&dir.join("x.bin")),
        ],
        "none of its 9 tiles has navmesh polygons",
    );

    let part = |range: &str, tile_size: &str, name: &str| {
        let path = dir.join(name);
        succeeds(&[
            "bake",
            city,
            "--tile-size",
            tile_size,
            "--tiles",
            range,
            "--quiet",
            "-o",
            s(&path),
        ]);
        path
    };
    let a = part("0..4,0..4", "32", "a.bin");
    let b = part("4..6,4..6", "32", "b.bin");
    let other = part("0..1,0..1", "64", "other.bin");
    let out = dir.join("out.bin");
    fails_with(
        &["merge", s(&a), s(&b), "-o", s(&out)],
        "tile (4, 4) layer 0 is in both",
    );
    fails_with(
        &["merge", s(&a), s(&other), "-o", s(&out)],
        "navmesh parameter tileWidth",
    );
    fails_with(&["merge", s(&a), s(&other), "-o", s(&out)], "other.bin");
    fails_with(&["merge", "-o", s(&out)], "no parts to merge");
    fails_with(&["merge", s(&a), "-o", s(&a)], "is the part");
    fails_with(&["merge", s(&a), city, "-o", s(&out)], "city.obj");
    assert!(!out.exists());
    std::fs::remove_dir_all(dir).unwrap();
}

/// A part's bake and a merge say what they did and, last, the peak memory a batch job of them
/// needs (Linux); `--quiet` says nothing.
#[test]
fn parts_and_merges_report_their_peak_memory() {
    let dir = temp_dir("report");
    let city = city_obj(&dir);
    let part = dir.join("part.bin");
    let output = navlab(&[
        "bake",
        s(&city),
        "--tile-size",
        "32",
        "--tiles",
        "0..4,0..4",
        "-o",
        s(&part),
    ]);
    assert!(output.status.success());
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("tiles 0..4,0..4: 25 built"), "{stdout}");
    let merged = dir.join("merged.bin");
    let merge = |quiet: bool| {
        let mut args = vec!["merge", s(&part), "-o", s(&merged)];
        if quiet {
            args.push("--quiet");
        }
        let output = navlab(&args);
        assert!(output.status.success());
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    let merge_out = merge(false);
    assert!(
        merge_out.starts_with("1 part, 25 tiles merged into "),
        "{merge_out}"
    );
    if cfg!(target_os = "linux") {
        for out in [&*stdout, &merge_out] {
            let last = out.lines().last().unwrap_or_default();
            assert!(last.starts_with("Peak memory: "), "{out}");
        }
    }
    assert_eq!(merge(true), "");
    std::fs::remove_dir_all(dir).unwrap();
}
