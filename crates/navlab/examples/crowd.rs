//! A hundred agents cross a city to their targets, steering around the buildings and each
//! other. `cargo run --release -p navlab --example crowd` exits with an error unless every
//! agent arrives within two simulated minutes.

use navlab::prelude::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let level = navlab::input::scene::city(8);
    let nav = NavMeshBuilder::new(BuildSettings::default())
        .mesh(&level)
        .tiled(32)
        .build()?;

    // Places 6 m apart along the seven streets between the columns of blocks.
    let places: Vec<[f32; 3]> = (0..7)
        .flat_map(|street| (0..16).map(move |k| (street, k)))
        .map(|(street, k)| [street as f32 * 12.0 + 12.5, 0.0, k as f32 * 6.0 + 1.5])
        .take(100)
        .collect();
    let mut crowd = Crowd::new(&nav, places.len(), 0.6)?;
    let mut walking = Vec::new();
    for (i, &place) in places.iter().enumerate() {
        let agent = crowd.add_agent(&nav, place, AgentParams::default())?;
        // Each walks to the place of the agent half the city away.
        crowd.set_target(&nav, agent, places[(i + 50) % places.len()])?;
        walking.push(agent);
    }

    let step = 1.0 / 30.0;
    let mut seconds = 0.0;
    while !walking.is_empty() && seconds < 120.0 {
        crowd.update(&nav, step);
        seconds += step;
        for event in crowd.events() {
            match event {
                AgentEvent::Arrived(agent) => walking.retain(|a| a != agent),
                AgentEvent::Unreachable(agent) => {
                    return Err(format!("agent {agent:?} found no way to its target").into());
                }
            }
        }
    }
    println!(
        "{} agents arrived in {seconds:.1} s",
        places.len() - walking.len()
    );
    if !walking.is_empty() {
        return Err(format!("{} agents had not arrived after two minutes", walking.len()).into());
    }
    Ok(())
}
