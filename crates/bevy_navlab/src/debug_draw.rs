//! Gizmos for what the plugin does: the navmesh's polygon and tile edges (RecastDemo's
//! drawing, from `navlab::debug_draw`), each agent with the way to its target, and the
//! obstacles.

use bevy::prelude::*;
use navlab::debug_draw::{DebugDraw, channels, detour::NavMeshDrawFlags};

use crate::{NavObstacle, Navigation};

/// Draws the navmesh, the agents and the obstacles with gizmos. Needs Bevy's gizmo plugin
/// (in `DefaultPlugins`).
pub struct NavlabDebugPlugin;

impl Plugin for NavlabDebugPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<NavMeshLines>()
            .add_systems(Update, (refresh_lines, draw).chain());
    }
}

/// The navmesh's lines, made again when the navmesh changes.
#[derive(Resource, Default)]
struct NavMeshLines {
    revision: Option<u64>,
    segments: Vec<(Vec3, Vec3, Color)>,
}

fn color(rgba: u32) -> Color {
    let [r, g, b, a] = channels(rgba);
    Color::srgba_u8(r, g, b, a.max(96))
}

fn refresh_lines(navigation: Res<Navigation>, mut lines: ResMut<NavMeshLines>) {
    if lines.revision == Some(navigation.revision) {
        return;
    }
    lines.revision = Some(navigation.revision);
    lines.segments.clear();
    let Some(nav) = navigation.nav_mesh() else {
        return;
    };
    let drawing: DebugDraw = navlab::debug_draw::detour::nav_mesh(nav, NavMeshDrawFlags::default());
    // Lifted a little so the lines are not hidden in the ground they lie on.
    let lift = Vec3::Y * 0.05;
    for batch in &drawing.lines {
        for (segment, &c) in batch.segments.iter().zip(&batch.colors) {
            lines.segments.push((
                Vec3::from(segment[0]) + lift,
                Vec3::from(segment[1]) + lift,
                color(c),
            ));
        }
    }
}

fn draw(
    mut gizmos: Gizmos,
    lines: Res<NavMeshLines>,
    navigation: Res<Navigation>,
    obstacles: Query<(&NavObstacle, &GlobalTransform)>,
) {
    for &(a, b, c) in &lines.segments {
        gizmos.line(a, b, c);
    }
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
