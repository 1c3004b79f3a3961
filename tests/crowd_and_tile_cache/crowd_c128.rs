//! Workload C128 of `tests/data/reference/PERF_DETOUR.md` §6 against C++ DetourCrowd: 128 agents
//! from workload P's first 128 pairs on nav_test's solo navmesh, scenario A's parameters, 600
//! updates. Every agent at steps 0, 10, 100, 300 and 600 equals
//! `perf_detour/C128_*_checkpoints.json` field by field (f32 bits), and so do the final figures of
//! `perf_detour.json`; through the library ([`CrowdSet`]) and through `navlab crowd --random-agents
//! 128`. Skipped without the reference data.

use crate::support as common;
use crate::support::queries as query_common;

use navlab::crowd::CrowdAgent;
use navlab::detour::query::geometry::vdist_2d;
use navlab_app::demo::crowd_profiling::{CrowdSet, CrowdSetSpec, DEFAULT_SEED};
use navlab_app::demo::crowd_scenario::ScenarioSettings;
use query_common::{json, nav_mesh};
use serde_json::Value;

const CHECKPOINTS: [usize; 5] = [0, 10, 100, 300, 600];

fn f32_of(v: &Value) -> f32 {
    v.as_f64().expect("number") as f32
}

fn vec3_bits(v: &Value) -> [u32; 3] {
    let a = v.as_array().expect("vec3");
    [
        f32_of(&a[0]).to_bits(),
        f32_of(&a[1]).to_bits(),
        f32_of(&a[2]).to_bits(),
    ]
}

/// The checkpoint fields of one agent: i, state, targetState, npos, vel, desiredSpeed,
/// ncorners, nneis, partial, corridorPathCount, corridorFirstPoly.
#[derive(Debug, PartialEq)]
struct Checkpoint {
    i: u64,
    state: u64,
    target_state: u64,
    npos: [u32; 3],
    vel: [u32; 3],
    desired_speed: u32,
    ncorners: u64,
    nneis: u64,
    partial: bool,
    corridor_path_count: u64,
    corridor_first_poly: u64,
}

impl Checkpoint {
    fn from_reference(row: &Value) -> Checkpoint {
        let r = row.as_array().expect("row");
        let int = |k: usize| r[k].as_u64().expect("integer");
        Checkpoint {
            i: int(0),
            state: int(1),
            target_state: int(2),
            npos: vec3_bits(&r[3]),
            vel: vec3_bits(&r[4]),
            desired_speed: f32_of(&r[5]).to_bits(),
            ncorners: int(6),
            nneis: int(7),
            partial: r[8].as_bool().expect("bool"),
            corridor_path_count: int(9),
            corridor_first_poly: int(10),
        }
    }

    fn from_agent(i: usize, ag: &CrowdAgent) -> Checkpoint {
        let bits = |v: &[f32; 3]| v.map(f32::to_bits);
        Checkpoint {
            i: i as u64,
            state: ag.state as u64,
            target_state: ag.target_state as u64,
            npos: bits(&ag.npos),
            vel: bits(&ag.vel),
            desired_speed: ag.desired_speed.to_bits(),
            ncorners: ag.corners().len() as u64,
            nneis: ag.neighbours().len() as u64,
            partial: ag.partial,
            corridor_path_count: ag.corridor.path().len() as u64,
            corridor_first_poly: ag.corridor.first_poly(),
        }
    }

    /// A frame record of `navlab crowd --json`.
    fn from_frame(agent: &Value) -> Checkpoint {
        let int = |k: &str| agent[k].as_u64().expect("integer");
        Checkpoint {
            i: int("i"),
            state: int("state"),
            target_state: int("targetState"),
            npos: vec3_bits(&agent["npos"]),
            vel: vec3_bits(&agent["vel"]),
            desired_speed: f32_of(&agent["desiredSpeed"]).to_bits(),
            ncorners: int("ncorners"),
            nneis: int("nneis"),
            partial: agent["partial"].as_bool().expect("bool"),
            corridor_path_count: int("corridorPathCount"),
            corridor_first_poly: agent["corridorFirstPoly"]["ref"].as_u64().expect("ref"),
        }
    }
}

fn compare(step: usize, reference: &Value, ours: &[Checkpoint]) {
    let rows = reference["steps"][step.to_string()]
        .as_array()
        .expect("checkpoint step");
    assert_eq!(rows.len(), ours.len(), "step {step}: agent count");
    for (row, our) in rows.iter().zip(ours) {
        let theirs = Checkpoint::from_reference(row);
        assert_eq!(&theirs, our, "step {step}, agent {}", theirs.i);
    }
}

/// The reference's final figures: targetState histogram, agents within 0.6 m, distance sum.
fn check_final(agents: &[&CrowdAgent]) {
    let Some(perf) = json("perf_detour.json") else {
        return;
    };
    let verification = &perf["workloads"]["C128_nav_test_solo"]["verification"];
    let mut histogram = std::collections::BTreeMap::<String, u64>::new();
    let mut within = 0;
    let mut sum = 0.0f64;
    for ag in agents {
        *histogram
            .entry((ag.target_state as u8).to_string())
            .or_default() += 1;
        let d = vdist_2d(&ag.npos, &ag.target_pos);
        within += usize::from(d < 0.6);
        sum += f64::from(d);
    }
    let reference: std::collections::BTreeMap<String, u64> =
        verification["final_targetState_histogram"]
            .as_object()
            .expect("histogram")
            .iter()
            .map(|(k, v)| (k.clone(), v.as_u64().expect("count")))
            .collect();
    assert_eq!(histogram, reference, "final targetState histogram");
    assert_eq!(
        within as u64,
        verification["final_reached_within_0.6"]
            .as_u64()
            .expect("count")
    );
    let reference_sum = verification["final_sum_dist2D_to_target"]
        .as_f64()
        .expect("sum");
    assert!(
        (sum - reference_sum).abs() < 1e-5,
        "distance sum {sum} against {reference_sum}"
    );
}

#[test]
fn c128_equals_detour_crowd() {
    let Some(reference) = json("perf_detour/C128_nav_test_solo_checkpoints.json") else {
        return;
    };
    let Some(nav) = nav_mesh("navmesh/nav_test_solo.bin") else {
        return;
    };
    let settings = ScenarioSettings::reference(false, 1);
    let spec = CrowdSetSpec {
        agents: 128,
        crowds: 1,
        seed: DEFAULT_SEED,
        params: settings.agent_params(),
    };
    let mut set = CrowdSet::new(&nav, &spec).expect("crowd set");
    let snapshot = |set: &CrowdSet<'_>| -> Vec<Checkpoint> {
        let crowd = &set.crowds()[0];
        crowd
            .active_agents()
            .map(|i| Checkpoint::from_agent(i, crowd.agent(i).expect("agent")))
            .collect()
    };
    compare(0, &reference, &snapshot(&set));
    for step in 1..=settings.steps {
        set.update(settings.dt);
        if CHECKPOINTS.contains(&step) {
            compare(step, &reference, &snapshot(&set));
        }
    }
    let crowd = &set.crowds()[0];
    let agents: Vec<&CrowdAgent> = crowd
        .active_agents()
        .filter_map(|i| crowd.agent(i))
        .collect();
    check_final(&agents);
}

#[test]
fn cli_c128_equals_detour_crowd() {
    let Some(reference) = json("perf_detour/C128_nav_test_solo_checkpoints.json") else {
        return;
    };
    let Some(dir) = common::reference_dir() else {
        return;
    };
    let out = std::env::temp_dir().join(format!("navlab_c128_{}.json", std::process::id()));
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_navlab"))
        .arg("crowd")
        .args(["--random-agents", "128", "--quiet", "--navmesh"])
        .arg(dir.join("navmesh/nav_test_solo.bin"))
        .arg("--json")
        .arg(&out)
        .output()
        .expect("navlab runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let ours: Value = serde_json::from_slice(&std::fs::read(&out).expect("output")).expect("json");
    let _ = std::fs::remove_file(&out);
    assert_eq!(ours["determinism_two_fresh_crowds_identical"], true);
    assert!(ours.get("profile").is_none(), "profile only with --profile");
    for frame in ours["result"]["frames"].as_array().expect("frames") {
        let step = frame["step"].as_u64().expect("step") as usize;
        if CHECKPOINTS.contains(&step) {
            let agents: Vec<Checkpoint> = frame["agents"]
                .as_array()
                .expect("agents")
                .iter()
                .map(Checkpoint::from_frame)
                .collect();
            compare(step, &reference, &agents);
        }
    }
}
