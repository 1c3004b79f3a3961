//! Draw plugin for the solid heightfield: "Voxels" (as rasterized) and "Walkable Voxels" (after
//! the filters, coloured by area).

use bevy::prelude::*;

use super::span_boxes::SpanSource;
use super::{DrawMode, DrawSystems, LayerParams, stage_layer_version, sync_span_layer};
use crate::viewer::build::BuildState;
use navlab::bake::solo::Stage;
use navlab::debug_draw::recast::VoxelColoring;

pub struct VoxelDrawPlugin;

impl Plugin for VoxelDrawPlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(Update, sync_voxels.in_set(DrawSystems));
    }
}

/// The spans' visible faces are quads the GPU expands from 12 bytes each ([`sync_span_layer`]),
/// so a city's millions of spans upload in seconds.
fn sync_voxels(mode: Res<DrawMode>, state: Res<BuildState>, mut params: LayerParams) {
    let build = state.stage_build();
    let version = stage_layer_version(&state, *mode == DrawMode::Voxels, Stage::Rasterize);
    sync_span_layer(&mut params, "Voxels", version, || {
        // The filters only change areas, which solid boxes do not show.
        build.map(|b| SpanSource::Heightfield(b.heightfield_filtered.clone(), VoxelColoring::Solid))
    });
    let version = stage_layer_version(&state, *mode == DrawMode::WalkableVoxels, Stage::Filter);
    sync_span_layer(&mut params, "Walkable Voxels", version, || {
        build.map(|b| {
            SpanSource::Heightfield(b.heightfield_filtered.clone(), VoxelColoring::Walkable)
        })
    });
}
