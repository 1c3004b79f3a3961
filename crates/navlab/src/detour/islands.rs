//! A navmesh's islands: its connected components, joined through every link (neighbours in a
//! tile, portals between tiles, off-mesh connections), whatever the polygons' flags and areas.
//!
//! A one-way off-mesh connection joins its two ends into one island: islands answer "which
//! parts of the level does this build tie together", not "can an agent get back". Islands are
//! numbered by surface area, largest first, so island 0 is the level's main walkable part;
//! ties keep the order of their first polygon (tile slot, then polygon index).

use crate::detour::{MeshTile, NavMesh, PolyRef, PolyType};

/// One connected component of the navmesh.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Island {
    /// Polygons in it, off-mesh connections included.
    pub polys: usize,
    /// Its surface in m²: the detail triangles' areas (off-mesh connections add none).
    pub area: f64,
}

/// Every polygon's island, and the islands by decreasing area.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Islands {
    /// Island index per polygon of every tile slot (empty for a slot without a tile).
    per_slot: Vec<Vec<u32>>,
    /// The islands, largest surface first.
    pub islands: Vec<Island>,
}

impl Islands {
    /// The islands of `mesh` as it is now (a tile added or removed later is not seen).
    pub fn of(mesh: &NavMesh) -> Self {
        let mut first_index = Vec::new();
        let mut total = 0usize;
        for slot in 0..mesh.max_tiles() {
            first_index.push(total);
            total += mesh.tile(slot).map_or(0, MeshTile::poly_count);
        }
        let mut parent: Vec<usize> = (0..total).collect();
        let index_of = |poly: PolyRef| {
            let (slot, index) = mesh.poly_location(poly).ok()?;
            Some(first_index[slot] + index)
        };
        for (tile_ref, tile) in mesh.tiles() {
            let slot = mesh.decode_poly_id_tile(tile_ref) as usize;
            for poly in 0..tile.poly_count() {
                let here = first_index[slot] + poly;
                for (_, link) in tile.poly_links(poly) {
                    if let Some(there) = index_of(link.neighbour) {
                        union(&mut parent, here, there);
                    }
                }
            }
        }
        // Components in the order of their first polygon, with their sizes.
        let mut component_of_root = vec![u32::MAX; total];
        let mut components: Vec<Island> = Vec::new();
        let mut per_slot = Vec::with_capacity(mesh.max_tiles());
        for (slot, &first) in first_index.iter().enumerate() {
            let Some(tile) = mesh.tile(slot) else {
                per_slot.push(Vec::new());
                continue;
            };
            let mut ids = Vec::with_capacity(tile.poly_count());
            for poly in 0..tile.poly_count() {
                let root = find(&mut parent, first + poly);
                if component_of_root[root] == u32::MAX {
                    component_of_root[root] = components.len() as u32;
                    components.push(Island::default());
                }
                let id = component_of_root[root];
                let island = &mut components[id as usize];
                island.polys += 1;
                island.area += poly_surface_area(tile, poly);
                ids.push(id);
            }
            per_slot.push(ids);
        }
        // Renumber by decreasing area; the sort is stable, so ties keep first-polygon order.
        let mut order: Vec<usize> = (0..components.len()).collect();
        order.sort_by(|&a, &b| components[b].area.total_cmp(&components[a].area));
        let mut rank = vec![0u32; components.len()];
        for (new, &old) in order.iter().enumerate() {
            rank[old] = new as u32;
        }
        for ids in &mut per_slot {
            for id in ids.iter_mut() {
                *id = rank[*id as usize];
            }
        }
        Self {
            per_slot,
            islands: order.iter().map(|&old| components[old]).collect(),
        }
    }

    /// How many islands there are.
    pub fn len(&self) -> usize {
        self.islands.len()
    }

    /// Whether the navmesh has no polygon.
    pub fn is_empty(&self) -> bool {
        self.islands.is_empty()
    }

    /// The island (0 = largest) holding `poly`, if it is a polygon of the mesh the islands were
    /// found on.
    pub fn island_of(&self, mesh: &NavMesh, poly: PolyRef) -> Option<usize> {
        let (slot, index) = mesh.poly_location(poly).ok()?;
        self.per_slot.get(slot)?.get(index).map(|&id| id as usize)
    }

    /// The whole navmesh's surface in m² (every island's).
    pub fn total_area(&self) -> f64 {
        self.islands.iter().map(|island| island.area).sum()
    }
}

/// A polygon's surface in m²: the sum of its detail triangles' areas (zero for an off-mesh
/// connection, which has none).
pub fn poly_surface_area(tile: &MeshTile, poly: usize) -> f64 {
    if tile
        .polys()
        .get(poly)
        .is_none_or(|p| p.poly_type() == PolyType::OffMeshConnection)
    {
        return 0.0;
    }
    (0..)
        .map_while(|tri| tile.detail_tri_vertices(poly, tri))
        .map(|[a, b, c]| {
            let u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]].map(f64::from);
            let v = [c[0] - a[0], c[1] - a[1], c[2] - a[2]].map(f64::from);
            let cross = [
                u[1] * v[2] - u[2] * v[1],
                u[2] * v[0] - u[0] * v[2],
                u[0] * v[1] - u[1] * v[0],
            ];
            0.5 * (cross[0] * cross[0] + cross[1] * cross[1] + cross[2] * cross[2]).sqrt()
        })
        .sum()
}

fn find(parent: &mut [usize], mut i: usize) -> usize {
    while parent[i] != i {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    i
}

fn union(parent: &mut [usize], a: usize, b: usize) {
    let (ra, rb) = (find(parent, a), find(parent, b));
    if ra != rb {
        parent[ra.max(rb)] = ra.min(rb);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::bake::settings::BuildSettings;
    use crate::bake::solo::Build;
    use crate::input::obj::TriMesh;

    /// Two 10 m × 10 m floors 20 m apart, and a third at another height far away.
    fn three_floors() -> TriMesh {
        let mut verts = Vec::new();
        let mut tris = Vec::new();
        for (x, y) in [(0.0f32, 0.0f32), (20.0, 0.0), (40.0, 3.0)] {
            let base = (verts.len() / 3) as i32;
            for (dx, dz) in [(0.0, 0.0), (0.0, 10.0), (10.0, 10.0), (10.0, 0.0)] {
                verts.extend([x + dx, y, dz]);
            }
            tris.extend([base, base + 1, base + 2, base, base + 2, base + 3]);
        }
        TriMesh::from_parts(verts, tris).unwrap()
    }

    #[test]
    fn separate_floors_are_separate_islands_and_their_areas_add_up() {
        let build = Build::new(Arc::new(three_floors()), BuildSettings::default()).unwrap();
        let mesh = build.nav_mesh.as_deref().unwrap();
        let islands = Islands::of(mesh);
        assert_eq!(islands.len(), 3);
        // Each floor loses a margin of about the agent radius all round.
        for island in &islands.islands {
            assert!((60.0..81.0).contains(&island.area), "{island:?}");
        }
        let (tile_ref, tile) = mesh.tiles().next().unwrap();
        let every_poly: Vec<usize> = (0..tile.poly_count())
            .map(|p| islands.island_of(mesh, tile_ref | p as PolyRef).unwrap())
            .collect();
        assert_eq!(
            every_poly.iter().copied().max(),
            Some(2),
            "every island has a polygon"
        );
        let sum: f64 = (0..tile.poly_count())
            .map(|p| poly_surface_area(tile, p))
            .sum();
        assert!((islands.total_area() - sum).abs() < 1e-9);
        assert!(islands.islands.windows(2).all(|w| w[0].area >= w[1].area));
    }
}
