//! Detour tile creation and navmesh assembly on the reference meshes (skipped without the
//! reference data): `dtCreateNavMeshData` alone, creation plus `dtNavMesh::init`/`addTile`,
//! and loading a tiled "MSET" file (66 tiles added and linked).

#[path = "../tests/support/mod.rs"]
mod support;
use support as common;
use support::detour as detour_common;

use criterion::{Criterion, criterion_group, criterion_main};
use navlab::bake::sample_areas::{apply_area_flags, sample_area_flags};
use navlab::detour::{NavMesh, RefWidth, create_nav_mesh_data};

fn detour(c: &mut Criterion) {
    for mesh in common::MESHES {
        let Some(dump) = common::solo(mesh, "watershed") else {
            return;
        };
        let mut pmesh = common::poly_mesh_from_dump(&dump);
        apply_area_flags(&mut pmesh.areas, &mut pmesh.flags, sample_area_flags);
        let dmesh = detour_common::detail_from_dump(&dump);
        let params =
            navlab::bake::detour_input::nav_mesh_create_params(&pmesh, &dmesh, &[], 2.0, 0.6, 0.9)
                .expect("reference poly mesh");
        c.bench_function(&format!("create_tile/{mesh}"), |b| {
            b.iter(|| create_nav_mesh_data(&params).expect("tile"))
        });
        c.bench_function(&format!("create_and_add_tile/{mesh}"), |b| {
            b.iter(|| {
                NavMesh::new_solo(
                    create_nav_mesh_data(&params).expect("tile"),
                    RefWidth::Bits32,
                )
                .expect("init")
            })
        });
    }
    if let Some(file) = detour_common::reference_file("navmesh/nav_test_tiled32.bin") {
        c.bench_function("load_mset/nav_test_tiled32", |b| {
            b.iter(|| NavMesh::from_mset_bytes(&file).expect("load"))
        });
    }
}

criterion_group!(benches, detour);
criterion_main!(benches);
