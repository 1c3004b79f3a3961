//! The search nodes of graph queries (`dtNodePool`, `dtNodeQueue`): a fixed-capacity pool with
//! a hash from polygon reference to node, and the open list as a binary heap on total cost.
//!
//! Both copy Detour's exact behaviour — the hash function and bucket count, the allocation
//! order, the heap's sift-down that always reaches a leaf — so equal costs break ties as in
//! C++ and searches visit polygons in the same order.

use crate::detour::PolyRef;
use crate::detour::common::{Vec3, next_pow2};

/// The node is in the open list (`DT_NODE_OPEN`).
pub const NODE_OPEN: u8 = 0x01;
/// The node has been expanded (`DT_NODE_CLOSED`).
pub const NODE_CLOSED: u8 = 0x02;
/// The node's parent is not adjacent: it was reached by a raycast shortcut
/// (`DT_NODE_PARENT_DETACHED`).
pub const NODE_PARENT_DETACHED: u8 = 0x04;
/// How many nodes one polygon can have, told apart by [`Node::state`]
/// (`DT_MAX_STATES_PER_NODE`).
pub const MAX_STATES_PER_NODE: usize = 4;
/// The largest node count a pool can have: node indices are 16 bits and `0xffff` ends a
/// hash chain (`DT_NULL_IDX`).
pub const MAX_NODES: usize = 0xffff;

const NULL_INDEX: u16 = 0xffff;

/// One search node (`dtNode`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Node {
    /// Where the search entered the polygon.
    pub pos: Vec3,
    /// Cost from the start to this node.
    pub cost: f32,
    /// Cost plus heuristic (A*) or cost alone (Dijkstra searches).
    pub total: f32,
    /// The parent's node index plus one; 0 for none (`pidx`).
    pub parent: u32,
    /// Tells apart several nodes of one polygon (at most [`MAX_STATES_PER_NODE`]).
    pub state: u8,
    /// [`NODE_OPEN`], [`NODE_CLOSED`], [`NODE_PARENT_DETACHED`].
    pub flags: u8,
    /// The polygon of the node.
    pub poly_ref: PolyRef,
    /// The next node in the same hash bucket.
    pub(crate) next_in_bucket: u16,
}

/// Detour's reference hash (`dtHashRef`): the build's own for each width. A 32-bit
/// navmesh's references fit 32 bits and a 64-bit one's never do (their salt, at least 1,
/// sits at bit 48), so the value tells which navmesh it came from.
#[inline]
fn hash_ref(a: PolyRef) -> u32 {
    match u32::try_from(a) {
        Ok(a) => hash_ref32(a),
        Err(_) => hash_ref64(a),
    }
}

/// Thomas Wang's 64-to-32-bit hash, which Detour uses with `DT_POLYREF64`.
#[inline]
fn hash_ref64(mut a: u64) -> u32 {
    a = (!a).wrapping_add(a << 18);
    a ^= a >> 31;
    a = a.wrapping_mul(21);
    a ^= a >> 11;
    a = a.wrapping_add(a << 6);
    a ^= a >> 22;
    a as u32
}

/// Detour's 32-bit reference hash.
#[inline]
fn hash_ref32(mut a: u32) -> u32 {
    a = a.wrapping_add(!(a << 15));
    a ^= a >> 10;
    a = a.wrapping_add(a << 3);
    a ^= a >> 6;
    a = a.wrapping_add(!(a << 11));
    a ^= a >> 16;
    a
}

/// A fixed-capacity pool of search nodes with a reference → node hash (`dtNodePool`).
///
/// Allocated once; [`NodePool::clear`] empties it without freeing memory.
#[derive(Clone, Debug)]
pub struct NodePool {
    /// All `max_nodes` slots; the first `count` are in use.
    nodes: Vec<Node>,
    count: usize,
    first: Vec<u16>,
    max_nodes: usize,
    hash_mask: u32,
}

impl NodePool {
    /// A pool of `max_nodes` nodes (1..=[`MAX_NODES`], checked by the caller) and
    /// `hash_size` buckets (a power of two).
    pub(crate) fn new(max_nodes: usize, hash_size: usize) -> NodePool {
        // C++ would index an empty table for fewer than 4 nodes; one bucket behaves the same
        // way minus the undefined behaviour.
        let hash_size = hash_size.max(1);
        NodePool {
            nodes: vec![Node::default(); max_nodes],
            count: 0,
            first: vec![NULL_INDEX; hash_size],
            max_nodes,
            hash_mask: (hash_size - 1) as u32,
        }
    }

    /// The main pool of a query: `max_nodes` nodes and `nextPow2(max_nodes / 4)` buckets.
    pub(crate) fn with_max_nodes(max_nodes: usize) -> NodePool {
        NodePool::new(max_nodes, next_pow2((max_nodes / 4) as u32) as usize)
    }

    /// Forgets every node (`clear`).
    pub fn clear(&mut self) {
        self.first.fill(NULL_INDEX);
        self.count = 0;
    }

    #[inline]
    fn bucket(&self, poly_ref: PolyRef) -> usize {
        (hash_ref(poly_ref) & self.hash_mask) as usize
    }

    /// The node of `poly_ref` with `state`, allocated if new (`getNode`); `None` when the pool
    /// is full.
    #[inline]
    pub(crate) fn get_node(&mut self, poly_ref: PolyRef, state: u8) -> Option<usize> {
        self.get_node_mut(poly_ref, state).map(|(index, _)| index)
    }

    /// [`NodePool::get_node`] with the node itself.
    #[inline]
    pub(crate) fn get_node_mut(
        &mut self,
        poly_ref: PolyRef,
        state: u8,
    ) -> Option<(usize, &mut Node)> {
        let bucket = self.bucket(poly_ref);
        debug_assert!(bucket < self.first.len());
        // SAFETY: `bucket` is masked with `hash_mask`, which is `first.len() - 1` for the
        // power-of-two length `new` gives `first` (never resized).
        let head = unsafe { *self.first.get_unchecked(bucket) };
        let mut i = head;
        while i != NULL_INDEX {
            let index = usize::from(i);
            // SAFETY: chains only hold indices of allocated nodes, < count <= nodes.len().
            let node = unsafe { self.nodes.get_unchecked(index) };
            if node.poly_ref == poly_ref && node.state == state {
                // SAFETY: as above.
                return Some((index, unsafe { self.nodes.get_unchecked_mut(index) }));
            }
            i = node.next_in_bucket;
        }
        let index = self.count;
        let node = self.nodes.get_mut(index)?;
        *node = Node {
            poly_ref,
            state,
            next_in_bucket: head,
            ..Node::default()
        };
        self.count += 1;
        // SAFETY: as above.
        unsafe { *self.first.get_unchecked_mut(bucket) = index as u16 };
        Some((index, node))
    }

    /// The node of `poly_ref` with `state`, if allocated (`findNode`).
    pub fn find_node(&self, poly_ref: PolyRef, state: u8) -> Option<usize> {
        self.find_nodes(poly_ref)
            .find(|&i| self.nodes[i].state == state)
    }

    /// The nodes of `poly_ref`, every state, most recently allocated first (`findNodes`).
    pub fn find_nodes(&self, poly_ref: PolyRef) -> impl Iterator<Item = usize> + '_ {
        let mut i = self.first[self.bucket(poly_ref)];
        std::iter::from_fn(move || {
            while i != NULL_INDEX {
                let index = usize::from(i);
                let node = self.nodes.get(index)?;
                i = node.next_in_bucket;
                if node.poly_ref == poly_ref {
                    return Some(index);
                }
            }
            None
        })
    }

    /// The allocated node at `index` (0-based, as [`NodePool::nodes`] orders them).
    #[inline]
    pub fn node(&self, index: usize) -> Option<&Node> {
        self.nodes().get(index)
    }

    /// Node `index` for changing; `index` must come from this pool (a node index it
    /// handed out, the open list, or a node's parent).
    #[inline]
    pub(crate) fn node_mut(&mut self, index: usize) -> &mut Node {
        debug_assert!(index < self.nodes.len());
        // SAFETY: the pool only hands out indices below `max_nodes`, and `nodes` keeps its
        // `max_nodes` length for life; parents and open-list entries are such indices.
        unsafe { self.nodes.get_unchecked_mut(index) }
    }

    /// Node `index`, which must come from this pool (see [`NodePool::node_mut`]).
    #[inline]
    pub(crate) fn node_at(&self, index: usize) -> &Node {
        debug_assert!(index < self.nodes.len());
        // SAFETY: as in `node_mut`.
        unsafe { self.nodes.get_unchecked(index) }
    }

    /// The index of the parent of allocated node `index`, if it has one.
    #[inline]
    pub fn parent_of(&self, index: usize) -> Option<usize> {
        (self.node(index)?.parent as usize).checked_sub(1)
    }

    /// [`NodePool::parent_of`] for an index that comes from this pool.
    #[inline]
    pub(crate) fn parent_at(&self, index: usize) -> Option<usize> {
        (self.node_at(index).parent as usize).checked_sub(1)
    }

    /// The allocated nodes in allocation order, for drawing the search (open and closed
    /// nodes and the links to their parents).
    pub fn nodes(&self) -> &[Node] {
        &self.nodes[..self.count]
    }

    /// Number of allocated nodes (`getNodeCount`).
    pub fn node_count(&self) -> usize {
        self.count
    }

    /// Capacity (`getMaxNodes`).
    pub fn max_nodes(&self) -> usize {
        self.max_nodes
    }

    /// Number of hash buckets (`getHashSize`).
    pub fn hash_size(&self) -> usize {
        self.first.len()
    }
}

/// An open-list entry: the node and the total it was queued with, kept beside the index so
/// heap comparisons need not look the node up.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(8))]
struct HeapEntry {
    total: f32,
    node: u32,
}

/// The open list, a binary min-heap on total cost (`dtNodeQueue`).
#[derive(Clone, Debug)]
pub(crate) struct NodeQueue {
    /// Room for every node of the pool (a node is queued at most once); the first `size`
    /// entries form the heap.
    heap: Vec<HeapEntry>,
    size: usize,
}

impl NodeQueue {
    pub(crate) fn new(capacity: usize) -> NodeQueue {
        NodeQueue {
            heap: vec![
                HeapEntry {
                    total: 0.0,
                    node: 0
                };
                capacity + 1
            ],
            size: 0,
        }
    }

    pub(crate) fn clear(&mut self) {
        self.size = 0;
    }

    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.size == 0
    }

    /// Adds node `node` with total `total`.
    #[inline]
    pub(crate) fn push(&mut self, node: usize, total: f32) {
        let entry = HeapEntry {
            total,
            node: node as u32,
        };
        if self.size < self.heap.len() {
            self.size += 1;
            self.bubble_up(self.size - 1, entry);
        }
    }

    /// Removes and returns the node with the lowest total.
    #[inline]
    pub(crate) fn pop(&mut self) -> Option<usize> {
        let last_index = self.size.checked_sub(1)?;
        debug_assert!(self.size <= self.heap.len());
        // SAFETY: 0 <= last_index < size <= heap.len().
        let (top, last) = unsafe {
            (
                *self.heap.get_unchecked(0),
                *self.heap.get_unchecked(last_index),
            )
        };
        self.size = last_index;
        self.trickle_down_from_root(last);
        Some(top.node as usize)
    }

    /// Moves node `node`, whose total dropped to `total`, up to its place (`modify`).
    #[inline]
    pub(crate) fn modify(&mut self, node: usize, total: f32) {
        if let Some(i) = self.position_of(node as u32) {
            self.bubble_up(
                i,
                HeapEntry {
                    total,
                    node: node as u32,
                },
            );
        }
    }

    /// The heap index of `node`, the first match of a front-to-back scan as in C++ (a node is
    /// queued at most once, so it is also the only one). Blocks of entries are tested at once,
    /// which the compiler vectorises, before the matching block is searched entry by entry.
    #[inline]
    fn position_of(&self, node: u32) -> Option<usize> {
        const BLOCK: usize = 8;
        let queued = &self.heap[..self.size];
        let mut blocks = queued.chunks_exact(BLOCK);
        let mut start = 0;
        for block in blocks.by_ref() {
            if block
                .iter()
                .fold(false, |found, e| found | (e.node == node))
            {
                break;
            }
            start += BLOCK;
        }
        queued[start..]
            .iter()
            .position(|e| e.node == node)
            .map(|i| start + i)
    }

    #[inline]
    fn bubble_up(&mut self, mut i: usize, entry: HeapEntry) {
        debug_assert!(i < self.heap.len());
        while i > 0 {
            let parent = (i - 1) / 2;
            // SAFETY: parent < i < size <= heap.len().
            let up = unsafe { *self.heap.get_unchecked(parent) };
            // Only a strictly greater parent moves down (NaN never does).
            if up.total > entry.total {
                // SAFETY: i < size <= heap.len().
                unsafe { *self.heap.get_unchecked_mut(i) = up };
                i = parent;
            } else {
                break;
            }
        }
        // SAFETY: i < size <= heap.len().
        unsafe { *self.heap.get_unchecked_mut(i) = entry };
    }

    /// Detour's sift-down from the hole `pop` leaves at the root: follow the smaller child
    /// (the left one on ties) all the way to a leaf, then bubble `entry` up from there.
    #[inline]
    fn trickle_down_from_root(&mut self, entry: HeapEntry) {
        let size = self.size;
        debug_assert!(size <= self.heap.len());
        let mut hole = 0;
        let mut left = 1;
        // While both children exist: take the right one only when strictly smaller.
        while left + 1 < size {
            // SAFETY: hole < left < left + 1 < size <= heap.len().
            unsafe {
                let right_smaller =
                    self.heap.get_unchecked(left).total > self.heap.get_unchecked(left + 1).total;
                let child = left + usize::from(right_smaller);
                *self.heap.get_unchecked_mut(hole) = *self.heap.get_unchecked(child);
                hole = child;
            }
            left = hole * 2 + 1;
        }
        // A last lone left child.
        if left < size {
            // SAFETY: hole < left < size <= heap.len().
            unsafe { *self.heap.get_unchecked_mut(hole) = *self.heap.get_unchecked(left) };
            hole = left;
        }
        self.bubble_up(hole, entry);
    }
}
