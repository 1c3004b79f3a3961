//! What the plugin costs over the bare crowd: 1 000 agents crossing a city, stepped by
//! `NavlabPlugin` in `FixedUpdate` and by a bare `navlab::game::Crowd`, the same agents with
//! the same targets.
//!
//! `cargo run --release -p bevy_navlab --example thousand_agents` prints the median wall time
//! of a fixed update for each (Bevy runs systems on its task pool, so one thread's CPU time
//! would miss them). Under callgrind, `--toggle-collect='*step_agents*'` against
//! `--toggle-collect='*bare_steps*'` counts the instructions of the same steps.

use std::time::Duration;

use bevy::mesh::{Indices, Mesh3d, PrimitiveTopology};
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_navlab::prelude::*;
use navlab::game::{AgentParams, Crowd};

const AGENTS: usize = 1000;
const STEPS: usize = 200;
/// Bevy's default fixed time step.
const STEP: f32 = 1.0 / 64.0;

/// Nanoseconds since the first call: the wall clock, since Bevy runs systems on its task
/// pool's threads.
fn now_ns() -> u64 {
    static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    START
        .get_or_init(std::time::Instant::now)
        .elapsed()
        .as_nanos() as u64
}

fn median_ms(mut ns: Vec<u64>) -> f64 {
    ns.sort_unstable();
    ns[ns.len() / 2] as f64 / 1e6
}

/// Where agent `k` starts and goes: the streets between the city's blocks.
fn start_and_target(k: usize) -> (Vec3, Vec3) {
    let street = |i: usize| (i % 8) as f32 * 12.0 + 1.5;
    let along = |i: usize| 1.5 + (i / 8 % 60) as f32 * 1.55;
    (
        Vec3::new(street(k), 0.0, along(k)),
        Vec3::new(along(k), 0.0, street(k + 3)),
    )
}

#[inline(never)]
fn plugin_steps(app: &mut App, times: &mut Vec<u64>) {
    for _ in 0..STEPS {
        let before = now_ns();
        app.update();
        times.push(now_ns() - before);
    }
}

#[inline(never)]
fn bare_steps(crowd: &mut Crowd, nav: &navlab::detour::NavMesh, times: &mut Vec<u64>) {
    for _ in 0..STEPS {
        let before = now_ns();
        crowd.update(nav, STEP);
        times.push(now_ns() - before);
    }
}

fn main() {
    let city = navlab::input::scene::city(8);
    let mut mesh = Mesh::new(PrimitiveTopology::TriangleList, Default::default());
    let positions: Vec<[f32; 3]> = city
        .verts
        .chunks_exact(3)
        .map(|v| [v[0], v[1], v[2]])
        .collect();
    mesh.insert_attribute(Mesh::ATTRIBUTE_POSITION, positions);
    mesh.insert_indices(Indices::U32(city.tris.iter().map(|&i| i as u32).collect()));

    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        bevy::asset::AssetPlugin::default(),
        bevy::transform::TransformPlugin,
        NavlabPlugin,
    ))
    .init_asset::<Mesh>()
    .insert_resource(NavMeshSettings {
        max_agents: AGENTS,
        ..NavMeshSettings::default()
    })
    .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f32(
        STEP,
    )));
    let handle = app.world_mut().resource_mut::<Assets<Mesh>>().add(mesh);
    app.world_mut()
        .spawn((NavMeshSource, Mesh3d(handle), Transform::default()));
    while app.world().resource::<Navigation>().nav_mesh().is_none() {
        app.update();
        std::thread::sleep(Duration::from_millis(5));
    }
    for k in 0..AGENTS {
        let (start, target) = start_and_target(k);
        app.world_mut().spawn((
            NavAgent::default(),
            Transform::from_translation(start),
            NavTarget(target),
        ));
    }
    // Under callgrind (`NAVLAB_SINGLE_THREADED=1`) every schedule runs on this thread, so that
    // `*plugin_steps*` counts whole frames.
    if std::env::var_os("NAVLAB_SINGLE_THREADED").is_some() {
        for (_, schedule) in app.world_mut().resource_mut::<Schedules>().iter_mut() {
            schedule.set_executor(bevy::ecs::schedule::SingleThreadedExecutor::new());
        }
    }
    // The agents join on the first fixed update; then every update is one fixed step.
    app.update();
    let mut plugin = Vec::with_capacity(STEPS);
    plugin_steps(&mut app, &mut plugin);

    let joined = app
        .world()
        .resource::<Navigation>()
        .crowd()
        .map_or(0, |c| c.len());
    assert_eq!(joined, AGENTS, "every agent joined the crowd");
    let nav = app
        .world()
        .resource::<Navigation>()
        .nav_mesh()
        .expect("baked above")
        .clone();
    let mut crowd = Crowd::new(&nav, AGENTS, 0.6).expect("a valid crowd");
    for k in 0..AGENTS {
        let (start, target) = start_and_target(k);
        if let Ok(agent) = crowd.add_agent(&nav, start.to_array(), AgentParams::default()) {
            let _ = crowd.set_target(&nav, agent, target.to_array());
        }
    }
    crowd.update(&nav, STEP);
    let mut bare = Vec::with_capacity(STEPS);
    bare_steps(&mut crowd, &nav, &mut bare);

    let (plugin, bare) = (median_ms(plugin), median_ms(bare));
    println!(
        "{AGENTS} agents: {plugin:.2} ms per fixed update with the plugin (the whole frame), \
         {bare:.2} ms for the bare crowd: {:+.1} %",
        (plugin / bare - 1.0) * 100.0
    );
}
