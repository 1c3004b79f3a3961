//! Temporary obstacles for a game: [`TileCache`] adds, moves and removes [`Obstacle`]s and
//! carves them into the navmesh it was built with ([`NavMeshBuilder::build_tile_cache`]),
//! telling which tiles changed.
//!
//! [`NavMeshBuilder::build_tile_cache`]: super::NavMeshBuilder::build_tile_cache

use crate::bake::settings::BuildSettings;
use crate::bake::temp_obstacles::{compressed_tile_layers, sample_mesh_process};
use crate::detour::NavMesh;
use crate::error::{NavlabError, Result};
use crate::input::input_geom::InputGeom;
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
///
/// ```
/// use navlab::prelude::*;
///
/// let floor = [[0.0, 0.0, 0.0], [0.0, 0.0, 20.0], [20.0, 0.0, 20.0], [20.0, 0.0, 0.0]];
/// let (mut cache, mut nav) = NavMeshBuilder::new(BuildSettings::default())
///     .triangles(&floor, &[0, 1, 2, 0, 2, 3])
///     .build_tile_cache(32)
///     .unwrap();
/// let filter = QueryFilter::default();
/// let straight = nav.find_path([2.0, 0.0, 10.0], [18.0, 0.0, 10.0], &filter).unwrap();
/// assert_eq!(straight.waypoints.len(), 2);
///
/// // A pillar on the way: the path bends around it.
/// let pillar = Obstacle::Cylinder { base: [10.0, 0.0, 10.0], radius: 1.5, height: 2.0 };
/// let id = cache.add_obstacle(pillar).unwrap();
/// assert!(!cache.update(&mut nav).unwrap().is_empty());
/// let around = nav.find_path([2.0, 0.0, 10.0], [18.0, 0.0, 10.0], &filter).unwrap();
/// assert!(around.waypoints.len() > 2 && around.length() > straight.length());
///
/// cache.remove_obstacle(id).unwrap();
/// cache.update(&mut nav).unwrap();
/// ```
#[derive(Clone, Debug)]
pub struct TileCache {
    layers: LayerStore,
    obstacles: Obstacles,
    grid: BakedGrid,
}

/// How a cache's layers were baked, for re-baking some of its tiles: as the first bake did.
#[derive(Clone, Debug)]
pub(crate) struct BakedGrid {
    /// The settings.
    pub(crate) settings: BuildSettings,
    /// Tile edge, in cells.
    pub(crate) tile_size: i32,
    /// The grid's bounds (the first bake's geometry).
    pub(crate) bounds: ([f32; 3], [f32; 3]),
    /// Tiles along x and z (`tile_grid`).
    pub(crate) tiles: (i32, i32),
    /// Cells each tile's build reads beyond its edges (`tile_config`'s border).
    pub(crate) border_cells: i32,
}

impl TileCache {
    /// The cache around stored layers and an obstacle pool that builds their tiles.
    pub(crate) fn from_parts(
        layers: LayerStore,
        obstacles: Obstacles,
        grid: BakedGrid,
    ) -> TileCache {
        TileCache {
            layers,
            obstacles,
            grid,
        }
    }

    /// The box the tile grid covers: the first bake's geometry. Geometry outside it is not
    /// baked by [`TileCache::rebake_region`]; bake anew to grow the grid.
    pub fn bounds(&self) -> ([f32; 3], [f32; 3]) {
        self.grid.bounds
    }

    /// The tile columns whose layers the box `min`..`max` can reach: those it overlaps, and
    /// their neighbours within the build's border (the agent radius and a few cells).
    pub fn tiles_touching(&self, min: [f32; 3], max: [f32; 3]) -> Vec<(i32, i32)> {
        let grid = &self.grid;
        let tile_world = grid.tile_size as f32 * grid.settings.cell_size;
        let margin = grid.border_cells as f32 * grid.settings.cell_size;
        let (tiles_x, tiles_y) = grid.tiles;
        let (origin, far) = grid.bounds;
        let column = |v: f32, origin: f32, count: i32| {
            ((v - origin) / tile_world)
                .floor()
                .clamp(0.0, (count - 1).max(0) as f32) as i32
        };
        let outside = max[0] + margin < origin[0]
            || min[0] - margin > far[0]
            || max[2] + margin < origin[2]
            || min[2] - margin > far[2];
        if outside {
            return Vec::new();
        }
        let (x0, x1) = (
            column(min[0] - margin, origin[0], tiles_x),
            column(max[0] + margin, origin[0], tiles_x),
        );
        let (y0, y1) = (
            column(min[2] - margin, origin[2], tiles_y),
            column(max[2] + margin, origin[2], tiles_y),
        );
        (y0..=y1)
            .flat_map(|y| (x0..=x1).map(move |x| (x, y)))
            .collect()
    }

    /// Bakes again the tiles that the box `min`..`max` touches from `input` (the whole level
    /// as it is now, baked with this cache's settings), swaps their layers in, and rebuilds
    /// their navmesh tiles in `nav` with the obstacles carved. Call it with the old and the
    /// new bounds of whatever moved, appeared or went. Returns the tiles rebuilt.
    /// [`NavMeshBuilder::rebake_tiles`](super::NavMeshBuilder::rebake_tiles) does the same from
    /// a builder's triangles.
    pub fn rebake_region(
        &mut self,
        nav: &mut NavMesh,
        input: &InputGeom,
        min: [f32; 3],
        max: [f32; 3],
    ) -> Result<Vec<ChangedTile>> {
        let mut changed = Vec::new();
        for (x, y) in self.tiles_touching(min, max) {
            let grid = &self.grid;
            let layers =
                compressed_tile_layers(input, grid.bounds, &grid.settings, grid.tile_size, x, y)?;
            let added = self
                .obstacles
                .replace_column(&mut self.layers, nav, (x, y), layers, sample_mesh_process)
                .map_err(|e| NavlabError::Stage {
                    stage: "tile cache",
                    message: e.to_string(),
                })?;
            changed.extend(added.iter().filter_map(|&r| {
                let (header, _) = self.layers.layer(r)?;
                Some(ChangedTile {
                    x: header.tx,
                    y: header.ty,
                    layer: header.tlayer,
                })
            }));
        }
        Ok(changed)
    }

    /// Queues an obstacle; the next updates carve it out of the tiles it touches. Fails when
    /// every obstacle slot is in use, the request queue is full (update first) or the shape is
    /// not finite.
    pub fn add_obstacle(
        &mut self,
        obstacle: Obstacle,
    ) -> std::result::Result<ObstacleId, ObstacleError> {
        self.obstacles.add(obstacle.shape()).map(ObstacleId)
    }

    /// Queues the removal of an obstacle; an obstacle already removed (or being removed) is
    /// an error, where C++ ignores it silently.
    pub fn remove_obstacle(&mut self, id: ObstacleId) -> std::result::Result<(), ObstacleError> {
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
    ) -> std::result::Result<(), ObstacleError> {
        self.obstacles.update_shape(id.0, obstacle.shape())
    }

    /// Whether no change waits to be carved.
    pub fn is_up_to_date(&self) -> bool {
        self.obstacles.up_to_date()
    }

    /// Carves every waiting change into `nav` (the navmesh built with this cache) and returns
    /// the tiles rebuilt, in order. A game that must bound a frame's work calls
    /// [`TileCache::update_step`] instead.
    pub fn update(
        &mut self,
        nav: &mut NavMesh,
    ) -> std::result::Result<Vec<ChangedTile>, ObstacleError> {
        let mut changed = Vec::new();
        while !self.obstacles.up_to_date() {
            if let Some(tile) = self.update_step(nav)? {
                changed.push(tile);
            }
        }
        Ok(changed)
    }

    /// One step of C++'s `dtTileCache::update`: at most one tile rebuilt, which it returns.
    pub fn update_step(
        &mut self,
        nav: &mut NavMesh,
    ) -> std::result::Result<Option<ChangedTile>, ObstacleError> {
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
