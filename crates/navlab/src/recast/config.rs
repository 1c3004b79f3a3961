//! Recast's build configuration in voxel units (`rcConfig`) and the grid size of a bounding box.

/// Recast's `rcConfig`: everything in voxel units, ready for the build stages.
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "camelCase"))]
pub struct Config {
    pub width: i32,
    pub height: i32,
    pub tile_size: i32,
    pub border_size: i32,
    pub cs: f32,
    pub ch: f32,
    pub bmin: [f32; 3],
    pub bmax: [f32; 3],
    pub walkable_slope_angle: f32,
    pub walkable_height: i32,
    pub walkable_climb: i32,
    pub walkable_radius: i32,
    pub max_edge_len: i32,
    pub max_simplification_error: f32,
    pub min_region_area: i32,
    pub merge_region_area: i32,
    pub max_verts_per_poly: i32,
    pub detail_sample_dist: f32,
    pub detail_sample_max_error: f32,
}

/// Recast's `rcCalcGridSize`: the number of cells covering the bounds, rounded to nearest.
pub fn calc_grid_size(bmin: &[f32; 3], bmax: &[f32; 3], cs: f32) -> (i32, i32) {
    let width = ((bmax[0] - bmin[0]) / cs + 0.5) as i32;
    let height = ((bmax[2] - bmin[2]) / cs + 0.5) as i32;
    (width, height)
}
