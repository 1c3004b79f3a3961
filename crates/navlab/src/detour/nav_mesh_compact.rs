//! Navlab's compact navmesh file: the MSET file's content with each tile's link slots left out
//! and the tiles zstd-compressed. Adding a tile to a navmesh rebuilds its links, so a file made
//! from a baked navmesh loads to exactly the navmesh its MSET file loads to; C++ Detour reads
//! only MSET, which stays the default output.
//!
//! Layout, little-endian:
//!
//! | bytes | field |
//! |---|---|
//! | 4 | magic `NLMZ` |
//! | 4 | version, 1 |
//! | 4 | flags: bit 0 set when the link slots are stored (see below), bit 1 when the navmesh has long-range links (`docs/long-range-links.md`), bit 2 when its polygon references are 64-bit (`docs/poly-refs.md`) |
//! | 4 | tile count `n` |
//! | 28 | `dtNavMeshParams`: origin x y z, tile width, tile height (f32), max tiles, max polys (i32) |
//! | 12 × n (16 × n with 64-bit references) | per tile: its reference (u32, or u64), its data size in MSET, its stored size (u32 each) |
//! | rest | one zstd frame: the stored tiles in table order |
//!
//! A stored tile is Detour's tile data without the `maxLinkCount` links after its polygons
//! (the header keeps the count, so the loader puts zeroed slots back). Slots a tile's links
//! do not fill keep whatever they held, and an edited navmesh (tiles removed and re-added) can
//! hold stale ones there; the writer checks that the link-less file loads to what the MSET
//! file loads to, and stores the slots (flag bit 0) when it does not.

use std::io::Read;
use std::path::Path;

use super::nav_mesh::{NavMesh, NavMeshParams};
use super::nav_mesh_file::{COMPACT_MAGIC, MAX_NAVMESH_FILE_BYTES, NavMeshFileError, slot_budget};
use super::tile::{
    HEADER_SIZE, MeshTile, POLY_SIZE, VERT_SIZE, f32_at, i32_at, put_f32, put_i32, put_u32,
};
use super::{DetourError, RefWidth, TileRef, VERTS_PER_POLYGON};

/// The format version this module writes and reads.
pub const COMPACT_VERSION: u32 = 1;
/// How many times its compressed size a frame may claim to expand to. Navmesh tiles compress
/// some 3 to 10 times at level 19; a frame of repeated bytes can claim 30 000 times and more.
pub(crate) const MAX_COMPRESSION_RATIO: u64 = 256;

/// A small file may always expand this far, whatever its ratio.
pub(crate) const MIN_EXPANSION_BUDGET: u64 = 1 << 20;

/// The most link slots a polygon can need: one per edge, two more per portal edge, two per
/// off-mesh link.
pub(crate) const MAX_LINKS_PER_POLY: u64 = 3 * VERTS_PER_POLYGON as u64 + 2;

/// Flag: the tiles keep their link slots.
const LINKS_STORED: u32 = 1;
/// Flag: the navmesh has long-range links ([`NavMesh::enable_long_range_links`]), which the
/// loader turns on before adding the tiles (they hold the links' connections).
const LONG_RANGE_LINKS: u32 = 2;
/// Flag: the navmesh's references are 64 bits wide, and so are the table's tile references.
const REFS_64: u32 = 4;
const FILE_HEADER_SIZE: usize = 44;

/// Bytes of one tile-table row: the reference and two sizes.
fn tile_entry_size(width: RefWidth) -> usize {
    width.ref_size() + 8
}
/// zstd's level: a tiled city's tiles repeat far apart, which 19's larger window finds (the
/// 1 km² city's MSET file packs to 0.26 MB at 19 against 0.45 MB at 3), for a few seconds of
/// writing; loading is as fast at any level.
const ZSTD_LEVEL: i32 = 19;

impl NavMesh {
    /// The navmesh as a compact file (see the module's documentation).
    pub fn to_compact_bytes(&self) -> Result<Vec<u8>, DetourError> {
        let linkless = compact_bytes(self, false)?;
        let mset_loaded = NavMesh::from_mset_bytes(&self.to_mset_bytes())?;
        if NavMesh::from_compact_bytes(&linkless)?.to_mset_bytes() == mset_loaded.to_mset_bytes() {
            Ok(linkless)
        } else {
            compact_bytes(self, true)
        }
    }

    /// Loads a compact file, checking every size against what remains and each tile as
    /// [`MeshTile::from_bytes`] does: hostile input yields an error, never a panic. The tiles
    /// expand to at most [`MAX_NAVMESH_FILE_BYTES`], the MSET loader's limit.
    pub fn from_compact_bytes(data: &[u8]) -> Result<NavMesh, DetourError> {
        if data.len() < FILE_HEADER_SIZE {
            return Err(DetourError::Truncated {
                what: "compact navmesh file header",
                needed: FILE_HEADER_SIZE as u64,
                available: data.len() as u64,
            });
        }
        if data[..4] != COMPACT_MAGIC {
            return Err(DetourError::WrongFileMagic {
                found: i32_at(data, 0),
            });
        }
        let word = |at: usize| i32_at(data, at) as u32;
        if word(4) != COMPACT_VERSION {
            return Err(DetourError::WrongFileVersion {
                found: word(4) as i32,
            });
        }
        let flags = word(8);
        if flags & !(LINKS_STORED | LONG_RANGE_LINKS | REFS_64) != 0 {
            return Err(DetourError::BadCount {
                field: "flags",
                value: flags.into(),
            });
        }
        let links_stored = flags & LINKS_STORED != 0;
        let width = if flags & REFS_64 != 0 {
            RefWidth::Bits64
        } else {
            RefWidth::Bits32
        };
        let entry_size = tile_entry_size(width);
        let tile_count = word(12) as usize;
        let params = NavMeshParams {
            orig: [f32_at(data, 16), f32_at(data, 20), f32_at(data, 24)],
            tile_width: f32_at(data, 28),
            tile_height: f32_at(data, 32),
            max_tiles: i32_at(data, 36),
            max_polys: i32_at(data, 40),
            ref_width: width,
        };
        let table_bytes = tile_count as u64 * entry_size as u64;
        let rest = &data[FILE_HEADER_SIZE..];
        if table_bytes > rest.len() as u64 {
            return Err(DetourError::Truncated {
                what: "compact navmesh tile table",
                needed: table_bytes,
                available: rest.len() as u64,
            });
        }
        let (table, frame) = rest.split_at(table_bytes as usize);
        let at = width.ref_size();
        let entries: Vec<TileEntry> = table
            .chunks_exact(entry_size)
            .map(|e| TileEntry {
                tile_ref: width.ref_at(e),
                data_size: i32_at(e, at) as u32,
                stored_size: i32_at(e, at + 4) as u32,
            })
            .collect();
        let expanded: u64 = entries.iter().map(|e| u64::from(e.data_size)).sum();
        let stored: u64 = entries.iter().map(|e| u64::from(e.stored_size)).sum();
        if expanded.max(stored) > MAX_NAVMESH_FILE_BYTES {
            return Err(DetourError::BadCount {
                field: "tile data sizes",
                value: expanded.max(stored) as i64,
            });
        }
        // Checked before anything is decompressed: what the table claims must be what the
        // frame says it holds, and no more than real tiles compress from.
        let frame_budget = (frame.len() as u64)
            .saturating_mul(MAX_COMPRESSION_RATIO)
            .max(MIN_EXPANSION_BUDGET);
        if stored > frame_budget {
            return Err(DetourError::ExpansionTooLarge {
                claimed: stored,
                compressed: frame.len() as u64,
                limit: frame_budget,
            });
        }
        if let Ok(Some(content)) = zstd::zstd_safe::get_frame_content_size(frame)
            && content != stored
        {
            return Err(DetourError::TileSizeMismatch {
                expected: stored,
                actual: content,
            });
        }
        let tiles = decompress(frame, stored)?;
        let mut mesh = NavMesh::new(params)?;
        if flags & LONG_RANGE_LINKS != 0 {
            mesh.enable_long_range_links();
        }
        let mut offset = 0usize;
        let mut tile_data = Vec::new();
        for (index, entry) in entries.iter().enumerate() {
            // The file offset of the tile's table row: its data is inside the zstd frame.
            let in_tile = |source: DetourError| DetourError::FileTile {
                index,
                offset: FILE_HEADER_SIZE + index * entry_size,
                source: Box::new(source),
            };
            let slot = u64::from(mesh.decode_poly_id_tile(entry.tile_ref));
            let budget = slot_budget(expanded as usize);
            if slot >= budget {
                return Err(in_tile(DetourError::SlotBeyondBudget {
                    index: slot,
                    budget,
                    file_bytes: expanded,
                }));
            }
            let stored_tile = &tiles[offset..offset + entry.stored_size as usize];
            if links_stored {
                tile_data.clear();
                tile_data.extend_from_slice(stored_tile);
            } else {
                restore_link_slots(stored_tile, entry.data_size, width, &mut tile_data)
                    .map_err(in_tile)?;
            }
            if tile_data.len() != entry.data_size as usize {
                return Err(in_tile(DetourError::TileSizeMismatch {
                    expected: entry.data_size.into(),
                    actual: tile_data.len() as u64,
                }));
            }
            let tile = MeshTile::from_bytes(&tile_data, width).map_err(in_tile)?;
            mesh.add_tile(tile, entry.tile_ref).map_err(in_tile)?;
            offset += entry.stored_size as usize;
        }
        Ok(mesh)
    }
}

/// One row of the tile table.
struct TileEntry {
    tile_ref: TileRef,
    /// The tile's bytes with its link slots, as in MSET.
    data_size: u32,
    /// The tile's bytes in the compressed frame.
    stored_size: u32,
}

/// The compact file, with or without the tiles' link slots.
fn compact_bytes(mesh: &NavMesh, links_stored: bool) -> Result<Vec<u8>, DetourError> {
    let mut out = COMPACT_MAGIC.to_vec();
    put_u32(&mut out, COMPACT_VERSION);
    let long_links = if mesh.long_links().next().is_some() {
        LONG_RANGE_LINKS
    } else {
        0
    };
    let width = mesh.ref_width();
    let refs_64 = match width {
        RefWidth::Bits32 => 0,
        RefWidth::Bits64 => REFS_64,
    };
    put_u32(
        &mut out,
        long_links | refs_64 | if links_stored { LINKS_STORED } else { 0 },
    );
    put_u32(&mut out, mesh.tile_count() as u32);
    let p = mesh.params();
    for v in [p.orig[0], p.orig[1], p.orig[2], p.tile_width, p.tile_height] {
        put_f32(&mut out, v);
    }
    put_i32(&mut out, p.max_tiles);
    put_i32(&mut out, p.max_polys);
    let mut tiles = Vec::new();
    for (tile_ref, tile) in mesh.tiles() {
        let data = tile.to_bytes(width);
        let links = link_section(tile, width);
        let before = tiles.len();
        if links_stored {
            tiles.extend_from_slice(&data);
        } else {
            tiles.extend_from_slice(&data[..links.start]);
            tiles.extend_from_slice(&data[links.end..]);
        }
        width.put_ref(&mut out, tile_ref);
        // Tiles never exceed i32::MAX bytes (checked when built or loaded).
        put_u32(&mut out, data.len() as u32);
        put_u32(&mut out, (tiles.len() - before) as u32);
    }
    let frame = zstd::bulk::compress(&tiles, ZSTD_LEVEL)
        .map_err(|err| DetourError::Compression(err.to_string()))?;
    out.extend_from_slice(&frame);
    Ok(out)
}

/// The byte range of a tile's links in its data: after the header, vertices and polygons.
pub(crate) fn link_section(tile: &MeshTile, width: RefWidth) -> std::ops::Range<usize> {
    let start = HEADER_SIZE + tile.verts().len() * VERT_SIZE + tile.polys().len() * POLY_SIZE;
    start..start + tile.max_link_count() * width.link_size()
}

/// `stored` (a tile without links) with zeroed link slots put back, into `out`, refusing a
/// header whose link section does not fit `data_size`.
pub(crate) fn restore_link_slots(
    stored: &[u8],
    data_size: u32,
    width: RefWidth,
    out: &mut Vec<u8>,
) -> Result<(), DetourError> {
    if stored.len() < HEADER_SIZE {
        return Err(DetourError::Truncated {
            what: "tile header",
            needed: HEADER_SIZE as u64,
            available: stored.len() as u64,
        });
    }
    let count = |at: usize| u64::from(i32_at(stored, at).max(0) as u32);
    let (poly_count, vert_count, max_links) = (count(24), count(28), count(32));
    // Zeroed slots are made here, not read, so their count is held to what the tile's
    // polygons can use (Detour's builder: each edge, twice per portal, twice per off-mesh
    // link), before any is allocated.
    if max_links > poly_count * MAX_LINKS_PER_POLY {
        return Err(DetourError::BadCount {
            field: "maxLinkCount",
            value: max_links as i64,
        });
    }
    let link_start =
        HEADER_SIZE as u64 + vert_count * VERT_SIZE as u64 + poly_count * POLY_SIZE as u64;
    let link_bytes = max_links * width.link_size() as u64;
    if link_start > stored.len() as u64 || stored.len() as u64 + link_bytes != u64::from(data_size)
    {
        return Err(DetourError::TileSizeMismatch {
            expected: data_size.into(),
            actual: stored.len() as u64 + link_bytes,
        });
    }
    let link_start = link_start as usize;
    out.clear();
    out.extend_from_slice(&stored[..link_start]);
    out.resize(link_start + link_bytes as usize, 0);
    out.extend_from_slice(&stored[link_start..]);
    Ok(())
}

/// The zstd frame's content, which must be exactly `size` bytes; read through a bound so a
/// hostile frame cannot make more.
fn decompress(frame: &[u8], size: u64) -> Result<Vec<u8>, DetourError> {
    let decoder = zstd::stream::read::Decoder::new(frame)
        .map_err(|err| DetourError::Compression(err.to_string()))?;
    let mut out = Vec::new();
    // One allocation of the checked size, not doublings past it.
    usize::try_from(size)
        .ok()
        .and_then(|size| out.try_reserve_exact(size).ok())
        .ok_or_else(|| DetourError::Compression(format!("no memory for {size} bytes")))?;
    decoder
        .take(size + 1)
        .read_to_end(&mut out)
        .map_err(|err| DetourError::Compression(err.to_string()))?;
    if out.len() as u64 != size {
        return Err(DetourError::TileSizeMismatch {
            expected: size,
            actual: out.len() as u64,
        });
    }
    Ok(out)
}

/// Writes `mesh` to `path` as a compact file, whole or not at all.
pub fn save_compact_nav_mesh(path: &Path, mesh: &NavMesh) -> Result<(), NavMeshFileError> {
    let bytes = mesh
        .to_compact_bytes()
        .map_err(|source| NavMeshFileError::Invalid {
            path: path.to_owned(),
            source,
        })?;
    Ok(crate::file::write_atomically(path, &bytes)?)
}
