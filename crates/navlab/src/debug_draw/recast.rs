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
    span_faces_triangles(&SpanGrid::of_heightfield(hf), |emit| {
        heightfield_faces(hf, coloring, emit)
    })
}

/// Where a voxel view's faces sit: the grid's minimum corner, cell size and cell height.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpanGrid {
    /// The grid's minimum corner, world units.
    pub origin: [f32; 3],
    /// Cell size on xz, world units.
    pub cs: f32,
    /// Cell height, world units.
    pub ch: f32,
    /// Cells along x and z.
    pub width: i32,
    /// Cells along z.
    pub height: i32,
}

impl SpanGrid {
    /// The grid of a heightfield.
    pub fn of_heightfield(hf: &Heightfield) -> Self {
        Self {
            origin: hf.bmin,
            cs: hf.cs,
            ch: hf.ch,
            width: hf.width,
            height: hf.height,
        }
    }

    /// The grid of a compact heightfield.
    pub fn of_compact(chf: &CompactHeightfield) -> Self {
        Self {
            origin: chf.bmin,
            cs: chf.cs,
            ch: chf.ch,
            width: chf.width,
            height: chf.height,
        }
    }

    /// Whether every cell and run fits [`SpanFace::packed`].
    pub fn packable(&self) -> bool {
        self.width <= i32::from(u16::MAX) && self.height <= i32::from(u16::MAX)
    }

    /// The world corners of `face`, counter-clockwise seen from outside in the order a
    /// triangle strip takes them (0, 1, 2 and 2, 1, 3 are its two triangles).
    pub fn corners(&self, face: &SpanFace) -> [[f32; 3]; 4] {
        let x0 = self.origin[0] + face.x as f32 * self.cs;
        let z0 = self.origin[2] + face.z as f32 * self.cs;
        let y0 = self.origin[1] + f32::from(face.bottom) * self.ch;
        let y1 = self.origin[1] + f32::from(face.top) * self.ch;
        let (along_x, along_z) = if face.runs_along_z() {
            (1, face.run)
        } else {
            (face.run, 1)
        };
        let x1 = self.origin[0] + (face.x + along_x) as f32 * self.cs;
        let z1 = self.origin[2] + (face.z + along_z) as f32 * self.cs;
        match face.face {
            SpanFace::TOP => [[x0, y1, z0], [x0, y1, z1], [x1, y1, z0], [x1, y1, z1]],
            SpanFace::BOTTOM => [[x0, y0, z0], [x1, y0, z0], [x0, y0, z1], [x1, y0, z1]],
            SpanFace::POS_X => [[x1, y0, z0], [x1, y1, z0], [x1, y0, z1], [x1, y1, z1]],
            SpanFace::NEG_X => [[x0, y0, z0], [x0, y0, z1], [x0, y1, z0], [x0, y1, z1]],
            SpanFace::POS_Z => [[x0, y0, z1], [x1, y0, z1], [x0, y1, z1], [x1, y1, z1]],
            _ => [[x0, y0, z0], [x0, y1, z0], [x1, y0, z0], [x1, y1, z0]],
        }
    }
}

/// One visible face of a span's box, already shaded (`duCalcBoxColors`), stretched over `run`
/// neighbouring cells whose same face lies in the same plane with the same colour (along x,
/// or along z for the ±x sides): a flat floor is one quad per row instead of one per cell,
/// which is what lets a software renderer draw a city. A compact view's floor quad is the top
/// of a box of no height. Where the colour is a grey level that changes from cell to cell (the
/// Compact Distance view), a run carries each cell's level instead ([`SpanFace::greys`]).
/// Renderers that expand faces on the GPU take it as 16 bytes ([`SpanFace::packed`]), 32 with
/// grey levels, instead of four vertices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpanFace {
    /// The first cell (any grid's; [`SpanFace::packed`] takes those of
    /// [`SpanGrid::packable`] grids).
    pub x: u32,
    /// The first cell's z.
    pub z: u32,
    /// Bottom and top of the box, in cell heights above the grid origin.
    pub bottom: u16,
    /// Top of the box, in cell heights above the grid origin.
    pub top: u16,
    /// Which face: [`SpanFace::TOP`] … [`SpanFace::NEG_Z`].
    pub face: u8,
    /// The face's colour.
    pub color: Rgba,
    /// Cells covered, at least 1.
    pub run: u32,
    /// The grey level of each cell of the run, when the cells differ only in grey (opaque
    /// `duRGBA(g, g, g, 255)`; `color` is the first cell's): a distance field's levels change
    /// almost every cell, so runs of one colour would be a cell long.
    pub greys: Option<[u8; SpanFace::MAX_GREY_RUN]>,
}

impl SpanFace {
    /// The face looking up.
    pub const TOP: u8 = 0;
    /// The face looking down.
    pub const BOTTOM: u8 = 1;
    /// The face looking towards +x.
    pub const POS_X: u8 = 2;
    /// The face looking towards −x.
    pub const NEG_X: u8 = 3;
    /// The face looking towards +z.
    pub const POS_Z: u8 = 4;
    /// The face looking towards −z.
    pub const NEG_Z: u8 = 5;
    /// The highest height [`SpanFace::packed`] keeps (14 bits; Recast's spans reach 8191).
    pub const MAX_HEIGHT: u16 = (1 << 14) - 1;

    /// The most cells a run of grey levels covers (the levels take four words of
    /// [`SpanFace::packed`]).
    pub const MAX_GREY_RUN: usize = 16;
    /// The bit of the second packed word that says the run carries grey levels.
    const GREY_FLAG: u32 = 1 << 31;

    /// Whether the run goes along z (the ±x sides) rather than along x.
    pub fn runs_along_z(&self) -> bool {
        matches!(self.face, Self::POS_X | Self::NEG_X)
    }

    /// Eight words: `x | z << 16`; `bottom | top << 14 | face << 28`, bit 31 set when the run
    /// carries grey levels; the colour; the run; then the grey levels, four per word, the first
    /// cell's in the lowest byte (zero without them, and renderers may leave them out). Only
    /// the faces of a [`SpanGrid::packable`] grid fit.
    pub fn packed(&self) -> [u32; 8] {
        let height = |h: u16| u32::from(h.min(Self::MAX_HEIGHT));
        let flag = if self.greys.is_some() {
            Self::GREY_FLAG
        } else {
            0
        };
        let greys = self.greys.unwrap_or_default();
        let word = |k: usize| u32::from_le_bytes([0, 1, 2, 3].map(|b| greys[4 * k + b]));
        [
            self.x | self.z << 16,
            height(self.bottom) | height(self.top) << 14 | u32::from(self.face) << 28 | flag,
            self.color,
            self.run,
            word(0),
            word(1),
            word(2),
            word(3),
        ]
    }

    /// The run as faces of one colour each: itself, or one face per cell for a run of grey
    /// levels (for renderers that take a colour per quad).
    pub fn single_colored(&self) -> impl Iterator<Item = SpanFace> + '_ {
        let cells = if self.greys.is_some() { self.run } else { 1 };
        (0..cells).map(move |k| match self.greys {
            Some(greys) => {
                let g = u32::from(greys[k as usize]);
                let (x, z) = if self.runs_along_z() {
                    (self.x, self.z + k)
                } else {
                    (self.x + k, self.z)
                };
                SpanFace {
                    x,
                    z,
                    color: rgba(g, g, g, 255),
                    run: 1,
                    greys: None,
                    ..*self
                }
            }
            None => *self,
        })
    }
}

/// Faces still growing along one row (or column) of cells: a face joins the run of the same
/// plane and colour that ended in the cell before, else starts its own.
#[derive(Default)]
pub(super) struct FaceRuns {
    /// Open runs and the last cell each reached.
    open: Vec<(SpanFace, u32)>,
}

impl FaceRuns {
    /// Adds `face` of cell `at` along the run axis. A face with grey levels joins a run with
    /// grey levels that has room, whatever its level.
    pub(super) fn add(&mut self, face: SpanFace, at: u32) {
        let same_plane = |(run, last): &&mut (SpanFace, u32)| {
            *last + 1 == at
                && run.face == face.face
                && run.bottom == face.bottom
                && run.top == face.top
                && match (run.greys, face.greys) {
                    (None, None) => run.color == face.color,
                    (Some(_), Some(_)) => (run.run as usize) < SpanFace::MAX_GREY_RUN,
                    _ => false,
                }
        };
        match self.open.iter_mut().find(same_plane) {
            Some((run, last)) => {
                if let (Some(levels), Some(level)) = (run.greys.as_mut(), face.greys) {
                    levels[run.run as usize] = level[0];
                }
                run.run += 1;
                *last = at;
            }
            None => self.open.push((face, at)),
        }
    }

    /// Emits the runs that did not reach cell `at - 1` (before adding cell `at`'s faces).
    pub(super) fn close_before(&mut self, at: u32, emit: &mut dyn FnMut(SpanFace)) {
        self.open.retain(|(run, last)| {
            let open = *last + 1 >= at;
            if !open {
                emit(*run);
            }
            open
        });
    }

    /// Emits every run (at the end of a row).
    pub(super) fn close_all(&mut self, emit: &mut dyn FnMut(SpanFace)) {
        for (run, _) in self.open.drain(..) {
            emit(run);
        }
    }
}

/// Faces as triangles, for a renderer that cannot expand them itself: `faces` hands each face
/// to the closure it is given.
pub fn span_faces_triangles(
    grid: &SpanGrid,
    faces: impl FnOnce(&mut dyn FnMut(SpanFace)),
) -> DebugDraw {
    let mut tris = TriangleBatch::default();
    faces(&mut |run| {
        for face in run.single_colored() {
            let [a, b, c, d] = grid.corners(&face);
            tris.quad([a, b, d, c], face.color);
        }
    });
    DebugDraw {
        triangles: tris,
        ..Default::default()
    }
}

/// The visible faces of [`heightfield`]'s boxes, as runs: first row by row (tops, bottoms and
/// the ±z sides), then column by column (the ±x sides). Grids must be
/// [`SpanGrid::packable`].
pub fn heightfield_faces(
    hf: &Heightfield,
    coloring: VoxelColoring,
    emit: &mut dyn FnMut(SpanFace),
) {
    let white = rgba(255, 255, 255, 255);
    let side = match coloring {
        VoxelColoring::Solid => white,
        VoxelColoring::Walkable => rgba(217, 217, 217, 255),
    };
    let shades = box_colors(white, side);
    let solid_top = box_colors(white, white)[0];
    let mut runs = FaceRuns::default();
    let face = |x: i32, z: i32, span: &Span, face: u8, color: Rgba| {
        let (bottom, top) = match face {
            SpanFace::TOP => (span.smax, span.smax),
            SpanFace::BOTTOM => (span.smin, span.smin),
            _ => (span.smin, span.smax),
        };
        SpanFace {
            x: x as u32,
            z: z as u32,
            bottom,
            top,
            face,
            color,
            run: 1,
            greys: None,
        }
    };
    for z in 0..hf.height {
        for x in 0..hf.width {
            runs.close_before(x as u32, emit);
            for (layer, span) in hf.column(x, z).enumerate() {
                let top_color = match coloring {
                    VoxelColoring::Solid => solid_top,
                    VoxelColoring::Walkable => walkable_top_color(span.area),
                };
                runs.add(face(x, z, span, SpanFace::TOP, top_color), x as u32);
                if layer > 0 {
                    let f = SpanFace::BOTTOM;
                    runs.add(face(x, z, span, f, shades[f as usize]), x as u32);
                }
                for (dz, f) in [(1, SpanFace::POS_Z), (-1, SpanFace::NEG_Z)] {
                    if !span_covered(hf, x, z + dz, span) {
                        runs.add(face(x, z, span, f, shades[f as usize]), x as u32);
                    }
                }
            }
        }
        runs.close_all(emit);
    }
    for x in 0..hf.width {
        for z in 0..hf.height {
            runs.close_before(z as u32, emit);
            for span in hf.column(x, z) {
                for (dx, f) in [(1, SpanFace::POS_X), (-1, SpanFace::NEG_X)] {
                    if !span_covered(hf, x + dx, z, span) {
                        runs.add(face(x, z, span, f, shades[f as usize]), z as u32);
                    }
                }
            }
        }
        runs.close_all(emit);
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

/// The compact heightfield as RecastDemo draws it, a floor quad per span coloured by
/// `coloring` (region ids from `region_of(span index)`, so a viewer can show an intermediate
/// partition): each quad the top face of a box of no height, merged into runs along x as
/// [`heightfield_faces`] does.
pub fn compact_heightfield_faces(
    chf: &CompactHeightfield,
    coloring: CompactColoring,
    region_of: impl Fn(usize) -> u16,
    emit: &mut dyn FnMut(SpanFace),
) {
    let mut runs = FaceRuns::default();
    let mut row = 0;
    for_each_compact_quad(chf, coloring, region_of, |x, z, y, color| {
        if z != row {
            runs.close_all(emit);
            row = z;
        }
        runs.close_before(x as u32, emit);
        let greys = (coloring == CompactColoring::Distance).then(|| {
            let mut levels = [0; SpanFace::MAX_GREY_RUN];
            levels[0] = super::channels(color)[0];
            levels
        });
        let face = SpanFace {
            x: x as u32,
            z: z as u32,
            bottom: y,
            top: y,
            face: SpanFace::TOP,
            color,
            run: 1,
            greys,
        };
        runs.add(face, x as u32);
    });
    runs.close_all(emit);
}

/// Each span's floor quad as RecastDemo colours it: its cell, height in cell heights (raised a
/// cell except for regions) and colour. Nothing for a distance view without a distance field.
fn for_each_compact_quad(
    chf: &CompactHeightfield,
    coloring: CompactColoring,
    region_of: impl Fn(usize) -> u16,
    mut emit: impl FnMut(i32, i32, u16, Rgba),
) {
    if coloring == CompactColoring::Distance && chf.dist.len() != chf.spans.len() {
        return;
    }
    let max_dist = (chf.max_distance as f32).max(1.0);
    let dscale = 255.0 / max_dist;
    for z in 0..chf.height {
        for x in 0..chf.width {
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
                emit(x, z, span.y.saturating_add(lift), color);
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
        // One top and the ±z sides run over both columns, then the two outer x sides; the
        // shared side and the bottoms are hidden.
        assert_eq!(draw.triangles.triangle_count(), 5 * 2);
        assert_eq!(draw.triangles.colors[0], rgba(64, 128, 160, 255));
        assert!(draw.triangles.is_opaque());
    }

    /// A grid wider than the packed faces take (drawn as triangles) keeps its far cells where
    /// they are, rather than wrapping them to the start of the row.
    #[test]
    fn wide_grids_draw_their_far_cells_in_place() {
        let width = 70_000;
        let mut hf = Heightfield::new(width, 1, [0.0; 3], [width as f32, 10.0, 1.0], 1.0, 1.0);
        assert!(!SpanGrid::of_heightfield(&hf).packable());
        for x in [0, width as usize - 1] {
            hf.columns[x] = hf.alloc_span(Span {
                smin: 0,
                smax: 4,
                area: WALKABLE_AREA,
                next: crate::recast::heightfield::NO_SPAN,
            });
        }
        let draw = heightfield(&hf, VoxelColoring::Solid);
        let far = draw
            .triangles
            .positions
            .iter()
            .map(|p| p[0])
            .fold(0.0, f32::max);
        assert_eq!(far, width as f32);
    }

    /// The distance view's runs carry each cell's grey level: expanded again they are exactly
    /// RecastDemo's quad per span, and they are far fewer than the spans.
    #[test]
    fn distance_runs_carry_every_cells_grey_level() {
        let mesh = std::sync::Arc::new(crate::input::scene::default_scene());
        let build =
            crate::bake::solo::Build::new(mesh, crate::bake::settings::BuildSettings::default())
                .unwrap();
        let chf = &build.regions;
        let mut quads = Vec::new();
        for_each_compact_quad(
            chf,
            CompactColoring::Distance,
            |_| 0,
            |x, z, y, color| quads.push((x as u32, z as u32, y, color)),
        );
        let mut runs = Vec::new();
        compact_heightfield_faces(chf, CompactColoring::Distance, |_| 0, &mut |f| runs.push(f));
        assert!(
            runs.len() * 3 < quads.len(),
            "{} runs, {} spans",
            runs.len(),
            quads.len()
        );
        let mut cells: Vec<_> = runs
            .iter()
            .inspect(|run| {
                assert!(run.greys.is_some() && run.run as usize <= SpanFace::MAX_GREY_RUN);
                assert_eq!(run.packed()[1] >> 31, 1);
            })
            .flat_map(|run| run.single_colored())
            .map(|f| {
                assert_eq!((f.run, f.greys, f.top), (1, None, f.bottom));
                (f.x, f.z, f.top, f.color)
            })
            .collect();
        cells.sort();
        quads.sort();
        assert_eq!(cells, quads);
        // The levels ride in the last four packed words, the first cell's lowest.
        let run = runs.iter().find(|r| r.run > 4).unwrap();
        let greys = run.greys.unwrap();
        assert_eq!(
            run.packed()[4],
            u32::from_le_bytes([greys[0], greys[1], greys[2], greys[3]])
        );
        // Other colourings keep one colour per run and no levels.
        compact_heightfield_faces(chf, CompactColoring::Area, |_| 0, &mut |f| {
            assert!(f.greys.is_none() && f.packed()[1] >> 31 == 0)
        });
    }
}
