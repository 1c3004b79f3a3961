//! The `navlab` command line: `navlab bake` builds a navmesh headless; `navlab view` (and
//! `navlab` alone) opens the viewer when built with the `viewer` feature. One file per command.

mod bake;
mod test;
mod view;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

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
    Bake(bake::BakeArgs),
    /// Run a RecastDemo test-case file (paths and raycasts) on the navmesh it names.
    Test(test::TestArgs),
    /// Open the viewer (needs the `viewer` feature).
    View(view::ViewArgs),
}

/// Parses the command line, runs the command and turns an error into one `navlab:` line and
/// exit code 1.
pub fn run() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Some(Command::Bake(args)) => bake::run(&args),
        Some(Command::Test(args)) => test::run(&args),
        Some(Command::View(args)) => view::run(args),
        None => view::run(view::ViewArgs::default()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("navlab: {err}");
            ExitCode::FAILURE
        }
    }
}
