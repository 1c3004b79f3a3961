//! Draw plugin for the Temp Obstacles sample: "Cache Bounds" (every stored layer's bounds) and
//! the obstacles, drawn in every mode while the sample is on screen, as RecastDemo does.

use bevy::prelude::*;

use super::{DrawMode, DrawSystems, LayerParams, sync_layer};
use crate::viewer::build::BuildState;
use navlab::debug_draw::tile_cache as draw;

pub struct TileCacheDrawPlugin;

impl Plugin for TileCacheDrawPlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(Update, sync_tile_cache.in_set(DrawSystems));
    }
}

fn sync_tile_cache(mode: Res<DrawMode>, state: Res<BuildState>, mut params: LayerParams) {
    let view = state.temp_obstacles.as_ref();
    let bounds_version = view
        .filter(|_| *mode == DrawMode::CacheBounds)
        .map(|_| state.stage_version(navlab::bake::solo::Stage::Rasterize));
    sync_layer(&mut params, "Cache Bounds", bounds_version, || {
        view.map(|v| draw::cache_bounds(&v.build.cache))
            .unwrap_or_default()
    });
    let obstacles_version = view
        .filter(|v| v.build.obstacles.live().next().is_some())
        .map(|v| v.obstacles_version);
    sync_layer(&mut params, "Obstacles", obstacles_version, || {
        view.map(|v| draw::obstacles(&v.build.obstacles))
            .unwrap_or_default()
    });
}
