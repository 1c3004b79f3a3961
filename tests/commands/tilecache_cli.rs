//! `navlab tilecache` against the C++ Temp Obstacles run in `detour/tilecache_nav_test.json`:
//! the report field by field (the fields `navlab_app::demo::tile_cache_run` documents as not C++'s are
//! only checked to be there), the three navmesh files and the tile-cache file byte for byte,
//! bad input as one-line errors, and the tile cache's off-mesh links and obstacle reshaping.
use crate::support as common;

use std::path::{Path, PathBuf};
use std::process::Command;

use navlab::bake::settings::BuildSettings;
use navlab::bake::temp_obstacles::build_initial_nav_mesh;
use navlab::bake::temp_obstacles::{DEFAULT_TILE_SIZE, MAX_OBSTACLES, build_tile_cache, tile_grid};
use navlab::detour::RefWidth;
use navlab::detour::{NavMesh, NavMeshParams, OffMeshConnectionParams};
use navlab::input::InputGeom;
use navlab::tile_cache::builder::{LayerTileBuilder, ObstacleShape};
use navlab::tile_cache::cache::TileCache;
use navlab::tile_cache::file::TileCacheSet;
use navlab::tile_cache::obstacles::{MAX_REQUESTS, ObstacleError, ObstacleState, Obstacles};
use serde_json::Value;

fn navlab() -> Command {
    Command::new(env!("CARGO_BIN_EXE_navlab"))
}

/// A scratch folder of one test, which removes it when it passes.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("navlab-tilecache-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Keys whose values are not C++'s (see `navlab_app::demo::tile_cache_run`): present, value not compared.
const NOT_CPPS: [&str; 2] = ["dataFnv1a64", "pfLine1Based"];

/// Compares `ours` with the reference at `path`: the same keys in every object, the same
/// lengths, integers and strings equal, other numbers equal as f32 (the reference prints
/// `%.9g`). Returns the differences.
fn compare(path: &str, theirs: &Value, ours: &Value, out: &mut Vec<String>) {
    match (theirs, ours) {
        (Value::Object(t), Value::Object(o)) => {
            let (tk, ok): (Vec<&String>, Vec<&String>) = (t.keys().collect(), o.keys().collect());
            if tk != ok {
                out.push(format!("{path}: keys {tk:?} vs ours {ok:?}"));
                return;
            }
            for (k, v) in t {
                if !NOT_CPPS.contains(&k.as_str()) {
                    compare(&format!("{path}.{k}"), v, &o[k], out);
                }
            }
        }
        (Value::Array(t), Value::Array(o)) => {
            if t.len() != o.len() {
                out.push(format!("{path}: {} items vs ours {}", t.len(), o.len()));
                return;
            }
            for (i, (a, b)) in t.iter().zip(o).enumerate() {
                compare(&format!("{path}[{i}]"), a, b, out);
            }
        }
        (Value::Number(a), Value::Number(b)) => {
            let same = match (a.as_i64(), b.as_i64()) {
                (Some(x), Some(y)) => x == y,
                _ => a.as_f64().map(|v| v as f32) == b.as_f64().map(|v| v as f32),
            };
            if !same {
                out.push(format!("{path}: {a} vs ours {b}"));
            }
        }
        _ if theirs == ours => {}
        _ => out.push(format!("{path}: {theirs} vs ours {ours}")),
    }
}

/// The start points of the given 1-based `pf` lines, as the reference clicked them.
fn pf_starts(dir: &Path, lines: &[usize]) -> Vec<String> {
    let text = std::fs::read_to_string(dir.join("testcases/nav_mesh_test.txt")).unwrap();
    let pf: Vec<&str> = text.lines().filter(|l| l.starts_with("pf ")).collect();
    lines
        .iter()
        .map(|&n| {
            let v: Vec<&str> = pf[n - 1].split_whitespace().skip(1).take(3).collect();
            v.join(",")
        })
        .collect()
}

#[test]
fn tilecache_cli_writes_cpps_files_and_report() {
    let (Some(dir), Some(mesh)) = (common::reference_dir(), common::mesh_path("nav_test")) else {
        return;
    };
    let out = temp_dir("reference");
    let files = ["initial.bin", "obstacles.bin", "removed.bin", "run.tset"].map(|f| out.join(f));
    let json = out.join("run.json");
    let mut command = navlab();
    command.arg("tilecache").arg(&mesh);
    // The reference clicked the starts of pf lines 1, 5 and 9 and removed the second.
    for point in pf_starts(&dir, &[1, 5, 9]) {
        command.arg(format!("--obstacle={point}"));
    }
    command.args(["--remove-obstacle", "2", "--quiet"]);
    for (flag, path) in [
        "--initial-navmesh",
        "--obstacles-navmesh",
        "--removed-navmesh",
        "--tset",
    ]
    .iter()
    .zip(&files)
    {
        command.arg(flag).arg(path);
    }
    let output = command.arg("--json").arg(&json).output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.stdout.is_empty(), "--quiet prints nothing");

    let theirs = ["_initial.bin", "_obstacles.bin", "_removed.bin", ".tset"]
        .map(|s| dir.join(format!("detour/tilecache_nav_test{s}")));
    for (ours, theirs) in files.iter().zip(&theirs) {
        assert!(
            std::fs::read(ours).unwrap() == std::fs::read(theirs).unwrap(),
            "{} differs from C++'s {}",
            ours.display(),
            theirs.display()
        );
    }

    let reference = common::load_json("detour/tilecache_nav_test.json").unwrap();
    let mut ours: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    // The file names are ours; the reference names its own.
    for (phase, name) in [
        ("initial", "tilecache_nav_test_initial.bin"),
        ("withObstacles", "tilecache_nav_test_obstacles.bin"),
        ("afterRemovingSecond", "tilecache_nav_test_removed.bin"),
    ] {
        ours[phase]["msetFile"] = name.into();
    }
    ours["tsetFile"] = "tilecache_nav_test.tset".into();
    let mut differences = Vec::new();
    compare("", &reference, &ours, &mut differences);
    assert!(differences.is_empty(), "{}", differences.join("\n"));

    // Our hashes are of the bytes the files hold.
    let first = &ours["initial"]["tiles"][0];
    let initial = NavMesh::from_mset_bytes(&std::fs::read(&files[0]).unwrap()).unwrap();
    let (_, tile) = initial.tiles().next().unwrap();
    assert_eq!(
        first["dataFnv1a64"],
        navlab_app::demo::tile_cache_run::fnv1a64(&tile.to_bytes(RefWidth::Bits32))
    );
    std::fs::remove_dir_all(&out).unwrap();
}

/// Tiles of 80 cells overflow the demo's 32000-byte scratch allocator in some layers and of 128
/// in all: those builds fail as C++'s do. The figures are a C++ Sample_TempObstacles driver's on
/// nav_test (its navmeshes matched ours byte for byte).
#[test]
fn builds_that_do_not_fit_the_demos_allocator_fail_as_in_cpp() {
    let Some(mesh) = common::mesh_path("nav_test") else {
        return;
    };
    let dir = temp_dir("scratch");
    for (tile_size, high, failed, columns, tiles) in [(80, 31928, 4, 4, 17), (128, 0, 6, 6, 0)] {
        let json = dir.join(format!("{tile_size}.json"));
        let output = navlab()
            .arg("tilecache")
            .arg(&mesh)
            .args(["--tile-size", &tile_size.to_string(), "--quiet", "--json"])
            .arg(&json)
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let report: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        assert_eq!(report["cacheBuildMemUsage_allocatorHigh"], high);
        let non_success = report["buildNavMeshTilesAt_nonSuccess"].as_array().unwrap();
        assert_eq!(non_success.len(), columns);
        assert_eq!(
            report["linearAllocatorFailedAllocs"], columns,
            "one per column"
        );
        assert_eq!(report["linearAllocatorFailedAllocsTotal"], failed);
        assert_eq!(non_success[0]["status"], "0x80000004");
        assert_eq!(report["initial"]["navMeshTiles"], tiles);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_input_is_one_line_and_a_failure() {
    let Some(mesh) = common::mesh_path("nav_test") else {
        return;
    };
    let mesh = mesh.to_str().unwrap().to_owned();
    // More than the request queue goes in batches; more than the pool is refused.
    let many: Vec<String> = (0..=MAX_OBSTACLES)
        .map(|i| format!("--obstacle={},0,0", i as f32 * 0.1))
        .collect();
    let cases: Vec<(Vec<String>, &str)> = vec![
        (vec!["--obstacle=nan,0,0".into()], "not a finite number"),
        (vec!["--obstacle=1,2".into()], "is not X,Y,Z"),
        (vec!["--obstacle=inf,0,0".into()], "not a finite number"),
        (
            vec![
                "--obstacle=1,2,3".into(),
                "--remove-obstacle".into(),
                "2".into(),
            ],
            "cannot remove obstacle 2: 1 obstacles are added",
        ),
        (
            vec!["--remove-obstacle".into(), "0".into()],
            "cannot remove obstacle 0",
        ),
        (
            vec![
                "--obstacle=1,2,3".into(),
                "--remove-obstacle=1".into(),
                "--remove-obstacle=1".into(),
            ],
            "obstacle 1 is removed twice",
        ),
        (vec!["--tile-size".into(), "8".into()], "tileSize"),
        (vec!["--tile-size".into(), "129".into()], "16 to 128"),
        (
            vec!["--removed-navmesh".into(), "x.bin".into()],
            "needs at least one --remove-obstacle",
        ),
        (
            many,
            "--obstacle is given 129 times; the tile cache holds at most 128",
        ),
        (
            vec!["--scratch-bytes".into(), "1023".into()],
            "--scratch-bytes 1023 is out of range",
        ),
    ];
    for (args, expected) in cases {
        let output = navlab()
            .arg("tilecache")
            .arg(&mesh)
            .args(&args)
            .arg("--quiet")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
    let dir = temp_dir("bad");
    let missing = dir.join("missing.obj");
    let garbage = dir.join("garbage.obj");
    std::fs::write(&garbage, b"v 1 2\nf 1 2 9\n\xff\xfe").unwrap();
    for path in [missing, garbage] {
        let output = navlab().arg("tilecache").arg(&path).output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{stderr}");
        assert!(stderr.starts_with("navlab: "), "{stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The nav_test tile cache and its initial navmesh.
fn nav_test_cache() -> Option<(InputGeom, TileCache, NavMesh)> {
    let mesh = common::mesh_path("nav_test")?;
    let input = InputGeom::load(&mesh).unwrap();
    let settings = BuildSettings::default();
    let (cache, params) = build_tile_cache(&input, &settings, DEFAULT_TILE_SIZE, None).unwrap();
    let nav_mesh = initial_nav_mesh(&input, &settings, &cache, params);
    Some((input, cache, nav_mesh))
}

/// The navmesh of every layer in `cache`, as the sample builds it before any obstacle.
fn initial_nav_mesh(
    input: &InputGeom,
    settings: &BuildSettings,
    cache: &TileCache,
    params: NavMeshParams,
) -> NavMesh {
    let grid = tile_grid(input, settings, DEFAULT_TILE_SIZE).unwrap();
    build_initial_nav_mesh(
        cache,
        params,
        grid,
        None,
        &mut LayerTileBuilder::new(),
        None,
    )
    .unwrap()
    .0
}

fn settle(obstacles: &mut Obstacles, cache: &TileCache, nav_mesh: &mut NavMesh) {
    for _ in 0..1000 {
        if obstacles
            .update(
                cache,
                nav_mesh,
                navlab::bake::temp_obstacles::sample_mesh_process,
            )
            .unwrap()
        {
            return;
        }
    }
    panic!("the obstacles never settle");
}

/// A tile's position, vertices and polygons (vertex indices, flags, area).
type Surface = (i32, i32, i32, Vec<[f32; 3]>, Vec<(Vec<u16>, u16, u8)>);

/// What a tile holds, its links aside (their references carry tile salts, which count rebuilds).
fn surface(nav_mesh: &NavMesh) -> Vec<Surface> {
    let mut tiles: Vec<_> = nav_mesh
        .tiles()
        .map(|(_, t)| {
            let h = t.header();
            let polys = t
                .polys()
                .iter()
                .map(|p| (p.vertex_indices().to_vec(), p.flags, p.area()))
                .collect();
            (h.x, h.y, h.layer, t.verts().to_vec(), polys)
        })
        .collect();
    tiles.sort_by_key(|t| (t.0, t.1, t.2));
    tiles
}

#[test]
fn an_obstacle_reshaped_in_one_request_keeps_its_ref_and_ends_as_remove_and_add() {
    let Some((_, cache, start)) = nav_test_cache() else {
        return;
    };
    let cylinder = |x: f32, z: f32, radius: f32| ObstacleShape::Cylinder {
        pos: [x, -2.87, z],
        radius,
        height: 2.0,
    };
    let from = cylinder(18.13855, -21.31912, 1.0);
    // A long move (other layers), a small one (layers shared) and a resize.
    for to in [
        cylinder(10.83015, 19.00251, 1.0),
        cylinder(18.9, -20.5, 1.0),
        cylinder(18.13855, -21.31912, 3.0),
    ] {
        let mut moved_mesh = start.clone();
        let mut moved = Obstacles::new(128).unwrap();
        let r = moved.add(from).unwrap();
        settle(&mut moved, &cache, &mut moved_mesh);
        let before: Vec<u32> = moved.touched(r).to_vec();
        moved.update_shape(r, to).unwrap();
        assert_eq!(
            moved.state(r),
            Some(ObstacleState::Processed),
            "until taken"
        );
        settle(&mut moved, &cache, &mut moved_mesh);
        assert_eq!(moved.state(r), Some(ObstacleState::Processed));
        let info = moved.live().find(|o| o.reference == r).unwrap();
        assert_eq!(info.shape, to);

        let mut replaced_mesh = start.clone();
        let mut replaced = Obstacles::new(128).unwrap();
        let old = replaced.add(from).unwrap();
        settle(&mut replaced, &cache, &mut replaced_mesh);
        replaced.remove(old).unwrap();
        settle(&mut replaced, &cache, &mut replaced_mesh);
        let new = replaced.add(to).unwrap();
        settle(&mut replaced, &cache, &mut replaced_mesh);
        assert_ne!(new, r, "a remove and an add hand out a new reference");
        assert_eq!(moved.touched(r), replaced.touched(new));
        assert_eq!(surface(&moved_mesh), surface(&replaced_mesh));
        if before.iter().all(|l| !moved.touched(r).contains(l)) {
            // No layer rebuilt twice either way: the tiles' salts agree, so the bytes do.
            assert!(moved_mesh.to_mset_bytes() == replaced_mesh.to_mset_bytes());
        }
    }

    let mut obstacles = Obstacles::new(2).unwrap();
    let mut nav_mesh = start.clone();
    let a = obstacles.add(from).unwrap();
    assert_eq!(
        obstacles.update_shape(a, cylinder(f32::NAN, 0.0, 1.0)),
        Err(ObstacleError::NotFinite)
    );
    assert_eq!(
        obstacles.update_shape(a + 1, from),
        Err(ObstacleError::InvalidRef(a + 1))
    );
    obstacles.remove(a).unwrap();
    assert_eq!(
        obstacles.update_shape(a, from),
        Err(ObstacleError::InvalidRef(a)),
        "an obstacle on its way out"
    );
    settle(&mut obstacles, &cache, &mut nav_mesh);
    assert!(surface(&nav_mesh) == surface(&start));
    // A full pool and a full queue are errors, not dropped requests.
    let b = obstacles.add(from).unwrap();
    obstacles.add(from).unwrap();
    assert_eq!(obstacles.add(from), Err(ObstacleError::PoolFull(2)));
    for _ in 2..MAX_REQUESTS {
        obstacles.update_shape(b, from).unwrap();
    }
    assert_eq!(
        obstacles.update_shape(b, from),
        Err(ObstacleError::RequestQueueFull)
    );
    assert_eq!(obstacles.remove(b), Err(ObstacleError::RequestQueueFull));
    settle(&mut obstacles, &cache, &mut nav_mesh);
    assert_eq!(obstacles.state(b), Some(ObstacleState::Processed));
}

#[test]
fn off_mesh_links_reach_the_tiles_and_the_tile_cache_file() {
    let Some(mesh) = common::mesh_path("nav_test") else {
        return;
    };
    let mut input = InputGeom::load(&mesh).unwrap();
    // From pf line 1's start up to a point beside it.
    input
        .geom_set
        .off_mesh_connections
        .push(navlab::input::geomset::OffMeshConnection {
            start: [18.13855, -2.370003, -21.31912],
            end: [20.0, -2.37, -19.0],
            radius: 0.6,
            bidirectional: true,
            area: 5,
            flags: 8,
        });
    let settings = BuildSettings::default();
    let (cache, params) = build_tile_cache(&input, &settings, DEFAULT_TILE_SIZE, None).unwrap();
    assert_eq!(cache.off_mesh_links().len(), 1);
    assert_eq!(cache.off_mesh_links()[0].user_id, 1000);
    let mut nav_mesh = initial_nav_mesh(&input, &settings, &cache, params);
    let with_link = |nav_mesh: &NavMesh| {
        nav_mesh
            .tiles()
            .filter(|(_, t)| !t.off_mesh_connections().is_empty())
            .count()
    };
    assert_eq!(with_link(&nav_mesh), 1, "the tile the link starts in");
    // A rebuild around an obstacle keeps it.
    let mut obstacles = Obstacles::new(128).unwrap();
    obstacles
        .add(ObstacleShape::Cylinder {
            pos: [19.0, -2.87, -20.0],
            radius: 1.0,
            height: 2.0,
        })
        .unwrap();
    settle(&mut obstacles, &cache, &mut nav_mesh);
    assert_eq!(with_link(&nav_mesh), 1);

    let set = TileCacheSet {
        nav_mesh_params: params,
        cache_params: *cache.params(),
        layers: cache.stored_layers(),
        off_mesh_links: cache.off_mesh_links().to_vec(),
    };
    let bytes = set.to_bytes();
    let read = TileCacheSet::from_bytes(&bytes).unwrap();
    assert_eq!(
        read.off_mesh_links,
        vec![OffMeshConnectionParams {
            start: [18.13855, -2.370003, -21.31912],
            end: [20.0, -2.37, -19.0],
            radius: 0.6,
            bidirectional: true,
            area: 5,
            flags: 8,
            user_id: 1000,
        }]
    );
    // Without links the file is C++'s, byte for byte.
    if let Some(dir) = common::reference_dir() {
        let plain = TileCacheSet {
            off_mesh_links: Vec::new(),
            ..read
        };
        let cpp = std::fs::read(dir.join("detour/tilecache_nav_test.tset")).unwrap();
        assert!(plain.to_bytes() == cpp);
        assert_eq!(
            &bytes[..cpp.len()],
            &cpp[..],
            "C++'s loader reads what it knows"
        );
    }
}
