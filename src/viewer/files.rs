//! Files: File → Open, drag-and-drop onto the window, a recent-files list kept in the user's
//! config directory, the sample meshes (RecastDemo's `Meshes` folder) listed under Input Mesh,
//! and every file dialog of the viewer. A dialog is the desktop's (rfd through the XDG portal,
//! run off the main thread) or, where the desktop cannot show one (no portal, no zenity) or the
//! user prefers it, the in-app browser ([`browser`]), so a dialog always answers.

mod browser;
#[cfg(all(unix, not(target_os = "macos")))]
mod desktop;
mod filter;

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock, Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use bevy::input::InputSystems;
use bevy::prelude::*;
use bevy::tasks::futures::check_ready;
use bevy::tasks::{IoTaskPool, Task};
use bevy_egui::{EguiContexts, EguiPrimaryContextPass};

use crate::viewer::build::{BuildRequest, BuildState, LogLevel, ViewerLog};
use browser::{BrowseMode, Browser, Outcome, list_folder};
pub use filter::{FileFilter, has_extension};

/// How many recent files to remember.
const MAX_RECENT: usize = 8;

/// The files File → Open takes, and the sample meshes listed.
pub const MESH_FILES: FileFilter = FileFilter {
    name: "Meshes (OBJ, glTF) and RecastDemo geometry sets",
    extensions: &["obj", "gltf", "glb", "gset"],
};

/// Picks the dialogs: `builtin` (the in-app browser) or `native` (the desktop's first).
pub const DIALOG_ENV: &str = "NAVLAB_FILE_DIALOG";

/// rfd answers "nothing chosen" both for Cancel and for a dialog it could not show; an answer
/// faster than this is the latter, as nobody closes a dialog that quickly.
const TOO_FAST_TO_CANCEL: Duration = Duration::from_millis(400);

/// The recent-files list, newest first.
#[derive(Resource, Default)]
pub struct RecentFiles {
    pub paths: Vec<PathBuf>,
    /// Where the list is saved; `None` keeps it in memory only (screenshots, tests).
    store: Option<PathBuf>,
    /// The scene version last added to the list.
    seen_scene: u64,
}

impl RecentFiles {
    fn load(store: PathBuf) -> Self {
        let paths = std::fs::read_to_string(&store)
            .map(|text| {
                text.lines()
                    .filter(|l| !l.is_empty())
                    .map(PathBuf::from)
                    .collect()
            })
            .unwrap_or_default();
        Self {
            paths,
            store: Some(store),
            seen_scene: 0,
        }
    }

    /// Moves `path` to the front and saves the list.
    pub fn add(&mut self, path: &Path) {
        self.paths.retain(|p| p != path);
        self.paths.insert(0, path.to_owned());
        self.paths.truncate(MAX_RECENT);
        if let Some(store) = &self.store {
            let text: String = self
                .paths
                .iter()
                .map(|p| format!("{}\n", p.display()))
                .collect();
            let saved = store
                .parent()
                .map_or(Ok(()), std::fs::create_dir_all)
                .map_err(|source| navlab::file::FileError::Io {
                    path: store.clone(),
                    source,
                })
                .and_then(|()| navlab::file::write_atomically(store, text.as_bytes()));
            if let Err(err) = saved {
                bevy::log::warn!(
                    "could not save the recent files to {}: {err}",
                    store.display()
                );
            }
        }
    }
}

/// The user's config directory for Navlab (`$XDG_CONFIG_HOME/navlab` or `~/.config/navlab`).
fn config_dir() -> Option<PathBuf> {
    std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".config")))
        .map(|dir| dir.join("navlab"))
}

/// The folders sample meshes are looked for in, as RecastDemo's `Meshes`: `assets/Meshes` and
/// `Meshes` in the working directory, and `assets/Meshes` in the executable's ancestors (so
/// `cargo run` finds the checkout's). Only folders that exist, each once.
pub fn sample_folders() -> Vec<PathBuf> {
    sample_folders_from(
        std::env::current_dir().ok().as_deref(),
        std::env::current_exe().ok().as_deref(),
    )
}

/// The first sample folder that exists, where File → Open starts.
fn first_sample_folder() -> Option<PathBuf> {
    sample_folders().into_iter().next()
}

fn sample_folders_from(working_dir: Option<&Path>, executable: Option<&Path>) -> Vec<PathBuf> {
    let assets = |dir: &Path| dir.join("assets").join("Meshes");
    let candidates = working_dir
        .into_iter()
        .flat_map(|dir| [assets(dir), dir.join("Meshes")])
        .chain(
            executable
                .into_iter()
                .flat_map(|exe| exe.ancestors().skip(1).map(assets)),
        );
    let mut folders = Vec::new();
    for candidate in candidates {
        if let Ok(folder) = std::fs::canonicalize(candidate)
            && folder.is_dir()
            && !folders.contains(&folder)
        {
            folders.push(folder);
        }
    }
    folders
}

/// The meshes ([`MESH_FILES`]) directly in `folders`, by name within each folder, and an error
/// line for each folder that could not be read.
pub fn scan_meshes(folders: &[PathBuf]) -> (Vec<PathBuf>, Vec<String>) {
    let mut meshes = Vec::new();
    let mut errors = Vec::new();
    for folder in folders {
        match list_folder(folder) {
            Ok(entries) => meshes.extend(
                entries
                    .into_iter()
                    .filter(|e| {
                        !e.is_folder && has_extension(Path::new(&e.name), MESH_FILES.extensions)
                    })
                    .map(|e| folder.join(e.name)),
            ),
            Err(err) => errors.push(format!(
                "Could not read the sample folder {}: {err}",
                folder.display()
            )),
        }
    }
    (meshes, errors)
}

/// The sample meshes listed under Input Mesh, scanned once at start-up.
#[derive(Resource, Default)]
pub struct SampleMeshes {
    pub paths: Vec<PathBuf>,
}

/// Who answers the file dialogs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DialogBackend {
    /// The desktop's dialog (rfd), with the in-app browser when it cannot show one.
    Native,
    /// The in-app browser.
    InApp,
}

/// `NAVLAB_FILE_DIALOG`'s choice; unset or empty leaves it to what the desktop offers.
fn backend_override(value: Option<&str>) -> Result<Option<DialogBackend>, String> {
    match value.map(str::trim) {
        None | Some("") => Ok(None),
        Some(v) if v.eq_ignore_ascii_case("builtin") => Ok(Some(DialogBackend::InApp)),
        Some(v) if v.eq_ignore_ascii_case("native") => Ok(Some(DialogBackend::Native)),
        Some(other) => Err(format!(
            "{DIALOG_ENV}={other} is neither `builtin` nor `native`; ignored"
        )),
    }
}

/// The backend chosen, or without a choice the desktop's when it can show a dialog.
fn decide_backend(
    chosen: Option<DialogBackend>,
    native_available: impl FnOnce() -> bool,
) -> DialogBackend {
    chosen.unwrap_or_else(|| {
        if native_available() {
            DialogBackend::Native
        } else {
            DialogBackend::InApp
        }
    })
}

/// Whether the desktop can show a file dialog, asked once per run (it talks to the bus).
fn native_dialog_available() -> bool {
    static AVAILABLE: OnceLock<bool> = OnceLock::new();
    *AVAILABLE.get_or_init(desktop_dialog_available)
}

#[cfg(all(unix, not(target_os = "macos")))]
use desktop::native_dialog_available as desktop_dialog_available;

/// On Windows and macOS rfd calls the system's own dialogs, which are always there.
#[cfg(not(all(unix, not(target_os = "macos"))))]
fn desktop_dialog_available() -> bool {
    true
}

/// What the dialogs (owned by several resources, their native ones on the IO pool) and the one
/// in-app browser share: the backend, the requests waiting for the browser, lines for the Log.
struct DialogHub {
    /// `None` until chosen: by `NAVLAB_FILE_DIALOG`, the View menu, or the first dialog.
    backend: Option<DialogBackend>,
    requests: VecDeque<BrowserRequest>,
    log: Vec<(LogLevel, String)>,
}

static HUB: LazyLock<Mutex<DialogHub>> = LazyLock::new(|| {
    let (backend, log) = match backend_override(std::env::var(DIALOG_ENV).ok().as_deref()) {
        Ok(backend) => (backend, Vec::new()),
        Err(warning) => (None, vec![(LogLevel::Warning, warning)]),
    };
    Mutex::new(DialogHub {
        backend,
        requests: VecDeque::new(),
        log,
    })
});

fn hub() -> MutexGuard<'static, DialogHub> {
    HUB.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Whether dialogs go to the in-app browser (View → In-app file browser).
pub fn uses_in_app_browser() -> bool {
    hub().backend == Some(DialogBackend::InApp)
}

/// Sends dialogs to the in-app browser, or back to the desktop's.
pub fn use_in_app_browser(in_app: bool) {
    hub().backend = Some(if in_app {
        DialogBackend::InApp
    } else {
        DialogBackend::Native
    });
}

/// What a dialog asks for.
#[derive(Clone)]
struct DialogRequest {
    title: &'static str,
    filter: FileFilter,
    /// The name proposed when saving; `None` picks an existing file.
    save_as: Option<String>,
}

/// Where the in-app browser leaves its answer: `None` while it is open, then the chosen path,
/// or `None` for Cancel.
#[derive(Clone, Default)]
struct Reply(Arc<Mutex<Option<Option<PathBuf>>>>);

impl Reply {
    fn send(&self, answer: Option<PathBuf>) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = Some(answer);
    }

    fn take(&self) -> Option<Option<PathBuf>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).take()
    }
}

/// A dialog waiting for the in-app browser.
struct BrowserRequest {
    dialog: DialogRequest,
    reply: Reply,
}

/// Queues `request` for the in-app browser.
fn ask_in_app(request: DialogRequest) -> Reply {
    let reply = Reply::default();
    hub().requests.push_back(BrowserRequest {
        dialog: request,
        reply: reply.clone(),
    });
    reply
}

/// How the desktop's dialog ended.
#[derive(Debug, PartialEq, Eq)]
enum NativeAnswer {
    Answered(Option<PathBuf>),
    /// No portal and no zenity: nothing was tried.
    Unavailable,
    /// rfd came back at once with nothing: it could not show its dialog.
    Failed,
}

impl NativeAnswer {
    fn from_rfd(file: Option<PathBuf>, took: Duration) -> Self {
        match file {
            None if took < TOO_FAST_TO_CANCEL => Self::Failed,
            file => Self::Answered(file),
        }
    }
}

/// The desktop's dialog, unless no backend was chosen and the desktop has none.
async fn run_native(request: DialogRequest, chosen: Option<DialogBackend>) -> NativeAnswer {
    if decide_backend(chosen, native_dialog_available) == DialogBackend::InApp {
        return NativeAnswer::Unavailable;
    }
    let dialog = rfd::AsyncFileDialog::new()
        .set_title(request.title)
        .add_filter(request.filter.name, request.filter.extensions);
    let started = Instant::now();
    let file = match request.save_as {
        Some(name) => dialog.set_file_name(name).save_file().await,
        // Opening starts among the sample levels, as RecastDemo lists its Meshes folder.
        None => match first_sample_folder() {
            Some(folder) => dialog.set_directory(folder).pick_file().await,
            None => dialog.pick_file().await,
        },
    };
    NativeAnswer::from_rfd(file.map(|f| f.path().to_owned()), started.elapsed())
}

/// One file dialog, run without blocking the viewer: the desktop's on the IO pool, or the
/// in-app browser, drawn by [`FilesPlugin`]. Every Open/Save/Load dialog of the viewer is one.
#[derive(Default)]
pub struct FileDialog {
    pending: Option<Pending>,
}

/// A dialog that has not answered yet.
enum Pending {
    /// The desktop's; the request is kept to ask the in-app browser if it fails.
    Native {
        task: Task<NativeAnswer>,
        request: DialogRequest,
    },
    InApp(Reply),
}

impl FileDialog {
    /// Asks for an existing file, unless this dialog is already open.
    pub fn pick_file(&mut self, title: &'static str, filter: FileFilter) {
        self.spawn(title, filter, None);
    }

    /// Asks where to save, proposing `file_name`, unless this dialog is already open.
    pub fn save_file(&mut self, title: &'static str, filter: FileFilter, file_name: &str) {
        self.spawn(title, filter, Some(file_name.to_owned()));
    }

    fn spawn(&mut self, title: &'static str, filter: FileFilter, save_as: Option<String>) {
        if self.pending.is_some() {
            return;
        }
        let request = DialogRequest {
            title,
            filter,
            save_as,
        };
        let chosen = hub().backend;
        self.pending = Some(match chosen {
            Some(DialogBackend::InApp) => Pending::InApp(ask_in_app(request)),
            _ => Pending::Native {
                task: IoTaskPool::get().spawn(run_native(request.clone(), chosen)),
                request,
            },
        });
    }

    pub fn is_open(&self) -> bool {
        self.pending.is_some()
    }

    /// The answer once the dialog has closed: the chosen path, or `Some(None)` when cancelled.
    pub fn poll(&mut self) -> Option<Option<PathBuf>> {
        let answer = match self.pending.as_mut()? {
            Pending::InApp(reply) => reply.take()?,
            Pending::Native { task, request } => match check_ready(task)? {
                NativeAnswer::Answered(answer) => answer,
                failure => {
                    let request = request.clone();
                    switch_to_in_app(&failure);
                    self.pending = Some(Pending::InApp(ask_in_app(request)));
                    return None;
                }
            },
        };
        self.pending = None;
        Some(answer)
    }
}

/// After the desktop's dialog could not be shown: this and later dialogs go to the in-app
/// browser, and the Log says why.
fn switch_to_in_app(failure: &NativeAnswer) {
    let mut shared = hub();
    shared.backend = Some(DialogBackend::InApp);
    let line = if *failure == NativeAnswer::Unavailable {
        (
            LogLevel::Info,
            "No desktop file dialog (XDG portal or zenity): using the in-app file browser."
                .to_owned(),
        )
    } else {
        (
            LogLevel::Error,
            "The desktop's file dialog failed to open: using the in-app file browser \
             (View → In-app file browser switches back)."
                .to_owned(),
        )
    };
    shared.log.push(line);
}

/// File → Open's dialog.
#[derive(Resource, Default)]
pub struct OpenDialog(pub FileDialog);

impl OpenDialog {
    /// Opens the dialog unless one is already open.
    pub fn open(&mut self) {
        self.0.pick_file("Open a mesh", MESH_FILES);
    }

    pub fn is_open(&self) -> bool {
        self.0.is_open()
    }
}

/// The in-app browser on screen (one at a time: other dialogs wait their turn) and the folder
/// the last one ended in, where the next one starts.
#[derive(Resource, Default)]
pub struct FileBrowser {
    shown: Option<(Browser, Reply)>,
    last_folder: Option<PathBuf>,
}

impl FileBrowser {
    pub fn is_shown(&self) -> bool {
        self.shown.is_some()
    }

    /// Shows the next waiting dialog, if none is shown.
    fn show_next_request(&mut self) {
        if self.shown.is_some() {
            return;
        }
        let Some(request) = hub().requests.pop_front() else {
            return;
        };
        let dialog = request.dialog;
        let mode = match dialog.save_as {
            Some(_) => BrowseMode::Save,
            None => BrowseMode::Open,
        };
        let samples = (mode == BrowseMode::Open)
            .then(first_sample_folder)
            .flatten();
        let folder = self
            .last_folder
            .clone()
            .or(samples)
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_else(|| PathBuf::from(std::path::MAIN_SEPARATOR_STR));
        let file_name = dialog.save_as.as_deref().unwrap_or("");
        let browser = Browser::new(dialog.title, mode, dialog.filter, &folder, file_name);
        self.shown = Some((browser, request.reply));
    }

    /// Closes the browser, answering the dialog that asked.
    fn finish(&mut self, outcome: Outcome) {
        if let Some((browser, reply)) = self.shown.take() {
            self.last_folder = Some(browser.folder().to_owned());
            reply.send(match outcome {
                Outcome::Chosen(path) => Some(path),
                Outcome::Cancelled => None,
            });
        }
    }
}

pub struct FilesPlugin {
    /// Save the recent-files list between runs.
    pub persist_recent: bool,
}

impl Plugin for FilesPlugin {
    fn build(&self, app: &mut App) {
        let recent = match config_dir().filter(|_| self.persist_recent) {
            Some(dir) => RecentFiles::load(dir.join("recent.txt")),
            None => RecentFiles::default(),
        };
        app.insert_resource(recent)
            .init_resource::<OpenDialog>()
            .init_resource::<FileBrowser>()
            .init_resource::<SampleMeshes>()
            .add_systems(Startup, scan_sample_meshes)
            .add_systems(PreUpdate, cancel_browser_on_escape.after(InputSystems))
            .add_systems(
                Update,
                (
                    poll_dialog,
                    open_dropped_files,
                    remember_opened,
                    log_dialog_lines,
                ),
            )
            .add_systems(EguiPrimaryContextPass, show_file_browser);
    }
}

fn scan_sample_meshes(mut samples: ResMut<SampleMeshes>, mut log: ResMut<ViewerLog>) {
    let (paths, errors) = scan_meshes(&sample_folders());
    samples.paths = paths;
    for error in errors {
        log.error(error);
    }
}

fn poll_dialog(mut dialog: ResMut<OpenDialog>, mut requests: MessageWriter<BuildRequest>) {
    if let Some(Some(path)) = dialog.0.poll() {
        requests.write(BuildRequest::Open(path));
    }
}

fn open_dropped_files(
    mut drops: MessageReader<FileDragAndDrop>,
    mut requests: MessageWriter<BuildRequest>,
) {
    for drop in drops.read() {
        if let FileDragAndDrop::DroppedFile { path_buf, .. } = drop {
            requests.write(BuildRequest::Open(path_buf.clone()));
        }
    }
}

fn remember_opened(state: Res<BuildState>, mut recent: ResMut<RecentFiles>) {
    if recent.seen_scene == state.scene_version {
        return;
    }
    recent.seen_scene = state.scene_version;
    if let Some(path) = &state.scene.input.source {
        let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.clone());
        recent.add(&path);
    }
}

/// Hands the dialogs' notes (a failed desktop dialog, a bad `NAVLAB_FILE_DIALOG`) to the Log.
fn log_dialog_lines(mut log: ResMut<ViewerLog>) {
    let lines = std::mem::take(&mut hub().log);
    for (level, text) in lines {
        match level {
            LogLevel::Info => log.info(text),
            LogLevel::Warning => log.warning(text),
            LogLevel::Error => log.error(text),
        }
    }
}

/// Esc closes the in-app browser rather than the viewer (whose Esc shortcut runs later).
fn cancel_browser_on_escape(
    mut keys: ResMut<ButtonInput<KeyCode>>,
    mut browser: ResMut<FileBrowser>,
) {
    if browser.is_shown() && keys.clear_just_pressed(KeyCode::Escape) {
        browser.finish(Outcome::Cancelled);
    }
}

fn show_file_browser(
    mut contexts: EguiContexts,
    mut browser: ResMut<FileBrowser>,
    mut log: ResMut<ViewerLog>,
) -> Result {
    browser.show_next_request();
    let Some((shown, _)) = &mut browser.shown else {
        return Ok(());
    };
    let outcome = shown.show(contexts.ctx_mut()?);
    for error in shown.take_errors() {
        log.error(error);
    }
    if let Some(outcome) = outcome {
        browser.finish(outcome);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("navlab-files-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn the_env_override_decides_without_asking_the_desktop() {
        let unasked = || -> bool { panic!("the desktop must not be asked") };
        let chosen = |value| backend_override(Some(value)).unwrap();
        assert_eq!(
            decide_backend(chosen("builtin"), unasked),
            DialogBackend::InApp
        );
        assert_eq!(
            decide_backend(chosen(" Native "), unasked),
            DialogBackend::Native
        );
        assert_eq!(backend_override(None), Ok(None));
        assert_eq!(backend_override(Some("")), Ok(None));
        assert!(backend_override(Some("gtk")).unwrap_err().contains("gtk"));
        // Without a choice, the desktop decides.
        assert_eq!(decide_backend(None, || false), DialogBackend::InApp);
        assert_eq!(decide_backend(None, || true), DialogBackend::Native);
    }

    #[test]
    fn a_desktop_dialog_that_answers_at_once_with_nothing_failed() {
        let file = Some(PathBuf::from("/x/level.obj"));
        let quick = Duration::from_millis(5);
        let human = Duration::from_secs(3);
        assert_eq!(NativeAnswer::from_rfd(None, quick), NativeAnswer::Failed);
        assert_eq!(
            NativeAnswer::from_rfd(None, human),
            NativeAnswer::Answered(None)
        );
        assert_eq!(
            NativeAnswer::from_rfd(file.clone(), quick),
            NativeAnswer::Answered(file)
        );
    }

    /// The only test that touches the shared dialog hub (the others keep to plain functions).
    #[test]
    fn in_app_dialogs_take_turns_in_the_browser_and_get_its_answer() {
        use_in_app_browser(true);
        assert!(uses_in_app_browser());
        let root = temp_dir("dialogs");
        let mut browser = FileBrowser {
            last_folder: Some(root.clone()),
            ..FileBrowser::default()
        };
        let mut open = FileDialog::default();
        let mut save = FileDialog::default();
        open.pick_file("Open a mesh", MESH_FILES);
        save.save_file("Save settings", MESH_FILES, "navlab.toml");
        assert!(open.is_open() && save.is_open());
        assert_eq!(open.poll(), None);

        browser.show_next_request();
        let (shown, _) = browser.shown.as_mut().unwrap();
        assert_eq!(shown.folder(), root);
        assert_eq!(
            shown.confirm(),
            None,
            "an Open with no file chosen stays open"
        );
        browser.show_next_request();
        // The first asked is the one shown: its dialog gets the answer.
        browser.finish(Outcome::Chosen(root.join("level.obj")));
        assert_eq!(open.poll(), Some(Some(root.join("level.obj"))));
        assert!(!open.is_open());

        browser.show_next_request();
        let (shown, _) = browser.shown.as_mut().unwrap();
        assert_eq!(
            shown.confirm(),
            Some(root.join("navlab.toml")),
            "the save dialog, proposing its name"
        );
        assert_eq!(save.poll(), None);
        browser.finish(Outcome::Cancelled);
        assert_eq!(save.poll(), Some(None));
        assert!(!save.is_open() && !browser.is_shown());
        std::fs::remove_dir_all(&root).unwrap();

        // A first Open starts among the sample levels (the checkout's assets/Meshes here).
        let mut fresh = FileBrowser::default();
        open.pick_file("Open a mesh", MESH_FILES);
        fresh.show_next_request();
        let (shown, _) = fresh.shown.as_mut().unwrap();
        let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/Meshes");
        assert_eq!(shown.folder(), samples.canonicalize().unwrap());
        fresh.finish(Outcome::Cancelled);
        assert_eq!(open.poll(), Some(None));
    }

    #[test]
    fn sample_meshes_are_found_beside_the_working_directory_and_the_executable() {
        let root = temp_dir("samples");
        let checkout = root.join("checkout");
        let working = root.join("elsewhere");
        for folder in [
            "checkout/assets/Meshes/sub.obj",
            "checkout/target/release",
            "elsewhere/Meshes",
        ] {
            std::fs::create_dir_all(root.join(folder)).unwrap();
        }
        for file in [
            "checkout/assets/Meshes/nav_test.obj",
            "checkout/assets/Meshes/Dungeon.OBJ",
            "checkout/assets/Meshes/level.glb",
            "checkout/assets/Meshes/LICENSE-recastnavigation.txt",
            "elsewhere/Meshes/set.gset",
            "elsewhere/Meshes/scene.gltf",
        ] {
            std::fs::write(root.join(file), "").unwrap();
        }
        let executable = checkout.join("target/release/navlab");
        let folders = sample_folders_from(Some(&working), Some(&executable));
        let canonical = |p: PathBuf| std::fs::canonicalize(p).unwrap();
        let meshes_folder = canonical(checkout.join("assets/Meshes"));
        let elsewhere = canonical(working.join("Meshes"));
        assert_eq!(folders, [elsewhere.clone(), meshes_folder.clone()]);
        // Run from the checkout itself, its folder is found once.
        assert_eq!(
            sample_folders_from(Some(&checkout), Some(&executable)),
            std::slice::from_ref(&meshes_folder)
        );

        let gone = root.join("gone");
        let (meshes, errors) = scan_meshes(&[elsewhere.clone(), gone, meshes_folder.clone()]);
        assert_eq!(
            meshes,
            [
                elsewhere.join("scene.gltf"),
                elsewhere.join("set.gset"),
                meshes_folder.join("Dungeon.OBJ"),
                meshes_folder.join("level.glb"),
                meshes_folder.join("nav_test.obj"),
            ]
        );
        assert_eq!(errors.len(), 1);
        assert!(errors[0].contains("gone"));
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn the_recent_list_is_saved_through_a_renamed_temporary_file() {
        let dir = temp_dir("recent");
        let store = dir.join("config/recent.txt");
        let mut recent = RecentFiles::load(store.clone());
        recent.add(Path::new("/meshes/a.obj"));
        recent.add(Path::new("/meshes/b.obj"));
        assert_eq!(
            std::fs::read_to_string(&store).unwrap(),
            "/meshes/b.obj\n/meshes/a.obj\n"
        );
        assert!(!dir.join("config/recent.txt.tmp").exists());
        assert_eq!(RecentFiles::load(store).paths, recent.paths);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
