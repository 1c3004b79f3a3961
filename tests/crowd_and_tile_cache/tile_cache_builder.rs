//! Navmesh tiles rebuilt from the tile cache's layers (`dtTileCache::buildNavMeshTile` with
//! RecastDemo's Temp Obstacles mesh process), against the C++ build recorded in
//! `detour/tilecache_nav_test.json` and its navmesh files: the initial build, then three
//! cylinder obstacles, then the second one removed, each compared byte for byte.
use crate::support as common;

use std::path::Path;

use navlab::bake::settings::BuildSettings;
use navlab::bake::temp_obstacles::{
    DEFAULT_TILE_SIZE, build_tile_cache, sample_mesh_process, tile_grid,
};
use navlab::detour::NavMesh;
use navlab::input::InputGeom;
use navlab::tile_cache::builder::{BuildError, ObstacleShape, build_nav_mesh_tile};
use navlab::tile_cache::cache::{CompressedTileRef, TileCache};
use navlab::tile_cache::file::TileCacheParams;
use navlab::tile_cache::layer::{LayerHeader, build_compressed_layer};
use proptest::prelude::*;

/// An obstacle with the layers it touched when added.
struct Obstacle {
    shape: ObstacleShape,
    touched: Vec<CompressedTileRef>,
}

/// Rebuilds the navmesh tile of layer `r` with the obstacles touching it, replacing the old
/// tile as `buildNavMeshTile` does. Returns whether a tile was made.
fn rebuild(
    cache: &TileCache,
    nav_mesh: &mut NavMesh,
    r: CompressedTileRef,
    obstacles: &[&Obstacle],
) -> bool {
    let (header, data) = cache.layer(r).unwrap();
    let shapes: Vec<ObstacleShape> = obstacles
        .iter()
        .filter(|o| o.touched.contains(&r))
        .map(|o| o.shape)
        .collect();
    let tile =
        build_nav_mesh_tile(data, cache.params(), &shapes, &[], sample_mesh_process).unwrap();
    if let Some(old) = nav_mesh.tile_ref_at(header.tx, header.ty, header.tlayer) {
        nav_mesh.remove_tile(old).unwrap();
    }
    tile.map(|t| nav_mesh.add_tile(t, 0).unwrap()).is_some()
}

/// Compares our navmesh file with C++'s, naming the first tile that differs and where.
fn assert_same_mset(nav_mesh: &NavMesh, path: &Path) {
    let theirs = std::fs::read(path).unwrap();
    let ours = nav_mesh.to_mset_bytes();
    let Some(first) = ours.iter().zip(&theirs).position(|(a, b)| a != b) else {
        assert_eq!(ours.len(), theirs.len(), "{}: size", path.display());
        return;
    };
    // Records follow the 40-byte header: reference, size, then the tile's bytes.
    let mut at = 40;
    let mut tile = 0;
    while at + 8 <= theirs.len() {
        let size = u32::from_le_bytes(theirs[at + 4..at + 8].try_into().unwrap()) as usize;
        if first < at + 8 + size {
            break;
        }
        at += 8 + size;
        tile += 1;
    }
    panic!(
        "{}: first difference at byte {first}, tile record {tile} (offset {} in the record)",
        path.display(),
        first - at
    );
}

/// The start positions of the given 1-based `pf` lines of the path-finding test cases.
fn pf_starts(dir: &Path, lines: &[usize]) -> Vec<[f32; 3]> {
    let text = std::fs::read_to_string(dir.join("testcases/nav_mesh_test.txt")).unwrap();
    let pf: Vec<&str> = text.lines().filter(|l| l.starts_with("pf ")).collect();
    lines
        .iter()
        .map(|&n| {
            let v: Vec<f32> = pf[n - 1]
                .split_whitespace()
                .skip(1)
                .take(3)
                .map(|s| s.parse().unwrap())
                .collect();
            [v[0], v[1], v[2]]
        })
        .collect()
}

#[test]
fn layers_build_cpps_navmeshes_byte_for_byte_with_and_without_obstacles() {
    let (Some(dir), Some(mesh)) = (common::reference_dir(), common::mesh_path("nav_test")) else {
        return;
    };
    let text = std::fs::read_to_string(dir.join("detour/tilecache_nav_test.json")).unwrap();
    let reference: serde_json::Value = serde_json::from_str(&text).unwrap();
    let input = InputGeom::load(&mesh).unwrap();
    let settings = BuildSettings::default();
    let (cache, nav_params) = build_tile_cache(&input, &settings, DEFAULT_TILE_SIZE, None).unwrap();
    let (tiles_x, tiles_y) = tile_grid(&input, &settings, DEFAULT_TILE_SIZE).unwrap();
    let mut nav_mesh = NavMesh::new(nav_params).unwrap();

    let mut empty = Vec::new();
    for y in 0..tiles_y {
        for x in 0..tiles_x {
            for r in cache.layers_at(x, y) {
                if !rebuild(&cache, &mut nav_mesh, r, &[]) {
                    let (h, _) = cache.layer(r).unwrap();
                    empty.push((h.tx, h.ty, h.tlayer));
                }
            }
        }
    }
    assert_eq!(empty, [(5, 4, 2)], "layers without polygons");
    let initial = &reference["initial"]["tiles"];
    for (i, (_, tile)) in nav_mesh.tiles().enumerate() {
        let h = tile.header();
        let theirs = &initial[i];
        assert_eq!(
            [h.x, h.y, h.layer, tile.poly_count() as i32].map(i64::from),
            ["x", "y", "layer", "polyCount"].map(|k| theirs[k].as_i64().unwrap()),
            "initial tile {i}"
        );
    }
    assert_same_mset(
        &nav_mesh,
        &dir.join("detour/tilecache_nav_test_initial.bin"),
    );

    let obstacles: Vec<Obstacle> = pf_starts(&dir, &[1, 5, 9])
        .into_iter()
        .map(|p| {
            let shape = ObstacleShape::Cylinder {
                pos: [p[0], p[1] - 0.5, p[2]],
                radius: 1.0,
                height: 2.0,
            };
            let (bmin, bmax) = shape.bounds();
            let touched = cache.query_layers(bmin, bmax);
            Obstacle { shape, touched }
        })
        .collect();
    let recorded = reference["withObstacles"]["obstacles"].as_array().unwrap();
    for (ours, theirs) in obstacles.iter().zip(recorded) {
        let touched: Vec<u64> = theirs["touchedTileRefs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        assert_eq!(
            ours.touched
                .iter()
                .map(|&r| u64::from(r))
                .collect::<Vec<_>>(),
            touched
        );
    }
    let mut updates: Vec<CompressedTileRef> = Vec::new();
    for r in obstacles.iter().flat_map(|o| &o.touched) {
        if !updates.contains(r) {
            updates.push(*r);
        }
    }
    let all: Vec<&Obstacle> = obstacles.iter().collect();
    for &r in &updates {
        rebuild(&cache, &mut nav_mesh, r, &all);
    }
    assert_same_mset(
        &nav_mesh,
        &dir.join("detour/tilecache_nav_test_obstacles.bin"),
    );

    let kept = [&obstacles[0], &obstacles[2]];
    for &r in &obstacles[1].touched {
        rebuild(&cache, &mut nav_mesh, r, &kept);
    }
    assert_same_mset(
        &nav_mesh,
        &dir.join("detour/tilecache_nav_test_removed.bin"),
    );
}

fn small_params() -> TileCacheParams {
    TileCacheParams {
        cs: 0.3,
        ch: 0.2,
        walkable_height: 2.0,
        walkable_radius: 0.6,
        walkable_climb: 0.9,
        max_simplification_error: 1.3,
        width: 24,
        height: 24,
        ..Default::default()
    }
}

#[test]
fn broken_layers_are_errors() {
    assert!(matches!(
        build_nav_mesh_tile(&[0; 20], &small_params(), &[], &[], sample_mesh_process),
        Err(BuildError::BadLayer(_))
    ));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Layers of random cells, areas and connections (portals included), with a random
    /// cylinder: never a panic or a hang, only a tile, no tile, or a typed error.
    #[test]
    fn random_layers_build_or_fail_cleanly(
        (width, height, cells) in (1u8..24, 1u8..24).prop_flat_map(|(w, h)| {
            let n = usize::from(w) * usize::from(h);
            (
                Just(w),
                Just(h),
                prop::collection::vec(
                    (0u8..12, prop::sample::select(vec![0u8, 63, 63, 63, 1, 2]), any::<u8>()),
                    n,
                ),
            )
        }),
        obstacle in (0.0f32..7.2, 0.0f32..7.2, 0.1f32..3.0),
    ) {
        let header = LayerHeader {
            tx: 1,
            ty: 2,
            bmax: [7.2, 3.0, 7.2],
            hmax: 12,
            width,
            height,
            maxx: width - 1,
            maxy: height - 1,
            ..Default::default()
        };
        let heights: Vec<u8> = cells.iter().map(|c| c.0).collect();
        let areas: Vec<u8> = cells.iter().map(|c| c.1).collect();
        let cons: Vec<u8> = cells.iter().map(|c| c.2).collect();
        let data = build_compressed_layer(&header, &heights, &areas, &cons).unwrap();
        let cylinder = ObstacleShape::Cylinder {
            pos: [obstacle.0, 0.0, obstacle.1],
            radius: obstacle.2,
            height: 2.0,
        };
        for shapes in [&[][..], &[cylinder][..]] {
            if let Ok(Some(tile)) = build_nav_mesh_tile(&data, &small_params(), shapes, &[], sample_mesh_process) {
                prop_assert!(tile.poly_count() > 0);
            }
        }
    }
}

/// The same phases through the tile cache's obstacle queue, as RecastDemo's Create Temp
/// Obstacles tool drives it: C++'s obstacle references, C++'s number of update calls (one layer
/// rebuilt per call), and C++'s navmesh files byte for byte.
#[test]
fn obstacles_queued_and_updated_as_cpp_give_its_navmeshes() {
    use navlab::tile_cache::obstacles::{ObstacleState, Obstacles};
    let (Some(dir), Some(mesh)) = (common::reference_dir(), common::mesh_path("nav_test")) else {
        return;
    };
    let text = std::fs::read_to_string(dir.join("detour/tilecache_nav_test.json")).unwrap();
    let reference: serde_json::Value = serde_json::from_str(&text).unwrap();
    let input = InputGeom::load(&mesh).unwrap();
    let settings = BuildSettings::default();
    let (cache, nav_params) = build_tile_cache(&input, &settings, DEFAULT_TILE_SIZE, None).unwrap();
    let (tiles_x, tiles_y) = tile_grid(&input, &settings, DEFAULT_TILE_SIZE).unwrap();
    let mut nav_mesh = NavMesh::new(nav_params).unwrap();
    for y in 0..tiles_y {
        for x in 0..tiles_x {
            for r in cache.layers_at(x, y) {
                rebuild(&cache, &mut nav_mesh, r, &[]);
            }
        }
    }
    let mut obstacles = Obstacles::new(cache.params().max_obstacles).unwrap();
    let refs: Vec<u32> = pf_starts(&dir, &[1, 5, 9])
        .into_iter()
        .map(|p| {
            let shape = ObstacleShape::Cylinder {
                pos: [p[0], p[1] - 0.5, p[2]],
                radius: 1.0,
                height: 2.0,
            };
            obstacles.add(shape).unwrap()
        })
        .collect();
    let recorded = reference["withObstacles"]["obstacles"].as_array().unwrap();
    let theirs: Vec<u64> = recorded
        .iter()
        .map(|o| o["ref"].as_u64().unwrap())
        .collect();
    assert_eq!(
        refs.iter().map(|&r| u64::from(r)).collect::<Vec<_>>(),
        theirs
    );
    let updates_until_done = |obstacles: &mut Obstacles, nav_mesh: &mut NavMesh| {
        let mut calls = 0;
        loop {
            calls += 1;
            if obstacles
                .update(&cache, nav_mesh, sample_mesh_process)
                .unwrap()
            {
                return calls;
            }
            assert!(calls < 1000, "the obstacles never settle");
        }
    };
    let calls = updates_until_done(&mut obstacles, &mut nav_mesh);
    assert_eq!(
        Some(calls),
        reference["withObstacles"]["updateCallsUntilUpToDate"].as_u64()
    );
    for (r, theirs) in refs.iter().zip(recorded) {
        assert_eq!(obstacles.state(*r), Some(ObstacleState::Processed));
        let touched: Vec<u64> = theirs["touchedTileRefs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        assert_eq!(
            obstacles
                .touched(*r)
                .iter()
                .map(|&t| u64::from(t))
                .collect::<Vec<_>>(),
            touched
        );
    }
    assert_same_mset(
        &nav_mesh,
        &dir.join("detour/tilecache_nav_test_obstacles.bin"),
    );

    obstacles.remove(refs[1]).unwrap();
    let calls = updates_until_done(&mut obstacles, &mut nav_mesh);
    assert_eq!(
        Some(calls),
        reference["afterRemovingSecond"]["updateCallsUntilUpToDate"].as_u64()
    );
    assert_eq!(
        obstacles.state(refs[1]),
        None,
        "removed and its slot's salt moved on"
    );
    assert_same_mset(
        &nav_mesh,
        &dir.join("detour/tilecache_nav_test_removed.bin"),
    );

    // A finite but absurd obstacle touches every layer once and settles, no hang.
    let huge = obstacles
        .add(ObstacleShape::Cylinder {
            pos: [0.0, -1e29, 0.0],
            radius: 1e30,
            height: 1e30,
        })
        .unwrap();
    let calls = updates_until_done(&mut obstacles, &mut nav_mesh);
    assert_eq!(obstacles.touched(huge).len(), 60);
    assert_eq!(calls, 60);

    // A full queue and a full pool are errors, not dropped requests.
    let mut small = Obstacles::new(2).unwrap();
    let shape = ObstacleShape::Cylinder {
        pos: [0.0; 3],
        radius: 1.0,
        height: 2.0,
    };
    small.add(shape).unwrap();
    small.add(shape).unwrap();
    assert!(small.add(shape).is_err());
    let nan = ObstacleShape::Cylinder {
        pos: [f32::NAN, 0.0, 0.0],
        radius: 1.0,
        height: 2.0,
    };
    assert!(Obstacles::new(128).unwrap().add(nan).is_err());
    assert!(Obstacles::new(0).is_err());
}

/// The whole sample through `TempObstaclesBuild`, as the viewer drives it: the initial navmesh,
/// three clicked obstacles, the second removed by a click on it, each C++'s bytes; Remove All
/// empties the pool.
#[test]
fn the_temp_obstacles_sample_gives_cpps_navmeshes() {
    use navlab::bake::temp_obstacles::TempObstaclesBuild;
    let (Some(dir), Some(mesh)) = (common::reference_dir(), common::mesh_path("nav_test")) else {
        return;
    };
    let input = InputGeom::load(&mesh).unwrap();
    let mut build =
        TempObstaclesBuild::new(&input, &BuildSettings::default(), DEFAULT_TILE_SIZE).unwrap();
    assert_same_mset(
        &build.nav_mesh,
        &dir.join("detour/tilecache_nav_test_initial.bin"),
    );
    assert_eq!(build.stats.layers, 60);
    assert!(build.stats.compressed_bytes < build.stats.raw_bytes);
    let settle = |build: &mut TempObstaclesBuild| {
        let mut calls = 0;
        while build.update().unwrap() {
            calls += 1;
            assert!(calls < 1000, "the obstacles never settle");
        }
    };
    let clicks = pf_starts(&dir, &[1, 5, 9]);
    for &p in &clicks {
        build
            .add_obstacle(TempObstaclesBuild::click_obstacle(p))
            .unwrap();
    }
    settle(&mut build);
    assert_same_mset(
        &build.nav_mesh,
        &dir.join("detour/tilecache_nav_test_obstacles.bin"),
    );
    // The second click's obstacle, by a ray from above through the point clicked.
    let above = |p: [f32; 3]| [p[0], p[1] + 10.0, p[2]];
    let second = build
        .obstacle_hit_by(above(clicks[1]), clicks[1])
        .expect("the ray hits it");
    build.obstacles.remove(second).unwrap();
    settle(&mut build);
    assert_same_mset(
        &build.nav_mesh,
        &dir.join("detour/tilecache_nav_test_removed.bin"),
    );
    let far = [1e6, 0.0, 1e6];
    assert_eq!(build.obstacle_hit_by(above(far), far), None);
    assert_eq!(build.remove_all_obstacles().unwrap(), 2);
    settle(&mut build);
    assert_eq!(build.obstacles.live().count(), 0);
}

/// The Temp Obstacles sample with 64-bit references: at each phase (initial, three obstacles,
/// all removed) the navmesh holds the 32-bit one's tiles and links (C++'s, checked above) with
/// `DT_POLYREF64`'s references.
#[test]
fn the_temp_obstacles_sample_with_64_bit_references_keeps_the_same_tiles() {
    use crate::support::queries::tile_difference;
    use navlab::bake::temp_obstacles::TempObstaclesBuild;
    use navlab::detour::RefWidth;
    let (Some(dir), Some(mesh)) = (common::reference_dir(), common::mesh_path("nav_test")) else {
        return;
    };
    let input = InputGeom::load(&mesh).unwrap();
    let wide_settings = BuildSettings {
        poly_refs: 64,
        ..BuildSettings::default()
    };
    let mut narrow =
        TempObstaclesBuild::new(&input, &BuildSettings::default(), DEFAULT_TILE_SIZE).unwrap();
    let mut wide = TempObstaclesBuild::new(&input, &wide_settings, DEFAULT_TILE_SIZE).unwrap();
    assert_eq!(wide.nav_mesh.ref_width(), RefWidth::Bits64);
    let same = |narrow: &TempObstaclesBuild, wide: &TempObstaclesBuild, phase: &str| {
        if let Some(difference) = tile_difference(&narrow.nav_mesh, &wide.nav_mesh) {
            panic!("{phase}: {difference}");
        }
    };
    same(&narrow, &wide, "initial");
    let settle = |build: &mut TempObstaclesBuild| while build.update().unwrap() {};
    for p in pf_starts(&dir, &[1, 5, 9]) {
        let shape = TempObstaclesBuild::click_obstacle(p);
        narrow.add_obstacle(shape).unwrap();
        wide.add_obstacle(shape).unwrap();
    }
    settle(&mut narrow);
    settle(&mut wide);
    same(&narrow, &wide, "obstacles added");
    narrow.remove_all_obstacles().unwrap();
    wide.remove_all_obstacles().unwrap();
    settle(&mut narrow);
    settle(&mut wide);
    same(&narrow, &wide, "obstacles removed");
}
