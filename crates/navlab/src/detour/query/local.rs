//! Searches around a point: moving along the surface, Dijkstra searches within a circle or a
//! shape, the local neighbourhood, walls near a point, and random points.

use super::filter::{PolyContext, PolyFilter};
use super::geometry::{
    intersect_segment_poly_2d, overlap_poly_poly_2d, random_point_in_convex_poly, tri_area_2d,
    vdist, visfinite, vnormalize, vscale,
};
use super::node::{NODE_CLOSED, NODE_OPEN};
use super::{
    NavMeshQuery, Status, is_valid_ref, links, poly_ref_base, poly_vertex, poly_verts,
    portal_points, tile_and_poly, valid_tile_and_poly,
};
use crate::detour::common::{
    Vec3, distance_pt_seg_sqr_2d, point_in_polygon, sqr, vadd, vlerp, vsub,
};
use crate::detour::{EXT_LINK, MeshTile, Poly, PolyRef};

/// Nodes a local search keeps queued (`MAX_STACK`).
const MAX_STACK: usize = 48;

/// Where [`NavMeshQuery::move_along_surface`] ended.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MoveResult {
    /// The reached position (not projected onto the surface).
    pub position: Vec3,
    /// Polygons written to the visited buffer.
    pub visited_count: usize,
}

/// A polygon found by a Dijkstra search around a circle or a shape.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct VisitedPoly {
    /// The polygon found.
    pub poly_ref: PolyRef,
    /// The polygon the search reached it from; 0 for the start.
    pub parent_ref: PolyRef,
    /// Cost from the search's centre.
    pub cost: f32,
}

/// A polygon of the local neighbourhood.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct NeighbourPoly {
    /// The polygon found.
    pub poly_ref: PolyRef,
    /// The polygon it was reached from; 0 for the start.
    pub parent_ref: PolyRef,
}

/// A segment of a polygon's boundary ([`NavMeshQuery::get_poly_wall_segments`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct WallSegment {
    /// The segment's start, world units.
    pub start: Vec3,
    /// The segment's end.
    pub end: Vec3,
    /// The polygon beyond a portal segment; 0 for a wall.
    pub neighbour: PolyRef,
}

/// The nearest wall of [`NavMeshQuery::find_distance_to_wall`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct WallHit {
    /// Distance to the wall, or the search radius when none is nearer.
    pub distance: f32,
    /// The nearest wall point (not on the detail surface); zero when no wall was in range.
    pub position: Vec3,
    /// From the wall point towards the centre, normalised.
    pub normal: Vec3,
}

/// Twice the xz area of a polygon, as a fan from vertex 0.
fn poly_area_2d(tile: &MeshTile, poly: &Poly) -> f32 {
    let nv = usize::from(poly.vert_count);
    let va = poly_vertex(tile, poly, 0);
    (2..nv).fold(0.0f32, |area, j| {
        area + tri_area_2d(
            va,
            poly_vertex(tile, poly, j - 1),
            poly_vertex(tile, poly, j),
        )
    })
}

/// An interval of a tile-border edge covered by a portal, in 1/255 of the edge.
#[derive(Clone, Copy, Debug, Default)]
struct SegInterval {
    poly_ref: PolyRef,
    tmin: i16,
    tmax: i16,
}

/// Inserts an interval in order of position, dropping it when the list is full
/// (`insertInterval`).
fn insert_interval(
    ints: &mut [SegInterval; 16],
    nints: &mut usize,
    tmin: i16,
    tmax: i16,
    r: PolyRef,
) {
    if *nints + 1 > ints.len() {
        return;
    }
    let idx = ints[..*nints]
        .iter()
        .position(|iv| tmax <= iv.tmin)
        .unwrap_or(*nints);
    ints.copy_within(idx..*nints, idx + 1);
    ints[idx] = SegInterval {
        poly_ref: r,
        tmin,
        tmax,
    };
    *nints += 1;
}

/// Whether `p` is a finite, non-negative radius.
fn valid_radius(r: f32) -> bool {
    r >= 0.0 && r.is_finite()
}

impl<'a> NavMeshQuery<'a> {
    /// Moves from `start_pos` towards `end_pos` staying on the surface, sliding along walls,
    /// and records the polygons passed in `visited` (`moveAlongSurface`). Meant for short
    /// steps: it searches at most 64 polygons near the segment.
    pub fn move_along_surface<F: PolyFilter + ?Sized>(
        &mut self,
        start_ref: PolyRef,
        start_pos: &Vec3,
        end_pos: &Vec3,
        filter: &F,
        visited: &mut [PolyRef],
    ) -> (Status, MoveResult) {
        let nav = self.nav;
        let mut result = MoveResult {
            position: *start_pos,
            visited_count: 0,
        };
        if !is_valid_ref(nav, start_ref)
            || !visfinite(start_pos)
            || !visfinite(end_pos)
            || visited.is_empty()
        {
            return (Status::invalid_param(), result);
        }
        let mut status = Status::SUCCESS;
        let pool = &mut self.tiny_node_pool;
        pool.clear();
        let mut stack = [0usize; MAX_STACK];
        let mut nstack = 0;
        let Some(start) = pool.get_node(start_ref, 0) else {
            return (Status::FAILURE | Status::OUT_OF_NODES, result);
        };
        {
            let node = pool.node_mut(start);
            node.parent = 0;
            node.cost = 0.0;
            node.total = 0.0;
            node.flags = NODE_CLOSED;
        }
        stack[nstack] = start;
        nstack += 1;

        let mut best_pos = *start_pos;
        let mut best_dist = f32::MAX;
        let mut best_node: Option<usize> = None;
        let search_pos = vlerp(start_pos, end_pos, 0.5);
        let search_rad_sqr = sqr(vdist(start_pos, end_pos) / 2.0 + 0.001);

        while nstack > 0 {
            let cur = stack[0];
            stack.copy_within(1..nstack, 0);
            nstack -= 1;
            let cur_ref = pool.node_at(cur).poly_ref;
            let Some((cur_tile, cur_poly)) = tile_and_poly(nav, cur_ref) else {
                continue;
            };
            let (verts, nverts) = poly_verts(cur_tile, cur_poly);
            if point_in_polygon(end_pos, &verts[..nverts]) {
                best_node = Some(cur);
                best_pos = *end_pos;
                break;
            }
            // Walls pull the best point; portals within reach queue their neighbours.
            let mut j = nverts.wrapping_sub(1);
            for i in 0..nverts {
                const MAX_NEIS: usize = 8;
                let mut neis = [0 as PolyRef; MAX_NEIS];
                let mut nneis = 0;
                let nei = cur_poly.neis[j];
                if nei & EXT_LINK != 0 {
                    for link in links(cur_tile, cur_poly) {
                        if usize::from(link.edge) == j
                            && link.neighbour != 0
                            && let Some((nt, np)) = tile_and_poly(nav, link.neighbour)
                            && filter.pass_filter(link.neighbour, nt, np)
                            && nneis < MAX_NEIS
                        {
                            neis[nneis] = link.neighbour;
                            nneis += 1;
                        }
                    }
                } else if nei != 0 {
                    let idx = u32::from(nei - 1);
                    let r = poly_ref_base(nav, cur_ref) | PolyRef::from(idx);
                    if let Some(np) = cur_tile.polys.get(idx as usize)
                        && filter.pass_filter(r, cur_tile, np)
                    {
                        neis[nneis] = r;
                        nneis += 1;
                    }
                }
                let vj = &verts[j];
                let vi = &verts[i];
                if nneis == 0 {
                    let (dist_sqr, tseg) = distance_pt_seg_sqr_2d(end_pos, vj, vi);
                    if dist_sqr < best_dist {
                        best_pos = vlerp(vj, vi, tseg);
                        best_dist = dist_sqr;
                        best_node = Some(cur);
                    }
                } else {
                    for &r in &neis[..nneis] {
                        let Some(neighbour) = pool.get_node(r, 0) else {
                            continue;
                        };
                        if pool.node_at(neighbour).flags & NODE_CLOSED != 0 {
                            continue;
                        }
                        let (dist_sqr, _) = distance_pt_seg_sqr_2d(&search_pos, vj, vi);
                        if dist_sqr > search_rad_sqr {
                            continue;
                        }
                        if nstack < MAX_STACK {
                            let node = pool.node_mut(neighbour);
                            node.parent = cur as u32 + 1;
                            node.flags |= NODE_CLOSED;
                            stack[nstack] = neighbour;
                            nstack += 1;
                        }
                    }
                }
                j = i;
            }
        }

        let mut n = 0;
        if let Some(best) = best_node {
            // Reverse the parent chain so it runs from the start.
            // Both walks visit at most `node_count` nodes, even if a NaN cost made a cycle.
            let chain_limit = pool.node_count();
            let mut prev: Option<usize> = None;
            let mut node = Some(best);
            let mut steps = 0;
            while let Some(i) = node
                && steps < chain_limit
            {
                steps += 1;
                let next = pool.parent_at(i);
                pool.node_mut(i).parent = prev.map_or(0, |p| p as u32 + 1);
                prev = Some(i);
                node = next;
            }
            let mut node = prev;
            while let Some(i) = node {
                visited[n] = pool.node_at(i).poly_ref;
                n += 1;
                if n >= visited.len() {
                    status |= Status::BUFFER_TOO_SMALL;
                    break;
                }
                node = pool.parent_at(i);
            }
        }
        result.position = best_pos;
        result.visited_count = n;
        (status, result)
    }

    /// The polygons reachable from `start_ref` whose portals touch the circle (Dijkstra from
    /// `center`), cheapest first, up to `out.len()` (`findPolysAroundCircle`).
    pub fn find_polys_around_circle<F: PolyFilter + ?Sized>(
        &mut self,
        start_ref: PolyRef,
        center: &Vec3,
        radius: f32,
        filter: &F,
        out: &mut [VisitedPoly],
    ) -> (Status, usize) {
        if !is_valid_ref(self.nav, start_ref) || !visfinite(center) || !valid_radius(radius) {
            return (Status::invalid_param(), 0);
        }
        let radius_sqr = sqr(radius);
        self.dijkstra(start_ref, center, filter, out, |va, vb| {
            distance_pt_seg_sqr_2d(center, va, vb).0 <= radius_sqr
        })
    }

    /// The polygons reachable from `start_ref` whose portals meet the convex polygon
    /// `verts` (Dijkstra from its centroid), cheapest first, up to `out.len()`
    /// (`findPolysAroundShape`). Needs at least 3 vertices.
    pub fn find_polys_around_shape<F: PolyFilter + ?Sized>(
        &mut self,
        start_ref: PolyRef,
        verts: &[Vec3],
        filter: &F,
        out: &mut [VisitedPoly],
    ) -> (Status, usize) {
        if !is_valid_ref(self.nav, start_ref) || verts.len() < 3 || !verts.iter().all(visfinite) {
            return (Status::invalid_param(), 0);
        }
        let sum = verts.iter().fold([0.0f32; 3], |acc, v| vadd(&acc, v));
        let center = vscale(&sum, 1.0 / verts.len() as f32);
        self.dijkstra(start_ref, &center, filter, out, |va, vb| {
            intersect_segment_poly_2d(va, vb, verts).is_some_and(|s| s.tmin <= 1.0 && s.tmax >= 0.0)
        })
    }

    /// The Dijkstra search shared by the circle and shape queries: expands through portals
    /// that `touches` accepts, costs by the filter between portal midpoints.
    fn dijkstra<F: PolyFilter + ?Sized>(
        &mut self,
        start_ref: PolyRef,
        center: &Vec3,
        filter: &F,
        out: &mut [VisitedPoly],
        touches: impl Fn(&Vec3, &Vec3) -> bool,
    ) -> (Status, usize) {
        let nav = self.nav;
        let pool = &mut self.node_pool;
        let open = &mut self.open_list;
        pool.clear();
        open.clear();
        let Some(start) = pool.get_node(start_ref, 0) else {
            return (Status::FAILURE | Status::OUT_OF_NODES, 0);
        };
        {
            let node = pool.node_mut(start);
            node.pos = *center;
            node.parent = 0;
            node.cost = 0.0;
            node.total = 0.0;
            node.flags = NODE_OPEN;
        }
        open.push(start, 0.0);
        let mut status = Status::SUCCESS;
        let mut n = 0;
        while let Some(best) = open.pop() {
            let best_node = pool.node_mut(best);
            best_node.flags = (best_node.flags & !NODE_OPEN) | NODE_CLOSED;
            let best_ref = best_node.poly_ref;
            let best_pos = best_node.pos;
            let best_total = best_node.total;
            let Some((best_tile, best_poly)) = tile_and_poly(nav, best_ref) else {
                continue;
            };
            let parent_ref = pool.parent_at(best).map_or(0, |p| pool.node_at(p).poly_ref);
            let parent_ctx = match tile_and_poly(nav, parent_ref) {
                Some((t, p)) if parent_ref != 0 => PolyContext::new(parent_ref, t, p),
                _ => PolyContext::NONE,
            };
            match out.get_mut(n) {
                Some(slot) => {
                    *slot = VisitedPoly {
                        poly_ref: best_ref,
                        parent_ref,
                        cost: best_total,
                    };
                    n += 1;
                }
                None => status |= Status::BUFFER_TOO_SMALL,
            }
            let best_ctx = PolyContext::new(best_ref, best_tile, best_poly);
            for link in links(best_tile, best_poly) {
                let neighbour_ref = link.neighbour;
                if neighbour_ref == 0 || neighbour_ref == parent_ref {
                    continue;
                }
                let Some((nt, np)) = tile_and_poly(nav, neighbour_ref) else {
                    continue;
                };
                if !filter.pass_filter(neighbour_ref, nt, np) {
                    continue;
                }
                let Some((va, vb)) =
                    portal_points(best_ref, best_poly, best_tile, neighbour_ref, np, nt)
                else {
                    continue;
                };
                if !touches(&va, &vb) {
                    continue;
                }
                let Some(neighbour) = pool.get_node(neighbour_ref, 0) else {
                    status |= Status::OUT_OF_NODES;
                    continue;
                };
                if pool.node_at(neighbour).flags & NODE_CLOSED != 0 {
                    continue;
                }
                if pool.node_at(neighbour).flags == 0 {
                    pool.node_mut(neighbour).pos = vlerp(&va, &vb, 0.5);
                }
                let neighbour_pos = pool.node_at(neighbour).pos;
                let cost = filter.cost(
                    &best_pos,
                    &neighbour_pos,
                    parent_ctx,
                    best_ctx,
                    PolyContext::new(neighbour_ref, nt, np),
                );
                let total = best_total + cost;
                let node = pool.node_mut(neighbour);
                if node.flags & NODE_OPEN != 0 && total >= node.total {
                    continue;
                }
                node.parent = best as u32 + 1;
                node.total = total;
                if node.flags & NODE_OPEN != 0 {
                    open.modify(neighbour, total);
                } else {
                    node.flags = NODE_OPEN;
                    open.push(neighbour, total);
                }
            }
        }
        (status, n)
    }

    /// The non-overlapping polygons around `start_ref` whose portals touch the circle,
    /// breadth first, up to `out.len()` (`findLocalNeighbourhood`). Meant for small radii:
    /// it searches at most 64 polygons.
    pub fn find_local_neighbourhood<F: PolyFilter + ?Sized>(
        &mut self,
        start_ref: PolyRef,
        center: &Vec3,
        radius: f32,
        filter: &F,
        out: &mut [NeighbourPoly],
    ) -> (Status, usize) {
        let nav = self.nav;
        if !is_valid_ref(nav, start_ref) || !visfinite(center) || !valid_radius(radius) {
            return (Status::invalid_param(), 0);
        }
        let pool = &mut self.tiny_node_pool;
        pool.clear();
        let mut stack = [0usize; MAX_STACK];
        let mut nstack = 0;
        let Some(start) = pool.get_node(start_ref, 0) else {
            return (Status::FAILURE | Status::OUT_OF_NODES, 0);
        };
        {
            let node = pool.node_mut(start);
            node.parent = 0;
            node.flags = NODE_CLOSED;
        }
        stack[nstack] = start;
        nstack += 1;
        let radius_sqr = sqr(radius);
        let mut status = Status::SUCCESS;
        let mut n = 0;
        match out.get_mut(n) {
            Some(slot) => {
                *slot = NeighbourPoly {
                    poly_ref: start_ref,
                    parent_ref: 0,
                };
                n += 1;
            }
            None => status |= Status::BUFFER_TOO_SMALL,
        }
        while nstack > 0 {
            let cur = stack[0];
            stack.copy_within(1..nstack, 0);
            nstack -= 1;
            let cur_ref = pool.node_at(cur).poly_ref;
            let Some((cur_tile, cur_poly)) = tile_and_poly(nav, cur_ref) else {
                continue;
            };
            for link in links(cur_tile, cur_poly) {
                let neighbour_ref = link.neighbour;
                if neighbour_ref == 0 {
                    continue;
                }
                let Some(neighbour) = pool.get_node(neighbour_ref, 0) else {
                    continue;
                };
                if pool.node_at(neighbour).flags & NODE_CLOSED != 0 {
                    continue;
                }
                let Some((nt, np)) = tile_and_poly(nav, neighbour_ref) else {
                    continue;
                };
                if np.is_off_mesh_connection() || !filter.pass_filter(neighbour_ref, nt, np) {
                    continue;
                }
                let Some((va, vb)) =
                    portal_points(cur_ref, cur_poly, cur_tile, neighbour_ref, np, nt)
                else {
                    continue;
                };
                if distance_pt_seg_sqr_2d(center, &va, &vb).0 > radius_sqr {
                    continue;
                }
                // Mark visited before the overlap test so a rejected polygon is not tried
                // again.
                {
                    let node = pool.node_mut(neighbour);
                    node.flags |= NODE_CLOSED;
                    node.parent = cur as u32 + 1;
                }
                let (pa, npa) = poly_verts(nt, np);
                let overlaps = out[..n].iter().any(|past| {
                    // Connected polygons do not overlap.
                    if links(cur_tile, cur_poly).any(|l| l.neighbour == past.poly_ref) {
                        return false;
                    }
                    tile_and_poly(nav, past.poly_ref).is_some_and(|(pt, pp)| {
                        let (pb, npb) = poly_verts(pt, pp);
                        overlap_poly_poly_2d(&pa[..npa], &pb[..npb])
                    })
                });
                if overlaps {
                    continue;
                }
                match out.get_mut(n) {
                    Some(slot) => {
                        *slot = NeighbourPoly {
                            poly_ref: neighbour_ref,
                            parent_ref: cur_ref,
                        };
                        n += 1;
                    }
                    None => status |= Status::BUFFER_TOO_SMALL,
                }
                if nstack < MAX_STACK {
                    stack[nstack] = neighbour;
                    nstack += 1;
                }
            }
        }
        (status, n)
    }

    /// The boundary segments of polygon `r` (`getPolyWallSegments`): walls, and with
    /// `include_portals` also the portals to polygons `filter` accepts. Tile-border edges
    /// are split where portals cover them. Up to `out.len()` segments.
    pub fn get_poly_wall_segments<F: PolyFilter + ?Sized>(
        &self,
        r: PolyRef,
        filter: &F,
        include_portals: bool,
        out: &mut [WallSegment],
    ) -> (Status, usize) {
        let nav = self.nav;
        let Some((tile, poly)) = valid_tile_and_poly(nav, r) else {
            return (Status::invalid_param(), 0);
        };
        let mut n = 0;
        let mut status = Status::SUCCESS;
        let mut push =
            |start: Vec3, end: Vec3, neighbour: PolyRef, n: &mut usize| match out.get_mut(*n) {
                Some(slot) => {
                    *slot = WallSegment {
                        start,
                        end,
                        neighbour,
                    };
                    *n += 1;
                }
                None => status |= Status::BUFFER_TOO_SMALL,
            };
        let nv = usize::from(poly.vert_count);
        let mut j = nv.wrapping_sub(1);
        for i in 0..nv {
            let vj = *poly_vertex(tile, poly, j);
            let vi = *poly_vertex(tile, poly, i);
            let nei = poly.neis[j];
            if nei & EXT_LINK == 0 {
                // An inner edge: a wall, or a portal when the neighbour passes.
                let mut nei_ref = 0;
                if nei != 0 {
                    let idx = u32::from(nei - 1);
                    let candidate = poly_ref_base(nav, r) | PolyRef::from(idx);
                    if tile
                        .polys
                        .get(idx as usize)
                        .is_some_and(|np| filter.pass_filter(candidate, tile, np))
                    {
                        nei_ref = candidate;
                    }
                }
                if nei_ref == 0 || include_portals {
                    push(vj, vi, nei_ref, &mut n);
                }
                j = i;
                continue;
            }
            // A tile-border edge: portals cover intervals of it, walls fill the gaps.
            let mut ints = [SegInterval::default(); 16];
            let mut nints = 0;
            for link in links(tile, poly) {
                if usize::from(link.edge) == j
                    && link.neighbour != 0
                    && let Some((nt, np)) = tile_and_poly(nav, link.neighbour)
                    && filter.pass_filter(link.neighbour, nt, np)
                {
                    insert_interval(
                        &mut ints,
                        &mut nints,
                        i16::from(link.bmin),
                        i16::from(link.bmax),
                        link.neighbour,
                    );
                }
            }
            insert_interval(&mut ints, &mut nints, -1, 0, 0);
            insert_interval(&mut ints, &mut nints, 255, 256, 0);
            for k in 1..nints {
                if include_portals && ints[k].poly_ref != 0 {
                    let tmin = f32::from(ints[k].tmin) / 255.0;
                    let tmax = f32::from(ints[k].tmax) / 255.0;
                    push(
                        vlerp(&vj, &vi, tmin),
                        vlerp(&vj, &vi, tmax),
                        ints[k].poly_ref,
                        &mut n,
                    );
                }
                let imin = ints[k - 1].tmax;
                let imax = ints[k].tmin;
                if imin != imax {
                    let tmin = f32::from(imin) / 255.0;
                    let tmax = f32::from(imax) / 255.0;
                    push(vlerp(&vj, &vi, tmin), vlerp(&vj, &vi, tmax), 0, &mut n);
                }
            }
            j = i;
        }
        (status, n)
    }

    /// The distance from `center` to the nearest wall within `max_radius`, searching the
    /// polygons reachable from `start_ref` (`findDistanceToWall`).
    pub fn find_distance_to_wall<F: PolyFilter + ?Sized>(
        &mut self,
        start_ref: PolyRef,
        center: &Vec3,
        max_radius: f32,
        filter: &F,
    ) -> (Status, WallHit) {
        let nav = self.nav;
        let mut hit = WallHit::default();
        if !is_valid_ref(nav, start_ref) || !visfinite(center) || !valid_radius(max_radius) {
            return (Status::invalid_param(), hit);
        }
        let pool = &mut self.node_pool;
        let open = &mut self.open_list;
        pool.clear();
        open.clear();
        let Some(start) = pool.get_node(start_ref, 0) else {
            return (Status::FAILURE | Status::OUT_OF_NODES, hit);
        };
        {
            let node = pool.node_mut(start);
            node.pos = *center;
            node.parent = 0;
            node.cost = 0.0;
            node.total = 0.0;
            node.flags = NODE_OPEN;
        }
        open.push(start, 0.0);
        let mut radius_sqr = sqr(max_radius);
        let mut status = Status::SUCCESS;
        while let Some(best) = open.pop() {
            let best_node = pool.node_mut(best);
            best_node.flags = (best_node.flags & !NODE_OPEN) | NODE_CLOSED;
            let best_ref = best_node.poly_ref;
            let best_pos = best_node.pos;
            let best_total = best_node.total;
            let Some((best_tile, best_poly)) = tile_and_poly(nav, best_ref) else {
                continue;
            };
            let parent_ref = pool.parent_at(best).map_or(0, |p| pool.node_at(p).poly_ref);

            // Walls in range shrink the search radius.
            let nv = usize::from(best_poly.vert_count);
            let mut j = nv.wrapping_sub(1);
            for i in 0..nv {
                let nei = best_poly.neis[j];
                let solid = if nei & EXT_LINK != 0 {
                    // The first link on this edge decides.
                    match links(best_tile, best_poly).find(|l| usize::from(l.edge) == j) {
                        Some(link) if link.neighbour != 0 => !tile_and_poly(nav, link.neighbour)
                            .is_some_and(|(nt, np)| filter.pass_filter(link.neighbour, nt, np)),
                        _ => true,
                    }
                } else if nei != 0 {
                    let idx = u32::from(nei - 1);
                    let r = poly_ref_base(nav, best_ref) | PolyRef::from(idx);
                    !best_tile
                        .polys
                        .get(idx as usize)
                        .is_some_and(|np| filter.pass_filter(r, best_tile, np))
                } else {
                    true
                };
                if solid {
                    let vj = poly_vertex(best_tile, best_poly, j);
                    let vi = poly_vertex(best_tile, best_poly, i);
                    let (dist_sqr, tseg) = distance_pt_seg_sqr_2d(center, vj, vi);
                    if dist_sqr <= radius_sqr {
                        radius_sqr = dist_sqr;
                        hit.position = [
                            vj[0] + (vi[0] - vj[0]) * tseg,
                            vj[1] + (vi[1] - vj[1]) * tseg,
                            vj[2] + (vi[2] - vj[2]) * tseg,
                        ];
                    }
                }
                j = i;
            }

            for link in links(best_tile, best_poly) {
                let neighbour_ref = link.neighbour;
                if neighbour_ref == 0 || neighbour_ref == parent_ref {
                    continue;
                }
                let Some((nt, np)) = tile_and_poly(nav, neighbour_ref) else {
                    continue;
                };
                if np.is_off_mesh_connection() {
                    continue;
                }
                let edge = usize::from(link.edge);
                let va = poly_vertex(best_tile, best_poly, edge);
                let vb = poly_vertex(best_tile, best_poly, (edge + 1) % nv);
                if distance_pt_seg_sqr_2d(center, va, vb).0 > radius_sqr {
                    continue;
                }
                if !filter.pass_filter(neighbour_ref, nt, np) {
                    continue;
                }
                let Some(neighbour) = pool.get_node(neighbour_ref, 0) else {
                    status |= Status::OUT_OF_NODES;
                    continue;
                };
                if pool.node_at(neighbour).flags & NODE_CLOSED != 0 {
                    continue;
                }
                if pool.node_at(neighbour).flags == 0
                    && let Some(mid) =
                        super::edge_mid_point(best_ref, best_poly, best_tile, neighbour_ref, np, nt)
                {
                    pool.node_mut(neighbour).pos = mid;
                }
                let total = best_total + vdist(&best_pos, &pool.node_at(neighbour).pos);
                let node = pool.node_mut(neighbour);
                if node.flags & NODE_OPEN != 0 && total >= node.total {
                    continue;
                }
                node.flags &= !NODE_CLOSED;
                node.parent = best as u32 + 1;
                node.total = total;
                if node.flags & NODE_OPEN != 0 {
                    open.modify(neighbour, total);
                } else {
                    node.flags |= NODE_OPEN;
                    open.push(neighbour, total);
                }
            }
        }
        hit.normal = vsub(center, &hit.position);
        vnormalize(&mut hit.normal);
        hit.distance = radius_sqr.sqrt();
        (status, hit)
    }

    /// A random point on a random polygon that `filter` accepts: a tile chosen uniformly,
    /// a polygon weighted by area, a point uniform over it (`findRandomPoint`). `rand`
    /// returns numbers in [0, 1).
    pub fn find_random_point<F: PolyFilter + ?Sized>(
        &self,
        filter: &F,
        rand: &mut impl FnMut() -> f32,
    ) -> (Status, PolyRef, Vec3) {
        let nav = self.nav;
        // Reservoir sampling over tiles, each weighing 1.
        let mut chosen: Option<(PolyRef, &MeshTile)> = None;
        let mut tile_sum = 0.0f32;
        for (tile_ref, tile) in nav.tiles() {
            const AREA: f32 = 1.0;
            tile_sum += AREA;
            if rand() * tile_sum <= AREA {
                chosen = Some((tile_ref, tile));
            }
        }
        let Some((base, tile)) = chosen else {
            return (Status::FAILURE, 0, [0.0; 3]);
        };
        let mut picked: Option<(PolyRef, &Poly)> = None;
        let mut area_sum = 0.0f32;
        for (i, p) in tile.polys.iter().enumerate() {
            if p.is_off_mesh_connection() {
                continue;
            }
            let r = base | i as PolyRef;
            if !filter.pass_filter(r, tile, p) {
                continue;
            }
            let poly_area = poly_area_2d(tile, p);
            area_sum += poly_area;
            if rand() * area_sum <= poly_area {
                picked = Some((r, p));
            }
        }
        let Some((poly_ref, poly)) = picked else {
            return (Status::FAILURE, 0, [0.0; 3]);
        };
        let point = self.random_point_on(tile, poly, poly_ref, rand);
        (Status::SUCCESS, poly_ref, point)
    }

    /// A random point on the polygons reachable from `start_ref` whose portals lie within
    /// `max_radius` of `center`, polygons weighted by area (`findRandomPointAroundCircle`).
    /// The point can lie outside the circle.
    pub fn find_random_point_around_circle<F: PolyFilter + ?Sized>(
        &mut self,
        start_ref: PolyRef,
        center: &Vec3,
        max_radius: f32,
        filter: &F,
        rand: &mut impl FnMut() -> f32,
    ) -> (Status, PolyRef, Vec3) {
        let nav = self.nav;
        if !is_valid_ref(nav, start_ref) || !visfinite(center) || !valid_radius(max_radius) {
            return (Status::invalid_param(), 0, [0.0; 3]);
        }
        let Some((start_tile, start_poly)) = tile_and_poly(nav, start_ref) else {
            return (Status::invalid_param(), 0, [0.0; 3]);
        };
        if !filter.pass_filter(start_ref, start_tile, start_poly) {
            return (Status::invalid_param(), 0, [0.0; 3]);
        }
        let pool = &mut self.node_pool;
        let open = &mut self.open_list;
        pool.clear();
        open.clear();
        let Some(start) = pool.get_node(start_ref, 0) else {
            return (Status::FAILURE | Status::OUT_OF_NODES, 0, [0.0; 3]);
        };
        {
            let node = pool.node_mut(start);
            node.pos = *center;
            node.parent = 0;
            node.cost = 0.0;
            node.total = 0.0;
            node.flags = NODE_OPEN;
        }
        open.push(start, 0.0);
        let mut status = Status::SUCCESS;
        let radius_sqr = sqr(max_radius);
        let mut area_sum = 0.0f32;
        let mut picked: Option<(PolyRef, &MeshTile, &Poly)> = None;
        while let Some(best) = open.pop() {
            let best_node = pool.node_mut(best);
            best_node.flags = (best_node.flags & !NODE_OPEN) | NODE_CLOSED;
            let best_ref = best_node.poly_ref;
            let best_pos = best_node.pos;
            let best_total = best_node.total;
            let Some((best_tile, best_poly)) = tile_and_poly(nav, best_ref) else {
                continue;
            };
            if !best_poly.is_off_mesh_connection() {
                let poly_area = poly_area_2d(best_tile, best_poly);
                area_sum += poly_area;
                if rand() * area_sum <= poly_area {
                    picked = Some((best_ref, best_tile, best_poly));
                }
            }
            let parent_ref = pool.parent_at(best).map_or(0, |p| pool.node_at(p).poly_ref);
            for link in links(best_tile, best_poly) {
                let neighbour_ref = link.neighbour;
                if neighbour_ref == 0 || neighbour_ref == parent_ref {
                    continue;
                }
                let Some((nt, np)) = tile_and_poly(nav, neighbour_ref) else {
                    continue;
                };
                if !filter.pass_filter(neighbour_ref, nt, np) {
                    continue;
                }
                let Some((va, vb)) =
                    portal_points(best_ref, best_poly, best_tile, neighbour_ref, np, nt)
                else {
                    continue;
                };
                if distance_pt_seg_sqr_2d(center, &va, &vb).0 > radius_sqr {
                    continue;
                }
                let Some(neighbour) = pool.get_node(neighbour_ref, 0) else {
                    status |= Status::OUT_OF_NODES;
                    continue;
                };
                if pool.node_at(neighbour).flags & NODE_CLOSED != 0 {
                    continue;
                }
                if pool.node_at(neighbour).flags == 0 {
                    pool.node_mut(neighbour).pos = vlerp(&va, &vb, 0.5);
                }
                let total = best_total + vdist(&best_pos, &pool.node_at(neighbour).pos);
                let node = pool.node_mut(neighbour);
                if node.flags & NODE_OPEN != 0 && total >= node.total {
                    continue;
                }
                node.flags &= !NODE_CLOSED;
                node.parent = best as u32 + 1;
                node.total = total;
                if node.flags & NODE_OPEN != 0 {
                    open.modify(neighbour, total);
                } else {
                    node.flags = NODE_OPEN;
                    open.push(neighbour, total);
                }
            }
        }
        let Some((poly_ref, tile, poly)) = picked else {
            return (Status::FAILURE, 0, [0.0; 3]);
        };
        let point = self.random_point_on(tile, poly, poly_ref, rand);
        (status, poly_ref, point)
    }

    /// A uniform random point of `poly`, moved onto its detail surface.
    fn random_point_on(
        &self,
        tile: &MeshTile,
        poly: &Poly,
        poly_ref: PolyRef,
        rand: &mut impl FnMut() -> f32,
    ) -> Vec3 {
        let (verts, nv) = poly_verts(tile, poly);
        let s = rand();
        let t = rand();
        let pt = random_point_in_convex_poly(&verts[..nv], s, t);
        self.closest_point_on_poly(poly_ref, &pt).1
    }
}
