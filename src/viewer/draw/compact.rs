//! Draw plugin for the compact heightfield: "Compact" (areas after erosion), "Compact Distance"
//! (the distance field as grey levels) and "Compact Regions" (region colours, also under
//! "Region Connections"). Beyond RecastDemo, "Compact Regions" can show the watershed as it was
//! after any flooding level. Each span's floor quad is a box of no height the GPU expands
//! ([`sync_span_layer`]), so a large map's compact views upload in seconds.

use std::hash::{Hash, Hasher};
use std::sync::Arc;

use bevy::prelude::*;

use super::span_boxes::SpanSource;
use super::{DrawMode, DrawSystems, LayerParams, stage_layer_version, sync_span_layer};
use crate::viewer::build::BuildState;
use navlab::bake::solo::{Build, Stage};
use navlab::debug_draw::recast::CompactColoring;
use navlab::recast::context::BuildContext;
use navlab::recast::region::PartitionType;

pub struct CompactDrawPlugin;

impl Plugin for CompactDrawPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<WatershedView>().add_systems(
            Update,
            (record_flooding, sync_compact).chain().in_set(DrawSystems),
        );
    }
}

/// The watershed level slider: region ids after each flooding level of the shown build.
#[derive(Resource, Default)]
pub struct WatershedView {
    /// Show the regions at `step` instead of the final ones.
    pub enabled: bool,
    /// Index into `levels`; the last one is the final expansion before small regions merge.
    pub step: usize,
    /// Per flooding level, highest distance first.
    pub levels: Vec<FloodLevel>,
    /// The Regions stage version `levels` were recorded from.
    recorded: u64,
}

/// The partition after one watershed flooding level.
pub struct FloodLevel {
    /// The distance level just flooded (0 for the final expansion).
    pub level: u16,
    /// Every span's region id.
    pub regions: Arc<[u16]>,
    /// Number of distinct regions.
    pub count: usize,
}

impl WatershedView {
    /// Whether the stages on screen (the solo build, or the tile Create Tiles inspects) can be
    /// replayed (watershed partitioning).
    pub fn available(state: &BuildState) -> bool {
        state
            .stage_build()
            .is_some_and(|b| b.settings.partition_type == PartitionType::Watershed)
    }
}

/// Replays the shown build's watershed with an observer, once per Regions output, when the
/// slider is in use.
fn record_flooding(state: Res<BuildState>, mut view: ResMut<WatershedView>) {
    let version = state.stage_version(Stage::Regions);
    if !view.enabled || view.recorded == version {
        return;
    }
    view.recorded = version;
    view.levels = state
        .stage_build()
        .filter(|_| WatershedView::available(&state))
        .map(record_levels)
        .unwrap_or_default();
    view.step = view.step.min(view.levels.len().saturating_sub(1));
}

/// The build's watershed run again with an observer; a tile's keeps its border, as its build
/// partitioned it.
fn record_levels(build: &Build) -> Vec<FloodLevel> {
    let mut chf = (*build.regions).clone();
    for span in &mut chf.spans {
        span.reg = 0;
    }
    chf.max_regions = 0;
    let mut levels = Vec::new();
    let result = navlab::recast::region::build_regions_observed(
        &mut BuildContext::new(),
        &mut chf,
        build.config.border_size,
        build.config.min_region_area,
        build.config.merge_region_area,
        |level, regions| {
            let mut ids: Vec<u16> = regions.iter().copied().filter(|&r| r != 0).collect();
            ids.sort_unstable();
            ids.dedup();
            levels.push(FloodLevel {
                level,
                regions: regions.into(),
                count: ids.len(),
            });
        },
    );
    if result.is_err() {
        levels.clear();
    }
    levels
}

fn sync_compact(
    mode: Res<DrawMode>,
    state: Res<BuildState>,
    view: Res<WatershedView>,
    mut params: LayerParams,
) {
    let build = state.stage_build();
    let regions_shown = matches!(
        *mode,
        DrawMode::CompactRegions | DrawMode::RegionConnections
    );
    let flooding = view
        .levels
        .get(view.step)
        .filter(|_| view.enabled && *mode == DrawMode::CompactRegions);
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
            regions_shown && flooding.is_none(),
            Stage::Regions,
            CompactColoring::Regions,
        ),
    ];
    for (name, shown, stage, coloring) in layers {
        let version = stage_layer_version(&state, shown, stage);
        sync_span_layer(&mut params, name, version, || {
            // The areas after erosion are the final field's (later stages keep them).
            build.map(|b| SpanSource::Compact {
                field: b.regions.clone(),
                coloring,
                regions: None,
            })
        });
    }
    let version = flooding.and_then(|flood| {
        let mut key = std::collections::hash_map::DefaultHasher::new();
        (state.stage_version(Stage::Regions), view.step, flood.level).hash(&mut key);
        build.map(|_| key.finish())
    });
    sync_span_layer(&mut params, "Watershed Flooding", version, || {
        match (build, flooding) {
            (Some(b), Some(flood)) => Some(SpanSource::Compact {
                field: b.regions.clone(),
                coloring: CompactColoring::Regions,
                regions: Some(flood.regions.clone()),
            }),
            _ => None,
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::viewer::build::tests::{build_app, first_built_tile, settle};
    use crate::viewer::build::{BuildRequest, Sample, TileEdit};

    /// Turns the replay on and lets it record the levels of the stages on screen.
    fn recorded_levels(app: &mut App) -> usize {
        app.world_mut().resource_mut::<WatershedView>().enabled = true;
        app.update();
        app.world().resource::<WatershedView>().levels.len()
    }

    /// The replay's levels end in the final expansion, whose regions are the build's before
    /// the small regions are merged: every span in a kept region was flooded by then.
    fn assert_levels_lead_to(app: &App) {
        let state = app.world().resource::<BuildState>();
        let build = state.stage_build().expect("stages on screen");
        let view = app.world().resource::<WatershedView>();
        let last = view.levels.last().expect("levels recorded");
        assert_eq!(last.level, 0, "the last step is the final expansion");
        assert_eq!(last.regions.len(), build.regions.spans.len());
        // A tile's border cells get border regions, as its build gave them.
        let border = last
            .regions
            .iter()
            .any(|&r| r & navlab::recast::BORDER_REG != 0);
        assert_eq!(border, build.config.border_size > 0);
        let kept = build.regions.spans.iter().filter(|s| s.reg != 0).count();
        let flooded = last.regions.iter().filter(|&&r| r != 0).count();
        assert!(
            flooded >= kept,
            "{flooded} spans flooded, {kept} in regions"
        );
    }

    #[test]
    fn the_watershed_replays_on_the_solo_build_and_an_inspected_tile() {
        let mut app = build_app();
        app.init_resource::<WatershedView>()
            .add_systems(Update, record_flooding);
        settle(&mut app);
        assert!(WatershedView::available(
            app.world().resource::<BuildState>()
        ));
        assert!(recorded_levels(&mut app) > 2);
        assert_levels_lead_to(&app);

        app.world_mut()
            .write_message(BuildRequest::Sample(Sample::TileMesh));
        settle(&mut app);
        let state = app.world().resource::<BuildState>();
        assert!(!WatershedView::available(state), "no tile inspected yet");
        let (x, y) = first_built_tile(state.tiled.as_deref().expect("tiles built"));
        app.world_mut()
            .write_message(BuildRequest::Tiles(TileEdit::Build(x, y)));
        settle(&mut app);
        let state = app.world().resource::<BuildState>();
        assert!(WatershedView::available(state));
        assert!(state.stage_build().unwrap().config.border_size > 0);
        assert!(recorded_levels(&mut app) > 1);
        assert_levels_lead_to(&app);
    }
}
