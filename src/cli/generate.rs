//! `navlab gen` (a file named for the command would be `gen.rs`, a keyword in Rust 2024): write
//! a generated scene as OBJ. `navlab gen world` writes the open world of
//! `navlab::input::scene::world` and prints the tile grid a bake of it makes, which sizes a
//! split bake (docs/world-bake.md).

use std::path::PathBuf;

use navlab::bake::settings::BuildSettings;
use navlab::detour::nav_mesh::MAX_TILE_BITS;
use navlab::error::{NavlabError, Result};
use navlab::input::scene::{self, WORLD_MAX_SIZE, WORLD_MIN_SIZE};
use navlab::recast::config::calc_grid_size;

/// What `navlab gen` was asked to write.
#[derive(clap::Args)]
pub struct GenArgs {
    #[command(subcommand)]
    scene: Scene,
}

#[derive(clap::Subcommand)]
enum Scene {
    /// An open world: rolling ground on a 10 m grid with steep-sided mesas, districts of city
    /// blocks and multi-storey garages on flat pads (about 100 MB of OBJ for 10 km).
    World(WorldArgs),
}

/// What `navlab gen world` was asked to write.
#[derive(clap::Args)]
struct WorldArgs {
    /// The world's side, metres (300 to 20000).
    #[arg(long, value_name = "METRES", default_value_t = 10_000.0, value_parser = parse_world_size)]
    size: f32,
    /// The layout's and the ground's seed: the same seed and size write the same bytes.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The OBJ file to write.
    #[arg(short, long)]
    output: PathBuf,
    /// Print nothing but errors.
    #[arg(long)]
    quiet: bool,
}

/// The tile size the printed grid is for: the one the world bake uses (docs/world-bake.md).
const GRID_TILE_SIZE: i32 = 64;

/// Runs `navlab gen`.
pub fn run(args: &GenArgs) -> Result<()> {
    match &args.scene {
        Scene::World(world) => run_world(world),
    }
}

fn run_world(args: &WorldArgs) -> Result<()> {
    let refuse = |problem: &str| NavlabError::OutputPath {
        flag: "-o",
        path: args.output.clone(),
        problem: problem.to_owned(),
    };
    if args.output.is_dir() {
        return Err(refuse("is a folder; name the OBJ file to write in it"));
    }
    let folder = args.output.parent().filter(|p| !p.as_os_str().is_empty());
    if folder.is_some_and(|f| !f.is_dir()) {
        return Err(refuse("is in a folder that does not exist"));
    }
    let mesh = scene::world(args.size, args.seed);
    let text = scene::obj_text(&mesh);
    navlab::file::write_atomically(&args.output, text.as_bytes())?;
    if args.quiet {
        return Ok(());
    }
    let (bmin, bmax) = mesh.bounds();
    let cell_size = BuildSettings::default().cell_size;
    let (cells_x, cells_z) = calc_grid_size(&bmin, &bmax, cell_size);
    let tiles = |cells: i32| (cells + GRID_TILE_SIZE - 1) / GRID_TILE_SIZE;
    let (tiles_x, tiles_z) = (tiles(cells_x), tiles(cells_z));
    let tile_count = i64::from(tiles_x) * i64::from(tiles_z);
    println!(
        "world of {} m, seed {}: {} triangles, {} vertices, {} written to {}",
        args.size,
        args.seed,
        mesh.tri_count(),
        mesh.vert_count(),
        navlab::memory::format_bytes(text.len() as u64),
        args.output.display()
    );
    println!(
        "bounds: ({}, {}, {}) to ({}, {}, {})",
        bmin[0], bmin[1], bmin[2], bmax[0], bmax[1], bmax[2]
    );
    let max_tiles = 1i64 << MAX_TILE_BITS;
    let over_cap = if tile_count > max_tiles {
        format!(", over the {max_tiles} of 32-bit polygon refs: bake with --poly-refs 64")
    } else {
        String::new()
    };
    println!(
        "tile grid at cellSize {cell_size}, tileSize {GRID_TILE_SIZE}: {cells_x} x {cells_z} \
         cells, {tiles_x} x {tiles_z} tiles ({tile_count} tiles{over_cap})"
    );
    Ok(())
}

/// `--size`'s parser: metres within the generator's range.
fn parse_world_size(text: &str) -> std::result::Result<f32, String> {
    let size: f32 = text.parse().map_err(|_| "not a number".to_owned())?;
    if (WORLD_MIN_SIZE..=WORLD_MAX_SIZE).contains(&size) {
        Ok(size)
    } else {
        Err(format!(
            "must be {WORLD_MIN_SIZE} to {WORLD_MAX_SIZE} metres"
        ))
    }
}
