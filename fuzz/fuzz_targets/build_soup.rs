//! Fuzzes whole builds on tiny triangle soups: the first bytes choose the settings (every range
//! the settings accept, small grids), the rest are triangle corners in a 25 m cube. Solo and
//! tiled builds must give a typed error or a navmesh whose polygons index their vertices,
//! stay convex, sit inside their tile, and save and load back to the same bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use navlab::bake::settings::BuildSettings;
use navlab::bake::solo::{Build, Retention};
use navlab::bake::tiled::TiledBuild;
use navlab::detour::NavMesh;
use navlab::input::input_geom::InputGeom;
use navlab::input::obj::TriMesh;
use navlab::recast::region::PartitionType;

/// Bytes read in order, zero once used up.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn byte(&mut self) -> u8 {
        let (&b, rest) = self.0.split_first().unwrap_or((&0, &[]));
        self.0 = rest;
        b
    }

    /// `lo + (hi - lo) * byte / 255`.
    fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * f32::from(self.byte()) / 255.0
    }
}

fn settings(bytes: &mut Bytes) -> BuildSettings {
    let flags = bytes.byte();
    BuildSettings {
        cell_size: bytes.range(0.1, 1.0),
        cell_height: bytes.range(0.05, 0.5),
        agent_height: bytes.range(0.1, 4.0),
        agent_radius: bytes.range(0.0, 2.0),
        agent_max_climb: bytes.range(0.0, 2.0),
        agent_max_slope: bytes.range(0.0, 90.0),
        region_min_size: bytes.range(0.0, 20.0),
        region_merge_size: bytes.range(0.0, 40.0),
        edge_max_len: bytes.range(0.0, 30.0),
        edge_max_error: bytes.range(0.0, 3.0),
        verts_per_poly: f32::from(3 + bytes.byte() % 4),
        detail_sample_dist: bytes.range(0.0, 16.0),
        detail_sample_max_error: bytes.range(0.0, 4.0),
        filter_low_hanging_obstacles: flags & 1 != 0,
        filter_ledge_spans: flags & 2 != 0,
        filter_walkable_low_height_spans: flags & 4 != 0,
        remove_degenerate_polygons: flags & 8 != 0,
        partition_type: PartitionType::ALL[usize::from(flags >> 4) % 3],
        ..BuildSettings::default()
    }
}

fn check(nav: &NavMesh) {
    for (_, tile) in nav.tiles() {
        let header = tile.header();
        let slack = 0.01 * (header.bmax[0] - header.bmin[0]).abs().max(1.0);
        for v in tile.verts() {
            for k in [0, 2] {
                assert!(v[k] >= header.bmin[k] - slack && v[k] <= header.bmax[k] + slack);
            }
        }
        for poly in tile.polys() {
            let n = usize::from(poly.vert_count);
            assert!(n >= 3);
            let corners: Vec<[f64; 2]> = poly.verts[..n]
                .iter()
                .map(|&i| {
                    let v = tile.verts()[usize::from(i)];
                    [f64::from(v[0]), f64::from(v[2])]
                })
                .collect();
            let crosses: Vec<f64> = (0..n)
                .map(|k| {
                    let (a, b, c) = (corners[k], corners[(k + 1) % n], corners[(k + 2) % n]);
                    (b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0])
                })
                .collect();
            let eps = 1e-6 * 1e4;
            assert!(!(crosses.iter().any(|&c| c > eps) && crosses.iter().any(|&c| c < -eps)));
        }
    }
    let bytes = nav.to_mset_bytes();
    let again = NavMesh::from_mset_bytes(&bytes).expect("a built navmesh loads");
    assert_eq!(again.to_mset_bytes(), bytes);
}

fuzz_target!(|data: &[u8]| {
    let mut bytes = Bytes(data);
    let settings = settings(&mut bytes);
    let tile_size = 4 + i32::from(bytes.byte() % 64);
    let corners = bytes.0;
    let verts: Vec<f32> = corners[..corners.len() / 9 * 9]
        .iter()
        .map(|&b| f32::from(b) * 0.1)
        .collect();
    if verts.is_empty() {
        return;
    }
    let tris: Vec<i32> = (0..(verts.len() / 3) as i32).collect();
    let Ok(mesh) = TriMesh::from_parts(verts, tris) else {
        return;
    };
    let Ok(input) = InputGeom::from_mesh(mesh) else {
        return;
    };
    if let Ok(build) = Build::from_input_keeping(&input, settings.clone(), Retention::Final) {
        if let Some(nav) = &build.nav_mesh {
            check(nav);
        }
    }
    if let Ok(tiled) = TiledBuild::new(&input, settings, tile_size) {
        check(&tiled.nav_mesh);
    }
});
