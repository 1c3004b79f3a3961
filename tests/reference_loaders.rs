//! Sanity checks of the reference loaders themselves.
mod common;

#[test]
fn stage_dumps_load_consistently() {
    let Some(chf) = common::compact_from_stages("nav_test", true, true, Some("watershed")) else {
        return;
    };
    assert_eq!(chf.span_count(), 56795);
    assert_eq!(chf.max_distance, 60);
    assert_eq!(chf.max_regions, 48);
    let cset = common::contours_from_stage("nav_test", "watershed").unwrap();
    assert_eq!(cset.contours.len(), 47);
    let pmesh = common::poly_mesh_from_solo("nav_test", "watershed").unwrap();
    assert_eq!((pmesh.nverts, pmesh.npolys), (349, 155));
}
