//! Opening meshes: File → Open (an rfd dialog, run off the main thread), drag-and-drop onto the
//! window, and a recent-files list kept in the user's config directory.

use std::path::{Path, PathBuf};

use bevy::prelude::*;
use bevy::tasks::futures::check_ready;
use bevy::tasks::{IoTaskPool, Task};

use crate::viewer::build::{BuildRequest, BuildState};

/// How many recent files to remember.
const MAX_RECENT: usize = 8;

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
                .and_then(|()| std::fs::write(store, text));
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

/// One native file dialog (rfd, through the desktop portal) run off the main thread, so the
/// viewer keeps drawing while the user chooses. Every Open/Save/Load dialog of the viewer is one.
#[derive(Default)]
pub struct FileDialog {
    task: Option<Task<Option<PathBuf>>>,
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
        if self.task.is_some() {
            return;
        }
        self.task = Some(IoTaskPool::get().spawn(async move {
            let dialog = rfd::AsyncFileDialog::new()
                .set_title(title)
                .add_filter(filter.name, filter.extensions);
            let file = match save_as {
                Some(name) => dialog.set_file_name(name).save_file().await,
                None => dialog.pick_file().await,
            };
            file.map(|file| file.path().to_owned())
        }));
    }

    pub fn is_open(&self) -> bool {
        self.task.is_some()
    }

    /// The answer once the dialog has closed: the chosen path, or `Some(None)` when cancelled.
    pub fn poll(&mut self) -> Option<Option<PathBuf>> {
        let choice = check_ready(self.task.as_mut()?)?;
        self.task = None;
        Some(choice)
    }
}

/// The file types a dialog offers.
#[derive(Clone, Copy)]
pub struct FileFilter {
    pub name: &'static str,
    pub extensions: &'static [&'static str],
}

/// File → Open's dialog.
#[derive(Resource, Default)]
pub struct OpenDialog(pub FileDialog);

impl OpenDialog {
    /// Opens the dialog unless one is already open.
    pub fn open(&mut self) {
        self.0.pick_file(
            "Open a mesh",
            FileFilter {
                name: "Meshes (OBJ, glTF) and RecastDemo geometry sets",
                extensions: &["obj", "gltf", "glb", "gset"],
            },
        );
    }

    pub fn is_open(&self) -> bool {
        self.0.is_open()
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
            .add_systems(Update, (poll_dialog, open_dropped_files, remember_opened));
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
