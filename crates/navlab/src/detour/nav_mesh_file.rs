//! RecastDemo's "MSET" all-tiles navmesh file (`Sample::saveAll` / `Sample::loadAll`).
//!
//! Layout, little-endian: a 40-byte header (magic 'MSET', version 1, tile count,
//! `dtNavMeshParams`), then per tile its reference, its byte size and its data. The demo
//! writes raw structs, so its files are in the writer's byte order; ours are always
//! little-endian, which is what the demo writes on x86 and ARM.
//!
//! With 64-bit references (`DT_POLYREF64`) a tile's reference takes 8 bytes and 4 padding
//! bytes follow its size (16 bytes in all, not 8), and each link in the tile data grows by 4.
//! Nothing else marks the width: the loader tells it by where the first tile's data starts
//! and whether its size adds up ([`mset_ref_width`]).
//!
//! A navmesh with long-range links (`NavMesh::enable_long_range_links`) has one more block
//! after the tiles, which C++'s loader, reading exactly the tiles the header counts, never
//! sees (layout in `docs/long-range-links.md`):
//!
//! | bytes | field |
//! |---|---|
//! | 4 | magic `NLLR` |
//! | 4 | version, 1 |
//! | 4 | bytes that follow: 4 + 24 × `n` |
//! | 4 | link count `n` |
//! | 24 × `n` | per link (sorted): start tile x, y, layer (i32), connection index (u32), end cell x, y (i32) |

use std::path::{Path, PathBuf};

use super::nav_mesh::{LongLink, NavMesh, NavMeshParams};
use super::tile::{MeshTile, f32_at, i32_at, put_f32, put_i32, put_u32};
use super::{DetourError, RefWidth, TileRef};
use crate::file::FileError;

/// File magic, 'M' 'S' 'E' 'T' (`NAVMESHSET_MAGIC`).
pub const NAVMESHSET_MAGIC: i32 = i32::from_be_bytes(*b"MSET");
/// File version (`NAVMESHSET_VERSION`).
pub const NAVMESHSET_VERSION: i32 = 1;
/// The first four bytes of Navlab's compact file (`nav_mesh_compact`, feature `zstd`), here so
/// that a loader without that feature still tells the two formats apart.
pub const COMPACT_MAGIC: [u8; 4] = *b"NLMZ";
const SET_HEADER_SIZE: usize = 40;

/// Bytes of the per-tile header before each tile's data: the reference, the data size and,
/// with 64-bit references, the 4 bytes that pad the struct to its 8-byte alignment.
fn tile_header_size(width: RefWidth) -> usize {
    match width {
        RefWidth::Bits32 => 8,
        RefWidth::Bits64 => 16,
    }
}

/// The most tile slots a file of `file_bytes` bytes may make a navmesh allocate (16 bytes a
/// slot): what 22 id bits allow, or one a byte of the file.
pub(crate) fn slot_budget(file_bytes: usize) -> u64 {
    (1u64 << 22).max(file_bytes as u64)
}
/// The long-range link block's magic, after the tiles.
pub const LONG_LINK_MAGIC: [u8; 4] = *b"NLLR";
/// The long-range link block's version.
pub const LONG_LINK_VERSION: u32 = 1;
/// Magic, version and length.
const LONG_LINK_HEADER_SIZE: usize = 12;
const LONG_LINK_SIZE: usize = 24;

impl NavMesh {
    /// The navmesh as `Sample::saveAll` writes it: every loaded tile in slot order.
    pub fn to_mset_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        put_i32(&mut out, NAVMESHSET_MAGIC);
        put_i32(&mut out, NAVMESHSET_VERSION);
        put_i32(&mut out, self.tile_count() as i32);
        let p = self.params();
        for v in [p.orig[0], p.orig[1], p.orig[2], p.tile_width, p.tile_height] {
            put_f32(&mut out, v);
        }
        put_i32(&mut out, p.max_tiles);
        put_i32(&mut out, p.max_polys);
        let width = self.ref_width();
        for (tile_ref, tile) in self.tiles() {
            let data = tile.to_bytes(width);
            width.put_ref(&mut out, tile_ref);
            // Tiles never exceed i32::MAX bytes (checked when built or loaded).
            put_i32(&mut out, data.len() as i32);
            if width == RefWidth::Bits64 {
                put_u32(&mut out, 0);
            }
            out.extend_from_slice(&data);
        }
        let mut links: Vec<LongLink> = self.long_links().collect();
        if !links.is_empty() {
            links.sort_unstable();
            out.extend_from_slice(&LONG_LINK_MAGIC);
            put_u32(&mut out, LONG_LINK_VERSION);
            put_u32(&mut out, (4 + links.len() * LONG_LINK_SIZE) as u32);
            put_u32(&mut out, links.len() as u32);
            for link in links {
                let (x, y, layer) = link.start_tile;
                for v in [x, y, layer] {
                    put_i32(&mut out, v);
                }
                put_u32(&mut out, link.connection.into());
                put_i32(&mut out, link.end_cell.0);
                put_i32(&mut out, link.end_cell.1);
            }
        }
        out
    }

    /// Loads a navmesh as `Sample::loadAll` does: the parameters, then each tile added back
    /// under its saved reference, stopping early at a zero reference or size. Unlike the
    /// demo, which skips tiles it cannot add, any invalid or unaddable tile is an error.
    ///
    /// Every size is checked against the bytes that remain before anything is allocated, and
    /// each tile is fully validated ([`MeshTile::from_bytes`]), so hostile input yields an
    /// error, never a panic or a large allocation. A long-range link block after the last
    /// tile turns the navmesh's table on before the tiles are added (so their links join as
    /// when they were baked) and must list exactly the long links the tiles hold; other bytes
    /// after the last tile are ignored, as the demo ignores them.
    ///
    /// The references' width is the file's ([`mset_ref_width`]).
    pub fn from_mset_bytes(data: &[u8]) -> Result<NavMesh, DetourError> {
        NavMesh::from_mset_bytes_as(data, mset_ref_width(data))
    }

    /// [`NavMesh::from_mset_bytes`] for a reader that takes only references `width` wide: a
    /// file laid out for the other width is refused, saying so.
    pub fn from_mset_bytes_as(data: &[u8], width: RefWidth) -> Result<NavMesh, DetourError> {
        if data.len() < SET_HEADER_SIZE {
            return Err(DetourError::Truncated {
                what: "navmesh file header",
                needed: SET_HEADER_SIZE as u64,
                available: data.len() as u64,
            });
        }
        let magic = i32_at(data, 0);
        if magic != NAVMESHSET_MAGIC {
            return Err(DetourError::WrongFileMagic { found: magic });
        }
        let version = i32_at(data, 4);
        if version != NAVMESHSET_VERSION {
            return Err(DetourError::WrongFileVersion { found: version });
        }
        let num_tiles = i32_at(data, 8);
        if first_tile_fits(data, width.other()) && !first_tile_fits(data, width) {
            return Err(DetourError::WrongRefWidth {
                needs: width.other(),
                reading: width,
            });
        }
        let params = NavMeshParams {
            orig: [f32_at(data, 12), f32_at(data, 16), f32_at(data, 20)],
            tile_width: f32_at(data, 24),
            tile_height: f32_at(data, 28),
            max_tiles: i32_at(data, 32),
            max_polys: i32_at(data, 36),
            ref_width: width,
        };
        let header_size = tile_header_size(width);
        let long_links = match tiles_end(data, num_tiles, width) {
            Some(end) => read_long_link_block(&data[end..])?,
            None => None,
        };
        let mut mesh = NavMesh::new(params)?;
        if long_links.is_some() {
            mesh.enable_long_range_links();
        }
        let mut offset = SET_HEADER_SIZE;
        for index in 0..usize::try_from(num_tiles).unwrap_or(0) {
            let in_tile = |source: DetourError| DetourError::FileTile {
                index,
                offset,
                source: Box::new(source),
            };
            let rest = &data[offset..];
            if rest.len() < header_size {
                return Err(in_tile(DetourError::Truncated {
                    what: "tile header",
                    needed: header_size as u64,
                    available: rest.len() as u64,
                }));
            }
            let (tile_ref, data_size) = tile_header(rest, width);
            if tile_ref == 0 || data_size == 0 {
                break;
            }
            let slot = u64::from(mesh.decode_poly_id_tile(tile_ref));
            if slot >= slot_budget(data.len()) {
                return Err(in_tile(DetourError::SlotBeyondBudget {
                    index: slot,
                    budget: slot_budget(data.len()),
                    file_bytes: data.len() as u64,
                }));
            }
            let size = usize::try_from(data_size).map_err(|_| {
                in_tile(DetourError::BadCount {
                    field: "dataSize",
                    value: data_size.into(),
                })
            })?;
            let body = &rest[header_size..];
            let tile_data = body.get(..size).ok_or_else(|| {
                in_tile(DetourError::Truncated {
                    what: "tile data",
                    needed: size as u64,
                    available: body.len() as u64,
                })
            })?;
            let tile = MeshTile::from_bytes(tile_data, width).map_err(in_tile)?;
            mesh.add_tile(tile, tile_ref).map_err(in_tile)?;
            offset += header_size + size;
        }
        if let Some(listed) = long_links {
            let mut held: Vec<LongLink> = mesh.long_links().collect();
            held.sort_unstable();
            if held != listed {
                return Err(DetourError::BadLongLinkBlock(format!(
                    "it lists {} links, but the tiles hold {} others ({} in all)",
                    listed.len(),
                    held.iter()
                        .filter(|l| listed.binary_search(l).is_err())
                        .count(),
                    held.len()
                )));
            }
        }
        Ok(mesh)
    }
}

/// A tile header's reference and data size.
fn tile_header(rest: &[u8], width: RefWidth) -> (TileRef, i32) {
    (width.ref_at(rest), i32_at(rest, width.ref_size()))
}

/// The width of an MSET file's references, told by its first tile: 64 bits when that tile
/// is laid out as `DT_POLYREF64` writes it (its data after a 16-byte header, its size adding
/// up with 16-byte links) and not as the default build does, or, when neither layout fits (a
/// cut or damaged file), when its first 4 bytes are zero and the next 4 are not: the low and
/// high halves of a 64-bit reference, whose salt sits in the high half, where no 32-bit file
/// has a zero reference before a tile. Otherwise 32 bits (so a file without tiles, which no
/// layout tells, reads as 32-bit).
pub fn mset_ref_width(data: &[u8]) -> RefWidth {
    let fits_64 = first_tile_fits(data, RefWidth::Bits64);
    let fits_32 = first_tile_fits(data, RefWidth::Bits32);
    let wide_first_ref = data.len() >= SET_HEADER_SIZE + 8
        && i32_at(data, 8) > 0
        && i32_at(data, SET_HEADER_SIZE) == 0
        && i32_at(data, SET_HEADER_SIZE + 4) != 0;
    match (fits_32, fits_64) {
        (false, true) => RefWidth::Bits64,
        (false, false) if wide_first_ref => RefWidth::Bits64,
        _ => RefWidth::Bits32,
    }
}

/// Whether an MSET file's first tile reads as laid out for `width`: a nonzero reference, tile
/// data starting with Detour's magic and version right after the header, and a size that the
/// tile header's counts give for `width`.
fn first_tile_fits(data: &[u8], width: RefWidth) -> bool {
    if data.len() < SET_HEADER_SIZE || i32_at(data, 8) <= 0 {
        return false;
    }
    let rest = &data[SET_HEADER_SIZE..];
    let header_size = tile_header_size(width);
    if rest.len() < header_size {
        return false;
    }
    let (tile_ref, size) = tile_header(rest, width);
    let tile = &rest[header_size..];
    tile_ref != 0
        && tile.len() >= super::tile::HEADER_SIZE
        && i32_at(tile, 0) == super::NAVMESH_MAGIC
        && i32_at(tile, 4) == super::NAVMESH_VERSION
        && super::tile::described_size(tile, width) == Some(i64::from(size))
}

/// Where the `num_tiles` tiles of an MSET file end, when all of them are present and none
/// stops the list early; `None` leaves the errors to the loader's tile loop.
fn tiles_end(data: &[u8], num_tiles: i32, width: RefWidth) -> Option<usize> {
    let header_size = tile_header_size(width);
    let mut offset = SET_HEADER_SIZE;
    for _ in 0..num_tiles.max(0) {
        let rest = data.get(offset..)?;
        if rest.len() < header_size {
            return None;
        }
        let (tile_ref, size) = tile_header(rest, width);
        let size = usize::try_from(size).ok()?;
        if tile_ref == 0 || size == 0 || rest.len() - header_size < size {
            return None;
        }
        offset += header_size + size;
    }
    Some(offset)
}

/// The sorted links of the long-range link block at the start of `rest`, if one is there.
fn read_long_link_block(rest: &[u8]) -> Result<Option<Vec<LongLink>>, DetourError> {
    if !rest.starts_with(&LONG_LINK_MAGIC) {
        return Ok(None);
    }
    let bad = |message: String| DetourError::BadLongLinkBlock(message);
    if rest.len() < LONG_LINK_HEADER_SIZE + 4 {
        return Err(bad(format!(
            "{} bytes, fewer than its 16-byte header",
            rest.len()
        )));
    }
    let word = |at: usize| i32_at(rest, at) as u32;
    if word(4) != LONG_LINK_VERSION {
        return Err(bad(format!(
            "version {}, this navlab reads {LONG_LINK_VERSION}",
            word(4)
        )));
    }
    let length = u64::from(word(8));
    let count = u64::from(word(12));
    let present = (rest.len() - LONG_LINK_HEADER_SIZE) as u64;
    if length > present {
        return Err(bad(format!(
            "it claims {length} bytes but only {present} are left"
        )));
    }
    if length != 4 + count * LONG_LINK_SIZE as u64 {
        return Err(bad(format!(
            "{count} links take {} bytes, but it claims {length}",
            4 + count * LONG_LINK_SIZE as u64
        )));
    }
    let body = &rest[LONG_LINK_HEADER_SIZE + 4..LONG_LINK_HEADER_SIZE + length as usize];
    let mut links = Vec::with_capacity(count as usize);
    for (index, entry) in body.chunks_exact(LONG_LINK_SIZE).enumerate() {
        let connection = u16::try_from(i32_at(entry, 12) as u32).map_err(|_| {
            bad(format!(
                "link {index} names connection {}",
                i32_at(entry, 12) as u32
            ))
        })?;
        links.push(LongLink {
            start_tile: (i32_at(entry, 0), i32_at(entry, 4), i32_at(entry, 8)),
            connection,
            end_cell: (i32_at(entry, 16), i32_at(entry, 20)),
        });
    }
    if !links.is_sorted() {
        return Err(bad("its links are not in order".into()));
    }
    Ok(Some(links))
}

/// Writes `mesh` to `path` as an "MSET" file, whole or not at all.
pub fn save_nav_mesh(path: &Path, mesh: &NavMesh) -> Result<(), FileError> {
    crate::file::write_atomically(path, &mesh.to_mset_bytes())
}

/// The largest navmesh file [`load_nav_mesh`](super::load_nav_mesh) reads: far above real
/// navmeshes (a 420 m city's tiles take a few MiB), low enough that a hostile or mistaken file
/// cannot exhaust memory.
pub const MAX_NAVMESH_FILE_BYTES: u64 = 1 << 30;

/// A navmesh file that could not be read or written, or whose bytes are not a navmesh.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum NavMeshFileError {
    /// Reading or writing the file failed, or it is larger than a navmesh file can be.
    #[error(transparent)]
    File(#[from] FileError),
    /// The bytes are not a navmesh Detour accepts (or, written, not one the format holds).
    #[error("{path}: {source}")]
    Invalid {
        /// The file.
        path: PathBuf,
        #[source]
        /// Why Detour refused it.
        source: DetourError,
    },
}
