//! Crowds of random agents, timed updates and `Crowd::rebind` on the reference navmeshes
//! (skipped without the reference data): timing changes no result, crowds stepped in
//! parallel equal crowds stepped one by one, the pool size changes no move, a crowd moved
//! onto its own navmesh carries on as before, and one moved onto a navmesh with tiles
//! removed keeps running, its agents re-placed or stopped.

use crate::support as common;
use crate::support::queries as query_common;

use navlab::crowd::agent::{AgentState, MoveRequestState};
use navlab::crowd::{Crowd, CrowdAgent};
use navlab::crowd::{CrowdPhase, CrowdPhaseTimes};
use navlab::detour::NavMesh;
use navlab::detour::query::NavMeshQuery;
use navlab_app::demo::crowd_profiling::{
    CrowdSet, CrowdSetSpec, DEFAULT_SEED, ProfileError, profile_crowds, spawn_pairs,
};
use navlab_app::demo::crowd_scenario::{ScenarioSettings, demo_crowd_of};
use navlab_app::demo::workloads::generate_path_pairs;
use query_common::nav_mesh;
use serde_json::Value;

const DT: f32 = 1.0 / 30.0;

fn spec(agents: usize, crowds: usize) -> CrowdSetSpec {
    CrowdSetSpec {
        agents,
        crowds,
        seed: DEFAULT_SEED,
        params: ScenarioSettings::reference(false, 1).agent_params(),
    }
}

/// Everything an update changes about an agent, floats as bits.
fn agent_state(ag: &CrowdAgent) -> String {
    let bits = |v: &[f32; 3]| v.map(f32::to_bits);
    format!(
        "{:?} {:?} {:?} {:?} {:?} {:?} {:?} {} {:?} {:?} {} {}",
        ag.state,
        ag.target_state,
        bits(&ag.npos),
        bits(&ag.vel),
        bits(&ag.dvel),
        bits(&ag.nvel),
        ag.corridor.path(),
        ag.desired_speed.to_bits(),
        ag.corners()
            .iter()
            .map(|c| bits(&c.pos))
            .collect::<Vec<_>>(),
        ag.neighbours().iter().map(|n| n.index).collect::<Vec<_>>(),
        ag.target_ref,
        ag.partial
    )
}

fn crowd_state(crowd: &Crowd<'_>) -> Vec<String> {
    crowd
        .active_agents()
        .filter_map(|i| crowd.agent(i).map(agent_state))
        .collect()
}

fn set_state(set: &CrowdSet<'_>) -> Vec<String> {
    set.crowds().iter().flat_map(crowd_state).collect()
}

#[test]
fn timed_updates_equal_plain_ones_and_fill_every_phase() {
    let Some(nav) = nav_mesh("navmesh/nav_test_solo.bin") else {
        return;
    };
    let mut plain = CrowdSet::new(&nav, &spec(64, 2)).expect("set");
    let mut timed = plain.clone();
    let mut all = CrowdPhaseTimes::default();
    for _ in 0..120 {
        plain.update(DT);
        let times = timed.update_profiled(DT);
        assert_eq!(&times, timed.last_times());
        all.add(&times);
    }
    assert_eq!(set_state(&plain), set_state(&timed));
    assert_eq!(timed.crowd_times().len(), 2);
    for phase in [
        CrowdPhase::PathRequests,
        CrowdPhase::Neighbours,
        CrowdPhase::Boundary,
        CrowdPhase::Corridor,
        CrowdPhase::Avoidance,
    ] {
        assert!(!all.get(phase).is_zero(), "{}", phase.label());
    }
    assert_eq!(all.total(), all.iter().map(|(_, t)| t).sum());
    all.reset();
    assert!(all.total().is_zero());
}

#[test]
fn parallel_crowds_equal_sequential_ones() {
    let Some(nav) = nav_mesh("navmesh/nav_test_solo.bin") else {
        return;
    };
    let mut sequential = CrowdSet::new(&nav, &spec(200, 5)).expect("set");
    let shares: Vec<usize> = sequential
        .crowds()
        .iter()
        .map(|c| c.active_agents().count())
        .collect();
    assert_eq!(shares, [40; 5]);
    let mut parallel = sequential.clone();
    parallel.set_parallel(true);
    for step in 0..90 {
        sequential.update(DT);
        if step % 2 == 0 {
            parallel.update(DT);
        } else {
            parallel.update_profiled(DT);
        }
    }
    assert_eq!(set_state(&sequential), set_state(&parallel));
    assert_eq!(parallel.agent_count(), 200);
}

#[test]
fn the_pool_size_changes_no_move() {
    let Some(nav) = nav_mesh("navmesh/nav_test_solo.bin") else {
        return;
    };
    let query = NavMeshQuery::new(&nav, 2048).expect("query");
    let pairs = generate_path_pairs(&query, 12).pairs;
    let params = ScenarioSettings::reference(true, 3).agent_params();
    let mut small = demo_crowd_of(&nav, 12).expect("crowd");
    let mut large = demo_crowd_of(&nav, 1000).expect("crowd");
    assert_eq!(spawn_pairs(&mut small, &pairs, &params), 12);
    assert_eq!(spawn_pairs(&mut large, &pairs, &params), 12);
    // A full crowd takes no more.
    assert_eq!(spawn_pairs(&mut small, &pairs, &params), 0);
    for _ in 0..200 {
        small.update(DT, None);
        large.update(DT, None);
    }
    assert_eq!(crowd_state(&small), crowd_state(&large));
}

#[test]
fn bad_specs_are_refused() {
    let Some(nav) = nav_mesh("navmesh/nav_test_solo.bin") else {
        return;
    };
    for (agents, crowds) in [(0, 1), (10, 0), (3, 4), (100_001, 1)] {
        assert!(
            matches!(
                CrowdSet::new(&nav, &spec(agents, crowds)),
                Err(ProfileError::BadSpec(_))
            ),
            "{agents} agents in {crowds} crowds"
        );
    }
    let mut bad = spec(4, 1);
    bad.params.radius = f32::NAN;
    bad.params.obstacle_avoidance_type = 200;
    assert!(matches!(
        CrowdSet::new(&nav, &bad),
        Err(ProfileError::AgentsRefused)
    ));
    assert!(profile_crowds(&nav, &spec(4, 1), 0, DT, false).is_err());
    assert!(profile_crowds(&nav, &spec(4, 1), 5, f32::NAN, false).is_err());
    let report = profile_crowds(&nav, &spec(40, 4), 20, DT, true).expect("profile");
    assert_eq!(report.updates, 20);
    assert_eq!(report.phases.len(), CrowdPhase::ALL.len());
    assert!(report.total_ms > 0.0 && report.wall_ms > 0.0);
    assert!(report.to_string().contains("avoidance"));
}

/// Steps until no agent waits for or is in the path queue.
fn settle(crowd: &mut Crowd<'_>) {
    for _ in 0..600 {
        crowd.update(DT, None);
        let waiting = crowd.active_agents().any(|i| {
            crowd.agent(i).is_some_and(|ag| {
                matches!(
                    ag.target_state,
                    MoveRequestState::WaitingForQueue | MoveRequestState::WaitingForPath
                )
            })
        });
        if !waiting {
            return;
        }
    }
    panic!("path requests still waiting after 600 updates");
}

#[test]
fn rebinding_onto_the_same_navmesh_changes_nothing() {
    let Some(nav) = nav_mesh("navmesh/nav_test_solo.bin") else {
        return;
    };
    let set = CrowdSet::new(&nav, &spec(48, 1)).expect("set");
    let mut crowd = set.crowds()[0].clone();
    for _ in 0..20 {
        crowd.update(DT, None);
    }
    settle(&mut crowd);
    let mut kept = crowd.clone();
    let mut moved = crowd.rebind(&nav).expect("rebind");
    for _ in 0..200 {
        kept.update(DT, None);
        moved.update(DT, None);
        assert_eq!(crowd_state(&kept), crowd_state(&moved));
    }
}

/// `nav` without every tile whose index is a multiple of `every`.
fn without_tiles(nav: &NavMesh, every: usize) -> (NavMesh, usize) {
    let mut reduced = nav.clone();
    let refs: Vec<_> = nav
        .tiles()
        .enumerate()
        .filter(|(k, _)| k % every == 0)
        .map(|(_, (r, _))| r)
        .collect();
    for &r in &refs {
        reduced.remove_tile(r).expect("tile removed");
    }
    (reduced, refs.len())
}

#[test]
fn rebinding_onto_a_navmesh_with_tiles_removed_replans_or_stops() {
    let Some(nav) = nav_mesh("navmesh/nav_test_tiled32.bin") else {
        return;
    };
    let mut set = CrowdSet::new(&nav, &spec(256, 2)).expect("set");
    for _ in 0..40 {
        set.update(DT);
    }
    let (reduced, removed) = without_tiles(&nav, 3);
    assert!(removed > 10);
    let lost: Vec<Vec<usize>> = set
        .crowds()
        .iter()
        .map(|c| {
            c.active_agents()
                .filter(|&i| {
                    c.agent(i)
                        .is_some_and(|ag| !reduced.is_valid_poly_ref(ag.corridor.first_poly()))
                })
                .collect()
        })
        .collect();
    assert!(lost.iter().map(Vec::len).sum::<usize>() > 10);
    let mut set = set.rebind(&reduced).expect("rebind");
    set.set_parallel(true);
    for _ in 0..300 {
        set.update_profiled(DT);
    }
    let mut stopped = 0;
    for (crowd, lost) in set.crowds().iter().zip(&lost) {
        for i in crowd.active_agents() {
            let ag = crowd.agent(i).expect("agent");
            assert!(ag.npos.iter().all(|v| v.is_finite()), "agent {i}");
            match ag.state {
                AgentState::Invalid => {
                    stopped += 1;
                    assert!(lost.contains(&i), "agent {i} stopped with its polygon kept");
                }
                AgentState::Walking => {
                    assert!(
                        reduced.is_valid_poly_ref(ag.corridor.first_poly()),
                        "agent {i} walks on a removed polygon"
                    );
                    if ag.target_state == MoveRequestState::Valid {
                        assert!(reduced.is_valid_poly_ref(ag.target_ref), "agent {i}");
                    }
                }
                AgentState::OffMesh => {}
            }
        }
    }
    eprintln!(
        "{} agents lost their polygon, {stopped} stopped",
        lost.iter().map(Vec::len).sum::<usize>()
    );
}

fn navlab(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_navlab"))
        .arg("crowd")
        .args(args)
        .output()
        .expect("navlab runs")
}

#[test]
fn cli_profiles_and_refuses_bad_counts() {
    let Some(dir) = common::reference_dir() else {
        return;
    };
    let navmesh = dir.join("navmesh/nav_test_solo.bin");
    let navmesh = navmesh.to_string_lossy();
    let cases = dir.join("testcases/nav_mesh_test.txt");
    let cases = cases.to_string_lossy();
    let out = std::env::temp_dir().join(format!("navlab_profile_{}.json", std::process::id()));
    let out_arg = out.to_string_lossy().into_owned();
    let output = navlab(&[
        &cases,
        "--navmesh",
        &navmesh,
        "--steps",
        "30",
        "--profile",
        "--json",
        &out_arg,
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("avoidance") && stdout.contains("wall"),
        "{stdout}"
    );
    let ours: Value = serde_json::from_slice(&std::fs::read(&out).expect("output")).expect("json");
    let _ = std::fs::remove_file(&out);
    assert_eq!(ours["scenario"], "A");
    assert_eq!(ours["profile"]["updates"], 30);
    assert_eq!(
        ours["profile"]["phases"].as_array().map(Vec::len),
        Some(CrowdPhase::ALL.len())
    );
    let output = navlab(&[
        "--navmesh",
        &navmesh,
        "--random-agents",
        "60",
        "--crowds",
        "3",
        "--parallel",
        "--seed",
        "7",
        "--steps",
        "20",
        "--profile",
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("60 agents in 3 crowds"), "{stdout}");
    for bad in [
        &["--navmesh", &*navmesh, "--random-agents", "0"][..],
        &["--navmesh", &navmesh, "--random-agents", "100001"],
        &[
            "--navmesh",
            &navmesh,
            "--random-agents",
            "4",
            "--crowds",
            "0",
        ],
        &[
            "--navmesh",
            &navmesh,
            "--random-agents",
            "4",
            "--crowds",
            "5",
        ],
        &[
            "--navmesh",
            &navmesh,
            "--random-agents",
            "4",
            "--crowds",
            "2",
            "--json",
            &out_arg,
        ],
        &[&cases, "--navmesh", &navmesh, "--crowds", "2"],
        &[
            "--navmesh",
            &navmesh,
            "--random-agents",
            "4",
            "--crowds",
            "2",
            "--check-determinism",
        ],
        &["--random-agents", "4"],
        &["--navmesh", &navmesh],
    ] {
        let output = navlab(bad);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{bad:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{bad:?}: {stderr}");
        assert!(stderr.starts_with("navlab: "), "{bad:?}: {stderr}");
    }
    assert!(!out.exists());

    // A plain run simulates once; --check-determinism runs twice and says the runs match.
    let output = navlab(&[&cases, "--navmesh", &navmesh, "--steps", "30"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && !stdout.contains("deterministic"),
        "{stdout}"
    );
    let output = navlab(&[
        &cases,
        "--navmesh",
        &navmesh,
        "--steps",
        "30",
        "--check-determinism",
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && stdout.contains("deterministic: a second run"),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
}
