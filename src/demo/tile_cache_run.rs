//! RecastDemo's Temp Obstacles session as one run, what `navlab tilecache` does: the tile cache
//! and its navmesh built as `Sample_TempObstacles::build` does, cylinders added where the Create
//! Temp Obstacles tool puts them for a click, updates until up to date, some of them removed,
//! updates again. The run keeps each phase's navmesh (MSET), the tile-cache file (TSET) and a
//! report in the schema of the C++ reference `detour/tilecache_nav_test.json`.
//!
//! Tiles are built as the demo builds them, through its 32000-byte `LinearAllocator`
//! ([`ScratchAllocator`] models it; [`TileCacheRunOptions::scratch_bytes`] can give it more):
//! a layer whose build does not fit fails with `DT_OUT_OF_MEMORY` as in C++ (initially it gets
//! no tile and the rest of its tile column is skipped, as `buildNavMeshTilesAt` stops there,
//! which `buildNavMeshTilesAt_nonSuccess` lists; in an update it keeps its old tile and the
//! update's status says so). So the allocator figures are C++'s too. Tiles larger than about
//! 72 cells never fit: the demo then has no navmesh at all, and so has this run;
//! [`TileCacheRun::scratch_shortfall`] counts what was lost.
//!
//! The obstacles go in as the tool's clicks would, at most
//! [`MAX_REQUESTS`](navlab::tile_cache::obstacles::MAX_REQUESTS) at a time: C++'s request queue
//! holds no more, so when it is full the run updates until up to date before the next click.
//!
//! `pfLine1Based` is `null` (the reference took its clicks from test-case lines; here they are
//! coordinates). The
//! `dataFnv1a64` fields are FNV-1a 64 of the bytes as the files hold them (a layer's record
//! data, a tile's MSET data), so they check the files; the reference's values are not
//! reproducible from C++'s bytes (neither the record, its payload, the decompressed grids nor
//! any slice of them hash to them, with FNV-1 or FNV-1a, 32 or 64 bits), so they differ.
//! A layer that fails to build for another reason than memory is an error here.

use serde::Serialize;

use navlab::bake::settings::BuildSettings;
use navlab::bake::temp_obstacles::{
    CLICK_OBSTACLE_DROP, CLICK_OBSTACLE_HEIGHT, CLICK_OBSTACLE_RADIUS, EXPECTED_LAYERS_PER_TILE,
    MAX_OBSTACLES, TempObstaclesBuild, build_tile_cache_and_nav_mesh, sample_mesh_process,
    tile_grid,
};
use navlab::detour::NavMesh;
use navlab::error::{NavlabError, Result};
use navlab::input::input_geom::InputGeom;
use navlab::recast::config::{Config, calc_grid_size};
use navlab::tile_cache::builder::{LayerTileBuilder, ObstacleShape, ScratchAllocator};
use navlab::tile_cache::cache::TileCache;
use navlab::tile_cache::file::{TileCacheParams, TileCacheSet};
use navlab::tile_cache::layer::LayerHeader;
use navlab::tile_cache::obstacles::{
    ObstacleError, ObstacleInfo, ObstacleRef, ObstacleState, Obstacles,
};

/// Tile sizes RecastDemo's Temp Obstacles slider offers.
pub const TILE_SIZES: std::ops::RangeInclusive<i32> = 16..=128;
/// Capacities the scratch allocator may be given: 1 KiB to 1 GiB (it is a model; no buffer of
/// that size is allocated, but a tile's build never needs more).
pub const SCRATCH_BYTES: std::ops::RangeInclusive<usize> = 1024..=1 << 30;
/// `DT_SUCCESS`, the status of every step that did not fail.
const SUCCESS: &str = "0x40000000";
/// `DT_FAILURE | DT_OUT_OF_MEMORY`, a build that did not fit the demo's allocator.
const OUT_OF_MEMORY: &str = "0x80000004";
/// `dtTileCacheLayerHeader`'s size, where a stored layer's compressed cells start.
const LAYER_HEADER_BYTES: usize = 56;

/// What to do in the session.
#[derive(Clone, Debug, PartialEq)]
pub struct TileCacheRunOptions {
    /// Cells per tile side, within [`TILE_SIZES`].
    pub tile_size: i32,
    /// Clicked points, each becoming a cylinder in the given order.
    pub obstacles: Vec<[f32; 3]>,
    /// 1-based indices into `obstacles` to remove afterwards, all in one batch.
    pub remove: Vec<usize>,
    /// The scratch allocator's capacity, within [`SCRATCH_BYTES`]
    /// ([`ScratchAllocator::DEMO_CAPACITY`] is the demo's).
    pub scratch_bytes: usize,
}

/// The session's outputs.
#[derive(Clone, Debug)]
pub struct TileCacheRun {
    pub report: TileCacheReport,
    /// MSET bytes after the initial build, after adding the obstacles, and after the removals
    /// (`None` when nothing was removed).
    pub initial_nav_mesh: Vec<u8>,
    pub obstacles_nav_mesh: Vec<u8>,
    pub removed_nav_mesh: Option<Vec<u8>>,
    /// TSET bytes, written right after the initial build as the reference is.
    pub tile_cache_file: Vec<u8>,
    pub scratch_shortfall: ScratchShortfall,
}

/// What did not fit the scratch allocator (all zero when everything did).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ScratchShortfall {
    /// Stored layers the initial build gave no navmesh tile: those whose build failed and the
    /// rest of their tile columns.
    pub layers_left_out: usize,
    /// Obstacle updates whose layer rebuild failed (the layer kept its old tile).
    pub rebuilds_failed: usize,
    /// The bytes the largest failed build needed ([`ScratchAllocator::largest_refused`]).
    pub largest_need: usize,
}

/// The report, in the reference's schema and key order.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TileCacheReport {
    pub sample: String,
    pub geom: String,
    pub tile_size: i32,
    pub grid_width_cells: i32,
    pub grid_height_cells: i32,
    pub tiles_x: i32,
    pub tiles_y: i32,
    pub nav_mesh_max_tiles: i32,
    pub nav_mesh_max_polys_per_tile: i32,
    pub expected_layers_per_tile: i32,
    /// The whole-mesh `rcConfig` of `Sample_TempObstacles::build`.
    pub rc_config: Config,
    pub tile_cache_params: TileCacheParamsReport,
    pub nav_mesh_params: NavMeshParamsReport,
    pub cache_layer_count: usize,
    pub layers_per_tile: f32,
    pub cache_compressed_size: usize,
    pub cache_raw_size: usize,
    pub compression_ratio: f32,
    #[serde(rename = "cacheBuildMemUsage_allocatorHigh")]
    pub cache_build_mem_usage_allocator_high: usize,
    pub linear_allocator_capacity: usize,
    pub linear_allocator_failed_allocs: usize,
    pub navmesh_mem_usage: usize,
    pub layers: Vec<LayerReport>,
    #[serde(rename = "buildNavMeshTilesAt_nonSuccess")]
    pub build_nav_mesh_tiles_at_non_success: Vec<NonSuccess>,
    pub initial: PhaseReport,
    pub with_obstacles: ObstaclePhaseReport,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after_removing_second: Option<RemovalPhaseReport>,
    pub allocator_high_after_updates: usize,
    pub linear_allocator_failed_allocs_total: usize,
    pub tset_file: Option<String>,
    #[serde(rename = "tset_note")]
    pub tset_note: String,
}

/// A tile column whose `buildNavMeshTilesAt` failed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NonSuccess {
    pub x: i32,
    pub y: i32,
    pub status: String,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TileCacheParamsReport {
    pub orig: [f32; 3],
    pub cs: f32,
    pub ch: f32,
    pub width: i32,
    pub height: i32,
    pub walkable_height: f32,
    pub walkable_radius: f32,
    pub walkable_climb: f32,
    pub max_simplification_error: f32,
    pub max_tiles: i32,
    pub max_obstacles: i32,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NavMeshParamsReport {
    pub orig: [f32; 3],
    pub tile_width: f32,
    pub tile_height: f32,
    pub max_tiles: i32,
    pub max_polys: i32,
}

/// One stored layer.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LayerReport {
    pub tx: i32,
    pub ty: i32,
    pub tlayer: i32,
    pub add_tile_status: String,
    pub compressed_tile_ref: u32,
    pub data_size: usize,
    pub header_bytes: usize,
    pub compressed_payload_bytes: usize,
    pub raw_size_demo: usize,
    pub uncompressed_grid_bytes: usize,
    pub width: u8,
    pub height: u8,
    pub minx: u8,
    pub maxx: u8,
    pub miny: u8,
    pub maxy: u8,
    pub hmin: u16,
    pub hmax: u16,
    pub bmin: [f32; 3],
    pub bmax: [f32; 3],
    pub data_fnv1a64: String,
}

/// One navmesh tile.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TileReport {
    pub tile_index: u32,
    pub x: i32,
    pub y: i32,
    pub layer: i32,
    pub tile_ref: navlab::detour::TileRef,
    pub salt: u32,
    pub poly_count: usize,
    pub vert_count: usize,
    pub detail_mesh_count: usize,
    pub detail_vert_count: usize,
    pub detail_tri_count: usize,
    pub bv_node_count: usize,
    pub max_link_count: usize,
    pub data_size: usize,
    pub data_fnv1a64: String,
}

/// The navmesh after a phase.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PhaseReport {
    pub nav_mesh_tiles: usize,
    pub total_polys: usize,
    pub tiles: Vec<TileReport>,
    pub mset_file: Option<String>,
}

/// One added obstacle, as the tool made it.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AddedReport {
    #[serde(rename = "pfLine1Based")]
    pub pf_line_1_based: Option<usize>,
    pub clicked_point: [f32; 3],
    pub obstacle_pos: [f32; 3],
    pub radius: f32,
    pub height: f32,
    pub add_obstacle_status: String,
    pub obstacle_ref: ObstacleRef,
}

/// A live obstacle (`dtTileCacheObstacle`).
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ObstacleReport {
    pub slot: usize,
    #[serde(rename = "ref")]
    pub reference: ObstacleRef,
    pub salt: u16,
    /// `DT_OBSTACLE_CYLINDER` 0, `BOX` 1, `ORIENTED_BOX` 2.
    #[serde(rename = "type")]
    pub kind: u8,
    /// `DT_OBSTACLE_EMPTY` 0, `PROCESSING` 1, `PROCESSED` 2, `REMOVING` 3.
    pub state: u8,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pos: Option<[f32; 3]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub radius: Option<f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub height: Option<f32>,
    pub bounds: [[f32; 3]; 2],
    pub ntouched: usize,
    pub touched_tile_refs: Vec<u32>,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ObstaclePhaseReport {
    pub added: Vec<AddedReport>,
    pub update_calls_until_up_to_date: usize,
    pub update_statuses: Vec<String>,
    pub obstacles: Vec<ObstacleReport>,
    #[serde(flatten)]
    pub nav_mesh: PhaseReport,
}

/// The removals. `removedRef` is a number for one removal (the reference's case) and a list
/// for several.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RemovalPhaseReport {
    pub removed_ref: serde_json::Value,
    pub remove_obstacle_status: String,
    pub update_calls_until_up_to_date: usize,
    pub update_statuses: Vec<String>,
    pub obstacles: Vec<ObstacleReport>,
    #[serde(flatten)]
    pub nav_mesh: PhaseReport,
}

/// FNV-1a, 64 bits, as 16 hex digits.
pub fn fnv1a64(bytes: &[u8]) -> String {
    let hash = bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    format!("{hash:016x}")
}

fn stage(message: impl std::fmt::Display) -> NavlabError {
    NavlabError::Stage {
        stage: "tile cache",
        message: message.to_string(),
    }
}

/// Checks the options before anything is built: the tile size, the scratch capacity, finite
/// clicks no more than the tile cache holds, and removals naming distinct added obstacles.
pub fn check_options(options: &TileCacheRunOptions) -> Result<()> {
    if !TILE_SIZES.contains(&options.tile_size) {
        return Err(NavlabError::InvalidSetting {
            name: "tileSize",
            value: options.tile_size.to_string(),
            reason: format!(
                "Temp Obstacles tiles are {} to {} cells",
                TILE_SIZES.start(),
                TILE_SIZES.end()
            ),
        });
    }
    if !SCRATCH_BYTES.contains(&options.scratch_bytes) {
        return Err(stage(format!(
            "--scratch-bytes {} is out of range: give {} to {} (1 KiB to 1 GiB; RecastDemo's is {})",
            options.scratch_bytes,
            SCRATCH_BYTES.start(),
            SCRATCH_BYTES.end(),
            ScratchAllocator::DEMO_CAPACITY
        )));
    }
    if options.obstacles.len() > MAX_OBSTACLES as usize {
        return Err(stage(format!(
            "--obstacle is given {} times; the tile cache holds at most {MAX_OBSTACLES} obstacles \
             (RecastDemo's maxObstacles)",
            options.obstacles.len()
        )));
    }
    if let Some(i) = options
        .obstacles
        .iter()
        .position(|p| !p.iter().all(|v| v.is_finite()))
    {
        return Err(stage(format!(
            "obstacle {} is at {:?}, which is not a finite point",
            i + 1,
            options.obstacles[i]
        )));
    }
    for (i, &k) in options.remove.iter().enumerate() {
        if !(1..=options.obstacles.len()).contains(&k) {
            return Err(stage(format!(
                "cannot remove obstacle {k}: {} obstacles are added (numbered from 1)",
                options.obstacles.len()
            )));
        }
        if options.remove[..i].contains(&k) {
            return Err(stage(format!("obstacle {k} is removed twice")));
        }
    }
    Ok(())
}

/// Calls `update` until the obstacles are up to date; returns each call's status. A rebuild
/// that does not fit the scratch allocator is a failed status, as in C++, not an error.
fn update_until_done(
    obstacles: &mut Obstacles,
    cache: &TileCache,
    nav_mesh: &mut NavMesh,
) -> Result<Vec<String>> {
    let mut statuses = Vec::new();
    loop {
        match obstacles.update(cache, nav_mesh, sample_mesh_process) {
            Ok(_) => statuses.push(SUCCESS.to_string()),
            Err(e) if e.is_out_of_scratch() => statuses.push(OUT_OF_MEMORY.to_string()),
            Err(e) => return Err(stage(e)),
        }
        if obstacles.up_to_date() {
            return Ok(statuses);
        }
    }
}

/// Makes `request`; when the request queue is full, first updates until up to date (adding
/// those updates' statuses to `statuses`), as a user of the demo would let the queued
/// obstacles in before clicking on. The outer error is an update's.
fn request_or_update<T>(
    obstacles: &mut Obstacles,
    cache: &TileCache,
    nav_mesh: &mut NavMesh,
    statuses: &mut Vec<String>,
    mut request: impl FnMut(&mut Obstacles) -> std::result::Result<T, ObstacleError>,
) -> Result<std::result::Result<T, ObstacleError>> {
    match request(obstacles) {
        Err(ObstacleError::RequestQueueFull) => {
            statuses.extend(update_until_done(obstacles, cache, nav_mesh)?);
            Ok(request(obstacles))
        }
        result => Ok(result),
    }
}

/// The Create Temp Obstacles tool's clicks, each a cylinder, then updates until up to date;
/// returns what was added and each update's status. Clicks beyond a full request queue wait
/// for the queued ones to be let in. One function for callgrind
/// (`--toggle-collect='*add_clicked_obstacles*'`).
#[inline(never)]
pub fn add_clicked_obstacles(
    obstacles: &mut Obstacles,
    cache: &TileCache,
    nav_mesh: &mut NavMesh,
    clicks: &[[f32; 3]],
) -> Result<(Vec<AddedReport>, Vec<String>)> {
    let mut added = Vec::with_capacity(clicks.len());
    let mut statuses = Vec::new();
    for (i, &clicked) in clicks.iter().enumerate() {
        let shape = TempObstaclesBuild::click_obstacle(clicked);
        let pos = [clicked[0], clicked[1] - CLICK_OBSTACLE_DROP, clicked[2]];
        let r = request_or_update(obstacles, cache, nav_mesh, &mut statuses, |o| o.add(shape))?
            .map_err(|e| stage(format!("adding obstacle {}: {e}", i + 1)))?;
        added.push(AddedReport {
            pf_line_1_based: None,
            clicked_point: clicked,
            obstacle_pos: pos,
            radius: CLICK_OBSTACLE_RADIUS,
            height: CLICK_OBSTACLE_HEIGHT,
            add_obstacle_status: SUCCESS.into(),
            obstacle_ref: r,
        });
    }
    statuses.extend(update_until_done(obstacles, cache, nav_mesh)?);
    Ok((added, statuses))
}

/// The whole session on `input` with `settings` (see the module).
pub fn run_tile_cache(
    input: &InputGeom,
    settings: &BuildSettings,
    geom: &str,
    options: &TileCacheRunOptions,
) -> Result<TileCacheRun> {
    check_options(options)?;
    let tile_size = options.tile_size;
    let (bmin, bmax) = input.nav_mesh_bounds()?;
    let mut cfg = settings.to_config(bmin, bmax)?;
    let (grid_width, grid_height) = calc_grid_size(&bmin, &bmax, settings.cell_size);
    let (tiles_x, tiles_y) = tile_grid(input, settings, tile_size)?;
    cfg.tile_size = tile_size;
    cfg.border_size = cfg.walkable_radius + 3;
    cfg.width = tile_size + 2 * cfg.border_size;
    cfg.height = cfg.width;

    let mut scratch = ScratchAllocator::new(options.scratch_bytes);
    let mut builder = LayerTileBuilder::new();
    let (cache, nav_params, mut nav_mesh, non_success) = build_tile_cache_and_nav_mesh(
        input,
        settings,
        tile_size,
        &mut scratch,
        &mut builder,
        None,
    )?;
    let (build_high, build_failed) = (scratch.high(), scratch.failed());
    let stored = cache.stored_layers();
    let layers: Vec<LayerReport> = stored
        .iter()
        .filter_map(|stored| {
            let (h, data) = cache.layer(stored.tile_ref)?;
            Some(layer_report(stored.tile_ref, h, data))
        })
        .collect();
    let initial = phase_report(&nav_mesh);
    let initial_nav_mesh = nav_mesh.to_mset_bytes();
    let tile_cache_file = TileCacheSet {
        nav_mesh_params: nav_params,
        cache_params: *cache.params(),
        layers: stored,
        off_mesh_links: cache.off_mesh_links().to_vec(),
    }
    .to_bytes();

    let mut obstacles = Obstacles::new(cache.params().max_obstacles).map_err(stage)?;
    obstacles.set_scratch(Some(scratch));
    obstacles.set_builder(builder);
    let (added, statuses) =
        add_clicked_obstacles(&mut obstacles, &cache, &mut nav_mesh, &options.obstacles)?;
    let with_obstacles = ObstaclePhaseReport {
        added: added.clone(),
        update_calls_until_up_to_date: statuses.len(),
        update_statuses: statuses,
        obstacles: obstacles.live().map(obstacle_report).collect(),
        nav_mesh: phase_report(&nav_mesh),
    };
    let obstacles_nav_mesh = nav_mesh.to_mset_bytes();

    let (after_removing, removed_nav_mesh) = if options.remove.is_empty() {
        (None, None)
    } else {
        let refs: Vec<ObstacleRef> = options
            .remove
            .iter()
            .map(|&k| added[k - 1].obstacle_ref)
            .collect();
        let mut statuses = Vec::new();
        for (&k, &r) in options.remove.iter().zip(&refs) {
            request_or_update(&mut obstacles, &cache, &mut nav_mesh, &mut statuses, |o| {
                o.remove(r)
            })?
            .map_err(|e| stage(format!("removing obstacle {k}: {e}")))?;
        }
        statuses.extend(update_until_done(&mut obstacles, &cache, &mut nav_mesh)?);
        let removed_ref = match refs[..] {
            [one] => serde_json::Value::from(one),
            _ => serde_json::Value::from(refs.clone()),
        };
        let report = RemovalPhaseReport {
            removed_ref,
            remove_obstacle_status: SUCCESS.into(),
            update_calls_until_up_to_date: statuses.len(),
            update_statuses: statuses,
            obstacles: obstacles.live().map(obstacle_report).collect(),
            nav_mesh: phase_report(&nav_mesh),
        };
        (Some(report), Some(nav_mesh.to_mset_bytes()))
    };

    let failed_rebuilds =
        |statuses: &[String]| statuses.iter().filter(|s| *s == OUT_OF_MEMORY).count();
    let scratch_shortfall = ScratchShortfall {
        layers_left_out: non_success.iter().map(|n| n.layers_left_out).sum(),
        rebuilds_failed: failed_rebuilds(&with_obstacles.update_statuses)
            + after_removing
                .as_ref()
                .map_or(0, |r| failed_rebuilds(&r.update_statuses)),
        largest_need: obstacles
            .scratch()
            .map_or(0, ScratchAllocator::largest_refused),
    };
    let cache_compressed_size: usize = layers.iter().map(|l| l.data_size).sum();
    let cache_raw_size = layers.len() * demo_raw_size(cache.params());
    let report = TileCacheReport {
        sample: "Sample_TempObstacles".into(),
        geom: geom.into(),
        tile_size,
        grid_width_cells: grid_width,
        grid_height_cells: grid_height,
        tiles_x,
        tiles_y,
        nav_mesh_max_tiles: nav_params.max_tiles,
        nav_mesh_max_polys_per_tile: nav_params.max_polys,
        expected_layers_per_tile: EXPECTED_LAYERS_PER_TILE,
        rc_config: cfg.clone(),
        tile_cache_params: cache_params_report(cache.params()),
        nav_mesh_params: NavMeshParamsReport {
            orig: nav_params.orig,
            tile_width: nav_params.tile_width,
            tile_height: nav_params.tile_height,
            max_tiles: nav_params.max_tiles,
            max_polys: nav_params.max_polys,
        },
        cache_layer_count: layers.len(),
        // The demo's figures are float divisions; its ratio adds 1 to the raw size.
        layers_per_tile: layers.len() as f32 / (tiles_x * tiles_y).max(1) as f32,
        cache_compressed_size,
        cache_raw_size,
        compression_ratio: cache_compressed_size as f32 / (cache_raw_size + 1) as f32,
        cache_build_mem_usage_allocator_high: build_high,
        linear_allocator_capacity: options.scratch_bytes,
        linear_allocator_failed_allocs: build_failed,
        navmesh_mem_usage: initial.tiles.iter().map(|t| t.data_size).sum(),
        layers,
        build_nav_mesh_tiles_at_non_success: non_success
            .iter()
            .map(|lost| NonSuccess {
                x: lost.x,
                y: lost.y,
                status: OUT_OF_MEMORY.into(),
            })
            .collect(),
        initial,
        with_obstacles,
        after_removing_second: after_removing,
        allocator_high_after_updates: obstacles.scratch().map_or(0, ScratchAllocator::high),
        linear_allocator_failed_allocs_total: obstacles
            .scratch()
            .map_or(0, ScratchAllocator::failed),
        tset_file: None,
        tset_note: "written right after the initial build; the TSET holds only compressed \
                    layers, no obstacles"
            .into(),
    };
    Ok(TileCacheRun {
        report,
        initial_nav_mesh,
        obstacles_nav_mesh,
        removed_nav_mesh,
        tile_cache_file,
        scratch_shortfall,
    })
}

/// The demo's per-layer "raw" estimate, `calcLayerBufferSize`: the header and 4 bytes a cell.
fn demo_raw_size(params: &TileCacheParams) -> usize {
    let cells = params.width.max(0) as usize * params.height.max(0) as usize;
    LAYER_HEADER_BYTES + cells * 4
}

fn layer_report(r: u32, h: &LayerHeader, data: &[u8]) -> LayerReport {
    let cells = usize::from(h.width) * usize::from(h.height);
    LayerReport {
        tx: h.tx,
        ty: h.ty,
        tlayer: h.tlayer,
        add_tile_status: SUCCESS.into(),
        compressed_tile_ref: r,
        data_size: data.len(),
        header_bytes: LAYER_HEADER_BYTES,
        compressed_payload_bytes: data.len().saturating_sub(LAYER_HEADER_BYTES),
        raw_size_demo: LAYER_HEADER_BYTES + cells * 4,
        uncompressed_grid_bytes: cells * 3,
        width: h.width,
        height: h.height,
        minx: h.minx,
        maxx: h.maxx,
        miny: h.miny,
        maxy: h.maxy,
        hmin: h.hmin,
        hmax: h.hmax,
        bmin: h.bmin,
        bmax: h.bmax,
        data_fnv1a64: fnv1a64(data),
    }
}

fn cache_params_report(p: &TileCacheParams) -> TileCacheParamsReport {
    TileCacheParamsReport {
        orig: p.orig,
        cs: p.cs,
        ch: p.ch,
        width: p.width,
        height: p.height,
        walkable_height: p.walkable_height,
        walkable_radius: p.walkable_radius,
        walkable_climb: p.walkable_climb,
        max_simplification_error: p.max_simplification_error,
        max_tiles: p.max_tiles,
        max_obstacles: p.max_obstacles,
    }
}

/// Every tile of `nav_mesh` in slot order, as the demo's `getTile(i)` loop lists them.
fn phase_report(nav_mesh: &NavMesh) -> PhaseReport {
    let tiles: Vec<TileReport> = nav_mesh
        .tiles()
        .map(|(r, tile)| {
            let (salt, index, _) = nav_mesh.decode_poly_id(r);
            let h = tile.header();
            let data = tile.to_bytes(nav_mesh.ref_width());
            TileReport {
                tile_index: index,
                x: h.x,
                y: h.y,
                layer: h.layer,
                tile_ref: r,
                salt,
                poly_count: tile.poly_count(),
                vert_count: tile.verts().len(),
                detail_mesh_count: tile.detail_meshes().len(),
                detail_vert_count: tile.detail_verts().len(),
                detail_tri_count: tile.detail_tris().len(),
                bv_node_count: tile.bv_tree().len(),
                max_link_count: tile.max_link_count(),
                data_size: data.len(),
                data_fnv1a64: fnv1a64(&data),
            }
        })
        .collect();
    PhaseReport {
        nav_mesh_tiles: tiles.len(),
        total_polys: tiles.iter().map(|t| t.poly_count).sum(),
        tiles,
        mset_file: None,
    }
}

fn obstacle_report(o: ObstacleInfo) -> ObstacleReport {
    let (bmin, bmax) = o.shape.bounds();
    let (kind, pos, radius, height) = match o.shape {
        ObstacleShape::Cylinder {
            pos,
            radius,
            height,
        } => (0, Some(pos), Some(radius), Some(height)),
        ObstacleShape::Box { .. } => (1, None, None, None),
        ObstacleShape::OrientedBox { .. } => (2, None, None, None),
    };
    ObstacleReport {
        slot: o.slot,
        reference: o.reference,
        salt: o.salt,
        kind,
        state: match o.state {
            ObstacleState::Empty => 0,
            ObstacleState::Processing => 1,
            ObstacleState::Processed => 2,
            ObstacleState::Removing => 3,
        },
        pos,
        radius,
        height,
        bounds: [bmin, bmax],
        ntouched: o.touched.len(),
        touched_tile_refs: o.touched,
    }
}
