//! `navlab store`: pack a navmesh file (MSET or compact) into a tile store a game streams tile
//! by tile (`docs/streaming.md`), or list a store's contents.

use std::path::PathBuf;

use navlab::detour::load_nav_mesh;
use navlab::detour::tile_store::TileStore;
use navlab::error::Result;

/// What `navlab store` was asked to do.
#[derive(clap::Args)]
pub struct StoreArgs {
    /// The navmesh file to pack (MSET or compact), or with --info the store to list.
    input: PathBuf,
    /// The tile store to write.
    #[arg(short, long, required_unless_present = "info", conflicts_with = "info")]
    output: Option<PathBuf>,
    /// List the store INPUT: its tiles, sizes, reference width and grid.
    #[arg(long)]
    info: bool,
}

/// Runs `navlab store`.
pub fn run(args: &StoreArgs) -> Result<()> {
    let Some(output) = &args.output else {
        return print_info(&TileStore::open(&args.input)?);
    };
    super::outputs::RunFiles::default()
        .input("the navmesh file", &args.input)
        .output("-o", Some(output))
        .check()?;
    let mesh = load_nav_mesh(&args.input)?;
    TileStore::write(output, &mesh)?;
    print_info(&TileStore::open(output)?)
}

/// The store's summary: tiles, bytes, width, links, grid.
fn print_info(store: &TileStore) -> Result<()> {
    let tiles = store.tiles();
    let stored: u64 = tiles.iter().map(|t| u64::from(t.stored_size)).sum();
    let data: u64 = tiles.iter().map(|t| u64::from(t.data_size)).sum();
    let largest = tiles.iter().map(|t| t.stored_size).max().unwrap_or(0);
    let p = store.params();
    println!("{}", store.path().display());
    println!(
        "  {} tiles, {}-bit references, long-range links {}",
        tiles.len(),
        store.ref_width().bits(),
        if store.long_range_links() {
            "on"
        } else {
            "off"
        }
    );
    println!(
        "  {} bytes: tiles {} bytes compressed from {} ({:.1}x), largest tile {} bytes",
        store.file_len(),
        stored,
        data,
        data as f64 / stored.max(1) as f64,
        largest
    );
    let span = |f: fn(&navlab::detour::tile_store::StoredTile) -> i32| {
        (
            tiles.iter().map(f).min().unwrap_or(0),
            tiles.iter().map(f).max().unwrap_or(0),
        )
    };
    let ((x0, x1), (y0, y1)) = (span(|t| t.x), span(|t| t.y));
    println!(
        "  grid x {x0}..{x1}, y {y0}..{y1}; tiles {} x {} at origin ({}, {}, {})",
        p.tile_width, p.tile_height, p.orig[0], p.orig[1], p.orig[2]
    );
    Ok(())
}
