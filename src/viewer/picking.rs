//! Mouse picking: every frame the mouse ray is cast against the input mesh and the hit point is
//! marked; clicks go to the active tool as RecastDemo sends them (left button = click, Shift+left
//! = shift-click, right button released without dragging = shift-click).

use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use bevy_egui::input::EguiWantsInput;

use crate::viewer::build::{BuildState, SceneData};
use crate::viewer::camera::MainCamera;
use crate::viewer::navmesh::ShownNavMesh;
use navlab::detour::NavMesh;
use navlab::input::obj::TriMesh;
use navlab::input::partitioned_mesh::intersect_segment_triangle;

/// How far a ray looks for a navmesh file's surface (metres): across the 100 km² world.
const NAV_MESH_RAY_REACH: f32 = 20_000.0;

/// Mouse movement in pixels beyond which a right-button press is a drag, not a click.
const CLICK_SLOP: f32 = 3.0;

/// Where a ray met the input mesh.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hit {
    pub point: Vec3,
    /// Where the ray started (the camera). RecastDemo hands tools both ends, and picks agents
    /// and temp obstacles by the first one the ray passes through, not by the point it hit.
    pub origin: Vec3,
    /// The vertex indices of the input triangle hit; `None` on a navmesh file's own surface
    /// (a world shown without its scene), which has no input triangle.
    pub triangle: Option<[i32; 3]>,
    /// Distance along the ray.
    pub distance: f32,
}

impl Hit {
    /// A click that hit `point` looking straight down from 10 m above it (tests).
    #[cfg(test)]
    pub fn from_above(point: Vec3) -> Hit {
        Hit {
            point,
            origin: point + Vec3::Y * 10.0,
            triangle: None,
            distance: 10.0,
        }
    }

    /// The corners of the input triangle hit.
    pub fn corners(&self, mesh: &TriMesh) -> Option<[Vec3; 3]> {
        self.triangle.map(|triangle| {
            triangle.map(|i| {
                let i = i as usize * 3;
                Vec3::new(mesh.verts[i], mesh.verts[i + 1], mesh.verts[i + 2])
            })
        })
    }

    /// The input triangle's unit normal (counter-clockwise winding, as Recast computes it).
    pub fn normal(&self, mesh: &TriMesh) -> Option<Vec3> {
        let [a, b, c] = self.corners(mesh)?;
        Some((b - a).cross(c - a).normalize_or_zero())
    }
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

/// The nearest front face of the scene's mesh the ray meets within `max_distance`, found
/// through the scene's k-d tree of triangle chunks (RecastDemo's `raycastMesh`, also reporting
/// which triangle was hit).
pub fn raycast_scene(scene: &SceneData, ray: Ray3d, max_distance: f32) -> Option<Hit> {
    let start = ray.origin;
    let end = ray.origin + *ray.direction * max_distance;
    let mesh = &scene.input.mesh;
    let vertex = |i: i32| {
        let i = i as usize * 3;
        [mesh.verts[i], mesh.verts[i + 1], mesh.verts[i + 2]]
    };
    let mut best: Option<(f32, [i32; 3])> = None;
    for node in scene
        .input
        .partitioned
        .chunks_overlapping_segment([start.x, start.z], [end.x, end.z])
    {
        for tri in scene.input.partitioned.chunk_tris(node).chunks_exact(3) {
            let [a, b, c] = [tri[0], tri[1], tri[2]].map(vertex);
            if let Some(t) = intersect_segment_triangle(start.into(), end.into(), a, b, c)
                && best.is_none_or(|(nearest, _)| t < nearest)
            {
                best = Some((t, [tri[0], tri[1], tri[2]]));
            }
        }
    }
    best.map(|(t, triangle)| Hit {
        point: start + (end - start) * t,
        origin: start,
        triangle: Some(triangle),
        distance: t * max_distance,
    })
}

/// Tile cells a ray is followed through at most on a navmesh (a camera far above a world sees
/// across a few thousand).
const MAX_RAY_CELLS: usize = 8192;

/// The nearest front face of the navmesh's detail surface the ray meets within `max_distance`:
/// the ray is walked through the tile grid cell by cell (most cells are passed over, their tiles'
/// boxes missed), and stops at the first cell with a hit. For a navmesh file shown without its
/// scene (a world); the hit names no input triangle.
pub fn raycast_nav_mesh(mesh: &NavMesh, ray: Ray3d, max_distance: f32) -> Option<Hit> {
    let params = mesh.params();
    let orig = Vec3::from(params.orig);
    let size = Vec2::new(params.tile_width, params.tile_height);
    let start = ray.origin;
    let end = start + *ray.direction * max_distance;
    let d = end - start;
    let (start_xz, d_xz, orig_xz) = (start.xz(), d.xz(), orig.xz());
    let mut cell = IVec2::from(mesh.calc_tile_loc(&start.into()));
    let step = IVec2::new(
        if d_xz.x > 0.0 { 1 } else { -1 },
        if d_xz.y > 0.0 { 1 } else { -1 },
    );
    // Where along the segment (0 to 1) the next cell edge in x and in z is crossed, and the
    // stretch between edges.
    let mut next = Vec2::INFINITY;
    let mut stride = Vec2::INFINITY;
    for k in 0..2 {
        if d_xz[k] != 0.0 {
            let edge = orig_xz[k] + (cell[k] + i32::from(step[k] > 0)) as f32 * size[k];
            next[k] = (edge - start_xz[k]) / d_xz[k];
            stride[k] = size[k] / d_xz[k].abs();
        }
    }
    let mut best: Option<f32> = None;
    for _ in 0..MAX_RAY_CELLS {
        for index in mesh.tile_indices_at(cell.x, cell.y) {
            let Some(tile) = mesh.tile(index) else {
                continue;
            };
            let h = tile.header();
            if !segment_meets_box(start, end, Vec3::from(h.bmin), Vec3::from(h.bmax)) {
                continue;
            }
            for (poly, p) in tile.polys().iter().enumerate() {
                if p.is_off_mesh_connection() {
                    continue;
                }
                let tris = tile.detail_meshes().get(poly).map_or(0, |pd| pd.tri_count);
                for t in 0..usize::from(tris) {
                    let Some([a, b, c]) = tile.detail_tri_vertices(poly, t) else {
                        continue;
                    };
                    if let Some(t) = intersect_segment_triangle(start.into(), end.into(), a, b, c)
                        && best.is_none_or(|nearest| t < nearest)
                    {
                        best = Some(t);
                    }
                }
            }
        }
        let leave = next.min_element();
        if leave > 1.0 || best.is_some_and(|t| t <= leave) {
            break;
        }
        if next.x < next.y {
            cell.x += step.x;
            next.x += stride.x;
        } else {
            cell.y += step.y;
            next.y += stride.y;
        }
    }
    best.map(|t| Hit {
        point: start + d * t,
        origin: start,
        triangle: None,
        distance: t * max_distance,
    })
}

/// Whether the segment from `a` to `b` passes through the box (`min`, `max`).
fn segment_meets_box(a: Vec3, b: Vec3, min: Vec3, max: Vec3) -> bool {
    let d = b - a;
    let (mut enter, mut leave) = (0.0f32, 1.0f32);
    for k in 0..3 {
        if d[k].abs() < 1e-12 {
            if a[k] < min[k] || a[k] > max[k] {
                return false;
            }
            continue;
        }
        let (t0, t1) = ((min[k] - a[k]) / d[k], (max[k] - a[k]) / d[k]);
        enter = enter.max(t0.min(t1));
        leave = leave.min(t0.max(t1));
        if enter > leave {
            return false;
        }
    }
    true
}

fn cast_pointer_ray(
    state: Res<BuildState>,
    shown: Option<Res<ShownNavMesh>>,
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
    let (bmin, bmax) = state.scene.input.mesh.bounds();
    let (bmin, bmax) = (Vec3::from(bmin), Vec3::from(bmax));
    // A navmesh file is shown without its scene: its own surface is picked too.
    let file_nav_mesh = shown
        .as_deref()
        .filter(|shown| shown.loaded().is_some())
        .and_then(|shown| shown.get(&state));
    pointer.hit = ray.and_then(|ray| {
        // Far enough to cross the whole mesh from wherever the camera is.
        let reach = ray.origin.distance((bmin + bmax) / 2.0) + bmin.distance(bmax);
        let on_scene = raycast_scene(&state.scene, ray, reach);
        let on_nav_mesh =
            file_nav_mesh.and_then(|mesh| raycast_nav_mesh(mesh, ray, NAV_MESH_RAY_REACH));
        match (on_scene, on_nav_mesh) {
            (Some(a), Some(b)) => Some(if a.distance <= b.distance { a } else { b }),
            (a, b) => a.or(b),
        }
    });
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
    fn ray_hits_the_nearest_front_face() {
        let scene = SceneData::default_scene();
        let ray = Ray3d::new(Vec3::new(0.5, 50.0, 0.5), Dir3::NEG_Y);
        let hit = raycast_scene(&scene, ray, 100.0).expect("the floor is under the ray");
        assert!(hit.point.y.abs() < 1e-4, "{hit:?}");
        assert!((hit.distance - 50.0).abs() < 1e-3, "{hit:?}");
        assert!(hit.normal(&scene.input.mesh).is_some_and(|n| n.y > 0.99));
        let up = Ray3d::new(Vec3::new(0.5, 50.0, 0.5), Dir3::Y);
        assert!(raycast_scene(&scene, up, 100.0).is_none());
        let short = Ray3d::new(Vec3::new(0.5, 50.0, 0.5), Dir3::NEG_Y);
        assert!(raycast_scene(&scene, short, 10.0).is_none());
    }

    /// A ray over a tiled navmesh finds the surface under it, whichever way it slants across
    /// the cells, and nothing where there is no navmesh.
    #[test]
    fn ray_walks_the_tile_grid_to_the_navmesh_surface() {
        let scene = SceneData::default_scene();
        let tiled =
            navlab::bake::tiled::TiledBuild::new(&scene.input, Default::default(), 32).unwrap();
        let mesh = &tiled.nav_mesh;
        assert!(mesh.tile_count() > 4);
        let below = Ray3d::new(Vec3::new(0.5, 50.0, 0.5), Dir3::NEG_Y);
        let straight = raycast_nav_mesh(mesh, below, 100.0).expect("the floor's navmesh");
        for origin in [
            Vec3::new(-40.0, 30.0, -35.0),
            Vec3::new(45.0, 25.0, 40.0),
            Vec3::new(-30.0, 40.0, 45.0),
        ] {
            let dir = Dir3::new(straight.point - origin).unwrap();
            let hit = raycast_nav_mesh(mesh, Ray3d::new(origin, dir), 200.0)
                .expect("a slanted ray meets the navmesh");
            assert!(
                hit.distance <= straight.point.distance(origin) + 1e-2,
                "{hit:?}"
            );
        }
        let away = Ray3d::new(Vec3::new(0.5, 50.0, 0.5), Dir3::Y);
        assert!(raycast_nav_mesh(mesh, away, 100.0).is_none());
    }
}
