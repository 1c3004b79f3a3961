//! Changing a setting re-runs only the stages after the earliest one it affects, and the result
//! equals a full build with the new settings.
use crate::support as common;

use std::sync::Arc;

use navlab::bake::settings::BuildSettings;
use navlab::bake::solo::{Build, Stage, earliest_affected_stage};
use navlab::bake::tiled::{EmptyTile, TiledBuild};
use navlab::detour::NavMesh;
use navlab::detour::RefWidth;
use navlab::recast::region::PartitionType;

fn assert_same_outputs(a: &Build, b: &Build, what: &str) {
    assert_eq!(a.config, b.config, "{what}: config");
    assert_eq!(
        a.heightfield_filtered, b.heightfield_filtered,
        "{what}: heightfield"
    );
    assert_eq!(
        a.heightfield_rasterized(),
        b.heightfield_rasterized(),
        "{what}: rasterized heightfield"
    );
    assert_eq!(a.compact(), b.compact(), "{what}: compact");
    assert_eq!(a.compact_eroded(), b.compact_eroded(), "{what}: eroded");
    assert_eq!(a.regions, b.regions, "{what}: regions");
    assert_eq!(a.contours, b.contours, "{what}: contours");
    assert_eq!(a.poly_mesh, b.poly_mesh, "{what}: poly mesh");
    assert_eq!(a.detail_mesh, b.detail_mesh, "{what}: detail mesh");
}

#[test]
fn every_setting_maps_to_its_stage() {
    let base = BuildSettings::default();
    let cases: [(BuildSettings, Stage); 9] = [
        (
            BuildSettings {
                cell_size: 0.25,
                ..base.clone()
            },
            Stage::Rasterize,
        ),
        (
            BuildSettings {
                agent_max_climb: 0.5,
                ..base.clone()
            },
            Stage::Rasterize,
        ),
        (
            BuildSettings {
                agent_height: 1.5,
                ..base.clone()
            },
            Stage::Filter,
        ),
        (
            BuildSettings {
                filter_ledge_spans: false,
                ..base.clone()
            },
            Stage::Filter,
        ),
        (
            BuildSettings {
                agent_radius: 0.3,
                ..base.clone()
            },
            Stage::Erode,
        ),
        (
            BuildSettings {
                partition_type: PartitionType::Layers,
                ..base.clone()
            },
            Stage::DistanceField,
        ),
        (
            BuildSettings {
                region_min_size: 4.0,
                ..base.clone()
            },
            Stage::Regions,
        ),
        (
            BuildSettings {
                edge_max_error: 2.0,
                ..base.clone()
            },
            Stage::Contours,
        ),
        (
            BuildSettings {
                detail_sample_dist: 3.0,
                ..base.clone()
            },
            Stage::DetailMesh,
        ),
    ];
    for (changed, stage) in cases {
        assert_eq!(earliest_affected_stage(&base, &changed), Some(stage));
    }
    assert_eq!(earliest_affected_stage(&base, &base.clone()), None);
}

#[test]
fn incremental_rebuild_equals_full_build() {
    let Some(path) = common::mesh_path("nav_test") else {
        return;
    };
    let mesh = Arc::new(navlab::input::obj::load_obj(&path).unwrap());
    let base = BuildSettings::default();
    let changes = [
        BuildSettings {
            agent_height: 1.6,
            ..base.clone()
        },
        BuildSettings {
            agent_radius: 0.9,
            ..base.clone()
        },
        BuildSettings {
            partition_type: PartitionType::Monotone,
            ..base.clone()
        },
        BuildSettings {
            region_merge_size: 10.0,
            ..base.clone()
        },
        BuildSettings {
            edge_max_len: 6.0,
            ..base.clone()
        },
        BuildSettings {
            verts_per_poly: 3.0,
            ..base.clone()
        },
        BuildSettings {
            detail_sample_max_error: 4.0,
            ..base.clone()
        },
    ];
    let initial = Build::new(mesh.clone(), base.clone()).unwrap();
    for changed in changes {
        let mut incremental = initial.clone();
        let stage = incremental.update(changed.clone()).unwrap();
        assert!(stage.is_some());
        let full = Build::new(mesh.clone(), changed).unwrap();
        assert_same_outputs(&incremental, &full, &format!("from {stage:?}"));
    }
}

/// Adding, changing and removing convex volumes and off-mesh links re-runs from erosion or
/// only the Detour data, and each result equals a full build of the edited input.
#[test]
fn authored_edits_rebuild_from_their_stage_and_equal_a_full_build() {
    let Some(dir) = common::reference_dir() else {
        return;
    };
    let authored =
        navlab::input::GeomSet::load(&dir.join("authoring/nav_test_authoring.gset")).unwrap();
    let mesh = navlab::input::obj::load_obj(&dir.join("meshes/nav_test.obj")).unwrap();
    let mut input = navlab::input::InputGeom::from_mesh(mesh).unwrap();
    let settings = BuildSettings::default();
    let mut build = Build::from_input(&input, settings.clone()).unwrap();

    let mut volumes_only = input.geom_set.clone();
    volumes_only.convex_volumes = authored.convex_volumes.clone();
    let mut with_links = volumes_only.clone();
    with_links.off_mesh_connections = authored.off_mesh_connections.clone();
    let mut one_volume_less = with_links.clone();
    one_volume_less.convex_volumes.pop();
    let steps = [
        (volumes_only, Some(Stage::Erode)),
        (with_links.clone(), Some(Stage::NavMesh)),
        (with_links, None),
        (one_volume_less, Some(Stage::Erode)),
        (input.geom_set.clone(), Some(Stage::Erode)),
    ];
    for (i, (geom_set, expected)) in steps.into_iter().enumerate() {
        let stage = build.update_authored(settings.clone(), &geom_set).unwrap();
        assert_eq!(stage, expected, "step {i}");
        input.geom_set = geom_set;
        let full = Build::from_input(&input, settings.clone()).unwrap();
        assert_same_outputs(&build, &full, &format!("step {i}"));
        assert_eq!(
            build.nav_mesh.as_ref().map(|m| m.to_mset_bytes()),
            full.nav_mesh.as_ref().map(|m| m.to_mset_bytes()),
            "step {i}: navmesh"
        );
    }
}

/// Every tile of `a` equals `b`'s (meshes and Detour data), and the navmeshes link the same
/// polygons the same way; link order and the salts of replaced tiles may differ.
fn assert_same_tiles(a: &TiledBuild, b: &TiledBuild, what: &str) {
    assert_eq!(a.tiles.len(), b.tiles.len(), "{what}: tile count");
    for (ta, tb) in a.tiles.iter().zip(&b.tiles) {
        let at = format!("{what}: tile ({}, {})", ta.x, ta.y);
        assert_eq!(ta.triangle_count, tb.triangle_count, "{at}: triangles");
        match (&ta.output, &tb.output) {
            (Ok(oa), Ok(ob)) => {
                assert_eq!(oa.poly_mesh, ob.poly_mesh, "{at}: poly mesh");
                assert_eq!(oa.detail_mesh, ob.detail_mesh, "{at}: detail mesh");
                assert_eq!(
                    oa.data.as_ref().map(|d| d.to_bytes(RefWidth::Bits32)),
                    ob.data.as_ref().map(|d| d.to_bytes(RefWidth::Bits32)),
                    "{at}: Detour data"
                );
            }
            (ea, eb) => assert_eq!(ea.as_ref().err(), eb.as_ref().err(), "{at}"),
        }
    }
    assert_eq!(
        links_of(&a.nav_mesh),
        links_of(&b.nav_mesh),
        "{what}: links"
    );
}

/// A link by where it leads: neighbour cell, neighbour polygon, edge, side, portal range.
type LinkKey = ((i32, i32), u32, u8, u8, u8, u8);

/// Per tile (by grid cell), per polygon: its links, sorted.
fn links_of(mesh: &NavMesh) -> Vec<((i32, i32), usize, Vec<LinkKey>)> {
    let mut all = Vec::new();
    for (_, tile) in mesh.tiles() {
        let cell = (tile.header().x, tile.header().y);
        for poly in 0..tile.poly_count() {
            let mut links: Vec<_> = tile
                .poly_links(poly)
                .map(|(_, link)| {
                    let (neighbour_tile, _) = mesh
                        .tile_and_poly_by_ref(link.neighbour)
                        .expect("links point at live polygons");
                    let neighbour_cell = (neighbour_tile.header().x, neighbour_tile.header().y);
                    let neighbour_poly = mesh.decode_poly_id_poly(link.neighbour);
                    (
                        neighbour_cell,
                        neighbour_poly,
                        link.edge,
                        link.side,
                        link.bmin,
                        link.bmax,
                    )
                })
                .collect();
            links.sort_unstable();
            all.push((cell, poly, links));
        }
    }
    all.sort_unstable();
    all
}

/// In a tiled build, authored edits rebuild only the tiles around them, single tiles can be
/// rebuilt, removed and inspected, and each result equals a full build of the same input.
#[test]
fn tiled_edits_rebuild_only_touched_tiles_and_equal_a_full_build() {
    let Some(dir) = common::reference_dir() else {
        return;
    };
    let authored =
        navlab::input::GeomSet::load(&dir.join("authoring/nav_test_authoring.gset")).unwrap();
    let mesh = navlab::input::obj::load_obj(&dir.join("meshes/nav_test.obj")).unwrap();
    let mut input = navlab::input::InputGeom::from_mesh(mesh).unwrap();
    let settings = BuildSettings::default();
    let tile_size = 32;
    let mut tiled = TiledBuild::new(&input, settings.clone(), tile_size).unwrap();
    let tile_count = tiled.tiles.len();

    let mut volumes_only = input.geom_set.clone();
    volumes_only.convex_volumes = authored.convex_volumes.clone();
    let mut with_links = volumes_only.clone();
    with_links.off_mesh_connections = authored.off_mesh_connections.clone();
    let mut one_volume_less = with_links.clone();
    one_volume_less.convex_volumes.remove(0);
    let mut first_link_gone = one_volume_less.clone();
    first_link_gone.off_mesh_connections.remove(0);
    let steps = [
        volumes_only,
        with_links.clone(),
        with_links,
        one_volume_less,
        first_link_gone,
        input.geom_set.clone(),
    ];
    for (i, geom_set) in steps.into_iter().enumerate() {
        let expected_none = geom_set == tiled.geom_set;
        input.geom_set = geom_set;
        let touched = tiled.update_authored(&input).unwrap();
        assert_eq!(touched.is_empty(), expected_none, "step {i}: {touched:?}");
        assert!(
            touched.len() < tile_count,
            "step {i}: only some tiles rebuilt"
        );
        let full = TiledBuild::new(&input, settings.clone(), tile_size).unwrap();
        assert_same_tiles(&tiled, &full, &format!("step {i}"));
    }

    // Remove a tile, rebuild it, remove all, rebuild all.
    let full = TiledBuild::new(&input, settings.clone(), tile_size).unwrap();
    let (x, y) = full
        .tiles
        .iter()
        .find(|t| matches!(&t.output, Ok(o) if o.data.is_some()))
        .map(|t| (t.x, t.y))
        .unwrap();
    let centre = {
        let (lo, hi) = tiled.tile_bounds(x, y);
        [(lo[0] + hi[0]) / 2.0, 0.0, (lo[2] + hi[2]) / 2.0]
    };
    assert_eq!(tiled.tile_at(centre), Some((x, y)));
    assert_eq!(tiled.tile_at([f32::NAN, 0.0, 0.0]), None);
    assert_eq!(tiled.tile_at([-1e9, 0.0, 0.0]), None);
    tiled.remove_tile(x, y).unwrap();
    assert!(tiled.nav_mesh.tile_at(x, y, 0).is_none());
    assert_eq!(
        tiled.tile(x, y).unwrap().output.as_ref().err(),
        Some(&EmptyTile::Removed)
    );
    tiled.rebuild_tile(&input, x, y).unwrap();
    assert_same_tiles(&tiled, &full, "tile rebuilt");
    let inspected = tiled.inspect_tile(&input, x, y).unwrap();
    assert!(inspected.holds_intermediates());
    let Ok(output) = &tiled.tile(x, y).unwrap().output else {
        panic!("tile ({x}, {y}) was built")
    };
    assert_eq!(*inspected.poly_mesh, output.poly_mesh);
    assert!(inspected.heightfield_rasterized().span_counts().0 > 0);
    assert!(!inspected.contours.contours.is_empty());
    assert_same_tiles(&tiled, &full, "tile inspected");
    tiled.remove_all().unwrap();
    assert_eq!(tiled.nav_mesh.tile_count(), 0);
    tiled.rebuild_all(&input).unwrap();
    assert_same_tiles(&tiled, &full, "all rebuilt");
    assert!(tiled.remove_tile(-1, 0).is_err());
    assert!(tiled.rebuild_tile(&input, 0, tiled.tiles_y).is_err());
}
