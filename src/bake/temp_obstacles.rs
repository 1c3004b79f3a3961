//! RecastDemo's Temp Obstacles sample (`Sample_TempObstacles`): each tile rasterized with a
//! border as in Tile Mesh, cut into heightfield layers and each layer stored compressed
//! (`rasterizeTileLayers`), what DetourTileCache keeps and rebuilds around obstacles, and the
//! mesh process those rebuilds apply (`MeshProcess`). The session with obstacles is
//! [`crate::bake::tile_cache_run`].

use crate::bake::detour_input::off_mesh_connections;
use crate::bake::nothing_walkable::WalkableCounts;
use crate::bake::sample_areas::{apply_area_flags, sample_area_flags};
use crate::bake::settings::BuildSettings;
use crate::bake::tiled::{grid_cell_bounds, rasterize_tile, tile_config};
use crate::detour::NavMeshParams;
use crate::detour::common::{ilog2, next_pow2};
use crate::error::{NavlabError, Result};
use crate::input::input_geom::InputGeom;
use crate::recast::config::calc_grid_size;
use crate::recast::context::BuildContext;
use crate::recast::layers::{HeightfieldLayer, HeightfieldLayerSet, build_heightfield_layers};
use crate::tile_cache::cache::{TileCache, TileCacheError};
use crate::tile_cache::file::TileCacheParams;
use crate::tile_cache::layer::{LayerError, LayerHeader, build_compressed_layer};

/// RecastDemo's default tile size for Temp Obstacles, in cells.
pub const DEFAULT_TILE_SIZE: i32 = 48;

/// How many tiles of `tile_size` cells the grid over `input` has along x and z.
pub fn tile_grid(
    input: &InputGeom,
    settings: &BuildSettings,
    tile_size: i32,
) -> Result<(i32, i32)> {
    let (bmin, bmax) = input.nav_mesh_bounds()?;
    settings.to_config(bmin, bmax)?;
    let (width, height) = calc_grid_size(&bmin, &bmax, settings.cell_size);
    let tiles = |cells: i32| (cells + tile_size - 1) / tile_size.max(1);
    Ok((tiles(width), tiles(height)))
}

/// The heightfield layers of tile (`x`, `y`) (`rasterizeTileLayers` up to
/// `rcBuildHeightfieldLayers`); empty when no input triangle comes near the tile.
pub fn rasterize_tile_layers(
    ctx: &mut BuildContext,
    input: &InputGeom,
    settings: &BuildSettings,
    tile_size: i32,
    x: i32,
    y: i32,
) -> Result<HeightfieldLayerSet> {
    let bounds = input.nav_mesh_bounds()?;
    let tile_world = tile_size as f32 * settings.cell_size;
    let (bmin, bmax) = grid_cell_bounds(bounds, tile_world, x, y);
    let cfg = tile_config(settings, tile_size, bmin, bmax)?;
    let (mut triangles, mut walkable) = (0, WalkableCounts::default());
    match rasterize_tile(
        ctx,
        input,
        settings,
        &cfg,
        &mut triangles,
        &mut walkable,
        None,
    )? {
        None => Ok(HeightfieldLayerSet::default()),
        Some(chf) => build_heightfield_layers(ctx, &chf, cfg.border_size, cfg.walkable_height),
    }
}

/// The stored (compressed) form of layer `tlayer` of tile (`tx`, `ty`), as `rasterizeTileLayers`
/// hands it to the tile cache. Sizes are bytes there, as in C++: a layer wider than 255 cells is
/// refused.
pub fn compressed_layer(
    tx: i32,
    ty: i32,
    tlayer: i32,
    layer: &HeightfieldLayer,
) -> std::result::Result<Vec<u8>, LayerError> {
    let byte = |v: i32| {
        u8::try_from(v).map_err(|_| LayerError::GridSize {
            found: layer.heights.len(),
            width: layer.width.clamp(0, 255) as u8,
            height: layer.height.clamp(0, 255) as u8,
        })
    };
    let header = LayerHeader {
        tx,
        ty,
        tlayer,
        bmin: layer.bmin,
        bmax: layer.bmax,
        hmin: layer.hmin as u16,
        hmax: layer.hmax as u16,
        width: byte(layer.width)?,
        height: byte(layer.height)?,
        minx: byte(layer.minx)?,
        maxx: byte(layer.maxx)?,
        miny: byte(layer.miny)?,
        maxy: byte(layer.maxy)?,
    };
    build_compressed_layer(&header, &layer.heights, &layer.areas, &layer.cons)
}

/// Layers RecastDemo expects per tile when sizing the tile cache (`EXPECTED_LAYERS_PER_TILE`).
pub const EXPECTED_LAYERS_PER_TILE: i32 = 4;
/// Obstacle slots of RecastDemo's tile cache.
pub const MAX_OBSTACLES: i32 = 128;

/// The tile cache's and the navmesh's parameters as `Sample_TempObstacles::build` sets them: the
/// cache gets four layer slots per tile; the navmesh's tile and polygon bits share Detour's 22,
/// tiles taking at most 14.
pub fn cache_params(
    input: &InputGeom,
    settings: &BuildSettings,
    tile_size: i32,
) -> Result<(TileCacheParams, NavMeshParams)> {
    let (bmin, _) = input.nav_mesh_bounds()?;
    let (tiles_x, tiles_y) = tile_grid(input, settings, tile_size)?;
    let slots = tiles_x
        .saturating_mul(tiles_y)
        .saturating_mul(EXPECTED_LAYERS_PER_TILE);
    let tile_bits = ilog2(next_pow2(slots.max(0) as u32)).min(14);
    let cache = TileCacheParams {
        orig: bmin,
        cs: settings.cell_size,
        ch: settings.cell_height,
        width: tile_size,
        height: tile_size,
        walkable_height: settings.agent_height,
        walkable_radius: settings.agent_radius,
        walkable_climb: settings.agent_max_climb,
        max_simplification_error: settings.edge_max_error,
        max_tiles: slots,
        max_obstacles: MAX_OBSTACLES,
    };
    let tile_world = tile_size as f32 * settings.cell_size;
    let nav_mesh = NavMeshParams {
        orig: bmin,
        tile_width: tile_world,
        tile_height: tile_world,
        max_tiles: 1 << tile_bits,
        max_polys: 1 << (22 - tile_bits),
    };
    Ok((cache, nav_mesh))
}

/// The tile cache of `input`: every tile's layers stored in RecastDemo's order (rows of tiles,
/// layers in order), as `Sample_TempObstacles::build` fills it before building any navmesh tile.
pub fn build_tile_cache(
    input: &InputGeom,
    settings: &BuildSettings,
    tile_size: i32,
) -> Result<(TileCache, NavMeshParams)> {
    let (params, nav_mesh) = cache_params(input, settings, tile_size)?;
    let (tiles_x, tiles_y) = tile_grid(input, settings, tile_size)?;
    let cache_error = |e: TileCacheError| NavlabError::Stage {
        stage: "tile cache",
        message: e.to_string(),
    };
    let mut cache = TileCache::new(params).map_err(cache_error)?;
    cache.set_off_mesh_links(off_mesh_connections(&input.geom_set));
    for y in 0..tiles_y {
        for x in 0..tiles_x {
            let mut ctx = BuildContext::silent();
            let set = rasterize_tile_layers(&mut ctx, input, settings, tile_size, x, y)?;
            for (i, layer) in set.layers.iter().enumerate() {
                let data = compressed_layer(x, y, i as i32, layer)
                    .map_err(|e| cache_error(TileCacheError::BadLayer(e)))?;
                cache.add_layer(data).map_err(cache_error)?;
            }
        }
    }
    Ok((cache, nav_mesh))
}

/// The sample's `MeshProcess` for [`crate::tile_cache::builder::build_nav_mesh_tile`]: the
/// walkable area becomes ground and every polygon gets RecastDemo's flags for its area. The
/// sample's other half, passing the geometry's off-mesh links, is the cache's
/// [`TileCache::off_mesh_links`], which [`build_tile_cache`] fills.
pub fn sample_mesh_process(areas: &mut [u8], flags: &mut [u16]) {
    apply_area_flags(areas, flags, sample_area_flags);
}
