//! Helpers for following a polygon corridor, shared by RecastDemo's path tester and the
//! crowd: the steer target, corridor merges after a move (`dtMergeCorridor*`, older demos'
//! `fixupCorridor`), the U-turn shortcut (`fixupShortcuts`), and the tester's whole
//! "pathfind follow" walk.

use super::filter::PolyFilter;
use super::straight::{STRAIGHTPATH_END, STRAIGHTPATH_OFFMESH_CONNECTION, StraightPathPoint};
use super::{NavMeshQuery, links, valid_tile_and_poly};
use crate::detour::common::{Vec3, vsub};
use crate::detour::{NavMesh, PolyRef};

/// Whether `v2` is within `r` of `v1` in xz and within `h` vertically (`inRange`).
pub fn in_range(v1: &Vec3, v2: &Vec3, r: f32, h: f32) -> bool {
    let dx = v2[0] - v1[0];
    let dy = v2[1] - v1[1];
    let dz = v2[2] - v1[2];
    (dx * dx + dz * dz) < r * r && dy.abs() < h
}

/// The point to steer towards ([`get_steer_target`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SteerTarget {
    /// The corner, at the start position's height.
    pub pos: Vec3,
    /// Its straight-path flags (end of path, off-mesh connection start).
    pub flags: u8,
    /// The polygon entered there.
    pub poly_ref: PolyRef,
    /// The first straight-path corners looked at (up to 3), for drawing.
    pub points: [Vec3; MAX_STEER_POINTS],
    /// How many of `points` are set.
    pub point_count: usize,
}

/// Corners [`get_steer_target`] looks at.
pub const MAX_STEER_POINTS: usize = 3;

/// The first corner of the straight path along `path` that is more than `min_target_dist`
/// away in xz, or an off-mesh connection start, whichever comes first (RecastDemo's
/// `getSteerTarget`). `None` when every corner is closer.
pub fn get_steer_target(
    query: &NavMeshQuery<'_>,
    start_pos: &Vec3,
    end_pos: &Vec3,
    min_target_dist: f32,
    path: &[PolyRef],
) -> Option<SteerTarget> {
    let mut steer = [StraightPathPoint::default(); MAX_STEER_POINTS];
    let (_, n) = query.find_straight_path(start_pos, end_pos, path, &mut steer, 0);
    if n == 0 {
        return None;
    }
    let mut target = SteerTarget {
        point_count: n,
        ..SteerTarget::default()
    };
    for (p, s) in target.points.iter_mut().zip(&steer[..n]) {
        *p = s.pos;
    }
    let ns = steer[..n].iter().position(|s| {
        s.flags & STRAIGHTPATH_OFFMESH_CONNECTION != 0
            || !in_range(&s.pos, start_pos, min_target_dist, 1000.0)
    })?;
    let chosen = steer[ns];
    target.pos = chosen.pos;
    target.pos[1] = start_pos[1];
    target.flags = chosen.flags;
    target.poly_ref = chosen.poly_ref;
    Some(target)
}

/// The furthest polygon of `path[..npath]` that `visited` contains, with the lowest index
/// of it in `visited`; `from_end` searches the path from its end.
fn furthest_common(
    path: &[PolyRef],
    visited: &[PolyRef],
    from_end: bool,
) -> Option<(usize, usize)> {
    let lowest_in_visited = |r: PolyRef| visited.iter().position(|&v| v == r);
    if from_end {
        path.iter()
            .enumerate()
            .rev()
            .find_map(|(i, &r)| lowest_in_visited(r).map(|j| (i, j)))
    } else {
        path.iter()
            .enumerate()
            .find_map(|(i, &r)| lowest_in_visited(r).map(|j| (i, j)))
    }
}

/// Replaces the start of the corridor `path[..npath]` after the agent moved through
/// `visited` (start first), keeping the corridor within `path.len()`
/// (`dtMergeCorridorStartMoved`). Returns the new length.
pub fn merge_corridor_start_moved(
    path: &mut [PolyRef],
    npath: usize,
    visited: &[PolyRef],
) -> usize {
    let max_path = path.len() as isize;
    let npath = npath.min(path.len());
    let Some((furthest_path, furthest_visited)) = furthest_common(&path[..npath], visited, true)
    else {
        return npath;
    };
    let nvisited = visited.len() as isize;
    let req = nvisited - furthest_visited as isize;
    let orig = (furthest_path as isize + 1).min(npath as isize);
    let mut size = (npath as isize - orig).max(0);
    if req + size > max_path {
        size = max_path - req;
    }
    if size > 0 {
        path.copy_within(orig as usize..(orig + size) as usize, req as usize);
    }
    for i in 0..req.min(max_path) as usize {
        path[i] = visited[visited.len() - 1 - i];
    }
    (req + size) as usize
}

/// Replaces the end of the corridor after its target moved through `visited`
/// (`dtMergeCorridorEndMoved`). Returns the new length.
pub fn merge_corridor_end_moved(path: &mut [PolyRef], npath: usize, visited: &[PolyRef]) -> usize {
    let npath = npath.min(path.len());
    let Some((furthest_path, furthest_visited)) = furthest_common(&path[..npath], visited, false)
    else {
        return npath;
    };
    let ppos = furthest_path + 1;
    let vpos = furthest_visited + 1;
    let count = (visited.len() - vpos).min(path.len() - ppos);
    path[ppos..ppos + count].copy_from_slice(&visited[vpos..vpos + count]);
    ppos + count
}

/// Replaces the start of the corridor with a shortcut `visited` found by a raycast from the
/// corridor's start (`dtMergeCorridorStartShortcut`). Returns the new length.
pub fn merge_corridor_start_shortcut(
    path: &mut [PolyRef],
    npath: usize,
    visited: &[PolyRef],
) -> usize {
    let max_path = path.len() as isize;
    let npath = npath.min(path.len());
    let Some((furthest_path, furthest_visited)) = furthest_common(&path[..npath], visited, true)
    else {
        return npath;
    };
    let req = furthest_visited as isize;
    if req <= 0 {
        return npath;
    }
    let orig = furthest_path as isize;
    let mut size = (npath as isize - orig).max(0);
    if req + size > max_path {
        size = max_path - req;
    }
    if size > 0 {
        path.copy_within(orig as usize..(orig + size) as usize, req as usize);
    }
    let n = req.min(max_path) as usize;
    path[..n].copy_from_slice(&visited[..n]);
    (req + size).max(0) as usize
}

/// Cuts a small U-turn at the start of the corridor: when one of the next few polygons
/// touches the first one, jump straight to it (RecastDemo's `fixupShortcuts`). This
/// happens when the target sits on a tile border and the agent walks along it. Returns the
/// new length.
pub fn fixup_shortcuts(path: &mut [PolyRef], npath: usize, nav: &NavMesh) -> usize {
    const MAX_NEIS: usize = 16;
    const MAX_LOOK_AHEAD: usize = 6;
    let mut npath = npath.min(path.len());
    if npath < 3 {
        return npath;
    }
    let Some((tile, poly)) = valid_tile_and_poly(nav, path[0]) else {
        return npath;
    };
    let mut neis = [0 as PolyRef; MAX_NEIS];
    let mut nneis = 0;
    for link in links(tile, poly) {
        if link.neighbour != 0 && nneis < MAX_NEIS {
            neis[nneis] = link.neighbour;
            nneis += 1;
        }
    }
    let cut = (2..MAX_LOOK_AHEAD.min(npath))
        .rev()
        .find(|&i| neis[..nneis].contains(&path[i]))
        .unwrap_or(0);
    if cut > 1 {
        let offset = cut - 1;
        npath -= offset;
        for i in 1..npath {
            path[i] = path[i + offset];
        }
    }
    npath
}

/// Step length of the tester's walk (`STEP_SIZE`).
pub const STEP_SIZE: f32 = 0.5;
/// How close counts as arrived (`SLOP`).
pub const SLOP: f32 = 0.01;

/// Why [`follow_path`] stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FollowEnd {
    /// It reached the end of the path.
    EndOfPath,
    /// No corner was far enough to steer to.
    NoSteerTarget,
    /// The smooth path buffer filled up.
    MaxSmooth,
    /// An off-mesh connection used up the corridor.
    CorridorEmpty,
}

/// The walk along a corridor ([`follow_path`]).
#[derive(Clone, Debug, PartialEq)]
pub struct FollowResult {
    /// The positions walked, starting on the start polygon.
    pub smooth_path: Vec<Vec3>,
    /// Loop iterations, one per step.
    pub iterations: usize,
    /// Why the walk ended.
    pub end: FollowEnd,
    /// Off-mesh connections crossed.
    pub off_mesh_connections: usize,
}

/// Room for the corridor while walking: the tester's path buffer (`MAX_POLYS`), which bounds
/// how far `dtMergeCorridorStartMoved` may grow it.
pub const CORRIDOR_CAPACITY: usize = 256;

/// RecastDemo's "pathfind follow" walk, one step at a time: the tester's Space key steps it,
/// [`follow_path`] runs it to the end, and the state (corridor, position, steer target) is
/// there to draw between steps.
#[derive(Clone, Debug, PartialEq)]
pub struct PathFollower {
    /// The corridor buffer: the first `corridor_len` entries are the polygons still ahead,
    /// `corridor[0]` the one under `position`. Its length is the room merges may use.
    corridor: Vec<PolyRef>,
    corridor_len: usize,
    /// Where the walk is.
    pub position: Vec3,
    /// Where it was before the last step.
    pub previous_position: Vec3,
    /// The end point on the last polygon of the path.
    pub target: Vec3,
    /// The last step's steer target and the corners it looked at.
    pub steer: Option<SteerTarget>,
    /// What the walk has done so far.
    pub result: FollowResult,
    /// Why the walk stopped, once it has.
    pub finished: Option<FollowEnd>,
}

impl PathFollower {
    /// A walk from `start_pos` (moved onto `path[0]`) towards `end_pos` (onto the last
    /// polygon); finished at once (corridor empty) for an empty path.
    pub fn new(
        query: &NavMeshQuery<'_>,
        start_pos: &Vec3,
        end_pos: &Vec3,
        path: &[PolyRef],
    ) -> PathFollower {
        let mut corridor = path.to_vec();
        corridor.resize(path.len().max(CORRIDOR_CAPACITY), 0);
        let mut follower = PathFollower {
            corridor,
            corridor_len: path.len(),
            position: [0.0; 3],
            previous_position: [0.0; 3],
            target: [0.0; 3],
            steer: None,
            result: FollowResult {
                smooth_path: Vec::new(),
                iterations: 0,
                end: FollowEnd::CorridorEmpty,
                off_mesh_connections: 0,
            },
            finished: None,
        };
        let (Some(&first), Some(&last)) = (path.first(), path.last()) else {
            follower.finished = Some(FollowEnd::CorridorEmpty);
            return follower;
        };
        follower.position = query.closest_point_on_poly(first, start_pos).1;
        follower.previous_position = follower.position;
        follower.target = query.closest_point_on_poly(last, end_pos).1;
        follower.result.smooth_path.push(follower.position);
        follower.result.end = FollowEnd::MaxSmooth;
        follower
    }

    /// One step of at most [`STEP_SIZE`] towards the steer target, moved along the surface,
    /// merged into the corridor and set onto the detail surface, crossing an off-mesh
    /// connection when it reaches one. Returns false once the walk has finished (end of path,
    /// no steer target, `max_smooth` points, or the corridor used up).
    pub fn step<F: PolyFilter + ?Sized>(
        &mut self,
        query: &mut NavMeshQuery<'_>,
        filter: &F,
        max_smooth: usize,
    ) -> bool {
        if self.finished.is_some() {
            return false;
        }
        if self.corridor_len == 0 || self.result.smooth_path.len() >= max_smooth {
            let end = if self.corridor_len == 0 {
                FollowEnd::CorridorEmpty
            } else {
                FollowEnd::MaxSmooth
            };
            return self.finish(end);
        }
        let nav = query.nav_mesh();
        let smooth = &mut self.result.smooth_path;
        self.result.iterations += 1;
        self.previous_position = self.position;
        let ahead = &self.corridor[..self.corridor_len];
        self.steer = get_steer_target(query, &self.position, &self.target, SLOP, ahead);
        let Some(steer) = self.steer else {
            return self.finish(FollowEnd::NoSteerTarget);
        };
        let end_of_path = steer.flags & STRAIGHTPATH_END != 0;
        let off_mesh = steer.flags & STRAIGHTPATH_OFFMESH_CONNECTION != 0;
        let delta = vsub(&steer.pos, &self.position);
        let mut len = super::geometry::vdot(&delta, &delta).sqrt();
        // Do not overshoot the end or an off-mesh connection.
        if (end_of_path || off_mesh) && len < STEP_SIZE {
            len = 1.0;
        } else {
            len = STEP_SIZE / len;
        }
        let move_target = super::geometry::vmad(&self.position, &delta, len);
        let mut visited = [0 as PolyRef; 16];
        let (_, moved) = query.move_along_surface(
            self.corridor[0],
            &self.position,
            &move_target,
            filter,
            &mut visited,
        );
        let polys = &mut self.corridor;
        let mut npolys = self.corridor_len;
        npolys = merge_corridor_start_moved(polys, npolys, &visited[..moved.visited_count]);
        npolys = fixup_shortcuts(polys, npolys, nav);
        self.corridor_len = npolys;
        let mut position = moved.position;
        position[1] = if npolys > 0 {
            query.get_poly_height(polys[0], &position).1
        } else {
            0.0
        };
        self.position = position;

        if end_of_path && in_range(&self.position, &steer.pos, SLOP, 1.0) {
            self.position = self.target;
            if smooth.len() < max_smooth {
                smooth.push(self.position);
            }
            return self.finish(FollowEnd::EndOfPath);
        } else if off_mesh && in_range(&self.position, &steer.pos, SLOP, 1.0) {
            // Advance the corridor up to and over the connection.
            let mut prev_ref = 0;
            let mut poly_ref = polys[0];
            let mut npos = 0;
            while npos < npolys && poly_ref != steer.poly_ref {
                prev_ref = poly_ref;
                poly_ref = polys[npos];
                npos += 1;
            }
            polys.copy_within(npos..npolys, 0);
            npolys -= npos;
            self.corridor_len = npolys;
            if let Ok((start, end)) = nav.off_mesh_connection_poly_end_points(prev_ref, poly_ref) {
                self.result.off_mesh_connections += 1;
                if smooth.len() < max_smooth {
                    smooth.push(start);
                    // The demo doubles the point so its dashed line hides the jump.
                    if smooth.len() & 1 == 1 {
                        smooth.push(start);
                    }
                }
                self.position = end;
                self.position[1] = if npolys > 0 {
                    query.get_poly_height(polys[0], &self.position).1
                } else {
                    0.0
                };
            }
        }
        if smooth.len() < max_smooth {
            smooth.push(self.position);
        }
        true
    }

    /// The polygons still ahead.
    pub fn corridor(&self) -> &[PolyRef] {
        &self.corridor[..self.corridor_len]
    }

    fn finish(&mut self, end: FollowEnd) -> bool {
        self.finished = Some(end);
        self.result.end = end;
        false
    }
}

/// RecastDemo's "pathfind follow" walk: from `start_pos` on `path[0]` towards `end_pos`,
/// steps of [`STEP_SIZE`] to the steer target, each moved along the surface, merged into the
/// corridor and set onto the detail surface, crossing off-mesh connections, until the end,
/// no steer target, or `max_smooth` points.
pub fn follow_path<F: PolyFilter + ?Sized>(
    query: &mut NavMeshQuery<'_>,
    filter: &F,
    start_pos: &Vec3,
    end_pos: &Vec3,
    path: &[PolyRef],
    max_smooth: usize,
) -> FollowResult {
    if max_smooth == 0 {
        return FollowResult {
            smooth_path: Vec::new(),
            iterations: 0,
            end: FollowEnd::CorridorEmpty,
            off_mesh_connections: 0,
        };
    }
    let mut follower = PathFollower::new(query, start_pos, end_pos, path);
    while follower.step(query, filter, max_smooth) {}
    follower.result
}
