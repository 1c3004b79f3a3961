//! Helpers shared by the Detour tests: reference inputs, hashing, and a workout of every
//! accessor of a loaded navmesh.
#![allow(dead_code)]

use navlab::bake::sample_areas::{apply_area_flags, sample_area_flags};
use navlab::detour::{MeshTile, NavMesh, OffMeshConnectionParams, create_nav_mesh_data};
use navlab::recast::detail_mesh::PolyMeshDetail;
use serde_json::Value;

use crate::support as common;
use navlab::detour::{PolyRef, TileRef};

/// FNV-1a 64, the reference's hash of byte arrays.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The hash string of a dump (16 hex digits).
pub fn hash_of(v: &Value) -> u64 {
    u64::from_str_radix(v.as_str().expect("hash string"), 16).expect("hex hash")
}

/// The detail mesh of a solo-schema dump, with the exact float vertices.
pub fn detail_from_dump(s: &Value) -> PolyMeshDetail {
    let d = &s["detail"];
    PolyMeshDetail {
        meshes: common::as_i64s(&d["meshes"])
            .iter()
            .map(|&x| x as u32)
            .collect(),
        verts: common::as_f32s(&d["verts_exact"]),
        tris: common::as_i64s(&d["tris"])
            .iter()
            .map(|&x| x as u8)
            .collect(),
    }
}

/// Reads a file under the reference directory.
pub fn reference_file(relative: &str) -> Option<Vec<u8>> {
    let path = common::reference_dir()?.join(relative);
    Some(std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

/// The off-mesh connections of a RecastDemo `.gset` file (`c` rows), with the user ids the
/// demo assigns (1000, 1001, ...).
pub fn off_mesh_from_gset(text: &str) -> Vec<OffMeshConnectionParams> {
    text.lines()
        .filter_map(|line| line.strip_prefix("c "))
        .enumerate()
        .map(|(i, row)| {
            let v: Vec<f32> = row
                .split_whitespace()
                .map(|x| x.parse().expect("number"))
                .collect();
            OffMeshConnectionParams {
                start: [v[0], v[1], v[2]],
                end: [v[3], v[4], v[5]],
                radius: v[6],
                bidirectional: v[7] != 0.0,
                area: v[8] as u8,
                flags: v[9] as u16,
                user_id: 1000 + i as u32,
            }
        })
        .collect()
}

/// Builds the tile Sample_SoloMesh builds from a solo-schema dump: applies the demo's area →
/// flag loop (checked against the dump), then creates the tile data.
pub fn build_solo_tile(dump: &Value, off_mesh: &[OffMeshConnectionParams]) -> MeshTile {
    let mut pmesh = common::poly_mesh_from_dump(dump);
    apply_area_flags(&mut pmesh.areas, &mut pmesh.flags, sample_area_flags);
    let p = &dump["polymesh"];
    let areas: Vec<u8> = common::as_i64s(&p["areas_after_demo_flag_update"])
        .iter()
        .map(|&a| a as u8)
        .collect();
    let flags: Vec<u16> = common::as_i64s(&p["flags_after_demo_flag_update"])
        .iter()
        .map(|&f| f as u16)
        .collect();
    common::assert_slices_eq("areas after the demo's loop", &pmesh.areas, &areas);
    common::assert_slices_eq("flags after the demo's loop", &pmesh.flags, &flags);
    let dmesh = detail_from_dump(dump);
    let s = &dump["settings"];
    let setting = |key: &str| s[key].as_f64().expect("setting") as f32;
    let params = navlab::bake::detour_input::nav_mesh_create_params(
        &pmesh,
        &dmesh,
        off_mesh,
        setting("agentHeight"),
        setting("agentRadius"),
        setting("agentMaxClimb"),
    )
    .expect("poly mesh arrays");
    create_nav_mesh_data(&params).expect("dtCreateNavMeshData")
}

/// Uses everything a query or a renderer would touch on every tile, then removes all tiles
/// and adds them back under their old references. On a navmesh that loaded, none of this
/// may panic, loop forever or fail.
pub fn exercise(mesh: &mut NavMesh) {
    let mut tiles = Vec::new();
    for (tile_ref, tile) in mesh.tiles() {
        for (i, poly) in tile.polys().iter().enumerate() {
            let links = tile.poly_links(i).take(tile.max_link_count() + 1).count();
            assert!(links <= tile.max_link_count(), "link cycle");
            let (verts, nv) = tile.poly_vertices(i).unwrap();
            let center = verts[..nv].iter().fold([0.0f32; 3], |acc, v| {
                [acc[0] + v[0], acc[1] + v[1], acc[2] + v[2]]
            });
            let center = center.map(|c| c / nv as f32);
            tile.closest_point_on_poly(i, &center);
            tile.find_nearest_poly(&center, &[2.0, 4.0, 2.0]);
            if !poly.is_off_mesh_connection() {
                let pd = tile.detail_meshes()[i];
                for t in 0..usize::from(pd.tri_count) {
                    assert!(tile.detail_tri_vertices(i, t).is_some());
                }
            }
            let r = tile_ref | i as PolyRef;
            assert!(mesh.is_valid_poly_ref(r));
            if poly.is_off_mesh_connection() {
                mesh.off_mesh_connection_poly_end_points(0, r)
                    .expect("off-mesh end points");
                assert!(mesh.off_mesh_connection_by_ref(r).is_some());
            }
        }
        let h = tile.header();
        tile.query_polygons(&h.bmin, &h.bmax, usize::MAX);
        tiles.push(tile_ref);
    }
    let removed: Vec<(TileRef, MeshTile)> = tiles
        .iter()
        .map(|&r| (r, mesh.remove_tile(r).expect("remove a loaded tile")))
        .collect();
    for (r, tile) in removed {
        assert_eq!(mesh.add_tile(tile, r).expect("re-add a removed tile"), r);
    }
}
