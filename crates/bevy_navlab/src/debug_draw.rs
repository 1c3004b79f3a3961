//! Gizmos for what the plugin does: the navmesh's polygon and tile edges (RecastDemo's
//! drawing, from `navlab::debug_draw`), each agent with the way to its target, and the
//! obstacles. [`drawing_gizmos`] turns any `navlab::debug_draw` drawing into retained gizmos;
//! the Navlab viewer draws its stages' lines and points with it too.

use bevy::prelude::*;
use navlab::debug_draw::{DebugDraw, channels, detour::NavMeshDrawFlags, trans_col};

use crate::{NavObstacle, Navigation};

/// Draws the navmesh, the agents and the obstacles with gizmos. Needs Bevy's gizmo plugin
/// (in `DefaultPlugins`).
pub struct NavlabDebugPlugin;

impl Plugin for NavlabDebugPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<NavMeshGizmos>()
            .add_systems(Update, (refresh_nav_mesh_gizmos, draw).chain());
    }
}

/// A packed `navlab::debug_draw` colour (RecastDemo's RGBA bytes) as a Bevy colour.
pub fn debug_color(rgba: u32) -> Color {
    let [r, g, b, a] = channels(rgba);
    Color::srgba_u8(r, g, b, a)
}

/// The line and point batches of a drawing as retained gizmos, each with the width it is
/// drawn at. Points become small crosses (gizmos have no points), drawn as wide as the point.
pub fn drawing_gizmos(drawing: &DebugDraw) -> Vec<(GizmoAsset, f32)> {
    let lines = drawing
        .lines
        .iter()
        .filter(|batch| !batch.segments.is_empty())
        .map(|batch| {
            let mut gizmo = GizmoAsset::new();
            for (&[a, b], &c) in batch.segments.iter().zip(&batch.colors) {
                gizmo.line(Vec3::from(a), Vec3::from(b), debug_color(c));
            }
            (gizmo, batch.width)
        });
    let points = drawing
        .points
        .iter()
        .filter(|batch| !batch.points.is_empty())
        .map(|batch| {
            let mut gizmo = GizmoAsset::new();
            let r = 0.02;
            for (&p, &c) in batch.points.iter().zip(&batch.colors) {
                let (p, color) = (Vec3::from(p), debug_color(c));
                gizmo.line(p - Vec3::X * r, p + Vec3::X * r, color);
                gizmo.line(p - Vec3::Z * r, p + Vec3::Z * r, color);
            }
            (gizmo, batch.size)
        });
    lines.chain(points).collect()
}

/// The navmesh's retained gizmos, made again when the navmesh changes (not sent again each
/// frame, so a large navmesh costs nothing while it stands).
#[derive(Resource, Default)]
struct NavMeshGizmos {
    revision: Option<u64>,
    entities: Vec<Entity>,
}

fn refresh_nav_mesh_gizmos(
    mut commands: Commands,
    navigation: Res<Navigation>,
    mut shown: ResMut<NavMeshGizmos>,
    mut assets: ResMut<Assets<GizmoAsset>>,
) {
    if shown.revision == Some(navigation.revision) {
        return;
    }
    shown.revision = Some(navigation.revision);
    for entity in shown.entities.drain(..) {
        commands.entity(entity).despawn();
    }
    let Some(nav) = navigation.nav_mesh() else {
        return;
    };
    let mut drawing = navlab::debug_draw::detour::nav_mesh(nav, NavMeshDrawFlags::default());
    // RecastDemo's inner edges are faint over its filled polygons; alone over a game's ground
    // they need more opacity to be seen.
    for color in drawing.lines.iter_mut().flat_map(|batch| &mut batch.colors) {
        let alpha = channels(*color)[3].max(96);
        *color = trans_col(*color, alpha.into());
    }
    for (gizmo, width) in drawing_gizmos(&drawing) {
        let gizmo = Gizmo {
            handle: assets.add(gizmo),
            line_config: GizmoLineConfig { width, ..default() },
            // Drawn over the ground the navmesh lies on.
            depth_bias: -0.002,
        };
        shown.entities.push(commands.spawn(gizmo).id());
    }
}

fn draw(
    mut gizmos: Gizmos,
    navigation: Res<Navigation>,
    obstacles: Query<(&NavObstacle, &GlobalTransform)>,
) {
    if let Some(crowd) = navigation.crowd() {
        let agent_color = Color::srgb(0.2, 0.6, 1.0);
        for (_, agent) in crowd.agents() {
            let position = Vec3::from(agent.npos);
            let ring = Isometry3d::new(
                position + Vec3::Y * 0.1,
                Quat::from_rotation_x(std::f32::consts::FRAC_PI_2),
            );
            gizmos.circle(ring, agent.params.radius, agent_color);
            gizmos.line(
                position,
                position + Vec3::Y * agent.params.height,
                agent_color,
            );
            if agent.target_state == navlab::crowd::agent::MoveRequestState::Valid {
                gizmos.line(
                    position + Vec3::Y * 0.2,
                    Vec3::from(*agent.corridor.target()) + Vec3::Y * 0.2,
                    Color::srgba(1.0, 1.0, 1.0, 0.3),
                );
            }
        }
    }
    let obstacle_color = Color::srgb(1.0, 0.4, 0.1);
    for (obstacle, transform) in &obstacles {
        let position = transform.translation();
        match *obstacle {
            NavObstacle::Cylinder { radius, height } => {
                for y in [0.0, height] {
                    let ring = Isometry3d::new(
                        position + Vec3::Y * y,
                        Quat::from_rotation_x(std::f32::consts::FRAC_PI_2),
                    );
                    gizmos.circle(ring, radius, obstacle_color);
                }
            }
            NavObstacle::Box { half_extents } => {
                let (_, rotation, _) = transform.to_scale_rotation_translation();
                gizmos.cube(
                    Transform::from_translation(position)
                        .with_rotation(rotation)
                        .with_scale(half_extents * 2.0),
                    obstacle_color,
                );
            }
        }
    }
}
