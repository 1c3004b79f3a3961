//! Moving obstacles at run time must not allocate once the tile cache is warm: a counting
//! global allocator checks that adding obstacles, rebuilding their layers, removing them and
//! rebuilding again allocates nothing the second time the same clicks come round (the first
//! round grows the buffers and hands back the replaced navmesh tiles).

use navlab::bake::settings::BuildSettings;
use navlab::bake::temp_obstacles::build_tile_cache_and_nav_mesh;
use navlab::bake::temp_obstacles::{DEFAULT_TILE_SIZE, TempObstaclesBuild, sample_mesh_process};
use navlab::detour::NavMesh;
use navlab::input::{InputGeom, scene};
use navlab::tile_cache::builder::{LayerTileBuilder, ScratchAllocator};
use navlab::tile_cache::cache::TileCache;
use navlab::tile_cache::obstacles::Obstacles;

use crate::counting_allocator::allocations;

/// Adds an obstacle at each click, updates until up to date, removes them all and updates
/// again.
fn round(
    obstacles: &mut Obstacles,
    cache: &TileCache,
    nav_mesh: &mut NavMesh,
    clicks: &[[f32; 3]],
) {
    let mut added = [0; 8];
    for (slot, &click) in added.iter_mut().zip(clicks) {
        *slot = obstacles
            .add(TempObstaclesBuild::click_obstacle(click))
            .expect("the pool has room");
    }
    while !obstacles
        .update(cache, nav_mesh, sample_mesh_process)
        .expect("rebuilds")
    {}
    for &r in &added[..clicks.len()] {
        obstacles.remove(r).expect("the queue has room");
    }
    while !obstacles
        .update(cache, nav_mesh, sample_mesh_process)
        .expect("rebuilds")
    {}
}

#[test]
fn obstacle_updates_allocate_nothing_after_warm_up() {
    let input = InputGeom::from_mesh(scene::city(3)).expect("the city loads");
    let settings = BuildSettings::default();
    let mut builder = LayerTileBuilder::new();
    let mut scratch = ScratchAllocator::new(usize::MAX);
    let (cache, _, mut nav_mesh, _) = build_tile_cache_and_nav_mesh(
        &input,
        &settings,
        DEFAULT_TILE_SIZE,
        &mut scratch,
        &mut builder,
        None,
    )
    .expect("builds");
    // A click at the middle of every fourth polygon of the first tiles: obstacles on streets,
    // some on tile borders (they touch several layers).
    let clicks: Vec<[f32; 3]> = nav_mesh
        .tiles()
        .flat_map(|(_, tile)| {
            (0..tile.poly_count()).step_by(4).filter_map(move |p| {
                let (verts, n) = tile.poly_vertices(p)?;
                let sum = verts[..n]
                    .iter()
                    .fold([0.0; 3], |s, v| [s[0] + v[0], s[1] + v[1], s[2] + v[2]]);
                Some(sum.map(|c| c / n as f32))
            })
        })
        .take(8)
        .collect();
    assert!(clicks.len() >= 4, "the city has polygons to click on");
    let mut obstacles = Obstacles::new(128).expect("a pool");
    obstacles.set_builder(builder);
    obstacles.set_scratch(Some(scratch));

    let before = allocations();
    round(&mut obstacles, &cache, &mut nav_mesh, &clicks);
    assert!(
        allocations() > before,
        "the count sees the first round's growth"
    );
    for warm in 1..=3 {
        let before = allocations();
        round(&mut obstacles, &cache, &mut nav_mesh, &clicks);
        assert_eq!(
            allocations() - before,
            0,
            "allocations in warm round {warm}"
        );
    }
}
