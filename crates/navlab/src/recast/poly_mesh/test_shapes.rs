//! Generated outlines for the triangulation and merge tests.

use super::triangulate::Point;

/// A small deterministic generator (xorshift64*), so failures reproduce from the seed.
pub(super) struct Rng(u64);

impl Rng {
    pub(super) fn new(seed: u64) -> Self {
        Self(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }

    /// A value in `0..n` (`n > 0`).
    pub(super) fn below(&mut self, n: i32) -> i32 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let value = self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33;
        (value % n as u64) as i32
    }

    pub(super) fn chance(&mut self, percent: i32) -> bool {
        self.below(100) < percent
    }
}

/// Pushes points strictly between a and b on the segment (collinear extra vertices, as
/// contours with long straight runs have), then b.
fn run_to(rng: &mut Rng, points: &mut Vec<Point>, a: Point, b: Point) {
    let steps = 1 + rng.below(3);
    let (dx, dz) = (b[0] - a[0], b[1] - a[1]);
    for s in 1..steps {
        if rng.chance(50) && (dx * s) % steps == 0 && (dz * s) % steps == 0 {
            points.push([a[0] + dx * s / steps, a[1] + dz * s / steps]);
        }
    }
    points.push(b);
}

/// An outline like Recast's contour of a floor around rectangular holes, in Recast's winding:
/// each hole is joined to the bottom edge by a zero-width bridge (its two end vertices
/// repeated), the top edge is jagged and straight runs carry collinear vertices. With
/// `tangle`, a few vertices are displaced or doubled, so the outline may touch or cross itself
/// and have zero-length edges.
pub(super) fn floor_with_holes(rng: &mut Rng, max_holes: i32, tangle: bool) -> Vec<Point> {
    // Holes sit in distinct columns, so the vertical bridges cross nothing.
    let holes = 1 + rng.below(max_holes);
    let mut columns = Vec::new();
    let mut x = 2;
    for _ in 0..holes {
        let width = 1 + rng.below(6);
        columns.push((x, width));
        x += width + 2 + rng.below(4);
    }
    let width = x + rng.below(3);
    let height = 8 + rng.below(30);

    let mut points = vec![[0, 0]];
    run_to(rng, &mut points, [0, 0], [0, height]);
    let mut top = 0;
    while top < width {
        top = (top + 1 + rng.below(4)).min(width);
        points.push([top, height + rng.below(3)]);
    }
    run_to(rng, &mut points, [width, height], [width, 0]);
    for &(hx, hw) in columns.iter().rev() {
        let hz = 1 + rng.below(height / 2);
        let hh = 1 + rng.below(height - hz - 2);
        let at = *points.last().unwrap();
        run_to(rng, &mut points, at, [hx, 0]);
        run_to(rng, &mut points, [hx, 0], [hx, hz]);
        run_to(rng, &mut points, [hx, hz], [hx + hw, hz]);
        run_to(rng, &mut points, [hx + hw, hz], [hx + hw, hz + hh]);
        run_to(rng, &mut points, [hx + hw, hz + hh], [hx, hz + hh]);
        run_to(rng, &mut points, [hx, hz + hh], [hx, hz]);
        run_to(rng, &mut points, [hx, hz], [hx, 0]);
    }
    if points.last() == Some(&[0, 0]) {
        points.pop();
    }

    if tangle {
        for _ in 0..1 + rng.below(4) {
            let k = rng.below(points.len() as i32) as usize;
            if rng.chance(50) {
                points.insert(k, points[k]);
            } else {
                points[k][0] += rng.below(5) - 2;
                points[k][1] += rng.below(5) - 2;
            }
        }
    }
    let offset = [rng.below(1000), rng.below(1000)];
    points
        .iter()
        .map(|p| [p[0] + offset[0], p[1] + offset[1]])
        .collect()
}

/// Random points in a tiny box: full of duplicates, collinear runs and crossings.
pub(super) fn random_polygon(rng: &mut Rng, n: usize) -> Vec<Point> {
    let size = 2 + rng.below(10);
    (0..n).map(|_| [rng.below(size), rng.below(size)]).collect()
}

/// Contour vertices (x, y, z, flags) at height 0 for an outline.
pub(super) fn contour_verts(points: &[Point]) -> Vec<i32> {
    points.iter().flat_map(|p| [p[0], 0, p[1], 0]).collect()
}
