//! Recast's small vector helpers (`rcVcross`, `rcVmin`, …) on `[f32; 3]`, and RecastDemo's
//! ray-box test for picking.
//!
//! They keep Recast's exact operation order, and its `a < b ? a : b` min/max (which differs from
//! `f32::min` for NaN and signed zeros), so results match C++ bit for bit.

/// `a < b ? a : b`, Recast's `rcMin` for floats.
#[inline]
pub fn fmin(a: f32, b: f32) -> f32 {
    if a < b { a } else { b }
}

/// `a > b ? a : b`, Recast's `rcMax` for floats.
#[inline]
pub fn fmax(a: f32, b: f32) -> f32 {
    if a > b { a } else { b }
}

/// Recast's `rcClamp` for integers: unlike `Ord::clamp` it never panics when `lo > hi` (the lower
/// bound is tested first).
#[inline]
pub fn clamp_i32(value: i32, lo: i32, hi: i32) -> i32 {
    if value < lo {
        lo
    } else if value > hi {
        hi
    } else {
        value
    }
}

/// Cross product `v1 × v2`.
#[inline]
pub fn vcross(v1: &[f32; 3], v2: &[f32; 3]) -> [f32; 3] {
    [
        v1[1] * v2[2] - v1[2] * v2[1],
        v1[2] * v2[0] - v1[0] * v2[2],
        v1[0] * v2[1] - v1[1] * v2[0],
    ]
}

/// Dot product.
#[inline]
pub fn vdot(v1: &[f32; 3], v2: &[f32; 3]) -> f32 {
    v1[0] * v2[0] + v1[1] * v2[1] + v1[2] * v2[2]
}

/// `v1 + v2 * s`.
#[inline]
pub fn vmad(v1: &[f32; 3], v2: &[f32; 3], s: f32) -> [f32; 3] {
    [v1[0] + v2[0] * s, v1[1] + v2[1] * s, v1[2] + v2[2] * s]
}

/// `v1 + v2`.
#[inline]
pub fn vadd(v1: &[f32; 3], v2: &[f32; 3]) -> [f32; 3] {
    [v1[0] + v2[0], v1[1] + v2[1], v1[2] + v2[2]]
}

/// `v1 - v2`.
#[inline]
pub fn vsub(v1: &[f32; 3], v2: &[f32; 3]) -> [f32; 3] {
    [v1[0] - v2[0], v1[1] - v2[1], v1[2] - v2[2]]
}

/// Lowers each component of `mn` to `v`'s where that is smaller.
#[inline]
pub fn vmin(mn: &mut [f32; 3], v: &[f32; 3]) {
    for (m, &c) in mn.iter_mut().zip(v) {
        *m = fmin(*m, c);
    }
}

/// Raises each component of `mx` to `v`'s where that is larger.
#[inline]
pub fn vmax(mx: &mut [f32; 3], v: &[f32; 3]) {
    for (m, &c) in mx.iter_mut().zip(v) {
        *m = fmax(*m, c);
    }
}

/// Squared distance between two points.
#[inline]
pub fn vdist_sqr(v1: &[f32; 3], v2: &[f32; 3]) -> f32 {
    let dx = v2[0] - v1[0];
    let dy = v2[1] - v1[1];
    let dz = v2[2] - v1[2];
    dx * dx + dy * dy + dz * dz
}

/// Distance between two points.
#[inline]
pub fn vdist(v1: &[f32; 3], v2: &[f32; 3]) -> f32 {
    vdist_sqr(v1, v2).sqrt()
}

/// Scales `v` to unit length (a zero vector becomes NaNs, as in Recast).
#[inline]
pub fn vnormalize(v: &mut [f32; 3]) {
    let d = 1.0 / (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    v[0] *= d;
    v[1] *= d;
    v[2] *= d;
}

/// Squared distance on the xz-plane from cell (`x`, `z`) to the segment p–q, with Recast's f32
/// operations (contour simplification, and the tile cache's on layer cells).
pub fn distance_pt_seg_sqr(x: i32, z: i32, px: i32, pz: i32, qx: i32, qz: i32) -> f32 {
    let pqx = (qx - px) as f32;
    let pqz = (qz - pz) as f32;
    let dx = (x - px) as f32;
    let dz = (z - pz) as f32;
    let d = pqx * pqx + pqz * pqz;
    let mut t = pqx * dx + pqz * dz;
    if d > 0.0 {
        t /= d;
    }
    t = t.clamp(0.0, 1.0);
    let dx = px as f32 + t * pqx - x as f32;
    let dz = pz as f32 + t * pqz - z as f32;
    dx * dx + dz * dz
}

/// Where the ray from `start` through `end` enters the box `bmin`..`bmax`, in units of
/// `end - start` (0 when `start` is inside), or `None` when it misses. RecastDemo's
/// `isectSegAABB`, which picks agents and temp obstacles along a click's ray: the ray goes on
/// past `end`, and an axis along which it barely moves (under 1e-6) must already lie within the
/// box's slab.
pub fn ray_box_entry(
    start: &[f32; 3],
    end: &[f32; 3],
    bmin: &[f32; 3],
    bmax: &[f32; 3],
) -> Option<f32> {
    const PARALLEL: f32 = 1e-6;
    let d = vsub(end, start);
    let (mut tmin, mut tmax) = (0.0f32, f32::MAX);
    for k in 0..3 {
        if d[k].abs() < PARALLEL {
            if start[k] < bmin[k] || start[k] > bmax[k] {
                return None;
            }
            continue;
        }
        let ood = 1.0 / d[k];
        let (mut t1, mut t2) = ((bmin[k] - start[k]) * ood, (bmax[k] - start[k]) * ood);
        if t1 > t2 {
            std::mem::swap(&mut t1, &mut t2);
        }
        tmin = if t1 < tmin { tmin } else { t1 };
        tmax = if t2 < tmax { t2 } else { tmax };
        if tmin > tmax {
            return None;
        }
    }
    Some(tmin)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ray_box_entry_finds_the_near_face_and_misses_beside_and_behind() {
        let (bmin, bmax) = ([0.0, 0.0, 0.0], [1.0, 2.0, 1.0]);
        // Straight down onto the top face: entered a quarter of the way.
        let t = ray_box_entry(&[0.5, 10.0, 0.5], &[0.5, -22.0, 0.5], &bmin, &bmax);
        assert_eq!(t, Some(0.25));
        // The ray goes on past `end`, as RecastDemo's does.
        assert_eq!(
            ray_box_entry(&[0.5, 10.0, 0.5], &[0.5, 6.0, 0.5], &bmin, &bmax),
            Some(2.0)
        );
        // Starting inside enters at 0.
        assert_eq!(
            ray_box_entry(&[0.5, 1.0, 0.5], &[3.0, 1.0, 0.5], &bmin, &bmax),
            Some(0.0)
        );
        // Beside the box, parallel to an axis, and behind the start.
        assert_eq!(
            ray_box_entry(&[2.0, 10.0, 0.5], &[2.0, 0.0, 0.5], &bmin, &bmax),
            None
        );
        assert_eq!(
            ray_box_entry(&[-1.0, 1.0, 0.5], &[-2.0, 1.0, 0.5], &bmin, &bmax),
            None
        );
        // An oblique ray that passes over the box's corner.
        assert_eq!(
            ray_box_entry(&[-1.0, 3.0, -1.0], &[0.0, 2.5, 3.0], &bmin, &bmax),
            None
        );
    }
}
