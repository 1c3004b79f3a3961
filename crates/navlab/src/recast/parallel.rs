//! Whether a stage splits its work over rayon's threads: only for grids large enough to gain
//! from it (a big map, where a slider change should show quickly), and only when the pool has
//! more than one thread. Smaller grids stay on the calling thread: every tile of a tiled build
//! (which already builds tiles in parallel) and of a tile cache (built one at a time, as
//! RecastDemo does), and solo builds of level-sized meshes, which take tens of milliseconds
//! and would spend more waking threads than they gain. The output never depends on the
//! choice.

use crate::threads::prelude::*;

/// Cells from which a grid's stages are split over threads (a 1000 x 1000 grid, 300 m at
/// RecastDemo's 0.3 m cells).
const MIN_PARALLEL_CELLS: usize = 1_000_000;

/// A stage's choice: on rayon's threads, or in order on this one.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Split {
    parallel: bool,
}

impl Split {
    /// The choice for a grid of `cells` cells.
    pub(crate) fn for_cells(cells: usize) -> Self {
        Self {
            parallel: cells >= MIN_PARALLEL_CELLS && crate::threads::current_num_threads() > 1,
        }
    }

    pub(crate) fn is_parallel(self) -> bool {
        self.parallel
    }

    /// `f` of every item, in the items' order.
    pub(crate) fn map<I, T, R>(self, items: I, f: impl Fn(T) -> R + Sync + Send) -> Vec<R>
    where
        I: IntoParallelIterator<Item = T> + IntoIterator<Item = T>,
        T: Send,
        R: Send,
    {
        if self.parallel {
            IntoParallelIterator::into_par_iter(items).map(f).collect()
        } else {
            IntoIterator::into_iter(items).map(f).collect()
        }
    }

    /// `f` on every item.
    pub(crate) fn for_each<I, T>(self, items: I, f: impl Fn(T) + Sync + Send)
    where
        I: IntoParallelIterator<Item = T> + IntoIterator<Item = T>,
        T: Send,
    {
        if self.parallel {
            IntoParallelIterator::into_par_iter(items).for_each(f);
        } else {
            IntoIterator::into_iter(items).for_each(f);
        }
    }
}
