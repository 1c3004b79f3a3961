//! Draw plugin for a geometry set's authored content: convex volumes and off-mesh connections,
//! shown in every draw mode as RecastDemo shows them.

use bevy::prelude::*;

use super::{DrawSystems, LayerParams, sync_layer};
use crate::viewer::build::BuildState;
use navlab::debug_draw::input::{convex_volumes, off_mesh_connections};

pub struct AuthoredDrawPlugin;

impl Plugin for AuthoredDrawPlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(Update, sync_authored.in_set(DrawSystems));
    }
}

fn sync_authored(state: Res<BuildState>, mut params: LayerParams) {
    let geom_set = &state.scene.input.geom_set;
    let any = !geom_set.convex_volumes.is_empty() || !geom_set.off_mesh_connections.is_empty();
    sync_layer(
        &mut params,
        "Authored",
        any.then_some(state.authored_version),
        || {
            let mut drawing = convex_volumes(&geom_set.convex_volumes);
            drawing.append(off_mesh_connections(&geom_set.off_mesh_connections));
            drawing
        },
    );
}
