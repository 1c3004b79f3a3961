//! The detail mesh stage against C++ Recast: C++'s own poly mesh and compact heightfield in,
//! every detail array out, vertices compared bit for bit.
use crate::support as common;

use navlab::recast::context::{BuildContext, LogCategory};
use navlab::recast::detail_mesh::{build_poly_mesh_detail, merge_poly_mesh_details};

/// Log lines the detail stage can produce (the reference log covers the whole build).
const DETAIL_LOG_PREFIXES: [&str; 5] = [
    "rcBuildPolyMeshDetail",
    "buildPolyDetail",
    "delaunayHull",
    "addEdge",
    "Walk towards polygon center",
];

fn check(mesh: &str, partition: &str) {
    let Some(solo) = common::solo(mesh, partition) else {
        return;
    };
    let pmesh = common::poly_mesh_from_solo(mesh, partition).unwrap();
    let chf =
        common::compact_from_stages(mesh, true, partition == "watershed", Some(partition)).unwrap();
    let cfg = &solo["config"];
    let sample_dist = cfg["detailSampleDist"].as_f64().unwrap() as f32;
    let sample_max_error = cfg["detailSampleMaxError"].as_f64().unwrap() as f32;

    let mut ctx = BuildContext::new();
    let dmesh = build_poly_mesh_detail(&mut ctx, &pmesh, &chf, sample_dist, sample_max_error)
        .expect("detail mesh builds");

    let what = |field: &str| format!("{mesh}/{partition} detail.{field}");
    let d = &solo["detail"];
    assert_eq!(
        dmesh.nmeshes() as u64,
        d["nmeshes"].as_u64().unwrap(),
        "{}",
        what("nmeshes")
    );
    assert_eq!(
        dmesh.nverts() as u64,
        d["nverts"].as_u64().unwrap(),
        "{}",
        what("nverts")
    );
    assert_eq!(
        dmesh.ntris() as u64,
        d["ntris"].as_u64().unwrap(),
        "{}",
        what("ntris")
    );
    let meshes: Vec<u32> = common::as_i64s(&d["meshes"])
        .iter()
        .map(|&v| v as u32)
        .collect();
    common::assert_slices_eq(&what("meshes"), &dmesh.meshes, &meshes);
    let tris: Vec<u8> = common::as_i64s(&d["tris"])
        .iter()
        .map(|&v| v as u8)
        .collect();
    common::assert_slices_eq(&what("tris"), &dmesh.tris, &tris);
    let ours: Vec<u32> = dmesh.verts.iter().map(|v| v.to_bits()).collect();
    let reference: Vec<u32> = common::as_f32s(&d["verts_exact"])
        .iter()
        .map(|v| v.to_bits())
        .collect();
    common::assert_slices_eq(&what("verts (f32 bits)"), &ours, &reference);

    let logged: Vec<String> = ctx
        .entries()
        .iter()
        .filter(|e| e.category != LogCategory::Progress)
        .map(|e| {
            let kind = if e.category == LogCategory::Warning {
                "WARNING"
            } else {
                "ERROR"
            };
            format!("{kind}: {}", e.message)
        })
        .collect();
    let expected: Vec<String> = solo["rcContext_warnings_errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .filter(|line| {
            let message = line.split_once(": ").map_or(line.as_str(), |(_, m)| m);
            DETAIL_LOG_PREFIXES.iter().any(|p| message.starts_with(p))
        })
        .collect();
    assert_eq!(logged, expected, "{}", what("log"));
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

#[test]
fn merging_offsets_vertex_and_triangle_bases() {
    let Some(pmesh) = common::poly_mesh_from_solo("dungeon", "monotone") else {
        return;
    };
    let chf = common::compact_from_stages("dungeon", true, false, Some("monotone")).unwrap();
    let mut ctx = BuildContext::silent();
    let dmesh = build_poly_mesh_detail(&mut ctx, &pmesh, &chf, 1.8, 0.2).unwrap();
    let merged = merge_poly_mesh_details(&mut ctx, &[&dmesh, &dmesh]).unwrap();
    assert_eq!(merged.nmeshes(), 2 * dmesh.nmeshes());
    assert_eq!(&merged.verts[..dmesh.verts.len()], &dmesh.verts[..]);
    assert_eq!(&merged.verts[dmesh.verts.len()..], &dmesh.verts[..]);
    assert_eq!(&merged.tris[dmesh.tris.len()..], &dmesh.tris[..]);
    let second = &merged.meshes[dmesh.meshes.len()..];
    for (ours, base) in second.chunks(4).zip(dmesh.meshes.chunks(4)) {
        assert_eq!(ours[0], base[0] + dmesh.nverts() as u32);
        assert_eq!(ours[1], base[1]);
        assert_eq!(ours[2], base[2] + dmesh.ntris() as u32);
        assert_eq!(ours[3], base[3]);
    }
}
