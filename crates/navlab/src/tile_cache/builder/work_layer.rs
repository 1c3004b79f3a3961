//! What the build steps share: the decompressed layer with its region grid ([`WorkLayer`]),
//! the cell and region markers, and why a build fails ([`BuildError`]).

use crate::detour::{DetourError, VERTS_PER_POLYGON};
use crate::tile_cache::layer::{DecompressedLayer, LayerError, LayerHeader};

/// An empty cell (`DT_TILECACHE_NULL_AREA`); obstacles mark cells with it.
pub const NULL_AREA: u8 = 0;
/// No region in a cell, or no neighbour region.
pub(super) const NO_REGION: u8 = 0xff;
/// Layer polygons have Detour's maximum vertex count.
pub(super) const MAX_VERTS_PER_POLY: usize = VERTS_PER_POLYGON;

/// Why a layer could not be turned into a navmesh tile.
#[derive(Debug, PartialEq, thiserror::Error)]
pub enum BuildError {
    #[error("the layer cannot be read: {0}")]
    /// The stored layer could not be read.
    BadLayer(#[from] LayerError),
    #[error("the layer grids hold {heights}, {areas} and {cons} cells, not {width} x {height}")]
    /// The decompressed grids disagree with the header's size.
    InconsistentGrids {
        /// Cells in the height grid.
        heights: usize,
        /// Cells in the area grid.
        areas: usize,
        /// Cells in the connection grid.
        cons: usize,
        /// The header's width.
        width: u8,
        /// The header's height.
        height: u8,
    },
    #[error("the layer splits into more than 255 monotone regions")]
    /// More regions than a byte numbers.
    TooManyRegions,
    #[error("a monotone region borders more than 16 others")]
    /// A region with more neighbours than C++'s fixed array holds.
    TooManyRegionNeighbours,
    #[error("a region outline has more vertices than twice around the layer")]
    /// An outline that would walk for ever.
    ContourTooLong,
    #[error("a region outline leaves the layer grid")]
    /// An outline step outside the grid.
    ContourLeavesLayer,
    #[error("the layer's contours have {0} vertices; a mesh holds at most 65534")]
    /// More vertices than 16-bit indices address (how many).
    TooManyVertices(usize),
    #[error("the layer's mesh has more polygons than its contours allow")]
    /// More polygons than the contours can make.
    TooManyPolys,
    #[error("removing a border vertex leaves a hole of more than 48 edges")]
    /// A hole too large for C++'s fixed buffer.
    HoleTooLarge,
    #[error("the navmesh tile cannot be created: {0}")]
    /// Detour refused the tile's data.
    NavMesh(#[from] DetourError),
    #[error(
        "the build needs {needed} bytes of scratch memory; the tile cache's allocator has {capacity} (DT_OUT_OF_MEMORY)"
    )]
    /// The build does not fit the demo's scratch allocator.
    OutOfScratch {
        /// Bytes the build needs.
        needed: usize,
        /// Bytes the allocator holds.
        capacity: usize,
    },
}

/// A decompressed layer with its region grid, as the build steps share it.
#[derive(Default)]
pub(crate) struct WorkLayer {
    pub(super) width: usize,
    pub(super) height: usize,
    pub(super) heights: Vec<u8>,
    pub(super) areas: Vec<u8>,
    pub(super) cons: Vec<u8>,
    pub(super) regs: Vec<u8>,
    pub(super) region_count: usize,
    /// Regions the sweep made before merging (C++ sizes an array by it).
    pub(super) sweep_region_count: usize,
}

impl WorkLayer {
    pub(super) fn new(layer: DecompressedLayer) -> Result<Self, BuildError> {
        let mut work = Self::default();
        work.load(&layer.header, &layer.heights, &layer.areas, &layer.cons)?;
        Ok(work)
    }

    /// Takes the grids of a layer of `header`'s size, reusing this layer's memory.
    pub(super) fn load(
        &mut self,
        header: &LayerHeader,
        heights: &[u8],
        areas: &[u8],
        cons: &[u8],
    ) -> Result<(), BuildError> {
        let (width, height) = (usize::from(header.width), usize::from(header.height));
        let cells = width * height;
        if [heights.len(), areas.len(), cons.len()] != [cells; 3] {
            return Err(BuildError::InconsistentGrids {
                heights: heights.len(),
                areas: areas.len(),
                cons: cons.len(),
                width: header.width,
                height: header.height,
            });
        }
        (self.width, self.height) = (width, height);
        for (grid, from) in [
            (&mut self.heights, heights),
            (&mut self.areas, areas),
            (&mut self.cons, cons),
        ] {
            grid.clear();
            grid.extend_from_slice(from);
        }
        self.region_count = 0;
        self.sweep_region_count = 0;
        Ok(())
    }
}
