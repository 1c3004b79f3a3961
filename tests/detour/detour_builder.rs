//! Detour tile creation and navmesh linking against C++: tile bytes (size and hash) for every
//! solo build, whole "MSET" files for the solo meshes, a build with off-mesh connections, and
//! tiled navmeshes assembled from C++'s tiles.
use crate::support as common;
use crate::support::detour as detour_common;

use detour_common::{build_solo_tile, fnv1a64, hash_of, off_mesh_from_gset, reference_file};
use navlab::detour::{MeshTile, NavMesh, NavMeshCreateParams, NavMeshParams, create_nav_mesh_data};
use navlab::detour::{RefWidth, TileRef};
use navlab::recast::MESH_NULL_IDX;

/// Sizes for every solo build; the bytes themselves are compared with C++'s files below.
#[test]
fn tile_data_sizes_equal_cpp_for_every_solo_build() {
    for mesh in common::MESHES {
        for partition in common::PARTITIONS {
            let Some(dump) = common::solo(mesh, partition) else {
                return;
            };
            let bytes = build_solo_tile(&dump, &[]).to_bytes(RefWidth::Bits32);
            let what = format!("{mesh} {partition}");
            assert_eq!(
                bytes.len() as u64,
                dump["detour"]["navDataSize"].as_u64().unwrap(),
                "{what}: tile size"
            );
            let reloaded = MeshTile::from_bytes(&bytes, RefWidth::Bits32)
                .expect("built tile passes validation");
            assert_eq!(reloaded.to_bytes(RefWidth::Bits32), bytes, "{what}: reload");
        }
    }
}

/// The dumps' FNV-1a hashes do not reproduce from C++'s own bytes: FNV-1a 64 of
/// `nav_test_solo_tiledata_before_addTile.bin` is 0xe8bf2566e9f8bd5e, the dump says
/// 0x83cf6c6c3cec6894 (and `detail.verts_f32_le_fnv1a64` does not match `verts_exact`
/// either). Byte comparisons with the `.bin` files take their place.
#[test]
#[ignore = "the reference's navDataFnv1a64 values do not match C++'s own tile bytes"]
fn tile_data_hashes_equal_reference_hashes() {
    for mesh in common::MESHES {
        for partition in common::PARTITIONS {
            let Some(dump) = common::solo(mesh, partition) else {
                return;
            };
            let bytes = build_solo_tile(&dump, &[]).to_bytes(RefWidth::Bits32);
            assert_eq!(
                fnv1a64(&bytes),
                hash_of(&dump["detour"]["navDataFnv1a64_before_addTile"]),
                "{mesh} {partition}: tile hash"
            );
        }
    }
}

#[test]
fn nav_test_tile_bytes_equal_cpp_before_add_tile() {
    let Some(dump) = common::solo("nav_test", "watershed") else {
        return;
    };
    let reference = reference_file("navmesh/nav_test_solo_tiledata_before_addTile.bin").unwrap();
    let ours = build_solo_tile(&dump, &[]).to_bytes(RefWidth::Bits32);
    common::assert_slices_eq("tile bytes", &ours, &reference);
}

#[test]
fn solo_navmesh_files_are_byte_identical() {
    for mesh in common::MESHES {
        let Some(dump) = common::solo(mesh, "watershed") else {
            return;
        };
        let reference = reference_file(&format!("navmesh/{mesh}_solo.bin")).unwrap();
        let nav_mesh =
            NavMesh::new_solo(build_solo_tile(&dump, &[]), RefWidth::Bits32).expect("solo init");
        common::assert_slices_eq(mesh, &nav_mesh.to_mset_bytes(), &reference);
    }
}

#[test]
fn off_mesh_connections_build_and_link_as_cpp() {
    let Some(dump) = common::load_json("authoring/nav_test_authoring_solo_watershed.json") else {
        return;
    };
    let gset = reference_file("authoring/nav_test_authoring.gset").unwrap();
    let off_mesh = off_mesh_from_gset(std::str::from_utf8(&gset).unwrap());
    assert_eq!(off_mesh.len(), 3);
    let tile = build_solo_tile(&dump, &off_mesh);
    assert_eq!(
        tile.data_size(RefWidth::Bits32) as u64,
        dump["detour"]["navDataSize"].as_u64().unwrap()
    );
    assert_eq!(tile.off_mesh_connections().len(), 3);

    let reference = reference_file("authoring/nav_test_authoring_solo.bin").unwrap();
    let nav_mesh = NavMesh::new_solo(tile, RefWidth::Bits32).expect("solo init");
    common::assert_slices_eq("authoring file", &nav_mesh.to_mset_bytes(), &reference);
}

/// Byte offsets inside one tile's data, from the counts in its header
/// (tests/data/reference/navmesh/FORMAT.md).
struct TileLayout {
    polys: usize,
    poly_count: usize,
    links: usize,
    links_len: usize,
    verts: usize,
    off_mesh: usize,
    off_mesh_count: usize,
}

impl TileLayout {
    fn of(data: &[u8]) -> TileLayout {
        let count = |at: usize| i32::from_le_bytes(data[at..at + 4].try_into().unwrap()) as usize;
        let (polys_n, verts_n, links_n) = (count(24), count(28), count(32));
        let verts = 100;
        let polys = verts + 12 * verts_n;
        let links = polys + 32 * polys_n;
        let off_mesh_count = count(52);
        TileLayout {
            polys,
            poly_count: polys_n,
            links,
            links_len: 12 * links_n,
            verts,
            off_mesh: data.len() - 36 * off_mesh_count,
            off_mesh_count,
        }
    }
}

/// Undoes what `addTile` wrote into a tile: the links, each poly's first link, and the
/// off-mesh end points snapped onto the mesh (the builder stores the connection's own points
/// there, which the connection record keeps).
fn builder_state(saved: &[u8]) -> Vec<u8> {
    let mut data = saved.to_vec();
    let l = TileLayout::of(&data);
    data[l.links..l.links + l.links_len].fill(0);
    for p in 0..l.poly_count {
        data[l.polys + 32 * p..l.polys + 32 * p + 4].fill(0);
    }
    for c in 0..l.off_mesh_count {
        let con = l.off_mesh + 36 * c;
        let poly = u16::from_le_bytes([data[con + 28], data[con + 29]]) as usize;
        for end in 0..2 {
            let at = l.polys + 32 * poly + 4 + 2 * end;
            let vert = u16::from_le_bytes([data[at], data[at + 1]]) as usize;
            let pos = data[con + 12 * end..con + 12 * end + 12].to_vec();
            data[l.verts + 12 * vert..l.verts + 12 * vert + 12].copy_from_slice(&pos);
        }
    }
    data
}

/// The tiles of an MSET file: (tile ref, data).
fn file_tiles(file: &[u8]) -> Vec<(TileRef, &[u8])> {
    let int = |at: usize| i32::from_le_bytes(file[at..at + 4].try_into().unwrap());
    let mut tiles = Vec::new();
    let mut at = 40;
    for _ in 0..int(8) {
        let size = int(at + 4) as usize;
        tiles.push((TileRef::from(int(at) as u32), &file[at + 8..at + 8 + size]));
        at += 8 + size;
    }
    tiles
}

/// Adds C++'s tiles, reset to what `dtCreateNavMeshData` returned, one by one in build order as
/// Sample_TileMesh does, and compares the saved navmesh with C++'s file: portals between tiles
/// and off-mesh links across them must match.
#[test]
fn tiled_navmeshes_from_cpp_tiles_link_and_save_identically() {
    let cases = [
        ("navmesh/nav_test_tiled32.bin", "tiled/nav_test_ts32.json"),
        ("navmesh/nav_test_tiled64.bin", "tiled/nav_test_ts64.json"),
        ("navmesh/dungeon_tiled32.bin", "tiled/dungeon_ts32.json"),
        (
            "navmesh/undulating_tiled32.bin",
            "tiled/undulating_ts32.json",
        ),
        (
            "authoring/nav_test_authoring_tiled32.bin",
            "authoring/nav_test_authoring_tiled_ts32.json",
        ),
    ];
    for (bin, json) in cases {
        let Some(file) = reference_file(bin) else {
            return;
        };
        let dump = common::load_json(json).unwrap();
        let p = &dump["navMeshParams"];
        let params = NavMeshParams {
            orig: common::as_vec3(&p["orig"]),
            tile_width: p["tileWidth"].as_f64().unwrap() as f32,
            tile_height: p["tileHeight"].as_f64().unwrap() as f32,
            max_tiles: p["maxTiles"].as_i64().unwrap() as i32,
            max_polys: p["maxPolys"].as_i64().unwrap() as i32,
            ref_width: RefWidth::Bits32,
        };
        let mut nav_mesh = NavMesh::new(params).unwrap();
        let tiles = file_tiles(&file);
        assert_eq!(
            tiles.len() as u64,
            dump["totals"]["tilesBuilt"].as_u64().unwrap()
        );
        for (tile_ref, saved) in tiles {
            let data = builder_state(saved);
            let tile = MeshTile::from_bytes(&data, RefWidth::Bits32).unwrap();
            let (x, y) = (tile.header().x, tile.header().y);
            let expected = dump["tiles"]
                .as_array()
                .unwrap()
                .iter()
                .find(|t| t["tx"] == x && t["ty"] == y)
                .unwrap();
            assert_eq!(
                data.len() as u64,
                expected["navDataSize"].as_u64().unwrap(),
                "{bin}: size of tile ({x}, {y})"
            );
            assert_eq!(
                nav_mesh.add_tile(tile, 0).unwrap(),
                tile_ref,
                "{bin}: ref of ({x}, {y})"
            );
        }
        common::assert_slices_eq(bin, &nav_mesh.to_mset_bytes(), &file);
    }
}

#[test]
fn tile_grid_params_follow_sample_tile_mesh() {
    let Some(dump) = common::load_json("tiled/nav_test_ts32.json") else {
        return;
    };
    let int = |key: &str| dump[key].as_i64().unwrap() as i32;
    let orig = common::as_vec3(&dump["navMeshParams"]["orig"]);
    let params = NavMeshParams::for_tile_grid(
        orig,
        int("tileSize"),
        0.3,
        (int("tilesX"), int("tilesY")),
        RefWidth::Bits32,
    );
    assert_eq!(params.max_tiles, int("maxTiles"));
    assert_eq!(params.max_polys, int("maxPolysPerTile"));
    assert_eq!(
        params.tile_width,
        dump["navMeshParams"]["tileWidth"].as_f64().unwrap() as f32
    );
    let nav_mesh = NavMesh::new(params).unwrap();
    assert_eq!(nav_mesh.ref_bits(), (10, 7, 15));
}

/// The tile cache builds tiles without detail meshes or BV trees, so `dtCreateNavMeshData`
/// fans each polygon into triangles. Rebuilding C++'s tile-cache tiles from their own polygons
/// (voxel coordinates recovered from the world positions) must give the same bytes.
#[test]
fn tiles_without_detail_meshes_equal_cpp() {
    let Some(file) = reference_file("detour/tilecache_nav_test_initial.bin") else {
        return;
    };
    let (cs, ch) = (0.3f32, 0.2f32);
    for (_, saved) in file_tiles(&file) {
        let reference = builder_state(saved);
        let tile = MeshTile::from_bytes(&reference, RefWidth::Bits32).unwrap();
        let h = tile.header();
        assert!(tile.bv_tree().is_empty() && tile.detail_verts().is_empty());
        let quantize = |v: f32, origin: f32, size: f32| ((v - origin) / size).round() as u16;
        let verts: Vec<u16> = tile
            .verts()
            .iter()
            .flat_map(|v| {
                [
                    quantize(v[0], h.bmin[0], cs),
                    quantize(v[1], h.bmin[1], ch),
                    quantize(v[2], h.bmin[2], cs),
                ]
            })
            .collect();
        let mut polys = Vec::new();
        for p in tile.polys() {
            let nv = usize::from(p.vert_count);
            let mut entry = [MESH_NULL_IDX; 12];
            entry[..nv].copy_from_slice(&p.verts[..nv]);
            for (j, &nei) in p.neis[..nv].iter().enumerate() {
                entry[6 + j] = match nei {
                    0 => MESH_NULL_IDX,
                    0x8004 => 0x8000,
                    0x8002 => 0x8001,
                    0x8000 => 0x8002,
                    0x8006 => 0x8003,
                    internal => internal - 1,
                };
            }
            polys.extend(entry);
        }
        let areas: Vec<u8> = tile.polys().iter().map(|p| p.area()).collect();
        let flags: Vec<u16> = tile.polys().iter().map(|p| p.flags).collect();
        let params = NavMeshCreateParams {
            verts: &verts,
            polys: &polys,
            poly_flags: &flags,
            poly_areas: &areas,
            nvp: 6,
            detail: None,
            off_mesh_connections: &[],
            user_id: h.user_id,
            tile_x: h.x,
            tile_y: h.y,
            tile_layer: h.layer,
            bmin: h.bmin,
            bmax: h.bmax,
            walkable_height: h.walkable_height,
            walkable_radius: h.walkable_radius,
            walkable_climb: h.walkable_climb,
            cs,
            ch,
            build_bv_tree: false,
        };
        let rebuilt = create_nav_mesh_data(&params)
            .unwrap()
            .to_bytes(RefWidth::Bits32);
        common::assert_slices_eq(
            &format!("tile-cache tile ({}, {}, {})", h.x, h.y, h.layer),
            &rebuilt,
            &reference,
        );
    }
}
