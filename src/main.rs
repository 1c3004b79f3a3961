//! The `navlab` command line: `navlab bake` builds a navmesh headless; `navlab view` (and
//! `navlab` alone) opens the viewer when built with the `viewer` feature.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use navlab::build::Build;
use navlab::config::{BuildSettings, PartitionType};
use navlab::context::LogCategory;
use navlab::error::{NavlabError, Result};
use navlab::geomset::GeomSet;
use navlab::input_geom::InputGeom;
use navlab::tiled::TiledBuild;

#[derive(Parser)]
#[command(
    name = "navlab",
    version,
    about = "Recast & Detour navmesh building, with a viewer"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Build a solo navmesh from an OBJ file and print the stage timings.
    Bake {
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
    },
    /// Open the viewer (needs the `viewer` feature).
    View {
        /// The input (OBJ, or a RecastDemo `.gset`); the embedded default scene when absent.
        mesh: Option<PathBuf>,
        /// Build settings: a TOML file with RecastDemo's names (a `.gset` input brings its own).
        #[arg(long)]
        config: Option<PathBuf>,
        /// The draw mode to start in, e.g. "poly-mesh" or "Compact Regions".
        #[arg(long)]
        draw: Option<String>,
        /// Start in the Tile Mesh sample with tiles of this many cells.
        #[arg(long)]
        tile_size: Option<i32>,
        /// Show this navmesh file (RecastDemo's all-tiles format, C++-made or ours) once the
        /// scene is built.
        #[arg(long)]
        navmesh: Option<PathBuf>,
        /// Render without a window into this PNG file, then exit.
        #[arg(long)]
        screenshot: Option<PathBuf>,
        /// Window or screenshot size, WIDTHxHEIGHT.
        #[arg(long, default_value = "1280x800", value_parser = parse_size)]
        size: (u32, u32),
        /// With --screenshot: frames to render after the build before capturing.
        #[arg(long, default_value_t = 5)]
        frames: u32,
        /// Test a real window: rebuild after one setting change, save a screenshot of the
        /// window to this file, exit.
        #[arg(long, hide = true)]
        self_test: Option<PathBuf>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Some(Command::Bake {
            mesh,
            config,
            partition,
            dump_json,
            tile_size,
            output,
            quiet,
        }) => bake(&BakeArgs {
            mesh: &mesh,
            config: config.as_deref(),
            partition,
            dump_json: dump_json.as_deref(),
            tile_size,
            output: output.as_deref(),
            quiet,
        }),
        Some(Command::View {
            mesh,
            config,
            draw,
            tile_size,
            navmesh,
            screenshot,
            size,
            frames,
            self_test,
        }) => view(ViewArgs {
            mesh,
            config,
            draw,
            tile_size,
            navmesh,
            screenshot,
            size,
            frames,
            self_test,
        }),
        None => view(ViewArgs::default()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("navlab: {err}");
            ExitCode::FAILURE
        }
    }
}

/// The settings file's values: TOML with RecastDemo's names, or a `.gset`'s `s` line; without a
/// file, the input's own (a `.gset` input's saved settings, else RecastDemo's defaults).
fn load_settings(path: Option<&Path>, input: &InputGeom) -> Result<BuildSettings> {
    match path {
        None => Ok(input.settings()),
        Some(path)
            if path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("gset")) =>
        {
            let mut settings = BuildSettings::default();
            if let Some(saved) = GeomSet::load(path)?.settings {
                saved.apply_to(&mut settings);
            }
            settings.validate()?;
            Ok(settings)
        }
        Some(path) => BuildSettings::load_toml(path),
    }
}

/// What `navlab bake` was asked to do.
struct BakeArgs<'a> {
    mesh: &'a Path,
    config: Option<&'a Path>,
    partition: Option<PartitionType>,
    dump_json: Option<&'a Path>,
    tile_size: Option<i32>,
    output: Option<&'a Path>,
    quiet: bool,
}

fn bake(args: &BakeArgs) -> Result<()> {
    let BakeArgs {
        mesh: mesh_path,
        quiet,
        ..
    } = *args;
    let input = InputGeom::load(mesh_path)?;
    let mut settings = load_settings(args.config, &input)?;
    if let Some(partition) = args.partition {
        settings.partition_type = partition;
    }
    if !quiet {
        for warning in &input.mesh.warnings {
            eprintln!("warning: {warning}");
        }
    }
    if let Some(tile_size) = args.tile_size {
        return bake_tiled(args, &input, settings, tile_size);
    }
    let build = Build::from_input(&input, settings)?;
    if !quiet {
        print_log(build.context.entries());
        for line in build.timing_report() {
            println!("{line}");
        }
    }
    if let Some(out) = args.output {
        let nav_mesh = build.nav_mesh.as_ref().ok_or_else(|| NavlabError::Stage {
            stage: "dtCreateNavMeshData",
            message: format!(
                "Detour polygons have at most {} vertices; vertsPerPoly is {}",
                navlab::detour::VERTS_PER_POLYGON,
                build.config.max_verts_per_poly
            ),
        })?;
        navlab::detour::nav_mesh_file::save_nav_mesh(out, nav_mesh)?;
    }
    if let Some(out) = args.dump_json {
        let name = mesh_path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let summary = navlab::dump::stage_summary(&name, &build);
        let text = serde_json::to_string(&summary).expect("a JSON value always serialises");
        std::fs::write(out, text).map_err(|source| NavlabError::Io {
            path: out.to_owned(),
            source,
        })?;
    }
    Ok(())
}

fn print_log(entries: &[navlab::context::LogEntry]) {
    for entry in entries {
        match entry.category {
            LogCategory::Progress => println!("{}", entry.message),
            LogCategory::Warning => eprintln!("warning: {}", entry.message),
            LogCategory::Error => eprintln!("error: {}", entry.message),
        }
    }
}

/// `navlab view`'s arguments (all defaults for plain `navlab`).
#[cfg_attr(not(feature = "viewer"), allow(dead_code))]
struct ViewArgs {
    mesh: Option<PathBuf>,
    config: Option<PathBuf>,
    draw: Option<String>,
    tile_size: Option<i32>,
    navmesh: Option<PathBuf>,
    screenshot: Option<PathBuf>,
    size: (u32, u32),
    frames: u32,
    self_test: Option<PathBuf>,
}

impl Default for ViewArgs {
    fn default() -> Self {
        Self {
            mesh: None,
            config: None,
            draw: None,
            tile_size: None,
            navmesh: None,
            screenshot: None,
            size: (1280, 800),
            frames: 5,
            self_test: None,
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
    if let Some(out) = args.output {
        navlab::detour::nav_mesh_file::save_nav_mesh(out, &build.nav_mesh)?;
    }
    Ok(())
}

fn parse_size(text: &str) -> std::result::Result<(u32, u32), String> {
    let parsed = text
        .split_once(['x', 'X'])
        .and_then(|(w, h)| Some((w.trim().parse().ok()?, h.trim().parse().ok()?)));
    match parsed {
        Some((w, h)) if (16..=8192).contains(&w) && (16..=8192).contains(&h) => Ok((w, h)),
        _ => Err(format!(
            "expected WIDTHxHEIGHT between 16 and 8192, e.g. 1280x800, found `{text}`"
        )),
    }
}

#[cfg(not(feature = "viewer"))]
fn view(_args: ViewArgs) -> Result<()> {
    Err(NavlabError::Stage {
        stage: "navlab view",
        message: "this navlab was built without the `viewer` feature; build with default features to open the viewer".into(),
    })
}

#[cfg(feature = "viewer")]
fn view(args: ViewArgs) -> Result<()> {
    use navlab::viewer::{DrawMode, ViewerOptions};
    let draw_mode = match args.draw {
        None => DrawMode::default(),
        Some(name) => name
            .parse()
            .map_err(|message| NavlabError::InvalidSetting {
                name: "draw",
                value: name,
                reason: message,
            })?,
    };
    if let Some(size) = args.tile_size.filter(|s| !(16..=4096).contains(s)) {
        return Err(NavlabError::InvalidSetting {
            name: "tile-size",
            value: size.to_string(),
            reason: "must be between 16 and 4096 cells".into(),
        });
    }
    navlab::viewer::run(ViewerOptions {
        mesh: args.mesh,
        settings: match args.config {
            Some(path) => BuildSettings::load_toml(&path)?,
            None => BuildSettings::default(),
        },
        draw_mode,
        tile_size: args.tile_size,
        nav_mesh: args.navmesh,
        screenshot: args.screenshot,
        size: navlab::viewer::UVec2::new(args.size.0, args.size.1),
        frames: args.frames,
        self_test: args.self_test,
    })
}
