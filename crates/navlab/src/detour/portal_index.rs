//! Finding the polygons of a neighbour tile that a portal edge links to
//! (`findConnectingPolys`) without scanning the whole neighbour tile for every edge.
//!
//! C++ tests every polygon of the neighbour tile for every portal edge, so two tiles of 65 535
//! polygons whose border edges all face each other take 10¹¹ tests to link. Here the
//! neighbour's edges on the facing side are collected once; a few are simply all tested, many
//! are indexed: edges with the same geometry share one entry, and the entries sit in a
//! bounding-volume tree that also knows the lowest polygon
//! in each subtree. A query walks the tree lowest polygon first, so it meets matching edges in
//! the order C++'s scan does and stops after the fourth polygon, as C++ stops adding; subtrees
//! that cannot match are skipped by bounds that only use the f32 operations of the exact test
//! and their monotonicity, so they never skip an edge the exact test would accept. Every
//! candidate still goes through the exact test, so the links are C++'s, in C++'s order.
//!
//! `connect_ext_links` uses the index only for tile pairs whose polygon counts multiply past
//! 65 536; smaller pairs go through [`scan_connecting_polys`], C++'s scan, which allocates
//! nothing.
//!
//! The tree bounds edges by their along-side range and height range, so borders of long sloped
//! edges that overlap everywhere yet stay apart vertically are still tested pair by pair.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use super::common::{self, Vec3};
use super::tile::MeshTile;
use super::{EXT_LINK, VERTS_PER_POLYGON};

/// Most polygons one portal edge links to (`findConnectingPolys`' `maxcon` in `addTile`).
pub(super) const MAX_CONNECTIONS: usize = 4;
/// How far apart two edges may lie across the side and still connect.
const SLAB_TOLERANCE: f32 = 0.01;
/// How much each end of an edge is shrunk before testing overlap along the side.
const OVERLAP_SHRINK: f32 = 0.01;

/// Polygons found for one edge: (polygon index in the neighbour tile, the overlapping range
/// along the side), and how many entries are used.
pub(super) type Connections = ([(u32, [f32; 2]); MAX_CONNECTIONS], usize);

/// `getSlabCoord`: the coordinate across a tile side.
fn slab_coord(v: &Vec3, side: u8) -> f32 {
    match side {
        0 | 4 => v[0],
        2 | 6 => v[2],
        _ => 0.0,
    }
}

/// `calcSlabEndPoints`: an edge on a tile side as 2D (along-side, height) end points, ordered
/// along the side.
fn slab_end_points(va: &Vec3, vb: &Vec3, side: u8) -> ([f32; 2], [f32; 2]) {
    let along = match side {
        0 | 4 => 2,
        2 | 6 => 0,
        _ => return ([0.0; 2], [0.0; 2]),
    };
    if va[along] < vb[along] {
        ([va[along], va[1]], [vb[along], vb[1]])
    } else {
        ([vb[along], vb[1]], [va[along], va[1]])
    }
}

/// The slope and offset of a side edge's height over the along-side coordinate, as
/// `overlapSlabs` computes them.
fn height_line(min: &[f32; 2], max: &[f32; 2]) -> (f32, f32) {
    let d = (max[1] - min[1]) / (max[0] - min[0]);
    (d, min[1] - d * min[0])
}

/// `overlapSlabs`: whether two side edges overlap along the side (shrunk by `px` so touching
/// ends do not count) and come within `py` of each other vertically.
fn overlap_slabs(
    amin: &[f32; 2],
    amax: &[f32; 2],
    bmin: &[f32; 2],
    bmax: &[f32; 2],
    px: f32,
    py: f32,
) -> bool {
    let minx = common::max(amin[0] + px, bmin[0] + px);
    let maxx = common::min(amax[0] - px, bmax[0] - px);
    if minx > maxx {
        return false;
    }
    let (ad, ak) = height_line(amin, amax);
    let (bd, bk) = height_line(bmin, bmax);
    let aminy = ad * minx + ak;
    let amaxy = ad * maxx + ak;
    let bminy = bd * minx + bk;
    let bmaxy = bd * maxx + bk;
    let dmin = bminy - aminy;
    let dmax = bmaxy - amaxy;
    // Crossing segments always overlap.
    if dmin * dmax < 0.0 {
        return true;
    }
    let thr = common::sqr(py * 2.0);
    dmin * dmin <= thr || dmax * dmax <= thr
}

/// Bounds of a set of side edges, in the values the exact test computes.
#[derive(Clone, Copy, Debug)]
struct Bounds {
    /// Slab coordinates.
    c: [f32; 2],
    /// Lowest `min + shrink` and highest `max - shrink` along the side.
    lo: f32,
    hi: f32,
    /// Lowest and highest height the exact test can evaluate on these edges.
    y: [f32; 2],
    /// False when some value is NaN or infinite: such edges are always tested exactly.
    prunable: bool,
}

impl Bounds {
    fn of_edge(c: f32, min: &[f32; 2], max: &[f32; 2]) -> Bounds {
        let lo = min[0] + OVERLAP_SHRINK;
        let hi = max[0] - OVERLAP_SHRINK;
        let (d, k) = height_line(min, max);
        // The height `d * x + k` is monotonic in x under f32 rounding, so over [lo, hi] it
        // stays between its values at the ends.
        let (y0, y1) = (d * lo + k, d * hi + k);
        let values = [c, lo, hi, d, k, y0, y1];
        Bounds {
            c: [c, c],
            lo,
            hi,
            y: [common::min(y0, y1), common::max(y0, y1)],
            prunable: values.iter().all(|v| v.is_finite()),
        }
    }

    fn union(&self, other: &Bounds) -> Bounds {
        Bounds {
            c: [
                common::min(self.c[0], other.c[0]),
                common::max(self.c[1], other.c[1]),
            ],
            lo: common::min(self.lo, other.lo),
            hi: common::max(self.hi, other.hi),
            y: [
                common::min(self.y[0], other.y[0]),
                common::max(self.y[1], other.y[1]),
            ],
            prunable: self.prunable && other.prunable,
        }
    }
}

/// A query edge with the values the pruning needs.
struct Query {
    apos: f32,
    amin: [f32; 2],
    amax: [f32; 2],
    /// The target tile's climb height (`overlapSlabs`' `py`).
    climb: f32,
    lo: f32,
    hi: f32,
    line: (f32, f32),
    /// `overlapSlabs`' squared height threshold.
    thr: f32,
    /// Whether every value above is finite, so bounds can rule edges out.
    prunable: bool,
}

impl Query {
    fn new(apos: f32, amin: [f32; 2], amax: [f32; 2], climb: f32) -> Query {
        let lo = amin[0] + OVERLAP_SHRINK;
        let hi = amax[0] - OVERLAP_SHRINK;
        let line = height_line(&amin, &amax);
        let thr = common::sqr(climb * 2.0);
        Query {
            apos,
            amin,
            amax,
            climb,
            lo,
            hi,
            line,
            thr,
            prunable: [apos, lo, hi, line.0, line.1, thr]
                .iter()
                .all(|v| v.is_finite()),
        }
    }

    /// Whether no edge within `b` can pass the exact test: every step below follows from
    /// f32 addition, subtraction and multiplication being monotonic in each operand.
    fn rules_out(&self, b: &Bounds) -> bool {
        if !(self.prunable && b.prunable) {
            return false;
        }
        // |apos - c| > tolerance for every c in the range.
        if self.apos - b.c[1] > SLAB_TOLERANCE || self.apos - b.c[0] < -SLAB_TOLERANCE {
            return true;
        }
        // The shrunk ranges along the side must meet.
        if self.lo > self.hi || b.lo > self.hi || b.hi < self.lo {
            return true;
        }
        // Both evaluation points lie in [x0, x1], where this edge's heights lie between its
        // heights at the ends; the other edges' heights lie in `b.y`. If the gap between the
        // two height ranges is wider than the threshold at both points, the edges neither
        // cross nor come close.
        let x0 = common::max(self.lo, b.lo);
        let x1 = common::min(self.hi, b.hi);
        let (d, k) = self.line;
        let (y0, y1) = (d * x0 + k, d * x1 + k);
        if !(y0.is_finite() && y1.is_finite()) {
            return false;
        }
        let (ylo, yhi) = (common::min(y0, y1), common::max(y0, y1));
        let above = b.y[0] - yhi;
        let below = ylo - b.y[1];
        (above > 0.0 && above * above > self.thr) || (below > 0.0 && below * below > self.thr)
    }
}

/// Edges of the neighbour tile that share one geometry.
struct Group {
    c: f32,
    min: [f32; 2],
    max: [f32; 2],
    bounds: Bounds,
    /// `poly << 3 | edge` of each edge, ascending.
    keys: Vec<u32>,
}

/// A tree node: its bounds, the lowest key below it, and a group (leaf) or two children.
struct Node {
    bounds: Bounds,
    min_key: u32,
    content: NodeContent,
}

enum NodeContent {
    Leaf(u32),
    Inner(u32, u32),
}

/// One portal edge of the neighbour tile on the indexed side.
#[derive(Clone, Copy)]
struct SideEdge {
    /// `poly << 3 | edge`.
    key: u32,
    c: f32,
    min: [f32; 2],
    max: [f32; 2],
}

/// Up to this many edges on a side are simply all tested, in polygon order: building the tree
/// costs more than it saves for the few portal edges real tiles have.
const SCAN_LIMIT: usize = 32;

/// The neighbour tile's portal edges on one side.
enum SideIndex {
    Few(Vec<SideEdge>),
    Many(EdgeTree),
}

/// Many edges: grouped by geometry, in a tree.
struct EdgeTree {
    groups: Vec<Group>,
    nodes: Vec<Node>,
    root: u32,
}

/// The exact `findConnectingPolys` test of edge (`c`, `min`, `max`) against `query`.
fn edge_connects(query: &Query, c: f32, min: &[f32; 2], max: &[f32; 2]) -> bool {
    let far = common::abs(query.apos - c) > SLAB_TOLERANCE;
    !far && overlap_slabs(
        &query.amin,
        &query.amax,
        min,
        max,
        OVERLAP_SHRINK,
        query.climb,
    )
}

/// The part of the side that the query edge and edge `min`–`max` share.
fn shared_range(query: &Query, min: &[f32; 2], max: &[f32; 2]) -> [f32; 2] {
    [
        common::max(query.amin[0], min[0]),
        common::min(query.amax[0], max[0]),
    ]
}

/// What the search heap holds: a tree node to open, or the `pos`-th key of a group that
/// passed the exact test.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Pending {
    Node(u32),
    Key { group: u32, pos: u32 },
}

/// `target`'s portal edges on `side`, in polygon order and each polygon's edge order.
fn side_edges(target: &MeshTile, side: u8) -> impl Iterator<Item = SideEdge> + '_ {
    let portal = EXT_LINK | u16::from(side);
    target.polys.iter().enumerate().flat_map(move |(i, poly)| {
        let nv = usize::from(poly.vert_count).min(VERTS_PER_POLYGON);
        (0..nv)
            .filter(move |&j| poly.neis[j] == portal)
            .map(move |j| {
                let vc = &target.verts[usize::from(poly.verts[j])];
                let vd = &target.verts[usize::from(poly.verts[(j + 1) % nv])];
                let (min, max) = slab_end_points(vc, vd, side);
                SideEdge {
                    key: (i as u32) << 3 | j as u32,
                    c: slab_coord(vc, side),
                    min,
                    max,
                }
            })
    })
}

/// `findConnectingPolys`' scan over `edges` (in polygon order): each polygon's first edge that
/// passes the test against `query`, up to [`MAX_CONNECTIONS`] polygons.
fn first_connecting(edges: impl IntoIterator<Item = SideEdge>, query: &Query) -> Connections {
    let mut out = [(0, [0.0; 2]); MAX_CONNECTIONS];
    let mut n = 0;
    let mut last_poly = None;
    for e in edges {
        let poly = e.key >> 3;
        if last_poly == Some(poly) || !edge_connects(query, e.c, &e.min, &e.max) {
            continue;
        }
        last_poly = Some(poly);
        out[n] = (poly, shared_range(query, &e.min, &e.max));
        n += 1;
        if n == MAX_CONNECTIONS {
            break;
        }
    }
    (out, n)
}

impl SideIndex {
    fn build(target: &MeshTile, side: u8) -> SideIndex {
        let edges: Vec<SideEdge> = side_edges(target, side).collect();
        if edges.len() <= SCAN_LIMIT {
            return SideIndex::Few(edges);
        }
        let mut groups: Vec<Group> = Vec::new();
        let mut by_geometry: HashMap<[u32; 5], usize> = HashMap::new();
        for e in &edges {
            let bounds = Bounds::of_edge(e.c, &e.min, &e.max);
            // An edge shorter than the shrinking never overlaps anything.
            if bounds.prunable && bounds.lo > bounds.hi {
                continue;
            }
            let geometry = [e.c, e.min[0], e.min[1], e.max[0], e.max[1]].map(f32::to_bits);
            let group = *by_geometry.entry(geometry).or_insert_with(|| {
                groups.push(Group {
                    c: e.c,
                    min: e.min,
                    max: e.max,
                    bounds,
                    keys: Vec::new(),
                });
                groups.len() - 1
            });
            groups[group].keys.push(e.key);
        }
        if groups.is_empty() {
            return SideIndex::Few(Vec::new());
        }
        let mut order: Vec<u32> = (0..groups.len() as u32).collect();
        let mut nodes = Vec::with_capacity(2 * groups.len());
        let root = build_tree(&groups, &mut order, &mut nodes);
        SideIndex::Many(EdgeTree {
            groups,
            nodes,
            root,
        })
    }

    /// Up to [`MAX_CONNECTIONS`] polygons, lowest index first, with an edge that passes
    /// `findConnectingPolys`' test against `query`; each with the range of its first such edge.
    fn connecting(
        &self,
        heap: &mut BinaryHeap<Reverse<(u32, Pending)>>,
        query: &Query,
    ) -> Connections {
        match self {
            SideIndex::Few(edges) => first_connecting(edges.iter().copied(), query),
            SideIndex::Many(tree) => tree.connecting(heap, query),
        }
    }
}

impl EdgeTree {
    /// [`SideIndex::connecting`] by a walk of the tree, lowest key first.
    fn connecting(
        &self,
        heap: &mut BinaryHeap<Reverse<(u32, Pending)>>,
        query: &Query,
    ) -> Connections {
        let mut out = [(0, [0.0; 2]); MAX_CONNECTIONS];
        let mut n = 0;
        heap.clear();
        let root = &self.nodes[self.root as usize];
        if !query.rules_out(&root.bounds) {
            heap.push(Reverse((root.min_key, Pending::Node(self.root))));
        }
        let mut last_poly = None;
        while let Some(Reverse((key, pending))) = heap.pop() {
            match pending {
                Pending::Key { group, pos } => {
                    let g = &self.groups[group as usize];
                    let poly = key >> 3;
                    if last_poly != Some(poly) {
                        last_poly = Some(poly);
                        out[n] = (poly, shared_range(query, &g.min, &g.max));
                        n += 1;
                        if n == MAX_CONNECTIONS {
                            break;
                        }
                    }
                    if let Some(&next) = g.keys.get(pos as usize + 1) {
                        heap.push(Reverse((
                            next,
                            Pending::Key {
                                group,
                                pos: pos + 1,
                            },
                        )));
                    }
                }
                Pending::Node(node) => match self.nodes[node as usize].content {
                    NodeContent::Leaf(group) => {
                        let g = &self.groups[group as usize];
                        if edge_connects(query, g.c, &g.min, &g.max) {
                            heap.push(Reverse((g.keys[0], Pending::Key { group, pos: 0 })));
                        }
                    }
                    NodeContent::Inner(left, right) => {
                        for child in [left, right] {
                            let c = &self.nodes[child as usize];
                            if !query.rules_out(&c.bounds) {
                                heap.push(Reverse((c.min_key, Pending::Node(child))));
                            }
                        }
                    }
                },
            }
        }
        (out, n)
    }
}

/// Builds the tree over `order` (group indices), splitting at the median of the widest of the
/// along-side, height and slab-coordinate spreads; returns the root's index.
fn build_tree(groups: &[Group], order: &mut [u32], nodes: &mut Vec<Node>) -> u32 {
    if let [group] = order {
        let g = &groups[*group as usize];
        nodes.push(Node {
            bounds: g.bounds,
            min_key: g.keys[0],
            content: NodeContent::Leaf(*group),
        });
        return (nodes.len() - 1) as u32;
    }
    let centre = |g: u32, axis: usize| {
        let b = &groups[g as usize].bounds;
        match axis {
            0 => (b.lo + b.hi) * 0.5,
            1 => (b.y[0] + b.y[1]) * 0.5,
            _ => b.c[0],
        }
    };
    let spread = |axis: usize| {
        let (mut low, mut high) = (f32::INFINITY, f32::NEG_INFINITY);
        for &g in order.iter() {
            let v = centre(g, axis);
            if v.is_finite() {
                low = low.min(v);
                high = high.max(v);
            }
        }
        high - low
    };
    let axis = (0..3)
        .max_by(|&a, &b| spread(a).total_cmp(&spread(b)))
        .unwrap_or(0);
    let mid = order.len() / 2;
    order.select_nth_unstable_by(mid, |&a, &b| centre(a, axis).total_cmp(&centre(b, axis)));
    let (left_order, right_order) = order.split_at_mut(mid);
    let left = build_tree(groups, left_order, nodes);
    let right = build_tree(groups, right_order, nodes);
    let (l, r) = (&nodes[left as usize], &nodes[right as usize]);
    nodes.push(Node {
        bounds: l.bounds.union(&r.bounds),
        min_key: l.min_key.min(r.min_key),
        content: NodeContent::Inner(left, right),
    });
    (nodes.len() - 1) as u32
}

/// `findConnectingPolys` as C++ runs it: every polygon of `target` in turn, its first portal
/// edge on `side` that meets `va`–`vb`. It allocates nothing, which the tile cache's obstacle
/// updates rely on, and is the quicker way for the tile pairs real navmeshes have.
pub(super) fn scan_connecting_polys(
    target: &MeshTile,
    va: &Vec3,
    vb: &Vec3,
    side: u8,
) -> Connections {
    let (amin, amax) = slab_end_points(va, vb, side);
    let query = Query::new(
        slab_coord(va, side),
        amin,
        amax,
        target.header.walkable_climb,
    );
    first_connecting(side_edges(target, side), &query)
}

/// A neighbour tile's portal edges, indexed per side on first use.
pub(super) struct TargetPortals<'t> {
    target: &'t MeshTile,
    sides: [Option<SideIndex>; 8],
    heap: BinaryHeap<Reverse<(u32, Pending)>>,
}

impl<'t> TargetPortals<'t> {
    pub(super) fn new(target: &'t MeshTile) -> TargetPortals<'t> {
        TargetPortals {
            target,
            sides: Default::default(),
            heap: BinaryHeap::new(),
        }
    }

    /// `findConnectingPolys(va, vb, target, side)`: the first [`MAX_CONNECTIONS`] polygons of
    /// the target, in index order, with a portal edge on `side` that meets edge `va`–`vb`,
    /// with the range along the side they share.
    pub(super) fn connecting_polys(&mut self, va: &Vec3, vb: &Vec3, side: u8) -> Connections {
        let (amin, amax) = slab_end_points(va, vb, side);
        let apos = slab_coord(va, side);
        let target = self.target;
        let index =
            self.sides[usize::from(side & 7)].get_or_insert_with(|| SideIndex::build(target, side));
        index.connecting(
            &mut self.heap,
            &Query::new(apos, amin, amax, target.header.walkable_climb),
        )
    }
}
