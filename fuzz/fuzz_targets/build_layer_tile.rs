//! Fuzzes the tile-cache rebuild on hostile stored layers: any bytes, read as a stored layer
//! (header and FastLZ cells) and rebuilt into a navmesh tile with RecastDemo's parameters and a
//! cylinder obstacle, give a typed error, no tile, or a tile Detour accepts; never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use navlab::bake::temp_obstacles::sample_mesh_process;
use navlab::detour::{NavMesh, NavMeshParams};
use navlab::tile_cache::builder::{ObstacleShape, build_nav_mesh_tile};
use navlab::tile_cache::file::TileCacheParams;

fuzz_target!(|data: &[u8]| {
    let params = TileCacheParams {
        cs: 0.3,
        ch: 0.2,
        width: 48,
        height: 48,
        walkable_height: 2.0,
        walkable_radius: 0.6,
        walkable_climb: 0.9,
        max_simplification_error: 1.3,
        max_tiles: 64,
        max_obstacles: 128,
        ..Default::default()
    };
    let obstacle = ObstacleShape::Cylinder {
        pos: [5.0, 0.0, 5.0],
        radius: 1.0,
        height: 2.0,
    };
    if let Ok(Some(tile)) =
        build_nav_mesh_tile(data, &params, &[obstacle], &[], sample_mesh_process)
    {
        let grid = NavMeshParams {
            tile_width: 14.4,
            tile_height: 14.4,
            max_tiles: 1 << 14,
            max_polys: 1 << 8,
            ..Default::default()
        };
        if let Ok(mut mesh) = NavMesh::new(grid) {
            let _ = mesh.add_tile(tile, 0);
        }
    }
});
