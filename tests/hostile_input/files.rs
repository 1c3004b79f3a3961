//! The file readers and the command line on hostile files: byte-order marks, faces of many
//! vertices, long rows, floods of bad faces, endless pipes, misspelled settings, bad bounds, and
//! outputs that would overwrite the inputs.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use navlab::NavlabError;
use navlab::bake::settings::{BuildSettings, MAX_SETTINGS_FILE_BYTES};
use navlab::bake::solo::Build;
use navlab::bake::tiled::TiledBuild;
use navlab::file::FileError;
use navlab::input::geomset::{GeomSet, MAX_GSET_FILE_BYTES};
use navlab::input::input_geom::InputGeom;
use navlab::input::obj::{TriMesh, load_obj, parse_obj};
use navlab::warnings::Warnings;

use crate::common;

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Four vertices of a unit square, no faces.
const SQUARE: &str = "v 0 0 0\nv 1 0 0\nv 1 0 1\nv 0 0 1\n";

fn parse(text: &str) -> TriMesh {
    parse_obj(text.as_bytes(), Path::new("hostile.obj")).unwrap_or_else(|e| panic!("{e}"))
}

fn with_bom(text: &str) -> Vec<u8> {
    [BOM, text.as_bytes()].concat()
}

/// A walkable floor from -`half` to `half` in x and z at height `y`, as one quad facing up.
pub(crate) fn floor_obj(half: f32, y: f32) -> String {
    format!(
        "v {m} {y} {m}\nv {half} {y} {m}\nv {half} {y} {half}\nv {m} {y} {half}\nf 1 4 3 2\n",
        m = -half
    )
}

/// A folder for one test's files, removed afterwards.
pub(crate) struct TempDir(pub(crate) PathBuf);

impl TempDir {
    pub(crate) fn new(name: &str) -> Self {
        let dir =
            std::env::temp_dir().join(format!("navlab-hostile-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }

    pub(crate) fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    pub(crate) fn file(&self, name: &str, contents: impl AsRef<[u8]>) -> PathBuf {
        let path = self.path(name);
        std::fs::write(&path, contents).unwrap();
        path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub(crate) fn navlab<I, S>(args: I) -> Output
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    Command::new(env!("CARGO_BIN_EXE_navlab"))
        .args(args)
        .output()
        .unwrap()
}

/// Asserts the command failed with exit code 1 and exactly one `navlab:` line on stderr, and
/// returns that line.
pub(crate) fn one_error_line(output: &Output, what: &str) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{what}: {stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert!(
        lines.len() == 1 && lines[0].starts_with("navlab: "),
        "{what}: expected one `navlab:` line, got {stderr:?}"
    );
    lines[0].to_owned()
}

fn message(err: impl Into<NavlabError>) -> String {
    let err: NavlabError = err.into();
    let text = err.to_string();
    assert!(!text.contains('\n'), "a multi-line error: {text:?}");
    text
}

// ---- 7. Byte-order marks ----------------------------------------------------------------------

#[test]
fn a_byte_order_mark_does_not_shift_obj_faces() {
    let text = format!("{SQUARE}f 1 2 3\nf -4 -2 -1\nf 1 3 4 2\n");
    let plain = parse(&text);
    let marked = parse_obj(&with_bom(&text), Path::new("bom.obj")).unwrap();
    assert_eq!(marked, plain);
    assert_eq!(marked.vert_count(), 4);

    let Some(path) = common::mesh_path("dungeon") else {
        return;
    };
    let bytes = std::fs::read(&path).unwrap();
    let marked = parse_obj(&[BOM, &bytes].concat(), &path).unwrap();
    assert!(
        marked == parse_obj(&bytes, &path).unwrap(),
        "dungeon with a BOM differs"
    );
}

#[test]
fn a_byte_order_mark_is_skipped_in_gset_and_toml() {
    let gset = "f level.obj\ns 0.3 0.2 2 0.6 0.9 45 8 20 12 1.3 0 6 1 0 -1 -1 -1 1 1 1 0\n";
    let name = Path::new("bom.gset");
    assert_eq!(
        GeomSet::parse(&with_bom(gset), name).unwrap(),
        GeomSet::parse(gset.as_bytes(), name).unwrap()
    );
    let settings = BuildSettings::parse_toml(&with_bom("cellSize = 0.25\n"), Path::new("bom.toml"));
    assert_eq!(settings.unwrap().cell_size, 0.25);
}

// ---- 8. Faces of more than 32 vertices --------------------------------------------------------

/// A disc of radius 10 as one face of `n` vertices, counter-clockwise seen from above.
fn disc_obj(n: usize) -> String {
    let mut text = String::new();
    for i in 0..n {
        let angle = i as f64 / n as f64 * std::f64::consts::TAU;
        text.push_str(&format!(
            "v {} 0 {}\n",
            10.0 * angle.cos(),
            -10.0 * angle.sin()
        ));
    }
    text.push('f');
    for i in 1..=n {
        text.push_str(&format!(" {i}"));
    }
    text.push('\n');
    text
}

fn xz_area(mesh: &TriMesh) -> f64 {
    let v = |i: i32| {
        let i = i as usize * 3;
        (mesh.verts[i] as f64, mesh.verts[i + 2] as f64)
    };
    mesh.tris
        .chunks(3)
        .map(|t| {
            let (a, b, c) = (v(t[0]), v(t[1]), v(t[2]));
            ((b.0 - a.0) * (c.1 - a.1) - (c.0 - a.0) * (b.1 - a.1)).abs() / 2.0
        })
        .sum()
}

#[test]
fn a_50_gon_disc_keeps_every_vertex() {
    let n = 50;
    let mesh = parse(&disc_obj(n));
    assert_eq!(mesh.tri_count(), n - 2);
    let polygon_area = n as f64 / 2.0 * 100.0 * (std::f64::consts::TAU / n as f64).sin();
    assert!(
        (xz_area(&mesh) - polygon_area).abs() < 1e-3,
        "{}",
        xz_area(&mesh)
    );
    for (i, tri) in mesh.tris.chunks(3).enumerate() {
        assert_eq!(
            tri,
            [0, i as i32 + 1, i as i32 + 2],
            "the fan of RecastDemo"
        );
    }
    let warnings = mesh.warnings.lines();
    assert!(
        warnings.len() == 1
            && warnings[0].contains("line 51")
            && warnings[0].contains("50 vertices")
            && warnings[0].contains("RecastDemo keeps only the first 32"),
        "{warnings:?}"
    );
}

#[test]
fn large_faces_start_with_recastdemos_triangles() {
    for n in [33, 64, 500, 5000] {
        let text = disc_obj(n);
        let mesh = parse(&text);
        assert_eq!(mesh.tri_count(), n - 2, "{n}-gon");
        // RecastDemo's face: the first 32 indices of the row.
        let first_32: String = text
            .lines()
            .last()
            .unwrap()
            .split(' ')
            .take(33)
            .collect::<Vec<_>>()
            .join(" ");
        let vertices: String = text.lines().take(n).map(|l| format!("{l}\n")).collect();
        let recastdemo = parse(&format!("{vertices}{first_32}\n"));
        assert_eq!(recastdemo.tri_count(), 30);
        assert_eq!(&mesh.tris[..90], &recastdemo.tris[..], "{n}-gon");
        assert_eq!(mesh.warnings.total(), 1, "{n}-gon");
    }
    // Up to 32 vertices nothing changes and nothing is said.
    let mesh = parse(&disc_obj(32));
    assert_eq!(mesh.tri_count(), 30);
    assert!(mesh.warnings.is_empty());
}

// ---- 9. Rows of 511 bytes or more -------------------------------------------------------------

#[test]
fn long_comments_and_other_rows_stay_what_they_are() {
    let rows = [
        // RecastDemo cuts at 511 bytes and starts its next row with the byte it cut at, here a
        // `v`: it would read a phantom vertex (5, 6, 7) out of the comment.
        format!("# {}v 5 6 7", "x".repeat(508)),
        format!("#{}", " f 1 2 3 v 1 1 1".repeat(100)),
        format!("# {}", "é".repeat(700)),
        format!("o {}", "v 9 9 9 ".repeat(80)),
        format!("usemtl {}", "f".repeat(1000)),
    ];
    for row in rows {
        let mesh = parse(&format!("{SQUARE}{row}\nf 1 2 3\nf 1 3 4\n"));
        assert_eq!(mesh.vert_count(), 4, "{row}");
        assert_eq!(mesh.tris, [0, 1, 2, 0, 2, 3], "{row}");
        assert!(mesh.warnings.is_empty(), "{row}: {:?}", mesh.warnings);
    }
}

#[test]
fn long_vertex_and_face_rows_are_read_whole_with_a_warning() {
    // RecastDemo's cut would end the row inside the x coordinate and lose y and z.
    let vertex = format!("v 1.{} 2 3", "0".repeat(600));
    let mesh = parse(&format!("v 0 0 0\nv 1 0 0\n{vertex}\nf 1 2 3\n"));
    assert_eq!(&mesh.verts[6..], &[1.0, 2.0, 3.0]);
    let warnings = mesh.warnings.lines();
    assert!(
        warnings.len() == 1 && warnings[0].contains("line 3") && warnings[0].contains("608 bytes"),
        "{warnings:?}"
    );

    // Index 123 straddles byte 511: RecastDemo would read it as 12.
    let vertices: String = (0..130).map(|i| format!("v {i} 0 {}\n", i % 2)).collect();
    let face = format!("f 1 2{}123", " ".repeat(504));
    assert_eq!(face.find("123"), Some(509));
    let mesh = parse(&format!("{vertices}{face}\n"));
    assert_eq!(mesh.tris, [0, 1, 122]);
    let warnings = mesh.warnings.lines();
    assert!(
        warnings.len() == 1 && warnings[0].contains("line 131"),
        "{warnings:?}"
    );
}

#[test]
fn rows_that_recastdemo_reads_the_same_give_no_warning() {
    // Rows up to the limit, and a long row whose cut changes nothing.
    for padding in [0, 400, 503, 504, 505, 600] {
        let row = format!("v 1 2 3{}", " ".repeat(padding));
        let mesh = parse(&format!("v 0 0 0\nv 1 0 0\n{row}\nf 1 2 3\n"));
        assert_eq!(&mesh.verts[6..], &[1.0, 2.0, 3.0], "{padding}");
        assert!(mesh.warnings.is_empty(), "{padding}: {:?}", mesh.warnings);
    }
}

/// `load_obj` streams the file through a small buffer: rows longer than the buffer, a BOM and
/// CRLF line ends must give the mesh `parse_obj` gives for the same bytes.
#[test]
fn a_streamed_file_reads_as_its_bytes_do() {
    let mut text = String::from("# ");
    text.push_str(&"long comment v 1 2 3 ".repeat(5000));
    text.push('\n');
    text.push_str(&disc_obj(5000));
    text.push_str(&format!("f 1 2{}3\n", " ".repeat(20_000)));
    let bytes = with_bom(&text.replace('\n', "\r\n"));
    let dir = TempDir::new("stream");
    let path = dir.file("stream.obj", &bytes);
    let streamed = load_obj(&path).unwrap();
    assert_eq!(streamed, parse_obj(&bytes, &path).unwrap());
    assert_eq!((streamed.vert_count(), streamed.tri_count()), (5000, 4999));
    assert_eq!(streamed.warnings.total(), 2, "{:?}", streamed.warnings);
}

// ---- 5. Bounded warnings ----------------------------------------------------------------------

/// A walkable floor followed by `bad` faces whose last index is out of range.
fn floor_with_bad_faces(bad: usize) -> String {
    let mut text = floor_obj(10.0, 0.0);
    for i in 0..bad {
        text.push_str(&format!("f 1 2 {}\n", 10 + i));
    }
    text
}

#[test]
fn a_flood_of_bad_faces_keeps_a_few_warnings_and_a_count() {
    let mesh = parse(&floor_with_bad_faces(200_000));
    assert_eq!(mesh.tri_count(), 2);
    assert_eq!(mesh.warnings.total(), 200_000);
    let lines = mesh.warnings.lines();
    assert_eq!(lines.len(), Warnings::SHOWN_PER_KIND + 1, "{lines:?}");
    assert!(lines[0].contains("line 6"), "{}", lines[0]);
    assert_eq!(
        lines.last().unwrap(),
        "… and 199 995 more faces with a vertex index out of range"
    );
    // What the warnings keep does not grow with the file.
    assert!(lines.iter().map(String::len).sum::<usize>() < 2000);
}

#[test]
fn bake_prints_bounded_warnings_and_none_when_quiet() {
    let dir = TempDir::new("flood");
    let obj = dir.file("flood.obj", floor_with_bad_faces(50_000));
    let output = navlab([Path::new("bake"), &obj]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    let warnings: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("warning: "))
        .collect();
    assert_eq!(warnings.len(), Warnings::SHOWN_PER_KIND + 1, "{stderr}");
    assert!(stderr.contains("… and 49 995 more"), "{stderr}");

    let quiet = navlab([Path::new("bake"), &obj, Path::new("--quiet")]);
    assert!(quiet.status.success());
    assert!(quiet.stderr.is_empty() && quiet.stdout.is_empty());
}

// ---- 6. Endless input -------------------------------------------------------------------------

#[cfg(unix)]
#[test]
fn an_endless_device_is_read_only_up_to_the_cap() {
    let limit = 1 << 20;
    let err = navlab::file::read_capped(Path::new("/dev/zero"), limit).unwrap_err();
    assert!(
        matches!(err, FileError::TooLarge { size: None, limit: l, .. } if l == limit),
        "{err}"
    );
    let text = message(err);
    assert!(
        text.contains("/dev/zero") && text.contains("over the limit"),
        "{text}"
    );
    // Devices that end go through the same reader.
    let err = message(load_obj(Path::new("/dev/null")).unwrap_err());
    assert!(err.contains("no triangles"), "{err}");
}

#[cfg(unix)]
#[test]
fn a_fifo_is_read_like_a_file_and_capped_like_one() {
    use std::io::Write;
    let dir = TempDir::new("fifo");
    let fifo = dir.0.join("pipe.obj");
    if !Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success())
    {
        eprintln!("notice: mkfifo is not available; skipping");
        return;
    }
    let writer = |contents: Vec<u8>, repeat: bool| {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let mut pipe = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
            // The reader hangs up once it has enough; the write then fails and the loop ends.
            while pipe.write_all(&contents).is_ok() && repeat {}
        })
    };

    let endless = writer(b"v 0 0 0\n".repeat(1024), true);
    let err = navlab::file::read_capped(&fifo, 1 << 20).unwrap_err();
    assert!(
        matches!(err, FileError::TooLarge { size: None, .. }),
        "{err}"
    );
    endless.join().unwrap();

    let once = writer(floor_obj(10.0, 0.0).into_bytes(), false);
    let mesh = load_obj(&fifo).unwrap();
    assert_eq!(mesh.tri_count(), 2);
    once.join().unwrap();
}

#[test]
fn huge_gset_and_settings_files_are_refused_unread() {
    common::assert_huge_file_refused("huge.gset", MAX_GSET_FILE_BYTES, GeomSet::load);
    common::assert_huge_file_refused(
        "huge.toml",
        MAX_SETTINGS_FILE_BYTES,
        BuildSettings::load_toml,
    );
}

// ---- 11. Unknown settings keys ----------------------------------------------------------------

#[test]
fn unknown_settings_keys_are_refused_with_the_nearest_name() {
    let cases = [
        ("cell_size = 0.2\n", "line 1", "`cell_size`", "`cellSize`"),
        (
            "cellSize = 0.2\nagentRadious = 0.3\n",
            "line 2",
            "`agentRadious`",
            "`agentRadius`",
        ),
        (
            "# tuned\nAGENT_MAX_SLOPE = 30\n",
            "line 2",
            "`AGENT_MAX_SLOPE`",
            "`agentMaxSlope`",
        ),
        (
            "[settings]\ncellSize = 0.2\n",
            "line 1",
            "`settings` is a table",
            "top-level",
        ),
        (
            "cell.size = 0.2\n",
            "line 1",
            "`cell` is a table",
            "top-level",
        ),
        (
            "tileSize = 32\n",
            "line 1",
            "`tileSize`",
            "cellSize, cellHeight",
        ),
        // A quoted key may hold a newline or a control character; the message stays one line.
        (
            "\"cell\\nSize\" = 0.2\n",
            "line 1",
            "`cell\\nSize`",
            "`cellSize`",
        ),
        (
            "\"\\u0007x\" = 1\n",
            "line 1",
            "`\\u{7}x`",
            "the settings are",
        ),
    ];
    let dir = TempDir::new("settings");
    for (text, line, key, hint) in cases {
        let path = dir.file("settings.toml", text);
        let err = BuildSettings::load_toml(&path).unwrap_err();
        assert!(
            matches!(err, NavlabError::InvalidSettingsFile { .. }),
            "{err}"
        );
        let err = message(err);
        for expected in ["settings.toml", line, key, hint] {
            assert!(
                err.contains(expected),
                "{text:?}: `{expected}` missing from {err}"
            );
        }
    }
    // A long one is cut short.
    let long_key = format!("\"{}\" = 1\n", "x\\n".repeat(5000));
    let err = BuildSettings::parse_toml(long_key.as_bytes(), Path::new("s.toml")).unwrap_err();
    let err = message(err);
    assert!(err.len() < 600, "{err}");
    // Every valid key is still taken.
    let all = BuildSettings::default().to_toml_string();
    assert_eq!(
        BuildSettings::parse_toml(all.as_bytes(), Path::new("all.toml")).unwrap(),
        BuildSettings::default()
    );
}

#[test]
fn settings_syntax_and_type_errors_are_one_line_with_the_place() {
    for (text, expected) in [
        ("cellSize = \"0.2\"\n", "line 1, column 12"),
        ("cellSize = 0.2\ncellSize = 0.3\n", "line 2"),
        ("cellSize = \n", "line 1"),
        ("partitionType = \"spiral\"\n", "spiral"),
    ] {
        let err =
            message(BuildSettings::parse_toml(text.as_bytes(), Path::new("s.toml")).unwrap_err());
        assert!(err.contains(expected), "{text:?}: {err}");
    }
}

/// A hostile value in a file reaches the terminal escaped and cut short: no broken line, no
/// terminal codes, no megabyte message.
#[test]
fn error_messages_escape_control_characters_and_stay_short() {
    let long = "9".repeat(100_000);
    let gsets = [
        "v \0\n".to_owned(),
        "f a.obj\nc 1 2 3 4 5 \u{1b}[2J\n".to_owned(),
        format!("f a.obj\nc 1 2 3 4 5 6 7 1 1 1 {long}\n"),
        "\u{7}bell\n".to_owned(),
    ];
    for text in gsets {
        let err = message(GeomSet::parse(text.as_bytes(), Path::new("x.gset")).unwrap_err());
        assert!(!err.contains(char::is_control) && err.len() < 300, "{err}");
    }
    for text in ["v 1 \u{1b}[2J 3\n".to_owned(), format!("v 1 2 {long}x\n")] {
        let err = message(parse_obj(text.as_bytes(), Path::new("x.obj")).unwrap_err());
        assert!(!err.contains(char::is_control) && err.len() < 300, "{err}");
    }
}

// ---- 15. .gset bounds -------------------------------------------------------------------------

/// A `.gset` settings line with RecastDemo's defaults and the given navmesh bounds.
fn settings_line(bmin: [f32; 3], bmax: [f32; 3]) -> String {
    format!(
        "s 0.3 0.2 2 0.6 0.9 45 8 20 12 1.3 0 6 1 0 {} {} {} {} {} {} 0\n",
        bmin[0], bmin[1], bmin[2], bmax[0], bmax[1], bmax[2]
    )
}

#[test]
fn inverted_gset_bounds_are_refused_with_the_line() {
    for (bmin, bmax, axis) in [
        ([10.0, 0.0, -10.0], [-10.0, 5.0, 10.0], "x"),
        ([-10.0, 6.0, -10.0], [10.0, 5.0, 10.0], "y"),
        ([-10.0, 0.0, 10.0], [10.0, 5.0, -10.0], "z"),
    ] {
        let text = format!(
            "f level.obj\n# saved by hand\n{}",
            settings_line(bmin, bmax)
        );
        let err = message(GeomSet::parse(text.as_bytes(), Path::new("level.gset")).unwrap_err());
        for expected in ["level.gset", "line 3", "inverted", &format!("min {axis}")] {
            assert!(err.contains(expected), "`{expected}` missing from {err}");
        }
    }
}

#[test]
fn gset_bounds_that_miss_the_mesh_are_refused_before_building() {
    let dir = TempDir::new("bounds");
    dir.file("floor.obj", floor_obj(10.0, 0.0));
    let misses = [
        ([100.0, -1.0, -10.0], [120.0, 5.0, 10.0], "x"),
        ([-10.0, 50.0, -10.0], [10.0, 55.0, 10.0], "y"),
        ([-10.0, -1.0, -40.0], [10.0, 5.0, -20.0], "z"),
    ];
    for (bmin, bmax, axis) in misses {
        let gset = dir.file(
            "level.gset",
            format!("f floor.obj\n{}", settings_line(bmin, bmax)),
        );
        let input = InputGeom::load(&gset).unwrap();
        let solo =
            message(Build::from_input(&input, BuildSettings::for_input(&input)).unwrap_err());
        let tiled =
            message(TiledBuild::new(&input, BuildSettings::for_input(&input), 32).unwrap_err());
        for err in [solo, tiled] {
            for expected in [
                "level.gset",
                "miss the mesh",
                &format!("no overlap in {axis}"),
            ] {
                assert!(err.contains(expected), "`{expected}` missing from {err}");
            }
        }
        let line = one_error_line(&navlab([Path::new("bake"), &gset]), "bake");
        assert!(line.contains("miss the mesh"), "{line}");
    }

    // Bounds put in by code, past the parser, are checked where they meet the mesh too.
    let gset = dir.file(
        "level.gset",
        format!("f floor.obj\n{}", settings_line([-10.0; 3], [10.0; 3])),
    );
    let mut input = InputGeom::load(&gset).unwrap();
    Build::from_input(&input, BuildSettings::for_input(&input)).unwrap();
    let saved = input.geom_set.settings.as_mut().unwrap();
    saved.nav_mesh_bmin[2] = 20.0;
    let err = message(Build::from_input(&input, BuildSettings::for_input(&input)).unwrap_err());
    assert!(err.contains("inverted in z"), "{err}");
}

#[test]
fn bounds_given_to_a_build_are_checked() {
    let mesh = std::sync::Arc::new(parse(&floor_obj(10.0, 0.0)));
    let build = |bmin, bmax| {
        Build::with_bounds(
            mesh.clone(),
            bmin,
            bmax,
            BuildSettings::default(),
            Default::default(),
        )
    };
    let err = message(build([10.0, 0.0, -10.0], [-10.0, 1.0, 10.0]).unwrap_err());
    assert!(err.contains("bounds") && err.contains("inverted"), "{err}");
    let err = message(build([0.0, 0.0, -10.0], [0.0, 1.0, 10.0]).unwrap_err());
    assert!(err.contains("bounds") && err.contains("one cell"), "{err}");
}

// ---- 16. Recast's non-fatal errors ------------------------------------------------------------

/// `floors` walkable 10 m squares stacked 2.5 m apart: more layers than a compact heightfield
/// column links (63), which Recast reports as an error and builds on.
fn stacked_floors_obj(floors: usize) -> String {
    let mut text = String::new();
    for i in 0..floors {
        let y = i as f32 * 2.5;
        text.push_str(&format!(
            "v -5 {y} -5\nv 5 {y} -5\nv 5 {y} 5\nv -5 {y} 5\nf -4 -1 -2 -3\n"
        ));
    }
    text
}

#[test]
fn recasts_non_fatal_errors_are_warnings_and_exit_0() {
    let dir = TempDir::new("layers");
    let obj = dir.file("stack.obj", stacked_floors_obj(70));
    for args in [vec![], vec!["--tile-size", "8"]] {
        let mut command = vec![Path::new("bake"), &obj];
        command.extend(args.iter().map(Path::new));
        let output = navlab(&command);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(0), "{args:?}: {stderr}");
        assert!(
            stderr.contains("warning: rcBuildCompactHeightfield: Heightfield has too many layers"),
            "{args:?}: {stderr}"
        );
        assert!(!stderr.lines().any(|l| l.starts_with("error")), "{stderr}");
        assert!(
            stderr.lines().count() <= Warnings::SHOWN_PER_KIND + 1,
            "{args:?}: repeats are counted, not printed: {stderr}"
        );
    }
}

// ---- 17 and the exit codes: the command line --------------------------------------------------

#[test]
fn outputs_never_overwrite_inputs_or_each_other() {
    let dir = TempDir::new("outputs");
    let floor_text = floor_obj(10.0, 0.0);
    let floor = dir.file("floor.obj", &floor_text);
    let gset = dir.file("level.gset", "f floor.obj\n");
    let settings = dir.file("settings.toml", "cellSize = 0.3\n");
    let out = dir.0.join("out.bin");
    std::fs::create_dir_all(dir.0.join("sub")).unwrap();
    let floor_elsewhere = dir.0.join("sub/../floor.obj");
    let out_elsewhere = dir.0.join("sub/../out.bin");
    let link = dir.0.join("link.obj");
    #[cfg(unix)]
    std::os::unix::fs::symlink(&floor, &link).unwrap();
    #[cfg(not(unix))]
    std::fs::copy(&floor, &link).unwrap();

    let p = Path::new;
    let mut cases: Vec<(Vec<&Path>, &str)> = vec![
        (vec![p("bake"), &floor, p("-o"), &floor], "is the input"),
        (
            vec![p("bake"), &floor, p("-o"), &floor_elsewhere],
            "is the input",
        ),
        (
            vec![p("bake"), &gset, p("-o"), &floor],
            "is the input's mesh",
        ),
        (
            vec![p("bake"), &gset, p("--dump-json"), &gset],
            "is the input",
        ),
        (
            vec![
                p("bake"),
                &floor,
                p("--config"),
                &settings,
                p("-o"),
                &settings,
            ],
            "is the settings file",
        ),
        (
            vec![p("bake"), &floor, p("--dump-json"), &floor],
            "is the input",
        ),
        (
            vec![p("bake"), &floor, p("-o"), &out, p("--dump-json"), &out],
            "overwrite each other",
        ),
        (
            vec![
                p("bake"),
                &floor,
                p("-o"),
                &out,
                p("--dump-json"),
                &out_elsewhere,
            ],
            "overwrite each other",
        ),
    ];
    if cfg!(unix) {
        cases.push((vec![p("bake"), &floor, p("-o"), &link], "is the input"));
    }
    for (args, expected) in cases {
        let line = one_error_line(&navlab(&args), &format!("{args:?}"));
        assert!(line.contains(expected), "{args:?}: {line}");
    }
    assert_eq!(std::fs::read_to_string(&floor).unwrap(), floor_text);
    assert_eq!(std::fs::read_to_string(&gset).unwrap(), "f floor.obj\n");
    assert_eq!(
        std::fs::read_to_string(&settings).unwrap(),
        "cellSize = 0.3\n"
    );
    assert!(!out.exists());

    // Distinct outputs are fine.
    let json = dir.0.join("out.json");
    let output = navlab([p("bake"), &floor, p("-o"), &out, p("--dump-json"), &json]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(out.exists() && json.exists());
}

#[test]
fn command_line_errors_are_one_navlab_line() {
    let dir = TempDir::new("errors");
    let floor = dir.file("floor.obj", floor_obj(10.0, 0.0));
    let multi_line_toml = dir.file("bad.toml", "cellSize = [\n0.3,\n\"x\"\n");
    let p = Path::new;
    let cases: [(Vec<&Path>, &str); 6] = [
        (
            vec![p("bake"), &floor, p("--cell-size"), p("0.2")],
            "`cellSize`",
        ),
        (vec![p("bake"), &floor, p("--frobnicate")], "'--frobnicate'"),
        (vec![p("bake")], "<MESH>"),
        (
            vec![p("bake"), &floor, p("--partition"), p("spiral")],
            "spiral",
        ),
        (vec![p("bake"), &floor, p("--tile-size"), p("x")], "'x'"),
        (
            vec![p("bake"), &floor, p("--config"), &multi_line_toml],
            "bad.toml: line",
        ),
    ];
    for (args, expected) in cases {
        let line = one_error_line(&navlab(&args), &format!("{args:?}"));
        assert!(line.contains(expected), "{args:?}: {line}");
        if args.len() > 2 && args[2] == p("--cell-size") {
            assert!(
                !line.contains("--tile-size"),
                "a misleading suggestion: {line}"
            );
        }
    }

    let help = navlab([p("bake"), p("--help")]);
    assert!(help.status.success());
    let text = String::from_utf8_lossy(&help.stdout);
    assert!(
        text.contains("Exit status: 0") && text.contains("1 on any error"),
        "{text}"
    );
}
