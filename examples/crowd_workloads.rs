//! Runs the crowd workloads of tests/data/reference/PERF_DETOUR.md (§5 C, §6 C128, and the same
//! with 1000 agents) once, for callgrind: `valgrind --tool=callgrind --toggle-collect='*run_crowd*'
//! target/release/examples/crowd_workloads C128 REFERENCE_DIR`, or with `--time` for the wall time:
//! one warm-up run, then the median of 7 timed runs (and of their thread CPU time, which
//! time-slicing on a shared machine hurts less).
//!
//! `C128 --check` first compares a run with `perf_detour/C128_nav_test_solo_checkpoints.json`
//! (every agent at steps 0, 10, 100, 300 and 600). Every workload prints its final
//! targetState histogram, the agents within 0.6 m of their target and the sum of their 2D
//! distances to it, to compare with a C++ run of the same agents.

use std::path::Path;
use std::time::Instant;

use navlab::crowd::agent::CrowdAgent;
use navlab::crowd::crowd::Crowd;
use navlab::detour::common::Vec3;
use navlab::detour::load_nav_mesh;
use navlab::detour::query::NavMeshQuery;
use navlab::detour::query::geometry::vdist_2d;
use navlab::detour::{NavMesh, PolyRef};
use navlab_app::demo::crowd_scenario::{ScenarioSettings, demo_crowd_of};
use navlab_app::demo::text::{TestFile, TestKind};
use navlab_app::demo::workloads::generate_path_pairs;

const NAVMESH: &str = "navmesh/nav_test_solo.bin";
const CASES: &str = "testcases/nav_mesh_test.txt";
const CHECKPOINTS: &str = "perf_detour/C128_nav_test_solo_checkpoints.json";
const STEPS: usize = 600;
const CHECKPOINT_STEPS: [usize; 5] = [0, 10, 100, 300, 600];

/// Where each agent starts and goes: (start, target poly, target point).
type Agents = Vec<(Vec3, PolyRef, Vec3)>;

/// The agents of workload `name`, and the crowd size it uses.
fn agents(name: &str, nav: &NavMesh, reference: &Path) -> Result<(Agents, usize), String> {
    let query = NavMeshQuery::new(nav, 2048).map_err(|s| format!("query init: {s}"))?;
    match name {
        "A" => {
            // Scenario A: the first 12 `pf` lines, targets snapped as the demo does.
            let text = std::fs::read_to_string(reference.join(CASES)).map_err(|e| e.to_string())?;
            let crowd = demo_crowd_of(nav, 128).map_err(|s| format!("crowd init: {s}"))?;
            let filter = crowd.filter(0).ok_or("no filter 0")?;
            let agents = TestFile::parse(&text)
                .tests
                .iter()
                .filter(|l| l.kind == TestKind::Pathfind)
                .take(12)
                .map(|l| {
                    let (_, t) =
                        query.find_nearest_poly(&l.end, crowd.query_half_extents(), filter);
                    (l.start, t.poly_ref, t.point)
                })
                .collect();
            Ok((agents, 128))
        }
        "C128" | "C1000" => {
            let n = if name == "C128" { 128 } else { 1000 };
            let pairs = generate_path_pairs(&query, n);
            let agents = pairs
                .pairs
                .iter()
                .map(|p| (p.start_pos, p.end_ref, p.end_pos))
                .collect();
            Ok((agents, n.max(128)))
        }
        _ => Err(format!("unknown workload {name} (A, C128, C1000)")),
    }
}

/// The crowd with every agent added and sent to its target (the untimed setup).
fn setup<'a>(nav: &'a NavMesh, agents: &Agents, max_agents: usize) -> Result<Crowd<'a>, String> {
    let mut crowd = demo_crowd_of(nav, max_agents).map_err(|s| format!("crowd init: {s}"))?;
    let params = ScenarioSettings::reference(false, 1).agent_params();
    for (k, (start, target_ref, target)) in agents.iter().enumerate() {
        let idx = crowd.add_agent(start, &params).ok_or("agent refused")?;
        if idx != k {
            return Err(format!("agent {k} got index {idx}"));
        }
        crowd.request_move_target(idx, *target_ref, target);
    }
    Ok(crowd)
}

/// This thread's CPU time in nanoseconds, from `/proc/thread-self/schedstat` (Linux), if
/// readable.
fn thread_cpu_ns() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    stat.split_whitespace().next()?.parse().ok()
}

/// The median of seven or so measurements, and all of them sorted, as text.
fn median(mut ms: Vec<f64>) -> (f64, String) {
    ms.sort_by(f64::total_cmp);
    let runs: Vec<String> = ms.iter().map(|m| format!("{m:.2}")).collect();
    (ms[ms.len() / 2], runs.join(" "))
}

/// The timed part: `steps` updates of 1/30 s, with no debug output.
#[inline(never)]
fn run_crowd(crowd: &mut Crowd<'_>, steps: usize) {
    for _ in 0..steps {
        crowd.update(1.0 / 30.0, None);
    }
}

/// One agent as the checkpoint file lists it.
fn agent_record(i: usize, ag: &CrowdAgent) -> serde_json::Value {
    let f = |v: f32| serde_json::Value::from(v as f64);
    let p = |v: &Vec3| serde_json::Value::from(v.iter().map(|&x| f(x)).collect::<Vec<_>>());
    serde_json::json!([
        i,
        ag.state as u8,
        ag.target_state as u8,
        p(&ag.npos),
        p(&ag.vel),
        f(ag.desired_speed),
        ag.corners().len(),
        ag.neighbours().len(),
        ag.partial,
        ag.corridor.path().len(),
        ag.corridor.first_poly(),
    ])
}

/// Rounds every number of a checkpoint record to f32, as the file's `%.9g` floats are.
fn as_f32s(v: &serde_json::Value) -> serde_json::Value {
    match v {
        serde_json::Value::Number(n) if !n.is_u64() => {
            serde_json::Value::from(n.as_f64().unwrap_or(f64::NAN) as f32 as f64)
        }
        serde_json::Value::Array(a) => a.iter().map(as_f32s).collect(),
        other => other.clone(),
    }
}

/// The number of agent records differing from the checkpoint file, printing the first.
fn check_checkpoints(
    nav: &NavMesh,
    agents: &Agents,
    max_agents: usize,
    reference: &Path,
) -> Result<usize, String> {
    let text = std::fs::read_to_string(reference.join(CHECKPOINTS)).map_err(|e| e.to_string())?;
    let file: serde_json::Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    let mut crowd = setup(nav, agents, max_agents)?;
    let mut done = 0;
    let mut bad = 0;
    for step in CHECKPOINT_STEPS {
        run_crowd(&mut crowd, step - done);
        done = step;
        let expected = file["steps"][step.to_string()]
            .as_array()
            .ok_or("no such step")?;
        for rec in expected {
            let i = rec[0].as_u64().ok_or("bad record")? as usize;
            let ag = crowd.agent(i).ok_or("no such agent")?;
            let ours = agent_record(i, ag);
            if as_f32s(&ours) != as_f32s(rec) {
                if bad == 0 {
                    eprintln!("step {step} agent {i}: ours {ours}, C++ {rec}");
                }
                bad += 1;
            }
        }
    }
    Ok(bad)
}

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (flags, args): (Vec<&String>, Vec<&String>) =
        args.iter().partition(|a| a.starts_with("--"));
    let time = flags.iter().any(|f| *f == "--time");
    let check = flags.iter().any(|f| *f == "--check");
    let [name, reference] = args.as_slice() else {
        eprintln!("usage: crowd_workloads (A|C128|C1000) REFERENCE_DIR [--check] [--time]");
        std::process::exit(2);
    };
    let reference = Path::new(reference.as_str());
    let nav = load_nav_mesh(&reference.join(NAVMESH)).map_err(|e| e.to_string())?;
    let (agents, max_agents) = agents(name, &nav, reference)?;
    if check {
        if name.as_str() != "C128" {
            return Err("--check is for C128".into());
        }
        let bad = check_checkpoints(&nav, &agents, max_agents, reference)?;
        println!("C128 checkpoints: {bad} agent records differ");
    }
    let mut crowd = setup(&nav, &agents, max_agents)?;
    run_crowd(&mut crowd, STEPS);
    if time {
        let mut wall = Vec::new();
        let mut cpu = Vec::new();
        for _ in 0..7 {
            let mut c = setup(&nav, &agents, max_agents)?;
            let cpu0 = thread_cpu_ns();
            let t = Instant::now();
            run_crowd(&mut c, STEPS);
            wall.push(t.elapsed().as_secs_f64() * 1000.0);
            if let (Some(a), Some(b)) = (cpu0, thread_cpu_ns()) {
                cpu.push((b - a) as f64 / 1e6);
            }
        }
        let (wall, runs) = median(wall);
        println!(
            "{name}: {} agents, median {wall:.3} ms per {STEPS} updates (runs {runs})",
            agents.len()
        );
        if !cpu.is_empty() {
            let (cpu, runs) = median(cpu);
            println!("{name}: thread CPU median {cpu:.3} ms (runs {runs})");
        }
    }
    let mut hist = std::collections::BTreeMap::new();
    let (mut within, mut sum) = (0, 0.0f64);
    for i in 0..agents.len() {
        let ag = crowd.agent(i).ok_or("no such agent")?;
        *hist.entry(ag.target_state as u8).or_insert(0) += 1;
        let d = vdist_2d(&ag.npos, &ag.target_pos);
        within += usize::from(d < 0.6);
        sum += f64::from(d);
    }
    println!("{name}: targetState {hist:?}, {within} within 0.6 m, sum dist2D {sum:.6}");
    Ok(())
}
