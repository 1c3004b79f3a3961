//! Temp Obstacles' first half on nav_test (tile size 48): every tile rasterized and cut into
//! heightfield layers, and every layer stored (FastLZ) and read back, as RecastDemo does when it
//! builds the tile cache; then the whole tile-cache build (layers stored, every navmesh tile
//! built) and one clicked obstacle added and updated until its layer is rebuilt, the two
//! sections `navlab tilecache` measures. The obstacle is timed in steady state, as a game
//! sees it: the tile builder is the warm one of the initial build, and each iteration removes
//! the obstacle again (untimed).

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{Criterion, criterion_group, criterion_main};
use navlab::bake::settings::BuildSettings;
use navlab::bake::temp_obstacles::build_tile_cache_and_nav_mesh;
use navlab::bake::temp_obstacles::{
    DEFAULT_TILE_SIZE, compressed_layer, rasterize_tile_layers, sample_mesh_process, tile_grid,
};
use navlab::input::InputGeom;
use navlab::recast::context::BuildContext;
use navlab::recast::layers::HeightfieldLayer;
use navlab::tile_cache::builder::{LayerTileBuilder, ScratchAllocator};
use navlab::tile_cache::layer::decompress_layer;
use navlab::tile_cache::obstacles::Obstacles;
use navlab_app::demo::tile_cache_run::add_clicked_obstacles;

fn nav_test() -> Option<InputGeom> {
    let dir = std::env::var_os("NAVLAB_REFERENCE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/reference"));
    match InputGeom::load(&dir.join("meshes/nav_test.obj")) {
        Ok(input) => Some(input),
        Err(err) => {
            eprintln!("notice: skipping the tile-cache benchmarks: {err}");
            None
        }
    }
}

/// Every tile's layers, with the tile's coordinates.
fn all_layers(
    input: &InputGeom,
    settings: &BuildSettings,
) -> Vec<(i32, i32, i32, HeightfieldLayer)> {
    let (tiles_x, tiles_y) = tile_grid(input, settings, DEFAULT_TILE_SIZE).expect("a tile grid");
    let mut out = Vec::new();
    for y in 0..tiles_y {
        for x in 0..tiles_x {
            let mut ctx = BuildContext::silent();
            let set = rasterize_tile_layers(&mut ctx, input, settings, DEFAULT_TILE_SIZE, x, y)
                .expect("layers build");
            for (i, layer) in set.layers.into_iter().enumerate() {
                out.push((x, y, i as i32, layer));
            }
        }
    }
    out
}

fn bench_tile_cache(c: &mut Criterion) {
    let Some(input) = nav_test() else { return };
    let settings = BuildSettings::default();
    let mut group = c.benchmark_group("tile_cache/nav_test");
    group.bench_function("rasterize_tile_layers (all tiles)", |b| {
        b.iter(|| black_box(all_layers(&input, &settings)))
    });
    let layers = all_layers(&input, &settings);
    group.bench_function("store layers (FastLZ)", |b| {
        b.iter(|| {
            for (x, y, i, layer) in &layers {
                black_box(compressed_layer(*x, *y, *i, layer).expect("stores"));
            }
        })
    });
    let stored: Vec<Vec<u8>> = layers
        .iter()
        .map(|(x, y, i, layer)| compressed_layer(*x, *y, *i, layer).expect("stores"))
        .collect();
    group.bench_function("read layers back", |b| {
        b.iter(|| {
            for data in &stored {
                black_box(decompress_layer(data).expect("reads"));
            }
        })
    });
    let scratch = || ScratchAllocator::new(ScratchAllocator::DEMO_CAPACITY);
    group.bench_function("whole tile-cache build", |b| {
        b.iter(|| {
            black_box(
                build_tile_cache_and_nav_mesh(
                    &input,
                    &settings,
                    DEFAULT_TILE_SIZE,
                    &mut scratch(),
                    &mut LayerTileBuilder::new(),
                    None,
                )
                .expect("builds"),
            )
        })
    });
    let mut builder = LayerTileBuilder::new();
    let (cache, _, mut nav_mesh, _) = build_tile_cache_and_nav_mesh(
        &input,
        &settings,
        DEFAULT_TILE_SIZE,
        &mut scratch(),
        &mut builder,
        None,
    )
    .expect("builds");
    let mut obstacles = Obstacles::new(128).expect("a pool");
    obstacles.set_builder(builder);
    // pf line 1's start, the reference's first click.
    let click = [18.138_55, -2.370_003, -21.319_118];
    group.bench_function("one obstacle added and updated", |b| {
        b.iter_custom(|iterations| {
            let mut timed = std::time::Duration::ZERO;
            for _ in 0..iterations {
                let started = std::time::Instant::now();
                let (added, _) =
                    add_clicked_obstacles(&mut obstacles, &cache, &mut nav_mesh, &[click])
                        .expect("updates");
                timed += started.elapsed();
                obstacles
                    .remove(black_box(added[0].obstacle_ref))
                    .expect("removes");
                while !obstacles
                    .update(&cache, &mut nav_mesh, sample_mesh_process)
                    .expect("updates")
                {}
            }
            timed
        })
    });
    group.finish();
}

criterion_group!(benches, bench_tile_cache);
criterion_main!(benches);
