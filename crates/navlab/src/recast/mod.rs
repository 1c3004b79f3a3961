//! Recast: from triangles to a navigation polygon mesh, one module per stage of `Recast.h`.
//!
//! [`rasterize`] → [`filter`] → [`compact`] → [`area`] → [`distance_field`] → [`region`] →
//! [`contour`] → [`poly_mesh`] → [`detail_mesh`], configured by [`config::Config`] (`rcConfig`)
//! and logged and timed by [`context::BuildContext`] (`rcContext`). Nothing here knows Detour:
//! the poly mesh and detail mesh are plain arrays that `bake` hands to Detour's tile builder.

pub mod area;
pub mod compact;
pub mod config;
pub mod context;
pub mod contour;
pub mod detail_mesh;
pub mod distance_field;
mod error;
pub mod filter;
pub mod heightfield;
pub mod layers;
pub(crate) mod parallel;
pub mod poly_mesh;
pub mod rasterize;
pub mod region;
pub mod span_log;

pub use error::{Error, Result};

/// Area id of spans and polygons that cannot be walked on (Recast's `RC_NULL_AREA`).
pub const NULL_AREA: u8 = 0;
/// Default area id of walkable spans and polygons (Recast's `RC_WALKABLE_AREA`).
pub const WALKABLE_AREA: u8 = 63;
/// Region-id bit marking the border regions of a tile (Recast's `RC_BORDER_REG`).
pub const BORDER_REG: u16 = 0x8000;
/// Polygon region id meaning "merged from several regions" (Recast's `RC_MULTIPLE_REGS`).
pub const MULTIPLE_REGS: u16 = 0;
/// Contour vertex flag: the vertex lies on a tile border (Recast's `RC_BORDER_VERTEX`).
pub const BORDER_VERTEX: i32 = 0x10000;
/// Contour vertex flag: the edge separates two areas (Recast's `RC_AREA_BORDER`).
pub const AREA_BORDER: i32 = 0x20000;
/// Mask extracting the region id from a contour vertex's fourth component (`RC_CONTOUR_REG_MASK`).
pub const CONTOUR_REG_MASK: i32 = 0xffff;
/// Unused vertex / neighbour index in poly mesh arrays (Recast's `RC_MESH_NULL_IDX`).
pub const MESH_NULL_IDX: u16 = 0xffff;

/// X offset of the neighbour in direction `dir` (0 = -x, 1 = +z, 2 = +x, 3 = -z).
#[inline]
pub fn dir_offset_x(dir: usize) -> i32 {
    const OFFSET: [i32; 4] = [-1, 0, 1, 0];
    OFFSET[dir & 3]
}

/// Z offset of the neighbour in direction `dir` (0 = -x, 1 = +z, 2 = +x, 3 = -z).
#[inline]
pub fn dir_offset_z(dir: usize) -> i32 {
    const OFFSET: [i32; 4] = [0, 1, 0, -1];
    OFFSET[dir & 3]
}

/// The direction whose offset is (`dx`, `dz`), each in -1..=1 with exactly one non-zero.
#[inline]
pub fn dir_for_offset(dx: i32, dz: i32) -> usize {
    const DIRS: [i32; 5] = [3, 0, -1, 2, 1];
    DIRS[(((dz + 1) << 1) + dx) as usize] as usize
}
