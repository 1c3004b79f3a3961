//! Debug geometry of a geometry set's authored content, as RecastDemo's `InputGeom` draws it:
//! convex volumes (translucent prisms in their area's colour) and off-mesh connections (posts,
//! end circles and the arc).

use super::{
    DebugDraw, LineBatch, PointBatch, TriangleBatch, append_arc, append_circle, area_to_col,
    darken_col, rgba, trans_col,
};
use crate::input::geomset::{ConvexVolume, OffMeshConnection};

/// Every volume's sides and top filled, its edges and its corner points
/// (`InputGeom::drawConvexVolumes`).
pub fn convex_volumes(volumes: &[ConvexVolume]) -> DebugDraw {
    let mut tris = TriangleBatch::default();
    let mut lines = LineBatch::new(2.0);
    let mut points = PointBatch::new(3.0);
    for volume in volumes {
        let fill = trans_col(area_to_col(volume.area), 32);
        let edge = trans_col(area_to_col(volume.area), 220);
        let (lo, hi) = (volume.hmin, volume.hmax);
        let at = |v: &[f32; 3], y: f32| [v[0], y, v[2]];
        let n = volume.verts.len();
        for j in 0..n {
            let (a, b) = (&volume.verts[(j + n - 1) % n], &volume.verts[j]);
            tris.triangle([at(&volume.verts[0], hi), at(b, hi), at(a, hi)], fill);
            tris.triangle([at(a, lo), at(a, hi), at(b, hi)], darken_col(fill));
            tris.triangle([at(a, lo), at(b, hi), at(b, lo)], darken_col(fill));
            lines.segment(at(a, lo), at(b, lo), darken_col(edge));
            lines.segment(at(a, hi), at(b, hi), edge);
            lines.segment(at(a, lo), at(a, hi), edge);
        }
        let corner = darken_col(edge);
        for v in &volume.verts {
            points.point([v[0], v[1] + 0.1, v[2]], corner);
            points.point(at(v, lo), corner);
            points.point(at(v, hi), corner);
        }
    }
    DebugDraw {
        triangles: tris,
        lines: vec![lines],
        points: vec![points],
    }
}

/// Every connection's end posts and radius circles, and its arc (arrows at the ends it can
/// be entered from) (`InputGeom::drawOffMeshConnections` with the highlight on).
pub fn off_mesh_connections(connections: &[OffMeshConnection]) -> DebugDraw {
    let base = rgba(0, 0, 0, 64);
    let arc_color = rgba(192, 0, 128, 192);
    let mut lines = LineBatch::new(2.0);
    for c in connections {
        for end in [c.start, c.end] {
            lines.segment(end, [end[0], end[1] + 0.2, end[2]], base);
            append_circle(&mut lines, [end[0], end[1] + 0.1, end[2]], c.radius, base);
        }
        let back = if c.bidirectional { 0.6 } else { 0.0 };
        append_arc(&mut lines, c.start, c.end, 0.25, back, 0.6, arc_color);
    }
    DebugDraw {
        lines: vec![lines],
        ..Default::default()
    }
}
