//! `navlab crowd`, `test` and `tilecache` on requests too large to honour: recordings and step
//! counts, crowds of many agents or many crowds, navmeshes without tiles, tile layers that do
//! not fit the scratch allocator and more obstacles than one request queue. Each is refused
//! up front with one line naming the flag and the limit, or runs and says what it lost.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use navlab::detour::{NavMesh, NavMeshParams};
use navlab::input::scene;
use serde_json::Value;

use crate::files::{TempDir, navlab, one_error_line};
use navlab::detour::RefWidth;

/// The middle of every polygon of `nav`, tile by tile.
fn poly_centres(nav: &NavMesh) -> Vec<[f32; 3]> {
    nav.tiles()
        .flat_map(|(_, tile)| {
            (0..tile.poly_count()).filter_map(move |p| {
                let (verts, n) = tile.poly_vertices(p)?;
                let sum = verts[..n]
                    .iter()
                    .fold([0.0; 3], |s, v| [s[0] + v[0], s[1] + v[1], s[2] + v[2]]);
                Some(sum.map(|c| c / n as f32))
            })
        })
        .collect()
}

fn succeeded(output: &Output, what: &str) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{what}: {stderr}");
    stderr.into_owned()
}

/// The number `flag N` in `line` is followed by, e.g. 149 for `--record-every 149 or more`.
fn number_after(line: &str, flag: &str) -> usize {
    let rest = &line[line
        .find(flag)
        .unwrap_or_else(|| panic!("{flag} in {line}"))
        + flag.len()..];
    let digits: String = rest
        .trim_start()
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits
        .parse()
        .unwrap_or_else(|_| panic!("a number after {flag} in {line}"))
}

/// A few city blocks as OBJ, baked into a solo navmesh, with a test-case file whose `pf`
/// lines join points of the navmesh's polygons.
struct City {
    dir: TempDir,
    navmesh: PathBuf,
    cases: PathBuf,
}

fn city(name: &str) -> City {
    let dir = TempDir::new(name);
    let obj = dir.file("city.obj", scene::obj_text(&scene::city(2)));
    let navmesh = dir.path("city.bin");
    succeeded(
        &navlab([
            "bake".as_ref(),
            obj.as_os_str(),
            "-o".as_ref(),
            navmesh.as_os_str(),
            "--quiet".as_ref(),
        ]),
        "baking the city",
    );
    let nav = NavMesh::from_mset_bytes(&std::fs::read(&navmesh).unwrap()).unwrap();
    let centres = poly_centres(&nav);
    assert!(centres.len() >= 4, "the city has polygons");
    let mut text = String::from("s Solo Mesh\nf city.obj\n");
    for (a, b) in centres.iter().zip(centres.iter().rev()).take(12) {
        text += &format!(
            "pf {} {} {} {} {} {} 0x3 0x0\n",
            a[0], a[1], a[2], b[0], b[1], b[2]
        );
    }
    let cases = dir.file("city.txt", text);
    City {
        dir,
        navmesh,
        cases,
    }
}

fn crowd(city: &City, args: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_navlab"));
    command
        .arg("crowd")
        .arg(&city.cases)
        .arg("--navmesh")
        .arg(&city.navmesh)
        .args(args);
    command.output().unwrap()
}

#[test]
fn crowd_steps_and_recordings_are_bounded_before_the_run() {
    let city = city("crowd-steps");
    let json = city.dir.path("run.json");
    let json = json.to_str().unwrap();
    for steps in ["18446744073709551615", "100000000", "10000001", "0"] {
        let line = one_error_line(&crowd(&city, &["--steps", steps]), steps);
        assert!(line.contains("--steps must be 1..10000000"), "{line}");
    }
    // With --json the frames are kept: too many are refused before the run.
    for (steps, record_every) in [("10000000", "1"), ("100000", "1"), ("1000000", "10")] {
        let output = crowd(
            &city,
            &[
                "--steps",
                steps,
                "--record-every",
                record_every,
                "--json",
                json,
            ],
        );
        let line = one_error_line(&output, steps);
        assert!(
            line.contains("--steps and --record-every would record") && line.contains("100 MB"),
            "{line}"
        );
        assert!(!Path::new(json).exists(), "nothing is written");
        // It offers fewer steps or sparser frames (that these fit is a unit test's).
        let steps: usize = steps.parse().unwrap();
        let record_every: usize = record_every.parse().unwrap();
        assert!(number_after(&line, "or --steps") < steps, "{line}");
        assert!(
            number_after(&line, "use --record-every") > record_every,
            "{line}"
        );
    }
    let output = crowd(
        &city,
        &["--steps", "30", "--record-every", "1", "--json", json],
    );
    succeeded(&output, "a small recording");
    let report: Value = serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap();
    assert_eq!(report["result"]["frames"].as_array().unwrap().len(), 31);
    assert_eq!(report["determinism_two_fresh_crowds_identical"], true);
}

#[test]
fn one_crowd_takes_agents_past_detours_16383() {
    let city = city("crowd-agents");
    let output = crowd(&city, &["--random-agents", "16384", "--steps", "1"]);
    succeeded(&output, "16384 agents");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.starts_with("16384 agents, 1 steps"), "{stdout}");
    for agents in ["0", "100001"] {
        let line = one_error_line(&crowd(&city, &["--random-agents", agents]), agents);
        assert!(line.contains("--random-agents must be 1..100000"), "{line}");
    }
}

#[test]
fn crowds_that_would_not_fit_in_memory_are_refused_before_they_are_made() {
    let city = city("crowd-crowds");
    let output = crowd(&city, &["--random-agents", "100000", "--crowds", "100000"]);
    let line = one_error_line(&output, "100000 crowds");
    assert!(line.contains("--crowds 100000 would need"), "{line}");
    let fitting = number_after(&line, "use --crowds");
    assert!((1..100_000).contains(&fitting), "{line}");
    // A few crowds of many agents are far below the budget.
    let output = crowd(
        &city,
        &["--random-agents", "2000", "--crowds", "8", "--steps", "1"],
    );
    succeeded(&output, "8 crowds");
}

/// An MSET navmesh with its parameters and no tile, as a tile cache whose every tile failed
/// saves it.
fn empty_navmesh(dir: &TempDir) -> PathBuf {
    let nav = NavMesh::new(NavMeshParams {
        orig: [0.0; 3],
        tile_width: 9.6,
        tile_height: 9.6,
        max_tiles: 64,
        max_polys: 1024,
        ref_width: RefWidth::Bits32,
    })
    .unwrap();
    dir.file("empty.bin", nav.to_mset_bytes())
}

#[test]
fn test_and_crowd_refuse_a_navmesh_without_tiles() {
    let city = city("no-tiles");
    let empty = empty_navmesh(&city.dir);
    let runs: [Vec<&std::ffi::OsStr>; 3] = [
        vec!["test".as_ref(), city.cases.as_os_str()],
        vec!["crowd".as_ref(), city.cases.as_os_str()],
        vec!["crowd".as_ref(), "--random-agents".as_ref(), "4".as_ref()],
    ];
    for args in runs {
        let mut command = Command::new(env!("CARGO_BIN_EXE_navlab"));
        command.args(&args).arg("--navmesh").arg(&empty);
        let line = one_error_line(&command.output().unwrap(), &format!("{args:?}"));
        assert!(line.contains("has no tiles"), "{line}");
        assert!(line.contains(&empty.display().to_string()), "{line}");
    }
}

/// `navlab tilecache` on `mesh` with `args` and `--json`; its output and report.
fn tilecache(dir: &TempDir, mesh: &Path, args: &[String]) -> (Output, Option<Value>) {
    let json = dir.path("tilecache.json");
    let _ = std::fs::remove_file(&json);
    let output = Command::new(env!("CARGO_BIN_EXE_navlab"))
        .arg("tilecache")
        .arg(mesh)
        .args(args)
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    let report = std::fs::read_to_string(&json)
        .ok()
        .map(|text| serde_json::from_str(&text).unwrap());
    (output, report)
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|a| a.to_string()).collect()
}

#[test]
fn tile_layers_left_out_by_the_scratch_allocator_are_counted_and_can_be_let_in() {
    let dir = TempDir::new("scratch");
    let mesh = dir.file("city.obj", scene::obj_text(&scene::city(3)));
    let mut lost_somewhere = false;
    for tile_size in ["48", "96", "128"] {
        let (output, report) = tilecache(&dir, &mesh, &strings(&["--tile-size", tile_size]));
        let stderr = succeeded(&output, tile_size);
        let report = report.unwrap();
        let layers = report["cacheLayerCount"].as_u64().unwrap();
        let tiles = report["initial"]["navMeshTiles"].as_u64().unwrap();
        let failed_columns = report["buildNavMeshTilesAt_nonSuccess"]
            .as_array()
            .unwrap()
            .len() as u64;
        let warning = stderr
            .lines()
            .find(|l| l.contains("tile layers did not fit"));
        let Some(warning) = warning else {
            assert_eq!(failed_columns, 0, "{tile_size}: {stderr}");
            continue;
        };
        lost_somewhere = true;
        assert!(warning.starts_with("warning: "), "{warning}");
        assert!(
            warning.contains(&format!(" of {layers} tile layers")),
            "{warning}"
        );
        assert!(
            warning.contains("RecastDemo's 32000-byte scratch allocator"),
            "{warning}"
        );
        let lost = number_after(warning, "warning:");
        assert!(
            lost >= failed_columns as usize && tiles + lost as u64 <= layers,
            "{warning}"
        );
        let needed = number_after(warning, "needed");
        assert!(needed > 32000, "{warning}");

        // Quiet runs say nothing; a large enough allocator builds every layer.
        let (output, _) = tilecache(
            &dir,
            &mesh,
            &strings(&["--tile-size", tile_size, "--quiet"]),
        );
        assert!(output.status.success() && output.stderr.is_empty());
        let (output, report) = tilecache(
            &dir,
            &mesh,
            &strings(&["--tile-size", tile_size, "--scratch-bytes", "1073741824"]),
        );
        let stderr = succeeded(&output, tile_size);
        assert!(!stderr.contains("did not fit"), "{stderr}");
        let report = report.unwrap();
        assert_eq!(report["linearAllocatorCapacity"], 1_073_741_824u64);
        assert_eq!(
            report["buildNavMeshTilesAt_nonSuccess"],
            Value::Array(Vec::new())
        );
        let all = report["initial"]["navMeshTiles"].as_u64().unwrap();
        assert!(
            all > tiles && all <= tiles + lost as u64,
            "{all} of {layers}"
        );
    }
    assert!(
        lost_somewhere,
        "tiles of 96 or 128 cells overflow the demo's allocator"
    );
    for bad in ["1023", "1073741825"] {
        let (output, _) = tilecache(&dir, &mesh, &strings(&["--scratch-bytes", bad]));
        let line = one_error_line(&output, bad);
        assert!(
            line.contains("--scratch-bytes") && line.contains("1024 to 1073741824"),
            "{line}"
        );
    }
}

#[test]
fn obstacles_beyond_one_request_queue_go_in_batches_up_to_the_pool() {
    let dir = TempDir::new("obstacles");
    let mesh = dir.file("city.obj", scene::obj_text(&scene::city(3)));
    let initial = dir.path("initial.bin");
    let (output, _) = tilecache(
        &dir,
        &mesh,
        &[
            "--initial-navmesh".to_string(),
            initial.display().to_string(),
        ],
    );
    succeeded(&output, "the initial navmesh");
    let nav = NavMesh::from_mset_bytes(&std::fs::read(&initial).unwrap()).unwrap();
    // A click at the middle of each polygon, round the tiles, as many as needed.
    let centres = poly_centres(&nav);
    let clicks = |n: usize| -> Vec<String> {
        centres
            .iter()
            .cycle()
            .take(n)
            .map(|c| format!("--obstacle={},{},{}", c[0], c[1] + 0.5, c[2]))
            .collect()
    };
    for n in [65, 128] {
        let mut args = clicks(n);
        args.extend((1..=n).map(|k| format!("--remove-obstacle={k}")));
        let (output, report) = tilecache(&dir, &mesh, &args);
        succeeded(&output, &format!("{n} obstacles"));
        let report = report.unwrap();
        let with = &report["withObstacles"];
        assert_eq!(with["added"].as_array().unwrap().len(), n);
        let live = with["obstacles"].as_array().unwrap();
        assert_eq!(live.len(), n);
        assert!(live.iter().all(|o| o["state"] == 2), "every obstacle is in");
        let statuses = with["updateStatuses"].as_array().unwrap();
        assert!(statuses.iter().all(|s| s == "0x40000000"), "{statuses:?}");
        assert_ne!(
            with["totalPolys"], report["initial"]["totalPolys"],
            "the obstacles cut the navmesh"
        );
        // Taking them all out again gives the initial surface back.
        let removed = &report["afterRemovingSecond"];
        assert!(removed["obstacles"].as_array().unwrap().is_empty());
        assert_eq!(removed["totalPolys"], report["initial"]["totalPolys"]);
    }
    let (output, report) = tilecache(&dir, &mesh, &clicks(129));
    let line = one_error_line(&output, "129 obstacles");
    assert!(
        line.contains("--obstacle is given 129 times") && line.contains("128"),
        "{line}"
    );
    assert!(report.is_none());
}
