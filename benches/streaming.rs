//! Tile streaming (docs/streaming.md): loading one window of a tile store into an empty
//! navmesh, and one frame's step of a walker (the window moved one tile: a column dropped and
//! one loaded), on a generated city of 35 × 35 blocks (420 m) at 64-cell tiles with 64-bit
//! references.

use std::hint::black_box;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use navlab::bake::settings::BuildSettings;
use navlab::bake::tiled::TiledBuild;
use navlab::detour::tile_store::TileStore;
use navlab::input::InputGeom;

/// The city's store, written once into a scratch folder.
fn city_store() -> TileStore {
    let input = InputGeom::from_mesh(navlab::input::scene::city(35)).expect("the city loads");
    let settings = BuildSettings {
        poly_refs: 64,
        ..BuildSettings::for_input(&input)
    };
    let build = TiledBuild::new(&input, settings, 64).expect("the city builds");
    let dir = std::env::temp_dir().join(format!("navlab-bench-streaming-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    let path = dir.join("city.nlts");
    TileStore::write(&path, &build.nav_mesh).expect("the store is written");
    TileStore::open(&path).expect("the store opens")
}

/// A square window of side `side` centred at (`x`, `z`).
fn window(x: f32, z: f32, side: f32) -> ([f32; 3], [f32; 3]) {
    let half = side / 2.0;
    ([x - half, -1e9, z - half], [x + half, 1e9, z + half])
}

fn bench_streaming(c: &mut Criterion) {
    let store = city_store();
    let tile = store.params().tile_width;
    let mut group = c.benchmark_group("streaming/city420 64-bit");
    let (bmin, bmax) = window(210.0, 210.0, 200.0);
    group.bench_function("load a 200 m window", |b| {
        b.iter_batched(
            || store.empty_nav_mesh().unwrap(),
            |mut nav| {
                black_box(nav.load_tiles_in(&store, bmin, bmax).unwrap());
                nav
            },
            BatchSize::LargeInput,
        )
    });
    let mut nav = store.empty_nav_mesh().unwrap();
    nav.load_tiles_in(&store, bmin, bmax).unwrap();
    let mut forward = true;
    group.bench_function("frame step: window moved one tile", |b| {
        b.iter(|| {
            let x = if forward { 210.0 + tile } else { 210.0 };
            forward = !forward;
            let (bmin, bmax) = window(x, 210.0, 200.0);
            let dropped = nav.unload_tiles_outside(bmin, bmax);
            black_box((dropped, nav.load_tiles_in(&store, bmin, bmax).unwrap()))
        })
    });
    group.finish();
    let _ = std::fs::remove_dir_all(store.path().parent().unwrap());
}

criterion_group!(benches, bench_streaming);
criterion_main!(benches);
