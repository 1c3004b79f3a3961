//! `navlab remote`: a running Bevy game with `bevy_navlab`'s remote methods. `pull` writes the
//! level its `NavMeshSource` entities make as OBJ, `push` sends a navmesh file for the game
//! to use, `status` prints the plugin's state.

use std::path::PathBuf;

use navlab::detour::load_nav_mesh;
use navlab::error::{NavlabError, Result};
use navlab_app::remote::{DEFAULT_ADDRESS, Game, RemoteError};

/// What `navlab remote` was asked to do.
#[derive(clap::Args)]
pub struct RemoteArgs {
    #[command(subcommand)]
    action: RemoteAction,
    /// The game's remote protocol address (`bevy_remote`'s RemoteHttpPlugin).
    #[arg(long, default_value = DEFAULT_ADDRESS, global = true)]
    address: String,
}

#[derive(clap::Subcommand)]
enum RemoteAction {
    /// Write the game's level (every NavMeshSource, in world space) as an OBJ file.
    Pull {
        /// The OBJ file to write.
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Send a navmesh file (MSET or compact) for the game to use until its level changes.
    Push {
        /// The navmesh file.
        navmesh: PathBuf,
    },
    /// Print whether the game has a navmesh, its generation and its agents.
    Status,
}

fn remote_error(e: RemoteError) -> NavlabError {
    NavlabError::Stage {
        stage: "remote",
        message: e.to_string(),
    }
}

/// Runs `navlab remote`.
pub fn run(args: &RemoteArgs) -> Result<()> {
    let game = Game::at(&args.address);
    match &args.action {
        RemoteAction::Pull { output } => {
            super::outputs::RunFiles::default()
                .output("-o", Some(output))
                .check()?;
            let level = game.pull_level().map_err(remote_error)?;
            let text = navlab::input::scene::obj_text(&level.mesh);
            navlab::file::write_atomically(output, text.as_bytes())?;
            println!(
                "{} sources, {} triangles written to {}",
                level.sources.len(),
                level.mesh.tri_count(),
                output.display()
            );
        }
        RemoteAction::Push { navmesh } => {
            let nav = load_nav_mesh(navmesh)?;
            let generation = game.push_nav_mesh(&nav).map_err(remote_error)?;
            println!(
                "{} tiles pushed to {}; the game's navmesh generation is {generation}",
                nav.tiles().count(),
                game.address()
            );
        }
        RemoteAction::Status => {
            let status = game.status().map_err(remote_error)?;
            println!("{status}");
        }
    }
    Ok(())
}
