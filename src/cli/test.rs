//! `navlab test`: RecastDemo's test-case runner. Builds the sample a test file names (Solo
//! Mesh, or Tile Mesh with tiles of 32 cells) for the mesh it names, runs every `pf` and `rc`
//! line as `TestCase::doTests` does, prints RecastDemo's per-test times, and writes the results
//! in the schema of the C++ reference (`queries/*_results.json`). With `--tester`, the eight
//! Test Navmesh modes per `pf` line instead (`detour/*_tester.json`).

use std::path::{Path, PathBuf};
use std::time::Instant;

use navlab::bake::settings::BuildSettings;
use navlab::bake::solo::Build;
use navlab::bake::tiled::TiledBuild;
use navlab::detour::NavMesh;
use navlab::detour::load_nav_mesh;
use navlab::detour::query::NavMeshQuery;
use navlab::error::{NavlabError, Result};
use navlab::input::InputGeom;
use navlab_app::demo::test_case::{TestCaseReport, run_test_case};
use navlab_app::demo::test_file::{TestSample, find_test_mesh};
pub(super) use navlab_app::demo::test_file::{line_of, read_test_file, test_file_error};
use navlab_app::demo::tester::{AgentParams, QUERY_NODES, TesterInput, run_tester};
use navlab_app::demo::text::TestFile;
use navlab_app::demo::workloads::{QueryCase, run_queries};

use super::outputs::RunFiles;

/// RecastDemo's Tile Mesh tile size, used when the geometry set does not save one.
const DEFAULT_TILE_SIZE: i32 = 32;
/// How the reference describes a navmesh built with RecastDemo's defaults.
const TEST_CASE_SETTINGS: &str = "RecastDemo defaults (Sample::resetCommonSettings), watershed; Tile Mesh tileSize 32; polyPickExt {2,4,2}; dtNavMeshQuery::init(nav, 2048); default dtQueryFilter costs";

/// What `navlab test` was asked to do.
#[derive(clap::Args)]
pub struct TestArgs {
    /// A RecastDemo test-case file (`s` sample, `f` mesh, `pf` path and `rc` raycast lines).
    cases: PathBuf,
    /// Write the results as JSON in the C++ reference schema.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Run the eight Test Navmesh modes for every `pf` line instead of the test cases.
    #[arg(long)]
    tester: bool,
    /// The mesh (OBJ or RecastDemo `.gset`) to build, instead of the one the file names.
    #[arg(long)]
    mesh: Option<PathBuf>,
    /// The sample to build instead of the one the file names: "Solo Mesh" or "Tile Mesh".
    #[arg(long)]
    sample: Option<String>,
    /// Query this navmesh file (RecastDemo's all-tiles format, either reference width)
    /// instead of building one.
    #[arg(long, conflicts_with_all = ["mesh", "sample", "poly_refs"])]
    navmesh: Option<PathBuf>,
    /// Polygon reference width of the navmesh built, 32 (C++ Detour's default) or 64 (a
    /// `DT_POLYREF64` build's; the same as `--set polyRefs=64`; docs/poly-refs.md).
    #[arg(long, value_name = "32|64", value_parser = super::parse_poly_refs)]
    poly_refs: Option<u32>,
    /// Also run the whole list this many times through `run_queries` (the tester's path and
    /// raycast queries, for benchmarks and callgrind) and print the time per pass.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    repeat: Option<u32>,
    /// Print nothing but errors.
    #[arg(long)]
    quiet: bool,
}

/// RecastDemo's two samples a test file can name.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Sample {
    Solo,
    Tile,
}

impl Sample {
    /// One of the two samples `navlab test` builds (not Temp Obstacles).
    pub(super) fn parse(name: &str) -> Option<Sample> {
        match TestSample::parse(name)? {
            TestSample::SoloMesh => Some(Sample::Solo),
            TestSample::TileMesh => Some(Sample::Tile),
            TestSample::TempObstacles => None,
        }
    }

    pub(super) fn name(self) -> &'static str {
        match self {
            Sample::Solo => TestSample::SoloMesh.name(),
            Sample::Tile => TestSample::TileMesh.name(),
        }
    }

    fn other(self) -> Sample {
        match self {
            Sample::Solo => Sample::Tile,
            Sample::Tile => Sample::Solo,
        }
    }
}

/// A navmesh to query and how it was made.
pub(super) struct Subject {
    pub(super) nav: NavMesh,
    sample: Option<Sample>,
    pub(super) build: String,
}

/// The input a test file's samples are built from, with its settings.
pub(super) struct Source {
    pub(super) input: InputGeom,
    settings: BuildSettings,
}

impl Source {
    pub(super) fn build(&self, sample: Sample) -> Result<Subject> {
        let defaults = self.settings == BuildSettings::default();
        let partition = self.settings.partition_type.name();
        let (nav, build) = match sample {
            Sample::Solo => {
                let build = Build::from_input(&self.input, self.settings.clone())?;
                let nav = build.nav_mesh.as_deref().cloned().ok_or_else(|| {
                    super::bake::too_many_verts_for_detour(
                        build.config.max_verts_per_poly,
                        "so there is no Detour navmesh to test",
                    )
                })?;
                let description = if defaults {
                    "Sample_SoloMesh::build, RecastDemo defaults (resetCommonSettings), watershed"
                        .to_string()
                } else {
                    format!("Sample_SoloMesh::build, the input's settings, {partition}")
                };
                (nav, description)
            }
            Sample::Tile => {
                let tile_size = self
                    .input
                    .geom_set
                    .settings
                    .as_ref()
                    .and_then(|s| s.tile_size_cells())
                    .unwrap_or(DEFAULT_TILE_SIZE);
                let build = TiledBuild::new(&self.input, self.settings.clone(), tile_size)?;
                let description = if defaults && tile_size == DEFAULT_TILE_SIZE {
                    "Sample_TileMesh::build, RecastDemo defaults, watershed, tileSize 32"
                        .to_string()
                } else {
                    format!(
                        "Sample_TileMesh::build, the input's settings, {partition}, tileSize {tile_size}"
                    )
                };
                (build.nav_mesh, description)
            }
        };
        Ok(Subject {
            nav,
            sample: Some(sample),
            build,
        })
    }
}

/// Runs `navlab test`.
pub fn run(args: &TestArgs) -> Result<()> {
    let (text, file) = read_test_file(&args.cases)?;
    let test_file_name = args
        .cases
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let named = Sample::parse(&file.sample_name);
    let mut files = test_file_outputs(&args.cases, &file, args.json.as_deref());
    let (subject, source) = match &args.navmesh {
        Some(path) => {
            files.input("the navmesh file", path).check()?;
            let subject = Subject {
                nav: load_nav_mesh(path)?,
                sample: None,
                build: format!("loaded from {}", path.display()),
            };
            (subject, None)
        }
        None => {
            let sample = match &args.sample {
                Some(name) => Sample::parse(name).ok_or_else(|| NavlabError::InvalidSetting {
                    name: "sample",
                    value: name.clone(),
                    reason: "expected \"Solo Mesh\" or \"Tile Mesh\"".into(),
                })?,
                None => named.ok_or_else(|| {
                    test_file_error(
                        &args.cases,
                        line_of(&text, 's'),
                        format!(
                            "names the sample `{}`; navlab builds \"Solo Mesh\" and \"Tile Mesh\" (or pass --sample or --navmesh)",
                            file.sample_name
                        ),
                    )
                })?,
            };
            let source = load_source(
                &args.cases,
                args.mesh.as_deref(),
                &file,
                &text,
                args.poly_refs,
            )?;
            files.input_geom("the mesh", &source.input).check()?;
            (source.build(sample)?, Some(source))
        }
    };
    require_tiles(
        &subject.nav,
        &subject.build,
        "test",
        "every query would fail and there is nothing to test",
    )?;
    if let Some(passes) = args.repeat {
        repeat_queries(&subject.nav, &file, passes, args.quiet)?;
    }
    let printout;
    let json = if args.tester {
        let report = run_tester(
            &subject.nav,
            &file.tests,
            &agent_params(source.as_ref()),
            &TesterInput {
                test_file: test_file_name,
                sample_named_in_file: file.sample_name.clone(),
                sample_used: subject
                    .sample
                    .map_or_else(|| subject.build.clone(), |s| s.name().to_string()),
                geom: file.geom_file_name.clone(),
                build: subject.build.clone(),
            },
        )
        .map_err(query_error)?;
        printout = tester_summary(&report.cases);
        serde_json::to_value(&report)
    } else {
        let report = run_cases(&subject.nav, &file, &test_file_name)?;
        printout = test_results(&report);
        let mut value = serde_json::to_value(&report);
        if let (Ok(object), Some(source), Some(sample)) = (
            value.as_mut().map(|v| v.as_object_mut()),
            &source,
            subject.sample,
        ) && let Some(object) = object
        {
            let saved = NavMesh::from_mset_bytes(&subject.nav.to_mset_bytes())?;
            let again = run_cases(&saved, &file, &test_file_name)?;
            let same = strip_times(&again) == strip_times(&report);
            object.insert(
                "results_identical_when_run_on_saved_bin".into(),
                same.into(),
            );
            let other = sample.other();
            object.insert(
                "extra_other_sample".into(),
                format!(
                    "{} (not what the test file names; provided for extra coverage)",
                    other.name()
                )
                .into(),
            );
            let other_report = run_cases(&source.build(other)?.nav, &file, &test_file_name)?;
            object.insert(
                "results_other_sample".into(),
                serde_json::to_value(&other_report.results).expect("results serialise"),
            );
        }
        value
    };
    if let Some(out) = &args.json {
        let text = serde_json::to_string_pretty(&json.expect("reports serialise"))
            .expect("a JSON value always serialises");
        navlab::file::write_atomically(out, text.as_bytes())?;
    }
    if !args.quiet {
        // After the file is written, so a closed pipe cannot lose it.
        for line in printout {
            println!("{line}");
        }
    }
    Ok(())
}

/// The files of a run over the test-case file `cases` that writes `json`: the test-case file
/// and the mesh it names (read or not) are inputs. The command adds the navmesh or mesh it
/// reads, then checks.
pub(super) fn test_file_outputs(cases: &Path, file: &TestFile, json: Option<&Path>) -> RunFiles {
    let mut files = RunFiles::default();
    files.input("the test-case file", cases);
    if let Ok(mesh) = find_test_mesh(cases, &file.geom_file_name) {
        files.input("the mesh the test-case file names", &mesh);
    }
    files.output("--json", json);
    files
}

/// Refuses a navmesh without tiles (a tile cache whose tiles all failed saves one): every
/// query on it fails, so its results would say nothing.
/// `origin` says where the navmesh came from.
pub(super) fn require_tiles(
    nav: &NavMesh,
    origin: &str,
    stage: &'static str,
    why: &str,
) -> Result<()> {
    if nav.tile_count() > 0 {
        return Ok(());
    }
    Err(NavlabError::Stage {
        stage,
        message: format!("the navmesh ({origin}) has no tiles, so {why}"),
    })
}

/// The input the test file `cases` names (or `mesh`), with its settings: the file's `f` row
/// is looked up as [`find_test_mesh`] does (`Meshes/` beside `TestCases/` first).
pub(super) fn load_source(
    cases: &Path,
    mesh: Option<&Path>,
    file: &TestFile,
    text: &str,
    poly_refs: Option<u32>,
) -> Result<Source> {
    let path = match mesh {
        Some(path) => path.to_owned(),
        None => find_test_mesh(cases, &file.geom_file_name).map_err(|missing| {
            test_file_error(
                cases,
                line_of(text, 'f'),
                format!("{missing}; pass --mesh or --navmesh"),
            )
        })?,
    };
    let input = InputGeom::load(&path)?;
    let mut settings = BuildSettings::for_input(&input);
    if let Some(bits) = poly_refs {
        settings.poly_refs = bits;
    }
    Ok(Source { input, settings })
}

fn agent_params(source: Option<&Source>) -> AgentParams {
    let settings = source.map_or_else(BuildSettings::default, |s| s.settings.clone());
    AgentParams {
        radius: settings.agent_radius,
        height: settings.agent_height,
    }
}

fn query_error(status: navlab::detour::query::Status) -> NavlabError {
    NavlabError::Stage {
        stage: "dtNavMeshQuery::init",
        message: format!("failed with status {status}"),
    }
}

fn run_cases(nav: &NavMesh, file: &TestFile, name: &str) -> Result<TestCaseReport> {
    run_test_case(nav, file, name, TEST_CASE_SETTINGS).map_err(query_error)
}

/// The report without its timings, to compare two runs.
fn strip_times(report: &TestCaseReport) -> Vec<serde_json::Value> {
    report
        .results
        .iter()
        .map(|r| {
            let mut value = serde_json::to_value(r).expect("results serialise");
            if let Some(object) = value.as_object_mut() {
                object.retain(|k, _| !k.ends_with("Time"));
            }
            value
        })
        .collect()
}

/// `--repeat`: the whole list `passes` times in one call of `run_queries`, so callgrind's
/// `--toggle-collect='*run_queries*'` counts just the queries.
fn repeat_queries(nav: &NavMesh, file: &TestFile, passes: u32, quiet: bool) -> Result<()> {
    let cases = QueryCase::from_lines(&file.tests);
    let mut query = NavMeshQuery::new(nav, QUERY_NODES).map_err(query_error)?;
    let started = Instant::now();
    let sums = run_queries::<false>(&mut query, &cases, passes as usize, |_, _| {});
    let elapsed = started.elapsed();
    if !quiet {
        let lines = (cases.len() * passes as usize).max(1);
        println!(
            "{passes} passes of {} lines: {:.3} ms, {:.2} µs per line ({} path polys, {} straight points)",
            cases.len(),
            elapsed.as_secs_f64() * 1e3,
            elapsed.as_secs_f64() * 1e6 / lines as f64,
            sums.path_polys,
            sums.straight_points
        );
    }
    Ok(())
}

/// RecastDemo's `doTests` print-out.
fn test_results(report: &TestCaseReport) -> Vec<String> {
    let mut lines = vec!["Test Results:".to_string()];
    for (n, result) in report.results.iter().enumerate() {
        let ms = |us: u64| us as f64 / 1000.0;
        let total =
            result.find_nearest_poly_time + result.find_path_time + result.find_straight_path_time;
        lines.push(format!(" - Path {n:02}:     {:.4} ms", ms(total)));
        lines.push(format!(
            "    - poly:     {:.4} ms",
            ms(result.find_nearest_poly_time)
        ));
        lines.push(format!(
            "    - path:     {:.4} ms",
            ms(result.find_path_time)
        ));
        lines.push(format!(
            "    - straight: {:.4} ms",
            ms(result.find_straight_path_time)
        ));
    }
    lines
}

fn tester_summary(cases: &[navlab_app::demo::tester::TesterCase]) -> Vec<String> {
    let mut lines = vec![format!(
        "Tester: {} pf lines, eight modes each",
        cases.len()
    )];
    for case in cases {
        let polys = case.pathfind_straight.as_ref().map_or(0, |p| p.npolys);
        lines.push(format!(" - pf {:02}: {polys} path polys", case.pf_index));
    }
    lines
}
