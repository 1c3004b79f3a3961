//! Temporary obstacles for a game: [`TileCache`] adds, moves and removes [`Obstacle`]s and
//! carves them into the navmesh it was built with ([`NavMeshBuilder::build_tile_cache`]),
//! telling which tiles changed.
//!
//! [`NavMeshBuilder::build_tile_cache`]: super::NavMeshBuilder::build_tile_cache

use crate::bake::temp_obstacles::sample_mesh_process;
use crate::detour::NavMesh;
use crate::tile_cache::builder::ObstacleShape;
use crate::tile_cache::cache::TileCache as LayerStore;
use crate::tile_cache::obstacles::{ObstacleError, ObstacleRef, ObstacleState, Obstacles};

/// An obstacle's shape, in world units.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Obstacle {
    /// An upright cylinder standing on `base`.
    Cylinder {
        /// The centre of its base.
        base: [f32; 3],
        /// Its radius.
        radius: f32,
        /// Its height.
        height: f32,
    },
    /// An axis-aligned box.
    Aabb {
        /// The minimum corner.
        min: [f32; 3],
        /// The maximum corner.
        max: [f32; 3],
    },
    /// A box turned about the y axis.
    OrientedBox {
        /// Its centre.
        center: [f32; 3],
        /// Half its size along each of its own axes.
        half_extents: [f32; 3],
        /// Its turn about y, radians.
        y_rotation: f32,
    },
}

impl Obstacle {
    /// The shape the exact tile cache takes (`addObstacle`, `addBoxObstacle`).
    fn shape(self) -> ObstacleShape {
        match self {
            Obstacle::Cylinder {
                base,
                radius,
                height,
            } => ObstacleShape::Cylinder {
                pos: base,
                radius,
                height,
            },
            Obstacle::Aabb { min, max } => ObstacleShape::Box {
                bmin: min,
                bmax: max,
            },
            Obstacle::OrientedBox {
                center,
                half_extents,
                y_rotation,
            } => ObstacleShape::oriented_box(center, half_extents, y_rotation),
        }
    }
}

/// An obstacle of a [`TileCache`]. It goes stale when the obstacle is removed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ObstacleId(ObstacleRef);

impl ObstacleId {
    /// The tile cache's own reference (`dtObstacleRef`), for the exact API.
    pub fn to_raw(self) -> ObstacleRef {
        self.0
    }
}

/// A navmesh tile the tile cache rebuilt: its column and its layer in the column.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ChangedTile {
    /// Tile column x.
    pub x: i32,
    /// Tile column y (along z).
    pub y: i32,
    /// The layer within the column (floors above one another).
    pub layer: i32,
}

/// Heightfield layers of every tile, kept compressed so that tiles can be rebuilt around
/// obstacles in a fraction of a bake (DetourTileCache, as RecastDemo's Temp Obstacles sample
/// uses it).
///
/// Obstacle changes are queued; [`TileCache::update`] carves them into the navmesh.
#[derive(Clone, Debug)]
pub struct TileCache {
    layers: LayerStore,
    obstacles: Obstacles,
}

impl TileCache {
    /// The cache around stored layers and an obstacle pool that builds their tiles.
    pub(crate) fn from_parts(layers: LayerStore, obstacles: Obstacles) -> TileCache {
        TileCache { layers, obstacles }
    }

    /// Queues an obstacle; the next updates carve it out of the tiles it touches. Fails when
    /// every obstacle slot is in use, the request queue is full (update first) or the shape is
    /// not finite.
    pub fn add_obstacle(&mut self, obstacle: Obstacle) -> Result<ObstacleId, ObstacleError> {
        self.obstacles.add(obstacle.shape()).map(ObstacleId)
    }

    /// Queues the removal of an obstacle; an obstacle already removed (or being removed) is
    /// an error, where C++ ignores it silently.
    pub fn remove_obstacle(&mut self, id: ObstacleId) -> Result<(), ObstacleError> {
        match self.obstacles.state(id.0) {
            None | Some(ObstacleState::Removing) => Err(ObstacleError::InvalidRef(id.0)),
            Some(_) => self.obstacles.remove(id.0),
        }
    }

    /// Queues a new shape (or place) for an obstacle: the tiles of the old and the new shape
    /// are rebuilt.
    pub fn move_obstacle(
        &mut self,
        id: ObstacleId,
        obstacle: Obstacle,
    ) -> Result<(), ObstacleError> {
        self.obstacles.update_shape(id.0, obstacle.shape())
    }

    /// Whether no change waits to be carved.
    pub fn is_up_to_date(&self) -> bool {
        self.obstacles.up_to_date()
    }

    /// Carves every waiting change into `nav` (the navmesh built with this cache) and returns
    /// the tiles rebuilt, in order. A game that must bound a frame's work calls
    /// [`TileCache::update_step`] instead.
    pub fn update(&mut self, nav: &mut NavMesh) -> Result<Vec<ChangedTile>, ObstacleError> {
        let mut changed = Vec::new();
        while !self.obstacles.up_to_date() {
            if let Some(tile) = self.update_step(nav)? {
                changed.push(tile);
            }
        }
        Ok(changed)
    }

    /// One step of C++'s `dtTileCache::update`: at most one tile rebuilt, which it returns.
    pub fn update_step(&mut self, nav: &mut NavMesh) -> Result<Option<ChangedTile>, ObstacleError> {
        let (_, rebuilt) = self
            .obstacles
            .update_layer(&self.layers, nav, sample_mesh_process)?;
        Ok(rebuilt
            .and_then(|r| self.layers.layer(r))
            .map(|(header, _)| ChangedTile {
                x: header.tx,
                y: header.ty,
                layer: header.tlayer,
            }))
    }

    /// The stored layers, for the exact API.
    pub fn layers(&self) -> &LayerStore {
        &self.layers
    }

    /// The obstacles and their queue, for the exact API.
    pub fn obstacles(&self) -> &Obstacles {
        &self.obstacles
    }
}
