//! The in-app file browser, shown where the desktop has no file dialog (no portal, no zenity)
//! or when the user asks for it: a `std::fs` listing drawn with egui. Every widget carries a
//! plain text label (the file and folder names, "Up", "Open", "Save", "Cancel", "All files"),
//! so a scripted session can click it by name.

use std::path::{Path, PathBuf};

use bevy_egui::egui;

use super::filter::{FileFilter, has_extension};

/// Whether the browser picks an existing file or names one to save.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BrowseMode {
    Open,
    Save,
}

/// One line of the listing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub name: String,
    pub is_folder: bool,
}

/// How the browser closed.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    Chosen(PathBuf),
    Cancelled,
}

/// The browser's state: the folder shown, its listing and the file name being chosen. The
/// methods are what the buttons do, so the tests drive it without drawing.
pub struct Browser {
    title: &'static str,
    mode: BrowseMode,
    filter: FileFilter,
    folder: PathBuf,
    /// Folders first, then the files the filter lets through, each by name.
    entries: Vec<Entry>,
    /// List every file, not only those the filter names.
    all_files: bool,
    /// The file-name box: typed, or filled by clicking a file.
    file_name: String,
    /// The path line, which can be edited to go to another folder.
    path_line: String,
    /// Why the last folder asked for could not be shown (drawn above the listing).
    problem: Option<String>,
    /// Errors not yet handed to the Log.
    new_errors: Vec<String>,
    /// Save was pressed on an existing file: pressing it again replaces the file.
    confirm_replace: bool,
    /// Give the file-name box the keyboard on the first frame.
    focus_name: bool,
}

impl Browser {
    /// A browser in `folder` (or, when that cannot be read, in the first of its ancestors that
    /// can), proposing `file_name`.
    pub fn new(
        title: &'static str,
        mode: BrowseMode,
        filter: FileFilter,
        folder: &Path,
        file_name: &str,
    ) -> Self {
        let mut browser = Self {
            title,
            mode,
            filter,
            folder: folder.to_owned(),
            entries: Vec::new(),
            all_files: false,
            file_name: file_name.to_owned(),
            path_line: folder.display().to_string(),
            problem: None,
            new_errors: Vec::new(),
            confirm_replace: false,
            focus_name: true,
        };
        if !browser.open_folder(folder) {
            let readable = folder.ancestors().skip(1).find(|a| list_folder(a).is_ok());
            if let Some(ancestor) = readable {
                browser.open_folder(ancestor);
            }
        }
        browser
    }

    pub fn folder(&self) -> &Path {
        &self.folder
    }

    /// Errors raised since the last call, for the Log.
    pub fn take_errors(&mut self) -> Vec<String> {
        std::mem::take(&mut self.new_errors)
    }

    /// Lists `folder` and shows it; on failure keeps the folder shown and reports why.
    pub fn open_folder(&mut self, folder: &Path) -> bool {
        match list_folder(folder) {
            Ok(entries) => {
                self.folder = folder.to_owned();
                self.path_line = folder.display().to_string();
                self.entries = entries;
                self.apply_filter();
                self.problem = None;
                true
            }
            Err(err) => {
                self.path_line = self.folder.display().to_string();
                self.fail(format!(
                    "Could not read the folder {}: {err}",
                    folder.display()
                ));
                false
            }
        }
    }

    /// The parent folder ("Up").
    pub fn up(&mut self) {
        if let Some(parent) = self.folder.parent().map(Path::to_owned) {
            self.open_folder(&parent);
        }
    }

    /// Shows every file, or only those the filter names.
    pub fn set_all_files(&mut self, all_files: bool) {
        self.all_files = all_files;
        let folder = self.folder.clone();
        self.open_folder(&folder);
    }

    /// A click on a listed name: a folder opens, a file becomes the file name.
    pub fn click(&mut self, name: &str) {
        let Some(entry) = self.entries.iter().find(|e| e.name == name) else {
            return;
        };
        if entry.is_folder {
            let folder = self.folder.join(name);
            self.open_folder(&folder);
        } else {
            self.set_file_name(name);
        }
    }

    pub fn set_file_name(&mut self, name: &str) {
        self.file_name = name.to_owned();
        self.confirm_replace = false;
    }

    /// Goes where the path line says: a folder opens; a file opens its folder and becomes the
    /// file name.
    pub fn go_to(&mut self, line: &str) {
        let target = self.folder.join(line.trim());
        if target.is_dir() {
            self.open_folder(&target);
        } else if let (Some(parent), Some(name)) = (target.parent(), target.file_name())
            && parent.is_dir()
        {
            let name = name.to_string_lossy().into_owned();
            if self.open_folder(parent) {
                self.set_file_name(&name);
            }
        } else {
            self.path_line = self.folder.display().to_string();
            self.fail(format!("No such folder: {}", target.display()));
        }
    }

    /// Open or Save: the chosen path, or `None` while the browser stays (a folder was named
    /// and opened, the file is missing, or an existing file awaits a second Save).
    pub fn confirm(&mut self) -> Option<PathBuf> {
        let name = self.file_name.trim();
        if name.is_empty() {
            return None;
        }
        let mut path = self.folder.join(name);
        if path.is_dir() {
            self.file_name.clear();
            self.open_folder(&path);
            return None;
        }
        match self.mode {
            BrowseMode::Open if path.is_file() => Some(path),
            BrowseMode::Open => {
                self.fail(format!("No such file: {}", path.display()));
                None
            }
            BrowseMode::Save => {
                let default_extension = self.filter.extensions.first().filter(|e| **e != "*");
                if path.extension().is_none()
                    && let Some(extension) = default_extension
                {
                    path.set_extension(extension);
                }
                if !path.parent().is_some_and(Path::is_dir) {
                    self.fail(format!("No such folder for {}", path.display()));
                    None
                } else if path.exists() && !self.confirm_replace {
                    self.confirm_replace = true;
                    None
                } else {
                    Some(path)
                }
            }
        }
    }

    fn fail(&mut self, message: String) {
        self.problem = Some(message.clone());
        self.new_errors.push(message);
    }

    /// Keeps the folders and the files the filter lets through.
    fn apply_filter(&mut self) {
        if self.all_files {
            return;
        }
        let extensions = self.filter.extensions;
        self.entries
            .retain(|e| e.is_folder || has_extension(Path::new(&e.name), extensions));
    }

    /// Draws the browser as a window; `Some` once it closes.
    pub fn show(&mut self, ctx: &egui::Context) -> Option<Outcome> {
        let mut outcome = None;
        egui::Window::new(self.title)
            .id(egui::Id::new("navlab-file-browser"))
            .collapsible(false)
            .default_size([520.0, 440.0])
            .show(ctx, |ui| outcome = self.contents(ui));
        outcome
    }

    fn contents(&mut self, ui: &mut egui::Ui) -> Option<Outcome> {
        ui.horizontal(|ui| {
            if ui.button("Up").clicked() {
                self.up();
            }
            let line = ui
                .add(egui::TextEdit::singleline(&mut self.path_line).desired_width(f32::INFINITY));
            if line.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter)) {
                let target = self.path_line.clone();
                self.go_to(&target);
            }
        });
        if let Some(problem) = &self.problem {
            ui.colored_label(ui.visuals().error_fg_color, problem);
        }
        let mut clicked = None;
        let mut double_clicked = false;
        // Only the rows in view are laid out, so a folder of thousands of files stays quick.
        let row_height = ui.spacing().interact_size.y;
        egui::ScrollArea::vertical()
            .max_height(280.0)
            .auto_shrink([false, false])
            .show_rows(ui, row_height, self.entries.len(), |ui, rows| {
                for entry in &self.entries[rows] {
                    let text = if entry.is_folder {
                        egui::RichText::new(&entry.name).strong()
                    } else {
                        egui::RichText::new(&entry.name)
                    };
                    let selected = !entry.is_folder && entry.name == self.file_name;
                    let response = ui.selectable_label(selected, text);
                    if response.clicked() {
                        clicked = Some(entry.name.clone());
                    }
                    double_clicked |= !entry.is_folder && response.double_clicked();
                }
            });
        if self.entries.is_empty() {
            ui.weak("(no matching files)");
        }
        if let Some(name) = clicked {
            self.click(&name);
        }
        ui.horizontal(|ui| {
            ui.label(format!("Files: {}", self.filter.name));
            let mut all_files = self.all_files;
            if ui.checkbox(&mut all_files, "All files").changed() {
                self.set_all_files(all_files);
            }
        });
        let mut confirmed = double_clicked;
        ui.horizontal(|ui| {
            ui.label("File name");
            let name_box = ui
                .add(egui::TextEdit::singleline(&mut self.file_name).desired_width(f32::INFINITY));
            if std::mem::take(&mut self.focus_name) {
                name_box.request_focus();
            }
            if name_box.changed() {
                self.confirm_replace = false;
            }
            confirmed |= name_box.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
        });
        if self.confirm_replace {
            ui.colored_label(
                ui.visuals().warn_fg_color,
                "This file exists: Save again to replace it.",
            );
        }
        let mut cancelled = false;
        ui.horizontal(|ui| {
            let action = match self.mode {
                BrowseMode::Open => "Open",
                BrowseMode::Save => "Save",
            };
            let can_confirm = !self.file_name.trim().is_empty();
            confirmed |= ui
                .add_enabled(can_confirm, egui::Button::new(action))
                .clicked();
            cancelled = ui.button("Cancel").clicked();
        });
        if cancelled {
            return Some(Outcome::Cancelled);
        }
        confirmed
            .then(|| self.confirm())
            .flatten()
            .map(Outcome::Chosen)
    }
}

/// A folder's entries, folders first, then files, each sorted by name ignoring case; hidden
/// (dot) entries are left out and so are entries that cannot be inspected.
pub fn list_folder(folder: &Path) -> std::io::Result<Vec<Entry>> {
    let mut entries: Vec<Entry> = std::fs::read_dir(folder)?
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                return None;
            }
            // Follows symbolic links, so a link to a folder lists as a folder.
            let is_folder = entry.path().metadata().ok()?.is_dir();
            Some(Entry { name, is_folder })
        })
        .collect();
    entries.sort_by_cached_key(|e| (!e.is_folder, e.name.to_lowercase(), e.name.clone()));
    Ok(entries)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MESHES: FileFilter = FileFilter {
        name: "Meshes",
        extensions: &["obj", "gltf"],
    };

    /// A fresh folder: `b.obj`, `A.OBJ`, `notes.txt`, `.hidden.obj`, folders `zeta` (holding
    /// `inner.gltf`) and `Alpha`.
    fn sample_tree(name: &str) -> PathBuf {
        let root =
            std::env::temp_dir().join(format!("navlab-browser-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("zeta")).unwrap();
        std::fs::create_dir_all(root.join("Alpha")).unwrap();
        for file in [
            "b.obj",
            "A.OBJ",
            "notes.txt",
            ".hidden.obj",
            "zeta/inner.gltf",
        ] {
            std::fs::write(root.join(file), "v 0 0 0\n").unwrap();
        }
        root
    }

    fn names(browser: &Browser) -> Vec<&str> {
        browser.entries.iter().map(|e| e.name.as_str()).collect()
    }

    #[test]
    fn lists_folders_first_then_the_filtered_files() {
        let root = sample_tree("list");
        let mut browser = Browser::new("Open", BrowseMode::Open, MESHES, &root, "");
        assert_eq!(names(&browser), ["Alpha", "zeta", "A.OBJ", "b.obj"]);
        assert!(browser.entries[0].is_folder && !browser.entries[2].is_folder);
        browser.set_all_files(true);
        assert_eq!(
            names(&browser),
            ["Alpha", "zeta", "A.OBJ", "b.obj", "notes.txt"]
        );
        browser.set_all_files(false);
        assert_eq!(names(&browser), ["Alpha", "zeta", "A.OBJ", "b.obj"]);
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn enters_folders_goes_up_and_picks_a_file() {
        let root = sample_tree("pick");
        let mut browser = Browser::new("Open", BrowseMode::Open, MESHES, &root, "");
        browser.click("zeta");
        assert_eq!(browser.folder(), root.join("zeta"));
        assert_eq!(names(&browser), ["inner.gltf"]);
        browser.up();
        assert_eq!(browser.folder(), root);
        browser.click("b.obj");
        assert_eq!(browser.file_name, "b.obj");
        assert_eq!(browser.confirm(), Some(root.join("b.obj")));
        browser.set_file_name("missing.obj");
        assert_eq!(browser.confirm(), None);
        assert!(browser.problem.as_deref().unwrap().contains("No such file"));
        assert_eq!(browser.take_errors().len(), 1);
        // A typed folder name opens the folder.
        browser.set_file_name("zeta");
        assert_eq!(browser.confirm(), None);
        assert_eq!(browser.folder(), root.join("zeta"));
        browser.go_to(root.join("b.obj").to_str().unwrap());
        assert_eq!(browser.folder(), root);
        assert_eq!(browser.file_name, "b.obj");
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn a_typed_save_name_gets_the_extension_and_a_replace_asks_twice() {
        let root = sample_tree("save");
        let mut browser = Browser::new("Save", BrowseMode::Save, MESHES, &root, "navmesh.obj");
        assert_eq!(browser.confirm(), Some(root.join("navmesh.obj")));
        browser.set_file_name("level");
        assert_eq!(browser.confirm(), Some(root.join("level.obj")));
        browser.set_file_name("b.obj");
        assert_eq!(browser.confirm(), None, "b.obj exists: the first Save asks");
        assert_eq!(browser.confirm(), Some(root.join("b.obj")));
        browser.set_file_name("no-such-folder/x.obj");
        assert_eq!(browser.confirm(), None);
        assert_eq!(browser.take_errors().len(), 1);
        assert_eq!(
            std::fs::read_to_string(root.join("b.obj")).unwrap(),
            "v 0 0 0\n"
        );
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn an_unreadable_folder_is_an_error_not_a_crash() {
        let root = sample_tree("unreadable");
        let mut browser = Browser::new("Open", BrowseMode::Open, MESHES, &root, "");
        assert!(!browser.open_folder(&root.join("gone")));
        assert_eq!(browser.folder(), root, "the listing shown stays");
        assert!(browser.problem.as_deref().unwrap().contains("gone"));
        assert_eq!(browser.take_errors().len(), 1);
        assert!(browser.take_errors().is_empty());
        browser.go_to("gone/deeper");
        assert_eq!(browser.take_errors().len(), 1);
        // Started in a missing folder, it shows the nearest ancestor that exists.
        let started = Browser::new("Open", BrowseMode::Open, MESHES, &root.join("gone/x"), "");
        assert_eq!(started.folder(), root);
        std::fs::remove_dir_all(&root).unwrap();
    }

    /// Every text `shape` draws, with where.
    fn collect_texts(shape: &egui::Shape, texts: &mut Vec<(String, egui::Rect)>) {
        match shape {
            egui::Shape::Text(text) => {
                texts.push((text.galley.text().to_owned(), text.visual_bounding_rect()));
            }
            egui::Shape::Vec(shapes) => shapes.iter().for_each(|s| collect_texts(s, texts)),
            _ => {}
        }
    }

    /// Draws the browser for a frame with `events`; its outcome and the texts drawn.
    fn frame(
        ctx: &egui::Context,
        browser: &mut Browser,
        events: Vec<egui::Event>,
    ) -> (Option<Outcome>, Vec<(String, egui::Rect)>) {
        let input = egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(
                egui::Pos2::ZERO,
                egui::vec2(1280.0, 800.0),
            )),
            events,
            ..Default::default()
        };
        let mut outcome = None;
        let output = ctx.run_ui(input, |ui| outcome = browser.show(ui.ctx()));
        let mut texts = Vec::new();
        for clipped in &output.shapes {
            collect_texts(&clipped.shape, &mut texts);
        }
        output.drop_without_applying_deltas();
        (outcome, texts)
    }

    /// Clicks the widget labelled `label` as a user would (press, then release a frame later).
    fn click_label(ctx: &egui::Context, browser: &mut Browser, label: &str) -> Option<Outcome> {
        let (_, texts) = frame(ctx, browser, Vec::new());
        let (_, rect) = texts
            .iter()
            .find(|(text, _)| text == label)
            .unwrap_or_else(|| panic!("no {label:?} among {texts:?}"));
        let at = rect.center();
        let button = |pressed| egui::Event::PointerButton {
            pos: at,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: egui::Modifiers::NONE,
        };
        frame(
            ctx,
            browser,
            vec![egui::Event::PointerMoved(at), button(true)],
        );
        frame(ctx, browser, vec![button(false)]).0
    }

    #[test]
    fn the_drawn_browser_is_clicked_by_its_plain_labels() {
        let root = sample_tree("drawn");
        let ctx = egui::Context::default();
        let mut browser = Browser::new("Pick a mesh", BrowseMode::Open, MESHES, &root, "");
        frame(&ctx, &mut browser, Vec::new());
        let (_, texts) = frame(&ctx, &mut browser, Vec::new());
        for label in [
            "Up",
            "Open",
            "Cancel",
            "All files",
            "Alpha",
            "zeta",
            "A.OBJ",
            "b.obj",
        ] {
            assert!(texts.iter().any(|(text, _)| text == label), "{label}");
        }
        assert!(!texts.iter().any(|(text, _)| text == "notes.txt"));

        assert_eq!(click_label(&ctx, &mut browser, "zeta"), None);
        assert_eq!(browser.folder(), root.join("zeta"));
        click_label(&ctx, &mut browser, "Up");
        assert_eq!(browser.folder(), root);
        click_label(&ctx, &mut browser, "b.obj");
        assert_eq!(browser.file_name, "b.obj");
        let opened = click_label(&ctx, &mut browser, "Open");
        assert_eq!(opened, Some(Outcome::Chosen(root.join("b.obj"))));

        let mut saving = Browser::new("Save it", BrowseMode::Save, MESHES, &root, "new.obj");
        frame(&ctx, &mut saving, Vec::new());
        assert_eq!(
            click_label(&ctx, &mut saving, "Cancel"),
            Some(Outcome::Cancelled)
        );
        std::fs::remove_dir_all(&root).unwrap();
    }
}
