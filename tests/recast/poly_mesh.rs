//! The poly mesh stage against C++ Recast: from C++'s own contours, and chained after our
//! contour stage (regions from the stage dumps).
use crate::support as common;

use navlab::recast::context::BuildContext;
use navlab::recast::contour::{ContourBuildFlags, ContourSet, build_contours};
use navlab::recast::poly_mesh::{PolyMesh, build_poly_mesh};

/// Builds the poly mesh from `cset` and compares every field with C++'s solo result.
fn check_against_solo(mesh: &str, partition: &str, cset: &ContourSet) {
    let reference = common::poly_mesh_from_solo(mesh, partition).unwrap();
    let mut ctx = BuildContext::new();
    let ours = build_poly_mesh(&mut ctx, cset, reference.nvp).unwrap();
    assert_poly_mesh_eq(&format!("{mesh}/{partition}"), &ours, &reference);
    // No C++ solo build logs anything from this stage.
    assert!(
        ctx.entries().is_empty(),
        "{mesh}/{partition}: unexpected log {:?}",
        ctx.entries()
    );
}

fn assert_poly_mesh_eq(case: &str, ours: &PolyMesh, reference: &PolyMesh) {
    let what = |field: &str| format!("{case} {field}");
    assert_eq!(ours.nverts, reference.nverts, "{}", what("nverts"));
    assert_eq!(ours.npolys, reference.npolys, "{}", what("npolys"));
    assert_eq!(ours.maxpolys, reference.maxpolys, "{}", what("maxpolys"));
    assert_eq!(ours.nvp, reference.nvp, "{}", what("nvp"));
    assert_eq!(ours.bmin, reference.bmin, "{}", what("bmin"));
    assert_eq!(ours.bmax, reference.bmax, "{}", what("bmax"));
    assert_eq!(ours.cs, reference.cs, "{}", what("cs"));
    assert_eq!(ours.ch, reference.ch, "{}", what("ch"));
    assert_eq!(
        ours.border_size,
        reference.border_size,
        "{}",
        what("borderSize")
    );
    assert_eq!(
        ours.max_edge_error,
        reference.max_edge_error,
        "{}",
        what("maxEdgeError")
    );
    common::assert_slices_eq(&what("verts"), &ours.verts, &reference.verts);
    common::assert_slices_eq(&what("polys"), &ours.polys, &reference.polys);
    common::assert_slices_eq(&what("regs"), &ours.regs, &reference.regs);
    common::assert_slices_eq(&what("areas"), &ours.areas, &reference.areas);
    common::assert_slices_eq(&what("flags"), &ours.flags, &reference.flags);
}

/// From C++'s contour set (7_contours).
fn check(mesh: &str, partition: &str) {
    let Some(cset) = common::contours_from_stage(mesh, partition) else {
        return;
    };
    check_against_solo(mesh, partition, &cset);
}

/// From our own contours, built on C++'s regions (6_regions).
fn check_chained(mesh: &str, partition: &str) {
    let distance = partition == "watershed";
    let Some(chf) = common::compact_from_stages(mesh, true, distance, Some(partition)) else {
        return;
    };
    let cfg = common::reference_config(mesh).unwrap();
    let max_error = cfg["maxSimplificationError"].as_f64().unwrap() as f32;
    let max_edge_len = cfg["maxEdgeLen"].as_i64().unwrap() as i32;
    let mut ctx = BuildContext::new();
    let flags = ContourBuildFlags::default();
    let cset = build_contours(&mut ctx, &chf, max_error, max_edge_len, flags).unwrap();
    check_against_solo(mesh, partition, &cset);
}

#[test]
fn nav_test_watershed() {
    check("nav_test", "watershed");
    check_chained("nav_test", "watershed");
}

#[test]
fn nav_test_monotone() {
    check("nav_test", "monotone");
    check_chained("nav_test", "monotone");
}

#[test]
fn nav_test_layers() {
    check("nav_test", "layers");
    check_chained("nav_test", "layers");
}

#[test]
fn dungeon_watershed() {
    check("dungeon", "watershed");
    check_chained("dungeon", "watershed");
}

#[test]
fn dungeon_monotone() {
    check("dungeon", "monotone");
    check_chained("dungeon", "monotone");
}

#[test]
fn dungeon_layers() {
    check("dungeon", "layers");
    check_chained("dungeon", "layers");
}
