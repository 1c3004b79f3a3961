//! Recast's build configuration in voxel units (`rcConfig`) and the grid size of a bounding box.

/// Recast's `rcConfig`: everything in voxel units, ready for the build stages.
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "camelCase"))]
pub struct Config {
    /// Grid cells along x.
    pub width: i32,
    /// Grid cells along z.
    pub height: i32,
    /// Tile edge in cells, 0 for a solo build.
    pub tile_size: i32,
    /// Cells of border around a tile.
    pub border_size: i32,
    /// Cell size on xz, world units.
    pub cs: f32,
    /// Cell height, world units.
    pub ch: f32,
    /// Minimum corner of the build's bounds, world units.
    pub bmin: [f32; 3],
    /// Maximum corner.
    pub bmax: [f32; 3],
    /// Steepest walkable slope, degrees.
    pub walkable_slope_angle: f32,
    /// Agent height, cells.
    pub walkable_height: i32,
    /// Highest climbable step, cells.
    pub walkable_climb: i32,
    /// Agent radius, cells.
    pub walkable_radius: i32,
    /// Longest contour edge, cells.
    pub max_edge_len: i32,
    /// Largest contour simplification error, cells.
    pub max_simplification_error: f32,
    /// Smallest region kept, cells.
    pub min_region_area: i32,
    /// Regions below this many cells merge into neighbours.
    pub merge_region_area: i32,
    /// Most vertices per polygon.
    pub max_verts_per_poly: i32,
    /// Detail sampling distance, world units.
    pub detail_sample_dist: f32,
    /// Largest detail height error, world units.
    pub detail_sample_max_error: f32,
}

/// Recast's `rcCalcGridSize`: the number of cells covering the bounds, rounded to nearest.
pub fn calc_grid_size(bmin: &[f32; 3], bmax: &[f32; 3], cs: f32) -> (i32, i32) {
    let width = ((bmax[0] - bmin[0]) / cs + 0.5) as i32;
    let height = ((bmax[2] - bmin[2]) / cs + 0.5) as i32;
    (width, height)
}
