//! Tiled builds (Sample_TileMesh) equal C++'s: the tile grid, every tile's counts and data size,
//! and the saved navmesh file byte for byte.
use crate::support as common;

use navlab::bake::settings::BuildSettings;
use navlab::bake::tiled::{EmptyTile, TiledBuild};
use navlab::detour::RefWidth;
use navlab::input::geomset::GeomSet;
use navlab::input::input_geom::InputGeom;
use serde_json::Value;

fn check(reference: &Value, input: &InputGeom, tile_size: i32, expected_file: Option<&str>) {
    let case = format!("{} ts{tile_size}", reference["mesh"]);
    let build = TiledBuild::new(input, BuildSettings::default(), tile_size).unwrap();
    assert_eq!(
        build.tiles_x as i64,
        reference["tilesX"].as_i64().unwrap(),
        "{case}"
    );
    assert_eq!(
        build.tiles_y as i64,
        reference["tilesY"].as_i64().unwrap(),
        "{case}"
    );
    let params = build.nav_mesh.params();
    assert_eq!(
        params.max_tiles as i64,
        reference["maxTiles"].as_i64().unwrap(),
        "{case}"
    );
    assert_eq!(
        params.max_polys as i64,
        reference["maxPolysPerTile"].as_i64().unwrap(),
        "{case}"
    );

    let tiles = reference["tiles"].as_array().unwrap();
    assert_eq!(build.tiles.len(), tiles.len(), "{case}");
    for (ours, theirs) in build.tiles.iter().zip(tiles) {
        let at = format!("{case} tile ({}, {})", ours.x, ours.y);
        assert_eq!(
            (ours.x as i64, ours.y as i64),
            (
                theirs["tx"].as_i64().unwrap(),
                theirs["ty"].as_i64().unwrap()
            )
        );
        let result = match &ours.output {
            Ok(_) => "ok",
            Err(EmptyTile::NoOverlappingChunks) => "null:no_overlapping_chunks",
            Err(EmptyTile::NoContours) => "null:no_contours",
            Err(EmptyTile::NoDetourData) => "null:no_detour_data",
            Err(EmptyTile::Removed) => "removed",
            Err(EmptyTile::OutsideRange) => "outside range",
        };
        assert_eq!(result, theirs["result"], "{at}");
        assert_eq!(
            ours.triangle_count as i64,
            theirs["tileTriCount"].as_i64().unwrap(),
            "{at}: triangles"
        );
        if let Ok(output) = &ours.output {
            let counts = [
                ("npolys", output.poly_mesh.npolys),
                ("nverts", output.poly_mesh.nverts),
                ("detailMeshes", output.detail_mesh.nmeshes()),
                ("detailVerts", output.detail_mesh.nverts()),
                ("detailTris", output.detail_mesh.ntris()),
                (
                    "navDataSize",
                    output
                        .data
                        .as_ref()
                        .map_or(0, |d| d.data_size(RefWidth::Bits32)),
                ),
            ];
            for (key, value) in counts {
                assert_eq!(value as i64, theirs[key].as_i64().unwrap(), "{at}: {key}");
            }
        }
    }
    if let Some(file) = expected_file {
        let theirs = std::fs::read(common::reference_dir().unwrap().join(file)).unwrap();
        let ours = build.nav_mesh.to_mset_bytes();
        assert!(
            ours == theirs,
            "{case}: navmesh file differs from {file} ({} vs {} bytes)",
            ours.len(),
            theirs.len()
        );
    }
}

fn mesh_input(mesh: &str) -> Option<InputGeom> {
    let path = common::mesh_path(mesh)?;
    Some(InputGeom::from_mesh(navlab::input::obj::load_obj(&path).unwrap()).unwrap())
}

macro_rules! tiled_cases {
    ($($name:ident: $mesh:literal, $tile_size:literal, $file:expr;)*) => {
        $(#[test] fn $name() {
            let Some(reference) = common::load_json(&format!("tiled/{}_ts{}.json", $mesh, $tile_size)) else { return };
            check(&reference, &mesh_input($mesh).unwrap(), $tile_size, $file);
        })*
    };
}

tiled_cases! {
    nav_test_ts32: "nav_test", 32, Some("navmesh/nav_test_tiled32.bin");
    nav_test_ts64: "nav_test", 64, Some("navmesh/nav_test_tiled64.bin");
    dungeon_ts32: "dungeon", 32, Some("navmesh/dungeon_tiled32.bin");
    dungeon_ts64: "dungeon", 64, None;
    undulating_ts32: "undulating", 32, Some("navmesh/undulating_tiled32.bin");
    undulating_ts64: "undulating", 64, None;
}

#[test]
fn authoring_tiled() {
    for (tile_size, file) in [
        (32, Some("authoring/nav_test_authoring_tiled32.bin")),
        (64, None),
    ] {
        let Some(reference) = common::load_json(&format!(
            "authoring/nav_test_authoring_tiled_ts{tile_size}.json"
        )) else {
            return;
        };
        let mut input = mesh_input("nav_test").unwrap();
        input.geom_set = GeomSet::load(
            &common::reference_dir()
                .unwrap()
                .join("authoring/nav_test_authoring.gset"),
        )
        .unwrap();
        check(&reference, &input, tile_size, file);
    }
}
