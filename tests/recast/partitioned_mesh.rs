//! The triangle k-d tree: structural invariants, equality with RecastDemo's tree, and queries and
//! raycasts against brute force.

use crate::support as common;

use navlab::input::obj::{TriMesh, load_obj};
use navlab::input::partitioned_mesh::{
    ChunkNode, PartitionedMesh, TRIS_PER_CHUNK, intersect_segment_triangle, raycast,
};

fn load(mesh: &str) -> Option<TriMesh> {
    let path = common::mesh_path(mesh)?;
    Some(load_obj(&path).unwrap_or_else(|e| panic!("{e}")))
}

/// A small deterministic generator (no extra dev-dependency for random numbers).
struct Lcg(u64);

impl Lcg {
    /// Uniform in [0, 1).
    fn next(&mut self) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }

    fn between(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.next()
    }
}

/// Many small triangles packed closer than one unit, where the truncating comparator matters.
fn clustered_soup(count: usize, spread: f32, seed: u64) -> (Vec<f32>, Vec<i32>) {
    let mut rng = Lcg(seed);
    let mut verts = Vec::new();
    for _ in 0..count {
        let (cx, cz) = (rng.next() * spread, rng.next() * spread * 0.7);
        for _ in 0..3 {
            verts.extend([cx + rng.next() * 2.0, rng.next(), cz + rng.next() * 2.0]);
        }
    }
    let tris = (0..(count * 3) as i32).collect();
    (verts, tris)
}

fn fnv1a64(bytes: impl IntoIterator<Item = u8>) -> u64 {
    bytes.into_iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

fn node_bytes(nodes: &[ChunkNode]) -> Vec<u8> {
    let mut bytes = Vec::new();
    for n in nodes {
        for v in n.bmin.iter().chain(&n.bmax) {
            bytes.extend(v.to_le_bytes());
        }
        bytes.extend(n.tri_index.to_le_bytes());
        bytes.extend(n.num_tris.to_le_bytes());
    }
    bytes
}

fn tri_xz_bounds(verts: &[f32], tri: &[i32]) -> ([f32; 2], [f32; 2]) {
    let mut bmin = [f32::INFINITY; 2];
    let mut bmax = [f32::NEG_INFINITY; 2];
    for &i in tri {
        let v = i as usize * 3;
        for (k, c) in [verts[v], verts[v + 2]].into_iter().enumerate() {
            bmin[k] = bmin[k].min(c);
            bmax[k] = bmax[k].max(c);
        }
    }
    (bmin, bmax)
}

fn check_invariants(verts: &[f32], tris: &[i32], pm: &PartitionedMesh) {
    let nodes = pm.nodes();
    assert!(!nodes.is_empty());

    // Every input triangle appears exactly once, leaf by leaf.
    let mut ours: Vec<&[i32]> = pm.tris().chunks(3).collect();
    let mut input: Vec<&[i32]> = tris.chunks(3).collect();
    ours.sort_unstable();
    input.sort_unstable();
    assert_eq!(ours, input, "the leaves must hold each input triangle once");

    let mut next_tri = 0;
    for (i, node) in nodes.iter().enumerate() {
        if node.is_leaf() {
            assert!(node.num_tris as usize <= TRIS_PER_CHUNK, "leaf {i} too big");
            assert_eq!(
                node.tri_index, next_tri,
                "leaves hold consecutive triangles"
            );
            next_tri += node.num_tris;
            let chunk = pm.chunk_tris(i);
            assert_eq!(chunk.len(), node.num_tris as usize * 3);
            for tri in chunk.chunks(3) {
                let (bmin, bmax) = tri_xz_bounds(verts, tri);
                for k in 0..2 {
                    assert!(
                        node.bmin[k] <= bmin[k] && bmax[k] <= node.bmax[k],
                        "leaf {i}"
                    );
                }
            }
        } else {
            let end = i + node.tri_index.unsigned_abs() as usize;
            assert!(end <= nodes.len(), "escape of node {i} past the end");
            assert!(pm.chunk_tris(i).is_empty());
            for child in &nodes[i + 1..end] {
                for k in 0..2 {
                    assert!(node.bmin[k] <= child.bmin[k] && child.bmax[k] <= node.bmax[k]);
                }
            }
        }
    }
    assert_eq!(next_tri as usize * 3, tris.len());
    if nodes.len() > 1 {
        assert_eq!(
            nodes[0].tri_index,
            -(nodes.len() as i32),
            "the root escapes past the end"
        );
    }
}

#[test]
fn tree_invariants_hold_on_reference_and_clustered_meshes() {
    for mesh in common::MESHES {
        let Some(m) = load(mesh) else { return };
        let pm = PartitionedMesh::from_mesh(&m).unwrap();
        check_invariants(&m.verts, &m.tris, &pm);
    }
    for (count, spread, seed) in [
        (5000, 3.0, 1),
        (7000, 40.0, 2),
        (300, 1.0, 3),
        (257, 9.0, 4),
    ] {
        let (verts, tris) = clustered_soup(count, spread, seed);
        let pm = PartitionedMesh::build(&verts, &tris, TRIS_PER_CHUNK).unwrap();
        check_invariants(&verts, &tris, &pm);
    }
}

/// Fingerprints of RecastDemo's `PartitionedMesh` (nodes as `bmin, bmax, triIndex, numTris`
/// little-endian, interior `numTris` 0; and the regrouped triangle indices), taken from the C++
/// code run on the same meshes.
#[test]
fn tree_equals_recastdemo() {
    let expected = [
        (
            "nav_test",
            15,
            202,
            0xceeb_4459_3fd8_9122,
            0x9467_e0cf_df0a_dfb2,
        ),
        (
            "dungeon",
            127,
            159,
            0xafa5_8754_dfaf_8ff6,
            0xb1ed_1a2f_b4f3_43c9,
        ),
        (
            "undulating",
            63,
            163,
            0x87ae_930f_fb93_5b9c,
            0xed62_56db_ce6b_a3fa,
        ),
    ];
    for (mesh, node_count, max_tris, nodes_hash, tris_hash) in expected {
        let Some(m) = load(mesh) else { return };
        let pm = PartitionedMesh::from_mesh(&m).unwrap();
        assert_eq!(pm.nodes().len(), node_count, "{mesh}");
        assert_eq!(pm.max_tris_per_chunk(), max_tris, "{mesh}");
        assert_eq!(fnv1a64(node_bytes(pm.nodes())), nodes_hash, "{mesh} nodes");
        let tri_bytes = pm.tris().iter().flat_map(|i| i.to_le_bytes());
        assert_eq!(fnv1a64(tri_bytes), tris_hash, "{mesh} triangle order");
        assert_eq!(pm.mesh_bounds(), m.bounds());
    }
}

/// Each tile of the tiled reference builds rasterizes the triangles of the chunks overlapping
/// its border-expanded rectangle; their count must match C++'s `tileTriCount`.
#[test]
fn tile_triangle_counts_match_reference() {
    for mesh in common::MESHES {
        let Some(m) = load(mesh) else { return };
        let pm = PartitionedMesh::from_mesh(&m).unwrap();
        let (nav_bmin, _) = m.bounds();
        for tile_size in [32, 64] {
            let Some(reference) = common::load_json(&format!("tiled/{mesh}_ts{tile_size}.json"))
            else {
                return;
            };
            let cfg = &reference["tileConfig_tile_0_0"];
            let cs = cfg["cs"].as_f64().unwrap() as f32;
            let border = cfg["borderSize"].as_i64().unwrap() as f32 * cs;
            let tile_world = tile_size as f32 * cs;
            for tile in reference["tiles"].as_array().unwrap() {
                let tx = tile["tx"].as_i64().unwrap() as f32;
                let ty = tile["ty"].as_i64().unwrap() as f32;
                let bmin = [
                    nav_bmin[0] + tx * tile_world - border,
                    nav_bmin[2] + ty * tile_world - border,
                ];
                let bmax = [
                    nav_bmin[0] + (tx + 1.0) * tile_world + border,
                    nav_bmin[2] + (ty + 1.0) * tile_world + border,
                ];
                let count: i64 = pm
                    .chunks_overlapping_rect(bmin, bmax)
                    .map(|n| pm.nodes()[n].num_tris as i64)
                    .sum();
                assert_eq!(
                    count,
                    tile["tileTriCount"].as_i64().unwrap(),
                    "{mesh} ts{tile_size} tile ({tx}, {ty})"
                );
            }
        }
    }
}

#[test]
fn rect_query_equals_brute_force_over_leaves() {
    for mesh in common::STAGE_MESHES {
        let Some(m) = load(mesh) else { return };
        let pm = PartitionedMesh::from_mesh(&m).unwrap();
        let (bmin, bmax) = m.bounds();
        let mut rng = Lcg(7);
        for _ in 0..2000 {
            let size = rng.between(0.0, 0.3) * (bmax[0] - bmin[0]);
            let x = rng.between(bmin[0] - 5.0, bmax[0] + 5.0);
            let z = rng.between(bmin[2] - 5.0, bmax[2] + 5.0);
            let (qmin, qmax) = ([x, z], [x + size, z + size * rng.between(0.2, 2.0)]);
            let ours: Vec<usize> = pm.chunks_overlapping_rect(qmin, qmax).collect();
            let brute: Vec<usize> = pm
                .nodes()
                .iter()
                .enumerate()
                .filter(|(_, n)| {
                    n.is_leaf()
                        && qmin[0] <= n.bmax[0]
                        && qmax[0] >= n.bmin[0]
                        && qmin[1] <= n.bmax[1]
                        && qmax[1] >= n.bmin[1]
                })
                .map(|(i, _)| i)
                .collect();
            assert_eq!(ours, brute, "{mesh} rect {qmin:?}..{qmax:?}");
        }
    }
}

/// The nearest front-face hit over every triangle, kept as RecastDemo keeps it.
fn brute_force_raycast(mesh: &TriMesh, start: [f32; 3], end: [f32; 3]) -> Option<f32> {
    let vertex = |i: i32| {
        let v = i as usize * 3;
        [mesh.verts[v], mesh.verts[v + 1], mesh.verts[v + 2]]
    };
    let mut nearest: Option<f32> = None;
    for tri in mesh.tris.chunks_exact(3) {
        let hit =
            intersect_segment_triangle(start, end, vertex(tri[0]), vertex(tri[1]), vertex(tri[2]));
        if let Some(t) = hit {
            let current = nearest.unwrap_or(1.0);
            nearest = Some(if current < t { current } else { t });
        }
    }
    nearest
}

#[test]
fn raycast_equals_brute_force() {
    for mesh in common::MESHES {
        let Some(m) = load(mesh) else { return };
        let pm = PartitionedMesh::from_mesh(&m).unwrap();
        let (bmin, bmax) = m.bounds();
        let mut rng = Lcg(11);
        let mut point =
            |margin: f32| [0, 1, 2].map(|k| rng.between(bmin[k] - margin, bmax[k] + margin));
        let mut hits = 0;
        for i in 0..3000 {
            let (start, end) = match i % 3 {
                // Picking rays: from above the mesh straight down through it.
                0 => {
                    let p = point(0.0);
                    ([p[0], bmax[1] + 1.0, p[2]], [p[0], bmin[1] - 1.0, p[2]])
                }
                // Slanted rays from above to below.
                1 => {
                    let (a, b) = (point(2.0), point(2.0));
                    ([a[0], bmax[1] + 1.0, a[2]], [b[0], bmin[1] - 1.0, b[2]])
                }
                // Any segment, partly outside the bounds.
                _ => (point(10.0), point(10.0)),
            };
            let ours = raycast(&m, &pm, start, end);
            assert_eq!(
                ours,
                brute_force_raycast(&m, start, end),
                "{mesh} {start:?}->{end:?}"
            );
            hits += ours.is_some() as usize;
        }
        assert!(
            hits > 500,
            "{mesh}: only {hits} hits, the test rays miss too often"
        );
    }
}

#[test]
fn raycast_hits_the_front_face_of_a_floor() {
    let verts = vec![0.0, 0.0, 0.0, 0.0, 0.0, 4.0, 4.0, 0.0, 0.0];
    let mesh = TriMesh::from_parts(verts, vec![0, 1, 2]).unwrap();
    let pm = PartitionedMesh::from_mesh(&mesh).unwrap();
    assert_eq!(
        raycast(&mesh, &pm, [1.0, 2.0, 1.0], [1.0, -2.0, 1.0]),
        Some(0.5)
    );
    assert_eq!(raycast(&mesh, &pm, [1.0, -2.0, 1.0], [1.0, 2.0, 1.0]), None);
    assert_eq!(raycast(&mesh, &pm, [9.0, 2.0, 9.0], [9.0, -2.0, 9.0]), None);
    // A tree built for another mesh is refused rather than indexed out of range.
    let other = TriMesh::from_parts(vec![0.0; 12], vec![0, 1, 3]).unwrap();
    assert_eq!(
        raycast(&other, &pm, [1.0, 2.0, 1.0], [1.0, -2.0, 1.0]),
        None
    );
}

#[test]
fn empty_and_invalid_input() {
    let empty = PartitionedMesh::build(&[0.0; 9], &[], TRIS_PER_CHUNK).unwrap();
    assert!(empty.nodes().is_empty());
    assert_eq!(empty.max_tris_per_chunk(), 0);
    assert_eq!(
        empty.chunks_overlapping_rect([-1e9; 2], [1e9; 2]).count(),
        0
    );
    assert_eq!(
        empty.chunks_overlapping_segment([0.0; 2], [1.0; 2]).count(),
        0
    );
    assert!(empty.chunk_tris(0).is_empty());

    let verts = [0.0; 9];
    for (tris, per_chunk, expected) in [
        (&[0, 1, 3][..], 256, "out of range"),
        (&[0, -1, 2][..], 256, "out of range"),
        (&[0, 1][..], 256, "multiple of 3"),
        (&[0, 1, 2][..], 0, "above zero"),
    ] {
        let err = PartitionedMesh::build(&verts, tris, per_chunk).unwrap_err();
        assert!(err.to_string().contains(expected), "{tris:?}: {err}");
    }
}

/// An input's tree is built when first read, and is the tree `from_mesh` builds; a mesh the tree
/// cannot take is still refused when the input is made.
#[test]
fn an_inputs_lazy_tree_equals_the_eager_one() {
    let Some(mesh) = load("nav_test") else {
        return;
    };
    let eager = PartitionedMesh::from_mesh(&mesh).unwrap();
    let input = navlab::input::InputGeom::from_mesh(mesh).unwrap();
    let shared = input.clone();
    assert_eq!(*input.partitioned, eager);
    assert!(std::ptr::eq(&*input.partitioned, &*shared.partitioned));

    let bad = TriMesh {
        verts: vec![0.0; 9],
        tris: vec![0, 1, 3],
        ..TriMesh::default()
    };
    assert!(navlab::input::LazyPartitionedMesh::new(std::sync::Arc::new(bad)).is_err());
}
