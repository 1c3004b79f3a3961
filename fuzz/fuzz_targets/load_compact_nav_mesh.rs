//! Fuzzes the compact navmesh loader (`NavMesh::from_compact_bytes`): any input must give a
//! typed error or a navmesh whose compact file loads back to the same navmesh, and whose MSET
//! file loads to it too.
#![no_main]

use libfuzzer_sys::fuzz_target;
use navlab::detour::NavMesh;

fuzz_target!(|data: &[u8]| {
    let Ok(mesh) = NavMesh::from_compact_bytes(data) else {
        return;
    };
    let mset = mesh.to_mset_bytes();
    let from_mset = NavMesh::from_mset_bytes(&mset).expect("a saved navmesh loads");
    let compact = mesh
        .to_compact_bytes()
        .expect("a loaded navmesh compresses");
    let from_compact = NavMesh::from_compact_bytes(&compact).expect("a saved compact file loads");
    assert_eq!(from_compact.to_mset_bytes(), from_mset.to_mset_bytes());
});
