//! The rules of RecastDemo's authoring tools, without their UI: the convex hull the Create Convex
//! Volumes tool keeps of the clicked points, the volume it makes of them (`ConvexVolumeTool` in
//! `Tool_ConvexVolume.cpp`), and which volume a Shift+click deletes. Here rather than in the
//! viewer so the command line and the tests use the same rules; here rather than in `input`
//! because a volume's Poly Offset is Recast's `rcOffsetPoly`.
//!
//! After a build, [`loose_links`] finds the off-mesh links that do not join the navmesh at an
//! end (RecastDemo keeps them silently; agents can never take them).
//!
//! Where RecastDemo writes past its fixed arrays (more than 12 clicked points, or an offset shape
//! with more than 12 corners, which `rcOffsetPoly` bevels into up to 24) or wraps degenerate
//! hulls (duplicate points), these functions refuse with a message instead.

use crate::detour::NavMesh;
use crate::input::geomset::{ConvexVolume, GeomSet, MAX_CONVEX_VOLUME_VERTS, OffMeshConnection};
use crate::recast::area::offset_poly;

/// How RecastDemo's tool shapes a volume from its hull (its sliders and area radio).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VolumeShape {
    /// Height of the prism above its floor ("Shape Height").
    pub height: f32,
    /// How far the floor lies below the lowest point ("Shape Descent").
    pub descent: f32,
    /// Outward offset of the outline; 0.01 or less keeps the hull as clicked ("Poly Offset").
    pub offset: f32,
    /// Area id the volume marks.
    pub area: u8,
}

impl Default for VolumeShape {
    /// RecastDemo's defaults: 6 m high, 1 m down, no offset, grass.
    fn default() -> Self {
        Self {
            height: 6.0,
            descent: 1.0,
            offset: 0.0,
            area: crate::bake::sample_areas::area::GRASS,
        }
    }
}

/// `b` is strictly to the right of `a → c` on the xz-plane, as RecastDemo's hull test `left`
/// (named for a left-handed view from above).
fn turns_away(a: &[f32; 3], b: &[f32; 3], c: &[f32; 3]) -> bool {
    let (u1, v1) = (b[0] - a[0], b[2] - a[2]);
    let (u2, v2) = (c[0] - a[0], c[2] - a[2]);
    u1 * v2 - v1 * u2 < 0.0
}

/// `a` comes before `b` by x, then z: where the gift wrap starts.
fn lower_left(a: &[f32; 3], b: &[f32; 3]) -> bool {
    a[0] < b[0] || (a[0] == b[0] && a[2] < b[2])
}

/// The indices of the points on their convex hull on the xz-plane, in RecastDemo's order: a gift
/// wrap from the lowest-x (then lowest-z) point. Collinear points give a two-point "hull".
/// The wrap is bounded by the point count, so duplicate or non-finite points, which can cycle
/// without returning to the start, end with the hull found so far.
pub fn convex_hull_xz(points: &[[f32; 3]]) -> Vec<usize> {
    let Some(start) = (0..points.len()).reduce(|best, i| {
        if lower_left(&points[i], &points[best]) {
            i
        } else {
            best
        }
    }) else {
        return Vec::new();
    };
    let mut hull = Vec::new();
    let mut current = start;
    while hull.len() < points.len() {
        hull.push(current);
        let mut next = 0;
        for j in 1..points.len() {
            if current == next || turns_away(&points[current], &points[next], &points[j]) {
                next = j;
            }
        }
        current = next;
        if next == start {
            break;
        }
    }
    hull
}

/// Whether `p` lies inside the polygon `verts` on the xz-plane (even-odd crossings, as
/// RecastDemo's `pointInPoly`).
pub fn point_in_polygon_xz(verts: &[[f32; 3]], p: [f32; 3]) -> bool {
    let mut inside = false;
    let mut j = verts.len().wrapping_sub(1);
    for (i, vi) in verts.iter().enumerate() {
        let vj = &verts[j];
        if (vi[2] > p[2]) != (vj[2] > p[2])
            && p[0] < (vj[0] - vi[0]) * (p[2] - vi[2]) / (vj[2] - vi[2]) + vi[0]
        {
            inside = !inside;
        }
        j = i;
    }
    inside
}

/// Whether the volume holds `p`: inside its outline and between its floor and ceiling.
pub fn volume_contains(volume: &ConvexVolume, p: [f32; 3]) -> bool {
    point_in_polygon_xz(&volume.verts, p) && p[1] >= volume.hmin && p[1] <= volume.hmax
}

/// The volume a Shift+click at `p` deletes: the last one holding it, as RecastDemo.
pub fn volume_to_delete(volumes: &[ConvexVolume], p: [f32; 3]) -> Option<usize> {
    volumes.iter().rposition(|v| volume_contains(v, p))
}

/// Why the clicked points cannot be a volume yet, in the words the tool shows.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ShapeError {
    #[error("a convex volume holds at most {MAX_CONVEX_VOLUME_VERTS} points; close the shape")]
    /// More points than a volume holds.
    TooManyPoints,
    #[error("the point ({0}, {1}, {2}) is not a finite position")]
    /// A point that is NaN or infinite (the point).
    NotFinite(f32, f32, f32),
    #[error("that point is already in the shape (seen from above); click elsewhere")]
    /// A point already in the shape.
    DuplicatePoint,
    #[error("a convex volume needs at least three points")]
    /// Fewer than three points.
    TooFewPoints,
    #[error("the points lie on one line seen from above; a volume needs an area")]
    /// Every point on one line.
    Collinear,
    #[error(
        "Poly Offset {offset} gives the shape {corners} corners, more than the \
         {MAX_CONVEX_VOLUME_VERTS} a volume holds; use fewer points or a smaller offset"
    )]
    /// The offset outline has more corners than a volume holds.
    OffsetTooManyCorners {
        /// The Poly Offset.
        offset: f32,
        /// Corners it gives.
        corners: usize,
    },
    #[error("Shape Height, Shape Descent and Poly Offset must be finite, the height above zero")]
    /// A height, descent or offset that is not usable.
    BadShape,
}

/// Two points closer than this on the xz-plane count as one (the hull cannot use both).
const SAME_POINT_XZ: f32 = 1e-4;

/// Checks that `p` can be added to the shape being clicked, `points`.
pub fn check_new_point(points: &[[f32; 3]], p: [f32; 3]) -> Result<(), ShapeError> {
    if !p.iter().all(|c| c.is_finite()) {
        return Err(ShapeError::NotFinite(p[0], p[1], p[2]));
    }
    if points.len() >= MAX_CONVEX_VOLUME_VERTS {
        return Err(ShapeError::TooManyPoints);
    }
    let duplicate = points
        .iter()
        .any(|q| (q[0] - p[0]).abs() < SAME_POINT_XZ && (q[2] - p[2]).abs() < SAME_POINT_XZ);
    if duplicate {
        return Err(ShapeError::DuplicatePoint);
    }
    Ok(())
}

/// The volume RecastDemo makes when the shape is closed: the hull's points, the floor `descent`
/// below the lowest of them and the ceiling `height` above the floor, the outline grown by
/// `offset` through `rcOffsetPoly` when above 0.01.
pub fn volume_from_points(
    points: &[[f32; 3]],
    shape: &VolumeShape,
) -> Result<ConvexVolume, ShapeError> {
    let VolumeShape {
        height,
        descent,
        offset,
        area,
    } = *shape;
    if !(height.is_finite() && descent.is_finite() && offset.is_finite()) || height <= 0.0 {
        return Err(ShapeError::BadShape);
    }
    if points.len() < 3 {
        return Err(ShapeError::TooFewPoints);
    }
    if points.len() > MAX_CONVEX_VOLUME_VERTS {
        return Err(ShapeError::TooManyPoints);
    }
    if let Some(p) = points.iter().find(|p| !p.iter().all(|c| c.is_finite())) {
        return Err(ShapeError::NotFinite(p[0], p[1], p[2]));
    }
    let hull: Vec<[f32; 3]> = convex_hull_xz(points)
        .into_iter()
        .map(|i| points[i])
        .collect();
    if hull.len() < 3 {
        return Err(ShapeError::Collinear);
    }
    let hmin = hull.iter().fold(f32::MAX, |m, p| m.min(p[1])) - descent;
    let hmax = hmin + height;
    let verts = if offset > 0.01 {
        let flat: Vec<f32> = hull.iter().flatten().copied().collect();
        let grown: Vec<[f32; 3]> = offset_poly(&flat, offset)
            .chunks_exact(3)
            .map(|v| [v[0], v[1], v[2]])
            .collect();
        if grown.len() > MAX_CONVEX_VOLUME_VERTS {
            return Err(ShapeError::OffsetTooManyCorners {
                offset,
                corners: grown.len(),
            });
        }
        grown
    } else {
        hull
    };
    Ok(ConvexVolume {
        verts,
        area,
        hmin,
        hmax,
    })
}

/// An authored off-mesh link that is not joined to the navmesh at one end or both.
#[derive(Clone, Debug, PartialEq)]
pub struct LooseLink {
    /// Its index in the geometry set.
    pub index: usize,
    /// Whether the start lies on the navmesh.
    pub start_joined: bool,
    /// Whether the end lies on the navmesh.
    pub end_joined: bool,
    /// The end lies beyond the tiles next to the start's, where Detour never looks (and the
    /// navmesh has no long-range links, which would).
    pub end_beyond_neighbour_tiles: bool,
}

impl std::fmt::Display for LooseLink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ends = match (self.start_joined, self.end_joined) {
            (false, false) => "neither end is",
            (false, true) => "its start is not",
            _ => "its end is not",
        };
        write!(
            f,
            "off-mesh link {}: {ends} on the navmesh within the link's radius, so agents cannot take it",
            self.index + 1
        )?;
        if self.end_beyond_neighbour_tiles {
            write!(
                f,
                " (its end is more than one tile from its start: Detour joins a link only to the tiles around its start's; use larger tiles, a shorter link or longRangeLinks = true)"
            )?;
        }
        Ok(())
    }
}

/// The links of `geom_set` that `nav_mesh` (built with them) does not join at both ends:
/// Detour drops a link whose start lies in no tile, and leaves an end unlinked when no polygon
/// lies within the link's radius (and the agent's climb) of it.
pub fn loose_links(nav_mesh: &NavMesh, geom_set: &GeomSet) -> Vec<LooseLink> {
    let mut joined = vec![(false, false); geom_set.off_mesh_connections.len()];
    for (_, tile) in nav_mesh.tiles() {
        for con in tile.off_mesh_connections() {
            let Some(index) = con
                .user_id
                .checked_sub(GeomSet::off_mesh_user_id(0))
                .map(|i| i as usize)
                .filter(|&i| i < joined.len())
            else {
                continue;
            };
            for (_, link) in tile.poly_links(usize::from(con.poly)) {
                match link.edge {
                    0 => joined[index].0 = true,
                    1 => joined[index].1 = true,
                    _ => {}
                }
            }
        }
    }
    joined
        .into_iter()
        .enumerate()
        .filter(|(_, (start, end))| !(*start && *end))
        .map(|(index, (start_joined, end_joined))| {
            let link = &geom_set.off_mesh_connections[index];
            let tile_of = |p: [f32; 3]| nav_mesh.calc_tile_loc(&p);
            let (start, end) = (tile_of(link.start), tile_of(link.end));
            LooseLink {
                index,
                start_joined,
                end_joined,
                end_beyond_neighbour_tiles: start_joined
                    && !end_joined
                    && nav_mesh.max_tiles() > 1
                    && !nav_mesh.long_range_links_enabled()
                    && ((start.0 - end.0).abs() > 1 || (start.1 - end.1).abs() > 1),
            }
        })
        .collect()
}

/// Whether a link's two ends are the same point (the Create Off-Mesh Links tool refuses it).
pub fn is_zero_length(link: &OffMeshConnection) -> bool {
    link.start == link.end
}

#[cfg(test)]
mod tests {
    use super::*;

    fn xz(points: &[(f32, f32)]) -> Vec<[f32; 3]> {
        points.iter().map(|&(x, z)| [x, 1.0, z]).collect()
    }

    #[test]
    fn hull_starts_lower_left_and_drops_inner_points() {
        let points = xz(&[(1.0, 1.0), (0.0, 0.0), (2.0, 0.0), (2.0, 2.0), (0.0, 2.0)]);
        let hull = convex_hull_xz(&points);
        assert_eq!(hull[0], 1);
        assert_eq!(hull.len(), 4);
        assert!(!hull.contains(&0));
    }

    #[test]
    fn collinear_and_duplicate_points_give_no_area() {
        let line = xz(&[(0.0, 0.0), (1.0, 0.0), (2.0, 0.0)]);
        assert_eq!(convex_hull_xz(&line).len(), 2);
        assert_eq!(
            volume_from_points(&line, &VolumeShape::default()),
            Err(ShapeError::Collinear)
        );
        let points = xz(&[(0.0, 0.0), (1.0, 0.0)]);
        assert_eq!(
            check_new_point(&points, [1.0, 5.0, 0.0]),
            Err(ShapeError::DuplicatePoint)
        );
        // A duplicate that slipped in still ends the wrap, bounded by the point count.
        let dup = xz(&[(0.0, 0.0), (0.0, 0.0), (1.0, 0.0), (0.0, 1.0)]);
        assert!(convex_hull_xz(&dup).len() <= dup.len());
        assert!(convex_hull_xz(&[]).is_empty());
        let nan = [[f32::NAN, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]];
        assert!(convex_hull_xz(&nan).len() <= 3);
        assert!(matches!(
            volume_from_points(&nan, &VolumeShape::default()),
            Err(ShapeError::NotFinite(..))
        ));
    }

    #[test]
    fn volume_takes_floor_below_lowest_point_and_offset_grows_it() {
        let mut points = xz(&[(0.0, 0.0), (4.0, 0.0), (4.0, 4.0), (0.0, 4.0)]);
        points[2][1] = -2.0;
        let shape = VolumeShape::default();
        let volume = volume_from_points(&points, &shape).unwrap();
        assert_eq!((volume.hmin, volume.hmax), (-3.0, 3.0));
        assert_eq!(volume.verts.len(), 4);
        assert_eq!(volume.area, crate::bake::sample_areas::area::GRASS);
        assert!(volume_contains(&volume, [2.0, 0.0, 2.0]));
        assert!(!volume_contains(&volume, [2.0, 3.5, 2.0]));
        assert!(!volume_contains(&volume, [5.0, 0.0, 2.0]));
        assert_eq!(
            volume_to_delete(&[volume.clone(), volume], [1.0, 0.0, 1.0]),
            Some(1)
        );

        let grown = volume_from_points(
            &points,
            &VolumeShape {
                offset: 0.5,
                ..shape
            },
        )
        .unwrap();
        // Square corners are bevelled into two vertices each.
        assert_eq!(grown.verts.len(), 8);
        assert!(volume_contains(&grown, [-0.4, 0.0, 2.0]));
    }

    #[test]
    fn too_many_points_and_corners_are_refused() {
        let circle: Vec<[f32; 3]> = (0..12)
            .map(|i| {
                let a = i as f32 * std::f32::consts::TAU / 12.0;
                [a.cos() * 5.0, 0.0, a.sin() * 5.0]
            })
            .collect();
        assert_eq!(
            check_new_point(&circle, [9.0, 0.0, 9.0]),
            Err(ShapeError::TooManyPoints)
        );
        assert_eq!(
            volume_from_points(&circle, &VolumeShape::default())
                .unwrap()
                .verts
                .len(),
            12
        );
        // A square with two slightly bulging points per side: the four corners are bevelled.
        let bulging = xz(&[
            (0.0, 0.0),
            (1.0, -0.01),
            (3.0, -0.01),
            (4.0, 0.0),
            (4.01, 1.0),
            (4.01, 3.0),
            (4.0, 4.0),
            (3.0, 4.01),
            (1.0, 4.01),
            (0.0, 4.0),
            (-0.01, 3.0),
            (-0.01, 1.0),
        ]);
        let shape = VolumeShape {
            offset: 1.0,
            ..VolumeShape::default()
        };
        assert_eq!(
            volume_from_points(&bulging, &shape),
            Err(ShapeError::OffsetTooManyCorners {
                offset: 1.0,
                corners: 16
            })
        );
        let square = &bulging[..4];
        let bad = VolumeShape {
            height: f32::NAN,
            ..VolumeShape::default()
        };
        assert_eq!(volume_from_points(square, &bad), Err(ShapeError::BadShape));
    }
}
