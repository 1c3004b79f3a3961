//! Saving what was authored and tuned: File → Save geometry set… and RecastDemo's key 9 (a
//! `.gset` of the mesh, the settings, the navmesh bounds and tile size, the convex volumes and
//! off-mesh links), File → Save settings… / Open settings… (the TOML `navlab bake --config`
//! reads) and Reset to RecastDemo defaults, and File → Export detail mesh as OBJ or glTF (what
//! `navlab bake --export-obj / --export-gltf` write). A scene made in code (the default scene)
//! has no mesh file for a `.gset` to name, so its mesh is written as OBJ beside the set.

use std::path::{Path, PathBuf};

use bevy::prelude::*;

use crate::viewer::build::{BuildRequest, BuildState, Sample, ViewerLog};
use crate::viewer::files::{FileDialog, FileFilter};
use crate::viewer::unsaved::UnsavedWork;
use navlab::bake::export::{
    ExportOptions, save_gltf, save_obj, solo_detail_by_area, tiled_detail_by_area,
};
use navlab::bake::settings::BuildSettings;
use navlab::input::input_geom::InputGeom;

/// What the user asked to save or open.
#[derive(Message, Clone, Debug)]
pub enum SaveRequest {
    /// Ask where to save the geometry set, then save it.
    GeomSetDialog,
    /// Save the geometry set where RecastDemo's key 9 does: beside the mesh, as `<mesh>.gset`.
    GeomSetBesideMesh,
    GeomSet(PathBuf),
    /// Ask where to save the settings, then save them.
    SettingsDialog,
    Settings(PathBuf),
    /// Ask which settings file to open, then apply it.
    OpenSettingsDialog,
    OpenSettings(PathBuf),
    /// Ask where to export the detail mesh, then export it.
    ExportMeshDialog(MeshFormat),
    ExportMesh(MeshFormat, PathBuf),
}

/// The formats the detail mesh is exported in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MeshFormat {
    /// Wavefront OBJ, one group per area.
    Obj,
    /// glTF 2.0, one primitive per area: binary `.glb`, or `.gltf` with the data embedded.
    Gltf,
}

impl MeshFormat {
    fn filter(self) -> FileFilter {
        match self {
            MeshFormat::Obj => FileFilter {
                name: "Wavefront OBJ",
                extensions: &["obj"],
            },
            MeshFormat::Gltf => FileFilter {
                name: "glTF 2.0",
                extensions: &["glb", "gltf"],
            },
        }
    }

    fn extension(self) -> &'static str {
        match self {
            MeshFormat::Obj => "obj",
            MeshFormat::Gltf => "glb",
        }
    }
}

/// The export's axis and unit options (File → Export detail mesh).
#[derive(Resource, Default, Clone, Copy, Debug)]
pub struct MeshExportOptions(pub ExportOptions);

const GEOM_SET_FILES: FileFilter = FileFilter {
    name: "RecastDemo geometry set",
    extensions: &["gset"],
};

const SETTINGS_FILES: FileFilter = FileFilter {
    name: "Navlab settings (TOML)",
    extensions: &["toml"],
};

/// The file dialogs of this plugin.
#[derive(Resource, Default)]
struct SavingDialogs {
    geom_set: FileDialog,
    settings: FileDialog,
    open_settings: FileDialog,
    export: FileDialog,
    /// The format the export dialog was opened for.
    export_format: Option<MeshFormat>,
}

pub struct SavingPlugin;

impl Plugin for SavingPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<SavingDialogs>()
            .init_resource::<MeshExportOptions>()
            .init_resource::<UnsavedWork>()
            .add_message::<SaveRequest>()
            .add_systems(Update, (save_key, handle_requests, poll_dialogs).chain());
    }
}

/// Key 9 saves the geometry set, as in RecastDemo.
fn save_key(
    keys: Res<ButtonInput<KeyCode>>,
    typing: Option<Res<crate::viewer::typing::TypingInUi>>,
    mut requests: MessageWriter<SaveRequest>,
) {
    if typing.is_some_and(|t| t.0) {
        return;
    }
    if keys.just_pressed(KeyCode::Digit9) {
        requests.write(SaveRequest::GeomSetBesideMesh);
    }
}

fn handle_requests(
    mut requests: MessageReader<SaveRequest>,
    mut dialogs: ResMut<SavingDialogs>,
    export_options: Res<MeshExportOptions>,
    state: Res<BuildState>,
    mut build_requests: MessageWriter<BuildRequest>,
    mut log: ResMut<ViewerLog>,
    mut unsaved: ResMut<UnsavedWork>,
) {
    for request in requests.read() {
        match request {
            SaveRequest::GeomSetDialog => {
                let name = format!("{}.gset", mesh_stem(&state.scene.input));
                dialogs
                    .geom_set
                    .save_file("Save geometry set", GEOM_SET_FILES, &name);
            }
            SaveRequest::GeomSetBesideMesh => {
                let path = match state.scene.input.mesh_file() {
                    Some(mesh) => mesh.with_extension("gset"),
                    None => PathBuf::from(format!("{}.gset", mesh_stem(&state.scene.input))),
                };
                if save_geom_set(&state, &path, &mut log) {
                    unsaved.geom_set_saved(&state);
                }
            }
            SaveRequest::GeomSet(path) => {
                if save_geom_set(&state, path, &mut log) {
                    unsaved.geom_set_saved(&state);
                }
            }
            SaveRequest::SettingsDialog => {
                dialogs
                    .settings
                    .save_file("Save settings", SETTINGS_FILES, "navlab.toml");
            }
            SaveRequest::Settings(path) => match state.settings.save_toml(path) {
                Ok(()) => log.info(format!("Saved the settings to {}", path.display())),
                Err(err) => log.error(format!("Could not save the settings: {err}")),
            },
            SaveRequest::OpenSettingsDialog => {
                dialogs
                    .open_settings
                    .pick_file("Open settings", SETTINGS_FILES);
            }
            SaveRequest::OpenSettings(path) => match BuildSettings::load_toml(path) {
                Ok(settings) => {
                    log.info(format!("Opened the settings {}", path.display()));
                    build_requests.write(BuildRequest::Settings(settings));
                }
                Err(err) => log.error(format!("Could not open the settings: {err}")),
            },
            &SaveRequest::ExportMeshDialog(format) => {
                let name = format!(
                    "{}-navmesh.{}",
                    mesh_stem(&state.scene.input),
                    format.extension()
                );
                dialogs.export_format = Some(format);
                dialogs
                    .export
                    .save_file("Export detail mesh", format.filter(), &name);
            }
            SaveRequest::ExportMesh(format, path) => {
                match export_mesh(&state, *format, path, export_options.0) {
                    Ok(triangles) => log.info(format!(
                        "Exported the detail mesh ({triangles} triangles) to {}",
                        path.display()
                    )),
                    Err(err) => log.error(format!("Could not export the detail mesh: {err}")),
                }
            }
        }
    }
}

fn poll_dialogs(mut dialogs: ResMut<SavingDialogs>, mut requests: MessageWriter<SaveRequest>) {
    if let Some(choice) = dialogs.geom_set.poll() {
        requests.write_batch(choice.map(SaveRequest::GeomSet));
    }
    if let Some(choice) = dialogs.settings.poll() {
        requests.write_batch(choice.map(SaveRequest::Settings));
    }
    if let Some(choice) = dialogs.export.poll()
        && let Some(format) = dialogs.export_format
    {
        requests.write_batch(choice.map(|path| SaveRequest::ExportMesh(format, path)));
    }
    if let Some(choice) = dialogs.open_settings.poll() {
        requests.write_batch(choice.map(SaveRequest::OpenSettings));
    }
}

/// The mesh's file name without extension, or "scene" for one made in code.
fn mesh_stem(input: &InputGeom) -> String {
    input
        .mesh_file()
        .and_then(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "scene".into())
}

/// Saves the scene's geometry set at `path`; whether it was written.
fn save_geom_set(state: &BuildState, path: &Path, log: &mut ViewerLog) -> bool {
    match write_geom_set(state, path) {
        Ok(mesh_written) => {
            let input = &state.scene.input.geom_set;
            log.info(format!(
                "Saved geometry set {} ({} convex volumes, {} off-mesh links){}",
                path.display(),
                input.convex_volumes.len(),
                input.off_mesh_connections.len(),
                mesh_written
                    .map(|mesh| format!(", with the scene's mesh as {}", mesh.display()))
                    .unwrap_or_default()
            ));
            true
        }
        Err(err) => {
            log.error(format!("Could not save the geometry set: {err}"));
            false
        }
    }
}

/// Writes the detail mesh on screen (the solo build's, or every tile's) at `path`; returns its
/// triangle count. The input mesh is never overwritten.
fn export_mesh(
    state: &BuildState,
    format: MeshFormat,
    path: &Path,
    options: ExportOptions,
) -> navlab::Result<usize> {
    let is_input = |input: Option<PathBuf>| {
        input.is_some_and(|input| {
            input == path
                || matches!((input.canonicalize(), path.canonicalize()), (Ok(a), Ok(b)) if a == b)
        })
    };
    if is_input(state.scene.input.mesh_file()) || is_input(state.scene.input.source.clone()) {
        return Err(navlab::NavlabError::Stage {
            stage: "export",
            message: format!("{} is the input; choose another file", path.display()),
        });
    }
    let areas = match (&state.tiled, &state.build) {
        (Some(tiled), _) => tiled_detail_by_area(tiled, options)?,
        (None, Some(build)) => solo_detail_by_area(build, options)?,
        (None, None) => {
            return Err(navlab::NavlabError::Stage {
                stage: "export",
                message: "nothing is built yet".into(),
            });
        }
    };
    match format {
        MeshFormat::Obj => save_obj(path, &areas)?,
        MeshFormat::Gltf => save_gltf(path, &areas)?,
    }
    Ok(areas.iter().map(|a| a.tri_count()).sum())
}

/// Writes the geometry set of the scene on screen at `path`, and first the mesh as OBJ beside
/// it when the scene has no mesh file (returned).
fn write_geom_set(state: &BuildState, path: &Path) -> navlab::Result<Option<PathBuf>> {
    let tile_size = (state.sample == Sample::TileMesh).then_some(state.tile_size);
    let mut input = state.scene.input.clone();
    let mut mesh_written = None;
    if input.mesh_file().is_none() {
        let mesh_path = path.with_extension("obj");
        navlab::file::write_atomically(
            &mesh_path,
            navlab::input::scene::obj_text(&input.mesh).as_bytes(),
        )?;
        input.source = Some(mesh_path.clone());
        mesh_written = Some(mesh_path);
    }
    state
        .settings
        .geom_set_to_save(&input, tile_size, path)?
        .save(path)?;
    Ok(mesh_written)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::viewer::build::tests::{build_app, settle};
    use navlab::input::geomset::{ConvexVolume, GeomSet};

    fn app() -> App {
        let mut app = build_app();
        app.init_resource::<ButtonInput<KeyCode>>()
            .add_plugins(SavingPlugin);
        settle(&mut app);
        app
    }

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("navlab-saving-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// Sends `request` and lets the build it may ask for (a frame later) finish.
    fn send(app: &mut App, request: SaveRequest) {
        app.world_mut().write_message(request);
        app.update();
        settle(app);
    }

    #[test]
    fn a_saved_geometry_set_reopens_to_the_same_scene_and_settings() {
        let mut app = app();
        let dir = temp_dir("gset");
        let settings = BuildSettings {
            cell_size: 0.25,
            agent_radius: 0.5,
            ..BuildSettings::default()
        };
        app.world_mut()
            .write_message(BuildRequest::Settings(settings.clone()));
        let mut geom_set = GeomSet::new("");
        geom_set.convex_volumes.push(ConvexVolume {
            verts: vec![[-3.0, 0.0, -3.0], [3.0, 0.0, -3.0], [0.0, 0.0, 3.0]],
            area: 4,
            hmin: -1.0,
            hmax: 5.0,
        });
        app.world_mut()
            .write_message(BuildRequest::Authored(geom_set.clone()));
        settle(&mut app);

        let path = dir.join("level.gset");
        send(&mut app, SaveRequest::GeomSet(path.clone()));
        assert!(dir.join("level.obj").is_file(), "the default scene's mesh");
        let reopened = InputGeom::load(&path).unwrap();
        let shown = &app.world().resource::<BuildState>().scene.input;
        assert_eq!(reopened.mesh.verts, shown.mesh.verts);
        assert_eq!(reopened.mesh.tris, shown.mesh.tris);
        assert_eq!(reopened.geom_set.convex_volumes, geom_set.convex_volumes);
        assert_eq!(BuildSettings::for_input(&reopened), settings);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn settings_files_save_open_and_fail_without_losing_anything() {
        let mut app = app();
        let dir = temp_dir("settings");
        let settings = BuildSettings {
            agent_height: 1.5,
            ..BuildSettings::default()
        };
        app.world_mut()
            .write_message(BuildRequest::Settings(settings.clone()));
        settle(&mut app);
        let path = dir.join("tuned.toml");
        send(&mut app, SaveRequest::Settings(path.clone()));
        app.world_mut()
            .write_message(BuildRequest::Settings(BuildSettings::default()));
        settle(&mut app);
        send(&mut app, SaveRequest::OpenSettings(path));
        assert_eq!(app.world().resource::<BuildState>().settings, settings);

        let broken = dir.join("broken.toml");
        std::fs::write(&broken, "cellSize = \"big\"").unwrap();
        send(&mut app, SaveRequest::OpenSettings(broken));
        assert_eq!(app.world().resource::<BuildState>().settings, settings);
        let log = app.world().resource::<ViewerLog>();
        assert!(
            log.toasts
                .iter()
                .any(|(text, _)| text.contains("broken.toml")),
            "{:?}",
            log.toasts
        );
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn the_detail_mesh_exports_as_obj_and_gltf_in_both_samples() {
        let mut app = app();
        let dir = temp_dir("export");
        let triangles = |app: &App| {
            let state = app.world().resource::<BuildState>();
            match &state.tiled {
                Some(tiled) => tiled
                    .tiles
                    .iter()
                    .filter_map(|t| t.output.as_ref().ok())
                    .map(|o| o.detail_mesh.ntris())
                    .sum::<usize>(),
                None => state.build.as_ref().unwrap().detail_mesh.ntris(),
            }
        };
        for sample in [Sample::SoloMesh, Sample::TileMesh] {
            app.world_mut().write_message(BuildRequest::Sample(sample));
            settle(&mut app);
            let expected = triangles(&app);
            let glb = dir.join(format!("{sample:?}.glb"));
            send(
                &mut app,
                SaveRequest::ExportMesh(MeshFormat::Gltf, glb.clone()),
            );
            let document = gltf::Gltf::from_slice(&std::fs::read(&glb).unwrap()).unwrap();
            assert!(document.meshes().flat_map(|m| m.primitives()).count() > 0);
            let read_back = navlab::input::gltf::load_gltf(&glb).unwrap().tri_count();
            assert_eq!(read_back, expected, "{sample:?}");
            let obj = dir.join(format!("{sample:?}.obj"));
            send(
                &mut app,
                SaveRequest::ExportMesh(MeshFormat::Obj, obj.clone()),
            );
            let text = std::fs::read_to_string(&obj).unwrap();
            assert_eq!(
                text.lines().filter(|l| l.starts_with("f ")).count(),
                expected
            );
        }
        std::fs::remove_dir_all(dir).unwrap();
    }
}
