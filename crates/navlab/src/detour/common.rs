//! Detour's small math helpers (`DetourCommon`), written so that every f32 operation happens in
//! the same order as in C++ and NaN/-0.0 behave as C++'s ternaries do.

/// A point or vector (x, y, z).
pub type Vec3 = [f32; 3];

/// `a < b ? a : b`, as `dtMin` (differs from `f32::min` for NaN).
#[inline]
pub fn min(a: f32, b: f32) -> f32 {
    if a < b { a } else { b }
}

/// `a > b ? a : b`, as `dtMax`.
#[inline]
pub fn max(a: f32, b: f32) -> f32 {
    if a > b { a } else { b }
}

/// `dtClamp`: `v < lo ? lo : (v > hi ? hi : v)`.
#[inline]
pub fn clamp(v: f32, lo: f32, hi: f32) -> f32 {
    if v < lo {
        lo
    } else if v > hi {
        hi
    } else {
        v
    }
}

/// `dtAbs`: `a < 0 ? -a : a` (keeps -0.0, unlike `f32::abs`).
#[inline]
pub fn abs(a: f32) -> f32 {
    if a < 0.0 { -a } else { a }
}

#[inline]
/// `a * a` (`dtSqr`).
pub fn sqr(a: f32) -> f32 {
    a * a
}

#[inline]
/// `a - b`, per component (`dtVsub`).
pub fn vsub(a: &Vec3, b: &Vec3) -> Vec3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

#[inline]
/// `a + b`, per component (`dtVadd`).
pub fn vadd(a: &Vec3, b: &Vec3) -> Vec3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

/// `a + (b - a) * t`, per component.
#[inline]
pub fn vlerp(a: &Vec3, b: &Vec3, t: f32) -> Vec3 {
    [
        a[0] + (b[0] - a[0]) * t,
        a[1] + (b[1] - a[1]) * t,
        a[2] + (b[2] - a[2]) * t,
    ]
}

#[inline]
/// The squared length (`dtVlenSqr`).
pub fn vlen_sqr(v: &Vec3) -> f32 {
    v[0] * v[0] + v[1] * v[1] + v[2] * v[2]
}

/// Component-wise [`min`] into `acc`.
#[inline]
pub fn vmin(acc: &mut Vec3, v: &Vec3) {
    for k in 0..3 {
        acc[k] = min(acc[k], v[k]);
    }
}

/// Component-wise [`max`] into `acc`.
#[inline]
pub fn vmax(acc: &mut Vec3, v: &Vec3) {
    for k in 0..3 {
        acc[k] = max(acc[k], v[k]);
    }
}

/// Squared xz distance from `pt` to segment `p`–`q`, and the segment parameter of the closest
/// point (`dtDistancePtSegSqr2D`).
pub fn distance_pt_seg_sqr_2d(pt: &Vec3, p: &Vec3, q: &Vec3) -> (f32, f32) {
    let pqx = q[0] - p[0];
    let pqz = q[2] - p[2];
    let dx = pt[0] - p[0];
    let dz = pt[2] - p[2];
    let d = pqx * pqx + pqz * pqz;
    let mut t = pqx * dx + pqz * dz;
    if d > 0.0 {
        t /= d;
    }
    // NaN stays NaN, as in C++.
    t = t.clamp(0.0, 1.0);
    let dx = p[0] + t * pqx - pt[0];
    let dz = p[2] + t * pqz - pt[2];
    (dx * dx + dz * dz, t)
}

/// The height of triangle `a b c` above `p` when `p` lies inside it in xz
/// (`dtClosestHeightPointTriangle`).
pub fn closest_height_point_triangle(p: &Vec3, a: &Vec3, b: &Vec3, c: &Vec3) -> Option<f32> {
    const EPS: f32 = 1e-6;
    let v0 = vsub(c, a);
    let v1 = vsub(b, a);
    let v2 = vsub(p, a);
    let mut denom = v0[0] * v1[2] - v0[2] * v1[0];
    if denom.abs() < EPS {
        return None;
    }
    let mut u = v1[2] * v2[0] - v1[0] * v2[2];
    let mut v = v0[0] * v2[2] - v0[2] * v2[0];
    if denom < 0.0 {
        denom = -denom;
        u = -u;
        v = -v;
    }
    if u >= 0.0 && v >= 0.0 && (u + v) <= denom {
        Some(a[1] + (v0[1] * u + v1[1] * v) / denom)
    } else {
        None
    }
}

/// Whether `pt` lies inside the polygon in xz (`dtPointInPolygon`, crossing-number test).
pub fn point_in_polygon(pt: &Vec3, verts: &[Vec3]) -> bool {
    point_in_polygon_by(pt, verts.len(), |k| &verts[k])
}

/// [`point_in_polygon`] on the `n` vertices `vertex(0..n)`, so a polygon's vertices can be
/// read where they are stored instead of being copied out first.
#[inline]
pub fn point_in_polygon_by<'v>(pt: &Vec3, n: usize, vertex: impl Fn(usize) -> &'v Vec3) -> bool {
    let Some(last) = n.checked_sub(1) else {
        return false;
    };
    let mut inside = false;
    let mut vj = vertex(last);
    for i in 0..n {
        let vi = vertex(i);
        if ((vi[2] > pt[2]) != (vj[2] > pt[2]))
            && (pt[0] < (vj[0] - vi[0]) * (pt[2] - vi[2]) / (vj[2] - vi[2]) + vi[0])
        {
            inside = !inside;
        }
        vj = vi;
    }
    inside
}

/// Whether two quantised boxes overlap (`dtOverlapQuantBounds`).
#[inline]
pub fn overlap_quant_bounds(
    amin: &[u16; 3],
    amax: &[u16; 3],
    bmin: &[u16; 3],
    bmax: &[u16; 3],
) -> bool {
    (0..3).all(|k| !(amin[k] > bmax[k] || amax[k] < bmin[k]))
}

/// Whether two boxes overlap (`dtOverlapBounds`).
#[inline]
pub fn overlap_bounds(amin: &Vec3, amax: &Vec3, bmin: &Vec3, bmax: &Vec3) -> bool {
    (0..3).all(|k| !(amin[k] > bmax[k] || amax[k] < bmin[k]))
}

/// The smallest power of two ≥ `v` (`dtNextPow2`; 0 maps to 0, values over 2³¹ wrap to 0).
pub fn next_pow2(v: u32) -> u32 {
    let mut v = v.wrapping_sub(1);
    v |= v >> 1;
    v |= v >> 2;
    v |= v >> 4;
    v |= v >> 8;
    v |= v >> 16;
    v.wrapping_add(1)
}

/// ⌊log₂ v⌋, with 0 for 0 (`dtIlog2`).
pub fn ilog2(v: u32) -> u32 {
    if v == 0 { 0 } else { 31 - v.leading_zeros() }
}

/// C++'s float → unsigned short conversion as x86 compilers emit it: truncate to a 32-bit
/// int, keep the low 16 bits. Rust's `as u16` would saturate instead; the two agree on
/// 0..=65535 and differ only for values C++ leaves undefined.
#[inline]
pub fn f32_to_u16_wrapping(v: f32) -> u16 {
    v as i32 as u16
}

/// C++'s `(int)floorf(x)` as x86 executes it: values outside `i32` (and NaN) become
/// `i32::MIN` rather than saturating. Computed without `floorf`, which is a library call on
/// x86-64 without SSE4.1.
#[inline]
pub fn floor_to_i32_like_x86(x: f32) -> i32 {
    if !(-2_147_483_648.0..2_147_483_648.0).contains(&x) {
        return i32::MIN;
    }
    let truncated = x as i32;
    if truncated as f32 > x {
        truncated - 1
    } else {
        truncated
    }
}
