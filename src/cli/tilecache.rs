//! `navlab tilecache`: RecastDemo's Temp Obstacles sample headless. Builds the tile cache and
//! its navmesh, adds a cylinder per `--obstacle` click as the Create Temp Obstacles tool does,
//! removes the `--remove-obstacle` ones, and writes each phase's navmesh (MSET), the tile-cache
//! file (TSET) and a report in the C++ reference's schema
//! ([`navlab_app::demo::tile_cache_run`] says which fields cannot be C++'s).

use std::path::PathBuf;
use std::time::Instant;

use navlab::bake::settings::BuildSettings;
use navlab::bake::temp_obstacles::DEFAULT_TILE_SIZE;
use navlab::error::{NavlabError, Result};
use navlab::file::write_atomically;
use navlab::input::input_geom::InputGeom;
use navlab::tile_cache::builder::ScratchAllocator;
use navlab_app::demo::tile_cache_run::{
    ScratchShortfall, TileCacheRunOptions, check_options, run_tile_cache,
};

/// What `navlab tilecache` was asked to do.
#[derive(clap::Args)]
pub struct TileCacheArgs {
    /// The input: a Wavefront OBJ or glTF mesh, or a RecastDemo `.gset` (its settings and
    /// off-mesh links are used).
    mesh: PathBuf,
    /// Cells per tile side (16 to 128, as the demo's slider). Above about 64 some tiles do not
    /// fit the scratch allocator and are left out, as in RecastDemo (a warning says how many).
    #[arg(long, default_value_t = DEFAULT_TILE_SIZE, allow_negative_numbers = true)]
    tile_size: i32,
    /// Bytes of the scratch allocator tiles are built in (1024 to 1073741824; RecastDemo's
    /// LinearAllocator has 32000).
    #[arg(long, value_name = "N", default_value_t = ScratchAllocator::DEMO_CAPACITY)]
    scratch_bytes: usize,
    /// A clicked point X,Y,Z: a cylinder of radius 1 and height 2 standing 0.5 below it
    /// (repeatable, up to 128 times; numbered from 1 in order).
    #[arg(long = "obstacle", value_name = "X,Y,Z", value_parser = parse_point, allow_hyphen_values = true)]
    obstacles: Vec<[f32; 3]>,
    /// Remove obstacle K (1-based) after the added ones are in (repeatable; all in one batch).
    #[arg(
        long = "remove-obstacle",
        value_name = "K",
        allow_negative_numbers = true
    )]
    remove: Vec<usize>,
    /// Write the navmesh after the initial build (MSET).
    #[arg(long, value_name = "A.bin")]
    initial_navmesh: Option<PathBuf>,
    /// Write the navmesh once the obstacles are in (MSET).
    #[arg(long, value_name = "B.bin")]
    obstacles_navmesh: Option<PathBuf>,
    /// Write the navmesh after the removals (MSET; needs --remove-obstacle).
    #[arg(long, value_name = "C.bin")]
    removed_navmesh: Option<PathBuf>,
    /// Write the tile-cache file (TSET) as saved right after the initial build.
    #[arg(long, value_name = "T.tset")]
    tset: Option<PathBuf>,
    /// Write the report as JSON in the reference's schema.
    #[arg(long, value_name = "OUT")]
    json: Option<PathBuf>,
    /// Override one setting by RecastDemo's name, after the input's own: `--set
    /// longRangeLinks=true` (repeatable).
    #[arg(long = "set", value_name = "NAME=VALUE")]
    overrides: Vec<String>,
    /// Polygon reference width of the navmesh, 32 (C++ Detour's default) or 64 (a
    /// `DT_POLYREF64` build's; the same as `--set polyRefs=64`). The tile-cache file holds no
    /// references and is the same either way.
    #[arg(long, value_name = "32|64", value_parser = super::parse_poly_refs)]
    poly_refs: Option<u32>,
    /// Print nothing but errors.
    #[arg(long)]
    quiet: bool,
}

/// `X,Y,Z` as three finite floats.
fn parse_point(text: &str) -> std::result::Result<[f32; 3], String> {
    let values: Vec<&str> = text.split(',').map(str::trim).collect();
    let [x, y, z] = values[..] else {
        return Err(format!("`{text}` is not X,Y,Z"));
    };
    let mut point = [0.0f32; 3];
    for (slot, value) in point.iter_mut().zip([x, y, z]) {
        *slot = value
            .parse::<f32>()
            .map_err(|_| format!("`{value}` in `{text}` is not a number"))?;
        if !slot.is_finite() {
            return Err(format!("`{value}` in `{text}` is not a finite number"));
        }
    }
    Ok(point)
}

fn file_name(path: &Option<PathBuf>) -> Option<String> {
    path.as_ref()
        .and_then(|p| p.file_name())
        .map(|n| n.to_string_lossy().into_owned())
}

/// Says what did not fit the scratch allocator, and how to make it fit.
fn warn_shortfall(shortfall: &ScratchShortfall, layers: usize, scratch_bytes: usize) {
    let allocator = if scratch_bytes == ScratchAllocator::DEMO_CAPACITY {
        format!("RecastDemo's {scratch_bytes}-byte scratch allocator")
    } else {
        format!("the {scratch_bytes}-byte scratch allocator")
    };
    let fix = format!(
        "a larger --scratch-bytes (the largest build that failed needed {})",
        shortfall.largest_need
    );
    if shortfall.layers_left_out > 0 {
        eprintln!(
            "warning: {} of {layers} tile layers did not fit {allocator} and were left out of \
             the navmesh; use a smaller --tile-size or {fix}",
            shortfall.layers_left_out
        );
    }
    if shortfall.rebuilds_failed > 0 {
        eprintln!(
            "warning: {} obstacle rebuilds did not fit {allocator}, so their layers keep their \
             old tiles; use {fix}",
            shortfall.rebuilds_failed
        );
    }
}

/// Runs `navlab tilecache`.
pub fn run(args: &TileCacheArgs) -> Result<()> {
    let options = TileCacheRunOptions {
        tile_size: args.tile_size,
        obstacles: args.obstacles.clone(),
        remove: args.remove.clone(),
        scratch_bytes: args.scratch_bytes,
    };
    check_options(&options)?;
    if args.removed_navmesh.is_some() && args.remove.is_empty() {
        return Err(NavlabError::Stage {
            stage: "tile cache",
            message: "--removed-navmesh needs at least one --remove-obstacle".into(),
        });
    }
    let input = InputGeom::load(&args.mesh)?;
    super::outputs::RunFiles::default()
        .input_geom("the input", &input)
        .output("--initial-navmesh", args.initial_navmesh.as_deref())
        .output("--obstacles-navmesh", args.obstacles_navmesh.as_deref())
        .output("--removed-navmesh", args.removed_navmesh.as_deref())
        .output("--tset", args.tset.as_deref())
        .output("--json", args.json.as_deref())
        .check()?;
    if !args.quiet {
        for warning in input.mesh.warnings.lines() {
            eprintln!("warning: {warning}");
        }
    }
    let mut settings = BuildSettings::for_input(&input);
    for assignment in &args.overrides {
        settings.set(assignment)?;
    }
    if let Some(bits) = args.poly_refs {
        settings.poly_refs = bits;
    }
    let started = Instant::now();
    let geom = args
        .mesh
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let mut run = run_tile_cache(&input, &settings, &geom, &options)?;
    let elapsed = started.elapsed();
    if !args.quiet {
        warn_shortfall(
            &run.scratch_shortfall,
            run.report.cache_layer_count,
            args.scratch_bytes,
        );
    }

    let report = &mut run.report;
    report.initial.mset_file = file_name(&args.initial_navmesh);
    report.with_obstacles.nav_mesh.mset_file = file_name(&args.obstacles_navmesh);
    if let Some(removed) = &mut report.after_removing_second {
        removed.nav_mesh.mset_file = file_name(&args.removed_navmesh);
    }
    report.tset_file = file_name(&args.tset);

    if let Some(path) = &args.initial_navmesh {
        write_atomically(path, &run.initial_nav_mesh)?;
    }
    if let Some(path) = &args.obstacles_navmesh {
        write_atomically(path, &run.obstacles_nav_mesh)?;
    }
    if let (Some(path), Some(bytes)) = (&args.removed_navmesh, &run.removed_nav_mesh) {
        write_atomically(path, bytes)?;
    }
    if let Some(path) = &args.tset {
        write_atomically(path, &run.tile_cache_file)?;
    }
    if let Some(path) = &args.json {
        let text = serde_json::to_string_pretty(&run.report).map_err(|e| NavlabError::Stage {
            stage: "tile cache",
            message: e.to_string(),
        })?;
        write_atomically(path, text.as_bytes())?;
    }
    if !args.quiet {
        let r = &run.report;
        println!(
            "{} x {} tiles, {} layers ({} bytes compressed); navmesh {} tiles, {} polys",
            r.tiles_x,
            r.tiles_y,
            r.cache_layer_count,
            r.cache_compressed_size,
            r.initial.nav_mesh_tiles,
            r.initial.total_polys
        );
        println!(
            "{} obstacles: {} polys after {} updates",
            r.with_obstacles.added.len(),
            r.with_obstacles.nav_mesh.total_polys,
            r.with_obstacles.update_calls_until_up_to_date
        );
        if let Some(removed) = &r.after_removing_second {
            println!(
                "{} removed: {} polys after {} updates",
                args.remove.len(),
                removed.nav_mesh.total_polys,
                removed.update_calls_until_up_to_date
            );
        }
        println!("{:.1} ms in all", elapsed.as_secs_f64() * 1e3);
    }
    Ok(())
}
