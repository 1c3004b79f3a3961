//! The parts of `DetourCommon` the queries need beyond [`crate::detour::common`], with the
//! same f32 operations in the same order as C++ (no fused multiply-add, no reassociation).

use crate::detour::VERTS_PER_POLYGON;
use crate::detour::common::{Vec3, max, min, sqr, vsub};

/// `dtVdist`.
#[inline]
pub fn vdist(a: &Vec3, b: &Vec3) -> f32 {
    vdist_sqr(a, b).sqrt()
}

/// `dtVdistSqr`.
#[inline]
pub fn vdist_sqr(a: &Vec3, b: &Vec3) -> f32 {
    let dx = b[0] - a[0];
    let dy = b[1] - a[1];
    let dz = b[2] - a[2];
    dx * dx + dy * dy + dz * dz
}

/// `dtVdist2D`: the distance in xz.
#[inline]
pub fn vdist_2d(a: &Vec3, b: &Vec3) -> f32 {
    vdist_2d_sqr(a, b).sqrt()
}

/// `dtVdist2DSqr`: the squared distance in xz.
#[inline]
pub fn vdist_2d_sqr(a: &Vec3, b: &Vec3) -> f32 {
    let dx = b[0] - a[0];
    let dz = b[2] - a[2];
    dx * dx + dz * dz
}

/// `dtVdot`.
#[inline]
pub fn vdot(a: &Vec3, b: &Vec3) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// `a + b * s` per component (`dtVmad`).
#[inline]
pub fn vmad(a: &Vec3, b: &Vec3, s: f32) -> Vec3 {
    [a[0] + b[0] * s, a[1] + b[1] * s, a[2] + b[2] * s]
}

/// `dtVscale`.
#[inline]
pub fn vscale(v: &Vec3, s: f32) -> Vec3 {
    [v[0] * s, v[1] * s, v[2] * s]
}

/// Scales `v` to unit length (`dtVnormalize`; a zero vector becomes NaN, as in C++).
#[inline]
pub fn vnormalize(v: &mut Vec3) {
    let d = 1.0 / (sqr(v[0]) + sqr(v[1]) + sqr(v[2])).sqrt();
    v[0] *= d;
    v[1] *= d;
    v[2] *= d;
}

/// Whether two points are closer than 1/16384 (`dtVequal`).
#[inline]
pub fn vequal(a: &Vec3, b: &Vec3) -> bool {
    const THRESHOLD: f32 = (1.0 / 16384.0) * (1.0 / 16384.0);
    vdist_sqr(a, b) < THRESHOLD
}

/// Whether every component is finite (`dtVisfinite`).
#[inline]
pub fn visfinite(v: &Vec3) -> bool {
    v.iter().all(|c| c.is_finite())
}

/// Whether x and z are finite (`dtVisfinite2D`).
#[inline]
pub fn visfinite_2d(v: &Vec3) -> bool {
    v[0].is_finite() && v[2].is_finite()
}

/// `dtVperp2D`: the xz perp-dot product.
#[inline]
pub fn vperp_2d(u: &Vec3, v: &Vec3) -> f32 {
    u[2] * v[0] - u[0] * v[2]
}

/// `dtVdot2D`.
#[inline]
pub fn vdot_2d(u: &Vec3, v: &Vec3) -> f32 {
    u[0] * v[0] + u[2] * v[2]
}

/// Twice the signed xz area of triangle `a b c`, positive when clockwise seen from above
/// (`dtTriArea2D`).
#[inline]
pub fn tri_area_2d(a: &Vec3, b: &Vec3, c: &Vec3) -> f32 {
    let abx = b[0] - a[0];
    let abz = b[2] - a[2];
    let acx = c[0] - a[0];
    let acz = c[2] - a[2];
    acx * abz - abx * acz
}

/// Where segment `p0`–`p1` enters and leaves a convex polygon in xz
/// (`dtIntersectSegmentPoly2D`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SegmentPolyHit {
    /// Segment parameter where it enters (0 when it starts inside).
    pub tmin: f32,
    /// Segment parameter where it leaves (1 when it ends inside).
    pub tmax: f32,
    /// The edge it enters through (edge `j` runs from vertex `j` to `j + 1`), or -1.
    pub seg_min: i32,
    /// The edge it leaves through, or -1.
    pub seg_max: i32,
}

/// Clips segment `p0`–`p1` against the convex polygon `verts` in xz; `None` when they do not
/// meet (`dtIntersectSegmentPoly2D`).
pub fn intersect_segment_poly_2d(p0: &Vec3, p1: &Vec3, verts: &[Vec3]) -> Option<SegmentPolyHit> {
    intersect_segment_poly_2d_by(p0, p1, verts.len(), |k| verts[k])
}

/// [`intersect_segment_poly_2d`] on the polygon whose vertex `k` (of `nverts`) is
/// `vertex(k)`, for callers that read vertices in place.
#[inline]
pub(crate) fn intersect_segment_poly_2d_by(
    p0: &Vec3,
    p1: &Vec3,
    nverts: usize,
    vertex: impl Fn(usize) -> Vec3,
) -> Option<SegmentPolyHit> {
    const EPS: f32 = 0.000001;
    let mut hit = SegmentPolyHit {
        tmin: 0.0,
        tmax: 1.0,
        seg_min: -1,
        seg_max: -1,
    };
    let dir = vsub(p1, p0);
    if nverts == 0 {
        return Some(hit);
    }
    let mut j = nverts - 1;
    let mut vj = vertex(j);
    for i in 0..nverts {
        let vi = vertex(i);
        let edge = vsub(&vi, &vj);
        let diff = vsub(p0, &vj);
        let n = vperp_2d(&edge, &diff);
        let d = vperp_2d(&dir, &edge);
        if d.abs() < EPS {
            // Nearly parallel to this edge: outside it means no hit at all.
            if n < 0.0 {
                return None;
            }
            (j, vj) = (i, vi);
            continue;
        }
        let t = n / d;
        if d < 0.0 {
            // Entering across this edge.
            if t > hit.tmin {
                hit.tmin = t;
                hit.seg_min = j as i32;
                if hit.tmin > hit.tmax {
                    return None;
                }
            }
        } else if t < hit.tmax {
            // Leaving across this edge.
            hit.tmax = t;
            hit.seg_max = j as i32;
            if hit.tmax < hit.tmin {
                return None;
            }
        }
        (j, vj) = (i, vi);
    }
    Some(hit)
}

/// The parameters `(s, t)` where lines `ap`–`aq` and `bp`–`bq` cross in xz, `None` when
/// nearly parallel (`dtIntersectSegSeg2D`).
pub fn intersect_seg_seg_2d(ap: &Vec3, aq: &Vec3, bp: &Vec3, bq: &Vec3) -> Option<(f32, f32)> {
    let perp = |a: &Vec3, b: &Vec3| a[0] * b[2] - a[2] * b[0];
    let u = vsub(aq, ap);
    let v = vsub(bq, bp);
    let w = vsub(ap, bp);
    let d = perp(&u, &v);
    if d.abs() < 1e-6 {
        return None;
    }
    Some((perp(&v, &w) / d, perp(&u, &w) / d))
}

/// Whether `pt` lies inside the polygon in xz, and per edge `j` (vertex `j` to `j + 1`) the
/// squared distance to it and the closest point's parameter (`dtDistancePtPolyEdgesSqr`).
pub fn distance_pt_poly_edges_sqr(
    pt: &Vec3,
    verts: &[Vec3],
    edge_dist: &mut [f32; VERTS_PER_POLYGON],
    edge_t: &mut [f32; VERTS_PER_POLYGON],
) -> bool {
    let mut inside = false;
    let nverts = verts.len().min(VERTS_PER_POLYGON);
    let mut j = nverts.wrapping_sub(1);
    for i in 0..nverts {
        let vi = &verts[i];
        let vj = &verts[j];
        if ((vi[2] > pt[2]) != (vj[2] > pt[2]))
            && (pt[0] < (vj[0] - vi[0]) * (pt[2] - vi[2]) / (vj[2] - vi[2]) + vi[0])
        {
            inside = !inside;
        }
        let (d, t) = crate::detour::common::distance_pt_seg_sqr_2d(pt, vj, vi);
        edge_dist[j] = d;
        edge_t[j] = t;
        j = i;
    }
    inside
}

/// The range of `poly` projected on `axis` in xz.
fn project_poly(axis: &Vec3, poly: &[Vec3]) -> (f32, f32) {
    let first = vdot_2d(axis, &poly[0]);
    poly[1..].iter().fold((first, first), |(lo, hi), p| {
        let d = vdot_2d(axis, p);
        (min(lo, d), max(hi, d))
    })
}

/// Whether two convex polygons overlap in xz by more than 1e-4 (separating axis test,
/// `dtOverlapPolyPoly2D`).
pub fn overlap_poly_poly_2d(polya: &[Vec3], polyb: &[Vec3]) -> bool {
    const EPS: f32 = 1e-4;
    if polya.is_empty() || polyb.is_empty() {
        return false;
    }
    let separated_by_edges_of = |poly: &[Vec3]| {
        let n = poly.len();
        let mut j = n - 1;
        for i in 0..n {
            let va = &poly[j];
            let vb = &poly[i];
            let axis = [vb[2] - va[2], 0.0, -(vb[0] - va[0])];
            let (amin, amax) = project_poly(&axis, polya);
            let (bmin, bmax) = project_poly(&axis, polyb);
            if (amin + EPS) > bmax || (amax - EPS) < bmin {
                return true;
            }
            j = i;
        }
        false
    };
    !separated_by_edges_of(polya) && !separated_by_edges_of(polyb)
}

/// A point of the convex polygon `pts` chosen by two numbers in [0, 1]: `s` picks a fan
/// triangle weighted by area, `t` the distance from vertex 0 (`dtRandomPointInConvexPoly`).
pub fn random_point_in_convex_poly(pts: &[Vec3], s: f32, t: f32) -> Vec3 {
    let npts = pts.len().min(VERTS_PER_POLYGON);
    if npts == 0 {
        return [0.0; 3];
    }
    let mut areas = [0.0f32; VERTS_PER_POLYGON];
    let mut area_sum = 0.0f32;
    for i in 2..npts {
        areas[i] = tri_area_2d(&pts[0], &pts[i - 1], &pts[i]);
        area_sum += max(0.001, areas[i]);
    }
    let threshold = s * area_sum;
    let mut acc = 0.0f32;
    let mut u = 1.0f32;
    let mut tri = npts - 1;
    for (i, &dacc) in areas.iter().enumerate().take(npts).skip(2) {
        if threshold >= acc && threshold < (acc + dacc) {
            u = (threshold - acc) / dacc;
            tri = i;
            break;
        }
        acc += dacc;
    }
    let v = t.sqrt();
    let a = 1.0 - v;
    let b = (1.0 - u) * v;
    let c = u * v;
    let pa = &pts[0];
    let pb = &pts[tri.saturating_sub(1)];
    let pc = &pts[tri];
    std::array::from_fn(|k| a * pa[k] + b * pb[k] + c * pc[k])
}
