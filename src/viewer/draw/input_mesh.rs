//! Draw plugin for the input mesh ("Input Mesh"), shown under every mode but "Navmesh Trans" as
//! in RecastDemo, with the build bounds.

use std::hash::{Hash, Hasher};

use bevy::prelude::*;

use super::{DrawMode, DrawSystems, LayerParams, sync_layer};
use crate::viewer::build::BuildState;
use navlab::debug_draw::{self, rgba};

pub struct InputMeshDrawPlugin;

impl Plugin for InputMeshDrawPlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(Update, sync_input_mesh.in_set(DrawSystems));
    }
}

fn sync_input_mesh(mode: Res<DrawMode>, state: Res<BuildState>, mut params: LayerParams) {
    let settings = &state.settings;
    // The slope tint and texture scale follow the sliders at once, without waiting for a build.
    let mut key = std::collections::hash_map::DefaultHasher::new();
    (
        state.scene_version,
        settings.agent_max_slope.to_bits(),
        settings.cell_size.to_bits(),
    )
        .hash(&mut key);
    let mesh = &state.scene.input.mesh;
    let slope = settings.agent_max_slope;
    let tex_scale = 1.0 / (settings.cell_size * 10.0);
    // "Navmesh Trans" shows the navmesh alone, as RecastDemo does.
    let version = (*mode != DrawMode::NavmeshTrans).then(|| key.finish());
    sync_layer(&mut params, "Input Mesh", version, || {
        let mut drawing = debug_draw::recast::tri_mesh_slope(mesh, slope, tex_scale);
        let (bmin, bmax) = mesh.bounds();
        drawing
            .lines
            .push(debug_draw::bounds_box(bmin, bmax, rgba(255, 255, 255, 128)));
        drawing
    });
}
