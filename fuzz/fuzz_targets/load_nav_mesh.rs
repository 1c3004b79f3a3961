//! Fuzzes the "MSET" navmesh loader (its long-range link block too): any input must give a
//! typed error or a navmesh whose tiles can be used, drawn (the viewer shows loaded files),
//! removed, added back and saved, with or without long-range links, and saving must be stable.
#![no_main]

use libfuzzer_sys::fuzz_target;
use navlab::detour::{NavMesh, PolyRef};

fuzz_target!(|data: &[u8]| {
    let Ok(mut mesh) = NavMesh::from_mset_bytes(data) else {
        return;
    };
    navlab::debug_draw::detour::nav_mesh(&mesh, Default::default());
    navlab::debug_draw::detour::nav_mesh_bv_tree(&mesh);
    navlab::debug_draw::detour::nav_mesh_portals(&mesh);
    navlab::debug_draw::detour::nav_mesh_polys_with_flags(&mesh, 0xffff, 0);
    let mut refs = Vec::new();
    for (tile_ref, tile) in mesh.tiles() {
        let h = tile.header();
        for (i, poly) in tile.polys().iter().enumerate() {
            assert!(tile.poly_links(i).count() <= tile.max_link_count());
            let (verts, nv) = tile.poly_vertices(i).unwrap();
            tile.find_nearest_poly(&verts[nv - 1], &[2.0, 4.0, 2.0]);
            let r = tile_ref | i as PolyRef;
            assert!(mesh.is_valid_poly_ref(r));
            if poly.is_off_mesh_connection() {
                mesh.off_mesh_connection_poly_end_points(0, r).unwrap();
            } else {
                for t in 0..usize::from(tile.detail_meshes()[i].tri_count) {
                    tile.detail_tri_vertices(i, t).unwrap();
                }
            }
        }
        tile.query_polygons(&h.bmin, &h.bmax, usize::MAX);
        refs.push(tile_ref);
    }
    for &r in &refs {
        let tile = mesh.remove_tile(r).unwrap();
        assert_eq!(mesh.add_tile(tile, r).unwrap(), r);
    }
    // Long-range links (a file's NLLR block, or turned on here): the table follows tiles out
    // and back in, and a save keeps it.
    let mut long = mesh.clone();
    long.enable_long_range_links();
    let links = long.long_links().count();
    for &r in refs.iter().rev() {
        let tile = long.remove_tile(r).unwrap();
        assert_eq!(long.add_tile(tile, r).unwrap(), r);
    }
    assert_eq!(long.long_links().count(), links);
    let reloaded = NavMesh::from_mset_bytes(&long.to_mset_bytes()).expect("a saved navmesh loads");
    assert_eq!(reloaded.long_links().count(), links);
    // Loading adds tiles in file order, a reload in slot order; from then on a save/load
    // round trip is exact.
    let saved = NavMesh::from_mset_bytes(&mesh.to_mset_bytes())
        .expect("a saved navmesh loads")
        .to_mset_bytes();
    let again = NavMesh::from_mset_bytes(&saved).unwrap().to_mset_bytes();
    assert_eq!(saved, again);
});
