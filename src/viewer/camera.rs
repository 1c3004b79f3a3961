//! The 3D camera: bevy_panorbit_camera's orbit (right button, as RecastDemo rotates) and pan
//! (middle button), a wheel zoom of equal steps in and out, plus RecastDemo's W/A/S/D/Q/E fly
//! keys with Shift for slow movement, RecastDemo's fog, and framing the mesh whenever a new
//! scene is shown.

use std::f32::consts::FRAC_PI_4;

use bevy::camera::CameraOutputMode;
use bevy::camera::visibility::RenderLayers;
use bevy::core_pipeline::tonemapping::Tonemapping;
use bevy::input::mouse::{MouseScrollUnit, MouseWheel};
use bevy::pbr::{DistanceFog, FogFalloff};
use bevy::prelude::*;
use bevy::render::render_resource::BlendState;
use bevy_egui::input::EguiWantsInput;
use bevy_egui::{EguiContexts, EguiGlobalSettings, EguiPrimaryContextPass, PrimaryEguiContext};
use bevy_panorbit_camera::{PanOrbitCamera, PanOrbitCameraPlugin};

use crate::viewer::build::BuildState;
use crate::viewer::draw::world::{TileGrid, WorldView, shows_world};
use crate::viewer::navmesh::{ShownNavMesh, nav_mesh_bounds};
use crate::viewer::typing::TypingInUi;
use navlab::detour::NavMesh;

/// RecastDemo's background colour.
const CLEAR_COLOR: Color = Color::srgb(0.3, 0.3, 0.32);
/// RecastDemo's fog colour.
const FOG_COLOR: Color = Color::srgb(0.32, 0.31, 0.30);
/// Fly speed in units per second, and with Shift held (RecastDemo's values).
const FLY_SPEED: f32 = 22.0;
const SLOW_FLY_SPEED: f32 = 4.0;
/// Over a world, the flying speed in orbit radii per second (a camera 2 km out crosses a
/// 300 m block in under a second).
const WORLD_FLY_SPEED_PER_RADIUS: f32 = 0.25;
/// What one wheel notch divides (in) or multiplies (out) the orbit radius by.
const ZOOM_STEP: f32 = 1.1;
/// Pixels of smooth (touchpad) scrolling that make one notch.
const PIXELS_PER_NOTCH: f32 = 100.0;

/// The viewer's one 3D camera.
#[derive(Component)]
pub struct MainCamera;

pub struct CameraPlugin;

impl Plugin for CameraPlugin {
    fn build(&self, app: &mut App) {
        app.add_plugins(PanOrbitCameraPlugin)
            .insert_resource(ClearColor(CLEAR_COLOR))
            .init_resource::<TypingInUi>()
            .add_systems(Startup, spawn_camera)
            .add_systems(EguiPrimaryContextPass, note_typing)
            // Update runs before the orbit camera's own systems in PostUpdate.
            .add_systems(
                Update,
                (
                    frame_new_scene,
                    fly,
                    yield_pointer_to_ui,
                    wheel_zoom.after(yield_pointer_to_ui),
                ),
            );
    }
}

fn spawn_camera(mut commands: Commands, mut egui_settings: ResMut<EguiGlobalSettings>) {
    // The panels get a camera of their own, over the whole target, so that the 3D camera can
    // be given just the area the panels leave free.
    egui_settings.auto_create_primary_context = false;
    commands.spawn((
        PrimaryEguiContext,
        Camera2d,
        RenderLayers::none(),
        Camera {
            order: 1,
            output_mode: CameraOutputMode::Write {
                blend_state: Some(BlendState::ALPHA_BLENDING),
                clear_color: ClearColorConfig::None,
            },
            clear_color: ClearColorConfig::Custom(Color::NONE),
            ..default()
        },
    ));
    commands.spawn((
        MainCamera,
        PanOrbitCamera {
            button_orbit: MouseButton::Right,
            button_pan: MouseButton::Middle,
            // `wheel_zoom` zooms instead.
            zoom_sensitivity: 0.0,
            ..default()
        },
        Projection::Perspective(PerspectiveProjection {
            fov: 50f32.to_radians(),
            ..default()
        }),
        Tonemapping::None,
        Msaa::Sample4,
        // The span boxes are drawn with direct (not GPU-indirect) instanced draws.
        bevy::render::view::NoIndirectDrawing,
        DistanceFog {
            color: FOG_COLOR,
            falloff: FogFalloff::Linear {
                start: 100.0,
                end: 1000.0,
            },
            ..default()
        },
        Transform::from_xyz(30.0, 30.0, 30.0).looking_at(Vec3::ZERO, Vec3::Y),
    ));
}

/// Points the camera at a newly shown scene (or a navmesh file loaded without its scene) from
/// RecastDemo's corner view, and sets the fog and far plane to its size.
fn frame_new_scene(
    state: Res<BuildState>,
    shown: Res<ShownNavMesh>,
    mut framed: Local<(u64, u64)>,
    mut cameras: Query<(&mut PanOrbitCamera, &mut DistanceFog, &mut Projection), With<MainCamera>>,
) {
    let now = (state.scene_version, shown.loaded_version);
    if *framed == now {
        return;
    }
    let Ok((mut orbit, mut fog, mut projection)) = cameras.single_mut() else {
        return;
    };
    let new_file = framed.1 != now.1;
    *framed = now;
    let file_bounds = shown.loaded().filter(|_| new_file).and_then(|loaded| {
        match world_grid(&shown, &loaded.mesh) {
            // A world is framed at its middle, a few blocks across, not whole.
            Some(grid) => Some(grid.middle_blocks(WORLD_FRAME_BLOCKS)),
            None => nav_mesh_bounds(&loaded.mesh),
        }
    });
    let (bmin, bmax) = file_bounds.unwrap_or_else(|| state.scene.input.mesh.bounds());
    let (bmin, bmax) = (Vec3::from(bmin), Vec3::from(bmax));
    let half_diagonal = ((bmax - bmin).length() / 2.0).max(1.0);
    let centre = (bmin + bmax) / 2.0;
    let radius = half_diagonal * 2.3;
    orbit.focus = centre;
    orbit.target_focus = centre;
    orbit.yaw = Some(FRAC_PI_4);
    orbit.target_yaw = FRAC_PI_4;
    let pitch = (1.0 / 3f32.sqrt()).asin();
    orbit.pitch = Some(pitch);
    orbit.target_pitch = pitch;
    orbit.radius = Some(radius);
    orbit.target_radius = radius;
    orbit.force_update = true;
    let view_range = half_diagonal * 3.0;
    fog.falloff = FogFalloff::Linear {
        start: view_range * 0.1,
        end: view_range * 1.25,
    };
    if let Projection::Perspective(perspective) = projection.as_mut() {
        perspective.far = (view_range * 4.0).max(1000.0);
        perspective.near = (half_diagonal * 0.001).clamp(0.01, 0.5);
    }
}

/// Blocks across the area a world's navmesh is first framed on.
const WORLD_FRAME_BLOCKS: i32 = 4;

/// The tile grid of `mesh` when it is drawn as a world.
fn world_grid(shown: &ShownNavMesh, mesh: &NavMesh) -> Option<TileGrid> {
    if !shows_world(shown, mesh) {
        return None;
    }
    match shown.store() {
        Some(store) => TileGrid::of_store(store),
        None => TileGrid::of_nav_mesh(mesh),
    }
}

/// Notes whether a text field has the keyboard ([`TypingInUi`]).
fn note_typing(mut contexts: EguiContexts, mut typing: ResMut<TypingInUi>) -> Result {
    let now = TypingInUi(contexts.ctx_mut()?.text_edit_focused());
    typing.set_if_neq(now);
    Ok(())
}

/// RecastDemo's key movement: W/S along the view, A/D sideways, Q/E (or PageUp/PageDown) up and
/// down, Shift slow; speed eases in over a quarter second. Not while typing in a text field.
/// Over a world, W/S keep the height and the speed grows with the orbit radius.
fn fly(
    keys: Res<ButtonInput<KeyCode>>,
    time: Res<Time>,
    typing: Res<TypingInUi>,
    mut ease: Local<f32>,
    world: Option<Res<WorldView>>,
    mut cameras: Query<(&mut PanOrbitCamera, &Transform), With<MainCamera>>,
) {
    let Ok((mut orbit, transform)) = cameras.single_mut() else {
        return;
    };
    if typing.0 {
        return;
    }
    let axis = |plus: &[KeyCode], minus: &[KeyCode]| {
        (keys.any_pressed(plus.iter().copied()) as i32
            - keys.any_pressed(minus.iter().copied()) as i32) as f32
    };
    let forward = axis(
        &[KeyCode::KeyW, KeyCode::ArrowUp],
        &[KeyCode::KeyS, KeyCode::ArrowDown],
    );
    let right = axis(
        &[KeyCode::KeyD, KeyCode::ArrowRight],
        &[KeyCode::KeyA, KeyCode::ArrowLeft],
    );
    let up = axis(
        &[KeyCode::KeyQ, KeyCode::PageUp],
        &[KeyCode::KeyE, KeyCode::PageDown],
    );
    let dt = time.delta_secs();
    if forward == 0.0 && right == 0.0 && up == 0.0 {
        *ease = 0.0;
        return;
    }
    *ease = (*ease + dt * 4.0).min(1.0);
    let on_world = world.is_some_and(|w| w.is_on());
    let speed = if keys.any_pressed([KeyCode::ShiftLeft, KeyCode::ShiftRight]) {
        SLOW_FLY_SPEED
    } else if on_world {
        // Over a world, RecastDemo's walking pace would take minutes to cross a block.
        FLY_SPEED.max(orbit.target_radius * WORLD_FLY_SPEED_PER_RADIUS)
    } else {
        FLY_SPEED
    };
    // Over a world the flight is level, as over a map: W/S along the ground, Q/E for height.
    let ahead = if on_world {
        transform.forward().with_y(0.0).normalize_or_zero()
    } else {
        *transform.forward()
    };
    let step = (ahead * forward + transform.right() * right + Vec3::Y * up) * speed * *ease * dt;
    orbit.focus += step;
    orbit.target_focus += step;
    orbit.force_update = true;
}

/// The wheel zooms by a constant factor per notch, so steps in and out cancel (the orbit
/// camera's own zoom adds a fifth of the radius each notch: six in and six out ended 22 %
/// closer); not while egui has the pointer.
fn wheel_zoom(
    mut wheel: MessageReader<MouseWheel>,
    mut cameras: Query<&mut PanOrbitCamera, With<MainCamera>>,
) {
    let notches: f32 = wheel
        .read()
        .map(|event| match event.unit {
            MouseScrollUnit::Line => event.y,
            MouseScrollUnit::Pixel => event.y / PIXELS_PER_NOTCH,
        })
        .sum();
    let Ok(mut orbit) = cameras.single_mut() else {
        return;
    };
    if notches != 0.0 && orbit.enabled {
        orbit.target_radius = zoomed_radius(orbit.target_radius, notches);
    }
}

/// The orbit radius `notches` wheel notches from `radius` (positive: closer).
fn zoomed_radius(radius: f32, notches: f32) -> f32 {
    radius * ZOOM_STEP.powf(-notches)
}

/// Leaves the mouse to egui while it is over a panel or dragging a widget.
fn yield_pointer_to_ui(
    egui_input: Option<Res<EguiWantsInput>>,
    mut cameras: Query<&mut PanOrbitCamera, With<MainCamera>>,
) {
    let Some(egui_input) = egui_input else {
        return;
    };
    let wants = egui_input.wants_pointer_input() || egui_input.is_pointer_over_area();
    for mut orbit in &mut cameras {
        if orbit.enabled == wants {
            orbit.enabled = !wants;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn six_notches_in_and_six_out_return_to_the_same_radius() {
        let start = 40.0;
        let mut radius = start;
        for _ in 0..6 {
            radius = zoomed_radius(radius, 1.0);
        }
        assert!(
            (radius - start / ZOOM_STEP.powi(6)).abs() < 1e-3,
            "{radius}"
        );
        for _ in 0..6 {
            radius = zoomed_radius(radius, -1.0);
        }
        assert!((radius - start).abs() < 1e-4 * start, "{radius}");
    }

    /// Tab gives egui's focus to a button: egui then "wants the keyboard", yet no text is typed,
    /// so the fly keys stay the 3D view's.
    #[test]
    fn a_focused_button_is_not_typing() {
        let ctx = bevy_egui::egui::Context::default();
        let tab = bevy_egui::egui::Event::Key {
            key: bevy_egui::egui::Key::Tab,
            physical_key: None,
            pressed: true,
            repeat: false,
            modifiers: bevy_egui::egui::Modifiers::NONE,
        };
        for events in [vec![tab], vec![]] {
            let input = bevy_egui::egui::RawInput {
                events,
                ..Default::default()
            };
            let _ = ctx.run_ui(input, |ui| {
                let _ = ui.button("Build");
            });
        }
        assert!(ctx.egui_wants_keyboard_input());
        assert!(!ctx.text_edit_focused());
    }

    /// W moves the orbit's focus along the view, unless a text field has the keyboard.
    #[test]
    fn the_fly_keys_move_the_camera_unless_typing() {
        for typing in [false, true] {
            let mut app = App::new();
            app.init_resource::<ButtonInput<KeyCode>>()
                .init_resource::<Time>()
                .insert_resource(TypingInUi(typing))
                .add_systems(Update, fly);
            let camera = app
                .world_mut()
                .spawn((MainCamera, PanOrbitCamera::default(), Transform::default()))
                .id();
            app.world_mut()
                .resource_mut::<ButtonInput<KeyCode>>()
                .press(KeyCode::KeyW);
            app.world_mut()
                .resource_mut::<Time>()
                .advance_by(std::time::Duration::from_millis(100));
            app.update();
            let focus = app
                .world()
                .get::<PanOrbitCamera>(camera)
                .unwrap()
                .target_focus;
            assert_eq!(focus.z < 0.0, !typing, "typing: {typing}, focus {focus}");
        }
    }

    /// Wheel messages move the orbit camera's target radius, unless egui has the pointer.
    #[test]
    fn the_wheel_scales_the_orbit_radius() {
        let mut app = App::new();
        app.add_message::<MouseWheel>()
            .add_systems(Update, wheel_zoom);
        let camera = app
            .world_mut()
            .spawn((
                MainCamera,
                PanOrbitCamera {
                    target_radius: 10.0,
                    ..default()
                },
            ))
            .id();
        let notch = |y: f32, unit| MouseWheel {
            unit,
            x: 0.0,
            y,
            window: Entity::PLACEHOLDER,
            phase: bevy::input::touch::TouchPhase::Moved,
        };
        let radius = |app: &App| {
            app.world()
                .get::<PanOrbitCamera>(camera)
                .unwrap()
                .target_radius
        };
        app.world_mut()
            .write_message(notch(1.0, MouseScrollUnit::Line));
        app.update();
        assert!((radius(&app) - 10.0 / ZOOM_STEP).abs() < 1e-5);
        app.world_mut()
            .write_message(notch(-PIXELS_PER_NOTCH, MouseScrollUnit::Pixel));
        app.update();
        assert!((radius(&app) - 10.0).abs() < 1e-5);
        app.world_mut()
            .get_mut::<PanOrbitCamera>(camera)
            .unwrap()
            .enabled = false;
        app.world_mut()
            .write_message(notch(3.0, MouseScrollUnit::Line));
        app.update();
        assert!(
            (radius(&app) - 10.0).abs() < 1e-5,
            "over a panel the wheel scrolls it"
        );
    }
}
