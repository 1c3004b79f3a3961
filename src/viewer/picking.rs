//! Mouse picking: every frame the mouse ray is cast against the input mesh and the hit point is
//! marked; clicks go to the active tool as RecastDemo sends them (left button = click, Shift+left
//! = shift-click, right button released without dragging = shift-click).

use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use bevy_egui::input::EguiWantsInput;

use crate::geometry::TriMesh;
use crate::viewer::build::BuildState;
use crate::viewer::camera::MainCamera;

/// Mouse movement in pixels beyond which a right-button press is a drag, not a click.
const CLICK_SLOP: f32 = 3.0;

/// Where a ray met the input mesh.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hit {
    pub point: Vec3,
    /// Index of the triangle hit.
    pub triangle: usize,
    /// Distance along the ray.
    pub distance: f32,
}

/// The mouse ray and what it hits this frame.
#[derive(Resource, Default)]
pub struct PointerHit {
    pub ray: Option<Ray3d>,
    pub hit: Option<Hit>,
}

/// A click on the mesh for the active tool.
#[derive(Message, Clone, Copy, Debug)]
pub struct MeshClick {
    pub hit: Hit,
    pub shift: bool,
}

pub struct PickingPlugin;

/// The systems that update [`PointerHit`] and send [`MeshClick`]s.
#[derive(SystemSet, Clone, Debug, PartialEq, Eq, Hash)]
pub struct PickingSystems;

impl Plugin for PickingPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<PointerHit>()
            .add_message::<MeshClick>()
            .add_systems(
                Update,
                (cast_pointer_ray, detect_clicks, mark_hit)
                    .chain()
                    .in_set(PickingSystems),
            );
    }
}

/// The nearest triangle of `mesh` the ray crosses (either side), by testing every triangle.
/// The function a chunked BVH will replace; nav_test's 1.6k triangles take a few microseconds.
pub fn raycast_mesh(mesh: &TriMesh, ray: Ray3d) -> Option<Hit> {
    let origin = ray.origin;
    let dir = *ray.direction;
    let vertex = |i: i32| {
        let i = i as usize * 3;
        Vec3::new(mesh.verts[i], mesh.verts[i + 1], mesh.verts[i + 2])
    };
    let mut best: Option<Hit> = None;
    for (triangle, tri) in mesh.tris.chunks_exact(3).enumerate() {
        let (a, b, c) = (vertex(tri[0]), vertex(tri[1]), vertex(tri[2]));
        // Möller–Trumbore.
        let e1 = b - a;
        let e2 = c - a;
        let p = dir.cross(e2);
        let det = e1.dot(p);
        if det.abs() < 1e-12 {
            continue;
        }
        let inv = 1.0 / det;
        let s = origin - a;
        let u = s.dot(p) * inv;
        if !(0.0..=1.0).contains(&u) {
            continue;
        }
        let q = s.cross(e1);
        let v = dir.dot(q) * inv;
        if v < 0.0 || u + v > 1.0 {
            continue;
        }
        let t = e2.dot(q) * inv;
        if t > 0.0 && best.is_none_or(|h| t < h.distance) {
            best = Some(Hit {
                point: origin + dir * t,
                triangle,
                distance: t,
            });
        }
    }
    best
}

fn cast_pointer_ray(
    state: Res<BuildState>,
    windows: Query<&Window, With<PrimaryWindow>>,
    cameras: Query<(&Camera, &GlobalTransform), With<MainCamera>>,
    egui_input: Option<Res<EguiWantsInput>>,
    mut pointer: ResMut<PointerHit>,
) {
    let over_ui = egui_input.is_some_and(|e| e.is_pointer_over_area() || e.wants_pointer_input());
    let ray = windows
        .single()
        .ok()
        .and_then(Window::cursor_position)
        .filter(|_| !over_ui)
        .and_then(|cursor| {
            let (camera, transform) = cameras.single().ok()?;
            camera.viewport_to_world(transform, cursor).ok()
        });
    pointer.hit = ray.and_then(|ray| raycast_mesh(&state.scene.mesh, ray));
    pointer.ray = ray;
}

fn detect_clicks(
    buttons: Res<ButtonInput<MouseButton>>,
    keys: Res<ButtonInput<KeyCode>>,
    windows: Query<&Window, With<PrimaryWindow>>,
    pointer: Res<PointerHit>,
    mut right_pressed_at: Local<Option<Vec2>>,
    mut clicks: MessageWriter<MeshClick>,
) {
    let cursor = windows.single().ok().and_then(Window::cursor_position);
    if buttons.just_pressed(MouseButton::Right) {
        *right_pressed_at = cursor;
    }
    let shift = keys.any_pressed([KeyCode::ShiftLeft, KeyCode::ShiftRight]);
    let Some(hit) = pointer.hit else {
        return;
    };
    if buttons.just_released(MouseButton::Left) {
        clicks.write(MeshClick { hit, shift });
    }
    if buttons.just_released(MouseButton::Right) {
        let dragged = match (*right_pressed_at, cursor) {
            (Some(from), Some(to)) => from.distance(to) > CLICK_SLOP,
            _ => true,
        };
        if !dragged {
            clicks.write(MeshClick { hit, shift: true });
        }
    }
}

fn mark_hit(pointer: Res<PointerHit>, mut gizmos: Gizmos) {
    if let Some(hit) = pointer.hit {
        let size = 0.1 * hit.distance.max(1.0).sqrt();
        let color = Color::srgb(1.0, 1.0, 1.0);
        gizmos.line(
            hit.point - Vec3::X * size,
            hit.point + Vec3::X * size,
            color,
        );
        gizmos.line(
            hit.point - Vec3::Z * size,
            hit.point + Vec3::Z * size,
            color,
        );
        gizmos.line(hit.point, hit.point + Vec3::Y * size * 3.0, color);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ray_hits_the_nearest_triangle() {
        let mesh = crate::scene::default_scene();
        let ray = Ray3d::new(Vec3::new(0.5, 50.0, 0.5), Dir3::NEG_Y);
        let hit = raycast_mesh(&mesh, ray).expect("the floor is under the ray");
        assert!((hit.point.y - 0.0).abs() < 1e-4, "{hit:?}");
        let miss = Ray3d::new(Vec3::new(0.5, 50.0, 0.5), Dir3::Y);
        assert!(raycast_mesh(&mesh, miss).is_none());
    }
}
