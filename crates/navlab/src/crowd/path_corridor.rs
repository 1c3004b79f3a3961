//! An agent's corridor (`dtPathCorridor`): the polygons from its position to its target,
//! kept valid while both move a little at a time, and shortened when a straighter way shows.
//!
//! The corridor merges are the ones the path tester already uses
//! ([`crate::detour::query::path_follow`]), re-exported here under their crowd names.

use crate::detour::PolyRef;
use crate::detour::common::{Vec3, min, sqr, vsub};
use crate::detour::query::geometry::{vdist_2d, vdist_2d_sqr, vmad};
use crate::detour::query::{
    NavMeshQuery, PolyFilter, STRAIGHTPATH_OFFMESH_CONNECTION, Status, StraightPathPoint,
};

pub use crate::detour::query::path_follow::{
    merge_corridor_end_moved, merge_corridor_start_moved, merge_corridor_start_shortcut,
};

/// Corners closer than this to the position are dropped (`MIN_TARGET_DIST`).
pub const MIN_TARGET_DIST: f32 = 0.01;
/// Search iterations of one topology optimisation (`MAX_ITER`).
const OPTIMIZE_TOPOLOGY_ITERATIONS: usize = 32;
/// Polygons a shortcut may have: the raycast of the visibility optimisation and the partial
/// path of the topology optimisation (`MAX_RES`).
const MAX_SHORTCUT_POLYS: usize = 32;
/// Polygons one surface move may pass (`MAX_VISITED`).
const MAX_VISITED: usize = 16;
/// [`PathCorridor::fix_path_start`] writes three polygons, so the buffer needs at least that.
pub const MIN_PATH_CAPACITY: usize = 3;

/// Crossing an off-mesh connection ([`PathCorridor::move_over_offmesh_connection`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct OffMeshCrossing {
    /// The polygon before the connection, and the connection itself.
    pub refs: [PolyRef; 2],
    /// The connection's end points, in the direction of travel.
    pub start: Vec3,
    /// The end point.
    pub end: Vec3,
}

/// The corridor: a position in its first polygon, a target in its last, and the polygons in
/// between in a buffer of fixed capacity.
#[derive(Clone, Debug, PartialEq)]
pub struct PathCorridor {
    pos: Vec3,
    target: Vec3,
    /// The whole buffer; the first `npath` entries are the corridor.
    path: Vec<PolyRef>,
    npath: usize,
}

impl PathCorridor {
    /// An empty corridor that can hold `max_path` polygons (`dtPathCorridor::init`);
    /// `FAILURE | INVALID_PARAM` below [`MIN_PATH_CAPACITY`].
    pub fn new(max_path: usize) -> Result<PathCorridor, Status> {
        if max_path < MIN_PATH_CAPACITY {
            return Err(Status::invalid_param());
        }
        Ok(PathCorridor {
            pos: [0.0; 3],
            target: [0.0; 3],
            path: vec![0; max_path],
            npath: 0,
        })
    }

    /// A corridor of the one polygon `r`, with the target at the position (`reset`).
    pub fn reset(&mut self, r: PolyRef, pos: &Vec3) {
        self.pos = *pos;
        self.target = *pos;
        self.path[0] = r;
        self.npath = 1;
    }

    /// The next corners of the straight path to the target, written to `corners`
    /// (`findCorners`). Corners within [`MIN_TARGET_DIST`] of the position are dropped from
    /// the front (unless they start an off-mesh connection), and nothing after an off-mesh
    /// connection's start is kept, so the agent stops there to cross it. The target, when
    /// reached, is the last corner, with polygon 0. Returns the number of corners.
    pub fn find_corners(
        &self,
        corners: &mut [StraightPathPoint],
        query: &NavMeshQuery<'_>,
    ) -> usize {
        let (_, mut n) = query.find_straight_path(&self.pos, &self.target, self.path(), corners, 0);
        let mut first = 0;
        while first < n {
            let corner = &corners[first];
            if corner.flags & STRAIGHTPATH_OFFMESH_CONNECTION != 0
                || vdist_2d_sqr(&corner.pos, &self.pos) > sqr(MIN_TARGET_DIST)
            {
                break;
            }
            first += 1;
        }
        if first > 0 {
            corners.copy_within(first..n, 0);
            n -= first;
        }
        if let Some(i) = corners[..n]
            .iter()
            .position(|c| c.flags & STRAIGHTPATH_OFFMESH_CONNECTION != 0)
        {
            n = i + 1;
        }
        n
    }

    /// Shortens the start of the corridor when `next` (usually the next corner) can be seen
    /// from the position: a raycast a little past it, at most `path_optimization_range`
    /// long, that crosses more than one polygon replaces the corridor up to where it rejoins
    /// it (`optimizePathVisibility`). Cheap and local; meant to be called often.
    pub fn optimize_path_visibility<F: PolyFilter + ?Sized>(
        &mut self,
        next: &Vec3,
        path_optimization_range: f32,
        query: &NavMeshQuery<'_>,
        filter: &F,
    ) {
        if self.npath == 0 {
            return;
        }
        let mut dist = vdist_2d(&self.pos, next);
        if dist < 0.01 {
            return;
        }
        // A little overshoot helps across open fields of tiled meshes.
        dist = min(dist + 0.01, path_optimization_range);
        let delta = vsub(next, &self.pos);
        let goal = vmad(&self.pos, &delta, path_optimization_range / dist);
        let mut res = [0 as PolyRef; MAX_SHORTCUT_POLYS];
        let (_, hit) = query.raycast(self.path[0], &self.pos, &goal, filter, &mut res);
        if hit.path_count > 1 && hit.t > 0.99 {
            self.npath =
                merge_corridor_start_shortcut(&mut self.path, self.npath, &res[..hit.path_count]);
        }
    }

    /// Re-plans the start of the corridor with a short A* search (32 iterations) towards its
    /// last polygon, and splices the best partial result in where it meets the corridor
    /// (`optimizePathTopology`). Returns whether the corridor was replaced. Needs three
    /// polygons or more.
    pub fn optimize_path_topology<F: PolyFilter + ?Sized>(
        &mut self,
        query: &mut NavMeshQuery<'_>,
        filter: &F,
    ) -> bool {
        if self.npath < 3 {
            return false;
        }
        let mut res = [0 as PolyRef; MAX_SHORTCUT_POLYS];
        let start = self.path[0];
        let end = self.path[self.npath - 1];
        query.init_sliced_find_path(start, end, &self.pos, &self.target, filter, 0);
        query.update_sliced_find_path(filter, OPTIMIZE_TOPOLOGY_ITERATIONS);
        let (status, nres) =
            query.finalize_sliced_find_path_partial(filter, &self.path[..self.npath], &mut res);
        if status.is_success() && nres > 0 {
            self.npath = merge_corridor_start_shortcut(&mut self.path, self.npath, &res[..nres]);
            return true;
        }
        false
    }

    /// Drops the corridor up to and including the off-mesh connection `off_mesh_ref`, puts the
    /// position at the connection's far end, and returns the crossing
    /// (`moveOverOffmeshConnection`). `None` when the connection is not in the corridor — or is
    /// its last polygon, which C++'s search also misses — or its end points cannot be had.
    pub fn move_over_offmesh_connection(
        &mut self,
        off_mesh_ref: PolyRef,
        query: &NavMeshQuery<'_>,
    ) -> Option<OffMeshCrossing> {
        let mut prev_ref = 0;
        let mut poly_ref = self.path[0];
        let mut npos = 0;
        while npos < self.npath && poly_ref != off_mesh_ref {
            prev_ref = poly_ref;
            poly_ref = self.path[npos];
            npos += 1;
        }
        if npos == self.npath {
            return None;
        }
        self.path.copy_within(npos..self.npath, 0);
        self.npath -= npos;
        let nav = query.nav_mesh();
        let (start, end) = nav
            .off_mesh_connection_poly_end_points(prev_ref, poly_ref)
            .ok()?;
        self.pos = end;
        Some(OffMeshCrossing {
            refs: [prev_ref, poly_ref],
            start,
            end,
        })
    }

    /// Moves the position towards `npos` along the surface, then fixes the corridor's start
    /// to the polygons passed and sets the height from the new first polygon
    /// (`movePosition`). Returns false, changing nothing, when the move fails.
    pub fn move_position<F: PolyFilter + ?Sized>(
        &mut self,
        npos: &Vec3,
        query: &mut NavMeshQuery<'_>,
        filter: &F,
    ) -> bool {
        if self.npath == 0 {
            return false;
        }
        let mut visited = [0 as PolyRef; MAX_VISITED];
        let (status, moved) =
            query.move_along_surface(self.path[0], &self.pos, npos, filter, &mut visited);
        if !status.is_success() {
            return false;
        }
        self.npath =
            merge_corridor_start_moved(&mut self.path, self.npath, &visited[..moved.visited_count]);
        let mut result = moved.position;
        // Off the detail surface the height stays where it was.
        let (height_status, height) = query.get_poly_height(self.path[0], &result);
        result[1] = if height_status.is_success() {
            height
        } else {
            self.pos[1]
        };
        self.pos = result;
        true
    }

    /// Moves the target towards `npos` along the surface and fixes the corridor's end to the
    /// polygons passed (`moveTargetPosition`). The target's height is not adjusted, as in
    /// C++. Returns false, changing nothing, when the move fails.
    pub fn move_target_position<F: PolyFilter + ?Sized>(
        &mut self,
        npos: &Vec3,
        query: &mut NavMeshQuery<'_>,
        filter: &F,
    ) -> bool {
        if self.npath == 0 {
            return false;
        }
        let last = self.path[self.npath - 1];
        let mut visited = [0 as PolyRef; MAX_VISITED];
        let (status, moved) =
            query.move_along_surface(last, &self.target, npos, filter, &mut visited);
        if !status.is_success() {
            return false;
        }
        self.npath =
            merge_corridor_end_moved(&mut self.path, self.npath, &visited[..moved.visited_count]);
        self.target = moved.position;
        true
    }

    /// Loads a new corridor and target; the position stays (`setCorridor`). The position is
    /// expected in `path[0]` and the target in the last polygon. A path longer than the
    /// capacity keeps its start.
    pub fn set_corridor(&mut self, target: &Vec3, path: &[PolyRef]) {
        let n = path.len().min(self.path.len());
        self.target = *target;
        self.path[..n].copy_from_slice(&path[..n]);
        self.npath = n;
    }

    /// Puts the position back at a safe point on `safe_ref` and makes that the first polygon,
    /// followed by a 0 that marks the corridor for replanning; a corridor shorter than
    /// three polygons becomes `safe_ref, 0, last` (`fixPathStart`).
    pub fn fix_path_start(&mut self, safe_ref: PolyRef, safe_pos: &Vec3) {
        self.pos = *safe_pos;
        if self.npath < 3 && self.npath > 0 {
            self.path[2] = self.path[self.npath - 1];
            self.path[0] = safe_ref;
            self.path[1] = 0;
            self.npath = 3;
        } else {
            self.path[0] = safe_ref;
            self.path[1] = 0;
        }
    }

    /// Cuts the corridor before its first polygon that no longer exists or passes `filter`
    /// and clamps the target onto the new last polygon; when even the first is bad, the
    /// corridor becomes `safe_ref` at `safe_pos` (`trimInvalidPath`).
    pub fn trim_invalid_path<F: PolyFilter + ?Sized>(
        &mut self,
        safe_ref: PolyRef,
        safe_pos: &Vec3,
        query: &NavMeshQuery<'_>,
        filter: &F,
    ) {
        let valid = self.path[..self.npath]
            .iter()
            .take_while(|&&r| query.is_valid_poly_ref(r, filter))
            .count();
        if valid == self.npath {
            return;
        }
        if valid == 0 {
            self.pos = *safe_pos;
            self.path[0] = safe_ref;
            self.npath = 1;
        } else {
            self.npath = valid;
        }
        let last = self.path[self.npath - 1];
        self.target = query.closest_point_on_poly_boundary(last, &self.target).1;
    }

    /// Whether the first `max_look_ahead` polygons still exist and pass `filter` (`isValid`).
    pub fn is_valid<F: PolyFilter + ?Sized>(
        &self,
        max_look_ahead: usize,
        query: &NavMeshQuery<'_>,
        filter: &F,
    ) -> bool {
        self.path[..self.npath]
            .iter()
            .take(max_look_ahead)
            .all(|&r| query.is_valid_poly_ref(r, filter))
    }

    /// Where the corridor starts: the agent's position.
    pub fn pos(&self) -> &Vec3 {
        &self.pos
    }

    /// Where the corridor ends: the target.
    pub fn target(&self) -> &Vec3 {
        &self.target
    }

    /// The polygon under the position; 0 for an empty corridor.
    pub fn first_poly(&self) -> PolyRef {
        self.path().first().copied().unwrap_or(0)
    }

    /// The polygon of the target; 0 for an empty corridor.
    pub fn last_poly(&self) -> PolyRef {
        self.path().last().copied().unwrap_or(0)
    }

    /// The corridor's polygons, position first.
    pub fn path(&self) -> &[PolyRef] {
        &self.path[..self.npath]
    }

    /// How many polygons the corridor can hold.
    pub fn capacity(&self) -> usize {
        self.path.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crowd::test_mesh::{GridMesh, SWIM, WALK};
    use crate::detour::query::{QueryFilter, STRAIGHTPATH_END};

    fn corners(c: &PathCorridor, query: &NavMeshQuery<'_>, max: usize) -> Vec<StraightPathPoint> {
        let mut buf = vec![StraightPathPoint::default(); max];
        let n = c.find_corners(&mut buf, query);
        buf.truncate(n);
        buf
    }

    #[test]
    fn needs_room_for_three_polygons() {
        assert!(PathCorridor::new(2).is_err());
        let c = PathCorridor::new(3).expect("capacity 3");
        assert_eq!(c.capacity(), 3);
        assert!(c.path().is_empty());
        assert_eq!((c.first_poly(), c.last_poly()), (0, 0));
    }

    #[test]
    fn reset_is_one_polygon_with_the_target_at_the_position() {
        let mesh = GridMesh::new(&["##"], &[]);
        let mut c = PathCorridor::new(8).expect("corridor");
        c.reset(mesh.poly(1, 0), &[1.5, 0.0, 0.5]);
        assert_eq!(c.path(), [mesh.poly(1, 0)]);
        assert_eq!(c.pos(), c.target());
    }

    #[test]
    fn corners_of_an_l_turn_skip_the_start_and_end_at_the_target() {
        let mesh = GridMesh::new(&["###", "..#", "..#"], &[]);
        let query = NavMeshQuery::new(&mesh.nav, 64).expect("query");
        let mut c = PathCorridor::new(8).expect("corridor");
        let start = [0.5, 0.0, 0.5];
        let target = [2.5, 0.0, 2.5];
        c.reset(mesh.poly(0, 0), &start);
        let path = [
            mesh.poly(0, 0),
            mesh.poly(1, 0),
            mesh.poly(2, 0),
            mesh.poly(2, 1),
            mesh.poly(2, 2),
        ];
        c.set_corridor(&target, &path);
        let found = corners(&c, &query, 4);
        assert_eq!(found.len(), 2);
        // The inner corner of the turn, then the target with polygon 0.
        assert_eq!(found[0].pos, [2.0, 0.0, 1.0]);
        assert_eq!(found[1].pos, target);
        assert_eq!(found[1].flags & STRAIGHTPATH_END, STRAIGHTPATH_END);
        assert_eq!(found[1].poly_ref, 0);
        // Standing on the corner drops it.
        c.reset(mesh.poly(2, 0), &[2.0, 0.0, 1.0]);
        c.set_corridor(&target, &path[2..]);
        let found = corners(&c, &query, 4);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].pos, target);
    }

    #[test]
    fn corners_stop_at_an_off_mesh_connection_which_can_be_crossed() {
        let link_start = [1.5, 0.0, 0.5];
        let link_end = [3.5, 0.0, 0.5];
        let mesh = GridMesh::new(&["##.##"], &[(link_start, link_end)]);
        let mut query = NavMeshQuery::new(&mesh.nav, 64).expect("query");
        let filter = QueryFilter::default();
        let start = [0.5, 0.0, 0.5];
        let target = [4.5, 0.0, 0.5];
        let mut path = [0; 8];
        let (status, n) = query.find_path(
            mesh.poly(0, 0),
            mesh.poly(4, 0),
            &start,
            &target,
            &filter,
            &mut path,
        );
        assert!(status.is_success());
        let link = mesh.link(0);
        assert_eq!(
            &path[..n],
            [
                mesh.poly(0, 0),
                mesh.poly(1, 0),
                link,
                mesh.poly(3, 0),
                mesh.poly(4, 0)
            ]
        );
        let mut c = PathCorridor::new(8).expect("corridor");
        c.reset(mesh.poly(0, 0), &start);
        c.set_corridor(&target, &path[..n]);
        let found = corners(&c, &query, 8);
        let last = found.last().expect("a corner");
        assert_ne!(last.flags & STRAIGHTPATH_OFFMESH_CONNECTION, 0);
        assert_eq!(last.pos, link_start);
        assert_eq!(last.poly_ref, link);

        let crossing = c
            .move_over_offmesh_connection(link, &query)
            .expect("crossed");
        assert_eq!(crossing.refs, [mesh.poly(1, 0), link]);
        assert_eq!((crossing.start, crossing.end), (link_start, link_end));
        assert_eq!(c.pos(), &link_end);
        assert_eq!(c.path(), [mesh.poly(3, 0), mesh.poly(4, 0)]);
        // Not in the corridor any more.
        assert_eq!(c.move_over_offmesh_connection(link, &query), None);
        // As in C++, a connection that is the corridor's last polygon is not found either.
        c.set_corridor(&target, &[mesh.poly(1, 0), link]);
        assert_eq!(c.move_over_offmesh_connection(link, &query), None);
    }

    #[test]
    fn moving_the_position_and_target_keeps_the_corridor_connected() {
        let mesh = GridMesh::new(&["#####"], &[]);
        let mut query = NavMeshQuery::new(&mesh.nav, 64).expect("query");
        let filter = QueryFilter::default();
        let mut c = PathCorridor::new(8).expect("corridor");
        c.reset(mesh.poly(0, 0), &[0.5, 0.0, 0.5]);
        let path: Vec<PolyRef> = (0..3).map(|x| mesh.poly(x, 0)).collect();
        c.set_corridor(&[2.5, 0.0, 0.5], &path);
        assert!(c.move_position(&[1.25, 0.0, 0.5], &mut query, &filter));
        assert_eq!(c.pos(), &[1.25, 0.0, 0.5]);
        assert_eq!(c.path(), [mesh.poly(1, 0), mesh.poly(2, 0)]);
        // Sliding along the wall: the move stays on the mesh.
        assert!(c.move_position(&[1.5, 0.0, -0.5], &mut query, &filter));
        assert_eq!(c.pos(), &[1.5, 0.0, 0.0]);
        // Moving back re-adds the polygon left behind.
        assert!(c.move_position(&[0.75, 0.0, 0.5], &mut query, &filter));
        assert_eq!(
            c.path(),
            [mesh.poly(0, 0), mesh.poly(1, 0), mesh.poly(2, 0)]
        );
        assert!(c.move_target_position(&[4.5, 0.0, 0.5], &mut query, &filter));
        assert_eq!(c.target(), &[4.5, 0.0, 0.5]);
        let all: Vec<PolyRef> = (0..5).map(|x| mesh.poly(x, 0)).collect();
        assert_eq!(c.path(), all);
        assert_eq!(c.last_poly(), mesh.poly(4, 0));
        // A stale start reference fails and changes nothing.
        let before = c.clone();
        let pos = *c.pos();
        c.reset(0, &pos);
        assert!(!c.move_position(&[1.0, 0.0, 0.5], &mut query, &filter));
        c = before;
        assert!(c.is_valid(5, &query, &filter));
    }

    /// A corridor round the long way: (0,0) (0,1) (1,1) (2,1) (2,0) in a 3 × 2 room.
    fn detour_corridor(mesh: &GridMesh) -> PathCorridor {
        let mut c = PathCorridor::new(8).expect("corridor");
        c.reset(mesh.poly(0, 0), &[0.5, 0.0, 0.5]);
        let path = [
            mesh.poly(0, 0),
            mesh.poly(0, 1),
            mesh.poly(1, 1),
            mesh.poly(2, 1),
            mesh.poly(2, 0),
        ];
        c.set_corridor(&[2.5, 0.0, 0.5], &path);
        c
    }

    #[test]
    fn visibility_optimisation_takes_the_straight_way_when_the_ray_gets_there() {
        let mesh = GridMesh::new(&["###", "###"], &[]);
        let query = NavMeshQuery::new(&mesh.nav, 64).expect("query");
        let filter = QueryFilter::default();
        let straight = [mesh.poly(0, 0), mesh.poly(1, 0), mesh.poly(2, 0)];
        // Range 1.5 puts the ray's end at the target: it gets there.
        let mut c = detour_corridor(&mesh);
        c.optimize_path_visibility(&[2.5, 0.0, 0.5], 1.5, &query, &filter);
        assert_eq!(c.path(), straight);
        // A long range overshoots into the wall at x = 3: no shortcut.
        let mut c = detour_corridor(&mesh);
        c.optimize_path_visibility(&[2.5, 0.0, 0.5], 10.0, &query, &filter);
        assert_eq!(c.path().len(), 5);
        // Too close to optimise.
        let mut c = detour_corridor(&mesh);
        c.optimize_path_visibility(&[0.505, 0.0, 0.5], 1.5, &query, &filter);
        assert_eq!(c.path().len(), 5);
    }

    #[test]
    fn topology_optimisation_replans_the_start() {
        let mesh = GridMesh::new(&["###", "###"], &[]);
        let mut query = NavMeshQuery::new(&mesh.nav, 64).expect("query");
        let filter = QueryFilter::default();
        let mut c = detour_corridor(&mesh);
        assert!(c.optimize_path_topology(&mut query, &filter));
        assert_eq!(
            c.path(),
            [mesh.poly(0, 0), mesh.poly(1, 0), mesh.poly(2, 0)]
        );
        // Fewer than three polygons: nothing to do.
        c.set_corridor(&[1.5, 0.0, 0.5], &[mesh.poly(0, 0), mesh.poly(1, 0)]);
        assert!(!c.optimize_path_topology(&mut query, &filter));
    }

    #[test]
    fn fix_path_start_marks_the_corridor_for_replanning() {
        let mut c = PathCorridor::new(4).expect("corridor");
        c.reset(7, &[0.0; 3]);
        c.set_corridor(&[1.0; 3], &[7, 8]);
        c.fix_path_start(9, &[0.5; 3]);
        assert_eq!(c.path(), [9, 0, 8]);
        assert_eq!(c.pos(), &[0.5; 3]);
        c.set_corridor(&[1.0; 3], &[1, 2, 3, 4]);
        c.fix_path_start(9, &[0.5; 3]);
        assert_eq!(c.path(), [9, 0, 3, 4]);
    }

    #[test]
    fn trim_invalid_path_keeps_the_valid_start_and_clamps_the_target() {
        let mesh = GridMesh::new(&["##~#"], &[]);
        let query = NavMeshQuery::new(&mesh.nav, 64).expect("query");
        let walk_only = QueryFilter::with_flags(WALK, SWIM);
        let path: Vec<PolyRef> = (0..4).map(|x| mesh.poly(x, 0)).collect();
        let mut c = PathCorridor::new(8).expect("corridor");
        c.reset(path[0], &[0.5, 0.0, 0.5]);
        c.set_corridor(&[3.5, 0.0, 0.5], &path);
        assert!(c.is_valid(2, &query, &walk_only));
        assert!(!c.is_valid(3, &query, &walk_only));
        c.trim_invalid_path(path[0], &[0.5, 0.0, 0.5], &query, &walk_only);
        assert_eq!(c.path(), &path[..2]);
        assert_eq!(c.target(), &[2.0, 0.0, 0.5]);
        // A bad first polygon falls back to the safe one.
        c.set_corridor(&[3.5, 0.0, 0.5], &path[2..]);
        c.trim_invalid_path(path[1], &[1.5, 0.0, 0.5], &query, &walk_only);
        assert_eq!(c.path(), [path[1]]);
        assert_eq!(c.pos(), &[1.5, 0.0, 0.5]);
        assert_eq!(c.target(), &[2.0, 0.0, 0.5]);
    }
}
