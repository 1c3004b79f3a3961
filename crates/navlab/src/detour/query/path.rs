//! A* path searches: [`NavMeshQuery::find_path`] and the sliced search that spreads one
//! search over several calls, optionally with raycast shortcuts (any-angle paths).

use super::filter::{PolyContext, PolyFilter};
use super::geometry::{vdist, vdist_sqr, visfinite};
use super::node::{NODE_CLOSED, NODE_OPEN, NODE_PARENT_DETACHED, NodePool};
use super::raycast::{RAYCAST_USE_COSTS, raycast};
use super::{
    FINDPATH_ANY_ANGLE, H_SCALE, NavMeshQuery, RAY_CAST_LIMIT_PROPORTIONS, SlicedQuery, Status,
    edge_mid_point, is_valid_ref, links, neighbour_tile_and_poly, tile_and_poly,
    valid_tile_and_poly,
};
use crate::detour::PolyRef;
use crate::detour::common::{Vec3, sqr};

/// Writes the path from the start to `end_node` into `path`, keeping its start when it is
/// too long (`getPathToNode`).
fn path_to_node(pool: &NodePool, end_node: usize, path: &mut [PolyRef]) -> (Status, usize) {
    let max_path = path.len();
    // A chain visits each node once, so it is at most `node_count` long; NaN costs can
    // re-parent a node onto its own descendant, and the walk stops there instead of circling.
    let mut length = 0;
    let mut cur = Some(end_node);
    while let Some(i) = cur
        && length < pool.node_count()
    {
        length += 1;
        cur = pool.parent_at(i);
    }
    let mut cur = Some(end_node);
    let mut write_count = length;
    while write_count > max_path {
        cur = cur.and_then(|i| pool.parent_at(i));
        write_count -= 1;
    }
    for slot in path[..write_count].iter_mut().rev() {
        let Some(i) = cur else { break };
        *slot = pool.node_at(i).poly_ref;
        cur = pool.parent_at(i);
    }
    let status = if length > max_path {
        Status::SUCCESS | Status::BUFFER_TOO_SMALL
    } else {
        Status::SUCCESS
    };
    (status, length.min(max_path))
}

/// Whether a new total beats a node's. C++ skips a neighbour when `total >= node.total`, which
/// is the same for numbers; but a NaN total must not count as better either, or NaN costs
/// reopen closed nodes for ever.
#[inline]
fn improves(total: f32, node_total: f32) -> bool {
    total < node_total
}

impl<'a> NavMeshQuery<'a> {
    /// The polygons of the cheapest path from `start_ref` to `end_ref` (A*), costs measured
    /// between `start_pos`, portal midpoints and `end_pos` (`findPath`). When the end cannot
    /// be reached the path leads to the polygon nearest to it and the status has
    /// `PARTIAL_RESULT`; a path longer than `path` keeps its start and adds
    /// `BUFFER_TOO_SMALL`. Returns the number of polygons written.
    pub fn find_path<F: PolyFilter + ?Sized>(
        &mut self,
        start_ref: PolyRef,
        end_ref: PolyRef,
        start_pos: &Vec3,
        end_pos: &Vec3,
        filter: &F,
        path: &mut [PolyRef],
    ) -> (Status, usize) {
        let nav = self.nav;
        if !is_valid_ref(nav, start_ref)
            || !is_valid_ref(nav, end_ref)
            || !visfinite(start_pos)
            || !visfinite(end_pos)
            || path.is_empty()
        {
            return (Status::invalid_param(), 0);
        }
        if start_ref == end_ref {
            path[0] = start_ref;
            return (Status::SUCCESS, 1);
        }
        let pool = &mut self.node_pool;
        let open = &mut self.open_list;
        pool.clear();
        open.clear();
        let Some(start) = pool.get_node(start_ref, 0) else {
            return (Status::FAILURE | Status::OUT_OF_NODES, 0);
        };
        let start_total = vdist(start_pos, end_pos) * H_SCALE;
        {
            let node = pool.node_mut(start);
            node.pos = *start_pos;
            node.parent = 0;
            node.cost = 0.0;
            node.total = start_total;
            node.flags = NODE_OPEN;
        }
        open.push(start, start_total);

        let mut last_best = start;
        let mut last_best_cost = start_total;
        let mut out_of_nodes = false;
        while let Some(best) = open.pop() {
            let best_node = pool.node_mut(best);
            best_node.flags = (best_node.flags & !NODE_OPEN) | NODE_CLOSED;
            if best_node.poly_ref == end_ref {
                last_best = best;
                break;
            }
            let best_ref = best_node.poly_ref;
            let best_pos = best_node.pos;
            let best_cost = best_node.cost;
            let Some((best_tile, best_poly)) = tile_and_poly(nav, best_ref) else {
                continue;
            };
            let best_ctx = PolyContext::new(best_ref, best_tile, best_poly);
            let parent_ref = pool.parent_at(best).map_or(0, |p| pool.node_at(p).poly_ref);
            let parent_ctx = match tile_and_poly(nav, parent_ref) {
                Some((t, p)) if parent_ref != 0 => PolyContext::new(parent_ref, t, p),
                _ => PolyContext::NONE,
            };

            for link in links(best_tile, best_poly) {
                let neighbour_ref = link.neighbour;
                if neighbour_ref == 0 || neighbour_ref == parent_ref {
                    continue;
                }
                let Some((neighbour_tile, neighbour_poly)) =
                    neighbour_tile_and_poly(nav, best_ref, best_tile, neighbour_ref)
                else {
                    continue;
                };
                if !filter.pass_filter(neighbour_ref, neighbour_tile, neighbour_poly) {
                    continue;
                }
                // Tile-border crossings get their own node per side, so one polygon can be
                // entered from several tiles.
                let cross_side = if link.side != 0xff { link.side >> 1 } else { 0 };
                let Some((neighbour, node)) = pool.get_node_mut(neighbour_ref, cross_side) else {
                    out_of_nodes = true;
                    continue;
                };
                if node.flags == 0
                    && let Some(mid) = edge_mid_point(
                        best_ref,
                        best_poly,
                        best_tile,
                        neighbour_ref,
                        neighbour_poly,
                        neighbour_tile,
                    )
                {
                    node.pos = mid;
                }
                let neighbour_pos = node.pos;
                let neighbour_ctx = PolyContext::new(neighbour_ref, neighbour_tile, neighbour_poly);
                let cur_cost = filter.cost(
                    &best_pos,
                    &neighbour_pos,
                    parent_ctx,
                    best_ctx,
                    neighbour_ctx,
                );
                let (cost, heuristic) = if neighbour_ref == end_ref {
                    let end_cost = filter.cost(
                        &neighbour_pos,
                        end_pos,
                        best_ctx,
                        neighbour_ctx,
                        PolyContext::NONE,
                    );
                    (best_cost + cur_cost + end_cost, 0.0)
                } else {
                    (
                        best_cost + cur_cost,
                        vdist(&neighbour_pos, end_pos) * H_SCALE,
                    )
                };
                let total = cost + heuristic;
                if node.flags & NODE_OPEN != 0 && !improves(total, node.total) {
                    continue;
                }
                if node.flags & NODE_CLOSED != 0 && !improves(total, node.total) {
                    continue;
                }
                node.parent = best as u32 + 1;
                node.flags &= !NODE_CLOSED;
                node.cost = cost;
                node.total = total;
                if node.flags & NODE_OPEN != 0 {
                    open.modify(neighbour, total);
                } else {
                    node.flags |= NODE_OPEN;
                    open.push(neighbour, total);
                }
                if heuristic < last_best_cost {
                    last_best_cost = heuristic;
                    last_best = neighbour;
                }
            }
        }

        let (mut status, count) = path_to_node(pool, last_best, path);
        if pool.node_at(last_best).poly_ref != end_ref {
            status |= Status::PARTIAL_RESULT;
        }
        if out_of_nodes {
            status |= Status::OUT_OF_NODES;
        }
        (status, count)
    }

    /// Starts a sliced path search (`initSlicedFindPath`); continue it with
    /// [`NavMeshQuery::update_sliced_find_path`] and finish with
    /// [`NavMeshQuery::finalize_sliced_find_path`], passing the same filter each time.
    /// Other searches on this object in between corrupt it, as in C++. With
    /// [`FINDPATH_ANY_ANGLE`] the search tries raycast shortcuts back to the grandparent.
    pub fn init_sliced_find_path<F: PolyFilter + ?Sized>(
        &mut self,
        start_ref: PolyRef,
        end_ref: PolyRef,
        start_pos: &Vec3,
        end_pos: &Vec3,
        _filter: &F,
        options: u32,
    ) -> Status {
        let nav = self.nav;
        self.sliced = SlicedQuery {
            status: Status::FAILURE,
            start_ref,
            end_ref,
            end_pos: *end_pos,
            options,
            raycast_limit_sqr: f32::MAX,
            ..SlicedQuery::default()
        };
        if !is_valid_ref(nav, start_ref)
            || !is_valid_ref(nav, end_ref)
            || !visfinite(start_pos)
            || !visfinite(end_pos)
        {
            return Status::invalid_param();
        }
        if options & FINDPATH_ANY_ANGLE != 0
            && let Some(tile) = nav.tile_by_ref(start_ref)
        {
            // A few agent radii is enough and not sensitive; the first tile's radius will do.
            let agent_radius = tile.header.walkable_radius;
            self.sliced.raycast_limit_sqr = sqr(agent_radius * RAY_CAST_LIMIT_PROPORTIONS);
        }
        if start_ref == end_ref {
            self.sliced.status = Status::SUCCESS;
            return Status::SUCCESS;
        }
        let pool = &mut self.node_pool;
        pool.clear();
        self.open_list.clear();
        let Some(start) = pool.get_node(start_ref, 0) else {
            return Status::FAILURE | Status::OUT_OF_NODES;
        };
        let total = vdist(start_pos, end_pos) * H_SCALE;
        {
            let node = pool.node_mut(start);
            node.pos = *start_pos;
            node.parent = 0;
            node.cost = 0.0;
            node.total = total;
            node.flags = NODE_OPEN;
        }
        self.open_list.push(start, total);
        self.sliced.status = Status::IN_PROGRESS;
        self.sliced.last_best_node = Some(start);
        self.sliced.last_best_node_cost = total;
        self.sliced.status
    }

    /// Runs up to `max_iter` iterations of the sliced search (`updateSlicedFindPath`).
    /// Returns the status and the iterations done; `IN_PROGRESS` means call again.
    pub fn update_sliced_find_path<F: PolyFilter + ?Sized>(
        &mut self,
        filter: &F,
        max_iter: usize,
    ) -> (Status, usize) {
        let nav = self.nav;
        let q = &mut self.sliced;
        if !q.status.is_in_progress() {
            return (q.status, 0);
        }
        if !is_valid_ref(nav, q.start_ref) || !is_valid_ref(nav, q.end_ref) {
            q.status = Status::FAILURE;
            return (Status::FAILURE, 0);
        }
        let pool = &mut self.node_pool;
        let open = &mut self.open_list;
        let mut iter = 0;
        while iter < max_iter && !open.is_empty() {
            iter += 1;
            let Some(best) = open.pop() else { break };
            let best_node = pool.node_mut(best);
            best_node.flags = (best_node.flags & !NODE_OPEN) | NODE_CLOSED;
            if best_node.poly_ref == q.end_ref {
                q.last_best_node = Some(best);
                q.status = Status::SUCCESS | q.status.details();
                return (q.status, iter);
            }
            let best_ref = best_node.poly_ref;
            let best_pos = best_node.pos;
            let best_cost = best_node.cost;
            let best_parent = best_node.parent;
            let Some((best_tile, best_poly)) = valid_tile_and_poly(nav, best_ref) else {
                // The polygon went away during the search.
                q.status = Status::FAILURE;
                return (q.status, iter);
            };
            let best_ctx = PolyContext::new(best_ref, best_tile, best_poly);
            let parent = pool.parent_at(best);
            let (parent_ref, parent_pos, parent_cost) = parent.map_or((0, [0.0; 3], 0.0), |p| {
                let n = pool.node_at(p);
                (n.poly_ref, n.pos, n.cost)
            });
            let grandpa_ref = parent
                .and_then(|p| pool.parent_at(p))
                .map_or(0, |g| pool.node_at(g).poly_ref);
            let mut parent_ctx = PolyContext::NONE;
            if parent_ref != 0 {
                match valid_tile_and_poly(nav, parent_ref) {
                    Some((t, p)) if grandpa_ref == 0 || is_valid_ref(nav, grandpa_ref) => {
                        parent_ctx = PolyContext::new(parent_ref, t, p);
                    }
                    _ => {
                        q.status = Status::FAILURE;
                        return (q.status, iter);
                    }
                }
            }
            let try_los = q.options & FINDPATH_ANY_ANGLE != 0
                && parent_ref != 0
                && vdist_sqr(&parent_pos, &best_pos) < q.raycast_limit_sqr;

            for link in links(best_tile, best_poly) {
                let neighbour_ref = link.neighbour;
                if neighbour_ref == 0 || neighbour_ref == parent_ref {
                    continue;
                }
                let Some((neighbour_tile, neighbour_poly)) = tile_and_poly(nav, neighbour_ref)
                else {
                    continue;
                };
                if !filter.pass_filter(neighbour_ref, neighbour_tile, neighbour_poly) {
                    continue;
                }
                let Some(neighbour) = pool.get_node(neighbour_ref, 0) else {
                    q.status |= Status::OUT_OF_NODES;
                    continue;
                };
                // Do not expand to nodes reached from the same parent already.
                let neighbour_parent = pool.node_at(neighbour).parent;
                if neighbour_parent != 0 && neighbour_parent == best_parent {
                    continue;
                }
                if pool.node_at(neighbour).flags == 0
                    && let Some(mid) = edge_mid_point(
                        best_ref,
                        best_poly,
                        best_tile,
                        neighbour_ref,
                        neighbour_poly,
                        neighbour_tile,
                    )
                {
                    pool.node_mut(neighbour).pos = mid;
                }
                let neighbour_pos = pool.node_at(neighbour).pos;
                let neighbour_ctx = PolyContext::new(neighbour_ref, neighbour_tile, neighbour_poly);

                let mut found_shortcut = false;
                let mut shortcut_cost = 0.0;
                if try_los {
                    let (_, hit) = raycast(
                        nav,
                        parent_ref,
                        &parent_pos,
                        &neighbour_pos,
                        filter,
                        RAYCAST_USE_COSTS,
                        grandpa_ref,
                        &mut [],
                    );
                    found_shortcut = hit.t >= 1.0;
                    shortcut_cost = hit.path_cost;
                }
                let mut cost = if found_shortcut {
                    parent_cost + shortcut_cost
                } else {
                    best_cost
                        + filter.cost(
                            &best_pos,
                            &neighbour_pos,
                            parent_ctx,
                            best_ctx,
                            neighbour_ctx,
                        )
                };
                let heuristic = if neighbour_ref == q.end_ref {
                    cost += filter.cost(
                        &neighbour_pos,
                        &q.end_pos,
                        best_ctx,
                        neighbour_ctx,
                        PolyContext::NONE,
                    );
                    0.0
                } else {
                    vdist(&neighbour_pos, &q.end_pos) * H_SCALE
                };
                let total = cost + heuristic;
                let node = pool.node_mut(neighbour);
                if node.flags & NODE_OPEN != 0 && !improves(total, node.total) {
                    continue;
                }
                if node.flags & NODE_CLOSED != 0 && !improves(total, node.total) {
                    continue;
                }
                node.parent = if found_shortcut {
                    best_parent
                } else {
                    best as u32 + 1
                };
                node.flags &= !(NODE_CLOSED | NODE_PARENT_DETACHED);
                node.cost = cost;
                node.total = total;
                if found_shortcut {
                    node.flags |= NODE_PARENT_DETACHED;
                }
                if node.flags & NODE_OPEN != 0 {
                    open.modify(neighbour, total);
                } else {
                    node.flags |= NODE_OPEN;
                    open.push(neighbour, total);
                }
                if heuristic < q.last_best_node_cost {
                    q.last_best_node_cost = heuristic;
                    q.last_best_node = Some(neighbour);
                }
            }
        }
        if open.is_empty() {
            q.status = Status::SUCCESS | q.status.details();
        }
        (q.status, iter)
    }

    /// Writes the result of a finished sliced search into `path` and resets the search
    /// (`finalizeSlicedFindPath`). Segments found by raycast shortcuts are filled in with the
    /// polygons the ray crosses.
    pub fn finalize_sliced_find_path<F: PolyFilter + ?Sized>(
        &mut self,
        filter: &F,
        path: &mut [PolyRef],
    ) -> (Status, usize) {
        if path.is_empty() {
            return (Status::invalid_param(), 0);
        }
        if self.sliced.status.is_failure() {
            self.sliced = SlicedQuery::default();
            return (Status::FAILURE, 0);
        }
        let n = if self.sliced.start_ref == self.sliced.end_ref {
            path[0] = self.sliced.start_ref;
            1
        } else {
            let Some(last_best) = self.sliced.last_best_node else {
                self.sliced = SlicedQuery::default();
                return (Status::FAILURE, 0);
            };
            if self.node_pool.node_at(last_best).poly_ref != self.sliced.end_ref {
                self.sliced.status |= Status::PARTIAL_RESULT;
            }
            self.store_reversed_path(last_best, filter, path)
        };
        let details = self.sliced.status.details();
        self.sliced = SlicedQuery::default();
        (Status::SUCCESS | details, n)
    }

    /// Like [`NavMeshQuery::finalize_sliced_find_path`], but ends the path at the furthest
    /// polygon of `existing` the search visited, for replanning a corridor whose end moved
    /// (`finalizeSlicedFindPathPartial`).
    pub fn finalize_sliced_find_path_partial<F: PolyFilter + ?Sized>(
        &mut self,
        filter: &F,
        existing: &[PolyRef],
        path: &mut [PolyRef],
    ) -> (Status, usize) {
        if existing.is_empty() || path.is_empty() {
            return (Status::invalid_param(), 0);
        }
        if self.sliced.status.is_failure() {
            self.sliced = SlicedQuery::default();
            return (Status::FAILURE, 0);
        }
        let n = if self.sliced.start_ref == self.sliced.end_ref {
            path[0] = self.sliced.start_ref;
            1
        } else {
            let visited = existing
                .iter()
                .rev()
                .find_map(|&r| self.node_pool.find_nodes(r).next());
            let node = match visited {
                Some(node) => node,
                None => {
                    self.sliced.status |= Status::PARTIAL_RESULT;
                    let Some(last_best) = self.sliced.last_best_node else {
                        self.sliced = SlicedQuery::default();
                        return (Status::FAILURE, 0);
                    };
                    last_best
                }
            };
            self.store_reversed_path(node, filter, path)
        };
        let details = self.sliced.status.details();
        self.sliced = SlicedQuery::default();
        (Status::SUCCESS | details, n)
    }

    /// Reverses the parent chain ending at `end` in place, then writes it from the start,
    /// expanding shortcut segments with raycasts. Detail bits go into the sliced status.
    fn store_reversed_path<F: PolyFilter + ?Sized>(
        &mut self,
        end: usize,
        filter: &F,
        path: &mut [PolyRef],
    ) -> usize {
        let pool = &mut self.node_pool;
        // Reverse the chain; each node then carries the detached flag of the segment that
        // leads into it from the start side.
        // Both walks visit at most `node_count` nodes (see `path_to_node`).
        let chain_limit = pool.node_count();
        let mut prev: Option<usize> = None;
        let mut node = Some(end);
        let mut prev_ray = 0;
        let mut steps = 0;
        while let Some(i) = node
            && steps < chain_limit
        {
            steps += 1;
            let next = pool.parent_at(i);
            let n = pool.node_mut(i);
            n.parent = prev.map_or(0, |p| p as u32 + 1);
            let next_ray = n.flags & NODE_PARENT_DETACHED;
            n.flags = (n.flags & !NODE_PARENT_DETACHED) | prev_ray;
            prev_ray = next_ray;
            prev = Some(i);
            node = next;
        }
        let max_path = path.len();
        let mut n = 0;
        let mut node = prev;
        let mut steps = 0;
        while let Some(i) = node
            && steps < chain_limit
        {
            steps += 1;
            let next = pool.parent_at(i);
            let cur = *pool.node_at(i);
            let mut status = Status::default();
            if cur.flags & NODE_PARENT_DETACHED != 0 {
                if let Some(next) = next {
                    let next_node = *pool.node_at(next);
                    let (s, hit) = raycast(
                        self.nav,
                        cur.poly_ref,
                        &cur.pos,
                        &next_node.pos,
                        filter,
                        0,
                        0,
                        &mut path[n..],
                    );
                    status = s;
                    n += hit.path_count;
                    // The ray ends on the next polygon's boundary and may already list it.
                    if n > 0 && path[n - 1] == next_node.poly_ref {
                        n -= 1;
                    }
                }
            } else if n >= max_path {
                // Only reachable after a raycast filled the buffer exactly; C++ would write
                // past its end here.
                status = Status::BUFFER_TOO_SMALL;
            } else {
                path[n] = cur.poly_ref;
                n += 1;
                if n >= max_path {
                    status = Status::BUFFER_TOO_SMALL;
                }
            }
            if status.details() != Status::default() {
                self.sliced.status |= status.details();
                break;
            }
            node = next;
        }
        n
    }

    /// The path from the start of the last Dijkstra search
    /// ([`NavMeshQuery::find_polys_around_circle`], [`NavMeshQuery::find_polys_around_shape`])
    /// to `end_ref`, which it must have expanded (`getPathFromDijkstraSearch`).
    pub fn get_path_from_dijkstra_search(
        &self,
        end_ref: PolyRef,
        path: &mut [PolyRef],
    ) -> (Status, usize) {
        if !is_valid_ref(self.nav, end_ref) {
            return (Status::invalid_param(), 0);
        }
        match self.node_pool.find_nodes(end_ref).next() {
            Some(end) if self.node_pool.node_at(end).flags & NODE_CLOSED != 0 => {
                path_to_node(&self.node_pool, end, path)
            }
            _ => (Status::invalid_param(), 0),
        }
    }
}
