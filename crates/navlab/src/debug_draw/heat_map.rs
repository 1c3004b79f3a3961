//! Heat maps: one measured quantity per cell, triangle, polygon or tile, coloured on a shared
//! ramp and read against the build setting it is compared with (docs/heat-maps.md).
//!
//! Values that pass their setting, or maps without one, take [`PASS_RAMP`] (viridis from its
//! blue quarter to its yellow end: perceptually even, readable by colour-blind eyes). Values on
//! the failing side of a setting take red ([`FAIL_NEAR`]) fading to magenta ([`FAIL_FAR`]) the
//! further they are from it, a hue the passing ramp never reaches. Where a map compares with a
//! setting, whether a value fails is decided by Recast's own test, in Recast's own units and
//! f32 operations, so what is drawn failing is exactly what that test rejects.

use std::collections::HashMap;

use super::detour::wall_segments;
use super::recast::{FaceRuns, SpanFace, SpanGrid, span_faces_triangles};
use super::{DebugDraw, LineBatch, PointBatch, Rgba, TriangleBatch, lerp_col, rgba, trans_col};
use crate::bake::tiled::TiledBuild;
use crate::detour::query::NodePool;
use crate::detour::{NavMesh, PolyRef};
use crate::input::obj::TriMesh;
use crate::recast::compact::{CompactHeightfield, NOT_CONNECTED};
use crate::recast::context::TimerLabel;
use crate::recast::distance_field::layout_problem;
use crate::recast::heightfield::Heightfield;
use crate::recast::rasterize::{corner_values, face_normal, walkable_normal_y};
use crate::recast::{BORDER_REG, NULL_AREA, dir_offset_x, dir_offset_z};

/// The passing ramp, low to high values.
pub const PASS_RAMP: [Rgba; 4] = [
    rgba(59, 82, 139, 255),
    rgba(33, 145, 140, 255),
    rgba(94, 201, 98, 255),
    rgba(253, 231, 37, 255),
];
/// A value just past its setting.
pub const FAIL_NEAR: Rgba = rgba(228, 26, 28, 255);
/// A value far past its setting.
pub const FAIL_FAR: Rgba = rgba(200, 0, 200, 255);
/// The colour of a legend without stops.
const NO_STOPS: Rgba = rgba(128, 128, 128, 255);

/// How far above the surface mesh-based maps are drawn, in metres, so they do not fight with
/// the mesh under them. Grid maps sit one cell height up instead, as RecastDemo's compact views.
pub const SURFACE_LIFT: f32 = 0.05;
/// Distances to a wall are looked for up to this far, in metres; farther ones show as this.
pub const WALL_DISTANCE_CAP: f32 = 10.0;
/// Opacity of the tile quads, so the navmesh shows through them.
const TILE_ALPHA: u32 = 128;

/// Which side of a setting fails it. Maps decide with Recast's own test; this says which values
/// the legend draws in the failing hues.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Failing {
    /// Values greater than this fail (slope, step height).
    Above(f32),
    /// Values less than this fail (overhead clearance, region area).
    Below(f32),
}

impl Failing {
    /// Whether `value` lies on the failing side.
    pub fn fails(self, value: f32) -> bool {
        match self {
            Failing::Above(t) => value > t,
            Failing::Below(t) => value < t,
        }
    }

    /// `value` moved, if rounding put it on the other side, onto the side Recast's test put it
    /// (`fails`): a slope Recast rejects at 44.99999° still draws as failing.
    fn on_side(self, value: f32, fails: bool) -> f32 {
        match (self, fails) {
            (Failing::Above(t), true) => value.max(t.next_up()),
            (Failing::Above(t), false) => value.min(t),
            (Failing::Below(t), true) => value.min(t.next_down()),
            (Failing::Below(t), false) => value.max(t),
        }
    }
}

/// What a heat map's colours mean.
#[derive(Clone, Debug, PartialEq)]
pub struct Legend {
    /// What is measured (and why the map is empty, when it is).
    pub title: String,
    /// The values' unit.
    pub unit: &'static str,
    /// Value → colour, never decreasing; [`ramp_color`] interpolates between them. A value
    /// listed twice is a hard edge: below it the first colour, from it on the second.
    pub stops: Vec<(f32, Rgba)>,
    /// Values worth labelling, with their names: the settings the map is read against.
    pub marks: Vec<(f32, String)>,
    /// Which values fail the setting, for maps that have one.
    pub failing: Option<Failing>,
}

impl Legend {
    /// The passing ramp from `lo` to `hi`, without a setting.
    fn plain(title: impl Into<String>, unit: &'static str, lo: f32, hi: f32) -> Self {
        Self {
            title: title.into(),
            unit,
            stops: spread(lo, hi.max(lo.next_up())),
            marks: Vec::new(),
            failing: None,
        }
    }

    /// Passing from `lo` up to `setting`'s value `t`, failing above it up to `hi`.
    fn failing_above(
        title: impl Into<String>,
        unit: &'static str,
        (lo, t, hi): (f32, f32, f32),
        setting: &str,
    ) -> Self {
        let edge = t.next_up();
        let lo = lo.min(t);
        let top = if hi > edge {
            hi
        } else {
            (edge + (edge - lo)).max(edge.next_up())
        };
        let mut stops = spread(lo, edge);
        stops.extend([(edge, FAIL_NEAR), (top, FAIL_FAR)]);
        Self {
            title: title.into(),
            unit,
            stops,
            marks: vec![(t, setting.to_string())],
            failing: Some(Failing::Above(t)),
        }
    }

    /// Failing from `lo` up to `setting`'s value `t`, passing from it up to `hi`.
    fn failing_below(
        title: impl Into<String>,
        unit: &'static str,
        (lo, t, hi): (f32, f32, f32),
        setting: &str,
    ) -> Self {
        let top = if hi > t { hi } else { t + (t - lo).max(1.0) };
        let mut stops = Vec::new();
        if lo < t {
            stops.extend([(lo, FAIL_FAR), (t, FAIL_NEAR)]);
        }
        stops.extend(spread(t, top));
        Self {
            title: title.into(),
            unit,
            stops,
            marks: vec![(t, setting.to_string())],
            failing: Some(Failing::Below(t)),
        }
    }

    /// The colour of `value` as it is drawn: on the side of the setting `fails` says.
    fn color(&self, value: f32, fails: bool) -> Rgba {
        let value = match self.failing {
            Some(failing) => failing.on_side(value, fails),
            None => value,
        };
        ramp_color(self, value)
    }
}

/// [`PASS_RAMP`] spread evenly from `lo` to `hi`.
fn spread(lo: f32, hi: f32) -> Vec<(f32, Rgba)> {
    let last = (PASS_RAMP.len() - 1) as f32;
    PASS_RAMP
        .iter()
        .enumerate()
        .map(|(k, &c)| {
            let at = if k == PASS_RAMP.len() - 1 {
                hi
            } else {
                lo + (hi - lo) * (k as f32 / last)
            };
            (at, c)
        })
        .collect()
}

/// A drawing and what its colours mean.
#[derive(Clone, Debug, PartialEq)]
pub struct HeatMap {
    /// The coloured cells, triangles, polygons or tiles.
    pub drawing: DebugDraw,
    /// The colour legend.
    pub legend: Legend,
}

impl HeatMap {
    /// The map, its title saying so when there is nothing to draw.
    fn new(drawing: DebugDraw, mut legend: Legend) -> Self {
        if drawing.is_empty() {
            legend.title.push_str(" (nothing to draw)");
        }
        Self { drawing, legend }
    }
}

/// The colour of `value` on `legend`'s stops: interpolated between the two around it, the end
/// colours beyond them (and the first for NaN).
pub fn ramp_color(legend: &Legend, value: f32) -> Rgba {
    let stops = &legend.stops;
    let Some(&(first_value, first)) = stops.first() else {
        return NO_STOPS;
    };
    if value.is_nan() || value < first_value {
        return first;
    }
    let above = stops.partition_point(|&(at, _)| at <= value);
    let Some(&(hi, hi_color)) = stops.get(above) else {
        return stops[above - 1].1;
    };
    let (lo, lo_color) = stops[above - 1];
    let u = ((value - lo) / (hi - lo) * 255.0).round();
    lerp_col(lo_color, hi_color, u.clamp(0.0, 255.0) as u32)
}

/// Cell tops as quads, merged along x where neighbouring cells share height and colour:
/// `cells` hands over each (x, z, top in cell heights, colour), rows in order.
fn cell_tops(
    grid: &SpanGrid,
    cells: impl FnOnce(&mut dyn FnMut(i32, i32, u16, Rgba)),
) -> DebugDraw {
    span_faces_triangles(grid, |emit| {
        let mut runs = FaceRuns::default();
        let mut row = 0;
        cells(&mut |x, z, top, color| {
            if z != row {
                runs.close_all(emit);
                row = z;
            }
            runs.close_before(x as u32, emit);
            let face = SpanFace {
                x: x as u32,
                z: z as u32,
                bottom: top,
                top,
                face: SpanFace::TOP,
                color,
                run: 1,
                greys: None,
            };
            runs.add(face, x as u32);
        });
        runs.close_all(emit);
    })
}

/// Each walkable span of a consistent compact heightfield: (x, z, span index), rows in order.
fn walkable_spans(chf: &CompactHeightfield, mut visit: impl FnMut(i32, i32, usize)) {
    for z in 0..chf.height {
        for x in 0..chf.width {
            let cell = chf.cell(x, z);
            for i in cell.index as usize..(cell.index + cell.count) as usize {
                if chf.areas[i] != NULL_AREA {
                    visit(x, z, i);
                }
            }
        }
    }
}

/// Clearance: each walkable span's distance to the nearest border, the distance field watershed
/// partitioning floods from, in metres (Recast counts half cells, 2 per straight step and 3 per
/// diagonal one, then blurs). Empty, saying why, without a distance field.
pub fn clearance(chf: &CompactHeightfield) -> HeatMap {
    const TITLE: &str = "Clearance: distance to the nearest border";
    let metres = |half_cells: u16| f32::from(half_cells) * chf.cs / 2.0;
    if layout_problem(chf).is_some() || chf.dist.len() != chf.spans.len() || chf.spans.is_empty() {
        let legend = Legend::plain(format!("{TITLE} (no distance field)"), "m", 0.0, 1.0);
        return HeatMap {
            drawing: DebugDraw::default(),
            legend,
        };
    }
    let legend = Legend::plain(TITLE, "m", 0.0, metres(chf.max_distance));
    let drawing = cell_tops(&SpanGrid::of_compact(chf), |emit| {
        walkable_spans(chf, |x, z, i| {
            let color = ramp_color(&legend, metres(chf.dist[i]));
            emit(x, z, chf.spans[i].y.saturating_add(1), color);
        });
    });
    HeatMap::new(drawing, legend)
}

/// Step height: each walkable span's largest height difference to the spans beside it (the
/// one it is linked to in each direction, or where it has no link the nearest in height of
/// the neighbour column), in metres, against agentMaxClimb. A step fails as Recast's links
/// do: more cell heights than `floor(agentMaxClimb / ch)`.
pub fn step_height(chf: &CompactHeightfield, walkable_climb_m: f32) -> HeatMap {
    let climb_cells = (walkable_climb_m / chf.ch).floor() as i32;
    let consistent = layout_problem(chf).is_none();
    let mut steps = Vec::new();
    if consistent {
        walkable_spans(chf, |x, z, i| {
            let y = i32::from(chf.spans[i].y);
            let step = (0..4)
                .filter_map(|dir| {
                    let (nx, nz) = (x + dir_offset_x(dir), z + dir_offset_z(dir));
                    if nx < 0 || nz < 0 || nx >= chf.width || nz >= chf.height {
                        return None;
                    }
                    let column = chf.cell(nx, nz);
                    let neighbours = column.index as usize..(column.index + column.count) as usize;
                    let con = chf.spans[i].con(dir);
                    if con != NOT_CONNECTED {
                        let ny = chf.spans.get(column.index as usize + con as usize)?.y;
                        return Some((i32::from(ny) - y).abs());
                    }
                    neighbours
                        .map(|n| (i32::from(chf.spans[n].y) - y).abs())
                        .min()
                })
                .max();
            if let Some(step) = step {
                steps.push((x, z, i, step));
            }
        });
    }
    let largest = steps.iter().map(|s| s.3).max().unwrap_or(0) as f32 * chf.ch;
    let legend = Legend::failing_above(
        "Step height to the neighbouring spans",
        "m",
        (0.0, walkable_climb_m, largest.max(2.0 * walkable_climb_m)),
        "agentMaxClimb",
    );
    let drawing = cell_tops(&SpanGrid::of_compact(chf), |emit| {
        for &(x, z, i, step) in &steps {
            let color = legend.color(step as f32 * chf.ch, step > climb_cells);
            emit(x, z, chf.spans[i].y.saturating_add(1), color);
        }
    });
    HeatMap::new(drawing, legend)
}

/// The top of the open space above a column's highest span, as Recast's height filter takes it.
const SKY: i32 = 0xffff;

/// Overhead clearance: each span's free height above its top, to the bottom of the next span
/// up (open sky, and anything over twice agentHeight, shows as twice agentHeight), in metres,
/// against agentHeight. A span fails as Recast's height filter fails it: fewer cell heights
/// than `ceil(agentHeight / ch)`. Every span is drawn, walkable or not: each top is a floor
/// the filter judges.
pub fn overhead_clearance(hf: &Heightfield, walkable_height_m: f32) -> HeatMap {
    let height_cells = (walkable_height_m / hf.ch).ceil() as i32;
    let cap = if walkable_height_m > 0.0 {
        2.0 * walkable_height_m
    } else {
        hf.ch.max(f32::MIN_POSITIVE)
    };
    let legend = Legend::failing_below(
        "Overhead clearance above each span",
        "m",
        (0.0, walkable_height_m, cap),
        "agentHeight",
    );
    let consistent = hf.width >= 0
        && hf.height >= 0
        && hf.columns.len() == hf.width as usize * hf.height as usize;
    let drawing = cell_tops(&SpanGrid::of_heightfield(hf), |emit| {
        if !consistent {
            return;
        }
        for z in 0..hf.height {
            for x in 0..hf.width {
                let mut column = hf.column(x, z).peekable();
                while let Some(span) = column.next() {
                    let ceiling = column.peek().map_or(SKY, |next| i32::from(next.smin));
                    let free = ceiling - i32::from(span.smax);
                    let metres = (free as f32 * hf.ch).min(cap);
                    let color = legend.color(metres, free < height_cells);
                    emit(x, z, span.smax.saturating_add(1), color);
                }
            }
        }
    });
    HeatMap::new(drawing, legend)
}

/// Region area: each walkable span coloured by the number of spans (cells) of its region,
/// against minRegionArea (smaller regions are removed) and mergeRegionArea (smaller ones are
/// merged into a neighbour), both in cells. Spans left in no region after the build (their
/// region was removed) show as 0 cells; tile-border regions are not drawn. Colours are spaced
/// logarithmically above minRegionArea, since region sizes span orders of magnitude. Empty,
/// saying so, when no span is in a region.
pub fn region_area(
    chf: &CompactHeightfield,
    min_region_area: i32,
    merge_region_area: i32,
) -> HeatMap {
    let consistent = layout_problem(chf).is_none();
    let mut cells_of_region: Vec<u32> = Vec::new();
    if consistent {
        for span in &chf.spans {
            if span.reg != 0 && span.reg & BORDER_REG == 0 {
                let reg = usize::from(span.reg);
                if reg >= cells_of_region.len() {
                    cells_of_region.resize(reg + 1, 0);
                }
                cells_of_region[reg] += 1;
            }
        }
    }
    let largest = cells_of_region.iter().copied().max().unwrap_or(0);
    let mut legend = region_legend(min_region_area, merge_region_area, largest);
    if largest == 0 {
        legend
            .title
            .push_str(" (no regions: not partitioned yet, or every region removed)");
        return HeatMap {
            drawing: DebugDraw::default(),
            legend,
        };
    }
    let drawing = cell_tops(&SpanGrid::of_compact(chf), |emit| {
        walkable_spans(chf, |x, z, i| {
            let reg = chf.spans[i].reg;
            if reg & BORDER_REG != 0 {
                return;
            }
            let cells = if reg == 0 {
                0
            } else {
                cells_of_region[usize::from(reg)]
            };
            let fails = i64::from(cells) < i64::from(min_region_area);
            let color = legend.color(cells as f32, fails);
            emit(x, z, chf.spans[i].y.saturating_add(1), color);
        });
    });
    HeatMap::new(drawing, legend)
}

/// The region-area legend: failing below minRegionArea, then the passing ramp spaced
/// logarithmically up to the largest region (at least four times either setting).
fn region_legend(min_region_area: i32, merge_region_area: i32, largest: u32) -> Legend {
    let min = min_region_area as f32;
    let low = min.max(1.0);
    let top = (largest as f32)
        .max(4.0 * merge_region_area as f32)
        .max(4.0 * low);
    let last = (PASS_RAMP.len() - 1) as f32;
    let mut stops = Vec::new();
    if min > 0.0 {
        stops.extend([(0.0, FAIL_FAR), (min, FAIL_NEAR)]);
    }
    for (k, &color) in PASS_RAMP.iter().enumerate() {
        let at = if k == PASS_RAMP.len() - 1 {
            top
        } else {
            low * (top / low).powf(k as f32 / last)
        };
        stops.push((at, color));
    }
    Legend {
        title: "Region area".to_string(),
        unit: "cells",
        stops,
        marks: vec![
            (min, "minRegionArea".to_string()),
            (merge_region_area as f32, "mergeRegionArea".to_string()),
        ],
        failing: Some(Failing::Below(min)),
    }
}

/// Input slope: each input triangle by its slope in degrees, against walkableSlope. A triangle
/// fails exactly when Recast's triangle marking (`rcMarkWalkableTriangles`) leaves it
/// unwalkable. Triangles with a corner out of range are left out.
pub fn input_slope(mesh: &TriMesh, walkable_slope_deg: f32) -> HeatMap {
    let walkable_normal = walkable_normal_y(walkable_slope_deg);
    let legend = Legend::failing_above(
        "Input triangle slope",
        "°",
        (0.0, walkable_slope_deg, 90.0),
        "walkableSlope",
    );
    let mut tris = TriangleBatch::default();
    for tri in mesh.tris.chunks_exact(3) {
        let Some([a, b, c]) = corner_values(&mesh.verts, tri) else {
            continue;
        };
        let normal_y = face_normal(&a, &b, &c)[1];
        let walkable = normal_y > walkable_normal;
        let degrees = if normal_y.is_nan() {
            90.0
        } else {
            normal_y.clamp(-1.0, 1.0).acos().to_degrees()
        };
        tris.triangle([a, b, c].map(lifted), legend.color(degrees, !walkable));
    }
    HeatMap::new(
        DebugDraw {
            triangles: tris,
            ..Default::default()
        },
        legend,
    )
}

fn lifted(p: [f32; 3]) -> [f32; 3] {
    [p[0], p[1] + SURFACE_LIFT, p[2]]
}

fn midpoint(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [0, 1, 2].map(|k| (a[k] + b[k]) / 2.0)
}

fn centroid([a, b, c]: [[f32; 3]; 3]) -> [f32; 3] {
    [0, 1, 2].map(|k| (a[k] + b[k] + c[k]) / 3.0)
}

/// Distance to the nearest wall on the navmesh: each detail triangle split in four, each piece
/// coloured by the distance from its centre to the nearest wall (a polygon edge with no
/// neighbour, or a tile-border edge with no link), in metres, up to [`WALL_DISTANCE_CAP`].
/// Walls are looked up in a grid, so the cost grows with the triangles, not their square.
pub fn wall_distance(mesh: &NavMesh) -> HeatMap {
    let grid = WallGrid::new(wall_segments(mesh));
    let legend = Legend::plain("Distance to the nearest wall", "m", 0.0, WALL_DISTANCE_CAP);
    let mut tris = TriangleBatch::default();
    let mut work = 0;
    for (_, tile) in mesh.tiles() {
        for (poly, p) in tile.polys().iter().enumerate() {
            if p.is_off_mesh_connection() {
                continue;
            }
            for [a, b, c] in (0..).map_while(|t| tile.detail_tri_vertices(poly, t)) {
                let (ab, bc, ca) = (midpoint(a, b), midpoint(b, c), midpoint(c, a));
                for piece in [[a, ab, ca], [ab, b, bc], [ca, bc, c], [ab, bc, ca]] {
                    let distance = grid.nearest(centroid(piece), WALL_DISTANCE_CAP, &mut work);
                    tris.triangle(piece.map(lifted), ramp_color(&legend, distance));
                }
            }
        }
    }
    HeatMap::new(
        DebugDraw {
            triangles: tris,
            ..Default::default()
        },
        legend,
    )
}

/// Wall segments bucketed by the xz grid cells their bounds overlap.
struct WallGrid {
    origin: [f32; 2],
    cell: f32,
    columns: i64,
    rows: i64,
    /// Where each cell's walls start in `walls` (one more entry than cells).
    starts: Vec<u32>,
    walls: Vec<u32>,
    segments: Vec<[[f32; 3]; 2]>,
}

impl WallGrid {
    /// Side of a grid cell in metres, unless the navmesh is too wide for it.
    const CELL: f32 = 2.5;
    /// The most cells along a side: a navmesh wider than that gets wider cells.
    const MAX_SIDE: f32 = 1024.0;

    fn new(segments: Vec<[[f32; 3]; 2]>) -> Self {
        let segments: Vec<_> = segments
            .into_iter()
            .filter(|s| s.iter().flatten().all(|v| v.is_finite()))
            .collect();
        let (mut lo, mut hi) = ([f32::MAX; 2], [f32::MIN; 2]);
        for p in segments.iter().flatten() {
            lo = [lo[0].min(p[0]), lo[1].min(p[2])];
            hi = [hi[0].max(p[0]), hi[1].max(p[2])];
        }
        if segments.is_empty() {
            (lo, hi) = ([0.0; 2], [0.0; 2]);
        }
        let extent = (hi[0] - lo[0]).max(hi[1] - lo[1]);
        let cell = Self::CELL.max(extent / Self::MAX_SIDE);
        let columns = ((hi[0] - lo[0]) / cell) as i64 + 1;
        let rows = ((hi[1] - lo[1]) / cell) as i64 + 1;
        let mut grid = Self {
            origin: lo,
            cell,
            columns,
            rows,
            starts: vec![0; (columns * rows + 1) as usize],
            walls: Vec::new(),
            segments,
        };
        // Count each cell's walls, turn the counts into starts, then fill.
        for s in 0..grid.segments.len() {
            grid.for_each_cell_of(s, |grid, cell| grid.starts[cell + 1] += 1);
        }
        for cell in 1..grid.starts.len() {
            grid.starts[cell] += grid.starts[cell - 1];
        }
        grid.walls = vec![0; *grid.starts.last().unwrap_or(&0) as usize];
        let mut next = grid.starts.clone();
        for s in 0..grid.segments.len() {
            grid.for_each_cell_of(s, |grid, cell| {
                grid.walls[next[cell] as usize] = s as u32;
                next[cell] += 1;
            });
        }
        grid
    }

    /// The grid cell (column, row) of a point, unclamped.
    fn cell_of(&self, x: f32, z: f32) -> (i64, i64) {
        (
            ((x - self.origin[0]) / self.cell).floor() as i64,
            ((z - self.origin[1]) / self.cell).floor() as i64,
        )
    }

    fn for_each_cell_of(&mut self, segment: usize, mut visit: impl FnMut(&mut Self, usize)) {
        let [a, b] = self.segments[segment];
        let (c0, r0) = self.cell_of(a[0].min(b[0]), a[2].min(b[2]));
        let (c1, r1) = self.cell_of(a[0].max(b[0]), a[2].max(b[2]));
        for row in r0.max(0)..=r1.min(self.rows - 1) {
            for column in c0.max(0)..=c1.min(self.columns - 1) {
                visit(self, (row * self.columns + column) as usize);
            }
        }
    }

    /// The distance from `p` to the nearest wall, or `cap` when none is nearer. Looks at rings
    /// of cells around `p`'s cell, nearest first, and stops once the next ring is farther than
    /// the best wall so far; `work` counts the walls measured.
    fn nearest(&self, p: [f32; 3], cap: f32, work: &mut usize) -> f32 {
        let mut best = cap;
        if !p.iter().all(|v| v.is_finite()) {
            return best;
        }
        let last_ring = (cap / self.cell).ceil() as i64 + 1;
        // Rings from farther out than this never reach the grid.
        let (pc, pr) = self.cell_of(p[0], p[2]);
        let (pc, pr) = (
            pc.clamp(-last_ring - 1, self.columns + last_ring),
            pr.clamp(-last_ring - 1, self.rows + last_ring),
        );
        for ring in 0..=last_ring {
            // Cells of this ring are at least (ring - 1) cells away from p.
            if (ring - 1) as f32 * self.cell >= best {
                break;
            }
            for row in pr - ring..=pr + ring {
                let edge_row = row == pr - ring || row == pr + ring;
                let step = if edge_row { 1 } else { (2 * ring).max(1) };
                for column in (pc - ring..=pc + ring).step_by(step as usize) {
                    if row < 0 || column < 0 || row >= self.rows || column >= self.columns {
                        continue;
                    }
                    let cell = (row * self.columns + column) as usize;
                    let range = self.starts[cell] as usize..self.starts[cell + 1] as usize;
                    for &s in &self.walls[range] {
                        *work += 1;
                        best = best.min(distance_to_segment(p, self.segments[s as usize]));
                    }
                }
            }
        }
        best
    }
}

/// Distance from `p` to the segment `a`–`b`, in 3-D.
fn distance_to_segment(p: [f32; 3], [a, b]: [[f32; 3]; 2]) -> f32 {
    let ab = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
    let ap = [p[0] - a[0], p[1] - a[1], p[2] - a[2]];
    let length2 = ab[0] * ab[0] + ab[1] * ab[1] + ab[2] * ab[2];
    let t = if length2 > 0.0 {
        ((ap[0] * ab[0] + ap[1] * ab[1] + ap[2] * ab[2]) / length2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let d = [0, 1, 2].map(|k| a[k] + ab[k] * t - p[k]);
    (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt()
}

/// One tile of a tiled build, as the tile map shows it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TileStat {
    /// The tile's minimum corner, world units.
    pub bmin: [f32; 3],
    /// The tile's maximum corner; the quad is drawn at its height.
    pub bmax: [f32; 3],
    /// How long the tile took to build (Recast's Total timer).
    pub build_ms: f64,
    /// The size of its Detour data (0 for a tile without any).
    pub bytes: usize,
}

/// What the tile map measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TileStatKind {
    /// Build time in milliseconds.
    BuildTime,
    /// Detour data size in KiB.
    Bytes,
}

/// Every built tile of `build` (tiles a partial build skipped are left out): its grid cell's
/// bounds on xz, its data's height range (the build's without data), time and bytes.
pub fn tile_stats_of(build: &TiledBuild) -> Vec<TileStat> {
    let width = build.nav_mesh.ref_width();
    build
        .tiles
        .iter()
        .filter_map(|tile| {
            let total = tile.context.accumulated(TimerLabel::Total)?;
            let (mut bmin, mut bmax) = build.tile_bounds(tile.x, tile.y);
            if let Some(data) = tile.data() {
                (bmin[1], bmax[1]) = (data.header().bmin[1], data.header().bmax[1]);
            }
            Some(TileStat {
                bmin,
                bmax,
                build_ms: total.as_secs_f64() * 1000.0,
                bytes: tile.data().map_or(0, |data| data.data_size(width)),
            })
        })
        .collect()
}

/// Per-tile build time or size: a translucent quad over each tile at its top, and its outline.
pub fn tile_stats(tiles: &[TileStat], kind: TileStatKind) -> HeatMap {
    let value = |tile: &TileStat| match kind {
        TileStatKind::BuildTime => tile.build_ms as f32,
        TileStatKind::Bytes => tile.bytes as f32 / 1024.0,
    };
    let (title, unit) = match kind {
        TileStatKind::BuildTime => ("Tile build time", "ms"),
        TileStatKind::Bytes => ("Tile data size", "KiB"),
    };
    let largest = tiles.iter().map(value).fold(0.0, f32::max);
    let legend = Legend::plain(title, unit, 0.0, largest);
    let mut tris = TriangleBatch::default();
    let mut outlines = LineBatch::new(1.5);
    for tile in tiles {
        let color = ramp_color(&legend, value(tile));
        let y = tile.bmax[1] + SURFACE_LIFT;
        let (x0, z0, x1, z1) = (tile.bmin[0], tile.bmin[2], tile.bmax[0], tile.bmax[2]);
        let corners = [[x0, y, z0], [x0, y, z1], [x1, y, z1], [x1, y, z0]];
        tris.quad(corners, trans_col(color, TILE_ALPHA));
        for k in 0..4 {
            outlines.segment(corners[k], corners[(k + 1) % 4], color);
        }
    }
    HeatMap::new(
        DebugDraw {
            triangles: tris,
            lines: vec![outlines],
            points: Vec::new(),
        },
        legend,
    )
}

/// The nodes of the last A* search (a query's [`NodePool`]): each visited polygon filled by
/// its cost from the start (`g`, the lowest of its nodes), and a dot where the search entered
/// it, in the filter's cost units (metres times the area cost).
pub fn search_nodes(mesh: &NavMesh, pool: &NodePool) -> HeatMap {
    let nodes = pool.nodes();
    let largest = nodes.iter().map(|n| n.cost).fold(0.0, f32::max);
    let legend = Legend::plain("A* cost from the start, g", "cost", 0.0, largest);
    let mut cheapest: HashMap<PolyRef, f32> = HashMap::new();
    let mut order = Vec::new();
    let mut points = PointBatch::new(4.0);
    for node in nodes {
        cheapest
            .entry(node.poly_ref)
            .and_modify(|cost| *cost = cost.min(node.cost))
            .or_insert_with(|| {
                order.push(node.poly_ref);
                node.cost
            });
        points.point(lifted(node.pos), ramp_color(&legend, node.cost));
    }
    let mut tris = TriangleBatch::default();
    for poly in order {
        let Ok((slot, index)) = mesh.poly_location(poly) else {
            continue;
        };
        let Some(tile) = mesh.tile(slot) else {
            continue;
        };
        let color = ramp_color(&legend, cheapest[&poly]);
        for corners in (0..).map_while(|t| tile.detail_tri_vertices(index, t)) {
            tris.triangle(corners.map(lifted), color);
        }
    }
    HeatMap::new(
        DebugDraw {
            triangles: tris,
            lines: Vec::new(),
            points: vec![points],
        },
        legend,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bake::settings::BuildSettings;
    use crate::bake::solo::Build;
    use crate::detour::query::{NavMeshQuery, QueryFilter};
    use crate::input::input_geom::InputGeom;
    use crate::recast::WALKABLE_AREA;
    use crate::recast::compact::{CompactCell, CompactSpan};
    use crate::recast::context::BuildContext;
    use crate::recast::distance_field::build_distance_field;
    use crate::recast::heightfield::{NO_SPAN, Span};

    /// The colour drawn over world point (`x`, `z`), of the triangle nearest to height `y`.
    fn color_at(drawing: &DebugDraw, x: f32, y: f32, z: f32) -> Option<Rgba> {
        let tris = &drawing.triangles;
        tris.indices
            .chunks_exact(3)
            .filter_map(|t| {
                let [a, b, c] = [0, 1, 2].map(|k| tris.positions[t[k] as usize]);
                let side = |p: [f32; 3], q: [f32; 3]| {
                    (q[0] - p[0]) * (z - p[2]) - (q[2] - p[2]) * (x - p[0])
                };
                let sides = [side(a, b), side(b, c), side(c, a)];
                let inside = sides.iter().all(|&s| s >= 0.0) || sides.iter().all(|&s| s <= 0.0);
                inside.then(|| ((a[1] - y).abs(), tris.colors[t[0] as usize]))
            })
            .min_by(|p, q| p.0.total_cmp(&q.0))
            .map(|(_, color)| color)
    }

    fn is_failing_hue(color: Rgba) -> bool {
        let [r, g, _, _] = super::super::channels(color);
        r >= 150 && g < 40
    }

    /// Stops never decrease and span a range; failing colours only on the failing side.
    fn assert_legend_well_formed(legend: &Legend) {
        let stops = &legend.stops;
        assert!(stops.windows(2).all(|w| w[0].0 <= w[1].0), "{stops:?}");
        assert!(stops[0].0 < stops[stops.len() - 1].0, "{stops:?}");
        for &(at, color) in stops {
            if is_failing_hue(color) {
                let failing = legend.failing.expect("failing colours need a setting");
                assert!(failing.fails(at) || Some(at) == legend.marks.first().map(|m| m.0));
            }
        }
    }

    /// An open floor `width` x 1 cells at the given floor heights, neighbours linked where
    /// `linked` says (between x and x + 1), cell size 0.5 and cell height 0.25.
    fn strip(floors: &[u16], linked: &[bool], regions: &[u16]) -> CompactHeightfield {
        let width = floors.len() as i32;
        let mut spans: Vec<CompactSpan> = floors
            .iter()
            .zip(regions)
            .map(|(&y, &reg)| CompactSpan {
                y,
                reg,
                con: 0xff_ffff,
                h: 255,
            })
            .collect();
        for (x, &link) in linked.iter().enumerate() {
            if link {
                spans[x].set_con(2, 0);
                spans[x + 1].set_con(0, 0);
            }
        }
        CompactHeightfield {
            width,
            height: 1,
            cs: 0.5,
            ch: 0.25,
            cells: (0..width as u32)
                .map(|index| CompactCell { index, count: 1 })
                .collect(),
            areas: vec![WALKABLE_AREA; spans.len()],
            spans,
            ..Default::default()
        }
    }

    /// The world centre of cell `x` of a one-row grid with cell size 0.5.
    fn cell_centre(x: usize) -> f32 {
        x as f32 * 0.5 + 0.25
    }

    #[test]
    fn ramp_interpolates_and_keeps_hard_edges() {
        let legend = Legend::failing_above("t", "u", (0.0, 10.0, 20.0), "s");
        assert_legend_well_formed(&legend);
        assert_eq!(ramp_color(&legend, 0.0), PASS_RAMP[0]);
        assert_eq!(ramp_color(&legend, -5.0), PASS_RAMP[0]);
        assert_eq!(ramp_color(&legend, f32::NAN), PASS_RAMP[0]);
        assert_eq!(ramp_color(&legend, 10.0), PASS_RAMP[3]);
        assert_eq!(ramp_color(&legend, 10.0_f32.next_up()), FAIL_NEAR);
        assert_eq!(ramp_color(&legend, 20.0), FAIL_FAR);
        assert_eq!(ramp_color(&legend, 99.0), FAIL_FAR);
        // Just short of halfway along the failing part, which starts just above 10.
        assert_eq!(
            ramp_color(&legend, 15.0),
            lerp_col(FAIL_NEAR, FAIL_FAR, 127)
        );
        let below = Legend::failing_below("t", "u", (0.0, 2.0, 4.0), "s");
        assert_legend_well_formed(&below);
        assert_eq!(ramp_color(&below, 2.0), PASS_RAMP[0]);
        assert_eq!(ramp_color(&below, 0.0), FAIL_FAR);
        assert!(is_failing_hue(ramp_color(&below, 1.99)));
        assert!(PASS_RAMP.iter().all(|&c| !is_failing_hue(c)));
    }

    #[test]
    fn clearance_is_the_distance_field_in_metres() {
        let size = 9;
        let mut chf = strip(&vec![0; size * size], &[], &vec![0; size * size]);
        chf.width = size as i32;
        chf.height = size as i32;
        for z in 0..size {
            for x in 0..size {
                let span = &mut chf.spans[x + z * size];
                for dir in 0..4 {
                    let (nx, nz) = (x as i32 + dir_offset_x(dir), z as i32 + dir_offset_z(dir));
                    if (0..size as i32).contains(&nx) && (0..size as i32).contains(&nz) {
                        span.set_con(dir, 0);
                    }
                }
            }
        }
        let empty = clearance(&chf);
        assert!(empty.drawing.is_empty() && empty.legend.title.contains("no distance field"));
        build_distance_field(&mut BuildContext::silent(), &mut chf).unwrap();
        let map = clearance(&chf);
        assert_legend_well_formed(&map.legend);
        // The centre: 6 half cells after the blur, 1.5 m with 0.5 m cells; the edge: 0.
        assert_eq!(chf.dist[4 + 4 * size], 6);
        let centre = color_at(&map.drawing, cell_centre(4), 0.0, cell_centre(4));
        assert_eq!(centre, Some(ramp_color(&map.legend, 1.5)));
        let edge = color_at(&map.drawing, cell_centre(0), 0.0, cell_centre(3));
        assert_eq!(edge, Some(ramp_color(&map.legend, 0.0)));
        // Drawn one cell height above the floor; the legend reaches the largest distance.
        assert!(map.drawing.triangles.positions.iter().all(|p| p[1] == 0.25));
        assert_eq!(map.legend.stops.last().unwrap().0, 2.0);
    }

    #[test]
    fn steps_beyond_the_climb_fail_as_recasts_links_do() {
        // Floors 0, 0, 4 and 9 cell heights (0.25 m): the third is 1 m up, exactly the climb,
        // the fourth 1.25 m above it, beyond.
        let chf = strip(&[0, 0, 4, 9], &[true, true, false], &[0; 4]);
        let map = step_height(&chf, 1.0);
        assert_legend_well_formed(&map.legend);
        assert_eq!(map.legend.marks, vec![(1.0, "agentMaxClimb".to_string())]);
        let at = |x: usize, y: u16| {
            color_at(&map.drawing, cell_centre(x), f32::from(y + 1) * 0.25, 0.25).unwrap()
        };
        // Cell 0 steps 0 to cell 1; cell 1 steps 1 m (to cell 2), which passes.
        assert_eq!(at(0, 0), ramp_color(&map.legend, 0.0));
        assert_eq!(at(1, 0), ramp_color(&map.legend, 1.0));
        assert!(!is_failing_hue(at(1, 0)));
        // Cells 2 and 3 have no link between them: the nearest span is 1.25 m away.
        assert_eq!(at(2, 4), ramp_color(&map.legend, 1.25));
        assert!(is_failing_hue(at(2, 4)) && is_failing_hue(at(3, 9)));
    }

    #[test]
    fn low_ceilings_fail_as_recasts_height_filter_does() {
        let mut hf = Heightfield::new(2, 1, [0.0; 3], [1.0, 10.0, 0.5], 0.5, 0.25);
        // Column 0: a floor with a slab 1.5 m over it; column 1: open sky.
        let slab = hf.alloc_span(Span {
            smin: 8,
            smax: 10,
            area: WALKABLE_AREA,
            next: NO_SPAN,
        });
        hf.columns[0] = hf.alloc_span(Span {
            smin: 0,
            smax: 2,
            area: WALKABLE_AREA,
            next: slab,
        });
        hf.columns[1] = hf.alloc_span(Span {
            smin: 0,
            smax: 2,
            area: WALKABLE_AREA,
            next: NO_SPAN,
        });
        let mut filtered = hf.clone();
        crate::recast::filter::filter_walkable_low_height_spans(
            &mut BuildContext::silent(),
            8,
            &mut filtered,
        );
        let map = overhead_clearance(&hf, 2.0);
        assert_legend_well_formed(&map.legend);
        let floor = color_at(&map.drawing, 0.25, 0.75, 0.25).unwrap();
        assert_eq!(floor, ramp_color(&map.legend, 1.5));
        assert!(is_failing_hue(floor));
        assert_eq!(filtered.column(0, 0).next().unwrap().area, NULL_AREA);
        // The slab and the open floor see the sky: twice agentHeight.
        assert_eq!(
            color_at(&map.drawing, 0.25, 2.75, 0.25),
            Some(ramp_color(&map.legend, 4.0))
        );
        assert_eq!(color_at(&map.drawing, 0.75, 0.75, 0.25), Some(PASS_RAMP[3]));
        // A ceiling exactly agentHeight up passes (8 cells of 0.25 m).
        let exact = overhead_clearance(&hf, 1.5);
        assert!(!is_failing_hue(
            color_at(&exact.drawing, 0.25, 0.75, 0.25).unwrap()
        ));
    }

    #[test]
    fn regions_below_the_minimum_area_fail() {
        // Region 1 has three cells, region 2 one; one walkable span is in no region and one in
        // a tile-border region.
        let chf = strip(&[0; 6], &[true; 5], &[1, 1, 1, 2, 0, BORDER_REG | 3]);
        let map = region_area(&chf, 2, 5);
        assert_legend_well_formed(&map.legend);
        assert_eq!(map.legend.unit, "cells");
        let at = |x: usize| color_at(&map.drawing, cell_centre(x), 0.25, 0.25);
        assert_eq!(at(0), Some(ramp_color(&map.legend, 3.0)));
        assert!(!is_failing_hue(at(0).unwrap()));
        assert_eq!(at(3), Some(ramp_color(&map.legend, 1.0)));
        assert!(is_failing_hue(at(3).unwrap()));
        assert_eq!(at(4), Some(FAIL_FAR));
        assert_eq!(at(5), None);
        let names: Vec<_> = map.legend.marks.iter().map(|m| m.1.as_str()).collect();
        assert_eq!(names, ["minRegionArea", "mergeRegionArea"]);
    }

    /// A triangle rising along x at `degrees`, its front facing up, starting at `x0`.
    fn slope_triangle(x0: f32, degrees: f32) -> [f32; 9] {
        let rise = degrees.to_radians().tan();
        [x0, 0.0, 0.0, x0, 0.0, 1.0, x0 + 1.0, rise, 0.0]
    }

    #[test]
    fn slopes_fail_exactly_where_recast_marks_triangles_unwalkable() {
        let mut verts = slope_triangle(0.0, 30.0).to_vec();
        verts.extend(slope_triangle(5.0, 50.0));
        let mesh = TriMesh::from_parts(verts, vec![0, 1, 2, 3, 4, 5]).unwrap();
        let map = input_slope(&mesh, 45.0);
        assert_legend_well_formed(&map.legend);
        let colors = &map.drawing.triangles.colors;
        let close = |a: Rgba, b: Rgba| {
            let (a, b) = (super::super::channels(a), super::super::channels(b));
            (0..4).all(|k| a[k].abs_diff(b[k]) <= 1)
        };
        assert!(close(colors[0], ramp_color(&map.legend, 30.0)) && !is_failing_hue(colors[0]));
        assert!(close(colors[3], ramp_color(&map.legend, 50.0)) && is_failing_hue(colors[3]));
        assert_eq!(map.drawing.triangles.positions[0][1], SURFACE_LIFT);

        // Over a whole level, failing is exactly Recast's unwalkable, triangle for triangle.
        let level = crate::input::scene::default_scene();
        for slope in [20.0, 45.0, 60.0] {
            let mut areas = vec![NULL_AREA; level.tri_count()];
            crate::recast::rasterize::mark_walkable_triangles(
                &mut BuildContext::silent(),
                slope,
                &level.verts,
                &level.tris,
                &mut areas,
            )
            .unwrap();
            let map = input_slope(&level, slope);
            let failing: Vec<bool> = map
                .drawing
                .triangles
                .colors
                .iter()
                .step_by(3)
                .map(|&c| is_failing_hue(c))
                .collect();
            let unwalkable: Vec<bool> = areas.iter().map(|&a| a == NULL_AREA).collect();
            assert_eq!(failing, unwalkable);
        }
    }

    fn navmesh_of(mesh: TriMesh) -> std::sync::Arc<NavMesh> {
        let input = InputGeom::from_mesh(mesh).unwrap();
        let build = Build::from_input(&input, BuildSettings::default()).unwrap();
        build.nav_mesh.expect("a navmesh")
    }

    /// The nearest wall of every piece measured against every wall: the grid finds the same.
    fn assert_matches_brute_force(mesh: &NavMesh) -> (usize, usize) {
        let walls = wall_segments(mesh);
        let grid = WallGrid::new(walls.clone());
        let map = wall_distance(mesh);
        let legend = &map.legend;
        let tris = &map.drawing.triangles;
        let mut work = 0;
        for t in tris.indices.chunks_exact(3) {
            let piece = [0, 1, 2].map(|k| {
                let p = tris.positions[t[k] as usize];
                [p[0], p[1] - SURFACE_LIFT, p[2]]
            });
            let brute = walls
                .iter()
                .map(|&w| distance_to_segment(centroid(piece), w))
                .fold(WALL_DISTANCE_CAP, f32::min);
            let found = grid.nearest(centroid(piece), WALL_DISTANCE_CAP, &mut work);
            assert!((brute - found).abs() <= 1e-4, "{brute} {found}");
            assert_eq!(tris.colors[t[0] as usize], ramp_color(legend, found));
        }
        (work, tris.triangle_count())
    }

    #[test]
    fn wall_distance_grows_away_from_the_walls() {
        // A 40 m square floor: the navmesh is the square shrunk by the agent radius, its walls
        // the shrunk square's sides.
        let floor = TriMesh::from_parts(
            vec![
                0.0, 0.0, 0.0, 0.0, 0.0, 40.0, 40.0, 0.0, 40.0, 40.0, 0.0, 0.0,
            ],
            vec![0, 1, 2, 0, 2, 3],
        )
        .unwrap();
        let mesh = navmesh_of(floor);
        let map = wall_distance(&mesh);
        assert_legend_well_formed(&map.legend);
        let (lo, hi) = wall_segments(&mesh)
            .iter()
            .flatten()
            .fold((f32::MAX, f32::MIN), |(lo, hi), p| {
                (lo.min(p[0]), hi.max(p[0]))
            });
        // Every piece is coloured by its centre's distance to the nearest side.
        let tris = &map.drawing.triangles;
        for t in tris.indices.chunks_exact(3) {
            let c = centroid([0, 1, 2].map(|k| tris.positions[t[k] as usize]));
            let nearest = [c[0] - lo, hi - c[0], c[2] - lo, hi - c[2]]
                .into_iter()
                .fold(WALL_DISTANCE_CAP, f32::min);
            let drawn = super::super::channels(tris.colors[t[0] as usize]);
            let expected = super::super::channels(ramp_color(&map.legend, nearest));
            assert!((0..4).all(|k| drawn[k].abs_diff(expected[k]) <= 1));
        }
        // The centre is farther than the cap.
        let centre = color_at(&map.drawing, 20.0, 0.2, 20.0).unwrap();
        assert_eq!(centre, PASS_RAMP[3]);
        assert_matches_brute_force(&mesh);
    }

    #[test]
    fn points_far_off_the_wall_grid_find_no_wall() {
        let grid = WallGrid::new(vec![[[0.0; 3], [1.0, 0.0, 0.0]]]);
        let mut work = 0;
        for p in [
            [1e30, 0.0, -1e30],
            [f32::NAN, 0.0, 0.0],
            [f32::INFINITY, 0.0, 0.0],
        ] {
            assert_eq!(
                grid.nearest(p, WALL_DISTANCE_CAP, &mut work),
                WALL_DISTANCE_CAP
            );
        }
        assert_eq!(
            grid.nearest([0.5, 0.0, 2.0], WALL_DISTANCE_CAP, &mut work),
            2.0
        );
        let empty = WallGrid::new(Vec::new());
        assert_eq!(empty.nearest([0.0; 3], 3.0, &mut work), 3.0);
    }

    /// The grid keeps the walls measured per piece bounded (about 15 on these levels) however
    /// large the level is.
    #[test]
    fn wall_distance_measures_few_walls_per_piece() {
        for mesh in [
            crate::input::scene::default_scene(),
            crate::input::scene::city(3),
        ] {
            let (work, pieces) = assert_matches_brute_force(&navmesh_of(mesh));
            assert!(
                pieces > 0 && work < 60 * pieces,
                "{work} walls for {pieces} pieces"
            );
        }
    }

    #[test]
    fn search_nodes_are_coloured_by_their_cost() {
        let mesh = navmesh_of(crate::input::scene::default_scene());
        let (tile_ref, tile) = mesh.tiles().next().unwrap();
        let centre = |poly: usize| {
            let (corners, n) = tile.poly_vertices(poly).unwrap();
            [0, 1, 2].map(|k| corners[..n].iter().map(|c| c[k]).sum::<f32>() / n as f32)
        };
        let last = tile.detail_meshes().len() - 1;
        let mut query = NavMeshQuery::new(&mesh, 2048).unwrap();
        let mut path = [0; 256];
        let (start, end) = (tile_ref, tile_ref | last as PolyRef);
        query.find_path(
            start,
            end,
            &centre(0),
            &centre(last),
            &QueryFilter::default(),
            &mut path,
        );
        let pool = query.node_pool();
        assert!(pool.node_count() > 1);
        let map = search_nodes(&mesh, pool);
        assert_legend_well_formed(&map.legend);
        let points = &map.drawing.points[0];
        for (node, &color) in pool.nodes().iter().zip(&points.colors) {
            assert_eq!(color, ramp_color(&map.legend, node.cost));
        }
        // The start polygon costs nothing.
        let start_color = map.drawing.triangles.colors[0];
        assert_eq!(start_color, PASS_RAMP[0]);
        assert_eq!(
            map.legend.stops.last().unwrap().0,
            pool.nodes().iter().map(|n| n.cost).fold(0.0, f32::max)
        );
    }

    #[test]
    fn tiles_are_coloured_by_time_or_size() {
        let tiles = [
            TileStat {
                bmin: [0.0; 3],
                bmax: [10.0, 2.0, 10.0],
                build_ms: 1.0,
                bytes: 1024,
            },
            TileStat {
                bmin: [10.0, 0.0, 0.0],
                bmax: [20.0, 3.0, 10.0],
                build_ms: 4.0,
                bytes: 4096,
            },
        ];
        let time = tile_stats(&tiles, TileStatKind::BuildTime);
        assert_legend_well_formed(&time.legend);
        assert_eq!(time.legend.unit, "ms");
        assert_eq!(
            time.drawing.triangles.colors[0],
            trans_col(ramp_color(&time.legend, 1.0), TILE_ALPHA)
        );
        assert_eq!(
            time.drawing.triangles.colors[4],
            trans_col(PASS_RAMP[3], TILE_ALPHA)
        );
        assert_eq!(time.drawing.lines[0].segments.len(), 8);
        assert_eq!(time.drawing.triangles.positions[4][1], 3.0 + SURFACE_LIFT);
        let bytes = tile_stats(&tiles, TileStatKind::Bytes);
        assert_eq!(bytes.legend.stops.last().unwrap().0, 4.0);
        assert_eq!(
            bytes.drawing.lines[0].colors[0],
            ramp_color(&bytes.legend, 1.0)
        );

        let input = InputGeom::from_mesh(crate::input::scene::default_scene()).unwrap();
        let tiled = TiledBuild::new(&input, BuildSettings::default(), 32).unwrap();
        let stats = tile_stats_of(&tiled);
        assert_eq!(stats.len(), tiled.tiles.len());
        let bytes: usize = tiled
            .tiles
            .iter()
            .filter_map(|t| t.data())
            .map(|d| d.data_size(crate::detour::RefWidth::Bits32))
            .sum();
        assert_eq!(stats.iter().map(|s| s.bytes).sum::<usize>(), bytes);
        assert!(
            stats
                .iter()
                .all(|s| s.build_ms > 0.0 && s.bmin[0] < s.bmax[0])
        );
    }

    #[test]
    fn empty_inputs_draw_nothing() {
        let chf = CompactHeightfield::default();
        let hf = Heightfield::new(0, 0, [0.0; 3], [0.0; 3], 0.3, 0.2);
        let nothing = TriMesh::default();
        let mesh = NavMesh::new(crate::detour::NavMeshParams {
            orig: [0.0; 3],
            tile_width: 10.0,
            tile_height: 10.0,
            max_tiles: 4,
            max_polys: 16,
            ..Default::default()
        })
        .unwrap();
        let pool = NodePool::new(16, 16);
        let maps = [
            clearance(&chf),
            step_height(&chf, 0.9),
            overhead_clearance(&hf, 2.0),
            region_area(&chf, 64, 400),
            input_slope(&nothing, 45.0),
            wall_distance(&mesh),
            search_nodes(&mesh, &pool),
            tile_stats(&[], TileStatKind::Bytes),
        ];
        for map in maps {
            assert!(map.drawing.is_empty(), "{}", map.legend.title);
            assert_eq!(
                map.legend.title.matches('(').count(),
                1,
                "{}",
                map.legend.title
            );
            assert!(map.legend.title.contains("no") || map.legend.title.contains("nothing"));
            assert_legend_well_formed(&map.legend);
        }
        let unpartitioned = strip(&[0; 3], &[true; 2], &[0; 3]);
        let map = region_area(&unpartitioned, 8, 20);
        assert!(map.drawing.is_empty() && map.legend.title.contains("no regions"));
        // Broken arrays are refused, not indexed.
        let broken = CompactHeightfield {
            width: 3,
            height: 3,
            ..Default::default()
        };
        assert!(region_area(&broken, 8, 20).drawing.is_empty());
        assert!(step_height(&broken, 0.9).drawing.is_empty());
    }
}
