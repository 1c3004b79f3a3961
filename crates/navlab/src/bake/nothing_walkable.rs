//! Why a build made no polygon, said in terms of the input and the settings to look at, the same
//! way for solo and tiled builds. Recast itself only notices at the very end, when Detour refuses
//! a tile of zero vertices.

use crate::bake::settings::BuildSettings;
use crate::error::NavlabError;
use crate::input::obj::TriMesh;
use crate::recast::compact::CompactHeightfield;
use crate::recast::context::BuildContext;
use crate::recast::rasterize::mark_walkable_triangles;
use crate::recast::{BORDER_REG, NULL_AREA};

/// How much walkable geometry was left after each stage (summed over the tiles of a tiled
/// build), to tell which stage removed the last of it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WalkableCounts {
    /// Spans with an area after rasterization.
    pub rasterized: usize,
    /// Spans with an area after the filters.
    pub filtered: usize,
    /// Compact spans still walkable after erosion.
    pub eroded: usize,
    /// Spans in a region after partitioning (tile-border regions aside).
    pub in_regions: usize,
    /// Distinct regions after partitioning (tile-border regions aside), for comparing builds.
    pub regions: usize,
    /// Polygons of the poly mesh.
    pub polygons: usize,
}

/// Spans of `chf` in a region, tile-border regions aside.
pub fn spans_in_regions(chf: &CompactHeightfield) -> usize {
    chf.spans
        .iter()
        .filter(|s| s.reg != 0 && s.reg & BORDER_REG == 0)
        .count()
}

/// How many distinct regions `chf`'s spans are in, tile-border regions aside.
pub fn region_count(chf: &CompactHeightfield) -> usize {
    let mut seen = vec![false; usize::from(u16::MAX) + 1];
    let mut count = 0;
    for span in chf
        .spans
        .iter()
        .filter(|s| s.reg != 0 && s.reg & BORDER_REG == 0)
    {
        if !std::mem::replace(&mut seen[usize::from(span.reg)], true) {
            count += 1;
        }
    }
    count
}

impl WalkableCounts {
    /// Adds another tile's counts.
    pub fn add(&mut self, other: &WalkableCounts) {
        self.rasterized += other.rasterized;
        self.filtered += other.filtered;
        self.eroded += other.eroded;
        self.in_regions += other.in_regions;
        self.regions += other.regions;
        self.polygons += other.polygons;
    }
}

/// The [`NavlabError::NothingWalkable`] for a build of `mesh` over `bmin`..`bmax` with
/// `settings` that ended with `counts`: the first stage left with nothing, and what to check.
pub fn nothing_walkable(
    mesh: &TriMesh,
    bmin: [f32; 3],
    bmax: [f32; 3],
    settings: &BuildSettings,
    counts: &WalkableCounts,
) -> NavlabError {
    let (in_bounds, walkable) = triangles_in_bounds(mesh, bmin, bmax, settings.agent_max_slope);
    let (what, check) = if in_bounds == 0 {
        (
            format!(
                "none of the {} input triangles lies inside the navmesh bounds {bmin:?} to {bmax:?}",
                mesh.tri_count()
            ),
            "the bounds".to_string(),
        )
    } else if walkable == 0 {
        (
            format!(
                "none of the {in_bounds} triangles in the bounds faces up at a slope below agentMaxSlope = {}°",
                settings.agent_max_slope
            ),
            "the winding of the faces (their normals must point up) and agentMaxSlope".to_string(),
        )
    } else if counts.rasterized == 0 {
        (
            format!("the {walkable} walkable triangles cover no cell of the heightfield"),
            format!("cellSize (now {})", settings.cell_size),
        )
    } else if counts.filtered == 0 {
        (
            "the filters removed every walkable span (too little headroom or ledges everywhere)"
                .to_string(),
            format!(
                "agentHeight (now {}), agentMaxClimb (now {}) and the filter switches",
                settings.agent_height, settings.agent_max_climb
            ),
        )
    } else if counts.eroded == 0 {
        (
            format!(
                "eroding by agentRadius = {} removed every walkable span",
                settings.agent_radius
            ),
            "agentRadius".to_string(),
        )
    } else if counts.in_regions == 0 {
        (
            format!(
                "every region was smaller than regionMinSize = {} ({} cells)",
                settings.region_min_size,
                (settings.region_min_size * settings.region_min_size) as i64
            ),
            "regionMinSize".to_string(),
        )
    } else {
        (
            "the regions left no contour a polygon could be made of".to_string(),
            "regionMinSize and edgeMaxError".to_string(),
        )
    };
    NavlabError::NothingWalkable { what, check }
}

/// How many triangles of `mesh` overlap the bounds, and how many of those Recast's slope test
/// finds walkable at `max_slope` degrees.
fn triangles_in_bounds(
    mesh: &TriMesh,
    bmin: [f32; 3],
    bmax: [f32; 3],
    max_slope: f32,
) -> (usize, usize) {
    let overlaps = |tri: &[i32]| {
        let corner = |i: i32| {
            let i = usize::try_from(i).ok()?.checked_mul(3)?;
            mesh.verts.get(i..i + 3)
        };
        let (Some(a), Some(b), Some(c)) = (corner(tri[0]), corner(tri[1]), corner(tri[2])) else {
            return false;
        };
        (0..3).all(|k| a[k].min(b[k]).min(c[k]) <= bmax[k] && a[k].max(b[k]).max(c[k]) >= bmin[k])
    };
    let tris: Vec<i32> = mesh
        .tris
        .chunks_exact(3)
        .filter(|tri| overlaps(tri))
        .flatten()
        .copied()
        .collect();
    let mut areas = vec![NULL_AREA; tris.len() / 3];
    let mut ctx = BuildContext::silent();
    // The indices were checked above, so marking cannot fail.
    let _ = mark_walkable_triangles(&mut ctx, max_slope, &mesh.verts, &tris, &mut areas);
    let walkable = areas.iter().filter(|&&a| a != NULL_AREA).count();
    (areas.len(), walkable)
}
