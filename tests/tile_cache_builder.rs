//! Navmesh tiles rebuilt from the tile cache's layers (`dtTileCache::buildNavMeshTile` with
//! RecastDemo's Temp Obstacles mesh process), against the C++ build recorded in
//! `detour/tilecache_nav_test.json` and its navmesh file `tilecache_nav_test_initial.bin`.
mod common;

use navlab::bake::sample_areas::{apply_area_flags, sample_area_flags};
use navlab::bake::settings::BuildSettings;
use navlab::bake::temp_obstacles::{DEFAULT_TILE_SIZE, build_tile_cache, tile_grid};
use navlab::detour::NavMesh;
use navlab::input::InputGeom;
use navlab::tile_cache::builder::{BuildError, build_nav_mesh_tile};

fn sample_process(areas: &mut [u8], flags: &mut [u16]) {
    apply_area_flags(areas, flags, sample_area_flags);
}

#[test]
fn every_layer_builds_cpps_initial_navmesh_byte_for_byte() {
    let (Some(dir), Some(mesh)) = (common::reference_dir(), common::mesh_path("nav_test")) else {
        return;
    };
    let text = std::fs::read_to_string(dir.join("detour/tilecache_nav_test.json")).unwrap();
    let reference: serde_json::Value = serde_json::from_str(&text).unwrap();
    let input = InputGeom::load(&mesh).unwrap();
    let settings = BuildSettings::default();
    let (cache, nav_params) = build_tile_cache(&input, &settings, DEFAULT_TILE_SIZE).unwrap();
    let (tiles_x, tiles_y) = tile_grid(&input, &settings, DEFAULT_TILE_SIZE).unwrap();
    let mut nav_mesh = NavMesh::new(nav_params).unwrap();
    let expected = reference["initial"]["tiles"].as_array().unwrap();
    let mut built = 0;
    let mut empty = Vec::new();
    let mut refs = Vec::new();
    for y in 0..tiles_y {
        for x in 0..tiles_x {
            for r in cache.layers_at(x, y) {
                let (header, data) = cache.layer(r).unwrap();
                let at = (header.tx, header.ty, header.tlayer);
                let Some(tile) =
                    build_nav_mesh_tile(data, cache.params(), &[], sample_process).unwrap()
                else {
                    empty.push(at);
                    continue;
                };
                let theirs = &expected[built];
                let bytes = tile.to_bytes();
                assert_eq!(
                    (
                        i64::from(at.0),
                        i64::from(at.1),
                        i64::from(at.2),
                        tile.poly_count() as i64,
                        bytes.len() as i64,
                    ),
                    (
                        theirs["x"].as_i64().unwrap(),
                        theirs["y"].as_i64().unwrap(),
                        theirs["layer"].as_i64().unwrap(),
                        theirs["polyCount"].as_i64().unwrap(),
                        theirs["dataSize"].as_i64().unwrap(),
                    ),
                    "tile {built} {at:?}: place, polys, size"
                );
                refs.push(nav_mesh.add_tile(tile, 0).unwrap());
                built += 1;
            }
        }
    }
    assert_eq!(empty, [(5, 4, 2)], "layers without polygons");
    assert_eq!(built, expected.len(), "tiles");
    let file = std::fs::read(dir.join("detour/tilecache_nav_test_initial.bin")).unwrap();
    // The file's tiles follow its 40-byte header, each as reference, size and bytes.
    let mut at = 40;
    for (i, r) in refs.iter().enumerate() {
        let int = |p: usize| u32::from_le_bytes(file[p..p + 4].try_into().unwrap());
        let (their_ref, size) = (int(at), int(at + 4) as usize);
        let theirs = &file[at + 8..at + 8 + size];
        at += 8 + size;
        let ours = nav_mesh.tile_by_ref(*r).unwrap().to_bytes();
        assert_eq!(*r, their_ref, "tile {i}: reference");
        let first_difference = ours.iter().zip(theirs).position(|(a, b)| a != b);
        assert_eq!(
            (first_difference, ours.len()),
            (None, size),
            "tile {i}: first differing byte, size"
        );
    }
    assert!(
        nav_mesh.to_mset_bytes() == file,
        "the navmesh file differs from C++'s"
    );
}

#[test]
fn broken_layers_are_errors() {
    let params = navlab::tile_cache::file::TileCacheParams {
        cs: 0.3,
        ch: 0.2,
        walkable_climb: 0.9,
        ..Default::default()
    };
    assert!(matches!(
        build_nav_mesh_tile(&[0; 20], &params, &[], sample_process),
        Err(BuildError::BadLayer(_))
    ));
}
