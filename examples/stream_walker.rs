//! A walker crossing a tile store's world with a window of tiles loaded around it
//! (docs/streaming.md): each frame the tiles within the window are loaded from the store and
//! those outside it dropped; every few seconds a sample of paths near the walker is found on
//! the streamed navmesh and, after the walk, on the fully loaded one, and compared.
//!
//! `cargo run --release --no-default-features --example stream_walker -- STORE [--speed 10]
//! [--seconds 60] [--window 500] [--fps 30] [--queries 50] [--query-radius 200]
//! [--query-every 5] [--no-full]`
//!
//! The window is a square of side `--window` metres centred on the walker. The walker starts
//! `speed × seconds / 2` before the world's centre and walks along its diagonal, its heading
//! swinging ±10° over the walk (a gentle curve). Peak RSS (VmHWM) is read before the full
//! navmesh is loaded, so it is the streaming's; `--no-full` skips the comparison.

use std::path::PathBuf;
use std::time::Instant;

use navlab::detour::NavMesh;
use navlab::detour::query::QueryFilter;
use navlab::detour::tile_store::TileStore;
use navlab::game::{Path, QueryError};

struct Options {
    store: PathBuf,
    speed: f32,
    seconds: f32,
    window: f32,
    fps: f32,
    queries: usize,
    query_radius: f32,
    query_every: f32,
    full: bool,
}

fn options() -> Options {
    let usage = || -> ! {
        eprintln!(
            "usage: stream_walker STORE [--speed M/S] [--seconds S] [--window M] [--fps N] \
             [--queries N] [--query-radius M] [--query-every S] [--no-full]"
        );
        std::process::exit(2)
    };
    let mut args = std::env::args().skip(1);
    let mut o = Options {
        store: PathBuf::new(),
        speed: 10.0,
        seconds: 60.0,
        window: 500.0,
        fps: 30.0,
        queries: 50,
        query_radius: 200.0,
        query_every: 5.0,
        full: true,
    };
    let mut store = None;
    while let Some(arg) = args.next() {
        let mut value = |name: &str| -> f32 {
            let text = args.next().unwrap_or_else(|| usage());
            text.parse()
                .ok()
                .filter(|v: &f32| v.is_finite() && *v > 0.0)
                .unwrap_or_else(|| {
                    eprintln!("{name}: `{text}` is not a positive number");
                    usage()
                })
        };
        match arg.as_str() {
            "--speed" => o.speed = value("--speed"),
            "--seconds" => o.seconds = value("--seconds"),
            "--window" => o.window = value("--window"),
            "--fps" => o.fps = value("--fps"),
            "--queries" => o.queries = value("--queries") as usize,
            "--query-radius" => o.query_radius = value("--query-radius"),
            "--query-every" => o.query_every = value("--query-every"),
            "--no-full" => o.full = false,
            _ if store.is_none() && !arg.starts_with("--") => store = Some(PathBuf::from(arg)),
            _ => usage(),
        }
    }
    o.store = store.unwrap_or_else(|| usage());
    o
}

/// The process's peak resident memory (VmHWM) or current (VmRSS), in MiB.
fn memory_mib(field: &str) -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            let line = status.lines().find(|l| l.starts_with(field))?;
            line.split_whitespace().nth(1)?.parse::<f64>().ok()
        })
        .map_or(f64::NAN, |kib| kib / 1024.0)
}

/// SplitMix64: the sample's pairs, the same every run.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// The centre of a random ground polygon of a loaded tile whose centre lies within `radius`
/// of `at` (xz).
fn random_point(nav: &NavMesh, at: [f32; 2], radius: f32, rng: &mut Random) -> Option<[f32; 3]> {
    let near: Vec<_> = nav
        .tiles()
        .map(|(_, t)| t)
        .filter(|t| {
            let h = t.header();
            let (cx, cz) = ((h.bmin[0] + h.bmax[0]) / 2.0, (h.bmin[2] + h.bmax[2]) / 2.0);
            (cx - at[0]).hypot(cz - at[1]) <= radius && t.off_mesh_base() > 0
        })
        .collect();
    if near.is_empty() {
        return None;
    }
    let tile = near[rng.below(near.len())];
    let poly = &tile.polys()[rng.below(tile.off_mesh_base())];
    let count = poly.vert_count as usize;
    let mut centre = [0.0f32; 3];
    for &v in &poly.verts[..count] {
        let p = tile.verts()[usize::from(v)];
        for k in 0..3 {
            centre[k] += p[k] / count as f32;
        }
    }
    Some(centre)
}

/// A path's outcome, compared exactly: its polygons and waypoints, or the error's words.
#[derive(PartialEq)]
enum Outcome {
    Found(Vec<u64>, Vec<[u32; 3]>),
    Failed(String),
}

fn outcome(result: Result<Path, QueryError>) -> Outcome {
    match result {
        Ok(path) => Outcome::Found(
            path.polys,
            path.waypoints
                .iter()
                .map(|w| w.position.map(f32::to_bits))
                .collect(),
        ),
        Err(e) => Outcome::Failed(e.to_string()),
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let o = options();
    let opened = Instant::now();
    let store = TileStore::open(&o.store)?;
    let open_ms = opened.elapsed().as_secs_f64() * 1000.0;
    let rss_after_open = memory_mib("VmRSS:");
    let p = *store.params();
    let tiles = store.tiles();
    let cells = |f: fn(&navlab::detour::tile_store::StoredTile) -> i32| {
        let lo = tiles.iter().map(f).min().unwrap_or(0);
        let hi = tiles.iter().map(f).max().unwrap_or(0) + 1;
        (lo, hi)
    };
    let ((x0, x1), (y0, y1)) = (cells(|t| t.x), cells(|t| t.y));
    let world_min = [
        p.orig[0] + x0 as f32 * p.tile_width,
        p.orig[2] + y0 as f32 * p.tile_height,
    ];
    let world_max = [
        p.orig[0] + x1 as f32 * p.tile_width,
        p.orig[2] + y1 as f32 * p.tile_height,
    ];
    let centre = [
        (world_min[0] + world_max[0]) / 2.0,
        (world_min[1] + world_max[1]) / 2.0,
    ];
    let diagonal = (world_max[1] - world_min[1]).atan2(world_max[0] - world_min[0]);
    let heading =
        |t: f32| diagonal + 10f32.to_radians() * (std::f32::consts::TAU * t / o.seconds).sin();

    // The walk's positions, frame by frame: back from the centre by half the walk, then on.
    let frames = (o.seconds * o.fps).round() as usize;
    let dt = 1.0 / o.fps;
    let mut positions = Vec::with_capacity(frames + 1);
    let mut at = [
        centre[0] - diagonal.cos() * o.speed * o.seconds / 2.0,
        centre[1] - diagonal.sin() * o.speed * o.seconds / 2.0,
    ];
    for frame in 0..=frames {
        positions.push(at);
        let h = heading(frame as f32 * dt);
        at = [
            at[0] + h.cos() * o.speed * dt,
            at[1] + h.sin() * o.speed * dt,
        ];
    }
    let window = |at: [f32; 2]| {
        let half = o.window / 2.0;
        (
            [at[0] - half, -1e9, at[1] - half],
            [at[0] + half, 1e9, at[1] + half],
        )
    };

    let mut nav = store.empty_nav_mesh()?;
    let filter = QueryFilter::default();
    let mut rng = Random(29);
    let (mut loaded, mut dropped, mut peak_tiles) = (0usize, 0usize, 0usize);
    let mut load_ms = Vec::new();
    let mut tile_ms = Vec::new();
    let mut unload_ms = Vec::new();
    let mut first_window = None;
    let mut samples = Vec::new();
    let query_frames = (o.query_every * o.fps).round().max(1.0) as usize;
    for (frame, &at) in positions.iter().enumerate() {
        let (bmin, bmax) = window(at);
        let started = Instant::now();
        let gone = nav.unload_tiles_outside(bmin, bmax);
        let unloaded = Instant::now();
        let report = nav.load_tiles_in(&store, bmin, bmax)?;
        let ms = unloaded.elapsed().as_secs_f64() * 1000.0;
        if frame == 0 {
            first_window = Some((report.loaded, ms));
        } else {
            dropped += gone;
            loaded += report.loaded;
            unload_ms.push((unloaded - started).as_secs_f64() * 1000.0);
            if report.loaded > 0 {
                load_ms.push(ms);
                tile_ms.push(ms / report.loaded as f64);
            }
        }
        if gone > 0 || report.loaded > 0 {
            peak_tiles = peak_tiles.max(nav.tile_count());
        }
        if frame % query_frames == 0 {
            for _ in 0..o.queries {
                let (Some(a), Some(b)) = (
                    random_point(&nav, at, o.query_radius, &mut rng),
                    random_point(&nav, at, o.query_radius, &mut rng),
                ) else {
                    continue;
                };
                samples.push((a, b, outcome(nav.find_path(a, b, &filter))));
            }
        }
    }
    let peak_rss = memory_mib("VmHWM:");
    let window_tiles = nav.tile_count();
    drop(nav);

    let (first_tiles, first_ms) = first_window.unwrap_or_default();
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    let max = |v: &[f64]| v.iter().copied().fold(0.0, f64::max);
    let data: u64 = tiles.iter().map(|t| u64::from(t.data_size)).sum();
    println!("stream_walker: {}", o.store.display());
    println!(
        "  world: {} tiles ({}-bit refs, long-range links {}), {:.0} x {:.0} m, store {:.1} MiB \
         ({:.1} MiB of tile data)",
        tiles.len(),
        store.ref_width().bits(),
        if store.long_range_links() {
            "on"
        } else {
            "off"
        },
        world_max[0] - world_min[0],
        world_max[1] - world_min[1],
        store.file_len() as f64 / 1048576.0,
        data as f64 / 1048576.0,
    );
    println!(
        "  walk: {} m/s for {} s at {} fps along the diagonal (±10° swing), square window {} m \
         side centred on the walker",
        o.speed, o.seconds, o.fps, o.window
    );
    println!(
        "  open: {open_ms:.1} ms (index {:.2} MiB, RSS after open {rss_after_open:.1} MiB)",
        std::mem::size_of_val(tiles) as f64 / 1048576.0
    );
    println!("  first window: {first_tiles} tiles in {first_ms:.1} ms");
    println!(
        "  tiles: {:.1} loaded/s, {:.1} dropped/s, {} in the window at the end, {} at most",
        loaded as f64 / f64::from(o.seconds),
        dropped as f64 / f64::from(o.seconds),
        window_tiles,
        peak_tiles
    );
    println!(
        "  load step: {:.3} ms mean, {:.3} ms max over {} frames that loaded; {:.3} ms per tile; \
         unload step {:.3} ms mean, {:.3} ms max",
        mean(&load_ms),
        max(&load_ms),
        load_ms.len(),
        mean(&tile_ms),
        mean(&unload_ms),
        max(&unload_ms)
    );
    println!("  peak RSS (VmHWM) while streaming: {peak_rss:.1} MiB");
    if o.full {
        let before = memory_mib("VmRSS:");
        let started = Instant::now();
        let mut full = store.empty_nav_mesh()?;
        full.load_tiles_in(&store, [f32::MIN; 3], [f32::MAX; 3])?;
        let full_s = started.elapsed().as_secs_f64();
        let full_rss = memory_mib("VmRSS:") - before;
        let equal = samples
            .iter()
            .filter(|(a, b, streamed)| outcome(full.find_path(*a, *b, &filter)) == *streamed)
            .count();
        let found = samples
            .iter()
            .filter(|(_, _, s)| matches!(s, Outcome::Found(..)))
            .count();
        println!(
            "  fully loaded: {} tiles in {full_s:.1} s, +{full_rss:.1} MiB RSS; peak RSS with it \
             {:.1} MiB",
            full.tile_count(),
            memory_mib("VmHWM:")
        );
        println!(
            "  paths: {equal} of {} equal to the fully loaded navmesh's ({found} found on the \
             streamed one)",
            samples.len()
        );
    } else {
        println!(
            "  paths: {} sampled, not compared (--no-full)",
            samples.len()
        );
    }
    Ok(())
}
