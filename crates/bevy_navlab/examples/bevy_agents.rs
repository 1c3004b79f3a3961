//! A group of agents walks to where you click, around buildings and the obstacles you drop.
//!
//! `cargo run --release -p bevy_navlab --example bevy_agents` opens the scene: left click sends
//! the group, `O` drops an obstacle under the cursor, `C` clears them. With `-- --headless` it
//! runs without a window on `MinimalPlugins`, sends the group across the level past two
//! obstacles, and exits with an error unless every agent arrives and none stands inside an
//! obstacle. Built with the `remote` feature, `-- --headless --remote PORT` keeps the
//! headless scene running with Bevy's remote protocol on PORT, for `navlab remote` (and the
//! viewer) to pull its level and push a navmesh.

use std::time::Duration;

use bevy::prelude::*;
use bevy_navlab::prelude::*;

/// The ground's side, metres.
const GROUND: f32 = 40.0;
/// Agents in the group.
const AGENTS: usize = 12;

fn main() -> AppExit {
    let args: Vec<String> = std::env::args().collect();
    if args.iter().any(|a| a == "--headless") {
        let remote_port = args
            .iter()
            .position(|a| a == "--remote")
            .and_then(|i| args.get(i + 1)?.parse::<u16>().ok());
        return match remote_port {
            Some(port) => serve_headless(port),
            None => headless(),
        };
    }
    let mut app = App::new();
    app.add_plugins((DefaultPlugins, NavlabPlugin, NavlabDebugPlugin))
        .add_systems(Startup, (spawn_level, spawn_view, spawn_agents))
        .add_systems(Update, (send_group, drop_obstacles));
    if let Some(path) = args
        .iter()
        .position(|a| a == "--screenshot")
        .and_then(|i| args.get(i + 1))
    {
        app.insert_resource(Scripted {
            path: path.into(),
            since_baked: None,
        })
        .add_systems(Update, scripted_tour);
    }
    app.run()
}

/// `--screenshot PATH`: once the level is baked, the group is sent across it and an obstacle
/// dropped in a gap, as a click and a key would; a few seconds later the window is saved to
/// PATH and the example exits.
#[derive(Resource)]
struct Scripted {
    path: std::path::PathBuf,
    since_baked: Option<f32>,
}

fn scripted_tour(
    mut commands: Commands,
    mut script: ResMut<Scripted>,
    time: Res<Time>,
    navigation: Res<Navigation>,
    agents: Query<Entity, With<NavAgent>>,
) {
    if navigation.nav_mesh().is_none() {
        return;
    }
    let Some(elapsed) = script.since_baked.as_mut() else {
        script.since_baked = Some(0.0);
        for (k, agent) in agents.iter().enumerate() {
            commands
                .entity(agent)
                .insert(NavTarget(formation(Vec3::new(20.0, 0.0, 33.0), k)));
        }
        commands.spawn((
            NavObstacle::Cylinder {
                radius: 1.2,
                height: 2.0,
            },
            Transform::from_xyz(20.0, 0.0, 20.0),
        ));
        return;
    };
    let before = *elapsed;
    *elapsed += time.delta_secs();
    if before < 4.0 && *elapsed >= 4.0 {
        let path = script.path.clone();
        commands
            .spawn(bevy::render::view::screenshot::Screenshot::primary_window())
            .observe(
                move |captured: On<bevy::render::view::screenshot::ScreenshotCaptured>,
                      mut exit: MessageWriter<AppExit>| {
                    let saved = captured
                        .image
                        .clone()
                        .try_into_dynamic()
                        .map_err(|e| e.to_string())
                        .and_then(|image| {
                            // Written whole or not at all, as every file Navlab writes.
                            navlab::file::write_atomically_with(&path, |part| {
                                image
                                    .to_rgb8()
                                    .save_with_format(
                                        part,
                                        bevy::image::ImageFormat::Png
                                            .as_image_crate_format()
                                            .ok_or_else(|| {
                                                std::io::Error::other("no PNG encoder")
                                            })?,
                                    )
                                    .map_err(std::io::Error::other)
                            })
                            .map_err(|e| e.to_string())
                        });
                    match saved {
                        Ok(()) => exit.write(AppExit::Success),
                        Err(e) => {
                            eprintln!("navlab: saving the screenshot: {e}");
                            exit.write(AppExit::error())
                        }
                    };
                },
            );
    }
}

/// The level: a ground and a row of buildings with gaps, each a navmesh source.
fn level() -> Vec<(Mesh, Transform)> {
    let mut parts = vec![(
        Plane3d::default().mesh().size(GROUND, GROUND).build(),
        Transform::from_xyz(GROUND / 2.0, 0.0, GROUND / 2.0),
    )];
    for k in 0..4 {
        parts.push((
            Mesh::from(Cuboid::new(6.0, 4.0, 4.0)),
            Transform::from_xyz(5.0 + k as f32 * 10.0, 2.0, 20.0),
        ));
    }
    parts
}

fn spawn_level(
    mut commands: Commands,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    let material = materials.add(Color::srgb(0.55, 0.55, 0.5));
    for (mesh, transform) in level() {
        commands.spawn((
            NavMeshSource,
            Mesh3d(meshes.add(mesh)),
            MeshMaterial3d(material.clone()),
            transform,
        ));
    }
}

fn spawn_view(mut commands: Commands) {
    commands.spawn((
        Camera3d::default(),
        bevy::core_pipeline::tonemapping::Tonemapping::None,
        Transform::from_xyz(20.0, 38.0, -12.0).looking_at(Vec3::new(20.0, 0.0, 20.0), Vec3::Y),
    ));
    commands.spawn((
        DirectionalLight::default(),
        Transform::from_xyz(10.0, 30.0, 0.0).looking_at(Vec3::new(20.0, 0.0, 20.0), Vec3::Y),
    ));
}

/// Where agent `k` of the group starts.
fn start(k: usize) -> Vec3 {
    Vec3::new(4.0 + (k % 6) as f32 * 6.0, 0.0, 4.0 + (k / 6) as f32 * 4.0)
}

/// Agent `k`'s place in the group around a clicked point: two rows of six, 3 m apart, so
/// that agents still walking pass between those that have arrived.
fn formation(point: Vec3, k: usize) -> Vec3 {
    point + Vec3::new(((k % 6) as f32 - 2.5) * 3.0, 0.0, (k / 6) as f32 * 3.0)
}

fn spawn_agents(
    mut commands: Commands,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    let body = meshes.add(Capsule3d::new(0.5, 1.0));
    let paint = materials.add(Color::srgb(0.2, 0.5, 0.9));
    for k in 0..AGENTS {
        commands
            .spawn((
                NavAgent::default(),
                Transform::from_translation(start(k)),
                Visibility::default(),
            ))
            .with_child((
                Mesh3d(body.clone()),
                MeshMaterial3d(paint.clone()),
                Transform::from_xyz(0.0, 1.0, 0.0),
            ));
    }
}

/// The ground point under the cursor.
fn cursor_point(
    window: &Window,
    camera: &Camera,
    camera_transform: &GlobalTransform,
) -> Option<Vec3> {
    let cursor = window.cursor_position()?;
    let ray = camera.viewport_to_world(camera_transform, cursor).ok()?;
    ray.plane_intersection_point(Vec3::ZERO, InfinitePlane3d::new(Vec3::Y))
}

fn send_group(
    mut commands: Commands,
    buttons: Res<ButtonInput<MouseButton>>,
    window: Single<&Window>,
    camera: Single<(&Camera, &GlobalTransform)>,
    agents: Query<Entity, With<NavAgent>>,
) {
    if !buttons.just_pressed(MouseButton::Left) {
        return;
    }
    let (camera, camera_transform) = *camera;
    let Some(point) = cursor_point(&window, camera, camera_transform) else {
        return;
    };
    for (k, agent) in agents.iter().enumerate() {
        commands
            .entity(agent)
            .insert(NavTarget(formation(point, k)));
    }
}

fn drop_obstacles(
    mut commands: Commands,
    keys: Res<ButtonInput<KeyCode>>,
    window: Single<&Window>,
    camera: Single<(&Camera, &GlobalTransform)>,
    obstacles: Query<Entity, With<NavObstacle>>,
) {
    if keys.just_pressed(KeyCode::KeyC) {
        for obstacle in &obstacles {
            commands.entity(obstacle).despawn();
        }
    }
    if !keys.just_pressed(KeyCode::KeyO) {
        return;
    }
    let (camera, camera_transform) = *camera;
    if let Some(point) = cursor_point(&window, camera, camera_transform) {
        commands.spawn((
            NavObstacle::Cylinder {
                radius: 1.2,
                height: 2.0,
            },
            Transform::from_translation(point),
        ));
    }
}

/// The headless scene served over Bevy's remote protocol until the process is stopped.
#[cfg(feature = "remote")]
fn serve_headless(port: u16) -> AppExit {
    let mut app = headless_app();
    app.add_plugins((
        bevy::remote::RemotePlugin::default(),
        bevy::remote::http::RemoteHttpPlugin::default().with_port(port),
    ));
    spawn_headless_level(app.world_mut());
    for k in 0..AGENTS {
        app.world_mut()
            .spawn((NavAgent::default(), Transform::from_translation(start(k))));
    }
    println!("serving the Bevy Remote Protocol on port {port}");
    app.run()
}

/// Without the `remote` feature there is no remote protocol to serve.
#[cfg(not(feature = "remote"))]
fn serve_headless(_port: u16) -> AppExit {
    eprintln!("navlab: --remote needs the example built with `--features remote`");
    AppExit::error()
}

/// CI runs the headless scene as a test, in the same build of Bevy as the viewer's tests.
#[test]
fn the_group_crosses_the_level() {
    assert_eq!(headless(), AppExit::Success);
}

/// An app without a window: the plugin on `MinimalPlugins`.
fn headless_app() -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        bevy::asset::AssetPlugin::default(),
        bevy::transform::TransformPlugin,
        NavlabPlugin,
    ))
    .init_asset::<Mesh>();
    app
}

/// The level's sources, without materials.
fn spawn_headless_level(world: &mut World) {
    for (mesh, transform) in level() {
        let mesh = world.resource_mut::<Assets<Mesh>>().add(mesh);
        world.spawn((NavMeshSource, Mesh3d(mesh), transform));
    }
}

/// The scene without a window: the group crosses the level past two obstacles.
fn headless() -> AppExit {
    #[derive(Resource, Default)]
    struct Arrivals(Vec<Entity>);

    let mut app = headless_app();
    app.init_resource::<Arrivals>()
        .insert_resource(bevy::time::TimeUpdateStrategy::ManualDuration(
            Duration::from_secs_f32(1.0 / 60.0),
        ))
        .add_systems(
            Last,
            |mut arrivals: ResMut<Arrivals>, mut reached: MessageReader<TargetReached>| {
                arrivals.0.extend(reached.read().map(|m| m.agent));
            },
        );
    let world = app.world_mut();
    spawn_headless_level(world);
    let obstacles = [Vec3::new(10.0, 0.0, 20.0), Vec3::new(20.0, 0.0, 20.0)];
    for at in obstacles {
        world.spawn((
            NavObstacle::Cylinder {
                radius: 1.2,
                height: 2.0,
            },
            Transform::from_translation(at),
        ));
    }
    let agents: Vec<Entity> = (0..AGENTS)
        .map(|k| {
            world
                .spawn((
                    NavAgent::default(),
                    Transform::from_translation(start(k)),
                    NavTarget(formation(Vec3::new(20.0, 0.0, 33.0), k)),
                ))
                .id()
        })
        .collect();

    // Two simulated minutes at most; the bake itself runs in the background.
    for _ in 0..60 * 120 {
        app.update();
        std::thread::sleep(Duration::from_micros(200));
        let world = app.world();
        for &agent in &agents {
            let p = world
                .get::<Transform>(agent)
                .map_or(Vec3::ZERO, |t| t.translation);
            if obstacles
                .iter()
                .any(|o| Vec2::new(p.x - o.x, p.z - o.z).length() < 1.2)
            {
                eprintln!("navlab: agent {agent} stands inside an obstacle at {p}");
                return AppExit::error();
            }
        }
        let arrived = &world.resource::<Arrivals>().0;
        if agents.iter().all(|a| arrived.contains(a)) {
            println!("{} agents arrived", agents.len());
            return AppExit::Success;
        }
    }
    eprintln!("navlab: not every agent arrived within two minutes");
    AppExit::error()
}

/// The round trip the Navlab viewer makes with a running game, over real HTTP: the headless
/// scene serves Bevy's remote protocol; a client pulls the level its sources make, bakes it
/// with the library, pushes the navmesh back; the game swaps it in, keeps it, and the group
/// crosses the level on it.
#[cfg(feature = "remote")]
#[test]
fn a_tool_pulls_the_level_and_pushes_a_navmesh_back() {
    use navlab_app::remote::Game;

    #[derive(Resource, Default)]
    struct Arrivals(Vec<Entity>);

    // A port nothing listens on: bound, then let go for the game to take.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let mut app = headless_app();
    app.add_plugins((
        bevy::remote::RemotePlugin::default(),
        bevy::remote::http::RemoteHttpPlugin::default().with_port(port),
    ))
    .init_resource::<Arrivals>()
    .add_systems(
        Last,
        |mut arrivals: ResMut<Arrivals>, mut reached: MessageReader<TargetReached>| {
            arrivals.0.extend(reached.read().map(|m| m.agent));
        },
    );
    spawn_headless_level(app.world_mut());
    let agents: Vec<Entity> = (0..AGENTS)
        .map(|k| {
            let at = Transform::from_translation(start(k));
            app.world_mut().spawn((NavAgent::default(), at)).id()
        })
        .collect();

    // Driven by hand: the plugins' `finish` registers the remote methods, as `run` would.
    app.finish();
    app.cleanup();
    let address = format!("127.0.0.1:{port}");
    let tool = std::thread::spawn(move || {
        let game = Game::at(address);
        // The game bakes its own navmesh first; the server may take a moment to listen.
        let deadline = std::time::Instant::now() + Duration::from_secs(120);
        while !game.status().is_ok_and(|s| s.has_navmesh) {
            assert!(std::time::Instant::now() < deadline, "the game never baked");
            std::thread::sleep(Duration::from_millis(50));
        }
        let before = game.status().unwrap();
        let level = game.pull_level().unwrap();
        let nav = navlab::game::NavMeshBuilder::new(NavMeshSettings::default().build)
            .mesh(&level.mesh)
            .tiled(NavMeshSettings::default().tile_size)
            .build()
            .unwrap();
        let generation = game.push_nav_mesh(&nav).unwrap();
        // The crowd moves onto the new navmesh at the next fixed update.
        let after = loop {
            let status = game.status().unwrap();
            if status.agents == AGENTS as u64 || std::time::Instant::now() > deadline {
                break status;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        (before, level, nav.to_mset_bytes(), generation, after)
    });
    let started = std::time::Instant::now();
    while !tool.is_finished() {
        assert!(
            started.elapsed() < Duration::from_secs(180),
            "the round trip hangs"
        );
        app.update();
        std::thread::sleep(Duration::from_millis(1));
    }
    let (before, pulled, pushed, generation, after) = tool.join().expect("the round trip");
    assert_eq!(
        pulled.sources.len(),
        level().len(),
        "every source is pulled"
    );
    assert_eq!(generation, before.generation + 1);
    assert_eq!(after.generation, generation);
    assert!(after.pinned && after.has_navmesh);
    assert_eq!(
        after.agents, AGENTS as u64,
        "the agents move onto the pushed navmesh"
    );
    let navigation = app.world().resource::<Navigation>();
    let in_use = navigation.nav_mesh().expect("a navmesh").to_mset_bytes();
    assert_eq!(in_use, pushed, "the game uses the navmesh pushed");

    for (k, &agent) in agents.iter().enumerate() {
        let target = NavTarget(formation(Vec3::new(20.0, 0.0, 33.0), k));
        app.world_mut().entity_mut(agent).insert(target);
    }
    app.insert_resource(bevy::time::TimeUpdateStrategy::ManualDuration(
        Duration::from_secs_f32(1.0 / 60.0),
    ));
    for _ in 0..60 * 120 {
        app.update();
        let arrived = &app.world().resource::<Arrivals>().0;
        if agents.iter().all(|a| arrived.contains(a)) {
            assert!(app.world().resource::<Navigation>().is_pinned());
            return;
        }
    }
    panic!("not every agent arrived on the pushed navmesh");
}
