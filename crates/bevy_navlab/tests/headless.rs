//! The plugin in a headless app (`MinimalPlugins`): the level is baked in the background,
//! agents walk around the buildings and the obstacles to their targets and say so, no agent
//! stands inside an obstacle, and a moved building re-bakes only the tiles around it.

use std::time::Duration;

use bevy::asset::AssetPlugin;
use bevy::mesh::Mesh3d;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy::transform::TransformPlugin;
use bevy_navlab::prelude::*;

/// The messages the test reads, gathered each frame.
#[derive(Resource, Default)]
struct Seen {
    reached: Vec<Entity>,
    unreachable: Vec<Entity>,
    updates: Vec<NavMeshUpdated>,
}

fn gather(
    mut seen: ResMut<Seen>,
    mut reached: MessageReader<TargetReached>,
    mut unreachable: MessageReader<TargetUnreachable>,
    mut updated: MessageReader<NavMeshUpdated>,
) {
    seen.reached.extend(reached.read().map(|m| m.agent));
    seen.unreachable.extend(unreachable.read().map(|m| m.agent));
    seen.updates.extend(updated.read().copied());
}

fn app() -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin::default(),
        TransformPlugin,
        NavlabPlugin,
    ))
    .init_asset::<Mesh>()
    .init_resource::<Seen>()
    .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f32(
        1.0 / 60.0,
    )))
    .add_systems(Last, gather);
    app
}

/// A 40 m square ground with a row of four buildings across its middle, gaps between them.
fn spawn_level(app: &mut App) -> Entity {
    let world = app.world_mut();
    let ground = world
        .resource_mut::<Assets<Mesh>>()
        .add(Plane3d::default().mesh().size(40.0, 40.0).build());
    let building = world
        .resource_mut::<Assets<Mesh>>()
        .add(Mesh::from(Cuboid::new(6.0, 4.0, 4.0)));
    world.spawn((
        NavMeshSource,
        Mesh3d(ground),
        Transform::from_xyz(20.0, 0.0, 20.0),
    ));
    let mut last = Entity::PLACEHOLDER;
    for k in 0..4 {
        last = world
            .spawn((
                NavMeshSource,
                Mesh3d(building.clone()),
                Transform::from_xyz(5.0 + k as f32 * 10.0, 2.0, 20.0),
            ))
            .id();
    }
    last
}

/// Runs frames until `done` holds, at most `frames` of them; false if it never did.
fn run_until(app: &mut App, frames: usize, mut done: impl FnMut(&mut App) -> bool) -> bool {
    for _ in 0..frames {
        app.update();
        if done(app) {
            return true;
        }
        // The bake runs on the async compute pool; give it the cores.
        std::thread::sleep(Duration::from_millis(1));
    }
    false
}

#[test]
fn agents_walk_around_buildings_and_obstacles_to_their_targets() {
    let mut app = app();
    spawn_level(&mut app);
    assert!(
        run_until(&mut app, 5000, |app| app
            .world()
            .resource::<Navigation>()
            .nav_mesh()
            .is_some()),
        "the level was baked"
    );

    // Obstacles in two of the gaps between the buildings.
    let obstacles = [Vec3::new(10.0, 0.0, 20.0), Vec3::new(20.0, 0.0, 20.0)];
    for &at in &obstacles {
        app.world_mut().spawn((
            NavObstacle::Cylinder {
                radius: 1.5,
                height: 2.0,
            },
            Transform::from_translation(at),
        ));
    }
    // Eight agents on the south side, each sent to the north side.
    let agents: Vec<Entity> = (0..8)
        .map(|k| {
            let x = 4.0 + k as f32 * 4.5;
            app.world_mut()
                .spawn((
                    NavAgent::default(),
                    Transform::from_xyz(x, 0.0, 5.0),
                    NavTarget(Vec3::new(40.0 - x, 0.0, 35.0)),
                ))
                .id()
        })
        .collect();

    let mut inside = Vec::new();
    let all_arrived = run_until(&mut app, 60 * 60, |app| {
        let world = app.world_mut();
        for &agent in &agents {
            let p = world.get::<Transform>(agent).unwrap().translation;
            for o in &obstacles {
                // The carved hole is the obstacle plus the agent's radius; the agent's centre
                // stays out of the obstacle itself.
                if Vec2::new(p.x - o.x, p.z - o.z).length() < 1.5 {
                    inside.push((agent, p));
                }
            }
        }
        let seen = world.resource::<Seen>();
        agents.iter().all(|a| seen.reached.contains(a))
    });
    let seen = app.world().resource::<Seen>();
    assert!(
        all_arrived,
        "every agent arrives within a minute; reached {:?}, unreachable {:?}",
        seen.reached, seen.unreachable
    );
    assert!(
        inside.is_empty(),
        "agents stood inside obstacles: {inside:?}"
    );
    for &agent in &agents {
        assert!(
            app.world().get::<NavTarget>(agent).is_none(),
            "the target was taken off"
        );
    }
}

#[test]
fn a_moved_building_rebakes_only_the_tiles_around_it() {
    let mut app = app();
    app.insert_resource(NavMeshSettings {
        tile_size: 16,
        ..NavMeshSettings::default()
    });
    let building = spawn_level(&mut app);
    assert!(run_until(&mut app, 5000, |app| !app
        .world()
        .resource::<Seen>()
        .updates
        .is_empty()));
    let first = app.world().resource::<Seen>().updates[0];
    assert_eq!(first.tiles_rebaked, None, "the first bake is whole");

    // Nothing else waits to be baked.
    for _ in 0..30 {
        app.update();
    }
    assert_eq!(app.world().resource::<Seen>().updates.len(), 1);

    // The last building moves north by 6 m: a few tiles around it are baked again.
    app.world_mut()
        .get_mut::<Transform>(building)
        .unwrap()
        .translation
        .z += 6.0;
    assert!(run_until(&mut app, 5000, |app| app
        .world()
        .resource::<Seen>()
        .updates
        .len()
        == 2));
    let second = app.world().resource::<Seen>().updates[1];
    let tiles = second.tiles_rebaked.expect("a re-bake of some tiles");
    assert!(
        tiles > 0 && tiles < 40,
        "{tiles} tiles re-baked, of 81 columns"
    );

    // The buildings are hollow boxes to Recast: their roofs are walkable, and so is the
    // ground they enclose. The roof moved with the building.
    let navigation = app.world().resource::<Navigation>();
    let nav = navigation.nav_mesh().unwrap();
    let filter = QueryFilter::default();
    let height_near = |x: f32, z: f32| nav.nearest_point([x, 3.5, z], &filter).unwrap().position[1];
    assert!(height_near(35.0, 26.0) > 3.5, "a roof at the new place");
    assert!(height_near(35.0, 20.0) < 1.0, "no roof at the old place");
    assert!(
        height_near(25.0, 20.0) > 3.5,
        "the other buildings kept theirs"
    );
}

#[test]
fn navmesh_files_load_as_assets_and_bad_ones_fail_without_a_panic() {
    let dir = std::env::temp_dir().join(format!("bevy_navlab_assets_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let floor = [
        [0.0, 0.0, 0.0],
        [0.0, 0.0, 20.0],
        [20.0, 0.0, 20.0],
        [20.0, 0.0, 0.0],
    ];
    let nav = navlab::game::NavMeshBuilder::new(BuildSettings::default())
        .triangles(&floor, &[0, 1, 2, 0, 2, 3])
        .build()
        .unwrap();
    navlab::detour::save_nav_mesh(&dir.join("level.bin"), &nav).unwrap();
    std::fs::write(dir.join("broken.bin"), b"MSET but not really a navmesh").unwrap();

    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin {
            file_path: dir.to_string_lossy().into_owned(),
            ..AssetPlugin::default()
        },
        NavlabPlugin,
    ));
    app.finish();
    app.cleanup();
    let server = app.world().resource::<AssetServer>().clone();
    let good: Handle<NavMeshAsset> = server.load("level.bin");
    let bad: Handle<NavMeshAsset> = server.load("broken.bin");
    let settled = |app: &mut App| {
        let server = app.world().resource::<AssetServer>();
        server.is_loaded(&good) && server.load_state(&bad).is_failed()
    };
    assert!(run_until(&mut app, 5000, settled), "both loads settled");

    let loaded = app
        .world()
        .resource::<Assets<NavMeshAsset>>()
        .get(&good)
        .unwrap()
        .0
        .clone();
    assert_eq!(loaded.to_mset_bytes(), nav.to_mset_bytes());
    // A loaded navmesh is put to use; agents walk on it.
    app.world_mut()
        .resource_mut::<Navigation>()
        .use_baked(loaded);
    assert!(app.world().resource::<Navigation>().nav_mesh().is_some());
    std::fs::remove_dir_all(&dir).unwrap();
}
