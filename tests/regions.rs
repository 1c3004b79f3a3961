//! Distance field and the three region partitions against the C++ stage dumps.
mod common;

use navlab::context::BuildContext;
use navlab::distance_field::build_distance_field;
use navlab::region::{build_layer_regions, build_regions, build_regions_monotone};

/// Settings of the reference builds (RecastDemo defaults: region min 8², merge 20², no border).
const MIN_REGION_AREA: i32 = 64;
const MERGE_REGION_AREA: i32 = 400;

#[test]
fn distance_field_matches_cpp() {
    for mesh in common::STAGE_MESHES {
        let Some(mut chf) = common::compact_from_stages(mesh, true, false, None) else {
            return;
        };
        build_distance_field(&mut BuildContext::new(), &mut chf).unwrap();
        let reference = common::load_json(&format!("stages/{mesh}/5_distance_field.json")).unwrap();
        assert_eq!(
            chf.max_distance as i64,
            reference["maxDistance"].as_i64().unwrap(),
            "{mesh} maxDistance"
        );
        let dist: Vec<u16> = common::as_i64s(&reference["dist"])
            .iter()
            .map(|&d| d as u16)
            .collect();
        common::assert_slices_eq(&format!("{mesh} dist"), &chf.dist, &dist);
    }
}

fn check_regions(mesh: &str, partition: &str) {
    let Some(mut chf) = common::compact_from_stages(mesh, true, partition == "watershed", None)
    else {
        return;
    };
    let mut ctx = BuildContext::new();
    match partition {
        "watershed" => build_regions(&mut ctx, &mut chf, 0, MIN_REGION_AREA, MERGE_REGION_AREA),
        "monotone" => {
            build_regions_monotone(&mut ctx, &mut chf, 0, MIN_REGION_AREA, MERGE_REGION_AREA)
        }
        _ => build_layer_regions(&mut ctx, &mut chf, 0, MIN_REGION_AREA),
    }
    .unwrap();
    let reference =
        common::load_json(&format!("stages/{mesh}/{partition}/6_regions.json")).unwrap();
    assert_eq!(
        chf.max_regions as i64,
        reference["maxRegions"].as_i64().unwrap(),
        "{mesh} {partition} maxRegions"
    );
    let reg: Vec<u16> = common::as_i64s(&reference["reg"])
        .iter()
        .map(|&r| r as u16)
        .collect();
    let ours: Vec<u16> = chf.spans.iter().map(|s| s.reg).collect();
    common::assert_slices_eq(&format!("{mesh} {partition} reg"), &ours, &reg);
    assert!(ctx.entries().is_empty(), "{:?}", ctx.entries());
}

#[test]
fn watershed_regions_match_cpp() {
    for mesh in common::STAGE_MESHES {
        check_regions(mesh, "watershed");
    }
}

#[test]
fn monotone_regions_match_cpp() {
    for mesh in common::STAGE_MESHES {
        check_regions(mesh, "monotone");
    }
}

#[test]
fn layer_regions_match_cpp() {
    for mesh in common::STAGE_MESHES {
        check_regions(mesh, "layers");
    }
}
