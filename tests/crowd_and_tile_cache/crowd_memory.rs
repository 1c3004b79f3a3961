//! `Crowd::heap_bytes`, which `navlab crowd` sums to refuse crowds that would not fit before
//! making them, against what a crowd really allocates: a counting global allocator measures
//! the heap a new crowd holds for a few agent counts.

use navlab::crowd::Crowd;
use navlab::detour::{NavMesh, NavMeshParams};
use navlab_app::demo::crowd_scenario::demo_crowd_of;

use crate::counting_allocator::live_bytes as live;
use navlab::detour::RefWidth;

#[test]
fn the_estimate_is_within_a_few_percent_of_a_new_crowds_heap() {
    // What the crowd holds does not depend on the navmesh's tiles.
    let nav = NavMesh::new(NavMeshParams {
        orig: [0.0; 3],
        tile_width: 10.0,
        tile_height: 10.0,
        max_tiles: 1,
        max_polys: 1,
        ref_width: RefWidth::Bits32,
    })
    .expect("a navmesh");
    for agents in [1, 128, 5_000, 16_384, 40_000] {
        let before = live();
        let crowd = demo_crowd_of(&nav, agents).expect("a crowd");
        let held = (live() - before) as f64;
        drop(crowd);
        let estimate = Crowd::heap_bytes(agents) as f64;
        assert!(
            (estimate / held - 1.0).abs() < 0.05,
            "{agents} agents: estimated {estimate} bytes, held {held}"
        );
    }
}
