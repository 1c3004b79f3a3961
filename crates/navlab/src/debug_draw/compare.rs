//! Two builds compared, drawn over either: surface and cells gained in green and lost in red,
//! and a path under A in blue and under B in orange.

use super::detour::append_nav_mesh_poly_filled;
use super::{DebugDraw, LineBatch, PointBatch, Rgba, rgba, trans_col};
use crate::bake::compare::{PathComparison, PolyChanges, SpanCell, SpanChanges};
use crate::detour::NavMesh;

/// What B has and A has not.
pub const GAINED: Rgba = rgba(0, 200, 64, 255);
/// What A has and B has not.
pub const LOST: Rgba = rgba(224, 32, 32, 255);
/// A's path.
pub const PATH_A: Rgba = rgba(32, 96, 255, 255);
/// B's path.
pub const PATH_B: Rgba = rgba(255, 160, 0, 255);

/// Opacity of the fills, so the navmesh under them shows through.
const FILL_ALPHA: u32 = 96;
/// Height above the surface of outlines and cell tops, so they are not hidden in it.
const LIFT: f32 = 0.02;

/// B's gained polygons (on `b`) in green and A's lost ones (on `a`) in red: translucent fills
/// of their detail triangles and outlines of their edges.
pub fn poly_changes(a: &NavMesh, b: &NavMesh, changes: &PolyChanges) -> DebugDraw {
    let mut drawing = DebugDraw {
        lines: vec![LineBatch::new(2.0)],
        ..Default::default()
    };
    for (mesh, polys, color) in [(b, &changes.gained, GAINED), (a, &changes.lost, LOST)] {
        for &poly in polys {
            append_nav_mesh_poly_filled(&mut drawing, mesh, poly, trans_col(color, FILL_ALPHA));
            let Ok((slot, index)) = mesh.poly_location(poly) else {
                continue;
            };
            let Some((verts, count)) = mesh.tile(slot).and_then(|t| t.poly_vertices(index)) else {
                continue;
            };
            let lines = &mut drawing.lines[0];
            for k in 0..count {
                let (p, q) = (verts[k], verts[(k + 1) % count]);
                lines.segment(lifted(p), lifted(q), color);
            }
        }
    }
    drawing
}

/// The gained cells' tops in green and the lost ones' in red, as translucent quads.
pub fn span_changes(changes: &SpanChanges) -> DebugDraw {
    let mut drawing = DebugDraw::default();
    for (cells, color) in [(&changes.gained, GAINED), (&changes.lost, LOST)] {
        for &SpanCell { min, max } in cells {
            let y = min[1] + LIFT;
            drawing.triangles.quad(
                [
                    [min[0], y, min[2]],
                    [min[0], y, max[2]],
                    [max[0], y, max[2]],
                    [max[0], y, min[2]],
                ],
                trans_col(color, FILL_ALPHA * 2),
            );
        }
    }
    drawing
}

/// A's straight path in blue ([`PATH_A`]) and B's in orange ([`PATH_B`]), each a line through
/// its corners with a point at every corner.
pub fn paths(comparison: &PathComparison) -> DebugDraw {
    let mut lines = LineBatch::new(3.0);
    let mut points = PointBatch::new(6.0);
    for (path, color) in [(&comparison.path_a, PATH_A), (&comparison.path_b, PATH_B)] {
        for pair in path.windows(2) {
            lines.segment(lifted(pair[0]), lifted(pair[1]), color);
        }
        for &corner in path {
            points.point(lifted(corner), color);
        }
    }
    DebugDraw {
        lines: vec![lines],
        points: vec![points],
        ..Default::default()
    }
}

fn lifted(p: [f32; 3]) -> [f32; 3] {
    [p[0], p[1] + LIFT, p[2]]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gained_and_lost_cells_are_one_quad_each_in_their_colours() {
        let cell = |x: f32| SpanCell {
            min: [x, 1.0, 0.0],
            max: [x + 0.3, 1.0, 0.3],
        };
        let changes = SpanChanges {
            gained: vec![cell(0.0)],
            lost: vec![cell(1.0), cell(2.0)],
        };
        let drawing = span_changes(&changes);
        assert_eq!(drawing.triangles.triangle_count(), 6);
        let colours = &drawing.triangles.colors;
        assert_eq!(colours[0], trans_col(GAINED, FILL_ALPHA * 2));
        assert_eq!(colours[4], trans_col(LOST, FILL_ALPHA * 2));
    }

    #[test]
    fn each_path_is_drawn_in_its_own_colour() {
        let comparison = PathComparison {
            path_a: vec![[0.0; 3], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0]],
            path_b: vec![[0.0; 3], [2.0, 0.0, 0.0]],
            ..Default::default()
        };
        let drawing = paths(&comparison);
        assert_eq!(drawing.lines[0].colors, [PATH_A, PATH_A, PATH_B]);
        assert_eq!(drawing.points[0].points.len(), 5);
    }
}
