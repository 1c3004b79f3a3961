//! Fuzzes the tile-cache file reader: any bytes give an error or a set whose every layer reads,
//! whose off-mesh links (the trailing block) are valid, and which writes back to a file that
//! reads and writes the same bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use navlab::tile_cache::file::TileCacheSet;
use navlab::tile_cache::layer::decompress_layer;

fuzz_target!(|data: &[u8]| {
    let Ok(set) = TileCacheSet::from_bytes(data) else {
        return;
    };
    for layer in &set.layers {
        decompress_layer(&layer.data).expect("a layer that was checked reads");
    }
    for link in &set.off_mesh_links {
        assert!(link.start.iter().chain(&link.end).all(|v| v.is_finite()));
        assert!(link.radius >= 0.0 && link.area < 64);
    }
    // Compared as bytes: the parameters may hold NaNs.
    let written = set.to_bytes();
    let again = TileCacheSet::from_bytes(&written).expect("a written set reads back");
    assert_eq!(again.to_bytes(), written);
    assert_eq!(again.off_mesh_links, set.off_mesh_links);
});
