//! Temporary obstacle shapes and how they clear layer cells (`dtMarkCylinderArea` and both
//! `dtMarkBoxArea`s): cells inside the shape's footprint whose height lies in its vertical
//! range get the given area. Coordinates are world units; `orig` is the layer's `bmin`.

use super::work_layer::WorkLayer;

/// A temporary obstacle (`dtTileCacheObstacle`'s shapes).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ObstacleShape {
    /// Upright cylinder standing on `pos`.
    Cylinder {
        /// Centre of its base, world units.
        pos: [f32; 3],
        /// Radius, world units.
        radius: f32,
        /// Height, world units.
        height: f32,
    },
    /// Axis-aligned box.
    Box {
        /// Minimum corner, world units.
        bmin: [f32; 3],
        /// Maximum corner.
        bmax: [f32; 3],
    },
    /// Box turned about the y axis; `rot_aux` is (sin, cos) of half the y rotation,
    /// as `dtTileCache::addBoxObstacle` stores it.
    OrientedBox {
        /// Centre, world units.
        center: [f32; 3],
        /// Half its size along each axis before turning.
        half_extents: [f32; 3],
        /// (sin, cos) of half the rotation about y.
        rot_aux: [f32; 2],
    },
}

impl ObstacleShape {
    /// An oriented box rotated by `y_radians` about the y axis, with C++'s auxiliary terms.
    pub fn oriented_box(center: [f32; 3], half_extents: [f32; 3], y_radians: f32) -> Self {
        let cos_half = (0.5 * y_radians).cos();
        let sin_half = (-0.5 * y_radians).sin();
        Self::OrientedBox {
            center,
            half_extents,
            rot_aux: [cos_half * sin_half, cos_half * cos_half - 0.5],
        }
    }

    /// The world box the shape can touch (`getObstacleBounds`), to find its layers.
    pub fn bounds(&self) -> ([f32; 3], [f32; 3]) {
        match *self {
            Self::Cylinder {
                pos,
                radius,
                height,
            } => (
                [pos[0] - radius, pos[1], pos[2] - radius],
                [pos[0] + radius, pos[1] + height, pos[2] + radius],
            ),
            Self::Box { bmin, bmax } => (bmin, bmax),
            Self::OrientedBox {
                center,
                half_extents,
                ..
            } => {
                let max_r = 1.41 * half_extents[0].max(half_extents[2]);
                (
                    [
                        center[0] - max_r,
                        center[1] - half_extents[1],
                        center[2] - max_r,
                    ],
                    [
                        center[0] + max_r,
                        center[1] + half_extents[1],
                        center[2] + max_r,
                    ],
                )
            }
        }
    }

    /// Sets `area` on the cells of `layer` this shape covers.
    pub(crate) fn mark(&self, layer: &mut WorkLayer, orig: [f32; 3], cs: f32, ch: f32, area: u8) {
        let ics = 1.0 / cs;
        let ich = 1.0 / ch;
        let cell = |v: f32| v.floor() as i32;
        match *self {
            Self::Cylinder {
                pos,
                radius,
                height,
            } => {
                let r2 = (radius / cs + 0.5) * (radius / cs + 0.5);
                let px = (pos[0] - orig[0]) * ics;
                let pz = (pos[2] - orig[2]) * ics;
                let footprint = [
                    cell((pos[0] - radius - orig[0]) * ics),
                    cell((pos[0] + radius - orig[0]) * ics),
                    cell((pos[2] - radius - orig[2]) * ics),
                    cell((pos[2] + radius - orig[2]) * ics),
                ];
                let heights = [
                    cell((pos[1] - orig[1]) * ich),
                    cell((pos[1] + height - orig[1]) * ich),
                ];
                mark_cells(layer, footprint, heights, area, |x, z| {
                    let dx = x as f32 + 0.5 - px;
                    let dz = z as f32 + 0.5 - pz;
                    dx * dx + dz * dz <= r2
                });
            }
            Self::Box { bmin, bmax } => {
                let footprint = [
                    cell((bmin[0] - orig[0]) * ics),
                    cell((bmax[0] - orig[0]) * ics),
                    cell((bmin[2] - orig[2]) * ics),
                    cell((bmax[2] - orig[2]) * ics),
                ];
                let heights = [
                    cell((bmin[1] - orig[1]) * ich),
                    cell((bmax[1] - orig[1]) * ich),
                ];
                mark_cells(layer, footprint, heights, area, |_, _| true);
            }
            Self::OrientedBox {
                center,
                half_extents,
                rot_aux,
            } => {
                let cx = (center[0] - orig[0]) * ics;
                let cz = (center[2] - orig[2]) * ics;
                let max_r = 1.41 * half_extents[0].max(half_extents[2]);
                let footprint = [
                    cell(cx - max_r * ics),
                    cell(cx + max_r * ics),
                    cell(cz - max_r * ics),
                    cell(cz + max_r * ics),
                ];
                let heights = [
                    cell((center[1] - half_extents[1] - orig[1]) * ich),
                    cell((center[1] + half_extents[1] - orig[1]) * ich),
                ];
                let x_half = half_extents[0] * ics + 0.5;
                let z_half = half_extents[2] * ics + 0.5;
                mark_cells(layer, footprint, heights, area, |x, z| {
                    let x2 = 2.0 * (x as f32 - cx);
                    let z2 = 2.0 * (z as f32 - cz);
                    let x_rot = rot_aux[1] * x2 + rot_aux[0] * z2;
                    if x_rot > x_half || x_rot < -x_half {
                        return false;
                    }
                    let z_rot = rot_aux[1] * z2 - rot_aux[0] * x2;
                    !(z_rot > z_half || z_rot < -z_half)
                });
            }
        }
    }
}

/// Marks the cells of the inclusive cell rectangle `[minx, maxx, minz, maxz]` (clipped to the
/// layer) that `inside` accepts and whose height lies in `[miny, maxy]`.
fn mark_cells(
    layer: &mut WorkLayer,
    [minx, maxx, minz, maxz]: [i32; 4],
    [miny, maxy]: [i32; 2],
    area: u8,
    inside: impl Fn(i32, i32) -> bool,
) {
    let (w, h) = (layer.width as i32, layer.height as i32);
    if maxx < 0 || minx >= w || maxz < 0 || minz >= h {
        return;
    }
    for z in minz.max(0)..=maxz.min(h - 1) {
        for x in minx.max(0)..=maxx.min(w - 1) {
            if !inside(x, z) {
                continue;
            }
            let idx = (x + z * w) as usize;
            let y = i32::from(layer.heights[idx]);
            if y < miny || y > maxy {
                continue;
            }
            layer.areas[idx] = area;
        }
    }
}
