//! Detour's navmesh queries (`dtNavMeshQuery`): nearest polygon, A* paths (whole and
//! sliced), string pulling, raycasts, surface movement, Dijkstra searches around circles and
//! shapes, wall distances, local neighbourhoods and random points.
//!
//! Every query performs C++ Detour's f32 operations in the same order and visits polygons in
//! the same order, so results are bit-identical to the C++ library's (checked against its
//! output in the tests).
//!
//! # Threads
//! A [`NavMesh`] is read-only to queries and can be shared by many threads (`&NavMesh` is
//! `Send + Sync`). A [`NavMeshQuery`] owns the node pools a search writes to, so each thread
//! makes its own; queries on different threads never interfere.
//!
//! # Results
//! Each query returns its [`Status`] beside its outputs. Variable-length outputs go into
//! caller-provided slices whose length is the C++ `max*` argument, so buffer limits (and
//! `BUFFER_TOO_SMALL`) behave exactly as in C++ and queries do not allocate (the one
//! exception: a box query over far more grid cells than the navmesh has tiles sorts the
//! tiles it meets instead of walking every cell).
//!
//! # Bad input
//! Invalid or stale references, non-finite positions, non-positive or non-finite extents
//! and radii, and empty buffers where C++ requires room, give `FAILURE | INVALID_PARAM`;
//! no input makes a query panic.

mod filter;
pub mod geometry;
mod local;
mod node;
mod path;
pub mod path_follow;
mod raycast;
mod status;
mod straight;

pub use filter::{PolyContext, PolyFilter, QueryFilter};
pub use local::{MoveResult, NeighbourPoly, VisitedPoly, WallHit, WallSegment};
pub use node::{
    MAX_NODES, MAX_STATES_PER_NODE, NODE_CLOSED, NODE_OPEN, NODE_PARENT_DETACHED, Node, NodePool,
};
pub use raycast::{RAYCAST_USE_COSTS, RaycastHit};
pub use status::Status;
pub use straight::{
    STRAIGHTPATH_ALL_CROSSINGS, STRAIGHTPATH_AREA_CROSSINGS, STRAIGHTPATH_END,
    STRAIGHTPATH_OFFMESH_CONNECTION, STRAIGHTPATH_START, StraightPathPoint,
};

use crate::detour::common::{self, Vec3};
use crate::detour::{Link, MeshTile, NavMesh, Poly, PolyRef};
use geometry::{visfinite, visfinite_2d};
use node::NodeQueue;

/// Use raycast shortcuts while searching (`DT_FINDPATH_ANY_ANGLE`), an option of
/// [`NavMeshQuery::init_sliced_find_path`].
pub const FINDPATH_ANY_ANGLE: u32 = 0x02;
/// Scale of the A* heuristic (`H_SCALE`).
const H_SCALE: f32 = 0.999;
/// Raycast shortcuts of any-angle searches reach this many agent radii
/// (`DT_RAY_CAST_LIMIT_PROPORTIONS`).
const RAY_CAST_LIMIT_PROPORTIONS: f32 = 50.0;
/// Nodes and buckets of the small pool of local searches.
const TINY_POOL_NODES: usize = 64;
const TINY_POOL_BUCKETS: usize = 32;
/// Polygons handed to a [`PolyQuery`] at once (`batchSize`).
const QUERY_BATCH: usize = 32;

/// Behaviour switches that deliberately differ from C++ Detour. The default is C++'s
/// behaviour.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QueryOptions {
    /// Walk only the BV-tree nodes the tree really has.
    ///
    /// Detour's tile builder reserves `2 * polyCount` BV nodes for a tree of
    /// `2 * polyCount - 1`, so the last node of every tile is all zeros, which reads as a
    /// leaf for polygon 0 with an empty box at the tile's minimum corner. C++ walks it, so a
    /// query box that reaches the tile's minimum corner also finds polygon 0, however far
    /// away it is (recastnavigation PR #725). With this switch the walk stops at the end of
    /// the real tree (the root's escape offset).
    pub skip_unused_bv_nodes: bool,
}

/// Receives the polygons a box query finds ([`NavMeshQuery::query_polygons_with`]), in
/// batches of up to 32 from one tile (`dtPolyQuery`).
pub trait PolyQuery {
    /// Takes `refs`, polygons of `tile` that the box overlaps.
    fn process(&mut self, tile: &MeshTile, refs: &[PolyRef]);
}

impl<T: FnMut(&MeshTile, &[PolyRef])> PolyQuery for T {
    fn process(&mut self, tile: &MeshTile, refs: &[PolyRef]) {
        self(tile, refs)
    }
}

/// The nearest polygon to a point ([`NavMeshQuery::find_nearest_poly`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct NearestPoly {
    /// The polygon, 0 when none was within the box.
    pub poly_ref: PolyRef,
    /// The closest point on it (the query point when nothing was found).
    pub point: Vec3,
    /// Whether the query point lies over the polygon in xz.
    pub is_over_poly: bool,
}

/// The state of a sliced path search (`dtQueryData`).
#[derive(Clone, Copy, Debug, Default)]
struct SlicedQuery {
    status: Status,
    last_best_node: Option<usize>,
    last_best_node_cost: f32,
    start_ref: PolyRef,
    end_ref: PolyRef,
    end_pos: Vec3,
    options: u32,
    raycast_limit_sqr: f32,
}

/// Queries on one navmesh, with the node pools and open list they search with
/// (`dtNavMeshQuery`). Make one per thread; the navmesh itself is shared.
#[derive(Clone, Debug)]
pub struct NavMeshQuery<'a> {
    nav: &'a NavMesh,
    node_pool: NodePool,
    tiny_node_pool: NodePool,
    open_list: NodeQueue,
    sliced: SlicedQuery,
    options: QueryOptions,
}

/// The tile and polygon of a reference the navmesh itself produced (links, nodes), without
/// checking the salt (`getTileAndPolyByRefUnsafe`); `None` only for a reference past the
/// loaded data.
#[inline]
pub(crate) fn tile_and_poly(nav: &NavMesh, r: PolyRef) -> Option<(&MeshTile, &Poly)> {
    let tile = nav.tile(nav.decode_poly_id_tile(r) as usize)?;
    let poly = tile.polys.get(nav.decode_poly_id_poly(r) as usize)?;
    Some((tile, poly))
}

/// The tile and polygon of a caller's reference, checked: the salt must match a loaded
/// tile and the polygon index must exist (`getTileAndPolyByRef`).
#[inline]
pub(crate) fn valid_tile_and_poly(nav: &NavMesh, r: PolyRef) -> Option<(&MeshTile, &Poly)> {
    let tile = nav.tile_by_ref(r)?;
    let poly = tile.polys.get(nav.decode_poly_id_poly(r) as usize)?;
    Some((tile, poly))
}

/// Whether `r` names a live polygon (`isValidPolyRef`).
#[inline]
pub(crate) fn is_valid_ref(nav: &NavMesh, r: PolyRef) -> bool {
    valid_tile_and_poly(nav, r).is_some()
}

/// The links of `poly` in list order, stopping at a broken index.
#[inline]
pub(crate) fn links<'t>(tile: &'t MeshTile, poly: &Poly) -> impl Iterator<Item = &'t Link> + 't {
    let mut next = poly.first_link;
    std::iter::from_fn(move || {
        let link = tile.links.get(next as usize)?;
        next = link.next;
        Some(link)
    })
}

/// Vertex `k` of `poly`.
#[inline]
pub(crate) fn poly_vertex<'t>(tile: &'t MeshTile, poly: &Poly, k: usize) -> &'t Vec3 {
    &tile.verts[usize::from(poly.verts[k])]
}

/// The vertices of `poly` copied into an array, and how many there are.
#[inline]
pub(crate) fn poly_verts(tile: &MeshTile, poly: &Poly) -> ([Vec3; 6], usize) {
    let mut verts = [[0.0; 3]; 6];
    let indices = poly.vertex_indices();
    for (v, &i) in verts.iter_mut().zip(indices) {
        *v = tile.verts[usize::from(i)];
    }
    (verts, indices.len())
}

/// The reference of polygon 0 of the tile `r` lies in (`getPolyRefBase`).
#[inline]
pub(crate) fn poly_ref_base(nav: &NavMesh, r: PolyRef) -> PolyRef {
    r & !PolyRef::from(nav.decode_poly_id_poly(PolyRef::MAX))
}

/// The two ends of the portal from `from` to `to` (`getPortalPoints`): the shared edge,
/// narrowed to the link's range on tile borders, or the off-mesh connection's end point.
#[inline]
pub(crate) fn portal_points(
    from: PolyRef,
    from_poly: &Poly,
    from_tile: &MeshTile,
    to: PolyRef,
    to_poly: &Poly,
    to_tile: &MeshTile,
) -> Option<(Vec3, Vec3)> {
    let link = links(from_tile, from_poly).find(|l| l.neighbour == to)?;
    portal_points_on_link(link, from, from_poly, from_tile, to_poly, to_tile)
}

/// [`portal_points`] once the first link of `from` to the other polygon is known.
#[inline]
pub(crate) fn portal_points_on_link(
    link: &Link,
    from: PolyRef,
    from_poly: &Poly,
    from_tile: &MeshTile,
    to_poly: &Poly,
    to_tile: &MeshTile,
) -> Option<(Vec3, Vec3)> {
    if from_poly.is_off_mesh_connection() {
        let v = *poly_vertex(from_tile, from_poly, usize::from(link.edge));
        return Some((v, v));
    }
    if to_poly.is_off_mesh_connection() {
        let back = links(to_tile, to_poly).find(|l| l.neighbour == from)?;
        let v = *poly_vertex(to_tile, to_poly, usize::from(back.edge));
        return Some((v, v));
    }
    let nv = usize::from(from_poly.vert_count);
    let edge = usize::from(link.edge);
    let v0 = *poly_vertex(from_tile, from_poly, edge);
    let v1 = *poly_vertex(
        from_tile,
        from_poly,
        if edge + 1 < nv { edge + 1 } else { 0 },
    );
    if link.side != 0xff && (link.bmin != 0 || link.bmax != 255) {
        const S: f32 = 1.0 / 255.0;
        let tmin = f32::from(link.bmin) * S;
        let tmax = f32::from(link.bmax) * S;
        return Some((common::vlerp(&v0, &v1, tmin), common::vlerp(&v0, &v1, tmax)));
    }
    Some((v0, v1))
}

/// The middle of a portal (`getEdgeMidPoint`'s arithmetic).
#[inline]
pub(crate) fn mid_point((l, r): (Vec3, Vec3)) -> Vec3 {
    [
        (l[0] + r[0]) * 0.5,
        (l[1] + r[1]) * 0.5,
        (l[2] + r[2]) * 0.5,
    ]
}

/// The tile and polygon of link target `r` seen from `from_ref` in `from_tile`: the same
/// tile needs no slot lookup.
#[inline]
pub(crate) fn neighbour_tile_and_poly<'t>(
    nav: &'t NavMesh,
    from_ref: PolyRef,
    from_tile: &'t MeshTile,
    r: PolyRef,
) -> Option<(&'t MeshTile, &'t Poly)> {
    let poly_mask = PolyRef::from(nav.decode_poly_id_poly(PolyRef::MAX));
    if (r ^ from_ref) & !poly_mask == 0 {
        Some((from_tile, from_tile.polys.get((r & poly_mask) as usize)?))
    } else {
        tile_and_poly(nav, r)
    }
}

/// The middle of the portal from `from` to `to` (`getEdgeMidPoint`).
#[inline]
pub(crate) fn edge_mid_point(
    from: PolyRef,
    from_poly: &Poly,
    from_tile: &MeshTile,
    to: PolyRef,
    to_poly: &Poly,
    to_tile: &MeshTile,
) -> Option<Vec3> {
    portal_points(from, from_poly, from_tile, to, to_poly, to_tile).map(mid_point)
}

/// A [`NavMeshQuery`]'s memory without its navmesh ([`NavMeshQuery::detach`]).
///
/// Attach it to the navmesh it was detached from, or to that navmesh after the tile cache or
/// a tile rebuild changed it in place, and a sliced search under way goes on as C++ Detour's
/// would (its references are checked again on each step). Attached to another navmesh, start
/// new searches only.
#[derive(Clone, Debug)]
pub struct DetachedQuery {
    node_pool: NodePool,
    tiny_node_pool: NodePool,
    open_list: NodeQueue,
    sliced: SlicedQuery,
    options: QueryOptions,
}

impl DetachedQuery {
    /// The memory of a query whose main node pool holds `max_nodes` nodes, checked as
    /// [`NavMeshQuery::new`] checks it.
    pub fn new(max_nodes: usize) -> Result<DetachedQuery, Status> {
        if max_nodes == 0 || max_nodes > MAX_NODES {
            return Err(Status::invalid_param());
        }
        Ok(DetachedQuery::with_clamped_max_nodes(max_nodes))
    }

    /// The memory of a query with `max_nodes` brought into 1..=65535, for callers that
    /// checked the count already and must not fail.
    pub(crate) fn with_clamped_max_nodes(max_nodes: usize) -> DetachedQuery {
        DetachedQuery {
            node_pool: NodePool::with_max_nodes(max_nodes.clamp(1, MAX_NODES)),
            tiny_node_pool: NodePool::new(TINY_POOL_NODES, TINY_POOL_BUCKETS),
            open_list: NodeQueue::new(max_nodes.clamp(1, MAX_NODES)),
            sliced: SlicedQuery::default(),
            options: QueryOptions::default(),
        }
    }

    /// The main node pool's size.
    pub fn max_nodes(&self) -> usize {
        self.node_pool.max_nodes()
    }

    /// A query on `nav` with this memory; nothing is allocated.
    pub fn attach(self, nav: &NavMesh) -> NavMeshQuery<'_> {
        NavMeshQuery {
            nav,
            node_pool: self.node_pool,
            tiny_node_pool: self.tiny_node_pool,
            open_list: self.open_list,
            sliced: self.sliced,
            options: self.options,
        }
    }
}

impl<'a> NavMeshQuery<'a> {
    /// A query object for `nav` whose main node pool holds `max_nodes` nodes
    /// (`dtNavMeshQuery::init`). `max_nodes` must be 1..=65535, otherwise
    /// `FAILURE | INVALID_PARAM`.
    pub fn new(nav: &'a NavMesh, max_nodes: usize) -> Result<NavMeshQuery<'a>, Status> {
        Ok(DetachedQuery::new(max_nodes)?.attach(nav))
    }

    /// The navmesh this object queries (`getAttachedNavMesh`).
    pub fn nav_mesh(&self) -> &'a NavMesh {
        self.nav
    }

    /// Lets go of the navmesh and keeps the node pools, the open list, the sliced search and
    /// the options, so that a long-lived owner (a crowd, a game's per-thread query) needs no
    /// borrow between frames. [`DetachedQuery::attach`] takes them up again without
    /// allocating.
    pub fn detach(self) -> DetachedQuery {
        DetachedQuery {
            node_pool: self.node_pool,
            tiny_node_pool: self.tiny_node_pool,
            open_list: self.open_list,
            sliced: self.sliced,
            options: self.options,
        }
    }

    /// The node pool of the last A* or Dijkstra search (`getNodePool`), for drawing it.
    pub fn node_pool(&self) -> &NodePool {
        &self.node_pool
    }

    /// The small pool of the last local search (surface move, local neighbourhood).
    pub fn tiny_node_pool(&self) -> &NodePool {
        &self.tiny_node_pool
    }

    /// What the queries do differently from C++ (`QueryOptions`).
    pub fn options(&self) -> QueryOptions {
        self.options
    }

    /// Sets what the queries do differently from C++.
    pub fn set_options(&mut self, options: QueryOptions) {
        self.options = options;
    }

    /// Whether `r` names a live polygon that `filter` accepts (`isValidPolyRef`).
    pub fn is_valid_poly_ref<F: PolyFilter + ?Sized>(&self, r: PolyRef, filter: &F) -> bool {
        valid_tile_and_poly(self.nav, r)
            .is_some_and(|(tile, poly)| filter.pass_filter(r, tile, poly))
    }

    /// Whether the last search expanded `r` (`isInClosedList`).
    pub fn is_in_closed_list(&self, r: PolyRef) -> bool {
        self.node_pool
            .find_nodes(r)
            .take(MAX_STATES_PER_NODE)
            .any(|i| self.node_pool.node_at(i).flags & NODE_CLOSED != 0)
    }

    /// The point of `r` closest to `pos` on its detail surface, and whether `pos` lies over
    /// it (`closestPointOnPoly`).
    pub fn closest_point_on_poly(&self, r: PolyRef, pos: &Vec3) -> (Status, Vec3, bool) {
        let Some((tile, _)) = valid_tile_and_poly(self.nav, r) else {
            return (Status::invalid_param(), *pos, false);
        };
        if !visfinite(pos) {
            return (Status::invalid_param(), *pos, false);
        }
        let ip = self.nav.decode_poly_id_poly(r) as usize;
        let (closest, over) = tile.closest_point_on_poly(ip, pos);
        (Status::SUCCESS, closest, over)
    }

    /// The point of `r`'s boundary polygon closest to `pos` in xz, or `pos` when inside;
    /// faster than [`NavMeshQuery::closest_point_on_poly`] and ignores the detail mesh
    /// (`closestPointOnPolyBoundary`).
    pub fn closest_point_on_poly_boundary(&self, r: PolyRef, pos: &Vec3) -> (Status, Vec3) {
        let Some((tile, poly)) = valid_tile_and_poly(self.nav, r) else {
            return (Status::invalid_param(), *pos);
        };
        if !visfinite(pos) {
            return (Status::invalid_param(), *pos);
        }
        (
            Status::SUCCESS,
            closest_point_on_poly_boundary(tile, poly, pos),
        )
    }

    /// The detail-surface height of `r` at `pos`, when `pos` lies over it in xz
    /// (`getPolyHeight`). On failure the height is 0.
    pub fn get_poly_height(&self, r: PolyRef, pos: &Vec3) -> (Status, f32) {
        let Some((tile, poly)) = valid_tile_and_poly(self.nav, r) else {
            return (Status::invalid_param(), 0.0);
        };
        if !visfinite_2d(pos) {
            return (Status::invalid_param(), 0.0);
        }
        let ip = self.nav.decode_poly_id_poly(r) as usize;
        if poly.is_off_mesh_connection() {
            let v0 = poly_vertex(tile, poly, 0);
            let v1 = poly_vertex(tile, poly, 1);
            let (_, t) = common::distance_pt_seg_sqr_2d(pos, v0, v1);
            return (Status::SUCCESS, v0[1] + (v1[1] - v0[1]) * t);
        }
        match tile.poly_height(ip, pos) {
            Some(h) => (Status::SUCCESS, h),
            None => (Status::invalid_param(), 0.0),
        }
    }

    /// The polygon nearest to `center` among those whose bounds overlap the box
    /// `center ± half_extents` and that pass `filter` (`findNearestPoly`). A polygon right
    /// under or over the point within climb height counts as distance 0. Succeeds with
    /// reference 0 when the box meets no polygon.
    pub fn find_nearest_poly<F: PolyFilter + ?Sized>(
        &self,
        center: &Vec3,
        half_extents: &Vec3,
        filter: &F,
    ) -> (Status, NearestPoly) {
        let mut best = NearestPoly {
            poly_ref: 0,
            point: *center,
            is_over_poly: false,
        };
        let mut best_distance_sqr = f32::MAX;
        let status = self.visit_polygons(center, half_extents, filter, |tile, ip, r| {
            // No distance is below 0, so once a polygon at 0 is found no later one can win.
            if best_distance_sqr == 0.0 {
                return;
            }
            let (closest, over) = tile.closest_point_on_poly(ip, center);
            let diff = common::vsub(center, &closest);
            let d = if over {
                let d = common::abs(diff[1]) - tile.header.walkable_climb;
                if d > 0.0 { d * d } else { 0.0 }
            } else {
                common::vlen_sqr(&diff)
            };
            if d < best_distance_sqr {
                best = NearestPoly {
                    poly_ref: r,
                    point: closest,
                    is_over_poly: over,
                };
                best_distance_sqr = d;
            }
        });
        if status.is_failure() {
            return (
                status,
                NearestPoly {
                    point: *center,
                    ..NearestPoly::default()
                },
            );
        }
        (Status::SUCCESS, best)
    }

    /// The polygons whose bounds overlap the box `center ± half_extents` and that pass
    /// `filter`, up to `polys.len()` of them (`queryPolygons`). Adds `BUFFER_TOO_SMALL`
    /// when more were found; which ones are kept then is Detour's visiting order.
    pub fn query_polygons<F: PolyFilter + ?Sized>(
        &self,
        center: &Vec3,
        half_extents: &Vec3,
        filter: &F,
        polys: &mut [PolyRef],
    ) -> (Status, usize) {
        let mut count = 0;
        let mut overflow = false;
        let status = self.visit_polygons(center, half_extents, filter, |_, _, r| {
            match polys.get_mut(count) {
                Some(slot) => {
                    *slot = r;
                    count += 1;
                }
                None => overflow = true,
            }
        });
        if status.is_failure() {
            return (status, 0);
        }
        if overflow {
            (Status::SUCCESS | Status::BUFFER_TOO_SMALL, count)
        } else {
            (Status::SUCCESS, count)
        }
    }

    /// Hands every polygon of [`NavMeshQuery::query_polygons`] to `query`, in batches of up
    /// to 32 per tile (`queryPolygons` with a `dtPolyQuery`).
    pub fn query_polygons_with<F: PolyFilter + ?Sized, Q: PolyQuery + ?Sized>(
        &self,
        center: &Vec3,
        half_extents: &Vec3,
        filter: &F,
        query: &mut Q,
    ) -> Status {
        let mut batch = [0 as PolyRef; QUERY_BATCH];
        let mut n = 0;
        let mut batch_tile: Option<&MeshTile> = None;
        let status = self.visit_polygons(center, half_extents, filter, |tile, _, r| {
            if let Some(prev) = batch_tile
                && !std::ptr::eq(prev, tile)
                && n > 0
            {
                query.process(prev, &batch[..n]);
                n = 0;
            }
            batch_tile = Some(tile);
            batch[n] = r;
            n += 1;
            if n == QUERY_BATCH {
                query.process(tile, &batch);
                n = 0;
            }
        });
        if let Some(tile) = batch_tile
            && n > 0
        {
            query.process(tile, &batch[..n]);
        }
        status
    }

    /// Calls `visit(tile, poly index, ref)` for every polygon `queryPolygons` would report,
    /// in its order.
    #[inline]
    fn visit_polygons<F: PolyFilter + ?Sized>(
        &self,
        center: &Vec3,
        half_extents: &Vec3,
        filter: &F,
        mut visit: impl FnMut(&'a MeshTile, usize, PolyRef),
    ) -> Status {
        if !visfinite(center) || !visfinite(half_extents) || half_extents.iter().any(|&e| e <= 0.0)
        {
            return Status::invalid_param();
        }
        let bmin = common::vsub(center, half_extents);
        let bmax = common::vadd(center, half_extents);
        let nav = self.nav;
        let params = nav.params();
        let loc = |p: &Vec3| {
            (
                common::floor_to_i32_like_x86((p[0] - params.orig[0]) / params.tile_width),
                common::floor_to_i32_like_x86((p[2] - params.orig[2]) / params.tile_height),
            )
        };
        let (minx, miny) = loc(&bmin);
        let (maxx, maxy) = loc(&bmax);
        let cells = (i64::from(maxx) - i64::from(minx) + 1).max(0)
            * (i64::from(maxy) - i64::from(miny) + 1).max(0);
        if cells <= 4 * nav.max_tiles().max(1) as i64 {
            for y in miny..=maxy {
                for x in minx..=maxx {
                    for index in nav.tile_indices_at(x, y).take(MAX_TILES_AT) {
                        self.visit_tile(index, &bmin, &bmax, filter, &mut visit);
                    }
                }
            }
        } else {
            // A box over far more grid cells than there are tiles: visit the loaded tiles in
            // the order the cell walk would, without walking empty cells.
            let mut found: Vec<(i32, i32, usize, usize)> = Vec::new();
            for (_, tile) in nav.tiles() {
                let (x, y) = (tile.header.x, tile.header.y);
                if x < minx || x > maxx || y < miny || y > maxy {
                    continue;
                }
                for (order, index) in nav.tile_indices_at(x, y).enumerate().take(MAX_TILES_AT) {
                    if nav.tile(index).is_some_and(|t| std::ptr::eq(t, tile)) {
                        found.push((y, x, order, index));
                    }
                }
            }
            found.sort_unstable();
            for (_, _, _, index) in found {
                self.visit_tile(index, &bmin, &bmax, filter, &mut visit);
            }
        }
        Status::SUCCESS
    }

    /// `queryPolygonsInTile` for the tile in slot `index`.
    #[inline]
    fn visit_tile<F: PolyFilter + ?Sized>(
        &self,
        index: usize,
        qmin: &Vec3,
        qmax: &Vec3,
        filter: &F,
        visit: &mut impl FnMut(&'a MeshTile, usize, PolyRef),
    ) {
        let nav = self.nav;
        let Some(tile) = nav.tile(index) else {
            return;
        };
        let base = nav.poly_ref_base(index);
        if tile.bv_tree.is_empty() {
            for (i, p) in tile.polys.iter().enumerate() {
                if p.is_off_mesh_connection() {
                    continue;
                }
                let r = base | i as PolyRef;
                if !filter.pass_filter(r, tile, p) {
                    continue;
                }
                let (verts, nv) = poly_verts(tile, p);
                let mut bmin = verts[0];
                let mut bmax = verts[0];
                for v in &verts[1..nv] {
                    common::vmin(&mut bmin, v);
                    common::vmax(&mut bmax, v);
                }
                if common::overlap_bounds(qmin, qmax, &bmin, &bmax) {
                    visit(tile, i, r);
                }
            }
            return;
        }
        let header = &tile.header;
        let (tbmin, tbmax) = (&header.bmin, &header.bmax);
        let qfac = header.bv_quant_factor;
        let local = |q: &Vec3, k: usize| common::clamp(q[k], tbmin[k], tbmax[k]) - tbmin[k];
        let bmin: [u16; 3] =
            std::array::from_fn(|k| common::f32_to_u16_wrapping(qfac * local(qmin, k)) & 0xfffe);
        let bmax: [u16; 3] =
            std::array::from_fn(|k| common::f32_to_u16_wrapping(qfac * local(qmax, k) + 1.0) | 1);
        let nodes = if self.options.skip_unused_bv_nodes {
            let real = match tile.bv_tree[0].i {
                i if i < 0 => i.unsigned_abs() as usize,
                _ => 1,
            };
            &tile.bv_tree[..real.min(tile.bv_tree.len())]
        } else {
            &tile.bv_tree[..]
        };
        let mut n = 0;
        while let Some(node) = nodes.get(n) {
            let overlap = common::overlap_quant_bounds(&bmin, &bmax, &node.bmin, &node.bmax);
            let leaf = node.i >= 0;
            if leaf && overlap {
                let i = node.i as usize;
                if let Some(p) = tile.polys.get(i) {
                    let r = base | i as PolyRef;
                    if filter.pass_filter(r, tile, p) {
                        visit(tile, i, r);
                    }
                }
            }
            if overlap || leaf {
                n += 1;
            } else {
                n += node.i.unsigned_abs() as usize;
            }
        }
    }
}

/// Most tiles `queryPolygons` takes from one grid cell (`MAX_NEIS`).
const MAX_TILES_AT: usize = 32;

/// `closestPointOnPolyBoundary` on a checked polygon. The inside test comes first, alone:
/// it is the edge distances' own test, and a point inside (the usual case: an agent on its
/// corridor's first polygon) needs no distances.
pub(crate) fn closest_point_on_poly_boundary(tile: &MeshTile, poly: &Poly, pos: &Vec3) -> Vec3 {
    let indices = poly.vertex_indices();
    if common::point_in_polygon_by(pos, indices.len(), |k| &tile.verts[usize::from(indices[k])]) {
        return *pos;
    }
    let (verts, nv) = poly_verts(tile, poly);
    // The nearest edge, the lowest index among equals (edge `e` runs from vertex `e` to the
    // next); edge 0 is the starting candidate, as in C++.
    let next = |e: usize| (e + 1) % nv.max(1);
    let edge = |e: usize| common::distance_pt_seg_sqr_2d(pos, &verts[e], &verts[next(e)]);
    let (mut dmin, mut tmin) = edge(0);
    let mut imin = 0;
    for e in 1..nv {
        let (d, t) = edge(e);
        if d < dmin {
            (dmin, tmin, imin) = (d, t, e);
        }
    }
    common::vlerp(&verts[imin], &verts[next(imin)], tmin)
}
