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

/// A file dialog waiting for the user.
#[derive(Resource, Default)]
pub struct OpenDialog {
    task: Option<Task<Option<PathBuf>>>,
}

impl OpenDialog {
    /// Opens the dialog unless one is already open.
    pub fn open(&mut self) {
        if self.task.is_some() {
            return;
        }
        self.task = Some(IoTaskPool::get().spawn(async {
            rfd::AsyncFileDialog::new()
                .set_title("Open a mesh")
                .add_filter("Wavefront OBJ", &["obj"])
                .pick_file()
                .await
                .map(|file| file.path().to_owned())
        }));
    }

    pub fn is_open(&self) -> bool {
        self.task.is_some()
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
    let Some(task) = dialog.task.as_mut() else {
        return;
    };
    if let Some(choice) = check_ready(task) {
        dialog.task = None;
        if let Some(path) = choice {
            requests.write(BuildRequest::Open(path));
        }
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
