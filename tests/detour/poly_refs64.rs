//! 64-bit polygon references against C++ built with `DT_POLYREF64`
//! (`reference/polyref64/`): the files load, save back and are baked byte for byte, the two
//! widths are told apart by their layout, and a file of the other width is refused by name.
use crate::support as common;
use crate::support::detour as detour_common;

use detour_common::{exercise, reference_file};
use navlab::bake::settings::BuildSettings;
use navlab::bake::solo::Build;
use navlab::bake::tiled::TiledBuild;
use navlab::detour::nav_mesh_file::mset_ref_width;
use navlab::detour::{DetourError, NavMesh, RefWidth};
use navlab::input::InputGeom;

/// The 64-bit files with their 32-bit twins, and how they were baked (tile size, or solo).
const PAIRS: [(&str, &str, Option<i32>); 5] = [
    ("nav_test_solo", "nav_test_solo", None),
    ("nav_test_tiled32", "nav_test_tiled32", Some(32)),
    ("nav_test_tiled64", "nav_test_tiled64", Some(64)),
    ("dungeon_tiled32", "dungeon_tiled32", Some(32)),
    ("undulating_tiled32", "undulating_tiled32", Some(32)),
];

fn wide_settings() -> BuildSettings {
    BuildSettings {
        poly_refs: 64,
        ..BuildSettings::default()
    }
}

#[test]
fn cpp_64_bit_files_load_save_back_and_decode_as_their_32_bit_twins() {
    for (wide_name, narrow_name, _) in PAIRS {
        let (Some(wide_bytes), Some(narrow_bytes)) = (
            reference_file(&format!("polyref64/{wide_name}.bin")),
            reference_file(&format!("navmesh/{narrow_name}.bin")),
        ) else {
            return;
        };
        assert_eq!(mset_ref_width(&wide_bytes), RefWidth::Bits64, "{wide_name}");
        assert_eq!(
            mset_ref_width(&narrow_bytes),
            RefWidth::Bits32,
            "{narrow_name}"
        );
        let mut wide = NavMesh::from_mset_bytes(&wide_bytes).unwrap();
        let narrow = NavMesh::from_mset_bytes(&narrow_bytes).unwrap();
        assert_eq!(wide.ref_bits(), (16, 28, 20));
        assert_eq!(wide.params().max_tiles, narrow.params().max_tiles);
        assert_eq!(wide.params().max_polys, narrow.params().max_polys);
        common::assert_slices_eq(wide_name, &wide.to_mset_bytes(), &wide_bytes);
        assert_eq!(
            crate::support::queries::tile_difference(&narrow, &wide),
            None,
            "{wide_name}"
        );
        // The tile in slot i has the reference 2^48 + i * 2^20.
        for (i, (tile_ref, _)) in wide.tiles().enumerate() {
            assert_eq!(tile_ref, (1 << 48) + ((i as u64) << 20), "{wide_name}");
        }
        exercise(&mut wide);
        assert!(
            wide.to_mset_bytes() == wide_bytes,
            "{wide_name}: after remove and re-add"
        );
    }
}

#[test]
fn bakes_with_64_bit_references_are_cpps_files() {
    for (wide_name, _, tile_size) in PAIRS {
        let mesh_name = wide_name.split('_').next().unwrap();
        let mesh_name = if mesh_name == "nav" {
            "nav_test"
        } else {
            mesh_name
        };
        let (Some(expected), Some(mesh)) = (
            reference_file(&format!("polyref64/{wide_name}.bin")),
            common::mesh_path(mesh_name),
        ) else {
            return;
        };
        let input = InputGeom::load(&mesh).unwrap();
        let nav = match tile_size {
            Some(size) => {
                TiledBuild::new(&input, wide_settings(), size)
                    .unwrap()
                    .nav_mesh
            }
            None => Build::from_input(&input, wide_settings())
                .unwrap()
                .nav_mesh
                .as_deref()
                .unwrap()
                .clone(),
        };
        assert_eq!(nav.ref_width(), RefWidth::Bits64);
        common::assert_slices_eq(wide_name, &nav.to_mset_bytes(), &expected);
    }
}

#[test]
fn a_file_of_the_other_width_is_refused_by_name() {
    let (Some(wide), Some(narrow)) = (
        reference_file("polyref64/nav_test_tiled32.bin"),
        reference_file("navmesh/nav_test_tiled32.bin"),
    ) else {
        return;
    };
    let needs = |bytes: &[u8], reading: RefWidth| match NavMesh::from_mset_bytes_as(bytes, reading)
    {
        Err(err @ DetourError::WrongRefWidth { .. }) => err.to_string(),
        other => panic!("{reading}: {:?}", other.map(|_| ())),
    };
    assert!(needs(&wide, RefWidth::Bits32).contains("64-bit polygon references"));
    assert!(needs(&narrow, RefWidth::Bits64).contains("32-bit polygon references"));
    // A tile's data read with the other width says so too.
    let tile = NavMesh::from_mset_bytes(&wide).unwrap();
    let data = tile.tile(0).unwrap().to_bytes(RefWidth::Bits64);
    assert!(matches!(
        navlab::detour::MeshTile::from_bytes(&data, RefWidth::Bits32),
        Err(DetourError::WrongRefWidth {
            needs: RefWidth::Bits64,
            reading: RefWidth::Bits32
        })
    ));
}

#[test]
fn every_truncation_of_a_64_bit_file_is_an_error() {
    let Some(bytes) = reference_file("polyref64/nav_test_tiled64.bin") else {
        return;
    };
    for len in (0..bytes.len()).step_by(7) {
        assert!(
            NavMesh::from_mset_bytes(&bytes[..len]).is_err(),
            "cut at {len}"
        );
    }
}

#[test]
fn a_64_bit_slot_far_beyond_the_file_is_refused_before_allocating() {
    let Some(bytes) = reference_file("polyref64/nav_test_solo.bin") else {
        return;
    };
    // The only tile's reference asks for slot 2^27 (2 GiB of slots for a 30 KB file).
    let mut far = bytes.clone();
    let tile_ref: u64 = (1 << 48) | (1 << 27 << 20);
    far[40..48].copy_from_slice(&tile_ref.to_le_bytes());
    far[32..36].copy_from_slice(&(1i32 << 28).to_le_bytes());
    assert!(matches!(
        NavMesh::from_mset_bytes(&far),
        Err(DetourError::FileTile { source, .. }) if matches!(*source, DetourError::SlotBeyondBudget { .. })
    ));
}

#[test]
fn compact_files_keep_the_width() {
    let Some(bytes) = reference_file("polyref64/undulating_tiled32.bin") else {
        return;
    };
    let nav = NavMesh::from_mset_bytes(&bytes).unwrap();
    let compact = nav.to_compact_bytes().unwrap();
    let loaded = navlab::detour::nav_mesh_from_bytes(&compact).unwrap();
    assert_eq!(loaded.ref_width(), RefWidth::Bits64);
    assert!(loaded.to_mset_bytes() == bytes);
    for len in (0..compact.len()).step_by(97) {
        assert!(navlab::detour::nav_mesh_from_bytes(&compact[..len]).is_err());
    }
}
