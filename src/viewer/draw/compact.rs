//! Draw plugin for the compact heightfield: "Compact" (areas after erosion), "Compact Distance"
//! (the distance field as grey levels) and "Compact Regions" (region colours, also under
//! "Region Connections").

use bevy::prelude::*;

use super::{DrawMode, DrawSystems, LayerParams, stage_layer_version, sync_layer};
use crate::build::Stage;
use crate::debug_draw::{self, CompactColoring};
use crate::viewer::build::BuildState;

pub struct CompactDrawPlugin;

impl Plugin for CompactDrawPlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(Update, sync_compact.in_set(DrawSystems));
    }
}

fn sync_compact(mode: Res<DrawMode>, state: Res<BuildState>, mut params: LayerParams) {
    let build = state.build.as_deref();
    let layers = [
        (
            "Compact",
            DrawMode::Compact == *mode,
            Stage::Erode,
            CompactColoring::Area,
        ),
        (
            "Compact Distance",
            DrawMode::CompactDistance == *mode,
            Stage::DistanceField,
            CompactColoring::Distance,
        ),
        (
            "Compact Regions",
            matches!(
                *mode,
                DrawMode::CompactRegions | DrawMode::RegionConnections
            ),
            Stage::Regions,
            CompactColoring::Regions,
        ),
    ];
    for (name, shown, stage, coloring) in layers {
        let version = stage_layer_version(&state, shown, stage);
        sync_layer(&mut params, name, version, || {
            build.map_or_else(Default::default, |b| {
                let chf = if stage == Stage::Erode {
                    &b.compact_eroded
                } else {
                    &b.regions
                };
                debug_draw::compact_heightfield(chf, coloring)
            })
        });
    }
}
