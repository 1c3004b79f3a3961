//! Crowd speed on nav_test's solo navmesh (skipped without the reference data): workload C
//! (scenario A, 12 agents) and C128 of tests/data/reference/PERF_DETOUR.md as whole runs of 600
//! updates, and one update of 1000 random agents (advanced 60 updates first, so paths are planned).
//! The instruction counts for comparing with C++ come from callgrind over `navlab crowd`; this
//! measures wall time.

#[path = "../tests/support/mod.rs"]
mod support;
use support::queries as query_common;

use std::time::Duration;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use navlab::detour::query::{NavMeshQuery, QueryFilter};
use navlab_app::demo::crowd_profiling::{CrowdSet, CrowdSetSpec, DEFAULT_SEED};
use navlab_app::demo::crowd_scenario::{ScenarioSettings, demo_crowd};
use navlab_app::demo::text::TestKind;

fn crowd(c: &mut Criterion) {
    let (Some(nav), Some(file)) = (
        query_common::nav_mesh("navmesh/nav_test_solo.bin"),
        query_common::test_file("testcases/nav_mesh_test.txt"),
    ) else {
        return;
    };
    let settings = ScenarioSettings::reference(false, 1);
    let params = settings.agent_params();
    let mut group = c.benchmark_group("crowd");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));

    // Workload C: the demo's agents from the first 12 pf lines, targets snapped as the demo does.
    let sample_query = NavMeshQuery::new(&nav, 2048).expect("query");
    let scenario_a = || {
        let mut crowd = demo_crowd(&nav).expect("crowd");
        let extents = *crowd.query_half_extents();
        let mut filter = QueryFilter::default();
        filter.set_exclude_flags(16);
        for line in file
            .tests
            .iter()
            .filter(|l| l.kind == TestKind::Pathfind)
            .take(12)
        {
            let idx = crowd.add_agent(&line.start, &params).expect("agent");
            let (_, target) = sample_query.find_nearest_poly(&line.end, &extents, &filter);
            crowd.request_move_target(idx, target.poly_ref, &target.point);
        }
        crowd
    };
    group.bench_function("C_A_nav_test_solo/600_updates", |b| {
        b.iter_batched_ref(
            scenario_a,
            |crowd| {
                for _ in 0..settings.steps {
                    crowd.update(settings.dt, None);
                }
            },
            BatchSize::LargeInput,
        )
    });

    let spec = |agents| CrowdSetSpec {
        agents,
        crowds: 1,
        seed: DEFAULT_SEED,
        params,
    };
    let c128 = spec(128);
    group.bench_function("C128_nav_test_solo/600_updates", |b| {
        b.iter_batched_ref(
            || CrowdSet::new(&nav, &c128).expect("set"),
            |set| {
                for _ in 0..settings.steps {
                    set.update(settings.dt);
                }
            },
            BatchSize::LargeInput,
        )
    });

    let mut set = CrowdSet::new(&nav, &spec(1000)).expect("set");
    for _ in 0..60 {
        set.update(settings.dt);
    }
    group.bench_function("random_1000_nav_test_solo/one_update", |b| {
        b.iter(|| set.update(settings.dt))
    });
    group.finish();
}

criterion_group!(benches, crowd);
criterion_main!(benches);
