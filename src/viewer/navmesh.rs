//! The navmesh on screen and its file. **Export navmesh…** writes the shown navmesh as
//! RecastDemo's all-tiles file (default names `solo_navmesh.bin` and `all_tiles_navmesh.bin`, as
//! RecastDemo's samples save them);
//! **Load navmesh…** reads a C++-made or Navlab file and shows it, without its source mesh,
//! until the next build replaces it (as a build replaces RecastDemo's loaded navmesh). After a
//! full build (Build button, a newly opened mesh) the draw mode becomes Navmesh, as in
//! RecastDemo; live rebuilds keep the mode the user is looking at.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use bevy::prelude::*;
use bevy::tasks::futures::check_ready;
use bevy::tasks::{IoTaskPool, Task};

use crate::viewer::build::{BuildRequest, BuildState, ViewerLog};
use crate::viewer::draw::DrawMode;
use crate::viewer::files::{FileDialog, FileFilter};
use navlab::bake::solo::Stage;
use navlab::bake::tiled::TiledBuild;
use navlab::detour::NavMesh;
use navlab::detour::tile_store::{STORE_MAGIC, TileStore};
use navlab::detour::{load_nav_mesh, save_nav_mesh};

/// RecastDemo's file name for a solo navmesh.
pub const DEFAULT_EXPORT_NAME: &str = "solo_navmesh.bin";
/// RecastDemo's file name for a tiled navmesh.
pub const DEFAULT_TILED_EXPORT_NAME: &str = "all_tiles_navmesh.bin";

/// A navmesh read from a file.
pub struct LoadedNavMesh {
    pub path: PathBuf,
    pub mesh: Arc<NavMesh>,
    /// The tile store the navmesh's tiles stream from (`streaming`), for a `.nlts` file.
    pub store: Option<Arc<TileStore>>,
}

/// Which navmesh the Navmesh draw modes show: a tool's edited copy (pruned flags), else a
/// loaded file's, else the build's.
#[derive(Resource, Default)]
pub struct ShownNavMesh {
    /// A copy a tool changed, shown (and exported) until what it was copied from changes.
    edited: Option<Arc<NavMesh>>,
    /// Bumped whenever `edited` is set.
    edit_version: u64,
    loaded: Option<LoadedNavMesh>,
    /// A file read while a build was running, shown once it has finished (so that build does
    /// not replace it at once).
    waiting: Option<LoadedNavMesh>,
    /// Bumped whenever a file's navmesh is shown or dropped.
    pub loaded_version: u64,
    /// Bumped whenever tiles stream in or out of a tile store's navmesh.
    stream_version: u64,
    /// The build's navmesh version last seen, to drop a loaded file when a new build lands.
    seen_build: u64,
    /// A build's navmesh landed and the draw-mode switch after full builds has not looked yet.
    build_landed: bool,
}

impl ShownNavMesh {
    /// The navmesh to draw and export.
    pub fn get<'a>(&'a self, state: &'a BuildState) -> Option<&'a NavMesh> {
        if let Some(edited) = &self.edited {
            return Some(edited);
        }
        match &self.loaded {
            Some(loaded) => Some(&loaded.mesh),
            None => match (&state.tiled, &state.temp_obstacles) {
                (Some(tiled), _) => Some(&tiled.nav_mesh),
                (None, Some(view)) => Some(&view.nav_mesh),
                (None, None) => state.build.as_deref()?.nav_mesh.as_deref(),
            },
        }
    }

    /// The navmesh [`ShownNavMesh::get`] returns, shared, for what must outlive this frame
    /// (a running crowd).
    pub fn shared(&self, state: &BuildState) -> Option<SharedNavMesh> {
        if let Some(edited) = &self.edited {
            return Some(SharedNavMesh::Mesh(edited.clone()));
        }
        match &self.loaded {
            Some(loaded) => Some(SharedNavMesh::Mesh(loaded.mesh.clone())),
            None => match &state.tiled {
                Some(tiled) => Some(SharedNavMesh::Tiled(tiled.clone())),
                None if state.temp_obstacles.is_some() => state
                    .temp_obstacles
                    .as_ref()
                    .map(|view| SharedNavMesh::Mesh(view.nav_mesh.clone())),
                None => state
                    .build
                    .as_deref()?
                    .nav_mesh
                    .clone()
                    .map(SharedNavMesh::Mesh),
            },
        }
    }

    /// The file shown instead of the build's navmesh, if any.
    pub fn loaded(&self) -> Option<&LoadedNavMesh> {
        self.loaded.as_ref()
    }

    /// A key that changes whenever [`ShownNavMesh::get`] may return something else.
    pub fn version(&self, state: &BuildState) -> u64 {
        self.source_version(state) ^ self.stream_version << 40
    }

    /// A key that changes whenever another navmesh is shown, but not as tiles stream in and
    /// out of the same one.
    pub fn source_version(&self, state: &BuildState) -> u64 {
        let source = match &self.loaded {
            Some(_) => self.loaded_version << 32 | 1,
            None => state.stage_version(Stage::NavMesh) << 1,
        };
        match self.edited {
            Some(_) => source ^ (self.edit_version << 48) ^ (1 << 63),
            None => source,
        }
    }

    /// The tile store the shown navmesh streams from, if it does.
    pub fn store(&self) -> Option<&Arc<TileStore>> {
        match (&self.edited, &self.loaded) {
            (None, Some(loaded)) => loaded.store.as_ref(),
            _ => None,
        }
    }

    /// Whether the shown navmesh streams from a tile store.
    pub fn is_streamed(&self) -> bool {
        self.store().is_some()
    }

    /// The streamed navmesh, to add and remove tiles; the change is noted as one.
    pub fn streamed_mut(&mut self) -> Option<&mut Arc<NavMesh>> {
        if self.edited.is_some() {
            return None;
        }
        let loaded = self.loaded.as_mut().filter(|l| l.store.is_some())?;
        self.stream_version += 1;
        Some(&mut loaded.mesh)
    }

    /// Shows `mesh`, an edited copy of the navmesh on screen, until a build lands or a file
    /// is shown.
    pub fn show_edited(&mut self, mesh: NavMesh) {
        self.edited = Some(Arc::new(mesh));
        self.edit_version += 1;
    }

    /// Shows `loaded` once no build is running.
    pub fn show_file(&mut self, loaded: LoadedNavMesh) {
        self.waiting = Some(loaded);
    }
}

/// A navmesh kept alive by reference counting: a solo build's, a file's, an edited copy or a
/// tiled build's.
#[derive(Clone)]
pub enum SharedNavMesh {
    Mesh(Arc<NavMesh>),
    Tiled(Arc<TiledBuild>),
}

impl std::ops::Deref for SharedNavMesh {
    type Target = NavMesh;

    fn deref(&self) -> &NavMesh {
        match self {
            SharedNavMesh::Mesh(mesh) => mesh,
            SharedNavMesh::Tiled(tiled) => &tiled.nav_mesh,
        }
    }
}

/// The world-space bounds of all tiles of a navmesh.
pub fn nav_mesh_bounds(mesh: &NavMesh) -> Option<([f32; 3], [f32; 3])> {
    mesh.tiles()
        .map(|(_, t)| (t.header().bmin, t.header().bmax))
        .reduce(|(amin, amax), (bmin, bmax)| {
            (
                std::array::from_fn(|k| amin[k].min(bmin[k])),
                std::array::from_fn(|k| amax[k].max(bmax[k])),
            )
        })
}

/// What the user asked of the navmesh file.
#[derive(Message, Clone, Debug)]
pub enum NavMeshRequest {
    /// Ask where to save (a save dialog), then save.
    ExportDialog,
    /// Ask which file to load, then load it.
    LoadDialog,
    Export(PathBuf),
    Load(PathBuf),
}

/// What the navmesh dialogs offer: RecastDemo's all-tiles files.
const NAVMESH_FILES: FileFilter = FileFilter {
    name: "Detour navmesh (all tiles), compact navmesh or tile store",
    extensions: &["bin", "nlmz", "nlts"],
};

/// File dialogs and reads running off the main thread.
#[derive(Resource, Default)]
struct NavMeshTasks {
    export_dialog: FileDialog,
    load_dialog: FileDialog,
    reads: Vec<Task<(PathBuf, navlab::Result<LoadedNavMesh>)>>,
    /// Switch to the Navmesh draw mode when the next build lands.
    navmesh_mode_after_build: bool,
}

impl NavMeshTasks {
    /// Whether a save or open dialog is waiting for the user.
    fn dialog_open(&self) -> bool {
        self.export_dialog.is_open() || self.load_dialog.is_open()
    }
}

pub struct NavMeshPlugin;

impl Plugin for NavMeshPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<ShownNavMesh>()
            .init_resource::<NavMeshTasks>()
            .init_resource::<crate::viewer::unsaved::UnsavedWork>()
            .add_message::<NavMeshRequest>()
            .add_systems(Update, (handle_requests, poll_tasks, follow_builds).chain());
    }
}

fn handle_requests(
    mut requests: MessageReader<NavMeshRequest>,
    mut tasks: ResMut<NavMeshTasks>,
    shown: Res<ShownNavMesh>,
    state: Res<BuildState>,
    mut log: ResMut<ViewerLog>,
    mut unsaved: ResMut<crate::viewer::unsaved::UnsavedWork>,
) {
    for request in requests.read() {
        match request {
            NavMeshRequest::ExportDialog | NavMeshRequest::LoadDialog if tasks.dialog_open() => {}
            NavMeshRequest::ExportDialog => {
                let name = if state.tiled.is_some() {
                    DEFAULT_TILED_EXPORT_NAME
                } else {
                    DEFAULT_EXPORT_NAME
                };
                tasks
                    .export_dialog
                    .save_file("Export navmesh", NAVMESH_FILES, name);
            }
            NavMeshRequest::LoadDialog => {
                tasks.load_dialog.pick_file("Load navmesh", NAVMESH_FILES);
            }
            NavMeshRequest::Export(path) => {
                if export(shown.get(&state), path, &mut log) {
                    unsaved.nav_mesh_exported();
                }
            }
            NavMeshRequest::Load(path) => {
                let path = path.clone();
                tasks.reads.push(IoTaskPool::get().spawn(async move {
                    let result = read_nav_mesh_file(&path);
                    (path, result)
                }));
            }
        }
    }
}

/// A navmesh file shown as a whole (MSET or NLMZ), or a tile store (NLTS) opened with no tile
/// loaded yet: its tiles stream in around the camera.
pub fn read_nav_mesh_file(path: &Path) -> navlab::Result<LoadedNavMesh> {
    let mut magic = [0u8; 4];
    let is_store = std::fs::File::open(path)
        .and_then(|mut file| std::io::Read::read_exact(&mut file, &mut magic))
        .is_ok_and(|()| magic == STORE_MAGIC);
    if !is_store {
        let mesh = load_nav_mesh(path)?;
        return Ok(LoadedNavMesh {
            path: path.to_path_buf(),
            mesh: Arc::new(mesh),
            store: None,
        });
    }
    let store = TileStore::open(path)?;
    let mesh = store.empty_nav_mesh()?;
    Ok(LoadedNavMesh {
        path: path.to_path_buf(),
        mesh: Arc::new(mesh),
        store: Some(Arc::new(store)),
    })
}

/// Writes the navmesh on screen at `path`; whether it was written.
fn export(mesh: Option<&NavMesh>, path: &Path, log: &mut ViewerLog) -> bool {
    let Some(mesh) = mesh else {
        log.error(
            "Nothing to export: no navmesh yet (build first; Detour needs Verts Per Poly ≤ 6)",
        );
        return false;
    };
    match save_nav_mesh(path, mesh) {
        Ok(()) => {
            log.info(format!(
                "Exported the navmesh to {} ({} tiles)",
                path.display(),
                mesh.tile_count()
            ));
            true
        }
        Err(err) => {
            log.error(format!("Could not export the navmesh: {err}"));
            false
        }
    }
}

fn poll_tasks(
    mut tasks: ResMut<NavMeshTasks>,
    mut shown: ResMut<ShownNavMesh>,
    mut requests: MessageWriter<NavMeshRequest>,
    mut log: ResMut<ViewerLog>,
) {
    let tasks = &mut *tasks;
    if let Some(choice) = tasks.export_dialog.poll() {
        requests.write_batch(choice.map(NavMeshRequest::Export));
    }
    if let Some(choice) = tasks.load_dialog.poll() {
        requests.write_batch(choice.map(NavMeshRequest::Load));
    }
    let mut still_reading = Vec::new();
    for mut task in tasks.reads.drain(..) {
        match check_ready(&mut task) {
            None => still_reading.push(task),
            Some((_, Ok(loaded))) => shown.show_file(loaded),
            Some((path, Err(err))) => log.error(format!(
                "Could not load the navmesh {}: {err}",
                path.display()
            )),
        }
    }
    tasks.reads = still_reading;
}

/// Follows the build's navmesh, the one place that watches its stage version: a new navmesh
/// drops a loaded file; once the build is idle, a file read meanwhile is shown, and after a full
/// build the mode becomes Navmesh. RecastDemo shows the navmesh after every build; here only
/// after full builds (Build, a newly opened mesh or scene, a sample switch), so that live tuning
/// keeps the stage being watched.
fn follow_builds(
    mut requests: MessageReader<BuildRequest>,
    mut tasks: ResMut<NavMeshTasks>,
    state: Res<BuildState>,
    mut shown: ResMut<ShownNavMesh>,
    mut mode: ResMut<DrawMode>,
    mut log: ResMut<ViewerLog>,
) {
    for request in requests.read() {
        if matches!(
            request,
            BuildRequest::Rebuild
                | BuildRequest::Open(_)
                | BuildRequest::Scene(_)
                | BuildRequest::Sample(_)
        ) {
            tasks.navmesh_mode_after_build = true;
        }
    }
    let build_version = state.stage_version(Stage::NavMesh);
    if shown.seen_build != build_version {
        shown.seen_build = build_version;
        shown.build_landed = true;
        shown.edited = None;
        if shown.loaded.take().is_some() {
            shown.loaded_version += 1;
        }
    }
    if state.is_busy() {
        return;
    }
    if std::mem::take(&mut shown.build_landed) {
        let has_nav_mesh =
            state.tiled.is_some() || state.build.as_ref().is_some_and(|b| b.nav_mesh.is_some());
        // A heat map is kept: it reads the new build as well as the old.
        if std::mem::take(&mut tasks.navmesh_mode_after_build)
            && has_nav_mesh
            && !mode.is_heat_map()
        {
            *mode = DrawMode::Navmesh;
        }
    }
    if let Some(loaded) = shown.waiting.take() {
        match &loaded.store {
            Some(store) => log.info(format!(
                "Opened tile store {}: {} tiles, streamed around the camera",
                loaded.path.display(),
                store.tiles().len()
            )),
            None => log.info(format!(
                "Loaded navmesh {}: {} tiles, {} polygons",
                loaded.path.display(),
                loaded.mesh.tile_count(),
                loaded.mesh.poly_count()
            )),
        }
        shown.loaded = Some(loaded);
        shown.loaded_version += 1;
        shown.edited = None;
        if !mode.shows_nav_mesh() {
            *mode = DrawMode::Navmesh;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::viewer::build::tests::{build_app, settle};

    fn app() -> App {
        let mut app = build_app();
        app.init_resource::<DrawMode>().add_plugins(NavMeshPlugin);
        *app.world_mut().resource_mut::<DrawMode>() = DrawMode::PolyMesh;
        settle(&mut app);
        app.update();
        app
    }

    /// Runs frames until `done` holds (file reads finish on the I/O pool).
    fn run_until(app: &mut App, done: impl Fn(&World) -> bool) {
        for _ in 0..10_000 {
            app.update();
            if done(app.world()) {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        panic!("gave up waiting");
    }

    /// Runs frames until the log reports a navmesh file that could not be loaded.
    fn run_until_load_error(app: &mut App) {
        run_until(app, |w| {
            w.resource::<ViewerLog>()
                .lines
                .iter()
                .any(|(_, line)| line.starts_with("Could not load the navmesh"))
        });
    }

    fn shown_bytes(world: &World) -> Option<Vec<u8>> {
        let state = world.resource::<BuildState>();
        let shown = world.resource::<ShownNavMesh>();
        shown.get(state).map(NavMesh::to_mset_bytes)
    }

    /// A scratch folder of one test (tests run in parallel), which removes it when it passes.
    fn scratch(test: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "navlab-viewer-navmesh-{test}-{}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn export_writes_the_shown_navmesh_and_load_shows_a_file_until_the_next_build() {
        let mut app = app();
        let built = shown_bytes(app.world()).expect("the default scene has a navmesh");
        let dir = scratch("export_and_load");
        let path = dir.join(DEFAULT_EXPORT_NAME);
        app.world_mut()
            .write_message(NavMeshRequest::Export(path.clone()));
        app.update();
        assert_eq!(std::fs::read(&path).unwrap(), built);

        // A different navmesh in the file: the default scene tiled.
        let input =
            navlab::input::input_geom::InputGeom::from_mesh(navlab::input::scene::default_scene())
                .unwrap();
        let tiled = navlab::bake::tiled::TiledBuild::new(&input, Default::default(), 32).unwrap();
        let tiled_bytes = tiled.nav_mesh.to_mset_bytes();
        let tiled_path = dir.join("tiled.bin");
        std::fs::write(&tiled_path, &tiled_bytes).unwrap();
        app.world_mut()
            .write_message(NavMeshRequest::Load(tiled_path.clone()));
        run_until(&mut app, |w| {
            w.resource::<ShownNavMesh>().loaded().is_some()
        });
        assert_eq!(shown_bytes(app.world()), Some(tiled_bytes));
        assert_eq!(*app.world().resource::<DrawMode>(), DrawMode::Navmesh);

        // The next build replaces it, and the Build button shows the navmesh mode.
        *app.world_mut().resource_mut::<DrawMode>() = DrawMode::Voxels;
        app.world_mut().write_message(BuildRequest::Rebuild);
        settle(&mut app);
        app.update();
        assert!(app.world().resource::<ShownNavMesh>().loaded().is_none());
        assert_eq!(shown_bytes(app.world()), Some(built));
        assert_eq!(*app.world().resource::<DrawMode>(), DrawMode::Navmesh);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn live_rebuilds_keep_the_draw_mode() {
        let mut app = app();
        *app.world_mut().resource_mut::<DrawMode>() = DrawMode::Voxels;
        app.world_mut().write_message(BuildRequest::Settings(
            navlab::bake::settings::BuildSettings {
                cell_size: 0.4,
                ..Default::default()
            },
        ));
        settle(&mut app);
        app.update();
        assert_eq!(*app.world().resource::<DrawMode>(), DrawMode::Voxels);
    }

    #[test]
    fn a_bad_file_is_reported_and_changes_nothing() {
        let mut app = app();
        let before = shown_bytes(app.world());
        let dir = scratch("bad_file");
        let path = dir.join("truncated.bin");
        let mut bytes = before.clone().unwrap();
        bytes.truncate(bytes.len() / 2);
        std::fs::write(&path, bytes).unwrap();
        app.world_mut().write_message(NavMeshRequest::Load(path));
        run_until_load_error(&mut app);
        assert_eq!(shown_bytes(app.world()), before);
        assert!(!app.world().resource::<ViewerLog>().toasts.is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A tile store opens as a streamed navmesh with no tile loaded yet; a cut one is reported
    /// and changes nothing.
    #[test]
    fn a_tile_store_opens_streamed_and_a_cut_one_is_reported() {
        let mut app = app();
        let before = shown_bytes(app.world());
        let dir = scratch("tile_store");
        let input =
            navlab::input::input_geom::InputGeom::from_mesh(navlab::input::scene::default_scene())
                .unwrap();
        let tiled = navlab::bake::tiled::TiledBuild::new(&input, Default::default(), 32).unwrap();
        let store = dir.join("level.nlts");
        TileStore::write(&store, &tiled.nav_mesh).unwrap();
        let bytes = std::fs::read(&store).unwrap();
        let cut = dir.join("cut.nlts");
        std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();

        app.world_mut().write_message(NavMeshRequest::Load(cut));
        run_until_load_error(&mut app);
        assert_eq!(shown_bytes(app.world()), before);

        app.world_mut().write_message(NavMeshRequest::Load(store));
        run_until(&mut app, |w| w.resource::<ShownNavMesh>().is_streamed());
        let shown = app.world().resource::<ShownNavMesh>();
        let state = app.world().resource::<BuildState>();
        assert_eq!(shown.get(state).map(NavMesh::tile_count), Some(0));
        assert_eq!(
            shown.store().map(|s| s.tiles().len()),
            Some(tiled.nav_mesh.tile_count())
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn exporting_nothing_is_an_error_not_a_file() {
        let mut app = app();
        let dir = scratch("export_nothing");
        let path = dir.join("nothing.bin");
        // Detour cannot take more than six vertices per polygon: no navmesh.
        app.world_mut().write_message(BuildRequest::Settings(
            navlab::bake::settings::BuildSettings {
                verts_per_poly: 8.0,
                ..Default::default()
            },
        ));
        settle(&mut app);
        app.world_mut()
            .write_message(NavMeshRequest::Export(path.clone()));
        app.update();
        assert!(!path.exists());
        assert!(!app.world().resource::<ViewerLog>().toasts.is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
