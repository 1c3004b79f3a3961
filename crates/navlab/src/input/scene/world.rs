//! [`world`]: an open world of many square kilometres for bakes past one 32-bit navmesh's tile
//! cap, split over a batch engine (`docs/world-bake.md`). It is made of the other scenes:
//! rolling ground in the manner of [`terrain`](super::terrain) but at a fixed scale (its hills
//! keep their size however large the world), [`city`] grids as districts and [`garage`] floors
//! joined by a [`spiral_ramp`], each on a flat pad cut into the ground.

use std::f32::consts::TAU;

use super::{SplitMix64, city, garage, height_field, spiral_ramp};
use crate::input::obj::TriMesh;

/// Spacing of the world's terrain grid, metres: ten times the 2 m agent's height, so the
/// ground of a 10 km world is 2 million triangles.
pub const WORLD_GRID_STEP: f32 = 10.0;
/// Smallest world side, metres: one district and one garage, each with its pad and the slope
/// down to the ground around it, fit in the smallest site grid (2 × 2 sites).
pub const WORLD_MIN_SIZE: f32 = 300.0;
/// Largest world side, metres: 20 km is 8 million terrain triangles, an OBJ of about 500 MB.
pub const WORLD_MAX_SIZE: f32 = 20_000.0;

/// Side of one site of the world's layout, metres, where the world is large enough: each site
/// holds a district, a garage or open ground.
const SITE_SIZE: f32 = 2000.0;
/// Share of the sites without a garage that get a district.
const DISTRICT_SHARE: f32 = 0.6;
/// Widest district, metres (75 city blocks).
const MAX_DISTRICT: f32 = 900.0;
/// Storey height of a garage and rise of one turn of its ramp, metres: 3.5 m of headroom.
const GARAGE_STOREY: f32 = 4.0;
/// Width of a garage's floors, metres.
const GARAGE_WIDTH: f32 = 40.0;
/// The spiral ramp's floor reaches this far from the ramp's centre ([`spiral_ramp`]).
const RAMP_FLOOR_HALF: f32 = 14.0;
/// The garage's floors start this far east of the ramp's centre, inside the ramp's 8 m outer
/// edge, so that each turn of the ramp runs onto the floor at its height.
const GARAGE_FROM_RAMP: f32 = 6.0;
/// Ground around a pad flattened with it, metres: one and a half grid steps, so every terrain
/// triangle that reaches under a pad's buildings is flat.
const FLAT_MARGIN: f32 = 1.5 * WORLD_GRID_STEP;
/// Rolling ground: wavelength and amplitude (metres) of each octave, two waves each; their
/// steepest sum is about 27°, walkable.
const OCTAVES: [(f32, f32); 4] = [(1800.0, 18.0), (650.0, 7.0), (230.0, 2.5), (85.0, 0.8)];
/// Area of ground per mesa, square metres.
const AREA_PER_MESA: f32 = 1600.0 * 1600.0;

/// A `size` × `size` metre world from the origin (x and z from 0 to `size`, y up), the same
/// triangles for the same `size` and `seed`:
/// - rolling ground on a [`WORLD_GRID_STEP`] grid, with mesas whose flanks are mostly steeper
///   than RecastDemo's 45°, so their tops are islands the agent cannot walk up to;
/// - a layout of 2 km sites (2 × 2 sites at least): one or two garages (one below 1 km), each
///   three to five storeys whose floors a spiral ramp joins, and districts of 12 m city blocks
///   ([`city`], 24 m to 900 m across) on most of the other sites; each stands on a flat pad
///   sloping back to the ground around it.
///
/// # Panics
///
/// When `size` is outside [`WORLD_MIN_SIZE`]`..=`[`WORLD_MAX_SIZE`] (or not a number).
pub fn world(size: f32, seed: u64) -> TriMesh {
    assert!(
        (WORLD_MIN_SIZE..=WORLD_MAX_SIZE).contains(&size),
        "world size {size} m is outside {WORLD_MIN_SIZE}..={WORLD_MAX_SIZE} m"
    );
    let mut random = SplitMix64(seed);
    let relief = Relief::new(size, &mut random);
    let sites = layout(size, &relief, &mut random);
    let cells = (size / WORLD_GRID_STEP).ceil() as usize;
    let (mut verts, mut tris) = height_field(size, cells, |x, z| ground(&relief, &sites, x, z));
    for site in &sites {
        site.add_buildings(&mut verts, &mut tris);
    }
    TriMesh::from_parts(verts, tris).expect("the generated world is valid")
}

impl SplitMix64 {
    /// Uniform in `low..high`.
    fn between(&mut self, low: f32, high: f32) -> f32 {
        low + (high - low) * self.unit()
    }
}

/// The ground before the pads: waves and mesas.
struct Relief {
    waves: Vec<Wave>,
    mesas: Vec<Mesa>,
}

/// One sine wave of the rolling ground, along a direction.
struct Wave {
    direction: [f32; 2],
    wavelength: f32,
    amplitude: f32,
    phase: f32,
}

/// A round flat-topped hill with steep flanks.
struct Mesa {
    centre: [f32; 2],
    radius: f32,
    height: f32,
    flank: f32,
}

impl Relief {
    fn new(size: f32, random: &mut SplitMix64) -> Self {
        let mut waves = Vec::new();
        for (wavelength, amplitude) in OCTAVES {
            for _ in 0..2 {
                let angle = random.between(0.0, TAU);
                waves.push(Wave {
                    direction: [angle.cos(), angle.sin()],
                    wavelength,
                    amplitude,
                    phase: random.between(0.0, TAU),
                });
            }
        }
        let count = ((size * size / AREA_PER_MESA).round() as usize).max(2);
        let mesas = (0..count)
            .map(|_| {
                let height = random.between(15.0, 45.0);
                Mesa {
                    centre: [random.between(0.0, size), random.between(0.0, size)],
                    radius: random.between(40.0, 160.0).min(size * 0.08),
                    height,
                    // A mean slope of 2.5 (68°) across the flank.
                    flank: height / 2.5,
                }
            })
            .collect();
        Self { waves, mesas }
    }

    /// The rolling ground alone, which sets a pad's height.
    fn rolling(&self, x: f32, z: f32) -> f32 {
        self.waves
            .iter()
            .map(|w| {
                let along = w.direction[0] * x + w.direction[1] * z;
                w.amplitude * (TAU * along / w.wavelength + w.phase).sin()
            })
            .sum()
    }

    fn height(&self, x: f32, z: f32) -> f32 {
        let mesas: f32 = self
            .mesas
            .iter()
            .map(|m| {
                let distance = (x - m.centre[0]).hypot(z - m.centre[1]);
                m.height * smoothstep((m.radius + m.flank - distance) / m.flank)
            })
            .sum();
        self.rolling(x, z) + mesas
    }
}

/// `3t² − 2t³` of `t` clamped to `0..1`.
fn smoothstep(t: f32) -> f32 {
    let t = t.clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// What stands on a site's pad.
enum Building {
    /// A square of `blocks` × `blocks` city blocks.
    District { blocks: usize },
    /// A garage of `floors` floors and its ramp.
    Garage { floors: usize },
}

/// A flat pad and what stands on it.
struct Site {
    building: Building,
    /// The pad's corners in x and z (the buildings' footprint).
    min: [f32; 2],
    max: [f32; 2],
    height: f32,
    /// Width of the slope from the flattened margin back to the ground, metres.
    blend: f32,
}

/// The sites of a `size` world: a grid of sites 2 km wide (at least 2 × 2), one or two of them
/// garages, most others districts, at least one district; each footprint at a random place
/// inside its site, far enough from the site's edge for its slope.
fn layout(size: f32, relief: &Relief, random: &mut SplitMix64) -> Vec<Site> {
    let per_side = ((size / SITE_SIZE).round() as usize).max(2);
    let site_size = size / per_side as f32;
    let blend = (0.15 * site_size).min(120.0);
    let margin = FLAT_MARGIN + blend;
    let room = site_size - 2.0 * margin;
    let site_count = per_side * per_side;
    let garage_count = if size < 1000.0 { 1 } else { 2 };
    let mut garages = Vec::new();
    while garages.len() < garage_count {
        let site = (random.next() % site_count as u64) as usize;
        if !garages.contains(&site) {
            garages.push(site);
        }
    }
    let mut districts: Vec<bool> = (0..site_count)
        .map(|site| !garages.contains(&site) && random.unit() < DISTRICT_SHARE)
        .collect();
    if !districts.contains(&true) {
        let first_open = (0..site_count).find(|site| !garages.contains(site));
        districts[first_open.expect("a 2 × 2 grid has sites beside two garages")] = true;
    }
    let mut sites = Vec::new();
    for (site, &district) in districts.iter().enumerate() {
        let corner = [
            (site % per_side) as f32 * site_size,
            (site / per_side) as f32 * site_size,
        ];
        let (building, footprint) = if garages.contains(&site) {
            let floors = 3 + (random.next() % 3) as usize;
            let width = RAMP_FLOOR_HALF + GARAGE_FROM_RAMP + GARAGE_WIDTH;
            (Building::Garage { floors }, [width, GARAGE_WIDTH])
        } else if district {
            let side = (random.between(0.25, 0.5) * room).min(MAX_DISTRICT);
            let blocks = ((side / 12.0) as usize).max(2);
            let side = blocks as f32 * 12.0;
            (Building::District { blocks }, [side, side])
        } else {
            continue;
        };
        let min =
            [0, 1].map(|k| corner[k] + margin + random.unit() * (room - footprint[k]).max(0.0));
        let max = [min[0] + footprint[0], min[1] + footprint[1]];
        let centre = [(min[0] + max[0]) / 2.0, (min[1] + max[1]) / 2.0];
        sites.push(Site {
            building,
            min,
            max,
            height: relief.rolling(centre[0], centre[1]),
            blend,
        });
    }
    sites
}

/// The ground at (`x`, `z`): the relief, flattened to the nearest pad's height within its
/// margin and blended back to the relief across its slope.
fn ground(relief: &Relief, sites: &[Site], x: f32, z: f32) -> f32 {
    let mut pull: Option<(f32, f32)> = None;
    for site in sites {
        let dx = (site.min[0] - x).max(x - site.max[0]).max(0.0);
        let dz = (site.min[1] - z).max(z - site.max[1]).max(0.0);
        let beyond = dx.hypot(dz) - FLAT_MARGIN;
        if beyond <= 0.0 {
            return site.height;
        }
        let weight = 1.0 - smoothstep(beyond / site.blend);
        if weight > pull.map_or(0.0, |(w, _)| w) {
            pull = Some((weight, site.height));
        }
    }
    let natural = relief.height(x, z);
    match pull {
        Some((weight, height)) => natural + (height - natural) * weight,
        None => natural,
    }
}

impl Site {
    /// Appends the site's buildings, standing on its pad.
    fn add_buildings(&self, verts: &mut Vec<f32>, tris: &mut Vec<i32>) {
        let [x, z] = self.min;
        match self.building {
            Building::District { blocks } => {
                append(verts, tris, &city(blocks), [x, self.height, z]);
            }
            Building::Garage { floors } => {
                let ramp_x = x + RAMP_FLOOR_HALF;
                let ramp_z = z + GARAGE_WIDTH / 2.0;
                let ramp = spiral_ramp(floors - 1, GARAGE_STOREY);
                append(verts, tris, &ramp, [ramp_x, self.height, ramp_z]);
                let floors = garage(floors, GARAGE_WIDTH, GARAGE_STOREY);
                let origin = [ramp_x + GARAGE_FROM_RAMP, self.height, z];
                append(verts, tris, &floors, origin);
            }
        }
    }
}

/// Appends `mesh` moved by `offset`.
fn append(verts: &mut Vec<f32>, tris: &mut Vec<i32>, mesh: &TriMesh, offset: [f32; 3]) {
    let base = (verts.len() / 3) as i32;
    for v in mesh.verts.chunks_exact(3) {
        verts.extend_from_slice(&[v[0] + offset[0], v[1] + offset[1], v[2] + offset[2]]);
    }
    tris.extend(mesh.tris.iter().map(|&i| i + base));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn world_is_repeatable_bounded_and_mixed() {
        let mesh = world(600.0, 7);
        let again = world(600.0, 7);
        assert_eq!((&mesh.verts, &mesh.tris), (&again.verts, &again.tris));
        let other = world(600.0, 8);
        assert_ne!(mesh.verts, other.verts);
        let (bmin, bmax) = mesh.bounds();
        assert_eq!([bmin[0], bmin[2]], [0.0, 0.0]);
        assert_eq!([bmax[0], bmax[2]], [600.0, 600.0]);
        assert!(bmin[1] > -80.0 && bmax[1] < 150.0, "{bmin:?} {bmax:?}");
        let terrain_tris = 2 * 60 * 60;
        assert!(mesh.tri_count() > terrain_tris, "no buildings");
        let walkable_cos = 45f32.to_radians().cos();
        let normals: Vec<&[f32]> = mesh.normals.chunks_exact(3).collect();
        let ground = &normals[..terrain_tris];
        assert!(ground.iter().all(|n| n[1] > 0.0));
        let steep = ground.iter().filter(|n| n[1] <= walkable_cos).count();
        assert!(steep > 10, "{steep} steep ground triangles");
        let flat = ground.iter().filter(|n| n[1] == 1.0).count();
        assert!(flat > 100, "{flat} flat ground triangles: no pads");
    }

    #[test]
    fn pads_hold_a_garage_and_a_district_apart() {
        for (size, garages) in [(WORLD_MIN_SIZE, 1), (2000.0, 2)] {
            let mut random = SplitMix64(3);
            let relief = Relief::new(size, &mut random);
            let sites = layout(size, &relief, &mut random);
            let count = |garage: bool| {
                let is_garage = |s: &&Site| matches!(s.building, Building::Garage { .. });
                sites.iter().filter(|s| is_garage(s) == garage).count()
            };
            assert_eq!(count(true), garages);
            assert!(count(false) >= 1);
            for (i, a) in sites.iter().enumerate() {
                assert!(
                    a.min
                        .iter()
                        .chain(&a.max)
                        .all(|&c| (0.0..=size).contains(&c))
                );
                for b in &sites[i + 1..] {
                    let apart = (0..2).any(|k| a.max[k] < b.min[k] || b.max[k] < a.min[k]);
                    assert!(apart, "pads overlap");
                }
            }
        }
    }
}
