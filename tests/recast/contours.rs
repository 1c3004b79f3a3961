//! The contour stage against C++ Recast's per-stage and solo dumps.
use crate::support as common;

use navlab::recast::context::{BuildContext, LogCategory};
use navlab::recast::contour::{ContourBuildFlags, ContourSet, build_contours};

/// The `contours` block of the solo dump compared field by field.
fn check_solo_summary(mesh: &str, partition: &str, cset: &ContourSet, ctx: &BuildContext) {
    let Some(solo) = common::solo(mesh, partition) else {
        return;
    };
    let c = &solo["contours"];
    let what = |field: &str| format!("{mesh}/{partition} {field}");
    let nconts = c["nconts"].as_u64().unwrap() as usize;
    assert_eq!(cset.contours.len(), nconts, "{}", what("nconts"));
    let total_verts: usize = cset.contours.iter().map(|c| c.nverts()).sum();
    let total_raw: usize = cset.contours.iter().map(|c| c.nraw_verts()).sum();
    assert_eq!(total_verts as i64, c["totalVerts"].as_i64().unwrap());
    assert_eq!(total_raw as i64, c["totalRawVerts"].as_i64().unwrap());
    let per = |f: &dyn Fn(&navlab::recast::contour::Contour) -> i64| -> Vec<i64> {
        cset.contours.iter().map(f).collect()
    };
    common::assert_slices_eq(
        &what("perContourNverts"),
        &per(&|c| c.nverts() as i64),
        &common::as_i64s(&c["perContourNverts"]),
    );
    common::assert_slices_eq(
        &what("perContourNrverts"),
        &per(&|c| c.nraw_verts() as i64),
        &common::as_i64s(&c["perContourNrverts"]),
    );
    common::assert_slices_eq(
        &what("perContourReg"),
        &per(&|c| i64::from(c.reg)),
        &common::as_i64s(&c["perContourReg"]),
    );
    common::assert_slices_eq(
        &what("perContourArea"),
        &per(&|c| i64::from(c.area)),
        &common::as_i64s(&c["perContourArea"]),
    );
    assert_eq!(cset.width, c["width"].as_i64().unwrap() as i32);
    assert_eq!(cset.height, c["height"].as_i64().unwrap() as i32);
    assert_eq!(cset.border_size, c["borderSize"].as_i64().unwrap() as i32);
    assert_eq!(cset.max_error, c["maxError"].as_f64().unwrap() as f32);

    let is_contour_line =
        |line: &str| line.contains("rcBuildContours") || line.contains("mergeHoles");
    let expected_log: Vec<String> = solo["rcContext_warnings_errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .filter(|line| is_contour_line(line))
        .collect();
    let our_log: Vec<String> = ctx
        .entries()
        .iter()
        .filter_map(|e| match e.category {
            LogCategory::Warning => Some(format!("WARNING: {}", e.message)),
            LogCategory::Error => Some(format!("ERROR: {}", e.message)),
            LogCategory::Progress => None,
        })
        .filter(|line| is_contour_line(line))
        .collect();
    assert_eq!(our_log, expected_log, "{}", what("warnings"));
}

fn check_stage(mesh: &str, partition: &str) {
    let distance = partition == "watershed";
    let Some(chf) = common::compact_from_stages(mesh, true, distance, Some(partition)) else {
        return;
    };
    let cfg = common::reference_config(mesh).unwrap();
    let max_error = cfg["maxSimplificationError"].as_f64().unwrap() as f32;
    let max_edge_len = cfg["maxEdgeLen"].as_i64().unwrap() as i32;
    let expected = common::contours_from_stage(mesh, partition).unwrap();

    let mut ctx = BuildContext::new();
    let cset = build_contours(
        &mut ctx,
        &chf,
        max_error,
        max_edge_len,
        ContourBuildFlags::default(),
    )
    .unwrap();

    assert_eq!(
        cset.contours.len(),
        expected.contours.len(),
        "{mesh}/{partition}: contour count"
    );
    for (i, (ours, theirs)) in cset.contours.iter().zip(&expected.contours).enumerate() {
        let what = |field: &str| format!("{mesh}/{partition} contour {i} {field}");
        assert_eq!(ours.reg, theirs.reg, "{}", what("reg"));
        assert_eq!(ours.area, theirs.area, "{}", what("area"));
        common::assert_slices_eq(&what("raw_verts"), &ours.raw_verts, &theirs.raw_verts);
        common::assert_slices_eq(&what("verts"), &ours.verts, &theirs.verts);
    }
    assert_eq!(cset, expected, "{mesh}/{partition}: contour set header");
    check_solo_summary(mesh, partition, &cset, &ctx);
}

#[test]
fn nav_test_watershed_matches_cpp() {
    check_stage("nav_test", "watershed");
}

#[test]
fn nav_test_monotone_matches_cpp() {
    check_stage("nav_test", "monotone");
}

#[test]
fn nav_test_layers_matches_cpp() {
    check_stage("nav_test", "layers");
}

#[test]
fn dungeon_watershed_matches_cpp() {
    check_stage("dungeon", "watershed");
}

#[test]
fn dungeon_monotone_matches_cpp() {
    check_stage("dungeon", "monotone");
}

#[test]
fn dungeon_layers_matches_cpp() {
    check_stage("dungeon", "layers");
}
