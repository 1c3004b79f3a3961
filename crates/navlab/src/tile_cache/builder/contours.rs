//! Region outlines inside one layer (`dtBuildTileCacheContours`): each region's boundary is
//! walked cell edge by cell edge, simplified to the vertices where the neighbour changes plus
//! those needed to stay within the maximum error, and each vertex gets its corner height, the
//! tile side it lies on as a portal, and whether it may be removed from the mesh later.

use super::work_layer::{BuildError, NO_REGION, NULL_AREA, WorkLayer};

/// Neighbour values at and above this mark a tile-side portal (0xf8 + direction).
const PORTAL_BASE: u8 = 0xf8;
/// Vertex flag: an interior corner on a single portal side, removable from the mesh.
pub(super) const REMOVABLE_VERTEX: u8 = 0x80;
/// Vertex side value for "not on a portal".
pub(super) const NO_PORTAL: u8 = 0x0f;

/// One region's outline: per vertex x, corner height, z and flags (portal side, removable),
/// in layer cells.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Contour {
    /// Per vertex: x, corner height, z and flags.
    pub verts: Vec<[u8; 4]>,
    /// The region's area id.
    pub area: u8,
}

/// The region across side `dir` of cell `idx` (at `x`, `y`): its id, a portal marker, or none.
/// Sides are -x, +z, +x, -z.
#[inline]
fn neighbour_region(layer: &WorkLayer, idx: usize, x: usize, y: usize, dir: usize) -> u8 {
    let con = layer.cons[idx];
    let mask = 1u8 << dir;
    if con & mask == 0 {
        return if (con >> 4) & mask != 0 {
            PORTAL_BASE + dir as u8
        } else {
            NO_REGION
        };
    }
    neighbour_cell(layer, idx, x, y, dir).map_or(NO_REGION, |n| layer.regs[n])
}

/// The cell across side `dir` of cell `idx`, if it lies in the layer.
#[inline]
fn neighbour_cell(layer: &WorkLayer, idx: usize, x: usize, y: usize, dir: usize) -> Option<usize> {
    let w = layer.width;
    match dir & 3 {
        0 => (x > 0).then(|| idx - 1),
        1 => (y + 1 < layer.height).then(|| idx + w),
        2 => (x + 1 < w).then(|| idx + 1),
        _ => (y > 0).then(|| idx - w),
    }
}

/// Appends a walked vertex, extending the last segment instead when it continues straight
/// along the same neighbour. Fails when the walk exceeds `capacity` vertices.
fn append_vertex(verts: &mut Vec<[u8; 4]>, v: [u8; 4], capacity: usize) -> Result<(), BuildError> {
    if let [.., pa, pb] = verts.as_mut_slice()
        && pb[3] == v[3]
    {
        if pa[0] == pb[0] && pb[0] == v[0] {
            pb[1] = v[1];
            pb[2] = v[2];
            return Ok(());
        }
        if pa[2] == pb[2] && pb[2] == v[2] {
            pb[0] = v[0];
            pb[1] = v[1];
            return Ok(());
        }
    }
    if verts.len() + 1 > capacity {
        return Err(BuildError::ContourTooLong);
    }
    verts.push(v);
    Ok(())
}

/// Walks the boundary of the region of cell `start` (at `x`, `y`), clockwise, into `verts`
/// (x, height, z, neighbour region).
fn walk_contour(
    layer: &WorkLayer,
    start: usize,
    verts: &mut Vec<[u8; 4]>,
    capacity: usize,
) -> Result<(), BuildError> {
    let w = layer.width;
    verts.clear();
    let (mut x, mut y) = (start % w, start / w);
    let mut idx = start;
    let region = layer.regs[idx];
    let Some(start_dir) = (0..4)
        .map(|i| (i + 3) & 3)
        .find(|&dir| neighbour_region(layer, idx, x, y, dir) != region)
    else {
        return Ok(());
    };
    let mut dir = start_dir;
    for iter in 0..w * layer.height {
        let rn = neighbour_region(layer, idx, x, y, dir);
        let (mut nx, mut ny, mut nidx) = (x, y, idx);
        let ndir;
        if rn != region {
            let (px, pz) = match dir {
                0 => (x, y + 1),
                1 => (x + 1, y + 1),
                2 => (x + 1, y),
                _ => (x, y),
            };
            let v = [px as u8, layer.heights[idx], pz as u8, rn];
            append_vertex(verts, v, capacity)?;
            ndir = (dir + 1) & 3;
        } else {
            nidx = neighbour_cell(layer, idx, x, y, dir).ok_or(BuildError::ContourLeavesLayer)?;
            match dir {
                0 => nx -= 1,
                1 => ny += 1,
                2 => nx += 1,
                _ => ny -= 1,
            }
            ndir = (dir + 3) & 3;
        }
        if iter > 0 && idx == start && dir == start_dir {
            break;
        }
        (x, y, idx, dir) = (nx, ny, nidx, ndir);
    }
    if let (Some(last), Some(first)) = (verts.last(), verts.first())
        && last[0] == first[0]
        && last[2] == first[2]
    {
        verts.pop();
    }
    Ok(())
}

/// Keeps the vertices of `verts` where the neighbour changes (or the lower-left and
/// upper-right corners of a contour without any), adds the farthest vertex of each segment
/// while it strays more than `max_error`, and writes the result into `out`, rotated to start
/// at the lowest kept index.
fn simplify_contour(
    verts: &[[u8; 4]],
    max_error: f32,
    kept: &mut Vec<usize>,
    out: &mut Vec<[u8; 4]>,
) {
    let n = verts.len();
    kept.clear();
    kept.extend((0..n).filter(|&i| verts[(i + 1) % n][3] != verts[i][3]));
    if kept.len() < 2 {
        let (mut ll, mut ur) = (0, 0);
        for (i, v) in verts.iter().enumerate().skip(1) {
            let (x, z) = (v[0], v[2]);
            let (llx, llz) = (verts[ll][0], verts[ll][2]);
            if x < llx || (x == llx && z < llz) {
                ll = i;
            }
            let (urx, urz) = (verts[ur][0], verts[ur][2]);
            if x > urx || (x == urx && z > urz) {
                ur = i;
            }
        }
        kept.clear();
        kept.extend([ll, ur]);
    }

    let mut i = 0;
    while i < kept.len() {
        let ii = (i + 1) % kept.len();
        let (ai, bi) = (kept[i], kept[ii]);
        let (ax, az) = (i32::from(verts[ai][0]), i32::from(verts[ai][2]));
        let (bx, bz) = (i32::from(verts[bi][0]), i32::from(verts[bi][2]));
        let (step, mut ci, end) = if bx > ax || (bx == ax && bz > az) {
            (1, (ai + 1) % n, bi)
        } else {
            (n - 1, (bi + n - 1) % n, ai)
        };
        let mut max_d = 0.0f32;
        let mut max_i = None;
        while ci != end {
            let v = verts[ci];
            let d =
                crate::math::distance_pt_seg_sqr(i32::from(v[0]), i32::from(v[2]), ax, az, bx, bz);
            if d > max_d {
                max_d = d;
                max_i = Some(ci);
            }
            ci = (ci + step) % n;
        }
        match max_i {
            Some(mi) if max_d > max_error * max_error => kept.insert(i + 1, mi),
            _ => i += 1,
        }
    }

    let start = (1..kept.len()).fold(0, |s, i| if kept[i] < kept[s] { i } else { s });
    out.clear();
    out.extend((0..kept.len()).map(|i| verts[kept[(start + i) % kept.len()]]));
}

/// The height of the vertex at grid corner (`x`, `z`): the highest of the up to four cells
/// around it within climb of `y`, and whether the vertex lies on exactly one portal side with
/// one region around it, so it can be removed.
fn corner_height(layer: &WorkLayer, x: i32, y: i32, z: i32, walkable_climb: i32) -> (u8, bool) {
    let mut count = 0;
    let mut portal = 0xfu8;
    let mut height = 0u8;
    let mut prev_region = NO_REGION;
    let mut all_same_region = true;
    for dz in -1..=0 {
        for dx in -1..=0 {
            let (px, pz) = (x + dx, z + dz);
            if px < 0 || pz < 0 || px >= layer.width as i32 || pz >= layer.height as i32 {
                continue;
            }
            let idx = px as usize + pz as usize * layer.width;
            let lh = layer.heights[idx];
            if (i32::from(lh) - y).abs() <= walkable_climb && layer.areas[idx] != NULL_AREA {
                height = height.max(lh);
                portal &= layer.cons[idx] >> 4;
                if prev_region != NO_REGION && prev_region != layer.regs[idx] {
                    all_same_region = false;
                }
                prev_region = layer.regs[idx];
                count += 1;
            }
        }
    }
    let removable = count > 1 && portal.count_ones() == 1 && all_same_region;
    (height, removable)
}

/// The contour step's working memory, kept from one layer to the next.
#[derive(Default)]
pub(super) struct ContourBuffers {
    walk: Vec<[u8; 4]>,
    kept: Vec<usize>,
    simplified: Vec<[u8; 4]>,
    /// Contours beyond the current layer's region count, kept with their memory for the next
    /// layer that has more regions.
    spare: Vec<Contour>,
}

/// One contour per region of `layer` (after [`super::regions::build_regions`]) into
/// `contours`, and into `order` the regions in the order their contours got vertices (C++
/// allocates them in that order). `starts` gives each region's first cell in row-major order,
/// where a scan of the grid would begin its walk.
pub(super) fn build_contours(
    layer: &WorkLayer,
    starts: impl Iterator<Item = (u8, usize)>,
    walkable_climb: i32,
    max_error: f32,
    contours: &mut Vec<Contour>,
    order: &mut Vec<usize>,
    buffers: &mut ContourBuffers,
) -> Result<(), BuildError> {
    let (w, h) = (layer.width, layer.height);
    let ContourBuffers {
        walk,
        kept,
        simplified,
        spare,
    } = buffers;
    while contours.len() > layer.region_count {
        spare.extend(contours.pop());
    }
    while contours.len() < layer.region_count {
        contours.push(spare.pop().unwrap_or_default());
    }
    for contour in contours.iter_mut() {
        contour.verts.clear();
        contour.area = 0;
    }
    order.clear();
    let capacity = (w + h) * 2 * 2;
    for (region, first) in starts {
        let contour = contours
            .get_mut(usize::from(region))
            .ok_or(BuildError::TooManyRegions)?;
        contour.area = layer.areas[first];
        walk_contour(layer, first, walk, capacity)?;
        // A walk that finds no boundary (possible only in a malformed layer) is tried again
        // from the region's next cell, as a scan of the grid would.
        let mut cell = first + 1;
        while walk.is_empty() {
            let Some(next) = (cell..w * h).find(|&i| layer.regs[i] == region) else {
                break;
            };
            walk_contour(layer, next, walk, capacity)?;
            cell = next + 1;
        }
        if walk.is_empty() {
            continue;
        }
        simplify_contour(walk, max_error, kept, simplified);
        let n = simplified.len();
        if n > 0 {
            order.push(usize::from(region));
        }
        contour.verts.extend((0..n).map(|j| {
            let v = simplified[j];
            let next_neighbour = simplified[(j + 1) % n][3];
            let (lh, removable) = corner_height(
                layer,
                i32::from(v[0]),
                i32::from(v[1]),
                i32::from(v[2]),
                walkable_climb,
            );
            let mut flags = NO_PORTAL;
            if next_neighbour != NO_REGION && next_neighbour >= PORTAL_BASE {
                flags = next_neighbour - PORTAL_BASE;
            }
            if removable {
                flags |= REMOVABLE_VERTEX;
            }
            [v[0], lh, v[2], flags]
        }));
    }
    Ok(())
}
