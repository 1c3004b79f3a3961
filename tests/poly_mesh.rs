//! The poly mesh stage against C++ Recast, built from C++'s own contours.
mod common;

use navlab::context::BuildContext;
use navlab::poly_mesh::build_poly_mesh;

fn check(mesh: &str, partition: &str) {
    let Some(cset) = common::contours_from_stage(mesh, partition) else {
        return;
    };
    let reference = common::poly_mesh_from_solo(mesh, partition).unwrap();
    let mut ctx = BuildContext::new();
    let ours = build_poly_mesh(&mut ctx, &cset, reference.nvp).unwrap();
    let what = |field: &str| format!("{mesh}/{partition} {field}");

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
    assert!(
        ctx.entries().is_empty(),
        "{}: unexpected log {:?}",
        what("log"),
        ctx.entries()
    );
}

#[test]
fn nav_test_watershed() {
    check("nav_test", "watershed");
}

#[test]
fn nav_test_monotone() {
    check("nav_test", "monotone");
}

#[test]
fn nav_test_layers() {
    check("nav_test", "layers");
}

#[test]
fn dungeon_watershed() {
    check("dungeon", "watershed");
}

#[test]
fn dungeon_monotone() {
    check("dungeon", "monotone");
}

#[test]
fn dungeon_layers() {
    check("dungeon", "layers");
}
