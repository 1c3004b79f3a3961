//! Draw plugin for the polygon mesh ("Poly Mesh").

use bevy::prelude::*;

use super::{DrawMode, DrawSystems, LayerParams, stage_layer_version, sync_layer};
use crate::viewer::build::BuildState;
use navlab::bake::solo::Stage;
use navlab::debug_draw;

pub struct PolyMeshDrawPlugin;

impl Plugin for PolyMeshDrawPlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(Update, sync_poly_mesh.in_set(DrawSystems));
    }
}

fn sync_poly_mesh(mode: Res<DrawMode>, state: Res<BuildState>, mut params: LayerParams) {
    let build = state.stage_build();
    let version = stage_layer_version(&state, *mode == DrawMode::PolyMesh, Stage::PolyMesh);
    sync_layer(&mut params, "Poly Mesh", version, || {
        build.map_or_else(Default::default, |b| {
            debug_draw::recast::poly_mesh(&b.poly_mesh)
        })
    });
}
