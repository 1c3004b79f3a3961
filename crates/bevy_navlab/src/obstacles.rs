//! Obstacles: every entity with a [`NavObstacle`] is carved out of the navmesh through the
//! tile cache, placed by its `GlobalTransform`, and carved again when it moves or goes.

use std::collections::HashMap;

use bevy::prelude::*;
use navlab::game::{Obstacle, ObstacleId};

use crate::Navigation;

/// A temporary obstacle, placed by the entity's `GlobalTransform`.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
pub enum NavObstacle {
    /// An upright cylinder standing on the entity's position.
    Cylinder {
        /// Radius, world units.
        radius: f32,
        /// Height, world units.
        height: f32,
    },
    /// A box centred on the entity's position, turned with its rotation about y.
    Box {
        /// Half its size along each of its axes.
        half_extents: Vec3,
    },
}

impl NavObstacle {
    /// The tile cache's shape for this obstacle where `transform` puts it.
    pub fn shape(&self, transform: &GlobalTransform) -> Obstacle {
        let position = transform.translation();
        match *self {
            NavObstacle::Cylinder { radius, height } => Obstacle::Cylinder {
                base: position.to_array(),
                radius,
                height,
            },
            NavObstacle::Box { half_extents } => {
                let (_, rotation, _) = transform.to_scale_rotation_translation();
                let (yaw, _, _) = rotation.to_euler(EulerRot::YXZ);
                if yaw.abs() < 1e-4 {
                    Obstacle::Aabb {
                        min: (position - half_extents).to_array(),
                        max: (position + half_extents).to_array(),
                    }
                } else {
                    Obstacle::OrientedBox {
                        center: position.to_array(),
                        half_extents: half_extents.to_array(),
                        y_rotation: yaw,
                    }
                }
            }
        }
    }
}

/// The obstacles carved into the current tile cache, by entity.
pub(crate) type AppliedObstacles = HashMap<Entity, (ObstacleId, Obstacle)>;

pub(crate) fn build(app: &mut App) {
    app.add_systems(Update, sync_obstacles);
}

/// Adds, moves and removes the tile cache's obstacles to match the entities, then carves
/// the changes into the navmesh.
fn sync_obstacles(
    mut navigation: ResMut<Navigation>,
    obstacles: Query<(Entity, &NavObstacle, &GlobalTransform)>,
) {
    let Navigation {
        nav_mesh,
        tile_cache,
        obstacles: applied,
        revision,
        ..
    } = &mut *navigation;
    let (Some(nav), Some(cache)) = (nav_mesh.as_mut(), tile_cache.as_mut()) else {
        return;
    };
    let mut wanted: HashMap<Entity, Obstacle> = obstacles
        .iter()
        .map(|(entity, obstacle, transform)| (entity, obstacle.shape(transform)))
        .collect();
    applied.retain(|entity, (id, shape)| match wanted.remove(entity) {
        None => cache.remove_obstacle(*id).is_err(),
        Some(new) if new != *shape => match cache.move_obstacle(*id, new) {
            Ok(()) => {
                *shape = new;
                true
            }
            // Not taken now (a full request queue): tried again next frame.
            Err(_) => true,
        },
        Some(_) => true,
    });
    for (entity, shape) in wanted {
        if let Ok(id) = cache.add_obstacle(shape) {
            applied.insert(entity, (id, shape));
        }
    }
    if !cache.is_up_to_date() {
        match cache.update(nav) {
            Ok(changed) if !changed.is_empty() => *revision += 1,
            Ok(_) => {}
            Err(e) => error_once!("navlab: carving an obstacle failed: {e}"),
        }
    }
}
