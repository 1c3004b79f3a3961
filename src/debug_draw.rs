//! Debug geometry for every build stage, with RecastDemo's colours and conventions (its
//! `DebugUtils`), as plain vertex and line lists that any renderer can upload.
//!
//! Nothing here depends on a graphics library: the viewer turns a [`DebugDraw`] into meshes and
//! line gizmos once per stage output, and tests can inspect it directly.

use crate::compact::CompactHeightfield;
use crate::contour::{Contour, ContourSet};
use crate::detail_mesh::PolyMeshDetail;
use crate::geometry::TriMesh;
use crate::heightfield::Heightfield;
use crate::poly_mesh::PolyMesh;
mod nav_mesh;

pub use nav_mesh::{
    NavMeshDrawFlags, nav_mesh, nav_mesh_bv_tree, nav_mesh_polys_with_flags, nav_mesh_portals,
};

use crate::{AREA_BORDER, BORDER_VERTEX, MESH_NULL_IDX, NULL_AREA, WALKABLE_AREA};

/// A colour packed as Recast's `duRGBA`: red in the lowest byte, alpha in the highest.
pub type Rgba = u32;

/// Packs a colour (`duRGBA`).
pub const fn rgba(r: u32, g: u32, b: u32, a: u32) -> Rgba {
    (r & 0xff) | ((g & 0xff) << 8) | ((b & 0xff) << 16) | ((a & 0xff) << 24)
}

/// The four channels of a packed colour.
pub const fn channels(c: Rgba) -> [u8; 4] {
    c.to_le_bytes()
}

/// A distinct colour per integer id, as RecastDemo colours regions and polygons (`duIntToCol`).
pub fn int_to_col(i: i32, a: u32) -> Rgba {
    let bit = |b: u32| ((i >> b) & 1) as u32;
    let r = bit(1) + bit(3) * 2 + 1;
    let g = bit(2) + bit(4) * 2 + 1;
    let b = bit(0) + bit(5) * 2 + 1;
    rgba(r * 63, g * 63, b * 63, a)
}

/// Scales the colour channels by `d / 256`, keeping alpha (`duMultCol`).
pub fn mult_col(c: Rgba, d: u32) -> Rgba {
    let [r, g, b, a] = channels(c).map(u32::from);
    rgba((r * d) >> 8, (g * d) >> 8, (b * d) >> 8, a)
}

/// Halves the colour channels, keeping alpha (`duDarkenCol`).
pub fn darken_col(c: Rgba) -> Rgba {
    ((c >> 1) & 0x007f_7f7f) | (c & 0xff00_0000)
}

/// Blends `ca` towards `cb` by `u / 255`, alpha included (`duLerpCol`).
pub fn lerp_col(ca: Rgba, cb: Rgba, u: u32) -> Rgba {
    let a = channels(ca).map(u32::from);
    let b = channels(cb).map(u32::from);
    let mix = |k: usize| (a[k] * (255 - u) + b[k] * u) / 255;
    rgba(mix(0), mix(1), mix(2), mix(3))
}

/// The colour with its alpha replaced (`duTransCol`).
pub fn trans_col(c: Rgba, a: u32) -> Rgba {
    (a << 24) | (c & 0x00ff_ffff)
}

/// RecastDemo's colour for an area id (`SampleDebugDraw::areaToCol`): its sample areas ground,
/// water, road, door, grass and jump, and red for any other id.
pub fn area_to_col(area: u8) -> Rgba {
    use crate::detour::nav_mesh_builder::sample_areas as a;
    match area {
        a::GROUND => rgba(0, 192, 255, 255),
        a::WATER => rgba(0, 0, 255, 255),
        a::ROAD => rgba(50, 20, 12, 255),
        a::DOOR => rgba(0, 255, 255, 255),
        a::GRASS => rgba(0, 255, 0, 255),
        a::JUMP => rgba(255, 255, 0, 255),
        _ => rgba(255, 0, 0, 255),
    }
}

/// Face colours of a shaded box, top first (`duCalcBoxColors`).
pub fn box_colors(top: Rgba, side: Rgba) -> [Rgba; 6] {
    [
        mult_col(top, 250),
        mult_col(side, 140),
        mult_col(side, 165),
        mult_col(side, 217),
        mult_col(side, 165),
        mult_col(side, 217),
    ]
}

/// Indexed triangles with a colour (and optionally texture coordinates) per vertex.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TriangleBatch {
    pub positions: Vec<[f32; 3]>,
    pub colors: Vec<Rgba>,
    /// Texture coordinates for RecastDemo's checker texture; empty when untextured.
    pub uvs: Vec<[f32; 2]>,
    pub indices: Vec<u32>,
}

impl TriangleBatch {
    fn push_vertex(&mut self, p: [f32; 3], color: Rgba) -> u32 {
        let index = self.positions.len() as u32;
        self.positions.push(p);
        self.colors.push(color);
        index
    }

    /// A triangle with one colour.
    pub fn triangle(&mut self, corners: [[f32; 3]; 3], color: Rgba) {
        for p in corners {
            let i = self.push_vertex(p, color);
            self.indices.push(i);
        }
    }

    /// A quad with one colour, corners in order around it (split as RecastDemo's quads).
    pub fn quad(&mut self, corners: [[f32; 3]; 4], color: Rgba) {
        let base = self.positions.len() as u32;
        for p in corners {
            self.push_vertex(p, color);
        }
        self.indices
            .extend_from_slice(&[base, base + 1, base + 2, base, base + 2, base + 3]);
    }

    /// Number of triangles.
    pub fn triangle_count(&self) -> usize {
        self.indices.len() / 3
    }

    /// Whether every vertex is fully opaque (so the batch can skip blending).
    pub fn is_opaque(&self) -> bool {
        self.colors.iter().all(|&c| c >> 24 == 0xff)
    }
}

/// Line segments drawn with one width in pixels.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LineBatch {
    pub width: f32,
    pub segments: Vec<[[f32; 3]; 2]>,
    pub colors: Vec<Rgba>,
}

impl LineBatch {
    pub fn new(width: f32) -> Self {
        Self {
            width,
            ..Default::default()
        }
    }

    pub fn segment(&mut self, a: [f32; 3], b: [f32; 3], color: Rgba) {
        self.segments.push([a, b]);
        self.colors.push(color);
    }
}

/// Points drawn with one size in pixels.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PointBatch {
    pub size: f32,
    pub points: Vec<[f32; 3]>,
    pub colors: Vec<Rgba>,
}

impl PointBatch {
    pub fn new(size: f32) -> Self {
        Self {
            size,
            ..Default::default()
        }
    }

    pub fn point(&mut self, p: [f32; 3], color: Rgba) {
        self.points.push(p);
        self.colors.push(color);
    }
}

/// Everything one draw mode shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DebugDraw {
    pub triangles: TriangleBatch,
    pub lines: Vec<LineBatch>,
    pub points: Vec<PointBatch>,
}

impl DebugDraw {
    /// Appends another drawing (used by modes that combine two, e.g. "Both Contours").
    pub fn append(&mut self, other: DebugDraw) {
        let base = self.triangles.positions.len() as u32;
        let tris = other.triangles;
        self.triangles.positions.extend(tris.positions);
        self.triangles.colors.extend(tris.colors);
        self.triangles.uvs.extend(tris.uvs);
        self.triangles
            .indices
            .extend(tris.indices.into_iter().map(|i| i + base));
        self.lines.extend(other.lines);
        self.points.extend(other.points);
    }

    /// Whether there is nothing to draw.
    pub fn is_empty(&self) -> bool {
        self.triangles.indices.is_empty()
            && self.lines.iter().all(|l| l.segments.is_empty())
            && self.points.iter().all(|p| p.points.is_empty())
    }
}

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

/// The heightfield's spans as shaded boxes. Faces hidden by a neighbouring column's span that
/// covers them completely, and the undersides of the lowest spans, are left out: RecastDemo draws
/// every face, which makes large terrains needlessly heavy.
pub fn heightfield(hf: &Heightfield, coloring: VoxelColoring) -> DebugDraw {
    let white = rgba(255, 255, 255, 255);
    let mut fcol = match coloring {
        VoxelColoring::Solid => box_colors(white, white),
        VoxelColoring::Walkable => box_colors(white, rgba(217, 217, 217, 255)),
    };
    let (cs, ch) = (hf.cs, hf.ch);
    let orig = hf.bmin;
    let mut tris = TriangleBatch::default();
    let covered = |x: i32, z: i32, smin: u16, smax: u16| {
        x >= 0
            && z >= 0
            && x < hf.width
            && z < hf.height
            && hf.column(x, z).any(|s| s.smin <= smin && s.smax >= smax)
    };
    for z in 0..hf.height {
        for x in 0..hf.width {
            let fx = orig[0] + x as f32 * cs;
            let fz = orig[2] + z as f32 * cs;
            for (layer, span) in hf.column(x, z).enumerate() {
                if coloring == VoxelColoring::Walkable {
                    fcol[0] = match span.area {
                        WALKABLE_AREA => rgba(64, 128, 160, 255),
                        NULL_AREA => rgba(64, 64, 64, 255),
                        area => mult_col(area_to_col(area), 200),
                    };
                }
                let y0 = orig[1] + span.smin as f32 * ch;
                let y1 = orig[1] + span.smax as f32 * ch;
                let (x0, x1, z0, z1) = (fx, fx + cs, fz, fz + cs);
                tris.quad(
                    [[x0, y1, z1], [x1, y1, z1], [x1, y1, z0], [x0, y1, z0]],
                    fcol[0],
                );
                if layer > 0 {
                    tris.quad(
                        [[x0, y0, z0], [x1, y0, z0], [x1, y0, z1], [x0, y0, z1]],
                        fcol[1],
                    );
                }
                let hidden = |dx: i32, dz: i32| covered(x + dx, z + dz, span.smin, span.smax);
                if !hidden(1, 0) {
                    tris.quad(
                        [[x1, y0, z0], [x1, y1, z0], [x1, y1, z1], [x1, y0, z1]],
                        fcol[2],
                    );
                }
                if !hidden(-1, 0) {
                    tris.quad(
                        [[x0, y0, z1], [x0, y1, z1], [x0, y1, z0], [x0, y0, z0]],
                        fcol[3],
                    );
                }
                if !hidden(0, 1) {
                    tris.quad(
                        [[x1, y0, z1], [x1, y1, z1], [x0, y1, z1], [x0, y0, z1]],
                        fcol[4],
                    );
                }
                if !hidden(0, -1) {
                    tris.quad(
                        [[x0, y0, z0], [x0, y1, z0], [x1, y1, z0], [x1, y0, z0]],
                        fcol[5],
                    );
                }
            }
        }
    }
    DebugDraw {
        triangles: tris,
        ..Default::default()
    }
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

/// One quad per compact span, at its floor.
pub fn compact_heightfield(chf: &CompactHeightfield, coloring: CompactColoring) -> DebugDraw {
    compact_heightfield_with(chf, coloring, |i| chf.spans[i].reg)
}

/// Like [`compact_heightfield`], with region ids taken from `region_of(span index)` (lets a
/// viewer show an intermediate partition).
pub fn compact_heightfield_with(
    chf: &CompactHeightfield,
    coloring: CompactColoring,
    region_of: impl Fn(usize) -> u16,
) -> DebugDraw {
    let mut tris = TriangleBatch::default();
    if coloring == CompactColoring::Distance && chf.dist.len() != chf.spans.len() {
        return DebugDraw::default();
    }
    let (cs, ch) = (chf.cs, chf.ch);
    let max_dist = (chf.max_distance as f32).max(1.0);
    let dscale = 255.0 / max_dist;
    tris.positions.reserve(chf.spans.len() * 4);
    tris.colors.reserve(chf.spans.len() * 4);
    tris.indices.reserve(chf.spans.len() * 6);
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
                tris.quad(
                    [
                        [fx, fy, fz],
                        [fx, fy, fz + cs],
                        [fx + cs, fy, fz + cs],
                        [fx + cs, fy, fz],
                    ],
                    color,
                );
            }
        }
    }
    DebugDraw {
        triangles: tris,
        ..Default::default()
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

fn eval_arc(p0: [f32; 3], d: [f32; 3], h: f32, u: f32) -> [f32; 3] {
    let bulge = h * (1.0 - (u * 2.0 - 1.0) * (u * 2.0 - 1.0));
    [p0[0] + d[0] * u, p0[1] + d[1] * u + bulge, p0[2] + d[2] * u]
}

/// An arc from `p0` to `p1` bulging up by `h` of its length, with arrow heads of size `as0`
/// and `as1` (`duAppendArc`).
pub(crate) fn append_arc(
    lines: &mut LineBatch,
    p0: [f32; 3],
    p1: [f32; 3],
    h: f32,
    as0: f32,
    as1: f32,
    color: Rgba,
) {
    const POINTS: usize = 8;
    const PAD: f32 = 0.05;
    let scale = (1.0 - PAD * 2.0) / POINTS as f32;
    let d = [p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]];
    let len = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
    let mut prev = eval_arc(p0, d, len * h, PAD);
    for i in 1..=POINTS {
        let pt = eval_arc(p0, d, len * h, PAD + i as f32 * scale);
        lines.segment(prev, pt, color);
        prev = pt;
    }
    if as0 > 0.001 {
        let p = eval_arc(p0, d, len * h, PAD);
        let q = eval_arc(p0, d, len * h, PAD + 0.05);
        append_arrow_head(lines, p, q, as0, color);
    }
    if as1 > 0.001 {
        let p = eval_arc(p0, d, len * h, 1.0 - PAD);
        let q = eval_arc(p0, d, len * h, 1.0 - (PAD + 0.05));
        append_arrow_head(lines, p, q, as1, color);
    }
}

fn append_arrow_head(lines: &mut LineBatch, p: [f32; 3], q: [f32; 3], s: f32, color: Rgba) {
    let sub = |a: [f32; 3], b: [f32; 3]| [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
    let cross = |a: [f32; 3], b: [f32; 3]| {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    };
    let normalize = |v: [f32; 3]| {
        let d = 1.0 / (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        [v[0] * d, v[1] * d, v[2] * d]
    };
    let d = sub(q, p);
    if d[0] * d[0] + d[1] * d[1] + d[2] * d[2] < 1e-6 {
        return;
    }
    let az = normalize(d);
    let ax = cross([0.0, 1.0, 0.0], az);
    for sign in [1.0, -1.0] {
        let tip = [
            p[0] + az[0] * s + sign * ax[0] * s / 3.0,
            p[1] + az[1] * s + sign * ax[1] * s / 3.0,
            p[2] + az[2] * s + sign * ax[2] * s / 3.0,
        ];
        lines.segment(p, tip, color);
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

/// The wire box of the build bounds, as RecastDemo draws around every sample.
pub fn bounds_box(bmin: [f32; 3], bmax: [f32; 3], color: Rgba) -> LineBatch {
    let mut lines = LineBatch::new(1.0);
    let corner = |i: usize| {
        [
            if i & 1 != 0 { bmax[0] } else { bmin[0] },
            if i & 2 != 0 { bmax[1] } else { bmin[1] },
            if i & 4 != 0 { bmax[2] } else { bmin[2] },
        ]
    };
    for i in 0..8usize {
        for bit in [1usize, 2, 4] {
            if i & bit == 0 {
                lines.segment(corner(i), corner(i | bit), color);
            }
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::heightfield::Span;

    #[test]
    fn colours_match_recastdemo() {
        assert_eq!(int_to_col(0, 255), rgba(63, 63, 63, 255));
        assert_eq!(int_to_col(1, 192), rgba(63, 63, 126, 192));
        assert_eq!(int_to_col(2, 255), rgba(126, 63, 63, 255));
        assert_eq!(
            mult_col(rgba(255, 255, 255, 255), 250),
            rgba(249, 249, 249, 255)
        );
        assert_eq!(darken_col(rgba(200, 100, 50, 7)), rgba(100, 50, 25, 7));
        assert_eq!(
            lerp_col(rgba(0, 0, 0, 0), rgba(255, 255, 255, 255), 255),
            rgba(255, 255, 255, 255)
        );
        assert_eq!(trans_col(rgba(1, 2, 3, 4), 9), rgba(1, 2, 3, 9));
        assert_eq!(area_to_col(0), rgba(0, 192, 255, 255));
    }

    #[test]
    fn voxel_faces_hidden_by_neighbours_are_skipped() {
        let mut hf = Heightfield::new(2, 1, [0.0; 3], [2.0, 10.0, 1.0], 1.0, 1.0);
        for x in 0..2 {
            let span = hf.alloc_span(Span {
                smin: 0,
                smax: 4,
                area: WALKABLE_AREA,
                next: crate::heightfield::NO_SPAN,
            });
            hf.columns[x] = span;
        }
        let draw = heightfield(&hf, VoxelColoring::Walkable);
        // Per column: a top and three outer sides; the shared side and the bottoms are hidden.
        assert_eq!(draw.triangles.triangle_count(), 2 * 4 * 2);
        assert_eq!(draw.triangles.colors[0], rgba(64, 128, 160, 255));
        assert!(draw.triangles.is_opaque());
    }

    #[test]
    fn bounds_box_has_twelve_edges() {
        assert_eq!(bounds_box([0.0; 3], [1.0; 3], 0).segments.len(), 12);
    }
}
