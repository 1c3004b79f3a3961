//! The OBJ loader on bad and unusual input: clear errors, RecastDemo's skipping and indexing rules.

use crate::support as common;

use std::path::Path;

use navlab::file::FileError;
use navlab::input::obj::{TriMesh, load_obj, parse_obj};

fn parse(text: &str) -> navlab::input::Result<TriMesh> {
    parse_obj(text.as_bytes(), Path::new("test.obj"))
}

fn invalid_mesh_message(result: navlab::input::Result<TriMesh>) -> String {
    match result {
        Err(navlab::input::Error::InvalidMesh { path, message }) => {
            assert!(!path.as_os_str().is_empty());
            message
        }
        other => panic!("expected an InvalidMesh error, got {other:?}"),
    }
}

const SQUARE: &str = "v 0 0 0\nv 1 0 0\nv 1 0 1\nv 0 0 1\n";

#[test]
fn missing_file_is_an_io_error_naming_the_path() {
    let path = Path::new("/nonexistent/navlab/missing.obj");
    match load_obj(path) {
        Err(navlab::input::Error::File(FileError::Io { path: p, .. })) => assert_eq!(p, path),
        other => panic!("expected an Io error, got {other:?}"),
    }
    let err = load_obj(path).unwrap_err().to_string();
    assert!(err.contains("missing.obj"), "{err}");
}

#[test]
fn binary_files_are_refused() {
    let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x10";
    let message = invalid_mesh_message(parse_obj(png, Path::new("image.obj")));
    assert!(message.contains("not an OBJ"), "{message}");

    // Binary without NUL bytes has no `v`/`f` rows, so it is a mesh without triangles.
    let jpeg_like = [0xff, 0xd8, 0xff, 0xe0, b'J', b'F', b'I', b'F', 0x01, 0x02];
    let message = invalid_mesh_message(parse_obj(&jpeg_like, Path::new("photo.obj")));
    assert!(message.contains("no triangles"), "{message}");
}

#[test]
fn meshes_without_triangles_are_refused() {
    for text in [
        "",
        "\n\n   \n",
        "# only a comment\n",
        SQUARE,
        "v 0 0 0\nv 1 0 0\nf 1 2\n",
        "f 1 2 3\nv 0 0 0\nv 1 0 0\nv 1 0 1\n",
    ] {
        let message = invalid_mesh_message(parse(text));
        assert!(message.contains("no triangles"), "{text:?}: {message}");
    }
}

#[test]
fn non_finite_coordinates_are_refused() {
    for bad in ["nan", "NaN", "inf", "-inf", "1e39"] {
        let text = format!("v 0 0 0\nv 1 {bad} 0\nv 0 0 1\nf 1 2 3\n");
        let message = invalid_mesh_message(parse(&text));
        assert!(
            message.contains("vertex 2") && message.contains("non-finite"),
            "{bad}: {message}"
        );
    }
}

#[test]
fn malformed_vertex_rows_name_their_line() {
    for (text, line) in [
        ("v 0 0 0\nv 1 0\n", "line 2"),
        ("# c\n\nv 0 zero 0\n", "line 3"),
        ("v\n", "line 1"),
    ] {
        let message = invalid_mesh_message(parse(text));
        assert!(message.contains(line), "{text:?}: {message}");
    }
}

#[test]
fn out_of_range_faces_are_skipped_with_a_warning() {
    let text = format!("{SQUARE}f 1 2 3\nf 1 2 5\nf 0 1 2\nf -5 1 2\nf 1 3 4\n");
    let mesh = parse(&text).unwrap();
    assert_eq!(mesh.tris, vec![0, 1, 2, 0, 2, 3]);
    let warnings = mesh.warnings.lines();
    assert_eq!(warnings.len(), 3, "{warnings:?}");
    for (warning, line) in warnings.iter().zip(["line 6", "line 7", "line 8"]) {
        assert!(warning.contains(line), "{warning}");
        assert!(warning.contains("test.obj"), "{warning}");
    }
    // A fan keeps its in-range triangles when some are skipped; the face gets one warning.
    let mesh = parse(&format!("{SQUARE}f 1 2 3 9 4\n")).unwrap();
    assert_eq!(mesh.tris, vec![0, 1, 2]);
    let warnings = mesh.warnings.lines();
    assert_eq!(warnings.len(), 1);
    assert!(
        warnings[0].contains("skipped 2 of the face's 3 triangles"),
        "{warnings:?}"
    );
}

#[test]
fn negative_indices_count_back_from_the_vertices_read_so_far() {
    let text = "v 0 0 0\nv 1 0 0\nv 1 0 1\nf -3 -2 -1\nv 0 0 1\nf -4 -2 -1\nf -1/1/1 -3//2 -2/5\n";
    let mesh = parse(text).unwrap();
    assert_eq!(mesh.tris, vec![0, 1, 2, 0, 2, 3, 3, 1, 2]);
    assert!(mesh.warnings.is_empty());
}

#[test]
fn polygons_are_fan_triangulated_from_their_first_vertex() {
    let mut text = String::new();
    for i in 0..40 {
        let angle = i as f32 / 40.0 * std::f32::consts::TAU;
        text.push_str(&format!("v {} 0 {}\n", angle.cos(), -angle.sin()));
    }
    text.push_str("f 1 2 3 4 5\nf");
    for i in 1..=40 {
        text.push_str(&format!(" {i}"));
    }
    text.push('\n');
    let mesh = parse(&text).unwrap();
    // The pentagon gives 3 triangles, the 40-gon 38: RecastDemo's 30 from its first 32 indices,
    // then the rest of the same fan, which RecastDemo drops (with a warning naming the line).
    assert_eq!(mesh.tri_count(), 3 + 38);
    assert_eq!(&mesh.tris[..9], &[0, 1, 2, 0, 2, 3, 0, 3, 4]);
    assert_eq!(&mesh.tris[9 + 29 * 3..9 + 30 * 3], &[0, 30, 31]);
    assert_eq!(&mesh.tris[mesh.tris.len() - 3..], &[0, 38, 39]);
    let warnings = mesh.warnings.lines();
    assert!(
        warnings.len() == 1 && warnings[0].contains("line 42"),
        "{warnings:?}"
    );
    assert_eq!(mesh.normals.len(), mesh.tris.len());
    for n in mesh.normals.chunks(3) {
        assert!(
            (n[1] - 1.0).abs() < 1e-5,
            "counter-clockwise seen from above: {n:?}"
        );
    }
}

#[test]
fn other_rows_are_ignored_and_line_endings_do_not_matter() {
    let text = "# comment\r\nmtllib a.mtl\r\no thing\r\nvn 0 1 0\r\nvt 0 0\r\n  v 0 0 0\r\n\tv 1 0 0\r\nv 1 0 1 1.0\r\ns off\r\ng group\r\nusemtl m\r\nf 1/1/1 2/2/1 3/3/1\r\n";
    let mesh = parse(text).unwrap();
    assert_eq!(mesh.vert_count(), 3);
    assert_eq!(mesh.tris, vec![0, 1, 2]);
    assert!(mesh.warnings.is_empty());
}

#[test]
fn unused_vertices_count_in_the_bounds() {
    let mesh = parse("v 0 0 0\nv 1 0 0\nv 1 0 1\nv -5 9 7\nf 1 2 3\n").unwrap();
    assert_eq!(mesh.bounds(), ([-5.0, 0.0, 0.0], [1.0, 9.0, 7.0]));
}

#[test]
fn from_parts_checks_its_input() {
    assert!(TriMesh::from_parts(vec![0.0; 9], vec![0, 1, 3]).is_err());
    assert!(TriMesh::from_parts(vec![0.0; 9], vec![0, -1, 2]).is_err());
    assert!(TriMesh::from_parts(vec![0.0; 9], vec![]).is_err());
    assert!(TriMesh::from_parts(vec![0.0, f32::NAN, 0.0], vec![0, 0, 0]).is_err());
    let mesh = TriMesh::from_parts(
        vec![0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0],
        vec![0, 1, 2],
    )
    .unwrap();
    assert_eq!(mesh.normals, vec![0.0, 1.0, 0.0]);
}

/// Cutting the reference meshes anywhere must load or fail cleanly, never panic.
#[test]
fn truncated_reference_meshes_never_panic() {
    let Some(path) = common::mesh_path("nav_test") else {
        return;
    };
    let bytes = std::fs::read(&path).unwrap();
    let full = parse_obj(&bytes, &path).unwrap();
    assert!(full.warnings.is_empty(), "{:?}", full.warnings);
    let step = (bytes.len() / 500).max(1);
    for end in (0..bytes.len()).step_by(step) {
        if let Ok(mesh) = parse_obj(&bytes[..end], &path) {
            assert!(mesh.tris.iter().all(|&i| (i as usize) < mesh.vert_count()));
        }
    }
}

/// A file over the size limit is refused before it is read (a sparse file: no disk used).
#[test]
fn huge_file_is_refused_unread() {
    common::assert_huge_file_refused("huge.obj", navlab::input::obj::MAX_OBJ_FILE_BYTES, load_obj);
}
