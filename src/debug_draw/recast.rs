//! Debug geometry of Recast's stages (RecastDemo's `RecastDebugDraw`): the input mesh by slope,
//! heightfields, compact heightfields, regions, contours, the poly mesh and the detail mesh.

use super::{
    DebugDraw, LineBatch, PointBatch, Rgba, TriangleBatch, append_arc, area_to_col, box_colors,
    darken_col, int_to_col, lerp_col, mult_col, rgba,
};
use crate::input::obj::TriMesh;
use crate::recast::compact::CompactHeightfield;
use crate::recast::contour::{Contour, ContourSet};
use crate::recast::detail_mesh::PolyMeshDetail;
use crate::recast::heightfield::{Heightfield, Span};
use crate::recast::poly_mesh::PolyMesh;
use crate::recast::{AREA_BORDER, BORDER_VERTEX, MESH_NULL_IDX, NULL_AREA, WALKABLE_AREA};

/// The input mesh shaded by its normals, unwalkable slopes tinted orange, with RecastDemo's
/// checker-texture coordinates (`duDebugDrawTriMeshSlope`; `tex_scale` = 1 / (10 cell sizes)).
pub fn tri_mesh_slope(mesh: &TriMesh, walkable_slope_angle: f32, tex_scale: f32) -> DebugDraw {
    let walkable_cos = (walkable_slope_angle / 180.0 * std::f32::consts::PI).cos();
    let unwalkable = rgba(192, 128, 0, 255);
    let mut tris = TriangleBatch::default();
    tris.positions.reserve(mesh.tris.len());
    tris.colors.reserve(mesh.tris.len());
    tris.uvs.reserve(mesh.tris.len());
    tris.indices.reserve(mesh.tris.len());
    for (tri, n) in mesh.tris.chunks_exact(3).zip(mesh.normals.chunks_exact(3)) {
        let shade = (220.0 * (2.0 + n[0] + n[1]) / 4.0) as u8 as u32;
        let grey = rgba(shade, shade, shade, 255);
        let color = if n[1] < walkable_cos {
            lerp_col(grey, unwalkable, 64)
        } else {
            grey
        };
        // Project onto the plane most facing the normal, as RecastDemo does for its texture.
        let mut major = 0;
        if n[1].abs() > n[major].abs() {
            major = 1;
        }
        if n[2].abs() > n[major].abs() {
            major = 2;
        }
        let u_axis = (1 << major) & 3;
        let v_axis = (1 << u_axis) & 3;
        for &vi in tri {
            let v = vertex3(&mesh.verts, vi as usize);
            let i = tris.push_vertex(v, color);
            tris.uvs
                .push([v[u_axis] * tex_scale, v[v_axis] * tex_scale]);
            tris.indices.push(i);
        }
    }
    DebugDraw {
        triangles: tris,
        ..Default::default()
    }
}

fn vertex3(verts: &[f32], i: usize) -> [f32; 3] {
    [verts[i * 3], verts[i * 3 + 1], verts[i * 3 + 2]]
}

/// Which span colour a heightfield view uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VoxelColoring {
    /// Plain white boxes (`duDebugDrawHeightfieldSolid`).
    Solid,
    /// Tops coloured by area: walkable blue, null dark grey (`duDebugDrawHeightfieldWalkable`).
    Walkable,
}

/// Whether column (`x`, `z`) has a span covering `span`'s height range, which hides the side
/// of `span` facing it; outside the grid nothing does.
fn span_covered(hf: &Heightfield, x: i32, z: i32, span: &Span) -> bool {
    x >= 0
        && z >= 0
        && x < hf.width
        && z < hf.height
        && hf
            .column(x, z)
            .any(|s| s.smin <= span.smin && s.smax >= span.smax)
}

/// The top of a span in Walkable Voxels, by area (`duDebugDrawHeightfieldWalkable`).
fn walkable_top_color(area: u8) -> Rgba {
    match area {
        WALKABLE_AREA => rgba(64, 128, 160, 255),
        NULL_AREA => rgba(64, 64, 64, 255),
        area => mult_col(area_to_col(area), 200),
    }
}

/// The heightfield's spans as shaded boxes. Faces hidden by a neighbouring column's span that
/// covers them completely, and the undersides of the lowest spans, are left out: RecastDemo draws
/// every face, which makes large terrains needlessly heavy.
pub fn heightfield(hf: &Heightfield, coloring: VoxelColoring) -> DebugDraw {
    span_boxes_triangles(&heightfield_boxes(hf, coloring))
}

/// Span boxes as triangles, each face shaded as the GPU path shades it (`duCalcBoxColors`
/// from the side colour, the top as given) and only the faces the box lists: what a renderer
/// that cannot expand boxes itself draws.
pub fn span_boxes_triangles(boxes: &[SpanBox]) -> DebugDraw {
    let mut tris = TriangleBatch::default();
    for b in boxes {
        let [x0, y0, z0] = b.corner;
        let (x1, y1, z1) = (x0 + b.size, b.top, z0 + b.size);
        let shades = box_colors(b.top_color, b.side_color);
        let faces = [
            [[x0, y1, z1], [x1, y1, z1], [x1, y1, z0], [x0, y1, z0]],
            [[x0, y0, z0], [x1, y0, z0], [x1, y0, z1], [x0, y0, z1]],
            [[x1, y0, z0], [x1, y1, z0], [x1, y1, z1], [x1, y0, z1]],
            [[x0, y0, z1], [x0, y1, z1], [x0, y1, z0], [x0, y0, z0]],
            [[x1, y0, z1], [x1, y1, z1], [x0, y1, z1], [x0, y0, z1]],
            [[x0, y0, z0], [x0, y1, z0], [x1, y1, z0], [x1, y0, z0]],
        ];
        for (face, corners) in faces.into_iter().enumerate() {
            if b.faces & (1 << face) != 0 {
                let color = if face == 0 { b.top_color } else { shades[face] };
                tris.quad(corners, color);
            }
        }
    }
    DebugDraw {
        triangles: tris,
        ..Default::default()
    }
}

/// One heightfield span as a box, for renderers that expand boxes on the GPU instead of taking
/// [`heightfield`]'s triangles (a few bytes per span instead of up to 24 vertices).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpanBox {
    /// The minimum corner: cell corner and span bottom.
    pub corner: [f32; 3],
    /// The cell size (the box's width and depth).
    pub size: f32,
    /// The span's top.
    pub top: f32,
    /// The top face's colour as drawn, and the colour the bottom and sides are shaded from
    /// (`duCalcBoxColors`' second colour).
    pub top_color: Rgba,
    pub side_color: Rgba,
    /// The faces to draw, bit per face: top, bottom, +x, -x, +z, -z ([`heightfield`] leaves
    /// out the bottom of a column's lowest span and sides its neighbours cover).
    pub faces: u8,
}

/// [`heightfield`]'s spans as boxes with the same colours and the same faces left out.
pub fn heightfield_boxes(hf: &Heightfield, coloring: VoxelColoring) -> Vec<SpanBox> {
    let white = rgba(255, 255, 255, 255);
    let (solid_top, side) = match coloring {
        VoxelColoring::Solid => (box_colors(white, white)[0], white),
        VoxelColoring::Walkable => (0, rgba(217, 217, 217, 255)),
    };
    let mut boxes = Vec::new();
    for z in 0..hf.height {
        for x in 0..hf.width {
            for (layer, span) in hf.column(x, z).enumerate() {
                let hidden = |dx: i32, dz: i32| span_covered(hf, x + dx, z + dz, span);
                let faces = 1
                    | u8::from(layer > 0) << 1
                    | u8::from(!hidden(1, 0)) << 2
                    | u8::from(!hidden(-1, 0)) << 3
                    | u8::from(!hidden(0, 1)) << 4
                    | u8::from(!hidden(0, -1)) << 5;
                let top_color = match coloring {
                    VoxelColoring::Solid => solid_top,
                    VoxelColoring::Walkable => walkable_top_color(span.area),
                };
                boxes.push(SpanBox {
                    corner: [
                        hf.bmin[0] + x as f32 * hf.cs,
                        hf.bmin[1] + span.smin as f32 * hf.ch,
                        hf.bmin[2] + z as f32 * hf.cs,
                    ],
                    size: hf.cs,
                    top: hf.bmin[1] + span.smax as f32 * hf.ch,
                    top_color,
                    side_color: side,
                    faces,
                });
            }
        }
    }
    boxes
}

/// How a compact-heightfield view colours each span's floor quad.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompactColoring {
    /// By area (`duDebugDrawCompactHeightfieldSolid`).
    Area,
    /// Distance to the nearest border as grey levels (`duDebugDrawCompactHeightfieldDistance`).
    Distance,
    /// By region id (`duDebugDrawCompactHeightfieldRegions`).
    Regions,
}

/// The compact heightfield as RecastDemo draws it, a floor quad per span coloured by
/// `coloring` (region ids from `region_of(span index)`, so a viewer can show an intermediate
/// partition): each quad a span box of no height showing only its top, which the GPU expands
/// from a few bytes ([`span_boxes_triangles`] draws them without one).
pub fn compact_heightfield_boxes(
    chf: &CompactHeightfield,
    coloring: CompactColoring,
    region_of: impl Fn(usize) -> u16,
) -> Vec<SpanBox> {
    let mut boxes = Vec::with_capacity(chf.spans.len());
    for_each_compact_quad(chf, coloring, region_of, |corner, color| {
        boxes.push(SpanBox {
            corner,
            size: chf.cs,
            top: corner[1],
            top_color: color,
            side_color: color,
            faces: 1,
        });
    });
    boxes
}

/// Each span's floor quad as RecastDemo colours it: its minimum corner (raised a cell except
/// for regions) and colour. Nothing for a distance view without a distance field.
fn for_each_compact_quad(
    chf: &CompactHeightfield,
    coloring: CompactColoring,
    region_of: impl Fn(usize) -> u16,
    mut emit: impl FnMut([f32; 3], Rgba),
) {
    if coloring == CompactColoring::Distance && chf.dist.len() != chf.spans.len() {
        return;
    }
    let (cs, ch) = (chf.cs, chf.ch);
    let max_dist = (chf.max_distance as f32).max(1.0);
    let dscale = 255.0 / max_dist;
    for z in 0..chf.height {
        for x in 0..chf.width {
            let fx = chf.bmin[0] + x as f32 * cs;
            let fz = chf.bmin[2] + z as f32 * cs;
            let cell = chf.cell(x, z);
            for i in cell.index as usize..(cell.index + cell.count) as usize {
                let span = &chf.spans[i];
                let (color, lift) = match coloring {
                    CompactColoring::Area => (
                        match chf.areas[i] {
                            WALKABLE_AREA => rgba(0, 192, 255, 64),
                            NULL_AREA => rgba(0, 0, 0, 64),
                            area => area_to_col(area),
                        },
                        1,
                    ),
                    CompactColoring::Distance => {
                        let d = (chf.dist[i] as f32 * dscale) as u8 as u32;
                        (rgba(d, d, d, 255), 1)
                    }
                    CompactColoring::Regions => {
                        let reg = region_of(i);
                        let color = if reg != 0 {
                            int_to_col(reg as i32, 192)
                        } else {
                            rgba(0, 0, 0, 64)
                        };
                        (color, 0)
                    }
                };
                let fy = chf.bmin[1] + (span.y as i32 + lift) as f32 * ch;
                emit([fx, fy, fz], color);
            }
        }
    }
}

/// World position of a contour vertex, raised by one cell plus a stagger for odd contours so
/// that neighbouring outlines do not overlap.
fn contour_point(cset: &ContourSet, v: &[i32], contour_index: usize, extra: f32) -> [f32; 3] {
    [
        cset.bmin[0] + v[0] as f32 * cset.cs,
        cset.bmin[1] + (v[1] + 1 + (contour_index & 1) as i32) as f32 * cset.ch + extra,
        cset.bmin[2] + v[2] as f32 * cset.cs,
    ]
}

fn contour_center(cset: &ContourSet, contour: &Contour) -> [f32; 3] {
    let n = contour.nverts();
    if n == 0 {
        return [0.0; 3];
    }
    let mut sum = [0.0f32; 3];
    for v in contour.verts.chunks_exact(4) {
        for k in 0..3 {
            sum[k] += v[k] as f32;
        }
    }
    let s = 1.0 / n as f32;
    [
        sum[0] * s * cset.cs + cset.bmin[0],
        sum[1] * s * cset.ch + cset.bmin[1] + 4.0 * cset.ch,
        sum[2] * s * cset.cs + cset.bmin[2],
    ]
}

fn alpha_byte(alpha: f32) -> u32 {
    (alpha * 255.0) as u8 as u32
}

/// Arcs between the centres of neighbouring regions, and a dot per region
/// (`duDebugDrawRegionConnections`).
pub fn region_connections(cset: &ContourSet, alpha: f32) -> DebugDraw {
    let color = rgba(0, 0, 0, 196);
    let mut lines = LineBatch::new(2.0);
    for contour in &cset.contours {
        let from = contour_center(cset, contour);
        for v in contour.verts.chunks_exact(4) {
            let neighbour = v[3] as u16;
            if v[3] == 0 || neighbour < contour.reg {
                continue;
            }
            if let Some(other) = cset.contours.iter().find(|c| c.reg == neighbour) {
                let to = contour_center(cset, other);
                append_arc(&mut lines, from, to, 0.25, 0.6, 0.6, color);
            }
        }
    }
    let a = alpha_byte(alpha);
    let mut points = PointBatch::new(7.0);
    for contour in &cset.contours {
        points.point(
            contour_center(cset, contour),
            darken_col(int_to_col(contour.reg as i32, a)),
        );
    }
    DebugDraw {
        lines: vec![lines],
        points: vec![points],
        ..Default::default()
    }
}

/// The traced outlines of the regions (`duDebugDrawRawContours`).
pub fn raw_contours(cset: &ContourSet, alpha: f32) -> DebugDraw {
    contour_lines(cset, alpha, 2.0, 2.0, |c| &c.raw_verts, false)
}

/// The simplified outlines, area borders lighter (`duDebugDrawContours`).
pub fn contours(cset: &ContourSet, alpha: f32) -> DebugDraw {
    contour_lines(cset, alpha, 2.5, 3.0, |c| &c.verts, true)
}

fn contour_lines(
    cset: &ContourSet,
    alpha: f32,
    line_width: f32,
    point_size: f32,
    verts_of: impl Fn(&Contour) -> &Vec<i32>,
    mark_area_borders: bool,
) -> DebugDraw {
    let a = alpha_byte(alpha);
    let mut lines = LineBatch::new(line_width);
    let mut points = PointBatch::new(point_size);
    for (i, contour) in cset.contours.iter().enumerate() {
        let verts = verts_of(contour);
        let n = verts.len() / 4;
        if n == 0 {
            continue;
        }
        let color = int_to_col(contour.reg as i32, a);
        let border_color = lerp_col(color, rgba(255, 255, 255, a), 128);
        for j in 0..n {
            let prev = &verts[((j + n - 1) % n) * 4..][..4];
            let cur = &verts[j * 4..][..4];
            let col = if mark_area_borders && prev[3] & AREA_BORDER != 0 {
                border_color
            } else {
                color
            };
            lines.segment(
                contour_point(cset, prev, i, 0.0),
                contour_point(cset, cur, i, 0.0),
                col,
            );
        }
        let vertex_color = darken_col(color);
        for v in verts.chunks_exact(4) {
            let (col, lift) = if v[3] & BORDER_VERTEX != 0 {
                (rgba(255, 255, 255, a), cset.ch * 2.0)
            } else {
                (vertex_color, 0.0)
            };
            points.point(contour_point(cset, v, i, lift), col);
        }
    }
    DebugDraw {
        lines: vec![lines],
        points: vec![points],
        ..Default::default()
    }
}

/// The polygons filled by area, their shared and boundary edges, and their vertices
/// (`duDebugDrawPolyMesh`).
pub fn poly_mesh(mesh: &PolyMesh) -> DebugDraw {
    let nvp = mesh.nvp;
    let (cs, ch) = (mesh.cs, mesh.ch);
    let orig = mesh.bmin;
    let point = |vi: u16, lift: f32| {
        let v = &mesh.verts[vi as usize * 3..][..3];
        [
            orig[0] + v[0] as f32 * cs,
            orig[1] + (v[1] as f32 + 1.0) * ch + lift,
            orig[2] + v[2] as f32 * cs,
        ]
    };
    let mut tris = TriangleBatch::default();
    let mut inner = LineBatch::new(1.5);
    let mut boundary = LineBatch::new(2.5);
    let inner_color = rgba(0, 48, 64, 32);
    let boundary_color = rgba(0, 48, 64, 220);
    for i in 0..mesh.npolys {
        let p = mesh.poly(i);
        let color = match mesh.areas[i] {
            WALKABLE_AREA => rgba(0, 192, 255, 64),
            NULL_AREA => rgba(0, 0, 0, 64),
            area => area_to_col(area),
        };
        let count = p[..nvp].iter().take_while(|&&v| v != MESH_NULL_IDX).count();
        for j in 2..count {
            tris.triangle(
                [point(p[0], 0.0), point(p[j - 1], 0.0), point(p[j], 0.0)],
                color,
            );
        }
        for j in 0..count {
            let next = if j + 1 >= count { 0 } else { j + 1 };
            let (a, b) = (point(p[j], 0.1), point(p[next], 0.1));
            let neighbour = p[nvp + j];
            if neighbour & 0x8000 == 0 {
                inner.segment(a, b, inner_color);
            } else if neighbour & 0xf != 0xf {
                boundary.segment(a, b, rgba(255, 255, 255, 128));
            } else {
                boundary.segment(a, b, boundary_color);
            }
        }
    }
    let mut points = PointBatch::new(3.0);
    for vi in 0..mesh.nverts {
        points.point(point(vi as u16, 0.1), rgba(0, 0, 0, 220));
    }
    DebugDraw {
        triangles: tris,
        lines: vec![inner, boundary],
        points: vec![points],
    }
}

/// The detail triangles, one colour per polygon, with inner and outer edges
/// (`duDebugDrawPolyMeshDetail`).
pub fn poly_mesh_detail(dmesh: &PolyMeshDetail) -> DebugDraw {
    let mut tris = TriangleBatch::default();
    let mut inner = LineBatch::new(1.0);
    let mut outer = LineBatch::new(2.0);
    let mut points = PointBatch::new(3.0);
    let edge_color = rgba(0, 0, 0, 64);
    for (i, m) in dmesh.meshes.chunks_exact(4).enumerate() {
        let (bverts, nverts, btris, ntris) =
            (m[0] as usize, m[1] as usize, m[2] as usize, m[3] as usize);
        let vert = |k: u8| vertex3(&dmesh.verts, bverts + k as usize);
        let color = int_to_col(i as i32, 192);
        for t in dmesh.tris[btris * 4..(btris + ntris) * 4].chunks_exact(4) {
            tris.triangle([vert(t[0]), vert(t[1]), vert(t[2])], color);
            for (k, kp) in [(0usize, 2usize), (1, 0), (2, 1)] {
                let edge_flags = (t[3] >> (kp * 2)) & 0x3;
                if edge_flags == 0 {
                    if t[kp] < t[k] {
                        inner.segment(vert(t[kp]), vert(t[k]), edge_color);
                    }
                } else {
                    outer.segment(vert(t[kp]), vert(t[k]), edge_color);
                }
            }
        }
        for k in 0..nverts {
            points.point(vertex3(&dmesh.verts, bverts + k), edge_color);
        }
    }
    DebugDraw {
        triangles: tris,
        lines: vec![inner, outer],
        points: vec![points],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recast::heightfield::Span;

    #[test]
    fn voxel_faces_hidden_by_neighbours_are_skipped() {
        let mut hf = Heightfield::new(2, 1, [0.0; 3], [2.0, 10.0, 1.0], 1.0, 1.0);
        for x in 0..2 {
            let span = hf.alloc_span(Span {
                smin: 0,
                smax: 4,
                area: WALKABLE_AREA,
                next: crate::recast::heightfield::NO_SPAN,
            });
            hf.columns[x] = span;
        }
        let draw = heightfield(&hf, VoxelColoring::Walkable);
        // Per column: a top and three outer sides; the shared side and the bottoms are hidden.
        assert_eq!(draw.triangles.triangle_count(), 2 * 4 * 2);
        assert_eq!(draw.triangles.colors[0], rgba(64, 128, 160, 255));
        assert!(draw.triangles.is_opaque());
    }
}
