//! Small hand-made navmeshes for the crowd's unit tests: a grid of 1 × 1 square polygons on
//! the y = 0 plane, some cells left out, optionally joined by off-mesh connections.

use crate::detour::nav_mesh_builder::NavMeshCreateParams;
use crate::detour::{NavMesh, OffMeshConnectionParams, PolyRef, RefWidth, create_nav_mesh_data};

/// Flag of every cell polygon.
pub const WALK: u16 = 1;
/// Flag of the cells listed in [`GridMesh::swim`].
pub const SWIM: u16 = 2;
/// Flag of off-mesh connections.
pub const JUMP: u16 = 4;

/// A grid navmesh: `cols` × `rows` cells, `cells[z][x]` true where a polygon exists.
pub struct GridMesh {
    pub nav: NavMesh,
    cols: usize,
    /// Polygon index of each cell, in row order, `None` for a hole.
    index: Vec<Option<usize>>,
}

impl GridMesh {
    /// The mesh of `rows` strings of `'#'` (walk), `'~'` (swim) and `'.'` (hole), row z = 0
    /// first, with off-mesh connections `links` (flag [`JUMP`]).
    pub fn new(rows: &[&str], links: &[([f32; 3], [f32; 3])]) -> GridMesh {
        let nz = rows.len();
        let nx = rows[0].len();
        let cell = |x: i64, z: i64| -> Option<u8> {
            if x < 0 || z < 0 || x >= nx as i64 || z >= nz as i64 {
                return None;
            }
            match rows[z as usize].as_bytes()[x as usize] {
                b'.' => None,
                c => Some(c),
            }
        };
        let mut index = vec![None; nx * nz];
        let mut count = 0;
        for z in 0..nz {
            for x in 0..nx {
                if cell(x as i64, z as i64).is_some() {
                    index[z * nx + x] = Some(count);
                    count += 1;
                }
            }
        }
        let vert = |x: usize, z: usize| (z * (nx + 1) + x) as u16;
        let mut verts = Vec::new();
        for z in 0..=nz {
            for x in 0..=nx {
                verts.extend_from_slice(&[x as u16, 0, z as u16]);
            }
        }
        let nvp = 6;
        let mut polys = Vec::new();
        let mut flags = Vec::new();
        for z in 0..nz {
            for x in 0..nx {
                let Some(c) = cell(x as i64, z as i64) else {
                    continue;
                };
                let corners = [
                    vert(x, z),
                    vert(x, z + 1),
                    vert(x + 1, z + 1),
                    vert(x + 1, z),
                ];
                let (xi, zi) = (x as i64, z as i64);
                let sides = [(xi - 1, zi), (xi, zi + 1), (xi + 1, zi), (xi, zi - 1)];
                let neighbour = |(sx, sz): (i64, i64)| match cell(sx, sz) {
                    Some(_) => index[sz as usize * nx + sx as usize].map_or(0xffff, |i| i as u16),
                    None => 0xffff,
                };
                polys.extend_from_slice(&corners);
                polys.extend_from_slice(&[0xffff; 2]);
                polys.extend(sides.map(neighbour));
                polys.extend_from_slice(&[0xffff; 2]);
                flags.push(if c == b'~' { SWIM } else { WALK });
            }
        }
        let areas = vec![0u8; flags.len()];
        let off_mesh: Vec<OffMeshConnectionParams> = links
            .iter()
            .enumerate()
            .map(|(i, &(start, end))| OffMeshConnectionParams {
                start,
                end,
                radius: 0.3,
                bidirectional: true,
                area: 0,
                flags: JUMP,
                user_id: 1000 + i as u32,
            })
            .collect();
        let params = NavMeshCreateParams {
            verts: &verts,
            polys: &polys,
            poly_flags: &flags,
            poly_areas: &areas,
            nvp,
            detail: None,
            off_mesh_connections: &off_mesh,
            user_id: 0,
            tile_x: 0,
            tile_y: 0,
            tile_layer: 0,
            bmin: [0.0, 0.0, 0.0],
            bmax: [nx as f32, 1.0, nz as f32],
            walkable_height: 2.0,
            walkable_radius: 0.3,
            walkable_climb: 0.5,
            cs: 1.0,
            ch: 1.0,
            build_bv_tree: true,
        };
        let tile = create_nav_mesh_data(&params).expect("valid grid tile");
        let nav = NavMesh::new_solo(tile, RefWidth::Bits32).expect("one-tile navmesh");
        GridMesh {
            nav,
            cols: nx,
            index,
        }
    }

    /// The polygon of cell (`x`, `z`).
    pub fn poly(&self, x: usize, z: usize) -> PolyRef {
        let i = self.index[z * self.cols + x].expect("cell has a polygon");
        self.nav.poly_ref_base(0) | i as PolyRef
    }

    /// The polygon of off-mesh connection `k`: they follow the cell polygons.
    pub fn link(&self, k: usize) -> PolyRef {
        let cells = self.index.iter().flatten().count();
        self.nav.poly_ref_base(0) | (cells + k) as PolyRef
    }
}
