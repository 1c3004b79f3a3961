//! Per-timer medians of repeated solo builds, printed like the C++ timing driver the README's
//! speed table was measured against (one `RECAST_TIMER_NAME<TAB>ms` line per label that ran), so
//! both run under the same conditions. One warm-up build is not counted.
//!
//! `cargo run --release --no-default-features --example stage_timings -- MESH.obj PARTITION RUNS`;
//! `... -- --write-city PATH [BLOCKS]` writes `navlab::input::scene::city(35)` (or of `BLOCKS`
//! blocks, e.g. 84 for the README's 1 km² split bake) as OBJ for the C++ side;
//! `... -- --write-ramp PATH TURNS RISE` writes `navlab::input::scene::spiral_ramp(TURNS, RISE)`.

use std::sync::Arc;
use std::time::Duration;

use navlab::bake::settings::BuildSettings;
use navlab::bake::solo::Build;
use navlab::recast::context::TimerLabel;
use navlab::recast::region::PartitionType;

fn main() -> navlab::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [flag, path, blocks @ ..] = args.as_slice()
        && flag == "--write-city"
    {
        let blocks = match blocks {
            [] => 35,
            [n] => n.parse().unwrap_or_else(|_| {
                eprintln!("stage_timings: BLOCKS must be a whole number, not {n:?}");
                std::process::exit(2)
            }),
            _ => {
                eprintln!("usage: stage_timings --write-city PATH [BLOCKS]");
                std::process::exit(2)
            }
        };
        return write_obj(&navlab::input::scene::city(blocks), path);
    }
    if let [flag, path, turns, rise] = args.as_slice()
        && flag == "--write-ramp"
    {
        let (Ok(turns), Ok(rise)) = (turns.parse(), rise.parse()) else {
            eprintln!("usage: stage_timings --write-ramp PATH TURNS RISE_PER_TURN");
            std::process::exit(2)
        };
        return write_obj(&navlab::input::scene::spiral_ramp(turns, rise), path);
    }
    let [mesh, partition, runs] = args.as_slice() else {
        eprintln!(
            "usage: stage_timings MESH.obj watershed|monotone|layers RUNS | --write-city PATH [BLOCKS] | --write-ramp PATH TURNS RISE"
        );
        std::process::exit(2);
    };
    let mesh = Arc::new(navlab::input::obj::load_obj(mesh.as_ref())?);
    let settings = BuildSettings {
        partition_type: partition
            .parse::<PartitionType>()
            .unwrap_or_else(|err| panic!("partition: {err}")),
        ..BuildSettings::default()
    };
    let runs: usize = runs.parse().expect("RUNS is a number");
    let mut samples: Vec<Vec<Duration>> = vec![Vec::new(); TimerLabel::ALL.len()];
    for run in 0..=runs {
        let build = Build::new(mesh.clone(), settings.clone())?;
        if run == 0 {
            continue;
        }
        for (label, times) in TimerLabel::ALL.iter().zip(&mut samples) {
            times.extend(build.context.accumulated(*label));
        }
    }
    for (label, mut times) in TimerLabel::ALL.into_iter().zip(samples) {
        if !times.is_empty() {
            times.sort_unstable();
            let median = times[times.len() / 2];
            println!(
                "{}\t{:.3}",
                label.recast_name(),
                median.as_secs_f64() * 1000.0
            );
        }
    }
    Ok(())
}

/// Writes `mesh` as a Wavefront OBJ, whole or not at all.
fn write_obj(mesh: &navlab::input::obj::TriMesh, path: &str) -> navlab::Result<()> {
    let text = navlab::input::scene::obj_text(mesh);
    Ok(navlab::file::write_atomically(
        path.as_ref(),
        text.as_bytes(),
    )?)
}
