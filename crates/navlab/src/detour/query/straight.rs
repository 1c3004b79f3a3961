//! String pulling: the corners of the shortest way through a polygon corridor
//! ([`NavMeshQuery::find_straight_path`], the "funnel" algorithm).

use super::geometry::{intersect_seg_seg_2d, tri_area_2d, vequal, visfinite};
use super::{
    NavMeshQuery, Status, closest_point_on_poly_boundary, portal_points, valid_tile_and_poly,
};
use crate::detour::PolyRef;
use crate::detour::common::{Vec3, distance_pt_seg_sqr_2d, sqr, vlerp};

/// The point is the start of the path (`DT_STRAIGHTPATH_START`).
pub const STRAIGHTPATH_START: u8 = 0x01;
/// The point is the end of the path (`DT_STRAIGHTPATH_END`).
pub const STRAIGHTPATH_END: u8 = 0x02;
/// The point is the start of an off-mesh connection (`DT_STRAIGHTPATH_OFFMESH_CONNECTION`).
pub const STRAIGHTPATH_OFFMESH_CONNECTION: u8 = 0x04;
/// Option: add a point where the path crosses into a polygon of another area
/// (`DT_STRAIGHTPATH_AREA_CROSSINGS`).
pub const STRAIGHTPATH_AREA_CROSSINGS: u32 = 0x01;
/// Option: add a point at every polygon edge the path crosses (`DT_STRAIGHTPATH_ALL_CROSSINGS`).
pub const STRAIGHTPATH_ALL_CROSSINGS: u32 = 0x02;

/// One corner of a straight path.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StraightPathPoint {
    /// The corner, world units.
    pub pos: Vec3,
    /// [`STRAIGHTPATH_START`], [`STRAIGHTPATH_END`], [`STRAIGHTPATH_OFFMESH_CONNECTION`] or 0.
    pub flags: u8,
    /// The polygon entered at this point; 0 for the end point.
    pub poly_ref: PolyRef,
}

/// The caller's corner buffer and how much of it is filled.
struct Corners<'o> {
    out: &'o mut [StraightPathPoint],
    count: usize,
}

impl Corners<'_> {
    /// Appends a corner, or updates the last one when it is at the same place
    /// (`appendVertex`). `IN_PROGRESS` means there is room for more and the end was not
    /// reached.
    fn append(&mut self, pos: &Vec3, flags: u8, poly_ref: PolyRef) -> Status {
        let count = self.count;
        if count > 0 && vequal(&self.out[count - 1].pos, pos) {
            let last = &mut self.out[count - 1];
            last.flags = flags;
            last.poly_ref = poly_ref;
            return Status::IN_PROGRESS;
        }
        let Some(slot) = self.out.get_mut(count) else {
            return Status::SUCCESS | Status::BUFFER_TOO_SMALL;
        };
        *slot = StraightPathPoint {
            pos: *pos,
            flags,
            poly_ref,
        };
        self.count += 1;
        if self.count >= self.out.len() {
            return Status::SUCCESS | Status::BUFFER_TOO_SMALL;
        }
        if flags == STRAIGHTPATH_END {
            return Status::SUCCESS;
        }
        Status::IN_PROGRESS
    }

    fn is_full(&self) -> bool {
        self.count >= self.out.len()
    }
}

/// Portals the funnel has looked up, by corridor index, in a small direct-mapped table.
/// After each corner the funnel starts again just past the new apex and meets portals it has
/// already seen; looking them up again would give the same points.
struct PortalCache {
    index: [usize; PORTAL_CACHE_SIZE],
    portal: [(Vec3, Vec3, bool); PORTAL_CACHE_SIZE],
}

const PORTAL_CACHE_SIZE: usize = 32;

impl PortalCache {
    fn new() -> PortalCache {
        PortalCache {
            index: [usize::MAX; PORTAL_CACHE_SIZE],
            portal: [([0.0; 3], [0.0; 3], false); PORTAL_CACHE_SIZE],
        }
    }

    /// The portal after corridor index `i`, computed by `look_up` unless it is in the table.
    #[inline]
    fn get(
        &mut self,
        i: usize,
        look_up: impl FnOnce() -> Option<(Vec3, Vec3, bool)>,
    ) -> Option<(Vec3, Vec3, bool)> {
        let slot = i % PORTAL_CACHE_SIZE;
        if self.index[slot] == i {
            return Some(self.portal[slot]);
        }
        let portal = look_up()?;
        self.index[slot] = i;
        self.portal[slot] = portal;
        Some(portal)
    }
}

impl NavMeshQuery<'_> {
    /// Appends the crossings of the segment from the last corner to `end_pos` with the
    /// portals `path[start..end]` → next (`appendPortals`).
    fn append_portals(
        &self,
        start: usize,
        end: usize,
        end_pos: &Vec3,
        path: &[PolyRef],
        corners: &mut Corners<'_>,
        options: u32,
    ) -> Status {
        let start_pos = corners.out[corners.count - 1].pos;
        for i in start..end {
            let from = path[i];
            let Some((from_tile, from_poly)) = valid_tile_and_poly(self.nav, from) else {
                return Status::invalid_param();
            };
            let to = path[i + 1];
            let Some((to_tile, to_poly)) = valid_tile_and_poly(self.nav, to) else {
                return Status::invalid_param();
            };
            let Some((left, right)) =
                portal_points(from, from_poly, from_tile, to, to_poly, to_tile)
            else {
                break;
            };
            if options & STRAIGHTPATH_AREA_CROSSINGS != 0 && from_poly.area() == to_poly.area() {
                continue;
            }
            if let Some((_, t)) = intersect_seg_seg_2d(&start_pos, end_pos, &left, &right) {
                let pt = vlerp(&left, &right, t);
                let status = corners.append(&pt, 0, to);
                if status != Status::IN_PROGRESS {
                    return status;
                }
            }
        }
        Status::IN_PROGRESS
    }

    /// The portal from `from` to `to` and whether `to` is an off-mesh connection.
    fn checked_portal(&self, from: PolyRef, to: PolyRef) -> Option<(Vec3, Vec3, bool)> {
        let (from_tile, from_poly) = valid_tile_and_poly(self.nav, from)?;
        let (to_tile, to_poly) = valid_tile_and_poly(self.nav, to)?;
        let (l, r) = portal_points(from, from_poly, from_tile, to, to_poly, to_tile)?;
        Some((l, r, to_poly.is_off_mesh_connection()))
    }

    /// The corners of the shortest way from `start_pos` to `end_pos` through the corridor
    /// `path` (`findStraightPath`). Both ends are first clamped to the boundaries of the
    /// first and last polygon. `options` adds crossing points
    /// ([`STRAIGHTPATH_AREA_CROSSINGS`], [`STRAIGHTPATH_ALL_CROSSINGS`]). A result longer than
    /// `out` keeps its start and adds `BUFFER_TOO_SMALL`. Returns the number of points.
    pub fn find_straight_path(
        &self,
        start_pos: &Vec3,
        end_pos: &Vec3,
        path: &[PolyRef],
        out: &mut [StraightPathPoint],
        options: u32,
    ) -> (Status, usize) {
        if !visfinite(start_pos)
            || !visfinite(end_pos)
            || path.first().is_none_or(|&r| r == 0)
            || out.is_empty()
        {
            return (Status::invalid_param(), 0);
        }
        let path_size = path.len();
        let mut corners = Corners { out, count: 0 };
        let boundary_point = |r: PolyRef, p: &Vec3| {
            valid_tile_and_poly(self.nav, r)
                .map(|(tile, poly)| closest_point_on_poly_boundary(tile, poly, p))
        };
        let Some(closest_start) = boundary_point(path[0], start_pos) else {
            return (Status::invalid_param(), 0);
        };
        let Some(mut closest_end) = boundary_point(path[path_size - 1], end_pos) else {
            return (Status::invalid_param(), 0);
        };
        let stat = corners.append(&closest_start, STRAIGHTPATH_START, path[0]);
        if stat != Status::IN_PROGRESS {
            return (stat, corners.count);
        }
        let crossings = options & (STRAIGHTPATH_AREA_CROSSINGS | STRAIGHTPATH_ALL_CROSSINGS) != 0;

        if path_size > 1 {
            let mut apex = closest_start;
            let mut portal_left = apex;
            let mut portal_right = apex;
            let mut apex_index = 0;
            let mut left_index = 0;
            let mut right_index = 0;
            let mut left_offmesh = false;
            let mut right_offmesh = false;
            let mut left_ref = path[0];
            let mut right_ref = path[0];

            let mut portals = PortalCache::new();
            let mut i = 0;
            while i < path_size {
                let (left, right, to_offmesh) = if i + 1 < path_size {
                    let Some(portal) = portals.get(i, || self.checked_portal(path[i], path[i + 1]))
                    else {
                        // path[i + 1] is not a valid polygon: end the path at path[i].
                        let Some(end) = boundary_point(path[i], end_pos) else {
                            return (Status::invalid_param(), corners.count);
                        };
                        closest_end = end;
                        if crossings {
                            self.append_portals(
                                apex_index,
                                i,
                                &closest_end,
                                path,
                                &mut corners,
                                options,
                            );
                        }
                        corners.append(&closest_end, 0, path[i]);
                        let mut status = Status::SUCCESS | Status::PARTIAL_RESULT;
                        if corners.is_full() {
                            status |= Status::BUFFER_TOO_SMALL;
                        }
                        return (status, corners.count);
                    };
                    // Starting right at the first portal: skip it.
                    if i == 0 && distance_pt_seg_sqr_2d(&apex, &portal.0, &portal.1).0 < sqr(0.001)
                    {
                        i += 1;
                        continue;
                    }
                    portal
                } else {
                    (closest_end, closest_end, false)
                };
                let next_ref = if i + 1 < path_size { path[i + 1] } else { 0 };

                // Right side of the funnel.
                if tri_area_2d(&apex, &portal_right, &right) <= 0.0 {
                    if vequal(&apex, &portal_right)
                        || tri_area_2d(&apex, &portal_left, &right) > 0.0
                    {
                        portal_right = right;
                        right_ref = next_ref;
                        right_offmesh = to_offmesh;
                        right_index = i;
                    } else {
                        // The right side crossed the left: the left corner is the next apex.
                        if crossings {
                            let stat = self.append_portals(
                                apex_index,
                                left_index,
                                &portal_left,
                                path,
                                &mut corners,
                                options,
                            );
                            if stat != Status::IN_PROGRESS {
                                return (stat, corners.count);
                            }
                        }
                        apex = portal_left;
                        apex_index = left_index;
                        let flags = corner_flags(left_ref, left_offmesh);
                        let stat = corners.append(&apex, flags, left_ref);
                        if stat != Status::IN_PROGRESS {
                            return (stat, corners.count);
                        }
                        portal_left = apex;
                        portal_right = apex;
                        left_index = apex_index;
                        right_index = apex_index;
                        i = apex_index + 1;
                        continue;
                    }
                }

                // Left side of the funnel.
                if tri_area_2d(&apex, &portal_left, &left) >= 0.0 {
                    if vequal(&apex, &portal_left) || tri_area_2d(&apex, &portal_right, &left) < 0.0
                    {
                        portal_left = left;
                        left_ref = next_ref;
                        left_offmesh = to_offmesh;
                        left_index = i;
                    } else {
                        if crossings {
                            let stat = self.append_portals(
                                apex_index,
                                right_index,
                                &portal_right,
                                path,
                                &mut corners,
                                options,
                            );
                            if stat != Status::IN_PROGRESS {
                                return (stat, corners.count);
                            }
                        }
                        apex = portal_right;
                        apex_index = right_index;
                        let flags = corner_flags(right_ref, right_offmesh);
                        let stat = corners.append(&apex, flags, right_ref);
                        if stat != Status::IN_PROGRESS {
                            return (stat, corners.count);
                        }
                        portal_left = apex;
                        portal_right = apex;
                        left_index = apex_index;
                        right_index = apex_index;
                        i = apex_index + 1;
                        continue;
                    }
                }
                i += 1;
            }

            if crossings {
                let stat = self.append_portals(
                    apex_index,
                    path_size - 1,
                    &closest_end,
                    path,
                    &mut corners,
                    options,
                );
                if stat != Status::IN_PROGRESS {
                    return (stat, corners.count);
                }
            }
        }

        corners.append(&closest_end, STRAIGHTPATH_END, 0);
        let mut status = Status::SUCCESS;
        if corners.is_full() {
            status |= Status::BUFFER_TOO_SMALL;
        }
        (status, corners.count)
    }
}

/// The flags of a funnel corner: the end when it has no polygon, the start of an off-mesh
/// connection when it enters one.
fn corner_flags(poly_ref: PolyRef, off_mesh: bool) -> u8 {
    if poly_ref == 0 {
        STRAIGHTPATH_END
    } else if off_mesh {
        STRAIGHTPATH_OFFMESH_CONNECTION
    } else {
        0
    }
}
