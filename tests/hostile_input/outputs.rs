//! Round 2 of the data-safety rule (issue 24): no command's output may be one of its inputs, a
//! file an input names, or another output of the same run, and every file is written whole or
//! not at all (a file-size limit or a full disk leaves the old file as it was).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::files::{TempDir, floor_obj, navlab, one_error_line};

/// A level laid out as RecastDemo keeps one: `Meshes/floor.obj`, `TestCases/cases.txt` naming
/// it, a `.gset` naming it, a glTF whose buffer is its own file, and a baked navmesh.
struct Level {
    dir: TempDir,
    mesh: PathBuf,
    cases: PathBuf,
    gset: PathBuf,
    gltf: PathBuf,
    gltf_buffer: PathBuf,
    navmesh: PathBuf,
}

impl Level {
    fn new(name: &str) -> Level {
        let dir = TempDir::new(name);
        std::fs::create_dir_all(dir.0.join("Meshes")).unwrap();
        std::fs::create_dir_all(dir.0.join("TestCases")).unwrap();
        let mesh = dir.file("Meshes/floor.obj", floor_obj(10.0, 0.0));
        let cases = dir.file(
            "TestCases/cases.txt",
            "s Solo Mesh\nf floor.obj\npf -5 0 -5 5 0 5 0xffff 0x0\n",
        );
        let gset = dir.file("Meshes/level.gset", "f floor.obj\n");
        let gltf_buffer = dir.file("Meshes/floor.bin", gltf_floor_buffer());
        let gltf = dir.file("Meshes/floor.gltf", gltf_floor_json());
        let navmesh = dir.0.join("floor.bin");
        let baked = navlab([Path::new("bake"), &mesh, Path::new("-o"), &navmesh]);
        assert!(baked.status.success(), "{}", stderr(&baked));
        Level {
            dir,
            mesh,
            cases,
            gset,
            gltf,
            gltf_buffer,
            navmesh,
        }
    }

    /// Every file of the level with its bytes, to see that nothing changed.
    fn snapshot(&self) -> Vec<(PathBuf, Vec<u8>)> {
        [
            &self.mesh,
            &self.cases,
            &self.gset,
            &self.gltf,
            &self.gltf_buffer,
            &self.navmesh,
        ]
        .into_iter()
        .map(|path| (path.clone(), std::fs::read(path).unwrap()))
        .collect()
    }
}

/// Four corners and two triangles of a 20 m floor, as a glTF buffer (positions, then indices).
fn gltf_floor_buffer() -> Vec<u8> {
    let positions: [f32; 12] = [
        -10.0, 0.0, -10.0, 10.0, 0.0, -10.0, 10.0, 0.0, 10.0, -10.0, 0.0, 10.0,
    ];
    let indices: [u16; 6] = [0, 3, 2, 0, 2, 1];
    let mut bytes: Vec<u8> = positions.iter().flat_map(|v| v.to_le_bytes()).collect();
    bytes.extend(indices.iter().flat_map(|i| i.to_le_bytes()));
    bytes
}

fn gltf_floor_json() -> String {
    r#"{"asset":{"version":"2.0"},"scene":0,"scenes":[{"nodes":[0]}],"nodes":[{"mesh":0}],
"meshes":[{"primitives":[{"attributes":{"POSITION":0},"indices":1}]}],
"buffers":[{"uri":"floor.bin","byteLength":60}],
"bufferViews":[{"buffer":0,"byteOffset":0,"byteLength":48},{"buffer":0,"byteOffset":48,"byteLength":12}],
"accessors":[{"bufferView":0,"componentType":5126,"count":4,"type":"VEC3","min":[-10,0,-10],"max":[10,0,10]},
{"bufferView":1,"componentType":5123,"count":6,"type":"SCALAR"}]}"#
        .to_string()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn no_command_writes_over_an_input_a_named_file_or_another_output() {
    let level = Level::new("collisions");
    let before = level.snapshot();
    let out = level.dir.0.join("out.bin");
    let json = level.dir.0.join("out.json");
    std::fs::create_dir_all(level.dir.0.join("sub")).unwrap();
    let cases_by_dots = level.dir.0.join("sub/../TestCases/cases.txt");
    let navmesh_link = level.dir.0.join("navmesh-link.bin");
    #[cfg(unix)]
    std::os::unix::fs::symlink(&level.navmesh, &navmesh_link).unwrap();
    #[cfg(not(unix))]
    std::fs::hard_link(&level.navmesh, &navmesh_link).unwrap();

    let p = Path::new;
    let cases: Vec<(Vec<&Path>, &str, &str)> = vec![
        // The test-case file, the navmesh it reads, the mesh it names (read or not).
        (
            vec![p("test"), &level.cases, p("--json"), &level.cases],
            "--json",
            "is the test-case file",
        ),
        (
            vec![p("test"), &level.cases, p("--json"), &cases_by_dots],
            "--json",
            "is the test-case file",
        ),
        (
            vec![p("test"), &level.cases, p("--json"), &level.mesh],
            "--json",
            "names",
        ),
        (
            vec![
                p("test"),
                &level.cases,
                p("--navmesh"),
                &level.navmesh,
                p("--json"),
                &navmesh_link,
            ],
            "--json",
            "is the navmesh file",
        ),
        (
            vec![
                p("test"),
                &level.cases,
                p("--navmesh"),
                &level.navmesh,
                p("--json"),
                &level.mesh,
            ],
            "--json",
            "names",
        ),
        (
            vec![
                p("test"),
                &level.cases,
                p("--mesh"),
                &level.gset,
                p("--json"),
                &level.gset,
            ],
            "--json",
            "is the mesh",
        ),
        (
            vec![p("crowd"), &level.cases, p("--json"), &level.cases],
            "--json",
            "is the test-case file",
        ),
        (
            vec![
                p("crowd"),
                &level.cases,
                p("--navmesh"),
                &level.navmesh,
                p("--json"),
                &level.navmesh,
            ],
            "--json",
            "is the navmesh file",
        ),
        // The tile cache's five outputs, its input and the mesh a `.gset` names.
        (
            vec![p("tilecache"), &level.gset, p("--tset"), &level.mesh],
            "--tset",
            "is the input's mesh",
        ),
        (
            vec![p("tilecache"), &level.mesh, p("--json"), &level.mesh],
            "--json",
            "is the input",
        ),
        (
            vec![
                p("tilecache"),
                &level.mesh,
                p("--initial-navmesh"),
                &out,
                p("--json"),
                &out,
            ],
            "--json",
            "also the --initial-navmesh file",
        ),
        // A glTF's buffer file is an input too.
        (
            vec![p("bake"), &level.gltf, p("-o"), &level.gltf_buffer],
            "-o",
            "buffer file",
        ),
        (
            vec![p("tilecache"), &level.gltf, p("--tset"), &level.gltf_buffer],
            "--tset",
            "buffer file",
        ),
        // Merging into one of the parts.
        (
            vec![p("merge"), &level.navmesh, p("-o"), &navmesh_link],
            "-o",
            "is the part",
        ),
        (
            vec![
                p("bake"),
                &level.mesh,
                p("-o"),
                &json,
                p("--export-obj"),
                &json,
            ],
            "--export-obj",
            "overwrite each other",
        ),
    ];
    for (args, flag, expected) in cases {
        let line = one_error_line(&navlab(&args), &format!("{args:?}"));
        assert!(
            line.contains(flag) && line.contains(expected),
            "{args:?}: {line}"
        );
        assert_eq!(level.snapshot(), before, "{args:?} changed an input");
        assert!(!out.exists() && !json.exists(), "{args:?} wrote an output");
    }
}

#[test]
fn distinct_outputs_and_devices_are_written() {
    let level = Level::new("distinct");
    let p = Path::new;
    let json = level.dir.0.join("results.json");
    let tset = level.dir.0.join("cache.tset");
    let runs: [Vec<&Path>; 3] = [
        vec![p("test"), &level.cases, p("--json"), &json, p("--quiet")],
        vec![
            p("tilecache"),
            &level.gltf,
            p("--tset"),
            &tset,
            p("--json"),
            p("/dev/null"),
            p("--initial-navmesh"),
            p("/dev/null"),
            p("--quiet"),
        ],
        vec![
            p("crowd"),
            &level.cases,
            p("--navmesh"),
            &level.navmesh,
            p("--agents"),
            p("1"),
            p("--steps"),
            p("5"),
            p("--json"),
            &json,
            p("--quiet"),
        ],
    ];
    for args in runs {
        let output = navlab(&args);
        assert!(output.status.success(), "{args:?}: {}", stderr(&output));
    }
    assert!(json.is_file() && tset.is_file());
    assert!(
        std::fs::metadata("/dev/null").is_ok_and(|m| !m.is_file()),
        "/dev/null is still a device"
    );
}

/// A level whose navmesh (about 100 KB) is far over the limits below.
const DUNGEON: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/Meshes/dungeon.obj");

/// The names in `dir`, sorted.
fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// A bake whose navmesh passes a file-size limit fails with one line, and the navmesh it would
/// have replaced is as it was, with no temporary file left beside it.
#[cfg(unix)]
#[test]
fn a_file_size_limit_leaves_the_old_navmesh_whole() {
    let dir = TempDir::new("fsize");
    let mesh = Path::new(DUNGEON);
    let out = dir.0.join("out");
    std::fs::create_dir_all(&out).unwrap();
    let navmesh = out.join("level.bin");
    let old = b"the navmesh the user had".repeat(8);
    std::fs::write(&navmesh, &old).unwrap();
    // `ulimit -f 8` is 4 or 8 KiB by shell, far below this navmesh.
    let output = Command::new("sh")
        .arg("-c")
        .arg("ulimit -f 8 && exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_navlab"))
        .args(["bake".as_ref(), mesh.as_os_str(), "-o".as_ref()])
        .arg(&navmesh)
        .output()
        .unwrap();
    let line = one_error_line(&output, "bake under ulimit -f");
    assert!(line.contains("level.bin"), "{line}");
    assert_eq!(std::fs::read(&navmesh).unwrap(), old);
    assert_eq!(names_in(&out), ["level.bin"]);
}

/// The same on a file system too small for the navmesh, where this machine lets a user
/// namespace mount one (`unshare -rm`); elsewhere the test says so and passes.
#[cfg(target_os = "linux")]
#[test]
fn a_full_disk_leaves_the_old_navmesh_whole() {
    let probe = Command::new("unshare")
        .args(["-rm", "sh", "-c", "mount -t tmpfs -o size=4k none /tmp"])
        .output();
    if !probe.is_ok_and(|o| o.status.success()) {
        eprintln!("skipped: this machine cannot mount a small file system in a user namespace");
        return;
    }
    let dir = TempDir::new("fulldisk");
    let mesh = Path::new(DUNGEON);
    let tiny = dir.0.join("tiny");
    std::fs::create_dir_all(&tiny).unwrap();
    let old = "the navmesh the user had\n".repeat(4);
    // Inside the namespace: a 16 KiB file system holding the old navmesh, the bake, then what
    // is left on it.
    let script = r#"
        mount -t tmpfs -o size=16k none "$1" || exit 99
        printf %s "$2" > "$1/level.bin"
        "$3" bake "$4" --quiet -o "$1/level.bin" 2>"$1/../stderr.txt"
        echo "exit $?"
        ls -A "$1"
        cat "$1/level.bin"
    "#;
    let output = Command::new("unshare")
        .args(["-rm", "sh", "-c", script, "sh"])
        .arg(&tiny)
        .arg(&old)
        .arg(env!("CARGO_BIN_EXE_navlab"))
        .arg(mesh)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let errors = std::fs::read_to_string(dir.0.join("stderr.txt")).unwrap_or_default();
    assert_eq!(
        stdout,
        format!("exit 1\nlevel.bin\n{old}"),
        "the bake's errors: {errors}"
    );
    assert!(
        errors.starts_with("navlab: ") && errors.lines().count() == 1,
        "{errors}"
    );
}
