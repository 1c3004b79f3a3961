//! Per-stage and whole-build benchmarks on the reference meshes × the three partitions, a large
//! generated city for the layers partition, and peak heap use (counting allocator).

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use navlab::bake::settings::BuildSettings;
use navlab::bake::solo::Build;
use navlab::input::obj::TriMesh;
use navlab::recast::context::BuildContext;
use navlab::recast::contour::ContourBuildFlags;
use navlab::recast::heightfield::Heightfield;
use navlab::recast::region::PartitionType;
use navlab::{
    recast::area, recast::compact, recast::contour, recast::detail_mesh, recast::distance_field,
    recast::filter, recast::poly_mesh, recast::rasterize, recast::region,
};

/// Counts live and peak heap bytes so the benchmark can report a build's peak memory.
struct CountingAllocator;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwards to the system allocator with the caller's layout.
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(live, Ordering::Relaxed);
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `alloc` above with this layout.
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
}

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

fn reference_mesh(name: &str) -> Option<Arc<TriMesh>> {
    let dir = std::env::var_os("NAVLAB_REFERENCE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/reference"));
    let path = dir.join("meshes").join(format!("{name}.obj"));
    match navlab::input::obj::load_obj(&path) {
        Ok(mesh) => Some(Arc::new(mesh)),
        Err(err) => {
            eprintln!("notice: skipping {name}: {err}");
            None
        }
    }
}

fn settings(partition: PartitionType) -> BuildSettings {
    BuildSettings {
        partition_type: partition,
        ..BuildSettings::default()
    }
}

fn bench_stages(c: &mut Criterion) {
    for mesh_name in ["nav_test", "dungeon", "undulating"] {
        let Some(mesh) = reference_mesh(mesh_name) else {
            continue;
        };
        for partition in PartitionType::ALL {
            let full = Build::new(mesh.clone(), settings(partition)).expect("reference build");
            let cfg = full.config.clone();
            let mut group = c.benchmark_group(format!("{mesh_name}/{}", partition.name()));
            group
                .sample_size(10)
                .measurement_time(Duration::from_secs(3));
            group.bench_function("total", |b| {
                b.iter(|| Build::new(mesh.clone(), settings(partition)).unwrap())
            });
            if partition == PartitionType::Watershed {
                group.bench_function("rasterize", |b| {
                    b.iter(|| {
                        let mut ctx = BuildContext::silent();
                        let mut hf = Heightfield::new(
                            cfg.width, cfg.height, cfg.bmin, cfg.bmax, cfg.cs, cfg.ch,
                        );
                        let mut areas = vec![0u8; mesh.tri_count()];
                        rasterize::mark_walkable_triangles(
                            &mut ctx,
                            cfg.walkable_slope_angle,
                            &mesh.verts,
                            &mesh.tris,
                            &mut areas,
                        )
                        .unwrap();
                        rasterize::rasterize_triangles(
                            &mut ctx,
                            &mesh.verts,
                            &mesh.tris,
                            &areas,
                            &mut hf,
                            cfg.walkable_climb,
                        )
                        .unwrap();
                        hf
                    })
                });
                group.bench_function("filters", |b| {
                    b.iter_batched(
                        || full.heightfield_rasterized(),
                        |mut hf| {
                            let mut ctx = BuildContext::silent();
                            filter::filter_low_hanging_walkable_obstacles(
                                &mut ctx,
                                cfg.walkable_climb,
                                &mut hf,
                            );
                            filter::filter_ledge_spans(
                                &mut ctx,
                                cfg.walkable_height,
                                cfg.walkable_climb,
                                &mut hf,
                            );
                            filter::filter_walkable_low_height_spans(
                                &mut ctx,
                                cfg.walkable_height,
                                &mut hf,
                            );
                            hf
                        },
                        BatchSize::LargeInput,
                    )
                });
                group.bench_function("compact", |b| {
                    b.iter(|| {
                        compact::build_compact_heightfield(
                            &mut BuildContext::silent(),
                            cfg.walkable_height,
                            cfg.walkable_climb,
                            &full.heightfield_filtered,
                        )
                        .unwrap()
                    })
                });
                group.bench_function("erode", |b| {
                    b.iter_batched(
                        || full.compact(),
                        |mut chf| {
                            area::erode_walkable_area(
                                &mut BuildContext::silent(),
                                cfg.walkable_radius,
                                &mut chf,
                            )
                            .unwrap();
                            chf
                        },
                        BatchSize::LargeInput,
                    )
                });
                group.bench_function("distance_field", |b| {
                    b.iter_batched(
                        || full.compact_eroded(),
                        |mut chf| {
                            distance_field::build_distance_field(
                                &mut BuildContext::silent(),
                                &mut chf,
                            )
                            .unwrap();
                            chf
                        },
                        BatchSize::LargeInput,
                    )
                });
            }
            let before_regions = {
                let mut chf = (*full.regions).clone();
                chf.spans.iter_mut().for_each(|s| s.reg = 0);
                chf
            };
            group.bench_function("regions", |b| {
                b.iter_batched(
                    || before_regions.clone(),
                    |mut chf| {
                        let mut ctx = BuildContext::silent();
                        match partition {
                            PartitionType::Watershed => region::build_regions(
                                &mut ctx,
                                &mut chf,
                                0,
                                cfg.min_region_area,
                                cfg.merge_region_area,
                            )
                            .unwrap(),
                            PartitionType::Monotone => region::build_regions_monotone(
                                &mut ctx,
                                &mut chf,
                                0,
                                cfg.min_region_area,
                                cfg.merge_region_area,
                            )
                            .unwrap(),
                            PartitionType::Layers => region::build_layer_regions(
                                &mut ctx,
                                &mut chf,
                                0,
                                cfg.min_region_area,
                            )
                            .unwrap(),
                        }
                        chf
                    },
                    BatchSize::LargeInput,
                )
            });
            group.bench_function("contours", |b| {
                b.iter(|| {
                    contour::build_contours(
                        &mut BuildContext::silent(),
                        &full.regions,
                        cfg.max_simplification_error,
                        cfg.max_edge_len,
                        ContourBuildFlags::default(),
                    )
                    .unwrap()
                })
            });
            group.bench_function("polymesh", |b| {
                b.iter(|| {
                    poly_mesh::build_poly_mesh(
                        &mut BuildContext::silent(),
                        &full.contours,
                        cfg.max_verts_per_poly as usize,
                    )
                    .unwrap()
                })
            });
            group.bench_function("detail", |b| {
                b.iter(|| {
                    detail_mesh::build_poly_mesh_detail(
                        &mut BuildContext::silent(),
                        &full.poly_mesh,
                        &full.regions,
                        cfg.detail_sample_dist,
                        cfg.detail_sample_max_error,
                    )
                    .unwrap()
                })
            });
            group.finish();
            black_box(full);
        }
    }
}

fn report_peak_memory(_: &mut Criterion) {
    let mut cases: Vec<(String, Arc<TriMesh>)> = Vec::new();
    if let Some(mesh) = reference_mesh("undulating") {
        cases.push(("undulating".into(), mesh));
    }
    cases.push((
        "generated city 35x35 blocks (420 m)".into(),
        Arc::new(navlab::input::scene::city(35)),
    ));
    for (name, mesh) in cases {
        for partition in PartitionType::ALL {
            let base = LIVE.load(Ordering::Relaxed);
            PEAK.store(base, Ordering::Relaxed);
            let started = std::time::Instant::now();
            let build = Build::new(mesh.clone(), settings(partition)).unwrap();
            let elapsed = started.elapsed();
            let peak = PEAK.load(Ordering::Relaxed) - base;
            println!(
                "peak heap {name} {}: {:.1} MiB, build {:.1} ms, {} polys",
                partition.name(),
                peak as f64 / (1024.0 * 1024.0),
                elapsed.as_secs_f64() * 1000.0,
                build.poly_mesh.npolys
            );
        }
    }
}

fn bench_generated_city(c: &mut Criterion) {
    let mesh = Arc::new(navlab::input::scene::city(35));
    let mut group = c.benchmark_group("city420");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(5));
    for partition in PartitionType::ALL {
        group.bench_function(partition.name(), |b| {
            b.iter(|| Build::new(mesh.clone(), settings(partition)).unwrap())
        });
    }
    group.finish();
}

criterion_group!(
    benches,
    report_peak_memory,
    bench_stages,
    bench_generated_city
);
criterion_main!(benches);
