//! The desktop viewer (feature `viewer`): RecastDemo's workflow in Bevy. Open a mesh, tune the
//! build parameters while the navmesh rebuilds in the background, look at every stage, and pick
//! points on the mesh.
//!
//! One plugin per concern: [`build::BuildPlugin`] (background rebuilds), [`camera::CameraPlugin`],
//! [`draw::DrawPlugin`] (one plugin per stage's debug drawing), [`picking::PickingPlugin`],
//! [`tools::ToolsPlugin`], [`ui::UiPlugin`], [`files::FilesPlugin`],
//! [`navmesh::NavMeshPlugin`] (export, load, the navmesh on screen),
//! [`test_cases::TestCasesPlugin`] (RecastDemo's test-case files),
//! [`saving::SavingPlugin`] (geometry sets and settings files),
//! [`game_link::GameLinkPlugin`] (a running Bevy game's level in, the navmesh back),
//! [`compare::ComparePlugin`] (A/B against a pinned baseline), [`profiles::ProfilesPlugin`]
//! (several agents from one rasterization) and, for
//! `--screenshot`, [`screenshot::ScreenshotPlugin`], which renders without any window.

pub mod build;
pub mod camera;
pub mod compare;
pub mod draw;
pub mod files;
pub mod game_link;
pub mod labels;
pub mod navmesh;
pub mod picking;
pub mod profiles;
pub mod quit;
pub mod saving;
pub mod screenshot;
pub mod self_test;
pub mod session;
#[cfg(test)]
mod session_scenarios;
pub mod streaming;
pub mod test_cases;
pub mod tools;
pub mod typing;
pub mod ui;
pub mod unsaved;

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bevy::app::ScheduleRunnerPlugin;
use bevy::log::LogPlugin;
use bevy::prelude::*;
use bevy::window::ExitCondition;
use bevy::winit::WinitPlugin;
use bevy_egui::EguiPlugin;

use navlab::bake::settings::BuildSettings;
use navlab::error::NavlabError;

pub use bevy::math::UVec2;
pub use build::{BuildPlugin, BuildRequest, BuildState, SceneData};
pub use draw::DrawMode;
pub use screenshot::FrameTimings;

/// How `navlab view` was asked to run.
#[derive(Clone, Debug)]
pub struct ViewerOptions {
    /// The mesh to open; the embedded default scene when `None`.
    pub mesh: Option<PathBuf>,
    pub settings: BuildSettings,
    pub draw_mode: DrawMode,
    /// Start in the Tile Mesh sample with tiles of this many cells (or, with `sample`
    /// Temp Obstacles, that sample's tile size).
    pub tile_size: Option<i32>,
    /// The sample to start in (Tile Mesh when only `tile_size` is given).
    pub sample: Option<build::Sample>,
    /// Obstacles the Temp Obstacles sample gets once built, as clicks of its tool.
    pub obstacles: Vec<[f32; 3]>,
    /// A navmesh file to show once the scene is built.
    pub nav_mesh: Option<PathBuf>,
    /// Render headless to this PNG and exit.
    pub screenshot: Option<PathBuf>,
    /// Window or screenshot size in pixels.
    pub size: UVec2,
    /// Frames to render after the first build before the screenshot is taken.
    pub frames: u32,
    /// Open a real window, rebuild after one setting change, save a screenshot of the window to
    /// this file and exit (see [`self_test`]).
    pub self_test: Option<PathBuf>,
    /// The Test Navmesh tool's mode and end points at start-up.
    pub tester: Option<tools::test_nav_mesh::TesterPreset>,
    /// A RecastDemo test-case file to run in the Test Cases window.
    pub test_cases: Option<PathBuf>,
    /// In Tile Mesh, the tile to build with Create Tiles once the grid is built.
    pub inspect_tile: Option<(i32, i32)>,
    /// Random agents the Create Crowds tool spawns once the navmesh is built.
    pub crowd: Option<tools::crowds::CrowdPreset>,
    /// Receives a screenshot run's frame timings.
    pub frame_timings: Arc<Mutex<Option<FrameTimings>>>,
    /// A scripted session to play (see [`session`]).
    pub session: Vec<crate::session_script::ScriptLine>,
    /// Where the viewer's state is written when the session ends or the app quits.
    pub state_json: Option<PathBuf>,
    /// Where the person's input is written as a session when the app quits.
    pub record: Option<PathBuf>,
    /// Render into an image with no OS window (a session needs no display then).
    pub headless: bool,
    /// A running Bevy game's remote protocol address: the Bevy game window opens on it and
    /// pulls its level at start-up (see [`game_link`]).
    pub connect: Option<String>,
}

impl Default for ViewerOptions {
    fn default() -> Self {
        Self {
            mesh: None,
            settings: BuildSettings::default(),
            draw_mode: DrawMode::default(),
            tile_size: None,
            sample: None,
            obstacles: Vec::new(),
            nav_mesh: None,
            screenshot: None,
            size: UVec2::new(1280, 800),
            frames: 5,
            self_test: None,
            tester: None,
            test_cases: None,
            inspect_tile: None,
            crowd: None,
            frame_timings: Arc::default(),
            session: Vec::new(),
            state_json: None,
            record: None,
            headless: false,
            connect: None,
        }
    }
}

/// What is missing for a window, if anything: a display server on Linux and the BSDs.
fn missing_display() -> Option<&'static str> {
    let set = |name: &str| std::env::var_os(name).is_some_and(|v| !v.is_empty());
    let needs_server = cfg!(all(unix, not(target_os = "macos")));
    (needs_server && !set("DISPLAY") && !set("WAYLAND_DISPLAY"))
        .then_some("no display: neither DISPLAY nor WAYLAND_DISPLAY is set")
}

/// One line for a viewer that stopped on a panic (in practice: no graphics adapter).
fn explain_stop(message: &str) -> String {
    let first = message.lines().next().unwrap_or("").trim();
    let lower = first.to_ascii_lowercase();
    if lower.contains("gpu") || lower.contains("adapter") || lower.contains("vulkan") {
        format!(
            "no graphics adapter the renderer can use ({first}); install Mesa's Vulkan drivers \
             (mesa-vulkan-drivers) for a software one, or bake without the viewer: `navlab bake`"
        )
    } else {
        format!("the viewer stopped: {first}")
    }
}

/// Runs `f`, turning a panic into its message (printed by the caller as one line, not a
/// backtrace): Bevy panics when the renderer finds no adapter.
fn catching_panics<T>(f: impl FnOnce() -> T) -> std::result::Result<T, String> {
    let caught = Arc::new(Mutex::new(None::<String>));
    let previous = std::panic::take_hook();
    let sink = caught.clone();
    std::panic::set_hook(Box::new(move |info| {
        let text = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic without a message".into());
        let mut slot = sink.lock().unwrap_or_else(|e| e.into_inner());
        slot.get_or_insert(text);
    }));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    std::panic::set_hook(previous);
    result.map_err(|_| {
        caught
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
            .unwrap_or_else(|| "a panic without a message".into())
    })
}

/// Opens the viewer and returns when it is closed (or the screenshot is saved).
pub fn run(options: ViewerOptions) -> navlab::Result<()> {
    if options.screenshot.is_none()
        && !options.headless
        && let Some(missing) = missing_display()
    {
        return Err(NavlabError::Stage {
            stage: "navlab view",
            message: format!(
                "{missing}; without a screen use `navlab view … --screenshot FILE`, or `navlab bake`"
            ),
        });
    }
    let mut startup_error = None;
    let scene = match &options.mesh {
        None => SceneData::default_scene(),
        Some(path) => match SceneData::load(path.clone()) {
            Ok(scene) => scene,
            // A screenshot of the wrong scene would mislead: fail instead.
            Err(err) if options.screenshot.is_some() => return Err(err),
            Err(err) => {
                startup_error = Some(format!("Could not open {err}"));
                SceneData::default_scene()
            }
        },
    };
    let nav_mesh = match &options.nav_mesh {
        None => None,
        Some(path) => match navmesh::read_nav_mesh_file(path) {
            Ok(loaded) => Some(loaded),
            Err(err) if options.screenshot.is_some() => return Err(err),
            Err(err) => {
                startup_error = Some(format!(
                    "Could not load the navmesh {}: {err}",
                    path.display()
                ));
                None
            }
        },
    };
    let screenshot_error = Arc::new(Mutex::new(None));
    let stopped = |message: String| NavlabError::Stage {
        stage: "navlab view",
        message: explain_stop(&message),
    };
    let mut app =
        catching_panics(|| viewer_app(&options, Arc::new(scene), screenshot_error.clone()))
            .map_err(stopped)?;
    if let Some(error) = startup_error {
        app.world_mut()
            .resource_mut::<build::ViewerLog>()
            .error(error);
    }
    let sample = options
        .sample
        .or(options.tile_size.map(|_| build::Sample::TileMesh));
    if let Some(sample) = sample {
        let mut state = app.world_mut().resource_mut::<BuildState>();
        state.sample = sample;
        if let Some(tile_size) = options.tile_size {
            match sample {
                build::Sample::TempObstacles => state.obstacle_tile_size = tile_size,
                _ => state.tile_size = tile_size,
            }
        }
        if let Some((x, y)) = options.inspect_tile {
            app.insert_resource(tools::create_tiles::StartupTile(Some((x, y))));
        }
    }
    if !options.obstacles.is_empty() {
        app.insert_resource(tools::temp_obstacles::StartupObstacles(
            options.obstacles.clone(),
        ));
    }
    if let Some(loaded) = nav_mesh {
        app.world_mut()
            .resource_mut::<navmesh::ShownNavMesh>()
            .show_file(loaded);
    }
    if let Some(path) = &options.test_cases {
        let mut tests = app.world_mut().resource_mut::<test_cases::TestCases>();
        tests.open = true;
        if let Err(error) = tests.load(path.clone()) {
            if options.screenshot.is_some() {
                return Err(NavlabError::Stage {
                    stage: "navlab view --test-cases",
                    message: error,
                });
            }
            app.world_mut()
                .resource_mut::<build::ViewerLog>()
                .error(format!("Could not read the test cases {error}"));
        }
    }
    let outcome = catching_panics(|| app.run()).map_err(stopped)?;
    match outcome {
        AppExit::Success => Ok(()),
        AppExit::Error(code) => {
            let message = screenshot_error
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .take()
                .unwrap_or_else(|| format!("the viewer exited with code {code}"));
            Err(NavlabError::Stage {
                stage: "navlab view",
                message,
            })
        }
    }
}

/// The whole viewer app; windowless when a screenshot is requested. `exit_error` receives the
/// reason when screenshot or self-test mode fails.
fn viewer_app(
    options: &ViewerOptions,
    scene: Arc<SceneData>,
    exit_error: Arc<Mutex<Option<String>>>,
) -> App {
    let mut app = App::new();
    let headless = options.screenshot.is_some() || options.headless;
    let mut filter =
        "wgpu=error,naga=warn,bevy_render=warn,bevy_winit=warn,calloop=warn".to_owned();
    if headless {
        // bevy_egui looks each frame for the OS window behind the window entity, to place the
        // input-method box; a headless session has none, by design.
        filter += ",bevy_egui::input=error";
    }
    let log = LogPlugin {
        filter,
        ..default()
    };
    let window = Window {
        title: "Navlab".into(),
        resolution: (options.size.x, options.size.y).into(),
        ..default()
    };
    if headless {
        // No OS window. A screenshot needs no window at all; a headless session has a window
        // entity without one, so window input goes to it as to a real one (`session`).
        let session_window = options.screenshot.is_none().then_some(window);
        app.add_plugins((
            DefaultPlugins
                .set(log)
                .set(WindowPlugin {
                    primary_window: session_window,
                    exit_condition: ExitCondition::DontExit,
                    close_when_requested: false,
                    ..default()
                })
                // Every mesh must be drawn in the captured frame: compile pipelines before
                // drawing instead of skipping meshes whose pipelines are not ready yet.
                .set(bevy::render::RenderPlugin {
                    synchronous_pipeline_compilation: true,
                    ..default()
                })
                .disable::<WinitPlugin>(),
            ScheduleRunnerPlugin::run_loop(Duration::from_secs_f64(1.0 / 60.0)),
        ));
        if options.screenshot.is_none() {
            app.add_plugins(screenshot::OffscreenPlugin { size: options.size });
        }
    } else {
        app.add_plugins(DefaultPlugins.set(log).set(WindowPlugin {
            primary_window: Some(window),
            // The close button asks first when there is unsaved authoring (`quit`).
            close_when_requested: false,
            ..default()
        }));
    }
    if let Some(preset) = &options.tester {
        app.insert_resource(preset.clone());
    }
    if let Some(preset) = &options.crowd {
        app.insert_resource(preset.clone());
    }
    app.add_plugins(EguiPlugin::default())
        .insert_resource(options.draw_mode)
        .add_plugins((
            BuildPlugin {
                scene,
                settings: options.settings.clone(),
            },
            camera::CameraPlugin,
            draw::DrawPlugin,
            picking::PickingPlugin,
            tools::ToolsPlugin,
            ui::UiPlugin,
            files::FilesPlugin {
                persist_recent: !headless,
            },
            navmesh::NavMeshPlugin,
            test_cases::TestCasesPlugin,
            labels::LabelsPlugin,
            saving::SavingPlugin,
            quit::QuitPlugin,
            game_link::GameLinkPlugin {
                connect: options.connect.clone(),
            },
            compare::ComparePlugin,
            profiles::ProfilesPlugin,
        ))
        .add_plugins(streaming::StreamingPlugin);
    if let Some(path) = &options.screenshot {
        app.add_plugins(screenshot::ScreenshotPlugin {
            path: path.clone(),
            size: options.size,
            frames: options.frames,
            error: exit_error.clone(),
            timings: options.frame_timings.clone(),
        });
    } else if let Some(path) = &options.self_test {
        app.add_plugins(self_test::SelfTestPlugin {
            screenshot: path.clone(),
            error: exit_error.clone(),
        });
    }
    if !options.session.is_empty() || options.state_json.is_some() || options.record.is_some() {
        app.add_plugins(session::SessionPlugin {
            script: options.session.clone(),
            state_json: options.state_json.clone(),
            record: options.record.clone(),
            error: exit_error,
        });
    }
    app
}
