//! The `navlab` command line: `navlab bake` builds a navmesh headless; `navlab test` runs a
//! test-case file; `navlab crowd` walks a crowd over one; `navlab diff` builds with two sets of
//! settings and shows what changed; `navlab explain` says why a spot is or is not walkable;
//! `navlab merge` joins partial bakes; `navlab gen` writes generated scenes (`gen world`, the
//! open world split bakes are tried on); `navlab store` packs a navmesh into a tile store to
//! stream; `navlab tilecache` runs the Temp Obstacles sample with obstacles; `navlab view` (and `navlab` alone) opens the viewer when built with the `viewer`
//! feature. One file per command.

mod bake;
mod crowd;
mod diff;
mod explain;
mod generate;
mod merge;
mod outputs;
mod remote;
mod store;
mod test;
mod tilecache;
mod view;

use std::process::ExitCode;

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{Parser, Subcommand};
use navlab::bake::settings::BuildSettings;

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
    /// Build a solo or tiled navmesh from an OBJ, glTF or .gset file and print the stage timings.
    #[command(after_help = bake::EXIT_STATUS_HELP)]
    Bake(bake::BakeArgs),
    /// Join partial tiled navmeshes (`bake --tiles`) into the whole grid's navmesh file.
    Merge(merge::MergeArgs),
    /// Run a RecastDemo test-case file (paths and raycasts) on the navmesh it names.
    Test(test::TestArgs),
    /// Build a level with two sets of settings (B = A with B's changes) and show what changed:
    /// the figures of both, the surface and cells gained and lost, and paths under both.
    Diff(diff::DiffArgs),
    /// Walk RecastDemo's crowd tool agents from a test-case file's `pf` lines and record them.
    Crowd(crowd::CrowdArgs),
    /// Build RecastDemo's Temp Obstacles tile cache and navmesh, add and remove cylinder
    /// obstacles, and write each phase's navmesh, the tile-cache file and a report.
    Tilecache(tilecache::TileCacheArgs),
    /// Pull a running Bevy game's level, push a navmesh to it, or read its state (Bevy Remote
    /// Protocol, with bevy_navlab's `remote` feature).
    Remote(remote::RemoteArgs),
    /// Say why a spot is or is not walkable: the stage and setting that removed it, the
    /// value measured and the value that would keep it.
    Explain(explain::ExplainArgs),
    /// Write a generated scene as OBJ: `gen world` is an open world of many square kilometres
    /// for split bakes, and prints the tile grid a bake of it makes.
    Gen(generate::GenArgs),
    /// Pack a navmesh file into a tile store a game streams tile by tile (`-o OUT.nlts`), or
    /// list a store (`--info`).
    Store(store::StoreArgs),
    /// Open the viewer (needs the `viewer` feature).
    View(Box<view::ViewArgs>),
}

/// Parses the command line, runs the command and turns an error, the command line's own
/// included, into one `navlab:` line and exit code 1.
pub fn run() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err)
            if matches!(
                err.kind(),
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
            ) =>
        {
            err.exit()
        }
        Err(err) => return fail(&command_line_error(&err)),
    };
    let result = match cli.command {
        Some(Command::Bake(args)) => bake::run(&args),
        Some(Command::Merge(args)) => merge::run(&args),
        Some(Command::Test(args)) => test::run(&args),
        Some(Command::Crowd(args)) => crowd::run(&args),
        Some(Command::Diff(args)) => diff::run(&args),
        Some(Command::Tilecache(args)) => tilecache::run(&args),
        Some(Command::Remote(args)) => remote::run(&args),
        Some(Command::Explain(args)) => explain::run(&args),
        Some(Command::Gen(args)) => generate::run(&args),
        Some(Command::Store(args)) => store::run(&args),
        Some(Command::View(args)) => view::run(*args),
        None => view::run(view::ViewArgs::default()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => fail(&err.to_string()),
    }
}

/// Prints `message` as one `navlab:` line (a multi-line source is joined) and gives exit code 1.
fn fail(message: &str) -> ExitCode {
    let lines: Vec<&str> = message
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    eprintln!("navlab: {}", lines.join(" "));
    ExitCode::FAILURE
}

/// clap's error without its usage block and tips. An unknown flag gets no "similar argument"
/// guess (`--cell-size` is not a misspelt `--tile-size`), but a flag named like a build setting
/// is pointed to the settings file.
fn command_line_error(err: &clap::Error) -> String {
    if err.kind() == ErrorKind::UnknownArgument
        && let Some(ContextValue::String(arg)) = err.get(ContextKind::InvalidArg)
    {
        let flag = arg.split('=').next().unwrap_or(arg).trim_start_matches('-');
        return match BuildSettings::nearest_setting_name(flag) {
            Some(name) => format!(
                "unexpected argument '{arg}': build settings such as `{name}` go in a \
                 settings file (--config FILE, TOML with RecastDemo's names)"
            ),
            None => format!("unexpected argument '{arg}' (see --help for the options)"),
        };
    }
    let rendered = err.render().to_string();
    let lines: Vec<&str> = rendered
        .lines()
        .map(str::trim)
        .take_while(|l| !l.starts_with("Usage:") && !l.starts_with("For more information"))
        .filter(|l| !l.is_empty() && !l.starts_with("tip:"))
        .collect();
    let text = lines.join(" ");
    text.strip_prefix("error: ").unwrap_or(&text).to_owned()
}

/// `--poly-refs`' parser: a polygon reference width Detour has, 32 or 64 bits.
fn parse_poly_refs(text: &str) -> std::result::Result<u32, String> {
    match text.trim() {
        "32" => Ok(32),
        "64" => Ok(64),
        _ => Err(format!(
            "`{}` is not a reference width: 32 or 64",
            navlab::warnings::excerpt(text, 20)
        )),
    }
}
