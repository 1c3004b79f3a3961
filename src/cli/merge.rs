//! `navlab merge`: join the partial navmeshes `navlab bake --tiles` wrote into the file one
//! bake of the whole grid writes, byte for byte.

use std::path::PathBuf;

use navlab::bake::merge::merge_parts;
use navlab::detour::load_nav_mesh;
use navlab::error::Result;

/// What `navlab merge` was asked to do.
#[derive(clap::Args)]
pub struct MergeArgs {
    /// The parts: navmesh files (MSET or compact) from `navlab bake --tiles`, in any order.
    parts: Vec<PathBuf>,
    /// The merged navmesh file.
    #[arg(short, long)]
    output: PathBuf,
    /// Write the compact format (see `navlab bake --compact`) instead of MSET.
    #[arg(long)]
    compact: bool,
    /// Print nothing but errors.
    #[arg(long)]
    quiet: bool,
}

/// Runs `navlab merge`.
pub fn run(args: &MergeArgs) -> Result<()> {
    let mut files = super::outputs::RunFiles::default();
    for part in &args.parts {
        files.input(format!("the part {}", part.display()), part);
    }
    files.output("-o", Some(&args.output)).check()?;
    let parts = args
        .parts
        .iter()
        .map(|path| Ok((path.clone(), load_nav_mesh(path)?)))
        .collect::<Result<Vec<_>>>()?;
    let merged = merge_parts(&parts)?;
    super::bake::save_nav_mesh(&args.output, &merged, args.compact)?;
    if !args.quiet {
        println!(
            "{} part{}, {} tiles merged into {}",
            parts.len(),
            if parts.len() == 1 { "" } else { "s" },
            merged.tiles().count(),
            args.output.display()
        );
        super::bake::print_peak_memory();
    }
    Ok(())
}
