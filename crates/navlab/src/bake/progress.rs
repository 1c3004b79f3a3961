//! How far a long build has got, for a progress bar: the stage running (k of n) and, for tiled
//! work, tiles done of total. Kept in atomics, so the build's threads write it while the
//! viewer's frame reads it, without locks.

use std::sync::atomic::{AtomicUsize, Ordering};

/// A build's progress, shared between the build and whoever shows it.
#[derive(Debug, Default)]
pub struct BuildProgress {
    /// The running stage's index in its pipeline, plus one (0: none yet).
    stage: AtomicUsize,
    /// The first stage of this run and the number of stages in the pipeline.
    first_stage: AtomicUsize,
    stage_count: AtomicUsize,
    tiles_done: AtomicUsize,
    tiles_total: AtomicUsize,
    /// The [`TilePhase`] the tile counts belong to, as its index.
    tile_phase: AtomicUsize,
}

/// What the tiles being counted go through: the Tile Mesh sample builds each tile once, the
/// Temp Obstacles sample first rasterizes every tile's layers into its cache, then builds
/// their navmesh tiles.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TilePhase {
    #[default]
    /// The tiles of a tiled build.
    Tiles,
    /// Rasterizing each tile's layers into the cache.
    CacheLayers,
    /// Building each stored layer's navmesh tile.
    NavMeshTiles,
}

impl TilePhase {
    const ALL: [TilePhase; 3] = [Self::Tiles, Self::CacheLayers, Self::NavMeshTiles];

    /// What a progress bar calls the tiles counted.
    pub fn label(self) -> &'static str {
        match self {
            Self::Tiles => "Tiles",
            Self::CacheLayers => "Cache layers: tiles",
            Self::NavMeshTiles => "Navmesh: tiles",
        }
    }
}

/// What a progress bar shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProgressView {
    /// Index of the running stage in its pipeline.
    pub stage: Option<usize>,
    /// The running stage's number in this run and the run's stage count (both from 1).
    pub step: Option<(usize, usize)>,
    /// Tiles done of total, when the work is tiled.
    pub tiles: Option<(usize, usize)>,
    /// Which tiles the count is of.
    pub tile_phase: TilePhase,
}

impl BuildProgress {
    /// A run of the stages `first..count` of a pipeline begins.
    pub fn start_run(&self, first: usize, count: usize) {
        self.first_stage.store(first, Ordering::Relaxed);
        self.stage_count.store(count, Ordering::Relaxed);
    }

    /// Stage `index` of the pipeline starts.
    pub fn start_stage(&self, index: usize) {
        self.stage.store(index + 1, Ordering::Relaxed);
    }

    /// `done` of `total` tiles are built (any thread may call it, in any order of `done`: the
    /// highest count wins).
    pub fn tiles(&self, done: usize, total: usize) {
        self.tiles_total.store(total, Ordering::Relaxed);
        self.tiles_done.fetch_max(done, Ordering::Relaxed);
    }

    /// The tiles counted from now on go through `phase`; none is done yet.
    pub fn start_tile_phase(&self, phase: TilePhase, total: usize) {
        self.tile_phase.store(phase as usize, Ordering::Relaxed);
        self.tiles_done.store(0, Ordering::Relaxed);
        self.tiles_total.store(total, Ordering::Relaxed);
    }

    /// What a progress bar should show now.
    pub fn view(&self) -> ProgressView {
        let stage = self.stage.load(Ordering::Relaxed).checked_sub(1);
        let (first, count) = (
            self.first_stage.load(Ordering::Relaxed),
            self.stage_count.load(Ordering::Relaxed),
        );
        let total = self.tiles_total.load(Ordering::Relaxed);
        ProgressView {
            stage,
            step: stage
                .filter(|&s| s >= first && s < count)
                .map(|s| (s - first + 1, count - first)),
            tiles: (total > 0).then(|| (self.tiles_done.load(Ordering::Relaxed), total)),
            tile_phase: TilePhase::ALL
                .get(self.tile_phase.load(Ordering::Relaxed))
                .copied()
                .unwrap_or_default(),
        }
    }
}

impl ProgressView {
    /// The part done, tiles first (they move smoothly), else stages begun.
    pub fn fraction(&self) -> Option<f32> {
        match (self.tiles, self.step) {
            (Some((done, total)), _) => Some(done as f32 / total as f32),
            (None, Some((k, n))) => Some((k - 1) as f32 / n as f32),
            (None, None) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stages_count_from_the_run_start_and_tiles_keep_the_highest_count() {
        let progress = BuildProgress::default();
        assert_eq!(progress.view(), ProgressView::default());
        assert_eq!(progress.view().fraction(), None);
        progress.start_run(2, 10);
        progress.start_stage(4);
        let view = progress.view();
        assert_eq!((view.stage, view.step), (Some(4), Some((3, 8))));
        assert_eq!(view.fraction(), Some(0.25));
        progress.tiles(5, 20);
        progress.tiles(3, 20);
        assert_eq!(progress.view().tiles, Some((5, 20)));
        assert_eq!(progress.view().fraction(), Some(0.25));
        progress.start_tile_phase(TilePhase::NavMeshTiles, 8);
        let view = progress.view();
        assert_eq!(
            (view.tiles, view.tile_phase),
            (Some((0, 8)), TilePhase::NavMeshTiles)
        );
    }
}
