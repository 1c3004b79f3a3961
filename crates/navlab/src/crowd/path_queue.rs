//! Path requests served a few search iterations at a time (`dtPathQueue`), so many agents
//! asking for paths at once spread the work over several crowd updates.
//!
//! Requests name their filter by index into a slice handed to every update rather than
//! holding a reference, so the crowd's filters stay editable between updates, and an edit
//! reaches searches already under way, as with the pointer C++ stores.

use crate::detour::common::Vec3;
use crate::detour::query::{DetachedQuery, NavMeshQuery, PolyFilter, Status};
use crate::detour::{NavMesh, PolyRef};

/// A request handle; [`PATHQ_INVALID`] is never handed out (`dtPathQueueRef`).
pub type PathQueueRef = u32;
/// The handle of no request (`DT_PATHQ_INVALID`).
pub const PATHQ_INVALID: PathQueueRef = 0;
/// Requests that can wait at once (`MAX_QUEUE`).
pub const MAX_QUEUE: usize = 8;
/// Updates a finished result waits to be read before its slot is reused (`MAX_KEEP_ALIVE`).
const MAX_KEEP_ALIVE: u32 = 2;
/// Search nodes of the crowd's path queue (`MAX_PATHQUEUE_NODES`).
pub const CROWD_PATH_QUEUE_NODES: usize = 4096;
/// Search iterations the crowd gives the queue per update (`MAX_ITERS_PER_UPDATE`).
pub const CROWD_ITERATIONS_PER_UPDATE: usize = 100;

/// One slot of the queue.
#[derive(Clone, Debug)]
struct PathQuery {
    handle: PathQueueRef,
    start_pos: Vec3,
    end_pos: Vec3,
    start_ref: PolyRef,
    end_ref: PolyRef,
    /// The result buffer, allocated once with the queue's path size.
    path: Vec<PolyRef>,
    npath: usize,
    /// Zero until the search starts, then the search's status.
    status: Status,
    keep_alive: u32,
    /// Index into the filters given to [`PathQueue::update`].
    filter: usize,
}

/// Up to [`MAX_QUEUE`] path searches and the query memory `Q` they run on: [`PathQueue`]
/// searches a navmesh it borrows, [`DetachedPathQueue`] keeps the queue between updates
/// without the borrow.
#[derive(Clone, Debug)]
pub struct PathQueueState<Q> {
    queue: [PathQuery; MAX_QUEUE],
    next_handle: PathQueueRef,
    queue_head: usize,
    query: Q,
}

/// Up to [`MAX_QUEUE`] path searches, run one after another within an iteration budget per
/// update, on the queue's own query object (`dtPathQueue`).
pub type PathQueue<'a> = PathQueueState<NavMeshQuery<'a>>;

/// A path queue without its navmesh ([`PathQueue::detach`]).
pub type DetachedPathQueue = PathQueueState<DetachedQuery>;

impl<Q> PathQueueState<Q> {
    /// Queues a path search from `start_ref`/`start_pos` to `end_ref`/`end_pos` with filter
    /// number `filter` of those [`PathQueue::update`] gets (`request`). Returns its handle,
    /// or [`PATHQ_INVALID`] when every slot is taken.
    pub fn request(
        &mut self,
        start_ref: PolyRef,
        end_ref: PolyRef,
        start_pos: &Vec3,
        end_pos: &Vec3,
        filter: usize,
    ) -> PathQueueRef {
        let Some(q) = self.queue.iter_mut().find(|q| q.handle == PATHQ_INVALID) else {
            return PATHQ_INVALID;
        };
        let handle = self.next_handle;
        self.next_handle = self.next_handle.wrapping_add(1);
        if self.next_handle == PATHQ_INVALID {
            self.next_handle = self.next_handle.wrapping_add(1);
        }
        q.handle = handle;
        q.start_pos = *start_pos;
        q.start_ref = start_ref;
        q.end_pos = *end_pos;
        q.end_ref = end_ref;
        q.status = Status::default();
        q.npath = 0;
        q.filter = filter;
        q.keep_alive = 0;
        handle
    }

    /// The status of request `handle`: zero before its search starts, `IN_PROGRESS` while it
    /// runs, then its final status; `FAILURE` for an unknown or freed handle
    /// (`getRequestStatus`).
    pub fn request_status(&self, handle: PathQueueRef) -> Status {
        self.queue
            .iter()
            .find(|q| q.handle == handle)
            .map_or(Status::FAILURE, |q| q.status)
    }

    /// Copies request `handle`'s path into `path` (as much as fits) and frees its slot
    /// (`getPathResult`). Returns `SUCCESS` with the search's details (such as
    /// `PARTIAL_RESULT`) and the number of polygons copied, or `FAILURE` for an unknown
    /// handle.
    pub fn path_result(&mut self, handle: PathQueueRef, path: &mut [PolyRef]) -> (Status, usize) {
        let Some(q) = self.queue.iter_mut().find(|q| q.handle == handle) else {
            return (Status::FAILURE, 0);
        };
        let details = q.status.details();
        q.handle = PATHQ_INVALID;
        q.status = Status::default();
        let n = q.npath.min(path.len());
        path[..n].copy_from_slice(&q.path[..n]);
        (details | Status::SUCCESS, n)
    }
}

impl DetachedPathQueue {
    /// The queue on `nav` again, with its requests and the search under way.
    pub fn attach(self, nav: &NavMesh) -> PathQueue<'_> {
        PathQueueState {
            queue: self.queue,
            next_handle: self.next_handle,
            queue_head: self.queue_head,
            query: self.query.attach(nav),
        }
    }
}

impl<'a> PathQueue<'a> {
    /// The queue without its navmesh; [`DetachedPathQueue::attach`] undoes it.
    pub fn detach(self) -> DetachedPathQueue {
        PathQueueState {
            queue: self.queue,
            next_handle: self.next_handle,
            queue_head: self.queue_head,
            query: self.query.detach(),
        }
    }

    /// A queue whose results hold up to `max_path_size` polygons and whose searches use
    /// `max_search_nodes` nodes (`dtPathQueue::init`; the crowd uses 256 and
    /// [`CROWD_PATH_QUEUE_NODES`]). Fails as [`NavMeshQuery::new`] does on a bad node count.
    pub fn new(
        nav: &'a NavMesh,
        max_path_size: usize,
        max_search_nodes: usize,
    ) -> Result<PathQueue<'a>, Status> {
        let query = NavMeshQuery::new(nav, max_search_nodes)?;
        let slot = PathQuery {
            handle: PATHQ_INVALID,
            start_pos: [0.0; 3],
            end_pos: [0.0; 3],
            start_ref: 0,
            end_ref: 0,
            path: vec![0; max_path_size],
            npath: 0,
            status: Status::default(),
            keep_alive: 0,
            filter: 0,
        };
        Ok(PathQueueState {
            queue: std::array::from_fn(|_| slot.clone()),
            next_handle: 1,
            queue_head: 0,
            query,
        })
    }

    /// Works through the requests round-robin until `max_iters` search iterations are spent
    /// or every slot was looked at once (`update`): starts waiting searches, advances the
    /// one in progress, finalises finished ones, and frees results nobody read for
    /// `MAX_KEEP_ALIVE` updates. A request whose filter index is not in `filters` fails
    /// with `INVALID_PARAM`.
    pub fn update<F: PolyFilter>(&mut self, max_iters: usize, filters: &[F]) {
        let mut iter_count = max_iters;
        for _ in 0..MAX_QUEUE {
            let q = &mut self.queue[self.queue_head % MAX_QUEUE];
            if q.handle == PATHQ_INVALID {
                self.queue_head = self.queue_head.wrapping_add(1);
                continue;
            }
            if q.status.is_success() || q.status.is_failure() {
                q.keep_alive += 1;
                if q.keep_alive > MAX_KEEP_ALIVE {
                    q.handle = PATHQ_INVALID;
                    q.status = Status::default();
                }
                self.queue_head = self.queue_head.wrapping_add(1);
                continue;
            }
            match filters.get(q.filter) {
                None => q.status = Status::invalid_param(),
                Some(filter) => {
                    let query = &mut self.query;
                    if q.status == Status::default() {
                        q.status = query.init_sliced_find_path(
                            q.start_ref,
                            q.end_ref,
                            &q.start_pos,
                            &q.end_pos,
                            filter,
                            0,
                        );
                    }
                    if q.status.is_in_progress() {
                        let (status, iters) = query.update_sliced_find_path(filter, iter_count);
                        q.status = status;
                        iter_count = iter_count.saturating_sub(iters);
                    }
                    if q.status.is_success() {
                        let (status, n) = query.finalize_sliced_find_path(filter, &mut q.path);
                        q.status = status;
                        q.npath = n;
                    }
                }
            }
            if iter_count == 0 {
                break;
            }
            self.queue_head = self.queue_head.wrapping_add(1);
        }
    }

    /// The queue moved onto `nav` with a fresh query object: requests, handles, results and
    /// the round-robin position are kept, and the one search under way (its state lives in
    /// the old query) starts over on `nav`. References `nav` lacks make a search fail.
    pub fn rebind<'b>(self, nav: &'b NavMesh) -> Result<PathQueue<'b>, Status> {
        let max_search_nodes = self.query.node_pool().max_nodes();
        let query = NavMeshQuery::new(nav, max_search_nodes)?;
        let mut queue = self.queue;
        for q in &mut queue {
            if q.status.is_in_progress() {
                q.status = Status::default();
            }
        }
        Ok(PathQueueState {
            queue,
            next_handle: self.next_handle,
            queue_head: self.queue_head,
            query,
        })
    }

    /// The query object the searches run on (`getNavQuery`).
    pub fn nav_query(&self) -> &NavMeshQuery<'a> {
        &self.query
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crowd::test_mesh::GridMesh;
    use crate::detour::query::QueryFilter;

    fn long_strip() -> GridMesh {
        GridMesh::new(&["##########"], &[])
    }

    fn direct_path(mesh: &GridMesh, from: usize, to: usize) -> Vec<PolyRef> {
        let mut query = NavMeshQuery::new(&mesh.nav, 64).expect("query");
        let mut path = [0; 32];
        let (status, n) = query.find_path(
            mesh.poly(from, 0),
            mesh.poly(to, 0),
            &[from as f32 + 0.5, 0.0, 0.5],
            &[to as f32 + 0.5, 0.0, 0.5],
            &QueryFilter::default(),
            &mut path,
        );
        assert!(status.is_success());
        path[..n].to_vec()
    }

    #[test]
    fn a_request_runs_within_the_budget_and_equals_find_path() {
        let mesh = long_strip();
        let filters = [QueryFilter::default()];
        let mut queue = PathQueue::new(&mesh.nav, 32, 64).expect("queue");
        let handle = queue.request(
            mesh.poly(0, 0),
            mesh.poly(9, 0),
            &[0.5, 0.0, 0.5],
            &[9.5, 0.0, 0.5],
            0,
        );
        assert_ne!(handle, PATHQ_INVALID);
        assert_eq!(queue.request_status(handle), Status::default());
        // Two iterations per update: the ten-polygon search takes several.
        let mut updates = 0;
        while queue.request_status(handle).is_in_progress() || updates == 0 {
            queue.update(2, &filters);
            updates += 1;
            assert!(updates <= 10, "search did not finish");
        }
        assert!(updates > 1);
        assert!(queue.request_status(handle).is_success());
        let mut path = [0; 32];
        let (status, n) = queue.path_result(handle, &mut path);
        assert_eq!(status, Status::SUCCESS);
        assert_eq!(&path[..n], direct_path(&mesh, 0, 9));
        // Reading the result frees the slot.
        assert_eq!(queue.request_status(handle), Status::FAILURE);
        assert_eq!(queue.path_result(handle, &mut path).0, Status::FAILURE);
    }

    #[test]
    fn slots_run_out_and_unread_results_expire() {
        let mesh = long_strip();
        let filters = [QueryFilter::default()];
        let mut queue = PathQueue::new(&mesh.nav, 32, 64).expect("queue");
        let handles: Vec<PathQueueRef> = (0..MAX_QUEUE)
            .map(|i| {
                queue.request(
                    mesh.poly(i, 0),
                    mesh.poly(9, 0),
                    &[i as f32 + 0.5, 0.0, 0.5],
                    &[9.5, 0.0, 0.5],
                    0,
                )
            })
            .collect();
        assert_eq!(handles, (1..=MAX_QUEUE as u32).collect::<Vec<_>>());
        assert_eq!(
            queue.request(mesh.poly(0, 0), mesh.poly(1, 0), &[0.5; 3], &[1.5; 3], 0),
            PATHQ_INVALID
        );
        queue.update(1000, &filters);
        assert!(
            handles
                .iter()
                .all(|&h| queue.request_status(h).is_success())
        );
        // Finished and unread: kept for two more updates, freed on the third.
        queue.update(1000, &filters);
        queue.update(1000, &filters);
        assert!(queue.request_status(handles[0]).is_success());
        queue.update(1000, &filters);
        assert!(
            handles
                .iter()
                .all(|&h| queue.request_status(h) == Status::FAILURE)
        );
        let again = queue.request(mesh.poly(0, 0), mesh.poly(1, 0), &[0.5; 3], &[1.5; 3], 0);
        assert_eq!(again, MAX_QUEUE as u32 + 1);
    }

    #[test]
    fn bad_requests_fail() {
        let mesh = long_strip();
        let filters = [QueryFilter::default()];
        let mut queue = PathQueue::new(&mesh.nav, 32, 64).expect("queue");
        let unknown_filter =
            queue.request(mesh.poly(0, 0), mesh.poly(1, 0), &[0.5; 3], &[1.5; 3], 3);
        let stale_ref = queue.request(0, mesh.poly(1, 0), &[0.5; 3], &[1.5; 3], 0);
        queue.update(10, &filters);
        assert_eq!(
            queue.request_status(unknown_filter),
            Status::invalid_param()
        );
        assert!(queue.request_status(stale_ref).is_failure());
        let mut path = [0; 4];
        let (status, n) = queue.path_result(stale_ref, &mut path);
        assert_eq!((status, n), (Status::SUCCESS | Status::INVALID_PARAM, 0));
        assert!(PathQueue::new(&mesh.nav, 32, 0).is_err());
    }

    #[test]
    fn results_are_cut_to_the_callers_buffer() {
        let mesh = long_strip();
        let mut queue = PathQueue::new(&mesh.nav, 32, 64).expect("queue");
        let handle = queue.request(
            mesh.poly(0, 0),
            mesh.poly(5, 0),
            &[0.5, 0.0, 0.5],
            &[5.5, 0.0, 0.5],
            0,
        );
        queue.update(100, &[QueryFilter::default()]);
        let mut path = [0; 3];
        let (status, n) = queue.path_result(handle, &mut path);
        assert!(status.is_success());
        assert_eq!(path[..n], direct_path(&mesh, 0, 5)[..3]);
    }
}
