//! Region outlines: traced raw contours and their simplified versions (Recast's `rcContourSet`).

use crate::recast::parallel::Split;

use crate::memory::try_filled;
use crate::recast::compact::{CellRows, CompactHeightfield, NOT_CONNECTED};
use crate::recast::context::{BuildContext, TimerLabel};
use crate::recast::distance_field::cells_overrun;
use crate::recast::{Error, Result};
use crate::{
    recast::AREA_BORDER, recast::BORDER_REG, recast::BORDER_VERTEX, recast::CONTOUR_REG_MASK,
    recast::dir_offset_x, recast::dir_offset_z,
};

/// The outline of one region.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Contour {
    /// Simplified vertices, 4 values each: x, y, z and the neighbour region with flags
    /// ([`crate::recast::BORDER_VERTEX`], [`crate::recast::AREA_BORDER`]).
    pub verts: Vec<i32>,
    /// Raw traced vertices, 4 values each, same layout.
    pub raw_verts: Vec<i32>,
    /// Region id.
    pub reg: u16,
    /// Area id.
    pub area: u8,
}

impl Contour {
    /// Number of simplified vertices.
    pub fn nverts(&self) -> usize {
        self.verts.len() / 4
    }

    /// Number of raw vertices.
    pub fn nraw_verts(&self) -> usize {
        self.raw_verts.len() / 4
    }
}

/// All contours of a compact heightfield.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ContourSet {
    /// One contour per region.
    pub contours: Vec<Contour>,
    /// Minimum corner of the bounds, world units.
    pub bmin: [f32; 3],
    /// Maximum corner.
    pub bmax: [f32; 3],
    /// Cell size on xz, world units.
    pub cs: f32,
    /// Cell height, world units.
    pub ch: f32,
    /// Cells along x.
    pub width: i32,
    /// Cells along z.
    pub height: i32,
    /// Cells of border the build had (tiles).
    pub border_size: i32,
    /// Simplification error the contours were built with, cells.
    pub max_error: f32,
}

/// Which long contour edges [`build_contours`] splits to respect `max_edge_len`
/// (Recast's `RC_CONTOUR_TESS_WALL_EDGES` / `RC_CONTOUR_TESS_AREA_EDGES`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ContourBuildFlags {
    /// Split edges that border unwalkable space.
    pub tessellate_wall_edges: bool,
    /// Split edges between two areas.
    pub tessellate_area_edges: bool,
}

impl Default for ContourBuildFlags {
    /// Wall edges only, as `rcBuildContours`' default argument (and RecastDemo) use.
    fn default() -> Self {
        Self {
            tessellate_wall_edges: true,
            tessellate_area_edges: false,
        }
    }
}

impl ContourBuildFlags {
    fn any(self) -> bool {
        self.tessellate_wall_edges || self.tessellate_area_edges
    }
}

/// Traces the outline of every region of `chf`, simplifies it to within `max_error` voxels,
/// splits wall edges longer than `max_edge_len` (0 disables splitting) and merges holes into
/// their region's outline (Recast's `rcBuildContours`).
///
/// A hole merged into its outline stays in the set with no simplified vertices, as in Recast, so
/// contour indices and raw vertices are kept.
pub fn build_contours(
    ctx: &mut BuildContext,
    chf: &CompactHeightfield,
    max_error: f32,
    max_edge_len: i32,
    build_flags: ContourBuildFlags,
) -> Result<ContourSet> {
    ctx.start_timer(TimerLabel::BuildContours);
    let result = build_contours_timed(ctx, chf, max_error, max_edge_len, build_flags);
    ctx.stop_timer(TimerLabel::BuildContours);
    result
}

fn build_contours_timed(
    ctx: &mut BuildContext,
    chf: &CompactHeightfield,
    max_error: f32,
    max_edge_len: i32,
    build_flags: ContourBuildFlags,
) -> Result<ContourSet> {
    check_layout(chf)?;
    let border_size = chf.border_size;

    let mut bmin = chf.bmin;
    let mut bmax = chf.bmax;
    if border_size > 0 {
        // Report the bounds of the tile proper, without the border the heightfield was built with.
        let pad = border_size as f32 * chf.cs;
        bmin[0] += pad;
        bmin[2] += pad;
        bmax[0] -= pad;
        bmax[2] -= pad;
    }
    // Recast grows its contour array by doubling and says so; keep the same bookkeeping so the
    // log matches.
    let mut capacity = usize::from(chf.max_regions).max(8);
    let mut cset = ContourSet {
        contours: Vec::with_capacity(capacity),
        bmin,
        bmax,
        cs: chf.cs,
        ch: chf.ch,
        width: chf.width - border_size * 2,
        height: chf.height - border_size * 2,
        border_size,
        max_error,
    };

    ctx.start_timer(TimerLabel::BuildContoursTrace);
    let (mut edge_flags, starts) = mark_region_boundaries(chf)?;
    ctx.stop_timer(TimerLabel::BuildContoursTrace);

    let mut raw = Vec::with_capacity(256);
    let mut simplified = Vec::with_capacity(64);

    for start in starts {
        let (x, z, i) = (start.x, start.z, start.span as usize);
        // An earlier walk around the same outline has cleared it.
        if edge_flags[i] == 0 {
            continue;
        }
        let reg = chf.spans[i].reg;

        raw.clear();
        simplified.clear();

        ctx.start_timer(TimerLabel::BuildContoursTrace);
        walk_contour(x, z, i, chf, &mut edge_flags, &mut raw);
        ctx.stop_timer(TimerLabel::BuildContoursTrace);

        ctx.start_timer(TimerLabel::BuildContoursSimplify);
        simplify_contour(&raw, &mut simplified, max_error, max_edge_len, build_flags);
        remove_degenerate_segments(&mut simplified);
        ctx.stop_timer(TimerLabel::BuildContoursSimplify);

        if simplified.len() / 4 < 3 {
            continue;
        }
        if cset.contours.len() >= capacity {
            let old = capacity;
            capacity *= 2;
            ctx.warning(format!(
                "rcBuildContours: Expanding max contours from {old} to {capacity}."
            ));
        }
        let mut contour = Contour {
            verts: simplified.clone(),
            raw_verts: raw.clone(),
            reg,
            area: chf.areas[i],
        };
        if border_size > 0 {
            remove_border_offset(&mut contour.verts, border_size);
            remove_border_offset(&mut contour.raw_verts, border_size);
        }
        cset.contours.push(contour);
    }

    merge_holes(ctx, &mut cset.contours, chf.max_regions);
    Ok(cset)
}

/// Rejects a compact heightfield whose arrays do not fit together, instead of panicking later.
fn check_layout(chf: &CompactHeightfield) -> Result<()> {
    let bad = |message: String| Error::Stage {
        stage: "rcBuildContours",
        message,
    };
    if chf.width < 0 || chf.height < 0 || chf.border_size < 0 {
        return Err(bad(format!(
            "Invalid heightfield size {} x {} (border {}).",
            chf.width, chf.height, chf.border_size
        )));
    }
    let ncells = i64::from(chf.width) * i64::from(chf.height);
    if usize::try_from(ncells).ok() != Some(chf.cells.len()) {
        return Err(bad(format!(
            "Expected {ncells} cells, found {}.",
            chf.cells.len()
        )));
    }
    if chf.areas.len() != chf.spans.len() {
        return Err(bad(format!(
            "Expected {} span areas, found {}.",
            chf.spans.len(),
            chf.areas.len()
        )));
    }
    let spans = chf.spans.len() as u64;
    // One branch-free pass finds whether any cell overruns; the search for which runs only then.
    let end = |c: &crate::recast::compact::CompactCell| u64::from(c.index) + u64::from(c.count);
    let overrun = cells_overrun(&chf.cells, chf.spans.len());
    if let Some(cell) = overrun
        .then(|| chf.cells.iter().find(|c| end(c) > spans))
        .flatten()
    {
        return Err(bad(format!(
            "Cell spans {}..{} exceed the {spans} spans.",
            cell.index,
            u64::from(cell.index) + u64::from(cell.count)
        )));
    }
    Ok(())
}

/// A span where an outline walk may start, in column (`x`, `z`).
struct WalkStart {
    x: i32,
    z: i32,
    span: u32,
}

/// Per span, a bit per direction whose neighbour lies in another region (or none): the edges a
/// contour walk must visit. Spans outside any region, or in the tile border, get 0; so do spans
/// cut off on all four sides, whose one-cell outline no walk reaches and none is kept for.
/// Also lists, in span order, the spans left with edges: where [`build_contours`] starts walks.
///
/// Bands of rows are marked on rayon's threads, each listing its starts with their edges.
fn mark_region_boundaries(chf: &CompactHeightfield) -> Result<(Vec<u8>, Vec<WalkStart>)> {
    let mut edge_flags = try_filled(chf.spans.len(), 0u8, || chf.describe("contour edge flags"))?;
    let firsts: Vec<i32> = (0..chf.height.max(0)).step_by(ROWS_PER_TASK).collect();
    let band_starts: Vec<Vec<(WalkStart, u8)>> = Split::for_cells(chf.cells.len())
        .map(firsts, |first| {
            boundaries_in_rows(chf, first..(first + ROWS_PER_TASK as i32).min(chf.height))
        });
    let mut starts = Vec::with_capacity(band_starts.iter().map(Vec::len).sum());
    for (start, open) in band_starts.into_iter().flatten() {
        edge_flags[start.span as usize] = open;
        starts.push(start);
    }
    Ok((edge_flags, starts))
}

/// Grid rows per task of [`mark_region_boundaries`]; the result does not depend on it.
const ROWS_PER_TASK: usize = 16;

/// The spans of grid rows `rows` with region edges to walk, in span order, with their edges.
fn boundaries_in_rows(
    chf: &CompactHeightfield,
    rows: std::ops::Range<i32>,
) -> Vec<(WalkStart, u8)> {
    let mut starts = Vec::new();
    let spans = &chf.spans[..];
    for z in rows {
        // A grid edge's row stands in for the missing neighbour row, which none of its spans
        // links to.
        let CellRows { before, row, after } = chf.cell_rows(z as usize);
        let (before, after) = (before.unwrap_or(row), after.unwrap_or(row));
        for (x, cell) in row.iter().enumerate() {
            for i in cell.index..cell.index + cell.count {
                let span = spans[i as usize];
                if span.reg == 0 || span.reg & BORDER_REG != 0 {
                    continue;
                }
                // The neighbour's first span is looked up only when the link exists: the cell
                // beyond the grid's edge is never asked for.
                let differs = |dir: usize, first: &dyn Fn() -> u32| {
                    let con = span.con(dir);
                    con == NOT_CONNECTED || spans[(first() + con) as usize].reg != span.reg
                };
                let open = u8::from(differs(0, &|| row[x - 1].index))
                    | u8::from(differs(1, &|| after[x].index)) << 1
                    | u8::from(differs(2, &|| row[x + 1].index)) << 2
                    | u8::from(differs(3, &|| before[x].index)) << 3;
                if open != 0 && open != 0xf {
                    starts.push((
                        WalkStart {
                            x: x as i32,
                            z,
                            span: i,
                        },
                        open,
                    ));
                }
            }
        }
    }
    starts
}

/// Region id combined with area id, so that corners between two areas are told apart.
fn region_and_area(chf: &CompactHeightfield, i: usize) -> u32 {
    u32::from(chf.spans[i].reg) | (u32::from(chf.areas[i]) << 16)
}

/// Cell-index steps to the neighbour column in each direction (-x, +z, +x, -z).
fn cell_steps(chf: &CompactHeightfield) -> [usize; 4] {
    let width = chf.width as usize;
    [usize::MAX, width, 1, width.wrapping_neg()]
}

/// The neighbour of span `i` (in cell `c`) in direction `dir`, as (cell, span), if connected.
#[inline]
fn neighbour_at(
    chf: &CompactHeightfield,
    steps: &[usize; 4],
    c: usize,
    i: usize,
    dir: usize,
) -> Option<(usize, usize)> {
    let con = chf.spans[i].con(dir);
    if con == NOT_CONNECTED {
        return None;
    }
    let nc = c.wrapping_add(steps[dir]);
    Some((nc, (chf.cells[nc].index + con) as usize))
}

/// Height of the corner clockwise-after edge `dir` of span `i` (in cell `c`): the highest floor
/// among the up to four spans sharing it. Also tells whether the corner is a tile-border vertex,
/// i.e. two cells of the same border region followed by two interior cells of one area; such
/// vertices are removed when tiles are stitched.
fn corner_height(
    chf: &CompactHeightfield,
    steps: &[usize; 4],
    c: usize,
    i: usize,
    dir: usize,
) -> (i32, bool) {
    let dir_cw = (dir + 1) & 3;
    let mut height = i32::from(chf.spans[i].y);
    let mut regs = [region_and_area(chf, i), 0, 0, 0];

    if let Some((ac, a)) = neighbour_at(chf, steps, c, i, dir) {
        height = height.max(i32::from(chf.spans[a].y));
        regs[1] = region_and_area(chf, a);
        if let Some((_, diagonal)) = neighbour_at(chf, steps, ac, a, dir_cw) {
            height = height.max(i32::from(chf.spans[diagonal].y));
            regs[2] = region_and_area(chf, diagonal);
        }
    }
    if let Some((ac, a)) = neighbour_at(chf, steps, c, i, dir_cw) {
        height = height.max(i32::from(chf.spans[a].y));
        regs[3] = region_and_area(chf, a);
        if let Some((_, diagonal)) = neighbour_at(chf, steps, ac, a, dir) {
            height = height.max(i32::from(chf.spans[diagonal].y));
            regs[2] = region_and_area(chf, diagonal);
        }
    }

    let border = u32::from(BORDER_REG);
    // Without a border region around the corner (always so in a solo build) it is no border
    // vertex.
    if (regs[0] | regs[1] | regs[2] | regs[3]) & border == 0 {
        return (height, false);
    }
    let is_border_vertex = (0..4).any(|j| {
        let a = regs[j];
        let b = regs[(j + 1) & 3];
        let c = regs[(j + 2) & 3];
        let d = regs[(j + 3) & 3];
        let two_same_exteriors = a & b & border != 0 && a == b;
        let two_interiors = (c | d) & border == 0;
        let interiors_same_area = c >> 16 == d >> 16;
        let no_zeros = a != 0 && b != 0 && c != 0 && d != 0;
        two_same_exteriors && two_interiors && interiors_same_area && no_zeros
    });
    (height, is_border_vertex)
}

/// Walks the boundary of the region of span `i` clockwise, appending one `[x, y, z, r]` corner
/// per boundary edge, where `r` is the region across the edge plus flags. Clears the visited
/// edges' bits in `edge_flags`.
fn walk_contour(
    mut x: i32,
    mut z: i32,
    mut i: usize,
    chf: &CompactHeightfield,
    edge_flags: &mut [u8],
    points: &mut Vec<i32>,
) {
    let steps = cell_steps(chf);
    let mut c = (x + z * chf.width) as usize;
    let mut dir = edge_flags[i].trailing_zeros() as usize;
    let start_dir = dir;
    let start_span = i;
    let area = chf.areas[i];

    // Recast stops after 40000 steps in case the outline does not close.
    for _ in 1..40000 {
        if edge_flags[i] & (1 << dir) != 0 {
            let (py, is_border_vertex) = corner_height(chf, &steps, c, i, dir);
            let (px, pz) = match dir {
                0 => (x, z + 1),
                1 => (x + 1, z + 1),
                2 => (x + 1, z),
                _ => (x, z),
            };
            let mut r = 0;
            if let Some((_, ni)) = neighbour_at(chf, &steps, c, i, dir) {
                r = i32::from(chf.spans[ni].reg);
                if chf.areas[ni] != area {
                    r |= AREA_BORDER;
                }
            }
            if is_border_vertex {
                r |= BORDER_VERTEX;
            }
            points.extend_from_slice(&[px, py, pz, r]);
            edge_flags[i] &= !(1 << dir);
            dir = (dir + 1) & 3;
        } else {
            let Some((nc, ni)) = neighbour_at(chf, &steps, c, i, dir) else {
                // An unflagged edge always has a same-region neighbour; give up if it does not.
                return;
            };
            x += dir_offset_x(dir);
            z += dir_offset_z(dir);
            c = nc;
            i = ni;
            dir = (dir + 3) & 3;
        }
        if i == start_span && dir == start_dir {
            break;
        }
    }
}

/// Inserts raw point `raw_index` after simplified vertex `after`; the fourth component holds the
/// raw index until [`simplify_contour`] finishes.
fn insert_simplified(simplified: &mut Vec<i32>, after: usize, raw: &[i32], raw_index: usize) {
    let p = &raw[raw_index * 4..raw_index * 4 + 3];
    let at = (after + 1) * 4;
    simplified.splice(at..at, [p[0], p[1], p[2], raw_index as i32]);
}

/// Reduces the raw outline to the corners where the neighbour changes plus the raw points needed
/// to stay within `max_error` of wall and area edges, then splits long edges.
fn simplify_contour(
    raw: &[i32],
    simplified: &mut Vec<i32>,
    max_error: f32,
    max_edge_len: i32,
    build_flags: ContourBuildFlags,
) {
    let pn = raw.len() / 4;
    let neighbour_reg = |p: usize| raw[p * 4 + 3] & CONTOUR_REG_MASK;
    let area_border = |p: usize| raw[p * 4 + 3] & AREA_BORDER;

    // Portals to other regions must survive: keep every point where the neighbour changes.
    if (0..pn).any(|p| neighbour_reg(p) != 0) {
        for p in 0..pn {
            let next = (p + 1) % pn;
            if neighbour_reg(p) != neighbour_reg(next) || area_border(p) != area_border(next) {
                simplified.extend_from_slice(&[
                    raw[p * 4],
                    raw[p * 4 + 1],
                    raw[p * 4 + 2],
                    p as i32,
                ]);
            }
        }
    }

    if simplified.is_empty() {
        // No portals: start from the lower-left and upper-right points.
        let (mut lower_left, mut upper_right) = (0, 0);
        for p in 1..pn {
            let (x, z) = (raw[p * 4], raw[p * 4 + 2]);
            let (llx, llz) = (raw[lower_left * 4], raw[lower_left * 4 + 2]);
            if x < llx || (x == llx && z < llz) {
                lower_left = p;
            }
            let (urx, urz) = (raw[upper_right * 4], raw[upper_right * 4 + 2]);
            if x > urx || (x == urx && z > urz) {
                upper_right = p;
            }
        }
        for p in [lower_left, upper_right] {
            simplified.extend_from_slice(&[raw[p * 4], raw[p * 4 + 1], raw[p * 4 + 2], p as i32]);
        }
    }

    // Add the farthest raw point of a wall or area edge until every one is within tolerance.
    let max_error_sqr = max_error * max_error;
    let mut i = 0;
    while i < simplified.len() / 4 {
        let ii = (i + 1) % (simplified.len() / 4);
        let (mut ax, mut az) = (simplified[i * 4], simplified[i * 4 + 2]);
        let ai = simplified[i * 4 + 3] as usize;
        let (mut bx, mut bz) = (simplified[ii * 4], simplified[ii * 4 + 2]);
        let bi = simplified[ii * 4 + 3] as usize;

        // Walk the segment in lexicographic order so that the two regions sharing an edge
        // measure the same deviations.
        let (mut ci, step, end) = if bx > ax || (bx == ax && bz > az) {
            ((ai + 1) % pn, 1, bi)
        } else {
            std::mem::swap(&mut ax, &mut bx);
            std::mem::swap(&mut az, &mut bz);
            ((bi + pn - 1) % pn, pn - 1, ai)
        };

        let mut max_dist = 0.0;
        let mut farthest = None;
        if neighbour_reg(ci) == 0 || area_border(ci) != 0 {
            while ci != end {
                let d =
                    crate::math::distance_pt_seg_sqr(raw[ci * 4], raw[ci * 4 + 2], ax, az, bx, bz);
                if d > max_dist {
                    max_dist = d;
                    farthest = Some(ci);
                }
                ci = (ci + step) % pn;
            }
        }

        match farthest {
            Some(p) if max_dist > max_error_sqr => insert_simplified(simplified, i, raw, p),
            _ => i += 1,
        }
    }

    if max_edge_len > 0 && build_flags.any() {
        let max_len_sqr = i64::from(max_edge_len) * i64::from(max_edge_len);
        let mut i = 0;
        while i < simplified.len() / 4 {
            let ii = (i + 1) % (simplified.len() / 4);
            let (ax, az) = (simplified[i * 4], simplified[i * 4 + 2]);
            let ai = simplified[i * 4 + 3] as usize;
            let (bx, bz) = (simplified[ii * 4], simplified[ii * 4 + 2]);
            let bi = simplified[ii * 4 + 3] as usize;

            let ci = (ai + 1) % pn;
            let tessellate = (build_flags.tessellate_wall_edges && neighbour_reg(ci) == 0)
                || (build_flags.tessellate_area_edges && area_border(ci) != 0);

            let mut split = None;
            if tessellate {
                let (dx, dz) = (i64::from(bx - ax), i64::from(bz - az));
                if dx * dx + dz * dz > max_len_sqr {
                    // Round towards the lexicographically first end so both sides of an edge
                    // split it at the same point.
                    let n = if bi < ai { bi + pn - ai } else { bi - ai };
                    if n > 1 {
                        split = Some(if bx > ax || (bx == ax && bz > az) {
                            (ai + n / 2) % pn
                        } else {
                            (ai + n.div_ceil(2)) % pn
                        });
                    }
                }
            }

            match split {
                Some(p) => insert_simplified(simplified, i, raw, p),
                None => i += 1,
            }
        }
    }

    // Each vertex takes the neighbour region and area flag of the edge that starts at it, and the
    // border-vertex flag of its own raw point.
    for v in simplified.chunks_exact_mut(4) {
        let at = v[3] as usize;
        let next = (at + 1) % pn;
        v[3] = (raw[next * 4 + 3] & (CONTOUR_REG_MASK | AREA_BORDER))
            | (raw[at * 4 + 3] & BORDER_VERTEX);
    }
}

#[inline]
fn next(i: usize, n: usize) -> usize {
    if i + 1 < n { i + 1 } else { 0 }
}

#[inline]
fn prev(i: usize, n: usize) -> usize {
    if i > 0 { i - 1 } else { n - 1 }
}

/// Vertex `i` of a flat `[x, y, z, r]` array.
#[inline]
fn vertex(verts: &[i32], i: usize) -> &[i32] {
    &verts[i * 4..i * 4 + 4]
}

/// Drops vertices equal on the xz-plane to their successor; the triangulator cannot handle them.
fn remove_degenerate_segments(simplified: &mut Vec<i32>) {
    let mut npts = simplified.len() / 4;
    let mut i = 0;
    while i < npts {
        let ni = next(i, npts);
        if same_xz(vertex(simplified, i), vertex(simplified, ni)) {
            simplified.drain(i * 4..i * 4 + 4);
            npts -= 1;
        }
        i += 1;
    }
}

fn remove_border_offset(verts: &mut [i32], border_size: i32) {
    for v in verts.chunks_exact_mut(4) {
        v[0] -= border_size;
        v[2] -= border_size;
    }
}

/// Twice the signed xz-area of a polygon, rounded as Recast does; negative for holes.
fn signed_area(verts: &[i32]) -> i64 {
    let n = verts.len() / 4;
    let mut area = 0i64;
    let mut j = n.wrapping_sub(1);
    for i in 0..n {
        let (vi, vj) = (vertex(verts, i), vertex(verts, j));
        area += i64::from(vi[0]) * i64::from(vj[2]) - i64::from(vj[0]) * i64::from(vi[2]);
        j = i;
    }
    (area + 1) / 2
}

#[inline]
fn same_xz(a: &[i32], b: &[i32]) -> bool {
    a[0] == b[0] && a[2] == b[2]
}

#[inline]
fn area2(a: &[i32], b: &[i32], c: &[i32]) -> i64 {
    (i64::from(b[0]) - i64::from(a[0])) * (i64::from(c[2]) - i64::from(a[2]))
        - (i64::from(c[0]) - i64::from(a[0])) * (i64::from(b[2]) - i64::from(a[2]))
}

/// True iff `c` is strictly left of the directed line a→b (in Recast's xz orientation).
#[inline]
fn left(a: &[i32], b: &[i32], c: &[i32]) -> bool {
    area2(a, b, c) < 0
}

#[inline]
fn left_on(a: &[i32], b: &[i32], c: &[i32]) -> bool {
    area2(a, b, c) <= 0
}

#[inline]
fn collinear(a: &[i32], b: &[i32], c: &[i32]) -> bool {
    area2(a, b, c) == 0
}

/// True iff segments ab and cd cross at a point interior to both.
fn intersect_proper(a: &[i32], b: &[i32], c: &[i32], d: &[i32]) -> bool {
    if collinear(a, b, c) || collinear(a, b, d) || collinear(c, d, a) || collinear(c, d, b) {
        return false;
    }
    (left(a, b, c) ^ left(a, b, d)) && (left(c, d, a) ^ left(c, d, b))
}

/// True iff `c` lies on the closed segment ab.
fn between(a: &[i32], b: &[i32], c: &[i32]) -> bool {
    if !collinear(a, b, c) {
        return false;
    }
    let axis = if a[0] != b[0] { 0 } else { 2 };
    (a[axis] <= c[axis] && c[axis] <= b[axis]) || (a[axis] >= c[axis] && c[axis] >= b[axis])
}

/// True iff segments ab and cd touch or cross.
fn intersect(a: &[i32], b: &[i32], c: &[i32], d: &[i32]) -> bool {
    intersect_proper(a, b, c, d)
        || between(a, b, c)
        || between(a, b, d)
        || between(c, d, a)
        || between(c, d, b)
}

/// True iff segment d0–d1 crosses an edge of the polygon `verts`, ignoring edges incident to
/// vertex `skip` and edges sharing an end point with the segment.
fn intersect_seg_contour(d0: &[i32], d1: &[i32], skip: Option<usize>, verts: &[i32]) -> bool {
    let n = verts.len() / 4;
    for k in 0..n {
        let k1 = next(k, n);
        if skip == Some(k) || skip == Some(k1) {
            continue;
        }
        let (p0, p1) = (vertex(verts, k), vertex(verts, k1));
        if same_xz(d0, p0) || same_xz(d1, p0) || same_xz(d0, p1) || same_xz(d1, p1) {
            continue;
        }
        if intersect(d0, d1, p0, p1) {
            return true;
        }
    }
    false
}

/// True iff `pj` lies inside the angle the polygon makes at vertex `i`.
fn in_cone(i: usize, verts: &[i32], pj: &[i32]) -> bool {
    let n = verts.len() / 4;
    let pi = vertex(verts, i);
    let pi1 = vertex(verts, next(i, n));
    let pin1 = vertex(verts, prev(i, n));
    if left_on(pin1, pi, pi1) {
        // Convex corner.
        return left(pi, pj, pin1) && left(pj, pi, pi1);
    }
    // Reflex corner.
    !(left_on(pi, pj, pi1) && left_on(pj, pi, pin1))
}

/// A hole of a region, with its lowest leftmost vertex (where merging starts).
#[derive(Clone, Copy)]
struct Hole {
    contour: usize,
    reg: u16,
    minx: i32,
    minz: i32,
    leftmost: usize,
}

impl Hole {
    fn new(contour: usize, verts: &[i32], reg: u16) -> Self {
        let mut hole = Hole {
            contour,
            reg,
            minx: verts[0],
            minz: verts[2],
            leftmost: 0,
        };
        for (i, v) in verts.chunks_exact(4).enumerate().skip(1) {
            if v[0] < hole.minx || (v[0] == hole.minx && v[2] < hole.minz) {
                hole.minx = v[0];
                hole.minz = v[2];
                hole.leftmost = i;
            }
        }
        hole
    }
}

/// An outline vertex a hole could be connected to, with its squared distance.
#[derive(Clone, Copy, Default)]
struct Diagonal {
    vert: usize,
    dist: i64,
}

/// Finds the clockwise-wound contours (holes) and splices each into its region's outline.
fn merge_holes(ctx: &mut BuildContext, contours: &mut [Contour], max_regions: u16) {
    let is_hole: Vec<bool> = contours.iter().map(|c| signed_area(&c.verts) < 0).collect();
    if !is_hole.contains(&true) {
        return;
    }

    let nregions = contours
        .iter()
        .map(|c| usize::from(c.reg) + 1)
        .max()
        .unwrap_or(0)
        .max(usize::from(max_regions) + 1);
    let mut outlines: Vec<Option<usize>> = vec![None; nregions];
    let mut holes = Vec::new();
    for (index, contour) in contours.iter().enumerate() {
        if is_hole[index] {
            holes.push(Hole::new(index, &contour.verts, contour.reg));
        } else {
            let outline = &mut outlines[usize::from(contour.reg)];
            if outline.is_some() {
                ctx.error(format!(
                    "rcBuildContours: Multiple outlines for region {}.",
                    contour.reg
                ));
            }
            *outline = Some(index);
        }
    }
    // Group holes by region, keeping contour order within a region.
    holes.sort_by_key(|h| h.reg);

    for region_holes in holes.chunk_by_mut(|a, b| a.reg == b.reg) {
        let reg = region_holes[0].reg;
        match outlines[usize::from(reg)] {
            Some(outline) => merge_region_holes(ctx, contours, outline, region_holes),
            None => ctx.error(format!(
                "rcBuildContours: Bad outline for region {reg}, contour simplification is likely too aggressive."
            )),
        }
    }
}

/// Connects each hole of one region to the outline through the shortest diagonal that crosses
/// neither the outline nor a hole not merged yet, working from left to right.
fn merge_region_holes(
    ctx: &mut BuildContext,
    contours: &mut [Contour],
    outline_index: usize,
    holes: &mut [Hole],
) {
    // Recast sorts with qsort, which glibc implements as a stable merge sort.
    holes.sort_by_key(|h| (h.minx, h.minz));

    let mut outline = std::mem::take(&mut contours[outline_index].verts);
    let max_verts = outline.len() / 4
        + holes
            .iter()
            .map(|h| contours[h.contour].nverts())
            .sum::<usize>();
    // Recast reuses one diagonal buffer for all holes, and reads entry `hole number` of it when
    // skipping outline edges; keep the buffer's contents across holes to reproduce that.
    let mut diags = vec![Diagonal::default(); max_verts];

    for i in 0..holes.len() {
        let hole_verts = &contours[holes[i].contour].verts;
        let hole_nverts = hole_verts.len() / 4;
        let outline_nverts = outline.len() / 4;
        let mut target = None;
        let mut best = holes[i].leftmost;
        for _ in 0..hole_nverts {
            let corner = vertex(hole_verts, best);
            let mut ndiags = 0;
            for j in 0..outline_nverts {
                if in_cone(j, &outline, corner) {
                    let v = vertex(&outline, j);
                    let dx = i64::from(v[0]) - i64::from(corner[0]);
                    let dz = i64::from(v[2]) - i64::from(corner[2]);
                    let diag = Diagonal {
                        vert: j,
                        dist: dx * dx + dz * dz,
                    };
                    if ndiags < diags.len() {
                        diags[ndiags] = diag;
                    } else {
                        diags.push(diag);
                    }
                    ndiags += 1;
                }
            }
            // Shortest first; stable like glibc's qsort.
            diags[..ndiags].sort_by_key(|d| d.dist);

            let skip = diags.get(i).map(|d| d.vert);
            target = diags[..ndiags].iter().map(|d| d.vert).find(|&vert| {
                let pt = vertex(&outline, vert);
                !intersect_seg_contour(pt, corner, skip, &outline)
                    && !holes[i..].iter().any(|h| {
                        intersect_seg_contour(pt, corner, None, &contours[h.contour].verts)
                    })
            });
            if target.is_some() {
                break;
            }
            best = (best + 1) % hole_nverts;
        }

        let Some(target) = target else {
            ctx.warning(format!(
                "mergeHoles: Failed to find merge points for contour {outline_index} and contour {}.",
                holes[i].contour
            ));
            continue;
        };
        let hole_verts = std::mem::take(&mut contours[holes[i].contour].verts);
        outline = splice_contours(&outline, target, &hole_verts, best);
    }

    contours[outline_index].verts = outline;
}

/// The outline `a` walked from vertex `ia` back to itself, then the hole `b` from `ib` back to
/// itself: the two are joined by a doubled diagonal.
fn splice_contours(a: &[i32], ia: usize, b: &[i32], ib: usize) -> Vec<i32> {
    let (na, nb) = (a.len() / 4, b.len() / 4);
    let mut merged = Vec::with_capacity((na + nb + 2) * 4);
    for k in 0..=na {
        merged.extend_from_slice(vertex(a, (ia + k) % na));
    }
    for k in 0..=nb {
        merged.extend_from_slice(vertex(b, (ib + k) % nb));
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recast::compact::{CompactCell, CompactSpan, NOT_CONNECTED};

    /// A flat compact heightfield with one span per non-zero entry of `regions` (row z, column x),
    /// connected to its 4 neighbours, all in the walkable area.
    fn flat_field(regions: &[&[u16]], border_size: i32) -> CompactHeightfield {
        let height = regions.len() as i32;
        let width = regions.first().map_or(0, |row| row.len()) as i32;
        let mut cells = Vec::new();
        let mut spans = Vec::new();
        for row in regions {
            for &reg in *row {
                let index = spans.len() as u32;
                if reg != 0 {
                    spans.push(CompactSpan {
                        y: 0,
                        reg,
                        con: 0,
                        h: 255,
                    });
                }
                cells.push(CompactCell {
                    index,
                    count: spans.len() as u32 - index,
                });
            }
        }
        let mut chf = CompactHeightfield {
            width,
            height,
            border_size,
            max_regions: regions
                .iter()
                .flat_map(|r| r.iter())
                .copied()
                .max()
                .unwrap_or(0)
                + 1,
            bmin: [0.0; 3],
            bmax: [width as f32, 1.0, height as f32],
            cs: 1.0,
            ch: 1.0,
            areas: vec![crate::recast::WALKABLE_AREA; spans.len()],
            cells,
            spans,
            ..Default::default()
        };
        for z in 0..height {
            for x in 0..width {
                let cell = chf.cell(x, z);
                for i in cell.index..cell.index + cell.count {
                    for dir in 0..4 {
                        let (nx, nz) = (x + dir_offset_x(dir), z + dir_offset_z(dir));
                        let connected = (0..width).contains(&nx)
                            && (0..height).contains(&nz)
                            && chf.cell(nx, nz).count > 0;
                        let layer = if connected { 0 } else { NOT_CONNECTED };
                        chf.spans[i as usize].set_con(dir, layer);
                    }
                }
            }
        }
        chf
    }

    fn build(chf: &CompactHeightfield, max_edge_len: i32) -> (ContourSet, BuildContext) {
        let mut ctx = BuildContext::new();
        let cset = build_contours(
            &mut ctx,
            chf,
            1.3,
            max_edge_len,
            ContourBuildFlags::default(),
        )
        .unwrap();
        (cset, ctx)
    }

    #[test]
    fn empty_heightfield_has_no_contours() {
        let (cset, ctx) = build(&CompactHeightfield::default(), 12);
        assert!(cset.contours.is_empty());
        assert!(ctx.entries().is_empty());

        let unassigned = flat_field(&[&[0, 0], &[0, 0]], 0);
        assert!(build(&unassigned, 12).0.contours.is_empty());
    }

    #[test]
    fn inconsistent_heightfield_is_an_error() {
        let mut chf = flat_field(&[&[1, 1], &[1, 1]], 0);
        chf.areas.pop();
        let mut ctx = BuildContext::new();
        let result = build_contours(&mut ctx, &chf, 1.3, 12, ContourBuildFlags::default());
        assert!(matches!(result, Err(Error::Stage { .. })));
    }

    #[test]
    fn single_region_becomes_its_bounding_square() {
        let row: &[u16] = &[1; 5];
        let (cset, _) = build(&flat_field(&[row; 5], 0), 12);
        assert_eq!(cset.contours.len(), 1);
        let contour = &cset.contours[0];
        assert_eq!(
            (contour.reg, contour.area),
            (1, crate::recast::WALKABLE_AREA)
        );
        assert_eq!(contour.nraw_verts(), 20);
        assert_eq!(
            contour.verts,
            [0, 0, 0, 0, 0, 0, 5, 0, 5, 0, 5, 0, 5, 0, 0, 0]
        );
        assert!(signed_area(&contour.verts) > 0);
    }

    #[test]
    fn long_wall_edges_are_split() {
        let row: &[u16] = &[1; 30];
        let (cset, _) = build(&flat_field(&[row; 2], 0), 12);
        let xs: Vec<i32> = cset.contours[0].verts.chunks(4).map(|v| v[0]).collect();
        // Both 30-voxel sides are halved and halved again to at most 12 voxels, rounding towards
        // the same end whichever way the side is walked.
        assert_eq!(xs, [0, 0, 7, 15, 22, 30, 30, 22, 15, 7]);

        let (unsplit, _) = build(&flat_field(&[row; 2], 0), 0);
        assert_eq!(unsplit.contours[0].nverts(), 4);
    }

    #[test]
    fn hole_is_merged_into_the_outline() {
        let ring: &[u16] = &[1, 1, 1, 1, 1, 1, 1];
        let gap: &[u16] = &[1, 1, 0, 0, 0, 1, 1];
        let (cset, ctx) = build(&flat_field(&[ring, ring, gap, gap, gap, ring, ring], 0), 12);
        assert!(ctx.entries().is_empty());
        assert_eq!(cset.contours.len(), 2);
        // The hole keeps its raw outline but gives its vertices to the outline, which gains the
        // hole's 4 corners plus both ends of the connecting diagonal twice.
        assert_eq!(cset.contours[1].nverts(), 0);
        assert_eq!(cset.contours[1].nraw_verts(), 12);
        assert_eq!(cset.contours[0].nverts(), 4 + 4 + 2);
    }

    #[test]
    fn neighbouring_regions_share_portal_vertices() {
        let row: &[u16] = &[1, 1, 1, 2, 2, 2];
        let (cset, _) = build(&flat_field(&[row; 3], 0), 12);
        assert_eq!(cset.contours.len(), 2);
        let portal_ends = |verts: &[i32], other: i32| -> Vec<(i32, i32)> {
            let mut ends: Vec<_> = verts
                .chunks(4)
                .filter(|v| v[0] == 3)
                .map(|v| (v[2], v[3] & CONTOUR_REG_MASK))
                .collect();
            ends.sort();
            assert!(ends.iter().any(|&(_, r)| r == other));
            ends.into_iter().map(|(z, _)| (3, z)).collect()
        };
        assert_eq!(
            portal_ends(&cset.contours[0].verts, 2),
            portal_ends(&cset.contours[1].verts, 1)
        );
    }

    #[test]
    fn border_size_is_removed_from_bounds_and_vertices() {
        // Recast paints the four sides of a tile border as four different border regions.
        let (left, right) = (BORDER_REG | 1, BORDER_REG | 2);
        let bottom: &[u16] = &[BORDER_REG | 3; 4];
        let top: &[u16] = &[BORDER_REG | 4; 4];
        let inner: &[u16] = &[left, 5, 5, right];
        let chf = flat_field(&[bottom, inner, inner, top], 1);
        let (cset, ctx) = build(&chf, 12);
        assert!(ctx.entries().is_empty());
        assert_eq!((cset.width, cset.height, cset.border_size), (2, 2, 1));
        assert_eq!((cset.bmin, cset.bmax), ([1.0, 0.0, 1.0], [3.0, 1.0, 3.0]));
        assert_eq!(cset.contours.len(), 1);
        let contour = &cset.contours[0];
        let corners: Vec<(i32, i32)> = contour.verts.chunks(4).map(|v| (v[0], v[2])).collect();
        assert_eq!(corners, [(0, 2), (2, 2), (2, 0), (0, 0)]);
        // The middle of each side has two cells of one border region on the outside.
        let border_vertices: Vec<(i32, i32)> = contour
            .raw_verts
            .chunks(4)
            .filter(|v| v[3] & BORDER_VERTEX != 0)
            .map(|v| (v[0], v[2]))
            .collect();
        assert_eq!(border_vertices.len(), 4);
        assert!(border_vertices.iter().all(|&(x, z)| x == 1 || z == 1));
    }
}
