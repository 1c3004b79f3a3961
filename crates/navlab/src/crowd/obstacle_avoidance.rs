//! Local collision avoidance by velocity sampling (`dtObstacleAvoidanceQuery`): candidate
//! velocities around the desired one are scored against nearby agents (circles) and walls
//! (segments), and the cheapest wins.
//!
//! The penalty, its early out and both sampling patterns are C++'s operation for operation.
//! The adaptive pattern's angles come from `f32::cos`/`f32::sin`, which call the platform's
//! `cosf`/`sinf` as C++ does, so results match C++ built against the same C library.

use crate::detour::common::{Vec3, clamp, distance_pt_seg_sqr_2d, max, min, sqr, vsub};
use crate::detour::query::geometry::{tri_area_2d, vdist_2d, vdot_2d, vnormalize, vperp_2d};

/// Most directions per ring of the adaptive pattern (`DT_MAX_PATTERN_DIVS`).
pub const MAX_PATTERN_DIVS: usize = 32;
/// Most rings of the adaptive pattern (`DT_MAX_PATTERN_RINGS`).
pub const MAX_PATTERN_RINGS: usize = 4;
/// The adaptive pattern: the centre, then every ring's directions.
const MAX_PATTERN_POINTS: usize = MAX_PATTERN_DIVS * MAX_PATTERN_RINGS + 1;
/// Detour's π (`DT_PI`, written 3.14159265f), which rounds to the same f32 as Rust's.
const DT_PI: f32 = std::f32::consts::PI;

/// How velocities are sampled and weighed (`dtObstacleAvoidanceParams`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ObstacleAvoidanceParams {
    /// How far the samples are centred towards the desired velocity (0..1).
    pub vel_bias: f32,
    /// Weight of straying from the desired velocity.
    pub weight_des_vel: f32,
    /// Weight of straying from the current velocity.
    pub weight_cur_vel: f32,
    /// Weight of passing other agents on the wrong side.
    pub weight_side: f32,
    /// Weight of an early time of impact.
    pub weight_toi: f32,
    /// Impacts later than this many seconds do not count.
    pub horiz_time: f32,
    /// Samples per side of the grid sampler.
    pub grid_size: u8,
    /// Directions per ring of the adaptive sampler.
    pub adaptive_divs: u8,
    /// Rings of the adaptive sampler.
    pub adaptive_rings: u8,
    /// Refinement passes of the adaptive sampler.
    pub adaptive_depth: u8,
}

impl Default for ObstacleAvoidanceParams {
    /// The values `dtCrowd::init` gives every avoidance slot.
    fn default() -> Self {
        ObstacleAvoidanceParams {
            vel_bias: 0.4,
            weight_des_vel: 2.0,
            weight_cur_vel: 0.75,
            weight_side: 0.75,
            weight_toi: 2.5,
            horiz_time: 2.5,
            grid_size: 33,
            adaptive_divs: 7,
            adaptive_rings: 2,
            adaptive_depth: 5,
        }
    }
}

impl ObstacleAvoidanceParams {
    /// RecastDemo's crowd tool qualities low, medium, good and high (avoidance types 0..3):
    /// the crowd's defaults with velocity bias 0.5 and divs/rings/depth 5/2/1, 5/2/2, 7/2/3
    /// and 7/3/3.
    pub fn recast_demo_presets() -> [ObstacleAvoidanceParams; 4] {
        [(5, 2, 1), (5, 2, 2), (7, 2, 3), (7, 3, 3)].map(|(divs, rings, depth)| {
            ObstacleAvoidanceParams {
                vel_bias: 0.5,
                adaptive_divs: divs,
                adaptive_rings: rings,
                adaptive_depth: depth,
                ..ObstacleAvoidanceParams::default()
            }
        })
    }
}

/// Another agent to avoid (`dtObstacleCircle`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ObstacleCircle {
    /// Its position.
    pub pos: Vec3,
    /// Its velocity.
    pub vel: Vec3,
    /// Its desired velocity.
    pub dvel: Vec3,
    /// Its radius.
    pub rad: f32,
    /// The direction to it, and the side to pass it on, set when sampling starts.
    pub dp: Vec3,
    /// The side to pass it on.
    pub np: Vec3,
}

/// A wall to avoid (`dtObstacleSegment`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ObstacleSegment {
    /// One end of the wall.
    pub p: Vec3,
    /// The other end.
    pub q: Vec3,
    /// Whether the agent is within 0.01 of it, set when sampling starts.
    pub touch: bool,
}

/// One scored sample, for drawing the sampler.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DebugSample {
    /// The sampled velocity.
    pub vel: Vec3,
    /// The sample's spacing, the size to draw it at.
    pub size: f32,
    /// The sample's whole penalty.
    pub penalty: f32,
    /// Penalty for straying from the desired velocity.
    pub desired_vel_penalty: f32,
    /// Penalty for straying from the current velocity.
    pub current_vel_penalty: f32,
    /// Penalty for passing on the wrong side.
    pub side_penalty: f32,
    /// Penalty for an early time of impact.
    pub time_of_impact_penalty: f32,
}

/// The samples of the last sampling run, up to a fixed count (`dtObstacleAvoidanceDebugData`).
#[derive(Clone, Debug, PartialEq)]
pub struct ObstacleAvoidanceDebugData {
    /// Its capacity is the most samples kept and never grows.
    samples: Vec<DebugSample>,
    max_samples: usize,
}

impl ObstacleAvoidanceDebugData {
    /// Room for `max_samples` samples (`init`).
    pub fn new(max_samples: usize) -> ObstacleAvoidanceDebugData {
        ObstacleAvoidanceDebugData {
            samples: Vec::with_capacity(max_samples),
            max_samples,
        }
    }

    /// Forgets the recorded samples.
    pub fn reset(&mut self) {
        self.samples.clear();
    }

    /// Records a sample; silently dropped when full.
    fn add_sample(&mut self, sample: DebugSample) {
        if self.samples.len() < self.max_samples {
            self.samples.push(sample);
        }
    }

    /// Rescales each penalty to 0..1 over the samples, for colouring (`normalizeSamples`).
    pub fn normalize_samples(&mut self) {
        normalize_field(&mut self.samples, |s| &mut s.penalty);
        normalize_field(&mut self.samples, |s| &mut s.desired_vel_penalty);
        normalize_field(&mut self.samples, |s| &mut s.current_vel_penalty);
        normalize_field(&mut self.samples, |s| &mut s.side_penalty);
        normalize_field(&mut self.samples, |s| &mut s.time_of_impact_penalty);
    }

    /// The samples recorded so far.
    pub fn samples(&self) -> &[DebugSample] {
        &self.samples
    }
}

/// Maps one penalty from its range over the samples onto 0..1 (`normalizeArray`).
fn normalize_field(samples: &mut [DebugSample], field: fn(&mut DebugSample) -> &mut f32) {
    let mut min_pen = f32::MAX;
    let mut max_pen = -f32::MAX;
    for s in samples.iter_mut() {
        let v = *field(s);
        min_pen = min(min_pen, v);
        max_pen = max(max_pen, v);
    }
    let range = max_pen - min_pen;
    let scale = if range > 0.001 { 1.0 / range } else { 1.0 };
    for s in samples.iter_mut() {
        let v = field(s);
        *v = clamp((*v - min_pen) * scale, 0.0, 1.0);
    }
}

/// When a circle moving at `v` from the sampling agent's position meets the still circle
/// of `cir`: the entry and exit times, or `None` when not moving or never touching
/// (`sweepCircleCircle`, with its sample-independent part from `cir`).
#[inline]
fn sweep_circle(v: &[f32; 2], cir: &CircleTerms) -> Option<(f32, f32)> {
    const EPS: f32 = 0.0001;
    let a = v[0] * v[0] + v[1] * v[1];
    if a < EPS {
        return None;
    }
    let b = v[0] * cir.s[0] + v[1] * cir.s[1];
    let d = b * b - a * cir.c;
    if d < 0.0 {
        return None;
    }
    let inv_a = 1.0 / a;
    let rd = d.sqrt();
    Some(((b - rd) * inv_a, (b + rd) * inv_a))
}

/// Where the ray `pos + u t` crosses the segment `p`–`q` in xz, as its parameter `t` in 0..1
/// (`isectRaySeg`), given the segment's `v = q - p`, `w = pos - p` and `vw = perp(v, w)`.
/// A NaN parameter passes, as C++'s comparisons let it.
#[allow(clippy::manual_range_contains)]
#[inline]
fn isect_ray_seg(u: &Vec3, v: &[f32; 2], w: &[f32; 2], vw: f32) -> Option<f32> {
    let mut d = u[2] * v[0] - u[0] * v[1];
    if d.abs() < 1e-6 {
        return None;
    }
    d = 1.0 / d;
    let t = vw * d;
    if t < 0.0 || t > 1.0 {
        return None;
    }
    let s = (u[2] * w[0] - u[0] * w[1]) * d;
    if s < 0.0 || s > 1.0 {
        return None;
    }
    Some(t)
}

/// Scales the xz part of `v` to unit length; a zero vector stays (`dtNormalize2D`).
fn normalize_2d(v: &mut Vec3) {
    let d = (v[0] * v[0] + v[2] * v[2]).sqrt();
    if d == 0.0 {
        return;
    }
    let inv = 1.0 / d;
    v[0] *= inv;
    v[2] *= inv;
}

/// `v` turned in xz by the angle whose cos and sin are `cs` (`dtRorate2D`, which takes the
/// angle and calls `cosf`/`sinf`; [`PatternTurn`] has made those calls).
fn rotate_2d(v: &Vec3, [c, s]: [f32; 2]) -> Vec3 {
    [v[0] * c - v[2] * s, v[1], v[0] * s + v[2] * c]
}

/// What scoring a sample needs of one circle, the same for every sample of a run: its
/// velocity and passing-side directions, and the sample-independent part of the sweep
/// against it (`c1 - c0` and `|c1 - c0|² - r²` of `sweepCircleCircle`, in its operation
/// order). xz only: the y parts never reach a result.
#[derive(Clone, Copy, Debug, Default)]
struct CircleTerms {
    vel: [f32; 2],
    dp: [f32; 2],
    np: [f32; 2],
    s: [f32; 2],
    c: f32,
}

/// What scoring a sample needs of one wall, the same for every sample of a run: the touch
/// case's normal, or the sample-independent parts of `isectRaySeg` (`v = q - p`,
/// `w = pos - p` and `perp(v, w)`).
#[derive(Clone, Copy, Debug)]
enum SegmentTerms {
    Touch { snorm: [f32; 2] },
    Ray { v: [f32; 2], w: [f32; 2], vw: f32 },
}

/// The adaptive pattern's rotation for one division count: cos and sin of the step and of
/// half a step. Kept between runs, as every agent of a crowd preset asks for the same.
#[derive(Clone, Copy, Debug, PartialEq)]
struct PatternTurn {
    divs: i32,
    step: [f32; 2],
    half: [f32; 2],
}

impl PatternTurn {
    fn new(divs: i32) -> PatternTurn {
        let da = (1.0 / divs as f32) * DT_PI * 2.0;
        PatternTurn {
            divs,
            step: [da.cos(), da.sin()],
            half: [(da * 0.5).cos(), (da * 0.5).sin()],
        }
    }
}

/// Scores velocities against the obstacles added since the last reset.
#[derive(Clone, Debug)]
pub struct ObstacleAvoidanceQuery {
    params: ObstacleAvoidanceParams,
    inv_horiz_time: f32,
    inv_vmax: f32,
    /// Their capacities are the most obstacles kept and never grow.
    circles: Vec<ObstacleCircle>,
    max_circles: usize,
    segments: Vec<ObstacleSegment>,
    max_segments: usize,
    /// The obstacles' per-run terms, rebuilt when sampling starts; same capacities.
    circle_terms: Vec<CircleTerms>,
    segment_terms: Vec<SegmentTerms>,
    /// The last adaptive pattern's rotation, and room for its points.
    turn: Option<PatternTurn>,
    pattern: [[f32; 2]; MAX_PATTERN_POINTS],
}

impl ObstacleAvoidanceQuery {
    /// Room for `max_circles` agents and `max_segments` walls (`init`; the crowd uses 6
    /// and 8).
    pub fn new(max_circles: usize, max_segments: usize) -> ObstacleAvoidanceQuery {
        ObstacleAvoidanceQuery {
            params: ObstacleAvoidanceParams::default(),
            inv_horiz_time: 0.0,
            inv_vmax: 0.0,
            circles: Vec::with_capacity(max_circles),
            max_circles,
            segments: Vec::with_capacity(max_segments),
            max_segments,
            circle_terms: Vec::with_capacity(max_circles),
            segment_terms: Vec::with_capacity(max_segments),
            turn: None,
            pattern: [[0.0; 2]; MAX_PATTERN_POINTS],
        }
    }

    /// Removes every obstacle.
    pub fn reset(&mut self) {
        self.circles.clear();
        self.segments.clear();
    }

    /// Adds an agent to avoid; ignored when full (`addCircle`).
    pub fn add_circle(&mut self, pos: &Vec3, rad: f32, vel: &Vec3, dvel: &Vec3) {
        if self.circles.len() < self.max_circles {
            self.circles.push(ObstacleCircle {
                pos: *pos,
                vel: *vel,
                dvel: *dvel,
                rad,
                dp: [0.0; 3],
                np: [0.0; 3],
            });
        }
    }

    /// Adds a wall to avoid; ignored when full (`addSegment`).
    pub fn add_segment(&mut self, p: &Vec3, q: &Vec3) {
        if self.segments.len() < self.max_segments {
            self.segments.push(ObstacleSegment {
                p: *p,
                q: *q,
                touch: false,
            });
        }
    }

    /// The agents to avoid.
    pub fn circles(&self) -> &[ObstacleCircle] {
        &self.circles
    }

    /// The walls to avoid.
    pub fn segments(&self) -> &[ObstacleSegment] {
        &self.segments
    }

    /// Picks each circle's passing side from the desired velocities, and marks the walls the
    /// agent at `pos` (radius `rad`) touches (`prepare`); then takes every obstacle's per-run
    /// terms.
    fn prepare(&mut self, pos: &Vec3, rad: f32, dvel: &Vec3) {
        const ORIGIN: Vec3 = [0.0; 3];
        self.circle_terms.clear();
        for cir in &mut self.circles {
            cir.dp = vsub(&cir.pos, pos);
            vnormalize(&mut cir.dp);
            let dv = vsub(&cir.dvel, dvel);
            let a = tri_area_2d(&ORIGIN, &cir.dp, &dv);
            if a < 0.01 {
                cir.np[0] = -cir.dp[2];
                cir.np[2] = cir.dp[0];
            } else {
                cir.np[0] = cir.dp[2];
                cir.np[2] = -cir.dp[0];
            }
            let s = vsub(&cir.pos, pos);
            let r = rad + cir.rad;
            self.circle_terms.push(CircleTerms {
                vel: [cir.vel[0], cir.vel[2]],
                dp: [cir.dp[0], cir.dp[2]],
                np: [cir.np[0], cir.np[2]],
                s: [s[0], s[2]],
                c: vdot_2d(&s, &s) - r * r,
            });
        }
        self.segment_terms.clear();
        for seg in &mut self.segments {
            const TOUCH: f32 = 0.01;
            seg.touch = distance_pt_seg_sqr_2d(pos, &seg.p, &seg.q).0 < sqr(TOUCH);
            let v = vsub(&seg.q, &seg.p);
            self.segment_terms.push(if seg.touch {
                SegmentTerms::Touch {
                    snorm: [-v[2], v[0]],
                }
            } else {
                let w = vsub(pos, &seg.p);
                SegmentTerms::Ray {
                    v: [v[0], v[2]],
                    w: [w[0], w[2]],
                    vw: vperp_2d(&v, &w),
                }
            });
        }
    }

    /// Takes the sampling parameters of one run (the start of both samplers).
    fn begin_sampling(
        &mut self,
        pos: &Vec3,
        rad: f32,
        vmax: f32,
        dvel: &Vec3,
        params: &ObstacleAvoidanceParams,
        debug: &mut Option<&mut ObstacleAvoidanceDebugData>,
    ) {
        self.prepare(pos, rad, dvel);
        self.params = *params;
        self.inv_horiz_time = 1.0 / params.horiz_time;
        self.inv_vmax = if vmax > 0.0 { 1.0 / vmax } else { f32::MAX };
        if let Some(d) = debug {
            d.reset();
        }
    }

    /// The penalty of velocity `vcand`: distance from the desired and current velocities,
    /// passing side, and time to the first impact within the horizon (`processSample`).
    /// Returns `min_penalty` as soon as the sample cannot beat it.
    ///
    /// Every value is C++'s, from the same operations in the same order: the obstacles'
    /// sample-independent parts come from [`Self::prepare`], and `2 vcand - vel`, which C++
    /// recomputes per circle, is taken once. Always inlined: it is the samplers' whole inner
    /// loop, and a call per sample spills more than the work it does.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn process_sample(
        &self,
        vcand: &Vec3,
        cs: f32,
        vel: &Vec3,
        dvel: &Vec3,
        min_penalty: f32,
        debug: Option<&mut ObstacleAvoidanceDebugData>,
    ) -> f32 {
        let p = &self.params;
        let vpen = p.weight_des_vel * (vdist_2d(vcand, dvel) * self.inv_vmax);
        let vcpen = p.weight_cur_vel * (vdist_2d(vcand, vel) * self.inv_vmax);
        // The impact time below which the sample cannot beat `min_penalty`.
        let min_pen = min_penalty - vpen - vcpen;
        let t_threshold = (p.weight_toi / min_pen - 0.1) * p.horiz_time;
        if t_threshold - p.horiz_time > -f32::EPSILON {
            return min_penalty;
        }
        let mut tmin = p.horiz_time;
        let mut side = 0.0f32;
        // Reciprocal velocity obstacle: each agent takes half the avoiding.
        let vab0 = [vcand[0] * 2.0 - vel[0], vcand[2] * 2.0 - vel[2]];
        for cir in &self.circle_terms {
            let vab = [vab0[0] - cir.vel[0], vab0[1] - cir.vel[1]];
            side += clamp(
                min(
                    (cir.dp[0] * vab[0] + cir.dp[1] * vab[1]) * 0.5 + 0.5,
                    (cir.np[0] * vab[0] + cir.np[1] * vab[1]) * 2.0,
                ),
                0.0,
                1.0,
            );
            let Some((mut htmin, htmax)) = sweep_circle(&vab, cir) else {
                continue;
            };
            // Already overlapping: avoid harder.
            if htmin < 0.0 && htmax > 0.0 {
                htmin = -htmin * 0.5;
            }
            if htmin >= 0.0 && htmin < tmin {
                tmin = htmin;
                if tmin < t_threshold {
                    return min_penalty;
                }
            }
        }
        for seg in &self.segment_terms {
            let mut htmin = match seg {
                // Touching the wall: free on one side of it, an immediate impact on the other.
                SegmentTerms::Touch { snorm } => {
                    if snorm[0] * vcand[0] + snorm[1] * vcand[2] < 0.0 {
                        continue;
                    }
                    0.0
                }
                SegmentTerms::Ray { v, w, vw } => match isect_ray_seg(vcand, v, w, *vw) {
                    Some(t) => t,
                    None => continue,
                },
            };
            // Walls count less than agents.
            htmin *= 2.0;
            if htmin < tmin {
                tmin = htmin;
                if tmin < t_threshold {
                    return min_penalty;
                }
            }
        }
        // Averaged, so many neighbours do not let the side term dominate.
        if !self.circle_terms.is_empty() {
            side /= self.circle_terms.len() as f32;
        }
        let spen = p.weight_side * side;
        let tpen = p.weight_toi * (1.0 / (0.1 + tmin * self.inv_horiz_time));
        let penalty = vpen + vcpen + spen + tpen;
        if let Some(d) = debug {
            d.add_sample(DebugSample {
                vel: *vcand,
                size: cs,
                penalty,
                desired_vel_penalty: vpen,
                current_vel_penalty: vcpen,
                side_penalty: spen,
                time_of_impact_penalty: tpen,
            });
        }
        penalty
    }

    /// The best velocity on a regular grid of `grid_size`² samples centred on the biased
    /// desired velocity, within `vmax` (`sampleVelocityGrid`). Returns it and the number of
    /// samples scored.
    #[allow(clippy::too_many_arguments)]
    pub fn sample_velocity_grid(
        &mut self,
        pos: &Vec3,
        rad: f32,
        vmax: f32,
        vel: &Vec3,
        dvel: &Vec3,
        params: &ObstacleAvoidanceParams,
        mut debug: Option<&mut ObstacleAvoidanceDebugData>,
    ) -> (Vec3, usize) {
        self.begin_sampling(pos, rad, vmax, dvel, params, &mut debug);
        let mut nvel = [0.0; 3];
        let p = self.params;
        let cvx = dvel[0] * p.vel_bias;
        let cvz = dvel[2] * p.vel_bias;
        let steps = i32::from(p.grid_size) - 1;
        let cs = vmax * 2.0 * (1.0 - p.vel_bias) / steps as f32;
        let half = steps as f32 * cs * 0.5;
        let mut min_penalty = f32::MAX;
        let mut ns = 0;
        for y in 0..i32::from(p.grid_size) {
            for x in 0..i32::from(p.grid_size) {
                let vcand = [cvx + x as f32 * cs - half, 0.0, cvz + y as f32 * cs - half];
                if sqr(vcand[0]) + sqr(vcand[2]) > sqr(vmax + cs / 2.0) {
                    continue;
                }
                let penalty =
                    self.process_sample(&vcand, cs, vel, dvel, min_penalty, debug.as_deref_mut());
                ns += 1;
                if penalty < min_penalty {
                    min_penalty = penalty;
                    nvel = vcand;
                }
            }
        }
        (nvel, ns)
    }

    /// The best velocity found by rings of samples aligned with the desired velocity, each
    /// pass re-centred on the previous best at half the radius (`sampleVelocityAdaptive`).
    /// Returns it and the number of samples scored.
    ///
    /// For an even number of divisions C++ counts a pattern point it never writes (an
    /// uninitialised read); here that point is the ring's last direction, as intended.
    #[allow(clippy::too_many_arguments)]
    pub fn sample_velocity_adaptive(
        &mut self,
        pos: &Vec3,
        rad: f32,
        vmax: f32,
        vel: &Vec3,
        dvel: &Vec3,
        params: &ObstacleAvoidanceParams,
        mut debug: Option<&mut ObstacleAvoidanceDebugData>,
    ) -> (Vec3, usize) {
        self.begin_sampling(pos, rad, vmax, dvel, params, &mut debug);
        let p = self.params;
        let divs = i32::from(p.adaptive_divs).clamp(1, MAX_PATTERN_DIVS as i32);
        let turn = match self.turn {
            Some(turn) if turn.divs == divs => turn,
            _ => PatternTurn::new(divs),
        };
        self.turn = Some(turn);
        let npat = sampling_pattern(dvel, &turn, i32::from(p.adaptive_rings), &mut self.pattern);
        let mut cr = vmax * (1.0 - p.vel_bias);
        let mut res = [dvel[0] * p.vel_bias, 0.0, dvel[2] * p.vel_bias];
        let mut ns = 0;
        // The last pass's best velocity and its penalty. The next pass's first sample, the
        // pattern's centre, is that velocity again: a winner was scored in full (a sample
        // given up on never wins), and a pass's first sample always is, so the penalty is the
        // same and is not computed twice (unless the samples are being recorded).
        let mut scored: Option<(Vec3, f32)> = None;
        for _ in 0..p.adaptive_depth {
            let mut min_penalty = f32::MAX;
            let mut bvel = [0.0; 3];
            for pt in &self.pattern[..npat] {
                let vcand = [res[0] + pt[0] * cr, 0.0, res[2] + pt[1] * cr];
                if sqr(vcand[0]) + sqr(vcand[2]) > sqr(vmax + 0.001) {
                    continue;
                }
                let penalty = match scored.take() {
                    Some((best, penalty))
                        if debug.is_none() && best.map(f32::to_bits) == vcand.map(f32::to_bits) =>
                    {
                        penalty
                    }
                    _ => self.process_sample(
                        &vcand,
                        cr / 10.0,
                        vel,
                        dvel,
                        min_penalty,
                        debug.as_deref_mut(),
                    ),
                };
                ns += 1;
                if penalty < min_penalty {
                    min_penalty = penalty;
                    bvel = vcand;
                }
            }
            scored = (min_penalty < f32::MAX).then_some((bvel, min_penalty));
            res = bvel;
            cr *= 0.5;
        }
        (res, ns)
    }
}

/// The adaptive sampler's unit pattern in xz, written to `pat`: the centre, then `rings`
/// rings (outermost first) of `turn.divs` directions fanning out both ways from the desired
/// direction, every other ring turned by half a step. Returns how many points there are.
fn sampling_pattern(
    dvel: &Vec3,
    turn: &PatternTurn,
    rings: i32,
    pat: &mut [[f32; 2]; MAX_PATTERN_POINTS],
) -> usize {
    let nd = turn.divs;
    let nr = rings.clamp(1, MAX_PATTERN_RINGS as i32);
    let [ca, sa] = turn.step;
    let mut dir = *dvel;
    normalize_2d(&mut dir);
    let dirs = [dir, rotate_2d(&dir, turn.half)];
    pat[0] = [0.0, 0.0];
    let mut npat = 1;
    let turn_cw = |v: [f32; 2]| [v[0] * ca + v[1] * sa, -v[0] * sa + v[1] * ca];
    let turn_ccw = |v: [f32; 2]| [v[0] * ca - v[1] * sa, v[0] * sa + v[1] * ca];
    for j in 0..nr {
        let r = (nr - j) as f32 / nr as f32;
        let d = &dirs[(j % 2) as usize];
        pat[npat] = [d[0] * r, d[2] * r];
        let mut right = npat;
        let mut left = npat;
        npat += 1;
        for _ in (1..nd - 1).step_by(2) {
            pat[npat] = turn_cw(pat[right]);
            pat[npat + 1] = turn_ccw(pat[left]);
            right = npat;
            left = npat + 1;
            npat += 2;
        }
        if nd & 1 == 0 {
            pat[npat] = turn_ccw(pat[left]);
            npat += 1;
        }
    }
    npat
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detour::query::geometry::vscale;

    const POS: Vec3 = [0.0; 3];

    /// The sweep terms of a still circle at `c`, seen from the origin with radii summing to `r`.
    fn circle_terms(c: &Vec3, r: f32) -> CircleTerms {
        CircleTerms {
            s: [c[0], c[2]],
            c: vdot_2d(c, c) - r * r,
            ..CircleTerms::default()
        }
    }

    fn params_without_bias() -> ObstacleAvoidanceParams {
        ObstacleAvoidanceParams {
            vel_bias: 0.0,
            ..ObstacleAvoidanceParams::default()
        }
    }

    #[test]
    fn defaults_and_demo_presets() {
        let d = ObstacleAvoidanceParams::default();
        assert_eq!(
            (
                d.vel_bias,
                d.weight_des_vel,
                d.weight_cur_vel,
                d.weight_side
            ),
            (0.4, 2.0, 0.75, 0.75)
        );
        assert_eq!((d.weight_toi, d.horiz_time), (2.5, 2.5));
        assert_eq!(
            (
                d.grid_size,
                d.adaptive_divs,
                d.adaptive_rings,
                d.adaptive_depth
            ),
            (33, 7, 2, 5)
        );
        let presets = ObstacleAvoidanceParams::recast_demo_presets();
        let shape: Vec<(u8, u8, u8)> = presets
            .iter()
            .map(|p| (p.adaptive_divs, p.adaptive_rings, p.adaptive_depth))
            .collect();
        assert_eq!(shape, [(5, 2, 1), (5, 2, 2), (7, 2, 3), (7, 3, 3)]);
        for p in presets {
            assert_eq!(p.vel_bias, 0.5);
            assert_eq!(
                ObstacleAvoidanceParams {
                    vel_bias: d.vel_bias,
                    adaptive_divs: d.adaptive_divs,
                    adaptive_rings: d.adaptive_rings,
                    adaptive_depth: d.adaptive_depth,
                    ..p
                },
                d
            );
        }
    }

    #[test]
    fn grid_without_obstacles_picks_the_desired_velocity() {
        // 5 × 5 samples one unit apart, centred on zero: (1, 0) is one of them.
        let params = ObstacleAvoidanceParams {
            grid_size: 5,
            ..params_without_bias()
        };
        let dvel = [1.0, 0.0, 0.0];
        let mut q = ObstacleAvoidanceQuery::new(6, 8);
        let mut debug = ObstacleAvoidanceDebugData::new(64);
        let (nvel, ns) =
            q.sample_velocity_grid(&POS, 0.5, 2.0, &dvel, &dvel, &params, Some(&mut debug));
        assert_eq!(nvel, dvel);
        // The samples within 2.5 of zero: all but the four corners.
        assert_eq!(ns, 21);
        assert!(debug.samples().len() <= ns);
        debug.normalize_samples();
        for s in debug.samples() {
            for v in [
                s.penalty,
                s.desired_vel_penalty,
                s.current_vel_penalty,
                s.side_penalty,
            ] {
                assert!((0.0..=1.0).contains(&v));
            }
        }
    }

    #[test]
    fn adaptive_without_obstacles_picks_the_desired_velocity() {
        let dvel = [0.0, 0.0, 2.0];
        let mut q = ObstacleAvoidanceQuery::new(6, 8);
        let params = params_without_bias();
        let (nvel, ns) = q.sample_velocity_adaptive(&POS, 0.5, 2.0, &dvel, &dvel, &params, None);
        assert_eq!(nvel, dvel);
        // 1 + 2 rings × 7 directions per pass, 5 passes (samples past vmax are skipped).
        assert!(ns <= 5 * 15);
        assert!(ns > 15);
        let mut debug = ObstacleAvoidanceDebugData::new(64);
        let one_pass = ObstacleAvoidanceParams {
            adaptive_depth: 1,
            ..params
        };
        let (nvel, ns) =
            q.sample_velocity_adaptive(&POS, 0.5, 2.0, &dvel, &dvel, &one_pass, Some(&mut debug));
        assert_eq!(nvel, dvel);
        assert_eq!(ns, 15);
    }

    #[test]
    fn an_agent_ahead_makes_it_slow_down_or_turn() {
        let dvel = [1.0, 0.0, 0.0];
        let obstacle = [1.5, 0.0, 0.0];
        let mut q = ObstacleAvoidanceQuery::new(6, 8);
        q.add_circle(&obstacle, 0.5, &[0.0; 3], &[0.0; 3]);
        // Straight on, the reciprocal sweep touches the obstacle at t = 0.5.
        let impact = |v: &Vec3| {
            let vab = vsub(&vscale(v, 2.0), &dvel);
            sweep_circle(&[vab[0], vab[2]], &circle_terms(&obstacle, 1.0)).map(|(tmin, _)| tmin)
        };
        assert_eq!(impact(&dvel), Some(0.5));
        let mut chosen: Vec<Vec3> = ObstacleAvoidanceParams::recast_demo_presets()
            .iter()
            .map(|params| {
                q.sample_velocity_adaptive(&POS, 0.5, 1.0, &dvel, &dvel, params, None)
                    .0
            })
            .collect();
        let grid = ObstacleAvoidanceParams::default();
        chosen.push(
            q.sample_velocity_grid(&POS, 0.5, 1.0, &dvel, &dvel, &grid, None)
                .0,
        );
        for nvel in chosen {
            assert_ne!(nvel, dvel);
            assert!(impact(&nvel).is_none_or(|t| t > 0.5), "{nvel:?}");
        }
        // The side was chosen when sampling started.
        let c = q.circles()[0];
        assert_eq!(c.dp, [1.0, 0.0, 0.0]);
        assert_eq!(c.np, [0.0, 0.0, 1.0]);
    }

    #[test]
    fn a_wall_ahead_slows_it_down() {
        let dvel = [1.0, 0.0, 0.0];
        let mut q = ObstacleAvoidanceQuery::new(6, 8);
        q.add_segment(&[0.6, 0.0, -5.0], &[0.6, 0.0, 5.0]);
        let (nvel, _) =
            q.sample_velocity_adaptive(&POS, 0.5, 1.0, &dvel, &dvel, &params_without_bias(), None);
        assert!(nvel[0] < dvel[0], "{nvel:?}");
        assert!(!q.segments()[0].touch);
        // Touching a wall: velocities to one side of it (by its direction) are free, the
        // others an immediate impact.
        q.reset();
        q.add_segment(&[0.0, 0.0, -5.0], &[0.0, 0.0, 5.0]);
        let (nvel, _) =
            q.sample_velocity_adaptive(&POS, 0.5, 1.0, &dvel, &dvel, &params_without_bias(), None);
        assert!(q.segments()[0].touch);
        assert_eq!(nvel, dvel);
        q.reset();
        q.add_segment(&[0.0, 0.0, 5.0], &[0.0, 0.0, -5.0]);
        let (nvel, _) =
            q.sample_velocity_adaptive(&POS, 0.5, 1.0, &dvel, &dvel, &params_without_bias(), None);
        assert!(nvel[0] < 0.0, "{nvel:?}");
    }

    #[test]
    fn obstacles_beyond_capacity_are_ignored() {
        let mut q = ObstacleAvoidanceQuery::new(1, 1);
        q.add_circle(&[1.0; 3], 0.5, &[0.0; 3], &[0.0; 3]);
        q.add_circle(&[2.0; 3], 0.5, &[0.0; 3], &[0.0; 3]);
        q.add_segment(&[0.0; 3], &[1.0; 3]);
        q.add_segment(&[2.0; 3], &[3.0; 3]);
        assert_eq!(q.circles().len(), 1);
        assert_eq!(q.circles()[0].pos, [1.0; 3]);
        assert_eq!(q.segments().len(), 1);
        q.reset();
        assert!(q.circles().is_empty() && q.segments().is_empty());
    }

    #[test]
    fn pattern_sizes_and_the_even_division_point() {
        let dvel = [1.0, 0.0, 0.0];
        let pattern = |dvel: &Vec3, divs: i32, rings: i32| {
            let mut pat = [[f32::NAN; 2]; MAX_PATTERN_POINTS];
            let turn = PatternTurn::new(divs.clamp(1, MAX_PATTERN_DIVS as i32));
            let n = sampling_pattern(dvel, &turn, rings, &mut pat);
            (pat, n)
        };
        assert_eq!(pattern(&dvel, 7, 2).1, 15);
        assert_eq!(pattern(&dvel, 5, 3).1, 16);
        assert_eq!(pattern(&dvel, 0, 0).1, 2);
        assert_eq!(pattern(&dvel, 255, 255).1, MAX_PATTERN_POINTS);
        // Even divisions: every ring point is written, all distinct, the first one ahead.
        let (pat, n) = pattern(&dvel, 8, 1);
        assert_eq!(n, 9);
        assert_eq!(pat[1], [1.0, 0.0]);
        for i in 1..n {
            for j in i + 1..n {
                assert_ne!(pat[i], pat[j], "{i} {j}");
            }
        }
        // A zero desired velocity leaves the direction at zero: every ring point is the centre.
        let (pat, n) = pattern(&[0.0; 3], 7, 2);
        assert!(pat[..n].iter().all(|p| *p == [0.0, 0.0]));
    }

    #[test]
    fn helpers_follow_cpp() {
        // Moving right at speed 1 towards a circle 3 away, radii 0.5 + 0.5: touch at t = 2.
        let far = circle_terms(&[3.0, 0.0, 0.0], 1.0);
        let (tmin, tmax) = sweep_circle(&[1.0, 0.0], &far).expect("hit");
        assert_eq!((tmin, tmax), (2.0, 4.0));
        assert_eq!(sweep_circle(&[0.0, 0.0], &far), None);
        // The wall x = 1 from z = -1 to 1, seen from the origin.
        let (v, w) = ([0.0, 2.0], [-1.0, 1.0]);
        let vw = vperp_2d(&[v[0], 0.0, v[1]], &[w[0], 0.0, w[1]]);
        assert_eq!(isect_ray_seg(&[2.0, 0.0, 0.0], &v, &w, vw), Some(0.5));
        assert_eq!(isect_ray_seg(&[0.5, 0.0, 0.0], &v, &w, vw), None);
        assert_eq!(rotate_2d(&[1.0, 7.0, 0.0], [1.0, 0.0]), [1.0, 7.0, 0.0]);
    }
}
