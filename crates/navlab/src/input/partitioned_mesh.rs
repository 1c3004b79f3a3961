//! A k-d tree over the input triangles' xz-bounds (RecastDemo's `PartitionedMesh`, formerly
//! `ChunkyTriMesh`), so that a tile build rasterizes only the triangles near its tile and a ray
//! tests only the triangles under it.
//!
//! The tree decides which triangles a tile sees and in which order they are rasterized, and that
//! order decides the heightfield, so it is built exactly as RecastDemo builds it: the split axis is
//! the longer side of a node's bounds, and a node's triangles are ordered by glibc's `qsort` with
//! RecastDemo's comparator, which truncates the difference of two minimum coordinates to an
//! integer. That comparator calls coordinates less than one unit apart equal and is not
//! transitive, so the order depends on the sorting algorithm; `glibc_merge_sort` is the merge
//! sort glibc's `qsort` runs.

use std::ops::Deref;
use std::sync::{Arc, OnceLock};

use crate::input::obj::{TriMesh, calc_bounds};
use crate::input::{Error, Result};

/// Triangles per leaf RecastDemo uses for its input geometry.
pub const TRIS_PER_CHUNK: usize = 256;

/// One node of the tree, in depth-first order.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ChunkNode {
    /// Minimum x and z of the node's triangles.
    pub bmin: [f32; 2],
    /// Maximum x and z of the node's triangles.
    pub bmax: [f32; 2],
    /// For a leaf, its first triangle in [`PartitionedMesh::tris`]; for an interior node, minus
    /// the number of nodes in its subtree, so a query that misses it skips the whole subtree.
    pub tri_index: i32,
    /// Triangles in a leaf (0 for an interior node).
    pub num_tris: i32,
}

impl ChunkNode {
    /// Whether the node holds triangles (interior nodes hold a negative escape offset).
    pub fn is_leaf(&self) -> bool {
        self.tri_index >= 0
    }
}

/// The input triangles regrouped leaf by leaf, with the tree over them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PartitionedMesh {
    nodes: Vec<ChunkNode>,
    tris: Vec<i32>,
    /// The input index of each triangle of `tris`, to find its caller-given area.
    tri_ids: Vec<u32>,
    max_tris_per_chunk: usize,
    vert_count: usize,
    mesh_bmin: [f32; 3],
    mesh_bmax: [f32; 3],
}

/// A triangle's xz-bounds and its index in the input, the unit the tree sorts.
#[derive(Clone, Copy, Debug)]
struct IndexedBounds {
    bmin: [f32; 2],
    bmax: [f32; 2],
    index: usize,
}

/// `std::min(a, b)`: `b` only when it is strictly less (decides ±0 and NaN as C++ does).
fn std_min(a: f32, b: f32) -> f32 {
    if b < a { b } else { a }
}

/// `std::max(a, b)`: `b` only when `a` is strictly less.
fn std_max(a: f32, b: f32) -> f32 {
    if a < b { b } else { a }
}

/// Whether RecastDemo's comparator (`(int)(a - b)`, compiled to x86's truncating conversion,
/// which yields `INT_MIN` for NaN and out-of-range values) reports `a` after `b`.
fn truncated_difference_is_positive(a: f32, b: f32) -> bool {
    let difference = a - b;
    (1.0..2_147_483_648.0).contains(&difference)
}

/// glibc's `qsort` (its top-down merge sort, `msort_with_tmp`): halves of `n / 2` and the rest,
/// and a merge that takes from the left half unless the comparator says its head comes after.
/// With a non-transitive comparator only this exact algorithm reproduces glibc's order.
fn glibc_merge_sort<T: Copy>(
    items: &mut [T],
    scratch: &mut Vec<T>,
    comes_after: &impl Fn(&T, &T) -> bool,
) {
    let n = items.len();
    if n <= 1 {
        return;
    }
    let (left, right) = items.split_at_mut(n / 2);
    glibc_merge_sort(left, scratch, comes_after);
    glibc_merge_sort(right, scratch, comes_after);

    scratch.clear();
    let (mut i, mut j) = (0, 0);
    while i < left.len() && j < right.len() {
        if comes_after(&left[i], &right[j]) {
            scratch.push(right[j]);
            j += 1;
        } else {
            scratch.push(left[i]);
            i += 1;
        }
    }
    scratch.extend_from_slice(&left[i..]);
    // What is left of the right half is already in place.
    let merged = scratch.len();
    items[..merged].copy_from_slice(scratch);
}

/// The union of the bounds in `items`, folded in order with `std::min`/`std::max` as
/// RecastDemo's `calcTotalBounds` does.
fn total_bounds(items: &[IndexedBounds]) -> ([f32; 2], [f32; 2]) {
    let Some(first) = items.first() else {
        return ([0.0; 2], [0.0; 2]);
    };
    let (mut bmin, mut bmax) = (first.bmin, first.bmax);
    for it in &items[1..] {
        for k in 0..2 {
            bmin[k] = std_min(it.bmin[k], bmin[k]);
            bmax[k] = std_max(it.bmax[k], bmax[k]);
        }
    }
    (bmin, bmax)
}

fn partition_error(message: String) -> Error {
    Error::Partition(message)
}

/// The input errors [`PartitionedMesh::build`] reports, found before any tree is built.
fn check_input(verts: &[f32], tris: &[i32], tris_per_chunk: usize) -> Result<()> {
    if tris_per_chunk == 0 {
        return Err(partition_error(
            "the number of triangles per chunk must be above zero".into(),
        ));
    }
    if !tris.len().is_multiple_of(3) {
        return Err(partition_error(format!(
            "the triangle index count {} is not a multiple of 3",
            tris.len()
        )));
    }
    if tris.len() >= i32::MAX as usize {
        return Err(partition_error(format!(
            "{} triangles are too many to index",
            tris.len() / 3
        )));
    }
    let vert_count = verts.len() / 3;
    if let Some(bad) = tris
        .iter()
        .position(|&i| usize::try_from(i).map_or(true, |i| i >= vert_count))
    {
        return Err(partition_error(format!(
            "triangle {} has vertex index {} out of range (0..{vert_count})",
            bad / 3,
            tris[bad]
        )));
    }
    Ok(())
}

/// State of one tree build: the output being filled and the sort buffer reused by every node.
struct TreeBuilder<'a> {
    input_tris: &'a [i32],
    tris_per_chunk: usize,
    scratch: Vec<IndexedBounds>,
    nodes: Vec<ChunkNode>,
    tris: Vec<i32>,
    tri_ids: Vec<u32>,
}

impl TreeBuilder<'_> {
    /// Adds the node for `items` and, depth first, its subtree.
    fn subdivide(&mut self, items: &mut [IndexedBounds]) {
        let node_index = self.nodes.len();
        let (bmin, bmax) = total_bounds(items);
        let mut node = ChunkNode {
            bmin,
            bmax,
            ..ChunkNode::default()
        };
        if items.len() <= self.tris_per_chunk {
            // Sizes fit in i32: the input was checked to have fewer than i32::MAX / 3 triangles.
            node.tri_index = (self.tris.len() / 3) as i32;
            node.num_tris = items.len() as i32;
            for it in items.iter() {
                self.tris
                    .extend_from_slice(&self.input_tris[it.index * 3..it.index * 3 + 3]);
                // The count was checked to fit in i32.
                self.tri_ids.push(it.index as u32);
            }
            self.nodes.push(node);
            return;
        }

        self.nodes.push(node);
        let axis = if bmax[0] - bmin[0] >= bmax[1] - bmin[1] {
            0
        } else {
            1
        };
        glibc_merge_sort(items, &mut self.scratch, &|a: &IndexedBounds, b| {
            truncated_difference_is_positive(a.bmin[axis], b.bmin[axis])
        });
        let (left, right) = items.split_at_mut(items.len() / 2);
        self.subdivide(left);
        self.subdivide(right);
        self.nodes[node_index].tri_index = -((self.nodes.len() - node_index) as i32);
    }
}

/// The tree of a mesh with RecastDemo's [`TRIS_PER_CHUNK`], built on first use: a solo build
/// never reads it, while tile builds and ray picking do. The input is checked when this is
/// made, so a bad mesh fails at load as before. Clones share one tree.
#[derive(Clone, Debug)]
pub struct LazyPartitionedMesh {
    mesh: Arc<TriMesh>,
    tree: Arc<OnceLock<PartitionedMesh>>,
}

impl LazyPartitionedMesh {
    /// Checks `mesh` as [`PartitionedMesh::from_mesh`] does, leaving the tree for later.
    pub fn new(mesh: Arc<TriMesh>) -> Result<Self> {
        check_input(&mesh.verts, &mesh.tris, TRIS_PER_CHUNK)?;
        Ok(Self {
            mesh,
            tree: Arc::default(),
        })
    }
}

impl Deref for LazyPartitionedMesh {
    type Target = PartitionedMesh;

    fn deref(&self) -> &PartitionedMesh {
        self.tree.get_or_init(|| {
            PartitionedMesh::build_checked(&self.mesh.verts, &self.mesh.tris, TRIS_PER_CHUNK)
        })
    }
}

impl PartitionedMesh {
    /// Builds the tree over a mesh with RecastDemo's [`TRIS_PER_CHUNK`].
    pub fn from_mesh(mesh: &TriMesh) -> Result<Self> {
        Self::build(&mesh.verts, &mesh.tris, TRIS_PER_CHUNK)
    }

    /// Builds the tree over `tris` (vertex index triples into `verts`, 3 floats per vertex) with
    /// at most `tris_per_chunk` triangles per leaf.
    pub fn build(verts: &[f32], tris: &[i32], tris_per_chunk: usize) -> Result<Self> {
        check_input(verts, tris, tris_per_chunk)?;
        Ok(Self::build_checked(verts, tris, tris_per_chunk))
    }

    /// [`PartitionedMesh::build`] on an input [`check_input`] accepted.
    fn build_checked(verts: &[f32], tris: &[i32], tris_per_chunk: usize) -> Self {
        let vert_count = verts.len() / 3;
        let mut items: Vec<IndexedBounds> = tris
            .chunks_exact(3)
            .enumerate()
            .map(|(index, tri)| {
                let xz = |k: usize| {
                    let v = tri[k] as usize * 3;
                    [verts[v], verts[v + 2]]
                };
                let first = xz(0);
                let (mut bmin, mut bmax) = (first, first);
                for p in [xz(1), xz(2)] {
                    for k in 0..2 {
                        bmin[k] = std_min(p[k], bmin[k]);
                        bmax[k] = std_max(p[k], bmax[k]);
                    }
                }
                IndexedBounds { bmin, bmax, index }
            })
            .collect();

        let tri_count = items.len();
        let chunk_count = tri_count.div_ceil(tris_per_chunk);
        let mut builder = TreeBuilder {
            input_tris: tris,
            tris_per_chunk,
            scratch: Vec::with_capacity(tri_count),
            nodes: Vec::with_capacity(chunk_count.saturating_mul(2)),
            tris: Vec::with_capacity(tris.len()),
            tri_ids: Vec::with_capacity(tris.len() / 3),
        };
        if tri_count > 0 {
            builder.subdivide(&mut items);
        }
        let max_tris_per_chunk = builder
            .nodes
            .iter()
            .filter(|n| n.is_leaf())
            .map(|n| n.num_tris as usize)
            .max()
            .unwrap_or(0);
        let (mesh_bmin, mesh_bmax) = calc_bounds(verts);
        Self {
            nodes: builder.nodes,
            tris: builder.tris,
            tri_ids: builder.tri_ids,
            max_tris_per_chunk,
            vert_count,
            mesh_bmin,
            mesh_bmax,
        }
    }

    /// The tree's nodes in depth-first order (node 0 is the root).
    pub fn nodes(&self) -> &[ChunkNode] {
        &self.nodes
    }

    /// Every triangle (vertex index triples), grouped leaf by leaf in node order.
    pub fn tris(&self) -> &[i32] {
        &self.tris
    }

    /// The triangles (vertex index triples) of leaf `node`; empty for an interior or unknown node.
    pub fn chunk_tris(&self, node: usize) -> &[i32] {
        match self.nodes.get(node) {
            Some(n) if n.is_leaf() => {
                let start = n.tri_index as usize * 3;
                &self.tris[start..start + n.num_tris as usize * 3]
            }
            _ => &[],
        }
    }

    /// The input index of each triangle of leaf `node`, in [`PartitionedMesh::chunk_tris`]'s
    /// order.
    pub fn chunk_tri_ids(&self, node: usize) -> &[u32] {
        match self.nodes.get(node) {
            Some(n) if n.is_leaf() => {
                let start = n.tri_index as usize;
                &self.tri_ids[start..start + n.num_tris as usize]
            }
            _ => &[],
        }
    }

    /// The most triangles any leaf holds (the size of a per-chunk scratch buffer).
    pub fn max_tris_per_chunk(&self) -> usize {
        self.max_tris_per_chunk
    }

    /// Bounds of every vertex of the mesh the tree was built from (Recast's `rcCalcBounds`).
    pub fn mesh_bounds(&self) -> ([f32; 3], [f32; 3]) {
        (self.mesh_bmin, self.mesh_bmax)
    }

    /// Leaves whose bounds overlap the xz-rectangle (edges touching count), in node order
    /// (RecastDemo's `GetNodesOverlappingRect`).
    pub fn chunks_overlapping_rect(
        &self,
        bmin: [f32; 2],
        bmax: [f32; 2],
    ) -> impl Iterator<Item = usize> + '_ {
        self.overlapping(move |node| {
            bmin[0] <= node.bmax[0]
                && bmax[0] >= node.bmin[0]
                && bmin[1] <= node.bmax[1]
                && bmax[1] >= node.bmin[1]
        })
    }

    /// Leaves whose bounds the xz-segment `start`–`end` touches, in node order (RecastDemo's
    /// `GetNodesOverlappingSegment`).
    pub fn chunks_overlapping_segment(
        &self,
        start: [f32; 2],
        end: [f32; 2],
    ) -> impl Iterator<Item = usize> + '_ {
        self.overlapping(move |node| segment_overlaps_rect(start, end, node.bmin, node.bmax))
    }

    /// Walks the tree in node order, skipping the subtree of every interior node that fails the
    /// test, and yields the leaves that pass.
    fn overlapping<'a>(
        &'a self,
        overlaps: impl Fn(&ChunkNode) -> bool + 'a,
    ) -> impl Iterator<Item = usize> + 'a {
        let mut next = 0;
        std::iter::from_fn(move || {
            while let Some(node) = self.nodes.get(next) {
                let index = next;
                let overlap = overlaps(node);
                if overlap || node.is_leaf() {
                    next += 1;
                } else {
                    next += node.tri_index.unsigned_abs() as usize;
                }
                if overlap && node.is_leaf() {
                    return Some(index);
                }
            }
            None
        })
    }
}

/// Slab test of a 2D segment against a rectangle; a direction component under 1e-6 counts as
/// parallel to that slab.
fn segment_overlaps_rect(p: [f32; 2], q: [f32; 2], bmin: [f32; 2], bmax: [f32; 2]) -> bool {
    const EPSILON: f32 = 1e-6;
    let mut tmin = 0.0f32;
    let mut tmax = 1.0f32;
    for i in 0..2 {
        let d = q[i] - p[i];
        if d.abs() < EPSILON {
            if p[i] < bmin[i] || p[i] > bmax[i] {
                return false;
            }
        } else {
            let ood = 1.0 / d;
            let mut t1 = (bmin[i] - p[i]) * ood;
            let mut t2 = (bmax[i] - p[i]) * ood;
            if t1 > t2 {
                std::mem::swap(&mut t1, &mut t2);
            }
            if t1 > tmin {
                tmin = t1;
            }
            if t2 < tmax {
                tmax = t2;
            }
            if tmin > tmax {
                return false;
            }
        }
    }
    true
}

/// The part `[tmin, tmax]` of the segment `sp`–`sq` inside the box, if any (RecastDemo's
/// `isectSegAABB`).
fn segment_box_span(
    sp: [f32; 3],
    sq: [f32; 3],
    amin: [f32; 3],
    amax: [f32; 3],
) -> Option<(f32, f32)> {
    const EPSILON: f32 = 1e-6;
    let mut tmin = 0.0f32;
    let mut tmax = 1.0f32;
    for i in 0..3 {
        let d = sq[i] - sp[i];
        if d.abs() < EPSILON {
            if sp[i] < amin[i] || sp[i] > amax[i] {
                return None;
            }
        } else {
            let ood = 1.0 / d;
            let mut t1 = (amin[i] - sp[i]) * ood;
            let mut t2 = (amax[i] - sp[i]) * ood;
            if t1 > t2 {
                std::mem::swap(&mut t1, &mut t2);
            }
            tmin = std_max(t1, tmin);
            tmax = std_min(t2, tmax);
            if tmin > tmax {
                return None;
            }
        }
    }
    Some((tmin, tmax))
}

fn sub(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// Where the segment `sp`–`sq` crosses triangle `a b c` from its front (the side its
/// counter-clockwise normal faces), as a fraction of the segment; back faces and parallel
/// segments miss. RecastDemo's `intersectSegmentTriangle`, operation for operation.
pub fn intersect_segment_triangle(
    sp: [f32; 3],
    sq: [f32; 3],
    a: [f32; 3],
    b: [f32; 3],
    c: [f32; 3],
) -> Option<f32> {
    let ab = sub(b, a);
    let ac = sub(c, a);
    let qp = sub(sp, sq);
    let norm = cross(ab, ac);
    let d = dot(qp, norm);
    if d <= 0.0 {
        return None;
    }
    let ap = sub(sp, a);
    let t = dot(ap, norm);
    if t < 0.0 || t > d {
        return None;
    }
    let e = cross(qp, ap);
    let v = dot(ac, e);
    if v < 0.0 || v > d {
        return None;
    }
    let w = -dot(ab, e);
    if w < 0.0 || v + w > d {
        return None;
    }
    Some(t / d)
}

/// Position of vertex `i` (an index the tree validated against the mesh's vertex count).
fn vertex(verts: &[f32], i: i32) -> [f32; 3] {
    let v = i as usize * 3;
    [verts[v], verts[v + 1], verts[v + 2]]
}

/// The nearest hit of the segment `start`–`end` on `mesh`, as a fraction in `[0, 1]` of the
/// segment (RecastDemo's `InputGeom::raycastMesh`): the segment is clipped to the mesh bounds,
/// its xz-shadow picks the leaves to test, and each of their triangles is hit from the front only.
/// `pm` must have been built from `mesh`; if the vertex counts differ there is no hit.
pub fn raycast(
    mesh: &TriMesh,
    pm: &PartitionedMesh,
    start: [f32; 3],
    end: [f32; 3],
) -> Option<f32> {
    if mesh.verts.len() / 3 != pm.vert_count {
        return None;
    }
    let (btmin, btmax) = segment_box_span(start, end, pm.mesh_bmin, pm.mesh_bmax)?;
    let p = [
        start[0] + (end[0] - start[0]) * btmin,
        start[2] + (end[2] - start[2]) * btmin,
    ];
    let q = [
        start[0] + (end[0] - start[0]) * btmax,
        start[2] + (end[2] - start[2]) * btmax,
    ];

    let mut nearest: Option<f32> = None;
    for node in pm.chunks_overlapping_segment(p, q) {
        for tri in pm.chunk_tris(node).chunks_exact(3) {
            let [a, b, c] = [tri[0], tri[1], tri[2]].map(|i| vertex(&mesh.verts, i));
            if let Some(t) = intersect_segment_triangle(start, end, a, b, c) {
                let current = nearest.unwrap_or(1.0);
                nearest = Some(std_min(t, current));
            }
        }
    }
    nearest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncating_comparator_groups_close_values() {
        assert!(!truncated_difference_is_positive(1.9, 1.0));
        assert!(truncated_difference_is_positive(2.0, 1.0));
        assert!(!truncated_difference_is_positive(-5.0, 1.0));
        assert!(!truncated_difference_is_positive(f32::NAN, 1.0));
        assert!(!truncated_difference_is_positive(3e9, 0.0));
    }

    #[test]
    fn merge_sort_reproduces_glibc_order_for_a_non_transitive_comparator() {
        // glibc's qsort gives this order: 0.9 and 0.5 (and 3.0 and 2.5) are "equal" to the
        // comparator and stay as the merges met them, so the result is not even sorted.
        let mut values = [3.0f32, 0.9, 0.5, 2.5, 0.1];
        let mut scratch = Vec::new();
        glibc_merge_sort(&mut values, &mut scratch, &|a: &f32, b: &f32| {
            truncated_difference_is_positive(*a, *b)
        });
        assert_eq!(values, [0.9, 0.5, 0.1, 3.0, 2.5]);
    }

    #[test]
    fn front_face_hit_and_back_face_miss() {
        let (a, b, c) = ([0.0, 0.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]);
        let down = intersect_segment_triangle([0.2, 1.0, 0.2], [0.2, -1.0, 0.2], a, b, c);
        assert_eq!(down, Some(0.5));
        let up = intersect_segment_triangle([0.2, -1.0, 0.2], [0.2, 1.0, 0.2], a, b, c);
        assert_eq!(up, None);
    }
}
