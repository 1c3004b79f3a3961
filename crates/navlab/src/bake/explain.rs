//! "Why is this spot not walkable?": follows one spot of a solo [`Build`] through the stages
//! and names the first that removed it, with the setting responsible, the value measured there
//! and the setting's value that would keep it.
//!
//! The spot is the span of the column under the point nearest the point's height. Each
//! stage's verdict is read from what the build kept (the areas as rasterized, filtered, built
//! and eroded, the regions, the poly mesh), so the answer never contradicts the build; the
//! measurement beside it is made with Recast's own quantisation (cells of `cs`, voxels of `ch`,
//! the same slope and chamfer tests) and, where it cannot account for the verdict alone,
//! [`Explanation::certain`] is false.

use std::fmt;

use crate::bake::sample_areas::area_name;
use crate::bake::solo::{Build, Stage};
use crate::bake::tiled::TiledBuild;
use crate::detour::islands::Islands;
use crate::detour::{NavMesh, PolyRef};
use crate::error::Result;
use crate::input::InputGeom;
use crate::recast::compact::CompactHeightfield;
use crate::recast::context::BuildContext;
use crate::recast::heightfield::{Heightfield, NO_SPAN, Span};
use crate::recast::rasterize::{face_normal, walkable_normal_y};
use crate::recast::{NULL_AREA, area, dir_offset_x, dir_offset_z};

/// The open sky above a column's highest span, in voxels (Recast's `RC_SPAN_MAX_HEIGHT` room).
const SKY: i32 = 0xffff;

/// Why a spot is or is not walkable: plain data, printed as its sentence.
#[derive(Clone, Debug, PartialEq)]
pub struct Explanation {
    /// The stage that removed the spot; `None` when it is walkable or no stage can be named.
    pub stage: Option<Stage>,
    /// The setting to change, by its RecastDemo name (as `--set` and settings files take it).
    pub setting: Option<&'static str>,
    /// The value measured at the spot, in [`Explanation::unit`].
    pub measured: Option<f32>,
    /// The value of [`Explanation::setting`] that would let the spot through this stage (later
    /// stages may still remove it); for a too-small region, the cell count `minRegionArea`
    /// may reach.
    pub keep_value: Option<f32>,
    /// Unit of the measured value and the keep value: `"°"`, `"m"` or `"cells"` (empty when
    /// there is neither).
    pub unit: &'static str,
    /// Whether the spot is on the navmesh.
    pub walkable: bool,
    /// Whether the measurement alone accounts for the verdict; false when the build removed
    /// the spot for a reason the measurement does not show (the sentence says what is known).
    pub certain: bool,
    /// The point examined: the query's x and z at the top of the span chosen.
    pub position: Option<[f32; 3]>,
    /// The Detour polygon under the spot, when walkable.
    pub poly: Option<PolyRef>,
    /// The spot's island (1-based, largest first) and how many islands there are.
    pub island: Option<(usize, usize)>,
    /// The one line that says it all.
    pub sentence: String,
}

impl fmt::Display for Explanation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.sentence)
    }
}

impl Explanation {
    /// A spot removed by `stage`, with nothing measured.
    fn removed(stage: Option<Stage>, setting: Option<&'static str>, sentence: String) -> Self {
        Explanation {
            stage,
            setting,
            measured: None,
            keep_value: None,
            unit: "",
            walkable: false,
            certain: true,
            position: None,
            poly: None,
            island: None,
            sentence,
        }
    }

    /// A spot removed by `stage` because of `setting`, with the value measured and the value
    /// that would keep it.
    fn measured(
        stage: Stage,
        setting: &'static str,
        (measured, keep_value, unit): (f32, Option<f32>, &'static str),
        sentence: String,
    ) -> Self {
        Explanation {
            measured: Some(measured),
            keep_value,
            unit,
            ..Self::removed(Some(stage), Some(setting), sentence)
        }
    }

    fn at(mut self, position: [f32; 3]) -> Self {
        self.position = Some(position);
        self
    }

    fn uncertain(mut self) -> Self {
        self.certain = false;
        self
    }
}

/// Explains why the spot of `build` under `point` (world units) is or is not walkable. A
/// build made with [`Retention::Everything`](crate::bake::solo::Retention::Everything) can be
/// followed stage by stage; one that did not keep its intermediate stages is explained from
/// the regions on, and says so before that.
pub fn explain(build: &Build, point: [f32; 3]) -> Explanation {
    explain_with(
        build,
        point,
        build.nav_mesh.as_deref().map(|nav_mesh| (nav_mesh, 0)),
    )
}

/// Explains the spot of a tiled build under `point`: rebuilds the tile that holds it with
/// every stage kept ([`TiledBuild::inspect_tile`], which leaves the grid's navmesh as it was)
/// and follows the spot through that tile, its polygon and island taken from the grid's
/// navmesh.
pub fn explain_tiled(
    tiled: &mut TiledBuild,
    input: &InputGeom,
    point: [f32; 3],
) -> Result<Explanation> {
    let Some((x, y)) = tiled.tile_at(point) else {
        return Ok(Explanation::removed(
            Some(Stage::Rasterize),
            None,
            "outside the build bounds".to_string(),
        ));
    };
    let tile = tiled.inspect_tile(input, x, y)?;
    let slot = tiled.nav_mesh.tile_indices_at(x, y).next();
    Ok(explain_with(
        &tile,
        point,
        slot.map(|slot| (&tiled.nav_mesh, slot)),
    ))
}

/// [`explain`] with the navmesh that holds `build`'s polygons, and the slot of their tile.
fn explain_with(
    build: &Build,
    point: [f32; 3],
    nav_mesh: Option<(&NavMesh, usize)>,
) -> Explanation {
    let cfg = &build.config;
    let column = |k: usize| ((point[k] - cfg.bmin[k]) / cfg.cs).floor();
    let (fx, fz) = (column(0), column(2));
    // Written to be false for NaN too.
    let inside = fx >= 0.0
        && fz >= 0.0
        && fx < cfg.width as f32
        && fz < cfg.height as f32
        && point[1].is_finite();
    if !inside {
        return Explanation::removed(
            Some(Stage::Rasterize),
            None,
            "outside the build bounds".to_string(),
        );
    }
    let spot = Spot {
        build,
        nav_mesh,
        x: fx as i32,
        z: fz as i32,
        point,
    };
    spot.explain()
}

/// One column of a build and the point asked about.
struct Spot<'a> {
    build: &'a Build,
    /// The navmesh holding the build's polygons, and the slot of their tile.
    nav_mesh: Option<(&'a NavMesh, usize)>,
    x: i32,
    z: i32,
    point: [f32; 3],
}

impl Spot<'_> {
    fn explain(&self) -> Explanation {
        let build = self.build;
        if let Some(failed) = self.failed_by(Stage::Rasterize) {
            return failed;
        }
        let hf = &build.heightfield_filtered;
        let held = build.holds_intermediates()
            && hf.columns.len() == (hf.width * hf.height) as usize
            && build.rasterized_areas().len() == hf.pool.len();
        if !held {
            return self.regions_only();
        }
        let Some(index) = nearest_span(hf, self.x, self.z, self.point[1]) else {
            return Explanation::removed(
                Some(Stage::Rasterize),
                None,
                "nothing to stand on: no input geometry in this column".to_string(),
            );
        };
        let span = hf.pool[index as usize];
        let position = self.surface(span.smax);
        let rasterized = build.rasterized_areas()[index as usize];
        if rasterized == NULL_AREA && span.area == NULL_AREA {
            return self.at_rasterize(hf, index).at(position);
        }
        if let Some(failed) = self.failed_by(Stage::Filter) {
            return failed.at(position);
        }
        if span.area == NULL_AREA {
            return self.at_filter(hf, index).at(position);
        }
        let low_step = rasterized == NULL_AREA;
        if let Some(failed) = self.failed_by(Stage::Erode) {
            return failed.at(position);
        }
        let chf = &build.regions;
        let Some(i) = compact_span_at(chf, self.x, self.z, span.smax) else {
            return Explanation::removed(
                Some(Stage::Compact),
                None,
                "walkable after the filters but missing from the compact heightfield".to_string(),
            )
            .uncertain()
            .at(position);
        };
        if chf.areas[i] == NULL_AREA {
            return self.at_erode(i).at(position);
        }
        self.after_erosion(i, low_step).at(position)
    }

    /// The point on the surface of a span whose top is `smax` voxels.
    fn surface(&self, smax: u16) -> [f32; 3] {
        let cfg = &self.build.config;
        [
            self.point[0],
            cfg.bmin[1] + f32::from(smax) * cfg.ch,
            self.point[2],
        ]
    }

    /// The explanation for a build that stopped at or before `stage`, if it did.
    fn failed_by(&self, stage: Stage) -> Option<Explanation> {
        let failed = self.build.failed_stage.filter(|&f| f <= stage)?;
        Some(Explanation::removed(
            Some(failed),
            None,
            format!(
                "the build failed at the {} stage, so nothing after it was made",
                failed.name()
            ),
        ))
    }

    /// A build without its intermediate stages: the compact heightfield after regions is all
    /// there is to look at.
    fn regions_only(&self) -> Explanation {
        let unknown = || {
            Explanation::removed(
                None,
                None,
                "not walkable; this build did not keep the stages before regions \
                 (Retention::Final, or over the memory budget), so it cannot say which removed it"
                    .to_string(),
            )
            .uncertain()
        };
        if let Some(failed) = self.failed_by(Stage::Regions) {
            return failed;
        }
        let chf = &self.build.regions;
        if chf.cells.len() != (chf.width * chf.height) as usize {
            return unknown();
        }
        let cell = chf.cell(self.x, self.z);
        let nearest = (cell.index as usize..(cell.index + cell.count) as usize).min_by(|&a, &b| {
            let distance = |i: usize| (self.surface(chf.spans[i].y)[1] - self.point[1]).abs();
            distance(a).total_cmp(&distance(b))
        });
        let Some(i) = nearest else {
            return unknown();
        };
        let position = self.surface(chf.spans[i].y);
        if chf.areas[i] == NULL_AREA {
            return Explanation::removed(
                Some(Stage::Erode),
                Some("agentRadius"),
                "eroded or marked unwalkable by a convex volume (this build did not keep the \
                 stages before regions to measure it)"
                    .to_string(),
            )
            .uncertain()
            .at(position);
        }
        self.after_erosion(i, false).at(position)
    }

    /// Rasterization left the span unwalkable: the slope of the triangle under the point, or
    /// an area the input gave it.
    fn at_rasterize(&self, hf: &Heightfield, index: u32) -> Explanation {
        let build = self.build;
        let cfg = &build.config;
        let span = hf.pool[index as usize];
        let (under_point, steepest) = self.triangles_of_span(&span);
        let is_steep = |t: usize| {
            triangle_normal_y(&build.mesh.verts, &build.mesh.tris, t)
                <= walkable_normal_y(cfg.walkable_slope_angle)
        };
        let Some(triangle) = under_point
            .filter(|&t| is_steep(t))
            .or(steepest.filter(|&t| is_steep(t)))
            .or(under_point)
            .or(steepest)
        else {
            return Explanation::removed(
                Some(Stage::Rasterize),
                None,
                "unwalkable as rasterized, and no input triangle found under the point".to_string(),
            )
            .uncertain();
        };
        let normal_y = triangle_normal_y(&build.mesh.verts, &build.mesh.tris, triangle);
        let limit = cfg.walkable_slope_angle;
        let slope = normal_y.clamp(-1.0, 1.0).acos().to_degrees();
        if normal_y > walkable_normal_y(limit) {
            let given_area = build.triangle_areas.get(triangle).copied();
            if build.mesh.areas.is_some() && given_area == Some(NULL_AREA) {
                return Explanation::removed(
                    Some(Stage::Rasterize),
                    None,
                    format!("the input gives triangle {triangle} area 0 (not walkable)"),
                );
            }
            return Explanation::measured(
                Stage::Rasterize,
                "agentMaxSlope",
                (slope, None, "°"),
                format!(
                    "unwalkable as rasterized: a steeper surface tops this cell (the one under \
                     the point is {}° ≤ agentMaxSlope {}°)",
                    short(slope, 1),
                    short(limit, 2)
                ),
            )
            .uncertain();
        }
        let keep = slope_that_keeps(normal_y, slope);
        // The underside of a floor, or a face wound the wrong way.
        let facing = if normal_y < 0.0 { "faces down: " } else { "" };
        let mut sentence = format!(
            "{facing}slope {}° {} agentMaxSlope {}°",
            short(slope, 1),
            if slope > limit { ">" } else { "≥" },
            short(limit, 2)
        );
        if let Some(step) = self.step_too_high(hf, &span) {
            sentence += &format!(
                ", and its step of {} m up from the walkable span below is above agentMaxClimb \
                 {} m, too high to count as a low obstacle",
                short(step, 2),
                short(build.settings.agent_max_climb, 2)
            );
        }
        Explanation::measured(
            Stage::Rasterize,
            "agentMaxSlope",
            (slope, keep, "°"),
            sentence,
        )
    }

    /// The input triangles that may have made `span`: the one under the point nearest the
    /// span's top, and the steepest reaching the span's top anywhere in this cell (a wall
    /// seen edge-on from above, or a slope whose top sets the span's area).
    fn triangles_of_span(&self, span: &Span) -> (Option<usize>, Option<usize>) {
        let cfg = &self.build.config;
        let mesh = &self.build.mesh;
        let bottom = cfg.bmin[1] + f32::from(span.smin) * cfg.ch;
        let top = cfg.bmin[1] + f32::from(span.smax) * cfg.ch;
        let corners = |t: usize| {
            let corner = |k: usize| {
                let v = mesh.tris[t * 3 + k] as usize * 3;
                [mesh.verts[v], mesh.verts[v + 1], mesh.verts[v + 2]]
            };
            [corner(0), corner(1), corner(2)]
        };
        let under_point = (0..mesh.tri_count())
            .filter_map(|t| {
                let y = height_on_triangle(&corners(t), self.point[0], self.point[2])?;
                (y >= bottom - cfg.ch && y <= top + cfg.ch).then_some((t, (y - top).abs()))
            })
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(t, _)| t);
        let cell_min = [
            cfg.bmin[0] + self.x as f32 * cfg.cs,
            cfg.bmin[2] + self.z as f32 * cfg.cs,
        ];
        let cell_max = [cell_min[0] + cfg.cs, cell_min[1] + cfg.cs];
        let steepest = (0..mesh.tri_count())
            .filter(|&t| {
                let c = corners(t);
                let lo = |k: usize| c[0][k].min(c[1][k]).min(c[2][k]);
                let hi = |k: usize| c[0][k].max(c[1][k]).max(c[2][k]);
                lo(0) <= cell_max[0]
                    && hi(0) >= cell_min[0]
                    && lo(2) <= cell_max[1]
                    && hi(2) >= cell_min[1]
                    && lo(1) <= top + cfg.ch
                    && hi(1) >= top - cfg.ch
            })
            .min_by(|&a, &b| {
                let ny = |t| triangle_normal_y(&mesh.verts, &mesh.tris, t);
                ny(a).total_cmp(&ny(b))
            });
        (under_point, steepest)
    }

    /// The height of an unwalkable span above the walkable one right below it, in metres,
    /// when the low-obstacle filter is on and that step is what kept it from turning the span
    /// walkable.
    fn step_too_high(&self, hf: &Heightfield, span: &Span) -> Option<f32> {
        let build = self.build;
        if !build.settings.filter_low_hanging_obstacles {
            return None;
        }
        let areas = build.rasterized_areas();
        let below = column_indices(hf, self.x, self.z)
            .map(|i| (i, hf.pool[i as usize]))
            .take_while(|(_, s)| s.smax < span.smax)
            .last()?;
        if areas[below.0 as usize] == NULL_AREA {
            return None;
        }
        let step = i32::from(span.smax) - i32::from(below.1.smax);
        (step > build.config.walkable_climb).then_some(step as f32 * build.config.ch)
    }

    /// The span filters cleared a span rasterization made walkable: a ledge, or too little
    /// headroom.
    fn at_filter(&self, hf: &Heightfield, index: u32) -> Explanation {
        let build = self.build;
        let cfg = &build.config;
        let span = hf.pool[index as usize];
        let floor = i32::from(span.smax);
        let ceiling = if span.next == NO_SPAN {
            SKY
        } else {
            i32::from(hf.pool[span.next as usize].smin)
        };
        let climb = build.settings.agent_max_climb;
        let ledge = if build.settings.filter_ledge_spans {
            ledge_at(
                hf,
                self.x,
                self.z,
                floor,
                ceiling,
                cfg.walkable_height,
                cfg.walkable_climb,
            )
        } else {
            None
        };
        match ledge {
            Some(Ledge::Border) => {
                return Explanation::removed(
                    Some(Stage::Filter),
                    Some("filterLedgeSpans"),
                    "ledge: on the edge of the build bounds, which Recast counts as a drop"
                        .to_string(),
                );
            }
            Some(Ledge::Void) => {
                return Explanation::removed(
                    Some(Stage::Filter),
                    Some("filterLedgeSpans"),
                    "ledge: nothing to stand on beside it, a drop of any height".to_string(),
                );
            }
            Some(Ledge::Drop(voxels)) => {
                let drop = voxels as f32 * cfg.ch;
                return Explanation::measured(
                    Stage::Filter,
                    "agentMaxClimb",
                    (drop, Some(climb_that_keeps(voxels, cfg.ch)), "m"),
                    format!(
                        "ledge: drop {} m > agentMaxClimb {} m",
                        short(drop, 2),
                        short(climb, 2)
                    ),
                );
            }
            Some(Ledge::Uneven(voxels)) => {
                let spread = voxels as f32 * cfg.ch;
                return Explanation::measured(
                    Stage::Filter,
                    "agentMaxClimb",
                    (spread, Some(climb_that_keeps(voxels, cfg.ch)), "m"),
                    format!(
                        "ledge: the floors around it differ by {} m > agentMaxClimb {} m",
                        short(spread, 2),
                        short(climb, 2)
                    ),
                );
            }
            None => {}
        }
        let clearance = ceiling - floor;
        if build.settings.filter_walkable_low_height_spans && clearance < cfg.walkable_height {
            let metres = clearance as f32 * cfg.ch;
            return Explanation::measured(
                Stage::Filter,
                "agentHeight",
                (metres, Some(height_that_keeps(clearance, cfg.ch)), "m"),
                format!(
                    "ceiling {} m < agentHeight {} m",
                    short(metres, 2),
                    short(build.settings.agent_height, 2)
                ),
            );
        }
        Explanation::removed(
            Some(Stage::Filter),
            None,
            "the span filters cleared it, though neither a ledge nor the headroom shows here"
                .to_string(),
        )
        .uncertain()
    }

    /// Erosion or a convex volume cleared compact span `i`: replays both on a copy of the
    /// compact heightfield as built to tell which, and measures the distance to the edge.
    fn at_erode(&self, i: usize) -> Explanation {
        let build = self.build;
        let cfg = &build.config;
        let mut chf = build.compact();
        if chf.areas.len() != build.regions.areas.len() {
            return Explanation::removed(
                Some(Stage::Erode),
                None,
                "eroded or marked unwalkable by a convex volume".to_string(),
            )
            .uncertain();
        }
        let distance = erosion_distances(&chf)[i];
        let mut ctx = BuildContext::silent();
        // The build ran the same erosion on the same field, so it cannot fail here.
        let _ = area::erode_walkable_area(&mut ctx, cfg.walkable_radius, &mut chf);
        if chf.areas[i] == NULL_AREA {
            let cells = f32::from(distance) / 2.0;
            let metres = cells * cfg.cs;
            let radius = build.settings.agent_radius;
            let eroded_to = cfg.walkable_radius as f32 * cfg.cs;
            let limit = if metres < radius {
                format!("agentRadius {} m", short(radius, 2))
            } else {
                format!(
                    "{} m (agentRadius {} m rounded up to {} cells)",
                    short(eroded_to, 2),
                    short(radius, 2),
                    cfg.walkable_radius
                )
            };
            let certain = i32::from(distance) < cfg.walkable_radius * 2;
            let explanation = Explanation::measured(
                Stage::Erode,
                "agentRadius",
                (
                    metres,
                    Some(radius_that_keeps(i32::from(distance) / 2, cfg.cs)),
                    "m",
                ),
                format!(
                    "eroded: {} m from the walkable edge < {limit}",
                    short(metres, 2)
                ),
            );
            return if certain {
                explanation
            } else {
                explanation.uncertain()
            };
        }
        for (n, volume) in build.convex_volumes.iter().enumerate() {
            let verts: Vec<f32> = volume.verts.iter().flatten().copied().collect();
            area::mark_convex_poly_area(
                &mut ctx,
                &verts,
                volume.hmin,
                volume.hmax,
                volume.area,
                &mut chf,
            );
            if chf.areas[i] == NULL_AREA {
                let name = area_name(volume.area).unwrap_or("unnamed");
                return Explanation::removed(
                    Some(Stage::Erode),
                    None,
                    format!(
                        "convex volume {} '{name}' marks it area {} (not walkable)",
                        n + 1,
                        volume.area
                    ),
                );
            }
        }
        Explanation::removed(
            Some(Stage::Erode),
            None,
            "eroded or marked unwalkable, though neither erosion nor a volume shows here"
                .to_string(),
        )
        .uncertain()
    }

    /// Compact span `i` survived erosion: its region, polygon and island.
    fn after_erosion(&self, i: usize, low_step: bool) -> Explanation {
        if let Some(failed) = self.failed_by(Stage::Regions) {
            return failed;
        }
        let build = self.build;
        let chf = &build.regions;
        let region = chf.spans[i].reg;
        if region == 0 {
            return self.region_too_small(chf, i);
        }
        if let Some(failed) = self.failed_by(Stage::PolyMesh) {
            return failed;
        }
        let pm = &build.poly_mesh;
        let in_cells = |k: usize| (self.point[k] - pm.bmin[k]) / pm.cs;
        let point = [in_cells(0), in_cells(2)];
        // The poly mesh leaves out a tiled build's border cells.
        let centre = [
            (self.x - pm.border_size) as f32 + 0.5,
            (self.z - pm.border_size) as f32 + 0.5,
        ];
        let outline = |p: usize| -> Vec<[f32; 2]> {
            pm.poly(p)[..pm.nvp]
                .iter()
                .take_while(|&&v| v != crate::recast::MESH_NULL_IDX)
                .map(|&v| {
                    let v = v as usize * 3;
                    [f32::from(pm.verts[v]), f32::from(pm.verts[v + 2])]
                })
                .collect()
        };
        let polys: Vec<usize> = (0..pm.npolys).filter(|&p| pm.regs[p] == region).collect();
        if polys.is_empty() {
            return self.region_without_polygons(region);
        }
        // A point on a polygon's edge is on the polygon.
        let covers = |p: usize, at: [f32; 2]| {
            let outline = outline(p);
            point_in_outline(&outline, at) || distance_to_outline(&outline, at) < ON_EDGE
        };
        let covering = [point, centre]
            .into_iter()
            .find_map(|at| polys.iter().copied().find(|&p| covers(p, at)));
        let Some(poly) = covering else {
            return self.uncovered(region, point);
        };
        self.on_polygon(poly, low_step)
    }

    /// The spot is in region `region` but on none of its polygons: outside the region's
    /// simplified outline (contour simplification cut it off), or inside it where the poly
    /// mesh left a hole (Recast's triangulation of the outline failed, or removing a vertex
    /// on a tile's edge left a sliver out).
    fn uncovered(&self, region: u16, point: [f32; 2]) -> Explanation {
        let build = self.build;
        let outlines: Vec<Vec<[f32; 2]>> = build
            .contours
            .contours
            .iter()
            .filter(|c| c.reg == region && c.nverts() >= 3)
            .map(|c| {
                c.verts
                    .chunks_exact(4)
                    .map(|v| [v[0] as f32, v[2] as f32])
                    .collect()
            })
            .collect();
        if outlines.iter().any(|o| point_in_outline(o, point)) {
            let failed = build
                .context
                .entries()
                .iter()
                .any(|e| e.message.contains("Bad triangulation"));
            let explanation = Explanation::removed(
                Some(Stage::PolyMesh),
                None,
                format!(
                    "inside region {region}'s outline but on none of its polygons: the poly \
                     mesh left this part out (a failed triangulation, or a tile-edge vertex \
                     removed)"
                ),
            );
            return if failed {
                explanation
            } else {
                explanation.uncertain()
            };
        }
        let cells = outlines
            .iter()
            .map(|o| distance_to_outline(o, point))
            .fold(f32::INFINITY, f32::min);
        let max_error = build.settings.edge_max_error;
        let explanation = Explanation::measured(
            Stage::Contours,
            "edgeMaxError",
            (cells, None, "cells"),
            format!(
                "cut off by contour simplification: {} cells outside region {region}'s outline \
                 (edgeMaxError {} cells)",
                short(cells, 2),
                short(max_error, 2)
            ),
        );
        // Simplification moves an outline at most edgeMaxError from the traced one, which runs
        // along cell edges: a point further out was cut by something else.
        if cells <= max_error + 1.0 {
            explanation
        } else {
            explanation.uncertain()
        }
    }

    /// Compact span `i` is in no region: the connected area it would have formed was below
    /// `minRegionArea`.
    fn region_too_small(&self, chf: &CompactHeightfield, i: usize) -> Explanation {
        let build = self.build;
        let min_area = build.config.min_region_area;
        let cells = connected_span_count(chf, self.x, self.z, i);
        let min_size = build.settings.region_min_size;
        let explanation = Explanation::measured(
            Stage::Regions,
            "regionMinSize",
            (cells as f32, Some(cells as f32), "cells"),
            format!(
                "region of {cells} cells < minRegionArea {min_area} (regionMinSize {}²)",
                short(min_size, 2)
            ),
        );
        if (cells as i64) < i64::from(min_area) {
            explanation
        } else {
            Explanation {
                sentence: format!(
                    "in no region, though its connected area of {cells} cells reaches \
                     minRegionArea {min_area} (regionMinSize {}²)",
                    short(min_size, 2)
                ),
                ..explanation.uncertain()
            }
        }
    }

    /// Region `region` made no polygon: its outline simplified away, or its polygons were
    /// dropped.
    fn region_without_polygons(&self, region: u16) -> Explanation {
        let build = self.build;
        let outlined = build
            .contours
            .contours
            .iter()
            .any(|c| c.reg == region && c.nverts() >= 3);
        if !outlined {
            return Explanation::removed(
                Some(Stage::Contours),
                Some("edgeMaxError"),
                format!(
                    "region {region}'s outline simplified to fewer than 3 corners (edgeMaxError \
                     {} cells)",
                    short(build.settings.edge_max_error, 2)
                ),
            );
        }
        if build.settings.remove_degenerate_polygons {
            return Explanation::removed(
                Some(Stage::PolyMesh),
                Some("removeDegeneratePolygons"),
                format!("region {region}'s polygons were degenerate and removed"),
            );
        }
        Explanation::removed(
            Some(Stage::PolyMesh),
            None,
            format!("the poly mesh made no polygon of region {region}'s outline"),
        )
        .uncertain()
    }

    /// The spot is on poly-mesh polygon `poly`: its Detour polygon and island.
    fn on_polygon(&self, poly: usize, low_step: bool) -> Explanation {
        let build = self.build;
        let area = build.poly_mesh.areas[poly];
        let area = area_name(area).map_or_else(|| format!("area {area}"), |n| format!("area {n}"));
        let step = if low_step {
            ", a low step kept by filterLowHangingObstacles"
        } else {
            ""
        };
        let walkable = Explanation {
            walkable: true,
            ..Explanation::removed(None, None, String::new())
        };
        let Some((nav_mesh, slot)) = self.nav_mesh else {
            if let Some(failed) = self.failed_by(Stage::NavMesh) {
                return failed;
            }
            return Explanation {
                sentence: format!(
                    "walkable, poly mesh polygon {poly} ({area}){step}; no Detour navmesh \
                     (vertsPerPoly above {})",
                    crate::detour::VERTS_PER_POLYGON
                ),
                ..walkable
            };
        };
        let poly_ref = nav_mesh.poly_ref_base(slot) | poly as PolyRef;
        let islands = Islands::of(nav_mesh);
        let island = islands
            .island_of(nav_mesh, poly_ref)
            .map(|i| (i + 1, islands.len()));
        let island_text = island.map_or_else(String::new, |(i, n)| format!(", island {i} of {n}"));
        Explanation {
            poly: Some(poly_ref),
            island,
            sentence: format!("walkable, polygon {poly} ({area}){island_text}{step}"),
            ..walkable
        }
    }
}

/// How close to a polygon's edge, in cells, a point counts as on it.
const ON_EDGE: f32 = 1e-3;

/// Why the ledge filter clears a span.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ledge {
    /// The span is on the grid's edge.
    Border,
    /// A neighbour column has room below its lowest span: a drop into nothing.
    Void,
    /// The deepest drop to a neighbour floor, voxels.
    Drop(i32),
    /// How far the reachable neighbour floors are apart, voxels.
    Uneven(i32),
}

/// Recast's ledge test for a walkable span of column (`x`, `z`) with open space
/// `floor..ceiling` above it (voxels), measuring what fails it: the same test as
/// [`crate::recast::filter::filter_ledge_spans`], kept plain to report the worst drop.
fn ledge_at(
    hf: &Heightfield,
    x: i32,
    z: i32,
    floor: i32,
    ceiling: i32,
    walkable_height: i32,
    walkable_climb: i32,
) -> Option<Ledge> {
    if x == 0 || z == 0 || x + 1 >= hf.width || z + 1 >= hf.height {
        return Some(Ledge::Border);
    }
    if ceiling - floor < walkable_height {
        return None;
    }
    let highest_reachable_floor = ceiling.saturating_sub(walkable_height);
    let lowest_reachable_ceiling = floor.saturating_add(walkable_height);
    let (mut lowest, mut highest) = (floor, floor);
    let mut deepest_drop = 0;
    for dir in 0..4 {
        let (nx, nz) = (x + dir_offset_x(dir), z + dir_offset_z(dir));
        let spans: Vec<Span> = column_indices(hf, nx, nz)
            .map(|i| hf.pool[i as usize])
            .collect();
        let bottom = spans.first().map_or(SKY, |s| i32::from(s.smin));
        if bottom >= lowest_reachable_ceiling {
            return Some(Ledge::Void);
        }
        for (k, span) in spans.iter().enumerate() {
            let gap_floor = i32::from(span.smax);
            let gap_ceiling = spans.get(k + 1).map_or(SKY, |s| i32::from(s.smin));
            if gap_ceiling - gap_floor < walkable_height
                || gap_floor > highest_reachable_floor
                || gap_ceiling < lowest_reachable_ceiling
            {
                continue;
            }
            let difference = gap_floor - floor;
            if difference < -walkable_climb {
                deepest_drop = deepest_drop.max(-difference);
            } else if difference <= walkable_climb {
                lowest = lowest.min(gap_floor);
                highest = highest.max(gap_floor);
            }
        }
    }
    if deepest_drop > 0 {
        Some(Ledge::Drop(deepest_drop))
    } else if highest - lowest > walkable_climb {
        Some(Ledge::Uneven(highest - lowest))
    } else {
        None
    }
}

/// Pool indices of column (`x`, `z`)'s spans, bottom to top.
fn column_indices(hf: &Heightfield, x: i32, z: i32) -> impl Iterator<Item = u32> + '_ {
    let head = hf.columns[(x + z * hf.width) as usize];
    std::iter::successors((head != NO_SPAN).then_some(head), move |&i| {
        let next = hf.pool[i as usize].next;
        (next != NO_SPAN).then_some(next)
    })
}

/// The span of column (`x`, `z`) whose top is nearest height `y`.
fn nearest_span(hf: &Heightfield, x: i32, z: i32, y: f32) -> Option<u32> {
    column_indices(hf, x, z).min_by(|&a, &b| {
        let distance =
            |i: u32| (hf.bmin[1] + f32::from(hf.pool[i as usize].smax) * hf.ch - y).abs();
        distance(a).total_cmp(&distance(b))
    })
}

/// The compact span of column (`x`, `z`) standing on floor `y` voxels.
fn compact_span_at(chf: &CompactHeightfield, x: i32, z: i32, y: u16) -> Option<usize> {
    if chf.cells.len() != (chf.width * chf.height) as usize {
        return None;
    }
    let cell = chf.cell(x, z);
    (cell.index as usize..(cell.index + cell.count) as usize).find(|&i| chf.spans[i].y == y)
}

/// The y of a triangle's unit normal, as Recast's slope test computes it.
fn triangle_normal_y(verts: &[f32], tris: &[i32], t: usize) -> f32 {
    let corner = |k: usize| {
        let v = tris[t * 3 + k] as usize * 3;
        [verts[v], verts[v + 1], verts[v + 2]]
    };
    face_normal(&corner(0), &corner(1), &corner(2))[1]
}

/// The height of triangle `c` at (`x`, `z`), if that is inside its projection.
fn height_on_triangle(c: &[[f32; 3]; 3], x: f32, z: f32) -> Option<f32> {
    let e0 = [c[2][0] - c[0][0], c[2][1] - c[0][1], c[2][2] - c[0][2]];
    let e1 = [c[1][0] - c[0][0], c[1][1] - c[0][1], c[1][2] - c[0][2]];
    let (px, pz) = (x - c[0][0], z - c[0][2]);
    let denominator = e0[0] * e1[2] - e0[2] * e1[0];
    if denominator.abs() < 1e-9 {
        return None;
    }
    let u = (e1[2] * px - e1[0] * pz) / denominator;
    let v = (e0[0] * pz - e0[2] * px) / denominator;
    const SLACK: f32 = 1e-4;
    (u >= -SLACK && v >= -SLACK && u + v <= 1.0 + SLACK).then(|| c[0][1] + e0[1] * u + e1[1] * v)
}

/// The smallest `agentMaxSlope`, in tenths of a degree, that passes Recast's test
/// `normal.y > cos(slope)` for a triangle of `normal_y` (measured at `slope` degrees); `None`
/// when no slope up to 90° does.
fn slope_that_keeps(normal_y: f32, slope: f32) -> Option<f32> {
    let first = (slope * 10.0).ceil() as i32;
    (first..=900)
        .map(|tenths| tenths as f32 / 10.0)
        .find(|&angle| normal_y > walkable_normal_y(angle))
}

/// The smallest `agentMaxClimb` whose voxel climb, `floor(climb / ch)`, reaches `voxels`.
fn climb_that_keeps(voxels: i32, ch: f32) -> f32 {
    let mut climb = voxels as f32 * ch;
    while ((climb / ch).floor() as i32) < voxels {
        climb = climb.next_up();
    }
    climb
}

/// The largest `agentHeight` whose voxel height, `ceil(height / ch)`, fits in `voxels`.
fn height_that_keeps(voxels: i32, ch: f32) -> f32 {
    let mut height = voxels as f32 * ch;
    while (height / ch).ceil() as i32 > voxels {
        height = height.next_down();
    }
    height
}

/// The largest `agentRadius` whose cell radius, `ceil(radius / cs)`, is at most `cells`.
fn radius_that_keeps(cells: i32, cs: f32) -> f32 {
    let mut radius = cells as f32 * cs;
    while (radius / cs).ceil() as i32 > cells {
        radius = radius.next_down();
    }
    radius
}

/// Every compact span's chamfer distance to the edge of the walkable area (2 per straight
/// step, 3 per diagonal), as Recast's erosion computes it over the whole field.
fn erosion_distances(chf: &CompactHeightfield) -> Vec<u8> {
    let (width, height) = (chf.width, chf.height);
    let mut dist = vec![u8::MAX; chf.spans.len()];
    let step = |x: i32, z: i32, i: usize, dir: usize| {
        chf.neighbour(x, z, i, dir)
            .map(|n| (x + dir_offset_x(dir), z + dir_offset_z(dir), n))
    };
    for z in 0..height {
        for x in 0..width {
            let cell = chf.cell(x, z);
            let spans = cell.index as usize..(cell.index + cell.count) as usize;
            for (i, distance) in spans.clone().zip(&mut dist[spans]) {
                let interior = chf.areas[i] != NULL_AREA
                    && (0..4).all(|dir| {
                        step(x, z, i, dir).is_some_and(|(_, _, n)| chf.areas[n] != NULL_AREA)
                    });
                if !interior {
                    *distance = 0;
                }
            }
        }
    }
    let relax = |dist: &mut Vec<u8>, x: i32, z: i32, i: usize, straight: usize, diagonal: usize| {
        if let Some((ax, az, a)) = step(x, z, i, straight) {
            dist[i] = dist[i].min(dist[a].saturating_add(2));
            if let Some((_, _, b)) = step(ax, az, a, diagonal) {
                dist[i] = dist[i].min(dist[b].saturating_add(3));
            }
        }
    };
    for z in 0..height {
        for x in 0..width {
            let cell = chf.cell(x, z);
            for i in cell.index as usize..(cell.index + cell.count) as usize {
                relax(&mut dist, x, z, i, 0, 3);
                relax(&mut dist, x, z, i, 3, 2);
            }
        }
    }
    for z in (0..height).rev() {
        for x in (0..width).rev() {
            let cell = chf.cell(x, z);
            for i in cell.index as usize..(cell.index + cell.count) as usize {
                relax(&mut dist, x, z, i, 2, 1);
                relax(&mut dist, x, z, i, 1, 0);
            }
        }
    }
    dist
}

/// How many walkable spans are connected to span `i` of column (`x`, `z`): the area Recast's
/// region filter weighs against `minRegionArea` (all the regions it touches together).
fn connected_span_count(chf: &CompactHeightfield, x: i32, z: i32, i: usize) -> usize {
    let mut seen = vec![false; chf.spans.len()];
    let mut stack = vec![(x, z, i)];
    seen[i] = true;
    let mut count = 0;
    while let Some((x, z, i)) = stack.pop() {
        count += 1;
        for dir in 0..4 {
            if let Some(n) = chf.neighbour(x, z, i, dir)
                && chf.areas[n] != NULL_AREA
                && !seen[n]
            {
                seen[n] = true;
                stack.push((x + dir_offset_x(dir), z + dir_offset_z(dir), n));
            }
        }
    }
    count
}

/// Even-odd test of `point` against a polygon on the xz-plane.
fn point_in_outline(outline: &[[f32; 2]], point: [f32; 2]) -> bool {
    let mut inside = false;
    let mut j = outline.len().wrapping_sub(1);
    for (i, a) in outline.iter().enumerate() {
        let b = outline[j];
        j = i;
        if (a[1] > point[1]) != (b[1] > point[1])
            && point[0] < (b[0] - a[0]) * (point[1] - a[1]) / (b[1] - a[1]) + a[0]
        {
            inside = !inside;
        }
    }
    inside
}

/// Distance from `point` to the nearest edge of a polygon on the xz-plane.
fn distance_to_outline(outline: &[[f32; 2]], point: [f32; 2]) -> f32 {
    let n = outline.len();
    (0..n)
        .map(|i| {
            let (a, b) = (outline[i], outline[(i + 1) % n]);
            let (dx, dz) = (b[0] - a[0], b[1] - a[1]);
            let length = dx * dx + dz * dz;
            let t = if length > 0.0 {
                (((point[0] - a[0]) * dx + (point[1] - a[1]) * dz) / length).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let (ex, ez) = (a[0] + t * dx - point[0], a[1] + t * dz - point[1]);
            (ex * ex + ez * ez).sqrt()
        })
        .fold(f32::INFINITY, f32::min)
}

/// `value` with at most `decimals` decimals, trailing zeros dropped.
fn short(value: f32, decimals: usize) -> String {
    let text = format!("{value:.decimals$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::bake::sample_areas::area as sample_area;
    use crate::bake::settings::BuildSettings;
    use crate::bake::solo::Retention;
    use crate::input::geomset::ConvexVolume;
    use crate::input::obj::TriMesh;

    /// Default cell size and height, the tolerances of the measured values.
    const CS: f32 = 0.3;
    const CH: f32 = 0.2;

    /// Quads made in code, each facing up (or down when `flipped`).
    #[derive(Default)]
    struct Level {
        verts: Vec<f32>,
        tris: Vec<i32>,
    }

    impl Level {
        /// A quad through four corners, counter-clockwise seen from above.
        fn quad(mut self, corners: [[f32; 3]; 4]) -> Self {
            let first = (self.verts.len() / 3) as i32;
            self.verts.extend(corners.iter().flatten());
            self.tris
                .extend([0, 3, 2, 0, 2, 1].iter().map(|&k| first + k));
            self
        }

        /// A flat quad from (`x0`, `z0`) to (`x1`, `z1`) at height `y`.
        fn floor(self, x0: f32, z0: f32, x1: f32, z1: f32, y: f32) -> Self {
            self.quad([[x0, y, z0], [x1, y, z0], [x1, y, z1], [x0, y, z1]])
        }

        fn mesh(self) -> Arc<TriMesh> {
            Arc::new(TriMesh::from_parts(self.verts, self.tris).unwrap())
        }

        fn build(self, settings: BuildSettings) -> Build {
            Build::new(self.mesh(), settings).unwrap()
        }
    }

    /// A 10 m floor.
    fn ground() -> Level {
        Level::default().floor(0.0, 0.0, 10.0, 10.0, 0.0)
    }

    fn assert_near(measured: Option<f32>, expected: f32, tolerance: f32) {
        let measured = measured.expect("a measured value");
        assert!(
            (measured - expected).abs() <= tolerance,
            "measured {measured}, expected {expected} ± {tolerance}"
        );
    }

    #[test]
    fn the_middle_of_a_floor_is_walkable_with_its_polygon_and_island() {
        // A second, smaller floor 4 m away: two islands, the small one second.
        let build = ground()
            .floor(14.0, 0.0, 20.0, 6.0, 0.0)
            .build(BuildSettings::default());
        let big = explain(&build, [5.0, 0.0, 5.0]);
        assert!(big.walkable && big.certain, "{big}");
        assert_eq!((big.stage, big.setting), (None, None));
        assert_eq!(big.island, Some((1, 2)));
        let small = explain(&build, [17.0, 0.3, 3.0]);
        assert!(small.walkable, "{small}");
        assert_eq!(small.island, Some((2, 2)));
        let poly = small.poly.unwrap();
        let nav_mesh = build.nav_mesh.as_ref().unwrap();
        let (_, index) = nav_mesh.poly_location(poly).unwrap();
        assert!(
            small.sentence.starts_with(&format!(
                "walkable, polygon {index} (area ground), island 2 of 2"
            )),
            "{small}"
        );
        assert_near(small.position.map(|p| p[1]), 0.0, CH);
    }

    #[test]
    fn a_tiled_build_is_explained_in_the_tile_that_holds_the_point() {
        let input = crate::input::InputGeom::from_mesh(TriMesh::clone(&ground().mesh())).unwrap();
        let mut tiled = TiledBuild::new(&input, BuildSettings::default(), 16).unwrap();
        let walkable = explain_tiled(&mut tiled, &input, [5.0, 0.0, 5.0]).unwrap();
        assert!(walkable.walkable && walkable.certain, "{walkable}");
        let poly = walkable.poly.unwrap();
        assert_eq!(
            tiled.nav_mesh.poly_location(poly).unwrap().0,
            tiled.nav_mesh.tile_indices_at(1, 1).next().unwrap()
        );
        assert_eq!(walkable.island, Some((1, 1)));
        let eroded = explain_tiled(&mut tiled, &input, [0.75, 0.0, 5.0]).unwrap();
        assert_eq!(
            eroded.sentence,
            "eroded: 0.3 m from the walkable edge < agentRadius 0.6 m"
        );
        let outside = explain_tiled(&mut tiled, &input, [-1.0, 0.0, 5.0]).unwrap();
        assert_eq!(outside.sentence, "outside the build bounds");
    }

    #[test]
    fn a_point_beside_the_grid_is_outside_the_bounds() {
        let build = ground().build(BuildSettings::default());
        for point in [[-1.0, 0.0, 5.0], [5.0, 0.0, 10.5], [f32::NAN, 0.0, 5.0]] {
            let why = explain(&build, point);
            assert_eq!(why.stage, Some(Stage::Rasterize));
            assert_eq!(why.sentence, "outside the build bounds");
        }
    }

    #[test]
    fn a_gap_between_floors_has_nothing_to_stand_on() {
        let build = ground()
            .floor(14.0, 0.0, 20.0, 6.0, 0.0)
            .build(BuildSettings::default());
        let why = explain(&build, [12.0, 0.0, 3.0]);
        assert_eq!((why.stage, why.setting), (Some(Stage::Rasterize), None));
        assert!(why.sentence.starts_with("nothing to stand on"), "{why}");
    }

    #[test]
    fn a_steep_roof_is_too_steep() {
        // A 60° plane over the floor, from 0.5 m up.
        let rise = 3.0 * 60f32.to_radians().tan();
        let build = ground()
            .quad([
                [3.0, 0.5, 3.0],
                [6.0, 0.5 + rise, 3.0],
                [6.0, 0.5 + rise, 6.0],
                [3.0, 0.5, 6.0],
            ])
            .build(BuildSettings::default());
        let y = 0.5 + 1.5 * 60f32.to_radians().tan();
        let why = explain(&build, [4.5, y, 4.5]);
        assert_eq!(why.stage, Some(Stage::Rasterize), "{why}");
        assert_eq!(why.setting, Some("agentMaxSlope"));
        assert_near(why.measured, 60.0, 0.1);
        let keep = why.keep_value.unwrap();
        assert!(keep > 60.0 && keep <= 60.2, "{keep}");
        assert_eq!(why.unit, "°");
        assert!(
            why.sentence.starts_with("slope 60° > agentMaxSlope 45°"),
            "{why}"
        );
    }

    #[test]
    fn a_floor_wound_the_wrong_way_faces_down() {
        let level = Level::default().quad([
            [0.0, 0.0, 0.0],
            [0.0, 0.0, 10.0],
            [10.0, 0.0, 10.0],
            [10.0, 0.0, 0.0],
        ]);
        let build = Build::unbuilt_for_input(
            &crate::input::InputGeom::from_mesh(TriMesh::clone(&level.mesh())).unwrap(),
            BuildSettings::default(),
            Retention::Everything,
            None,
        )
        .map(|mut build| {
            // Nothing is walkable, so the navmesh stage fails; the explanation still answers.
            assert!(build.rebuild_from(Stage::Rasterize).is_err());
            build
        })
        .unwrap();
        let why = explain(&build, [5.0, 0.0, 5.0]);
        assert_eq!(why.setting, Some("agentMaxSlope"), "{why}");
        assert_near(why.measured, 180.0, 0.1);
        assert_eq!(why.keep_value, None);
        assert_eq!(why.sentence, "faces down: slope 180° > agentMaxSlope 45°");
    }

    #[test]
    fn a_low_slab_leaves_too_little_headroom() {
        let build = ground()
            .floor(3.0, 3.0, 7.0, 7.0, 1.6)
            .build(BuildSettings::default());
        let why = explain(&build, [5.0, 0.0, 5.0]);
        assert_eq!(
            (why.stage, why.setting),
            (Some(Stage::Filter), Some("agentHeight")),
            "{why}"
        );
        assert_near(why.measured, 1.6, 2.0 * CH);
        assert_eq!(why.keep_value, why.measured);
        assert!(
            why.sentence.starts_with("ceiling 1.") && why.sentence.ends_with("m < agentHeight 2 m"),
            "{why}"
        );
        // The slab's top is walkable.
        assert!(explain(&build, [5.0, 1.6, 5.0]).walkable);
    }

    #[test]
    fn a_platform_edge_is_a_ledge() {
        let build = ground()
            .floor(3.05, 3.05, 7.05, 7.05, 1.4)
            .build(BuildSettings::default());
        let why = explain(&build, [3.2, 1.4, 5.0]);
        assert_eq!(
            (why.stage, why.setting),
            (Some(Stage::Filter), Some("agentMaxClimb")),
            "{why}"
        );
        assert_near(why.measured, 1.4, CH);
        let keep = why.keep_value.unwrap();
        assert!(
            keep >= why.measured.unwrap()
                && ((keep / CH).floor() * CH - why.measured.unwrap()).abs() < 1e-4
        );
        assert!(
            why.sentence.starts_with("ledge: drop 1.")
                && why.sentence.ends_with("> agentMaxClimb 0.9 m"),
            "{why}"
        );
        // The floor's own edge drops into nothing, and the grid's edge is a ledge too.
        let into_nothing = explain(
            &ground()
                .floor(14.0, 0.0, 20.0, 6.0, 0.0)
                .build(BuildSettings::default()),
            [10.1, 0.0, 3.0],
        );
        assert_eq!(
            into_nothing.setting,
            Some("filterLedgeSpans"),
            "{into_nothing}"
        );
        let border = explain(&build, [0.1, 0.0, 5.0]);
        assert_eq!(
            (border.stage, border.setting),
            (Some(Stage::Filter), Some("filterLedgeSpans")),
            "{border}"
        );
        assert!(
            border.sentence.contains("edge of the build bounds"),
            "{border}"
        );
    }

    #[test]
    fn a_step_between_two_steps_is_too_uneven() {
        // Three strips rising 0.9 m and 0.8 m: the middle one's neighbours are each within a
        // climb of it, but 1.6 m apart.
        let build = Level::default()
            .floor(0.0, 0.0, 3.85, 10.0, 0.0)
            .floor(3.95, 0.0, 4.15, 10.0, 0.9)
            .floor(4.25, 0.0, 10.0, 10.0, 1.7)
            .build(BuildSettings::default());
        let why = explain(&build, [4.05, 0.9, 5.0]);
        assert_eq!(
            (why.stage, why.setting),
            (Some(Stage::Filter), Some("agentMaxClimb")),
            "{why}"
        );
        assert_near(why.measured, 1.6, 1e-4);
        assert_near(why.keep_value, 1.6, 1e-4);
        assert_eq!(
            why.sentence,
            "ledge: the floors around it differ by 1.6 m > agentMaxClimb 0.9 m"
        );
    }

    #[test]
    fn an_input_area_of_zero_is_named() {
        let level = ground().floor(10.0, 0.0, 20.0, 10.0, 0.0);
        let mesh = TriMesh::from_parts(level.verts, level.tris)
            .unwrap()
            .with_areas(vec![63, 63, 0, 0])
            .unwrap();
        let build = Build::new(Arc::new(mesh), BuildSettings::default()).unwrap();
        let why = explain(&build, [15.0, 0.0, 5.0]);
        assert_eq!(
            (why.stage, why.setting),
            (Some(Stage::Rasterize), None),
            "{why}"
        );
        assert!(
            why.sentence.starts_with("the input gives triangle ")
                && why.sentence.ends_with(" area 0 (not walkable)"),
            "{why}"
        );
        assert!(explain(&build, [5.0, 0.0, 5.0]).walkable);
    }

    #[test]
    fn near_the_edge_is_eroded() {
        let build = ground().build(BuildSettings::default());
        // Cell 2 from the grid's edge: cell 0 is a ledge, cell 1 the walkable edge.
        let why = explain(&build, [0.75, 0.0, 5.0]);
        assert_eq!(
            (why.stage, why.setting),
            (Some(Stage::Erode), Some("agentRadius")),
            "{why}"
        );
        assert_near(why.measured, 0.3, CS / 2.0);
        assert_near(why.keep_value, 0.3, 1e-4);
        assert!(why.certain);
        assert_eq!(
            why.sentence,
            "eroded: 0.3 m from the walkable edge < agentRadius 0.6 m"
        );
    }

    #[test]
    fn a_small_platform_makes_too_small_a_region() {
        let build = ground()
            .floor(14.0, 2.0, 17.6, 5.6, 0.0)
            .build(BuildSettings::default());
        let why = explain(&build, [15.8, 0.0, 3.8]);
        assert_eq!(
            (why.stage, why.setting),
            (Some(Stage::Regions), Some("regionMinSize")),
            "{why}"
        );
        let cells = why.measured.unwrap();
        // 12 cells a side, less a ledge cell and two eroded ones on each side.
        assert!((16.0..=49.0).contains(&cells), "{cells}");
        assert_eq!(why.keep_value, Some(cells));
        assert!(why.certain);
        assert_eq!(
            why.sentence,
            format!("region of {cells} cells < minRegionArea 64 (regionMinSize 8²)")
        );
    }

    #[test]
    fn convex_volumes_mark_areas() {
        let mut build = ground().build(BuildSettings::default());
        let square = |x0: f32, x1: f32| {
            vec![
                [x0, 0.0, 3.0],
                [x1, 0.0, 3.0],
                [x1, 0.0, 7.0],
                [x0, 0.0, 7.0],
            ]
        };
        build.convex_volumes = vec![
            ConvexVolume {
                verts: square(2.0, 4.0),
                area: sample_area::WATER,
                hmin: -1.0,
                hmax: 1.0,
            },
            ConvexVolume {
                verts: square(6.0, 8.0),
                area: sample_area::GROUND,
                hmin: -1.0,
                hmax: 1.0,
            },
        ];
        build.rebuild_from(Stage::Erode).unwrap();
        let why = explain(&build, [7.0, 0.0, 5.0]);
        assert_eq!(
            (why.stage, why.setting),
            (Some(Stage::Erode), None),
            "{why}"
        );
        assert_eq!(
            why.sentence,
            "convex volume 2 'ground' marks it area 0 (not walkable)"
        );
        let water = explain(&build, [3.0, 0.0, 5.0]);
        assert!(
            water.walkable && water.sentence.contains("(area water)"),
            "{water}"
        );
    }

    #[test]
    fn a_coarse_outline_cuts_off_corners() {
        // A right triangle of floor: simplifying its staircase hypotenuse with a large error
        // cuts cells off along it.
        let mesh = Level {
            verts: vec![0.0, 0.0, 0.0, 0.0, 0.0, 9.0, 9.0, 0.0, 0.0],
            tris: vec![0, 1, 2],
        }
        .mesh();
        let settings = BuildSettings {
            edge_max_error: 3.0,
            agent_radius: 0.0,
            ..BuildSettings::default()
        };
        let build = Build::new(mesh, settings).unwrap();
        let cut: Vec<Explanation> = (0..30)
            .flat_map(|i| (0..30).map(move |j| [i as f32 * 0.3 + 0.15, 0.0, j as f32 * 0.3 + 0.15]))
            .map(|p| explain(&build, p))
            .filter(|why| why.stage == Some(Stage::Contours))
            .collect();
        assert!(!cut.is_empty());
        for why in &cut {
            assert_eq!(why.setting, Some("edgeMaxError"));
            let cells = why.measured.unwrap();
            assert!(cells > 0.0 && cells <= 3.0 + 1.0, "{why}");
            assert!(why.certain, "{why}");
        }
    }

    #[test]
    fn a_low_step_is_kept_by_the_low_obstacle_filter() {
        // A 60° strip one cell wide, 0.5 m over the floor: steep, but within a climb of it.
        let top = 0.5 + 0.2 * 60f32.to_radians().tan();
        let build = ground()
            .quad([
                [3.95, 0.5, 4.0],
                [4.15, top, 4.0],
                [4.15, top, 6.0],
                [3.95, 0.5, 6.0],
            ])
            .build(BuildSettings::default());
        let why = explain(&build, [4.05, 0.7, 5.0]);
        assert!(why.walkable, "{why}");
        assert!(
            why.sentence
                .ends_with("a low step kept by filterLowHangingObstacles"),
            "{why}"
        );
        let off = BuildSettings {
            filter_low_hanging_obstacles: false,
            ..BuildSettings::default()
        };
        let build = ground()
            .quad([
                [3.95, 0.5, 4.0],
                [4.15, top, 4.0],
                [4.15, top, 6.0],
                [3.95, 0.5, 6.0],
            ])
            .build(off);
        let why = explain(&build, [4.05, 0.7, 5.0]);
        assert_eq!(why.setting, Some("agentMaxSlope"), "{why}");
    }

    #[test]
    fn a_failed_build_says_where_it_stopped() {
        let mut build = ground().build(BuildSettings::default());
        // As a build that failed at contours leaves it (the stages after are empty).
        build.failed_stage = Some(Stage::Contours);
        build.contours = Arc::default();
        build.poly_mesh = Arc::default();
        build.nav_mesh = None;
        let why = explain(&build, [5.0, 0.0, 5.0]);
        assert_eq!(
            (why.stage, why.setting),
            (Some(Stage::Contours), None),
            "{why}"
        );
        assert!(
            why.sentence
                .starts_with("the build failed at the Contours stage"),
            "{why}"
        );
        // What the build did before it still answers.
        assert_eq!(explain(&build, [0.75, 0.0, 5.0]).stage, Some(Stage::Erode));
    }

    #[test]
    fn a_build_without_its_stages_says_so() {
        let input = crate::input::InputGeom::from_mesh(TriMesh::clone(&ground().mesh())).unwrap();
        let build =
            Build::from_input_keeping(&input, BuildSettings::default(), Retention::Final).unwrap();
        assert!(!build.holds_intermediates());
        assert!(explain(&build, [5.0, 0.0, 5.0]).walkable);
        let why = explain(&build, [0.1, 0.0, 5.0]);
        assert!(!why.walkable && !why.certain, "{why}");
        assert!(why.sentence.contains("did not keep"), "{why}");
    }
}
