//! Fuzzes the OBJ reader: any bytes give a typed one-line, printable error or a mesh whose
//! triangles index its vertices, with finite coordinates, a unit (or zero) normal per triangle
//! and bounded warnings, which the triangle tree accepts; a byte-order mark in front changes
//! nothing.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use navlab::input::PartitionedMesh;
use navlab::input::obj::parse_obj;
use navlab::warnings::Warnings;

/// The warning kinds the reader has (bad faces, large faces, long rows).
const WARNING_KINDS: usize = 3;

fuzz_target!(|data: &[u8]| {
    let source = Path::new("fuzz.obj");
    let mesh = match parse_obj(data, source) {
        Ok(mesh) => mesh,
        Err(err) => {
            assert!(!err.to_string().contains(char::is_control), "{err}");
            return;
        }
    };
    assert!(!mesh.tris.is_empty() && mesh.tris.len().is_multiple_of(3));
    assert!(
        mesh.tris
            .iter()
            .all(|&i| usize::try_from(i).is_ok_and(|i| i < mesh.vert_count()))
    );
    assert!(mesh.verts.iter().all(|v| v.is_finite()));
    assert_eq!(mesh.normals.len(), mesh.tris.len());
    for n in mesh.normals.chunks_exact(3) {
        let len = n.iter().map(|c| c * c).sum::<f32>().sqrt();
        assert!(len == 0.0 || (len - 1.0).abs() < 1e-3, "normal {n:?}");
    }
    assert!(mesh.warnings.lines().len() <= WARNING_KINDS * (Warnings::SHOWN_PER_KIND + 1));
    PartitionedMesh::from_mesh(&mesh).expect("a loaded mesh partitions");
    if !data.starts_with(b"\xEF\xBB\xBF") {
        let marked = parse_obj(&[b"\xEF\xBB\xBF", data].concat(), source).unwrap();
        assert_eq!(marked, mesh);
    }
});
