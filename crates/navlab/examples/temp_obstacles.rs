//! A path reroutes around an obstacle dropped on it, and comes back when it is removed: the
//! tile cache rebuilds only the tiles the obstacle touches.
//! `cargo run --release -p navlab --example temp_obstacles` exits with an error unless the
//! path goes around the obstacle and back.

use navlab::prelude::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let level = navlab::input::scene::city(3);
    let (mut cache, mut nav) = NavMeshBuilder::new(BuildSettings::default())
        .mesh(&level)
        .build_tile_cache(48)?;
    let filter = QueryFilter::default();
    // Along the street between the first and second rows of blocks.
    let (start, end) = ([1.0, 0.0, 13.5], [35.0, 0.0, 13.5]);

    let before = nav.find_path(start, end, &filter)?;
    // A 4 m crate across the street, halfway.
    let crate_box = Obstacle::Aabb {
        min: [16.0, -0.5, 10.0],
        max: [20.0, 2.0, 17.5],
    };
    let id = cache.add_obstacle(crate_box)?;
    let changed = cache.update(&mut nav)?;
    let around = nav.find_path(start, end, &filter)?;
    cache.remove_obstacle(id)?;
    cache.update(&mut nav)?;
    let after = nav.find_path(start, end, &filter)?;

    println!(
        "{:.1} m, {:.1} m around the crate ({} tiles rebuilt), {:.1} m once it is gone",
        before.length(),
        around.length(),
        changed.len(),
        after.length()
    );
    let inside = |p: [f32; 3]| (16.0..=20.0).contains(&p[0]) && (10.0..=17.5).contains(&p[2]);
    if around.length() <= before.length() + 0.5 || around.points().any(inside) {
        return Err("the path did not go around the obstacle".into());
    }
    if after.waypoints != before.waypoints || changed.is_empty() {
        return Err("removing the obstacle did not give the first path back".into());
    }
    Ok(())
}
