//! Two builds of one level side by side, for tuning: what each build amounts to
//! ([`BuildSummary`], and the table of both, [`delta_rows`]), which navmesh surface one has and
//! the other has not ([`poly_changes`]), which walkable cells ([`span_changes`]), and how a path
//! fares on each ([`compare_path`]).
//!
//! The builds' polygon references, grids and bounds may all differ, so changes are decided in
//! world space: a surface or a cell of one build is looked up, point by point, on the other.

use crate::bake::nothing_walkable::region_count;
use crate::bake::solo::Build;
use crate::bake::tiled::TiledBuild;
use crate::detour::islands::{Island, Islands, poly_surface_area};
use crate::detour::query::{NavMeshQuery, QueryFilter, StraightPathPoint};
use crate::detour::{MeshTile, NavMesh, PolyRef};
use crate::recast::NULL_AREA;
use crate::recast::compact::CompactHeightfield;
use crate::recast::context::TimerLabel;

/// What one build amounts to: the figures a user weighs when tuning settings.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BuildSummary {
    /// The navmesh surface in m²: the area of its detail triangles.
    pub walkable_area: f64,
    /// Polygons of the poly mesh (summed over tiles).
    pub polys: usize,
    /// Vertices of the poly mesh (summed over tiles).
    pub verts: usize,
    /// Triangles of the detail mesh (summed over tiles).
    pub detail_tris: usize,
    /// Distinct regions in the final compact heightfield (tile-border regions aside; summed
    /// over tiles, so a region cut by a tile edge counts once per tile).
    pub regions: usize,
    /// The navmesh's connected components, largest surface first.
    pub islands: Vec<Island>,
    /// Tiles holding navmesh data.
    pub tiles: usize,
    /// Bytes of navmesh tile data (Detour's `dataSize`, summed over tiles).
    pub bytes: usize,
    /// Recast's `TOTAL` timer in milliseconds: the whole last (re)build of a solo build, and
    /// the tiles' builds added up for a tiled one (so more than the wall time on several
    /// threads).
    pub build_ms: f64,
}

impl BuildSummary {
    /// The summary of a solo build. Without a navmesh (`vertsPerPoly` above Detour's 6) the
    /// navmesh figures (surface, islands, tiles, bytes) are zero.
    pub fn of_solo(build: &Build) -> Self {
        let mut summary = Self {
            polys: build.poly_mesh.npolys,
            verts: build.poly_mesh.nverts,
            detail_tris: build.detail_mesh.ntris(),
            regions: region_count(&build.regions),
            build_ms: milliseconds(build.context.accumulated(TimerLabel::Total)),
            ..Self::default()
        };
        if let Some(nav_mesh) = &build.nav_mesh {
            summary.add_nav_mesh(nav_mesh);
        }
        summary
    }

    /// The summary of a tiled build, its tiles' figures added up.
    pub fn of_tiled(build: &TiledBuild) -> Self {
        let mut summary = Self::default();
        for tile in &build.tiles {
            summary.regions += tile.walkable.regions;
            summary.build_ms += milliseconds(tile.context.accumulated(TimerLabel::Total));
            if let Ok(output) = &tile.output {
                summary.polys += output.poly_mesh.npolys;
                summary.verts += output.poly_mesh.nverts;
                summary.detail_tris += output.detail_mesh.ntris();
            }
        }
        summary.add_nav_mesh(&build.nav_mesh);
        summary
    }

    /// The navmesh's figures: surface, islands, tiles and bytes.
    fn add_nav_mesh(&mut self, nav_mesh: &NavMesh) {
        let islands = Islands::of(nav_mesh);
        self.walkable_area = islands.total_area();
        self.islands = islands.islands;
        self.tiles = nav_mesh.tile_count();
        let width = nav_mesh.ref_width();
        self.bytes = nav_mesh
            .tiles()
            .map(|(_, tile)| tile.data_size(width))
            .sum();
    }
}

fn milliseconds(time: Option<std::time::Duration>) -> f64 {
    time.unwrap_or_default().as_secs_f64() * 1000.0
}

/// One line of the comparison table: a figure under A and under B.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SummaryRow {
    /// What is measured, in words ("walkable area").
    pub name: &'static str,
    /// Its unit ("m²", "ms"), empty for a count.
    pub unit: &'static str,
    /// The figure under A.
    pub a: f64,
    /// The figure under B.
    pub b: f64,
}

impl SummaryRow {
    /// B's change from A.
    pub fn change(&self) -> f64 {
        self.b - self.a
    }
}

/// The table the command line and the viewer both show, in this order: walkable area,
/// polygons, vertices, detail triangles, regions, islands, tiles, bytes and build time.
pub fn delta_rows(a: &BuildSummary, b: &BuildSummary) -> Vec<SummaryRow> {
    let counts = |s: &BuildSummary| {
        [
            s.polys,
            s.verts,
            s.detail_tris,
            s.regions,
            s.islands.len(),
            s.tiles,
            s.bytes,
        ]
        .map(|n| n as f64)
    };
    let names = [
        ("polygons", ""),
        ("vertices", ""),
        ("detail triangles", ""),
        ("regions", ""),
        ("islands", ""),
        ("tiles", ""),
        ("bytes", ""),
    ];
    let mut rows = vec![SummaryRow {
        name: "walkable area",
        unit: "m²",
        a: a.walkable_area,
        b: b.walkable_area,
    }];
    rows.extend(
        names
            .iter()
            .zip(counts(a).into_iter().zip(counts(b)))
            .map(|(&(name, unit), (a, b))| SummaryRow { name, unit, a, b }),
    );
    rows.push(SummaryRow {
        name: "build time",
        unit: "ms",
        a: a.build_ms,
        b: b.build_ms,
    });
    rows
}

/// Navmesh surface one build has and the other has not.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PolyChanges {
    /// Polygons of B more than half of whose surface A does not cover.
    pub gained: Vec<PolyRef>,
    /// Polygons of A more than half of whose surface B does not cover.
    pub lost: Vec<PolyRef>,
    /// B's surface in m² that A does not cover (of every polygon, not only `gained`'s).
    pub gained_area: f64,
    /// A's surface in m² that B does not cover.
    pub lost_area: f64,
}

impl PolyChanges {
    /// Whether the two navmeshes cover the same surface.
    pub fn is_empty(&self) -> bool {
        self.gained.is_empty() && self.lost.is_empty()
    }
}

/// Longest edge, in metres, of the pieces a detail triangle is cut into to test coverage: a
/// gained or lost area is measured to about this resolution.
pub const COVERAGE_SAMPLE_SPACING: f32 = 0.25;

/// At most this many pieces along a detail triangle's edge (a triangle longer than 16 m is
/// sampled more coarsely than [`COVERAGE_SAMPLE_SPACING`]).
const MAX_PIECES_PER_EDGE: usize = 64;

/// The polygons and the surface B gained and lost against A. Each detail triangle is cut into
/// pieces at most [`COVERAGE_SAMPLE_SPACING`] long; a piece is covered by the other navmesh
/// when one of its ground polygons lies over the piece's centre within a climb height of it
/// (the larger of the two navmeshes' `walkableClimb`, as Detour's nearest-polygon search
/// forgives a climb). A polygon is gained or lost when more than half its surface is not
/// covered, so the small moves of a boundary between builds do not mark whole polygons.
pub fn poly_changes(a: &NavMesh, b: &NavMesh) -> PolyChanges {
    let tolerance = walkable_climb(a).max(walkable_climb(b));
    let (gained, gained_area) = uncovered_polys(b, a, tolerance);
    let (lost, lost_area) = uncovered_polys(a, b, tolerance);
    PolyChanges {
        gained,
        lost,
        gained_area,
        lost_area,
    }
}

/// The climb the navmesh was built for (its first tile's), 0 when it has no tile.
fn walkable_climb(mesh: &NavMesh) -> f32 {
    mesh.tiles()
        .next()
        .map_or(0.0, |(_, tile)| tile.header().walkable_climb)
}

/// The polygons of `of` mostly not covered by `by`, and the surface of `of` not covered.
fn uncovered_polys(of: &NavMesh, by: &NavMesh, tolerance: f32) -> (Vec<PolyRef>, f64) {
    let mut polys = Vec::new();
    let mut total = 0.0;
    for (tile_ref, tile) in of.tiles() {
        for poly in 0..tile.poly_count() {
            let uncovered = uncovered_area(tile, poly, by, tolerance);
            total += uncovered;
            if uncovered > 0.5 * poly_surface_area(tile, poly) {
                polys.push(tile_ref | poly as PolyRef);
            }
        }
    }
    (polys, total)
}

/// The surface of polygon `poly` of `tile` that `by` does not cover, in m² (zero for an
/// off-mesh connection, which has no detail triangles).
fn uncovered_area(tile: &MeshTile, poly: usize, by: &NavMesh, tolerance: f32) -> f64 {
    let mut uncovered = 0.0;
    for [a, b, c] in (0..).map_while(|tri| tile.detail_tri_vertices(poly, tri)) {
        // The polygons of `by` that may cover any of the triangle, looked up once for all its
        // pieces; the one that covered the last piece is tried first.
        let mut low = a;
        let mut high = a;
        for p in [b, c] {
            for k in 0..3 {
                low[k] = low[k].min(p[k]);
                high[k] = high[k].max(p[k]);
            }
        }
        low[1] -= tolerance;
        high[1] += tolerance;
        let candidates = polys_near(by, low, high);
        let mut last_cover = 0;

        let [a, b, c] = [a, b, c].map(|p| p.map(f64::from));
        let u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
        let v = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
        let longest = [u, v, [c[0] - b[0], c[1] - b[1], c[2] - b[2]]]
            .map(|e| (e[0] * e[0] + e[1] * e[1] + e[2] * e[2]).sqrt())
            .into_iter()
            .fold(0.0, f64::max);
        let pieces = ((longest / f64::from(COVERAGE_SAMPLE_SPACING)).ceil() as usize)
            .clamp(1, MAX_PIECES_PER_EDGE);
        let cross = [
            u[1] * v[2] - u[2] * v[1],
            u[2] * v[0] - u[0] * v[2],
            u[0] * v[1] - u[1] * v[0],
        ];
        let piece_area = 0.5
            * (cross[0] * cross[0] + cross[1] * cross[1] + cross[2] * cross[2]).sqrt()
            / (pieces * pieces) as f64;
        // The triangle cut into pieces² equal triangles along its edges u and v: each centre
        // is `a + s·u + t·v`, at a third of the way into its piece ("up" pieces) or two thirds
        // ("down" pieces, which fill the gaps between them).
        let n = pieces as f64;
        let at = |s: f64, t: f64| [0, 1, 2].map(|k| (a[k] + u[k] * s / n + v[k] * t / n) as f32);
        for i in 0..pieces {
            for j in 0..pieces - i {
                let (s, t) = (i as f64, j as f64);
                let up = at(s + 1.0 / 3.0, t + 1.0 / 3.0);
                let down = (i + j + 2 <= pieces).then(|| at(s + 2.0 / 3.0, t + 2.0 / 3.0));
                for centre in std::iter::once(up).chain(down) {
                    match covering(&candidates, last_cover, centre, tolerance) {
                        Some(k) => last_cover = k,
                        None => uncovered += piece_area,
                    }
                }
            }
        }
    }
    uncovered
}

/// The ground polygons of `mesh`, as tile and index, whose bounds overlap the box from `low`
/// to `high`.
fn polys_near(mesh: &NavMesh, low: [f32; 3], high: [f32; 3]) -> Vec<(&MeshTile, usize)> {
    const MAX_PER_TILE: usize = 4096;
    let (x0, y0) = mesh.calc_tile_loc(&low);
    let (x1, y1) = mesh.calc_tile_loc(&high);
    let mut polys = Vec::new();
    for y in y0..=y1 {
        for x in x0..=x1 {
            for tile in mesh
                .tile_indices_at(x, y)
                .filter_map(|slot| mesh.tile(slot))
            {
                let found = tile.query_polygons(&low, &high, MAX_PER_TILE);
                polys.extend(found.into_iter().map(|poly| (tile, poly)));
            }
        }
    }
    polys
}

/// Which of `candidates` lies over `point` within `tolerance` of its height, trying `first`
/// before the others.
fn covering(
    candidates: &[(&MeshTile, usize)],
    first: usize,
    point: [f32; 3],
    tolerance: f32,
) -> Option<usize> {
    std::iter::once(first)
        .chain(0..candidates.len())
        .find(|&k| {
            candidates.get(k).is_some_and(|&(tile, poly)| {
                tile.poly_height(poly, &point)
                    .is_some_and(|height| (height - point[1]).abs() <= tolerance)
            })
        })
}

/// The top of one walkable compact-heightfield cell, in world space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpanCell {
    /// The cell's corner with the least x and z, at the span's top.
    pub min: [f32; 3],
    /// The opposite corner, at the same height.
    pub max: [f32; 3],
}

/// Walkable cells one compact heightfield has and the other has not.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SpanChanges {
    /// Walkable cells of B with no walkable span of A near them.
    pub gained: Vec<SpanCell>,
    /// Walkable cells of A with no walkable span of B near them.
    pub lost: Vec<SpanCell>,
}

impl SpanChanges {
    /// Whether the two fields have the same walkable cells.
    pub fn is_empty(&self) -> bool {
        self.gained.is_empty() && self.lost.is_empty()
    }
}

/// The walkable cells B gained and lost against A. Walkable means an area other than
/// [`NULL_AREA`]: what is left after the filters, erosion and convex volumes, before regions
/// (so a cell of a region too small to keep still counts). A walkable span of B is gained when
/// the column of A under its cell's centre has no walkable span whose top is within `climb` of
/// its top, and lost the other way round; the grids may differ in cell size, cell height and
/// bounds. Cells of a tile's border (which belong to its neighbours) are left out.
pub fn span_changes(a: &CompactHeightfield, b: &CompactHeightfield, climb: f32) -> SpanChanges {
    SpanChanges {
        gained: unmatched_cells(b, a, climb),
        lost: unmatched_cells(a, b, climb),
    }
}

/// The walkable cells of `of` that `by` has no walkable span near.
fn unmatched_cells(of: &CompactHeightfield, by: &CompactHeightfield, climb: f32) -> Vec<SpanCell> {
    let mut cells = Vec::new();
    let border = of.border_size;
    for z in border..of.height - border {
        for x in border..of.width - border {
            let cell = of.cell(x, z);
            for i in cell.index as usize..(cell.index + cell.count) as usize {
                if of.areas[i] == NULL_AREA {
                    continue;
                }
                let min = [
                    of.bmin[0] + x as f32 * of.cs,
                    of.bmin[1] + f32::from(of.spans[i].y) * of.ch,
                    of.bmin[2] + z as f32 * of.cs,
                ];
                let max = [min[0] + of.cs, min[1], min[2] + of.cs];
                let centre = [(min[0] + max[0]) * 0.5, min[1], (min[2] + max[2]) * 0.5];
                if !has_walkable_near(by, centre, climb) {
                    cells.push(SpanCell { min, max });
                }
            }
        }
    }
    cells
}

/// Whether `chf` has a walkable span in the column under `point` whose top is within `climb`
/// of `point`'s height.
fn has_walkable_near(chf: &CompactHeightfield, point: [f32; 3], climb: f32) -> bool {
    let x = ((point[0] - chf.bmin[0]) / chf.cs).floor();
    let z = ((point[2] - chf.bmin[2]) / chf.cs).floor();
    let border = chf.border_size as f32;
    if x < border
        || z < border
        || x >= (chf.width - chf.border_size) as f32
        || z >= (chf.height - chf.border_size) as f32
    {
        return false;
    }
    let cell = chf.cell(x as i32, z as i32);
    (cell.index as usize..(cell.index + cell.count) as usize).any(|i| {
        let top = chf.bmin[1] + f32::from(chf.spans[i].y) * chf.ch;
        chf.areas[i] != NULL_AREA && (top - point[1]).abs() <= climb
    })
}

/// Search nodes of each path query, as RecastDemo's tester.
const QUERY_NODES: usize = 2048;

/// Longest corridor and straight path, in polygons and corners, as RecastDemo's tester.
pub const MAX_PATH_POLYS: usize = 256;

/// One path asked of both navmeshes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PathComparison {
    /// Whether A's path reaches the end (see [`compare_path`]).
    pub reachable_a: bool,
    /// Whether B's path reaches the end.
    pub reachable_b: bool,
    /// The length in metres of A's straight path, when it reaches the end.
    pub length_a: Option<f32>,
    /// The length of B's straight path, when it reaches the end.
    pub length_b: Option<f32>,
    /// A's straight path: its corners, start first; a partial path (towards the polygon
    /// nearest the end) when the end is not reachable, empty when no path was found.
    pub path_a: Vec<[f32; 3]>,
    /// B's straight path, likewise.
    pub path_b: Vec<[f32; 3]>,
}

/// The path from `start` to `end` on each navmesh, as the tester's `pf` lines run it: the
/// polygons nearest `start` and `end` within `half_extents` (`findNearestPoly`), the corridor
/// between them (`findPath`, 2048 search nodes, at most [`MAX_PATH_POLYS`] polygons) and the
/// straight path through it from `start` to `end` (`findStraightPath`).
///
/// A path is reachable when both nearest polygons were found and the corridor ends on the end
/// point's polygon: a partial corridor (the end is on another island, or the corridor would be
/// longer than [`MAX_PATH_POLYS`]) is not. Its length is the sum of the straight path's
/// segments in 3D, given only when reachable.
pub fn compare_path(
    a: &NavMesh,
    b: &NavMesh,
    start: [f32; 3],
    end: [f32; 3],
    filter: &QueryFilter,
    half_extents: [f32; 3],
) -> PathComparison {
    let (reachable_a, path_a) = straight_path(a, start, end, filter, half_extents);
    let (reachable_b, path_b) = straight_path(b, start, end, filter, half_extents);
    PathComparison {
        reachable_a,
        reachable_b,
        length_a: reachable_a.then(|| path_length(&path_a)),
        length_b: reachable_b.then(|| path_length(&path_b)),
        path_a,
        path_b,
    }
}

/// Whether the end is reachable on `mesh`, and the straight path found.
fn straight_path(
    mesh: &NavMesh,
    start: [f32; 3],
    end: [f32; 3],
    filter: &QueryFilter,
    half_extents: [f32; 3],
) -> (bool, Vec<[f32; 3]>) {
    let Ok(mut query) = NavMeshQuery::new(mesh, QUERY_NODES) else {
        return (false, Vec::new());
    };
    let (_, start_poly) = query.find_nearest_poly(&start, &half_extents, filter);
    let (_, end_poly) = query.find_nearest_poly(&end, &half_extents, filter);
    let mut corridor = [0 as PolyRef; MAX_PATH_POLYS];
    let Some((corridor, reachable)) = find_corridor(
        &mut query,
        (start_poly.poly_ref, start),
        (end_poly.poly_ref, end),
        filter,
        &mut corridor,
    ) else {
        return (false, Vec::new());
    };
    let mut corners = [StraightPathPoint::default(); MAX_PATH_POLYS];
    let (_, corner_count) = query.find_straight_path(&start, &end, corridor, &mut corners, 0);
    (
        reachable,
        corners[..corner_count].iter().map(|c| c.pos).collect(),
    )
}

/// The corridor from `start`'s polygon to `end`'s (each a polygon, 0 when none was found, and
/// the point on it) and whether it arrives, i.e. ends on the end's polygon: the reachability
/// [`compare_path`] and [`reachability`] report. `None` when there is no corridor at all.
fn find_corridor<'c>(
    query: &mut NavMeshQuery,
    (start_poly, start): (PolyRef, [f32; 3]),
    (end_poly, end): (PolyRef, [f32; 3]),
    filter: &QueryFilter,
    corridor: &'c mut [PolyRef],
) -> Option<(&'c [PolyRef], bool)> {
    if start_poly == 0 || end_poly == 0 {
        return None;
    }
    let (_, count) = query.find_path(start_poly, end_poly, &start, &end, filter, corridor);
    let corridor = &corridor[..count];
    let reachable = corridor.last() == Some(&end_poly);
    (count > 0).then_some((corridor, reachable))
}

/// Which of `points` reach which on `mesh`: `reach[i][j]` when a path from point i arrives on
/// point j's polygon, as [`compare_path`] decides it (the nearest polygons are looked up once
/// per point).
pub fn reachability(
    mesh: &NavMesh,
    points: &[[f32; 3]],
    filter: &QueryFilter,
    half_extents: [f32; 3],
) -> Vec<Vec<bool>> {
    let Ok(mut query) = NavMeshQuery::new(mesh, QUERY_NODES) else {
        return vec![vec![false; points.len()]; points.len()];
    };
    let polys: Vec<PolyRef> = points
        .iter()
        .map(|p| query.find_nearest_poly(p, &half_extents, filter).1.poly_ref)
        .collect();
    let mut corridor = [0 as PolyRef; MAX_PATH_POLYS];
    let ends: Vec<(PolyRef, [f32; 3])> = polys.into_iter().zip(points.iter().copied()).collect();
    ends.iter()
        .map(|&from| {
            ends.iter()
                .map(|&to| {
                    find_corridor(&mut query, from, to, filter, &mut corridor)
                        .is_some_and(|(_, reachable)| reachable)
                })
                .collect()
        })
        .collect()
}

/// The length of a polyline in 3D.
fn path_length(points: &[[f32; 3]]) -> f32 {
    points
        .windows(2)
        .map(|w| {
            let d = [w[1][0] - w[0][0], w[1][1] - w[0][1], w[1][2] - w[0][2]];
            (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt()
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::bake::settings::BuildSettings;
    use crate::input::input_geom::InputGeom;
    use crate::input::obj::TriMesh;

    /// A 20 m × 10 m floor split by a 2 m high wall at x = 10 with a 2 m gap in its middle
    /// (z from 4 to 6): too narrow for an agent of radius 1 m, wide enough for a 0.2 m one.
    fn wall_with_gap() -> TriMesh {
        let mut verts = Vec::new();
        let mut tris = Vec::new();
        let mut quad = |corners: [[f32; 3]; 4]| {
            let base = (verts.len() / 3) as i32;
            verts.extend(corners.into_iter().flatten());
            tris.extend([base, base + 1, base + 2, base, base + 2, base + 3]);
        };
        quad([
            [0.0, 0.0, 0.0],
            [0.0, 0.0, 10.0],
            [20.0, 0.0, 10.0],
            [20.0, 0.0, 0.0],
        ]);
        for (z0, z1) in [(0.0, 4.0), (6.0, 10.0)] {
            let (x0, x1, h) = (9.75, 10.25, 2.0);
            quad([[x0, h, z0], [x0, h, z1], [x1, h, z1], [x1, h, z0]]);
            quad([[x0, 0.0, z0], [x0, h, z0], [x1, h, z0], [x1, 0.0, z0]]);
            quad([[x1, 0.0, z1], [x1, h, z1], [x0, h, z1], [x0, 0.0, z1]]);
            quad([[x0, 0.0, z1], [x0, h, z1], [x0, h, z0], [x0, 0.0, z0]]);
            quad([[x1, 0.0, z0], [x1, h, z0], [x1, h, z1], [x1, 0.0, z1]]);
        }
        TriMesh::from_parts(verts, tris).unwrap()
    }

    fn settings(agent_radius: f32) -> BuildSettings {
        BuildSettings {
            agent_radius,
            ..BuildSettings::default()
        }
    }

    fn build(agent_radius: f32) -> Build {
        Build::new(Arc::new(wall_with_gap()), settings(agent_radius)).unwrap()
    }

    const LEFT: [f32; 3] = [5.0, 0.0, 5.0];
    const RIGHT: [f32; 3] = [15.0, 0.0, 5.0];

    #[test]
    fn a_smaller_radius_gains_the_gap_and_loses_nothing() {
        let (a, b) = (build(1.0), build(0.2));
        let (mesh_a, mesh_b) = (
            a.nav_mesh.as_deref().unwrap(),
            b.nav_mesh.as_deref().unwrap(),
        );

        let polys = poly_changes(mesh_a, mesh_b);
        assert!(polys.lost.is_empty(), "lost {:?}", polys.lost);
        assert!(polys.lost_area < 0.5, "lost {} m²", polys.lost_area);
        assert!(!polys.gained.is_empty());
        // The gap is 1 m by the wall's 0.5 m, and the floor's margin shrinks by 0.4 m all
        // round (60 m of edge, less the wall's own edges).
        assert!(polys.gained_area > 10.0, "gained {} m²", polys.gained_area);
        let gap = [10.0, 0.0, 5.0];
        let gap_covered = |mesh: &NavMesh| {
            let near = polys_near(mesh, [10.0, -0.5, 5.0], [10.0, 0.5, 5.0]);
            covering(&near, 0, gap, 0.5).is_some()
        };
        assert!(!gap_covered(mesh_a) && gap_covered(mesh_b));
        let area_b = BuildSummary::of_solo(&b).walkable_area;
        let area_a = BuildSummary::of_solo(&a).walkable_area;
        let measured = area_b - area_a;
        assert!(
            (polys.gained_area - polys.lost_area - measured).abs() < 0.05 * measured,
            "gained {} - lost {} against {measured} m²",
            polys.gained_area,
            polys.lost_area
        );

        let spans = span_changes(&a.regions, &b.regions, a.settings.agent_max_climb);
        assert!(spans.lost.is_empty(), "lost {:?}", &spans.lost[..1]);
        let in_gap = |cell: &SpanCell| {
            (cell.min[0]..=cell.max[0]).contains(&10.0) && (4.0..6.0).contains(&cell.min[2])
        };
        assert!(spans.gained.iter().any(in_gap));
    }

    #[test]
    fn the_same_build_twice_has_no_changes() {
        let (a, b) = (build(0.6), build(0.6));
        let (mesh_a, mesh_b) = (
            a.nav_mesh.as_deref().unwrap(),
            b.nav_mesh.as_deref().unwrap(),
        );
        let polys = poly_changes(mesh_a, mesh_b);
        assert!(polys.is_empty());
        assert_eq!((polys.gained_area, polys.lost_area), (0.0, 0.0));
        assert!(span_changes(&a.regions, &b.regions, 0.9).is_empty());
        let (summary_a, summary_b) = (BuildSummary::of_solo(&a), BuildSummary::of_solo(&b));
        for row in delta_rows(&summary_a, &summary_b) {
            if row.name != "build time" {
                assert_eq!(row.change(), 0.0, "{}", row.name);
            }
        }
    }

    #[test]
    fn the_gap_joins_the_two_halves_only_under_the_smaller_radius() {
        let (a, b) = (build(1.0), build(0.2));
        let summary_a = BuildSummary::of_solo(&a);
        let summary_b = BuildSummary::of_solo(&b);
        assert_eq!((summary_a.islands.len(), summary_b.islands.len()), (2, 1));
        assert_eq!(summary_a.tiles, 1);
        assert!(summary_a.regions >= 2 && summary_a.bytes > 0 && summary_a.polys > 0);
        let rows = delta_rows(&summary_a, &summary_b);
        let names: Vec<_> = rows.iter().map(|r| r.name).collect();
        assert_eq!(
            names,
            [
                "walkable area",
                "polygons",
                "vertices",
                "detail triangles",
                "regions",
                "islands",
                "tiles",
                "bytes",
                "build time"
            ]
        );
        assert_eq!(rows[5].change(), -1.0);

        let filter = QueryFilter::default();
        let extents = [2.0, 4.0, 2.0];
        let (mesh_a, mesh_b) = (
            a.nav_mesh.as_deref().unwrap(),
            b.nav_mesh.as_deref().unwrap(),
        );
        let path = compare_path(mesh_a, mesh_b, LEFT, RIGHT, &filter, extents);
        assert!(!path.reachable_a && path.reachable_b);
        assert_eq!(path.length_a, None);
        let length_b = path.length_b.unwrap();
        assert!((10.0..10.5).contains(&length_b), "{length_b}");
        assert_eq!(path.path_b.last(), Some(&RIGHT));
        // A's partial path heads for the wall, where its island ends.
        assert!(path.path_a.len() >= 2);
        let same_side = compare_path(mesh_a, mesh_b, LEFT, [3.0, 0.0, 3.0], &filter, extents);
        assert!(same_side.reachable_a && same_side.reachable_b);
        // The matrix of several points says the same as the paths between them.
        let points = [LEFT, RIGHT, [3.0, 0.0, 3.0]];
        let reach = |mesh| reachability(mesh, &points, &filter, extents);
        assert_eq!(
            reach(mesh_a),
            [
                [true, false, true],
                [false, true, false],
                [true, false, true]
            ]
        );
        assert_eq!(reach(mesh_b), [[true; 3]; 3]);
    }

    #[test]
    fn a_tiled_build_adds_up_its_tiles() {
        let input = InputGeom::from_mesh(wall_with_gap()).unwrap();
        let tiled = TiledBuild::new(&input, settings(1.0), 16).unwrap();
        let summary = BuildSummary::of_tiled(&tiled);
        let solo = BuildSummary::of_solo(&build(1.0));
        assert!(summary.tiles > 1);
        assert!(summary.regions >= solo.regions);
        assert_eq!(summary.islands.len(), 2);
        // Tiles erode their edges on the level's border a little differently from one grid.
        let difference = (summary.walkable_area - solo.walkable_area).abs();
        assert!(
            difference < 0.1 * solo.walkable_area,
            "{summary:?} {solo:?}"
        );
        let width = tiled.nav_mesh.ref_width();
        let bytes: usize = tiled
            .nav_mesh
            .tiles()
            .map(|(_, t)| t.data_size(width))
            .sum();
        assert_eq!(summary.bytes, bytes);
    }
}
