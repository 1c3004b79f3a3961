//! What agent profiles cost: one solo build of the generated city with the human profile
//! against `build_profiles` with the three default profiles (human, crouching, vehicle), which
//! rasterize once, and against three separate builds. Medians of several runs of wall time and
//! of the process's CPU time (user and system: the work done, which other jobs on a shared
//! machine disturb less), on rayon's default pool (`RAYON_NUM_THREADS` sizes it). Run in
//! release: `cargo run --release --no-default-features --example profile_cost -- [BLOCKS]
//! [RUNS] [CELL_SIZE]` (the city of `BLOCKS` × `BLOCKS` 12 m blocks, 35 by default; 7 runs;
//! RecastDemo's 0.3 m cells).

use std::time::{Duration, Instant};

use navlab::bake::profiles::{build_profiles_timed, default_profiles};
use navlab::bake::settings::BuildSettings;
use navlab::bake::solo::{Build, Retention, Stage};
use navlab::input::input_geom::InputGeom;

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort_unstable();
    times[times.len() / 2]
}

fn ms(time: Duration) -> f64 {
    time.as_secs_f64() * 1000.0
}

/// The CPU time the process has used so far, all threads, user and system.
fn cpu_time() -> Duration {
    // SAFETY: `getrusage` only writes the struct it is given.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage
    };
    let of = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    of(usage.ru_utime) + of(usage.ru_stime)
}

/// Wall and CPU time of `f`.
fn timed<T>(f: impl FnOnce() -> T) -> (T, Duration, Duration) {
    let (started, cpu) = (Instant::now(), cpu_time());
    let value = f();
    (value, started.elapsed(), cpu_time() - cpu)
}

fn main() -> navlab::Result<()> {
    let mut args = std::env::args().skip(1);
    let blocks: usize = args
        .next()
        .map_or(35, |a| a.parse().expect("BLOCKS is a number"));
    let runs: usize = args
        .next()
        .map_or(7, |a| a.parse().expect("RUNS is a number"));
    let input = InputGeom::from_mesh(navlab::input::scene::city(blocks))?;
    let mut base = BuildSettings::default();
    if let Some(cell_size) = args.next() {
        base.cell_size = cell_size.parse().expect("CELL_SIZE is a number");
    }
    let profiles = default_profiles();
    let human = profiles[0].apply(&base);

    // Wall and CPU times of one build, of the profiles and of separate builds.
    let mut times = [const { (Vec::new(), Vec::new()) }; 3];
    let mut shared = Vec::new();
    let mut stages = vec![vec![]; Stage::ALL.len()];
    for _ in 0..runs {
        let (build, wall, cpu) =
            timed(|| Build::from_input_keeping(&input, human.clone(), Retention::Final));
        let build = build?;
        times[0].0.push(wall);
        times[0].1.push(cpu);
        for (times, time) in stages.iter_mut().zip(build.stage_times) {
            times.push(time.unwrap_or_default());
        }
        drop(build);

        let (built, wall, cpu) =
            timed(|| build_profiles_timed(&input, &base, &profiles, Retention::Final));
        let built = built?;
        times[1].0.push(wall);
        times[1].1.push(cpu);
        shared.push(built.shared_rasterization);
        for build in built.builds {
            build?;
        }

        let (built, wall, cpu) = timed(|| {
            profiles
                .iter()
                .map(|p| Build::from_input_keeping(&input, p.apply(&base), Retention::Final))
                .collect::<Vec<_>>()
        });
        times[2].0.push(wall);
        times[2].1.push(cpu);
        for build in built {
            build?;
        }
    }
    let [one, three, separate] = times.map(|(wall, cpu)| (median(wall), median(cpu)));
    let n = profiles.len() as f64;
    println!(
        "city({blocks}), cellSize {}, {} threads, medians of {runs} runs (wall, CPU):",
        base.cell_size,
        rayon::current_num_threads()
    );
    let line = |what: &str, (wall, cpu): (Duration, Duration)| {
        println!(
            "  {what:<28} {:8.1} ms = {:.2} x one build   CPU {:8.1} ms = {:.2} x",
            ms(wall),
            ms(wall) / ms(one.0),
            ms(cpu),
            ms(cpu) / ms(one.1)
        );
    };
    line("one build (human)", one);
    let stage_list: Vec<String> = Stage::ALL
        .iter()
        .zip(stages)
        .map(|(stage, times)| format!("{} {:.0}", stage.name(), ms(median(times))))
        .collect();
    println!("    its stages (ms): {}", stage_list.join(", "));
    line("build_profiles, 3 profiles", three);
    println!(
        "    goal {:.1} x; shared rasterization {:.1} ms",
        1.0 + 0.6 * (n - 1.0),
        ms(median(shared))
    );
    line("3 separate builds", separate);
    Ok(())
}
