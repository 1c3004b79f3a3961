//! Tiled builds (RecastDemo's Sample_TileMesh): the navmesh area cut into square tiles, each
//! built through the whole pipeline with a border of extra cells so tiles join seamlessly, the
//! tiles built in parallel and added to one Detour navmesh in the order RecastDemo adds them.

use rayon::prelude::*;

use crate::bake::nothing_walkable::{WalkableCounts, nothing_walkable, spans_in_regions};
use crate::bake::sample_areas::{apply_area_flags, sample_area_flags};
use crate::bake::settings::BuildSettings;
use crate::detour::nav_mesh::MAX_TILE_BITS;
use crate::detour::{MeshTile, NavMesh, NavMeshParams, VERTS_PER_POLYGON, create_nav_mesh_data};
use crate::error::{NavlabError, Result};
use crate::input::input_geom::InputGeom;
use crate::recast::compact::build_compact_heightfield;
use crate::recast::config::{Config, calc_grid_size};
use crate::recast::context::{BuildContext, TimerLabel};
use crate::recast::contour::{ContourBuildFlags, build_contours};
use crate::recast::detail_mesh::{PolyMeshDetail, build_poly_mesh_detail};
use crate::recast::heightfield::Heightfield;
use crate::recast::poly_mesh::{PolyMesh, build_poly_mesh};
use crate::recast::region::PartitionType;
use crate::{
    recast::area, recast::distance_field, recast::filter, recast::rasterize, recast::region,
};

/// The largest tile edge in cells.
pub const MAX_TILE_SIZE: i32 = 4096;

/// Why a tile has no navmesh data, in the reference dumps' words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EmptyTile {
    /// No input triangle overlaps the tile (`null:no_overlapping_chunks`).
    NoOverlappingChunks,
    /// Nothing walkable survived to the contour stage (`null:no_contours`).
    NoContours,
    /// The poly mesh was empty or too large for Detour (`Could not build Detour navmesh.`).
    NoDetourData,
}

/// The result of one tile: its meshes (kept for drawing) and its Detour data.
#[derive(Clone, Debug)]
pub struct TileOutput {
    pub poly_mesh: PolyMesh,
    pub detail_mesh: PolyMeshDetail,
    /// The tile's Detour data before it was added to the navmesh.
    pub data: Option<MeshTile>,
}

/// One tile of the grid.
#[derive(Clone, Debug)]
pub struct Tile {
    pub x: i32,
    pub y: i32,
    /// Input triangles the tile rasterized (from the overlapping chunks).
    pub triangle_count: usize,
    /// What was left walkable after each stage of the tile.
    pub walkable: WalkableCounts,
    pub output: std::result::Result<TileOutput, EmptyTile>,
    /// Log lines and Recast timers of this tile's build.
    pub context: BuildContext,
}

/// A whole tiled build.
#[derive(Clone, Debug)]
pub struct TiledBuild {
    pub settings: BuildSettings,
    /// Tile edge in cells.
    pub tile_size: i32,
    pub tiles_x: i32,
    pub tiles_y: i32,
    /// Every tile, row by row (y outer, x inner), as RecastDemo visits them.
    pub tiles: Vec<Tile>,
    pub nav_mesh: NavMesh,
}

impl TiledBuild {
    /// Builds every tile of `input` with `tile_size`-cell tiles.
    pub fn new(input: &InputGeom, settings: BuildSettings, tile_size: i32) -> Result<Self> {
        if !(1..=MAX_TILE_SIZE).contains(&tile_size) {
            return Err(NavlabError::InvalidSetting {
                name: "tileSize",
                value: tile_size.to_string(),
                reason: "must be between 1 and 4096 cells".into(),
            });
        }
        let (bmin, bmax) = input.nav_mesh_bounds()?;
        // Validates the settings and the grid size over the whole area.
        settings.to_config(bmin, bmax)?;
        let (grid_width, grid_height) = calc_grid_size(&bmin, &bmax, settings.cell_size);
        check_tile_count(grid_width, grid_height, tile_size)?;
        let tiles_x = (grid_width + tile_size - 1) / tile_size;
        let tiles_y = (grid_height + tile_size - 1) / tile_size;
        let tile_world = tile_size as f32 * settings.cell_size;

        let coords: Vec<(i32, i32)> = (0..tiles_y)
            .flat_map(|y| (0..tiles_x).map(move |x| (x, y)))
            .collect();
        let tiles = coords
            .into_par_iter()
            .map(|(x, y)| {
                let tile_bmin = [
                    bmin[0] + x as f32 * tile_world,
                    bmin[1],
                    bmin[2] + y as f32 * tile_world,
                ];
                let tile_bmax = [
                    bmin[0] + (x + 1) as f32 * tile_world,
                    bmax[1],
                    bmin[2] + (y + 1) as f32 * tile_world,
                ];
                build_tile(input, &settings, tile_size, x, y, tile_bmin, tile_bmax)
            })
            .collect::<Result<Vec<Tile>>>()?;

        let mut walkable = WalkableCounts::default();
        for tile in &tiles {
            walkable.add(&tile.walkable);
        }
        if walkable.polygons == 0 {
            return Err(nothing_walkable(
                &input.mesh,
                bmin,
                bmax,
                &settings,
                &walkable,
            ));
        }

        let params =
            NavMeshParams::for_tile_grid(bmin, tile_size, settings.cell_size, tiles_x, tiles_y);
        let mut nav_mesh = NavMesh::new(params)?;
        for tile in &tiles {
            if let Ok(TileOutput {
                data: Some(data), ..
            }) = &tile.output
            {
                nav_mesh.add_tile(data.clone(), 0)?;
            }
        }
        Ok(Self {
            settings,
            tile_size,
            tiles_x,
            tiles_y,
            tiles,
            nav_mesh,
        })
    }
}

/// Refuses a grid of more tiles than a Detour navmesh can number (RecastDemo's tile bits are
/// capped at [`MAX_TILE_BITS`]), before anything is built, naming the smallest tile size that
/// fits.
fn check_tile_count(grid_width: i32, grid_height: i32, tile_size: i32) -> Result<()> {
    let max_tiles = 1i64 << MAX_TILE_BITS;
    let tiles_along =
        |cells: i32, size: i32| (i64::from(cells) + i64::from(size) - 1) / i64::from(size);
    let tile_count = |size: i32| tiles_along(grid_width, size) * tiles_along(grid_height, size);
    if tile_count(tile_size) <= max_tiles {
        return Ok(());
    }
    // The count only falls as tiles grow: bisect for the first size that fits.
    let (mut too_small, mut fits) = (tile_size, MAX_TILE_SIZE + 1);
    while fits - too_small > 1 {
        let mid = too_small + (fits - too_small) / 2;
        if tile_count(mid) <= max_tiles {
            fits = mid;
        } else {
            too_small = mid;
        }
    }
    Err(NavlabError::TooManyTiles {
        tiles_x: tiles_along(grid_width, tile_size),
        tiles_y: tiles_along(grid_height, tile_size),
        max_tiles,
        min_tile_size: (fits <= MAX_TILE_SIZE).then_some(fits),
    })
}

/// Sample_TileMesh's per-tile config: the common derivation plus the tile's grid with a border
/// of `walkableRadius + 3` cells on every side.
fn tile_config(
    settings: &BuildSettings,
    tile_size: i32,
    bmin: [f32; 3],
    bmax: [f32; 3],
) -> Result<Config> {
    let mut cfg = settings.to_config(bmin, bmax)?;
    cfg.tile_size = tile_size;
    cfg.border_size = cfg.walkable_radius + 3;
    cfg.width = tile_size + cfg.border_size * 2;
    cfg.height = cfg.width;
    let border = cfg.border_size as f32 * cfg.cs;
    cfg.bmin[0] -= border;
    cfg.bmin[2] -= border;
    cfg.bmax[0] += border;
    cfg.bmax[2] += border;
    Ok(cfg)
}

/// Sample_TileMesh::buildTileMesh for tile (`x`, `y`).
fn build_tile(
    input: &InputGeom,
    settings: &BuildSettings,
    tile_size: i32,
    x: i32,
    y: i32,
    bmin: [f32; 3],
    bmax: [f32; 3],
) -> Result<Tile> {
    let mut ctx = BuildContext::new();
    let cfg = tile_config(settings, tile_size, bmin, bmax)?;
    let mut tile = Tile {
        x,
        y,
        triangle_count: 0,
        walkable: WalkableCounts::default(),
        output: Err(EmptyTile::NoOverlappingChunks),
        context: BuildContext::new(),
    };
    ctx.start_timer(TimerLabel::Total);
    let output = run_tile_pipeline(&mut ctx, input, settings, &cfg, &mut tile);
    ctx.stop_timer(TimerLabel::Total);
    tile.output = output?;
    tile.context = ctx;
    Ok(tile)
}

/// Runs the pipeline for `tile`, counting its triangles and walkable geometry into it.
fn run_tile_pipeline(
    ctx: &mut BuildContext,
    input: &InputGeom,
    settings: &BuildSettings,
    cfg: &Config,
    tile: &mut Tile,
) -> Result<std::result::Result<TileOutput, EmptyTile>> {
    let walkable = &mut tile.walkable;
    let mesh = &input.mesh;
    let partitioned = &input.partitioned;
    // An empty tile allocates nothing.
    let mut chunks = partitioned
        .chunks_overlapping_rect([cfg.bmin[0], cfg.bmin[2]], [cfg.bmax[0], cfg.bmax[2]])
        .peekable();
    if chunks.peek().is_none() {
        return Ok(Err(EmptyTile::NoOverlappingChunks));
    }
    let mut hf = Heightfield::try_new(cfg.width, cfg.height, cfg.bmin, cfg.bmax, cfg.cs, cfg.ch)?;
    let mut areas = Vec::with_capacity(partitioned.max_tris_per_chunk());
    for node in chunks {
        let tris = partitioned.chunk_tris(node);
        tile.triangle_count += tris.len() / 3;
        areas.clear();
        areas.resize(tris.len() / 3, crate::recast::NULL_AREA);
        rasterize::mark_walkable_triangles(
            ctx,
            cfg.walkable_slope_angle,
            &mesh.verts,
            tris,
            &mut areas,
        )?;
        rasterize::rasterize_triangles(
            ctx,
            &mesh.verts,
            tris,
            &areas,
            &mut hf,
            cfg.walkable_climb,
        )?;
    }
    walkable.rasterized = hf.span_counts().1;
    if settings.filter_low_hanging_obstacles {
        filter::filter_low_hanging_walkable_obstacles(ctx, cfg.walkable_climb, &mut hf);
    }
    if settings.filter_ledge_spans {
        filter::filter_ledge_spans(ctx, cfg.walkable_height, cfg.walkable_climb, &mut hf);
    }
    if settings.filter_walkable_low_height_spans {
        filter::filter_walkable_low_height_spans(ctx, cfg.walkable_height, &mut hf);
    }
    let mut chf = build_compact_heightfield(ctx, cfg.walkable_height, cfg.walkable_climb, &hf)?;
    drop(hf);
    walkable.filtered = chf.span_count();
    area::erode_walkable_area(ctx, cfg.walkable_radius, &mut chf)?;
    for volume in &input.geom_set.convex_volumes {
        let verts: Vec<f32> = volume.verts.iter().flatten().copied().collect();
        area::mark_convex_poly_area(ctx, &verts, volume.hmin, volume.hmax, volume.area, &mut chf);
    }
    walkable.eroded = chf.walkable_span_count();
    match settings.partition_type {
        PartitionType::Watershed => {
            distance_field::build_distance_field(ctx, &mut chf)?;
            region::build_regions(
                ctx,
                &mut chf,
                cfg.border_size,
                cfg.min_region_area,
                cfg.merge_region_area,
            )?;
        }
        PartitionType::Monotone => region::build_regions_monotone(
            ctx,
            &mut chf,
            cfg.border_size,
            cfg.min_region_area,
            cfg.merge_region_area,
        )?,
        PartitionType::Layers => {
            region::build_layer_regions(ctx, &mut chf, cfg.border_size, cfg.min_region_area)?
        }
    }
    walkable.in_regions = spans_in_regions(&chf);
    let contours = build_contours(
        ctx,
        &chf,
        cfg.max_simplification_error,
        cfg.max_edge_len,
        ContourBuildFlags::default(),
    )?;
    if contours.contours.is_empty() {
        return Ok(Err(EmptyTile::NoContours));
    }
    let mut poly_mesh = build_poly_mesh(ctx, &contours, cfg.max_verts_per_poly as usize)?;
    if settings.remove_degenerate_polygons {
        crate::bake::solo::remove_degenerate_polygons(ctx, &mut poly_mesh);
    }
    walkable.polygons = poly_mesh.npolys;
    let detail_mesh = build_poly_mesh_detail(
        ctx,
        &poly_mesh,
        &chf,
        cfg.detail_sample_dist,
        cfg.detail_sample_max_error,
    )?;
    let mut data = None;
    if poly_mesh.nvp <= VERTS_PER_POLYGON {
        if poly_mesh.nverts >= 0xffff {
            ctx.error(format!(
                "Too many vertices per tile {} (max: {}).",
                poly_mesh.nverts, 0xffff
            ));
            return Ok(Err(EmptyTile::NoDetourData));
        }
        apply_area_flags(
            &mut poly_mesh.areas,
            &mut poly_mesh.flags,
            sample_area_flags,
        );
        let off_mesh = crate::bake::detour_input::off_mesh_connections(&input.geom_set);
        let mut params = crate::bake::detour_input::nav_mesh_create_params(
            &poly_mesh,
            &detail_mesh,
            &off_mesh,
            settings.agent_height,
            settings.agent_radius,
            settings.agent_max_climb,
        )?;
        params.tile_x = tile.x;
        params.tile_y = tile.y;
        if poly_mesh.npolys == 0 || poly_mesh.nverts == 0 {
            ctx.error("Could not build Detour navmesh.");
            return Ok(Err(EmptyTile::NoDetourData));
        }
        data = Some(create_nav_mesh_data(&params)?);
    }
    ctx.progress(format!(
        ">> Polymesh: {} vertices  {} polygons",
        poly_mesh.nverts, poly_mesh.npolys
    ));
    Ok(Ok(TileOutput {
        poly_mesh,
        detail_mesh,
        data,
    }))
}
