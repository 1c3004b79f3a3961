//! RecastDemo's Temp Obstacles sample (`Sample_TempObstacles`), so far its first half: each tile
//! rasterized with a border as in Tile Mesh and cut into heightfield layers
//! (`rasterizeTileLayers`), what DetourTileCache stores and rebuilds around obstacles.

use crate::bake::nothing_walkable::WalkableCounts;
use crate::bake::settings::BuildSettings;
use crate::bake::tiled::{grid_cell_bounds, rasterize_tile, tile_config};
use crate::error::Result;
use crate::input::input_geom::InputGeom;
use crate::recast::config::calc_grid_size;
use crate::recast::context::BuildContext;
use crate::recast::layers::{HeightfieldLayerSet, build_heightfield_layers};

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
