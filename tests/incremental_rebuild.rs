//! Changing a setting re-runs only the stages after the earliest one it affects, and the result
//! equals a full build with the new settings.
mod common;

use std::sync::Arc;

use navlab::bake::settings::BuildSettings;
use navlab::bake::solo::{Build, Stage, earliest_affected_stage};
use navlab::recast::region::PartitionType;

fn assert_same_outputs(a: &Build, b: &Build, what: &str) {
    assert_eq!(a.config, b.config, "{what}: config");
    assert_eq!(
        a.heightfield_filtered, b.heightfield_filtered,
        "{what}: heightfield"
    );
    assert_eq!(a.compact_eroded, b.compact_eroded, "{what}: compact");
    assert_eq!(a.regions, b.regions, "{what}: regions");
    assert_eq!(a.contours, b.contours, "{what}: contours");
    assert_eq!(a.poly_mesh, b.poly_mesh, "{what}: poly mesh");
    assert_eq!(a.detail_mesh, b.detail_mesh, "{what}: detail mesh");
}

#[test]
fn every_setting_maps_to_its_stage() {
    let base = BuildSettings::default();
    let cases: [(BuildSettings, Stage); 9] = [
        (
            BuildSettings {
                cell_size: 0.25,
                ..base.clone()
            },
            Stage::Rasterize,
        ),
        (
            BuildSettings {
                agent_max_climb: 0.5,
                ..base.clone()
            },
            Stage::Rasterize,
        ),
        (
            BuildSettings {
                agent_height: 1.5,
                ..base.clone()
            },
            Stage::Filter,
        ),
        (
            BuildSettings {
                filter_ledge_spans: false,
                ..base.clone()
            },
            Stage::Filter,
        ),
        (
            BuildSettings {
                agent_radius: 0.3,
                ..base.clone()
            },
            Stage::Erode,
        ),
        (
            BuildSettings {
                partition_type: PartitionType::Layers,
                ..base.clone()
            },
            Stage::DistanceField,
        ),
        (
            BuildSettings {
                region_min_size: 4.0,
                ..base.clone()
            },
            Stage::Regions,
        ),
        (
            BuildSettings {
                edge_max_error: 2.0,
                ..base.clone()
            },
            Stage::Contours,
        ),
        (
            BuildSettings {
                detail_sample_dist: 3.0,
                ..base.clone()
            },
            Stage::DetailMesh,
        ),
    ];
    for (changed, stage) in cases {
        assert_eq!(earliest_affected_stage(&base, &changed), Some(stage));
    }
    assert_eq!(earliest_affected_stage(&base, &base.clone()), None);
}

#[test]
fn incremental_rebuild_equals_full_build() {
    let Some(path) = common::mesh_path("nav_test") else {
        return;
    };
    let mesh = Arc::new(navlab::input::obj::load_obj(&path).unwrap());
    let base = BuildSettings::default();
    let changes = [
        BuildSettings {
            agent_height: 1.6,
            ..base.clone()
        },
        BuildSettings {
            agent_radius: 0.9,
            ..base.clone()
        },
        BuildSettings {
            partition_type: PartitionType::Monotone,
            ..base.clone()
        },
        BuildSettings {
            region_merge_size: 10.0,
            ..base.clone()
        },
        BuildSettings {
            edge_max_len: 6.0,
            ..base.clone()
        },
        BuildSettings {
            verts_per_poly: 3.0,
            ..base.clone()
        },
        BuildSettings {
            detail_sample_max_error: 4.0,
            ..base.clone()
        },
    ];
    let initial = Build::new(mesh.clone(), base.clone()).unwrap();
    for changed in changes {
        let mut incremental = initial.clone();
        let stage = incremental.update(changed.clone()).unwrap();
        assert!(stage.is_some());
        let full = Build::new(mesh.clone(), changed).unwrap();
        assert_same_outputs(&incremental, &full, &format!("from {stage:?}"));
    }
}

/// Adding, changing and removing convex volumes and off-mesh links re-runs from erosion or
/// only the Detour data, and each result equals a full build of the edited input.
#[test]
fn authored_edits_rebuild_from_their_stage_and_equal_a_full_build() {
    let Some(dir) = common::reference_dir() else {
        return;
    };
    let authored =
        navlab::input::GeomSet::load(&dir.join("authoring/nav_test_authoring.gset")).unwrap();
    let mesh = navlab::input::obj::load_obj(&dir.join("meshes/nav_test.obj")).unwrap();
    let mut input = navlab::input::InputGeom::from_mesh(mesh).unwrap();
    let settings = BuildSettings::default();
    let mut build = Build::from_input(&input, settings.clone()).unwrap();

    let mut volumes_only = input.geom_set.clone();
    volumes_only.convex_volumes = authored.convex_volumes.clone();
    let mut with_links = volumes_only.clone();
    with_links.off_mesh_connections = authored.off_mesh_connections.clone();
    let mut one_volume_less = with_links.clone();
    one_volume_less.convex_volumes.pop();
    let steps = [
        (volumes_only, Some(Stage::Erode)),
        (with_links.clone(), Some(Stage::NavMesh)),
        (with_links, None),
        (one_volume_less, Some(Stage::Erode)),
        (input.geom_set.clone(), Some(Stage::Erode)),
    ];
    for (i, (geom_set, expected)) in steps.into_iter().enumerate() {
        let stage = build.update_authored(settings.clone(), &geom_set).unwrap();
        assert_eq!(stage, expected, "step {i}");
        input.geom_set = geom_set;
        let full = Build::from_input(&input, settings.clone()).unwrap();
        assert_same_outputs(&build, &full, &format!("step {i}"));
        assert_eq!(
            build.nav_mesh.as_ref().map(|m| m.to_mset_bytes()),
            full.nav_mesh.as_ref().map(|m| m.to_mset_bytes()),
            "step {i}: navmesh"
        );
    }
}
