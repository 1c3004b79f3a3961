//! The Prune Navmesh tool's flood and disable, on C++-made navmesh files: solo, tiled (portals)
//! and with off-mesh connections.

use crate::support::detour as detour_common;

use detour_common::reference_file;
use navlab::bake::prune::{Reachable, disable_unreachable};
use navlab::bake::sample_areas::flags::DISABLED;
use navlab::detour::{NavMesh, PolyRef};

fn load(relative: &str) -> Option<NavMesh> {
    Some(NavMesh::from_mset_bytes(&reference_file(relative)?).unwrap())
}

fn all_polys(mesh: &NavMesh) -> Vec<PolyRef> {
    mesh.tiles()
        .flat_map(|(base, tile)| (0..tile.poly_count()).map(move |i| base | i as PolyRef))
        .collect()
}

/// Every link of a reached polygon leads to a reached polygon, and the start is reached.
fn assert_closed(mesh: &NavMesh, reachable: &Reachable, start: PolyRef) {
    assert!(reachable.contains(mesh, start));
    for poly in reachable.polys(mesh) {
        let (slot, index) = mesh.poly_location(poly).unwrap();
        for (_, link) in mesh.tile(slot).unwrap().poly_links(index) {
            assert!(
                link.neighbour == 0 || reachable.contains(mesh, link.neighbour),
                "{poly:#x} links to unreached {:#x}",
                link.neighbour
            );
        }
    }
}

#[test]
fn a_flood_reaches_a_closed_set_and_pruning_disables_the_rest() {
    for file in ["navmesh/nav_test_solo.bin", "navmesh/nav_test_tiled32.bin"] {
        let Some(mut mesh) = load(file) else { return };
        let polys = all_polys(&mesh);
        let start = polys[polys.len() / 2];
        let mut reachable = Reachable::new(&mesh);
        let added = reachable.flood(&mesh, start);
        assert_eq!(added, reachable.count());
        assert!(
            added > 1 && added < polys.len(),
            "{file}: {added} of {}",
            polys.len()
        );
        assert_closed(&mesh, &reachable, start);
        assert_eq!(
            reachable.flood(&mesh, start),
            0,
            "a second flood adds nothing"
        );

        let before: Vec<u16> = polys.iter().map(|&p| mesh.poly_flags(p).unwrap()).collect();
        let counts = disable_unreachable(&mut mesh, &reachable);
        assert_eq!(counts.kept, added);
        assert_eq!(counts.kept + counts.disabled, polys.len());
        for (&poly, &old) in polys.iter().zip(&before) {
            let expected = if reachable.contains(&mesh, poly) {
                old
            } else {
                old | DISABLED
            };
            assert_eq!(mesh.poly_flags(poly).unwrap(), expected, "{file} {poly:#x}");
        }
        // The flags go into the saved file.
        let reloaded = NavMesh::from_mset_bytes(&mesh.to_mset_bytes()).unwrap();
        let disabled = all_polys(&reloaded)
            .into_iter()
            .filter(|&p| reloaded.poly_flags(p).unwrap() & DISABLED != 0)
            .count();
        assert_eq!(disabled, counts.disabled);
    }
}

#[test]
fn tiled_floods_cross_tile_portals() {
    let Some(mesh) = load("navmesh/nav_test_tiled32.bin") else {
        return;
    };
    let start = all_polys(&mesh)[0];
    let mut reachable = Reachable::new(&mesh);
    reachable.flood(&mesh, start);
    let tiles: std::collections::HashSet<u32> = reachable
        .polys(&mesh)
        .map(|p| mesh.decode_poly_id_tile(p))
        .collect();
    assert!(tiles.len() > 1, "reached {} tiles", tiles.len());
}

#[test]
fn floods_take_off_mesh_connections_and_seeds_add_up() {
    let Some(mesh) = load("authoring/nav_test_authoring_solo.bin") else {
        return;
    };
    let (base, tile) = mesh.tiles().next().unwrap();
    let off_mesh_poly = base | tile.off_mesh_base() as PolyRef;
    assert!(!tile.off_mesh_connections().is_empty());
    let mut reachable = Reachable::new(&mesh);
    reachable.flood(&mesh, off_mesh_poly);
    assert_closed(&mesh, &reachable, off_mesh_poly);
    // Reached through the connection's own links: both of its end polygons.
    let ends: Vec<PolyRef> = tile
        .poly_links(tile.off_mesh_base())
        .map(|(_, l)| l.neighbour)
        .collect();
    assert!(!ends.is_empty());
    assert!(ends.iter().all(|&e| reachable.contains(&mesh, e)));

    let first = reachable.count();
    let unreached = all_polys(&mesh)
        .into_iter()
        .find(|&p| !reachable.contains(&mesh, p));
    if let Some(seed) = unreached {
        let added = reachable.flood(&mesh, seed);
        assert_eq!(reachable.count(), first + added);
        assert!(added > 0);
    }
    reachable.clear();
    assert_eq!(reachable.count(), 0);
    assert!(!reachable.contains(&mesh, off_mesh_poly));
}

#[test]
fn invalid_seeds_flood_nothing() {
    let Some(mesh) = load("navmesh/nav_test_solo.bin") else {
        return;
    };
    let mut reachable = Reachable::new(&mesh);
    for seed in [0, 0xdead_beef, PolyRef::MAX] {
        assert_eq!(reachable.flood(&mesh, seed), 0);
    }
    assert_eq!(reachable.count(), 0);
}
