//! A spatial hash of agent ids over an xz grid (`dtProximityGrid`), rebuilt every crowd update
//! to find each agent's neighbours.
//!
//! A query returns ids in C++'s order — cells by row, each cell's items newest first — and
//! the crowd's neighbour lists, and through them every later step, depend on that order.
//!
//! Detour keys a cell's items by their `i16`-wrapped coordinates (`(int)item.x == x` fails for
//! every cell outside the `i16` range), and two cells wrapping to the same coordinates always
//! share a bucket (their hashes differ by a multiple of 65536, and there are at most 65536
//! buckets). So what a query finds is fixed by the wrapped coordinates alone, not by the
//! buckets: here the hash is taken of the wrapped coordinates, over [`BUCKETS_PER_ITEM`] times
//! Detour's bucket count, so a chain walk meets fewer items of other cells.

use crate::detour::common::{floor_to_i32_like_x86, next_pow2};
use crate::detour::query::Status;

/// Marks the end of a bucket chain and an empty bucket.
const END_OF_CHAIN: u32 = u32::MAX;
/// The most items a pool holds: `dtProximityGrid::init` takes an `int`. Detour numbers items
/// and ids by `unsigned short`, which stops a crowd at 16 383 agents; here both are `u32`, which
/// changes no query below that.
pub const MAX_POOL_SIZE: usize = i32::MAX as usize;
/// Buckets per item of the pool (Detour has one: the pool size's next power of two), up to
/// [`MAX_BUCKETS`]. A clear resets only the buckets its items used, so the extra ones cost
/// nothing per crowd update and spare chain walks.
pub const BUCKETS_PER_ITEM: usize = 8;
/// The most buckets: the largest count for which wrapped cells still share a bucket.
pub const MAX_BUCKETS: usize = 0x10000;

/// One id in one cell. Cell coordinates are kept as `i16`, as C++ does, so far-away cells
/// wrap exactly as they do there; both are packed into `cell` ([`cell_key`]) so a chain walk
/// compares one word per item.
#[derive(Clone, Copy, Debug)]
struct Item {
    id: u32,
    next: u32,
    cell: u32,
    /// Whether the cell left of this one (x - 1) holds an item of the same `add_item`, and
    /// whether the cell below (y - 1) does; both false when the box's `i16` cells wrap.
    same_id_left: bool,
    same_id_below: bool,
}

/// The packed `i16` coordinates of cell (`x`, `y`) as an item stores them.
#[inline]
fn cell_key(x: i16, y: i16) -> u32 {
    u32::from(x as u16) | (u32::from(y as u16) << 16)
}

/// Ids of boxes in an xz grid of square cells, hashed into a fixed number of buckets.
#[derive(Clone, Debug)]
pub struct ProximityGrid {
    cell_size: f32,
    inv_cell_size: f32,
    /// The items added since the last clear; its capacity is the pool size and never grows.
    pool: Vec<Item>,
    pool_size: usize,
    /// The newest item of each bucket's chain; a power of two of them.
    buckets: Vec<u32>,
    /// Cells touched since the last clear: min x, min y, max x, max y.
    bounds: [i32; 4],
    /// Which cells may hold items, folded onto 64 × 64: bit `x & 63` of row `y & 63` is set
    /// for every item's cell. A query skips the cells whose bit is clear without hashing.
    occupied: [u64; 64],
}

/// The factors of Detour's cell hash.
const HASH_X: i32 = 73_856_093;
const HASH_Y: i32 = 19_349_663;

/// Detour's cell hash (`hashPos2`), with C++'s wrapping `int` products, of a cell's wrapped
/// coordinates.
#[inline]
fn hash_pos(x: i16, y: i16, bucket_count: usize) -> usize {
    let mask = bucket_count as i32 - 1;
    ((i32::from(x).wrapping_mul(HASH_X) ^ i32::from(y).wrapping_mul(HASH_Y)) & mask) as usize
}

/// The buckets of a grid with room for `pool_size` items.
fn bucket_count(pool_size: usize) -> usize {
    (next_pow2(pool_size as u32) as usize * BUCKETS_PER_ITEM).min(MAX_BUCKETS)
}

impl ProximityGrid {
    /// The heap bytes [`ProximityGrid::new`] allocates for `pool_size` items.
    pub fn heap_bytes(pool_size: usize) -> u64 {
        let pool = (pool_size as u64).saturating_mul(std::mem::size_of::<Item>() as u64);
        let buckets = bucket_count(pool_size.min(MAX_POOL_SIZE)) * std::mem::size_of::<u32>();
        pool.saturating_add(buckets as u64)
    }

    /// A grid of `cell_size` cells with room for `pool_size` (id, cell) items
    /// (`dtProximityGrid::init`). `pool_size` must be
    /// 1..=[`MAX_POOL_SIZE`] and `cell_size` positive and finite, otherwise
    /// `FAILURE | INVALID_PARAM`.
    pub fn new(pool_size: usize, cell_size: f32) -> Result<ProximityGrid, Status> {
        if pool_size == 0
            || pool_size > MAX_POOL_SIZE
            || !(cell_size > 0.0 && cell_size.is_finite())
        {
            return Err(Status::invalid_param());
        }
        let bucket_count = bucket_count(pool_size);
        let mut grid = ProximityGrid {
            cell_size,
            inv_cell_size: 1.0 / cell_size,
            pool: Vec::with_capacity(pool_size),
            pool_size,
            buckets: vec![END_OF_CHAIN; bucket_count],
            bounds: [0; 4],
            occupied: [0; 64],
        };
        grid.clear();
        Ok(grid)
    }

    /// Removes every item. Only the buckets of the items since the last clear are reset (the
    /// others are empty already): far fewer than all of them in a crowd's grid.
    pub fn clear(&mut self) {
        let bucket_count = self.buckets.len();
        for item in &self.pool {
            let (x, y) = (item.cell as u16 as i16, (item.cell >> 16) as u16 as i16);
            self.buckets[hash_pos(x, y, bucket_count)] = END_OF_CHAIN;
        }
        self.pool.clear();
        self.bounds = [0xffff, 0xffff, -0xffff, -0xffff];
        self.occupied = [0; 64];
    }

    /// The cell a coordinate falls in, as C++'s `(int)floorf(v * invCellSize)`.
    #[inline]
    fn cell(&self, v: f32) -> i32 {
        floor_to_i32_like_x86(v * self.inv_cell_size)
    }

    /// Adds `id` to every cell the box `[minx, maxx] × [miny, maxy]` (xz) overlaps. Cells past
    /// the pool's room are silently dropped, as in C++; the bounds still grow.
    pub fn add_item(&mut self, id: u32, minx: f32, miny: f32, maxx: f32, maxy: f32) {
        let (iminx, iminy) = (self.cell(minx), self.cell(miny));
        let (imaxx, imaxy) = (self.cell(maxx), self.cell(maxy));
        self.bounds[0] = self.bounds[0].min(iminx);
        self.bounds[1] = self.bounds[1].min(iminy);
        self.bounds[2] = self.bounds[2].max(imaxx);
        self.bounds[3] = self.bounds[3].max(imaxy);
        // Whether the box's cells keep their order as `i16` coordinates (no wrap), which the
        // items' same-id neighbours need.
        let keeps_order = |lo: i32, hi: i32| {
            i64::from(hi) - i64::from(lo) == i64::from(hi as i16) - i64::from(lo as i16)
        };
        let contiguous = keeps_order(iminx, imaxx) && keeps_order(iminy, imaxy);
        for y in iminy..=imaxy {
            for x in iminx..=imaxx {
                if self.pool.len() >= self.pool_size {
                    return;
                }
                let (same_id_left, same_id_below) =
                    (contiguous && x > iminx, contiguous && y > iminy);
                let (x, y) = (x as i16, y as i16);
                let h = hash_pos(x, y, self.buckets.len());
                let index = self.pool.len() as u32;
                self.pool.push(Item {
                    id,
                    next: self.buckets[h],
                    cell: cell_key(x, y),
                    same_id_left,
                    same_id_below,
                });
                self.buckets[h] = index;
                self.occupied[(y & 63) as usize] |= 1 << (x & 63);
            }
        }
    }

    /// The items of bucket chain `h`, newest first.
    fn chain(&self, h: usize) -> impl Iterator<Item = &Item> + '_ {
        let mut next = self.buckets[h];
        std::iter::from_fn(move || {
            let item = self.pool.get(next as usize)?;
            next = item.next;
            Some(item)
        })
    }

    /// The distinct ids in the cells the box overlaps, written to `ids` in Detour's order
    /// (cells by row, then each cell's items newest first); returns how many. Stops when
    /// `ids` is full.
    ///
    /// Cells outside the `i16` range are skipped, as no item can match them, and so are cells
    /// that the occupancy bits rule out, which are never visited. An item whose left or lower
    /// neighbour cell holds the same `add_item` is of an id found already when the walk has
    /// met that cell; any other id is looked for among those already found only when its
    /// bit in a 64-bit summary of them is set, searching newest first.
    pub fn query_items(
        &self,
        minx: f32,
        miny: f32,
        maxx: f32,
        maxy: f32,
        ids: &mut [u32],
    ) -> usize {
        let i16_range =
            |lo: i32, hi: i32| (lo.max(i32::from(i16::MIN)), hi.min(i32::from(i16::MAX)) + 1);
        let (x0, x1) = i16_range(self.cell(minx), self.cell(maxx));
        let (y0, y1) = i16_range(self.cell(miny), self.cell(maxy));
        let (pool, buckets) = (self.pool.as_slice(), self.buckets.as_slice());
        let mask = buckets.len() as i32 - 1;
        let mut n = 0;
        let mut seen = 0u64;
        for y in y0..y1 {
            let row = self.occupied[(y & 63) as usize];
            if row == 0 {
                continue;
            }
            let hy = y.wrapping_mul(HASH_Y);
            // The row's cells in runs of at most 64, each run's occupancy bits rotated so
            // that bit `k` is cell `start + k`: only the cells whose bit is set are visited.
            for start in (x0..x1).step_by(64) {
                let width = (x1 - start).min(64) as u32;
                let mut cells = row.rotate_right((start & 63) as u32) & (u64::MAX >> (64 - width));
                while cells != 0 {
                    let x = start + cells.trailing_zeros() as i32;
                    cells &= cells - 1;
                    let h = ((x.wrapping_mul(HASH_X) ^ hy) & mask) as usize;
                    let mut next = buckets[h];
                    let key = cell_key(x as i16, y as i16);
                    while let Some(item) = pool.get(next as usize) {
                        next = item.next;
                        if item.cell != key {
                            continue;
                        }
                        // The cell left of this one (when x > x0) or below it (when y > y0) is
                        // in the queried range and comes first: its item of the same
                        // `add_item` has given this id already.
                        if (item.same_id_left && x > x0) || (item.same_id_below && y > y0) {
                            continue;
                        }
                        let bit = 1u64 << (item.id & 63);
                        if seen & bit != 0 && ids[..n].iter().rev().any(|&id| id == item.id) {
                            continue;
                        }
                        if n >= ids.len() {
                            return n;
                        }
                        ids[n] = item.id;
                        n += 1;
                        seen |= bit;
                    }
                }
            }
        }
        n
    }

    /// How many items lie in cell (`x`, `y`), for drawing the grid (`getItemCountAt`).
    pub fn item_count_at(&self, x: i32, y: i32) -> usize {
        let (Ok(x), Ok(y)) = (i16::try_from(x), i16::try_from(y)) else {
            return 0;
        };
        let key = cell_key(x, y);
        self.chain(hash_pos(x, y, self.buckets.len()))
            .filter(|item| item.cell == key)
            .count()
    }

    /// The cells touched since the last clear: min x, min y, max x, max y (`getBounds`).
    /// After a clear it is the empty range (0xffff, 0xffff, -0xffff, -0xffff).
    pub fn bounds(&self) -> [i32; 4] {
        self.bounds
    }

    /// The grid's cell size, world units.
    pub fn cell_size(&self) -> f32 {
        self.cell_size
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid() -> ProximityGrid {
        ProximityGrid::new(16, 1.0).expect("valid parameters")
    }

    fn query(g: &ProximityGrid, minx: f32, miny: f32, maxx: f32, maxy: f32) -> Vec<u32> {
        let mut ids = [0u32; 32];
        let n = g.query_items(minx, miny, maxx, maxy, &mut ids);
        ids[..n].to_vec()
    }

    #[test]
    fn rejects_bad_parameters() {
        assert!(ProximityGrid::new(0, 1.0).is_err());
        assert!(ProximityGrid::new(MAX_POOL_SIZE + 1, 1.0).is_err());
        assert!(ProximityGrid::new(4, 0.0).is_err());
        assert!(ProximityGrid::new(4, f32::NAN).is_err());
    }

    #[test]
    fn hash_matches_cpp() {
        // ((x*73856093) ^ (y*19349663)) & (n-1), with 32-bit wrapping products.
        assert_eq!(hash_pos(0, 0, 16), 0);
        assert_eq!(hash_pos(1, 0, 16), (73_856_093 & 15) as usize);
        assert_eq!(hash_pos(0, 1, 16), (19_349_663 & 15) as usize);
        let (x, y) = (1000i16, -7i16);
        let expected = ((i32::from(x).wrapping_mul(73_856_093)
            ^ i32::from(y).wrapping_mul(19_349_663))
            & 255) as usize;
        assert_eq!(hash_pos(x, y, 256), expected);
    }

    /// `dtProximityGrid` as C++ writes it: next-power-of-two buckets hashed by the real cell,
    /// items keeping `i16` coordinates, chains filtered by `(int)item.x == x`.
    fn cpp_query(
        items: &[(u16, [f32; 4])],
        pool_size: usize,
        cell_size: f32,
        q: [f32; 4],
        max_ids: usize,
    ) -> Vec<u16> {
        let inv = 1.0 / cell_size;
        let cell = |v: f32| floor_to_i32_like_x86(v * inv);
        let nb = next_pow2(pool_size as u32) as i32;
        let hash = |x: i32, y: i32| {
            ((x.wrapping_mul(HASH_X) ^ y.wrapping_mul(HASH_Y)) & (nb - 1)) as usize
        };
        let mut buckets = vec![0xffffu16; nb as usize];
        let mut pool: Vec<(u16, i16, i16, u16)> = Vec::new();
        'items: for &(id, b) in items {
            for y in cell(b[1])..=cell(b[3]) {
                for x in cell(b[0])..=cell(b[2]) {
                    if pool.len() >= pool_size {
                        break 'items;
                    }
                    let h = hash(x, y);
                    pool.push((id, x as i16, y as i16, buckets[h]));
                    buckets[h] = (pool.len() - 1) as u16;
                }
            }
        }
        let mut ids = Vec::new();
        for y in cell(q[1])..=cell(q[3]) {
            for x in cell(q[0])..=cell(q[2]) {
                let mut idx = buckets[hash(x, y)];
                while idx != 0xffff {
                    let (id, ix, iy, next) = pool[usize::from(idx)];
                    if i32::from(ix) == x && i32::from(iy) == y && !ids.contains(&id) {
                        if ids.len() >= max_ids {
                            return ids;
                        }
                        ids.push(id);
                    }
                    idx = next;
                }
            }
        }
        ids
    }

    #[test]
    fn queries_match_cpps_grid() {
        // A small LCG, so the boxes are the same every run.
        let mut x = 12345u32;
        let mut rnd = |scale: f32| {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (x >> 8) as f32 / 16_777_216.0 * scale
        };
        for (pool_size, count, spread, max_ids) in [
            (16, 10, 6.0, 32),
            (64, 40, 12.0, 8),
            (512, 128, 40.0, 32),
            (7, 9, 3.0, 4),
        ] {
            let mut g = ProximityGrid::new(pool_size, 1.0).expect("valid parameters");
            let mut items = Vec::new();
            for id in 0..count {
                let (cx, cy, r) = (
                    rnd(spread) - spread / 2.0,
                    rnd(spread) - spread / 2.0,
                    rnd(1.0),
                );
                let b = [cx - r, cy - r, cx + r, cy + r];
                // Ids above 63 share summary bits with lower ones.
                let id = (id * 37 % 200) as u16;
                g.add_item(u32::from(id), b[0], b[1], b[2], b[3]);
                items.push((id, b));
            }
            for _ in 0..50 {
                let (cx, cy, r) = (
                    rnd(spread) - spread / 2.0,
                    rnd(spread) - spread / 2.0,
                    rnd(5.0),
                );
                let q = [cx - r, cy - r, cx + r, cy + r];
                let mut ids = vec![0u32; max_ids];
                let n = g.query_items(q[0], q[1], q[2], q[3], &mut ids);
                let cpp: Vec<u32> = cpp_query(&items, pool_size, 1.0, q, max_ids)
                    .into_iter()
                    .map(u32::from)
                    .collect();
                assert_eq!(ids[..n], cpp[..], "{q:?}");
            }
        }
    }

    #[test]
    fn far_cells_wrap_onto_near_ones_as_in_cpp() {
        // Cell 65539 keeps x = 3 and hashes to cell 3's bucket, so C++ finds it there.
        let mut g = grid();
        g.add_item(6, 65_539.5, 0.5, 65_539.5, 0.5);
        assert_eq!(query(&g, 3.5, 0.5, 3.5, 0.5), [6]);
        assert_eq!(g.item_count_at(3, 0), 1);
        assert_eq!(g.item_count_at(65_539, 0), 0);
        let items = [(6, [65_539.5, 0.5, 65_539.5, 0.5])];
        assert_eq!(cpp_query(&items, 16, 1.0, [3.5, 0.5, 3.5, 0.5], 32), [6]);
    }

    #[test]
    fn repeated_ids_and_wrapping_boxes_are_reported_as_in_cpp() {
        // An id added twice over overlapping boxes, and a box across the i16 wrap, whose
        // cells 32 767 and 32 768 (= -32 768) do not neighbour each other as i16.
        let items = [
            (4, [0.5, 0.5, 2.5, 1.5]),
            (9, [1.5, 0.5, 1.5, 2.5]),
            (4, [1.2, 1.2, 3.5, 2.5]),
            (7, [32_767.5, 0.5, 32_768.5, 1.5]),
        ];
        let mut g = ProximityGrid::new(32, 1.0).expect("valid parameters");
        for &(id, b) in &items {
            g.add_item(u32::from(id), b[0], b[1], b[2], b[3]);
        }
        for q in [
            [0.0, 0.0, 4.0, 3.0],
            [1.5, 1.5, 3.0, 3.0],
            [2.5, 0.0, 2.9, 2.9],
            [-32_768.0, 0.0, -32_766.0, 2.0],
            [32_766.5, 1.5, 32_767.5, 1.5],
        ] {
            let cpp: Vec<u32> = cpp_query(&items, 32, 1.0, q, 32)
                .into_iter()
                .map(u32::from)
                .collect();
            assert_eq!(query(&g, q[0], q[1], q[2], q[3]), cpp, "{q:?}");
        }
    }

    #[test]
    fn newest_item_of_a_cell_comes_first() {
        let mut g = grid();
        g.add_item(1, 0.2, 0.2, 0.4, 0.4);
        g.add_item(2, 0.5, 0.5, 0.6, 0.6);
        assert_eq!(query(&g, 0.0, 0.0, 0.9, 0.9), [2, 1]);
        assert_eq!(g.item_count_at(0, 0), 2);
        assert_eq!(g.item_count_at(1, 0), 0);
    }

    #[test]
    fn cells_are_walked_by_row_and_ids_are_reported_once() {
        let mut g = grid();
        // id 5 covers cells (0,0) and (1,0); id 3 sits in (1,0) only; id 9 in (0,1).
        g.add_item(5, 0.5, 0.5, 1.5, 0.5);
        g.add_item(3, 1.2, 0.2, 1.3, 0.3);
        g.add_item(9, 0.1, 1.1, 0.2, 1.2);
        assert_eq!(query(&g, 0.0, 0.0, 1.9, 1.9), [5, 3, 9]);
        assert_eq!(query(&g, 1.0, 0.0, 1.9, 0.9), [3, 5]);
        assert_eq!(g.bounds(), [0, 0, 1, 1]);
    }

    #[test]
    fn negative_coordinates_floor_down() {
        let mut g = grid();
        g.add_item(4, -0.5, -0.5, -0.1, -0.1);
        assert_eq!(g.item_count_at(-1, -1), 1);
        assert_eq!(query(&g, -0.9, -0.9, -0.8, -0.8), [4]);
        assert!(query(&g, 0.0, 0.0, 0.5, 0.5).is_empty());
    }

    #[test]
    fn query_stops_when_the_buffer_is_full() {
        let mut g = grid();
        for id in 0..4 {
            g.add_item(id, 0.5, 0.5, 0.5, 0.5);
        }
        let mut ids = [0u32; 2];
        assert_eq!(g.query_items(0.0, 0.0, 1.0, 1.0, &mut ids), 2);
        assert_eq!(ids, [3, 2]);
    }

    #[test]
    fn pools_past_detours_unsigned_short_keep_every_item_and_id() {
        // 70 000 agents' four cells each: past both C++'s item numbering and its ids.
        let agents = 70_000u32;
        let mut g = ProximityGrid::new(agents as usize * 4, 1.0).expect("valid parameters");
        for id in 0..agents {
            let x = (id % 300) as f32 * 3.0 + 0.5;
            let y = (id / 300) as f32 * 3.0 + 0.5;
            g.add_item(id, x, y, x + 1.0, y + 1.0);
        }
        let last = agents - 1;
        let (x, y) = ((last % 300) as f32 * 3.0, (last / 300) as f32 * 3.0);
        assert_eq!(query(&g, x + 0.6, y + 0.6, x + 1.4, y + 1.4), [last]);
        assert_eq!(g.item_count_at(x as i32 + 1, y as i32 + 1), 1);
        assert_eq!(query(&g, 0.6, 0.6, 1.4, 1.4), [0]);
    }

    #[test]
    fn full_pool_drops_cells_but_keeps_bounds() {
        let mut g = ProximityGrid::new(2, 1.0).expect("valid parameters");
        // Three cells, room for two.
        g.add_item(7, 0.5, 0.5, 2.5, 0.5);
        assert_eq!(g.item_count_at(0, 0), 1);
        assert_eq!(g.item_count_at(1, 0), 1);
        assert_eq!(g.item_count_at(2, 0), 0);
        assert_eq!(g.bounds(), [0, 0, 2, 0]);
        g.clear();
        assert_eq!(g.bounds(), [0xffff, 0xffff, -0xffff, -0xffff]);
        assert!(query(&g, 0.0, 0.0, 3.0, 1.0).is_empty());
        g.add_item(8, 0.5, 0.5, 0.5, 0.5);
        assert_eq!(query(&g, 0.0, 0.0, 1.0, 1.0), [8]);
    }

    #[test]
    fn non_finite_boxes_land_where_cpp_puts_them() {
        // NaN maps to cell i32::MIN, whose hash is 0 and whose i16 coordinates are 0: the
        // item is found in cell (0, 0), as in C++.
        let mut g = grid();
        g.add_item(1, f32::NAN, f32::NAN, f32::NAN, f32::NAN);
        assert_eq!(g.item_count_at(i32::MIN, i32::MIN), 0);
        assert_eq!(g.item_count_at(0, 0), 1);
        assert_eq!(query(&g, 0.5, 0.5, 0.5, 0.5), [1]);
        assert!(
            query(
                &g,
                f32::INFINITY,
                f32::INFINITY,
                f32::INFINITY,
                f32::INFINITY
            )
            .is_empty()
        );
    }
}
