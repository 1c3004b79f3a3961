//! Queries that own their memory and return values: [`NavQuery`] keeps the node pools and
//! buffers of the exact [`NavMeshQuery`] without borrowing the navmesh, and [`NavMesh`] gets
//! the same queries as methods that use one `NavQuery` per thread.

use std::cell::RefCell;

use super::flags::StraightPathOptions;
use crate::detour::query::{
    DetachedQuery, MAX_NODES, NavMeshQuery, PolyFilter, STRAIGHTPATH_END,
    STRAIGHTPATH_OFFMESH_CONNECTION, STRAIGHTPATH_START, Status, StraightPathPoint,
};
use crate::detour::{NavMesh, PolyRef};

/// Nodes a search may visit: RecastDemo's tester uses 2048. A path never holds more polygons
/// than this.
pub const DEFAULT_MAX_NODES: usize = 2048;

/// How far from a position, on each axis, a polygon is looked for: RecastDemo's (2, 4, 2)
/// metres, right for agents of about human size on levels in metres.
pub const DEFAULT_HALF_EXTENTS: [f32; 3] = [2.0, 4.0, 2.0];

/// A point on the navmesh: the polygon it lies on and where.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NavPoint {
    /// The polygon.
    pub poly: PolyRef,
    /// The position, on the polygon.
    pub position: [f32; 3],
}

/// What a corner of a [`Path`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WaypointKind {
    /// The path's first point.
    Start,
    /// A turn around a wall corner, or a crossing the path options asked for.
    Corner,
    /// The start of an off-mesh link: the agent jumps or climbs from here to the next point.
    OffMeshLink,
    /// The path's last point.
    End,
}

/// One point of a [`Path`]'s straight line.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Waypoint {
    /// Where, world units.
    pub position: [f32; 3],
    /// What kind of point it is.
    pub kind: WaypointKind,
    /// The polygon the path enters here (none for the end point).
    pub poly: Option<PolyRef>,
}

/// A path over the navmesh: the polygons it crosses and the straight line through them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Path {
    /// The polygons from the start's to the end's (A*'s corridor).
    pub polys: Vec<PolyRef>,
    /// The corners of the shortest line through those polygons, start and end included.
    pub waypoints: Vec<Waypoint>,
}

impl Path {
    /// The positions of the waypoints, in order.
    pub fn points(&self) -> impl Iterator<Item = [f32; 3]> + '_ {
        self.waypoints.iter().map(|w| w.position)
    }

    /// The length of the straight line, world units.
    pub fn length(&self) -> f32 {
        self.waypoints
            .windows(2)
            .map(|w| distance(w[0].position, w[1].position))
            .sum()
    }

    /// The last waypoint's position (the end, or where a partial path stops).
    pub fn end(&self) -> Option<[f32; 3]> {
        self.waypoints.last().map(|w| w.position)
    }
}

/// What a [`NavQuery::raycast`] met.
#[derive(Clone, Debug, PartialEq)]
pub struct RayHit {
    /// Where the ray stopped: at the wall it hit, or at its end. The ray is cast in xz, and
    /// the height here is interpolated along it.
    pub position: [f32; 3],
    /// The wall that stopped it; none when the ray reached its end.
    pub wall: Option<RayWall>,
    /// The polygons the ray crossed, from the start's.
    pub polys: Vec<PolyRef>,
}

/// The wall a ray hit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayWall {
    /// How far along the ray, from 0 at its start to 1 at its end.
    pub t: f32,
    /// The wall's normal in xz.
    pub normal: [f32; 3],
}

/// The nearest wall around a point ([`NavQuery::distance_to_wall`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WallDistance {
    /// Distance to it, or the search radius when no wall is nearer.
    pub distance: f32,
    /// The nearest wall point; none when no wall is within the radius.
    pub point: Option<[f32; 3]>,
    /// From the wall point towards the query point, normalised (zero without a wall).
    pub normal: [f32; 3],
}

/// Why a query gave no answer.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum QueryError {
    /// No polygon the filter accepts lies within the search box around the start.
    #[error("no navmesh polygon within {half_extents:?} of the start {position:?}")]
    NoPolygonNearStart {
        /// The start asked for.
        position: [f32; 3],
        /// The half size of the box searched.
        half_extents: [f32; 3],
    },
    /// No polygon the filter accepts lies within the search box around the end.
    #[error("no navmesh polygon within {half_extents:?} of the end {position:?}")]
    NoPolygonNearEnd {
        /// The end asked for.
        position: [f32; 3],
        /// The half size of the box searched.
        half_extents: [f32; 3],
    },
    /// No polygon the filter accepts lies within the search box around a point.
    #[error("no navmesh polygon within {half_extents:?} of {position:?}")]
    NoPolygonNear {
        /// The point asked about.
        position: [f32; 3],
        /// The half size of the box searched.
        half_extents: [f32; 3],
    },
    /// The end cannot be reached from the start; the path leads as near to it as the
    /// navmesh allows ([`QueryError::into_partial_path`] takes it).
    #[error("the end cannot be reached; the nearest the path gets is {:?}", .0.end())]
    Unreachable(Box<Path>),
    /// The search ran out of nodes before reaching the end; the path leads to the node
    /// nearest to it. Raise the node count ([`NavQuery::with_max_nodes`]) for longer paths.
    #[error("the search ran out of nodes before reaching the end")]
    OutOfNodes(Box<Path>),
    /// The navmesh has no polygon that the filter accepts.
    #[error("the navmesh has no polygon the filter accepts")]
    EmptyNavMesh,
    /// A position, distance or radius is not a finite number (or a radius is negative).
    #[error("a position, distance or radius is not a finite number")]
    NotFinite,
    /// A polygon reference is not (or no longer) on the navmesh.
    #[error("polygon {0:#x} is not on the navmesh")]
    StalePolygon(PolyRef),
    /// A node count outside 1..=65535.
    #[error("a search needs 1 to 65535 nodes, not {0}")]
    BadNodeCount(usize),
    /// Detour failed for another reason, given by its status.
    #[error("the navmesh query failed with status {0}")]
    Failed(Status),
}

impl QueryError {
    /// The path of an end that could not be reached (or not within the node budget): the
    /// way to the nearest reachable point. None for other errors.
    pub fn into_partial_path(self) -> Option<Path> {
        match self {
            QueryError::Unreachable(path) | QueryError::OutOfNodes(path) => Some(*path),
            _ => None,
        }
    }
}

/// The result of a game-facing query.
pub type QueryResult<T> = std::result::Result<T, QueryError>;

fn distance(a: [f32; 3], b: [f32; 3]) -> f32 {
    let d = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
    (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt()
}

fn finite(p: &[f32; 3]) -> bool {
    p.iter().all(|v| v.is_finite())
}

/// Navmesh queries with their own memory, for any navmesh: the node pools and buffers are
/// allocated once and kept between calls, so a query allocates only the values it returns.
///
/// A `NavQuery` is `Send`, not shared: keep one per thread (a field of a system's state, a
/// `thread_local!`, or one per worker), and let every thread read the same `&NavMesh`. The
/// methods on [`NavMesh`] of the same names do exactly that for you.
///
/// ```
/// use navlab::prelude::*;
///
/// let floor = NavMeshBuilder::new(BuildSettings::default())
///     .triangles(&[[0.0, 0.0, 0.0], [0.0, 0.0, 20.0], [20.0, 0.0, 20.0], [20.0, 0.0, 0.0]], &[0, 1, 2, 0, 2, 3])
///     .build()
///     .unwrap();
/// let mut query = NavQuery::new();
/// let path = query
///     .find_path(&floor, [2.0, 0.0, 2.0], [18.0, 0.0, 18.0], &QueryFilter::default())
///     .unwrap();
/// assert_eq!(path.waypoints.len(), 2); // a straight line across the open floor
/// ```
#[derive(Clone, Debug)]
pub struct NavQuery {
    /// The exact query's memory; taken while a query runs.
    memory: Option<DetachedQuery>,
    max_nodes: usize,
    half_extents: [f32; 3],
    straight_path_options: StraightPathOptions,
    polys: Vec<PolyRef>,
    corners: Vec<StraightPathPoint>,
}

impl Default for NavQuery {
    fn default() -> Self {
        NavQuery::new()
    }
}

impl NavQuery {
    /// A query with [`DEFAULT_MAX_NODES`] nodes and [`DEFAULT_HALF_EXTENTS`].
    pub fn new() -> NavQuery {
        NavQuery::with_checked_max_nodes(DEFAULT_MAX_NODES)
    }

    /// A query of `max_nodes` nodes, a count already checked (1..=65535).
    fn with_checked_max_nodes(max_nodes: usize) -> NavQuery {
        NavQuery {
            memory: Some(DetachedQuery::with_clamped_max_nodes(max_nodes)),
            max_nodes,
            half_extents: DEFAULT_HALF_EXTENTS,
            straight_path_options: StraightPathOptions::empty(),
            polys: Vec::new(),
            corners: Vec::new(),
        }
    }

    /// A query whose searches visit up to `max_nodes` polygons (1..=65535): more for long
    /// paths over big levels, fewer to bound a query's time.
    pub fn with_max_nodes(max_nodes: usize) -> QueryResult<NavQuery> {
        if !(1..=MAX_NODES).contains(&max_nodes) {
            return Err(QueryError::BadNodeCount(max_nodes));
        }
        Ok(NavQuery::with_checked_max_nodes(max_nodes))
    }

    /// The query with `half_extents` as the box in which positions look for their polygon.
    pub fn with_half_extents(mut self, half_extents: [f32; 3]) -> NavQuery {
        self.half_extents = half_extents;
        self
    }

    /// The box in which positions look for their polygon.
    pub fn half_extents(&self) -> [f32; 3] {
        self.half_extents
    }

    /// The query with `options` for the waypoints of every path it finds.
    pub fn with_straight_path_options(mut self, options: StraightPathOptions) -> NavQuery {
        self.straight_path_options = options;
        self
    }

    /// Runs `f` on the exact query attached to `nav`, then keeps its memory again.
    fn with_exact<T>(
        &mut self,
        nav: &NavMesh,
        f: impl FnOnce(&mut NavMeshQuery<'_>, &mut Vec<PolyRef>, &mut Vec<StraightPathPoint>) -> T,
    ) -> T {
        // A query that panicked inside a caller's filter left no memory behind.
        let memory = match self.memory.take() {
            Some(memory) => memory,
            None => DetachedQuery::with_clamped_max_nodes(self.max_nodes),
        };
        let mut query = memory.attach(nav);
        let result = f(&mut query, &mut self.polys, &mut self.corners);
        self.memory = Some(query.detach());
        result
    }

    /// The navmesh point nearest to `position` within the search box
    /// (`findNearestPoly`).
    pub fn nearest_point<F: PolyFilter + ?Sized>(
        &mut self,
        nav: &NavMesh,
        position: [f32; 3],
        filter: &F,
    ) -> QueryResult<NavPoint> {
        let half_extents = self.half_extents;
        self.with_exact(nav, |query, _, _| {
            nearest(query, position, half_extents, filter).map_err(|e| match e {
                Missing::NoPolygon => QueryError::NoPolygonNear {
                    position,
                    half_extents,
                },
                Missing::Error(e) => e,
            })
        })
    }

    /// The path from the navmesh point nearest `start` to the one nearest `end`: A* over the
    /// polygons (`findPath`), then the shortest line through them (`findStraightPath`).
    /// An end that cannot be reached gives [`QueryError::Unreachable`] with the path to the
    /// nearest point that can.
    pub fn find_path<F: PolyFilter + ?Sized>(
        &mut self,
        nav: &NavMesh,
        start: [f32; 3],
        end: [f32; 3],
        filter: &F,
    ) -> QueryResult<Path> {
        let half_extents = self.half_extents;
        let options = self.straight_path_options.bits();
        let max_nodes = self.max_nodes;
        self.with_exact(nav, |query, polys, corners| {
            let from = nearest(query, start, half_extents, filter).map_err(|e| match e {
                Missing::NoPolygon => QueryError::NoPolygonNearStart {
                    position: start,
                    half_extents,
                },
                Missing::Error(e) => e,
            })?;
            let to = nearest(query, end, half_extents, filter).map_err(|e| match e {
                Missing::NoPolygon => QueryError::NoPolygonNearEnd {
                    position: end,
                    half_extents,
                },
                Missing::Error(e) => e,
            })?;
            // A path never holds more polygons than the search has nodes.
            polys.resize(max_nodes, 0);
            let (status, count) = query.find_path(
                from.poly,
                to.poly,
                &from.position,
                &to.position,
                filter,
                polys,
            );
            if status.is_failure() || count == 0 {
                return Err(QueryError::Failed(status));
            }
            let polys = &polys[..count];
            // A partial path ends at the point of its last polygon nearest to the end.
            let mut goal = to.position;
            if polys[count - 1] != to.poly {
                let (_, closest, _) = query.closest_point_on_poly(polys[count - 1], &to.position);
                goal = closest;
            }
            let waypoints = straight_path(query, from.position, goal, polys, options, corners)?;
            let path = Path {
                polys: polys.to_vec(),
                waypoints,
            };
            if status.has_detail(Status::OUT_OF_NODES) {
                Err(QueryError::OutOfNodes(Box::new(path)))
            } else if status.has_detail(Status::PARTIAL_RESULT) {
                Err(QueryError::Unreachable(Box::new(path)))
            } else {
                Ok(path)
            }
        })
    }

    /// Casts a ray along the surface from the navmesh point nearest `start` towards `end`,
    /// stopping at the first wall (`raycast`). The ray works in xz and ignores heights, so
    /// use it for lines of sight over short distances.
    pub fn raycast<F: PolyFilter + ?Sized>(
        &mut self,
        nav: &NavMesh,
        start: [f32; 3],
        end: [f32; 3],
        filter: &F,
    ) -> QueryResult<RayHit> {
        if !finite(&end) {
            return Err(QueryError::NotFinite);
        }
        let from = self.nearest_point(nav, start, filter)?;
        let max_nodes = self.max_nodes;
        self.with_exact(nav, |query, polys, _| {
            polys.resize(max_nodes, 0);
            let (status, hit) = query.raycast(from.poly, &from.position, &end, filter, polys);
            if status.is_failure() {
                return Err(QueryError::Failed(status));
            }
            let reached = hit.t == f32::MAX;
            let t = if reached { 1.0 } else { hit.t };
            let position =
                std::array::from_fn(|i| from.position[i] + (end[i] - from.position[i]) * t);
            Ok(RayHit {
                position,
                wall: (!reached).then_some(RayWall {
                    t: hit.t,
                    normal: hit.hit_normal,
                }),
                polys: polys[..hit.path_count].to_vec(),
            })
        })
    }

    /// A random point on the navmesh, uniform over the area of the polygons the filter
    /// accepts (`findRandomPoint`); `random` returns numbers in [0, 1).
    pub fn random_point<F: PolyFilter + ?Sized>(
        &mut self,
        nav: &NavMesh,
        filter: &F,
        random: &mut impl FnMut() -> f32,
    ) -> QueryResult<NavPoint> {
        self.with_exact(nav, |query, _, _| {
            let (status, poly, position) = query.find_random_point(filter, random);
            if status.is_failure() || poly == 0 {
                return Err(QueryError::EmptyNavMesh);
            }
            Ok(NavPoint { poly, position })
        })
    }

    /// The nearest wall to the navmesh point nearest `position`, within `max_radius`
    /// (`findDistanceToWall`).
    pub fn distance_to_wall<F: PolyFilter + ?Sized>(
        &mut self,
        nav: &NavMesh,
        position: [f32; 3],
        max_radius: f32,
        filter: &F,
    ) -> QueryResult<WallDistance> {
        if !(max_radius >= 0.0 && max_radius.is_finite()) {
            return Err(QueryError::NotFinite);
        }
        let from = self.nearest_point(nav, position, filter)?;
        self.with_exact(nav, |query, _, _| {
            let (status, hit) =
                query.find_distance_to_wall(from.poly, &from.position, max_radius, filter);
            if status.is_failure() {
                return Err(QueryError::Failed(status));
            }
            let found = hit.distance < max_radius;
            Ok(WallDistance {
                distance: hit.distance,
                point: found.then_some(hit.position),
                normal: if found { hit.normal } else { [0.0; 3] },
            })
        })
    }

    /// Moves from `from` towards `to` over the surface, sliding along walls
    /// (`moveAlongSurface`), and puts the result on the surface. Meant for one frame's
    /// step of a character: it looks at most 64 polygons around the way.
    pub fn move_along_surface<F: PolyFilter + ?Sized>(
        &mut self,
        nav: &NavMesh,
        from: NavPoint,
        to: [f32; 3],
        filter: &F,
    ) -> QueryResult<NavPoint> {
        if !finite(&from.position) || !finite(&to) {
            return Err(QueryError::NotFinite);
        }
        self.with_exact(nav, |query, polys, _| {
            if !query.is_valid_poly_ref(from.poly, filter) {
                return Err(QueryError::StalePolygon(from.poly));
            }
            // Detour's surface move visits at most as many polygons as its small pool holds.
            polys.resize(64, 0);
            let (status, moved) =
                query.move_along_surface(from.poly, &from.position, &to, filter, polys);
            if status.is_failure() || moved.visited_count == 0 {
                return Err(QueryError::Failed(status));
            }
            let poly = polys[moved.visited_count - 1];
            let mut position = moved.position;
            let (height_status, height) = query.get_poly_height(poly, &position);
            if height_status.is_success() {
                position[1] = height;
            }
            Ok(NavPoint { poly, position })
        })
    }
}

/// Why a position found no polygon.
enum Missing {
    NoPolygon,
    Error(QueryError),
}

fn nearest<F: PolyFilter + ?Sized>(
    query: &NavMeshQuery<'_>,
    position: [f32; 3],
    half_extents: [f32; 3],
    filter: &F,
) -> Result<NavPoint, Missing> {
    if !finite(&position) || !finite(&half_extents) {
        return Err(Missing::Error(QueryError::NotFinite));
    }
    let (status, found) = query.find_nearest_poly(&position, &half_extents, filter);
    if status.is_failure() {
        return Err(Missing::Error(QueryError::Failed(status)));
    }
    if found.poly_ref == 0 {
        return Err(Missing::NoPolygon);
    }
    Ok(NavPoint {
        poly: found.poly_ref,
        position: found.point,
    })
}

/// The waypoints of the line from `start` to `goal` through `polys`, growing the corner
/// buffer until the whole line fits.
fn straight_path(
    query: &NavMeshQuery<'_>,
    start: [f32; 3],
    goal: [f32; 3],
    polys: &[PolyRef],
    options: u32,
    corners: &mut Vec<StraightPathPoint>,
) -> QueryResult<Vec<Waypoint>> {
    // Each polygon adds at most a corner and a crossing; the start and the end two more.
    // The buffer only grows, so that calls after the first fill nothing.
    let mut capacity = 2 * polys.len() + 2;
    loop {
        if corners.len() < capacity {
            corners.resize(capacity, StraightPathPoint::default());
        }
        let (status, count) = query.find_straight_path(&start, &goal, polys, corners, options);
        if status.is_failure() {
            return Err(QueryError::Failed(status));
        }
        if status.has_detail(Status::BUFFER_TOO_SMALL) {
            capacity = 2 * corners.len();
            continue;
        }
        return Ok(corners[..count]
            .iter()
            .map(|c| Waypoint {
                position: c.pos,
                kind: if c.flags & STRAIGHTPATH_START != 0 {
                    WaypointKind::Start
                } else if c.flags & STRAIGHTPATH_END != 0 {
                    WaypointKind::End
                } else if c.flags & STRAIGHTPATH_OFFMESH_CONNECTION != 0 {
                    WaypointKind::OffMeshLink
                } else {
                    WaypointKind::Corner
                },
                poly: (c.poly_ref != 0).then_some(c.poly_ref),
            })
            .collect());
    }
}

thread_local! {
    /// Each thread's query for the [`NavMesh`] methods.
    static THREAD_QUERY: RefCell<NavQuery> = RefCell::new(NavQuery::new());
}

/// Runs `f` on this thread's query; a filter that queries again from inside a query gets a
/// fresh one instead of a panic.
fn with_thread_query<T>(f: impl FnOnce(&mut NavQuery) -> T) -> T {
    THREAD_QUERY.with(|cell| match cell.try_borrow_mut() {
        Ok(mut query) => f(&mut query),
        Err(_) => f(&mut NavQuery::new()),
    })
}

/// The game-facing queries on the navmesh itself, each on this thread's [`NavQuery`] (with
/// [`DEFAULT_MAX_NODES`] and [`DEFAULT_HALF_EXTENTS`]). For other node counts or extents,
/// keep a `NavQuery` of your own.
impl NavMesh {
    /// [`NavQuery::find_path`] on this thread's query.
    pub fn find_path<F: PolyFilter + ?Sized>(
        &self,
        start: [f32; 3],
        end: [f32; 3],
        filter: &F,
    ) -> QueryResult<Path> {
        with_thread_query(|q| q.find_path(self, start, end, filter))
    }

    /// [`NavQuery::nearest_point`] on this thread's query.
    pub fn nearest_point<F: PolyFilter + ?Sized>(
        &self,
        position: [f32; 3],
        filter: &F,
    ) -> QueryResult<NavPoint> {
        with_thread_query(|q| q.nearest_point(self, position, filter))
    }

    /// [`NavQuery::raycast`] on this thread's query.
    pub fn raycast<F: PolyFilter + ?Sized>(
        &self,
        start: [f32; 3],
        end: [f32; 3],
        filter: &F,
    ) -> QueryResult<RayHit> {
        with_thread_query(|q| q.raycast(self, start, end, filter))
    }

    /// [`NavQuery::random_point`] on this thread's query.
    pub fn random_point<F: PolyFilter + ?Sized>(
        &self,
        filter: &F,
        random: &mut impl FnMut() -> f32,
    ) -> QueryResult<NavPoint> {
        with_thread_query(|q| q.random_point(self, filter, random))
    }

    /// [`NavQuery::distance_to_wall`] on this thread's query.
    pub fn distance_to_wall<F: PolyFilter + ?Sized>(
        &self,
        position: [f32; 3],
        max_radius: f32,
        filter: &F,
    ) -> QueryResult<WallDistance> {
        with_thread_query(|q| q.distance_to_wall(self, position, max_radius, filter))
    }

    /// [`NavQuery::move_along_surface`] on this thread's query.
    pub fn move_along_surface<F: PolyFilter + ?Sized>(
        &self,
        from: NavPoint,
        to: [f32; 3],
        filter: &F,
    ) -> QueryResult<NavPoint> {
        with_thread_query(|q| q.move_along_surface(self, from, to, filter))
    }
}
