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
        /// Write the Detour navmesh in RecastDemo's all-tiles ("MSET") format.
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Print nothing but errors.
        #[arg(long)]
        quiet: bool,
    },
    /// Open the viewer (needs the `viewer` feature).
    View {
        /// The input mesh; the embedded default scene when absent.
        mesh: Option<PathBuf>,
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
            output,
            quiet,
        }) => bake(&BakeArgs {
            mesh: &mesh,
            config: config.as_deref(),
            partition,
            dump_json: dump_json.as_deref(),
            output: output.as_deref(),
            quiet,
        }),
        Some(Command::View { .. }) | None => view(),
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
    let build = Build::from_input(&input, settings)?;
    if !quiet {
        for entry in build.context.entries() {
            match entry.category {
                LogCategory::Progress => println!("{}", entry.message),
                LogCategory::Warning => eprintln!("warning: {}", entry.message),
                LogCategory::Error => eprintln!("error: {}", entry.message),
            }
        }
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

#[cfg(not(feature = "viewer"))]
fn view() -> Result<()> {
    Err(NavlabError::Stage {
        stage: "navlab view",
        message: "this navlab was built without the `viewer` feature; build with default features to open the viewer".into(),
    })
}

#[cfg(feature = "viewer")]
fn view() -> Result<()> {
    Err(NavlabError::Stage {
        stage: "navlab view",
        message: "the viewer is not part of this build yet".into(),
    })
}
