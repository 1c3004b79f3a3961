//! Long-range off-mesh links (`longRangeLinks`, docs/long-range-links.md) on the reference
//! authoring set: with 32-cell tiles its third link ends two tiles from its start, which C++
//! Detour never joins.

use std::path::PathBuf;
use std::sync::OnceLock;

use navlab::bake::settings::BuildSettings;
use navlab::bake::temp_obstacles::TempObstaclesBuild;
use navlab::bake::tiled::TiledBuild;
use navlab::crowd::agent::AgentState;
use navlab::detour::query::{NavMeshQuery, QueryFilter, Status};
use navlab::detour::{LongLink, MeshTile, NavMesh, NavMeshParams, RefWidth, TileRef};
use navlab::game::{AgentParams, Crowd, QueryError, WaypointKind};
use navlab::input::InputGeom;

fn input() -> &'static InputGeom {
    static INPUT: OnceLock<InputGeom> = OnceLock::new();
    INPUT.get_or_init(|| {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/data/reference/authoring/nav_test_authoring.gset");
        InputGeom::load(&path).unwrap()
    })
}

fn settings(long_range_links: bool) -> BuildSettings {
    BuildSettings {
        long_range_links,
        ..BuildSettings::for_input(input())
    }
}

/// The tiled build at 32 cells, with or without long links.
fn tiled(long_range_links: bool) -> &'static TiledBuild {
    static BUILDS: [OnceLock<TiledBuild>; 2] = [OnceLock::new(), OnceLock::new()];
    BUILDS[usize::from(long_range_links)]
        .get_or_init(|| TiledBuild::new(input(), settings(long_range_links), 32).unwrap())
}

/// The third link's start and end.
fn third_link() -> ([f32; 3], [f32; 3]) {
    let link = &input().geom_set.off_mesh_connections[2];
    (link.start, link.end)
}

/// Points on the ground 2 m from each end of the third link. (A path that starts right on a
/// link's start skips its corner, in C++ too.)
fn beside_third_link() -> ([f32; 3], [f32; 3]) {
    let (start, end) = third_link();
    let beside = |p: [f32; 3]| [p[0] + 1.5, p[1], p[2] + 1.5];
    (beside(start), beside(end))
}

/// Whether a path from the third link's start to its end goes through an off-mesh link.
fn crosses_third_link(nav: &NavMesh) -> bool {
    let (start, end) = beside_third_link();
    match nav.find_path(start, end, &QueryFilter::default()) {
        Ok(path) => path
            .waypoints
            .iter()
            .any(|w| w.kind == WaypointKind::OffMeshLink),
        Err(QueryError::Unreachable(_)) => false,
        Err(e) => panic!("{e}"),
    }
}

/// The tile refs at the cells of the third link's start and end.
fn end_tiles(nav: &NavMesh) -> (TileRef, TileRef) {
    let (start, end) = third_link();
    let at = |p: [f32; 3]| {
        let (x, y) = nav.calc_tile_loc(&p);
        nav.tile_ref_at(x, y, 0).unwrap()
    };
    (at(start), at(end))
}

/// Links in use over every tile (each polygon's list).
fn used_links(nav: &NavMesh) -> usize {
    nav.tiles()
        .map(|(_, tile)| {
            (0..tile.poly_count())
                .map(|i| tile.poly_links(i).count())
                .sum::<usize>()
        })
        .sum()
}

#[test]
fn the_third_link_joins_only_with_long_range_links() {
    let plain = &tiled(false).nav_mesh;
    assert!(!plain.long_range_links_enabled());
    assert_eq!(plain.long_links().count(), 0);
    // C++ Detour joins nothing there: the path walks round.
    assert!(!crosses_third_link(plain));

    let nav = &tiled(true).nav_mesh;
    let links: Vec<LongLink> = nav.long_links().collect();
    assert_eq!(links.len(), 1, "{links:?}");
    let (start, end) = third_link();
    let (sx, sy) = nav.calc_tile_loc(&start);
    assert_eq!(links[0].start_tile, (sx, sy, 0));
    assert_eq!(links[0].end_cell, nav.calc_tile_loc(&end));
    assert!(crosses_third_link(nav));
    // Bidirectional: the way back crosses it too.
    let (start, end) = beside_third_link();
    let back = nav.find_path(end, start, &QueryFilter::default()).unwrap();
    assert!(
        back.waypoints
            .iter()
            .any(|w| w.kind == WaypointKind::OffMeshLink)
    );
    assert_eq!(
        navlab::bake::authoring::loose_links(nav, &input().geom_set),
        []
    );
}

#[test]
fn the_sliced_search_and_straight_path_cross_the_long_link() {
    let nav = &tiled(true).nav_mesh;
    let (start, end) = beside_third_link();
    let filter = QueryFilter::default();
    let mut query = NavMeshQuery::new(nav, 2048).unwrap();
    let extents = [2.0, 4.0, 2.0];
    let from = query.find_nearest_poly(&start, &extents, &filter).1;
    let to = query.find_nearest_poly(&end, &extents, &filter).1;
    let status = query.init_sliced_find_path(
        from.poly_ref,
        to.poly_ref,
        &from.point,
        &to.point,
        &filter,
        0,
    );
    assert!(!status.is_failure());
    let mut status = Status::IN_PROGRESS;
    while status.is_in_progress() {
        status = query.update_sliced_find_path(&filter, 8).0;
    }
    let mut sliced = vec![0; 256];
    let (status, n) = query.finalize_sliced_find_path(&filter, &mut sliced);
    assert!(status.is_success() && !status.has_detail(Status::PARTIAL_RESULT));
    sliced.truncate(n);
    let mut path = vec![0; 256];
    let (_, m) = query.find_path(
        from.poly_ref,
        to.poly_ref,
        &from.point,
        &to.point,
        &filter,
        &mut path,
    );
    assert_eq!(sliced, path[..m]);
    let con = sliced
        .iter()
        .position(|&r| nav.off_mesh_connection_by_ref(r).is_some())
        .expect("the corridor holds the link");
    // The link's end lands in the end's tile, two tiles away.
    let landing = nav.decode_poly_id_tile(sliced[con + 1]);
    let (_, end_tile) = end_tiles(nav);
    assert_eq!(landing, nav.decode_poly_id_tile(end_tile));
    let (ends_start, ends_end) = nav
        .off_mesh_connection_poly_end_points(sliced[con - 1], sliced[con])
        .unwrap();
    let (link_start, link_end) = third_link();
    assert!(
        (ends_start[2] - link_start[2]).abs() < 0.7,
        "{ends_start:?}"
    );
    assert!((ends_end[2] - link_end[2]).abs() < 0.7, "{ends_end:?}");

    let mut out = vec![Default::default(); 64];
    let (status, k) = query.find_straight_path(&from.point, &to.point, &sliced, &mut out, 0);
    assert!(status.is_success());
    assert!(
        out[..k]
            .iter()
            .any(|p| p.flags & navlab::detour::query::STRAIGHTPATH_OFFMESH_CONNECTION != 0)
    );
    // A ray never follows an off-mesh link (as in C++): it stops at the first wall.
    let hit = nav.raycast(start, end, &filter).unwrap();
    assert!(hit.wall.is_some());
}

#[test]
fn removing_either_end_tile_unjoins_the_link_and_adding_it_back_joins_it() {
    let mut nav = tiled(true).nav_mesh.clone();
    let (start_ref, end_ref) = end_tiles(&nav);
    let linked = used_links(&nav);
    for first_out in [start_ref, end_ref] {
        let tile = nav.remove_tile(first_out).unwrap();
        assert!(!crosses_third_link(&nav));
        nav.add_tile(tile, first_out).unwrap();
        assert!(crosses_third_link(&nav));
        assert_eq!(used_links(&nav), linked);
    }
    // Both out, back in either order.
    for order in [[start_ref, end_ref], [end_ref, start_ref]] {
        let start_tile = nav.remove_tile(start_ref).unwrap();
        let end_tile = nav.remove_tile(end_ref).unwrap();
        for r in order {
            assert!(!crosses_third_link(&nav));
            let tile = if r == start_ref {
                start_tile.clone()
            } else {
                end_tile.clone()
            };
            nav.add_tile(tile, r).unwrap();
        }
        assert!(crosses_third_link(&nav));
        assert_eq!(used_links(&nav), linked);
    }
}

/// Hundreds of removals and additions in changing orders leak no link slot: a leak would
/// empty the small pools and the link would stop joining.
#[test]
fn many_add_and_remove_cycles_keep_the_link_pools_whole() {
    let mut nav = tiled(true).nav_mesh.clone();
    let (start_ref, end_ref) = end_tiles(&nav);
    let linked = used_links(&nav);
    let (mut start_now, mut end_now) = (start_ref, end_ref);
    for cycle in 0..300 {
        let (a, b) = if cycle % 2 == 0 {
            (start_now, end_now)
        } else {
            (end_now, start_now)
        };
        let tile_a = nav.remove_tile(a).unwrap();
        let tile_b = (cycle % 3 == 0).then(|| nav.remove_tile(b).unwrap());
        // New slots and salts every time: the table follows the tiles, not their references.
        let new_a = nav.add_tile(tile_a, 0).unwrap();
        let new_b = tile_b.map(|t| nav.add_tile(t, 0).unwrap()).unwrap_or(b);
        (start_now, end_now) = if cycle % 2 == 0 {
            (new_a, new_b)
        } else {
            (new_b, new_a)
        };
        assert_eq!(used_links(&nav), linked, "cycle {cycle}");
    }
    assert!(crosses_third_link(&nav));
    assert_eq!(nav.long_links().count(), 1);
}

#[test]
fn a_crowd_agent_crosses_the_long_link() {
    let nav = &tiled(true).nav_mesh;
    let (start, end) = beside_third_link();
    let mut crowd = Crowd::new(nav, 4, 0.6).unwrap();
    let agent = crowd
        .add_agent(nav, start, AgentParams::with_size(0.6, 2.0))
        .unwrap();
    let target = crowd.set_target(nav, agent, end).unwrap();
    let (mut closest, mut took_link) = (f32::MAX, false);
    for _ in 0..600 {
        crowd.update(nav, 0.1);
        took_link |= crowd.agent(agent).unwrap().state == AgentState::OffMesh;
        let p = crowd.position(agent).unwrap();
        let d = (p[0] - target.position[0]).hypot(p[2] - target.position[2]);
        closest = closest.min(d);
    }
    assert!(took_link, "the agent walked round");
    let p = crowd.position(agent).unwrap();
    let (_, end_tile) = end_tiles(nav);
    let far_side = nav.calc_tile_loc(&p);
    let end_cell = nav.calc_tile_loc(&end);
    assert_eq!(far_side, end_cell, "the agent ended at {p:?}");
    assert!(closest < 1.0, "closest {closest}");
    assert!(nav.tile_by_ref(end_tile).is_some());
}

#[test]
fn long_links_survive_tile_cache_obstacles() {
    let mut build = TempObstaclesBuild::new(input(), &settings(true), 32).unwrap();
    assert!(build.nav_mesh.long_range_links_enabled());
    assert!(crosses_third_link(&build.nav_mesh));
    let (_, end) = third_link();
    // An obstacle beside the end: its tile's layers are rebuilt (removed and added back).
    let shape = TempObstaclesBuild::click_obstacle([end[0] + 2.0, end[1], end[2] + 2.0]);
    let obstacle = build.add_obstacle(shape).unwrap();
    let settle = |build: &mut TempObstaclesBuild| {
        for _ in 0..1000 {
            if !build.update().unwrap() {
                return;
            }
        }
        panic!("the obstacle updates never settled");
    };
    let end_cell = build.nav_mesh.calc_tile_loc(&end);
    let end_ref = |nav: &NavMesh| nav.tile_ref_at(end_cell.0, end_cell.1, 0);
    let before = end_ref(&build.nav_mesh);
    settle(&mut build);
    assert_ne!(
        end_ref(&build.nav_mesh),
        before,
        "the end's tile was rebuilt"
    );
    assert!(crosses_third_link(&build.nav_mesh));
    build.obstacles.remove(obstacle).unwrap();
    settle(&mut build);
    assert!(crosses_third_link(&build.nav_mesh));

    let plain = TempObstaclesBuild::new(input(), &settings(false), 32).unwrap();
    assert!(!crosses_third_link(&plain.nav_mesh));
}

/// C++'s `loadAll`: the header, then exactly the tiles it counts, each added to a navmesh
/// without the table; whatever follows is never read.
fn load_like_cpp(data: &[u8]) -> (NavMesh, usize) {
    let word = |at: usize| i32::from_le_bytes(data[at..at + 4].try_into().unwrap());
    let float = |at: usize| f32::from_le_bytes(data[at..at + 4].try_into().unwrap());
    assert_eq!(&data[..4], b"TESM", "MSET as a little-endian int");
    let params = NavMeshParams {
        orig: [float(12), float(16), float(20)],
        tile_width: float(24),
        tile_height: float(28),
        max_tiles: word(32),
        max_polys: word(36),
        ref_width: RefWidth::Bits32,
    };
    let mut nav = NavMesh::new(params).unwrap();
    let mut offset = 40;
    for _ in 0..word(8) {
        let (tile_ref, size) = (u64::from(word(offset) as u32), word(offset + 4) as usize);
        let tile =
            MeshTile::from_bytes(&data[offset + 8..offset + 8 + size], RefWidth::Bits32).unwrap();
        nav.add_tile(tile, tile_ref).unwrap();
        offset += 8 + size;
    }
    (nav, offset)
}

#[test]
fn the_file_keeps_long_links_and_cpp_reads_past_them() {
    let nav = &tiled(true).nav_mesh;
    let bytes = nav.to_mset_bytes();
    let (cpp, tiles_end) = load_like_cpp(&bytes);
    assert_eq!(&bytes[tiles_end..tiles_end + 4], b"NLLR");
    assert_eq!(bytes.len() - tiles_end, 16 + 24);
    assert!(
        !crosses_third_link(&cpp),
        "C++ loads the tiles and joins as it always did"
    );

    let loaded = NavMesh::from_mset_bytes(&bytes).unwrap();
    assert!(loaded.long_range_links_enabled());
    assert_eq!(
        loaded.long_links().collect::<Vec<_>>(),
        nav.long_links().collect::<Vec<_>>()
    );
    assert_eq!(
        loaded.to_mset_bytes(),
        bytes,
        "tiles join in the bake's order"
    );
    let (start, end) = beside_third_link();
    let filter = QueryFilter::default();
    assert_eq!(
        loaded.find_path(start, end, &filter).unwrap(),
        nav.find_path(start, end, &filter).unwrap()
    );

    // Without the feature the file has no block.
    let plain = tiled(false).nav_mesh.to_mset_bytes();
    assert!(!plain.windows(4).any(|w| w == b"NLLR"));
    assert_eq!(load_like_cpp(&plain).1, plain.len());
}

#[test]
fn bad_long_link_blocks_are_refused_with_one_message() {
    let bytes = tiled(true).nav_mesh.to_mset_bytes();
    let block = bytes.len() - 40;
    let refused = |data: &[u8]| match NavMesh::from_mset_bytes(data) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("accepted"),
    };
    let set = |at: usize, value: u32| {
        let mut data = bytes.clone();
        data[at..at + 4].copy_from_slice(&value.to_le_bytes());
        data
    };
    for (data, words) in [
        (
            bytes[..block + 10].to_vec(),
            "fewer than its 16-byte header",
        ),
        (bytes[..bytes.len() - 1].to_vec(), "only"),
        (set(block + 4, 2), "version 2"),
        (set(block + 8, 4), "claims 4"),
        (set(block + 12, 0), "0 links take 4 bytes"),
        (set(block + 16 + 12, 70_000), "connection 70000"),
        (set(block + 16 + 12, 1), "tiles hold 1 others"),
    ] {
        let message = refused(&data);
        assert!(
            message.starts_with("long-range link block:") && message.contains(words),
            "{message}"
        );
    }
    // Other bytes after the tiles are ignored, as before.
    let mut junk = tiled(false).nav_mesh.to_mset_bytes();
    junk.extend_from_slice(b"JUNK after the tiles");
    assert!(NavMesh::from_mset_bytes(&junk).is_ok());
}

#[cfg(feature = "zstd")]
#[test]
fn the_compact_file_keeps_long_links() {
    let nav = &tiled(true).nav_mesh;
    let loaded = NavMesh::from_compact_bytes(&nav.to_compact_bytes().unwrap()).unwrap();
    assert!(loaded.long_range_links_enabled());
    assert!(crosses_third_link(&loaded));
    assert_eq!(loaded.to_mset_bytes(), nav.to_mset_bytes());
    let plain = NavMesh::from_compact_bytes(&tiled(false).nav_mesh.to_compact_bytes().unwrap());
    assert!(!plain.unwrap().long_range_links_enabled());
}
