//! Peak heap of a solo build on the hostile generated meshes of issue 9, with a counting
//! allocator, and the same meshes written as OBJ for `/usr/bin/time -v navlab bake` and the C++
//! comparison.
//!
//! ```sh
//! cargo run --release --no-default-features --example hostile_memory -- garage 41 150 [PARTITION]
//! cargo run --release --no-default-features --example hostile_memory -- soup 293 1000 [PARTITION]
//! cargo run --release --no-default-features --example hostile_memory -- garage 41 400 --write garage.obj
//! ```
//!
//! `garage FLOORS WIDTH` stacks FLOORS square floors WIDTH metres wide, 2.5 m apart; `soup
//! TRIANGLES EXTENT` draws TRIANGLES random triangles in a cube EXTENT metres wide (seed 9).
//! The build keeps what `navlab bake` keeps ([`Retention::Final`]); add `--everything` for what
//! the viewer keeps.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use navlab::bake::settings::BuildSettings;
use navlab::bake::solo::{Build, Retention};
use navlab::input::input_geom::InputGeom;
use navlab::input::scene;
use navlab::recast::region::PartitionType;

/// Counts live and peak heap bytes.
struct CountingAllocator;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwards to the system allocator with the caller's layout.
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(live, Ordering::Relaxed);
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `alloc` above with this layout.
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
}

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

fn main() -> navlab::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number = |i: usize| -> f32 {
        args.get(i)
            .and_then(|a| a.parse().ok())
            .unwrap_or_else(|| usage())
    };
    let mesh = match args.first().map(String::as_str) {
        Some("garage") => scene::garage(number(1) as usize, number(2), 2.5),
        Some("soup") => scene::random_soup(9, number(1) as usize, number(2)),
        _ => usage(),
    };
    let rest = &args[3.min(args.len())..];
    if let Some(at) = rest.iter().position(|a| a == "--write") {
        let path = rest.get(at + 1).unwrap_or_else(|| usage());
        let text = scene::obj_text(&mesh);
        return Ok(navlab::file::write_atomically(
            path.as_ref(),
            text.as_bytes(),
        )?);
    }
    let retention = if rest.iter().any(|a| a == "--everything") {
        Retention::Everything
    } else {
        Retention::Final
    };
    let partition = rest
        .iter()
        .find_map(|a| a.parse::<PartitionType>().ok())
        .unwrap_or_default();
    let settings = BuildSettings {
        partition_type: partition,
        ..BuildSettings::default()
    };

    let input = InputGeom::from_mesh(mesh)?;
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let started = Instant::now();
    let build = Build::from_input_keeping(&input, settings, retention)?;
    let elapsed = started.elapsed();
    let peak = PEAK.load(Ordering::Relaxed) - base;
    println!(
        "{} {:?}: {} rasterized spans, peak heap {:.1} MiB, {:.1} s, {} polygons",
        partition.name(),
        retention,
        build.span_counts.rasterized,
        peak as f64 / (1024.0 * 1024.0),
        elapsed.as_secs_f64(),
        build.poly_mesh.npolys
    );
    Ok(())
}

fn usage() -> ! {
    eprintln!(
        "usage: hostile_memory garage FLOORS WIDTH | soup TRIANGLES EXTENT [PARTITION] [--everything] [--write PATH]"
    );
    std::process::exit(2)
}
