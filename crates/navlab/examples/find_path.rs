//! Bake a level from triangles and walk a path across it: the README's library snippet.
//! Run it with `cargo run --release -p navlab --example find_path`; it exits with an error
//! unless the path crosses the level around the buildings.

use navlab::prelude::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // A 48 m grid of city blocks made in code; a game passes its own level's triangles.
    let level = navlab::input::scene::city(4);
    let nav = NavMeshBuilder::new(BuildSettings::default())
        .mesh(&level)
        .tiled(32)
        .build()?;
    let path = nav.find_path([1.0, 0.0, 1.0], [47.0, 0.0, 47.0], &QueryFilter::default())?;
    println!("{} waypoints, {:.1} m", path.waypoints.len(), path.length());
    // Around the buildings: longer than the 65 m diagonal, with corners on the way.
    assert!(path.length() > 65.0 && path.waypoints.len() > 2);
    Ok(())
}
