//! The tile cache's store of compressed layers (`dtTileCache`'s tile slots): a fixed pool of
//! slots with salts, a position lookup hashed as Detour's, and references that encode slot and
//! salt exactly as C++ does, so references match C++'s and TSET files round-trip. It also keeps
//! the off-mesh links every rebuilt tile gets (RecastDemo's mesh process passes the geometry's).

use crate::detour::OffMeshConnectionParams;
use crate::detour::common::{ilog2, next_pow2};
use crate::detour::nav_mesh::tile_hash;

use super::file::{StoredLayer, TileCacheParams};
use super::layer::{LayerError, LayerHeader};

/// A stored layer's reference: salt above the slot index.
pub type CompressedTileRef = u32;

/// Why the tile cache refused a request.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum TileCacheError {
    #[error("tile cache parameters: {0}")]
    /// Parameters the cache cannot work with (why).
    InvalidParams(String),
    #[error("the layer cannot be stored: {0}")]
    /// The layer's bytes do not read as a layer.
    BadLayer(#[from] LayerError),
    #[error("layer ({tx}, {ty}, {tlayer}) is already stored")]
    /// A layer at that place is already stored.
    LayerExists {
        /// Tile column x.
        tx: i32,
        /// Tile column y.
        ty: i32,
        /// Layer index in the column.
        tlayer: i32,
    },
    #[error("all {0} layer slots of the tile cache are in use; raise maxTiles")]
    /// Every layer slot is in use (how many there are).
    Full(usize),
    #[error("no stored layer has reference {0:#x}")]
    /// A reference that names no stored layer.
    InvalidRef(CompressedTileRef),
}

/// One slot: a stored layer or a free place, with its salt.
#[derive(Clone, Debug)]
struct Slot {
    salt: u32,
    layer: Option<(LayerHeader, Vec<u8>)>,
    /// Next slot in its lookup bucket, or in the free list.
    next: Option<usize>,
}

/// The compressed layers of a tile cache (`dtTileCache` without obstacles yet).
#[derive(Clone, Debug)]
pub struct TileCache {
    params: TileCacheParams,
    slots: Vec<Slot>,
    lookup: Vec<Option<usize>>,
    next_free: Option<usize>,
    tile_bits: u32,
    salt_bits: u32,
    off_mesh_links: Vec<OffMeshConnectionParams>,
}

impl TileCache {
    /// An empty cache of `params.max_tiles` slots (`dtTileCache::init`).
    pub fn new(params: TileCacheParams) -> Result<Self, TileCacheError> {
        let max_tiles = usize::try_from(params.max_tiles)
            .ok()
            .filter(|&n| (1..=1 << 22).contains(&n))
            .ok_or_else(|| {
                TileCacheError::InvalidParams(format!(
                    "maxTiles {} must be between 1 and 4194304",
                    params.max_tiles
                ))
            })?;
        let lookup_size = next_pow2((max_tiles / 4) as u32).max(1) as usize;
        let tile_bits = ilog2(next_pow2(max_tiles as u32));
        let salt_bits = (32 - tile_bits).min(31);
        // Free list in slot order: slot 0 is handed out first.
        let slots = (0..max_tiles)
            .map(|i| Slot {
                salt: 1,
                layer: None,
                next: (i + 1 < max_tiles).then_some(i + 1),
            })
            .collect();
        Ok(Self {
            params,
            slots,
            lookup: vec![None; lookup_size],
            next_free: Some(0),
            tile_bits,
            salt_bits,
            off_mesh_links: Vec::new(),
        })
    }

    /// The cache's parameters.
    pub fn params(&self) -> &TileCacheParams {
        &self.params
    }

    /// Every stored layer with its slot index, in slot order (`getTile` over `getTileCount`),
    /// for drawing and statistics.
    pub fn layers(&self) -> impl Iterator<Item = (usize, &LayerHeader, &[u8])> + '_ {
        self.slots.iter().enumerate().filter_map(|(i, slot)| {
            slot.layer
                .as_ref()
                .map(|(header, data)| (i, header, data.as_slice()))
        })
    }

    /// The box a layer's cells fill (`calcTightTileBounds`): its data columns across, its
    /// whole height range up.
    pub fn tight_bounds(&self, header: &LayerHeader) -> ([f32; 3], [f32; 3]) {
        let cs = self.params.cs;
        (
            [
                header.bmin[0] + f32::from(header.minx) * cs,
                header.bmin[1],
                header.bmin[2] + f32::from(header.miny) * cs,
            ],
            [
                header.bmin[0] + (f32::from(header.maxx) + 1.0) * cs,
                header.bmax[1],
                header.bmin[2] + (f32::from(header.maxy) + 1.0) * cs,
            ],
        )
    }

    /// The off-mesh links passed to every navmesh tile built from this cache.
    pub fn off_mesh_links(&self) -> &[OffMeshConnectionParams] {
        &self.off_mesh_links
    }

    /// Sets the links tiles built from now on get; tiles already built keep theirs.
    pub fn set_off_mesh_links(&mut self, links: Vec<OffMeshConnectionParams>) {
        self.off_mesh_links = links;
    }

    fn bucket(&self, tx: i32, ty: i32) -> usize {
        tile_hash(tx, ty, self.lookup.len() as u32 - 1)
    }

    fn encode(&self, salt: u32, index: usize) -> CompressedTileRef {
        (salt << self.tile_bits) | index as u32
    }

    /// The slot of a live reference.
    fn slot_of(&self, r: CompressedTileRef) -> Option<usize> {
        let index = (r & ((1u32 << self.tile_bits) - 1)) as usize;
        let salt = (r >> self.tile_bits) & ((1u32 << self.salt_bits) - 1);
        self.slots
            .get(index)
            .filter(|s| r != 0 && s.salt == salt && s.layer.is_some())
            .map(|_| index)
    }

    /// The slots of a lookup bucket, in chain order.
    fn chain(&self, bucket: usize) -> impl Iterator<Item = usize> + '_ {
        std::iter::successors(self.lookup[bucket], |&i| self.slots[i].next)
    }

    /// Stores a layer's bytes (`addTile`), checking its header; returns its reference.
    pub fn add_layer(&mut self, data: Vec<u8>) -> Result<CompressedTileRef, TileCacheError> {
        let header = LayerHeader::from_bytes(&data)?;
        if self.layer_at(header.tx, header.ty, header.tlayer).is_some() {
            return Err(TileCacheError::LayerExists {
                tx: header.tx,
                ty: header.ty,
                tlayer: header.tlayer,
            });
        }
        let index = self
            .next_free
            .ok_or(TileCacheError::Full(self.slots.len()))?;
        self.next_free = self.slots[index].next;
        let bucket = self.bucket(header.tx, header.ty);
        self.slots[index].next = self.lookup[bucket];
        self.lookup[bucket] = Some(index);
        self.slots[index].layer = Some((header, data));
        Ok(self.encode(self.slots[index].salt, index))
    }

    /// Takes a stored layer out (`removeTile`) and returns its bytes; its slot's salt moves on.
    pub fn remove_layer(&mut self, r: CompressedTileRef) -> Result<Vec<u8>, TileCacheError> {
        let index = self.slot_of(r).ok_or(TileCacheError::InvalidRef(r))?;
        let (header, data) = self.slots[index]
            .layer
            .take()
            .ok_or(TileCacheError::InvalidRef(r))?;
        let bucket = self.bucket(header.tx, header.ty);
        let mut previous: Option<usize> = None;
        let mut current = self.lookup[bucket];
        while let Some(i) = current {
            if i == index {
                match previous {
                    None => self.lookup[bucket] = self.slots[i].next,
                    Some(p) => self.slots[p].next = self.slots[i].next,
                }
                break;
            }
            previous = current;
            current = self.slots[i].next;
        }
        let slot = &mut self.slots[index];
        slot.salt = (slot.salt + 1) & ((1u32 << self.salt_bits) - 1);
        if slot.salt == 0 {
            slot.salt = 1;
        }
        slot.next = self.next_free;
        self.next_free = Some(index);
        Ok(data)
    }

    /// The reference of layer `tlayer` of tile (`tx`, `ty`), if stored (`getTileAt`).
    pub fn layer_at(&self, tx: i32, ty: i32, tlayer: i32) -> Option<CompressedTileRef> {
        self.chain(self.bucket(tx, ty)).find_map(|i| {
            let slot = &self.slots[i];
            let (h, _) = slot.layer.as_ref()?;
            (h.tx == tx && h.ty == ty && h.tlayer == tlayer).then(|| self.encode(slot.salt, i))
        })
    }

    /// The references of every layer of tile (`tx`, `ty`), in lookup order (`getTilesAt`).
    pub fn layers_at(&self, tx: i32, ty: i32) -> Vec<CompressedTileRef> {
        self.layers_at_iter(tx, ty).collect()
    }

    fn layers_at_iter(&self, tx: i32, ty: i32) -> impl Iterator<Item = CompressedTileRef> + '_ {
        self.chain(self.bucket(tx, ty)).filter_map(move |i| {
            let slot = &self.slots[i];
            let (h, _) = slot.layer.as_ref()?;
            (h.tx == tx && h.ty == ty).then(|| self.encode(slot.salt, i))
        })
    }

    /// The layers whose tight bounds (their data rectangle, full height) overlap the box
    /// `bmin`–`bmax`, tile by tile in rows, as `queryTiles` finds the layers an obstacle touches.
    pub fn query_layers(&self, bmin: [f32; 3], bmax: [f32; 3]) -> Vec<CompressedTileRef> {
        let mut found = Vec::new();
        self.query_layers_into(bmin, bmax, &mut found);
        found
    }

    /// [`TileCache::query_layers`] into `found` (cleared first), reusing its memory.
    pub fn query_layers_into(
        &self,
        bmin: [f32; 3],
        bmax: [f32; 3],
        found: &mut Vec<CompressedTileRef>,
    ) {
        found.clear();
        let p = &self.params;
        let (tw, th) = (p.width as f32 * p.cs, p.height as f32 * p.cs);
        let tile = |v: f32, orig: f32, size: f32| ((v - orig) / size).floor() as i32;
        let (tx0, tx1) = (tile(bmin[0], p.orig[0], tw), tile(bmax[0], p.orig[0], tw));
        let (ty0, ty1) = (tile(bmin[2], p.orig[2], th), tile(bmax[2], p.orig[2], th));
        let columns = (i64::from(tx1) - i64::from(tx0) + 1)
            .max(0)
            .saturating_mul((i64::from(ty1) - i64::from(ty0) + 1).max(0));
        // A box wider than the cache has layers (a hostile or mistaken obstacle) is answered by
        // looking at every stored layer once, not at every column it spans.
        if columns > self.slots.len() as i64 {
            let mut all: Vec<(i32, i32, CompressedTileRef)> = self
                .slots
                .iter()
                .enumerate()
                .filter_map(|(i, slot)| {
                    let (h, _) = slot.layer.as_ref()?;
                    ((tx0..=tx1).contains(&h.tx) && (ty0..=ty1).contains(&h.ty))
                        .then(|| (h.ty, h.tx, self.encode(slot.salt, i)))
                })
                .collect();
            all.sort_by_key(|&(ty, tx, _)| (ty, tx));
            found.extend(all.into_iter().map(|(_, _, r)| r));
        } else {
            for ty in ty0..=ty1 {
                for tx in tx0..=tx1 {
                    found.extend(self.layers_at_iter(tx, ty));
                }
            }
        }
        found.retain(|&r| {
            self.layer(r).is_some_and(|(h, _)| {
                let (tmin, tmax) = self.tight_bounds(h);
                (0..3).all(|k| bmin[k] <= tmax[k] && bmax[k] >= tmin[k])
            })
        });
    }

    /// A stored layer's header and bytes.
    pub fn layer(&self, r: CompressedTileRef) -> Option<(&LayerHeader, &[u8])> {
        let (h, data) = self.slots[self.slot_of(r)?].layer.as_ref()?;
        Some((h, data))
    }

    /// Every stored layer in slot order, as a TSET file lists them.
    pub fn stored_layers(&self) -> Vec<StoredLayer> {
        self.slots
            .iter()
            .enumerate()
            .filter_map(|(i, slot)| {
                let (_, data) = slot.layer.as_ref()?;
                Some(StoredLayer {
                    tile_ref: self.encode(slot.salt, i),
                    data: data.clone(),
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tile_cache::layer::build_compressed_layer;

    fn layer(tx: i32, ty: i32, tlayer: i32) -> Vec<u8> {
        let header = LayerHeader {
            tx,
            ty,
            tlayer,
            width: 1,
            height: 1,
            ..Default::default()
        };
        build_compressed_layer(&header, &[0], &[0], &[0]).unwrap()
    }

    #[test]
    fn references_encode_slot_and_salt_as_cpp() {
        let params = TileCacheParams {
            max_tiles: 168,
            ..Default::default()
        };
        let mut cache = TileCache::new(params).unwrap();
        let a = cache.add_layer(layer(3, 0, 0)).unwrap();
        let b = cache.add_layer(layer(3, 0, 1)).unwrap();
        assert_eq!((a, b), (256, 257));
        assert_eq!(cache.layer_at(3, 0, 1), Some(b));
        assert_eq!(cache.layers_at(3, 0), [b, a]);
        assert!(matches!(
            cache.add_layer(layer(3, 0, 0)),
            Err(TileCacheError::LayerExists { .. })
        ));
        cache.remove_layer(a).unwrap();
        assert_eq!(cache.remove_layer(a), Err(TileCacheError::InvalidRef(a)));
        // The freed slot comes back first, with the next salt.
        assert_eq!(cache.add_layer(layer(5, 5, 0)).unwrap(), 2 << 8);
        assert_eq!(cache.remove_layer(0), Err(TileCacheError::InvalidRef(0)));
        assert_eq!(
            cache.remove_layer(u32::MAX),
            Err(TileCacheError::InvalidRef(u32::MAX))
        );
        assert!(TileCache::new(TileCacheParams::default()).is_err());
        let mut tiny = TileCache::new(TileCacheParams {
            max_tiles: 1,
            ..Default::default()
        })
        .unwrap();
        tiny.add_layer(layer(0, 0, 0)).unwrap();
        assert_eq!(tiny.add_layer(layer(1, 0, 0)), Err(TileCacheError::Full(1)));
    }
}
