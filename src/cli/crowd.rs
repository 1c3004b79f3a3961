//! `navlab crowd`: RecastDemo's crowd tool over a test-case file. Agent k starts at the k-th
//! `pf` line's start and walks to its end on the sample the file names; the run is written in
//! the schema of the C++ reference crowd runs (`detour/crowd_*.json`).

use std::path::PathBuf;
use std::time::Instant;

use navlab::crowd::scenario::{
    DEMO_AGENT_RADIUS, DEMO_MAX_AGENTS, REFERENCE_AGENTS, ScenarioResult, ScenarioSettings,
    check_settings, run_scenario,
};
use navlab::detour::nav_mesh_file::load_nav_mesh;
use navlab::detour::query::text::TestKind;
use navlab::error::{NavlabError, Result};
use serde::Serialize;

use super::test::{Sample, bad_file, line_of, load_source, read_test_file};

/// What `navlab crowd` was asked to do.
#[derive(clap::Args)]
pub struct CrowdArgs {
    /// A RecastDemo test-case file; its `pf` lines give the agents' starts and targets.
    cases: PathBuf,
    /// Agents keep apart from each other (DT_CROWD_SEPARATION).
    #[arg(long)]
    separation: bool,
    /// Obstacle avoidance quality: the demo's presets 0 (low) to 3 (high).
    #[arg(long, default_value_t = 1)]
    avoidance_quality: u8,
    /// Crowd updates to run.
    #[arg(long, default_value_t = 600)]
    steps: usize,
    /// Seconds per update.
    #[arg(long, default_value_t = 1.0 / 30.0, allow_negative_numbers = true)]
    dt: f32,
    /// Record the agents every this many updates (and before the first).
    #[arg(long, default_value_t = 10)]
    record_every: usize,
    /// Agents, one per `pf` line from the first (the reference runs use 12).
    #[arg(long, default_value_t = REFERENCE_AGENTS)]
    agents: usize,
    /// Walk on this navmesh file (RecastDemo's all-tiles format) instead of building one.
    #[arg(long)]
    navmesh: Option<PathBuf>,
    /// Write the run as JSON in the reference's schema.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Print nothing but errors.
    #[arg(long)]
    quiet: bool,
}

/// The whole output file, as the reference lays it out.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CrowdReport {
    scenario: String,
    test_file: String,
    geom: String,
    sample: String,
    build: String,
    crowd_init: String,
    separation: bool,
    obstacle_avoidance_type: u8,
    #[serde(rename = "determinism_two_fresh_crowds_identical")]
    deterministic: bool,
    result: ScenarioResult,
}

/// Runs `navlab crowd`.
pub fn run(args: &CrowdArgs) -> Result<()> {
    let settings = ScenarioSettings {
        separation: args.separation,
        avoidance_quality: args.avoidance_quality,
        steps: args.steps,
        dt: args.dt,
        record_every: args.record_every,
        agents: args.agents,
    };
    check_settings(&settings).map_err(|e| NavlabError::Stage {
        stage: "crowd",
        message: e.to_string(),
    })?;
    let (text, file) = read_test_file(&args.cases)?;
    if !file.tests.iter().any(|t| t.kind == TestKind::Pathfind) {
        return Err(bad_file(
            &args.cases,
            None,
            "has no `pf` lines to take agents from".into(),
        ));
    }
    let (nav, sample, build) = match &args.navmesh {
        Some(path) => (
            load_nav_mesh(path)?,
            file.sample_name.clone(),
            format!("loaded from {}", path.display()),
        ),
        None => {
            let sample = Sample::parse(&file.sample_name).ok_or_else(|| {
                bad_file(
                    &args.cases,
                    line_of(&text, 's'),
                    format!(
                        "names the sample `{}`; navlab builds \"Solo Mesh\" and \"Tile Mesh\" (or pass --navmesh)",
                        file.sample_name
                    ),
                )
            })?;
            let source = load_source(&args.cases, None, &file, &text)?;
            let subject = source.build(sample)?;
            (subject.nav, sample.name().to_string(), subject.build)
        }
    };
    let started = Instant::now();
    let result = run_scenario(&nav, &file.tests, &settings).map_err(|e| NavlabError::Stage {
        stage: "crowd",
        message: e.to_string(),
    })?;
    let elapsed = started.elapsed();
    let deterministic = match run_scenario(&nav, &file.tests, &settings) {
        Ok(again) => serde_json::to_string(&again).ok() == serde_json::to_string(&result).ok(),
        Err(_) => false,
    };
    if !args.quiet {
        let reached = result
            .final_state
            .iter()
            .filter(|f| f.reached_within_radius)
            .count();
        println!(
            "{} agents, {} steps of {} s: {reached} reached their targets; {:.3} ms per step",
            result.agents.len(),
            settings.steps,
            settings.dt,
            elapsed.as_secs_f64() * 1e3 / settings.steps as f64
        );
    }
    if let Some(out) = &args.json {
        let report = CrowdReport {
            scenario: if args.separation { "B" } else { "A" }.to_string(),
            test_file: args
                .cases
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
            geom: file.geom_file_name.clone(),
            sample,
            build,
            crowd_init: format!(
                "dtCrowd::init({DEMO_MAX_AGENTS}, agentRadius {DEMO_AGENT_RADIUS}, navmesh); filter 0 excludeFlags = SAMPLE_POLYFLAGS_DISABLED (16)"
            ),
            separation: args.separation,
            obstacle_avoidance_type: args.avoidance_quality,
            deterministic,
            result,
        };
        let text = serde_json::to_string_pretty(&report).map_err(|e| NavlabError::Stage {
            stage: "crowd",
            message: e.to_string(),
        })?;
        std::fs::write(out, text).map_err(|source| NavlabError::Io {
            path: out.clone(),
            source,
        })?;
    }
    Ok(())
}
