//! `Crowd::heap_bytes`, which `navlab crowd` sums to refuse crowds that would not fit before
//! making them, against what a crowd really allocates: a counting global allocator measures
//! the heap a new crowd holds for a few agent counts.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use navlab::crowd::Crowd;
use navlab::detour::{NavMesh, NavMeshParams};
use navlab_app::demo::crowd_scenario::demo_crowd_of;

thread_local! {
    /// Bytes allocated and not yet freed on this thread.
    static LIVE: Cell<isize> = const { Cell::new(0) };
}

struct CountingAllocator;

fn add(bytes: isize) {
    LIVE.with(|n| n.set(n.get() + bytes));
}

// SAFETY: every call is passed straight to the system allocator; counting touches only a
// const-initialised thread-local, which allocates nothing.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        add(layout.size() as isize);
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        add(layout.size() as isize);
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        add(new_size as isize - layout.size() as isize);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        add(-(layout.size() as isize));
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

fn live() -> isize {
    LIVE.with(Cell::get)
}

#[test]
fn the_estimate_is_within_a_few_percent_of_a_new_crowds_heap() {
    // What the crowd holds does not depend on the navmesh's tiles.
    let nav = NavMesh::new(NavMeshParams {
        orig: [0.0; 3],
        tile_width: 10.0,
        tile_height: 10.0,
        max_tiles: 1,
        max_polys: 1,
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
