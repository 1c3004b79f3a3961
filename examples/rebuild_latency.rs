//! The viewer's live-rebuild latency: time from a settings change to the new stage outputs, as the
//! viewer's background build does it (copy the last build, re-run from the earliest affected
//! stage). Run in release: `cargo run --release --no-default-features --example rebuild_latency
//! -- MESH.obj`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use navlab::bake::settings::BuildSettings;
use navlab::bake::solo::Build;

/// A named settings change; the run index lets it alternate between two values.
type Change = (&'static str, fn(&mut BuildSettings, usize));

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort_unstable();
    times[times.len() / 2]
}

fn main() -> navlab::Result<()> {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "assets/Meshes/nav_test.obj".into());
    let mesh = Arc::new(navlab::input::obj::load_obj(path.as_ref())?);
    let base = Build::new(mesh, BuildSettings::default())?;
    let changes: [Change; 2] = [
        ("cellSize (full rebuild)", |s, i| {
            s.cell_size = if i % 2 == 0 { 0.31 } else { 0.29 }
        }),
        ("detailSampleDist (detail only)", |s, i| {
            s.detail_sample_dist = if i % 2 == 0 { 5.0 } else { 7.0 }
        }),
    ];
    for (name, change) in changes {
        let mut times = Vec::new();
        let mut copy_times = Vec::new();
        for i in 0..21 {
            let mut settings = base.settings.clone();
            change(&mut settings, i);
            let started = Instant::now();
            let mut build = base.clone();
            copy_times.push(started.elapsed());
            build.update(settings)?;
            times.push(started.elapsed());
        }
        println!(
            "{name}: median {:.2} ms over {} runs, of which copying the previous build {:.2} ms",
            median(times.clone()).as_secs_f64() * 1000.0,
            times.len(),
            median(copy_times).as_secs_f64() * 1000.0
        );
    }
    Ok(())
}
