//! The tile store (docs/streaming.md): a navmesh streamed window by window from a store has,
//! in every loaded tile, the links the fully loaded navmesh has towards the loaded tiles:
//! portals, off-mesh links and long-range links, for 32- and 64-bit references, on the
//! reference authoring set (off-mesh links; at 32-cell tiles its third link is a long one).
#![cfg(feature = "zstd")]

use std::path::PathBuf;
use std::sync::OnceLock;

use navlab::bake::settings::BuildSettings;
use navlab::bake::tiled::TiledBuild;
use navlab::detour::tile_store::{TileStore, TileStoreError};
use navlab::detour::{NavMesh, PolyRef};
use navlab::game::WaypointKind;
use navlab::input::InputGeom;

fn input() -> &'static InputGeom {
    static INPUT: OnceLock<InputGeom> = OnceLock::new();
    INPUT.get_or_init(|| {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/data/reference/authoring/nav_test_authoring.gset");
        InputGeom::load(&path).unwrap()
    })
}

/// The 32-cell tiled build: plain or with long-range links, 32- or 64-bit references.
fn tiled(long_range_links: bool, poly_refs: u32) -> &'static TiledBuild {
    static BUILDS: [OnceLock<TiledBuild>; 4] = [const { OnceLock::new() }; 4];
    let which = usize::from(long_range_links) * 2 + usize::from(poly_refs == 64);
    BUILDS[which].get_or_init(|| {
        let settings = BuildSettings {
            long_range_links,
            poly_refs,
            ..BuildSettings::for_input(input())
        };
        TiledBuild::new(input(), settings, 32).unwrap()
    })
}

/// A scratch folder of one test.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("navlab-tile-store-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write_store(name: &str, mesh: &NavMesh) -> (PathBuf, TileStore) {
    let path = temp_dir(name).join("world.nlts");
    TileStore::write(&path, mesh).unwrap();
    let store = TileStore::open(&path).unwrap();
    (path, store)
}

/// Each polygon's links, as sets: neighbour, edge, side and portal span.
fn poly_links(
    tile: &navlab::detour::MeshTile,
    poly: usize,
    keep: impl Fn(PolyRef) -> bool,
) -> Vec<(PolyRef, u8, u8, u8, u8)> {
    let mut links: Vec<_> = tile
        .poly_links(poly)
        .map(|(_, l)| l)
        .filter(|l| keep(l.neighbour))
        .map(|l| (l.neighbour, l.edge, l.side, l.bmin, l.bmax))
        .collect();
    links.sort_unstable();
    links
}

/// Every tile of `window` is `full`'s tile under the same reference, and has `full`'s links
/// to the tiles `window` has loaded, no more and no fewer. Returns the links compared.
fn assert_links_match(window: &NavMesh, full: &NavMesh) -> usize {
    let mut compared = 0;
    for (tile_ref, tile) in window.tiles() {
        let full_tile = full
            .tile_by_ref(tile_ref)
            .expect("a tile of the full navmesh");
        assert_eq!(tile.verts(), full_tile.verts());
        assert_eq!(tile.poly_count(), full_tile.poly_count());
        assert_eq!(
            tile.off_mesh_connections(),
            full_tile.off_mesh_connections()
        );
        for poly in 0..tile.poly_count() {
            let got = poly_links(tile, poly, |_| true);
            let want = poly_links(full_tile, poly, |r| window.is_valid_poly_ref(r));
            assert_eq!(got, want, "tile {tile_ref:#x} poly {poly}");
            compared += got.len();
        }
    }
    compared
}

/// The xz box covering `cols` × `rows` tiles from tile (`x`, `y`), shrunk a little inside.
fn window(mesh: &NavMesh, x: i32, y: i32, cols: i32, rows: i32) -> ([f32; 3], [f32; 3]) {
    let p = mesh.params();
    let at = |tx: i32, ty: i32, inset: f32| {
        [
            p.orig[0] + tx as f32 * p.tile_width + inset,
            0.0,
            p.orig[2] + ty as f32 * p.tile_height + inset,
        ]
    };
    (at(x, y, 0.1), at(x + cols, y + rows, -0.1))
}

/// Slides a 2 × 2-tile window over the grid, loading and unloading each step, then loads
/// everything; the links match the full navmesh's at every step.
fn stream_and_compare(long_range_links: bool, poly_refs: u32) {
    let full = &tiled(long_range_links, poly_refs).nav_mesh;
    let name = format!("slide-{long_range_links}-{poly_refs}");
    let (path, store) = write_store(&name, full);
    assert_eq!(store.tiles().len(), full.tile_count());
    assert_eq!(store.long_range_links(), long_range_links);
    assert_eq!(store.ref_width().bits(), poly_refs);
    let mut mesh = store.empty_nav_mesh().unwrap();
    let build = tiled(long_range_links, poly_refs);
    let (cols, rows) = (build.tiles_x, build.tiles_y);
    let mut links = 0;
    let mut loads = 0;
    let mut drops = 0;
    for step in 0..cols.max(rows) {
        let (bmin, bmax) = window(full, step.min(cols - 1), (rows - 1 - step).max(0), 2, 2);
        drops += mesh.unload_tiles_outside(bmin, bmax);
        let report = mesh.load_tiles_in(&store, bmin, bmax).unwrap();
        loads += report.loaded;
        assert!(mesh.tile_count() <= 4 * 2, "{}", mesh.tile_count());
        links += assert_links_match(&mesh, full);
        // Loading the same window again reads nothing.
        let again = mesh.load_tiles_in(&store, bmin, bmax).unwrap();
        assert_eq!((again.loaded, again.read_bytes), (0, 0));
    }
    assert!(loads > 0 && drops > 0 && links > 0);
    let everything = ([-1e9, 0.0, -1e9], [1e9, 0.0, 1e9]);
    mesh.load_tiles_in(&store, everything.0, everything.1)
        .unwrap();
    assert_eq!(mesh.tile_count(), full.tile_count());
    assert_links_match(&mesh, full);
    // And the other way: every link of the full navmesh is there.
    assert_links_match(full, &mesh);
    assert_eq!(mesh.long_links().count(), full.long_links().count());
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}

#[test]
fn a_sliding_window_links_as_the_full_navmesh_32() {
    stream_and_compare(false, 32);
}

#[test]
fn a_sliding_window_links_as_the_full_navmesh_64() {
    stream_and_compare(false, 64);
}

#[test]
fn long_range_links_reconnect_as_tiles_come_and_go_32() {
    stream_and_compare(true, 32);
    long_link_ends_come_and_go(32);
}

#[test]
fn long_range_links_reconnect_as_tiles_come_and_go_64() {
    stream_and_compare(true, 64);
    long_link_ends_come_and_go(64);
}

/// Whether a path beside the third link's ends crosses an off-mesh link.
fn crosses_third_link(nav: &NavMesh) -> bool {
    let link = &input().geom_set.off_mesh_connections[2];
    let beside = |p: [f32; 3]| [p[0] + 1.5, p[1], p[2] + 1.5];
    nav.find_path(
        beside(link.start),
        beside(link.end),
        &navlab::detour::query::QueryFilter::default(),
    )
    .is_ok_and(|path| {
        path.waypoints
            .iter()
            .any(|w| w.kind == WaypointKind::OffMeshLink)
    })
}

/// The third link crosses once the window holds both its ends, is gone when its end's tile
/// leaves, and comes back with it.
fn long_link_ends_come_and_go(poly_refs: u32) {
    let full = &tiled(true, poly_refs).nav_mesh;
    assert!(crosses_third_link(full));
    let (path, store) = write_store(&format!("long-{poly_refs}"), full);
    let link = &input().geom_set.off_mesh_connections[2];
    let corners = |a: [f32; 3], b: [f32; 3]| {
        let lo = [a[0].min(b[0]) - 3.0, 0.0, a[2].min(b[2]) - 3.0];
        let hi = [a[0].max(b[0]) + 3.0, 0.0, a[2].max(b[2]) + 3.0];
        (lo, hi)
    };
    let (both_lo, both_hi) = corners(link.start, link.end);
    let (start_lo, start_hi) = corners(link.start, link.start);
    let mut mesh = store.empty_nav_mesh().unwrap();
    mesh.load_tiles_in(&store, both_lo, both_hi).unwrap();
    assert!(crosses_third_link(&mesh));
    let start_poly = mesh
        .tiles()
        .flat_map(|(r, t)| (0..t.poly_count() as u64).map(move |p| r | p))
        .next()
        .unwrap();
    assert!(mesh.unload_tiles_outside(start_lo, start_hi) > 0);
    assert!(!crosses_third_link(&mesh));
    mesh.load_tiles_in(&store, both_lo, both_hi).unwrap();
    assert!(crosses_third_link(&mesh));
    assert_links_match(&mesh, full);
    // A tile reloaded keeps its references.
    assert!(mesh.is_valid_poly_ref(start_poly));
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}

#[test]
fn a_navmesh_of_other_parameters_is_refused() {
    let full = &tiled(false, 32).nav_mesh;
    let (path, store) = write_store("other", full);
    let mut other = tiled(false, 64).nav_mesh.clone();
    let err = other
        .load_tiles_in(&store, [-1e9; 3], [1e9; 3])
        .unwrap_err();
    assert!(matches!(err, TileStoreError::OtherNavMesh { .. }), "{err}");
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}

#[test]
fn the_store_reads_only_the_window() {
    let full = &tiled(false, 32).nav_mesh;
    let (path, store) = write_store("window", full);
    let mut mesh = store.empty_nav_mesh().unwrap();
    let (bmin, bmax) = window(full, 0, 0, 1, 1);
    let report = mesh.load_tiles_in(&store, bmin, bmax).unwrap();
    let in_cell: Vec<_> = full.tile_indices_at(0, 0).collect();
    assert_eq!(report.loaded, in_cell.len());
    assert!(report.read_bytes < std::fs::metadata(&path).unwrap().len() / 4);
    assert_eq!(
        report.read_bytes,
        store
            .tiles_in(bmin, bmax)
            .map(|t| u64::from(t.stored_size))
            .sum::<u64>()
    );
    assert_eq!(mesh.unload_tiles_outside([1e9; 3], [1e9; 3]), in_cell.len());
    assert_eq!(mesh.tile_count(), 0);
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}

/// Opens `bytes` as a store and loads every tile into a fresh navmesh.
fn open_and_load(path: &std::path::Path, bytes: &[u8]) -> Result<usize, TileStoreError> {
    std::fs::write(path, bytes).unwrap();
    let store = TileStore::open(path)?;
    let mut mesh = store.empty_nav_mesh()?;
    mesh.load_tiles_in(&store, [-1e9; 3], [1e9; 3])?;
    Ok(mesh.tile_count())
}

/// The bytes of a store of the authoring set, and where its index starts and each row's size.
fn store_bytes(poly_refs: u32, name: &str) -> (Vec<u8>, usize, usize) {
    let (path, _) = write_store(name, &tiled(false, poly_refs).nav_mesh);
    let bytes = std::fs::read(&path).unwrap();
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
    (bytes, 44, poly_refs as usize / 8 + 28)
}

fn put_u32(bytes: &mut [u8], at: usize, value: u32) {
    bytes[at..at + 4].copy_from_slice(&value.to_le_bytes());
}

#[test]
fn hostile_stores_give_typed_errors() {
    for poly_refs in [32, 64] {
        let (good, index, row) = store_bytes(poly_refs, &format!("hostile-src-{poly_refs}"));
        let dir = temp_dir(&format!("hostile-{poly_refs}"));
        let path = dir.join("hostile.nlts");
        let tiles = tiled(false, poly_refs).nav_mesh.tile_count();
        assert_eq!(open_and_load(&path, &good).unwrap(), tiles);
        let w = poly_refs as usize / 8;
        let expect_index_error = |bytes: &[u8], what: &str| match open_and_load(&path, bytes) {
            Err(TileStoreError::BadIndex { problem, .. }) => problem,
            other => panic!("{what}: {other:?}"),
        };

        // Every cut of the header and index, and of the frames in steps.
        let data_start = index + tiles * row;
        for len in (0..data_start).chain((data_start..good.len()).step_by(97)) {
            assert!(open_and_load(&path, &good[..len]).is_err(), "cut at {len}");
        }
        let mut bad = good.clone();
        bad[0] = b'X';
        assert!(matches!(
            open_and_load(&path, &bad),
            Err(TileStoreError::NotAStore { .. })
        ));
        for (at, value, what) in [
            (4, 2, "version"),
            (8, 4, "flags"),
            (12, u32::MAX, "tile count"),
            (12, tiles as u32 + 1, "one more tile"),
            (28, (-1.0f32).to_bits(), "negative tile width"),
            (32, 0, "zero tile height"),
        ] {
            let mut bad = good.clone();
            put_u32(&mut bad, at, value);
            expect_index_error(&bad, what);
        }
        // Lying rows: an offset inside the index or past the end, a frame overlapping the
        // previous one, an absurd frame or data size, rows out of order.
        let (first, second) = (index, index + row);
        let first_offset =
            u64::from_le_bytes(good[first + w + 12..first + w + 20].try_into().unwrap());
        for (row_at, offset, what) in [
            (first, 0, "offset 0"),
            (first, u64::MAX, "offset past the end"),
            (second, first_offset, "overlap"),
        ] {
            let mut bad = good.clone();
            bad[row_at + w + 12..row_at + w + 20].copy_from_slice(&offset.to_le_bytes());
            let problem = expect_index_error(&bad, what);
            assert!(problem.starts_with("index row "), "{what}: {problem}");
        }
        for (row_at, field, value, what) in [
            (first, w + 20, u32::MAX, "frame size"),
            (first, w + 24, u32::MAX, "data size"),
            (first, w + 24, 1 << 30, "data size over the ratio"),
            (second, w + 4, 0x8000_0000, "row order"),
        ] {
            let mut bad = good.clone();
            put_u32(&mut bad, row_at + field, value);
            let problem = expect_index_error(&bad, what);
            assert!(problem.starts_with("index row "), "{what}: {problem}");
        }
        let mut bad = good.clone();
        bad.copy_within(first..first + w, second);
        expect_index_error(&bad, "shared slot");
        if poly_refs == 64 {
            // A slot far beyond what the file's size justifies (2^27 slots of 16 bytes).
            let mut bad = good.clone();
            bad[first..first + 8].copy_from_slice(&((1u64 << 27) << 20 | 1 << 48).to_le_bytes());
            expect_index_error(&bad, "far slot");
        }
        // A data size one off, and frames with bytes flipped: a tile error, never a panic.
        let mut bad = good.clone();
        let data_size = u32::from_le_bytes(bad[first + w + 24..first + w + 28].try_into().unwrap());
        put_u32(&mut bad, first + w + 24, data_size + 1);
        assert!(matches!(
            open_and_load(&path, &bad),
            Err(TileStoreError::Invalid { .. })
        ));
        for at in (data_start..good.len()).step_by(211) {
            let mut bad = good.clone();
            bad[at] ^= 0x5a;
            let _ = open_and_load(&path, &bad);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
