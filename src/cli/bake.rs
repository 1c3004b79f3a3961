//! `navlab bake`: build a solo or tiled navmesh headless, print the stage timings, write the
//! navmesh file, the stage summary and the detail mesh as OBJ or glTF.
//!
//! Exit status: 0 when the navmesh was built, 1 on any error, which is printed as one line
//! starting with `navlab:`. Problems that did not stop the build are printed as `warning:` lines
//! (bounded, see [`Warnings`]): the loader's, and Recast's non-fatal errors ("too many layers",
//! "overlapping regions"), which keep C++'s wording but do not fail the bake, as in RecastDemo.

use std::path::{Path, PathBuf};

use navlab::bake::export::{self, AreaMesh, ExportOptions};
use navlab::bake::jump_links;
use navlab::bake::profiles::{AgentProfile, ProfileBuilds, build_profiles_timed, check_profiles};
use navlab::bake::settings::BuildSettings;
use navlab::bake::solo::{Build, Retention};
use navlab::bake::tiled::{EmptyTile, TileRange, TiledBuild};
use navlab::bake::validate::{BuildShape, Severity, settings_report};
use navlab::detour::VERTS_PER_POLYGON;
use navlab::error::{NavlabError, Result};
use navlab::input::geomset::GeomSet;
use navlab::input::input_geom::InputGeom;
use navlab::recast::context::{LogCategory, LogEntry};
use navlab::recast::region::PartitionType;
use navlab::warnings::Warnings;

use super::outputs::RunFiles;

/// The exit status, for `navlab bake --help`.
pub const EXIT_STATUS_HELP: &str = "Exit status: 0 when the navmesh was built (problems that did \
not stop the build, Recast's non-fatal errors among them, are printed as `warning:` lines), 1 on \
any error (printed as one line starting with `navlab:`).";

/// Why `-o` is refused for polygons Detour cannot hold.
const WRITE_CONSEQUENCE: &str = "so no navmesh can be written (-o)";

/// What `navlab bake` was asked to do.
#[derive(clap::Args)]
pub struct BakeArgs {
    /// The input: a Wavefront OBJ or glTF (`.gltf`, `.glb`) mesh, or a RecastDemo `.gset`
    /// naming one.
    mesh: PathBuf,
    /// Build settings: a TOML file with RecastDemo's names, or a RecastDemo `.gset`.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Region partitioning (overrides the settings file).
    #[arg(long)]
    partition: Option<PartitionType>,
    /// Write the stage summary as JSON in the C++ reference schema.
    #[arg(long)]
    dump_json: Option<PathBuf>,
    /// Build a tiled navmesh with tiles of this many cells (RecastDemo's Tile Mesh sample).
    #[arg(long)]
    tile_size: Option<i32>,
    /// Build only these tiles of the grid, inclusive (`0..3,4..7`: x 0 to 3, y 4 to 7), for a
    /// bake split across machines; `navlab merge` joins the parts' `-o` files.
    #[arg(
        long,
        value_name = "X0..X1,Y0..Y1",
        requires = "tile_size",
        allow_hyphen_values = true,
        value_parser = parse_tile_range
    )]
    tiles: Option<TileRange>,
    /// Write the Detour navmesh in RecastDemo's all-tiles ("MSET") format.
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Write `-o` as a compact navmesh file (zstd, link slots left out) instead of MSET; Navlab
    /// loads both, C++ Detour only MSET.
    #[arg(long, requires = "output")]
    compact: bool,
    /// Override one setting by RecastDemo's name, after the settings file: `--set
    /// cellSize=0.2 --set partitionType=monotone` (repeatable).
    #[arg(long = "set", value_name = "NAME=VALUE")]
    overrides: Vec<String>,
    /// Save the input, the settings used and the authored volumes and links as a RecastDemo
    /// geometry set (what RecastDemo's key 9 writes).
    #[arg(long, value_name = "OUT.gset")]
    save_gset: Option<PathBuf>,
    /// Write the detail mesh (the navmesh surface) as OBJ, one `g area_<id>` group per area.
    #[arg(long, value_name = "OUT.obj")]
    export_obj: Option<PathBuf>,
    /// Write the detail mesh as glTF, one primitive per area: binary, or JSON with the buffer
    /// embedded when the name ends in `.gltf`.
    #[arg(long, value_name = "OUT.glb")]
    export_gltf: Option<PathBuf>,
    /// Export Z up, (x, y, z) -> (x, -z, y), instead of Recast's Y up.
    #[arg(long)]
    export_z_up: bool,
    /// Multiply exported coordinates by this positive factor (a unit change).
    #[arg(
        long,
        value_name = "F",
        default_value_t = 1.0,
        allow_hyphen_values = true
    )]
    export_scale: f32,
    /// Build one navmesh per agent: `--profile human=0.6,2.0,0.9,45` sets agentRadius,
    /// agentHeight, agentMaxClimb (metres) and agentMaxSlope (degrees) (repeatable, up to 8;
    /// with several, `-o` and the other outputs must contain `{profile}`, replaced by each
    /// name). Solo builds share one rasterization.
    #[arg(long = "profile", value_name = "NAME=RADIUS,HEIGHT,CLIMB,SLOPE")]
    profiles: Vec<String>,
    /// Find jump and climb-down links along the navmesh's edges and bake them in as off-mesh
    /// links (area 5, flags 8), after any the input has; the same as `--set jumpLinks=true`
    /// (docs/jump-links.md).
    #[arg(long)]
    jump_links: bool,
    /// Polygon reference width, 32 (C++ Detour's default) or 64 (the files of a
    /// `DT_POLYREF64` build, and room for 2²⁸ tiles; the same as `--set polyRefs=64`;
    /// docs/poly-refs.md).
    #[arg(long, value_name = "32|64", value_parser = super::parse_poly_refs)]
    poly_refs: Option<u32>,
    /// Print nothing but errors.
    #[arg(long)]
    quiet: bool,
}

/// The placeholder of output paths that `--profile` replaces with each profile's name.
const PROFILE_PLACEHOLDER: &str = "{profile}";

/// The files one build writes: the flags' own, or one profile's with `{profile}` replaced.
#[derive(Default)]
struct BuildOutputs {
    output: Option<PathBuf>,
    dump_json: Option<PathBuf>,
    export_obj: Option<PathBuf>,
    export_gltf: Option<PathBuf>,
}

impl BuildOutputs {
    /// The flags' paths as given.
    fn of(args: &BakeArgs) -> Self {
        Self {
            output: args.output.clone(),
            dump_json: args.dump_json.clone(),
            export_obj: args.export_obj.clone(),
            export_gltf: args.export_gltf.clone(),
        }
    }

    /// The paths of `profile`: `{profile}` replaced by its name.
    fn for_profile(args: &BakeArgs, profile: &AgentProfile) -> Self {
        let named = |path: &Option<PathBuf>| {
            path.as_ref().map(|path| match path.to_str() {
                Some(text) if text.contains(PROFILE_PLACEHOLDER) => {
                    PathBuf::from(text.replace(PROFILE_PLACEHOLDER, &profile.name))
                }
                _ => path.clone(),
            })
        };
        Self {
            output: named(&args.output),
            dump_json: named(&args.dump_json),
            export_obj: named(&args.export_obj),
            export_gltf: named(&args.export_gltf),
        }
    }

    /// Each path with the flag that names it.
    fn flagged(&self) -> [(&'static str, Option<&Path>); 4] {
        [
            ("-o", self.output.as_deref()),
            ("--dump-json", self.dump_json.as_deref()),
            ("--export-obj", self.export_obj.as_deref()),
            ("--export-gltf", self.export_gltf.as_deref()),
        ]
    }
}

/// The `--profile` values read and checked as a list (none without the flag).
fn read_profiles(args: &BakeArgs) -> Result<Vec<AgentProfile>> {
    if args.profiles.is_empty() {
        return Ok(Vec::new());
    }
    let profiles = args
        .profiles
        .iter()
        .map(|text| text.parse())
        .collect::<Result<Vec<AgentProfile>>>()?;
    check_profiles(&profiles)?;
    if profiles.len() > 1 {
        for (flag, path) in BuildOutputs::of(args).flagged() {
            if let Some(path) = path
                && !path
                    .to_str()
                    .is_some_and(|p| p.contains(PROFILE_PLACEHOLDER))
            {
                return Err(NavlabError::OutputPath {
                    flag,
                    path: path.to_owned(),
                    problem: format!(
                        "must contain {PROFILE_PLACEHOLDER} with {} profiles, to write one file per profile (e.g. out_{PROFILE_PLACEHOLDER}.bin)",
                        profiles.len()
                    ),
                });
            }
        }
    }
    if args.save_gset.is_some() {
        return Err(NavlabError::InvalidSetting {
            name: "save-gset",
            value: "with --profile".into(),
            reason: "a geometry set holds one agent's settings; save it with --set instead".into(),
        });
    }
    Ok(profiles)
}

/// `--tiles`' parser: the range's own error, as clap shows it on one line.
fn parse_tile_range(text: &str) -> std::result::Result<TileRange, String> {
    text.parse().map_err(|err: NavlabError| err.to_string())
}

/// The settings file's values: TOML with RecastDemo's names, or a `.gset`'s `s` line; without a
/// file, the input's own (a `.gset` input's saved settings, else RecastDemo's defaults).
pub(crate) fn load_settings(path: Option<&Path>, input: &InputGeom) -> Result<BuildSettings> {
    match path {
        None => Ok(BuildSettings::for_input(input)),
        Some(path)
            if path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("gset")) =>
        {
            let mut settings = BuildSettings::default();
            if let Some(saved) = GeomSet::load(path)?.settings {
                settings.apply_geom_set(&saved);
            }
            settings.validate()?;
            Ok(settings)
        }
        Some(path) => BuildSettings::load_toml(path),
    }
}

/// Runs `navlab bake`.
pub fn run(args: &BakeArgs) -> Result<()> {
    let mesh_path = args.mesh.as_path();
    let quiet = args.quiet;
    let input = InputGeom::load(mesh_path)?;
    let profiles = read_profiles(args)?;
    check_outputs(args, &input, &profiles)?;
    let export_options = export_options(args)?;
    let mut settings = load_settings(args.config.as_deref(), &input)?;
    if let Some(partition) = args.partition {
        settings.partition_type = partition;
    }
    for assignment in &args.overrides {
        settings.set(assignment)?;
    }
    if args.jump_links {
        settings.jump_links = true;
    }
    if let Some(bits) = args.poly_refs {
        settings.poly_refs = bits;
    }
    if settings.jump_links {
        check_jump_links(args, &profiles)?;
    }
    if !quiet {
        for warning in input.mesh.warnings.lines() {
            eprintln!("warning: {warning}");
        }
        let shape = BuildShape {
            bounds: input.nav_mesh_bounds().ok(),
            tile_size: args.tile_size,
            detour: args.output.is_some(),
        };
        let reported: Vec<(String, BuildSettings)> = if profiles.is_empty() {
            vec![(String::new(), settings.clone())]
        } else {
            let named = |p: &AgentProfile| (format!("profile `{}`: ", p.name), p.apply(&settings));
            profiles.iter().map(named).collect()
        };
        for (prefix, settings) in reported {
            for finding in settings_report(&settings, shape) {
                if finding.severity == Severity::Warning {
                    eprintln!("warning: {prefix}{}: {}", finding.setting, finding.message);
                }
            }
        }
    }
    // With jump links the set is saved once they are in it.
    if !settings.jump_links {
        save_gset(args, &input, &settings)?;
    }
    if args.output.is_some() && settings.verts_per_poly as usize > VERTS_PER_POLYGON {
        return Err(too_many_verts_for_detour(
            settings.verts_per_poly,
            WRITE_CONSEQUENCE,
        ));
    }
    if !profiles.is_empty() {
        return bake_profiles(args, &input, &settings, &profiles, export_options);
    }
    let outputs = BuildOutputs::of(args);
    let mut input = input;
    if let Some(tile_size) = args.tile_size {
        return bake_tiled(args, &input, settings, tile_size, export_options, &outputs);
    }
    // Nothing draws the intermediate stages here: free each as soon as the next one has run.
    let mut build = Build::from_input_keeping(&input, settings, Retention::Final)?;
    if !quiet {
        print_log(build.context.entries(), true);
        for line in build.timing_report() {
            println!("{line}");
        }
    }
    if build.settings.jump_links {
        let nav_mesh = build.nav_mesh.as_deref().ok_or_else(|| {
            too_many_verts_for_detour(build.settings.verts_per_poly, JUMP_LINKS_CONSEQUENCE)
        })?;
        add_jump_links(args, &mut input, nav_mesh, &build.settings)?;
        let settings = build.settings.clone();
        build.update_authored(settings, &input.geom_set)?;
    }
    if !quiet && let Some(nav_mesh) = &build.nav_mesh {
        print_loose_links(nav_mesh, &input.geom_set);
    }
    write_solo_outputs(args, &build, &outputs, export_options)
}

/// Why jump links need a Detour navmesh.
const JUMP_LINKS_CONSEQUENCE: &str = "so no jump links can be found (jumpLinks)";

/// Refuses jump links where one bake cannot find them for all it writes: per profile (each
/// agent jumps differently) and in a part of a split bake (parts would disagree at their
/// borders).
fn check_jump_links(args: &BakeArgs, profiles: &[AgentProfile]) -> Result<()> {
    let refused = if !profiles.is_empty() {
        Some(("with --profile", "bake each agent alone with its settings"))
    } else if args.tiles.is_some() {
        Some((
            "with --tiles",
            "links are found on the whole navmesh; bake it whole, or save the links with --save-gset first and split that set",
        ))
    } else {
        None
    };
    match refused {
        Some((value, reason)) => Err(NavlabError::InvalidSetting {
            name: "jumpLinks",
            value: value.into(),
            reason: reason.into(),
        }),
        None => Ok(()),
    }
}

/// Writes `--save-gset`, when asked.
fn save_gset(args: &BakeArgs, input: &InputGeom, settings: &BuildSettings) -> Result<()> {
    if let Some(out) = &args.save_gset {
        settings
            .geom_set_to_save(input, args.tile_size, out)?
            .save(out)?;
    }
    Ok(())
}

/// Finds the jump links of `nav_mesh`, appends them to `input`'s authored links, prints the
/// summary and writes `--save-gset`. The caller rebuilds the navmesh with them.
fn add_jump_links(
    args: &BakeArgs,
    input: &mut InputGeom,
    nav_mesh: &navlab::detour::NavMesh,
    settings: &BuildSettings,
) -> Result<()> {
    let heightfield = jump_links::obstacle_heightfield(input, settings)?;
    let links = jump_links::find_jump_links(nav_mesh, &heightfield, settings);
    let added = links.append_to(&mut input.geom_set);
    if !args.quiet {
        println!("{}", links.summary());
        if added < links.links.len() {
            println!(
                "jump links: {} already in the input",
                links.links.len() - added
            );
        }
    }
    save_gset(args, input, settings)
}

/// Writes a solo build's navmesh, exports and stage summary to `outputs`.
fn write_solo_outputs(
    args: &BakeArgs,
    build: &Build,
    outputs: &BuildOutputs,
    export_options: ExportOptions,
) -> Result<()> {
    if let Some(out) = &outputs.output {
        let nav_mesh = build.nav_mesh.as_ref().ok_or_else(|| {
            too_many_verts_for_detour(build.settings.verts_per_poly, WRITE_CONSEQUENCE)
        })?;
        save_nav_mesh(out, nav_mesh, args.compact)?;
    }
    write_exports(outputs, || {
        export::solo_detail_by_area(build, export_options)
    })?;
    if let Some(out) = &outputs.dump_json {
        let name = args
            .mesh
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let summary = navlab_app::demo::dump::stage_summary(&name, build);
        let text = serde_json::to_string(&summary).expect("a JSON value always serialises");
        navlab::file::write_atomically(out, text.as_bytes())?;
    }
    Ok(())
}

/// A profile's failure, named by the profile.
fn in_profile(profile: &AgentProfile, err: NavlabError) -> NavlabError {
    NavlabError::InProfile {
        profile: profile.name.clone(),
        source: Box::new(err),
    }
}

/// `bake --profile …`: one navmesh per profile. Solo builds share one rasterization and run
/// side by side; tiled ones (`--tile-size`) run one after the other, each rasterizing its own
/// tiles. Every profile is built and written even when one fails; the first failure, named by
/// its profile, is then the command's error.
fn bake_profiles(
    args: &BakeArgs,
    input: &InputGeom,
    settings: &BuildSettings,
    profiles: &[AgentProfile],
    export_options: ExportOptions,
) -> Result<()> {
    let mut first_failure = None;
    if let Some(tile_size) = args.tile_size {
        for profile in profiles {
            if !args.quiet {
                println!("Profile {}:", profile.name);
            }
            let outputs = BuildOutputs::for_profile(args, profile);
            let result = bake_tiled(
                args,
                input,
                profile.apply(settings),
                tile_size,
                export_options,
                &outputs,
            );
            if let Err(err) = result {
                first_failure.get_or_insert(in_profile(profile, err));
            }
        }
    } else {
        let ProfileBuilds {
            builds,
            shared_rasterization,
        } = build_profiles_timed(input, settings, profiles, Retention::Final)?;
        if !args.quiet {
            println!(
                "Shared rasterization:\t{:.2}ms",
                shared_rasterization.as_secs_f64() * 1000.0
            );
        }
        for (profile, build) in profiles.iter().zip(builds) {
            let written = build.and_then(|build| {
                if !args.quiet {
                    print_log(build.context.entries(), false);
                    let own: std::time::Duration = build.stage_times.iter().flatten().sum();
                    println!(
                        "Profile {}: {} polygons, {} vertices, {:.2}ms",
                        profile.name,
                        build.poly_mesh.npolys,
                        build.poly_mesh.nverts,
                        own.as_secs_f64() * 1000.0
                    );
                }
                let outputs = BuildOutputs::for_profile(args, profile);
                write_solo_outputs(args, &build, &outputs, export_options)
            });
            if let Err(err) = written {
                let err = in_profile(profile, err);
                if !args.quiet {
                    println!("Profile {}: failed", profile.name);
                }
                first_failure.get_or_insert(err);
            }
        }
        if !args.quiet {
            print_peak_memory();
        }
    }
    first_failure.map_or(Ok(()), Err)
}

/// The export layout, refused before building when the scale is unusable or no export asks
/// for it.
fn export_options(args: &BakeArgs) -> Result<ExportOptions> {
    let exporting = args.export_obj.is_some() || args.export_gltf.is_some();
    let options = ExportOptions {
        z_up: args.export_z_up,
        scale: args.export_scale,
    };
    if !exporting && options != ExportOptions::default() {
        let flag = if args.export_z_up {
            "export-z-up"
        } else {
            "export-scale"
        };
        return Err(NavlabError::InvalidSetting {
            name: flag,
            value: "without an export".into(),
            reason: "add --export-obj or --export-gltf".into(),
        });
    }
    if !(options.scale.is_finite() && options.scale > 0.0) {
        return Err(NavlabError::InvalidSetting {
            name: "export-scale",
            value: args.export_scale.to_string(),
            reason: "must be a positive finite number".into(),
        });
    }
    Ok(options)
}

/// Writes the `--export-obj` and `--export-gltf` files from the detail mesh `areas` gives.
fn write_exports(
    outputs: &BuildOutputs,
    areas: impl FnOnce() -> Result<Vec<AreaMesh>>,
) -> Result<()> {
    if outputs.export_obj.is_none() && outputs.export_gltf.is_none() {
        return Ok(());
    }
    let areas = areas()?;
    if let Some(out) = &outputs.export_obj {
        export::save_obj(out, &areas)?;
    }
    if let Some(out) = &outputs.export_gltf {
        export::save_gltf(out, &areas)?;
    }
    Ok(())
}

/// A build whose polygons Detour cannot hold: what `bake -o` (refused before building) and
/// `test` (after building) say, `consequence` telling what cannot be done.
pub(crate) fn too_many_verts_for_detour(
    verts_per_poly: impl std::fmt::Display,
    consequence: &str,
) -> NavlabError {
    NavlabError::InvalidSetting {
        name: "vertsPerPoly",
        value: verts_per_poly.to_string(),
        reason: format!(
            "Detour polygons have at most {VERTS_PER_POLYGON} vertices, {consequence}; lower vertsPerPoly"
        ),
    }
}

/// Prints Recast's log: progress on stdout (if asked), warnings and errors on stderr as bounded
/// warnings. An error reaching the log did not stop the build (a fatal one fails the stage), so
/// it is a warning here, in C++'s words.
fn print_log<'a>(entries: impl IntoIterator<Item = &'a LogEntry>, progress: bool) {
    let mut problems = Warnings::default();
    for entry in entries {
        match entry.category {
            LogCategory::Progress => {
                if progress {
                    println!("{}", entry.message);
                }
            }
            LogCategory::Warning | LogCategory::Error => {
                problems.push(log_kind(&entry.message), || entry.message.clone())
            }
        }
    }
    for line in problems.lines() {
        eprintln!("warning: {line}");
    }
}

/// What a log message is about, for counting repeats: its text with numbers left out, so "Too
/// many layers in tile 3" and "… in tile 4" are one kind.
fn log_kind(message: &str) -> String {
    let mut kind = String::from("messages like \"");
    let mut in_number = false;
    for c in message.chars() {
        if c.is_ascii_digit() {
            if !in_number {
                kind.push('N');
            }
            in_number = true;
        } else {
            kind.push(c);
            in_number = false;
        }
    }
    kind.push('"');
    kind
}

/// Refuses outputs that would overwrite an input, or each other, before anything is built
/// (every profile's, with profiles).
fn check_outputs(args: &BakeArgs, input: &InputGeom, profiles: &[AgentProfile]) -> Result<()> {
    let mut files = RunFiles::default();
    files.input_geom("the input", input);
    if let Some(config) = &args.config {
        files.input("the settings file", config);
        // A `.gset` settings file names a mesh too, read or not.
        let is_gset = config
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("gset"));
        if is_gset && let Ok(geom_set) = GeomSet::load(config) {
            files.input(
                "the settings file's mesh",
                &geom_set.mesh_path_relative_to(config),
            );
        }
    }
    let outputs = if profiles.is_empty() {
        vec![BuildOutputs::of(args)]
    } else {
        let named = |profile| BuildOutputs::for_profile(args, profile);
        profiles.iter().map(named).collect()
    };
    for outputs in &outputs {
        for (flag, path) in outputs.flagged() {
            files.output(flag, path);
        }
    }
    files
        .output("--save-gset", args.save_gset.as_deref())
        .check()
}

/// `bake --tile-size N`: every tile through the pipeline, a summary, the navmesh file and the
/// exports.
fn bake_tiled(
    args: &BakeArgs,
    input: &InputGeom,
    settings: BuildSettings,
    tile_size: i32,
    export_options: ExportOptions,
    outputs: &BuildOutputs,
) -> Result<()> {
    if args.dump_json.is_some() {
        return Err(NavlabError::InvalidSetting {
            name: "dump-json",
            value: "with --tile-size".into(),
            reason: "the stage summary describes a solo build; drop --tile-size".into(),
        });
    }
    let started = std::time::Instant::now();
    let progress = tile_progress_bar(args.quiet);
    let built = TiledBuild::new_part(input, settings, tile_size, args.tiles, &|done, total| {
        progress.set_length(total as u64);
        progress.set_position(done as u64);
    });
    progress.finish_and_clear();
    let mut build = built?;
    let with_links;
    let input = if build.settings.jump_links {
        let mut linked = input.clone();
        add_jump_links(args, &mut linked, &build.nav_mesh, &build.settings)?;
        build.update_authored(&linked)?;
        with_links = linked;
        &with_links
    } else {
        input
    };
    let elapsed = started.elapsed();
    if !args.quiet {
        print_log(build.tiles.iter().flat_map(|t| t.context.entries()), false);
        let in_range: Vec<_> = build
            .tiles
            .iter()
            .filter(|t| !matches!(t.output, Err(EmptyTile::OutsideRange)))
            .collect();
        let built: Vec<_> = in_range
            .iter()
            .filter_map(|t| t.output.as_ref().ok())
            .collect();
        let part = args
            .tiles
            .map(|range| format!(", tiles {range}"))
            .unwrap_or_default();
        println!(
            "{} x {} tiles of {tile_size} cells{part}: {} built, {} empty",
            build.tiles_x,
            build.tiles_y,
            built.len(),
            in_range.len() - built.len()
        );
        println!(
            ">> Polymesh: {} vertices  {} polygons",
            built.iter().map(|t| t.poly_mesh.nverts).sum::<usize>(),
            built.iter().map(|t| t.poly_mesh.npolys).sum::<usize>()
        );
        println!("=== TOTAL:\t{:.2}ms", elapsed.as_secs_f64() * 1000.0);
        print_loose_links(&build.nav_mesh, &input.geom_set);
    }
    if let Some(out) = &outputs.output {
        save_nav_mesh(out, &build.nav_mesh, args.compact)?;
    }
    write_exports(outputs, || {
        export::tiled_detail_by_area(&build, export_options)
    })?;
    if !args.quiet {
        print_peak_memory();
    }
    Ok(())
}

/// The process's peak resident memory, last: what a batch job of this bake should ask for.
pub fn print_peak_memory() {
    if let Some(bytes) = navlab::memory::peak_resident_bytes() {
        println!("Peak memory: {}", navlab::memory::format_bytes(bytes));
    }
}

/// A bar of tiles done on stderr, hidden with `--quiet` or when stderr is not a terminal
/// (indicatif checks). The build sets its length.
fn tile_progress_bar(quiet: bool) -> indicatif::ProgressBar {
    if quiet {
        return indicatif::ProgressBar::hidden();
    }
    let bar =
        indicatif::ProgressBar::with_draw_target(None, indicatif::ProgressDrawTarget::stderr());
    let style = indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} tiles {elapsed}")
        .expect("the template is valid");
    bar.set_style(style);
    bar
}

/// Writes `-o`: RecastDemo's MSET, or the compact format when asked.
pub(crate) fn save_nav_mesh(
    out: &Path,
    nav_mesh: &navlab::detour::NavMesh,
    compact: bool,
) -> Result<()> {
    if compact {
        navlab::detour::nav_mesh_compact::save_compact_nav_mesh(out, nav_mesh)?;
    } else {
        navlab::detour::save_nav_mesh(out, nav_mesh)?;
    }
    Ok(())
}

/// Warns of authored off-mesh links the navmesh does not join at both ends (bounded, like
/// every list of warnings).
fn print_loose_links(nav_mesh: &navlab::detour::NavMesh, geom_set: &GeomSet) {
    let mut problems = Warnings::default();
    for link in navlab::bake::authoring::loose_links(nav_mesh, geom_set) {
        problems.push("off-mesh links off the navmesh", || link.to_string());
    }
    for line in problems.lines() {
        eprintln!("warning: {line}");
    }
}
