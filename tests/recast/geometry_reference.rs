//! The OBJ loader reads the reference meshes as RecastDemo does: same counts and bounds.
use crate::support as common;

#[test]
fn reference_meshes_load_with_recast_counts_and_bounds() {
    for mesh in common::MESHES {
        let Some(reference) = common::solo(mesh, "watershed") else {
            return;
        };
        let input = &reference["input"];
        let tri_mesh = navlab::input::obj::load_obj(&common::mesh_path(mesh).unwrap()).unwrap();
        assert_eq!(
            tri_mesh.vert_count() as i64,
            input["nverts"].as_i64().unwrap(),
            "{mesh}"
        );
        assert_eq!(
            tri_mesh.tri_count() as i64,
            input["ntris"].as_i64().unwrap(),
            "{mesh}"
        );
        let (bmin, bmax) = tri_mesh.bounds();
        assert_eq!(bmin, common::as_vec3(&input["bmin"]), "{mesh}");
        assert_eq!(bmax, common::as_vec3(&input["bmax"]), "{mesh}");
        assert!(
            tri_mesh.warnings.is_empty(),
            "{mesh}: {:?}",
            tri_mesh.warnings
        );
    }
}
