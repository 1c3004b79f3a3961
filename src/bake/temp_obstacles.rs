//! RecastDemo's Temp Obstacles sample (`Sample_TempObstacles`), so far its first half: each tile
//! rasterized with a border as in Tile Mesh, cut into heightfield layers and each layer stored
//! compressed (`rasterizeTileLayers`), what DetourTileCache keeps and rebuilds around obstacles.

use crate::bake::nothing_walkable::WalkableCounts;
use crate::bake::settings::BuildSettings;
use crate::bake::tiled::{grid_cell_bounds, rasterize_tile, tile_config};
use crate::error::Result;
use crate::input::input_geom::InputGeom;
use crate::recast::config::calc_grid_size;
use crate::recast::context::BuildContext;
use crate::recast::layers::{HeightfieldLayer, HeightfieldLayerSet, build_heightfield_layers};
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
