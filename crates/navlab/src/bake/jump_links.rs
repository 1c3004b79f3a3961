//! Automatic jump and climb-down links (`docs/jump-links.md`): the
//! navmesh's boundary edges are sampled, each sample looks outward across the edge for ground
//! to land on, an agent-sized trajectory is traced against the heightfield's solid spans, and
//! neighbouring samples that land alike become one off-mesh link (area and flags jump).
//!
//! C++ RecastDemo has no such builder (links are placed by hand); DotRecast's
//! `DtJumpLinkBuilder` is the nearest relative. This one works on the Detour navmesh and the
//! rasterized heightfield, so it runs after any build, solo or tiled.

use crate::bake::sample_areas;
use crate::bake::settings::BuildSettings;
use crate::bake::solo::rasterize_mesh;
use crate::detour::islands::Islands;
use crate::detour::query::{NavMeshQuery, QueryFilter};
use crate::detour::{NavMesh, PolyRef};
use crate::error::Result;
use crate::input::InputGeom;
use crate::input::geomset::{GeomSet, OffMeshConnection};
use crate::recast::context::BuildContext;
use crate::recast::heightfield::Heightfield;

/// What a link asks of the agent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LinkKind {
    /// Lowering itself down a short drop right beyond the edge.
    ClimbDown,
    /// A leap across a gap (or off a ledge too high to climb down) to level or lower ground.
    Jump,
}

impl LinkKind {
    /// The kind's name in summaries and drawings.
    pub fn name(self) -> &'static str {
        match self {
            LinkKind::ClimbDown => "climb-down",
            LinkKind::Jump => "jump",
        }
    }
}

/// Why a sample made no link.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rejection {
    /// A wall rises right beyond the edge.
    Wall,
    /// The ground goes on beyond the edge within climb height (the edge is not a drop).
    NoDrop,
    /// No ground within reach beyond the edge.
    NoLanding,
    /// Ground at a usable height, but farther than `jumpMaxDistance` across the gap.
    TooFar,
    /// The ground beyond rises higher than `jumpMaxUp`.
    TooHigh,
    /// The ground beyond lies deeper than `jumpClimbDownMax` and `jumpMaxDown`.
    TooDeep,
    /// Something solid is in the agent's way along the trajectory.
    Blocked,
    /// Less than the agent's height of headroom over the landing.
    LowCeiling,
    /// The landing lies inside solid geometry.
    InWall,
    /// The landing is on the take-off polygon or a neighbour: it can be walked to.
    Walkable,
}

impl Rejection {
    /// Every reason, in the summary's order.
    pub const ALL: [Rejection; 10] = [
        Rejection::Wall,
        Rejection::NoDrop,
        Rejection::NoLanding,
        Rejection::TooFar,
        Rejection::TooHigh,
        Rejection::TooDeep,
        Rejection::Blocked,
        Rejection::LowCeiling,
        Rejection::InWall,
        Rejection::Walkable,
    ];

    /// The reason in words, for summaries and drawings.
    pub fn name(self) -> &'static str {
        match self {
            Rejection::Wall => "wall",
            Rejection::NoDrop => "no drop",
            Rejection::NoLanding => "no landing",
            Rejection::TooFar => "too far",
            Rejection::TooHigh => "too high",
            Rejection::TooDeep => "too deep",
            Rejection::Blocked => "blocked",
            Rejection::LowCeiling => "low ceiling",
            Rejection::InWall => "in wall",
            Rejection::Walkable => "walkable",
        }
    }
}

/// One sample along a boundary edge and what became of it.
#[derive(Clone, Debug, PartialEq)]
pub struct JumpSample {
    /// Index into [`JumpLinks::edges`].
    pub edge: usize,
    /// The take-off point on the edge, on the navmesh surface.
    pub start: [f32; 3],
    /// The landing found on the navmesh, when one was (also for samples rejected after).
    pub landing: Option<[f32; 3]>,
    /// What the move would be, when a landing was found.
    pub kind: Option<LinkKind>,
    /// The path traced from `start` to `landing` (empty without a landing).
    pub trajectory: Vec<[f32; 3]>,
    /// The link (index into [`JumpLinks::links`]) the sample went into, or why none.
    pub outcome: std::result::Result<usize, Rejection>,
}

/// The result of [`find_jump_links`]: the links and everything that explains them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct JumpLinks {
    /// The boundary edges sampled, in the navmesh's tile and polygon order.
    pub edges: Vec<[[f32; 3]; 2]>,
    /// Every sample, edge by edge, in order along each edge.
    pub samples: Vec<JumpSample>,
    /// The links made, as authored links (area [`sample_areas::area::JUMP`], flags
    /// [`sample_areas::flags::JUMP`]).
    pub links: Vec<OffMeshConnection>,
    /// Each link's kind, parallel to `links`.
    pub kinds: Vec<LinkKind>,
}

impl JumpLinks {
    /// How many samples each reason rejected, in [`Rejection::ALL`]'s order, reasons with none
    /// left out.
    pub fn rejected(&self) -> Vec<(Rejection, usize)> {
        Rejection::ALL
            .into_iter()
            .map(|reason| {
                let count = self
                    .samples
                    .iter()
                    .filter(|s| s.outcome == Err(reason))
                    .count();
                (reason, count)
            })
            .filter(|&(_, count)| count > 0)
            .collect()
    }

    /// Appends the links to `geom_set`'s authored links, after those it has, leaving out any
    /// it already holds (a set saved with its links and baked with jump links again). Returns
    /// how many were added.
    pub fn append_to(&self, geom_set: &mut GeomSet) -> usize {
        let before = geom_set.off_mesh_connections.len();
        for link in &self.links {
            let held = geom_set.off_mesh_connections[..before]
                .iter()
                .any(|old| same_place(old.start, link.start) && same_place(old.end, link.end));
            if !held {
                geom_set.off_mesh_connections.push(link.clone());
            }
        }
        geom_set.off_mesh_connections.len() - before
    }

    /// One line: links made by kind, samples rejected by reason.
    pub fn summary(&self) -> String {
        let count = |kind| self.kinds.iter().filter(|&&k| k == kind).count();
        let rejected = self.rejected();
        let total: usize = rejected.iter().map(|&(_, n)| n).sum();
        let mut line = format!(
            "jump links: {} made ({}, {}) from {} on {}; {} rejected",
            self.links.len(),
            counted(count(LinkKind::Jump), "jump"),
            counted(count(LinkKind::ClimbDown), "climb-down"),
            counted(self.samples.len(), "sample"),
            counted(self.edges.len(), "edge"),
            counted(total, "sample")
        );
        let reasons: Vec<String> = rejected
            .iter()
            .map(|&(reason, n)| format!("{n} {}", reason.name()))
            .collect();
        if !reasons.is_empty() {
            line.push_str(": ");
            line.push_str(&reasons.join(", "));
        }
        line
    }
}

/// The input's solid geometry rasterized over its navmesh bounds with `settings`, for
/// [`find_jump_links`] when no solo build's heightfield is at hand (a tiled build, or a build
/// that did not keep its heightfield).
pub fn obstacle_heightfield(input: &InputGeom, settings: &BuildSettings) -> Result<Heightfield> {
    let (bmin, bmax) = input.nav_mesh_bounds()?;
    let cfg = settings.to_config(bmin, bmax)?;
    let (hf, _) = rasterize_mesh(&mut BuildContext::new(), &cfg, &input.mesh)?;
    Ok(hf)
}

/// Search nodes of the query the builder uses (it only looks up nearest polygons).
const QUERY_NODES: usize = 64;

/// Finds jump and climb-down links along `nav_mesh`'s boundary edges, tracing against the solid
/// spans of `heightfield` (a build's, or [`obstacle_heightfield`]'s). Deterministic: the same
/// navmesh, heightfield and settings give the same links in the same order.
pub fn find_jump_links(
    nav_mesh: &NavMesh,
    heightfield: &Heightfield,
    settings: &BuildSettings,
) -> JumpLinks {
    let Ok(query) = NavMeshQuery::new(nav_mesh, QUERY_NODES) else {
        return JumpLinks::default();
    };
    let finder = Finder {
        nav_mesh,
        query,
        filter: QueryFilter::default(),
        islands: Islands::of(nav_mesh),
        solid: Solid { hf: heightfield },
        s: settings,
        step: heightfield.cs * 0.5,
    };
    let mut out = JumpLinks::default();
    for (edge_index, edge) in nav_mesh.boundary_edges().into_iter().enumerate() {
        out.edges.push(edge.ends);
        let first = out.samples.len();
        let mut landed = Vec::new();
        for point in edge_samples(edge.ends, settings.jump_sample_spacing) {
            let (sample, landing) = finder.sample(edge_index, edge.poly, edge.ends, point);
            out.samples.push(sample);
            landed.push(landing);
        }
        finder.group(&mut out, first, &landed);
    }
    out
}

/// The points along `ends` every `spacing` (at least one, centred in equal stretches).
fn edge_samples(ends: [[f32; 3]; 2], spacing: f32) -> Vec<[f32; 3]> {
    let [a, b] = ends;
    let length = ((b[0] - a[0]).powi(2) + (b[2] - a[2]).powi(2)).sqrt();
    let count = ((length / spacing).round() as usize).max(1);
    (0..count)
        .map(|i| {
            let t = (i as f32 + 0.5) / count as f32;
            lerp(a, b, t)
        })
        .collect()
}

/// `count` and `noun`, plural unless one.
fn counted(count: usize, noun: &str) -> String {
    if count == 1 {
        format!("1 {noun}")
    } else {
        format!("{count} {noun}s")
    }
}

/// Whether two link ends are the same place, allowing for the rounding of a `.gset` round
/// trip.
fn same_place(a: [f32; 3], b: [f32; 3]) -> bool {
    a.iter().zip(&b).all(|(p, q)| (p - q).abs() <= 1e-3)
}

fn lerp(a: [f32; 3], b: [f32; 3], t: f32) -> [f32; 3] {
    [
        a[0] + (b[0] - a[0]) * t,
        a[1] + (b[1] - a[1]) * t,
        a[2] + (b[2] - a[2]) * t,
    ]
}

fn distance_2d(a: [f32; 3], b: [f32; 3]) -> f32 {
    ((b[0] - a[0]).powi(2) + (b[2] - a[2]).powi(2)).sqrt()
}

/// A sample that found a landing passing every check, for grouping into links.
#[derive(Clone, Copy, Debug)]
struct Landing {
    kind: LinkKind,
    point: [f32; 3],
    island: Option<usize>,
    bidirectional: bool,
}

/// The solid spans of a heightfield, looked up by world position.
struct Solid<'a> {
    hf: &'a Heightfield,
}

impl Solid<'_> {
    /// Whether `x`, `z` lies over the grid.
    fn covers(&self, x: f32, z: f32) -> bool {
        self.cell(x, z).is_some()
    }

    /// The grid cell under `x`, `z`, if it is on the grid.
    fn cell(&self, x: f32, z: f32) -> Option<(i32, i32)> {
        let hf = self.hf;
        let cx = ((x - hf.bmin[0]) / hf.cs).floor();
        let cz = ((z - hf.bmin[2]) / hf.cs).floor();
        let inside = cx >= 0.0 && cz >= 0.0 && cx < hf.width as f32 && cz < hf.height as f32;
        inside.then_some((cx as i32, cz as i32))
    }

    /// The world-space extents (bottom, top) of the spans in the column under `x`, `z`, bottom
    /// to top; none outside the grid.
    fn spans(&self, x: f32, z: f32) -> impl Iterator<Item = (f32, f32)> + '_ {
        let hf = self.hf;
        self.cell(x, z)
            .map(|(cx, cz)| hf.column(cx, cz))
            .into_iter()
            .flatten()
            .map(|span| {
                (
                    hf.bmin[1] + f32::from(span.smin) * hf.ch,
                    hf.bmin[1] + f32::from(span.smax) * hf.ch,
                )
            })
    }

    /// The highest span top at or below `y` in the column under `x`, `z`.
    fn floor_at_or_below(&self, x: f32, z: f32, y: f32) -> Option<f32> {
        self.spans(x, z)
            .map(|(_, top)| top)
            .filter(|&top| top <= y)
            .reduce(f32::max)
    }

    /// Whether solid fills any of the open height range `lo..hi` in the column under `x`, `z`.
    fn occupied(&self, x: f32, z: f32, lo: f32, hi: f32) -> bool {
        self.spans(x, z)
            .any(|(bottom, top)| bottom < hi && top > lo)
    }
}

struct Finder<'a> {
    nav_mesh: &'a NavMesh,
    query: NavMeshQuery<'a>,
    filter: QueryFilter,
    islands: Islands,
    solid: Solid<'a>,
    s: &'a BuildSettings,
    /// Distance between the columns looked at along a sample's outward line.
    step: f32,
}

impl Finder<'_> {
    /// Looks across the edge from `point` and returns the sample, with its landing when every
    /// check passed.
    fn sample(
        &self,
        edge: usize,
        poly: PolyRef,
        ends: [[f32; 3]; 2],
        point: [f32; 3],
    ) -> (JumpSample, Option<Landing>) {
        let (_, on_surface, _) = self.query.closest_point_on_poly(poly, &point);
        let start = [point[0], on_surface[1], point[2]];
        let mut sample = JumpSample {
            edge,
            start,
            landing: None,
            kind: None,
            trajectory: Vec::new(),
            outcome: Err(Rejection::NoLanding),
        };
        let outward = self.outward(poly, ends);
        let (kind, landing_poly, landing, cliff) = match self.find_landing(start, outward) {
            Ok(found) => found,
            Err(reason) => {
                sample.outcome = Err(reason);
                return (sample, None);
            }
        };
        sample.landing = Some(landing);
        sample.kind = Some(kind);
        sample.trajectory = self.trajectory(kind, start, landing, outward, cliff);
        let checked = self.check(poly, landing_poly, landing, &sample.trajectory);
        if let Err(reason) = checked {
            sample.outcome = Err(reason);
            return (sample, None);
        }
        let level = (landing[1] - start[1]).abs() <= self.s.agent_max_climb;
        let found = Landing {
            kind,
            point: landing,
            island: self.islands.island_of(self.nav_mesh, landing_poly),
            bidirectional: kind == LinkKind::Jump && level,
        };
        (sample, Some(found))
    }

    /// The unit xz-direction across the edge, away from its polygon's centre.
    fn outward(&self, poly: PolyRef, [a, b]: [[f32; 3]; 2]) -> [f32; 2] {
        let (dx, dz) = (b[0] - a[0], b[2] - a[2]);
        let length = (dx * dx + dz * dz).sqrt().max(f32::MIN_POSITIVE);
        let mut normal = [dz / length, -dx / length];
        let centre = self
            .nav_mesh
            .poly_location(poly)
            .ok()
            .and_then(|(slot, index)| {
                let (corners, n) = self.nav_mesh.tile(slot)?.poly_vertices(index)?;
                let sum = corners[..n]
                    .iter()
                    .fold([0.0f32; 2], |acc, c| [acc[0] + c[0], acc[1] + c[2]]);
                Some([sum[0] / n as f32, sum[1] / n as f32])
            });
        if let Some(centre) = centre {
            let mid = [
                (a[0] + b[0]) * 0.5 - centre[0],
                (a[2] + b[2]) * 0.5 - centre[1],
            ];
            if mid[0] * normal[0] + mid[1] * normal[1] < 0.0 {
                normal = [-normal[0], -normal[1]];
            }
        }
        normal
    }

    /// Walks outward from `start` column by column: over the eroded rim to where the ground
    /// drops, then to the first navmesh ground at a height the settings allow. Returns the
    /// kind, the landing polygon and point, and the distance out at which the ground dropped.
    fn find_landing(
        &self,
        start: [f32; 3],
        outward: [f32; 2],
    ) -> std::result::Result<(LinkKind, PolyRef, [f32; 3], f32), Rejection> {
        let s = self.s;
        let at = |d: f32| [start[0] + outward[0] * d, start[2] + outward[1] * d];
        let climb = s.agent_max_climb;
        // The rim the erosion left between the edge and the drop: the agent's radius, a cell
        // the ledge filter takes, and the contour simplification's error.
        let rim = s.agent_radius + s.cell_size * (2.0 + s.edge_max_error);
        // Distances are counted in steps, not summed, so that they grow exactly however far
        // the walk goes (it ends at the grid's edge at the latest).
        let mut steps = 1u64;
        let cliff = loop {
            let d = steps as f32 * self.step;
            if d > rim {
                return Err(Rejection::NoDrop);
            }
            let [x, z] = at(d);
            if !self.solid.covers(x, z) {
                break d;
            }
            if self
                .solid
                .occupied(x, z, start[1] + climb, start[1] + s.agent_height)
            {
                return Err(Rejection::Wall);
            }
            match self.solid.floor_at_or_below(x, z, start[1] + climb) {
                Some(floor) if floor >= start[1] - climb => steps += 1,
                _ => break d,
            }
        };
        let [x, z] = at(cliff);
        let depth = self
            .solid
            .floor_at_or_below(x, z, start[1] + climb)
            .map(|floor| start[1] - floor);
        if let Some(depth) = depth
            && depth >= s.jump_climb_down_min
            && depth <= s.jump_climb_down_max
        {
            let floor = start[1] - depth;
            let reach = cliff + s.agent_radius + s.cell_size * (3.0 + s.edge_max_error);
            return self
                .navmesh_ground(at, cliff, reach, floor, floor)
                .map(|(poly, point)| (LinkKind::ClimbDown, poly, point, cliff))
                .ok_or(Rejection::NoLanding);
        }
        self.jump_landing(start, at, cliff)
    }

    /// The first navmesh point outward from `from` to `to` over ground between `lo` and `hi`
    /// (within the ground tolerance), stopping where the ground leaves that band.
    fn navmesh_ground(
        &self,
        at: impl Fn(f32) -> [f32; 2],
        from: f32,
        to: f32,
        lo: f32,
        hi: f32,
    ) -> Option<(PolyRef, [f32; 3])> {
        let tolerance = self.s.jump_ground_tolerance;
        for step in 0u64.. {
            let d = from + step as f32 * self.step;
            if d > to {
                break;
            }
            let [x, z] = at(d);
            let floor = self.solid.floor_at_or_below(x, z, hi + tolerance)?;
            if floor < lo - tolerance {
                return None;
            }
            if let Some(found) = self.navmesh_point([x, floor, z]) {
                return Some(found);
            }
        }
        None
    }

    /// The navmesh polygon right over or under `point` within the ground tolerance, and the
    /// point on its surface.
    fn navmesh_point(&self, point: [f32; 3]) -> Option<(PolyRef, [f32; 3])> {
        let tolerance = self.s.jump_ground_tolerance;
        let extents = [self.step, tolerance.max(self.s.cell_height), self.step];
        let (status, nearest) = self.query.find_nearest_poly(&point, &extents, &self.filter);
        (status.is_success()
            && nearest.poly_ref != 0
            && nearest.is_over_poly
            && (nearest.point[1] - point[1]).abs() <= tolerance)
            .then_some((nearest.poly_ref, nearest.point))
    }

    /// Looks across a gap (or down a ledge too high to climb) for level or lower ground.
    fn jump_landing(
        &self,
        start: [f32; 3],
        at: impl Fn(f32) -> [f32; 2],
        cliff: f32,
    ) -> std::result::Result<(LinkKind, PolyRef, [f32; 3], f32), Rejection> {
        let s = self.s;
        let tolerance = s.jump_ground_tolerance;
        let (lo, hi) = (start[1] - s.jump_max_down, start[1] + s.jump_max_up);
        let rim = s.agent_radius + s.cell_size * (3.0 + s.edge_max_error);
        // Twice the reach, to tell ground too far away from no ground at all.
        let horizon = cliff + 2.0 * s.jump_max_distance + rim;
        let mut deeper = false;
        let mut ground_at = None;
        for step in 0u64.. {
            let d = cliff + step as f32 * self.step;
            if d > horizon {
                break;
            }
            let [x, z] = at(d);
            // The line has left the grid for good: no ground lies farther (this also bounds
            // the walk whatever jumpMaxDistance is).
            if !self.solid.covers(x, z) {
                break;
            }
            let blocked_above = self
                .solid
                .spans(x, z)
                .any(|(bottom, top)| top > hi + tolerance && bottom < start[1] + s.agent_height);
            if blocked_above && ground_at.is_none() {
                if d - cliff > s.jump_max_distance {
                    // Out of reach anyway: what lies before it decides.
                    break;
                }
                return Err(Rejection::TooHigh);
            }
            match self.solid.floor_at_or_below(x, z, hi + tolerance) {
                Some(floor) if floor >= lo - tolerance => {
                    let first = *ground_at.get_or_insert(d);
                    if first - cliff > s.jump_max_distance {
                        return Err(Rejection::TooFar);
                    }
                    if let Some((poly, point)) = self.navmesh_point([x, floor, z]) {
                        return Ok((LinkKind::Jump, poly, point, cliff));
                    }
                    if d - first > rim {
                        return Err(Rejection::NoLanding);
                    }
                }
                Some(_) => {
                    deeper = true;
                    ground_at = None;
                }
                None => ground_at = None,
            }
        }
        Err(if deeper {
            Rejection::TooDeep
        } else {
            Rejection::NoLanding
        })
    }

    /// The path the agent's feet take: for a climb-down, out over the drop, straight down and
    /// on to the landing; for a jump, a parabola rising the agent's climb height above the
    /// straight line.
    fn trajectory(
        &self,
        kind: LinkKind,
        start: [f32; 3],
        landing: [f32; 3],
        outward: [f32; 2],
        cliff: f32,
    ) -> Vec<[f32; 3]> {
        match kind {
            LinkKind::ClimbDown => {
                let over = (cliff + self.s.agent_radius).min(distance_2d(start, landing));
                let x = start[0] + outward[0] * over;
                let z = start[2] + outward[1] * over;
                vec![start, [x, start[1], z], [x, landing[1], z], landing]
            }
            LinkKind::Jump => {
                let steps = ((distance_2d(start, landing) / self.step).ceil() as usize).max(2);
                let rise = self.s.agent_max_climb;
                (0..=steps)
                    .map(|i| {
                        let t = i as f32 / steps as f32;
                        let mut p = lerp(start, landing, t);
                        p[1] += 4.0 * rise * t * (1.0 - t);
                        p
                    })
                    .collect()
            }
        }
    }

    /// The checks a found landing must pass: not walkable to, headroom, outside walls, and a
    /// clear trajectory.
    fn check(
        &self,
        take_off: PolyRef,
        landing_poly: PolyRef,
        landing: [f32; 3],
        trajectory: &[[f32; 3]],
    ) -> std::result::Result<(), Rejection> {
        if landing_poly == take_off || self.neighbours(take_off, landing_poly) {
            return Err(Rejection::Walkable);
        }
        let s = self.s;
        let tolerance = s.jump_ground_tolerance;
        let [x, y, z] = landing;
        if self
            .solid
            .spans(x, z)
            .any(|(bottom, top)| bottom < y - tolerance && top > y + tolerance)
        {
            return Err(Rejection::InWall);
        }
        if self.solid.occupied(x, z, y + tolerance, y + s.agent_height) {
            return Err(Rejection::LowCeiling);
        }
        if !self.clear_path(trajectory) {
            return Err(Rejection::Blocked);
        }
        Ok(())
    }

    /// Whether `b` is among `a`'s linked neighbours.
    fn neighbours(&self, a: PolyRef, b: PolyRef) -> bool {
        self.nav_mesh
            .poly_location(a)
            .ok()
            .and_then(|(slot, index)| Some((self.nav_mesh.tile(slot)?, index)))
            .is_some_and(|(tile, index)| {
                tile.poly_links(index).any(|(_, link)| link.neighbour == b)
            })
    }

    /// Whether the agent's body (from its climb height over its feet to its full height)
    /// meets no solid anywhere along `path`, looked at every half cell.
    fn clear_path(&self, path: &[[f32; 3]]) -> bool {
        let s = self.s;
        path.windows(2).all(|pair| {
            let [a, b] = [pair[0], pair[1]];
            let length = distance_2d(a, b).max((b[1] - a[1]).abs());
            let steps = ((length / self.step).ceil() as usize).max(1);
            (0..=steps).all(|i| {
                let [x, y, z] = lerp(a, b, i as f32 / steps as f32);
                !self
                    .solid
                    .occupied(x, z, y + s.agent_max_climb, y + s.agent_height)
            })
        })
    }

    /// Groups the samples of one edge (from `first` on; `landed` parallel to them) into links:
    /// runs of neighbouring samples that land alike, one link per `jumpLinkWidth` of a run,
    /// from the middle sample of its share.
    fn group(&self, out: &mut JumpLinks, first: usize, landed: &[Option<Landing>]) {
        let alike = |a: &Landing, b: &Landing| {
            a.kind == b.kind
                && a.bidirectional == b.bidirectional
                && a.island == b.island
                && (a.point[1] - b.point[1]).abs() <= self.s.agent_max_climb
        };
        let mut i = 0;
        while i < landed.len() {
            let Some(head) = landed[i] else {
                i += 1;
                continue;
            };
            let mut end = i + 1;
            while end < landed.len() && landed[end].is_some_and(|next| alike(&head, &next)) {
                end += 1;
            }
            let run = end - i;
            let length = run as f32 * self.s.jump_sample_spacing;
            let links = ((length / self.s.jump_link_width).round() as usize).clamp(1, run);
            for share in 0..links {
                let (from, to) = (i + run * share / links, i + run * (share + 1) / links);
                let middle = (from + to) / 2;
                let landing = landed[middle].expect("every sample of a run landed");
                let start = out.samples[first + middle].start;
                let index = self.add_link(out, start, landing);
                for sample in &mut out.samples[first + from..first + to] {
                    sample.outcome = Ok(index);
                }
            }
            i = end;
        }
    }

    /// Adds the link from `start` to `landing`, or returns the bidirectional link already made
    /// the other way round between the same places.
    fn add_link(&self, out: &mut JumpLinks, start: [f32; 3], landing: Landing) -> usize {
        let near = self.s.jump_link_width * 0.5;
        if landing.bidirectional
            && let Some(existing) = out.links.iter().position(|link| {
                link.bidirectional
                    && distance_2d(link.end, start) <= near
                    && distance_2d(link.start, landing.point) <= near
            })
        {
            return existing;
        }
        out.links.push(OffMeshConnection {
            start,
            end: landing.point,
            radius: self.s.agent_radius,
            bidirectional: landing.bidirectional,
            area: sample_areas::area::JUMP,
            flags: sample_areas::flags::JUMP,
        });
        out.kinds.push(landing.kind);
        out.links.len() - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bake::solo::Build;
    use crate::detour::query::Status;
    use crate::input::obj::TriMesh;
    use crate::input::scene::{self, TERRACE_DEPTH, TERRACE_LANE, TERRACE_LANE_PITCH};

    const DROPS: [f32; 3] = [0.5, 1.5, 3.0];
    const GAPS: [f32; 3] = [1.0, 2.0, 4.0];

    fn terraces_input() -> InputGeom {
        InputGeom::from_mesh(scene::terraces(&DROPS, &GAPS)).unwrap()
    }

    fn links_for(input: &InputGeom, settings: &BuildSettings) -> (Build, JumpLinks) {
        let build = Build::from_input(input, settings.clone()).unwrap();
        let links = find_jump_links(
            build.nav_mesh.as_deref().unwrap(),
            &build.heightfield_filtered,
            settings,
        );
        (build, links)
    }

    /// The terrace lane whose x range (with its void half way to the next) holds `x`.
    fn lane_of(x: f32) -> usize {
        ((x + (TERRACE_LANE_PITCH - TERRACE_LANE) * 0.5) / TERRACE_LANE_PITCH).floor() as usize
    }

    /// Each lane's links' kinds, and each lane's rejections of samples on the top platform's
    /// far edge (looking across that lane's feature).
    fn by_lane(links: &JumpLinks) -> (Vec<Vec<LinkKind>>, Vec<Vec<Rejection>>) {
        let lanes = DROPS.len() + GAPS.len();
        let mut kinds = vec![Vec::new(); lanes];
        for (link, &kind) in links.links.iter().zip(&links.kinds) {
            kinds[lane_of(link.start[0])].push(kind);
        }
        let mut rejections = vec![Vec::new(); lanes];
        for sample in &links.samples {
            let x = sample.start[0];
            let on_far_edge = (sample.start[2] - (TERRACE_DEPTH - 0.8)).abs() < 0.3;
            let in_lane = (x - lane_of(x) as f32 * TERRACE_LANE_PITCH).clamp(1.0, 7.0)
                == x - lane_of(x) as f32 * TERRACE_LANE_PITCH;
            if let Err(reason) = sample.outcome
                && on_far_edge
                && in_lane
            {
                rejections[lane_of(x)].push(reason);
            }
        }
        (kinds, rejections)
    }

    #[test]
    fn terraces_get_links_exactly_where_the_defaults_allow() {
        let settings = BuildSettings::default();
        let (_, links) = links_for(&terraces_input(), &settings);
        let (kinds, rejections) = by_lane(&links);
        let summary = links.summary();
        // 0.5 m: walked, no edge and no link.
        assert!(kinds[0].is_empty(), "{summary}");
        // 1.5 m: climb-downs, one way, to the block 1.5 m down.
        assert!(!kinds[1].is_empty(), "{summary}");
        assert!(kinds[1].iter().all(|&k| k == LinkKind::ClimbDown));
        // 3 m: deeper than jumpClimbDownMax and jumpMaxDown (2.5).
        assert!(kinds[2].is_empty(), "{summary}");
        assert!(rejections[2].contains(&Rejection::TooDeep), "{summary}");
        // Gaps of 1 and 2 m: jumps; 4 m: beyond jumpMaxDistance (3).
        assert!(!kinds[3].is_empty() && kinds[3].iter().all(|&k| k == LinkKind::Jump));
        assert!(!kinds[4].is_empty() && kinds[4].iter().all(|&k| k == LinkKind::Jump));
        assert!(kinds[5].is_empty(), "{summary}");
        assert!(rejections[5].contains(&Rejection::TooFar), "{summary}");
        for (link, &kind) in links.links.iter().zip(&links.kinds) {
            assert_eq!((link.area, link.flags), (5, 8));
            assert_eq!(link.radius, settings.agent_radius);
            let drop = link.start[1] - link.end[1];
            match lane_of(link.start[0]) {
                1 => assert!(!link.bidirectional && (drop - 1.5).abs() < 0.3, "{link:?}"),
                _ => assert!(link.bidirectional && drop.abs() < 0.3, "{link:?} {kind:?}"),
            }
        }
        // The 8 m lanes give one link per 2 m of edge, not one per sample.
        assert!(kinds[1].len() <= 4 && kinds[3].len() <= 4, "{summary}");
        assert!(summary.starts_with(&format!("jump links: {} made", links.links.len())));
    }

    #[test]
    fn settings_move_the_limits() {
        let farther = BuildSettings {
            jump_max_distance: 5.0,
            ..BuildSettings::default()
        };
        let (_, links) = links_for(&terraces_input(), &farther);
        let (kinds, _) = by_lane(&links);
        assert!(!kinds[5].is_empty() && kinds[5].iter().all(|&k| k == LinkKind::Jump));
        let deeper = BuildSettings {
            jump_climb_down_max: 3.5,
            ..BuildSettings::default()
        };
        let (_, links) = links_for(&terraces_input(), &deeper);
        let (kinds, _) = by_lane(&links);
        assert!(!kinds[2].is_empty() && kinds[2].iter().all(|&k| k == LinkKind::ClimbDown));
    }

    #[test]
    fn any_reach_ends_at_the_grid_edge() {
        let boundless = BuildSettings {
            jump_max_distance: 1e30,
            jump_max_down: 1e30,
            jump_sample_spacing: 0.01,
            ..BuildSettings::default()
        };
        let (_, links) = links_for(&terraces_input(), &boundless);
        let (kinds, _) = by_lane(&links);
        assert!(!kinds[5].is_empty(), "{}", links.summary());
    }

    #[test]
    fn a_path_across_a_gap_takes_its_link_and_none_without_the_jump_flag() {
        let settings = BuildSettings::default();
        let mut input = terraces_input();
        let (mut build, links) = links_for(&input, &settings);
        input.geom_set.off_mesh_connections = links.links.clone();
        build
            .update_authored(settings.clone(), &input.geom_set)
            .unwrap();
        let nav_mesh = build.nav_mesh.as_deref().unwrap();
        let mut query = NavMeshQuery::new(nav_mesh, 2048).unwrap();
        // From the top platform to the block across lane 4's 2 m gap.
        let x = 4.0 * TERRACE_LANE_PITCH + TERRACE_LANE * 0.5;
        let from = [x, 0.0, TERRACE_DEPTH * 0.5];
        let to = [x, 0.0, TERRACE_DEPTH + 2.0 + TERRACE_DEPTH * 0.5];
        let path = |filter: &QueryFilter, query: &mut NavMeshQuery| {
            let extents = [2.0, 4.0, 2.0];
            let (_, start) = query.find_nearest_poly(&from, &extents, filter);
            let (_, end) = query.find_nearest_poly(&to, &extents, filter);
            let mut polys = [0; 256];
            let (status, n) = query.find_path(
                start.poly_ref,
                end.poly_ref,
                &start.point,
                &end.point,
                filter,
                &mut polys,
            );
            (status, polys[..n].to_vec(), end.poly_ref)
        };
        let (status, polys, end) = path(&QueryFilter::default(), &mut query);
        assert!(!status.has_detail(Status::PARTIAL_RESULT));
        assert_eq!(polys.last(), Some(&end));
        let off_mesh = |r: &PolyRef| nav_mesh.off_mesh_connection_by_ref(*r).is_some();
        assert!(polys.iter().any(off_mesh), "{polys:?}");
        let walk_only = QueryFilter::with_flags(0xffff, sample_areas::flags::JUMP);
        let (status, polys, end) = path(&walk_only, &mut query);
        assert!(status.has_detail(Status::PARTIAL_RESULT), "{polys:?}");
        assert_ne!(polys.last(), Some(&end));
        assert!(!polys.iter().any(off_mesh));
    }

    /// A tiny seeded generator for the property test.
    struct Lcg(u64);

    impl Lcg {
        fn unit(&mut self) -> f32 {
            self.0 = self
                .0
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (self.0 >> 40) as f32 / (1u64 << 24) as f32
        }

        fn within(&mut self, lo: f32, hi: f32) -> f32 {
            lo + (hi - lo) * self.unit()
        }
    }

    /// Axis-aligned boxes as min and max corners.
    type Boxes = Vec<([f32; 3], [f32; 3])>;

    /// The boxes [`scene::terraces`] is made of, written out again here so that the landings
    /// are checked against the geometry itself, not the builder's heightfield.
    fn terrace_boxes(drops: &[f32], gaps: &[f32]) -> Boxes {
        let lanes = drops.len() + gaps.len();
        let width = (lanes - 1) as f32 * TERRACE_LANE_PITCH + TERRACE_LANE;
        let mut boxes = vec![([0.0, -10.0, 0.0], [width, 0.0, TERRACE_DEPTH])];
        let features = drops.iter().map(|&d| (d, 0.0));
        for (lane, (drop, gap)) in features.chain(gaps.iter().map(|&g| (0.0, g))).enumerate() {
            let x = lane as f32 * TERRACE_LANE_PITCH;
            let z = TERRACE_DEPTH + gap;
            boxes.push(([x, -10.0, z], [x + TERRACE_LANE, -drop, z + TERRACE_DEPTH]));
        }
        boxes
    }

    /// `base` with `boxes` added as closed cuboids.
    fn with_boxes(base: TriMesh, boxes: &[([f32; 3], [f32; 3])]) -> TriMesh {
        let (mut verts, mut tris) = (base.verts.clone(), base.tris.clone());
        for &(lo, hi) in boxes {
            let first = (verts.len() / 3) as i32;
            for corner in 0..8 {
                let pick = |axis: usize| {
                    if corner >> axis & 1 == 1 {
                        hi[axis]
                    } else {
                        lo[axis]
                    }
                };
                verts.extend([pick(0), pick(1), pick(2)]);
            }
            // Corner bits: 1 = x, 2 = y, 4 = z; each face wound outward.
            let faces = [
                [0, 4, 6, 2],
                [1, 3, 7, 5],
                [0, 1, 5, 4],
                [2, 6, 7, 3],
                [0, 2, 3, 1],
                [4, 5, 7, 6],
            ];
            for [a, b, c, d] in faces {
                tris.extend([a, b, c, a, c, d].map(|i| first + i));
            }
        }
        TriMesh::from_parts(verts, tris).unwrap()
    }

    #[test]
    fn random_terraces_never_land_in_a_wall_or_under_a_low_ceiling() {
        let settings = BuildSettings::default();
        let mut random = Lcg(28);
        let mut made = 0;
        for case in 0..24 {
            let drops: Vec<f32> = (0..2).map(|_| random.within(0.3, 3.5)).collect();
            let gaps: Vec<f32> = (0..2).map(|_| random.within(0.5, 4.0)).collect();
            let mut boxes = terrace_boxes(&drops, &gaps);
            // Slabs over the far blocks, some too low to stand under, some low over the gap.
            let mut extra = Vec::new();
            for lane in 0..4 {
                let x = lane as f32 * TERRACE_LANE_PITCH + random.within(0.0, 4.0);
                let (drop, gap) = if lane < 2 {
                    (drops[lane], 0.0)
                } else {
                    (0.0, gaps[lane - 2])
                };
                let bottom = -drop + random.within(0.5, 3.0);
                let z = TERRACE_DEPTH + random.within(-1.0, gap + 2.0);
                extra.push((
                    [x, bottom, z],
                    [
                        x + random.within(1.0, 4.0),
                        bottom + 0.3,
                        z + random.within(0.5, 3.0),
                    ],
                ));
            }
            boxes.extend_from_slice(&extra);
            let mesh = with_boxes(scene::terraces(&drops, &gaps), &extra);
            let input = InputGeom::from_mesh(mesh).unwrap();
            let (build, links) = links_for(&input, &settings);
            let nav_mesh = build.nav_mesh.as_deref().unwrap();
            let query = NavMeshQuery::new(nav_mesh, 64).unwrap();
            made += links.links.len();
            for link in &links.links {
                let [x, y, z] = link.end;
                for &(lo, hi) in &boxes {
                    let r = settings.agent_radius * 0.5;
                    let over = x > lo[0] - r && x < hi[0] + r && z > lo[2] - r && z < hi[2] + r;
                    // The navmesh surface lies within the ground tolerance of the geometry.
                    let tolerance = settings.jump_ground_tolerance;
                    let inside = over && y > lo[1] + tolerance && y < hi[1] - tolerance;
                    assert!(!inside, "case {case}: {link:?} lands inside {lo:?}..{hi:?}");
                    let low = over && lo[1] > y + 0.01 && lo[1] < y + settings.agent_height;
                    assert!(!low, "case {case}: {link:?} lands under {lo:?}..{hi:?}");
                }
                for end in [link.start, link.end] {
                    let extents = [0.05, settings.jump_ground_tolerance, 0.05];
                    let (_, nearest) =
                        query.find_nearest_poly(&end, &extents, &QueryFilter::default());
                    assert!(
                        nearest.poly_ref != 0,
                        "case {case}: {end:?} is off the navmesh"
                    );
                }
            }
        }
        assert!(made > 24, "the random terraces made {made} links");
    }
}
