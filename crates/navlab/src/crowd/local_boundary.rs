//! The walls near an agent (`dtLocalBoundary`): the nearest few wall segments of the polygons
//! around it, which obstacle avoidance steers clear of and the crowd refreshes only when the
//! agent has moved far enough.

use crate::detour::common::{Vec3, distance_pt_seg_sqr_2d, sqr};
use crate::detour::query::{NavMeshQuery, NeighbourPoly, PolyFilter, WallSegment};
use crate::detour::{PolyRef, VERTS_PER_POLYGON};

/// Wall segments kept, nearest first (`MAX_LOCAL_SEGS`).
pub const MAX_LOCAL_SEGS: usize = 8;
/// Polygons of the neighbourhood searched for walls (`MAX_LOCAL_POLYS`).
pub const MAX_LOCAL_POLYS: usize = 16;
/// Wall segments one polygon can yield: every edge split by up to two portals.
const MAX_SEGS_PER_POLY: usize = VERTS_PER_POLYGON * 3;

/// A wall segment and its squared xz distance from the boundary's centre.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BoundarySegment {
    /// The segment's start, world units.
    pub start: Vec3,
    /// The segment's end.
    pub end: Vec3,
    /// Squared xz distance from the centre, the sort key.
    pub dist_sqr: f32,
}

/// The nearest wall segments around a point, collected from the polygons near it.
#[derive(Clone, Debug, PartialEq)]
pub struct LocalBoundary {
    center: Vec3,
    segs: [BoundarySegment; MAX_LOCAL_SEGS],
    nsegs: usize,
    polys: [PolyRef; MAX_LOCAL_POLYS],
    npolys: usize,
    /// The validity epoch and filter under which every polygon was last found valid
    /// ([`LocalBoundary::is_valid_in_epoch`]); cleared when the polygons change.
    valid_in: Option<(u64, u8)>,
}

impl Default for LocalBoundary {
    /// Empty, with the centre at `f32::MAX` so any position counts as far from it.
    fn default() -> Self {
        LocalBoundary {
            center: [f32::MAX; 3],
            segs: [BoundarySegment::default(); MAX_LOCAL_SEGS],
            nsegs: 0,
            polys: [0; MAX_LOCAL_POLYS],
            npolys: 0,
            valid_in: None,
        }
    }
}

impl LocalBoundary {
    /// An empty boundary, to be filled by `update`.
    pub fn new() -> LocalBoundary {
        LocalBoundary::default()
    }

    /// Forgets every segment and polygon.
    pub fn reset(&mut self) {
        *self = LocalBoundary::default();
    }

    /// Inserts a segment by distance, keeping the [`MAX_LOCAL_SEGS`] nearest; among equal
    /// distances a later segment goes before the earlier ones, as in C++.
    fn add_segment(&mut self, dist_sqr: f32, start: Vec3, end: Vec3) {
        let slot = if self.nsegs == 0 {
            0
        } else if dist_sqr >= self.segs[self.nsegs - 1].dist_sqr {
            if self.nsegs >= MAX_LOCAL_SEGS {
                return;
            }
            self.nsegs
        } else {
            let i = self.segs[..self.nsegs]
                .iter()
                .position(|s| dist_sqr <= s.dist_sqr)
                .unwrap_or(self.nsegs);
            // Only a NaN distance finds no place; C++ would write past the array.
            if i >= MAX_LOCAL_SEGS {
                return;
            }
            let moved = (self.nsegs - i).min(MAX_LOCAL_SEGS - (i + 1));
            self.segs.copy_within(i..i + moved, i + 1);
            i
        };
        self.segs[slot] = BoundarySegment {
            start,
            end,
            dist_sqr,
        };
        if self.nsegs < MAX_LOCAL_SEGS {
            self.nsegs += 1;
        }
    }

    /// Collects the walls of the non-overlapping polygons within `collision_query_range` of
    /// `pos`, starting from `poly_ref`, keeping the nearest [`MAX_LOCAL_SEGS`] within range
    /// (`dtLocalBoundary::update`). A zero reference empties the boundary.
    pub fn update<F: PolyFilter + ?Sized>(
        &mut self,
        poly_ref: PolyRef,
        pos: &Vec3,
        collision_query_range: f32,
        query: &mut NavMeshQuery<'_>,
        filter: &F,
    ) {
        if poly_ref == 0 {
            self.reset();
            return;
        }
        self.center = *pos;
        self.valid_in = None;
        let mut neighbours = [NeighbourPoly::default(); MAX_LOCAL_POLYS];
        let (_, npolys) = query.find_local_neighbourhood(
            poly_ref,
            pos,
            collision_query_range,
            filter,
            &mut neighbours,
        );
        self.npolys = npolys;
        for (dst, src) in self.polys.iter_mut().zip(&neighbours[..npolys]) {
            *dst = src.poly_ref;
        }
        self.nsegs = 0;
        let range_sqr = sqr(collision_query_range);
        let mut walls = [WallSegment::default(); MAX_SEGS_PER_POLY];
        for i in 0..self.npolys {
            let (_, nwalls) =
                query.get_poly_wall_segments(self.polys[i], filter, false, &mut walls);
            for wall in &walls[..nwalls] {
                let (dist_sqr, _) = distance_pt_seg_sqr_2d(pos, &wall.start, &wall.end);
                if dist_sqr > range_sqr {
                    continue;
                }
                self.add_segment(dist_sqr, wall.start, wall.end);
            }
        }
    }

    /// Whether every polygon the walls came from still exists and passes `filter`; false for
    /// an empty boundary (`isValid`).
    pub fn is_valid<F: PolyFilter + ?Sized>(&self, query: &NavMeshQuery<'_>, filter: &F) -> bool {
        self.npolys > 0
            && self.polys[..self.npolys]
                .iter()
                .all(|&r| query.is_valid_poly_ref(r, filter))
    }

    /// [`LocalBoundary::is_valid`] with `filter`, the filter numbered `filter_type`, in
    /// validity epoch `epoch`: a span in which neither the navmesh nor any filter changes,
    /// so that polygons valid once stay valid. A positive answer is remembered until the
    /// polygons or the epoch change, and then given without checking again.
    pub(crate) fn is_valid_in_epoch<F: PolyFilter + ?Sized>(
        &mut self,
        epoch: u64,
        filter_type: u8,
        query: &NavMeshQuery<'_>,
        filter: &F,
    ) -> bool {
        if self.valid_in == Some((epoch, filter_type)) {
            return true;
        }
        let valid = self.is_valid(query, filter);
        if valid {
            self.valid_in = Some((epoch, filter_type));
        }
        valid
    }

    /// Where the boundary was last collected (`f32::MAX` everywhere when empty).
    pub fn center(&self) -> &Vec3 {
        &self.center
    }

    /// The kept wall segments, nearest first.
    pub fn segments(&self) -> &[BoundarySegment] {
        &self.segs[..self.nsegs]
    }

    /// The polygons the walls were collected from.
    pub fn polys(&self) -> &[PolyRef] {
        &self.polys[..self.npolys]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crowd::test_mesh::{GridMesh, SWIM, WALK};
    use crate::detour::query::QueryFilter;

    fn seg(d: f32) -> (f32, Vec3, Vec3) {
        (d, [d, 0.0, 0.0], [d, 0.0, 1.0])
    }

    fn distances(b: &LocalBoundary) -> Vec<f32> {
        b.segments().iter().map(|s| s.dist_sqr).collect()
    }

    #[test]
    fn segments_are_kept_sorted_and_capped() {
        let mut b = LocalBoundary::new();
        for d in [5.0, 1.0, 3.0, 9.0, 2.0, 8.0, 7.0, 6.0, 4.0, 0.5, 10.0] {
            let (d, s, e) = seg(d);
            b.add_segment(d, s, e);
        }
        assert_eq!(distances(&b), [0.5, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]);
        assert_eq!(b.segments()[0].start, [0.5, 0.0, 0.0]);
    }

    #[test]
    fn equal_distance_goes_before_unless_it_ties_the_last() {
        let mut b = LocalBoundary::new();
        b.add_segment(1.0, [1.0; 3], [1.0; 3]);
        b.add_segment(2.0, [2.0; 3], [2.0; 3]);
        // Ties a middle segment: inserted before it.
        b.add_segment(1.0, [3.0; 3], [3.0; 3]);
        // Ties the last: appended after it.
        b.add_segment(2.0, [4.0; 3], [4.0; 3]);
        let starts: Vec<f32> = b.segments().iter().map(|s| s.start[0]).collect();
        assert_eq!(starts, [3.0, 1.0, 2.0, 4.0]);
    }

    #[test]
    fn nan_distance_is_dropped_when_full() {
        let mut b = LocalBoundary::new();
        for d in 0..MAX_LOCAL_SEGS {
            b.add_segment(d as f32, [0.0; 3], [0.0; 3]);
        }
        b.add_segment(f32::NAN, [0.0; 3], [0.0; 3]);
        assert_eq!(b.segments().len(), MAX_LOCAL_SEGS);
        assert!(b.segments().iter().all(|s| !s.dist_sqr.is_nan()));
    }

    #[test]
    fn update_collects_the_walls_in_range() {
        // A 5 × 3 room with one hole in the middle.
        let mesh = GridMesh::new(&["#####", "##.##", "#####"], &[]);
        let mut query = NavMeshQuery::new(&mesh.nav, 64).expect("query");
        let filter = QueryFilter::default();
        let pos = [0.5, 0.0, 0.5];
        let mut b = LocalBoundary::new();
        b.update(mesh.poly(0, 0), &pos, 1.2, &mut query, &filter);
        assert_eq!(b.center(), &pos);
        assert!(!b.polys().is_empty());
        assert!(b.polys().len() <= MAX_LOCAL_POLYS);
        assert!(b.is_valid(&query, &filter));
        let d = distances(&b);
        assert!(!d.is_empty());
        assert!(d.windows(2).all(|w| w[0] <= w[1]), "{d:?}");
        assert!(d.iter().all(|&x| x <= sqr(1.2)));
        // The two outer walls of the corner cell are 0.5 away.
        assert_eq!(&d[..2], [0.25, 0.25]);
        // Every segment lies on the room's outline or the hole's.
        for s in b.segments() {
            for p in [s.start, s.end] {
                let on_outline = p[0] == 0.0 || p[0] == 5.0 || p[2] == 0.0 || p[2] == 3.0;
                let on_hole = (2.0..=3.0).contains(&p[0]) && (1.0..=2.0).contains(&p[2]);
                assert!(on_outline || on_hole, "{s:?}");
            }
        }
    }

    #[test]
    fn zero_ref_empties_and_filtered_polys_invalidate() {
        let mesh = GridMesh::new(&["##~"], &[]);
        let mut query = NavMeshQuery::new(&mesh.nav, 64).expect("query");
        let all = QueryFilter::default();
        let mut b = LocalBoundary::new();
        b.update(mesh.poly(1, 0), &[1.5, 0.0, 0.5], 2.0, &mut query, &all);
        assert!(b.polys().contains(&mesh.poly(2, 0)));
        assert!(b.is_valid(&query, &all));
        let walk_only = QueryFilter::with_flags(WALK, SWIM);
        assert!(!b.is_valid(&query, &walk_only));
        b.update(0, &[1.5, 0.0, 0.5], 2.0, &mut query, &all);
        assert_eq!(b, LocalBoundary::new());
        assert!(!b.is_valid(&query, &all));
    }

    #[test]
    fn validity_is_remembered_within_an_epoch_and_filter_only() {
        let mesh = GridMesh::new(&["##~"], &[]);
        let mut query = NavMeshQuery::new(&mesh.nav, 64).expect("query");
        let all = QueryFilter::default();
        let walk_only = QueryFilter::with_flags(WALK, SWIM);
        let mut b = LocalBoundary::new();
        b.update(mesh.poly(1, 0), &[1.5, 0.0, 0.5], 2.0, &mut query, &all);
        assert!(b.is_valid_in_epoch(0, 0, &query, &all));
        // Remembered: the same epoch and filter number answer without checking.
        assert!(b.is_valid_in_epoch(0, 0, &query, &walk_only));
        // Another epoch or filter number checks again.
        assert!(!b.is_valid_in_epoch(1, 0, &query, &walk_only));
        assert!(!b.is_valid_in_epoch(0, 1, &query, &walk_only));
        // New polygons forget the answer.
        assert!(b.is_valid_in_epoch(2, 0, &query, &all));
        b.update(mesh.poly(1, 0), &[1.5, 0.0, 0.5], 2.0, &mut query, &all);
        assert!(!b.is_valid_in_epoch(2, 0, &query, &walk_only));
    }
}
