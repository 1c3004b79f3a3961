//! `navlab crowd`: RecastDemo's crowd tool over a test-case file. Agent k starts at the k-th `pf`
//! line's start and walks to its end on the sample the file names; the run is written in the schema
//! of the C++ reference crowd runs (`detour/crowd_*.json`). With `--random-agents` the agents walk
//! workload P's random pairs instead (workload C128 of `tests/data/reference/PERF_DETOUR.md`), in
//! one crowd or several; `--profile` times the update's phases.

use std::path::PathBuf;
use std::time::Instant;

use navlab::detour::NavMesh;
use navlab::detour::load_nav_mesh;
use navlab::detour::query::NavMeshQuery;
use navlab::detour::query::geometry::vdist_2d;
use navlab::error::{NavlabError, Result};
use navlab_app::demo::crowd_profiling::{
    CrowdSet, CrowdSetSpec, DEFAULT_SEED, PhaseStats, ProfileReport,
};
use navlab_app::demo::crowd_scenario::{
    AgentSource, DEMO_AGENT_RADIUS, DEMO_MAX_AGENTS, REFERENCE_AGENTS, ScenarioResult,
    ScenarioSettings, Untimed, check_random_settings, check_settings, run_scenario_with,
};
use navlab_app::demo::text::{TestFile, TestKind};
use navlab_app::demo::workloads::generate_path_pairs_seeded;
use serde::Serialize;

use super::outputs::RunFiles;
use super::test::{
    Sample, line_of, load_source, read_test_file, require_tiles, test_file_error, test_file_outputs,
};

/// What `navlab crowd` was asked to do.
#[derive(clap::Args)]
pub struct CrowdArgs {
    /// A RecastDemo test-case file; its `pf` lines give the agents' starts and targets, and
    /// its sample the navmesh. Not needed with --random-agents and --navmesh.
    cases: Option<PathBuf>,
    /// Agents keep apart from each other (DT_CROWD_SEPARATION).
    #[arg(long)]
    separation: bool,
    /// Obstacle avoidance quality: the demo's presets 0 (low) to 3 (high).
    #[arg(long, default_value_t = 1)]
    avoidance_quality: u8,
    /// Crowd updates to run (at most 10 000 000).
    #[arg(long, default_value_t = 600)]
    steps: usize,
    /// Seconds per update.
    #[arg(long, default_value_t = 1.0 / 30.0, allow_negative_numbers = true)]
    dt: f32,
    /// Record the agents every this many updates (and before the first) for --json; a
    /// recording may take 100 MB (about 800 000 agent states).
    #[arg(long, default_value_t = 10)]
    record_every: usize,
    /// Agents, one per `pf` line from the first (the reference runs use 12).
    #[arg(long, default_value_t = REFERENCE_AGENTS, conflicts_with = "random_agents")]
    agents: usize,
    /// Agents from the first N pairs of workload P's generator instead of `pf` lines
    /// (1 to 100 000).
    #[arg(long, value_name = "N")]
    random_agents: Option<usize>,
    /// The pair generator's seed (12345 is workload P's).
    #[arg(long, default_value_t = DEFAULT_SEED, requires = "random_agents")]
    seed: u32,
    /// Split the random agents over this many crowds (no --json then). Each crowd takes about
    /// 200 KB besides its agents, and all of them at most 2 GB.
    #[arg(long, default_value_t = 1, value_name = "K")]
    crowds: usize,
    /// Update several crowds on parallel threads.
    #[arg(long)]
    parallel: bool,
    /// Print the milliseconds per update of each phase (and put them in the JSON).
    #[arg(long)]
    profile: bool,
    /// Walk on this navmesh file (RecastDemo's all-tiles format, either reference width)
    /// instead of building one.
    #[arg(long, conflicts_with = "poly_refs")]
    navmesh: Option<PathBuf>,
    /// Polygon reference width of the navmesh built, 32 (C++ Detour's default) or 64 (a
    /// `DT_POLYREF64` build's; the same as `--set polyRefs=64`; docs/poly-refs.md).
    #[arg(long, value_name = "32|64", value_parser = super::parse_poly_refs)]
    poly_refs: Option<u32>,
    /// Write the run as JSON in the reference's schema (which records whether a second run on
    /// a fresh crowd matched the first, so the scenario runs twice).
    #[arg(long)]
    json: Option<PathBuf>,
    /// Run the scenario a second time on a fresh crowd and fail unless both runs match, agent
    /// for agent (a plain run simulates once).
    #[arg(long)]
    check_determinism: bool,
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
    /// Only with --profile, so that the default schema stays the reference's.
    #[serde(skip_serializing_if = "Option::is_none")]
    profile: Option<ProfileReport>,
}

fn stage_error(message: impl ToString) -> NavlabError {
    NavlabError::Stage {
        stage: "crowd",
        message: message.to_string(),
    }
}

/// The navmesh to walk on, its sample's name and how it was made.
/// `files` (the run's files so far) is checked with the navmesh or mesh added, before it is read
/// or built.
fn navmesh_for(
    args: &CrowdArgs,
    cases: Option<&(PathBuf, String, TestFile)>,
    mut files: RunFiles,
) -> Result<(NavMesh, String, String)> {
    let sample_name = cases.map_or_else(String::new, |(_, _, file)| file.sample_name.clone());
    if let Some(path) = &args.navmesh {
        files.input("the navmesh file", path).check()?;
        return Ok((
            load_nav_mesh(path)?,
            sample_name,
            format!("loaded from {}", path.display()),
        ));
    }
    let Some((path, text, file)) = cases else {
        return Err(stage_error(
            "give a test-case file to build the navmesh from, or --navmesh",
        ));
    };
    let sample = Sample::parse(&file.sample_name).ok_or_else(|| {
        test_file_error(
            path,
            line_of(text, 's'),
            format!(
                "names the sample `{}`; navlab builds \"Solo Mesh\" and \"Tile Mesh\" (or pass --navmesh)",
                file.sample_name
            ),
        )
    })?;
    let source = load_source(path, None, file, text, args.poly_refs)?;
    files.input_geom("the mesh", &source.input).check()?;
    let subject = source.build(sample)?;
    Ok((subject.nav, sample.name().to_string(), subject.build))
}

/// Prints the profile unless asked to be quiet, and hands it back for the JSON.
fn finish_profile(
    args: &CrowdArgs,
    stats: Option<&PhaseStats>,
    agents: usize,
) -> Option<ProfileReport> {
    let report = stats?.report(agents, args.crowds, args.parallel && args.crowds > 1);
    if !args.quiet {
        println!("{report}");
    }
    Some(report)
}

/// Several crowds of random agents: stepped (and timed) together, no JSON.
fn run_crowd_set(args: &CrowdArgs, nav: &NavMesh, settings: &ScenarioSettings) -> Result<()> {
    let spec = CrowdSetSpec {
        agents: settings.agents,
        crowds: args.crowds,
        seed: args.seed,
        params: settings.agent_params(),
    };
    let mut set = CrowdSet::new(nav, &spec).map_err(stage_error)?;
    set.set_parallel(args.parallel);
    let mut stats = PhaseStats::default();
    let started = Instant::now();
    for _ in 0..settings.steps {
        if args.profile {
            let times = set.update_profiled(settings.dt);
            stats.record(&times, set.last_wall());
        } else {
            set.update(settings.dt);
        }
    }
    let elapsed = started.elapsed();
    if !args.quiet {
        let reached = set
            .crowds()
            .iter()
            .flat_map(|c| c.active_agents().filter_map(|i| c.agent(i)))
            .filter(|ag| vdist_2d(&ag.npos, &ag.target_pos) < ag.params.radius)
            .count();
        println!(
            "{} agents in {} crowds, {} steps of {} s: {reached} reached their targets; {:.3} ms per step",
            set.agent_count(),
            args.crowds,
            settings.steps,
            settings.dt,
            elapsed.as_secs_f64() * 1e3 / settings.steps as f64
        );
    }
    finish_profile(args, args.profile.then_some(&stats), settings.agents);
    Ok(())
}

/// One scenario run, timed per phase when `stats` is given.
fn run_once(
    nav: &NavMesh,
    source: AgentSource<'_>,
    settings: &ScenarioSettings,
    stats: Option<&mut PhaseStats>,
) -> Result<ScenarioResult> {
    let result = match stats {
        Some(stats) => run_scenario_with(nav, source, settings, stats),
        None => run_scenario_with(nav, source, settings, &mut Untimed),
    };
    result.map_err(stage_error)
}

/// Runs `navlab crowd`.
pub fn run(args: &CrowdArgs) -> Result<()> {
    let settings = ScenarioSettings {
        separation: args.separation,
        avoidance_quality: args.avoidance_quality,
        steps: args.steps,
        dt: args.dt,
        record_every: args.record_every,
        agents: args.random_agents.unwrap_or(args.agents),
        // Only the JSON report holds the frames.
        record_frames: args.json.is_some(),
    };
    match args.random_agents {
        Some(agents) => {
            let spec = CrowdSetSpec {
                agents,
                crowds: args.crowds,
                seed: args.seed,
                params: settings.agent_params(),
            };
            spec.check().map_err(stage_error)?;
            check_random_settings(&settings).map_err(stage_error)?;
            if args.crowds > 1 && args.json.is_some() {
                return Err(stage_error(
                    "--json records one crowd; drop --crowds or --json",
                ));
            }
            if args.crowds > 1 && args.check_determinism {
                return Err(stage_error(
                    "--check-determinism compares runs of one crowd; drop --crowds or --check-determinism",
                ));
            }
        }
        None => {
            check_settings(&settings).map_err(stage_error)?;
            if args.crowds != 1 {
                return Err(stage_error("--crowds splits --random-agents"));
            }
        }
    }
    let cases = match &args.cases {
        Some(path) => {
            let (text, file) = read_test_file(path)?;
            Some((path.clone(), text, file))
        }
        None if args.random_agents.is_some() => None,
        None => {
            return Err(stage_error(
                "give a test-case file whose `pf` lines the agents walk (or --random-agents)",
            ));
        }
    };
    if let (None, Some((path, _, file))) = (args.random_agents, &cases)
        && !file.tests.iter().any(|t| t.kind == TestKind::Pathfind)
    {
        return Err(test_file_error(
            path,
            None,
            "has no `pf` lines to take agents from".into(),
        ));
    }
    let files = match &cases {
        Some((path, _, file)) => test_file_outputs(path, file, args.json.as_deref()),
        None => {
            let mut files = RunFiles::default();
            files.output("--json", args.json.as_deref());
            files
        }
    };
    let (nav, sample, build) = navmesh_for(args, cases.as_ref(), files)?;
    require_tiles(&nav, &build, "crowd", "no agent could walk")?;
    if args.random_agents.is_some() && args.crowds > 1 {
        return run_crowd_set(args, &nav, &settings);
    }
    let pairs = match args.random_agents {
        Some(agents) => {
            let query = NavMeshQuery::new(&nav, 2048).map_err(|s| stage_error(format!("{s:?}")))?;
            let generated = generate_path_pairs_seeded(&query, agents, args.seed);
            if generated.pairs.len() < agents {
                return Err(stage_error(format!(
                    "the navmesh gave {} of {agents} agent start/end pairs in {} attempts",
                    generated.pairs.len(),
                    generated.attempts
                )));
            }
            generated.pairs
        }
        None => Vec::new(),
    };
    let source = match &cases {
        Some((_, _, file)) if args.random_agents.is_none() => AgentSource::PathLines(&file.tests),
        _ => AgentSource::Pairs(&pairs),
    };
    let mut stats = args.profile.then(PhaseStats::default);
    let started = Instant::now();
    let result = run_once(&nav, source, &settings, stats.as_mut())?;
    let elapsed = started.elapsed();
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
    let profile = finish_profile(args, stats.as_ref(), result.agents.len());
    // The second run doubles the cost, so only what reports it pays for it.
    let deterministic = (args.json.is_some() || args.check_determinism).then(|| {
        run_once(&nav, source, &settings, None).is_ok_and(|again| again.serialises_like(&result))
    });
    if args.check_determinism {
        if deterministic != Some(true) {
            return Err(stage_error(
                "a second run on a fresh crowd differs from the first",
            ));
        }
        if !args.quiet {
            println!("deterministic: a second run on a fresh crowd matches the first");
        }
    }
    if let Some(out) = &args.json {
        let deterministic = deterministic.unwrap_or_default();
        let max_agents = match args.random_agents {
            Some(agents) => agents.max(DEMO_MAX_AGENTS),
            None => DEMO_MAX_AGENTS,
        };
        let (test_file, geom) = match &cases {
            Some((path, _, file)) => (
                path.file_name()
                    .map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
                file.geom_file_name.clone(),
            ),
            None => (String::new(), String::new()),
        };
        let scenario = match args.random_agents {
            Some(agents) => format!("C{agents}"),
            None if args.separation => "B".to_string(),
            None => "A".to_string(),
        };
        let report = CrowdReport {
            scenario,
            test_file,
            geom,
            sample,
            build,
            crowd_init: format!(
                "dtCrowd::init({max_agents}, agentRadius {DEMO_AGENT_RADIUS}, navmesh); filter 0 excludeFlags = SAMPLE_POLYFLAGS_DISABLED (16)"
            ),
            separation: args.separation,
            obstacle_avoidance_type: args.avoidance_quality,
            deterministic,
            result,
            profile,
        };
        let text = serde_json::to_string_pretty(&report).map_err(stage_error)?;
        navlab::file::write_atomically(out, text.as_bytes())?;
    }
    Ok(())
}
