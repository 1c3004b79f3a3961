//! Input triangles → solid heightfield (Recast's `RecastRasterization.cpp` and the triangle
//! helpers of `Recast.cpp`).
//!
//! Rasterization is conservative: every voxel column a triangle touches gets a span covering the
//! triangle's height range there. Triangles are clipped row by row and cell by cell with Recast's
//! own f32 arithmetic, so the spans equal C++'s exactly.

use std::cmp::Ordering;
use std::fmt::Display;
use std::ops::Range;

use crate::threads::prelude::*;

use crate::recast::parallel::Split;

use crate::math::{clamp_i32, fmax, fmin, vcross, vmax, vmin, vnormalize, vsub};
use crate::recast::context::{BuildContext, TimerLabel};
use crate::recast::heightfield::{Heightfield, NO_SPAN, SPAN_MAX_HEIGHT, Span};
use crate::recast::{Error, Result};
use crate::{recast::NULL_AREA, recast::WALKABLE_AREA};

/// Sets the area of every triangle whose slope is below `walkable_slope_angle` (degrees) to
/// [`WALKABLE_AREA`]; other triangles keep their area (Recast's `rcMarkWalkableTriangles`).
pub fn mark_walkable_triangles(
    ctx: &mut BuildContext,
    walkable_slope_angle: f32,
    verts: &[f32],
    tris: &[i32],
    areas: &mut [u8],
) -> Result<()> {
    const STAGE: &str = "rcMarkWalkableTriangles";
    check_triangle_arrays(ctx, STAGE, tris.len(), areas.len())?;
    let threshold = walkable_normal_y(walkable_slope_angle);
    for (t, (tri, area)) in tris.chunks_exact(3).zip(areas.iter_mut()).enumerate() {
        let [v0, v1, v2] = corners(ctx, STAGE, verts, tri, t)?;
        if face_normal(&v0, &v1, &v2)[1] > threshold {
            *area = WALKABLE_AREA;
        }
    }
    Ok(())
}

/// Sets the area of every triangle whose slope is `walkable_slope_angle` (degrees) or steeper to
/// [`NULL_AREA`]; other triangles keep their area (Recast's `rcClearUnwalkableTriangles`).
pub fn clear_unwalkable_triangles(
    ctx: &mut BuildContext,
    walkable_slope_angle: f32,
    verts: &[f32],
    tris: &[i32],
    areas: &mut [u8],
) -> Result<()> {
    const STAGE: &str = "rcClearUnwalkableTriangles";
    check_triangle_arrays(ctx, STAGE, tris.len(), areas.len())?;
    let threshold = walkable_normal_y(walkable_slope_angle);
    for (t, (tri, area)) in tris.chunks_exact(3).zip(areas.iter_mut()).enumerate() {
        let [v0, v1, v2] = corners(ctx, STAGE, verts, tri, t)?;
        if face_normal(&v0, &v1, &v2)[1] <= threshold {
            *area = NULL_AREA;
        }
    }
    Ok(())
}

/// Adds the span `heights` (voxel units, top exclusive) with `area` to column (`x`, `z`), merging
/// it with the spans it overlaps or touches (Recast's `rcAddSpan`). An empty or inverted span is
/// ignored with a warning.
pub fn add_span(
    ctx: &mut BuildContext,
    hf: &mut Heightfield,
    x: i32,
    z: i32,
    heights: Range<u16>,
    area: u8,
    flag_merge_threshold: i32,
) -> Result<()> {
    const STAGE: &str = "rcAddSpan";
    let Range {
        start: smin,
        end: smax,
    } = heights;
    if smin >= smax {
        ctx.warning("rcAddSpan: Adding a span with zero or negative size. Ignored.");
        return Ok(());
    }
    if x < 0 || z < 0 || x >= hf.width || z >= hf.height {
        let message = format!(
            "Column ({x}, {z}) is outside the {}x{} heightfield.",
            hf.width, hf.height
        );
        return Err(fail(ctx, STAGE, message));
    }
    if smax > SPAN_MAX_HEIGHT {
        let message = format!("Span top {smax} is above the limit {SPAN_MAX_HEIGHT}.");
        return Err(fail(ctx, STAGE, message));
    }
    let column = (x + z * hf.width) as usize;
    insert_span(hf, column, smin, smax, area, flag_merge_threshold, &mut ())
        .map_err(|PoolFull| pool_full(ctx, STAGE, hf))
}

/// Rasterizes one triangle into the heightfield (Recast's `rcRasterizeTriangle`).
pub fn rasterize_triangle(
    ctx: &mut BuildContext,
    v0: &[f32; 3],
    v1: &[f32; 3],
    v2: &[f32; 3],
    area: u8,
    hf: &mut Heightfield,
    flag_merge_threshold: i32,
) -> Result<()> {
    ctx.start_timer(TimerLabel::RasterizeTriangles);
    let mut rasterizer = Rasterizer::new(hf);
    let result = rasterizer.triangle(hf, v0, v1, v2, area, flag_merge_threshold, &mut ());
    ctx.stop_timer(TimerLabel::RasterizeTriangles);
    result.map_err(|PoolFull| pool_full(ctx, "rcRasterizeTriangle", hf))
}

/// Rasterizes indexed triangles (`tris` holds three vertex indices per triangle, `areas` one
/// area id per triangle) into the heightfield (Recast's `rcRasterizeTriangles`).
///
/// A vertex index out of range is an error; the triangles before it stay rasterized.
pub fn rasterize_triangles(
    ctx: &mut BuildContext,
    verts: &[f32],
    tris: &[i32],
    areas: &[u8],
    hf: &mut Heightfield,
    flag_merge_threshold: i32,
) -> Result<()> {
    rasterize_indexed(ctx, verts, tris, areas, hf, flag_merge_threshold)
}

/// [`rasterize_triangles`] with 16-bit vertex indices.
pub fn rasterize_triangles_u16(
    ctx: &mut BuildContext,
    verts: &[f32],
    tris: &[u16],
    areas: &[u8],
    hf: &mut Heightfield,
    flag_merge_threshold: i32,
) -> Result<()> {
    rasterize_indexed(ctx, verts, tris, areas, hf, flag_merge_threshold)
}

/// Rasterizes an unindexed triangle list (nine floats per triangle) into the heightfield.
pub fn rasterize_triangle_soup(
    ctx: &mut BuildContext,
    verts: &[f32],
    areas: &[u8],
    hf: &mut Heightfield,
    flag_merge_threshold: i32,
) -> Result<()> {
    const STAGE: &str = "rcRasterizeTriangles";
    if !verts.len().is_multiple_of(9) || areas.len() < verts.len() / 9 {
        let message = format!(
            "{} floats do not make whole triangles with an area each ({} areas).",
            verts.len(),
            areas.len()
        );
        return Err(fail(ctx, STAGE, message));
    }
    ctx.start_timer(TimerLabel::RasterizeTriangles);
    let mut rasterizer = Rasterizer::new(hf);
    let result = verts
        .chunks_exact(9)
        .zip(areas)
        .try_for_each(|(tri, &area)| {
            let [v0, v1, v2] = [0, 3, 6].map(|i| [tri[i], tri[i + 1], tri[i + 2]]);
            rasterizer.triangle(hf, &v0, &v1, &v2, area, flag_merge_threshold, &mut ())
        });
    ctx.stop_timer(TimerLabel::RasterizeTriangles);
    result.map_err(|PoolFull| pool_full(ctx, STAGE, hf))
}

fn rasterize_indexed<I: Copy + TryInto<usize> + Display>(
    ctx: &mut BuildContext,
    verts: &[f32],
    tris: &[I],
    areas: &[u8],
    hf: &mut Heightfield,
    flag_merge_threshold: i32,
) -> Result<()> {
    const STAGE: &str = "rcRasterizeTriangles";
    check_triangle_arrays(ctx, STAGE, tris.len(), areas.len())?;
    ctx.start_timer(TimerLabel::RasterizeTriangles);
    let mut rasterizer = Rasterizer::new(hf);
    let mut result = Ok(());
    for (t, (tri, &area)) in tris.chunks_exact(3).zip(areas).enumerate() {
        let [v0, v1, v2] = match corners(ctx, STAGE, verts, tri, t) {
            Ok(corners) => corners,
            Err(e) => {
                result = Err(e);
                break;
            }
        };
        if rasterizer
            .triangle(hf, &v0, &v1, &v2, area, flag_merge_threshold, &mut ())
            .is_err()
        {
            result = Err(pool_full(ctx, STAGE, hf));
            break;
        }
    }
    ctx.stop_timer(TimerLabel::RasterizeTriangles);
    result
}

/// Fewest grid rows per band of [`rasterize_triangles_parallel`]: thinner bands would spend
/// more on clipping the rows before them than they save.
const MIN_BAND_ROWS: i32 = 32;

/// [`rasterize_triangles`] on rayon's threads, for a heightfield with no spans yet (spans
/// already there are an error).
///
/// The grid is cut into bands of rows, a few per thread; each band rasterizes, in input order,
/// every triangle reaching it into a heightfield of its own, so each column receives the same
/// spans in the same order as in one pass, and the bands' pools are joined in band order. The
/// columns are therefore the same whatever the number of threads; the pool's layout (which no
/// later stage reads) follows the bands, and on one thread it is [`rasterize_triangles`]'s.
pub fn rasterize_triangles_parallel(
    ctx: &mut BuildContext,
    verts: &[f32],
    tris: &[i32],
    areas: &[u8],
    hf: &mut Heightfield,
    flag_merge_threshold: i32,
) -> Result<()> {
    rasterize_parallel_observed::<()>(ctx, verts, tris, areas, hf, flag_merge_threshold).map(|_| ())
}

/// Sees how each span insertion of a rasterization settles its area (what [`insert_span`]
/// merges and where the result lands), so that the areas can be worked out again for other
/// triangle areas and climbs without clipping the triangles again (`recast::span_log`).
pub(crate) trait InsertionObserver: Default + Send {
    /// Triangle `index` (of the input's) is rasterized next.
    fn triangle(&mut self, index: u32);
    /// The span in pool slot `slot` merges into the span being inserted; `gap` is how far the
    /// merged top lies above that span's top (compared with the climb).
    fn absorbed(&mut self, slot: u32, gap: u16);
    /// The span being inserted lands in pool slot `slot` with the absorbed spans' extent.
    fn placed(&mut self, slot: u32);
}

/// The plain rasterization observes nothing.
impl InsertionObserver for () {
    #[inline(always)]
    fn triangle(&mut self, _: u32) {}
    #[inline(always)]
    fn absorbed(&mut self, _: u32, _: u16) {}
    #[inline(always)]
    fn placed(&mut self, _: u32) {}
}

/// [`rasterize_triangles_parallel`] telling an observer of each band what happens to spans'
/// areas; returns each band's observer with the pool index its spans start at, in band order.
pub(crate) fn rasterize_parallel_observed<O: InsertionObserver>(
    ctx: &mut BuildContext,
    verts: &[f32],
    tris: &[i32],
    areas: &[u8],
    hf: &mut Heightfield,
    flag_merge_threshold: i32,
) -> Result<Vec<(u32, O)>> {
    const STAGE: &str = "rcRasterizeTriangles";
    check_triangle_arrays(ctx, STAGE, tris.len(), areas.len())?;
    if !hf.pool.is_empty() {
        return Err(fail(
            ctx,
            STAGE,
            "the heightfield already has spans.".into(),
        ));
    }
    // The triangles before a bad index are rasterized, as in one pass.
    let valid = tris
        .chunks_exact(3)
        .position(|tri| corner_values(verts, tri).is_none())
        .unwrap_or(tris.len() / 3);
    ctx.start_timer(TimerLabel::RasterizeTriangles);
    let result = rasterize_bands(verts, &tris[..valid * 3], areas, hf, flag_merge_threshold);
    ctx.stop_timer(TimerLabel::RasterizeTriangles);
    let observers = match result {
        Ok(observers) => observers,
        Err(spans) => {
            ctx.error(format!("{STAGE}: Out of memory."));
            return Err(out_of_memory(hf, spans));
        }
    };
    match tris.chunks_exact(3).nth(valid) {
        Some(tri) => corners(ctx, STAGE, verts, tri, valid).map(|_| observers),
        None => Ok(observers),
    }
}

/// The bands of [`rasterize_triangles_parallel`], joined into `hf`, with each band's observer
/// and pool offset; on failure, the number of spans reached.
fn rasterize_bands<O: InsertionObserver>(
    verts: &[f32],
    tris: &[i32],
    areas: &[u8],
    hf: &mut Heightfield,
    flag_merge_threshold: i32,
) -> Result<Vec<(u32, O)>, usize> {
    let (w, h) = (hf.width.max(0), hf.height.max(0));
    // Every triangle in input order into `target` through `rasterizer`; on a full pool, the
    // spans reached. Indices were checked by the caller.
    let rasterize_all = |mut rasterizer: Rasterizer, target: &mut Heightfield| {
        let mut observer = O::default();
        for (index, (tri, &area)) in tris.chunks_exact(3).zip(areas).enumerate() {
            let [v0, v1, v2] = corner_values(verts, tri).unwrap_or_default();
            observer.triangle(index as u32);
            rasterizer
                .triangle(
                    target,
                    &v0,
                    &v1,
                    &v2,
                    area,
                    flag_merge_threshold,
                    &mut observer,
                )
                .map_err(|PoolFull| target.pool.len())?;
        }
        Ok::<O, usize>(observer)
    };
    // A few bands per thread even out bands of unequal work; a grid that does not split (see
    // `Split`) is taken whole, without asking rayon for its threads.
    let band_rows = if Split::for_cells(hf.columns.len()).is_parallel() {
        let threads = crate::threads::current_num_threads() as i32;
        ((h + threads * 4 - 1) / (threads * 4)).max(MIN_BAND_ROWS)
    } else {
        h
    };
    if band_rows >= h {
        return Ok(vec![(0, rasterize_all(Rasterizer::new(hf), hf)?)]);
    }
    let rasterize_band = |first_row: i32| -> Result<(Heightfield, O), usize> {
        let rows = band_rows.min(h - first_row);
        let mut band =
            Heightfield::try_new(w, rows, hf.bmin, hf.bmax, hf.cs, hf.ch).map_err(|_| 0usize)?;
        let observer = rasterize_all(Rasterizer::for_rows(&band, h, first_row), &mut band)?;
        Ok((band, observer))
    };
    let (bands, observers): (Vec<Heightfield>, Vec<O>) = (0..h)
        .step_by(band_rows as usize)
        .collect::<Vec<_>>()
        .into_par_iter()
        .map(rasterize_band)
        .collect::<Result<Vec<_>, _>>()?
        .into_iter()
        .unzip();

    // Band k's pool indices move up by the pool sizes of the bands before it.
    let mut offsets = Vec::with_capacity(bands.len());
    let mut total = 0usize;
    for band in &bands {
        offsets.push(total as u32);
        total += band.pool.len();
    }
    if total >= NO_SPAN as usize {
        return Err(total);
    }
    let moved = |index: u32, offset: u32| {
        if index == NO_SPAN {
            NO_SPAN
        } else {
            index + offset
        }
    };
    hf.columns
        .par_chunks_mut((band_rows * w).max(1) as usize)
        .zip(&bands)
        .zip(&offsets)
        .for_each(|((heads, band), &offset)| {
            for (head, &band_head) in heads.iter_mut().zip(&band.columns) {
                *head = moved(band_head, offset);
            }
        });
    // The pools follow each other in band order (the first band's becomes the whole pool), and
    // so do the free lists.
    let mut pool: Vec<Span> = Vec::new();
    let (mut free_head, mut free_tail): (u32, Option<usize>) = (NO_SPAN, None);
    for (band, &offset) in bands.into_iter().zip(&offsets) {
        if pool.is_empty() {
            pool = band.pool;
        } else {
            pool.extend(band.pool.iter().map(|span| Span {
                next: moved(span.next, offset),
                ..*span
            }));
        }
        pool.try_reserve_exact(total - pool.len())
            .map_err(|_| total)?;
        let head = moved(band.free_head, offset);
        if head != NO_SPAN {
            match free_tail {
                None => free_head = head,
                Some(tail) => pool[tail].next = head,
            }
            let mut tail = head as usize;
            while pool[tail].next != NO_SPAN {
                tail = pool[tail].next as usize;
            }
            free_tail = Some(tail);
        }
    }
    hf.pool = pool;
    hf.free_head = free_head;
    Ok(offsets.into_iter().zip(observers).collect())
}

/// The span pool cannot take another span: it would not fit in memory, or its `u32` indices
/// are used up (Recast runs out of memory there).
#[derive(Debug)]
struct PoolFull;

/// Logs Recast's out-of-memory error and reports how large the span pool has grown.
fn pool_full(ctx: &mut BuildContext, stage: &'static str, hf: &Heightfield) -> Error {
    ctx.error(format!("{stage}: Out of memory."));
    out_of_memory(hf, hf.pool.len())
}

/// The error of a heightfield whose pool could not grow past `spans` spans (0 when a band's
/// own grid could not be allocated before any span).
fn out_of_memory(hf: &Heightfield, spans: usize) -> Error {
    let bytes = crate::memory::bytes_of::<Span>(spans.saturating_mul(2))
        .saturating_add(crate::memory::bytes_of::<u32>(hf.columns.len()));
    let reached = if spans > 0 {
        format!(", past {spans} spans,")
    } else {
        String::new()
    };
    Error::OutOfMemory(crate::memory::OutOfMemory {
        what: format!(
            "the heightfield of {} x {} cells{reached}",
            hf.width, hf.height
        ),
        bytes,
        limit: crate::memory::memory_limit().filter(|&limit| bytes > limit),
    })
}

/// Logs `stage: message` as an error and builds the matching error value.
fn fail(ctx: &mut BuildContext, stage: &'static str, message: String) -> Error {
    ctx.error(format!("{stage}: {message}"));
    Error::Stage { stage, message }
}

/// Checks that `tris` holds whole triangles and `areas` has an entry for each.
fn check_triangle_arrays(
    ctx: &mut BuildContext,
    stage: &'static str,
    index_count: usize,
    area_count: usize,
) -> Result<()> {
    if !index_count.is_multiple_of(3) || area_count < index_count / 3 {
        let message = format!(
            "{index_count} vertex indices do not make whole triangles with an area each ({area_count} areas)."
        );
        return Err(fail(ctx, stage, message));
    }
    Ok(())
}

/// The corners of triangle number `t` (indices `tri`), or an error naming a bad index.
fn corners<I: Copy + TryInto<usize> + Display>(
    ctx: &mut BuildContext,
    stage: &'static str,
    verts: &[f32],
    tri: &[I],
    t: usize,
) -> Result<[[f32; 3]; 3]> {
    match corner_values(verts, tri) {
        Some(corners) => Ok(corners),
        None => {
            let message = format!(
                "Triangle {t} ({}, {}, {}) refers to a vertex outside 0..{}.",
                tri[0],
                tri[1],
                tri[2],
                verts.len() / 3
            );
            Err(fail(ctx, stage, message))
        }
    }
}

/// The corners of the triangle with indices `tri`, or `None` when one is out of range.
pub(crate) fn corner_values<I: Copy + TryInto<usize>>(
    verts: &[f32],
    tri: &[I],
) -> Option<[[f32; 3]; 3]> {
    let corner = |index: I| -> Option<[f32; 3]> {
        let i: usize = index.try_into().ok()?;
        let v = verts.get(i.checked_mul(3)?..)?.get(..3)?;
        Some([v[0], v[1], v[2]])
    };
    Some([corner(tri[0])?, corner(tri[1])?, corner(tri[2])?])
}

/// The smallest normal y of a walkable triangle: cos of the slope limit.
pub(crate) fn walkable_normal_y(walkable_slope_angle: f32) -> f32 {
    (walkable_slope_angle / 180.0 * std::f32::consts::PI).cos()
}

/// The unit normal of a triangle: `(v1 - v0) × (v2 - v0)`, normalised.
pub(crate) fn face_normal(v0: &[f32; 3], v1: &[f32; 3], v2: &[f32; 3]) -> [f32; 3] {
    let mut normal = vcross(&vsub(v1, v0), &vsub(v2, v0));
    vnormalize(&mut normal);
    normal
}

/// Inserts a span into a column, merging every span it overlaps or touches. When the merged tops
/// are within `flag_merge_threshold` the larger area id wins; otherwise the new span's area does.
///
/// The merged span takes the pool slot of the first span it absorbs, which saves a free and an
/// allocation in the common case of one overlap.
/// Inlined into the rasterizer's cell loop: a call per cell cost more than the merge itself.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn insert_span<O: InsertionObserver>(
    hf: &mut Heightfield,
    column: usize,
    smin: u16,
    smax: u16,
    area: u8,
    flag_merge_threshold: i32,
    observer: &mut O,
) -> Result<(), PoolFull> {
    // Recast stores the area in 6 bits.
    let mut new = Span {
        smin,
        smax,
        area: area & 0x3f,
        next: NO_SPAN,
    };
    // Skip the spans entirely below the new one.
    let mut previous = NO_SPAN;
    let mut current = hf.columns[column];
    while current != NO_SPAN {
        let span = hf.pool[current as usize];
        if span.smax >= new.smin {
            break;
        }
        previous = current;
        current = span.next;
    }
    // Absorb the spans it overlaps or touches.
    let mut slot = NO_SPAN;
    while current != NO_SPAN {
        let span = hf.pool[current as usize];
        if span.smin > new.smax {
            break;
        }
        new.smin = new.smin.min(span.smin);
        new.smax = new.smax.max(span.smax);
        if (i32::from(new.smax) - i32::from(span.smax)).abs() <= flag_merge_threshold {
            new.area = new.area.max(span.area);
        }
        observer.absorbed(current, new.smax - span.smax);
        if slot == NO_SPAN {
            slot = current;
        } else {
            hf.free_span(current);
        }
        current = span.next;
    }
    new.next = current;
    let index = if slot != NO_SPAN {
        hf.pool[slot as usize] = new;
        slot
    } else if hf.free_head != NO_SPAN {
        hf.alloc_span(new)
    } else if hf.make_room_for_span() {
        hf.pool.push(new);
        (hf.pool.len() - 1) as u32
    } else {
        return Err(PoolFull);
    };
    observer.placed(index);
    if previous == NO_SPAN {
        hf.columns[column] = index;
    } else {
        hf.pool[previous as usize].next = index;
    }
    Ok(())
}

/// Recast's `dividePoly` accepts at most this many vertices; longer inputs (which C++ would
/// overflow its buffers on) are cut to this length.
const MAX_CLIP_INPUT: usize = 12;
/// Clip buffer length: a power of two above the most a split can emit per side (two per input
/// vertex), so masking an index with `CLIP_MASK` keeps it in bounds without changing it.
const CLIP_BUFFER: usize = 32;
const CLIP_MASK: usize = CLIP_BUFFER - 1;

/// Polygon vertices as (x, y, z).
type Poly3 = [[f32; 3]; CLIP_BUFFER];
/// Polygon vertices as (x, y): within a row, z is never read again.
type Poly2 = [[f32; 2]; CLIP_BUFFER];

/// Per-heightfield constants and clipping buffers, reused across triangles.
struct Rasterizer {
    bmin: [f32; 3],
    bmax: [f32; 3],
    cs: f32,
    inverse_cs: f32,
    inverse_ch: f32,
    /// Rows of the whole grid: triangles are clipped against all of them.
    grid_height: i32,
    /// The grid row of the target heightfield's first row (non-zero for a band of rows).
    first_row: i32,
    /// The triangle part not yet cut into rows (current and next).
    remaining: [Poly3; 2],
    /// The part of the current row not yet cut into cells (current and next).
    rows: [Poly2; 2],
}

impl Rasterizer {
    fn new(hf: &Heightfield) -> Self {
        Self::for_rows(hf, hf.height, 0)
    }

    /// A rasterizer into `band`, which holds rows `first_row..` of a grid of `grid_height`
    /// rows with `band`'s bounds and cell sizes.
    fn for_rows(band: &Heightfield, grid_height: i32, first_row: i32) -> Self {
        Self {
            bmin: band.bmin,
            bmax: band.bmax,
            cs: band.cs,
            inverse_cs: 1.0 / band.cs,
            inverse_ch: 1.0 / band.ch,
            grid_height,
            first_row,
            remaining: [[[0.0; 3]; CLIP_BUFFER]; 2],
            rows: [[[0.0; 2]; CLIP_BUFFER]; 2],
        }
    }

    /// Clips the triangle into each grid cell it touches and adds one span per cell
    /// (Recast's `rasterizeTri`).
    ///
    /// The clipping is Recast's `dividePoly`, computing the same values in the same order, but
    /// split in two: rows keep only the x and y their cells need, and a cell only yields its
    /// height range, since nothing else of it is used.
    #[allow(clippy::too_many_arguments)]
    fn triangle<O: InsertionObserver>(
        &mut self,
        hf: &mut Heightfield,
        v0: &[f32; 3],
        v1: &[f32; 3],
        v2: &[f32; 3],
        area: u8,
        flag_merge_threshold: i32,
        observer: &mut O,
    ) -> Result<(), PoolFull> {
        let (w, h) = (hf.width, self.grid_height);
        let first_row = self.first_row;
        if w <= 0 || h <= 0 || hf.height <= 0 {
            return Ok(());
        }
        let (bmin, bmax, cs) = (self.bmin, self.bmax, self.cs);
        let (inverse_cs, inverse_ch) = (self.inverse_cs, self.inverse_ch);

        let (mut tri_min, mut tri_max) = (*v0, *v0);
        vmin(&mut tri_min, v1);
        vmin(&mut tri_min, v2);
        vmax(&mut tri_max, v1);
        vmax(&mut tri_max, v2);
        if !overlap_bounds(&tri_min, &tri_max, &bmin, &bmax) {
            return Ok(());
        }
        let heights = SpanHeights {
            bottom: bmin[1],
            by: bmax[1] - bmin[1],
            inverse_ch,
            area,
            flag_merge_threshold,
        };

        // Row -1 is clipped too, so that the part before the grid is cut off properly.
        let z0 = clamp_i32(((tri_min[2] - bmin[2]) * inverse_cs) as i32, -1, h - 1);
        // Rows past the target's are not needed; the ones before it are clipped (and skipped)
        // so that the target's rows get the very values a whole-grid pass gives them.
        let z1 = clamp_i32(((tri_max[2] - bmin[2]) * inverse_cs) as i32, 0, h - 1)
            .min(first_row + hf.height - 1);

        let [remaining, next_remaining] = &mut self.remaining;
        let (mut remaining, mut next_remaining) = (remaining, next_remaining);
        let [row, row_rest] = &mut self.rows;
        let (mut row, mut row_rest) = (row, row_rest);
        remaining[0] = *v0;
        remaining[1] = *v1;
        remaining[2] = *v2;
        let mut remaining_count = 3;

        let mut remaining_shape: Option<CutShape> = None;
        for z in z0..=z1 {
            let cell_z = bmin[2] + z as f32 * cs;
            let offset = cell_z + cs;
            let row_count = match remaining_shape
                .as_ref()
                .and_then(|s| s.cut_row(remaining, offset, row))
            {
                Some(row_count) => row_count,
                None => {
                    // The shape only pays off with at least two more cuts to come.
                    let (row_count, rest_count, shape) = if z + 2 <= z1 {
                        split_row::<true>(remaining, remaining_count, offset, row, next_remaining)
                    } else {
                        split_row::<false>(remaining, remaining_count, offset, row, next_remaining)
                    };
                    std::mem::swap(&mut remaining, &mut next_remaining);
                    remaining_count = rest_count;
                    remaining_shape = shape;
                    row_count
                }
            };
            if row_count < 3 || z < first_row {
                continue;
            }

            let (mut min_x, mut max_x) = (row[0][0], row[0][0]);
            for v in &row[1..row_count.min(CLIP_BUFFER)] {
                if min_x > v[0] {
                    min_x = v[0];
                }
                if max_x < v[0] {
                    max_x = v[0];
                }
            }
            let x0 = ((min_x - bmin[0]) * inverse_cs) as i32;
            let x1 = ((max_x - bmin[0]) * inverse_cs) as i32;
            if x1 < 0 || x0 >= w {
                continue;
            }
            let x0 = clamp_i32(x0, -1, w - 1);
            let x1 = clamp_i32(x1, 0, w - 1);

            let row_start = (z - first_row) * w;
            let mut add_cell =
                |x: i32, cell: CellPart| add_cell_span(hf, observer, &heights, row_start, x, cell);
            // Cell x's cut lies at the cell's far side, as Recast computes it.
            let cut_at = |x: i32| bmin[0] + x as f32 * cs + cs;

            let mut row_count = row_count;
            let mut x = x0;
            while x <= x1 {
                let offset = cut_at(x);
                let whole = if x == x1 {
                    whole_cell(row, row_count, offset)
                } else {
                    None
                };
                let shape = match whole {
                    Some(cell) => {
                        add_cell(x, cell)?;
                        None
                    }
                    _ => {
                        // The shape only pays off with at least two more cuts to come.
                        let (cell, rest_shape) = if x + 2 <= x1 {
                            split_cell::<true>(row, row_count, offset, row_rest)
                        } else {
                            split_cell::<false>(row, row_count, offset, row_rest)
                        };
                        std::mem::swap(&mut row, &mut row_rest);
                        row_count = cell.rest_count;
                        add_cell(x, cell)?;
                        rest_shape
                    }
                };
                x += 1;
                let Some(shape) = shape else {
                    continue;
                };
                // While the cuts stay short of the run, only the two crossings move: they stay
                // in registers until the run is reached.
                let (entry_at, exit_at) = (shape.entry & CLIP_MASK, shape.exit & CLIP_MASK);
                let first = row[(shape.entry + 1) & CLIP_MASK];
                let last = row[shape.last & CLIP_MASK];
                let (mut entry, mut exit) = (row[entry_at], row[exit_at]);
                while x <= x1 {
                    let Some(cell) =
                        shape.advance_cell(&mut entry, &mut exit, &first, &last, cut_at(x))
                    else {
                        break;
                    };
                    add_cell(x, cell)?;
                    x += 1;
                }
                (row[entry_at], row[exit_at]) = (entry, exit);
            }
        }
        Ok(())
    }
}

/// What turns a cell's height range into a span: the heightfield's bottom and height, and the
/// triangle's area and merge threshold.
struct SpanHeights {
    bottom: f32,
    by: f32,
    inverse_ch: f32,
    area: u8,
    flag_merge_threshold: i32,
}

/// Adds the span of cell `x` of the row starting at column `row_start`: the height range of
/// the cell's part of the triangle (nothing for a cell of fewer than three corners, before the
/// grid, or wholly below or above the heightfield). Inlined into both of the rasterizer's cell
/// loops: a call per cell costs more than the span.
#[inline(always)]
fn add_cell_span<O: InsertionObserver>(
    hf: &mut Heightfield,
    observer: &mut O,
    heights: &SpanHeights,
    row_start: i32,
    x: i32,
    cell: CellPart,
) -> Result<(), PoolFull> {
    if cell.count < 3 || x < 0 {
        return Ok(());
    }
    let by = heights.by;
    let span_min = cell.min_y - heights.bottom;
    let span_max = cell.max_y - heights.bottom;
    if span_max < 0.0 || span_min > by {
        return Ok(());
    }
    let span_min = if span_min < 0.0 { 0.0 } else { span_min };
    let span_max = if span_max > by { by } else { span_max };

    let max_height = i32::from(SPAN_MAX_HEIGHT);
    let smin = clamp_i32(
        floor_non_negative(span_min * heights.inverse_ch),
        0,
        max_height,
    );
    let smax = clamp_i32(
        ceil_non_negative(span_max * heights.inverse_ch),
        smin + 1,
        max_height,
    );
    insert_span(
        hf,
        (x + row_start) as usize,
        smin as u16,
        smax as u16,
        heights.area,
        heights.flag_merge_threshold,
        observer,
    )
}

/// `x.floor() as i32` for `x >= 0` or NaN, where truncation is the floor; avoids a libm call
/// on targets without SSE4.1.
#[inline]
fn floor_non_negative(x: f32) -> i32 {
    x as i32
}

/// `x.ceil() as i32` for `x >= 0` or NaN, without a libm call.
#[inline]
fn ceil_non_negative(x: f32) -> i32 {
    let truncated = x as i32;
    if (truncated as f32) < x {
        truncated.saturating_add(1)
    } else {
        truncated
    }
}

fn overlap_bounds(amin: &[f32; 3], amax: &[f32; 3], bmin: &[f32; 3], bmax: &[f32; 3]) -> bool {
    amin[0] <= bmax[0]
        && amax[0] >= bmin[0]
        && amin[1] <= bmax[1]
        && amax[1] >= bmin[1]
        && amin[2] <= bmax[2]
        && amax[2] >= bmin[2]
}

/// Where polygon edge `b → a` crosses the split plane, given both vertices' signed distances
/// `db`, `da` to it (Recast's interpolation, component by component).
#[inline(always)]
fn crossing<const N: usize>(vb: &[f32; N], va: &[f32; N], db: f32, da: f32) -> [f32; N] {
    let s = db / (db - da);
    std::array::from_fn(|k| vb[k] + (va[k] - vb[k]) * s)
}

/// Splits polygon `input[..count]` at `z == offset` (Recast's `dividePoly` on the z axis): `row`
/// receives the part with z at most `offset` (as x, y), `rest` the other part. Vertices on the
/// plane go to both. Returns the two vertex counts, and the rest's [`CutShape`] when it has that
/// shape and `FIND_SHAPE` asks for it.
fn split_row<const FIND_SHAPE: bool>(
    input: &Poly3,
    count: usize,
    offset: f32,
    row: &mut Poly2,
    rest: &mut Poly3,
) -> (usize, usize, Option<CutShape>) {
    let n = count.min(MAX_CLIP_INPUT);
    let (mut row_count, mut rest_count) = (0, 0);
    let mut finder = ShapeFinder::new();
    // Walk the edges b → a, starting with the closing edge.
    let Some(last) = input[..n].last() else {
        return (0, 0, None);
    };
    let mut previous = last;
    let mut previous_delta = offset - previous[2];
    for va in &input[..n] {
        let da = offset - va[2];
        let (vb, db) = (previous, previous_delta);
        (previous, previous_delta) = (va, da);
        if (da >= 0.0) != (db >= 0.0) {
            let point = crossing(vb, va, db, da);
            row[row_count & CLIP_MASK] = [point[0], point[1]];
            row_count += 1;
            if FIND_SHAPE {
                finder.crossing(rest_count, da);
            }
            rest[rest_count & CLIP_MASK] = point;
            rest_count += 1;
            // The crossing is on both sides already; a vertex on the plane is not repeated.
            if da > 0.0 {
                row[row_count & CLIP_MASK] = [va[0], va[1]];
                row_count += 1;
            } else if da < 0.0 {
                if FIND_SHAPE {
                    finder.run_vertex(va[2]);
                }
                rest[rest_count & CLIP_MASK] = *va;
                rest_count += 1;
            }
        } else {
            if da >= 0.0 {
                row[row_count & CLIP_MASK] = [va[0], va[1]];
                row_count += 1;
                if da != 0.0 {
                    continue;
                }
                if FIND_SHAPE {
                    finder.vertex_on_cut();
                }
            }
            if FIND_SHAPE {
                finder.run_vertex(va[2]);
            }
            rest[rest_count & CLIP_MASK] = *va;
            rest_count += 1;
        }
    }
    let shape = if FIND_SHAPE {
        finder.shape(rest_count)
    } else {
        None
    };
    (row_count, rest_count, shape)
}

/// What [`split_cell`] keeps of the cell side of a split.
struct CellPart {
    /// Number of vertices of the cell polygon.
    count: usize,
    /// Lowest and highest vertex y, folded in vertex order with Recast's min/max.
    min_y: f32,
    max_y: f32,
    /// Number of vertices left in the row.
    rest_count: usize,
}

impl CellPart {
    /// A cell polygon of the vertex heights `ys`, in vertex order.
    fn of<const N: usize>(ys: [f32; N], rest_count: usize) -> Self {
        // Recast's fold from the first vertex.
        let (mut min_y, mut max_y) = (ys[0], ys[0]);
        for &y in &ys[1..] {
            min_y = fmin(min_y, y);
            max_y = fmax(max_y, y);
        }
        Self {
            count: N,
            min_y,
            max_y,
            rest_count,
        }
    }
}

/// The common shape of what is left of a polygon after a cut along one axis: the two points
/// where the cut crossed the polygon's edges and, between them, a run of the polygon's vertices
/// that lie beyond the cut (Recast's `dividePoly` leaves it so for a convex polygon whenever no
/// vertex lies on the cut). Rows of a triangle (cuts along z) and cells of a row (along x) both
/// take this shape.
///
/// While the next cut stays short of every vertex of the run, its result is known without
/// walking the polygon: the two crossings move along their edges and become the new part's
/// corners, in place. The values and their order are exactly those of the full split.
struct CutShape {
    /// Vertex count of the polygon.
    count: usize,
    /// Index of the crossing the run starts after; the run starts at `entry + 1`.
    entry: usize,
    /// Index of the crossing the run ends before.
    exit: usize,
    /// Index of the run's last vertex, just before `exit` (cyclically).
    last: usize,
    /// Lowest coordinate of the run along the cut's axis (NaN when any is NaN, which keeps
    /// cuts on the full path).
    run_min: f32,
}

impl CutShape {
    /// Cuts `polygon` at `AXIS == offset` when the cut stays short of the run, leaving the rest
    /// in `polygon` and returning the cut-off quad as old entry, new entry, new exit and old
    /// exit (see [`Self::in_walk_order`]); `None` (with `polygon` untouched) otherwise.
    #[inline(always)]
    fn cut<const N: usize, const AXIS: usize>(
        &self,
        polygon: &mut [[f32; N]; CLIP_BUFFER],
        offset: f32,
    ) -> Option<[[f32; N]; 4]> {
        if offset.partial_cmp(&self.run_min) != Some(Ordering::Less) {
            return None;
        }
        let (entry, exit) = (
            polygon[self.entry & CLIP_MASK],
            polygon[self.exit & CLIP_MASK],
        );
        let (entry_delta, exit_delta) = (offset - entry[AXIS], offset - exit[AXIS]);
        if !(entry_delta > 0.0 && exit_delta > 0.0) {
            return None;
        }
        let first = polygon[(self.entry + 1) & CLIP_MASK];
        let last = polygon[self.last & CLIP_MASK];
        let new_entry = crossing(&entry, &first, entry_delta, offset - first[AXIS]);
        let new_exit = crossing(&last, &exit, offset - last[AXIS], exit_delta);
        polygon[self.entry & CLIP_MASK] = new_entry;
        polygon[self.exit & CLIP_MASK] = new_exit;
        Some([entry, new_entry, new_exit, exit])
    }

    /// The quad of [`Self::cut`] in `dividePoly`'s vertex order. The walk emits the old entry at
    /// its index, the new entry at the next one (never wrapping: a split always writes the
    /// run's first vertex after the entry) and the new exit with the old exit at the exit's.
    #[inline(always)]
    fn in_walk_order<T>(&self, [entry, new_entry, new_exit, exit]: [T; 4]) -> [T; 4] {
        if self.exit < self.entry {
            [new_exit, exit, entry, new_entry]
        } else {
            [entry, new_entry, new_exit, exit]
        }
    }

    /// [`Self::cut`] of a row polygon at `x == offset` with the polygon's crossings `entry`
    /// and `exit` held apart (moved in place) and its fixed `first` and `last` run vertices,
    /// keeping only the cell's heights. Written out for the heights alone: through the generic
    /// quad LLVM packs the two crossings into vector shuffles that cost a third more
    /// instructions per cell.
    #[inline(always)]
    fn advance_cell(
        &self,
        entry: &mut [f32; 2],
        exit: &mut [f32; 2],
        first: &[f32; 2],
        last: &[f32; 2],
        offset: f32,
    ) -> Option<CellPart> {
        if offset.partial_cmp(&self.run_min) != Some(Ordering::Less) {
            return None;
        }
        let (entry_delta, exit_delta) = (offset - entry[0], offset - exit[0]);
        if !(entry_delta > 0.0 && exit_delta > 0.0) {
            return None;
        }
        let new_entry = crossing(entry, first, entry_delta, offset - first[0]);
        let new_exit = crossing(last, exit, offset - last[0], exit_delta);
        let ys = self.in_walk_order([entry[1], new_entry[1], new_exit[1], exit[1]]);
        (*entry, *exit) = (new_entry, new_exit);
        Some(CellPart::of(ys, self.count))
    }

    /// [`Self::cut`] of a triangle's remaining part at `z == offset`, writing the row polygon
    /// (x and y) to `row`; returns its vertex count.
    #[inline(always)]
    fn cut_row(&self, remaining: &mut Poly3, offset: f32, row: &mut Poly2) -> Option<usize> {
        let quad = self.cut::<3, 2>(remaining, offset)?;
        for (corner, v) in row.iter_mut().zip(self.in_walk_order(quad)) {
            *corner = [v[0], v[1]];
        }
        Some(4)
    }
}

/// What a split walk needs to recognise a [`CutShape`] in the part beyond the cut.
struct ShapeFinder {
    entry: usize,
    exit: usize,
    crossings: u32,
    only_run_and_crossings: bool,
    run_min: f32,
}

impl ShapeFinder {
    fn new() -> Self {
        Self {
            entry: 0,
            exit: 0,
            crossings: 0,
            only_run_and_crossings: true,
            run_min: f32::INFINITY,
        }
    }

    /// A crossing lands at `index` of the rest; `beyond` when the walk goes on beyond the cut
    /// (`delta` is the next vertex's distance).
    #[inline(always)]
    fn crossing(&mut self, index: usize, delta: f32) {
        self.crossings += 1;
        if delta >= 0.0 {
            self.exit = index;
        } else {
            self.entry = index;
            // The run must start right after the entry crossing.
            self.only_run_and_crossings &= delta < 0.0;
        }
    }

    /// A vertex at `coordinate` along the cut's axis goes to the rest.
    #[inline(always)]
    fn run_vertex(&mut self, coordinate: f32) {
        if coordinate < self.run_min || coordinate.is_nan() {
            self.run_min = coordinate;
        }
    }

    /// A vertex lies on the cut: it goes to both sides, which the shape does not allow.
    #[inline(always)]
    fn vertex_on_cut(&mut self) {
        self.only_run_and_crossings = false;
    }

    /// The rest of `rest_count` vertices has the shape.
    fn shape(&self, rest_count: usize) -> Option<CutShape> {
        (self.crossings == 2 && self.only_run_and_crossings && rest_count <= MAX_CLIP_INPUT).then(
            || CutShape {
                count: rest_count,
                entry: self.entry,
                exit: self.exit,
                last: (self.exit + rest_count - 1) % rest_count,
                run_min: self.run_min,
            },
        )
    }
}

/// The row's last cell when the whole row polygon `input[..count]` lies short of `x ==
/// offset`, as [`split_cell`] would give it (every vertex to the cell, in order, nothing left),
/// without the split's bookkeeping; `None` when a vertex reaches the cut.
#[inline(always)]
fn whole_cell(input: &Poly2, count: usize, offset: f32) -> Option<CellPart> {
    let n = count.min(MAX_CLIP_INPUT);
    let (mut min_y, mut max_y) = (f32::INFINITY, f32::NEG_INFINITY);
    for v in &input[..n] {
        // A vertex on or past the cut (or NaN) leaves the work to the full split.
        if (offset - v[0]).partial_cmp(&0.0) != Some(Ordering::Greater) {
            return None;
        }
        min_y = fmin(min_y, v[1]);
        max_y = fmax(max_y, v[1]);
    }
    Some(CellPart {
        count: n,
        min_y,
        max_y,
        rest_count: 0,
    })
}

/// Splits row polygon `input[..count]` at `x == offset` (Recast's `dividePoly` on the x axis):
/// the part with x at most `offset` is the cell, of which only the vertex count and height range
/// are kept; the other part goes to `rest`, with its [`CutShape`] when it has that shape and
/// `FIND_SHAPE` asks for it.
fn split_cell<const FIND_SHAPE: bool>(
    input: &Poly2,
    count: usize,
    offset: f32,
    rest: &mut Poly2,
) -> (CellPart, Option<CutShape>) {
    let n = count.min(MAX_CLIP_INPUT);
    // Folding from ±infinity gives exactly Recast's fold from the first vertex.
    let (mut cell_count, mut min_y, mut max_y) = (0, f32::INFINITY, f32::NEG_INFINITY);
    let mut add_to_cell = |y: f32| {
        min_y = fmin(min_y, y);
        max_y = fmax(max_y, y);
        cell_count += 1;
    };
    let mut rest_count = 0;
    let mut finder = ShapeFinder::new();
    // Walk the edges b → a, starting with the closing edge.
    if let Some(last) = input[..n].last() {
        let mut previous = last;
        let mut previous_delta = offset - previous[0];
        for va in &input[..n] {
            let da = offset - va[0];
            let (vb, db) = (previous, previous_delta);
            (previous, previous_delta) = (va, da);
            if (da >= 0.0) != (db >= 0.0) {
                let point = crossing(vb, va, db, da);
                add_to_cell(point[1]);
                if FIND_SHAPE {
                    finder.crossing(rest_count, da);
                }
                rest[rest_count & CLIP_MASK] = point;
                rest_count += 1;
                if da > 0.0 {
                    add_to_cell(va[1]);
                } else if da < 0.0 {
                    if FIND_SHAPE {
                        finder.run_vertex(va[0]);
                    }
                    rest[rest_count & CLIP_MASK] = *va;
                    rest_count += 1;
                }
            } else {
                if da >= 0.0 {
                    add_to_cell(va[1]);
                    if da != 0.0 {
                        continue;
                    }
                    if FIND_SHAPE {
                        finder.vertex_on_cut();
                    }
                }
                if FIND_SHAPE {
                    finder.run_vertex(va[0]);
                }
                rest[rest_count & CLIP_MASK] = *va;
                rest_count += 1;
            }
        }
    }
    let shape = if FIND_SHAPE {
        finder.shape(rest_count)
    } else {
        None
    };
    let cell = CellPart {
        count: cell_count,
        min_y,
        max_y,
        rest_count,
    };
    (cell, shape)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn out_of_memory_names_the_spans_reached_only_when_there_were_some() {
        let hf = Heightfield::try_new(4, 3, [0.0; 3], [1.0; 3], 0.25, 0.25).unwrap();
        let message = |spans| out_of_memory(&hf, spans).to_string();
        assert!(message(7).starts_with("the heightfield of 4 x 3 cells, past 7 spans, would"));
        assert!(message(0).starts_with("the heightfield of 4 x 3 cells would"));
    }

    /// A small deterministic generator (xorshift64*) for the differential test.
    struct Numbers(u64);

    impl Numbers {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }

        /// A coordinate in 0..8: often on a quarter-cell grid so that vertices land on cuts,
        /// rarely NaN.
        fn coordinate(&mut self) -> f32 {
            let r = self.next();
            match r % 64 {
                0 => f32::NAN,
                1..=31 => ((r >> 8) % 32) as f32 * 0.25,
                _ => ((r >> 8) % 8_000_000) as f32 / 1_000_000.0,
            }
        }
    }

    /// The bits of a polygon's first `count` vertices, to compare polygons exactly.
    fn polygon_bits<const N: usize>(
        polygon: &[[f32; N]; CLIP_BUFFER],
        count: usize,
    ) -> Vec<[u32; N]> {
        polygon[..count.min(CLIP_BUFFER)]
            .iter()
            .map(|v| v.map(f32::to_bits))
            .collect()
    }

    /// A triangle of random corners.
    fn random_triangle(numbers: &mut Numbers) -> Poly3 {
        let mut triangle: Poly3 = [[0.0; 3]; CLIP_BUFFER];
        for v in &mut triangle[..3] {
            *v = [0.0; 3].map(|_| numbers.coordinate());
        }
        triangle
    }

    /// The shortcut through [`CutShape`] must give the very rows and rests of full splits.
    #[test]
    fn shaped_row_cuts_equal_full_splits() {
        let mut numbers = Numbers(0x2545_f491_4f6c_dd1d);
        for _ in 0..50_000 {
            let triangle = random_triangle(&mut numbers);
            let (mut plain, mut plain_count) = (triangle, 3);
            let (mut shaped, mut shaped_count, mut shape) = (triangle, 3, None::<CutShape>);
            for z in 1..9 {
                let offset = z as f32;
                let (mut expected_row, mut next) =
                    ([[0.0; 2]; CLIP_BUFFER], [[0.0; 3]; CLIP_BUFFER]);
                let (expected_count, rest_count, _) =
                    split_row::<false>(&plain, plain_count, offset, &mut expected_row, &mut next);
                (plain, plain_count) = (next, rest_count);

                let mut row = [[0.0; 2]; CLIP_BUFFER];
                let row_count = match shape
                    .as_ref()
                    .and_then(|s| s.cut_row(&mut shaped, offset, &mut row))
                {
                    Some(row_count) => row_count,
                    None => {
                        let mut next = [[0.0; 3]; CLIP_BUFFER];
                        let (row_count, rest_count, next_shape) =
                            split_row::<true>(&shaped, shaped_count, offset, &mut row, &mut next);
                        (shaped, shaped_count, shape) = (next, rest_count, next_shape);
                        row_count
                    }
                };
                assert_eq!(row_count, expected_count);
                assert_eq!(
                    polygon_bits(&row, row_count),
                    polygon_bits(&expected_row, row_count)
                );
                assert_eq!(shaped_count, plain_count);
                assert_eq!(
                    polygon_bits(&shaped, plain_count),
                    polygon_bits(&plain, plain_count)
                );
            }
        }
    }

    /// [`CutShape::advance_cell`] as the rasterizer uses it, on the row polygon in place.
    fn cut_cell(shape: &CutShape, row: &mut Poly2, offset: f32) -> Option<CellPart> {
        let (entry_at, exit_at) = (shape.entry & CLIP_MASK, shape.exit & CLIP_MASK);
        let (first, last) = (
            row[(shape.entry + 1) & CLIP_MASK],
            row[shape.last & CLIP_MASK],
        );
        let (mut entry, mut exit) = (row[entry_at], row[exit_at]);
        let cell = shape.advance_cell(&mut entry, &mut exit, &first, &last, offset)?;
        (row[entry_at], row[exit_at]) = (entry, exit);
        Some(cell)
    }

    /// The shortcut through [`CutShape`] must give the very cells and rests of full splits.
    #[test]
    fn shaped_cell_cuts_equal_full_splits() {
        let mut numbers = Numbers(0x9e37_79b9_7f4a_7c15);
        for _ in 0..50_000 {
            let triangle = random_triangle(&mut numbers);
            let mut row: Poly2 = [[0.0; 2]; CLIP_BUFFER];
            let mut rest: Poly3 = [[0.0; 3]; CLIP_BUFFER];
            let z_cut = numbers.coordinate();
            let (count, _, _) = split_row::<false>(&triangle, 3, z_cut, &mut row, &mut rest);

            let (mut plain, mut plain_count) = (row, count);
            let (mut shaped, mut shaped_count, mut shape) = (row, count, None::<CutShape>);
            for x in 1..9 {
                let offset = x as f32;
                let mut next = [[0.0; 2]; CLIP_BUFFER];
                let (expected, _) = split_cell::<false>(&plain, plain_count, offset, &mut next);
                if let Some(whole) = whole_cell(&plain, plain_count, offset) {
                    let bits = |c: &CellPart| {
                        (c.count, c.min_y.to_bits(), c.max_y.to_bits(), c.rest_count)
                    };
                    assert_eq!(bits(&whole), bits(&expected));
                }
                (plain, plain_count) = (next, expected.rest_count);

                let cell = match shape
                    .as_ref()
                    .and_then(|s| cut_cell(s, &mut shaped, offset))
                {
                    Some(cell) => cell,
                    None => {
                        let mut next = [[0.0; 2]; CLIP_BUFFER];
                        let (cell, next_shape) =
                            split_cell::<true>(&shaped, shaped_count, offset, &mut next);
                        (shaped, shaped_count, shape) = (next, cell.rest_count, next_shape);
                        cell
                    }
                };
                let bits = |c: &CellPart| (c.count, c.min_y.to_bits(), c.max_y.to_bits());
                assert_eq!(bits(&cell), bits(&expected));
                assert_eq!(shaped_count, plain_count);
                assert_eq!(
                    polygon_bits(&shaped, plain_count),
                    polygon_bits(&plain, plain_count)
                );
            }
        }
    }
}
