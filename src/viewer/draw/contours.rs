//! Draw plugin for the contour set: "Region Connections", "Raw Contours", "Both Contours" and
//! "Contours".

use bevy::prelude::*;

use super::{DrawMode, DrawSystems, LayerParams, stage_layer_version, sync_layer};
use crate::viewer::build::BuildState;
use navlab::bake::solo::Stage;
use navlab::debug_draw;

pub struct ContourDrawPlugin;

impl Plugin for ContourDrawPlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(Update, sync_contours.in_set(DrawSystems));
    }
}

fn sync_contours(mode: Res<DrawMode>, state: Res<BuildState>, mut params: LayerParams) {
    let Some(build) = state.stage_build() else {
        for name in [
            "Region Connections",
            "Raw Contours",
            "Both Contours",
            "Contours",
        ] {
            sync_layer(&mut params, name, None, Default::default);
        }
        return;
    };
    let cset = &build.contours;
    let version = |m: DrawMode| stage_layer_version(&state, *mode == m, Stage::Contours);
    sync_layer(
        &mut params,
        "Region Connections",
        version(DrawMode::RegionConnections),
        || debug_draw::recast::region_connections(cset, 1.0),
    );
    sync_layer(
        &mut params,
        "Raw Contours",
        version(DrawMode::RawContours),
        || debug_draw::recast::raw_contours(cset, 1.0),
    );
    sync_layer(
        &mut params,
        "Both Contours",
        version(DrawMode::BothContours),
        || {
            let mut drawing = debug_draw::recast::raw_contours(cset, 0.5);
            drawing.append(debug_draw::recast::contours(cset, 1.0));
            drawing
        },
    );
    sync_layer(&mut params, "Contours", version(DrawMode::Contours), || {
        debug_draw::recast::contours(cset, 1.0)
    });
}
