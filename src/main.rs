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
            quiet,
        }) => bake(
            &mesh,
            config.as_deref(),
            partition,
            dump_json.as_deref(),
            quiet,
        ),
        Some(Command::View {
            mesh,
            config,
            draw,
            screenshot,
            size,
            frames,
            self_test,
        }) => view(ViewArgs {
            mesh,
            config,
            draw,
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

fn bake(
    mesh_path: &Path,
    config: Option<&Path>,
    partition: Option<PartitionType>,
    dump_json: Option<&Path>,
    quiet: bool,
) -> Result<()> {
    let input = InputGeom::load(mesh_path)?;
    let mut settings = load_settings(config, &input)?;
    if let Some(partition) = partition {
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
    if let Some(out) = dump_json {
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

/// `navlab view`'s arguments (all defaults for plain `navlab`).
#[cfg_attr(not(feature = "viewer"), allow(dead_code))]
struct ViewArgs {
    mesh: Option<PathBuf>,
    config: Option<PathBuf>,
    draw: Option<String>,
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
            screenshot: None,
            size: (1280, 800),
            frames: 5,
            self_test: None,
        }
    }
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
    navlab::viewer::run(ViewerOptions {
        mesh: args.mesh,
        settings: match args.config {
            Some(path) => BuildSettings::load_toml(&path)?,
            None => BuildSettings::default(),
        },
        draw_mode,
        screenshot: args.screenshot,
        size: navlab::viewer::UVec2::new(args.size.0, args.size.1),
        frames: args.frames,
        self_test: args.self_test,
    })
}
