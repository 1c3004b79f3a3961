//! The tiled navigation mesh (`dtNavMesh`): tile slots with salted references, a grid lookup,
//! and the links inside tiles, across tile borders and along off-mesh connections; opt-in, a
//! table of off-mesh connections whose ends lie beyond the tiles around their starts
//! (`docs/long-range-links.md`).

use super::common::{self, Vec3};
use super::portal_index::{TargetPortals, scan_connecting_polys};
use super::tile::{BoundaryEdge, Link, MeshTile, OffMeshConnection, Poly};
use super::{
    DetourError, EXT_LINK, NULL_LINK, OFFMESH_CON_BIDIR, PolyRef, RefWidth, TileRef, opposite_tile,
};

/// Where tiles sit and how many bits poly references give tiles and polygons
/// (`dtNavMeshParams`; stored verbatim in "MSET" files).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct NavMeshParams {
    /// World position of the tile grid's origin.
    pub orig: Vec3,
    /// Tile size along x and z.
    pub tile_width: f32,
    /// Tile size along z, world units.
    pub tile_height: f32,
    /// Tile slots (`dtNavMeshParams::maxTiles`).
    pub max_tiles: i32,
    /// Most polygons a tile may hold (32-bit references only: with 64-bit ones Detour keeps
    /// the value but uses none of it).
    pub max_polys: i32,
    /// How wide the navmesh's references are. Not part of `dtNavMeshParams` nor of the MSET
    /// parameter block: a file's layout tells it.
    pub ref_width: RefWidth,
}

/// The most tile bits Sample_TileMesh gives a navmesh (the rest of the 22 go to polygons).
pub const MAX_TILE_BITS: u32 = 14;

/// Salt, tile and polygon bits of 64-bit references (`DT_SALT_BITS`, `DT_TILE_BITS`,
/// `DT_POLY_BITS`).
pub const REF64_BITS: (u32, u32, u32) = (16, 28, 20);

impl NavMeshParams {
    /// Sample_TileMesh's parameters for a `tiles_x` × `tiles_y` grid of `tile_size`-cell tiles:
    /// 22 bits shared between tile and poly ids, the tile bits enough for the grid but at
    /// most 14. With 64-bit references a grid of more than 2¹⁴ tiles gets enough tile slots
    /// for all of them (RecastDemo, which has no 64-bit branch, would cap it); the polygon
    /// budget stays the capped one, which 64-bit references ignore.
    pub fn for_tile_grid(
        orig: Vec3,
        tile_size: i32,
        cell_size: f32,
        (tiles_x, tiles_y): (i32, i32),
        ref_width: RefWidth,
    ) -> Self {
        let grid_bits = common::ilog2(common::next_pow2(tiles_x.wrapping_mul(tiles_y) as u32));
        let tile_bits = grid_bits.min(MAX_TILE_BITS);
        let slot_bits = match ref_width {
            RefWidth::Bits32 => tile_bits,
            RefWidth::Bits64 => grid_bits.min(REF64_BITS.1),
        };
        let tile_world_size = tile_size as f32 * cell_size;
        NavMeshParams {
            orig,
            tile_width: tile_world_size,
            tile_height: tile_world_size,
            max_tiles: 1 << slot_bits,
            max_polys: 1 << (22 - tile_bits),
            ref_width,
        }
    }
}

/// Packs and unpacks salt, tile index and poly index in a [`PolyRef`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct RefBits {
    salt_bits: u32,
    tile_bits: u32,
    poly_bits: u32,
    /// Shifts and masks precomputed once: queries decode references in their inner loops.
    salt_shift: u32,
    salt_mask: u32,
    tile_mask: u32,
    poly_mask: u32,
    /// Every bit a reference of this width can have: a larger value names nothing (a 32-bit
    /// navmesh would otherwise decode its low bits).
    ref_mask: u64,
}

impl RefBits {
    fn new(salt_bits: u32, tile_bits: u32, poly_bits: u32, width: RefWidth) -> RefBits {
        let mask = |bits: u32| ((1u64 << bits) - 1) as u32;
        RefBits {
            salt_bits,
            tile_bits,
            poly_bits,
            salt_shift: poly_bits + tile_bits,
            salt_mask: mask(salt_bits),
            tile_mask: mask(tile_bits),
            poly_mask: mask(poly_bits),
            ref_mask: u64::MAX >> (64 - width.bits()),
        }
    }

    /// C++'s arithmetic in the reference's own type: bits shifted past its width are lost.
    #[inline]
    fn encode(&self, salt: u32, tile: u32, poly: u32) -> PolyRef {
        ((PolyRef::from(salt) << self.salt_shift)
            | (PolyRef::from(tile) << self.poly_bits)
            | PolyRef::from(poly))
            & self.ref_mask
    }

    #[inline]
    fn salt(&self, r: PolyRef) -> u32 {
        (r >> self.salt_shift) as u32 & self.salt_mask
    }

    #[inline]
    fn tile(&self, r: PolyRef) -> u32 {
        (r >> self.poly_bits) as u32 & self.tile_mask
    }

    #[inline]
    fn poly(&self, r: PolyRef) -> u32 {
        r as u32 & self.poly_mask
    }

    /// Whether `r` fits the width at all.
    #[inline]
    fn fits(&self, r: PolyRef) -> bool {
        r & !self.ref_mask == 0
    }
}

/// End of a slot chain.
const NONE: u32 = u32::MAX;
/// How many tiles at one grid cell `addTile`/`removeTile` connect (`MAX_NEIS`).
const MAX_NEIS: usize = 32;
/// Cap on the grid lookup's bucket count. Buckets only speed up the search: the tiles found
/// at a location come in reverse insertion order whatever the bucket count, so capping it
/// (where C++ allocates up to 2²⁰ buckets) changes nothing observable.
const MAX_LOOKUP_SIZE: u32 = 1 << 16;

/// One tile slot. `next` chains free slots, or tiles in the same lookup bucket; `prev` is the
/// free slot before this one while it is free, so that taking a given slot (a tile streamed
/// back in under its old reference) unlinks it at once instead of walking the list as C++
/// does, which cost a 10 km world's reloads most of their time. The list's order is C++'s.
#[derive(Clone, Debug)]
struct TileSlot {
    salt: u32,
    next: u32,
    prev: u32,
    tile: Option<Box<MeshTile>>,
}

/// A navigation mesh made of tiles (`dtNavMesh`).
///
/// Slots past the highest one ever used are not allocated: they are implicitly free, with
/// salt 1, chained in ascending order exactly as `dtNavMesh::init` leaves them. So a file that
/// declares millions of tiles costs nothing until a tile is placed; memory then grows with
/// the highest slot index used, 16 bytes a slot (at most 64 MiB for the 2²² slots that 22 id
/// bits allow with 32-bit references; the file loaders hold 64-bit ones to the same budget
/// or the file's size, whichever is larger).
#[derive(Clone, Debug)]
pub struct NavMesh {
    params: NavMeshParams,
    max_tiles: usize,
    bits: RefBits,
    slots: Vec<TileSlot>,
    lookup: Vec<u32>,
    next_free: u32,
    /// The free slot before the first slot not yet allocated (`slots.len()`, the start of the
    /// untouched run), or [`NONE`] when that slot heads the free list.
    run_prev: u32,
    /// A number no other navmesh state has had: fresh from a process-wide counter whenever
    /// the navmesh is made or changed (copies share it until either changes), so that what
    /// a crowd checked on it is known to still hold when the crowd is put back on it.
    stamp: u64,
    /// The long-range link table ([`NavMesh::enable_long_range_links`]); `None` (the default,
    /// and C++'s behaviour) keeps every link within the tiles around its start.
    long_links: Option<Vec<LongLinkEntry>>,
}

/// An off-mesh connection whose end lies beyond the tiles around its start's: Detour never
/// joins such an end, a navmesh with long-range links on does ([`NavMesh::long_links`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LongLink {
    /// Grid x, y and layer of the tile that holds the connection (the one its start lies in).
    pub start_tile: (i32, i32, i32),
    /// The connection's index among that tile's off-mesh connections.
    pub connection: u16,
    /// Grid x and y of the cell its end lies in: it lands on any tile (layer) there.
    pub end_cell: (i32, i32),
}

/// A [`LongLink`] with the slot of its start tile, which holds it while that tile is loaded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct LongLinkEntry {
    start_slot: usize,
    link: LongLink,
}

/// The next [`NavMesh::stamp`].
fn fresh_stamp() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// Two tiles borrowed mutably at once, which may be the same tile.
enum TilePair<'a> {
    Same(&'a mut MeshTile),
    Distinct(&'a mut MeshTile, &'a mut MeshTile),
}

impl TilePair<'_> {
    fn first(&mut self) -> &mut MeshTile {
        match self {
            TilePair::Same(t) | TilePair::Distinct(t, _) => t,
        }
    }

    fn second(&mut self) -> &mut MeshTile {
        match self {
            TilePair::Same(t) | TilePair::Distinct(_, t) => t,
        }
    }
}

/// The bucket of tile position (`x`, `y`) in a lookup of `mask + 1` buckets (`computeTileHash`,
/// shared with the tile cache).
pub(crate) fn tile_hash(x: i32, y: i32, mask: u32) -> usize {
    const H1: u32 = 0x8da6_b343;
    const H2: u32 = 0xd816_3841;
    (H1.wrapping_mul(x as u32)
        .wrapping_add(H2.wrapping_mul(y as u32))
        & mask) as usize
}

/// The grid cell next to (`x`, `y`) on `side` (0 = +x, counter-clockwise in steps of 45°).
fn neighbour_cell(x: i32, y: i32, side: u8) -> (i32, i32) {
    const DX: [i32; 8] = [1, 1, 0, -1, -1, -1, 0, 1];
    const DY: [i32; 8] = [0, 1, 1, 1, 0, -1, -1, -1];
    let s = usize::from(side & 7);
    (x.wrapping_add(DX[s]), y.wrapping_add(DY[s]))
}

impl NavMesh {
    /// An empty navmesh (`dtNavMesh::init(params)`). Fails for negative sizes, for a NaN or
    /// infinite origin or tile size (which C++ accepts), and, with 32-bit references, when
    /// tile and poly ids need more than 22 bits, leaving fewer than 10 salt bits; with 64-bit
    /// ones, when there are more tile slots than 28 bits number.
    pub fn new(params: NavMeshParams) -> Result<NavMesh, DetourError> {
        let placement = [
            ("orig", &params.orig[..]),
            ("tileWidth", &[params.tile_width]),
            ("tileHeight", &[params.tile_height]),
        ];
        for (what, values) in placement {
            if let Some(value) = values.iter().find(|v| !v.is_finite()) {
                return Err(DetourError::InvalidNavMeshParams(format!(
                    "{what} has {value}, which is not finite"
                )));
            }
        }
        let invalid = |what: &str, value: i32| {
            DetourError::InvalidNavMeshParams(format!("{what} = {value} is negative"))
        };
        let max_tiles =
            u32::try_from(params.max_tiles).map_err(|_| invalid("maxTiles", params.max_tiles))?;
        let max_polys =
            u32::try_from(params.max_polys).map_err(|_| invalid("maxPolys", params.max_polys))?;
        let bits = match params.ref_width {
            RefWidth::Bits32 => {
                let tile_bits = common::ilog2(common::next_pow2(max_tiles));
                let poly_bits = common::ilog2(common::next_pow2(max_polys));
                if tile_bits + poly_bits > 22 {
                    return Err(DetourError::InvalidNavMeshParams(format!(
                        "{tile_bits} tile bits + {poly_bits} poly bits leave fewer than 10 salt \
                         bits (64-bit polygon references have room for them)"
                    )));
                }
                let salt_bits = (32 - tile_bits - poly_bits).min(31);
                RefBits::new(salt_bits, tile_bits, poly_bits, RefWidth::Bits32)
            }
            RefWidth::Bits64 => {
                let (salt_bits, tile_bits, poly_bits) = REF64_BITS;
                if u64::from(max_tiles) > 1 << tile_bits {
                    return Err(DetourError::InvalidNavMeshParams(format!(
                        "maxTiles = {max_tiles} is more than the {} tiles 64-bit references \
                         number",
                        1u64 << tile_bits
                    )));
                }
                RefBits::new(salt_bits, tile_bits, poly_bits, RefWidth::Bits64)
            }
        };
        let lookup_size = match common::next_pow2(max_tiles / 4) {
            0 => 1,
            n => n.min(MAX_LOOKUP_SIZE),
        };
        Ok(NavMesh {
            params,
            max_tiles: max_tiles as usize,
            bits,
            slots: Vec::new(),
            lookup: vec![NONE; lookup_size as usize],
            next_free: if max_tiles > 0 { 0 } else { NONE },
            run_prev: NONE,
            stamp: fresh_stamp(),
            long_links: None,
        })
    }

    /// Changes whenever the navmesh does ([`NavMesh`]'s `stamp` field).
    pub(crate) fn stamp(&self) -> u64 {
        self.stamp
    }

    /// A one-tile navmesh whose grid is the tile itself (`dtNavMesh::init(data, ...)`), as
    /// Sample_SoloMesh makes it.
    pub fn new_solo(tile: MeshTile, ref_width: RefWidth) -> Result<NavMesh, DetourError> {
        let h = tile.header();
        let params = NavMeshParams {
            orig: h.bmin,
            tile_width: h.bmax[0] - h.bmin[0],
            tile_height: h.bmax[2] - h.bmin[2],
            max_tiles: 1,
            max_polys: tile.poly_count() as i32,
            ref_width,
        };
        let mut mesh = NavMesh::new(params)?;
        mesh.add_tile(tile, 0)?;
        Ok(mesh)
    }

    /// The parameters the navmesh was made with.
    pub fn params(&self) -> &NavMeshParams {
        &self.params
    }

    /// Number of tile slots (`getMaxTiles`).
    pub fn max_tiles(&self) -> usize {
        self.max_tiles
    }

    /// How wide the navmesh's references are.
    pub fn ref_width(&self) -> RefWidth {
        self.params.ref_width
    }

    /// (salt, tile, poly) bit widths of references.
    pub fn ref_bits(&self) -> (u32, u32, u32) {
        (
            self.bits.salt_bits,
            self.bits.tile_bits,
            self.bits.poly_bits,
        )
    }

    /// A polygon reference from its salt, tile index and poly index (`encodePolyId`).
    pub fn encode_poly_id(&self, salt: u32, tile: u32, poly: u32) -> PolyRef {
        self.bits.encode(salt, tile, poly)
    }

    /// (salt, tile index, poly index) of a reference.
    pub fn decode_poly_id(&self, r: PolyRef) -> (u32, u32, u32) {
        (self.bits.salt(r), self.bits.tile(r), self.bits.poly(r))
    }

    /// The salt of a reference.
    pub fn decode_poly_id_salt(&self, r: PolyRef) -> u32 {
        self.bits.salt(r)
    }

    /// The tile index of a reference.
    pub fn decode_poly_id_tile(&self, r: PolyRef) -> u32 {
        self.bits.tile(r)
    }

    /// The poly index of a reference.
    pub fn decode_poly_id_poly(&self, r: PolyRef) -> u32 {
        self.bits.poly(r)
    }

    #[inline]
    fn slot_salt(&self, index: usize) -> u32 {
        self.slots.get(index).map_or(1, |s| s.salt)
    }

    /// Allocates slots up to `index` in their initial state.
    fn materialize(&mut self, index: usize) {
        while self.slots.len() <= index {
            let i = self.slots.len();
            let next = if i + 1 < self.max_tiles {
                (i + 1) as u32
            } else {
                NONE
            };
            self.slots.push(TileSlot {
                salt: 1,
                next,
                prev: self.run_prev,
                tile: None,
            });
            self.run_prev = i as u32;
        }
    }

    /// Makes free slot `next` (or the list's end) follow `prev` (or head the list).
    fn link_free(&mut self, prev: u32, next: u32) {
        match prev {
            NONE => self.next_free = next,
            p => self.slots[p as usize].next = next,
        }
        match next {
            NONE => {}
            n if (n as usize) < self.slots.len() => self.slots[n as usize].prev = prev,
            _ => self.run_prev = prev,
        }
    }

    /// The tile in slot `index`, if one is loaded (`getTile`).
    pub fn tile(&self, index: usize) -> Option<&MeshTile> {
        self.slots.get(index)?.tile.as_deref()
    }

    /// The loaded tiles in slot order, with their references.
    pub fn tiles(&self) -> impl Iterator<Item = (TileRef, &MeshTile)> {
        self.slots.iter().enumerate().filter_map(|(i, slot)| {
            let tile = slot.tile.as_deref()?;
            Some((self.bits.encode(slot.salt, i as u32, 0), tile))
        })
    }

    /// Every wall of the ground polygons, in tile-slot and polygon order: edges without a
    /// neighbour, and tile-border edges no link crosses (what the navmesh's outline is made of).
    pub fn boundary_edges(&self) -> Vec<BoundaryEdge> {
        let mut edges = Vec::new();
        for (tile_ref, tile) in self.tiles() {
            edges.extend(tile.boundary_edges(tile_ref));
        }
        edges
    }

    /// Polygons in all loaded tiles, off-mesh connections included.
    pub fn poly_count(&self) -> usize {
        self.tiles().map(|(_, tile)| tile.poly_count()).sum()
    }

    /// Number of loaded tiles.
    pub fn tile_count(&self) -> usize {
        self.slots.iter().filter(|s| s.tile.is_some()).count()
    }

    /// The reference of the tile in slot `index`, if one is loaded (`getTileRef`).
    pub fn tile_ref(&self, index: usize) -> Option<TileRef> {
        let slot = self.slots.get(index)?;
        slot.tile.as_ref()?;
        Some(self.bits.encode(slot.salt, index as u32, 0))
    }

    /// The reference of polygon 0 of slot `index`; OR a poly index into it (`getPolyRefBase`).
    #[inline]
    pub fn poly_ref_base(&self, index: usize) -> PolyRef {
        self.bits.encode(self.slot_salt(index), index as u32, 0)
    }

    /// Slot indices of the tiles at grid cell (`x`, `y`), all layers, most recently added
    /// first (`getTilesAt`).
    pub fn tile_indices_at(&self, x: i32, y: i32) -> impl Iterator<Item = usize> + '_ {
        let mask = self.lookup.len() as u32 - 1;
        let mut cur = self.lookup[tile_hash(x, y, mask)];
        std::iter::from_fn(move || {
            while cur != NONE {
                let index = cur as usize;
                let slot = &self.slots[index];
                cur = slot.next;
                if let Some(t) = &slot.tile
                    && t.header().x == x
                    && t.header().y == y
                {
                    return Some(index);
                }
            }
            None
        })
    }

    fn tile_index_at(&self, x: i32, y: i32, layer: i32) -> Option<usize> {
        self.tile_indices_at(x, y).find(|&i| {
            self.slots[i]
                .tile
                .as_ref()
                .is_some_and(|t| t.header().layer == layer)
        })
    }

    /// The tile at grid cell (`x`, `y`) and `layer` (`getTileAt`).
    pub fn tile_at(&self, x: i32, y: i32, layer: i32) -> Option<&MeshTile> {
        self.tile(self.tile_index_at(x, y, layer)?)
    }

    /// The reference of the tile at (`x`, `y`, `layer`) (`getTileRefAt`).
    pub fn tile_ref_at(&self, x: i32, y: i32, layer: i32) -> Option<TileRef> {
        self.tile_ref(self.tile_index_at(x, y, layer)?)
    }

    /// The loaded tile a reference names, if its salt still matches (`getTileByRef`).
    pub fn tile_by_ref(&self, r: TileRef) -> Option<&MeshTile> {
        if r == 0 || !self.bits.fits(r) {
            return None;
        }
        let index = self.bits.tile(r) as usize;
        let slot = self.slots.get(index)?;
        if slot.salt != self.bits.salt(r) {
            return None;
        }
        slot.tile.as_deref()
    }

    /// Grid cell containing `pos` (`calcTileLoc`).
    pub fn calc_tile_loc(&self, pos: &Vec3) -> (i32, i32) {
        (
            ((pos[0] - self.params.orig[0]) / self.params.tile_width).floor() as i32,
            ((pos[2] - self.params.orig[2]) / self.params.tile_height).floor() as i32,
        )
    }

    /// Slot and poly index of a live polygon reference.
    pub fn poly_location(&self, r: PolyRef) -> Result<(usize, usize), DetourError> {
        if r == 0 || !self.bits.fits(r) {
            return Err(DetourError::InvalidPolyRef(r));
        }
        let (salt, it, ip) = self.decode_poly_id(r);
        let slot = self
            .slots
            .get(it as usize)
            .ok_or(DetourError::InvalidPolyRef(r))?;
        match &slot.tile {
            Some(tile) if slot.salt == salt && (ip as usize) < tile.poly_count() => {
                Ok((it as usize, ip as usize))
            }
            _ => Err(DetourError::InvalidPolyRef(r)),
        }
    }

    /// The tile and polygon a reference names (`getTileAndPolyByRef`).
    pub fn tile_and_poly_by_ref(&self, r: PolyRef) -> Result<(&MeshTile, &Poly), DetourError> {
        let (it, ip) = self.poly_location(r)?;
        let tile = self.tile(it).ok_or(DetourError::InvalidPolyRef(r))?;
        Ok((tile, &tile.polys()[ip]))
    }

    fn poly_mut(&mut self, r: PolyRef) -> Result<&mut Poly, DetourError> {
        let (it, ip) = self.poly_location(r)?;
        let tile = self.slots[it]
            .tile
            .as_deref_mut()
            .ok_or(DetourError::InvalidPolyRef(r))?;
        Ok(&mut tile.polys[ip])
    }

    /// Whether `r` names a polygon of a loaded tile (`isValidPolyRef`).
    pub fn is_valid_poly_ref(&self, r: PolyRef) -> bool {
        self.poly_location(r).is_ok()
    }

    /// Sets a polygon's ability flags (`setPolyFlags`).
    pub fn set_poly_flags(&mut self, r: PolyRef, flags: u16) -> Result<(), DetourError> {
        self.stamp = fresh_stamp();
        self.poly_mut(r)?.flags = flags;
        Ok(())
    }

    /// A polygon's ability flags (`getPolyFlags`).
    pub fn poly_flags(&self, r: PolyRef) -> Result<u16, DetourError> {
        Ok(self.tile_and_poly_by_ref(r)?.1.flags)
    }

    /// Sets a polygon's area id (`setPolyArea`).
    pub fn set_poly_area(&mut self, r: PolyRef, area: u8) -> Result<(), DetourError> {
        self.stamp = fresh_stamp();
        self.poly_mut(r)?.set_area(area);
        Ok(())
    }

    /// A polygon's area id (`getPolyArea`).
    pub fn poly_area(&self, r: PolyRef) -> Result<u8, DetourError> {
        Ok(self.tile_and_poly_by_ref(r)?.1.area())
    }

    /// The off-mesh connection of an off-mesh polygon (`getOffMeshConnectionByRef`).
    pub fn off_mesh_connection_by_ref(&self, r: PolyRef) -> Option<&OffMeshConnection> {
        let (tile, poly) = self.tile_and_poly_by_ref(r).ok()?;
        if !poly.is_off_mesh_connection() {
            return None;
        }
        let ip = self.bits.poly(r) as usize;
        tile.off_mesh_connections().get(ip - tile.off_mesh_base())
    }

    /// The end points of off-mesh polygon `r`, start first as seen when entering it from
    /// `prev` (`getOffMeshConnectionPolyEndPoints`).
    pub fn off_mesh_connection_poly_end_points(
        &self,
        prev: PolyRef,
        r: PolyRef,
    ) -> Result<(Vec3, Vec3), DetourError> {
        let (it, ip) = self.poly_location(r)?;
        let tile = self.tile(it).ok_or(DetourError::InvalidPolyRef(r))?;
        let poly = &tile.polys()[ip];
        if !poly.is_off_mesh_connection() {
            return Err(DetourError::NotOffMeshConnection(r));
        }
        // The link on edge 0 leads to where the first vertex lands.
        let reversed = tile
            .poly_links(ip)
            .find(|(_, l)| l.edge == 0)
            .is_some_and(|(_, l)| l.neighbour != prev);
        let (i0, i1) = if reversed { (1, 0) } else { (0, 1) };
        let vert = |k: usize| tile.verts()[usize::from(poly.verts[k])];
        Ok((vert(i0), vert(i1)))
    }

    /// The point of polygon `r` closest to `pos`, and whether `pos` lies over the polygon
    /// (`dtNavMesh::closestPointOnPoly`).
    pub fn closest_point_on_poly(
        &self,
        r: PolyRef,
        pos: &Vec3,
    ) -> Result<(Vec3, bool), DetourError> {
        let (it, ip) = self.poly_location(r)?;
        let tile = self.tile(it).ok_or(DetourError::InvalidPolyRef(r))?;
        Ok(tile.closest_point_on_poly(ip, pos))
    }

    /// Adds a tile and links it to itself and its neighbours (`addTile`). With `last_ref` ≠ 0
    /// the tile goes back into the slot and salt of that earlier reference, so its old poly
    /// references stay valid. Returns the tile's reference.
    pub fn add_tile(
        &mut self,
        tile: impl Into<Box<MeshTile>>,
        last_ref: TileRef,
    ) -> Result<TileRef, DetourError> {
        self.stamp = fresh_stamp();
        let mut tile = tile.into();
        let poly_count = tile.poly_count();
        if self.params.ref_width == RefWidth::Bits32
            && self.bits.poly_bits < common::ilog2(common::next_pow2(poly_count as u32))
        {
            return Err(DetourError::TooManyPolys {
                poly_count,
                poly_bits: self.bits.poly_bits,
            });
        }
        let (x, y, layer) = (tile.header().x, tile.header().y, tile.header().layer);
        if self.tile_index_at(x, y, layer).is_some() {
            return Err(DetourError::AlreadyOccupied { x, y, layer });
        }
        let index = if last_ref == 0 {
            self.take_free_slot()?
        } else {
            self.take_slot(last_ref)?
        };

        let h = tile_hash(x, y, self.lookup.len() as u32 - 1);
        self.slots[index].next = self.lookup[h];
        self.lookup[h] = index as u32;

        tile.reset_links();
        self.slots[index].tile = Some(tile);
        let base = self.poly_ref_base(index);
        if let Some(tile) = self.slots[index].tile.as_deref_mut() {
            connect_int_links(tile, base);
            base_off_mesh_links(tile, base);
            connect_ext_off_mesh_links(TilePair::Same(tile), base, base, None);
        }

        let mut found = [0usize; MAX_NEIS];
        let count = self.tiles_at_into(x, y, &mut found);
        for &other in found[..count].iter().filter(|&&j| j != index) {
            self.connect_tiles(index, other, None);
        }
        for side in 0..8 {
            let (nx, ny) = neighbour_cell(x, y, side);
            let count = self.tiles_at_into(nx, ny, &mut found);
            for &other in &found[..count] {
                self.connect_tiles(index, other, Some(side));
            }
        }
        if self.long_links.is_some() {
            self.join_long_links_of(index);
        }
        Ok(self.bits.encode(self.slots[index].salt, index as u32, 0))
    }

    /// Links tile `a` and the tile `b` beyond its `side` (`None`: another layer of the same
    /// cell) in both directions, portals first, then off-mesh connections.
    fn connect_tiles(&mut self, a: usize, b: usize, side: Option<u8>) {
        let back = side.map(opposite_tile);
        let (base_a, base_b) = (self.poly_ref_base(a), self.poly_ref_base(b));
        if let Ok([slot_a, slot_b]) = self.slots.get_disjoint_mut([a, b])
            && let (Some(tile_a), Some(tile_b)) =
                (slot_a.tile.as_deref_mut(), slot_b.tile.as_deref_mut())
        {
            connect_ext_links(tile_a, tile_b, base_b, side);
            connect_ext_links(tile_b, tile_a, base_a, back);
            connect_ext_off_mesh_links(TilePair::Distinct(tile_a, tile_b), base_a, base_b, side);
            connect_ext_off_mesh_links(TilePair::Distinct(tile_b, tile_a), base_b, base_a, back);
        }
    }

    /// Pops the head of the free list.
    fn take_free_slot(&mut self) -> Result<usize, DetourError> {
        let head = self.next_free;
        if head == NONE {
            return Err(DetourError::NoFreeTileSlot {
                max_tiles: self.max_tiles,
            });
        }
        let index = head as usize;
        self.materialize(index);
        let next = self.slots[index].next;
        self.link_free(NONE, next);
        self.slots[index].next = NONE;
        self.slots[index].prev = NONE;
        Ok(index)
    }

    /// Unlinks the slot `r` names from the free list and gives it `r`'s salt.
    fn take_slot(&mut self, r: TileRef) -> Result<usize, DetourError> {
        let salt = self.bits.salt(r);
        if salt == 0 || !self.bits.fits(r) {
            return Err(DetourError::InvalidTileRef(r));
        }
        let target = self.bits.tile(r);
        let unavailable = DetourError::TileSlotUnavailable {
            index: target.into(),
        };
        let index = target as usize;
        // A slot is free when it holds no tile; slots not yet allocated are all free.
        if index >= self.max_tiles || self.slots.get(index).is_some_and(|s| s.tile.is_some()) {
            return Err(unavailable);
        }
        self.materialize(index);
        let (prev, next) = (self.slots[index].prev, self.slots[index].next);
        self.link_free(prev, next);
        self.slots[index].next = NONE;
        self.slots[index].prev = NONE;
        self.slots[index].salt = salt;
        Ok(index)
    }

    /// The first [`MAX_NEIS`] tiles at grid cell (`x`, `y`) into `found`; returns how many.
    fn tiles_at_into(&self, x: i32, y: i32, found: &mut [usize; MAX_NEIS]) -> usize {
        let mut count = 0;
        for (slot, index) in found.iter_mut().zip(self.tile_indices_at(x, y)) {
            *slot = index;
            count += 1;
        }
        count
    }

    /// Removes a tile, unlinks its neighbours from it and bumps the slot's salt so old
    /// references to it become invalid (`removeTile`). Returns the tile.
    pub fn remove_tile(&mut self, r: TileRef) -> Result<MeshTile, DetourError> {
        self.remove_tile_boxed(r).map(|tile| *tile)
    }

    /// [`NavMesh::remove_tile`] returning the tile as the navmesh held it, so that its memory
    /// can be reused for the next tile added (see [`NavMesh::add_tile`], which takes a box).
    pub fn remove_tile_boxed(&mut self, r: TileRef) -> Result<Box<MeshTile>, DetourError> {
        self.stamp = fresh_stamp();
        let index = self.bits.tile(r) as usize;
        let (x, y) = match self.slots.get(index) {
            Some(TileSlot {
                salt,
                tile: Some(tile),
                ..
            }) if r != 0 && self.bits.fits(r) && *salt == self.bits.salt(r) => {
                (tile.header().x, tile.header().y)
            }
            _ => return Err(DetourError::InvalidTileRef(r)),
        };

        let h = tile_hash(x, y, self.lookup.len() as u32 - 1);
        let mut prev = NONE;
        let mut cur = self.lookup[h];
        while cur != NONE {
            let next = self.slots[cur as usize].next;
            if cur as usize == index {
                match prev {
                    NONE => self.lookup[h] = next,
                    p => self.slots[p as usize].next = next,
                }
                break;
            }
            prev = cur;
            cur = next;
        }

        let target = index as u32;
        let bits = self.bits;
        let mut found = [0usize; MAX_NEIS];
        let cells = std::iter::once((x, y)).chain((0..8).map(|side| neighbour_cell(x, y, side)));
        for (cx, cy) in cells {
            let count = self.tiles_at_into(cx, cy, &mut found);
            for &j in found[..count].iter().filter(|&&j| j != index) {
                if let Some(tile) = self.slots[j].tile.as_deref_mut() {
                    unconnect_links(tile, target, bits);
                }
            }
        }

        if self.long_links.is_some() {
            self.unjoin_long_links_of(index, (x, y));
        }

        let slot = &mut self.slots[index];
        let tile = slot.tile.take().ok_or(DetourError::InvalidTileRef(r))?;
        slot.salt = (slot.salt + 1) & bits.salt_mask;
        if slot.salt == 0 {
            slot.salt = 1;
        }
        slot.prev = NONE;
        let head = self.next_free;
        self.slots[index].next = head;
        self.next_free = target;
        match head {
            NONE => {}
            h if (h as usize) < self.slots.len() => self.slots[h as usize].prev = target,
            _ => self.run_prev = target,
        }
        Ok(tile)
    }
}

/// Long-range links: off-mesh connections whose ends lie beyond the tiles around their
/// starts, which C++ Detour never joins (recastnavigation #639).
impl NavMesh {
    /// Turns the long-range link table on: from now on every off-mesh connection whose end
    /// lies in a tile that is neither its start's nor a neighbour of it is joined to that
    /// tile whenever both are loaded, whatever order they come and go in. Links of tiles
    /// already loaded are joined now. Off by default, as in C++; there is no turning it off.
    pub fn enable_long_range_links(&mut self) {
        if self.long_links.is_some() {
            return;
        }
        self.stamp = fresh_stamp();
        self.long_links = Some(Vec::new());
        let loaded: Vec<usize> = (0..self.slots.len())
            .filter(|&i| self.slots[i].tile.is_some())
            .collect();
        for &index in &loaded {
            self.record_long_links_of(index);
        }
        for entry in self.long_links.clone().unwrap_or_default() {
            self.join_long_link_ends(entry);
        }
    }

    /// Whether [`NavMesh::enable_long_range_links`] was called.
    pub fn long_range_links_enabled(&self) -> bool {
        self.long_links.is_some()
    }

    /// The long links of the loaded tiles, joined or waiting for their end's tile, in the
    /// order their tiles were added; empty when the table is off.
    pub fn long_links(&self) -> impl Iterator<Item = LongLink> + '_ {
        self.long_links.iter().flatten().map(|entry| entry.link)
    }

    /// The grid cell a connection's end lies in, when that is beyond the tiles around the
    /// cell (`x`, `y`) of its start's tile.
    fn far_end_cell(&self, (x, y): (i32, i32), end: &Vec3) -> Option<(i32, i32)> {
        let cell = self.calc_tile_loc(end);
        let reach = |a: i32, b: i32| (i64::from(a) - i64::from(b)).abs();
        (reach(cell.0, x) > 1 || reach(cell.1, y) > 1).then_some(cell)
    }

    /// Puts the long links of the tile in slot `index` into the table; returns how many.
    fn record_long_links_of(&mut self, index: usize) -> usize {
        let Some(tile) = self.slots[index].tile.as_deref() else {
            return 0;
        };
        let h = tile.header();
        let entries: Vec<LongLinkEntry> = tile
            .off_mesh_cons
            .iter()
            .enumerate()
            .filter_map(|(k, con)| {
                let end_cell = self.far_end_cell((h.x, h.y), &con.pos[1])?;
                Some(LongLinkEntry {
                    start_slot: index,
                    link: LongLink {
                        start_tile: (h.x, h.y, h.layer),
                        connection: k as u16,
                        end_cell,
                    },
                })
            })
            .collect();
        let count = entries.len();
        if let Some(table) = &mut self.long_links {
            table.extend(entries);
        }
        count
    }

    /// The tile just added in slot `index`: its own long links recorded and joined to the
    /// tiles at their ends, and the table's links ending at its cell joined to it.
    fn join_long_links_of(&mut self, index: usize) {
        let Some(tile) = self.slots[index].tile.as_deref() else {
            return;
        };
        let cell = (tile.header().x, tile.header().y);
        let recorded = self.record_long_links_of(index);
        let table = self.long_links.as_deref().unwrap_or_default();
        let own = table.len() - recorded;
        let arriving: Vec<LongLinkEntry> = table[..own]
            .iter()
            .filter(|entry| entry.link.end_cell == cell)
            .copied()
            .collect();
        let outgoing = table[own..].to_vec();
        for entry in outgoing {
            self.join_long_link_ends(entry);
        }
        for entry in arriving {
            self.join_long_link(entry, index);
        }
    }

    /// Joins a long link to every tile loaded at its end's cell.
    fn join_long_link_ends(&mut self, entry: LongLinkEntry) {
        let mut found = [0usize; MAX_NEIS];
        let (x, y) = entry.link.end_cell;
        let count = self.tiles_at_into(x, y, &mut found);
        for &end in &found[..count] {
            self.join_long_link(entry, end);
        }
    }

    /// Lands a long link's end on the tile in slot `end` as Detour lands a neighbour's
    /// (`connectExtOffMeshLinks`), the links' sides pointing from each tile towards the other.
    fn join_long_link(&mut self, entry: LongLinkEntry, end: usize) {
        let (start_base, end_base) = (
            self.poly_ref_base(entry.start_slot),
            self.poly_ref_base(end),
        );
        if let Ok([start_slot, end_slot]) = self.slots.get_disjoint_mut([entry.start_slot, end])
            && let (Some(start_tile), Some(end_tile)) =
                (start_slot.tile.as_deref_mut(), end_slot.tile.as_deref_mut())
            && let Some(con) = start_tile
                .off_mesh_cons
                .get(usize::from(entry.link.connection))
        {
            let sides = (con.side, opposite_tile(con.side));
            let k = usize::from(entry.link.connection);
            let mut pair = TilePair::Distinct(end_tile, start_tile);
            land_connection_end(&mut pair, k, end_base, start_base, sides);
        }
    }

    /// Before the tile in slot `index` at cell `cell` leaves: its long links leave the table
    /// and the tiles at their ends drop the links back to it; the tiles whose long links end
    /// at its cell drop their links into it (and keep the entries, to join again).
    fn unjoin_long_links_of(&mut self, index: usize, cell: (i32, i32)) {
        let Some(table) = self.long_links.take() else {
            return;
        };
        let (leaving, staying): (Vec<LongLinkEntry>, Vec<LongLinkEntry>) = table
            .into_iter()
            .partition(|entry| entry.start_slot == index);
        let mut partners: Vec<usize> = staying
            .iter()
            .filter(|entry| entry.link.end_cell == cell)
            .map(|entry| entry.start_slot)
            .collect();
        let mut found = [0usize; MAX_NEIS];
        for entry in &leaving {
            let (x, y) = entry.link.end_cell;
            let count = self.tiles_at_into(x, y, &mut found);
            partners.extend_from_slice(&found[..count]);
        }
        partners.sort_unstable();
        partners.dedup();
        let bits = self.bits;
        for partner in partners.into_iter().filter(|&p| p != index) {
            if let Some(tile) = self.slots[partner].tile.as_deref_mut() {
                unconnect_links(tile, index as u32, bits);
            }
        }
        self.long_links = Some(staying);
    }
}

/// Links each polygon's internal edges to their neighbours (`connectIntLinks`). Edges are
/// visited backwards so each list runs from the lowest edge up.
fn connect_int_links(tile: &mut MeshTile, base: PolyRef) {
    for i in 0..tile.polys.len() {
        tile.polys[i].first_link = NULL_LINK;
        let poly = tile.polys[i];
        if poly.is_off_mesh_connection() {
            continue;
        }
        for j in (0..usize::from(poly.vert_count)).rev() {
            let nei = poly.neis[j];
            if nei == 0 || nei & EXT_LINK != 0 {
                continue;
            }
            if let Some(idx) = tile.alloc_link() {
                let link = Link {
                    neighbour: base | PolyRef::from(nei - 1),
                    edge: j as u8,
                    side: 0xff,
                    ..Link::default()
                };
                tile.push_link(i, idx, link);
            }
        }
    }
}

/// Where off-mesh end point `p` of a connection with radius `rad` lands on `tile`: the nearest
/// polygon within the radius and the agents' climb height (from the connection's own tile),
/// and the landing point. The nearest-poly search is generous, so the radius is checked again.
fn land_off_mesh_end(tile: &MeshTile, p: &Vec3, rad: f32, climb: f32) -> Option<(usize, Vec3)> {
    let (land, nearest) = tile.find_nearest_poly(p, &[rad, climb, rad])?;
    let too_far =
        common::sqr(nearest[0] - p[0]) + common::sqr(nearest[2] - p[2]) > common::sqr(rad);
    (!too_far).then_some((land, nearest))
}

/// Connects each off-mesh connection's start to the polygon under it, both ways, snapping
/// the start vertex onto that polygon (`baseOffMeshLinks`).
fn base_off_mesh_links(tile: &mut MeshTile, base: PolyRef) {
    for k in 0..tile.off_mesh_cons.len() {
        let con = tile.off_mesh_cons[k];
        let con_poly = usize::from(con.poly);
        let climb = tile.header.walkable_climb;
        let Some((land, nearest)) = land_off_mesh_end(tile, &con.pos[0], con.rad, climb) else {
            continue;
        };
        let v = usize::from(tile.polys[con_poly].verts[0]);
        tile.verts[v] = nearest;
        tile.refresh_resolved_vertex(v);
        if let Some(idx) = tile.alloc_link() {
            let link = Link {
                neighbour: base | land as PolyRef,
                edge: 0,
                side: 0xff,
                ..Link::default()
            };
            tile.push_link(con_poly, idx, link);
        }
        if let Some(idx) = tile.alloc_link() {
            let link = Link {
                neighbour: base | PolyRef::from(con.poly),
                edge: 0xff,
                side: 0xff,
                ..Link::default()
            };
            tile.push_link(land, idx, link);
        }
    }
}

/// The polygon pairs of two tiles past which linking goes through [`TargetPortals`].
const INDEXED_LINKING_WORK: usize = 1 << 16;

/// Links `tile`'s portal edges on `side` (every side for `None`) to the polygons of `target`
/// across them, recording which part of the edge each link covers (`connectExtLinks`).
fn connect_ext_links(
    tile: &mut MeshTile,
    target: &MeshTile,
    target_base: PolyRef,
    side: Option<u8>,
) {
    // C++'s scan costs both tiles' polygon counts multiplied; past some 65 000 the
    // index of the target's border edges is quicker (and allocates, which small tiles avoid).
    let indexed = tile.polys.len().saturating_mul(target.polys.len()) > INDEXED_LINKING_WORK;
    let mut portals = indexed.then(|| TargetPortals::new(target));
    for i in 0..tile.polys.len() {
        let poly = tile.polys[i];
        let nv = usize::from(poly.vert_count);
        for j in 0..nv {
            if poly.neis[j] & EXT_LINK == 0 {
                continue;
            }
            let dir = (poly.neis[j] & 0xff) as u8;
            if side.is_some_and(|s| s != dir) {
                continue;
            }
            let va = tile.verts[usize::from(poly.verts[j])];
            let vb = tile.verts[usize::from(poly.verts[(j + 1) % nv])];
            let (connections, n) = match &mut portals {
                Some(portals) => portals.connecting_polys(&va, &vb, opposite_tile(dir)),
                None => scan_connecting_polys(target, &va, &vb, opposite_tile(dir)),
            };
            for &(poly_index, range) in &connections[..n] {
                let neighbour = target_base | PolyRef::from(poly_index);
                let Some(idx) = tile.alloc_link() else {
                    continue;
                };
                let along = if dir == 0 || dir == 4 { 2 } else { 0 };
                let mut tmin = (range[0] - va[along]) / (vb[along] - va[along]);
                let mut tmax = (range[1] - va[along]) / (vb[along] - va[along]);
                if tmin > tmax {
                    std::mem::swap(&mut tmin, &mut tmax);
                }
                let to_byte = |t: f32| (common::clamp(t, 0.0, 1.0) * 255.0).round() as u8;
                let link = Link {
                    neighbour,
                    next: 0,
                    edge: j as u8,
                    side: dir,
                    bmin: to_byte(tmin),
                    bmax: to_byte(tmax),
                };
                tile.push_link(i, idx, link);
            }
        }
    }
}

/// Lands the off-mesh connections of the second tile whose end lies beyond its `side` facing
/// the first tile (inside it for `None`) on the first tile's polygons: a link from the
/// connection to the landing polygon, and back for bidirectional ones
/// (`connectExtOffMeshLinks(tile, target, side)` with tile = first, target = second).
fn connect_ext_off_mesh_links(
    mut pair: TilePair,
    tile_base: PolyRef,
    target_base: PolyRef,
    side: Option<u8>,
) {
    let opposite_side = side.map_or(0xff, opposite_tile);
    for k in 0..pair.second().off_mesh_cons.len() {
        if pair.second().off_mesh_cons[k].side != opposite_side {
            continue;
        }
        let sides = (opposite_side, side.unwrap_or(0xff));
        land_connection_end(&mut pair, k, tile_base, target_base, sides);
    }
}

/// Lands the end of the second tile's off-mesh connection `k` on the first tile, if a polygon
/// lies there within its radius: a link from the connection to the landing polygon (with
/// `sides.0`), and one back (with `sides.1`) when the connection is bidirectional.
fn land_connection_end(
    pair: &mut TilePair,
    k: usize,
    tile_base: PolyRef,
    target_base: PolyRef,
    (forward_side, back_side): (u8, u8),
) {
    let target = pair.second();
    let con = target.off_mesh_cons[k];
    let con_poly = usize::from(con.poly);
    // Connections whose start could not be placed are left out.
    if target.polys[con_poly].first_link == NULL_LINK {
        return;
    }
    let climb = target.header.walkable_climb;
    let Some((land, nearest)) = land_off_mesh_end(pair.first(), &con.pos[1], con.rad, climb) else {
        return;
    };
    let target = pair.second();
    let v = usize::from(target.polys[con_poly].verts[1]);
    target.verts[v] = nearest;
    target.refresh_resolved_vertex(v);
    if let Some(idx) = target.alloc_link() {
        let link = Link {
            neighbour: tile_base | land as PolyRef,
            edge: 1,
            side: forward_side,
            ..Link::default()
        };
        target.push_link(con_poly, idx, link);
    }
    if con.flags & OFFMESH_CON_BIDIR != 0 {
        let tile = pair.first();
        if let Some(idx) = tile.alloc_link() {
            let link = Link {
                neighbour: target_base | PolyRef::from(con.poly),
                edge: 0xff,
                side: back_side,
                ..Link::default()
            };
            tile.push_link(land, idx, link);
        }
    }
}

/// Frees the links of `tile` that lead into slot `target` (`unconnectLinks`).
fn unconnect_links(tile: &mut MeshTile, target: u32, bits: RefBits) {
    for i in 0..tile.polys.len() {
        let mut j = tile.polys[i].first_link;
        let mut prev = NULL_LINK;
        while j != NULL_LINK {
            let link = tile.links[j as usize];
            if bits.tile(link.neighbour) == target {
                match prev {
                    NULL_LINK => tile.polys[i].first_link = link.next,
                    p => tile.links[p as usize].next = link.next,
                }
                tile.free_link(j as usize);
            } else {
                prev = j;
            }
            j = link.next;
        }
    }
}
