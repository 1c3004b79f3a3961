//! Issue 28's additions beside the builds they extend: the jump-link builder on nav_test, a
//! solo spiral-ramp build with and without the overlapping-region split, and removing and
//! re-adding an end tile of a long-range link (the authoring set at 32-cell tiles).

use std::hint::black_box;
use std::path::PathBuf;
use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use navlab::bake::jump_links::find_jump_links;
use navlab::bake::settings::BuildSettings;
use navlab::bake::solo::Build;
use navlab::bake::tiled::TiledBuild;
use navlab::input::InputGeom;

fn reference(path: &str) -> PathBuf {
    std::env::var_os("NAVLAB_REFERENCE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/reference"))
        .join(path)
}

fn bench_jump_links(c: &mut Criterion) {
    let input = match InputGeom::load(&reference("meshes/nav_test.obj")) {
        Ok(input) => input,
        Err(err) => return eprintln!("notice: skipping jump links: {err}"),
    };
    let settings = BuildSettings::for_input(&input);
    let build = Build::from_input(&input, settings.clone()).expect("nav_test builds");
    let nav_mesh = build.nav_mesh.clone().expect("nav_test has a navmesh");
    let heightfield = build.heightfield_rasterized();
    c.bench_function("links/jump_links nav_test", |b| {
        b.iter(|| black_box(find_jump_links(&nav_mesh, &heightfield, &settings)))
    });
}

fn bench_split(c: &mut Criterion) {
    let mesh = Arc::new(navlab::input::scene::spiral_ramp(3, 4.0));
    let mut group = c.benchmark_group("links/spiral_ramp solo");
    for split in [false, true] {
        let settings = BuildSettings {
            split_overlapping_regions: split,
            ..BuildSettings::default()
        };
        let name = if split { "split" } else { "as C++" };
        group.bench_function(name, |b| {
            b.iter(|| black_box(Build::new(mesh.clone(), settings.clone()).unwrap()))
        });
    }
    group.finish();
}

fn bench_long_link_tile(c: &mut Criterion) {
    let input = match InputGeom::load(&reference("authoring/nav_test_authoring.gset")) {
        Ok(input) => input,
        Err(err) => return eprintln!("notice: skipping long-range links: {err}"),
    };
    let mut group = c.benchmark_group("links/end tile out and in");
    for long_range_links in [false, true] {
        let settings = BuildSettings {
            long_range_links,
            ..BuildSettings::for_input(&input)
        };
        let mut nav = TiledBuild::new(&input, settings, 32)
            .expect("the authoring set builds")
            .nav_mesh;
        let end = input.geom_set.off_mesh_connections[2].end;
        let (x, y) = nav.calc_tile_loc(&end);
        let name = if long_range_links {
            "long links"
        } else {
            "as C++"
        };
        group.bench_function(name, |b| {
            b.iter(|| {
                let tile_ref = nav.tile_ref_at(x, y, 0).expect("the end tile is loaded");
                let tile = nav.remove_tile(tile_ref).unwrap();
                black_box(nav.add_tile(tile, 0).unwrap())
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench_jump_links, bench_split, bench_long_link_tile);
criterion_main!(benches);
