//! DetourCrowd and DetourTileCache, against C++'s crowd runs and tile cache.
//! One test binary of several modules (one per former binary), so the suite links fewer
//! executables; `support` is the helpers every binary shares.

#[path = "../support/mod.rs"]
mod support;

mod counting_allocator;
mod crowd_c128;
mod crowd_memory;
mod crowd_parts;
mod crowd_profiling;
mod crowd_reference;
mod tile_cache_alloc;
mod tile_cache_builder;
