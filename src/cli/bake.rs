//! `navlab bake`: build a solo or tiled navmesh headless, print the stage timings, write the
//! navmesh file and the stage summary.

use std::path::{Path, PathBuf};

use navlab::bake::settings::BuildSettings;
use navlab::bake::solo::{Build, Retention};
use navlab::bake::tiled::TiledBuild;
use navlab::detour::VERTS_PER_POLYGON;
use navlab::error::{NavlabError, Result};
use navlab::input::geomset::GeomSet;
use navlab::input::input_geom::InputGeom;
use navlab::recast::context::LogCategory;
use navlab::recast::region::PartitionType;

/// What `navlab bake` was asked to do.
#[derive(clap::Args)]
pub struct BakeArgs {
    /// The input: a Wavefront OBJ mesh, or a RecastDemo `.gset` naming one.
    mesh: PathBuf,
    /// Build settings: a TOML file with RecastDemo's names, or a RecastDemo `.gset`.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Region partitioning (overrides the settings file).
    #[arg(long)]
    partition: Option<PartitionType>,
    /// Write the stage summary as JSON in the C++ reference schema.
    #[arg(long)]
    dump_json: Option<PathBuf>,
    /// Build a tiled navmesh with tiles of this many cells (RecastDemo's Tile Mesh sample).
    #[arg(long)]
    tile_size: Option<i32>,
    /// Write the Detour navmesh in RecastDemo's all-tiles ("MSET") format.
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Print nothing but errors.
    #[arg(long)]
    quiet: bool,
}

/// The settings file's values: TOML with RecastDemo's names, or a `.gset`'s `s` line; without a
/// file, the input's own (a `.gset` input's saved settings, else RecastDemo's defaults).
fn load_settings(path: Option<&Path>, input: &InputGeom) -> Result<BuildSettings> {
    match path {
        None => Ok(BuildSettings::for_input(input)),
        Some(path)
            if path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("gset")) =>
        {
            let mut settings = BuildSettings::default();
            if let Some(saved) = GeomSet::load(path)?.settings {
                settings.apply_geom_set(&saved);
            }
            settings.validate()?;
            Ok(settings)
        }
        Some(path) => BuildSettings::load_toml(path),
    }
}

/// Runs `navlab bake`.
pub fn run(args: &BakeArgs) -> Result<()> {
    let mesh_path = args.mesh.as_path();
    let quiet = args.quiet;
    let input = InputGeom::load(mesh_path)?;
    let mut settings = load_settings(args.config.as_deref(), &input)?;
    if let Some(partition) = args.partition {
        settings.partition_type = partition;
    }
    if !quiet {
        for warning in &input.mesh.warnings {
            eprintln!("warning: {warning}");
        }
    }
    if args.output.is_some() && settings.verts_per_poly as usize > VERTS_PER_POLYGON {
        return Err(too_many_verts_for_detour(&settings));
    }
    if let Some(tile_size) = args.tile_size {
        return bake_tiled(args, &input, settings, tile_size);
    }
    // Nothing draws the intermediate stages here: free each as soon as the next one has run.
    let build = Build::from_input_keeping(&input, settings, Retention::Final)?;
    if !quiet {
        print_log(build.context.entries());
        for line in build.timing_report() {
            println!("{line}");
        }
    }
    if let Some(out) = &args.output {
        let nav_mesh = build
            .nav_mesh
            .as_ref()
            .ok_or_else(|| too_many_verts_for_detour(&build.settings))?;
        navlab::detour::nav_mesh_file::save_nav_mesh(out, nav_mesh)?;
    }
    if let Some(out) = &args.dump_json {
        let name = mesh_path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let summary = navlab::bake::dump::stage_summary(&name, &build);
        let text = serde_json::to_string(&summary).expect("a JSON value always serialises");
        std::fs::write(out, text).map_err(|source| NavlabError::Io {
            path: out.clone(),
            source,
        })?;
    }
    Ok(())
}

/// Solo and tiled bakes alike refuse to write a navmesh Detour cannot hold, before building.
fn too_many_verts_for_detour(settings: &BuildSettings) -> NavlabError {
    NavlabError::InvalidSetting {
        name: "vertsPerPoly",
        value: settings.verts_per_poly.to_string(),
        reason: format!(
            "Detour polygons have at most {VERTS_PER_POLYGON} vertices, so no navmesh can be written (-o); lower vertsPerPoly"
        ),
    }
}

fn print_log(entries: &[navlab::recast::context::LogEntry]) {
    for entry in entries {
        match entry.category {
            LogCategory::Progress => println!("{}", entry.message),
            LogCategory::Warning => eprintln!("warning: {}", entry.message),
            LogCategory::Error => eprintln!("error: {}", entry.message),
        }
    }
}

/// `bake --tile-size N`: every tile through the pipeline, a summary, and the navmesh file.
fn bake_tiled(
    args: &BakeArgs,
    input: &InputGeom,
    settings: BuildSettings,
    tile_size: i32,
) -> Result<()> {
    if args.dump_json.is_some() {
        return Err(NavlabError::InvalidSetting {
            name: "dump-json",
            value: "with --tile-size".into(),
            reason: "the stage summary describes a solo build; drop --tile-size".into(),
        });
    }
    let started = std::time::Instant::now();
    let build = TiledBuild::new(input, settings, tile_size)?;
    let elapsed = started.elapsed();
    if !args.quiet {
        for tile in &build.tiles {
            for entry in tile.context.entries() {
                if entry.category != LogCategory::Progress {
                    print_log(std::slice::from_ref(entry));
                }
            }
        }
        let built: Vec<_> = build
            .tiles
            .iter()
            .filter_map(|t| t.output.as_ref().ok())
            .collect();
        println!(
            "{} x {} tiles of {tile_size} cells: {} built, {} empty",
            build.tiles_x,
            build.tiles_y,
            built.len(),
            build.tiles.len() - built.len()
        );
        println!(
            ">> Polymesh: {} vertices  {} polygons",
            built.iter().map(|t| t.poly_mesh.nverts).sum::<usize>(),
            built.iter().map(|t| t.poly_mesh.npolys).sum::<usize>()
        );
        println!("=== TOTAL:\t{:.2}ms", elapsed.as_secs_f64() * 1000.0);
    }
    if let Some(out) = &args.output {
        navlab::detour::nav_mesh_file::save_nav_mesh(out, &build.nav_mesh)?;
    }
    Ok(())
}
