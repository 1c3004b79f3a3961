//! Debug geometry for every build stage, with RecastDemo's colours and conventions (its
//! `DebugUtils`), as plain vertex and line lists that any renderer can upload.
//!
//! Nothing here depends on a graphics library: the viewer turns a [`DebugDraw`] into meshes and
//! line gizmos once per stage output, and tests can inspect it directly. This module holds the
//! colours and batches; [`recast`] draws Recast's stages, [`detour`] the navmesh and
//! [`input`] a geometry set's convex volumes and off-mesh connections, [`crowd`] a crowd's
//! agents, [`tile_cache`] the tile cache and its obstacles, [`compare`] two builds' differences,
//! and [`heat_map`] measured quantities coloured against the settings they are read against.

pub mod compare;
pub mod crowd;
pub mod detour;
pub mod heat_map;
pub mod input;
pub mod recast;
pub mod tile_cache;

/// A colour packed as Recast's `duRGBA`: red in the lowest byte, alpha in the highest.
pub type Rgba = u32;

/// Packs a colour (`duRGBA`).
pub const fn rgba(r: u32, g: u32, b: u32, a: u32) -> Rgba {
    (r & 0xff) | ((g & 0xff) << 8) | ((b & 0xff) << 16) | ((a & 0xff) << 24)
}

/// Whether a packed colour has full alpha.
pub const fn is_opaque(c: Rgba) -> bool {
    c >> 24 == 0xff
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
    use crate::bake::sample_areas::area as a;
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
    /// Vertex positions, world units.
    pub positions: Vec<[f32; 3]>,
    /// One colour per vertex.
    pub colors: Vec<Rgba>,
    /// Texture coordinates for RecastDemo's checker texture; empty when untextured.
    pub uvs: Vec<[f32; 2]>,
    /// Three vertex indices per triangle.
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
        self.colors.iter().copied().all(is_opaque)
    }

    /// Each triangle's centre and the normal of its front face (not normalised): the side its
    /// corners run counter-clockwise seen from, in a right-handed frame, as OpenGL (RecastDemo)
    /// and Bevy take it. Culling back faces keeps a triangle when its front faces the camera.
    pub fn front_faces(&self) -> impl Iterator<Item = ([f32; 3], [f32; 3])> + '_ {
        self.indices.chunks_exact(3).map(|t| {
            let [a, b, c] = [0, 1, 2].map(|k| self.positions[t[k] as usize]);
            let u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
            let v = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
            let normal = [
                u[1] * v[2] - u[2] * v[1],
                u[2] * v[0] - u[0] * v[2],
                u[0] * v[1] - u[1] * v[0],
            ];
            let centre = [0, 1, 2].map(|k| (a[k] + b[k] + c[k]) / 3.0);
            (centre, normal)
        })
    }

    /// Whether every triangle's front faces away from `inside` (a closed solid around it).
    #[cfg(test)]
    pub(crate) fn faces_outward_from(&self, inside: [f32; 3]) -> bool {
        self.front_faces().all(|(centre, normal)| {
            (0..3)
                .map(|k| (centre[k] - inside[k]) * normal[k])
                .sum::<f32>()
                > 0.0
        })
    }
}

/// Line segments drawn with one width in pixels.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LineBatch {
    /// Line width in pixels.
    pub width: f32,
    /// The segments' end points.
    pub segments: Vec<[[f32; 3]; 2]>,
    /// One colour per segment.
    pub colors: Vec<Rgba>,
}

impl LineBatch {
    /// An empty batch of lines `width` pixels wide.
    pub fn new(width: f32) -> Self {
        Self {
            width,
            ..Default::default()
        }
    }

    /// Adds a segment from `a` to `b`.
    pub fn segment(&mut self, a: [f32; 3], b: [f32; 3], color: Rgba) {
        self.segments.push([a, b]);
        self.colors.push(color);
    }
}

/// Points drawn with one size in pixels.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PointBatch {
    /// Point size in pixels.
    pub size: f32,
    /// The points.
    pub points: Vec<[f32; 3]>,
    /// One colour per point.
    pub colors: Vec<Rgba>,
}

impl PointBatch {
    /// An empty batch of points `size` pixels across.
    pub fn new(size: f32) -> Self {
        Self {
            size,
            ..Default::default()
        }
    }

    /// Adds a point.
    pub fn point(&mut self, p: [f32; 3], color: Rgba) {
        self.points.push(p);
        self.colors.push(color);
    }
}

/// Everything one draw mode shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DebugDraw {
    /// The filled triangles.
    pub triangles: TriangleBatch,
    /// Line batches, one per width.
    pub lines: Vec<LineBatch>,
    /// Point batches, one per size.
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

fn eval_arc(p0: [f32; 3], d: [f32; 3], h: f32, u: f32) -> [f32; 3] {
    let bulge = h * (1.0 - (u * 2.0 - 1.0) * (u * 2.0 - 1.0));
    [p0[0] + d[0] * u, p0[1] + d[1] * u + bulge, p0[2] + d[2] * u]
}

/// An arc from `p0` to `p1` bulging up by `h` of its length, with arrow heads of size `as0`
/// and `as1` (`duAppendArc`).
pub fn append_arc(
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

/// A horizontal circle of 40 segments (`duAppendCircle`).
pub fn append_circle(lines: &mut LineBatch, c: [f32; 3], r: f32, color: Rgba) {
    const SEGMENTS: usize = 40;
    let dir = |i: usize| {
        let a = i as f32 / SEGMENTS as f32 * std::f32::consts::PI * 2.0;
        (a.cos(), a.sin())
    };
    for i in 0..SEGMENTS {
        let (j, i) = ((i + SEGMENTS - 1) % SEGMENTS, i);
        let (a, b) = (dir(j), dir(i));
        lines.segment(
            [c[0] + a.0 * r, c[1], c[2] + a.1 * r],
            [c[0] + b.0 * r, c[1], c[2] + b.1 * r],
            color,
        );
    }
}

/// A vertical wire cylinder of 16 segments inside the box `min`..`max`, with four vertical
/// lines (`duAppendCylinderWire`).
pub fn append_cylinder_wire(lines: &mut LineBatch, min: [f32; 3], max: [f32; 3], color: Rgba) {
    const SEGMENTS: usize = 16;
    let dir = |i: usize| {
        let a = i as f32 / SEGMENTS as f32 * std::f32::consts::PI * 2.0;
        (a.cos(), a.sin())
    };
    let (cx, cz) = ((max[0] + min[0]) / 2.0, (max[2] + min[2]) / 2.0);
    let (rx, rz) = ((max[0] - min[0]) / 2.0, (max[2] - min[2]) / 2.0);
    let at = |(dx, dz): (f32, f32), y: f32| [cx + dx * rx, y, cz + dz * rz];
    for i in 0..SEGMENTS {
        let (a, b) = (dir((i + SEGMENTS - 1) % SEGMENTS), dir(i));
        lines.segment(at(a, min[1]), at(b, min[1]), color);
        lines.segment(at(a, max[1]), at(b, max[1]), color);
    }
    for i in (0..SEGMENTS).step_by(SEGMENTS / 4) {
        lines.segment(at(dir(i), min[1]), at(dir(i), max[1]), color);
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
    fn bounds_box_has_twelve_edges() {
        assert_eq!(bounds_box([0.0; 3], [1.0; 3], 0).segments.len(), 12);
    }
}
