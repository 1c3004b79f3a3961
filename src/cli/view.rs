//! `navlab view` (and `navlab` alone): open the viewer, or render a screenshot without a window.

use std::path::PathBuf;

#[cfg(feature = "viewer")]
use navlab::bake::settings::BuildSettings;
use navlab::error::{NavlabError, Result};

/// `navlab view`'s arguments (all defaults for plain `navlab`).
#[derive(clap::Args)]
#[cfg_attr(not(feature = "viewer"), allow(dead_code))]
pub struct ViewArgs {
    /// The input (OBJ, or a RecastDemo `.gset`); the embedded default scene when absent.
    mesh: Option<PathBuf>,
    /// Build settings: a TOML file with RecastDemo's names (a `.gset` input brings its own).
    #[arg(long)]
    config: Option<PathBuf>,
    /// The draw mode to start in, e.g. "poly-mesh" or "Compact Regions".
    #[arg(long)]
    draw: Option<String>,
    /// Start in the Tile Mesh sample with tiles of this many cells (with --sample
    /// temp-obstacles: that sample's tile size, 16 to 128).
    #[arg(long)]
    tile_size: Option<i32>,
    /// Start in this sample: solo-mesh, tile-mesh or temp-obstacles.
    #[arg(long)]
    sample: Option<String>,
    /// With --sample temp-obstacles: add an obstacle as a Create Temp Obstacles click at
    /// X,Y,Z does, once the tile cache is built (repeatable).
    #[arg(long, value_parser = parse_point, allow_hyphen_values = true)]
    obstacle: Vec<[f32; 3]>,
    /// Show this navmesh file (RecastDemo's all-tiles format, C++-made or ours) once the
    /// scene is built.
    #[arg(long)]
    navmesh: Option<PathBuf>,
    /// Render without a window into this PNG file, then exit.
    #[arg(long)]
    screenshot: Option<PathBuf>,
    /// Window or screenshot size, WIDTHxHEIGHT.
    #[arg(long, default_value = "1280x800", value_parser = parse_size)]
    size: (u32, u32),
    /// With --screenshot: frames to render after the build before capturing.
    #[arg(long, default_value_t = 5)]
    frames: u32,
    /// Test a real window: rebuild after one setting change, save a screenshot of the
    /// window to this file, exit.
    #[arg(long, hide = true)]
    self_test: Option<PathBuf>,
    /// The Test Navmesh tool's mode at start-up, e.g. "pathfind-straight" or "Raycast".
    #[arg(long)]
    test_mode: Option<String>,
    /// The Test Navmesh tool's start point, X,Y,Z (what Shift+click sets).
    #[arg(long, value_parser = parse_point, allow_hyphen_values = true)]
    test_start: Option<[f32; 3]>,
    /// The Test Navmesh tool's end point, X,Y,Z (what a click sets).
    #[arg(long, value_parser = parse_point, allow_hyphen_values = true)]
    test_end: Option<[f32; 3]>,
    /// Run this RecastDemo test-case file in the Test Cases window.
    #[arg(long)]
    test_cases: Option<PathBuf>,
    /// With --tile-size: build tile X,Y as a click of Create Tiles does, so the stage draw
    /// modes show it.
    #[arg(long, value_parser = parse_cell, allow_hyphen_values = true, requires = "tile_size")]
    tile: Option<(i32, i32)>,
    /// Open the Create Crowds tool with this many agents at seeded random points walking to
    /// random targets (its Crowd Profiling spawn).
    #[arg(long)]
    crowd_agents: Option<usize>,
    /// With --crowd-agents: split them over this many crowds.
    #[arg(long, default_value_t = 1, requires = "crowd_agents")]
    crowd_count: usize,
    /// With --crowd-agents: crowd updates (1/60 s each) to run before the first frame; the
    /// crowd is then paused.
    #[arg(long, default_value_t = 0, requires = "crowd_agents")]
    crowd_steps: usize,
    /// Play this session: one JSON action per line (drag, set, click, draw, key, click_world,
    /// pointer, press, release, wheel, wait_frames, wait_build, screenshot), each through the
    /// real input path; the viewer quits when it ends.
    #[arg(long, conflicts_with_all = ["screenshot", "self_test"])]
    session: Option<PathBuf>,
    /// Write the viewer's state (settings by RecastDemo's names, sample, mesh, draw mode,
    /// quit, test cases) as JSON here when the session ends or the viewer quits.
    #[arg(long, conflicts_with_all = ["screenshot", "self_test"])]
    state_json: Option<PathBuf>,
    /// Write your own input as a session file here when the viewer quits (for bug reports).
    #[arg(long, conflicts_with_all = ["screenshot", "self_test"])]
    record: Option<PathBuf>,
    /// With --session: no OS window; the camera renders into an image (needs no display).
    #[arg(long, requires = "session")]
    headless: bool,
    /// Open File → Connect to a running Bevy game on this address (`host:port` of its
    /// RemoteHttpPlugin) and pull its level as the input.
    #[arg(long, value_name = "ADDRESS", conflicts_with_all = ["mesh", "screenshot", "self_test"])]
    connect: Option<String>,
}

impl Default for ViewArgs {
    fn default() -> Self {
        Self {
            mesh: None,
            config: None,
            draw: None,
            tile_size: None,
            sample: None,
            obstacle: Vec::new(),
            navmesh: None,
            screenshot: None,
            size: (1280, 800),
            frames: 5,
            self_test: None,
            test_mode: None,
            test_start: None,
            test_end: None,
            test_cases: None,
            tile: None,
            crowd_agents: None,
            crowd_count: 1,
            crowd_steps: 0,
            session: None,
            state_json: None,
            record: None,
            headless: false,
            connect: None,
        }
    }
}

/// A point given as `X,Y,Z` with finite coordinates.
fn parse_point(text: &str) -> std::result::Result<[f32; 3], String> {
    let values: Vec<f32> = text
        .split(',')
        .map(|v| v.trim().parse::<f32>())
        .collect::<std::result::Result<_, _>>()
        .map_err(|_| format!("expected X,Y,Z numbers, found `{text}`"))?;
    match values[..] {
        [x, y, z] if values.iter().all(|v| v.is_finite()) => Ok([x, y, z]),
        _ => Err(format!(
            "expected three finite numbers X,Y,Z, found `{text}`"
        )),
    }
}

fn parse_cell(text: &str) -> std::result::Result<(i32, i32), String> {
    let parsed = text
        .split_once(',')
        .and_then(|(x, y)| Some((x.trim().parse().ok()?, y.trim().parse().ok()?)));
    parsed.ok_or_else(|| format!("expected a tile X,Y of two whole numbers, found `{text}`"))
}

fn parse_size(text: &str) -> std::result::Result<(u32, u32), String> {
    let parsed = text
        .split_once(['x', 'X'])
        .and_then(|(w, h)| Some((w.trim().parse().ok()?, h.trim().parse().ok()?)));
    match parsed {
        Some((w, h)) if (16..=8192).contains(&w) && (16..=8192).contains(&h) => Ok((w, h)),
        _ => Err(format!(
            "expected WIDTHxHEIGHT between 16 and 8192, e.g. 1280x800, found `{text}`"
        )),
    }
}

#[cfg(not(feature = "viewer"))]
pub fn run(_args: ViewArgs) -> Result<()> {
    Err(NavlabError::Stage {
        stage: "navlab view",
        message: "this navlab was built without the `viewer` feature; build with default features to open the viewer".into(),
    })
}

#[cfg(feature = "viewer")]
/// Runs `navlab view`.
pub fn run(args: ViewArgs) -> Result<()> {
    use navlab_app::viewer::tools::crowds::{CrowdPreset, PROFILE_MAX_AGENTS, PROFILE_MAX_CROWDS};
    use navlab_app::viewer::tools::test_nav_mesh::{TesterMode, TesterPreset};
    use navlab_app::viewer::{DrawMode, ViewerOptions};
    check_session_outputs(&args)?;
    let draw_mode = match args.draw {
        None => DrawMode::default(),
        Some(name) => name
            .parse()
            .map_err(|message| NavlabError::InvalidSetting {
                name: "draw",
                value: name,
                reason: message,
            })?,
    };
    use navlab_app::viewer::build::Sample;
    let sample = match &args.sample {
        None => None,
        Some(name) => Some(
            navlab_app::viewer::draw::parse_label(name, &Sample::ALL, Sample::label, "sample")
                .map_err(|reason| NavlabError::InvalidSetting {
                    name: "sample",
                    value: name.clone(),
                    reason,
                })?,
        ),
    };
    let temp_obstacles = sample == Some(Sample::TempObstacles);
    if let Some(size) = args
        .tile_size
        .filter(|s| temp_obstacles && !(16..=128).contains(s))
    {
        return Err(NavlabError::InvalidSetting {
            name: "tile-size",
            value: size.to_string(),
            reason: "Temp Obstacles tiles must be between 16 and 128 cells".into(),
        });
    }
    if !args.obstacle.is_empty() && !temp_obstacles {
        return Err(NavlabError::InvalidSetting {
            name: "obstacle",
            value: format!("{} obstacles", args.obstacle.len()),
            reason: "obstacles need --sample temp-obstacles".into(),
        });
    }
    if let Some(size) = args.tile_size.filter(|s| !(16..=4096).contains(s)) {
        return Err(NavlabError::InvalidSetting {
            name: "tile-size",
            value: size.to_string(),
            reason: "must be between 16 and 4096 cells".into(),
        });
    }
    if let Some(agents) = args
        .crowd_agents
        .filter(|n| !(1..=PROFILE_MAX_AGENTS).contains(n))
    {
        return Err(NavlabError::InvalidSetting {
            name: "crowd-agents",
            value: agents.to_string(),
            reason: format!("must be between 1 and {PROFILE_MAX_AGENTS}"),
        });
    }
    if !(1..=PROFILE_MAX_CROWDS).contains(&args.crowd_count) {
        return Err(NavlabError::InvalidSetting {
            name: "crowd-count",
            value: args.crowd_count.to_string(),
            reason: format!("must be between 1 and {PROFILE_MAX_CROWDS}"),
        });
    }
    let tester = match (&args.test_mode, args.test_start, args.test_end) {
        (None, None, None) => None,
        (mode, start, end) => Some(TesterPreset {
            mode: match mode {
                None => TesterMode::default(),
                Some(name) => name
                    .parse()
                    .map_err(|message| NavlabError::InvalidSetting {
                        name: "test-mode",
                        value: name.clone(),
                        reason: message,
                    })?,
            },
            start,
            end,
        }),
    };
    let session = match &args.session {
        Some(path) => navlab_app::session_script::read_script(path)?,
        None => Vec::new(),
    };
    navlab_app::viewer::run(ViewerOptions {
        session,
        state_json: args.state_json,
        record: args.record,
        headless: args.headless,
        connect: args.connect,
        mesh: args.mesh,
        settings: match args.config {
            Some(path) => BuildSettings::load_toml(&path)?,
            None => BuildSettings::default(),
        },
        draw_mode,
        tile_size: args.tile_size,
        sample,
        obstacles: args.obstacle,
        nav_mesh: args.navmesh,
        screenshot: args.screenshot,
        size: navlab_app::viewer::UVec2::new(args.size.0, args.size.1),
        frames: args.frames,
        self_test: args.self_test,
        tester,
        test_cases: args.test_cases,
        inspect_tile: args.tile,
        crowd: args.crowd_agents.map(|agents| CrowdPreset {
            agents,
            crowds: args.crowd_count,
            steps: args.crowd_steps,
        }),
        ..ViewerOptions::default()
    })
}

/// Refuses a `--state-json` or `--record` file that is one of the inputs or the other output.
#[cfg(feature = "viewer")]
fn check_session_outputs(args: &ViewArgs) -> Result<()> {
    let mut files = super::outputs::RunFiles::default();
    let inputs = [
        ("the mesh", &args.mesh),
        ("the settings file", &args.config),
        ("the navmesh file", &args.navmesh),
        ("the test-case file", &args.test_cases),
        ("the session file", &args.session),
    ];
    for (what, path) in inputs {
        if let Some(path) = path {
            files.input(what, path);
        }
    }
    files
        .output("--state-json", args.state_json.as_deref())
        .output("--record", args.record.as_deref())
        .check()
}
