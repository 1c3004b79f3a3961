//! A global allocator that counts, per thread, the allocations made and the bytes held, for the
//! tests that check what a crowd holds and that a warm tile cache allocates nothing. Counting
//! per thread keeps the other tests of this binary, on their own threads, out of the figures.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

thread_local! {
    /// Allocations (and reallocations) made on this thread.
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
    /// Bytes allocated and not yet freed on this thread.
    static LIVE: Cell<isize> = const { Cell::new(0) };
}

struct CountingAllocator;

fn note(allocation: bool, bytes: isize) {
    if allocation {
        ALLOCATIONS.with(|n| n.set(n.get() + 1));
    }
    LIVE.with(|n| n.set(n.get() + bytes));
}

// SAFETY: every call is passed straight to the system allocator; counting touches only
// const-initialised thread-locals, which allocate nothing.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(true, layout.size() as isize);
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note(true, layout.size() as isize);
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(true, new_size as isize - layout.size() as isize);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        note(false, -(layout.size() as isize));
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

/// Allocations and reallocations made on this thread so far.
pub fn allocations() -> usize {
    ALLOCATIONS.with(Cell::get)
}

/// Bytes this thread has allocated and not freed.
pub fn live_bytes() -> isize {
    LIVE.with(Cell::get)
}
