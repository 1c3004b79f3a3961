//! A rasterization's area bookkeeping, recorded so that the same heightfield can be given the
//! span areas of other triangle areas and climbs without clipping the triangles again.
//!
//! Where spans go, how they merge and which pool slot each lands in depend only on the
//! triangles, the grid and the cell sizes. Only the areas depend on the triangles' areas (the
//! slope limit) and on the climb: a merge keeps the larger area when the merged tops are within
//! the climb. The log keeps, for every span insertion in the order it happened, the triangle,
//! the slot it landed in and the spans it absorbed with the height gap of each; replaying it
//! with other areas and another climb gives exactly the pool areas a rasterization with them
//! would give, free slots included.

use crate::recast::context::BuildContext;
use crate::recast::heightfield::Heightfield;
use crate::recast::rasterize::{InsertionObserver, rasterize_parallel_observed};
use crate::recast::{Error, Result};
use crate::threads::prelude::*;

/// One span insertion: the triangle that made it, the pool slot (of its band) the merged span
/// landed in, and how many of the band's merges (the next ones in order) it absorbed.
#[derive(Clone, Copy, Debug)]
struct Insertion {
    triangle: u32,
    slot: u32,
    merges: u32,
}

/// A span absorbed by an insertion: its pool slot (of its band) and how far the merged top lies
/// above its own top.
#[derive(Clone, Copy, Debug)]
struct Merge {
    slot: u32,
    gap: u16,
}

/// The insertions of one band of rows, in the order they happened.
#[derive(Debug, Default)]
struct BandLog {
    /// The triangle being rasterized.
    triangle: u32,
    /// Merges seen since the last insertion landed.
    pending_merges: u32,
    insertions: Vec<Insertion>,
    merges: Vec<Merge>,
    /// Whether a log vector could not grow; the log is then unusable.
    out_of_memory: bool,
}

impl BandLog {
    fn push<T>(vec: &mut Vec<T>, value: T, out_of_memory: &mut bool) {
        if !*out_of_memory && crate::memory::try_grow_for_one(vec) {
            vec.push(value);
        } else {
            *out_of_memory = true;
        }
    }
}

impl InsertionObserver for BandLog {
    fn triangle(&mut self, index: u32) {
        self.triangle = index;
    }

    fn absorbed(&mut self, slot: u32, gap: u16) {
        Self::push(
            &mut self.merges,
            Merge { slot, gap },
            &mut self.out_of_memory,
        );
        self.pending_merges += 1;
    }

    fn placed(&mut self, slot: u32) {
        let insertion = Insertion {
            triangle: self.triangle,
            slot,
            merges: std::mem::take(&mut self.pending_merges),
        };
        Self::push(&mut self.insertions, insertion, &mut self.out_of_memory);
    }
}

/// How a rasterization settled its spans' areas, to give its heightfield the areas of other
/// triangle areas and climbs ([`AreaLog::replay`]).
#[derive(Debug)]
pub struct AreaLog {
    /// Each band's log with the pool index its slots start at, in band order.
    bands: Vec<(u32, BandLog)>,
    /// Triangles rasterized (an area is needed for each).
    triangles: usize,
    /// The pool size of the heightfield it was recorded on.
    pool_len: usize,
}

/// [`rasterize_triangles_parallel`](crate::recast::rasterize::rasterize_triangles_parallel),
/// the same heightfield, with the log of how its areas were settled.
pub fn rasterize_triangles_logged(
    ctx: &mut BuildContext,
    verts: &[f32],
    tris: &[i32],
    areas: &[u8],
    hf: &mut Heightfield,
    flag_merge_threshold: i32,
) -> Result<AreaLog> {
    let bands =
        rasterize_parallel_observed::<BandLog>(ctx, verts, tris, areas, hf, flag_merge_threshold)?;
    let log = AreaLog {
        bands,
        triangles: tris.len() / 3,
        pool_len: hf.pool.len(),
    };
    if log.bands.iter().any(|(_, band)| band.out_of_memory) {
        let bytes = log.bytes();
        return Err(Error::OutOfMemory(crate::memory::OutOfMemory {
            what: "the rasterization's area log".into(),
            bytes,
            limit: crate::memory::memory_limit().filter(|&limit| bytes > limit),
        }));
    }
    Ok(log)
}

impl AreaLog {
    /// Gives every pool slot of `hf` (the heightfield the log was recorded on, or a copy) the
    /// area a rasterization with `triangle_areas` and `flag_merge_threshold` would have given
    /// it. Bands replay on rayon's threads; each touches only its own slots.
    pub fn replay(
        &self,
        hf: &mut Heightfield,
        triangle_areas: &[u8],
        flag_merge_threshold: i32,
    ) -> Result<()> {
        if hf.pool.len() != self.pool_len || triangle_areas.len() < self.triangles {
            return Err(Error::Stage {
                stage: "replaying rasterized areas",
                message: format!(
                    "the log is of a pool of {} spans and {} triangles, not {} spans and {} triangle areas.",
                    self.pool_len,
                    self.triangles,
                    hf.pool.len(),
                    triangle_areas.len()
                ),
            });
        }
        // Cut the pool at the bands' offsets: band k owns slots offset_k..offset_(k+1).
        let mut parts = Vec::with_capacity(self.bands.len());
        let mut rest = hf.pool.as_mut_slice();
        for (k, (offset, band)) in self.bands.iter().enumerate() {
            let end = self
                .bands
                .get(k + 1)
                .map_or(self.pool_len, |(next, _)| *next as usize);
            let (part, tail) = rest.split_at_mut(end - *offset as usize);
            parts.push((part, band));
            rest = tail;
        }
        let replay_band = |(pool, band): (&mut [crate::recast::heightfield::Span], &BandLog)| {
            let mut merges = band.merges.iter();
            for insertion in &band.insertions {
                // Recast stores the area in 6 bits.
                let mut area = triangle_areas[insertion.triangle as usize] & 0x3f;
                for merge in merges.by_ref().take(insertion.merges as usize) {
                    if i32::from(merge.gap) <= flag_merge_threshold {
                        area = area.max(pool[merge.slot as usize].area);
                    }
                }
                pool[insertion.slot as usize].area = area;
            }
        };
        if parts.len() > 1 {
            parts.into_par_iter().for_each(replay_band);
        } else {
            parts.into_iter().for_each(replay_band);
        }
        Ok(())
    }

    /// Bytes the log holds.
    pub fn bytes(&self) -> u64 {
        self.bands
            .iter()
            .map(|(_, band)| {
                crate::memory::bytes_of::<Insertion>(band.insertions.len())
                    + crate::memory::bytes_of::<Merge>(band.merges.len())
            })
            .sum()
    }
}
