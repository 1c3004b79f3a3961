//! Fuzzes the glTF reader on JSON and GLB bytes: a typed one-line, printable error or a mesh
//! whose triangles index its vertices, with finite coordinates and a unit (or zero) normal per
//! triangle, which the triangle tree accepts. The bytes come from memory, so a buffer URI that
//! names a file is refused and the fuzzer never reads one.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use navlab::input::PartitionedMesh;
use navlab::input::gltf::parse_gltf;
use navlab::warnings::Warnings;

fuzz_target!(|data: &[u8]| {
    let mesh = match parse_gltf(data, Path::new("fuzz.glb")) {
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
    // One warning kind: skipped primitives.
    assert!(mesh.warnings.lines().len() <= Warnings::SHOWN_PER_KIND + 1);
    PartitionedMesh::from_mesh(&mesh).expect("a loaded mesh partitions");
});
