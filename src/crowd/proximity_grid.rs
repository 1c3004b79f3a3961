//! A spatial hash of agent ids over an xz grid (`dtProximityGrid`), rebuilt every crowd update
//! to find each agent's neighbours.
//!
//! The hash, the bucket chains (newest item first) and the cell walk are Detour's, so a query
//! returns ids in C++'s order; the crowd's neighbour lists, and through them every later
//! step, depend on that order.

use crate::detour::common::{floor_to_i32_like_x86, next_pow2};
use crate::detour::query::Status;

/// Marks the end of a bucket chain and an empty bucket.
const END_OF_CHAIN: u16 = 0xffff;
/// Items are numbered by `u16` and `END_OF_CHAIN` is taken, so a pool holds at most this many.
pub const MAX_POOL_SIZE: usize = 0xffff;

/// One id in one cell. Cell coordinates are kept as `i16`, as C++ does, so far-away cells
/// wrap exactly as they do there.
#[derive(Clone, Copy, Debug)]
struct Item {
    id: u16,
    x: i16,
    y: i16,
    next: u16,
}

/// Ids of boxes in an xz grid of square cells, hashed into a fixed number of buckets.
#[derive(Clone, Debug)]
pub struct ProximityGrid {
    cell_size: f32,
    inv_cell_size: f32,
    /// The items added since the last clear; its capacity is the pool size and never grows.
    pool: Vec<Item>,
    pool_size: usize,
    /// The newest item of each bucket's chain.
    buckets: Vec<u16>,
    /// Cells touched since the last clear: min x, min y, max x, max y.
    bounds: [i32; 4],
}

/// Detour's cell hash (`hashPos2`), with C++'s wrapping `int` products.
#[inline]
fn hash_pos(x: i32, y: i32, bucket_count: usize) -> usize {
    let mask = bucket_count as i32 - 1;
    ((x.wrapping_mul(73_856_093) ^ y.wrapping_mul(19_349_663)) & mask) as usize
}

impl ProximityGrid {
    /// A grid of `cell_size` cells with room for `pool_size` (id, cell) items and the next
    /// power of two of buckets (`dtProximityGrid::init`). `pool_size` must be
    /// 1..=[`MAX_POOL_SIZE`] and `cell_size` positive and finite, otherwise
    /// `FAILURE | INVALID_PARAM`.
    pub fn new(pool_size: usize, cell_size: f32) -> Result<ProximityGrid, Status> {
        if pool_size == 0
            || pool_size > MAX_POOL_SIZE
            || !(cell_size > 0.0 && cell_size.is_finite())
        {
            return Err(Status::invalid_param());
        }
        let bucket_count = next_pow2(pool_size as u32) as usize;
        let mut grid = ProximityGrid {
            cell_size,
            inv_cell_size: 1.0 / cell_size,
            pool: Vec::with_capacity(pool_size),
            pool_size,
            buckets: vec![END_OF_CHAIN; bucket_count],
            bounds: [0; 4],
        };
        grid.clear();
        Ok(grid)
    }

    /// Removes every item.
    pub fn clear(&mut self) {
        self.buckets.fill(END_OF_CHAIN);
        self.pool.clear();
        self.bounds = [0xffff, 0xffff, -0xffff, -0xffff];
    }

    /// The cell a coordinate falls in, as C++'s `(int)floorf(v * invCellSize)`.
    #[inline]
    fn cell(&self, v: f32) -> i32 {
        floor_to_i32_like_x86(v * self.inv_cell_size)
    }

    /// Adds `id` to every cell the box `[minx, maxx] × [miny, maxy]` (xz) overlaps. Cells past
    /// the pool's room are silently dropped, as in C++; the bounds still grow.
    pub fn add_item(&mut self, id: u16, minx: f32, miny: f32, maxx: f32, maxy: f32) {
        let (iminx, iminy) = (self.cell(minx), self.cell(miny));
        let (imaxx, imaxy) = (self.cell(maxx), self.cell(maxy));
        self.bounds[0] = self.bounds[0].min(iminx);
        self.bounds[1] = self.bounds[1].min(iminy);
        self.bounds[2] = self.bounds[2].max(imaxx);
        self.bounds[3] = self.bounds[3].max(imaxy);
        for y in iminy..=imaxy {
            for x in iminx..=imaxx {
                if self.pool.len() >= self.pool_size {
                    return;
                }
                let h = hash_pos(x, y, self.buckets.len());
                let index = self.pool.len() as u16;
                self.pool.push(Item {
                    id,
                    x: x as i16,
                    y: y as i16,
                    next: self.buckets[h],
                });
                self.buckets[h] = index;
            }
        }
    }

    /// The items of bucket chain `h`, newest first.
    fn chain(&self, h: usize) -> impl Iterator<Item = &Item> + '_ {
        let mut next = self.buckets[h];
        std::iter::from_fn(move || {
            let item = self.pool.get(usize::from(next))?;
            next = item.next;
            Some(item)
        })
    }

    /// The distinct ids in the cells the box overlaps, written to `ids` in Detour's order
    /// (cells by row, then each bucket's chain); returns how many. Stops when `ids` is full.
    pub fn query_items(
        &self,
        minx: f32,
        miny: f32,
        maxx: f32,
        maxy: f32,
        ids: &mut [u16],
    ) -> usize {
        let (iminx, iminy) = (self.cell(minx), self.cell(miny));
        let (imaxx, imaxy) = (self.cell(maxx), self.cell(maxy));
        let mut n = 0;
        for y in iminy..=imaxy {
            for x in iminx..=imaxx {
                let h = hash_pos(x, y, self.buckets.len());
                for item in self.chain(h) {
                    if i32::from(item.x) != x || i32::from(item.y) != y {
                        continue;
                    }
                    if ids[..n].contains(&item.id) {
                        continue;
                    }
                    if n >= ids.len() {
                        return n;
                    }
                    ids[n] = item.id;
                    n += 1;
                }
            }
        }
        n
    }

    /// How many items lie in cell (`x`, `y`), for drawing the grid (`getItemCountAt`).
    pub fn item_count_at(&self, x: i32, y: i32) -> usize {
        self.chain(hash_pos(x, y, self.buckets.len()))
            .filter(|item| i32::from(item.x) == x && i32::from(item.y) == y)
            .count()
    }

    /// The cells touched since the last clear: min x, min y, max x, max y (`getBounds`).
    /// After a clear it is the empty range (0xffff, 0xffff, -0xffff, -0xffff).
    pub fn bounds(&self) -> [i32; 4] {
        self.bounds
    }

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

    fn query(g: &ProximityGrid, minx: f32, miny: f32, maxx: f32, maxy: f32) -> Vec<u16> {
        let mut ids = [0u16; 32];
        let n = g.query_items(minx, miny, maxx, maxy, &mut ids);
        ids[..n].to_vec()
    }

    #[test]
    fn rejects_bad_parameters() {
        assert!(ProximityGrid::new(0, 1.0).is_err());
        assert!(ProximityGrid::new(MAX_POOL_SIZE + 1, 1.0).is_err());
        assert!(ProximityGrid::new(4, 0.0).is_err());
        assert!(ProximityGrid::new(4, f32::NAN).is_err());
        assert!(ProximityGrid::new(MAX_POOL_SIZE, 1.0).is_ok());
    }

    #[test]
    fn hash_matches_cpp() {
        // ((x*73856093) ^ (y*19349663)) & (n-1), with 32-bit wrapping products.
        assert_eq!(hash_pos(0, 0, 16), 0);
        assert_eq!(hash_pos(1, 0, 16), (73_856_093 & 15) as usize);
        assert_eq!(hash_pos(0, 1, 16), (19_349_663 & 15) as usize);
        let x = 1000i32;
        let y = -7i32;
        let expected = ((x.wrapping_mul(73_856_093) ^ y.wrapping_mul(19_349_663)) & 255) as usize;
        assert_eq!(hash_pos(x, y, 256), expected);
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
        let mut ids = [0u16; 2];
        assert_eq!(g.query_items(0.0, 0.0, 1.0, 1.0, &mut ids), 2);
        assert_eq!(ids, [3, 2]);
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
