//! RecastDemo's Temp Obstacles sample (`Sample_TempObstacles`): each tile rasterized with a
//! border as in Tile Mesh, cut into heightfield layers and each layer stored compressed
//! (`rasterizeTileLayers`), what DetourTileCache keeps and rebuilds around obstacles, the mesh
//! process those rebuilds apply (`MeshProcess`), and [`TempObstaclesBuild`], the whole sample
//! as the viewer drives it: the cache, its navmesh and the obstacles the Create Temp Obstacles
//! tool adds. The command line's obstacle session is built on [`build_tile_cache_and_nav_mesh`].

use crate::bake::detour_input::off_mesh_connections;
use crate::bake::nothing_walkable::WalkableCounts;
use crate::bake::progress::{BuildProgress, TilePhase};
use crate::bake::sample_areas::{apply_area_flags, sample_area_flags};
use crate::bake::settings::BuildSettings;
use crate::bake::tiled::{grid_cell_bounds, rasterize_tile, tile_config};
use crate::detour::NavMesh;
use crate::detour::NavMeshParams;
use crate::detour::RefWidth;
use crate::detour::common::{ilog2, next_pow2};
use crate::detour::nav_mesh::{MAX_TILE_BITS, REF64_BITS};
use crate::error::{NavlabError, Result};
use crate::input::input_geom::InputGeom;
use crate::recast::config::calc_grid_size;
use crate::recast::context::BuildContext;
use crate::recast::layers::{HeightfieldLayer, HeightfieldLayerSet, build_heightfield_layers};
use crate::tile_cache::builder::{BuildError, LayerTileBuilder, ObstacleShape, ScratchAllocator};
use crate::tile_cache::cache::{TileCache, TileCacheError};
use crate::tile_cache::file::TileCacheParams;
use crate::tile_cache::layer::{
    LAYER_HEADER_SIZE, LayerError, LayerHeader, build_compressed_layer,
};
use crate::tile_cache::obstacles::{ObstacleError, ObstacleRef, ObstacleState, Obstacles};

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
    rasterize_tile_layers_in(ctx, input, bounds, settings, tile_size, x, y)
}

/// [`rasterize_tile_layers`] in the navmesh `bounds` of `input`, which a loop over every tile
/// computes once (they take a pass over every vertex).
fn rasterize_tile_layers_in(
    ctx: &mut BuildContext,
    input: &InputGeom,
    bounds: ([f32; 3], [f32; 3]),
    settings: &BuildSettings,
    tile_size: i32,
    x: i32,
    y: i32,
) -> Result<HeightfieldLayerSet> {
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
        Some(chf) => Ok(build_heightfield_layers(
            ctx,
            &chf,
            cfg.border_size,
            cfg.walkable_height,
        )?),
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
/// tiles taking at most 14 (with 64-bit references the navmesh gets a slot per layer slot).
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
    let slot_bits = ilog2(next_pow2(slots.max(0) as u32));
    let tile_bits = slot_bits.min(MAX_TILE_BITS);
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
        // With 64-bit references every layer gets a slot, as `NavMeshParams::for_tile_grid`.
        max_tiles: match settings.ref_width() {
            RefWidth::Bits32 => 1 << tile_bits,
            RefWidth::Bits64 => 1 << slot_bits.min(REF64_BITS.1),
        },
        max_polys: 1 << (22 - tile_bits),
        ref_width: settings.ref_width(),
    };
    Ok((cache, nav_mesh))
}

/// The tile cache of `input`: every tile's layers stored in RecastDemo's order (rows of tiles,
/// layers in order), as `Sample_TempObstacles::build` fills it before building any navmesh tile.
pub fn build_tile_cache(
    input: &InputGeom,
    settings: &BuildSettings,
    tile_size: i32,
    progress: Option<&BuildProgress>,
) -> Result<(TileCache, NavMeshParams)> {
    let (params, nav_mesh) = cache_params(input, settings, tile_size)?;
    let (tiles_x, tiles_y) = tile_grid(input, settings, tile_size)?;
    let cache_error = |e: TileCacheError| NavlabError::Stage {
        stage: "tile cache",
        message: e.to_string(),
    };
    let mut cache = TileCache::new(params).map_err(cache_error)?;
    cache.set_off_mesh_links(off_mesh_connections(&input.geom_set));
    let bounds = input.nav_mesh_bounds()?;
    let total = (tiles_x.max(0) * tiles_y.max(0)) as usize;
    if let Some(progress) = progress {
        progress.start_tile_phase(TilePhase::CacheLayers, total);
    }
    for y in 0..tiles_y {
        for x in 0..tiles_x {
            if let Some(progress) = progress {
                progress.tiles((y * tiles_x + x) as usize, total);
            }
            for data in compressed_tile_layers(input, bounds, settings, tile_size, x, y)? {
                cache.add_layer(data).map_err(cache_error)?;
            }
        }
    }
    Ok((cache, nav_mesh))
}

/// The stored (compressed) layers of tile (`x`, `y`) of `input` over the navmesh `bounds`, in
/// layer order, as `Sample_TempObstacles` adds them to the cache.
pub(crate) fn compressed_tile_layers(
    input: &InputGeom,
    bounds: ([f32; 3], [f32; 3]),
    settings: &BuildSettings,
    tile_size: i32,
    x: i32,
    y: i32,
) -> Result<Vec<Vec<u8>>> {
    let mut ctx = BuildContext::silent();
    let set = rasterize_tile_layers_in(&mut ctx, input, bounds, settings, tile_size, x, y)?;
    set.layers
        .iter()
        .enumerate()
        .map(|(i, layer)| {
            compressed_layer(x, y, i as i32, layer).map_err(|e| NavlabError::Stage {
                stage: "tile cache",
                message: TileCacheError::BadLayer(e).to_string(),
            })
        })
        .collect()
}

/// The sample's `MeshProcess` for [`crate::tile_cache::builder::build_nav_mesh_tile`]: the
/// walkable area becomes ground and every polygon gets RecastDemo's flags for its area. The
/// sample's other half, passing the geometry's off-mesh links, is the cache's
/// [`TileCache::off_mesh_links`], which [`build_tile_cache`] fills.
pub fn sample_mesh_process(areas: &mut [u8], flags: &mut [u16]) {
    apply_area_flags(areas, flags, sample_area_flags);
}

/// The bytes a decompressed layer of `width` x `height` cells takes (`calcLayerBufferSize`):
/// the header rounded up to 4 bytes and four bytes per cell.
pub fn raw_layer_size(width: i32, height: i32) -> usize {
    LAYER_HEADER_SIZE.next_multiple_of(4) + (width.max(0) as usize) * (height.max(0) as usize) * 4
}

/// The sample's read-outs of a build (its Tile Cache panel).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TileCacheStats {
    /// Stored layers.
    pub layers: usize,
    /// Compressed bytes stored, and what the layers take decompressed.
    pub compressed_bytes: usize,
    /// Bytes the layers take decompressed.
    pub raw_bytes: usize,
    /// Milliseconds to build every navmesh tile from the stored layers.
    pub nav_mesh_build_ms: f64,
    /// The most of the demo's 32000-byte scratch allocator a tile build used ("Build Peak Mem
    /// Usage"), and how many layer builds did not fit it (C++ then builds no tile).
    pub peak_scratch_bytes: usize,
    /// Layer builds that did not fit the scratch allocator.
    pub failed_builds: usize,
}

/// RecastDemo's height offset of a clicked obstacle: the cylinder starts half a metre below
/// the click (`addTempObstacle`).
pub const CLICK_OBSTACLE_DROP: f32 = 0.5;
/// The clicked obstacle's radius and height.
pub const CLICK_OBSTACLE_RADIUS: f32 = 1.0;
/// The clicked obstacle's height, world units.
pub const CLICK_OBSTACLE_HEIGHT: f32 = 2.0;

/// The Temp Obstacles sample built: every tile's layers in the cache, every layer's navmesh
/// tile, and the obstacles, whose changes [`TempObstaclesBuild::update`] carves in one layer
/// per call.
#[derive(Clone, Debug)]
pub struct TempObstaclesBuild {
    /// The settings it was built with.
    pub settings: BuildSettings,
    /// Tile edge in cells.
    pub tile_size: i32,
    /// Tiles along x.
    pub tiles_x: i32,
    /// Tiles along z.
    pub tiles_y: i32,
    /// The stored layers.
    pub cache: TileCache,
    /// The obstacles and their pending requests.
    pub obstacles: Obstacles,
    /// The navmesh built from the layers.
    pub nav_mesh: NavMesh,
    /// The navmesh's parameters.
    pub nav_mesh_params: NavMeshParams,
    /// Read-outs for the sample's panel.
    pub stats: TileCacheStats,
}

impl TempObstaclesBuild {
    /// Builds the cache of `input` and the navmesh of every stored layer, as
    /// `Sample_TempObstacles::build` does (tile rows in order, `buildNavMeshTilesAt`), through
    /// the demo's scratch allocator, so tiles too big for it are missing as in RecastDemo.
    pub fn new(input: &InputGeom, settings: &BuildSettings, tile_size: i32) -> Result<Self> {
        Self::new_reporting(input, settings, tile_size, None)
    }

    /// [`TempObstaclesBuild::new`], counting the tiles of both passes into `progress`.
    pub fn new_reporting(
        input: &InputGeom,
        settings: &BuildSettings,
        tile_size: i32,
        progress: Option<&BuildProgress>,
    ) -> Result<Self> {
        let mut scratch = ScratchAllocator::new(ScratchAllocator::DEMO_CAPACITY);
        let started = std::time::Instant::now();
        let mut builder = LayerTileBuilder::new();
        let (cache, nav_mesh_params, nav_mesh, _) = build_tile_cache_and_nav_mesh(
            input,
            settings,
            tile_size,
            &mut scratch,
            &mut builder,
            progress,
        )?;
        let nav_mesh_build_ms = started.elapsed().as_secs_f64() * 1000.0;
        let (tiles_x, tiles_y) = tile_grid(input, settings, tile_size)?;
        let raw = raw_layer_size(tile_size, tile_size);
        let (layers, compressed_bytes) = cache.layers().fold((0, 0), |(n, bytes), (_, _, data)| {
            (n + 1, bytes + data.len())
        });
        let stats = TileCacheStats {
            layers,
            compressed_bytes,
            raw_bytes: layers * raw,
            nav_mesh_build_ms,
            peak_scratch_bytes: scratch.high(),
            failed_builds: scratch.failed(),
        };
        let mut obstacles =
            Obstacles::new(cache.params().max_obstacles).map_err(|e| NavlabError::Stage {
                stage: "tile cache obstacles",
                message: e.to_string(),
            })?;
        obstacles.set_scratch(Some(scratch));
        obstacles.set_builder(builder);
        Ok(Self {
            settings: settings.clone(),
            tile_size,
            tiles_x,
            tiles_y,
            cache,
            obstacles,
            nav_mesh,
            nav_mesh_params,
            stats,
        })
    }

    /// The obstacle a click at `point` adds (`addTempObstacle`).
    pub fn click_obstacle(point: [f32; 3]) -> ObstacleShape {
        ObstacleShape::Cylinder {
            pos: [point[0], point[1] - CLICK_OBSTACLE_DROP, point[2]],
            radius: CLICK_OBSTACLE_RADIUS,
            height: CLICK_OBSTACLE_HEIGHT,
        }
    }

    /// Queues an obstacle; its layers are rebuilt by the next updates.
    pub fn add_obstacle(
        &mut self,
        shape: ObstacleShape,
    ) -> std::result::Result<ObstacleRef, ObstacleError> {
        self.obstacles.add(shape)
    }

    /// The live obstacle whose bounds the click's ray from `start` through `end` enters first
    /// (RecastDemo's `hitTestObstacle`: the camera and the point the click hit, so a click on
    /// an obstacle's side picks it though the ray meets the ground behind it).
    pub fn obstacle_hit_by(&self, start: [f32; 3], end: [f32; 3]) -> Option<ObstacleRef> {
        self.obstacles
            .live()
            .filter_map(|o| {
                let (bmin, bmax) = o.shape.bounds();
                crate::math::ray_box_entry(&start, &end, &bmin, &bmax).map(|t| (o.reference, t))
            })
            // The first of equally near ones, as C++ keeps only a strictly nearer one.
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(r, _)| r)
    }

    /// Queues the removal of every live obstacle (`clearAllTempObstacles`). When the request
    /// queue fills, an update moves the waiting requests on first, so none is left out.
    pub fn remove_all_obstacles(&mut self) -> std::result::Result<usize, ObstacleError> {
        let refs: Vec<ObstacleRef> = self
            .obstacles
            .live()
            .filter(|o| o.state != ObstacleState::Removing)
            .map(|o| o.reference)
            .collect();
        for &r in &refs {
            // Each update rebuilds a layer; once none waits, the queued requests are taken.
            while let Err(ObstacleError::RequestQueueFull) = self.obstacles.remove(r) {
                self.update()?;
            }
        }
        Ok(refs.len())
    }

    /// One `dtTileCache::update`: at most one layer rebuilt. Returns whether the navmesh may
    /// have changed. A layer too big for the demo's scratch allocator keeps its old tile, as
    /// in C++ (a failed status there, not an error).
    pub fn update(&mut self) -> std::result::Result<bool, ObstacleError> {
        if self.obstacles.up_to_date() {
            return Ok(false);
        }
        match self
            .obstacles
            .update(&self.cache, &mut self.nav_mesh, sample_mesh_process)
        {
            Ok(_) => Ok(true),
            Err(e) if e.is_out_of_scratch() => Ok(true),
            Err(e) => Err(e),
        }
    }
}

/// A tile column whose `buildNavMeshTilesAt` failed because a layer's build did not fit the
/// demo's scratch allocator (`DT_FAILURE | DT_OUT_OF_MEMORY` in C++).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LostTileColumn {
    /// Tile column x.
    pub x: i32,
    /// Tile column y.
    pub y: i32,
    /// The column's layers that got no tile: the failed one and those after it.
    pub layers_left_out: usize,
}

/// The navmesh tile of every stored layer, tile by tile in rows (`buildNavMeshTilesAt` for
/// every tile), into a new navmesh, through `builder`; the links are the cache's. With
/// `scratch`, a layer that does not fit it fails as in C++, which skips the rest of its tile
/// column; those columns are returned.
pub fn build_initial_nav_mesh(
    cache: &TileCache,
    nav_params: NavMeshParams,
    grid: (i32, i32),
    scratch: Option<&mut ScratchAllocator>,
    builder: &mut LayerTileBuilder,
    progress: Option<&BuildProgress>,
) -> Result<(NavMesh, Vec<LostTileColumn>)> {
    let nav_mesh = NavMesh::new(nav_params)?;
    fill_initial_nav_mesh(nav_mesh, cache, grid, scratch, builder, progress)
}

/// [`build_initial_nav_mesh`] into `nav_mesh` (empty, made with the cache's parameters).
fn fill_initial_nav_mesh(
    mut nav_mesh: NavMesh,
    cache: &TileCache,
    (tiles_x, tiles_y): (i32, i32),
    mut scratch: Option<&mut ScratchAllocator>,
    builder: &mut LayerTileBuilder,
    progress: Option<&BuildProgress>,
) -> Result<(NavMesh, Vec<LostTileColumn>)> {
    let mut failed = Vec::new();
    let total = (tiles_x.max(0) * tiles_y.max(0)) as usize;
    if let Some(progress) = progress {
        progress.start_tile_phase(TilePhase::NavMeshTiles, total);
    }
    for y in 0..tiles_y {
        for x in 0..tiles_x {
            if let Some(progress) = progress {
                progress.tiles((y * tiles_x + x) as usize, total);
            }
            let column = cache.layers_at(x, y);
            for (k, &r) in column.iter().enumerate() {
                let Some((_, data)) = cache.layer(r) else {
                    continue;
                };
                let tile = match builder.build(
                    data,
                    cache.params(),
                    &[],
                    cache.off_mesh_links(),
                    sample_mesh_process,
                    scratch.as_deref_mut(),
                ) {
                    Ok(tile) => tile,
                    Err(BuildError::OutOfScratch { .. }) => {
                        failed.push(LostTileColumn {
                            x,
                            y,
                            layers_left_out: column.len() - k,
                        });
                        break;
                    }
                    Err(e) => {
                        return Err(NavlabError::Stage {
                            stage: "tile cache",
                            message: format!("layer {r:#x}: {e}"),
                        });
                    }
                };
                if let Some(tile) = tile {
                    nav_mesh.add_tile(tile.clone(), 0)?;
                }
            }
        }
    }
    Ok((nav_mesh, failed))
}

/// The whole tile-cache build, `Sample_TempObstacles::build`: every tile's layers stored, then
/// every layer's navmesh tile built through `scratch` and `builder` (keep it for the obstacle
/// updates, see [`Obstacles::set_builder`]). One function so that callgrind can count it alone
/// (`--toggle-collect='*build_tile_cache_and_nav_mesh*'`).
#[inline(never)]
pub fn build_tile_cache_and_nav_mesh(
    input: &InputGeom,
    settings: &BuildSettings,
    tile_size: i32,
    scratch: &mut ScratchAllocator,
    builder: &mut LayerTileBuilder,
    progress: Option<&BuildProgress>,
) -> Result<(TileCache, NavMeshParams, NavMesh, Vec<LostTileColumn>)> {
    let grid = tile_grid(input, settings, tile_size)?;
    let (cache, nav_params) = build_tile_cache(input, settings, tile_size, progress)?;
    let nav_mesh = crate::bake::tiled::tiled_nav_mesh(nav_params, settings)?;
    let (nav_mesh, non_success) =
        fill_initial_nav_mesh(nav_mesh, &cache, grid, Some(scratch), builder, progress)?;
    Ok((cache, nav_params, nav_mesh, non_success))
}
