//! What agent profiles cost: one solo build of the generated city with the human profile
//! against `build_profiles` with the three default profiles (human, crouching, vehicle), which
//! rasterize once, and against three separate builds. Medians of several runs, on rayon's
//! default pool (`RAYON_NUM_THREADS` sizes it). Run in release:
//! `cargo run --release --no-default-features --example profile_cost -- [BLOCKS] [RUNS]`
//! (the city of `BLOCKS` × `BLOCKS` 12 m blocks, 35 by default; 7 runs).

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

fn main() -> navlab::Result<()> {
    let mut args = std::env::args().skip(1);
    let blocks: usize = args
        .next()
        .map_or(35, |a| a.parse().expect("BLOCKS is a number"));
    let runs: usize = args
        .next()
        .map_or(7, |a| a.parse().expect("RUNS is a number"));
    let input = InputGeom::from_mesh(navlab::input::scene::city(blocks))?;
    let base = BuildSettings::default();
    let profiles = default_profiles();
    let human = profiles[0].apply(&base);

    let (mut one, mut three, mut separate, mut shared) = (vec![], vec![], vec![], vec![]);
    let mut stages = vec![vec![]; Stage::ALL.len()];
    for _ in 0..runs {
        let started = Instant::now();
        let build = Build::from_input_keeping(&input, human.clone(), Retention::Final)?;
        one.push(started.elapsed());
        for (times, time) in stages.iter_mut().zip(build.stage_times) {
            times.push(time.unwrap_or_default());
        }

        let started = Instant::now();
        let built = build_profiles_timed(&input, &base, &profiles, Retention::Final)?;
        three.push(started.elapsed());
        shared.push(built.shared_rasterization);
        for build in built.builds {
            build?;
        }

        let started = Instant::now();
        for profile in &profiles {
            Build::from_input_keeping(&input, profile.apply(&base), Retention::Final)?;
        }
        separate.push(started.elapsed());
    }
    let (one, three, separate) = (median(one), median(three), median(separate));
    let n = profiles.len() as f64;
    println!(
        "city({blocks}), {} threads, medians of {runs} runs:",
        rayon::current_num_threads()
    );
    println!("  one build (human):            {:8.1} ms", ms(one));
    let stage_list: Vec<String> = Stage::ALL
        .iter()
        .zip(stages)
        .map(|(stage, times)| format!("{} {:.0}", stage.name(), ms(median(times))))
        .collect();
    println!("    its stages (ms): {}", stage_list.join(", "));
    println!(
        "  build_profiles, 3 profiles:   {:8.1} ms  = {:.2} x one build (goal {:.1} x), shared rasterization {:.1} ms",
        ms(three),
        ms(three) / ms(one),
        1.0 + 0.6 * (n - 1.0),
        ms(median(shared))
    );
    println!(
        "  3 separate builds:            {:8.1} ms  = {:.2} x one build",
        ms(separate),
        ms(separate) / ms(one)
    );
    Ok(())
}
