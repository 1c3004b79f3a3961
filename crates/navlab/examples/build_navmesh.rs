//! Bake a navmesh and write it as RecastDemo's all-tiles file (MSET), which Detour, the
//! `navlab` command and the viewer load.
//!
//! `cargo run --release -p navlab --example build_navmesh` bakes a level made in code;
//! `... -- level.obj out.bin` bakes an OBJ file into `out.bin`. It exits with an error unless
//! the file it wrote loads back into the same navmesh.

use std::path::PathBuf;

use navlab::prelude::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args_os().skip(1).map(PathBuf::from);
    let (level, output) = match (args.next(), args.next()) {
        (Some(obj), output) => (
            navlab::input::obj::load_obj(&obj)?,
            output.unwrap_or_else(|| obj.with_extension("bin")),
        ),
        (None, _) => (
            // Streets, buildings, a stack of floors: any triangles a game has.
            navlab::input::scene::city(3),
            std::env::temp_dir().join(format!("navlab-example-{}.bin", std::process::id())),
        ),
    };

    let settings = BuildSettings {
        agent_radius: 0.5,
        ..BuildSettings::default()
    };
    let nav = NavMeshBuilder::new(settings)
        .mesh(&level)
        .tiled(48)
        .build()?;
    // Written to a temporary file and renamed into place: a crash leaves no half file.
    save_nav_mesh(&output, &nav)?;
    let loaded = load_nav_mesh(&output)?;

    let polys: usize = nav.tiles().map(|(_, tile)| tile.polys().len()).sum();
    println!(
        "{} tiles, {polys} polygons, {} bytes in {}",
        nav.tiles().count(),
        std::fs::metadata(&output)?.len(),
        output.display()
    );
    if std::env::args_os().len() == 1 {
        std::fs::remove_file(&output)?;
    }
    if loaded.to_mset_bytes() != nav.to_mset_bytes() || polys == 0 {
        return Err("the file did not load back into the navmesh that was baked".into());
    }
    Ok(())
}
