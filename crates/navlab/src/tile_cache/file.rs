//! RecastDemo's tile-cache file ("TSET", `Sample_TempObstacles::saveAll`): a 92-byte header with
//! the navmesh's and the tile cache's parameters, then each stored layer as its tile-cache
//! reference, its size and its bytes. Little-endian, no padding (see the reference data's
//! `tests/data/reference/detour/TILECACHE_FORMAT.md`).
//!
//! Reading checks every count and size against the bytes that remain before allocating, and
//! every layer's header and cells ([`decompress_layer`]), so a hostile file is an error naming
//! the record, never a panic or a large allocation. As in the demo, a record with reference 0 or
//! size 0 ends the list, and the bytes after it are ignored.
//!
//! Beyond the demo's format: the tile cache's off-mesh links (RecastDemo keeps them in the
//! geometry, not in the file) follow the last layer record as one block, which the demo's
//! `loadAll` never reads: it reads `numTiles` records and stops. All little-endian:
//!
//! ```text
//! i32 magic 'O'<<24|'M'<<16|'L'<<8|'K' (bytes "KLMO"), i32 version 1, i32 count,
//! then per link 36 bytes:
//!   f32 start[3], f32 end[3], f32 radius, u8 bidirectional (0 or 1), u8 area (< 64),
//!   u16 flags, u32 user id
//! ```
//!
//! A set without links writes no block, so its bytes are the demo's. When the list ended early
//! (a zero record) the rest is ignored as the demo does; otherwise bytes after the last record
//! must be one valid block: its magic, version, count (bounded by the bytes left), every field
//! (finite, radius not negative) are checked and nothing may follow it.

use crate::detour::tile::{f32_at, i32_at};
use crate::detour::{NavMeshParams, OffMeshConnectionParams, RefWidth};

use super::layer::{LayerError, decompress_layer};

/// `TILECACHESET_MAGIC`: "TSET" as a little-endian int.
pub const TILE_CACHE_SET_MAGIC: i32 = i32::from_be_bytes(*b"TSET");
/// `TILECACHESET_VERSION`.
pub const TILE_CACHE_SET_VERSION: i32 = 1;
const SET_HEADER_SIZE: usize = 92;
const TILE_HEADER_SIZE: usize = 8;
/// The off-mesh link block's magic, "OMLK" as a little-endian int.
pub const OFF_MESH_BLOCK_MAGIC: i32 = i32::from_be_bytes(*b"OMLK");
/// The off-mesh link block's version.
pub const OFF_MESH_BLOCK_VERSION: i32 = 1;
const OFF_MESH_BLOCK_HEADER_SIZE: usize = 12;
const OFF_MESH_LINK_SIZE: usize = 36;

/// The tile cache's grid and agent (`dtTileCacheParams`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TileCacheParams {
    /// The tile grid's origin (`dtTileCacheParams::orig`), world units.
    pub orig: [f32; 3],
    /// Cell size on xz, world units.
    pub cs: f32,
    /// Cell height, world units.
    pub ch: f32,
    /// Tile size in cells.
    pub width: i32,
    /// Tile height in cells (z).
    pub height: i32,
    /// Agent dimensions in world units.
    pub walkable_height: f32,
    /// The agent's radius, world units, for obstacle erosion.
    pub walkable_radius: f32,
    /// The agent's climb, world units.
    pub walkable_climb: f32,
    /// Contour simplification error, cells (`maxSimplificationError`).
    pub max_simplification_error: f32,
    /// Stored-layer slots and obstacle slots.
    pub max_tiles: i32,
    /// Obstacles the cache can hold at once.
    pub max_obstacles: i32,
}

/// One stored layer of the file: its tile-cache reference and its bytes (header and cells).
#[derive(Clone, Debug, PartialEq)]
pub struct StoredLayer {
    /// The stored layer's reference in the cache (`dtCompressedTileRef`).
    pub tile_ref: u32,
    /// The layer's bytes: header and compressed grids.
    pub data: Vec<u8>,
}

/// A whole tile-cache file.
#[derive(Clone, Debug, PartialEq)]
pub struct TileCacheSet {
    /// The navmesh's parameters, as the demo writes them first.
    pub nav_mesh_params: NavMeshParams,
    /// The tile cache's parameters.
    pub cache_params: TileCacheParams,
    /// Every stored layer, in the file's order.
    pub layers: Vec<StoredLayer>,
    /// Links every navmesh tile built from the cache gets; empty writes the demo's bytes.
    pub off_mesh_links: Vec<OffMeshConnectionParams>,
}

/// Why a tile-cache file could not be read.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum TileCacheFileError {
    #[error("the file ends in the {what}: {needed} bytes needed, {available} left")]
    /// Fewer bytes than a structure needs.
    Truncated {
        /// What was being read.
        what: &'static str,
        /// Bytes it needs.
        needed: usize,
        /// Bytes left.
        available: usize,
    },
    #[error("not a tile-cache file (magic {0:#010x}, not TSET)")]
    /// A file that does not start with the TSET magic (the value found).
    BadMagic(i32),
    #[error("tile-cache file version {0}; only 1 is known")]
    /// A file of another version (the one found).
    BadVersion(i32),
    #[error("the header counts {0} layers")]
    /// A negative layer count (the one found).
    BadLayerCount(i32),
    #[error("layer record {index} says {size} bytes")]
    /// A layer record whose size is negative or past the end of the file.
    BadLayerSize {
        /// The record's place in the file.
        index: usize,
        /// Its size.
        size: i32,
    },
    #[error("layer record {index}: {source}")]
    /// A stored layer that does not read as one.
    Layer {
        /// The record's place in the file.
        index: usize,
        /// Why.
        source: LayerError,
    },
    #[error(
        "bytes after the last layer record are not an off-mesh link block (magic {0:#010x}, not OMLK)"
    )]
    /// Bytes after the layers that are not an OMLK block (the magic found).
    BadLinkMagic(i32),
    #[error("off-mesh link block version {0}; only 1 is known")]
    /// An OMLK block of another version (the one found).
    BadLinkVersion(i32),
    #[error("the off-mesh link block counts {count} links but {available} bytes follow")]
    /// An OMLK count the bytes left cannot hold.
    BadLinkCount {
        /// Links the block claims.
        count: i32,
        /// Bytes left for them.
        available: usize,
    },
    #[error("off-mesh link {index}: {reason}")]
    /// An off-mesh link with an impossible value.
    BadLink {
        /// The link's place in the block.
        index: usize,
        /// What is wrong.
        reason: &'static str,
    },
    #[error("{0} bytes follow the off-mesh link block")]
    /// Bytes after the OMLK block (how many).
    TrailingBytes(usize),
}

impl TileCacheSet {
    /// The file's bytes, as `saveAll` writes them.
    pub fn to_bytes(&self) -> Vec<u8> {
        let total: usize = self
            .layers
            .iter()
            .map(|l| TILE_HEADER_SIZE + l.data.len())
            .sum();
        let mut out = Vec::with_capacity(SET_HEADER_SIZE + total);
        let (n, c) = (&self.nav_mesh_params, &self.cache_params);
        let ints = |out: &mut Vec<u8>, values: &[i32]| {
            values.iter().for_each(|v| out.extend(v.to_le_bytes()));
        };
        let floats = |out: &mut Vec<u8>, values: &[f32]| {
            values.iter().for_each(|v| out.extend(v.to_le_bytes()));
        };
        ints(
            &mut out,
            &[
                TILE_CACHE_SET_MAGIC,
                TILE_CACHE_SET_VERSION,
                self.layers.len() as i32,
            ],
        );
        floats(
            &mut out,
            &[n.orig[0], n.orig[1], n.orig[2], n.tile_width, n.tile_height],
        );
        ints(&mut out, &[n.max_tiles, n.max_polys]);
        floats(&mut out, &[c.orig[0], c.orig[1], c.orig[2], c.cs, c.ch]);
        ints(&mut out, &[c.width, c.height]);
        floats(
            &mut out,
            &[
                c.walkable_height,
                c.walkable_radius,
                c.walkable_climb,
                c.max_simplification_error,
            ],
        );
        ints(&mut out, &[c.max_tiles, c.max_obstacles]);
        for layer in &self.layers {
            out.extend(layer.tile_ref.to_le_bytes());
            out.extend((layer.data.len() as i32).to_le_bytes());
            out.extend(&layer.data);
        }
        if !self.off_mesh_links.is_empty() {
            ints(
                &mut out,
                &[
                    OFF_MESH_BLOCK_MAGIC,
                    OFF_MESH_BLOCK_VERSION,
                    self.off_mesh_links.len() as i32,
                ],
            );
            for link in &self.off_mesh_links {
                floats(&mut out, &link.start);
                floats(&mut out, &link.end);
                floats(&mut out, &[link.radius]);
                out.extend([u8::from(link.bidirectional), link.area]);
                out.extend(link.flags.to_le_bytes());
                out.extend(link.user_id.to_le_bytes());
            }
        }
        out
    }

    /// Reads a tile-cache file's bytes, checking every record and layer.
    pub fn from_bytes(data: &[u8]) -> Result<Self, TileCacheFileError> {
        if data.len() < SET_HEADER_SIZE {
            return Err(TileCacheFileError::Truncated {
                what: "file header",
                needed: SET_HEADER_SIZE,
                available: data.len(),
            });
        }
        match (i32_at(data, 0), i32_at(data, 4)) {
            (TILE_CACHE_SET_MAGIC, TILE_CACHE_SET_VERSION) => {}
            (TILE_CACHE_SET_MAGIC, version) => return Err(TileCacheFileError::BadVersion(version)),
            (magic, _) => return Err(TileCacheFileError::BadMagic(magic)),
        }
        let count = i32_at(data, 8);
        // Each record takes at least its 8-byte header: a count the file cannot hold is refused
        // before anything is reserved for it.
        let records = usize::try_from(count)
            .ok()
            .filter(|&n| n <= (data.len() - SET_HEADER_SIZE) / TILE_HEADER_SIZE)
            .ok_or(TileCacheFileError::BadLayerCount(count))?;
        let nav_mesh_params = NavMeshParams {
            orig: [f32_at(data, 12), f32_at(data, 16), f32_at(data, 20)],
            tile_width: f32_at(data, 24),
            tile_height: f32_at(data, 28),
            max_tiles: i32_at(data, 32),
            max_polys: i32_at(data, 36),
            // The file holds no references; whoever makes the navmesh chooses their width.
            ref_width: RefWidth::Bits32,
        };
        let cache_params = TileCacheParams {
            orig: [f32_at(data, 40), f32_at(data, 44), f32_at(data, 48)],
            cs: f32_at(data, 52),
            ch: f32_at(data, 56),
            width: i32_at(data, 60),
            height: i32_at(data, 64),
            walkable_height: f32_at(data, 68),
            walkable_radius: f32_at(data, 72),
            walkable_climb: f32_at(data, 76),
            max_simplification_error: f32_at(data, 80),
            max_tiles: i32_at(data, 84),
            max_obstacles: i32_at(data, 88),
        };
        let mut layers = Vec::with_capacity(records);
        let mut offset = SET_HEADER_SIZE;
        let mut ended_early = false;
        for index in 0..records {
            let rest = &data[offset..];
            if rest.len() < TILE_HEADER_SIZE {
                return Err(TileCacheFileError::Truncated {
                    what: "layer record header",
                    needed: TILE_HEADER_SIZE,
                    available: rest.len(),
                });
            }
            let tile_ref = i32_at(rest, 0) as u32;
            let size = i32_at(rest, 4);
            if tile_ref == 0 || size == 0 {
                ended_early = true;
                break;
            }
            let bytes = usize::try_from(size)
                .ok()
                .and_then(|size| rest[TILE_HEADER_SIZE..].get(..size))
                .ok_or(TileCacheFileError::BadLayerSize { index, size })?;
            decompress_layer(bytes)
                .map_err(|source| TileCacheFileError::Layer { index, source })?;
            layers.push(StoredLayer {
                tile_ref,
                data: bytes.to_vec(),
            });
            offset += TILE_HEADER_SIZE + bytes.len();
        }
        let off_mesh_links = if ended_early {
            Vec::new()
        } else {
            read_off_mesh_block(&data[offset..])?
        };
        Ok(Self {
            nav_mesh_params,
            cache_params,
            layers,
            off_mesh_links,
        })
    }
}

/// The off-mesh link block after the last layer record; no bytes are no links.
fn read_off_mesh_block(data: &[u8]) -> Result<Vec<OffMeshConnectionParams>, TileCacheFileError> {
    if data.is_empty() {
        return Ok(Vec::new());
    }
    if data.len() < OFF_MESH_BLOCK_HEADER_SIZE {
        return Err(TileCacheFileError::Truncated {
            what: "off-mesh link block header",
            needed: OFF_MESH_BLOCK_HEADER_SIZE,
            available: data.len(),
        });
    }
    match (i32_at(data, 0), i32_at(data, 4)) {
        (OFF_MESH_BLOCK_MAGIC, OFF_MESH_BLOCK_VERSION) => {}
        (OFF_MESH_BLOCK_MAGIC, version) => return Err(TileCacheFileError::BadLinkVersion(version)),
        (magic, _) => return Err(TileCacheFileError::BadLinkMagic(magic)),
    }
    let count = i32_at(data, 8);
    let body = &data[OFF_MESH_BLOCK_HEADER_SIZE..];
    let n = usize::try_from(count)
        .ok()
        .filter(|&n| n <= body.len() / OFF_MESH_LINK_SIZE)
        .ok_or(TileCacheFileError::BadLinkCount {
            count,
            available: body.len(),
        })?;
    let links = body
        .chunks_exact(OFF_MESH_LINK_SIZE)
        .take(n)
        .enumerate()
        .map(|(index, b)| {
            let bad = |reason| TileCacheFileError::BadLink { index, reason };
            let f = |k: usize| f32_at(b, 4 * k);
            let link = OffMeshConnectionParams {
                start: [f(0), f(1), f(2)],
                end: [f(3), f(4), f(5)],
                radius: f(6),
                bidirectional: match b[28] {
                    0 => false,
                    1 => true,
                    _ => return Err(bad("bidirectional is neither 0 nor 1")),
                },
                area: b[29],
                flags: u16::from_le_bytes([b[30], b[31]]),
                user_id: i32_at(b, 32) as u32,
            };
            if !(0..7).all(|k| f(k).is_finite()) {
                return Err(bad("a coordinate or the radius is not finite"));
            }
            if link.radius < 0.0 {
                return Err(bad("the radius is negative"));
            }
            if link.area >= 64 {
                return Err(bad("the area is not below 64"));
            }
            Ok(link)
        })
        .collect::<Result<Vec<_>, _>>()?;
    match body.len() - n * OFF_MESH_LINK_SIZE {
        0 => Ok(links),
        rest => Err(TileCacheFileError::TrailingBytes(rest)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tile_cache::layer::{LayerHeader, build_compressed_layer};

    fn sample() -> TileCacheSet {
        let header = LayerHeader {
            width: 2,
            height: 2,
            ..Default::default()
        };
        let grid = [1, 2, 3, 4];
        TileCacheSet {
            nav_mesh_params: NavMeshParams {
                max_tiles: 4,
                max_polys: 64,
                ..Default::default()
            },
            cache_params: TileCacheParams {
                width: 2,
                height: 2,
                max_tiles: 16,
                max_obstacles: 128,
                ..Default::default()
            },
            layers: vec![StoredLayer {
                tile_ref: 256,
                data: build_compressed_layer(&header, &grid, &grid, &grid).unwrap(),
            }],
            off_mesh_links: Vec::new(),
        }
    }

    #[test]
    fn a_set_round_trips_and_bad_files_are_errors() {
        let set = sample();
        let bytes = set.to_bytes();
        assert_eq!(&bytes[..4], b"TEST");
        assert_eq!(TileCacheSet::from_bytes(&bytes).unwrap(), set);
        assert!(matches!(
            TileCacheSet::from_bytes(&bytes[..50]),
            Err(TileCacheFileError::Truncated { .. })
        ));
        let mut wrong = bytes.clone();
        wrong[8..12].copy_from_slice(&i32::MAX.to_le_bytes());
        assert_eq!(
            TileCacheSet::from_bytes(&wrong),
            Err(TileCacheFileError::BadLayerCount(i32::MAX))
        );
        let mut short = bytes.clone();
        short.truncate(bytes.len() - 3);
        assert!(matches!(
            TileCacheSet::from_bytes(&short),
            Err(TileCacheFileError::BadLayerSize { index: 0, .. })
        ));
        let mut broken = bytes.clone();
        broken[SET_HEADER_SIZE + TILE_HEADER_SIZE] = 0;
        assert!(matches!(
            TileCacheSet::from_bytes(&broken),
            Err(TileCacheFileError::Layer { index: 0, .. })
        ));
    }

    #[test]
    fn off_mesh_links_follow_the_last_record_and_are_checked() {
        let plain = sample().to_bytes();
        let mut set = sample();
        set.off_mesh_links = vec![
            OffMeshConnectionParams {
                start: [1.0, 2.0, 3.0],
                end: [4.0, 5.0, 6.0],
                radius: 0.6,
                bidirectional: true,
                area: 5,
                flags: 8,
                user_id: 1000,
            },
            OffMeshConnectionParams {
                bidirectional: false,
                user_id: 1001,
                ..Default::default()
            },
        ];
        let bytes = set.to_bytes();
        // The demo's bytes come first, unchanged: its loader reads them and stops.
        assert_eq!(&bytes[..plain.len()], &plain[..]);
        assert_eq!(&bytes[plain.len()..plain.len() + 4], b"KLMO");
        assert_eq!(bytes.len(), plain.len() + 12 + 2 * 36);
        assert_eq!(TileCacheSet::from_bytes(&bytes).unwrap(), set);

        let at = plain.len();
        let mut magic = bytes.clone();
        magic[at] ^= 1;
        assert!(matches!(
            TileCacheSet::from_bytes(&magic),
            Err(TileCacheFileError::BadLinkMagic(_))
        ));
        let mut version = bytes.clone();
        version[at + 4] = 2;
        assert_eq!(
            TileCacheSet::from_bytes(&version),
            Err(TileCacheFileError::BadLinkVersion(2))
        );
        let mut count = bytes.clone();
        count[at + 8..at + 12].copy_from_slice(&i32::MAX.to_le_bytes());
        assert!(matches!(
            TileCacheSet::from_bytes(&count),
            Err(TileCacheFileError::BadLinkCount { .. })
        ));
        assert!(matches!(
            TileCacheSet::from_bytes(&bytes[..at + 7]),
            Err(TileCacheFileError::Truncated { .. })
        ));
        assert!(matches!(
            TileCacheSet::from_bytes(&bytes[..bytes.len() - 1]),
            Err(TileCacheFileError::BadLinkCount { .. })
        ));
        let mut trailing = bytes.clone();
        trailing.push(0);
        assert_eq!(
            TileCacheSet::from_bytes(&trailing),
            Err(TileCacheFileError::TrailingBytes(1))
        );
        let first = at + 12;
        let mut nan = bytes.clone();
        nan[first..first + 4].copy_from_slice(&f32::NAN.to_le_bytes());
        let mut direction = bytes.clone();
        direction[first + 28] = 2;
        let mut area = bytes.clone();
        area[first + 29] = 64;
        let mut radius = bytes.clone();
        radius[first + 24..first + 28].copy_from_slice(&(-1.0f32).to_le_bytes());
        for broken in [nan, direction, area, radius] {
            assert!(matches!(
                TileCacheSet::from_bytes(&broken),
                Err(TileCacheFileError::BadLink { index: 0, .. })
            ));
        }
    }
}
