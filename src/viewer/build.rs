//! Background builds: every settings change or newly opened mesh becomes a request; one build
//! runs at a time on the async compute pool, starting from the earliest stage the change affects;
//! a request made while a build runs supersedes it (its result is kept only as the starting point
//! of the next build, never shown).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bevy::prelude::*;
use bevy::tasks::futures::check_ready;
use bevy::tasks::{AsyncComputeTaskPool, Task};

use navlab::bake::progress::BuildProgress;
use navlab::bake::settings::BuildSettings;
use navlab::bake::solo::{Build, Retention, Stage};
use navlab::bake::temp_obstacles::{self, TempObstaclesBuild};
use navlab::bake::tiled::{EmptyTile, TiledBuild};
use navlab::detour::NavMesh;
use navlab::input::geomset::GeomSet;
use navlab::input::input_geom::InputGeom;
use navlab::recast::context::LogCategory;
use navlab::tile_cache::builder::ObstacleShape;

/// RecastDemo's samples: one navmesh tile over the whole mesh, a grid of tiles, or a tile
/// cache whose layers temporary obstacles re-carve.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Sample {
    #[default]
    SoloMesh,
    TileMesh,
    TempObstacles,
}

impl Sample {
    pub const ALL: [Sample; 3] = [Sample::SoloMesh, Sample::TileMesh, Sample::TempObstacles];

    /// RecastDemo's name for the sample.
    pub fn label(self) -> &'static str {
        match self {
            Sample::SoloMesh => "Solo Mesh",
            Sample::TileMesh => "Tile Mesh",
            Sample::TempObstacles => "Temp Obstacles",
        }
    }
}

/// What a build makes: the sample and its tile size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Target {
    Solo,
    Tiles(i32),
    TempObstacles(i32),
}

/// The Temp Obstacles sample on screen: its build, changed in place as obstacles are carved,
/// and the navmesh as last published to the draw modes, tools and crowds.
pub struct TempObstaclesView {
    pub build: TempObstaclesBuild,
    pub nav_mesh: Arc<NavMesh>,
    /// Bumped whenever an obstacle is added, removed or changes state.
    pub obstacles_version: u64,
    /// Milliseconds the whole sample took to build (layers and navmesh).
    pub build_ms: f64,
}

/// What the Create Temp Obstacles tool asks of the tile cache.
#[derive(Clone, Debug, PartialEq)]
pub enum ObstacleEdit {
    /// A cylinder where a click hit ([`TempObstaclesBuild::click_obstacle`]).
    Add([f32; 3]),
    /// The obstacle a click's ray enters first: from the camera (`start`) through the point
    /// the click hit (`end`).
    RemoveHitBy {
        start: [f32; 3],
        end: [f32; 3],
    },
    RemoveAll,
}

/// Sample_TileMesh's default tile size in cells.
pub const DEFAULT_TILE_SIZE: i32 = 32;

/// An input (mesh, partitioned tree, `.gset` extras) and the name shown for it.
#[derive(Debug)]
pub struct SceneData {
    pub input: InputGeom,
    /// File name, or "Default scene".
    pub name: String,
}

impl SceneData {
    /// The embedded default scene.
    pub fn default_scene() -> Self {
        Self {
            input: InputGeom::from_mesh(navlab::input::scene::default_scene())
                .expect("the generated scene is small and well formed"),
            name: "Default scene".into(),
        }
    }

    /// Reads an OBJ file, or a RecastDemo `.gset` and the mesh it names.
    pub fn load(path: PathBuf) -> navlab::Result<Self> {
        let input = InputGeom::load(&path)?;
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| path.display().to_string());
        Ok(Self { input, name })
    }
}

/// Something the user asked the build to do.
#[derive(Message, Clone, Debug)]
pub enum BuildRequest {
    /// New settings; rebuilds from the earliest affected stage when auto-rebuild is on.
    Settings(BuildSettings),
    /// Rebuild everything with the current settings (the Build button).
    Rebuild,
    /// Turn auto-rebuild on or off; turning it on applies the settings changed meanwhile.
    AutoRebuild(bool),
    /// Open an OBJ file; on failure the current scene stays.
    Open(PathBuf),
    /// Show an already loaded scene.
    Scene(Arc<SceneData>),
    /// Switch sample (and so rebuild everything).
    Sample(Sample),
    /// The Tile Mesh sample's tile edge in cells.
    TileSize(i32),
    /// The scene's authored content (convex volumes, off-mesh connections) replaced by this
    /// geometry set's; rebuilds from erosion for volumes, only the Detour data for links (in
    /// Tile Mesh, only the tiles they touch).
    Authored(GeomSet),
    /// An edit of the Tile Mesh sample's grid (the Create Tiles tool); ignored in Solo Mesh.
    Tiles(TileEdit),
    /// An obstacle added or removed in the Temp Obstacles sample; ignored in the others.
    Obstacle(ObstacleEdit),
    /// Temp Obstacles' "Keep Intermediate Results": the Highlight Tile Cache tool keeps the
    /// steps of the layers it shows until their tile changes.
    KeepIntermediate(bool),
}

/// What the Create Tiles tool asks of the tile grid.
#[derive(Clone, Debug, PartialEq)]
pub enum TileEdit {
    /// Rebuild tile (x, y), keeping its stages for the draw modes.
    Build(i32, i32),
    /// Take tile (x, y) out of the navmesh.
    Remove(i32, i32),
    /// Rebuild every tile ("Create All").
    BuildAll,
    /// Remove every tile ("Remove All").
    RemoveAll,
    /// Make exactly these tiles present (row by row, as [`TiledBuild::tiles`]): what undo and
    /// redo of tile edits restore.
    Restore(Vec<bool>),
}

/// Which tiles of a grid are in its navmesh (not removed), row by row.
pub fn tile_presence(tiled: &TiledBuild) -> Vec<bool> {
    tiled
        .tiles
        .iter()
        .map(|t| !matches!(t.output, Err(EmptyTile::Removed)))
        .collect()
}

/// The last tile built by a click, with RecastDemo's read-out.
#[derive(Clone, Debug, PartialEq)]
pub struct TileReport {
    pub x: i32,
    pub y: i32,
    /// Build time of the tile in milliseconds.
    pub milliseconds: f64,
    /// Input triangles the tile rasterized.
    pub triangles: usize,
    /// Size of the tile's Detour data in KiB (0 without data).
    pub kilobytes: f64,
}

/// How serious a viewer log line is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogLevel {
    Info,
    Warning,
    Error,
}

/// The Log panel's lines and the transient error toasts.
#[derive(Resource, Default)]
pub struct ViewerLog {
    pub lines: Vec<(LogLevel, String)>,
    /// Errors to pop up, with the time they were raised.
    pub toasts: Vec<(String, Instant)>,
}

/// Most lines the log keeps (the oldest go first).
const MAX_LOG_LINES: usize = 5000;

impl ViewerLog {
    pub fn info(&mut self, text: impl Into<String>) {
        self.push(LogLevel::Info, text.into());
    }

    pub fn warning(&mut self, text: impl Into<String>) {
        self.push(LogLevel::Warning, text.into());
    }

    /// Logs an error and pops it up as a toast.
    pub fn error(&mut self, text: impl Into<String>) {
        let text = text.into();
        bevy::log::error!("{text}");
        self.toasts.push((text.clone(), Instant::now()));
        self.push(LogLevel::Error, text);
    }

    /// Logs an error line without a toast: Recast's non-fatal complaints (such as overlapping
    /// watershed regions) come with every rebuild and must not keep popping up.
    pub fn build_error(&mut self, text: impl Into<String>) {
        self.push(LogLevel::Error, text.into());
    }

    fn push(&mut self, level: LogLevel, text: String) {
        if self.lines.len() >= MAX_LOG_LINES {
            self.lines.drain(..MAX_LOG_LINES / 2);
        }
        self.lines.push((level, text));
    }
}

/// What the build is doing now.
#[derive(Clone, Debug, PartialEq)]
pub enum BuildStatus {
    Idle,
    /// Loading a file and building it from scratch.
    Loading {
        name: String,
        since: Instant,
    },
    /// Re-running the pipeline from `from`.
    Building {
        from: Stage,
        since: Instant,
    },
}

/// The scene and build on screen, the settings being edited, and the background job.
#[derive(Resource)]
pub struct BuildState {
    /// The settings the Properties panel edits.
    pub settings: BuildSettings,
    /// Rebuild as soon as a setting changes (on by default).
    pub auto_rebuild: bool,
    /// The scene on screen.
    pub scene: Arc<SceneData>,
    /// The build on screen (`None` before the first build, when the scene's build failed, or
    /// in the Tile Mesh sample).
    pub build: Option<Arc<Build>>,
    pub sample: Sample,
    pub tile_size: i32,
    /// The Tile Mesh sample's build on screen (its stages are not kept for drawing, except
    /// the inspected tile's).
    pub tiled: Option<Arc<TiledBuild>>,
    /// In Tile Mesh, every stage of the tile last built by a click, drawn by the stage modes.
    pub inspected_tile: Option<Arc<Build>>,
    /// The tile the Create Tiles tool last built, and its read-out.
    pub tile_report: Option<TileReport>,
    /// The Temp Obstacles sample's build on screen.
    pub temp_obstacles: Option<TempObstaclesView>,
    /// Temp Obstacles' tile edge in cells (RecastDemo: 48).
    pub obstacle_tile_size: i32,
    pub keep_intermediate: bool,
    /// Bumped whenever `scene` changes.
    pub scene_version: u64,
    /// Bumped whenever the scene's convex volumes or off-mesh connections change (a new
    /// scene included).
    pub authored_version: u64,
    /// Per stage, bumped whenever that stage's output on screen changes.
    pub stage_versions: [u64; Stage::ALL.len()],
    pub status: BuildStatus,
    /// How far the running job has got (a fresh one per job).
    pub progress: Arc<BuildProgress>,
    /// The stage the last shown build started from, and its wall time.
    pub last_build: Option<(Stage, Duration)>,
    /// Builds whose results were dropped because a newer request came in.
    pub superseded: u64,
    /// Builds finished (shown, superseded or failed).
    pub finished: u64,
    /// The newest finished state, which the next build starts from (may be newer than the shown
    /// one while it is superseded).
    base_scene: Arc<SceneData>,
    base_build: Option<Arc<Build>>,
    /// The newest finished tile grid, which tile edits and authored changes start from.
    base_tiled: Option<Arc<TiledBuild>>,
    job: Option<Job>,
    pending: Option<Pending>,
    /// The earliest stage changed by superseded builds since the last one shown.
    unshown_from: Option<Stage>,
    next_version: u64,
}

/// Work waiting for the running job to finish.
#[derive(Default)]
struct Pending {
    /// A new scene to switch to first.
    scene: Option<SceneSource>,
    /// Rebuild everything even if the settings did not change.
    full: bool,
    /// Tile grid edits, in order.
    tile_edits: Vec<TileEdit>,
}

enum SceneSource {
    File(PathBuf),
    Loaded(Arc<SceneData>),
}

struct Job {
    task: Task<JobOutcome>,
    started: Instant,
}

enum JobOutcome {
    Built {
        scene: Option<Arc<SceneData>>,
        build: Box<Build>,
        from: Stage,
        elapsed: Duration,
    },
    BuiltTempObstacles {
        scene: Option<Arc<SceneData>>,
        build: Box<TempObstaclesBuild>,
        elapsed: Duration,
    },
    BuiltTiles {
        scene: Option<Arc<SceneData>>,
        tiled: Box<TiledBuild>,
        elapsed: Duration,
        /// The tile whose stages were kept, and its read-out.
        inspected: Option<InspectedTile>,
        /// What changed in place (`None`: the whole grid was built anew).
        edited: Option<TileChanges>,
    },
    Unchanged,
    LoadFailed(String),
    BuildFailed {
        scene: Option<Arc<SceneData>>,
        error: String,
        /// A solo build that stopped at a stage, with the stages before it, the stage the job
        /// started from and its time: shown as RecastDemo draws a failed build's
        /// intermediates.
        stopped: Option<(Box<Build>, Stage, Duration)>,
    },
}

impl BuildState {
    /// A state showing `scene`, built with `settings` once the first update runs.
    pub fn new(scene: Arc<SceneData>, settings: BuildSettings) -> Self {
        Self {
            settings,
            auto_rebuild: true,
            scene: scene.clone(),
            build: None,
            sample: Sample::SoloMesh,
            tile_size: DEFAULT_TILE_SIZE,
            tiled: None,
            inspected_tile: None,
            tile_report: None,
            temp_obstacles: None,
            obstacle_tile_size: temp_obstacles::DEFAULT_TILE_SIZE,
            keep_intermediate: false,
            scene_version: 1,
            authored_version: 1,
            stage_versions: [0; Stage::ALL.len()],
            status: BuildStatus::Idle,
            progress: Arc::default(),
            last_build: None,
            superseded: 0,
            finished: 0,
            base_scene: scene,
            base_build: None,
            base_tiled: None,
            job: None,
            pending: Some(Pending {
                scene: None,
                full: true,
                tile_edits: Vec::new(),
            }),
            unshown_from: None,
            next_version: 1,
        }
    }

    /// Whether a build is running or waiting.
    pub fn is_busy(&self) -> bool {
        self.job.is_some() || self.pending.is_some()
    }

    /// The build the stage draw modes show: the solo build, or in Tile Mesh the inspected tile.
    pub fn stage_build(&self) -> Option<&Build> {
        self.build.as_deref().or(self.inspected_tile.as_deref())
    }

    /// The version of a stage's output on screen (for retained drawings).
    pub fn stage_version(&self, stage: Stage) -> u64 {
        self.stage_versions[stage as usize]
    }

    fn pending_mut(&mut self) -> &mut Pending {
        self.pending.get_or_insert_with(Pending::default)
    }

    fn accept(&mut self, request: BuildRequest) {
        match request {
            BuildRequest::Settings(settings) => {
                self.settings = settings;
                if self.auto_rebuild {
                    self.pending_mut();
                }
            }
            BuildRequest::Rebuild => self.pending_mut().full = true,
            BuildRequest::AutoRebuild(on) => {
                self.auto_rebuild = on;
                if on {
                    self.pending_mut();
                }
            }
            BuildRequest::Open(path) => self.pending_mut().scene = Some(SceneSource::File(path)),
            BuildRequest::Scene(scene) => {
                self.pending_mut().scene = Some(SceneSource::Loaded(scene));
            }
            BuildRequest::Sample(sample) => {
                if sample != self.sample {
                    self.sample = sample;
                    self.pending_mut().full = true;
                }
            }
            BuildRequest::Authored(geom_set) => {
                let mut input = self.base_scene.input.clone();
                input.geom_set = geom_set;
                let scene = Arc::new(SceneData {
                    input,
                    name: self.base_scene.name.clone(),
                });
                // Shown at once (the volumes and links are drawn from the scene), built next.
                self.base_scene = scene.clone();
                self.scene = scene;
                self.authored_version += 1;
                self.pending_mut();
            }
            BuildRequest::Tiles(edit) => {
                if self.sample == Sample::TileMesh {
                    self.pending_mut().tile_edits.push(edit);
                }
            }
            BuildRequest::TileSize(size) if self.sample == Sample::TempObstacles => {
                if size != self.obstacle_tile_size {
                    self.obstacle_tile_size = size;
                    if self.auto_rebuild {
                        self.pending_mut().full = true;
                    }
                }
            }
            BuildRequest::Obstacle(_) => {}
            BuildRequest::KeepIntermediate(on) => self.keep_intermediate = on,
            BuildRequest::TileSize(size) => {
                if size != self.tile_size {
                    self.tile_size = size;
                    if self.sample == Sample::TileMesh && self.auto_rebuild {
                        self.pending_mut().full = true;
                    }
                }
            }
        }
    }

    /// Adds or removes obstacles of the Temp Obstacles sample at once (their layers are carved
    /// by the following frames); a refusal (a full table or queue) goes to the log.
    fn edit_obstacles(&mut self, edit: &ObstacleEdit, log: &mut ViewerLog) {
        let Some(view) = self.temp_obstacles.as_mut() else {
            log.warning("Obstacles need the Temp Obstacles sample, built");
            return;
        };
        let result = match *edit {
            ObstacleEdit::Add(point) => view
                .build
                .add_obstacle(TempObstaclesBuild::click_obstacle(point))
                .map(|_| ()),
            ObstacleEdit::RemoveHitBy { start, end } => {
                match view.build.obstacle_hit_by(start, end) {
                    Some(r) => view.build.obstacles.remove(r),
                    None => {
                        log.info("No obstacle under the click");
                        return;
                    }
                }
            }
            ObstacleEdit::RemoveAll => view.build.remove_all_obstacles().map(|_| ()),
        };
        match result {
            Ok(()) => {
                self.next_version += 1;
                view.obstacles_version = self.next_version;
            }
            Err(e) => log.error(format!("Obstacle refused: {e}")),
        }
    }

    /// Starts the pending work if nothing is running.
    fn start_pending(&mut self) {
        if self.job.is_some() {
            return;
        }
        let Some(pending) = self.pending.take() else {
            return;
        };
        let progress = Arc::new(BuildProgress::default());
        self.progress = progress.clone();
        let settings = self.settings.clone();
        let now = Instant::now();
        let target = match self.sample {
            Sample::SoloMesh => Target::Solo,
            Sample::TileMesh => Target::Tiles(self.tile_size),
            Sample::TempObstacles => Target::TempObstacles(self.obstacle_tile_size),
        };
        let tile_size = match target {
            Target::Tiles(size) => Some(size),
            _ => None,
        };
        let task = match pending.scene {
            Some(source) => {
                let name = match &source {
                    SceneSource::File(path) => path.display().to_string(),
                    SceneSource::Loaded(scene) => scene.name.clone(),
                };
                self.status = BuildStatus::Loading { name, since: now };
                AsyncComputeTaskPool::get()
                    .spawn(async move { load_and_build(source, settings, target, progress) })
            }
            None if matches!(target, Target::TempObstacles(_)) => {
                self.status = BuildStatus::Building {
                    from: Stage::Rasterize,
                    since: now,
                };
                let scene = self.base_scene.clone();
                // The obstacles stay across rebuilds with new settings.
                let shapes: Vec<ObstacleShape> =
                    self.temp_obstacles.as_ref().map_or_else(Vec::new, |view| {
                        view.build
                            .obstacles
                            .live()
                            .filter(|o| {
                                o.state != navlab::tile_cache::obstacles::ObstacleState::Removing
                            })
                            .map(|o| o.shape)
                            .collect()
                    });
                let size = self.obstacle_tile_size;
                AsyncComputeTaskPool::get().spawn(async move {
                    build_temp_obstacles(scene, None, settings, size, shapes, &progress)
                })
            }
            None if tile_size.is_some() => {
                self.status = BuildStatus::Building {
                    from: Stage::Rasterize,
                    since: now,
                };
                let scene = self.base_scene.clone();
                // Edits and authored changes of the same grid rebuild only their tiles.
                let base = self.base_tiled.clone().filter(|base| {
                    !pending.full && base.settings == settings && Some(base.tile_size) == tile_size
                });
                let inspect = self.tile_report.as_ref().map(|r| (r.x, r.y));
                match base {
                    Some(base) => {
                        let edits = pending.tile_edits;
                        AsyncComputeTaskPool::get()
                            .spawn(async move { edit_tiles(scene, base, edits, inspect) })
                    }
                    None => AsyncComputeTaskPool::get().spawn(async move {
                        build_tiles(scene, None, settings, tile_size, inspect, &progress)
                    }),
                }
            }
            None => {
                let base = self.base_build.clone().filter(|_| !pending.full);
                let from = match &base {
                    Some(base) => match base
                        .stage_to_rerun(&settings, &self.base_scene.input.geom_set)
                    {
                        Some(stage) => stage,
                        None => {
                            // Nothing to build; show a superseded result that already matches.
                            self.status = BuildStatus::Idle;
                            let shown = self.build.as_ref().is_some_and(|b| Arc::ptr_eq(b, base));
                            if !shown {
                                let from = self.unshown_from.unwrap_or(Stage::DetailMesh);
                                self.show(Some(base.clone()), from, false);
                            }
                            return;
                        }
                    },
                    None => Stage::Rasterize,
                };
                self.status = BuildStatus::Building { from, since: now };
                let scene = self.base_scene.clone();
                AsyncComputeTaskPool::get()
                    .spawn(async move { rebuild(&scene, base, settings, from, progress) })
            }
        };
        self.job = Some(Job { task, started: now });
    }

    /// Takes a finished job's outcome into the state, showing it unless a newer request waits.
    fn finish(&mut self, outcome: JobOutcome, log: &mut ViewerLog) {
        self.finished += 1;
        let superseded = self.pending.is_some();
        match outcome {
            JobOutcome::Unchanged => {}
            JobOutcome::LoadFailed(error) => log.error(error),
            JobOutcome::BuildFailed {
                scene,
                error,
                stopped: Some((build, from, elapsed)),
            } => {
                // The finished stages' log and times, then what stopped the rest.
                self.take_solo_build(scene, build, from, elapsed, superseded, log);
                log.error(format!("Build failed: {error}"));
            }
            JobOutcome::BuildFailed {
                scene,
                error,
                stopped: None,
            } => {
                log.error(format!("Build failed: {error}"));
                if let Some(scene) = scene {
                    // The mesh itself is fine: show it without a navmesh.
                    self.base_scene = scene;
                    self.base_build = None;
                    self.base_tiled = None;
                    if !superseded {
                        self.show(None, Stage::Rasterize, true);
                    }
                }
            }
            JobOutcome::BuiltTempObstacles {
                scene,
                build,
                elapsed,
            } => {
                let scene_changed = scene.is_some();
                if let Some(scene) = scene {
                    self.base_scene = scene;
                }
                self.base_build = None;
                self.base_tiled = None;
                if superseded {
                    self.superseded += 1;
                    self.unshown_from = Some(Stage::Rasterize);
                } else {
                    log_temp_obstacles(log, &build, elapsed);
                    self.last_build = Some((Stage::Rasterize, elapsed));
                    self.show(None, Stage::Rasterize, scene_changed);
                    self.temp_obstacles = Some(TempObstaclesView {
                        nav_mesh: Arc::new(build.nav_mesh.clone()),
                        build: *build,
                        obstacles_version: self.next_version,
                        build_ms: elapsed.as_secs_f64() * 1000.0,
                    });
                }
            }
            JobOutcome::BuiltTiles {
                scene,
                tiled,
                elapsed,
                inspected,
                edited,
            } => {
                let scene_changed = scene.is_some();
                if let Some(scene) = scene {
                    self.base_scene = scene;
                }
                // Solo builds after this one start afresh.
                self.base_build = None;
                let tiled: Arc<TiledBuild> = Arc::from(tiled);
                self.base_tiled = Some(tiled.clone());
                if superseded {
                    self.superseded += 1;
                    self.unshown_from = Some(Stage::Rasterize);
                } else {
                    match &edited {
                        Some(changes) => log.info(changes.describe(elapsed)),
                        None => log_tiles(log, &tiled, elapsed),
                    }
                    log_loose_links(log, &tiled.nav_mesh, &self.base_scene.input.geom_set);
                    self.last_build = Some((Stage::Rasterize, elapsed));
                    let previous = self.inspected_tile.take();
                    self.show(None, Stage::Rasterize, scene_changed);
                    match inspected {
                        Some((build, report)) => {
                            self.inspected_tile = Some(Arc::from(build));
                            self.tile_report = Some(report);
                        }
                        // An edit elsewhere leaves the inspected tile as it was, unless it
                        // took that tile out.
                        None if edited.is_some() => {
                            let still_there = self
                                .tile_report
                                .as_ref()
                                .is_some_and(|r| tiled.nav_mesh.tile_at(r.x, r.y, 0).is_some());
                            if still_there {
                                self.inspected_tile = previous;
                            } else {
                                self.tile_report = None;
                            }
                        }
                        None => {}
                    }
                    self.tiled = Some(tiled);
                }
            }
            JobOutcome::Built {
                scene,
                build,
                from,
                elapsed,
            } => self.take_solo_build(scene, build, from, elapsed, superseded, log),
        }
        if !superseded {
            self.status = BuildStatus::Idle;
        }
    }

    /// Makes a finished solo build (whole, or stopped at a stage) the base of the next one,
    /// and, unless a newer request waits, logs it (its stages' log and times, the links its
    /// navmesh leaves loose) and shows it.
    fn take_solo_build(
        &mut self,
        scene: Option<Arc<SceneData>>,
        build: Box<Build>,
        from: Stage,
        elapsed: Duration,
        superseded: bool,
        log: &mut ViewerLog,
    ) {
        let scene_changed = scene.is_some();
        if let Some(scene) = scene {
            self.base_scene = scene;
        }
        let build: Arc<Build> = Arc::from(build);
        self.base_build = Some(build.clone());
        self.base_tiled = None;
        if superseded {
            self.superseded += 1;
            self.unshown_from = Some(self.unshown_from.map_or(from, |s| s.min(from)));
            return;
        }
        let new_scene = scene_changed.then_some(&*self.base_scene);
        log_build(log, &build, from, elapsed, new_scene);
        if let Some(nav_mesh) = &build.nav_mesh {
            log_loose_links(log, nav_mesh, &self.base_scene.input.geom_set);
        }
        self.last_build = Some((from, elapsed));
        self.show(Some(build), from, scene_changed);
    }

    fn show(&mut self, build: Option<Arc<Build>>, from: Stage, scene_changed: bool) {
        self.next_version += 1;
        let scene_changed = scene_changed || !Arc::ptr_eq(&self.scene, &self.base_scene);
        let from = self.unshown_from.take().map_or(from, |s| s.min(from));
        if scene_changed {
            self.scene = self.base_scene.clone();
            self.scene_version = self.next_version;
            self.authored_version += 1;
            // A `.gset` brings its own settings; the panel shows what was built.
            if let Some(build) = &build {
                self.settings = build.settings.clone();
            }
        }
        for stage in Stage::ALL {
            if stage >= from || scene_changed {
                self.stage_versions[stage as usize] = self.next_version;
            }
        }
        self.build = build;
        self.tiled = None;
        self.temp_obstacles = None;
        self.inspected_tile = None;
        if scene_changed || self.sample == Sample::SoloMesh {
            self.tile_report = None;
        }
    }
}

/// Warns of authored off-mesh links the navmesh does not join at both ends.
fn log_loose_links(log: &mut ViewerLog, nav_mesh: &navlab::detour::NavMesh, geom_set: &GeomSet) {
    for link in navlab::bake::authoring::loose_links(nav_mesh, geom_set) {
        log.warning(link.to_string());
    }
}

fn log_build(
    log: &mut ViewerLog,
    build: &Build,
    from: Stage,
    elapsed: Duration,
    new_scene: Option<&SceneData>,
) {
    // Like RecastDemo, the log shows the last build (errors also pop up as toasts).
    log.lines.clear();
    if let Some(scene) = new_scene {
        log.info(format!(
            "Loaded {}: {} verts, {} tris",
            scene.name,
            scene.input.mesh.vert_count(),
            scene.input.mesh.tri_count()
        ));
        for warning in scene.input.mesh.warnings.lines() {
            log.warning(warning);
        }
    }
    for entry in build.context.entries() {
        match entry.category {
            LogCategory::Progress => log.info(entry.message.clone()),
            LogCategory::Warning => log.warning(entry.message.clone()),
            LogCategory::Error => log.build_error(entry.message.clone()),
        }
    }
    for line in build.timing_report() {
        log.info(line);
    }
    log.info(format!(
        "Rebuilt from {} in {:.2} ms",
        from.name(),
        elapsed.as_secs_f64() * 1000.0
    ));
}

fn load_and_build(
    source: SceneSource,
    settings: BuildSettings,
    target: Target,
    progress: Arc<BuildProgress>,
) -> JobOutcome {
    let started = Instant::now();
    let scene = match source {
        SceneSource::Loaded(scene) => scene,
        SceneSource::File(path) => match SceneData::load(path) {
            Ok(scene) => Arc::new(scene),
            Err(err) => return JobOutcome::LoadFailed(format!("Could not open {err}")),
        },
    };
    // A geometry set brings its own settings, as in RecastDemo.
    let settings = match scene.input.geom_set.settings {
        Some(_) => BuildSettings::for_input(&scene.input),
        None => settings,
    };
    match target {
        Target::Tiles(size) => {
            return build_tiles(
                scene.clone(),
                Some(scene),
                settings,
                Some(size),
                None,
                &progress,
            );
        }
        Target::TempObstacles(size) => {
            return build_temp_obstacles(
                scene.clone(),
                Some(scene),
                settings,
                size,
                Vec::new(),
                &progress,
            );
        }
        Target::Solo => {}
    }
    fresh_solo_build(
        &scene.input,
        settings,
        progress,
        Some(scene.clone()),
        started,
    )
}

/// A solo build of `input` from scratch, as shown: its finished stages when a stage fails.
fn fresh_solo_build(
    input: &InputGeom,
    settings: BuildSettings,
    progress: Arc<BuildProgress>,
    scene: Option<Arc<SceneData>>,
    started: Instant,
) -> JobOutcome {
    match Build::unbuilt_for_input(input, settings, Retention::Everything, Some(progress)) {
        Ok(build) => run_solo_stages(build, Stage::Rasterize, scene, started),
        Err(err) => JobOutcome::BuildFailed {
            scene,
            error: err.to_string(),
            stopped: None,
        },
    }
}

/// Runs `build`'s stages from `from`; a stage that fails leaves the ones before it to show.
fn run_solo_stages(
    mut build: Build,
    from: Stage,
    scene: Option<Arc<SceneData>>,
    started: Instant,
) -> JobOutcome {
    match build.rebuild_from(from) {
        Ok(()) => JobOutcome::Built {
            scene,
            build: Box::new(build),
            from,
            elapsed: started.elapsed(),
        },
        Err(err) => JobOutcome::BuildFailed {
            scene,
            error: err.to_string(),
            stopped: Some((Box::new(build), from, started.elapsed())),
        },
    }
}

/// The Tile Mesh sample: every tile, in parallel, counted into `progress`. `new_scene` is the
/// scene to switch to, if the build belongs to a newly opened one.
fn build_tiles(
    scene: Arc<SceneData>,
    new_scene: Option<Arc<SceneData>>,
    settings: BuildSettings,
    tile_size: Option<i32>,
    inspect: Option<(i32, i32)>,
    progress: &BuildProgress,
) -> JobOutcome {
    let started = Instant::now();
    let tile_size = tile_size.unwrap_or(DEFAULT_TILE_SIZE);
    let count = |done, total| progress.tiles(done, total);
    let built = TiledBuild::new_part(&scene.input, settings, tile_size, None, &count);
    let built = built.and_then(|mut tiled| {
        // The inspected tile keeps showing its stages with the new settings.
        let inspected = match inspect.filter(|&(x, y)| tiled.tile(x, y).is_some()) {
            Some((x, y)) => Some(inspect_tile(&mut tiled, &scene.input, x, y)?),
            None => None,
        };
        Ok((tiled, inspected))
    });
    match built {
        Ok((tiled, inspected)) => JobOutcome::BuiltTiles {
            scene: new_scene,
            tiled: Box::new(tiled),
            elapsed: started.elapsed(),
            inspected,
            edited: None,
        },
        Err(err) => JobOutcome::BuildFailed {
            scene: new_scene,
            error: err.to_string(),
            stopped: None,
        },
    }
}

/// The Temp Obstacles sample, with `obstacles` added again and carved in.
fn build_temp_obstacles(
    scene: Arc<SceneData>,
    new_scene: Option<Arc<SceneData>>,
    settings: BuildSettings,
    tile_size: i32,
    obstacles: Vec<ObstacleShape>,
    progress: &BuildProgress,
) -> JobOutcome {
    let started = Instant::now();
    let built =
        TempObstaclesBuild::new_reporting(&scene.input, &settings, tile_size, Some(progress))
            .and_then(|mut build| {
                let error = |e: navlab::tile_cache::obstacles::ObstacleError| {
                    navlab::error::NavlabError::Stage {
                        stage: "temp obstacles",
                        message: e.to_string(),
                    }
                };
                for shape in obstacles {
                    // The queue holds 64 requests: carve what waits before queueing more.
                    while build.obstacles.add(shape).is_err_and(|e| {
                        e == navlab::tile_cache::obstacles::ObstacleError::RequestQueueFull
                    }) {
                        build.update().map_err(error)?;
                    }
                }
                while build.update().map_err(error)? {}
                Ok(build)
            });
    match built {
        Ok(build) => JobOutcome::BuiltTempObstacles {
            scene: new_scene,
            build: Box::new(build),
            elapsed: started.elapsed(),
        },
        Err(err) => JobOutcome::BuildFailed {
            scene: new_scene,
            error: err.to_string(),
            stopped: None,
        },
    }
}

fn log_temp_obstacles(log: &mut ViewerLog, build: &TempObstaclesBuild, elapsed: Duration) {
    log.lines.clear();
    let stats = &build.stats;
    log.info(format!(
        "Built the tile cache: {} x {} tiles of {} cells, {} layers, {:.1} kB compressed of {:.1} kB, navmesh {:.2} ms, in all {:.2} ms",
        build.tiles_x,
        build.tiles_y,
        build.tile_size,
        stats.layers,
        stats.compressed_bytes as f64 / 1024.0,
        stats.raw_bytes as f64 / 1024.0,
        stats.nav_mesh_build_ms,
        elapsed.as_secs_f64() * 1000.0
    ));
}

/// A tile's kept stages and its read-out.
type InspectedTile = (Box<Build>, TileReport);

/// Rebuilds tile (`x`, `y`) keeping its stages, with RecastDemo's read-out.
fn inspect_tile(
    tiled: &mut TiledBuild,
    input: &InputGeom,
    x: i32,
    y: i32,
) -> navlab::Result<InspectedTile> {
    let started = Instant::now();
    let build = tiled.inspect_tile(input, x, y)?;
    let milliseconds = started.elapsed().as_secs_f64() * 1000.0;
    let tile = tiled.tile(x, y);
    let report = TileReport {
        x,
        y,
        milliseconds,
        triangles: tile.map_or(0, |t| t.triangle_count),
        kilobytes: tiled.nav_mesh.tile_at(x, y, 0).map_or(0.0, |t| {
            t.data_size(tiled.nav_mesh.ref_width()) as f64 / 1024.0
        }),
    };
    Ok((Box::new(build), report))
}

/// The Tile Mesh sample's incremental work on the grid `base`: the tiles an authored change
/// touches (the inspected one, `inspect`, re-inspected if among them), then the tile edits in
/// order.
fn edit_tiles(
    scene: Arc<SceneData>,
    base: Arc<TiledBuild>,
    edits: Vec<TileEdit>,
    inspect: Option<(i32, i32)>,
) -> JobOutcome {
    let started = Instant::now();
    let mut tiled = (*base).clone();
    let result = (|| -> navlab::Result<(TileChanges, Option<InspectedTile>)> {
        let touched = tiled.update_authored(&scene.input)?;
        let mut changes = TileChanges {
            rebuilt: touched.len(),
            removed: Vec::new(),
        };
        let mut inspected = None;
        if let Some((x, y)) = inspect.filter(|cell| touched.contains(cell)) {
            inspected = Some(inspect_tile(&mut tiled, &scene.input, x, y)?);
        }
        for edit in edits {
            match edit {
                TileEdit::Build(x, y) => {
                    inspected = Some(inspect_tile(&mut tiled, &scene.input, x, y)?);
                    changes.rebuilt += 1;
                }
                TileEdit::Remove(x, y) => {
                    tiled.remove_tile(x, y)?;
                    changes.removed.push((x, y));
                }
                TileEdit::BuildAll => {
                    tiled.rebuild_all(&scene.input)?;
                    changes.rebuilt += tiled.tiles.len();
                }
                TileEdit::RemoveAll => {
                    tiled.remove_all()?;
                    changes
                        .removed
                        .extend(tiled.tiles.iter().map(|t| (t.x, t.y)));
                }
                TileEdit::Restore(presence) => {
                    if presence.len() != tiled.tiles.len() {
                        return Err(navlab::error::NavlabError::InvalidSetting {
                            name: "tiles",
                            value: format!("{} tiles", presence.len()),
                            reason: "the tile grid changed since that edit; nothing to undo".into(),
                        });
                    }
                    let now = tile_presence(&tiled);
                    let cells: Vec<(i32, i32)> = tiled.tiles.iter().map(|t| (t.x, t.y)).collect();
                    for ((&want, have), (x, y)) in presence.iter().zip(now).zip(cells) {
                        match (want, have) {
                            (true, false) => {
                                tiled.rebuild_tile(&scene.input, x, y)?;
                                changes.rebuilt += 1;
                            }
                            (false, true) => {
                                tiled.remove_tile(x, y)?;
                                changes.removed.push((x, y));
                            }
                            _ => {}
                        }
                    }
                }
            }
        }
        Ok((changes, inspected))
    })();
    match result {
        Ok((changes, inspected)) => JobOutcome::BuiltTiles {
            scene: None,
            tiled: Box::new(tiled),
            elapsed: started.elapsed(),
            inspected,
            edited: Some(changes),
        },
        Err(err) => JobOutcome::BuildFailed {
            scene: None,
            error: err.to_string(),
            stopped: None,
        },
    }
}

/// What an incremental Tile Mesh job changed, for its log line.
#[derive(Clone, Debug, Default, PartialEq)]
struct TileChanges {
    /// Tiles built again.
    rebuilt: usize,
    /// The tiles taken out, in order.
    removed: Vec<(i32, i32)>,
}

impl TileChanges {
    /// "Rebuilt 3 tiles in 1.20 ms", "Removed tile (4, 2)", "Removed 12 tiles", or both.
    fn describe(&self, elapsed: Duration) -> String {
        let tiles = |n: usize| if n == 1 { "tile" } else { "tiles" };
        let removed = match self.removed.as_slice() {
            [] => None,
            [(x, y)] => Some(format!("tile ({x}, {y})")),
            all => Some(format!("{} tiles", all.len())),
        };
        let ms = elapsed.as_secs_f64() * 1000.0;
        match (self.rebuilt, removed) {
            (0, Some(removed)) => format!("Removed {removed}"),
            (n, None) => format!("Rebuilt {n} {} in {ms:.2} ms", tiles(n)),
            (n, Some(removed)) => {
                format!(
                    "Rebuilt {n} {} and removed {removed} in {ms:.2} ms",
                    tiles(n)
                )
            }
        }
    }
}

fn log_tiles(log: &mut ViewerLog, tiled: &TiledBuild, elapsed: Duration) {
    log.lines.clear();
    for tile in &tiled.tiles {
        for entry in tile.context.entries() {
            let line = format!("tile ({}, {}): {}", tile.x, tile.y, entry.message);
            match entry.category {
                LogCategory::Progress => {}
                LogCategory::Warning => log.warning(line),
                LogCategory::Error => log.build_error(line),
            }
        }
    }
    let polys = tiled.nav_mesh.poly_count();
    log.info(format!(
        "Built {} x {} tiles of {} cells: {} tiles with polygons, {polys} polygons, in {:.2} ms",
        tiled.tiles_x,
        tiled.tiles_y,
        tiled.tile_size,
        tiled.nav_mesh.tile_count(),
        elapsed.as_secs_f64() * 1000.0
    ));
}

fn rebuild(
    scene: &SceneData,
    base: Option<Arc<Build>>,
    settings: BuildSettings,
    from: Stage,
    progress: Arc<BuildProgress>,
) -> JobOutcome {
    let started = Instant::now();
    let Some(base) = base else {
        return fresh_solo_build(&scene.input, settings, progress, None, started);
    };
    // Copy the stage outputs before `from` and re-run the rest.
    let mut build = (*base).clone();
    build.progress = Some(progress);
    match build.update_authored(settings, &scene.input.geom_set) {
        Ok(Some(_)) => JobOutcome::Built {
            scene: None,
            build: Box::new(build),
            from,
            elapsed: started.elapsed(),
        },
        Ok(None) => JobOutcome::Unchanged,
        // A stage failed: the stages before it are new and shown.
        Err(err) if build.failed_stage.is_some() => JobOutcome::BuildFailed {
            scene: None,
            error: err.to_string(),
            stopped: Some((Box::new(build), from, started.elapsed())),
        },
        // The settings were refused: the last build stays.
        Err(err) => JobOutcome::BuildFailed {
            scene: None,
            error: err.to_string(),
            stopped: None,
        },
    }
}

/// Runs builds in the background and keeps [`BuildState`] current. Needs only a task pool, so
/// tests can run it without a window or renderer.
pub struct BuildPlugin {
    /// The scene to open with.
    pub scene: Arc<SceneData>,
    pub settings: BuildSettings,
}

impl Plugin for BuildPlugin {
    fn build(&self, app: &mut App) {
        app.insert_resource(BuildState::new(self.scene.clone(), self.settings.clone()))
            .init_resource::<ViewerLog>()
            .add_message::<BuildRequest>()
            .add_systems(
                PreUpdate,
                (accept_requests, poll_build, update_temp_obstacles).chain(),
            );
    }
}

fn accept_requests(
    mut requests: MessageReader<BuildRequest>,
    mut state: ResMut<BuildState>,
    mut log: ResMut<ViewerLog>,
) {
    for request in requests.read() {
        match request {
            BuildRequest::Obstacle(edit) => state.edit_obstacles(edit, &mut log),
            _ => state.accept(request.clone()),
        }
    }
    state.start_pending();
}

/// Temp Obstacles' `handleUpdate`: one layer of the tile cache rebuilt per frame, and the
/// navmesh republished when it changed.
fn update_temp_obstacles(mut state: ResMut<BuildState>, mut log: ResMut<ViewerLog>) {
    let waiting = state
        .temp_obstacles
        .as_ref()
        .is_some_and(|view| !view.build.obstacles.up_to_date());
    if !waiting {
        return;
    }
    let state = &mut *state;
    let Some(view) = state.temp_obstacles.as_mut() else {
        return;
    };
    match view.build.update() {
        Ok(_) => {
            state.next_version += 1;
            view.nav_mesh = Arc::new(view.build.nav_mesh.clone());
            view.obstacles_version = state.next_version;
            state.stage_versions[Stage::NavMesh as usize] = state.next_version;
        }
        Err(e) => log.error(format!("Temp obstacles: {e}")),
    }
}

fn poll_build(mut state: ResMut<BuildState>, mut log: ResMut<ViewerLog>) {
    let Some(job) = state.job.as_mut() else {
        return;
    };
    let Some(outcome) = check_ready(&mut job.task) else {
        return;
    };
    let started = job.started;
    state.job = None;
    state.finish(outcome, &mut log);
    bevy::log::debug!("build job finished after {:?}", started.elapsed());
    state.start_pending();
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// An app with nothing but the build plugin, on the default scene.
    pub(crate) fn build_app() -> App {
        let mut app = App::new();
        app.add_plugins((
            MinimalPlugins,
            BuildPlugin {
                scene: Arc::new(SceneData::default_scene()),
                settings: BuildSettings::default(),
            },
        ));
        app
    }

    /// Runs frames until no build is running or waiting.
    pub(crate) fn settle(app: &mut App) {
        for _ in 0..20_000 {
            app.update();
            if !app.world().resource::<BuildState>().is_busy() {
                return;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        panic!("the build did not finish");
    }

    fn request(app: &mut App, request: BuildRequest) {
        app.world_mut().write_message(request);
    }

    /// The first tile, row by row, that the Tile Mesh build put in its navmesh.
    pub(crate) fn first_built_tile(tiled: &TiledBuild) -> (i32, i32) {
        tiled
            .tiles
            .iter()
            .find(|t| tiled.nav_mesh.tile_at(t.x, t.y, 0).is_some())
            .map(|t| (t.x, t.y))
            .expect("a tile with polygons")
    }

    fn state(app: &App) -> &BuildState {
        app.world().resource::<BuildState>()
    }

    #[test]
    fn tile_edits_are_logged_by_what_they_did() {
        let changes = |rebuilt, removed: &[(i32, i32)]| {
            TileChanges {
                rebuilt,
                removed: removed.to_vec(),
            }
            .describe(Duration::from_micros(1500))
        };
        assert_eq!(changes(1, &[]), "Rebuilt 1 tile in 1.50 ms");
        assert_eq!(changes(0, &[(4, 2)]), "Removed tile (4, 2)");
        assert_eq!(changes(0, &[(0, 0), (1, 0)]), "Removed 2 tiles");
        assert_eq!(
            changes(3, &[(4, 2)]),
            "Rebuilt 3 tiles and removed tile (4, 2) in 1.50 ms"
        );
    }

    #[test]
    fn first_build_shows_the_default_scene() {
        let mut app = build_app();
        settle(&mut app);
        let state = state(&app);
        assert!(state.build.is_some());
        assert_eq!(state.last_build.map(|b| b.0), Some(Stage::Rasterize));
        assert_eq!(state.scene.name, "Default scene");
        assert!(state.stage_versions.iter().all(|&v| v > 0));
    }

    #[test]
    fn authored_edits_rebuild_from_erosion_or_the_navmesh_only() {
        use navlab::input::geomset::{ConvexVolume, OffMeshConnection};
        let mut app = build_app();
        settle(&mut app);
        let mut geom_set = state(&app).scene.input.geom_set.clone();
        geom_set.off_mesh_connections.push(OffMeshConnection {
            start: [0.0, 0.0, 0.0],
            end: [3.0, 0.0, 0.0],
            radius: 0.6,
            bidirectional: true,
            area: 5,
            flags: 8,
        });
        let scene_version = state(&app).scene_version;
        request(&mut app, BuildRequest::Authored(geom_set.clone()));
        settle(&mut app);
        assert_eq!(state(&app).last_build.map(|b| b.0), Some(Stage::NavMesh));
        assert_eq!(state(&app).scene_version, scene_version, "no new scene");
        let build = state(&app).build.clone().unwrap();
        assert_eq!(build.off_mesh_connections.len(), 1);

        geom_set.convex_volumes.push(ConvexVolume {
            verts: vec![
                [-5.0, 0.0, -5.0],
                [5.0, 0.0, -5.0],
                [5.0, 0.0, 5.0],
                [-5.0, 0.0, 5.0],
            ],
            area: 4,
            hmin: -1.0,
            hmax: 5.0,
        });
        request(&mut app, BuildRequest::Authored(geom_set));
        settle(&mut app);
        assert_eq!(state(&app).last_build.map(|b| b.0), Some(Stage::Erode));
        assert_eq!(state(&app).build.as_ref().unwrap().convex_volumes.len(), 1);
    }

    #[test]
    fn a_setting_change_rebuilds_from_the_stage_it_affects() {
        let mut app = build_app();
        settle(&mut app);
        let before = state(&app).stage_versions;
        let settings = BuildSettings {
            detail_sample_dist: 3.0,
            ..Default::default()
        };
        request(&mut app, BuildRequest::Settings(settings.clone()));
        settle(&mut app);
        let after = state(&app);
        assert_eq!(after.last_build.map(|b| b.0), Some(Stage::DetailMesh));
        assert_eq!(after.build.as_ref().unwrap().settings, settings);
        for stage in Stage::ALL {
            let changed = after.stage_versions[stage as usize] != before[stage as usize];
            assert_eq!(changed, stage >= Stage::DetailMesh, "{stage:?}");
        }

        let radius = BuildSettings {
            agent_radius: 1.2,
            ..settings
        };
        request(&mut app, BuildRequest::Settings(radius));
        settle(&mut app);
        assert_eq!(state(&app).last_build.map(|b| b.0), Some(Stage::Erode));
    }

    #[test]
    fn a_newer_request_supersedes_the_running_build() {
        let mut app = build_app();
        settle(&mut app);
        // Fine cells make the first build slow enough to be still running a frame later, even
        // on a loaded machine.
        let first = BuildSettings {
            cell_size: 0.08,
            ..Default::default()
        };
        let second = BuildSettings {
            cell_size: 0.5,
            ..Default::default()
        };
        request(&mut app, BuildRequest::Settings(first));
        app.update();
        assert!(matches!(
            state(&app).status,
            BuildStatus::Building {
                from: Stage::Rasterize,
                ..
            }
        ));
        request(&mut app, BuildRequest::Settings(second.clone()));
        settle(&mut app);
        let state = state(&app);
        assert_eq!(state.superseded, 1);
        assert_eq!(state.finished, 3);
        assert_eq!(state.build.as_ref().unwrap().settings, second);
    }

    #[test]
    fn a_superseded_build_is_shown_when_the_newer_request_needs_nothing_more() {
        let mut app = build_app();
        settle(&mut app);
        // Fine cells keep the first build running past the next frame, even on a loaded
        // machine, so the second request supersedes it.
        let changed = BuildSettings {
            cell_size: 0.08,
            agent_radius: 1.0,
            ..Default::default()
        };
        request(&mut app, BuildRequest::Settings(changed.clone()));
        app.update();
        request(&mut app, BuildRequest::Settings(changed.clone()));
        settle(&mut app);
        let state = state(&app);
        assert_eq!(state.superseded, 1);
        assert_eq!(state.build.as_ref().unwrap().settings, changed);
        assert_eq!(state.status, BuildStatus::Idle);
    }

    #[test]
    fn the_tile_mesh_sample_builds_tiles_and_back() {
        let mut app = build_app();
        settle(&mut app);
        request(&mut app, BuildRequest::Sample(Sample::TileMesh));
        settle(&mut app);
        let tiled = state(&app).tiled.clone().expect("tiles built");
        assert!(state(&app).build.is_none());
        assert!(tiled.nav_mesh.tile_count() > 1);
        assert_eq!(tiled.tile_size, DEFAULT_TILE_SIZE);
        // A setting or the tile size rebuilds every tile.
        request(&mut app, BuildRequest::TileSize(64));
        settle(&mut app);
        let bigger = state(&app).tiled.clone().unwrap();
        assert_eq!(bigger.tile_size, 64);
        assert!(bigger.nav_mesh.tile_count() < tiled.nav_mesh.tile_count());
        request(&mut app, BuildRequest::Sample(Sample::SoloMesh));
        settle(&mut app);
        assert!(state(&app).tiled.is_none());
        assert!(state(&app).build.is_some());
    }

    #[test]
    fn tile_mesh_authored_edits_rebuild_only_their_tiles() {
        use navlab::input::geomset::ConvexVolume;
        let mut app = build_app();
        settle(&mut app);
        request(&mut app, BuildRequest::Sample(Sample::TileMesh));
        settle(&mut app);
        let tile_count = state(&app).tiled.as_ref().unwrap().tiles.len();
        let mut geom_set = state(&app).scene.input.geom_set.clone();
        geom_set.convex_volumes.push(ConvexVolume {
            verts: vec![
                [-2.0, 0.0, -2.0],
                [2.0, 0.0, -2.0],
                [2.0, 0.0, 2.0],
                [-2.0, 0.0, 2.0],
            ],
            area: 1,
            hmin: -5.0,
            hmax: 5.0,
        });
        request(&mut app, BuildRequest::Authored(geom_set));
        settle(&mut app);
        let log = &app.world().resource::<ViewerLog>().lines;
        let rebuilt: usize = log
            .iter()
            .rev()
            .find_map(|(_, line)| line.strip_prefix("Rebuilt "))
            .and_then(|rest| rest.split(' ').next()?.parse().ok())
            .unwrap_or_else(|| panic!("an incremental rebuild, not {log:?}"));
        assert!(
            rebuilt > 0 && rebuilt < tile_count,
            "{rebuilt} of {tile_count}"
        );
        let state = state(&app);
        let tiled = state.tiled.as_deref().unwrap();
        let full =
            TiledBuild::new(&state.scene.input, state.settings.clone(), state.tile_size).unwrap();
        for (ours, theirs) in tiled.tiles.iter().zip(&full.tiles) {
            let data = |t: &navlab::bake::tiled::Tile| {
                t.output.as_ref().ok().and_then(|o| {
                    o.data
                        .as_ref()
                        .map(|d| d.to_bytes(navlab::detour::RefWidth::Bits32))
                })
            };
            assert_eq!(data(ours), data(theirs), "tile ({}, {})", ours.x, ours.y);
        }
    }

    #[test]
    fn a_file_that_fails_to_load_keeps_the_scene() {
        let mut app = build_app();
        settle(&mut app);
        let build_before = state(&app).build.clone().unwrap();
        let version_before = state(&app).scene_version;
        request(
            &mut app,
            BuildRequest::Open(PathBuf::from("/nonexistent/missing.obj")),
        );
        settle(&mut app);
        let after = state(&app);
        assert_eq!(after.scene.name, "Default scene");
        assert_eq!(after.scene_version, version_before);
        assert!(Arc::ptr_eq(after.build.as_ref().unwrap(), &build_before));
        let log = app.world().resource::<ViewerLog>();
        assert_eq!(log.toasts.len(), 1);
        assert!(log.toasts[0].0.contains("missing.obj"), "{:?}", log.toasts);
    }

    #[test]
    fn a_failed_build_keeps_the_previous_navmesh() {
        let mut app = build_app();
        settle(&mut app);
        let build_before = state(&app).build.clone().unwrap();
        let tiny = BuildSettings {
            cell_size: 0.001,
            ..Default::default()
        };
        request(&mut app, BuildRequest::Settings(tiny));
        settle(&mut app);
        assert!(Arc::ptr_eq(
            state(&app).build.as_ref().unwrap(),
            &build_before
        ));
        let log = app.world().resource::<ViewerLog>();
        assert!(log.toasts[0].0.contains("cellSize"), "{:?}", log.toasts);
        // The next valid change builds from the last good build.
        request(&mut app, BuildRequest::Settings(BuildSettings::default()));
        settle(&mut app);
        assert_eq!(state(&app).status, BuildStatus::Idle);
    }

    /// As RecastDemo draws a failed build's intermediates, a stage failure shows the stages
    /// before it (here nothing is walkable, so the navmesh stage fails).
    #[test]
    fn a_failed_stage_shows_the_stages_before_it() {
        let mut app = build_app();
        settle(&mut app);
        let flat = BuildSettings {
            agent_max_slope: 0.0,
            ..Default::default()
        };
        request(&mut app, BuildRequest::Settings(flat));
        settle(&mut app);
        let shown = state(&app).build.clone().unwrap();
        assert_eq!(shown.failed_stage, Some(Stage::NavMesh));
        assert!(shown.heightfield_filtered.span_counts().0 > 0);
        assert!(shown.nav_mesh.is_none());
        let log = app.world().resource::<ViewerLog>();
        assert!(log.toasts[0].0.contains("Build failed"), "{:?}", log.toasts);
        // The log reads as a build's: the finished stages' times, then what stopped the rest.
        assert!(log.lines.iter().any(|(_, line)| line == "Build Times"));
        let (level, last) = log.lines.last().unwrap();
        assert!(
            *level == LogLevel::Error && last.starts_with("Build failed"),
            "{last}"
        );
        request(&mut app, BuildRequest::Settings(BuildSettings::default()));
        settle(&mut app);
        let shown = state(&app).build.clone().unwrap();
        assert_eq!(shown.failed_stage, None);
        assert!(shown.nav_mesh.is_some());
    }

    #[test]
    fn opening_a_file_replaces_the_scene() {
        let dir =
            std::env::temp_dir().join(format!("navlab-viewer-build-open-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("quad.obj");
        std::fs::write(&path, "v 0 0 0\nv 10 0 0\nv 10 0 10\nv 0 0 10\nf 1 4 3 2\n").unwrap();
        let mut app = build_app();
        settle(&mut app);
        request(&mut app, BuildRequest::Open(path.clone()));
        settle(&mut app);
        let state = state(&app);
        assert_eq!(state.scene.name, "quad.obj");
        assert_eq!(state.scene.input.source.as_deref(), Some(path.as_path()));
        assert!(state.build.is_some());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
