//! Mesh raycasts (RecastDemo's mouse picking) through the partitioned mesh against testing every
//! triangle, on the reference meshes; and the cost of building the tree.

#[path = "../tests/support/mod.rs"]
mod support;
use support as common;

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use navlab::input::obj::{TriMesh, load_obj};
use navlab::input::partitioned_mesh::{PartitionedMesh, intersect_segment_triangle, raycast};

const RAYS: usize = 256;

/// Picking rays: from above the mesh to below it, slightly slanted, spread over its bounds.
fn picking_rays(mesh: &TriMesh) -> Vec<([f32; 3], [f32; 3])> {
    let (bmin, bmax) = mesh.bounds();
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut unit = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 40) as f32 / (1u64 << 24) as f32
    };
    (0..RAYS)
        .map(|_| {
            let x = bmin[0] + (bmax[0] - bmin[0]) * unit();
            let z = bmin[2] + (bmax[2] - bmin[2]) * unit();
            let (dx, dz) = (unit() - 0.5, unit() - 0.5);
            ([x, bmax[1] + 1.0, z], [x + dx, bmin[1] - 1.0, z + dz])
        })
        .collect()
}

fn brute_force_raycast(mesh: &TriMesh, start: [f32; 3], end: [f32; 3]) -> Option<f32> {
    let vertex = |i: i32| {
        let v = i as usize * 3;
        [mesh.verts[v], mesh.verts[v + 1], mesh.verts[v + 2]]
    };
    mesh.tris
        .chunks_exact(3)
        .filter_map(|t| {
            intersect_segment_triangle(start, end, vertex(t[0]), vertex(t[1]), vertex(t[2]))
        })
        .reduce(f32::min)
}

fn bench_raycast(c: &mut Criterion) {
    for name in common::MESHES {
        // Without the reference data there is nothing to measure (a notice is printed).
        let Some(path) = common::mesh_path(name) else {
            return;
        };
        let mesh = match load_obj(&path) {
            Ok(mesh) => mesh,
            Err(e) => {
                eprintln!("notice: skipping {name}: {e}");
                continue;
            }
        };
        let pm = PartitionedMesh::from_mesh(&mesh).expect("a loaded mesh has valid indices");
        let rays = picking_rays(&mesh);

        let mut group = c.benchmark_group(format!("raycast_{name}_{RAYS}_rays"));
        group.bench_function("partitioned", |b| {
            b.iter(|| {
                rays.iter()
                    .filter_map(|&(s, e)| raycast(&mesh, &pm, black_box(s), black_box(e)))
                    .count()
            })
        });
        group.bench_function("brute_force", |b| {
            b.iter(|| {
                rays.iter()
                    .filter_map(|&(s, e)| brute_force_raycast(&mesh, black_box(s), black_box(e)))
                    .count()
            })
        });
        group.finish();

        c.bench_function(&format!("partition_mesh_{name}"), |b| {
            b.iter(|| PartitionedMesh::from_mesh(black_box(&mesh)))
        });
    }
}

criterion_group!(benches, bench_raycast);
criterion_main!(benches);
