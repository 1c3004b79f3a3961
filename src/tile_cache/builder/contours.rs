//! Region outlines inside one layer (`dtBuildTileCacheContours`): each region's boundary is
//! walked cell edge by cell edge, simplified to the vertices where the neighbour changes plus
//! those needed to stay within the maximum error, and each vertex gets its corner height, the
//! tile side it lies on as a portal, and whether it may be removed from the mesh later.

use super::{BuildError, NO_REGION, NULL_AREA, WorkLayer};

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
    pub verts: Vec<[u8; 4]>,
    pub area: u8,
}

fn dir_offset(dir: usize) -> (isize, isize) {
    [(-1, 0), (0, 1), (1, 0), (0, -1)][dir & 3]
}

/// The region across side `dir` of cell (`x`, `y`): its id, a portal marker, or none.
fn neighbour_region(layer: &WorkLayer, x: usize, y: usize, dir: usize) -> u8 {
    let con = layer.cons[x + y * layer.width];
    let mask = 1u8 << dir;
    if con & 0xf & mask == 0 {
        return if (con >> 4) & mask != 0 {
            PORTAL_BASE + dir as u8
        } else {
            NO_REGION
        };
    }
    let (dx, dy) = dir_offset(dir);
    match (x.checked_add_signed(dx), y.checked_add_signed(dy)) {
        (Some(bx), Some(by)) if bx < layer.width && by < layer.height => {
            layer.regs[bx + by * layer.width]
        }
        _ => NO_REGION,
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

/// Walks the boundary of the region of cell (`x`, `y`), clockwise, into `verts` (x, height,
/// z, neighbour region).
fn walk_contour(
    layer: &WorkLayer,
    mut x: usize,
    mut y: usize,
    verts: &mut Vec<[u8; 4]>,
    capacity: usize,
) -> Result<(), BuildError> {
    let (w, h) = (layer.width, layer.height);
    verts.clear();
    let region = layer.regs[x + y * w];
    let Some(start_dir) = (0..4)
        .map(|i| (i + 3) & 3)
        .find(|&dir| neighbour_region(layer, x, y, dir) != region)
    else {
        return Ok(());
    };
    let (start_x, start_y) = (x, y);
    let mut dir = start_dir;
    for iter in 0..w * h {
        let rn = neighbour_region(layer, x, y, dir);
        let (mut nx, mut ny) = (x, y);
        let ndir;
        if rn != layer.regs[x + y * w] {
            let (px, pz) = match dir {
                0 => (x, y + 1),
                1 => (x + 1, y + 1),
                2 => (x + 1, y),
                _ => (x, y),
            };
            let v = [px as u8, layer.heights[x + y * w], pz as u8, rn];
            append_vertex(verts, v, capacity)?;
            ndir = (dir + 1) & 3;
        } else {
            let (dx, dy) = dir_offset(dir);
            match (x.checked_add_signed(dx), y.checked_add_signed(dy)) {
                (Some(bx), Some(by)) if bx < w && by < h => (nx, ny) = (bx, by),
                _ => return Err(BuildError::ContourLeavesLayer),
            }
            ndir = (dir + 3) & 3;
        }
        if iter > 0 && x == start_x && y == start_y && dir == start_dir {
            break;
        }
        (x, y, dir) = (nx, ny, ndir);
    }
    if let (Some(last), Some(first)) = (verts.last(), verts.first())
        && last[0] == first[0]
        && last[2] == first[2]
    {
        verts.pop();
    }
    Ok(())
}

/// Keeps the vertices where the neighbour changes (or the lower-left and upper-right corners
/// of a contour without any), adds the farthest vertex of each segment while it strays more
/// than `max_error`, and rotates the result to start at the lowest kept index.
fn simplify_contour(verts: &mut Vec<[u8; 4]>, max_error: f32) {
    let n = verts.len();
    let mut kept: Vec<usize> = (0..n)
        .filter(|&i| verts[(i + 1) % n][3] != verts[i][3])
        .collect();
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
        kept = vec![ll, ur];
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
    let simplified = (0..kept.len())
        .map(|i| verts[kept[(start + i) % kept.len()]])
        .collect();
    *verts = simplified;
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

/// One contour per region of `layer` (after [`super::regions::build_regions`]), with the
/// regions in the order their contours got vertices (C++ allocates them in that order).
pub(super) fn build_contours(
    layer: &WorkLayer,
    walkable_climb: i32,
    max_error: f32,
) -> Result<(Vec<Contour>, Vec<usize>), BuildError> {
    let (w, h) = (layer.width, layer.height);
    let mut contours = vec![Contour::default(); layer.region_count];
    let capacity = (w + h) * 2 * 2;
    let mut temp = Vec::with_capacity(capacity);
    let mut order = Vec::new();
    for y in 0..h {
        for x in 0..w {
            let idx = x + y * w;
            let region = layer.regs[idx];
            if region == NO_REGION {
                continue;
            }
            let contour = contours
                .get_mut(usize::from(region))
                .ok_or(BuildError::TooManyRegions)?;
            if !contour.verts.is_empty() {
                continue;
            }
            contour.area = layer.areas[idx];
            walk_contour(layer, x, y, &mut temp, capacity)?;
            if temp.is_empty() {
                continue;
            }
            simplify_contour(&mut temp, max_error);
            let n = temp.len();
            if n > 0 {
                order.push(usize::from(region));
            }
            contour.verts = (0..n)
                .map(|j| {
                    let v = temp[j];
                    let next_neighbour = temp[(j + 1) % n][3];
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
                })
                .collect();
        }
    }
    Ok((contours, order))
}
