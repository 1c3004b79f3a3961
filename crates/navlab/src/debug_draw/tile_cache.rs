//! The tile cache as RecastDemo's Temp Obstacles sample draws it: every stored layer's tight
//! bounds ("Cache Bounds"), the obstacles coloured by their state, and one layer's build steps
//! (areas, regions, contours, polygon mesh) for the Highlight Tile Cache tool
//! (`duDebugDrawTileCacheLayerAreas` and its siblings).

use super::{
    DebugDraw, LineBatch, PointBatch, Rgba, TriangleBatch, area_to_col, bounds_box, box_colors,
    darken_col, int_to_col, lerp_col, rgba, trans_col,
};
use crate::tile_cache::builder::LayerSteps;
use crate::tile_cache::builder::ObstacleShape;
use crate::tile_cache::cache::TileCache;
use crate::tile_cache::obstacles::{ObstacleState, Obstacles};

/// The walkable area of a fresh layer (`DT_TILECACHE_WALKABLE_AREA`).
const WALKABLE_AREA: u8 = 63;
/// No polygon vertex (`DT_TILECACHE_NULL_IDX`).
const NULL_INDEX: u16 = 0xffff;
/// Vertices per layer polygon.
const NVP: usize = 6;

/// A solid box with RecastDemo's face colours (`duDebugDrawBox`).
fn append_box(tris: &mut TriangleBatch, bmin: [f32; 3], bmax: [f32; 3], fcol: [Rgba; 6]) {
    let [x0, y0, z0] = bmin;
    let [x1, y1, z1] = bmax;
    tris.quad(
        [[x0, y1, z0], [x0, y1, z1], [x1, y1, z1], [x1, y1, z0]],
        fcol[0],
    );
    tris.quad(
        [[x0, y0, z0], [x1, y0, z0], [x1, y0, z1], [x0, y0, z1]],
        fcol[1],
    );
    tris.quad(
        [[x0, y0, z0], [x0, y1, z0], [x1, y1, z0], [x1, y0, z0]],
        fcol[2],
    );
    tris.quad(
        [[x1, y0, z1], [x1, y1, z1], [x0, y1, z1], [x0, y0, z1]],
        fcol[3],
    );
    tris.quad(
        [[x1, y0, z0], [x1, y1, z0], [x1, y1, z1], [x1, y0, z1]],
        fcol[4],
    );
    tris.quad(
        [[x0, y0, z1], [x0, y1, z1], [x0, y1, z0], [x0, y0, z0]],
        fcol[5],
    );
}

/// Every stored layer's tight bounds as a tinted box with a wire box around it, one colour
/// per slot (`drawTiles`, the Cache Bounds mode).
pub fn cache_bounds(cache: &TileCache) -> DebugDraw {
    let mut drawing = DebugDraw::default();
    let pad = cache.params().cs * 0.1;
    for (slot, header, _) in cache.layers() {
        let (bmin, bmax) = cache.tight_bounds(header);
        let color = int_to_col(slot as i32, 64);
        append_box(&mut drawing.triangles, bmin, bmax, box_colors(color, color));
        let mut wire = bounds_box(
            bmin.map(|v| v - pad),
            bmax.map(|v| v + pad),
            int_to_col(slot as i32, 255),
        );
        wire.width = 2.0;
        drawing.lines.push(wire);
    }
    drawing
}

/// The colour of an obstacle by its state: yellow while carved in, orange once in place, red
/// while being taken out (`drawObstacles`).
fn obstacle_color(state: ObstacleState) -> Rgba {
    match state {
        ObstacleState::Processing => rgba(255, 255, 0, 128),
        ObstacleState::Processed => rgba(255, 192, 0, 192),
        ObstacleState::Removing => rgba(220, 0, 0, 128),
        ObstacleState::Empty => 0,
    }
}

/// Every live obstacle as a solid shape with a darker wire outline.
pub fn obstacles(obstacles: &Obstacles) -> DebugDraw {
    let mut drawing = DebugDraw::default();
    let mut wires = LineBatch::new(2.0);
    for obstacle in obstacles.live() {
        let (state, shape) = (obstacle.state, obstacle.shape);
        let color = obstacle_color(state);
        let (bmin, bmax) = shape.bounds();
        match shape {
            ObstacleShape::Cylinder { .. } => {
                append_solid_cylinder(&mut drawing.triangles, bmin, bmax, color);
                super::append_cylinder_wire(&mut wires, bmin, bmax, darken_col(color));
            }
            ObstacleShape::Box { .. } | ObstacleShape::OrientedBox { .. } => {
                append_box(&mut drawing.triangles, bmin, bmax, box_colors(color, color));
                let wire = bounds_box(bmin, bmax, darken_col(color));
                wires.segments.extend(wire.segments);
                wires.colors.extend(wire.colors);
            }
        }
    }
    drawing.lines.push(wires);
    drawing
}

/// A solid upright cylinder of 16 sides in `bmin`..`bmax` (`duDebugDrawCylinder`), every face
/// counter-clockwise seen from outside.
fn append_solid_cylinder(tris: &mut TriangleBatch, bmin: [f32; 3], bmax: [f32; 3], color: Rgba) {
    const SEGMENTS: usize = 16;
    let side = darken_col(color);
    let (cx, cz) = ((bmax[0] + bmin[0]) / 2.0, (bmax[2] + bmin[2]) / 2.0);
    let (rx, rz) = ((bmax[0] - bmin[0]) / 2.0, (bmax[2] - bmin[2]) / 2.0);
    let at = |i: usize, y: f32| {
        let a = i as f32 / SEGMENTS as f32 * std::f32::consts::TAU;
        [cx + a.cos() * rx, y, cz + a.sin() * rz]
    };
    for i in 1..SEGMENTS - 1 {
        tris.triangle([at(0, bmin[1]), at(i, bmin[1]), at(i + 1, bmin[1])], side);
        tris.triangle([at(0, bmax[1]), at(i + 1, bmax[1]), at(i, bmax[1])], color);
    }
    for i in 0..SEGMENTS {
        let j = (i + 1) % SEGMENTS;
        tris.quad(
            [
                at(i, bmin[1]),
                at(i, bmax[1]),
                at(j, bmax[1]),
                at(j, bmin[1]),
            ],
            side,
        );
    }
}

/// What of a layer's build the Highlight Tile Cache tool shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LayerDetail {
    #[default]
    /// The cells' areas after the obstacles.
    Areas,
    /// The monotone regions.
    Regions,
    /// The region outlines.
    Contours,
    /// The polygon mesh.
    Mesh,
}

impl LayerDetail {
    /// Every detail, in the tool's order.
    pub const ALL: [LayerDetail; 4] = [
        LayerDetail::Areas,
        LayerDetail::Regions,
        LayerDetail::Contours,
        LayerDetail::Mesh,
    ];

    /// RecastDemo's radio-button label.
    pub fn label(self) -> &'static str {
        match self {
            LayerDetail::Areas => "Draw Areas",
            LayerDetail::Regions => "Draw Regions",
            LayerDetail::Contours => "Draw Contours",
            LayerDetail::Mesh => "Draw Mesh",
        }
    }
}

/// One layer's build step: cells by area or region over a bounds wire, its contours, or its
/// polygons. `cs` and `ch` are the cache's cell size and height.
pub fn layer(steps: &LayerSteps, detail: LayerDetail, cs: f32, ch: f32) -> DebugDraw {
    match detail {
        LayerDetail::Areas | LayerDetail::Regions => layer_cells(steps, detail, cs, ch),
        LayerDetail::Contours => layer_contours(steps, cs, ch),
        LayerDetail::Mesh => layer_mesh(steps, cs, ch),
    }
}

fn layer_cells(steps: &LayerSteps, detail: LayerDetail, cs: f32, ch: f32) -> DebugDraw {
    let h = &steps.header;
    let (w, rows) = (usize::from(h.width), usize::from(h.height));
    let color = int_to_col(h.tlayer + 1, 255);
    let mut drawing = DebugDraw::default();
    let lbmin = [
        h.bmin[0] + f32::from(h.minx) * cs,
        h.bmin[1],
        h.bmin[2] + f32::from(h.miny) * cs,
    ];
    let lbmax = [
        h.bmin[0] + (f32::from(h.maxx) + 1.0) * cs,
        h.bmax[1],
        h.bmin[2] + (f32::from(h.maxy) + 1.0) * cs,
    ];
    let mut wire = bounds_box(lbmin, lbmax, trans_col(color, 128));
    wire.width = 2.0;
    drawing.lines.push(wire);
    for y in 0..rows {
        for x in 0..w {
            let i = x + y * w;
            let lh = steps.heights[i];
            if lh == 0xff {
                continue;
            }
            let col = match detail {
                LayerDetail::Regions => {
                    lerp_col(color, int_to_col(i32::from(steps.regions[i]), 255), 192)
                }
                _ => match steps.areas[i] {
                    WALKABLE_AREA => lerp_col(color, rgba(0, 192, 255, 64), 32),
                    0 => lerp_col(color, rgba(0, 0, 0, 64), 32),
                    area => lerp_col(color, area_to_col(area), 32),
                },
            };
            let fx = h.bmin[0] + x as f32 * cs;
            let fy = h.bmin[1] + (f32::from(lh) + 1.0) * ch;
            let fz = h.bmin[2] + y as f32 * cs;
            drawing.triangles.quad(
                [
                    [fx, fy, fz],
                    [fx, fy, fz + cs],
                    [fx + cs, fy, fz + cs],
                    [fx + cs, fy, fz],
                ],
                col,
            );
        }
    }
    drawing
}

fn layer_contours(steps: &LayerSteps, cs: f32, ch: f32) -> DebugDraw {
    const OFFSETS: [(f32, f32); 4] = [(-1.0, 0.0), (0.0, 1.0), (1.0, 0.0), (0.0, -1.0)];
    let orig = steps.header.bmin;
    let mut lines = LineBatch::new(2.0);
    let mut points = PointBatch::new(4.0);
    let at = |v: [u8; 4], lift: f32| {
        [
            orig[0] + f32::from(v[0]) * cs,
            orig[1] + (f32::from(v[1]) + 1.0 + lift) * ch,
            orig[2] + f32::from(v[2]) * cs,
        ]
    };
    for (i, contour) in steps.contours.iter().enumerate() {
        let lift = (i & 1) as f32;
        let color = int_to_col(i as i32, 255);
        let n = contour.verts.len();
        for (j, &va) in contour.verts.iter().enumerate() {
            let vb = contour.verts[(j + 1) % n];
            let (a, b) = (at(va, lift), at(vb, lift));
            let mut col = color;
            let side = usize::from(va[3] & 0xf);
            if side != 0xf {
                col = rgba(255, 255, 255, 128);
                let c = [
                    (a[0] + b[0]) * 0.5,
                    (a[1] + b[1]) * 0.5,
                    (a[2] + b[2]) * 0.5,
                ];
                let (ox, oz) = OFFSETS[side & 3];
                let d = [c[0] + ox * 2.0 * cs, c[1], c[2] + oz * 2.0 * cs];
                lines.segment(c, d, rgba(255, 0, 0, 255));
            }
            lines.segment(a, b, col);
            let removable = va[3] & 0x80 != 0;
            let point_col = if removable {
                rgba(255, 0, 0, 255)
            } else {
                darken_col(color)
            };
            points.point(a, point_col);
        }
    }
    DebugDraw {
        lines: vec![lines],
        points: vec![points],
        ..Default::default()
    }
}

fn layer_mesh(steps: &LayerSteps, cs: f32, ch: f32) -> DebugDraw {
    let orig = steps.header.bmin;
    let mesh = &steps.mesh;
    let vert = |i: u16, lift: f32| {
        let v = &mesh.verts[usize::from(i) * 3..usize::from(i) * 3 + 3];
        [
            orig[0] + f32::from(v[0]) * cs,
            orig[1] + (f32::from(v[1]) + 1.0) * ch + lift,
            orig[2] + f32::from(v[2]) * cs,
        ]
    };
    let mut drawing = DebugDraw::default();
    let mut inner = LineBatch::new(1.5);
    let mut outer = LineBatch::new(2.5);
    for (i, p) in mesh.polys.chunks_exact(NVP * 2).enumerate() {
        let color = match mesh.areas[i] {
            WALKABLE_AREA => rgba(0, 192, 255, 64),
            0 => rgba(0, 0, 0, 64),
            area => area_to_col(area),
        };
        let count = p[..NVP].iter().take_while(|&&v| v != NULL_INDEX).count();
        for j in 2..count {
            drawing.triangles.triangle(
                [vert(p[0], 0.0), vert(p[j - 1], 0.0), vert(p[j], 0.0)],
                color,
            );
        }
        for j in 0..count {
            let nj = (j + 1) % count;
            let (a, b) = (vert(p[j], 0.1), vert(p[nj], 0.1));
            if p[NVP + j] & 0x8000 != 0 || p[NVP + j] == NULL_INDEX {
                outer.segment(a, b, rgba(0, 48, 64, 220));
            } else {
                inner.segment(a, b, rgba(0, 48, 64, 32));
            }
        }
    }
    drawing.lines.extend([inner, outer]);
    drawing
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Obstacles are solids: culling back faces must hide only their far side.
    #[test]
    fn obstacle_solids_face_outward() {
        let (bmin, bmax) = ([1.0, 2.0, 3.0], [2.0, 4.0, 5.0]);
        let inside = [1.5, 3.0, 4.0];
        let mut cylinder = TriangleBatch::default();
        append_solid_cylinder(&mut cylinder, bmin, bmax, rgba(0, 0, 0, 255));
        assert!(cylinder.faces_outward_from(inside));
        let mut cuboid = TriangleBatch::default();
        append_box(&mut cuboid, bmin, bmax, [rgba(0, 0, 0, 255); 6]);
        assert_eq!(cuboid.triangle_count(), 12);
        assert!(cuboid.faces_outward_from(inside));
    }
}
