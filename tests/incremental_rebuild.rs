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
