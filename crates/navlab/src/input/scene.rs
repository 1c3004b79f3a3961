//! Generated scenes: the viewer's built-in scene (so Navlab ships no third-party assets), a
//! large city grid for benchmarks, the hostile shapes the robustness tests and memory
//! measurements use (a stack of floors, random triangle soups), and the sample levels' rolling
//! terrain and spiral ramp (`examples/write_scene.rs` writes them all to `assets/Meshes/`),
//! and an open [`world`] of many square kilometres made of them (`navlab gen world`).
//!
//! The default scene is laid out so that every stage and filter has something to show with
//! RecastDemo's default settings (cell 0.3, agent height 2.0, radius 0.6, climb 0.9, slope 45°):
//!
//! | Feature | Where (x, z) | What it exercises |
//! |---|---|---|
//! | floor | -24..24 square | the base walkable area |
//! | stairs | west of platform A | 0.3 m steps: climbable, merged by `walkableClimb` |
//! | platform A, ramp | north-west | a 20° ramp: walkable slope |
//! | bridge | between the platforms | two walkable layers, space under the deck |
//! | too-steep slope | south of platform B | a 56° wedge: unwalkable triangles |
//! | kerbs | centre | 0.4 m ledges: the low-hanging-obstacle filter |
//! | low tables | south-west | floor under them too low: the low-height filter |
//! | low ceiling | south | a 1.4 m canopy on pillars: floor under it filtered |
//! | spiral staircase | south-east | overlapping layers, thin steps, a tall column |

mod world;

pub use world::{WORLD_GRID_STEP, WORLD_MAX_SIZE, WORLD_MIN_SIZE, world};

use crate::input::obj::TriMesh;

/// The embedded default scene.
pub fn default_scene() -> TriMesh {
    let mut scene = SceneBuilder::default();
    scene.floor();
    scene.stairs_platforms_and_bridge();
    scene.kerbs();
    scene.low_tables();
    scene.low_ceiling();
    scene.spiral_staircase([16.0, 12.0]);
    TriMesh::from_parts(scene.verts, scene.tris)
        .expect("the generated scene has finite vertices and in-range indices by construction")
}

/// A flat city block grid: a floor with box buildings, `blocks` × `blocks` of 12 m blocks —
/// large open streets with many small obstacles, the layers partition's worst case. The
/// benchmarks and `examples/stage_timings.rs` (which writes it as OBJ for the C++ comparison) use it.
pub fn city(blocks: usize) -> TriMesh {
    let mut verts = Vec::new();
    let mut tris = Vec::new();
    let mut quad = |verts: &mut Vec<f32>, corners: [[f32; 3]; 4]| {
        let base = (verts.len() / 3) as i32;
        for c in corners {
            verts.extend_from_slice(&c);
        }
        tris.extend_from_slice(&[base, base + 2, base + 1, base, base + 3, base + 2]);
    };
    let size = blocks as f32 * 12.0;
    quad(
        &mut verts,
        [
            [0.0, 0.0, 0.0],
            [size, 0.0, 0.0],
            [size, 0.0, size],
            [0.0, 0.0, size],
        ],
    );
    for bx in 0..blocks {
        for bz in 0..blocks {
            let (x0, z0) = (bx as f32 * 12.0 + 3.0, bz as f32 * 12.0 + 3.0);
            let w = 4.0 + ((bx * 7 + bz * 3) % 4) as f32;
            let h = 3.0 + ((bx * 5 + bz * 11) % 7) as f32;
            let (x1, z1) = (x0 + w, z0 + w);
            // Roof and four walls, wound outwards.
            quad(
                &mut verts,
                [[x0, h, z0], [x0, h, z1], [x1, h, z1], [x1, h, z0]],
            );
            quad(
                &mut verts,
                [[x0, 0.0, z0], [x1, 0.0, z0], [x1, h, z0], [x0, h, z0]],
            );
            quad(
                &mut verts,
                [[x1, 0.0, z0], [x1, 0.0, z1], [x1, h, z1], [x1, h, z0]],
            );
            quad(
                &mut verts,
                [[x1, 0.0, z1], [x0, 0.0, z1], [x0, h, z1], [x1, h, z1]],
            );
            quad(
                &mut verts,
                [[x0, 0.0, z1], [x0, 0.0, z0], [x0, h, z0], [x0, h, z1]],
            );
        }
    }
    TriMesh::from_parts(verts, tris).expect("the generated city is valid")
}

/// A parking garage reduced to its floors: `floors` squares `width` metres wide, `spacing` apart,
/// facing up. Every column holds one walkable span per floor, the worst case of the per-column
/// work (and, before it was fixed, of the region merges' memory).
pub fn garage(floors: usize, width: f32, spacing: f32) -> TriMesh {
    let mut verts = Vec::with_capacity(floors * 12);
    let mut tris = Vec::with_capacity(floors * 6);
    for floor in 0..floors {
        let y = floor as f32 * spacing;
        verts.extend_from_slice(&[0.0, y, 0.0, 0.0, y, width, width, y, width, width, y, 0.0]);
        let base = (floor * 4) as i32;
        tris.extend_from_slice(&[base, base + 1, base + 2, base, base + 2, base + 3]);
    }
    TriMesh::from_parts(verts, tris).expect("the generated garage is valid")
}

/// Rolling ground `size` metres square, a height field of `cells` × `cells` squares (two triangles
/// each): sums of sines for the gentle slopes, and eight round hills with walkable tops whose flanks
/// are mostly steeper than RecastDemo's 45° walkable slope, so the slope filter cuts obstacles and
/// unreachable islands out of open ground. Slopes keep their angles at any `size`.
pub fn terrain(size: f32, cells: usize) -> TriMesh {
    use std::f32::consts::TAU;
    let scale = size / 100.0;
    let height = |x: f32, z: f32| {
        let (x, z) = (x / scale, z / scale);
        let rolling = 3.0 * (TAU * x / 60.0).sin()
            + 2.5 * (TAU * z / 45.0).cos()
            + 1.5 * (TAU * (x + z) / 35.0).sin();
        let hills = ((TAU * x / 50.0).sin() * (TAU * z / 50.0).sin()).max(0.0);
        (rolling + 10.0 * hills.powi(3)) * scale
    };
    let (verts, tris) = height_field(size, cells, height);
    TriMesh::from_parts(verts, tris).expect("the generated terrain is valid")
}

/// The vertices and triangles of a square height field `size` metres wide from the origin, of
/// `cells` × `cells` squares (two triangles each), with `height(x, z)` at each grid point.
fn height_field(size: f32, cells: usize, height: impl Fn(f32, f32) -> f32) -> (Vec<f32>, Vec<i32>) {
    let step = size / cells as f32;
    let row = cells + 1;
    let mut verts = Vec::with_capacity(row * row * 3);
    for i in 0..row {
        for j in 0..row {
            let (x, z) = (i as f32 * step, j as f32 * step);
            verts.extend_from_slice(&[x, height(x, z), z]);
        }
    }
    let mut tris = Vec::with_capacity(cells * cells * 6);
    for i in 0..cells {
        for j in 0..cells {
            let at = |i: usize, j: usize| (i * row + j) as i32;
            let [a, b, c, d] = [at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j + 1)];
            // Wound so the normals point up.
            tris.extend_from_slice(&[a, d, c, a, c, b]);
        }
    }
    (verts, tris)
}

/// A ramp winding `turns` times around a central column, rising `rise_per_turn` metres a turn,
/// from a flat floor to a landing level with the column's top (a quarter turn further on). The
/// turns stack over each other and the floor, so one connected walkable surface overlaps itself:
/// the case where Recast's watershed regions wind round and overlap. A rise of 4 m a turn leaves
/// 3.5 m of headroom between turns (2.7 m under the landing) and 18° at the ramp's steepest,
/// inner, edge.
pub fn spiral_ramp(turns: usize, rise_per_turn: f32) -> TriMesh {
    let mut scene = SceneBuilder::default();
    scene.spiral_ramp(turns, rise_per_turn);
    TriMesh::from_parts(scene.verts, scene.tris).expect("the generated ramp is valid")
}

/// Width of one lane of [`terraces`] along x, and the void between lanes.
pub const TERRACE_LANE: f32 = 8.0;
/// The x distance from one lane of [`terraces`] to the next.
pub const TERRACE_LANE_PITCH: f32 = 16.0;
/// Depth of [`terraces`]' top platform along z, where every lane's far block begins (plus its
/// gap).
pub const TERRACE_DEPTH: f32 = 8.0;

/// A flat top platform (y = 0, z from 0 to [`TERRACE_DEPTH`]) with one lane per drop, then one
/// per gap, along x (lane `i` spans x from `i * TERRACE_LANE_PITCH`, [`TERRACE_LANE`] wide):
/// a drop lane has a block `drop` metres lower right beyond the platform's far edge, a gap lane
/// a block level with the platform `gap` metres beyond it. Every block stands on nothing (its
/// sides go down to y = -10) and the lanes are [`TERRACE_LANE_PITCH`] − [`TERRACE_LANE`] apart,
/// so each lane's edge is a feature of its own: the jump-link builder's test scene.
pub fn terraces(drops: &[f32], gaps: &[f32]) -> TriMesh {
    const BOTTOM: f32 = -10.0;
    let lanes = drops.len() + gaps.len();
    let mut scene = SceneBuilder::default();
    let width = (lanes.max(1) - 1) as f32 * TERRACE_LANE_PITCH + TERRACE_LANE;
    scene.cuboid([0.0, BOTTOM, 0.0], [width, 0.0, TERRACE_DEPTH]);
    let features = drops
        .iter()
        .map(|&d| (d, 0.0))
        .chain(gaps.iter().map(|&g| (0.0, g)));
    for (lane, (drop, gap)) in features.enumerate() {
        let x = lane as f32 * TERRACE_LANE_PITCH;
        let z = TERRACE_DEPTH + gap;
        scene.cuboid([x, BOTTOM, z], [x + TERRACE_LANE, -drop, z + TERRACE_DEPTH]);
    }
    TriMesh::from_parts(scene.verts, scene.tris).expect("the generated terraces are valid")
}

/// `triangles` triangles with corners drawn uniformly in the cube `0..extent` on every axis,
/// seeded: arbitrary slopes, windings, overlaps and slivers.
pub fn random_soup(seed: u64, triangles: usize, extent: f32) -> TriMesh {
    let mut random = SplitMix64(seed);
    let verts: Vec<f32> = (0..triangles * 9).map(|_| random.unit() * extent).collect();
    let tris: Vec<i32> = (0..(triangles * 3) as i32).collect();
    TriMesh::from_parts(verts, tris).expect("the generated soup has finite vertices")
}

/// Writes `mesh` as Wavefront OBJ text; `{}` prints each `f32` so that it parses back exactly.
pub fn obj_text(mesh: &TriMesh) -> String {
    use std::fmt::Write as _;
    let mut text = String::new();
    for v in mesh.verts.chunks_exact(3) {
        let _ = writeln!(text, "v {} {} {}", v[0], v[1], v[2]);
    }
    for t in mesh.tris.chunks_exact(3) {
        let _ = writeln!(text, "f {} {} {}", t[0] + 1, t[1] + 1, t[2] + 1);
    }
    text
}

/// A small, seedable generator (SplitMix64): reproducible scenes without a dependency.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..1`.
    fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }
}

/// Accumulates closed convex solids as one triangle soup.
#[derive(Default)]
struct SceneBuilder {
    verts: Vec<f32>,
    tris: Vec<i32>,
}

impl SceneBuilder {
    fn floor(&mut self) {
        self.cuboid([-24.0, -0.5, -24.0], [24.0, 0.0, 24.0]);
        // Two free-standing pillars for the regions to flow around.
        self.cuboid([-2.0, -0.5, 14.0], [-1.0, 4.0, 15.0]);
        self.cuboid([4.0, -0.5, 18.0], [5.0, 4.0, 19.0]);
    }

    fn stairs_platforms_and_bridge(&mut self) {
        let deck = 3.0;
        // Ten 0.3 m steps, each a block from the floor up, climbing east to platform A.
        for step in 0..10 {
            let x0 = -20.0 + 0.6 * step as f32;
            let top = 0.3 * (step + 1) as f32;
            self.cuboid([x0, -0.5, -20.0], [-14.0, top, -17.0]);
        }
        self.cuboid([-14.0, -0.5, -20.0], [-8.0, deck, -14.0]);
        // A 20° ramp rising north onto platform A.
        self.prism(
            &[[-13.0, -6.0], [-9.0, -6.0], [-9.0, -14.0], [-13.0, -14.0]],
            -0.5,
            &[0.0, 0.0, deck, deck],
        );
        // The bridge: a thin deck with 2.7 m of headroom over the floor.
        self.cuboid([-8.0, deck - 0.3, -18.5], [8.0, deck, -15.5]);
        self.cuboid([8.0, -0.5, -20.0], [14.0, deck, -14.0]);
        // A 56° wedge against platform B: too steep to walk.
        self.prism(
            &[[9.0, -12.0], [13.0, -12.0], [13.0, -14.0], [9.0, -14.0]],
            -0.5,
            &[0.0, 0.0, deck, deck],
        );
    }

    /// Ledges low enough to step over, so the low-hanging-obstacle filter marks their tops.
    fn kerbs(&mut self) {
        self.cuboid([-6.0, -0.5, -4.0], [6.0, 0.4, -3.6]);
        self.cuboid([-6.0, -0.5, 0.0], [-5.6, 0.4, 6.0]);
    }

    /// Tables whose tops are out of climbing reach and whose undersides are too low to stand in.
    fn low_tables(&mut self) {
        for (x, z) in [(-20.0, 4.0), (-16.0, 7.0), (-20.0, 10.0)] {
            self.table([x, z], [2.4, 1.4], 1.0, 0.1);
        }
    }

    /// A canopy at 1.4 m: the floor beneath it is unwalkable for a 2 m agent.
    fn low_ceiling(&mut self) {
        self.table([0.0, 4.0], [8.0, 8.0], 1.6, 0.2);
    }

    fn table(&mut self, corner: [f32; 2], size: [f32; 2], top: f32, thickness: f32) {
        let [x0, z0] = corner;
        let [x1, z1] = [x0 + size[0], z0 + size[1]];
        let leg = 0.2;
        self.cuboid([x0, top - thickness, z0], [x1, top, z1]);
        for (lx, lz) in [
            (x0, z0),
            (x1 - leg, z0),
            (x0, z1 - leg),
            (x1 - leg, z1 - leg),
        ] {
            self.cuboid([lx, -0.5, lz], [lx + leg, top - thickness, lz + leg]);
        }
    }

    /// Floating 0.25 m steps turning around a column, one and a half turns, with a landing.
    fn spiral_staircase(&mut self, centre: [f32; 2]) {
        const STEPS: usize = 24;
        const STEP_ANGLE: f32 = std::f32::consts::PI / 8.0;
        const RISE: f32 = 0.25;
        const INNER: f32 = 0.6;
        const OUTER: f32 = 3.0;
        let at = |radius: f32, angle: f32| {
            [
                centre[0] + radius * angle.cos(),
                centre[1] + radius * angle.sin(),
            ]
        };
        let column: Vec<[f32; 2]> = (0..8)
            .map(|i| at(INNER, i as f32 * std::f32::consts::TAU / 8.0))
            .collect();
        let column_top = RISE * STEPS as f32 + 2.5;
        self.prism(&column, -0.5, &[column_top; 8]);
        for step in 0..STEPS {
            let a0 = step as f32 * STEP_ANGLE;
            let a1 = a0 + STEP_ANGLE;
            let top = RISE * (step + 1) as f32;
            let footprint = [at(INNER, a0), at(OUTER, a0), at(OUTER, a1), at(INNER, a1)];
            self.prism(&footprint, top - 0.2, &[top; 4]);
        }
        let end = STEPS as f32 * STEP_ANGLE;
        let top = RISE * STEPS as f32;
        let landing = [
            at(INNER, end),
            at(OUTER + 2.0, end),
            at(OUTER + 2.0, end + 0.6),
            at(INNER, end + 0.6),
        ];
        self.prism(&landing, top - 0.2, &[top; 4]);
    }

    /// [`spiral_ramp`]'s solids: the floor, the column, the ramp as 0.3 m thick segments (flat
    /// underneath) and a flat landing, all centred on the origin; the ramp starts at +x.
    fn spiral_ramp(&mut self, turns: usize, rise_per_turn: f32) {
        const INNER: f32 = 2.0;
        const OUTER: f32 = 8.0;
        const SEGMENTS_PER_TURN: usize = 32;
        const THICKNESS: f32 = 0.3;
        let segment_angle = std::f32::consts::TAU / SEGMENTS_PER_TURN as f32;
        let segment_rise = rise_per_turn / SEGMENTS_PER_TURN as f32;
        let at = |radius: f32, angle: f32| [radius * angle.cos(), radius * angle.sin()];
        let floor = OUTER + 6.0;
        self.cuboid([-floor, -0.5, -floor], [floor, 0.0, floor]);
        let top = rise_per_turn * turns as f32;
        let column: Vec<[f32; 2]> = (0..SEGMENTS_PER_TURN)
            .map(|i| at(INNER, i as f32 * segment_angle))
            .collect();
        self.prism(&column, -0.5, &[top; SEGMENTS_PER_TURN]);
        let ramp_segments = turns * SEGMENTS_PER_TURN;
        let landing_segments = SEGMENTS_PER_TURN / 4;
        for segment in 0..ramp_segments + landing_segments {
            let a0 = segment as f32 * segment_angle;
            let a1 = a0 + segment_angle;
            let [h0, h1] =
                [segment, segment + 1].map(|s| segment_rise * s.min(ramp_segments) as f32);
            let footprint = [at(INNER, a0), at(OUTER, a0), at(OUTER, a1), at(INNER, a1)];
            self.prism(&footprint, h0 - THICKNESS, &[h0, h0, h1, h1]);
        }
    }

    fn cuboid(&mut self, min: [f32; 3], max: [f32; 3]) {
        let footprint = [
            [min[0], min[2]],
            [max[0], min[2]],
            [max[0], max[2]],
            [min[0], max[2]],
        ];
        self.prism(&footprint, min[1], &[max[1]; 4]);
    }

    /// A solid over a convex footprint (any winding) from `bottom` up to a per-corner top height,
    /// with every face wound so its normal points out (Recast's walkable test reads the winding).
    fn prism(&mut self, footprint: &[[f32; 2]], bottom: f32, tops: &[f32]) {
        let n = footprint.len();
        let base = self.vert_index();
        for &[x, z] in footprint {
            self.verts.extend_from_slice(&[x, bottom, z]);
        }
        for (&[x, z], &top) in footprint.iter().zip(tops) {
            self.verts.extend_from_slice(&[x, top, z]);
        }
        let centroid = self.centroid(base, 2 * n);
        let low = |i: usize| base + i as i32;
        let high = |i: usize| base + (n + i) as i32;
        for i in 1..n - 1 {
            self.face(&[low(0), low(i), low(i + 1)], centroid);
            self.face(&[high(0), high(i), high(i + 1)], centroid);
        }
        for i in 0..n {
            let j = (i + 1) % n;
            self.face(&[low(i), low(j), high(j)], centroid);
            self.face(&[low(i), high(j), high(i)], centroid);
        }
    }

    /// Adds a triangle, flipped if needed so it faces away from `inside`. Degenerate triangles
    /// (a ramp's zero-height edge) are left out.
    fn face(&mut self, tri: &[i32; 3], inside: [f32; 3]) {
        let [a, b, c] = tri.map(|i| self.vertex(i));
        let normal = cross(sub(b, a), sub(c, a));
        if dot(normal, normal) < 1e-12 {
            return;
        }
        let centre = [
            (a[0] + b[0] + c[0]) / 3.0,
            (a[1] + b[1] + c[1]) / 3.0,
            (a[2] + b[2] + c[2]) / 3.0,
        ];
        if dot(normal, sub(centre, inside)) >= 0.0 {
            self.tris.extend_from_slice(tri);
        } else {
            self.tris.extend_from_slice(&[tri[0], tri[2], tri[1]]);
        }
    }

    fn vert_index(&self) -> i32 {
        (self.verts.len() / 3) as i32
    }

    fn vertex(&self, i: i32) -> [f32; 3] {
        let i = i as usize * 3;
        [self.verts[i], self.verts[i + 1], self.verts[i + 2]]
    }

    fn centroid(&self, first: i32, count: usize) -> [f32; 3] {
        let mut sum = [0.0; 3];
        for i in first..first + count as i32 {
            let v = self.vertex(i);
            for k in 0..3 {
                sum[k] += v[k];
            }
        }
        sum.map(|s| s / count as f32)
    }
}

fn sub(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scene_is_finite_and_bounded() {
        let mesh = default_scene();
        assert!(mesh.tri_count() > 100, "{} triangles", mesh.tri_count());
        assert!(mesh.verts.iter().all(|v| v.is_finite()));
        let (bmin, bmax) = mesh.bounds();
        assert_eq!(bmin, [-24.0, -0.5, -24.0]);
        assert_eq!([bmax[0], bmax[2]], [24.0, 24.0]);
        assert!((6.0..10.0).contains(&bmax[1]), "top at {}", bmax[1]);
    }

    #[test]
    fn faces_are_non_degenerate_with_walkable_and_steep_tops() {
        let mesh = default_scene();
        let normals: Vec<&[f32]> = mesh.normals.chunks_exact(3).collect();
        assert!(
            normals
                .iter()
                .all(|n| (n[0] * n[0] + n[1] * n[1] + n[2] * n[2] - 1.0).abs() < 1e-4)
        );
        let walkable_cos = 45f32.to_radians().cos();
        let up = normals.iter().filter(|n| n[1] > walkable_cos).count();
        let steep_up = normals
            .iter()
            .filter(|n| n[1] > 0.1 && n[1] <= walkable_cos)
            .count();
        assert!(up > 50, "{up} walkable-facing triangles");
        assert_eq!(steep_up, 2, "the too-steep wedge's top is two triangles");
    }

    #[test]
    fn ramp_top_faces_up_at_twenty_degrees() {
        let mesh = default_scene();
        let ramp_slope = (3.0f32 / 8.0).atan().cos();
        let ramp = mesh
            .normals
            .chunks_exact(3)
            .filter(|n| (n[1] - ramp_slope).abs() < 1e-4)
            .count();
        assert_eq!(ramp, 2);
    }

    #[test]
    fn terrain_is_repeatable_bounded_and_part_too_steep() {
        let mesh = terrain(100.0, 100);
        let again = terrain(100.0, 100);
        assert_eq!((&mesh.verts, &mesh.tris), (&again.verts, &again.tris));
        assert_eq!(mesh.tri_count(), 2 * 100 * 100);
        let (bmin, bmax) = mesh.bounds();
        assert_eq!(
            [bmin[0], bmin[2], bmax[0], bmax[2]],
            [0.0, 0.0, 100.0, 100.0]
        );
        assert!(bmin[1] > -10.0 && bmax[1] < 20.0, "{bmin:?} {bmax:?}");
        let walkable_cos = 45f32.to_radians().cos();
        let steep = mesh
            .normals
            .chunks_exact(3)
            .filter(|n| n[1] <= walkable_cos)
            .count();
        assert!(mesh.normals.chunks_exact(3).all(|n| n[1] > 0.0));
        let share = steep as f32 / mesh.tri_count() as f32;
        assert!(
            (0.05..0.3).contains(&share),
            "{share} of the ground too steep"
        );
    }

    #[test]
    fn spiral_ramp_is_repeatable_bounded_and_walkable_on_top() {
        let mesh = spiral_ramp(3, 4.0);
        let again = spiral_ramp(3, 4.0);
        assert_eq!((&mesh.verts, &mesh.tris), (&again.verts, &again.tris));
        assert!(mesh.tri_count() > 1000, "{} triangles", mesh.tri_count());
        let (bmin, bmax) = mesh.bounds();
        assert_eq!(bmin, [-14.0, -0.5, -14.0]);
        assert_eq!(bmax, [14.0, 12.0, 14.0]);
        // Every face is a floor, a wall or an underside: nothing in between, so all of the
        // ramp is walkable.
        let walkable_cos = 45f32.to_radians().cos();
        assert!(
            mesh.normals
                .chunks_exact(3)
                .all(|n| n[1] > walkable_cos || n[1].abs() < 1e-4 || n[1] < -walkable_cos)
        );
    }
}
