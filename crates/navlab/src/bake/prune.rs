//! RecastDemo's Prune Navmesh tool as a library: flood the polygons reachable from seed polygons
//! through every link (neighbours in a tile, portals between tiles, off-mesh connections), then
//! disable the rest with RecastDemo's DISABLED flag. Queries with the sample filter then avoid
//! them, and the MSET file keeps the flags, so an exported navmesh stays pruned.
//!
//! Several seeds (spawn points) add up, as repeated clicks do in RecastDemo.

use crate::bake::sample_areas::flags::DISABLED;
use crate::detour::{NavMesh, PolyRef};

/// Which polygons the floods have reached, one flag per polygon of every tile slot.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Reachable {
    per_slot: Vec<Vec<bool>>,
    count: usize,
}

/// What pruning did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PruneCounts {
    /// Polygons left as they were (reached by a flood).
    pub kept: usize,
    /// Polygons that got the DISABLED flag.
    pub disabled: usize,
}

impl Reachable {
    /// Nothing reached yet on `mesh`.
    pub fn new(mesh: &NavMesh) -> Self {
        let mut per_slot = Vec::new();
        for (tile_ref, tile) in mesh.tiles() {
            let slot = mesh.decode_poly_id_tile(tile_ref) as usize;
            if per_slot.len() <= slot {
                per_slot.resize(slot + 1, Vec::new());
            }
            per_slot[slot] = vec![false; tile.poly_count()];
        }
        Self { per_slot, count: 0 }
    }

    /// How many polygons have been reached.
    pub fn count(&self) -> usize {
        self.count
    }

    /// Forgets every flood (RecastDemo's Clear Selection).
    pub fn clear(&mut self) {
        self.per_slot.iter_mut().for_each(|slot| slot.fill(false));
        self.count = 0;
    }

    /// Whether a flood reached `poly`.
    pub fn contains(&self, mesh: &NavMesh, poly: PolyRef) -> bool {
        self.flag(mesh, poly).is_some_and(|reached| *reached)
    }

    fn flag<'a>(&'a self, mesh: &NavMesh, poly: PolyRef) -> Option<&'a bool> {
        let (slot, index) = mesh.poly_location(poly).ok()?;
        self.per_slot.get(slot)?.get(index)
    }

    /// Marks `poly` reached; returns false if it already was or is not on this mesh.
    fn mark(&mut self, mesh: &NavMesh, poly: PolyRef) -> bool {
        let Ok((slot, index)) = mesh.poly_location(poly) else {
            return false;
        };
        match self.per_slot.get_mut(slot).and_then(|s| s.get_mut(index)) {
            Some(reached) if !*reached => {
                *reached = true;
                self.count += 1;
                true
            }
            _ => false,
        }
    }

    /// Floods from `start` through every link, whatever the polygons' flags and areas (as
    /// RecastDemo's `floodNavmesh` does). Returns how many polygons this flood added; an invalid
    /// or already reached start adds none.
    pub fn flood(&mut self, mesh: &NavMesh, start: PolyRef) -> usize {
        let before = self.count;
        if !self.mark(mesh, start) {
            return 0;
        }
        let mut open = vec![start];
        while let Some(poly) = open.pop() {
            let Ok((slot, index)) = mesh.poly_location(poly) else {
                continue;
            };
            let Some(tile) = mesh.tile(slot) else {
                continue;
            };
            for (_, link) in tile.poly_links(index) {
                if link.neighbour != 0 && self.mark(mesh, link.neighbour) {
                    open.push(link.neighbour);
                }
            }
        }
        self.count - before
    }

    /// Every reached polygon, tile slot by slot.
    pub fn polys<'a>(&'a self, mesh: &'a NavMesh) -> impl Iterator<Item = PolyRef> + 'a {
        self.per_slot
            .iter()
            .enumerate()
            .flat_map(move |(slot, flags)| {
                let base = mesh.poly_ref_base(slot);
                flags
                    .iter()
                    .enumerate()
                    .filter(|(_, reached)| **reached)
                    .map(move |(index, _)| base | index as PolyRef)
            })
    }
}

/// Adds the DISABLED flag to every polygon no flood reached (RecastDemo's Prune Unselected).
/// Polygons of tiles added after `reachable` was made count as unreached.
pub fn disable_unreachable(mesh: &mut NavMesh, reachable: &Reachable) -> PruneCounts {
    let mut unreached = Vec::new();
    let mut counts = PruneCounts::default();
    for (tile_ref, tile) in mesh.tiles() {
        for index in 0..tile.poly_count() {
            let poly = tile_ref | index as PolyRef;
            if reachable.contains(mesh, poly) {
                counts.kept += 1;
            } else {
                unreached.push((poly, tile.polys()[index].flags));
            }
        }
    }
    for (poly, flags) in unreached {
        if mesh.set_poly_flags(poly, flags | DISABLED).is_ok() {
            counts.disabled += 1;
        }
    }
    counts
}
