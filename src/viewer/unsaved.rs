//! What the user made since it was last saved (convex volumes, off-mesh links, Create Tiles
//! edits), which quitting asks about and saving clears.

use bevy::prelude::*;

use crate::viewer::build::{BuildRequest, BuildState, Sample};
use navlab::input::geomset::{ConvexVolume, OffMeshConnection};

/// What the user made since it was last saved, judged against the state at the last open or
/// save.
#[derive(Resource, Default)]
pub struct UnsavedWork {
    /// The scene version and its authored content when it was opened or saved as a `.gset`.
    authored_baseline: Option<(u64, AuthoredContent)>,
    /// Create Tiles edits since the grid was last built whole or exported.
    tiles_edited: bool,
}

type AuthoredContent = (Vec<ConvexVolume>, Vec<OffMeshConnection>);

fn authored_content(state: &BuildState) -> AuthoredContent {
    let set = &state.scene.input.geom_set;
    (set.convex_volumes.clone(), set.off_mesh_connections.clone())
}

impl UnsavedWork {
    /// The kinds of unsaved work, for the question ("convex volumes", "off-mesh links", …).
    pub fn kinds(&self, state: &BuildState) -> Vec<&'static str> {
        let mut kinds = Vec::new();
        if let Some((_, (volumes, links))) = &self.authored_baseline {
            let set = &state.scene.input.geom_set;
            if &set.convex_volumes != volumes {
                kinds.push("convex volumes");
            }
            if &set.off_mesh_connections != links {
                kinds.push("off-mesh links");
            }
        }
        if self.tiles_edited && state.sample == Sample::TileMesh {
            kinds.push("tile edits (Create Tiles)");
        }
        kinds
    }

    /// The scene's volumes and links were saved as a geometry set.
    pub fn geom_set_saved(&mut self, state: &BuildState) {
        self.authored_baseline = Some((state.scene_version, authored_content(state)));
    }

    /// The navmesh on screen, with its tile edits, was written to a file.
    pub fn nav_mesh_exported(&mut self) {
        self.tiles_edited = false;
    }
}

/// A newly opened scene is the baseline of its authoring; tile edits count until the grid is
/// rebuilt whole.
pub(crate) fn track_saved_state(
    state: Res<BuildState>,
    mut requests: MessageReader<BuildRequest>,
    mut unsaved: ResMut<UnsavedWork>,
) {
    if unsaved
        .authored_baseline
        .as_ref()
        .is_none_or(|(version, _)| *version != state.scene_version)
    {
        unsaved.authored_baseline = Some((state.scene_version, authored_content(&state)));
        unsaved.tiles_edited = false;
    }
    for request in requests.read() {
        match request {
            BuildRequest::Tiles(_) => unsaved.tiles_edited = true,
            BuildRequest::Rebuild | BuildRequest::Sample(_) | BuildRequest::TileSize(_) => {
                unsaved.tiles_edited = false
            }
            _ => {}
        }
    }
}
