//! The "MSET" navmesh file: C++ files load and save back byte for byte, hostile files give
//! typed errors (never a panic), and the navmesh's tile/reference operations behave as
//! Detour's.
use crate::support as common;
use crate::support::detour as detour_common;

use detour_common::{exercise, reference_file};
use navlab::detour::RefWidth;
use navlab::detour::{DetourError, MeshTile, NavMesh, NavMeshParams};

/// Every C++ "MSET" file in the reference.
const FILES: [&str; 12] = [
    "navmesh/nav_test_solo.bin",
    "navmesh/nav_test_tiled32.bin",
    "navmesh/nav_test_tiled64.bin",
    "navmesh/dungeon_solo.bin",
    "navmesh/dungeon_tiled32.bin",
    "navmesh/undulating_solo.bin",
    "navmesh/undulating_tiled32.bin",
    "authoring/nav_test_authoring_solo.bin",
    "authoring/nav_test_authoring_tiled32.bin",
    "detour/tilecache_nav_test_initial.bin",
    "detour/tilecache_nav_test_obstacles.bin",
    "detour/tilecache_nav_test_removed.bin",
];

/// Files whose links were built by adding the tiles once, in slot order, so loading rebuilds
/// the very same links. In the tile-cache files tiles were removed and rebuilt after the
/// first build, which leaves their neighbours' link lists in an order a fresh load does not
/// recreate (C++'s own `loadAll` would not either).
fn built_in_slot_order(file: &str) -> bool {
    !file.starts_with("detour/tilecache") || file.ends_with("initial.bin")
}

#[test]
fn cpp_files_load_and_save_back_identically() {
    for file in FILES {
        let Some(bytes) = reference_file(file) else {
            return;
        };
        let mut mesh = NavMesh::from_mset_bytes(&bytes).unwrap_or_else(|e| panic!("{file}: {e}"));
        let saved = mesh.to_mset_bytes();
        if built_in_slot_order(file) {
            common::assert_slices_eq(file, &saved, &bytes);
        } else {
            assert_eq!(saved.len(), bytes.len(), "{file}: size");
        }
        exercise(&mut mesh);
        if built_in_slot_order(file) {
            assert_eq!(
                mesh.to_mset_bytes(),
                bytes,
                "{file}: after remove and re-add"
            );
        }
    }
}

#[test]
fn references_follow_cpp() {
    let Some(solo) = reference_file("navmesh/nav_test_solo.bin") else {
        return;
    };
    let mesh = NavMesh::from_mset_bytes(&solo).unwrap();
    assert_eq!(mesh.ref_bits(), (24, 0, 8));
    assert_eq!(mesh.tile_ref(0), Some(256));
    assert_eq!(mesh.decode_poly_id(256 | 154), (1, 0, 154));
    assert!(mesh.is_valid_poly_ref(256 | 154));
    assert!(!mesh.is_valid_poly_ref(256 | 155));
    assert!(!mesh.is_valid_poly_ref(512 | 3));
    assert!(!mesh.is_valid_poly_ref(0));

    let tiled = reference_file("navmesh/nav_test_tiled32.bin").unwrap();
    let mut mesh = NavMesh::from_mset_bytes(&tiled).unwrap();
    assert_eq!(mesh.ref_bits(), (10, 7, 15));
    assert_eq!(mesh.tile_ref(0), Some(4_194_304));
    assert_eq!(mesh.tile_count(), 66);

    // Removing a tile unlinks it from its neighbours and retires its reference.
    let (tile_ref, x, y) = mesh
        .tiles()
        .map(|(r, t)| (r, t.header().x, t.header().y))
        .find(|&(_, x, y)| (x, y) == (4, 4))
        .expect("tile (4, 4)");
    let index = mesh.decode_poly_id_tile(tile_ref);
    let tile = mesh.remove_tile(tile_ref).unwrap();
    assert!(mesh.tile_by_ref(tile_ref).is_none());
    assert!(mesh.tile_at(x, y, 0).is_none());
    assert_eq!(
        mesh.remove_tile(tile_ref),
        Err(DetourError::InvalidTileRef(tile_ref))
    );
    for (_, t) in mesh.tiles() {
        assert!(t.links().iter().enumerate().all(|(i, l)| {
            mesh.decode_poly_id_tile(l.neighbour) != index
                || !(0..t.poly_count()).any(|p| t.poly_links(p).any(|(j, _)| j == i))
        }));
    }
    // A fresh add takes the freed slot with its new salt; the old reference stays dead.
    let new_ref = mesh.add_tile(tile.clone(), 0).unwrap();
    assert_eq!(mesh.decode_poly_id(new_ref), (2, index, 0));
    assert!(!mesh.is_valid_poly_ref(tile_ref));
    assert_eq!(
        mesh.add_tile(tile.clone(), 0),
        Err(DetourError::AlreadyOccupied { x, y, layer: 0 })
    );
    // Adding back under the old reference restores its salt.
    mesh.remove_tile(new_ref).unwrap();
    assert_eq!(mesh.add_tile(tile, tile_ref).unwrap(), tile_ref);
    assert_eq!(mesh.tile_ref_at(x, y, 0), Some(tile_ref));
}

#[test]
fn tile_slots_and_limits_are_enforced() {
    let Some(solo) = reference_file("navmesh/nav_test_solo.bin") else {
        return;
    };
    let tile = MeshTile::from_bytes(&solo[48..], RefWidth::Bits32).unwrap();
    let params = NavMeshParams {
        max_tiles: 1,
        max_polys: 128,
        ..NavMeshParams::default()
    };
    let mut mesh = NavMesh::new(params).unwrap();
    assert_eq!(
        mesh.add_tile(tile.clone(), 0),
        Err(DetourError::TooManyPolys {
            poly_count: 155,
            poly_bits: 7
        })
    );
    let mut mesh = NavMesh::new(NavMeshParams {
        max_polys: 256,
        ..params
    })
    .unwrap();
    mesh.add_tile(tile.clone(), 0).unwrap();
    let mut moved = tile.to_bytes(RefWidth::Bits32);
    moved[8] = 1; // header x
    let moved = MeshTile::from_bytes(&moved, RefWidth::Bits32).unwrap();
    assert_eq!(
        mesh.add_tile(moved.clone(), 0),
        Err(DetourError::NoFreeTileSlot { max_tiles: 1 })
    );

    // A slot far up a huge grid is usable without allocating the slots below it.
    let mut mesh = NavMesh::new(NavMeshParams {
        max_tiles: 1 << 14,
        max_polys: 256,
        ..params
    })
    .unwrap();
    let far = mesh.encode_poly_id(3, 16_000, 0);
    assert_eq!(mesh.add_tile(moved, far).unwrap(), far);
    assert_eq!(
        mesh.add_tile(tile.clone(), 0).unwrap(),
        mesh.encode_poly_id(1, 0, 0)
    );
    let mut third = tile.to_bytes(RefWidth::Bits32);
    third[8] = 2;
    let third = MeshTile::from_bytes(&third, RefWidth::Bits32).unwrap();
    assert_eq!(
        mesh.add_tile(third, mesh.encode_poly_id(1, 16_000, 0)),
        Err(DetourError::TileSlotUnavailable { index: 16_000 })
    );

    for (max_tiles, max_polys) in [(-1, 1), (1, -5), (1 << 12, 1 << 11), (i32::MAX, i32::MAX)] {
        let result = NavMesh::new(NavMeshParams {
            max_tiles,
            max_polys,
            ..params
        });
        assert!(matches!(result, Err(DetourError::InvalidNavMeshParams(_))));
    }
}

/// Loads `bytes`; a navmesh that loads must also survive every accessor and the viewer's
/// drawing of it.
fn load_and_use(bytes: &[u8]) -> Result<(), DetourError> {
    let mut mesh = NavMesh::from_mset_bytes(bytes)?;
    navlab::debug_draw::detour::nav_mesh(&mesh, Default::default());
    navlab::debug_draw::detour::nav_mesh_bv_tree(&mesh);
    navlab::debug_draw::detour::nav_mesh_portals(&mesh);
    navlab::debug_draw::detour::nav_mesh_polys_with_flags(&mesh, 0xffff, 0);
    exercise(&mut mesh);
    mesh.to_mset_bytes();
    Ok(())
}

#[test]
fn every_truncation_is_an_error() {
    for file in [
        "navmesh/nav_test_solo.bin",
        "authoring/nav_test_authoring_tiled32.bin",
    ] {
        let Some(bytes) = reference_file(file) else {
            return;
        };
        for len in 0..bytes.len() {
            assert!(
                NavMesh::from_mset_bytes(&bytes[..len]).is_err(),
                "{file} cut at {len}"
            );
        }
    }
}

/// Each byte of a solo file with off-mesh connections, changed once (the mask cycles), then
/// loaded and used. `detour_mutation` runs many more random mutations on demand.
#[test]
fn changed_bytes_never_panic() {
    let Some(bytes) = reference_file("authoring/nav_test_authoring_solo.bin") else {
        return;
    };
    let mut loaded = 0;
    for i in 0..bytes.len() {
        let mut mutated = bytes.clone();
        mutated[i] ^= [0xff, 0x01, 0x80][i % 3];
        loaded += usize::from(load_and_use(&mutated).is_ok());
    }
    // Most bytes are floats, flags or links, which any value is valid for.
    assert!(loaded > bytes.len() / 2, "{loaded} mutants loaded");
}

/// Overwrites the little-endian i32 at `at`.
fn with_i32(bytes: &[u8], at: usize, value: i32) -> Vec<u8> {
    let mut out = bytes.to_vec();
    out[at..at + 4].copy_from_slice(&value.to_le_bytes());
    out
}

#[test]
fn absurd_counts_give_typed_errors() {
    let Some(bytes) = reference_file("authoring/nav_test_authoring_solo.bin") else {
        return;
    };
    let absurd = [-1, i32::MIN, i32::MAX, 0x1_0000, 1 << 24];
    // File header: tile count, max tiles, max polys; tile header: ref, size. Some values are
    // fine (a negative tile count loads nothing, any ref with a nonzero salt names the single
    // slot); the rest must fail cleanly.
    for at in [8, 32, 36, 40, 44] {
        for value in absurd {
            let _ = load_and_use(&with_i32(&bytes, at, value));
        }
    }
    for (at, value) in [
        (8, i32::MAX),
        (32, -1),
        (32, 1 << 24),
        (36, -1),
        (36, i32::MAX),
        (44, -1),
    ] {
        assert!(
            load_and_use(&with_i32(&bytes, at, value)).is_err(),
            "offset {at} = {value} loaded"
        );
    }
    // Every count of the tile header, each way off.
    let tile = 48;
    for field in 0..9 {
        let at = tile + 24 + 4 * field;
        let count = i32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
        for value in absurd.into_iter().chain([count - 1, count + 1, 0]) {
            if value == count {
                continue;
            }
            let result = load_and_use(&with_i32(&bytes, at, value));
            assert!(result.is_err(), "tile field {field} = {value}: loaded");
        }
    }

    let tile_error = |bytes: &[u8]| match NavMesh::from_mset_bytes(bytes) {
        Err(DetourError::FileTile { source, .. }) => *source,
        other => panic!("expected a tile error, got {other:?}"),
    };
    assert!(matches!(
        NavMesh::from_mset_bytes(&with_i32(&bytes, 0, 0x4d534555)),
        Err(DetourError::WrongFileMagic { .. })
    ));
    assert!(matches!(
        NavMesh::from_mset_bytes(&with_i32(&bytes, 4, 2)),
        Err(DetourError::WrongFileVersion { found: 2 })
    ));
    assert!(matches!(
        tile_error(&with_i32(&bytes, 44, i32::MAX)),
        DetourError::Truncated {
            what: "tile data",
            ..
        }
    ));
    assert!(matches!(
        tile_error(&with_i32(&bytes, tile, 0)),
        DetourError::WrongTileMagic { found: 0 }
    ));
    assert!(matches!(
        tile_error(&with_i32(&bytes, tile + 4, 6)),
        DetourError::WrongTileVersion { found: 6 }
    ));
    assert!(matches!(
        tile_error(&with_i32(&bytes, tile + 24, -1)),
        DetourError::BadCount {
            field: "polyCount",
            value: -1
        }
    ));
    assert!(matches!(
        tile_error(&with_i32(&bytes, tile + 28, 1)),
        DetourError::TileSizeMismatch { .. }
    ));
    // The first poly's first vertex index, far out of range.
    let verts = i32::from_le_bytes(bytes[tile + 28..tile + 32].try_into().unwrap()) as usize;
    let poly0 = tile + 100 + 12 * verts;
    let mut bad_vertex = bytes.clone();
    bad_vertex[poly0 + 4..poly0 + 6].copy_from_slice(&0xfffeu16.to_le_bytes());
    assert!(matches!(
        tile_error(&bad_vertex),
        DetourError::IndexOutOfRange {
            what: "poly vertex of poly",
            item: 0,
            index: 0xfffe,
            ..
        }
    ));
    // A tile reference with salt 0 (the poly bits are 8 here).
    assert!(matches!(
        tile_error(&with_i32(&bytes, 40, 0x5)),
        DetourError::InvalidTileRef(5)
    ));
}

/// A file over the size limit is refused before it is read (a sparse file: no disk used).
#[test]
fn huge_files_are_refused_unread() {
    common::assert_huge_file_refused(
        "huge.bin",
        navlab::detour::nav_mesh_file::MAX_NAVMESH_FILE_BYTES,
        navlab::detour::load_nav_mesh,
    );
}
