//! The scratch memory C++'s `buildNavMeshTile` takes from its `dtTileCacheAlloc`, so a port can
//! answer as RecastDemo's Temp Obstacles sample does: its `LinearAllocator` hands out one fixed
//! buffer (32000 bytes), never frees within a build, and a build whose allocations do not fit
//! fails with `DT_OUT_OF_MEMORY` (no tile, or the old tile kept). Tiles above about 72 cells
//! do not fit, nor do very busy layers. This port works in buffers it keeps between builds;
//! the model only decides whether C++ would have failed and what the demo's `high` figure
//! reads.

use super::contours::Contour;
use super::poly_mesh::LayerPolyMesh;
use super::work_layer::WorkLayer;

/// Bytes of `dtTileCacheLayer` and `dtTileCacheLayerHeader` (x86-64, each 4-aligned).
const LAYER_STRUCT: usize = 48;
const LAYER_HEADER: usize = 56;
/// `dtLayerSweepSpan`, `dtLayerMonotoneRegion`, `dtTileCacheContourSet`, `dtTileCacheContour`,
/// `dtTileCachePolyMesh` and `rcEdge` sizes (x86-64 padding).
const SWEEP_SPAN: usize = 4;
const MONOTONE_REGION: usize = 24;
const CONTOUR_SET: usize = 16;
const CONTOUR: usize = 24;
const POLY_MESH: usize = 48;
const EDGE: usize = 12;
const NVP: usize = 6;

/// The allocations of one successful build into `sizes`, in C++'s order: the decompressed
/// layer, the region sweep, the contours and the polygon mesh with its adjacency.
pub(super) fn allocations(
    work: &WorkLayer,
    contours: &[Contour],
    order: &[usize],
    mesh: &LayerPolyMesh,
    sizes: &mut Vec<usize>,
) {
    let (w, h) = (work.width, work.height);
    let max_temp_verts = (w + h) * 2 * 2;
    let usable = || contours.iter().filter(|c| c.verts.len() >= 3);
    let max_vertices: usize = usable().map(|c| c.verts.len()).sum();
    let max_tris: usize = usable().map(|c| c.verts.len() - 2).sum();
    let max_per_contour = usable().map(|c| c.verts.len()).max().unwrap_or(0);
    let edges = mesh.poly_count() * NVP;
    sizes.clear();
    sizes.extend([
        LAYER_STRUCT + LAYER_HEADER + w * h * 4,
        SWEEP_SPAN * w,
        MONOTONE_REGION * work.sweep_region_count,
        CONTOUR_SET,
        CONTOUR * work.region_count,
        max_temp_verts * 4,
        max_temp_verts * 2,
    ]);
    sizes.extend(order.iter().map(|&r| contours[r].verts.len() * 4));
    sizes.extend([
        POLY_MESH,
        max_vertices,
        2 * max_vertices * 3,
        2 * max_tris * NVP * 2,
        max_tris,
        2 * max_tris,
        2 * max_vertices,
        2 * max_per_contour,
        2 * max_per_contour * 3,
        2 * max_per_contour * NVP,
        2 * (mesh.vert_count() + edges),
        EDGE * edges,
    ]);
}

/// RecastDemo's `LinearAllocator` as the tile builds use it: reset at each build, its `high`
/// the most any earlier build held (C++ folds a build in at the next reset), and a count of
/// refused allocations (one per failed build, which stops there), and what the largest
/// refused build needed in all (the capacity that would have fitted it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScratchAllocator {
    /// Bytes the allocator holds.
    pub capacity: usize,
    top: usize,
    high: usize,
    failed: usize,
    largest_refused: usize,
}

impl ScratchAllocator {
    /// The demo's capacity, `LinearAllocator(32000)`.
    pub const DEMO_CAPACITY: usize = 32000;

    /// An empty allocator of `capacity` bytes.
    pub fn new(capacity: usize) -> Self {
        Self {
            capacity,
            top: 0,
            high: 0,
            failed: 0,
            largest_refused: 0,
        }
    }

    /// One build's allocations; whether they all fit.
    pub(super) fn build(&mut self, sizes: &[usize]) -> bool {
        self.high = self.high.max(self.top);
        self.top = 0;
        for &size in sizes {
            if self.top + size > self.capacity {
                self.failed += 1;
                let needed = sizes.iter().fold(0usize, |sum, &s| sum.saturating_add(s));
                self.largest_refused = self.largest_refused.max(needed);
                return false;
            }
            self.top += size;
        }
        true
    }

    /// The demo's `high` (what `Sample_TempObstacles` shows as the cache's memory use).
    pub fn high(&self) -> usize {
        self.high
    }

    /// Allocations refused so far.
    pub fn failed(&self) -> usize {
        self.failed
    }

    /// The bytes the largest refused build needed in all (0 when none was refused).
    pub fn largest_refused(&self) -> usize {
        self.largest_refused
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_build_is_folded_into_high_at_the_next_and_stops_at_the_first_refusal() {
        let mut scratch = ScratchAllocator::new(100);
        assert!(scratch.build(&[40, 50]));
        assert_eq!(scratch.high(), 0, "C++ folds a build in at the next reset");
        assert!(!scratch.build(&[60, 50, 1]));
        assert_eq!((scratch.high(), scratch.failed()), (90, 1));
        assert_eq!(scratch.largest_refused(), 111);
        assert!(scratch.build(&[]));
        assert_eq!(scratch.high(), 90, "the failed build held 60");
        assert!(scratch.build(&[100, 0]), "exactly full fits");
    }
}
