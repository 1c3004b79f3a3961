//! Draw plugin for the detail mesh ("Poly Mesh Detail").

use bevy::prelude::*;

use super::{DrawMode, DrawSystems, LayerParams, stage_layer_version, sync_layer};
use crate::viewer::build::BuildState;
use navlab::bake::solo::Stage;
use navlab::debug_draw;

pub struct DetailMeshDrawPlugin;

impl Plugin for DetailMeshDrawPlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(Update, sync_detail_mesh.in_set(DrawSystems));
    }
}

fn sync_detail_mesh(mode: Res<DrawMode>, state: Res<BuildState>, mut params: LayerParams) {
    let build = state.stage_build();
    let version = stage_layer_version(&state, *mode == DrawMode::PolyMeshDetail, Stage::DetailMesh);
    sync_layer(&mut params, "Poly Mesh Detail", version, || {
        build.map_or_else(Default::default, |b| {
            debug_draw::recast::poly_mesh_detail(&b.detail_mesh)
        })
    });
}
