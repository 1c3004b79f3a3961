//! Recast's heightfield layers, tile by tile as RecastDemo's Temp Obstacles sample cuts them,
//! against the C++ build recorded in `detour/tilecache_nav_test.json`: every layer of every tile,
//! its place in the grid, bounds, height range, size and data rectangle.
use crate::support as common;

use navlab::bake::settings::BuildSettings;
use navlab::bake::temp_obstacles::{DEFAULT_TILE_SIZE, rasterize_tile_layers, tile_grid};
use navlab::input::InputGeom;
use navlab::recast::context::BuildContext;

#[test]
fn layers_of_every_tile_equal_cpps() {
    let (Some(dir), Some(mesh)) = (common::reference_dir(), common::mesh_path("nav_test")) else {
        return;
    };
    let text = std::fs::read_to_string(dir.join("detour/tilecache_nav_test.json")).unwrap();
    let reference: serde_json::Value = serde_json::from_str(&text).unwrap();
    let input = InputGeom::load(&mesh).unwrap();
    let settings = BuildSettings::default();
    let (tiles_x, tiles_y) = tile_grid(&input, &settings, DEFAULT_TILE_SIZE).unwrap();
    assert_eq!(
        (i64::from(tiles_x), i64::from(tiles_y)),
        (
            reference["tilesX"].as_i64().unwrap(),
            reference["tilesY"].as_i64().unwrap()
        )
    );
    let mut ours = Vec::new();
    for y in 0..tiles_y {
        for x in 0..tiles_x {
            let mut ctx = BuildContext::new();
            let set = rasterize_tile_layers(&mut ctx, &input, &settings, DEFAULT_TILE_SIZE, x, y)
                .unwrap();
            for (i, layer) in set.layers.into_iter().enumerate() {
                ours.push((x, y, i, layer));
            }
        }
    }
    let theirs = reference["layers"].as_array().unwrap();
    assert_eq!(ours.len(), theirs.len(), "layer count");
    for (x, y, i, layer) in &ours {
        let at = format!("layer ({x}, {y}, {i})");
        let theirs = theirs
            .iter()
            .find(|l| {
                l["tx"].as_i64() == Some(i64::from(*x))
                    && l["ty"].as_i64() == Some(i64::from(*y))
                    && l["tlayer"].as_i64() == Some(*i as i64)
            })
            .unwrap_or_else(|| panic!("{at}: not in the reference"));
        let int = |key: &str| theirs[key].as_i64().unwrap();
        assert_eq!(
            [
                layer.width,
                layer.height,
                layer.minx,
                layer.maxx,
                layer.miny,
                layer.maxy,
                layer.hmin,
                layer.hmax
            ]
            .map(i64::from),
            [
                "width", "height", "minx", "maxx", "miny", "maxy", "hmin", "hmax"
            ]
            .map(int),
            "{at}: size, data rectangle, height range"
        );
        assert_eq!(
            layer.bmin.to_vec(),
            common::as_f32s(&theirs["bmin"]),
            "{at}: bmin"
        );
        assert_eq!(
            layer.bmax.to_vec(),
            common::as_f32s(&theirs["bmax"]),
            "{at}: bmax"
        );
        let grid = (layer.width * layer.height) as usize;
        assert_eq!(
            [layer.heights.len(), layer.areas.len(), layer.cons.len()],
            [grid; 3],
            "{at}: grids"
        );
        assert_eq!(
            3 * grid as i64,
            int("uncompressedGridBytes"),
            "{at}: uncompressed size"
        );
    }
}

/// The cells of every layer (heights, areas, connections) equal the ones C++ compressed into
/// RecastDemo's tile-cache file (`detour/tilecache_nav_test.tset`, laid out in
/// `tests/data/reference/detour/TILECACHE_FORMAT.md`), expanded with our FastLZ reader, and our
/// FastLZ compressor gives C++'s bytes back.
#[test]
fn layer_cells_equal_the_cpp_tile_cache_file() {
    let (Some(dir), Some(mesh)) = (common::reference_dir(), common::mesh_path("nav_test")) else {
        return;
    };
    let file = std::fs::read(dir.join("detour/tilecache_nav_test.tset")).unwrap();
    let int = |at: usize| i32::from_le_bytes(file[at..at + 4].try_into().unwrap());
    let input = InputGeom::load(&mesh).unwrap();
    let settings = BuildSettings::default();
    let tile_count = int(8) as usize;
    let mut at = 92;
    for _ in 0..tile_count {
        let size = int(at + 4) as usize;
        let data = &file[at + 8..at + 8 + size];
        at += 8 + size;
        let header =
            |offset: usize| i32::from_le_bytes(data[offset..offset + 4].try_into().unwrap());
        let (x, y, layer) = (header(8), header(12), header(16) as usize);
        let mut ctx = BuildContext::new();
        let set =
            rasterize_tile_layers(&mut ctx, &input, &settings, DEFAULT_TILE_SIZE, x, y).unwrap();
        let ours = &set.layers[layer];
        let grid = (ours.width * ours.height) as usize;
        let cells = navlab::tile_cache::fastlz::decompress(&data[56..], 3 * grid).unwrap();
        let at = format!("layer ({x}, {y}, {layer})");
        assert_eq!(cells.len(), 3 * grid, "{at}: expanded size");
        assert_eq!(ours.heights, cells[..grid], "{at}: heights");
        assert_eq!(ours.areas, cells[grid..2 * grid], "{at}: areas");
        assert_eq!(ours.cons, cells[2 * grid..], "{at}: connections");
        let packed = navlab::tile_cache::fastlz::compress(&cells);
        assert!(packed == data[56..], "{at}: FastLZ bytes differ from C++'s");
        let stored =
            navlab::bake::temp_obstacles::compressed_layer(x, y, layer as i32, ours).unwrap();
        assert!(stored == data, "{at}: the stored layer differs from C++'s");
    }
    assert_eq!(at, file.len(), "every record read");
}

/// C++'s tile-cache file reads, every layer checked, and writes back byte for byte.
#[test]
fn the_cpp_tile_cache_file_reads_and_writes_back_byte_for_byte() {
    let Some(dir) = common::reference_dir() else {
        return;
    };
    use navlab::tile_cache::file::TileCacheSet;
    let bytes = std::fs::read(dir.join("detour/tilecache_nav_test.tset")).unwrap();
    let set = TileCacheSet::from_bytes(&bytes).unwrap();
    assert_eq!(set.layers.len(), 60);
    assert_eq!(
        (set.cache_params.width, set.cache_params.max_obstacles),
        (48, 128)
    );
    assert!(set.to_bytes() == bytes, "written back differently");
    // Cut anywhere, the file misses records its header counts.
    for cut in (0..bytes.len()).step_by(97) {
        assert!(
            TileCacheSet::from_bytes(&bytes[..cut]).is_err(),
            "cut at {cut}"
        );
    }
}

/// The tile cache built as Sample_TempObstacles builds it hands out C++'s references, and saved
/// as RecastDemo saves it, it is C++'s tile-cache file byte for byte.
#[test]
fn the_tile_cache_saves_as_cpps_file() {
    let (Some(dir), Some(mesh)) = (common::reference_dir(), common::mesh_path("nav_test")) else {
        return;
    };
    use navlab::bake::temp_obstacles::build_tile_cache;
    use navlab::tile_cache::file::TileCacheSet;
    let input = InputGeom::load(&mesh).unwrap();
    let (cache, nav_mesh_params) =
        build_tile_cache(&input, &BuildSettings::default(), DEFAULT_TILE_SIZE, None).unwrap();
    let text = std::fs::read_to_string(dir.join("detour/tilecache_nav_test.json")).unwrap();
    let reference: serde_json::Value = serde_json::from_str(&text).unwrap();
    for layer in reference["layers"].as_array().unwrap() {
        let at = |k: &str| layer[k].as_i64().unwrap() as i32;
        assert_eq!(
            cache
                .layer_at(at("tx"), at("ty"), at("tlayer"))
                .map(i64::from),
            layer["compressedTileRef"].as_i64(),
            "{layer}"
        );
    }
    let set = TileCacheSet {
        nav_mesh_params,
        cache_params: *cache.params(),
        layers: cache.stored_layers(),
        off_mesh_links: Vec::new(),
    };
    let file = std::fs::read(dir.join("detour/tilecache_nav_test.tset")).unwrap();
    assert!(set.to_bytes() == file, "our TSET differs from C++'s");
}
