//! A crowd as RecastDemo's crowd tool draws it (`CrowdToolState::render`): agent cylinders
//! coloured by their move request, trails, velocities, the target cross and, for the selected
//! agent (or every agent with "detail all"), corners, corridor, wall segments, neighbours,
//! velocity samples and the visibility shortcut; optionally the proximity grid and the path
//! queue's search nodes.

use super::detour::{append_nav_mesh_poly, nav_mesh_nodes};
use super::{DebugDraw, LineBatch, Rgba, append_circle, darken_col, lerp_col, rgba};
use crate::crowd::agent::MoveRequestState;
use crate::crowd::{Crowd, CrowdAgent, CrowdAgentDebugInfo};
use crate::detour::NavMesh;
use crate::detour::query::STRAIGHTPATH_OFFMESH_CONNECTION;
use crate::detour::query::geometry::tri_area_2d;

/// Positions an agent trail remembers (`AGENT_MAX_TRAIL`).
pub const TRAIL_LENGTH: usize = 64;

/// The last positions of one agent, newest at `head` (RecastDemo's `AgentTrail`).
#[derive(Clone, Debug, PartialEq)]
pub struct AgentTrail {
    points: [[f32; 3]; TRAIL_LENGTH],
    head: usize,
}

impl AgentTrail {
    /// A trail that has not moved from `pos`.
    pub fn new(pos: [f32; 3]) -> Self {
        Self {
            points: [pos; TRAIL_LENGTH],
            head: 0,
        }
    }

    /// Records the agent's new position, forgetting the oldest.
    pub fn push(&mut self, pos: [f32; 3]) {
        self.head = (self.head + 1) % TRAIL_LENGTH;
        self.points[self.head] = pos;
    }

    /// The positions from the newest back.
    pub fn newest_first(&self) -> impl Iterator<Item = [f32; 3]> + '_ {
        (0..TRAIL_LENGTH).map(|j| self.points[(self.head + TRAIL_LENGTH - j) % TRAIL_LENGTH])
    }
}

/// Which of the tool's debug drawings are on (RecastDemo's `CrowdToolParams`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CrowdDrawOptions {
    /// The selected agent's next corners.
    pub show_corners: bool,
    /// Its wall segments.
    pub show_collision_segments: bool,
    /// Its corridor.
    pub show_path: bool,
    /// Its avoidance samples.
    pub show_velocity_samples: bool,
    /// Its visibility optimisation ray.
    pub show_path_optimization: bool,
    /// Lines to its neighbours.
    pub show_neighbours: bool,
    /// The proximity grid's occupancy.
    pub show_grid: bool,
    /// The path query's search nodes.
    pub show_nodes: bool,
    /// The selected-agent drawings for every agent.
    pub show_detail_all: bool,
}

/// What to draw a crowd with besides the crowd itself.
pub struct CrowdScene<'a> {
    /// The crowd to draw.
    pub crowd: &'a Crowd<'a>,
    /// The navmesh it walks on.
    pub nav: &'a NavMesh,
    /// One trail per agent slot (may be shorter: slots without one draw no trail).
    pub trails: &'a [AgentTrail],
    /// The selected agent's slot.
    pub selected: Option<usize>,
    /// The selected agent's last update (visibility ray, velocity samples).
    pub debug: Option<&'a CrowdAgentDebugInfo>,
    /// The move target, drawn as a cross of `target_radius`.
    pub target: Option<[f32; 3]>,
    /// Half the size of the target's cross, world units.
    pub target_radius: f32,
}

/// An agent's colour by its move request: purple while waiting, red when failed, green when
/// moved by velocity.
fn request_color(ag: &CrowdAgent, alpha: u32) -> Rgba {
    let base = rgba(220, 220, 220, alpha);
    match ag.target_state {
        MoveRequestState::Requesting | MoveRequestState::WaitingForQueue => {
            lerp_col(base, rgba(128, 0, 255, alpha), 32)
        }
        MoveRequestState::WaitingForPath => lerp_col(base, rgba(128, 0, 255, alpha), 128),
        MoveRequestState::Failed => rgba(255, 32, 16, alpha),
        MoveRequestState::Velocity => lerp_col(base, rgba(64, 255, 0, alpha), 128),
        _ => base,
    }
}

fn lift(p: [f32; 3], dy: f32) -> [f32; 3] {
    [p[0], p[1] + dy, p[2]]
}

fn add(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

/// A cross of half size `s` at `p` (`duDebugDrawCross`).
fn append_cross(lines: &mut LineBatch, p: [f32; 3], s: f32, color: Rgba) {
    let [x, y, z] = p;
    lines.segment([x - s, y, z], [x + s, y, z], color);
    lines.segment([x, y - s, z], [x, y + s, z], color);
    lines.segment([x, y, z - s], [x, y, z + s], color);
}

/// A line from `p` to `q` with an arrow head of size `head` at `q` (`duAppendArrow`).
fn append_arrow(lines: &mut LineBatch, p: [f32; 3], q: [f32; 3], head: f32, color: Rgba) {
    lines.segment(p, q, color);
    let d = [q[0] - p[0], q[2] - p[2]];
    let len = (d[0] * d[0] + d[1] * d[1]).sqrt();
    if len < 1e-3 {
        return;
    }
    let (dx, dz) = (d[0] / len * head, d[1] / len * head);
    for sign in [1.0, -1.0] {
        let tip = [
            q[0] - dx + sign * dz / 3.0,
            q[1],
            q[2] - dz - sign * dx / 3.0,
        ];
        lines.segment(q, tip, color);
    }
}

/// A solid vertical cylinder of 16 sides in the box `min`..`max`, its sides darker
/// (`duDebugDrawCylinder`); every face is counter-clockwise seen from outside, so culling
/// back faces hides only the far side.
fn append_cylinder(drawing: &mut DebugDraw, min: [f32; 3], max: [f32; 3], color: Rgba) {
    const SEGMENTS: usize = 16;
    let side = darken_col(color);
    let (cx, cz) = ((max[0] + min[0]) / 2.0, (max[2] + min[2]) / 2.0);
    let (rx, rz) = ((max[0] - min[0]) / 2.0, (max[2] - min[2]) / 2.0);
    let at = |i: usize, y: f32| {
        let a = i as f32 / SEGMENTS as f32 * std::f32::consts::TAU;
        [cx + a.cos() * rx, y, cz + a.sin() * rz]
    };
    let tris = &mut drawing.triangles;
    for i in 1..SEGMENTS - 1 {
        tris.triangle([at(0, min[1]), at(i, min[1]), at(i + 1, min[1])], side);
        tris.triangle([at(0, max[1]), at(i + 1, max[1]), at(i, max[1])], color);
    }
    for i in 0..SEGMENTS {
        let j = (i + 1) % SEGMENTS;
        tris.quad(
            [at(i, min[1]), at(i, max[1]), at(j, max[1]), at(j, min[1])],
            side,
        );
    }
}

/// The whole crowd drawing.
pub fn crowd(scene: &CrowdScene, options: &CrowdDrawOptions) -> DebugDraw {
    let crowd = scene.crowd;
    let mut drawing = DebugDraw::default();
    if options.show_nodes {
        drawing.append(nav_mesh_nodes(crowd.path_queue().nav_query().node_pool()));
    }
    let detailed = |i: usize| options.show_detail_all || scene.selected == Some(i);
    let active: Vec<usize> = crowd.active_agents().collect();
    let agent = |i: usize| crowd.agent(i).filter(|ag| ag.active);

    if options.show_path {
        for &i in active.iter().filter(|&&i| detailed(i)) {
            if let Some(ag) = agent(i) {
                for &poly in ag.corridor.path() {
                    append_nav_mesh_poly(&mut drawing, scene.nav, poly, rgba(255, 255, 255, 24));
                }
            }
        }
    }

    let mut thin = LineBatch::new(1.0);
    let mut medium = LineBatch::new(2.0);
    let mut thick = LineBatch::new(3.0);
    if let Some(target) = scene.target {
        append_cross(
            &mut medium,
            lift(target, 0.1),
            scene.target_radius,
            rgba(255, 255, 255, 192),
        );
    }
    if options.show_grid {
        append_grid(&mut drawing, crowd, &active);
    }
    for (&i, trail) in active
        .iter()
        .filter_map(|i| Some(i).zip(scene.trails.get(*i)))
    {
        let Some(ag) = agent(i) else { continue };
        let mut prev = ag.npos;
        let mut prev_alpha = 1.0;
        for (j, v) in trail.newest_first().take(TRAIL_LENGTH - 1).enumerate() {
            let alpha = 1.0 - j as f32 / TRAIL_LENGTH as f32;
            thick.segment(
                lift(prev, 0.1),
                lift(v, 0.1),
                rgba(0, 0, 0, (128.0 * (prev_alpha + alpha) * 0.5) as u32),
            );
            prev_alpha = alpha;
            prev = v;
        }
    }
    for &i in active.iter().filter(|&&i| detailed(i)) {
        let Some(ag) = agent(i) else { continue };
        append_agent_detail(
            &mut medium,
            &mut thick,
            crowd,
            ag,
            scene.debug.filter(|_| scene.selected == Some(i)),
            options,
        );
    }
    for &i in &active {
        let Some(ag) = agent(i) else { continue };
        let color = if scene.selected == Some(i) {
            rgba(255, 0, 0, 128)
        } else {
            rgba(0, 0, 0, 32)
        };
        append_circle(&mut medium, ag.npos, ag.params.radius, color);
        let (r, h) = (ag.params.radius, ag.params.height);
        let [x, y, z] = ag.npos;
        append_cylinder(
            &mut drawing,
            [x - r, y + r * 0.1, z - r],
            [x + r, y + h, z + r],
            request_color(ag, 128),
        );
    }
    if options.show_velocity_samples
        && let Some(ag) = scene.selected.and_then(agent)
        && let Some(vod) = scene.debug.and_then(|d| d.vod.as_ref())
    {
        let centre = lift(ag.npos, ag.params.height);
        append_circle(
            &mut medium,
            centre,
            ag.params.max_speed,
            rgba(255, 255, 255, 64),
        );
        for s in vod.samples() {
            let color = lerp_col(
                rgba(255, 255, 255, 220),
                rgba(128, 96, 0, 220),
                (s.penalty * 255.0) as u32,
            );
            let color = lerp_col(color, rgba(128, 0, 0, 220), (s.side_penalty * 128.0) as u32);
            let [x, y, z] = add(centre, [s.vel[0], 0.0, s.vel[2]]);
            let r = s.size;
            drawing.triangles.quad(
                [
                    [x - r, y, z - r],
                    [x - r, y, z + r],
                    [x + r, y, z + r],
                    [x + r, y, z - r],
                ],
                color,
            );
        }
    }
    for &i in &active {
        let Some(ag) = agent(i) else { continue };
        let top = lift(ag.npos, ag.params.height);
        append_circle(&mut medium, top, ag.params.radius, request_color(ag, 192));
        let desired = if scene.selected == Some(i) {
            &mut medium
        } else {
            &mut thin
        };
        append_arrow(desired, top, add(top, ag.dvel), 0.4, rgba(0, 192, 255, 192));
        append_arrow(&mut medium, top, add(top, ag.vel), 0.4, rgba(0, 0, 0, 160));
    }
    drawing.lines.extend([thin, medium, thick]);
    drawing
}

/// Corners, wall segments, neighbours and the visibility shortcut of one agent.
fn append_agent_detail(
    medium: &mut LineBatch,
    thick: &mut LineBatch,
    crowd: &Crowd,
    ag: &CrowdAgent,
    debug: Option<&CrowdAgentDebugInfo>,
    options: &CrowdDrawOptions,
) {
    let radius = ag.params.radius;
    let pos = ag.npos;
    if options.show_corners && !ag.corners().is_empty() {
        let corners = ag.corners();
        let mut from = pos;
        for corner in corners {
            medium.segment(
                lift(from, radius),
                lift(corner.pos, radius),
                rgba(128, 0, 0, 192),
            );
            from = corner.pos;
        }
        if let Some(last) = corners.last()
            && last.flags & STRAIGHTPATH_OFFMESH_CONNECTION != 0
        {
            medium.segment(last.pos, lift(last.pos, radius * 2.0), rgba(192, 0, 0, 192));
        }
    }
    if options.show_collision_segments {
        let centre = lift(*ag.boundary.center(), radius);
        append_cross(medium, centre, 0.2, rgba(192, 0, 128, 255));
        append_circle(
            medium,
            centre,
            ag.params.collision_query_range,
            rgba(192, 0, 128, 128),
        );
        for seg in ag.boundary.segments() {
            let mut color = rgba(192, 0, 128, 192);
            if tri_area_2d(&pos, &seg.start, &seg.end) < 0.0 {
                color = darken_col(color);
            }
            append_arrow(thick, lift(seg.start, 0.2), lift(seg.end, 0.2), 0.3, color);
        }
    }
    if options.show_neighbours {
        append_circle(
            medium,
            lift(pos, radius),
            ag.params.collision_query_range,
            rgba(0, 192, 128, 128),
        );
        for nei in ag.neighbours() {
            if let Some(other) = crowd.agent(nei.index) {
                medium.segment(
                    lift(pos, radius),
                    lift(other.npos, radius),
                    rgba(0, 192, 128, 128),
                );
            }
        }
    }
    if options.show_path_optimization
        && let Some(debug) = debug
    {
        medium.segment(
            lift(debug.opt_start, 0.3),
            lift(debug.opt_end, 0.3),
            rgba(0, 128, 0, 192),
        );
    }
}

/// The proximity grid's occupied cells one metre above the highest agent, redder the fuller.
fn append_grid(drawing: &mut DebugDraw, crowd: &Crowd, active: &[usize]) {
    let grid = crowd.proximity_grid();
    let Some(top) = active
        .iter()
        .filter_map(|&i| crowd.agent(i))
        .map(|ag| ag.corridor.pos()[1])
        .reduce(f32::max)
    else {
        return;
    };
    let y = top + 1.0;
    let cs = grid.cell_size();
    let [x0, y0, x1, y1] = grid.bounds();
    for gy in y0..=y1 {
        for gx in x0..=x1 {
            let count = grid.item_count_at(gx, gy);
            if count == 0 {
                continue;
            }
            let color = rgba(128, 0, 0, (count as u32 * 40).min(255));
            let (x, z) = (gx as f32 * cs, gy as f32 * cs);
            drawing.triangles.quad(
                [
                    [x, y, z],
                    [x, y, z + cs],
                    [x + cs, y, z + cs],
                    [x + cs, y, z],
                ],
                color,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agent_cylinders_face_outward() {
        let mut drawing = DebugDraw::default();
        append_cylinder(
            &mut drawing,
            [1.0, 2.0, 3.0],
            [2.0, 4.0, 5.0],
            rgba(0, 0, 0, 255),
        );
        assert_eq!(drawing.triangles.triangle_count(), 2 * 14 + 2 * 16);
        assert!(drawing.triangles.faces_outward_from([1.5, 3.0, 4.0]));
    }
}
