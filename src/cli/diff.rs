//! `navlab diff`: one level built with two sets of settings, A and B, and what changed: the
//! table of both builds' figures, the navmesh surface and the walkable cells B gained and lost,
//! and, with `--cases`, each `pf` line's path under both. B is A with B's changes applied.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use navlab::bake::compare::{
    BuildSummary, PathComparison, PolyChanges, SpanChanges, SummaryRow, compare_path, delta_rows,
    poly_changes, span_changes,
};
use navlab::bake::settings::BuildSettings;
use navlab::bake::solo::{Build, Retention};
use navlab::bake::tiled::TiledBuild;
use navlab::detour::NavMesh;
use navlab::detour::query::QueryFilter;
use navlab::error::{NavlabError, Result};
use navlab::input::geomset::GeomSet;
use navlab::input::input_geom::InputGeom;
use navlab_app::demo::tester::POLY_PICK_EXT;
use navlab_app::demo::text::{TestKind, TestLine};
use serde_json::{Value, json};

use super::bake::{load_settings, too_many_verts_for_detour};
use super::outputs::RunFiles;
use super::test::{read_test_file, test_file_error};

/// What `navlab diff` was asked to do.
#[derive(clap::Args)]
pub struct DiffArgs {
    /// The input: a Wavefront OBJ or glTF mesh, or a RecastDemo `.gset` naming one.
    mesh: PathBuf,
    /// A's settings: a TOML file with RecastDemo's names, or a RecastDemo `.gset` (without
    /// it, the input's own settings, as `navlab bake` takes them).
    #[arg(long, value_name = "A.toml")]
    config: Option<PathBuf>,
    /// Override one of A's settings, after A's file (repeatable); B inherits it.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    overrides: Vec<String>,
    /// B's changes: the keys of this TOML file set over A's settings (the other settings stay
    /// A's); a `.gset` sets the settings its `s` line saves.
    #[arg(long, value_name = "B.toml")]
    config_b: Option<PathBuf>,
    /// Override one of B's settings, after `--config-b` (repeatable).
    #[arg(long = "set-b", value_name = "NAME=VALUE")]
    overrides_b: Vec<String>,
    /// A RecastDemo test-case file whose `pf` lines are run on both navmeshes (its `s` and `f`
    /// lines are ignored: MESH is built).
    #[arg(long, value_name = "FILE")]
    cases: Option<PathBuf>,
    /// Write both builds' figures, the changes and the paths as JSON (docs/compare.md).
    #[arg(long, value_name = "OUT.json")]
    json: Option<PathBuf>,
    /// Build tiled navmeshes with tiles of this many cells (both A and B).
    #[arg(long)]
    tile_size: Option<i32>,
}

/// One build and what the comparison needs of it.
struct Built {
    summary: BuildSummary,
    nav_mesh: Arc<NavMesh>,
    /// The solo build, for its final compact heightfield (a tiled build keeps none).
    solo: Option<Build>,
}

/// Runs `navlab diff`.
pub fn run(args: &DiffArgs) -> Result<()> {
    let input = InputGeom::load(&args.mesh)?;
    check_files(args, &input)?;
    let (settings_a, settings_b) = settings(args, &input)?;
    let paths_to_compare = match &args.cases {
        Some(path) => pf_lines(path)?,
        None => Vec::new(),
    };
    let a = build(&input, &settings_a, args.tile_size)?;
    let b = build(&input, &settings_b, args.tile_size)?;

    let rows = delta_rows(&a.summary, &b.summary);
    let polys = poly_changes(&a.nav_mesh, &b.nav_mesh);
    // Cells match within the smaller climb: what both agents could step.
    let climb = settings_a.agent_max_climb.min(settings_b.agent_max_climb);
    let spans = match (&a.solo, &b.solo) {
        (Some(a), Some(b)) => Some(span_changes(&a.regions, &b.regions, climb)),
        _ => None,
    };
    let paths: Vec<(&TestLine, usize, PathComparison)> = paths_to_compare
        .iter()
        .map(|(index, line)| {
            let filter = QueryFilter::with_flags(line.include_flags, line.exclude_flags);
            let path = compare_path(
                &a.nav_mesh,
                &b.nav_mesh,
                line.start,
                line.end,
                &filter,
                POLY_PICK_EXT,
            );
            (line, *index, path)
        })
        .collect();

    print_rows(&rows);
    print_changes(&polys, spans.as_ref(), climb);
    if !paths.is_empty() {
        print_paths(&paths);
    }
    if let Some(out) = &args.json {
        let report = json!({
            "a": summary_json(&a.summary),
            "b": summary_json(&b.summary),
            "rows": rows.iter().map(row_json).collect::<Vec<_>>(),
            "changes": changes_json(&polys, spans.as_ref(), climb),
            "paths": paths.iter().map(|(line, index, path)| path_json(line, *index, path)).collect::<Vec<_>>(),
            "settingsA": settings_json(&settings_a),
            "settingsB": settings_json(&settings_b),
            "tileSize": args.tile_size,
        });
        let text = serde_json::to_string_pretty(&report).expect("a JSON value always serialises");
        navlab::file::write_atomically(out, text.as_bytes())?;
    }
    Ok(())
}

/// Refuses an output that is an input, before anything is built.
fn check_files(args: &DiffArgs, input: &InputGeom) -> Result<()> {
    let mut files = RunFiles::default();
    files.input_geom("the input", input);
    for (what, path) in [
        ("A's settings file", &args.config),
        ("B's settings file", &args.config_b),
        ("the test-case file", &args.cases),
    ] {
        let Some(path) = path else {
            continue;
        };
        files.input(what, path);
        // A `.gset` settings file names a mesh too, read or not.
        if is_gset(path)
            && let Ok(geom_set) = GeomSet::load(path)
        {
            files.input(
                format!("{what}'s mesh"),
                &geom_set.mesh_path_relative_to(path),
            );
        }
    }
    files.output("--json", args.json.as_deref()).check()
}

/// A's settings (its file, then `--set`), and B's: A's, then the keys of B's file, then
/// `--set-b`.
fn settings(args: &DiffArgs, input: &InputGeom) -> Result<(BuildSettings, BuildSettings)> {
    let mut a = load_settings(args.config.as_deref(), input)?;
    for assignment in &args.overrides {
        a.set(assignment)?;
    }
    let mut b = a.clone();
    if let Some(path) = &args.config_b {
        if is_gset(path) {
            if let Some(saved) = GeomSet::load(path)?.settings {
                b.apply_geom_set(&saved);
            }
            b.validate()?;
        } else {
            b.apply_toml_file(path)?;
        }
    }
    for assignment in &args.overrides_b {
        b.set(assignment).map_err(|err| match err {
            NavlabError::InvalidSettingOverride {
                assignment,
                message,
                ..
            } => NavlabError::InvalidSettingOverride {
                flag: "--set-b",
                assignment,
                message,
            },
            other => other,
        })?;
    }
    Ok((a, b))
}

fn is_gset(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("gset"))
}

/// The `pf` lines of a test-case file with their index among its test lines (`navlab test`'s
/// `index`).
fn pf_lines(path: &Path) -> Result<Vec<(usize, TestLine)>> {
    let (_, file) = read_test_file(path)?;
    let lines: Vec<_> = file
        .tests
        .into_iter()
        .enumerate()
        .filter(|(_, line)| line.kind == TestKind::Pathfind)
        .collect();
    if lines.is_empty() {
        return Err(test_file_error(
            path,
            None,
            "has no `pf` lines, the paths --cases compares".into(),
        ));
    }
    Ok(lines)
}

/// Builds the navmesh with `settings`: solo, keeping only the final stages, or tiled.
fn build(input: &InputGeom, settings: &BuildSettings, tile_size: Option<i32>) -> Result<Built> {
    if let Some(tile_size) = tile_size {
        let tiled = TiledBuild::new(input, settings.clone(), tile_size)?;
        return Ok(Built {
            summary: BuildSummary::of_tiled(&tiled),
            nav_mesh: Arc::new(tiled.nav_mesh),
            solo: None,
        });
    }
    let build = Build::from_input_keeping(input, settings.clone(), Retention::Final)?;
    let nav_mesh = build.nav_mesh.clone().ok_or_else(|| {
        too_many_verts_for_detour(settings.verts_per_poly, "so there is no navmesh to compare")
    })?;
    Ok(Built {
        summary: BuildSummary::of_solo(&build),
        nav_mesh,
        solo: Some(build),
    })
}

/// A figure as the table shows it: areas and times with decimals, counts without.
fn figure(row: &SummaryRow, value: f64, signed: bool) -> String {
    let decimals = if row.unit.is_empty() { 0 } else { 1 };
    let unit = if row.unit.is_empty() {
        String::new()
    } else {
        format!(" {}", row.unit)
    };
    if signed {
        format!("{value:+.decimals$}{unit}")
    } else {
        format!("{value:.decimals$}{unit}")
    }
}

fn print_rows(rows: &[SummaryRow]) {
    println!("{:<18} {:>14} {:>14} {:>14}", "", "A", "B", "change");
    for row in rows {
        let percent = if row.a != 0.0 {
            format!(" ({:+.1}%)", 100.0 * row.change() / row.a)
        } else {
            String::new()
        };
        println!(
            "{:<18} {:>14} {:>14} {:>14}{percent}",
            row.name,
            figure(row, row.a, false),
            figure(row, row.b, false),
            figure(row, row.change(), true),
        );
    }
}

fn print_changes(polys: &PolyChanges, spans: Option<&SpanChanges>, climb: f32) {
    println!(
        "navmesh: {} polygons gained, {} lost; {:.1} m² gained, {:.1} m² lost",
        polys.gained.len(),
        polys.lost.len(),
        polys.gained_area,
        polys.lost_area
    );
    match spans {
        Some(spans) => println!(
            "walkable cells: {} gained, {} lost (matched within {climb} m)",
            spans.gained.len(),
            spans.lost.len()
        ),
        None => {
            println!("walkable cells: not compared (a tiled build keeps no compact heightfield)")
        }
    }
}

fn print_paths(paths: &[(&TestLine, usize, PathComparison)]) {
    println!(
        "{:>5} {:>11} {:>11} {:>10} {:>10}",
        "pf", "reachable A", "reachable B", "length A", "length B"
    );
    let yes_no = |b: bool| if b { "yes" } else { "no" };
    let length = |l: Option<f32>| l.map_or("-".to_string(), |l| format!("{l:.2}"));
    for (_, index, path) in paths {
        println!(
            "{index:>5} {:>11} {:>11} {:>10} {:>10}",
            yes_no(path.reachable_a),
            yes_no(path.reachable_b),
            length(path.length_a),
            length(path.length_b)
        );
    }
}

fn summary_json(summary: &BuildSummary) -> Value {
    json!({
        "walkableArea": summary.walkable_area,
        "polys": summary.polys,
        "verts": summary.verts,
        "detailTris": summary.detail_tris,
        "regions": summary.regions,
        "islands": summary.islands.len(),
        "islandAreas": summary.islands.iter().map(|i| i.area).collect::<Vec<_>>(),
        "tiles": summary.tiles,
        "bytes": summary.bytes,
        "buildMs": summary.build_ms,
    })
}

fn row_json(row: &SummaryRow) -> Value {
    json!({
        "name": row.name,
        "unit": row.unit,
        "a": row.a,
        "b": row.b,
        "change": row.change(),
    })
}

fn changes_json(polys: &PolyChanges, spans: Option<&SpanChanges>, climb: f32) -> Value {
    json!({
        "polysGained": polys.gained.len(),
        "polysLost": polys.lost.len(),
        "areaGained": polys.gained_area,
        "areaLost": polys.lost_area,
        "cellsGained": spans.map(|s| s.gained.len()),
        "cellsLost": spans.map(|s| s.lost.len()),
        "cellClimb": decimal(climb),
    })
}

fn path_json(line: &TestLine, index: usize, path: &PathComparison) -> Value {
    json!({
        "index": index,
        "start": point_json(&line.start),
        "end": point_json(&line.end),
        "reachableA": path.reachable_a,
        "reachableB": path.reachable_b,
        "lengthA": path.length_a.map(decimal),
        "lengthB": path.length_b.map(decimal),
        "pathA": points_json(&path.path_a),
        "pathB": points_json(&path.path_b),
    })
}

fn settings_json(settings: &BuildSettings) -> Value {
    // Through text, so each f32 is written as its shortest decimal (0.3, not 0.30000001…).
    let text = serde_json::to_string(settings).expect("build settings always serialise");
    serde_json::from_str(&text).expect("serde_json reads what it writes")
}

/// An f32 as the f64 of its shortest decimal, so the JSON says 0.3 and not 0.30000001192092896.
fn decimal(value: f32) -> f64 {
    value
        .to_string()
        .parse()
        .expect("a finite f32 prints as a number")
}

fn point_json(point: &[f32; 3]) -> Value {
    json!(point.map(decimal))
}

fn points_json(points: &[[f32; 3]]) -> Value {
    Value::Array(points.iter().map(point_json).collect())
}
