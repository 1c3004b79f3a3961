//! Temporary obstacles over a tile cache (`dtTileCache`'s obstacle side): a fixed pool of
//! obstacles with salted references, requests queued by add and remove, and [`Obstacles::update`]
//! that first turns the requests into a list of layers to rebuild, then rebuilds one layer's
//! navmesh tile per call, as C++ does, so an application spreads the work over frames.
//!
//! Beyond upstream: [`Obstacles::update_shape`] moves or reshapes an obstacle in one request,
//! keeping its reference (C++ needs a remove and an add, which hands out a new one). A full
//! request queue or obstacle pool is an error to the caller (C++ too),
//! and nothing else is silently dropped: C++ forgets touched layers beyond 8 per obstacle and
//! beyond 64 pending rebuilds (a large obstacle then carves only part of itself), here both
//! lists grow. A layer whose rebuild leaves no polygon loses its navmesh tile,
//! as in C++. With [`Obstacles::set_scratch`], rebuilds are held to C++'s scratch allocator:
//! one that does not fit fails as C++'s does and the layer keeps its old tile.
//!
//! An update works in memory kept from earlier ones (request lists, the layer builder's
//! buffers, the replaced navmesh tile), so a game moving obstacles every frame allocates
//! nothing once the largest layer has been rebuilt.

use crate::detour::{MeshTile, NavMesh};

use super::builder::{BuildError, LayerTileBuilder, ObstacleShape, ScratchAllocator};
use super::cache::{CompressedTileRef, TileCache, TileCacheError};

/// An obstacle's reference: salt above the pool index (`dtObstacleRef`).
pub type ObstacleRef = u32;

/// Most requests waiting for the next update (`MAX_REQUESTS`).
pub const MAX_REQUESTS: usize = 64;

/// Where an obstacle is in its life (`ObstacleState`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObstacleState {
    /// A free slot.
    Empty,
    /// Added; its layers are being rebuilt.
    Processing,
    /// In every layer it touches.
    Processed,
    /// Being taken out of its layers.
    Removing,
}

/// Why an obstacle request was refused or an update failed.
#[derive(Debug, PartialEq, thiserror::Error)]
pub enum ObstacleError {
    #[error("{MAX_REQUESTS} obstacle requests are already waiting; call update first")]
    /// The request queue is full.
    RequestQueueFull,
    #[error("all {0} obstacles are in use; remove one or raise maxObstacles")]
    /// Every obstacle slot is in use (how many there are).
    PoolFull(usize),
    #[error("maxObstacles {0} must be between 1 and 65535")]
    /// A pool size outside 1..=65535 (the one asked for).
    BadPoolSize(i32),
    #[error("the obstacle has a position or size that is not finite")]
    /// A position or size that is NaN or infinite.
    NotFinite,
    #[error("no live obstacle has reference {0:#x}")]
    /// A reference that names no live obstacle.
    InvalidRef(ObstacleRef),
    #[error("rebuilding layer {layer:#x}: {source}")]
    /// A layer's rebuild around the obstacles failed.
    Rebuild {
        /// Reference of the compressed layer whose rebuild failed.
        layer: CompressedTileRef,
        /// Why its build failed.
        source: BuildError,
    },
    #[error("storing a new layer: {0}")]
    /// The cache refused a layer given to [`Obstacles::replace_column`].
    Store(TileCacheError),
    #[error("replacing the navmesh tile of layer {layer:#x}: {message}")]
    /// The navmesh refused a rebuilt tile.
    NavMesh {
        /// The layer whose tile it was.
        layer: CompressedTileRef,
        /// Detour's reason.
        message: String,
    },
}

impl ObstacleError {
    /// A layer rebuild that did not fit the scratch allocator: C++'s `update` returns a failed
    /// status for it, keeps the layer's old tile and goes on, so callers do not stop either.
    pub fn is_out_of_scratch(&self) -> bool {
        matches!(
            self,
            ObstacleError::Rebuild {
                source: BuildError::OutOfScratch { .. },
                ..
            }
        )
    }
}

#[derive(Clone, Debug)]
struct Obstacle {
    salt: u16,
    state: ObstacleState,
    shape: Option<ObstacleShape>,
    touched: Vec<CompressedTileRef>,
    pending: Vec<CompressedTileRef>,
    next_free: Option<usize>,
}

#[derive(Clone, Copy, Debug)]
enum Request {
    Add(ObstacleRef),
    Remove(ObstacleRef),
    /// The obstacle takes the new shape when the request is taken.
    Reshape(ObstacleRef, ObstacleShape),
}

/// A live obstacle as `dtTileCache::getObstacle` shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct ObstacleInfo {
    /// Index in the pool.
    pub slot: usize,
    /// Its reference (`dtObstacleRef`): salt and slot.
    pub reference: ObstacleRef,
    /// The slot's salt, bumped each time the slot is reused.
    pub salt: u16,
    /// Where it is in its life.
    pub state: ObstacleState,
    /// Its cylinder or box.
    pub shape: ObstacleShape,
    /// The layers it touches, in the order found.
    pub touched: Vec<CompressedTileRef>,
}

/// The obstacles of one tile cache.
#[derive(Clone, Debug)]
pub struct Obstacles {
    pool: Vec<Obstacle>,
    next_free: Option<usize>,
    requests: Vec<Request>,
    /// The requests being taken, swapped with `requests` so neither list is reallocated.
    taking: Vec<Request>,
    to_rebuild: Vec<CompressedTileRef>,
    /// One request's layers to rebuild, and the shapes touching the layer being rebuilt.
    request_layers: Vec<CompressedTileRef>,
    shapes: Vec<ObstacleShape>,
    builder: LayerTileBuilder,
    /// A navmesh tile taken out for a layer that now has none, kept for the next new tile.
    spare_tile: Option<Box<MeshTile>>,
    /// C++'s scratch allocator, when its limits are wanted (see [`ScratchAllocator`]).
    scratch: Option<ScratchAllocator>,
}

impl Obstacles {
    /// A pool of `max_obstacles` (the tile cache's `maxObstacles`).
    pub fn new(max_obstacles: i32) -> Result<Self, ObstacleError> {
        let count = usize::try_from(max_obstacles)
            .ok()
            .filter(|n| (1..=0xffff).contains(n))
            .ok_or(ObstacleError::BadPoolSize(max_obstacles))?;
        let pool = (0..count)
            .map(|i| Obstacle {
                salt: 1,
                state: ObstacleState::Empty,
                shape: None,
                touched: Vec::new(),
                pending: Vec::new(),
                next_free: (i + 1 < count).then_some(i + 1),
            })
            .collect();
        Ok(Self {
            pool,
            next_free: Some(0),
            requests: Vec::with_capacity(MAX_REQUESTS),
            taking: Vec::with_capacity(MAX_REQUESTS),
            to_rebuild: Vec::new(),
            request_layers: Vec::new(),
            shapes: Vec::new(),
            builder: LayerTileBuilder::new(),
            spare_tile: None,
            scratch: None,
        })
    }

    /// Rebuilds from now on go through `scratch`, failing as C++'s do when they do not fit it
    /// (the layer's old tile is kept, as in C++); `None` lifts the limit.
    pub fn set_scratch(&mut self, scratch: Option<ScratchAllocator>) {
        self.scratch = scratch;
    }

    /// Rebuilds from now on go through `builder`: hand over the one that built the initial
    /// tiles, whose buffers have grown to the cache's layers, and the first rebuilds allocate
    /// nothing either.
    pub fn set_builder(&mut self, builder: LayerTileBuilder) {
        self.builder = builder;
    }

    /// The scratch allocator and its figures, if one is set.
    pub fn scratch(&self) -> Option<&ScratchAllocator> {
        self.scratch.as_ref()
    }

    fn encode(salt: u16, index: usize) -> ObstacleRef {
        (u32::from(salt) << 16) | index as u32
    }

    /// The pool index of a live reference.
    fn index_of(&self, r: ObstacleRef) -> Option<usize> {
        let index = (r & 0xffff) as usize;
        let salt = (r >> 16) as u16;
        self.pool
            .get(index)
            .filter(|o| o.salt == salt && o.state != ObstacleState::Empty)
            .map(|_| index)
    }

    /// Queues an obstacle (`addObstacle`, `addBoxObstacle`); returns its reference.
    pub fn add(&mut self, shape: ObstacleShape) -> Result<ObstacleRef, ObstacleError> {
        let (bmin, bmax) = shape.bounds();
        if !bmin.iter().chain(&bmax).all(|v| v.is_finite()) {
            return Err(ObstacleError::NotFinite);
        }
        if self.requests.len() >= MAX_REQUESTS {
            return Err(ObstacleError::RequestQueueFull);
        }
        let index = self
            .next_free
            .ok_or(ObstacleError::PoolFull(self.pool.len()))?;
        let obstacle = &mut self.pool[index];
        self.next_free = obstacle.next_free;
        obstacle.next_free = None;
        obstacle.state = ObstacleState::Processing;
        obstacle.shape = Some(shape);
        obstacle.touched.clear();
        obstacle.pending.clear();
        let r = Self::encode(obstacle.salt, index);
        self.requests.push(Request::Add(r));
        Ok(r)
    }

    /// Queues an obstacle's removal (`removeObstacle`); reference 0 is a no-op, as in C++.
    pub fn remove(&mut self, r: ObstacleRef) -> Result<(), ObstacleError> {
        if r == 0 {
            return Ok(());
        }
        if self.requests.len() >= MAX_REQUESTS {
            return Err(ObstacleError::RequestQueueFull);
        }
        self.requests.push(Request::Remove(r));
        Ok(())
    }

    /// Gives live obstacle `r` a new shape (a move, a resize, or another kind) in one request,
    /// keeping its reference. When the request is taken, the layers it touched and the layers
    /// the new shape touches are all rebuilt, the old ones without it; the obstacle is
    /// [`ObstacleState::Processing`] until all of them are. The navmesh ends as after a remove
    /// and an add of the new shape. A reference that is not live (or is being removed), a
    /// shape that is not finite or a full queue is an error and changes nothing.
    pub fn update_shape(
        &mut self,
        r: ObstacleRef,
        shape: ObstacleShape,
    ) -> Result<(), ObstacleError> {
        let (bmin, bmax) = shape.bounds();
        if !bmin.iter().chain(&bmax).all(|v| v.is_finite()) {
            return Err(ObstacleError::NotFinite);
        }
        let index = self.index_of(r).ok_or(ObstacleError::InvalidRef(r))?;
        if self.pool[index].state == ObstacleState::Removing
            || self
                .requests
                .iter()
                .any(|q| matches!(q, Request::Remove(x) if *x == r))
        {
            return Err(ObstacleError::InvalidRef(r));
        }
        if self.requests.len() >= MAX_REQUESTS {
            return Err(ObstacleError::RequestQueueFull);
        }
        self.requests.push(Request::Reshape(r, shape));
        Ok(())
    }

    /// Every live obstacle in pool order, as C++'s `getObstacle(i)` loop lists them.
    pub fn live(&self) -> impl Iterator<Item = ObstacleInfo> + '_ {
        self.pool.iter().enumerate().filter_map(|(slot, o)| {
            let shape = o.shape.filter(|_| o.state != ObstacleState::Empty)?;
            Some(ObstacleInfo {
                slot,
                reference: Self::encode(o.salt, slot),
                salt: o.salt,
                state: o.state,
                shape,
                touched: o.touched.clone(),
            })
        })
    }

    /// The state of obstacle `r`, if it is live.
    pub fn state(&self, r: ObstacleRef) -> Option<ObstacleState> {
        self.index_of(r).map(|i| self.pool[i].state)
    }

    /// The layers obstacle `r` touches, in the order found.
    pub fn touched(&self, r: ObstacleRef) -> &[CompressedTileRef] {
        self.index_of(r).map_or(&[], |i| &self.pool[i].touched)
    }

    /// Whether nothing waits: no request and no layer to rebuild.
    pub fn up_to_date(&self) -> bool {
        self.requests.is_empty() && self.to_rebuild.is_empty()
    }

    /// One step of `dtTileCache::update`: when no rebuild is pending, the queued requests become
    /// the layers to rebuild; then the first of those is rebuilt into `nav_mesh` with every
    /// obstacle touching it. Returns whether everything is up to date afterwards.
    pub fn update(
        &mut self,
        cache: &TileCache,
        nav_mesh: &mut NavMesh,
        mesh_process: impl FnOnce(&mut [u8], &mut [u16]),
    ) -> Result<bool, ObstacleError> {
        self.update_layer(cache, nav_mesh, mesh_process)
            .map(|(up_to_date, _)| up_to_date)
    }

    /// [`Obstacles::update`], also naming the layer it rebuilt, if any (the layer is named
    /// when its rebuild failed too: its tile may have changed).
    pub fn update_layer(
        &mut self,
        cache: &TileCache,
        nav_mesh: &mut NavMesh,
        mesh_process: impl FnOnce(&mut [u8], &mut [u16]),
    ) -> Result<(bool, Option<CompressedTileRef>), ObstacleError> {
        if self.to_rebuild.is_empty() {
            self.take_requests(cache);
        }
        let mut rebuilt = None;
        if !self.to_rebuild.is_empty() {
            let layer = self.to_rebuild.remove(0);
            let result = self.rebuild(cache, nav_mesh, layer, mesh_process);
            self.settle(layer);
            rebuilt = Some(layer);
            result?;
        }
        Ok((self.up_to_date(), rebuilt))
    }

    /// Replaces the stored layers of tile column (`x`, `y`) with `layers` (compressed layer
    /// bytes, as the cache stores them) and rebuilds their navmesh tiles now, carving every
    /// live obstacle that touches them: the level's geometry changed there. The old layers'
    /// tiles leave the navmesh, and obstacles waiting only for those layers are settled.
    /// Returns the new layers' references.
    pub fn replace_column(
        &mut self,
        cache: &mut TileCache,
        nav_mesh: &mut NavMesh,
        (x, y): (i32, i32),
        layers: Vec<Vec<u8>>,
        mesh_process: impl Fn(&mut [u8], &mut [u16]),
    ) -> Result<Vec<CompressedTileRef>, ObstacleError> {
        let navmesh_error = |layer, e: crate::detour::DetourError| ObstacleError::NavMesh {
            layer,
            message: e.to_string(),
        };
        for old in cache.layers_at(x, y) {
            if let Some((header, _)) = cache.layer(old)
                && let Some(tile) = nav_mesh.tile_ref_at(header.tx, header.ty, header.tlayer)
            {
                let memory = nav_mesh
                    .remove_tile_boxed(tile)
                    .map_err(|e| navmesh_error(old, e))?;
                self.spare_tile.get_or_insert(memory);
            }
            // The reference came from the cache's own list.
            let _ = cache.remove_layer(old);
            self.to_rebuild.retain(|&r| r != old);
            for obstacle in &mut self.pool {
                obstacle.touched.retain(|&r| r != old);
            }
            self.settle(old);
        }
        let mut added = Vec::with_capacity(layers.len());
        for data in layers {
            let r = cache.add_layer(data).map_err(ObstacleError::Store)?;
            added.push(r);
        }
        let mut found = Vec::new();
        for obstacle in &mut self.pool {
            let live = matches!(
                obstacle.state,
                ObstacleState::Processing | ObstacleState::Processed
            );
            let Some(shape) = obstacle.shape.filter(|_| live) else {
                continue;
            };
            let (bmin, bmax) = shape.bounds();
            cache.query_layers_into(bmin, bmax, &mut found);
            for &r in found.iter().filter(|r| added.contains(r)) {
                if !obstacle.touched.contains(&r) {
                    obstacle.touched.push(r);
                }
            }
        }
        for &r in &added {
            self.rebuild(cache, nav_mesh, r, &mesh_process)?;
        }
        Ok(added)
    }

    /// Turns the requests into touched and pending layers.
    fn take_requests(&mut self, cache: &TileCache) {
        std::mem::swap(&mut self.requests, &mut self.taking);
        for &request in &self.taking {
            let r = match request {
                Request::Add(r) | Request::Remove(r) | Request::Reshape(r, _) => r,
            };
            let index = (r & 0xffff) as usize;
            let Some(obstacle) = self.pool.get_mut(index) else {
                continue;
            };
            if obstacle.salt != (r >> 16) as u16 {
                continue;
            }
            let rebuild = &mut self.request_layers;
            rebuild.clear();
            match request {
                Request::Add(_) => {
                    let Some(shape) = obstacle.shape else {
                        continue;
                    };
                    let (bmin, bmax) = shape.bounds();
                    cache.query_layers_into(bmin, bmax, &mut obstacle.touched);
                }
                Request::Remove(_) => obstacle.state = ObstacleState::Removing,
                Request::Reshape(_, shape) => {
                    // A removal taken since the request was queued wins.
                    if obstacle.state != ObstacleState::Processing
                        && obstacle.state != ObstacleState::Processed
                    {
                        continue;
                    }
                    rebuild.extend_from_slice(&obstacle.touched);
                    let (bmin, bmax) = shape.bounds();
                    obstacle.shape = Some(shape);
                    cache.query_layers_into(bmin, bmax, &mut obstacle.touched);
                    obstacle.state = ObstacleState::Processing;
                }
            }
            for &layer in &obstacle.touched {
                if !rebuild.contains(&layer) {
                    rebuild.push(layer);
                }
            }
            obstacle.pending.clear();
            obstacle.pending.extend_from_slice(rebuild);
            for &layer in rebuild.iter() {
                if !self.to_rebuild.contains(&layer) {
                    self.to_rebuild.push(layer);
                }
            }
        }
        self.taking.clear();
    }

    /// `buildNavMeshTile`: the layer with the obstacles touching it (in pool order), its old
    /// navmesh tile replaced by the new one.
    fn rebuild(
        &mut self,
        cache: &TileCache,
        nav_mesh: &mut NavMesh,
        layer: CompressedTileRef,
        mesh_process: impl FnOnce(&mut [u8], &mut [u16]),
    ) -> Result<(), ObstacleError> {
        // A layer removed from the cache since is skipped, as C++'s salt check does.
        let Some((header, data)) = cache.layer(layer) else {
            return Ok(());
        };
        self.shapes.clear();
        self.shapes.extend(
            self.pool
                .iter()
                .filter(|o| {
                    matches!(
                        o.state,
                        ObstacleState::Processing | ObstacleState::Processed
                    ) && o.touched.contains(&layer)
                })
                .filter_map(|o| o.shape),
        );
        let tile = self
            .builder
            .build(
                data,
                cache.params(),
                &self.shapes,
                cache.off_mesh_links(),
                mesh_process,
                self.scratch.as_mut(),
            )
            .map_err(|source| ObstacleError::Rebuild { layer, source })?;
        let navmesh_error = |e: crate::detour::DetourError| ObstacleError::NavMesh {
            layer,
            message: e.to_string(),
        };
        // The new tile is copied into the memory of the one it replaces (or of a spare), which
        // has grown to this layer's tiles.
        let old = match nav_mesh.tile_ref_at(header.tx, header.ty, header.tlayer) {
            Some(old) => Some(nav_mesh.remove_tile_boxed(old).map_err(navmesh_error)?),
            None => None,
        };
        let memory = old.or_else(|| self.spare_tile.take());
        match tile {
            Some(tile) => {
                let mut target = memory.unwrap_or_default();
                target.assign_from(tile);
                nav_mesh.add_tile(target, 0).map_err(navmesh_error)?;
            }
            None => self.spare_tile = self.spare_tile.take().or(memory),
        }
        Ok(())
    }

    /// After `layer` was rebuilt: obstacles waiting only for it are done (added, or removed and
    /// returned to the pool with a new salt).
    fn settle(&mut self, layer: CompressedTileRef) {
        for index in 0..self.pool.len() {
            let obstacle = &mut self.pool[index];
            if !matches!(
                obstacle.state,
                ObstacleState::Processing | ObstacleState::Removing
            ) {
                continue;
            }
            if let Some(k) = obstacle.pending.iter().position(|&p| p == layer) {
                obstacle.pending.swap_remove(k);
            }
            if !obstacle.pending.is_empty() {
                continue;
            }
            if obstacle.state == ObstacleState::Processing {
                obstacle.state = ObstacleState::Processed;
            } else {
                obstacle.state = ObstacleState::Empty;
                obstacle.shape = None;
                obstacle.salt = obstacle.salt.wrapping_add(1).max(1);
                obstacle.next_free = self.next_free;
                self.next_free = Some(index);
            }
        }
    }
}
