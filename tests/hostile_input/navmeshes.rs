//! Hostile navmeshes: NaN or infinite coordinates are refused when a navmesh file loads, and
//! queries on such a navmesh built in memory still end; tiles whose border edges all face each
//! other link in near-linear time, to exactly the links of Detour's edge-by-polygon scan.

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;
use std::process::Command;

use navlab::detour::RefWidth;
use navlab::detour::nav_mesh_builder::DetailMeshParams;
use navlab::detour::query::{
    FINDPATH_ANY_ANGLE, NavMeshQuery, QueryFilter, StraightPathPoint, VisitedPoly,
};
use navlab::detour::{
    EXT_LINK, MeshTile, NavMesh, NavMeshCreateParams, NavMeshParams, PolyRef, VERTS_PER_POLYGON,
    create_nav_mesh_data, opposite_tile,
};

/// Recast's "no neighbour" and wall markers in poly-mesh neighbour slots.
const NONE: u16 = 0xffff;
/// Recast border directions: the +x and -x tile sides.
const PORTAL_POS_X: u16 = 0x8002;
const PORTAL_NEG_X: u16 = 0x8000;

/// A poly mesh in Recast's layout (vertices in voxels, `2 * 6` slots per polygon).
#[derive(Default)]
struct PolyMesh {
    verts: Vec<u16>,
    polys: Vec<u16>,
    vertex_index: HashMap<[u16; 3], u16>,
}

impl PolyMesh {
    /// The index of vertex `v`, added if new (as Recast shares equal vertices).
    fn vertex(&mut self, v: [u16; 3]) -> u16 {
        let next = (self.verts.len() / 3) as u16;
        let index = *self.vertex_index.entry(v).or_insert(next);
        if index == next {
            self.verts.extend_from_slice(&v);
        }
        index
    }

    fn poly(&mut self, verts: &[u16], neis: &[u16]) {
        let mut slots = [NONE; 2 * VERTS_PER_POLYGON];
        slots[..verts.len()].copy_from_slice(verts);
        slots[VERTS_PER_POLYGON..VERTS_PER_POLYGON + neis.len()].copy_from_slice(neis);
        self.polys.extend_from_slice(&slots);
    }

    /// The tile at grid cell (`x`, 0) of `size` × `size` voxels of 0.5 m, 0.2 m high.
    fn tile(&self, x: i32, size: u16, bmin_y: f32) -> MeshTile {
        self.tile_with_detail(x, size, bmin_y, None)
    }

    fn tile_with_detail(
        &self,
        x: i32,
        size: u16,
        bmin_y: f32,
        detail: Option<DetailMeshParams>,
    ) -> MeshTile {
        let poly_count = self.polys.len() / (2 * VERTS_PER_POLYGON);
        let flags = vec![1u16; poly_count];
        let areas = vec![63u8; poly_count];
        let cs = 0.5;
        let extent = f32::from(size) * cs;
        let params = NavMeshCreateParams {
            verts: &self.verts,
            polys: &self.polys,
            poly_flags: &flags,
            poly_areas: &areas,
            nvp: VERTS_PER_POLYGON,
            detail,
            off_mesh_connections: &[],
            user_id: 0,
            tile_x: x,
            tile_y: 0,
            tile_layer: 0,
            bmin: [x as f32 * extent, bmin_y, 0.0],
            bmax: [(x + 1) as f32 * extent, bmin_y + 20.0, extent],
            walkable_height: 2.0,
            walkable_radius: 0.6,
            walkable_climb: 0.9,
            cs,
            ch: 0.2,
            build_bv_tree: true,
        };
        create_nav_mesh_data(&params).expect("test tile builds")
    }
}

/// A `cells` × `cells` grid of 4-voxel square polygons, linked to each other.
fn grid(cells: u16) -> PolyMesh {
    let mut mesh = PolyMesh::default();
    let corner = |mesh: &mut PolyMesh, x: u16, z: u16| mesh.vertex([4 * x, 0, 4 * z]);
    let index = |x: u16, z: u16| z * cells + x;
    for z in 0..cells {
        for x in 0..cells {
            let verts = [
                corner(&mut mesh, x, z),
                corner(&mut mesh, x, z + 1),
                corner(&mut mesh, x + 1, z + 1),
                corner(&mut mesh, x + 1, z),
            ];
            let neis = [
                if x > 0 { index(x - 1, z) } else { NONE },
                if z + 1 < cells { index(x, z + 1) } else { NONE },
                if x + 1 < cells { index(x + 1, z) } else { NONE },
                if z > 0 { index(x, z - 1) } else { NONE },
            ];
            mesh.poly(&verts, &neis);
        }
    }
    mesh
}

fn solo(tile: MeshTile) -> NavMesh {
    NavMesh::new_solo(tile, RefWidth::Bits32).expect("navmesh")
}

/// A navmesh of one tile in a grid whose origin is zero, whatever the tile's bounds.
fn single(tile: MeshTile) -> NavMesh {
    let extent = tile.header().bmax[0] - tile.header().bmin[0];
    let mut mesh = NavMesh::new(NavMeshParams {
        orig: [0.0; 3],
        tile_width: extent,
        tile_height: extent,
        max_tiles: 1,
        max_polys: 1 << 16,
        ref_width: RefWidth::Bits32,
    })
    .unwrap();
    mesh.add_tile(tile, 0).unwrap();
    mesh
}

/// Where tile data starts in a one-tile MSET file, where its vertices start, and how many.
fn mset_sections(bytes: &[u8]) -> (usize, usize, usize) {
    let tile = 48;
    let count = |at: usize| {
        i32::from_le_bytes(bytes[tile + at..tile + at + 4].try_into().unwrap()) as usize
    };
    (tile, tile + 100, count(28))
}

fn load_error(bytes: &[u8]) -> String {
    match NavMesh::from_mset_bytes(bytes) {
        Ok(_) => panic!("a navmesh with a non-finite value loaded"),
        Err(err) => err.to_string(),
    }
}

fn put_f32(bytes: &mut [u8], at: usize, value: f32) {
    bytes[at..at + 4].copy_from_slice(&value.to_le_bytes());
}

#[test]
fn non_finite_tile_values_are_refused_with_the_tile_and_value() {
    let mesh = solo(grid(3).tile(0, 12, 0.0));
    let good = mesh.to_mset_bytes();
    let (tile, verts, vert_count) = mset_sections(&good);
    assert_eq!(
        NavMesh::from_mset_bytes(&good).unwrap().to_mset_bytes(),
        good,
        "a finite navmesh loads as before"
    );
    let cases: [(usize, f32, &str); 6] = [
        (verts + 4, f32::NAN, "vertex 0 is not finite (NaN)"),
        (
            verts + 12 * 5,
            f32::INFINITY,
            "vertex 5 is not finite (inf)",
        ),
        (tile + 68, f32::NAN, "header walkableClimb is not finite"),
        (
            tile + 76,
            f32::NEG_INFINITY,
            "header bmin is not finite (-inf)",
        ),
        (tile + 92, f32::NAN, "header bmax is not finite"),
        (
            tile + 96,
            f32::INFINITY,
            "header bvQuantFactor is not finite",
        ),
    ];
    for (at, value, expected) in cases {
        let mut bytes = good.clone();
        put_f32(&mut bytes, at, value);
        let message = load_error(&bytes);
        assert!(
            message.contains("tile (0, 0) layer 0: ") && message.contains(expected),
            "{message}"
        );
    }
    // Every height NaN, as a NaN-height file from another tool would have it.
    let mut heights = good.clone();
    for v in 0..vert_count {
        put_f32(&mut heights, verts + 12 * v + 4, f32::NAN);
    }
    assert!(load_error(&heights).contains("vertex 0 is not finite (NaN)"));
    // A detail vertex: one square whose detail mesh adds its centre.
    let square = grid(1);
    let corners = [
        [0.0, 0.0, 0.0],
        [0.0, 0.0, 2.0],
        [2.0, 0.0, 2.0],
        [2.0, 0.0, 0.0],
    ];
    let detail_verts: Vec<f32> = corners
        .iter()
        .flatten()
        .copied()
        .chain([1.0, 0.0, 1.0])
        .collect();
    let detail = DetailMeshParams {
        meshes: &[0, 5, 0, 4],
        verts: &detail_verts,
        tris: &[0, 1, 4, 0, 1, 2, 4, 0, 2, 3, 4, 0, 3, 0, 4, 0],
    };
    let mut with_detail = solo(square.tile_with_detail(0, 4, 0.0, Some(detail))).to_mset_bytes();
    let count =
        |at: usize| i32::from_le_bytes(with_detail[48 + at..52 + at].try_into().unwrap()) as usize;
    let (polys, verts, links, detail_meshes) = (count(24), count(28), count(32), count(36));
    let detail_section = 148 + 12 * verts + 32 * polys + 12 * links + 12 * detail_meshes;
    let centre_height = detail_section + 4;
    put_f32(&mut with_detail, centre_height, f32::NAN);
    let message = load_error(&with_detail);
    assert!(
        message.contains("tile (0, 0) layer 0: detail vertex 0 is not finite (NaN)"),
        "{message}"
    );
    // The placement of the tile grid.
    let mut origin = good.clone();
    put_f32(&mut origin, 16, f32::NAN);
    assert!(
        load_error(&origin).contains("orig"),
        "{}",
        load_error(&origin)
    );
}

#[test]
fn compact_files_refuse_non_finite_values_too() {
    let mesh = solo(grid(2).tile(0, 8, 0.0));
    let mset = mesh.to_mset_bytes();
    let (tile, verts, _) = mset_sections(&mset);
    let mut tile_data = mset[tile..].to_vec();
    put_f32(&mut tile_data, verts - tile + 12 * 2, f32::NAN);
    // A compact file that stores the link slots (flag 1): header, one table row, one frame.
    let mut file = b"NLMZ".to_vec();
    for word in [1u32, 1, 1] {
        file.extend_from_slice(&word.to_le_bytes());
    }
    file.extend_from_slice(&mset[12..40]);
    file.extend_from_slice(&mset[40..44]);
    for size in [tile_data.len() as u32, tile_data.len() as u32] {
        file.extend_from_slice(&size.to_le_bytes());
    }
    file.extend_from_slice(&zstd::bulk::compress(&tile_data, 3).unwrap());
    let err = NavMesh::from_compact_bytes(&file).expect_err("refused");
    assert!(
        err.to_string()
            .contains("tile (0, 0) layer 0: vertex 2 is not finite (NaN)"),
        "{err}"
    );
}

fn navlab(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_navlab"))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn test_and_crowd_fail_on_a_nan_navmesh_with_one_line() {
    let dir = std::env::temp_dir().join(format!("navlab-hostile-nan-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mesh = solo(grid(4).tile(0, 16, 0.0));
    let mut bytes = mesh.to_mset_bytes();
    let (_, verts, vert_count) = mset_sections(&bytes);
    for v in 0..vert_count {
        put_f32(&mut bytes, verts + 12 * v + 4, f32::NAN);
    }
    let navmesh = dir.join("nan.bin");
    std::fs::write(&navmesh, &bytes).unwrap();
    let cases = dir.join("cases.txt");
    let mut text = std::fs::File::create(&cases).unwrap();
    writeln!(text, "s Solo Mesh\nf grid.obj").unwrap();
    writeln!(text, "pf 1 0 1  7 0 7  0x3 0x0\nrc 1 0 1  7 0 5  0x3 0x0").unwrap();
    drop(text);
    let path = |p: &Path| p.to_str().unwrap().to_string();
    let (cases, navmesh) = (path(&cases), path(&navmesh));
    for args in [
        vec!["test", &cases, "--navmesh", &navmesh],
        vec!["test", &cases, "--navmesh", &navmesh, "--tester"],
        vec!["crowd", &cases, "--navmesh", &navmesh],
    ] {
        let out = navlab(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        let lines: Vec<&str> = stderr.lines().collect();
        assert_eq!(lines.len(), 1, "{args:?}: {stderr}");
        assert!(
            lines[0].starts_with("navlab: ") && lines[0].contains("vertex 0 is not finite (NaN)"),
            "{args:?}: {stderr}"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// A navmesh built in memory is not checked; every query on NaN heights or NaN positions must
/// still return.
#[test]
fn queries_on_nan_geometry_built_in_memory_end() {
    for bmin_y in [f32::NAN, f32::INFINITY] {
        let mesh = single(grid(6).tile(0, 24, bmin_y));
        let mut query = NavMeshQuery::new(&mesh, 2048).unwrap();
        let filter = QueryFilter::default();
        let base = mesh.poly_ref_base(0);
        let (start_ref, end_ref) = (base, base | 35);
        let (start, end) = ([1.0, 0.0, 1.0], [11.0, 0.0, 11.0]);
        let mut path = [0 as PolyRef; 256];
        let (_, n) = query.find_path(start_ref, end_ref, &start, &end, &filter, &mut path);
        let mut straight = [StraightPathPoint::default(); 256];
        let polys = if n > 0 { &path[..n] } else { &path[..1] };
        let polys: Vec<PolyRef> = polys.iter().map(|&r| r.max(start_ref)).collect();
        query.find_straight_path(&start, &end, &polys, &mut straight, 0);
        let mut ray_path = [0 as PolyRef; 64];
        query.raycast(start_ref, &start, &end, &filter, &mut ray_path);
        let mut visited = [0 as PolyRef; 64];
        query.move_along_surface(start_ref, &start, &end, &filter, &mut visited);
        query.find_nearest_poly(&start, &[2.0, 4.0, 2.0], &filter);
        query.get_poly_height(start_ref, &start);
        query.closest_point_on_poly(start_ref, &end);
        let mut around = [VisitedPoly::default(); 64];
        query.find_polys_around_circle(start_ref, &start, 5.0, &filter, &mut around);
        for options in [0, FINDPATH_ANY_ANGLE] {
            query.init_sliced_find_path(start_ref, end_ref, &start, &end, &filter, options);
            let mut rounds = 0;
            while query.update_sliced_find_path(&filter, 8).0.is_in_progress() {
                rounds += 1;
                assert!(rounds < 100_000, "the sliced search does not end");
            }
            query.finalize_sliced_find_path(&filter, &mut path);
        }
    }
}

/// A tile (`x` = 0 or 1 in a row of two) of polygons with `chains` of border vertices on the
/// side facing the other tile: each chain's consecutive vertices make portal edges, closed by
/// one inner vertex.
fn border_tile(x: i32, size: u16, chains: &[Vec<[u16; 2]>], bmin_y: f32) -> MeshTile {
    let mut mesh = PolyMesh::default();
    let (border, inner, portal) = if x == 0 {
        (size, size - 2, PORTAL_POS_X)
    } else {
        (0, 2, PORTAL_NEG_X)
    };
    for chain in chains {
        let mut verts: Vec<u16> = chain
            .iter()
            .map(|&[z, y]| {
                // Now and then an edge off the border line, which must not link.
                let across = if y % 17 == 16 { inner } else { border };
                mesh.vertex([across, y, z])
            })
            .collect();
        verts.push(mesh.vertex([inner, chain[0][1], chain[0][0]]));
        let mut neis = vec![portal; chain.len() - 1];
        neis.push(NONE);
        mesh.poly(&verts, &neis);
    }
    mesh.tile(x, size, bmin_y)
}

/// The portal links of a tile's polygons, in list order: (edge, neighbour poly, bmin, bmax).
fn portal_links(mesh: &NavMesh, x: i32) -> Vec<Vec<(u8, u32, u8, u8)>> {
    let tile = mesh.tile_at(x, 0, 0).expect("tile");
    (0..tile.poly_count())
        .map(|p| {
            tile.poly_links(p)
                .filter(|(_, l)| l.side != 0xff)
                .map(|(_, l)| {
                    (
                        l.edge,
                        mesh.decode_poly_id_poly(l.neighbour),
                        l.bmin,
                        l.bmax,
                    )
                })
                .collect()
        })
        .collect()
}

fn pair_mesh(a: MeshTile, b: MeshTile) -> NavMesh {
    let extent = a.header().bmax[0] - a.header().bmin[0];
    let mut mesh = NavMesh::new(NavMeshParams {
        orig: [0.0; 3],
        tile_width: extent,
        tile_height: extent,
        max_tiles: 4,
        max_polys: 1 << 16,
        ref_width: RefWidth::Bits32,
    })
    .unwrap();
    mesh.add_tile(a, 0).unwrap();
    mesh.add_tile(b, 0).unwrap();
    mesh
}

/// Detour's `findConnectingPolys`, as C++ does it: every polygon of the target tried for
/// every edge.
fn naive_connecting(
    va: &[f32; 3],
    vb: &[f32; 3],
    target: &MeshTile,
    side: u8,
) -> Vec<(u32, [f32; 2])> {
    let max = |a: f32, b: f32| if a > b { a } else { b };
    let min = |a: f32, b: f32| if a < b { a } else { b };
    let abs = |a: f32| if a < 0.0 { -a } else { a };
    let slab = |v: &[f32; 3]| if side == 0 || side == 4 { v[0] } else { v[2] };
    let ends = |va: &[f32; 3], vb: &[f32; 3]| {
        let k = if side == 0 || side == 4 { 2 } else { 0 };
        if va[k] < vb[k] {
            ([va[k], va[1]], [vb[k], vb[1]])
        } else {
            ([vb[k], vb[1]], [va[k], va[1]])
        }
    };
    let overlap = |amin: [f32; 2], amax: [f32; 2], bmin: [f32; 2], bmax: [f32; 2], py: f32| {
        let minx = max(amin[0] + 0.01, bmin[0] + 0.01);
        let maxx = min(amax[0] - 0.01, bmax[0] - 0.01);
        if minx > maxx {
            return false;
        }
        let ad = (amax[1] - amin[1]) / (amax[0] - amin[0]);
        let ak = amin[1] - ad * amin[0];
        let bd = (bmax[1] - bmin[1]) / (bmax[0] - bmin[0]);
        let bk = bmin[1] - bd * bmin[0];
        let dmin = (bd * minx + bk) - (ad * minx + ak);
        let dmax = (bd * maxx + bk) - (ad * maxx + ak);
        if dmin * dmax < 0.0 {
            return true;
        }
        let thr = (py * 2.0) * (py * 2.0);
        dmin * dmin <= thr || dmax * dmax <= thr
    };
    let (amin, amax) = ends(va, vb);
    let apos = slab(va);
    let mut out = Vec::new();
    for (i, poly) in target.polys().iter().enumerate() {
        let nv = usize::from(poly.vert_count);
        for j in 0..nv {
            if poly.neis[j] != EXT_LINK | u16::from(side) {
                continue;
            }
            let vc = &target.verts()[usize::from(poly.verts[j])];
            let vd = &target.verts()[usize::from(poly.verts[(j + 1) % nv])];
            if abs(apos - slab(vc)) > 0.01 {
                continue;
            }
            let (bmin, bmax) = ends(vc, vd);
            if !overlap(amin, amax, bmin, bmax, target.header().walkable_climb) {
                continue;
            }
            if out.len() < 4 {
                out.push((i as u32, [max(amin[0], bmin[0]), min(amax[0], bmax[0])]));
            }
            break;
        }
    }
    out
}

/// The portal links `connectExtLinks` gives `tile` towards `target` when the tile has no other
/// links: slots taken in edge order until they run out, each list newest first.
fn naive_portal_links(tile: &MeshTile, target: &MeshTile) -> Vec<Vec<(u8, u32, u8, u8)>> {
    let mut free = tile.max_link_count();
    let mut lists = Vec::new();
    for poly in tile.polys() {
        let nv = usize::from(poly.vert_count);
        let mut list = Vec::new();
        for j in 0..nv {
            if poly.neis[j] & EXT_LINK == 0 {
                continue;
            }
            let dir = (poly.neis[j] & 0xff) as u8;
            let va = tile.verts()[usize::from(poly.verts[j])];
            let vb = tile.verts()[usize::from(poly.verts[(j + 1) % nv])];
            for (neighbour, range) in naive_connecting(&va, &vb, target, opposite_tile(dir)) {
                if free == 0 {
                    continue;
                }
                free -= 1;
                let k = if dir == 0 || dir == 4 { 2 } else { 0 };
                let mut tmin = (range[0] - va[k]) / (vb[k] - va[k]);
                let mut tmax = (range[1] - va[k]) / (vb[k] - va[k]);
                if tmin > tmax {
                    std::mem::swap(&mut tmin, &mut tmax);
                }
                let byte = |t: f32| (t.clamp(0.0, 1.0) * 255.0).round() as u8;
                list.push((j as u8, neighbour, byte(tmin), byte(tmax)));
            }
        }
        list.reverse();
        lists.push(list);
    }
    lists
}

/// A small deterministic generator (64-bit LCG, high bits).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u32) -> u16 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) % u64::from(n)) as u16
    }
}

/// Random border chains: 2..=4 vertices each, along-side positions in `0..=size` (repeats,
/// zero-length and reversed edges included), heights spread over `height_range` voxels (many
/// within climb of each other, many not).
fn random_chains(rng: &mut Lcg, polys: usize, size: u16, height_range: u32) -> Vec<Vec<[u16; 2]>> {
    let mut shared: Vec<Vec<[u16; 2]>> = Vec::new();
    (0..polys)
        .map(|_| {
            if !shared.is_empty() && rng.below(5) == 0 {
                return shared[usize::from(rng.below(shared.len() as u32))].clone();
            }
            let len = 2 + usize::from(rng.below(3));
            let chain: Vec<[u16; 2]> = (0..len)
                .map(|_| [rng.below(u32::from(size) + 1), rng.below(height_range)])
                .collect();
            shared.push(chain.clone());
            chain
        })
        .collect()
}

#[test]
fn indexed_linking_equals_the_polygon_scan_on_random_borders() {
    let mut rng = Lcg(24);
    for round in 0..24 {
        let size = [8, 16, 64][round % 3];
        let height_range = [6, 20, 400, 60_000][round % 4];
        // Every fifth pair has few enough edges to be scanned rather than put in a tree; pairs
        // under 256 polygons each are linked by C++'s scan, the larger ones through the index.
        let few = round % 5 == 4;
        let polys = if few {
            3 + usize::from(rng.below(10))
        } else {
            50 + usize::from(rng.below(400))
        };
        let bmin_y = if round == 23 { f32::NAN } else { 0.0 };
        let a = border_tile(
            0,
            size,
            &random_chains(&mut rng, polys, size, height_range),
            0.0,
        );
        let b = border_tile(
            1,
            size,
            &random_chains(&mut rng, polys, size, height_range),
            bmin_y,
        );
        let expected_a = naive_portal_links(&a, &b);
        let expected_b = naive_portal_links(&b, &a);
        let mesh = pair_mesh(a, b);
        let what = format!("round {round}: {polys} polys, {size} voxels, heights {height_range}");
        assert_eq!(portal_links(&mesh, 0), expected_a, "{what}: tile 0");
        assert_eq!(portal_links(&mesh, 1), expected_b, "{what}: tile 1");
        let linked: usize = expected_a.iter().chain(&expected_b).map(Vec::len).sum();
        assert!(few || round == 23 || linked > 0, "{what}: nothing linked");
    }
}

/// Every polygon of both tiles has the same border edge, so every edge meets every polygon
/// across the border: C++ makes 65 535² edge tests. The result equals the scan's on a smaller
/// pair of the same shape, and the full-size pair links every slot.
#[test]
fn tiles_whose_edges_all_face_each_other_link_quickly() {
    let facing =
        |polys: usize, x: i32| border_tile(x, 16, &vec![vec![[0, 0], [16, 0]]; polys], 0.0);
    let (a, b) = (facing(300, 0), facing(300, 1));
    let expected = (naive_portal_links(&a, &b), naive_portal_links(&b, &a));
    let mesh = pair_mesh(a, b);
    assert_eq!((portal_links(&mesh, 0), portal_links(&mesh, 1)), expected);

    let polys = 0xffff;
    let mesh = pair_mesh(facing(polys, 0), facing(polys, 1));
    for x in [0, 1] {
        let first_four = [
            (0, 3, 0, 255),
            (0, 2, 0, 255),
            (0, 1, 0, 255),
            (0, 0, 0, 255),
        ];
        let lists = portal_links(&mesh, x);
        assert_eq!(lists.len(), polys);
        assert!(
            lists.iter().all(|list| list[..] == first_four),
            "tile {x}: every polygon links to the first four across"
        );
    }
}
