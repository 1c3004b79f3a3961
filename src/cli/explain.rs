//! `navlab explain`: why a spot of a level is or is not walkable, in one line (the library's
//! [`navlab::bake::explain`]), and optionally as JSON.

use std::path::PathBuf;

use navlab::bake::explain::{explain, explain_tiled};
use navlab::bake::solo::{Build, Retention, Stage};
use navlab::bake::tiled::TiledBuild;
use navlab::error::Result;
use navlab::input::input_geom::InputGeom;

use super::outputs::RunFiles;

/// What `navlab explain` was asked to do.
#[derive(clap::Args)]
pub struct ExplainArgs {
    /// The input: a Wavefront OBJ or glTF mesh, or a RecastDemo `.gset` naming one.
    mesh: PathBuf,
    /// The spot, in world units: `X,Y,Z` (the column under X,Z, the span nearest Y).
    #[arg(value_name = "X,Y,Z", allow_hyphen_values = true, value_parser = parse_point)]
    point: [f32; 3],
    /// Build settings: a TOML file with RecastDemo's names, or a RecastDemo `.gset`.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Override one setting by RecastDemo's name, after the settings file (repeatable).
    #[arg(long = "set", value_name = "NAME=VALUE")]
    overrides: Vec<String>,
    /// Build tiled with tiles of this many cells, and explain the spot in the tile that
    /// holds it (its polygon and island in the whole grid's navmesh).
    #[arg(long)]
    tile_size: Option<i32>,
    /// Also write the explanation as JSON (schema in docs/explain.md).
    #[arg(long, value_name = "OUT.json")]
    json: Option<PathBuf>,
}

/// `X,Y,Z` as three finite numbers.
fn parse_point(text: &str) -> std::result::Result<[f32; 3], String> {
    let values: Vec<&str> = text.split(',').map(str::trim).collect();
    let [x, y, z] = values.as_slice() else {
        return Err("expected three numbers X,Y,Z separated by commas".into());
    };
    let number = |s: &str| match s.parse::<f32>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err(format!("'{s}' is not a finite number")),
    };
    Ok([number(x)?, number(y)?, number(z)?])
}

/// Runs `navlab explain`.
pub fn run(args: &ExplainArgs) -> Result<()> {
    let input = InputGeom::load(&args.mesh)?;
    let mut files = RunFiles::default();
    files.input_geom("the input", &input);
    if let Some(config) = &args.config {
        files.input("the settings file", config);
    }
    files.output("--json", args.json.as_deref()).check()?;
    let mut settings = super::bake::load_settings(args.config.as_deref(), &input)?;
    for assignment in &args.overrides {
        settings.set(assignment)?;
    }
    let why = match args.tile_size {
        Some(tile_size) => {
            let mut tiled = TiledBuild::new(&input, settings, tile_size)?;
            explain_tiled(&mut tiled, &input, args.point)?
        }
        None => {
            let mut build =
                Build::unbuilt_for_input(&input, settings, Retention::Everything, None)?;
            // A failed stage is part of the answer: the build records it and the explanation
            // says it.
            if let Err(err) = build.rebuild_from(Stage::Rasterize) {
                eprintln!("warning: the build failed: {err}");
            }
            explain(&build, args.point)
        }
    };
    println!("{why}");
    if let Some(out) = &args.json {
        let value = serde_json::json!({
            "stage": why.stage.map(Stage::name),
            "setting": why.setting,
            "measured": why.measured.map(shortest),
            "keepValue": why.keep_value.map(shortest),
            "unit": why.unit,
            "walkable": why.walkable,
            "certain": why.certain,
            "sentence": why.sentence,
            "poly": why.poly,
            "island": why.island.map(|(index, _)| index),
            "islands": why.island.map(|(_, count)| count),
            "position": why.position.map(|p| p.map(shortest)),
        });
        let text = serde_json::to_string_pretty(&value).expect("a JSON value always serialises");
        navlab::file::write_atomically(out, text.as_bytes())?;
    }
    Ok(())
}

/// `value` as the f64 its shortest decimal form names (0.3, not 0.30000001192092896), so the
/// JSON shows the digits the line shows.
fn shortest(value: f32) -> f64 {
    value.to_string().parse().unwrap_or(f64::from(value))
}
