//! The tile store: a navmesh file a game reads tile by tile, so that the tiles in memory are
//! those around the player and not the whole world ([`NavMesh::load_tiles_in`],
//! [`NavMesh::unload_tiles_outside`], `docs/streaming.md`). A member of the compact file's
//! family (`nav_mesh_compact`): tiles without their link slots, zstd-compressed, but each tile
//! in a frame of its own, found through an index read when the store is opened. C++ Detour
//! has no such file; its `addTile(data, lastRef)` is what the loader rests on.
//!
//! Layout, little-endian (`w` is the reference width in bytes, 4 or 8):
//!
//! | bytes | field |
//! |---|---|
//! | 4 | magic `NLTS` |
//! | 4 | version, 1 |
//! | 4 | flags: bit 0 set when the navmesh has long-range links on (`docs/long-range-links.md`), bit 1 when its polygon references are 64-bit (`docs/poly-refs.md`); no other bit may be set |
//! | 4 | tile count `n` |
//! | 28 | `dtNavMeshParams`: origin x y z, tile width, tile height (f32), max tiles, max polys (i32) |
//! | (w + 28) × n | the index, one row per tile, sorted by grid y, then x, then layer, no two alike: |
//! | w | · the tile's reference (u32, or u64), under which it is loaded |
//! | 12 | · grid x, y and layer (i32) |
//! | 8 | · the offset of its frame in the file (u64) |
//! | 4 | · the frame's size in bytes (u32) |
//! | 4 | · the tile's data size with its link slots, as in MSET (u32) |
//! | rest | the frames, in index order, none overlapping another |
//!
//! A frame is one zstd frame of Detour's tile data without the `maxLinkCount` link slots after
//! its polygons; the loader puts them back zeroed and [`NavMesh::add_tile`] fills them. A
//! tile's xz bounds are its grid cell's (`orig + x × tileWidth`, …), so the index does not
//! keep them. `open` reads the header and the index only (40 bytes a tile in memory) and
//! checks every row against the file's length before any tile is read.

use std::fs::File;
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use super::common::Vec3;
use super::nav_mesh::{NavMesh, NavMeshParams};
use super::nav_mesh_compact::{
    MAX_COMPRESSION_RATIO, MIN_EXPANSION_BUDGET, link_section, restore_link_slots,
};
use super::nav_mesh_file::slot_budget;
use super::tile::{HEADER_SIZE, MeshTile, f32_at, i32_at};
use super::{DetourError, RefWidth, TileRef};
use crate::file::FileError;

/// The first four bytes of a tile store.
pub const STORE_MAGIC: [u8; 4] = *b"NLTS";
/// The format version this module writes and reads.
pub const STORE_VERSION: u32 = 1;
/// The most tiles a store may index: ten times a 100 km² world at 19.2 m tiles (about
/// 270 000), an index of 160 MiB in memory at most.
pub const MAX_STORE_TILES: u32 = 1 << 22;
/// The most bytes one tile may have, stored or expanded (Detour tiles are kilobytes).
pub const MAX_TILE_BYTES: u32 = 64 << 20;

/// Flag: the navmesh has long-range links on.
const LONG_RANGE_LINKS: u32 = 1;
/// Flag: 64-bit references, in the navmesh and in the index.
const REFS_64: u32 = 2;
/// Magic, version, flags, tile count and the parameters.
const FILE_HEADER_SIZE: usize = 44;
/// zstd's level for one tile: a few kilobytes each, they pack almost as tight at 9 as at 19,
/// in a fraction of the time (docs/streaming.md).
const ZSTD_LEVEL: i32 = 9;
/// Index rows read at a time, so the raw index is never held whole beside the parsed one.
const INDEX_CHUNK_ROWS: usize = 1 << 14;

/// A tile store that cannot be read, written or loaded from.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TileStoreError {
    /// Reading or writing the file failed.
    #[error(transparent)]
    File(#[from] FileError),
    /// The file does not start with `NLTS`.
    #[error("{path}: not a tile store (it starts with \"{found}\", not \"NLTS\")")]
    NotAStore {
        /// The file.
        path: PathBuf,
        /// Its first bytes.
        found: String,
    },
    /// The header or index is malformed.
    #[error("{path}: {problem}")]
    BadIndex {
        /// The file.
        path: PathBuf,
        /// What is wrong, with the row at fault.
        problem: String,
    },
    /// A tile or the navmesh refused: a tile's data, its reference, or the parameters.
    #[error("{path}: {source}")]
    Invalid {
        /// The file.
        path: PathBuf,
        #[source]
        /// Why Detour refused it.
        source: DetourError,
    },
    /// The navmesh streamed into was not made from this store's parameters.
    #[error("{path}: the navmesh's parameters are not the store's (make it with `empty_nav_mesh`)")]
    OtherNavMesh {
        /// The file.
        path: PathBuf,
    },
}

/// One row of a store's index: where a tile sits in the grid and in the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StoredTile {
    /// The reference the tile is loaded under, so its polygons keep their references.
    pub tile_ref: TileRef,
    /// Grid x.
    pub x: i32,
    /// Grid y.
    pub y: i32,
    /// Layer in its cell.
    pub layer: i32,
    /// The offset of its zstd frame in the file.
    pub offset: u64,
    /// The frame's size.
    pub stored_size: u32,
    /// The tile's data size with its link slots (MSET's).
    pub data_size: u32,
}

/// What one [`NavMesh::load_tiles_in`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StreamReport {
    /// Tiles added.
    pub loaded: usize,
    /// Tiles in the window already loaded, left as they were.
    pub already_loaded: usize,
    /// Compressed bytes read from the file.
    pub read_bytes: u64,
    /// Tile data bytes they expanded to.
    pub tile_bytes: u64,
}

/// An opened tile store: its parameters and index, and the file the tiles are read from.
#[derive(Debug)]
pub struct TileStore {
    path: PathBuf,
    file: File,
    file_len: u64,
    params: NavMeshParams,
    long_range_links: bool,
    tiles: Vec<StoredTile>,
}

/// Bytes of one index row.
fn row_size(width: RefWidth) -> usize {
    width.ref_size() + 28
}

impl TileStore {
    /// Writes `mesh`'s loaded tiles to `path` as a tile store, whole or not at all. Tiles are
    /// compressed and written one at a time, so memory holds one compressed tile, not the
    /// store.
    pub fn write(path: &Path, mesh: &NavMesh) -> Result<(), TileStoreError> {
        let invalid = |source| TileStoreError::Invalid {
            path: path.to_owned(),
            source,
        };
        let mut order: Vec<(i32, i32, i32, TileRef)> = mesh
            .tiles()
            .map(|(r, t)| (t.header().y, t.header().x, t.header().layer, r))
            .collect();
        order.sort_unstable();
        if order.len() > MAX_STORE_TILES as usize {
            return Err(invalid(DetourError::BadCount {
                field: "tile count",
                value: order.len() as i64,
            }));
        }
        crate::file::write_atomically_with(path, |part| write_store(part, mesh, &order))?;
        Ok(())
    }

    /// Opens a store, reading its header and index only. Every row is checked before the
    /// index is allocated or any tile read: counts against the file's length and
    /// [`MAX_STORE_TILES`], the order and uniqueness of positions and slots, each frame within
    /// the file and after the previous one, and each size against [`MAX_TILE_BYTES`] and what
    /// its frame could expand to.
    pub fn open(path: &Path) -> Result<TileStore, TileStoreError> {
        let io = |source| {
            TileStoreError::File(FileError::Io {
                path: path.to_owned(),
                source,
            })
        };
        let bad = |problem: String| TileStoreError::BadIndex {
            path: path.to_owned(),
            problem,
        };
        crate::file::require_regular_file(path, "a tile store")?;
        let file = File::open(path).map_err(io)?;
        let file_len = file.metadata().map_err(io)?.len();
        if file_len < FILE_HEADER_SIZE as u64 {
            if file_len < 4 || read_at(&file, 0, 4).map_err(io)? != STORE_MAGIC {
                return Err(TileStoreError::NotAStore {
                    path: path.to_owned(),
                    found: first_bytes(&file, file_len),
                });
            }
            return Err(bad(format!(
                "the header needs {FILE_HEADER_SIZE} bytes, the file has {file_len}"
            )));
        }
        let head = read_at(&file, 0, FILE_HEADER_SIZE).map_err(io)?;
        if head[..4] != STORE_MAGIC {
            return Err(TileStoreError::NotAStore {
                path: path.to_owned(),
                found: first_bytes(&file, file_len),
            });
        }
        let word = |at: usize| i32_at(&head, at) as u32;
        if word(4) != STORE_VERSION {
            return Err(bad(format!(
                "version {}, this build reads version {STORE_VERSION}",
                word(4)
            )));
        }
        let flags = word(8);
        if flags & !(LONG_RANGE_LINKS | REFS_64) != 0 {
            return Err(bad(format!("unknown flags {flags:#x}")));
        }
        let width = if flags & REFS_64 != 0 {
            RefWidth::Bits64
        } else {
            RefWidth::Bits32
        };
        let params = NavMeshParams {
            orig: [f32_at(&head, 16), f32_at(&head, 20), f32_at(&head, 24)],
            tile_width: f32_at(&head, 28),
            tile_height: f32_at(&head, 32),
            max_tiles: i32_at(&head, 36),
            max_polys: i32_at(&head, 40),
            ref_width: width,
        };
        // A window's cells are found from the tile sizes, which must then be positive (Detour
        // takes any finite size).
        if !(params.tile_width > 0.0 && params.tile_height > 0.0) {
            return Err(bad(format!(
                "tiles of {} x {} are not a grid a window can find cells in",
                params.tile_width, params.tile_height
            )));
        }
        // The parameters Detour accepts, checked before the index is read.
        let decoder = NavMesh::new(params).map_err(|source| TileStoreError::Invalid {
            path: path.to_owned(),
            source,
        })?;
        let count = word(12);
        let row_bytes = row_size(width) as u64;
        let data_start = FILE_HEADER_SIZE as u64 + u64::from(count) * row_bytes;
        if count > MAX_STORE_TILES || count > params.max_tiles as u32 {
            return Err(bad(format!(
                "{count} tiles, more than its {} tile slots or the {MAX_STORE_TILES} a store may \
                 index",
                params.max_tiles
            )));
        }
        if data_start > file_len {
            return Err(bad(format!(
                "the index of {count} tiles needs {} bytes, the file has {}",
                data_start,
                file_len - FILE_HEADER_SIZE as u64
            )));
        }
        let mut tiles = Vec::new();
        tiles
            .try_reserve_exact(count as usize)
            .map_err(|_| bad(format!("no memory for an index of {count} tiles")))?;
        let slot_limit = slot_budget(file_len.min(usize::MAX as u64) as usize);
        let mut end_of_previous = data_start;
        let mut at = FILE_HEADER_SIZE as u64;
        while tiles.len() < count as usize {
            let rows = (count as usize - tiles.len()).min(INDEX_CHUNK_ROWS);
            let chunk = read_at(&file, at, rows * row_bytes as usize).map_err(io)?;
            at += chunk.len() as u64;
            for row in chunk.chunks_exact(row_bytes as usize) {
                let index = tiles.len();
                let tile = parse_row(row, width);
                let fault = |what: String| bad(format!("index row {index}: {what}"));
                if let Some(previous) = tiles.last().map(|p: &StoredTile| (p.y, p.x, p.layer))
                    && (tile.y, tile.x, tile.layer) <= previous
                {
                    return Err(fault(format!(
                        "tile ({}, {}) layer {} is out of order or repeated",
                        tile.x, tile.y, tile.layer
                    )));
                }
                let slot = u64::from(decoder.decode_poly_id_tile(tile.tile_ref));
                if tile.tile_ref == 0
                    || decoder.decode_poly_id_poly(tile.tile_ref) != 0
                    || decoder.decode_poly_id_salt(tile.tile_ref) == 0
                    || slot >= params.max_tiles as u64
                    || slot >= slot_limit
                {
                    return Err(fault(format!(
                        "reference {:#x} names no tile slot of {} (at most {})",
                        tile.tile_ref, params.max_tiles, slot_limit
                    )));
                }
                let end = tile.offset.saturating_add(tile.stored_size.into());
                if tile.offset < end_of_previous || end > file_len || tile.stored_size == 0 {
                    return Err(fault(format!(
                        "its {} bytes at offset {} are not within the file's {file_len} bytes \
                         after the previous tile's (which end at {end_of_previous})",
                        tile.stored_size, tile.offset
                    )));
                }
                let expansion =
                    (u64::from(tile.stored_size) * MAX_COMPRESSION_RATIO).max(MIN_EXPANSION_BUDGET);
                if tile.stored_size > MAX_TILE_BYTES
                    || tile.data_size > MAX_TILE_BYTES
                    || u64::from(tile.data_size) > expansion
                    || (tile.data_size as usize) < HEADER_SIZE
                {
                    return Err(fault(format!(
                        "{} bytes stored claim {} bytes of tile data (at most {} per tile, and \
                         {expansion} from that frame)",
                        tile.stored_size, tile.data_size, MAX_TILE_BYTES
                    )));
                }
                end_of_previous = end;
                tiles.push(tile);
            }
        }
        let mut slots: Vec<u64> = tiles
            .iter()
            .map(|t| u64::from(decoder.decode_poly_id_tile(t.tile_ref)))
            .collect();
        slots.sort_unstable();
        if let Some(pair) = slots.windows(2).find(|pair| pair[0] == pair[1]) {
            return Err(bad(format!("two tiles share tile slot {}", pair[0])));
        }
        Ok(TileStore {
            path: path.to_owned(),
            file,
            file_len,
            params,
            long_range_links: flags & LONG_RANGE_LINKS != 0,
            tiles,
        })
    }

    /// The navmesh parameters the tiles were made for.
    pub fn params(&self) -> &NavMeshParams {
        &self.params
    }

    /// The width of the tiles' references.
    pub fn ref_width(&self) -> RefWidth {
        self.params.ref_width
    }

    /// Whether the navmesh had long-range links on ([`NavMesh::enable_long_range_links`]).
    pub fn long_range_links(&self) -> bool {
        self.long_range_links
    }

    /// The index, sorted by grid y, x and layer.
    pub fn tiles(&self) -> &[StoredTile] {
        &self.tiles
    }

    /// The file's size in bytes.
    pub fn file_len(&self) -> u64 {
        self.file_len
    }

    /// The file the store was opened from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A navmesh without tiles, ready for [`NavMesh::load_tiles_in`]: the store's parameters,
    /// with long-range links on when the store's navmesh had them.
    pub fn empty_nav_mesh(&self) -> Result<NavMesh, TileStoreError> {
        let mut mesh = NavMesh::new(self.params).map_err(|source| self.invalid(source))?;
        if self.long_range_links {
            mesh.enable_long_range_links();
        }
        Ok(mesh)
    }

    /// The stored tiles whose grid cells overlap the xz box (`bmin`, `bmax`), the cells
    /// Detour's `queryPolygons` would visit for it. Binary searches skip to each grid row's
    /// first cell in the box and past its last, so the cost follows the rows present, not the
    /// box's size.
    pub fn tiles_in(&self, bmin: Vec3, bmax: Vec3) -> impl Iterator<Item = &StoredTile> + '_ {
        let ((x0, y0), (x1, y1)) = cell_range(&self.params, bmin, bmax);
        let tiles = &self.tiles[..];
        let mut at = tiles.partition_point(|t| t.y < y0);
        std::iter::from_fn(move || {
            loop {
                let tile = tiles.get(at)?;
                if tile.y > y1 {
                    return None;
                }
                if tile.x < x0 {
                    at += tiles[at..].partition_point(|t| (t.y, t.x) < (tile.y, x0));
                } else if tile.x > x1 {
                    at += tiles[at..].partition_point(|t| t.y == tile.y);
                } else {
                    at += 1;
                    return Some(tile);
                }
            }
        })
    }

    /// Reads and expands one tile of the index, without adding it anywhere (a game may do this
    /// on a loading thread, then [`NavMesh::add_tile`] it under `tile.tile_ref`).
    pub fn read_tile(&self, tile: &StoredTile) -> Result<MeshTile, TileStoreError> {
        let io = |source| {
            TileStoreError::File(FileError::Io {
                path: self.path.clone(),
                source,
            })
        };
        let in_tile = |source: DetourError| {
            let index = self
                .tiles
                .partition_point(|t| (t.y, t.x, t.layer) < (tile.y, tile.x, tile.layer));
            self.invalid(DetourError::FileTile {
                index,
                offset: tile.offset as usize,
                source: Box::new(source),
            })
        };
        let frame = read_at(&self.file, tile.offset, tile.stored_size as usize).map_err(io)?;
        // At most the checked data size (link slots included) is allocated, whatever the
        // frame claims.
        let linkless = zstd::bulk::decompress(&frame, tile.data_size as usize)
            .map_err(|err| in_tile(DetourError::Compression(err.to_string())))?;
        let width = self.params.ref_width;
        let mut data = Vec::new();
        restore_link_slots(&linkless, tile.data_size, width, &mut data).map_err(in_tile)?;
        let mesh_tile = MeshTile::from_bytes(&data, width).map_err(in_tile)?;
        let h = mesh_tile.header();
        if (h.x, h.y, h.layer) != (tile.x, tile.y, tile.layer) {
            return Err(in_tile(DetourError::InconsistentTile(format!(
                "the tile is at ({}, {}) layer {}, its index row at ({}, {}) layer {}",
                h.x, h.y, h.layer, tile.x, tile.y, tile.layer
            ))));
        }
        Ok(mesh_tile)
    }

    fn invalid(&self, source: DetourError) -> TileStoreError {
        TileStoreError::Invalid {
            path: self.path.clone(),
            source,
        }
    }
}

impl NavMesh {
    /// Adds every tile of `store` whose grid cell overlaps the xz box (`bmin`, `bmax`) and is
    /// not loaded yet, under its stored reference, and links it to the loaded tiles around it:
    /// portals, off-mesh links, and long-range links when they are on. Only those tiles are
    /// read from the file. The navmesh must have the store's parameters
    /// ([`TileStore::empty_nav_mesh`]). On an error the tiles added before it stay.
    pub fn load_tiles_in(
        &mut self,
        store: &TileStore,
        bmin: Vec3,
        bmax: Vec3,
    ) -> Result<StreamReport, TileStoreError> {
        if *self.params() != store.params {
            return Err(TileStoreError::OtherNavMesh {
                path: store.path.clone(),
            });
        }
        let mut report = StreamReport::default();
        for stored in store.tiles_in(bmin, bmax) {
            if self.tile_at(stored.x, stored.y, stored.layer).is_some() {
                report.already_loaded += 1;
                continue;
            }
            let tile = store.read_tile(stored)?;
            self.add_tile(tile, stored.tile_ref)
                .map_err(|source| store.invalid(source))?;
            report.loaded += 1;
            report.read_bytes += u64::from(stored.stored_size);
            report.tile_bytes += u64::from(stored.data_size);
        }
        Ok(report)
    }

    /// Removes every loaded tile whose grid cell does not overlap the xz box (`bmin`, `bmax`),
    /// unlinking its neighbours from it; returns how many were removed. The same cells as
    /// [`NavMesh::load_tiles_in`] count as inside.
    pub fn unload_tiles_outside(&mut self, bmin: Vec3, bmax: Vec3) -> usize {
        let ((x0, y0), (x1, y1)) = cell_range(self.params(), bmin, bmax);
        let outside: Vec<TileRef> = self
            .tiles()
            .filter(|(_, t)| {
                let h = t.header();
                h.x < x0 || h.x > x1 || h.y < y0 || h.y > y1
            })
            .map(|(r, _)| r)
            .collect();
        for &r in &outside {
            // Each reference was just read from a loaded tile.
            let _ = self.remove_tile_boxed(r);
        }
        outside.len()
    }
}

/// The grid cells, first and last along x and y, that the xz box covers (`calcTileLoc` of
/// its corners).
fn cell_range(params: &NavMeshParams, bmin: Vec3, bmax: Vec3) -> ((i32, i32), (i32, i32)) {
    let cell = |p: Vec3| {
        (
            ((p[0] - params.orig[0]) / params.tile_width).floor() as i32,
            ((p[2] - params.orig[2]) / params.tile_height).floor() as i32,
        )
    };
    (cell(bmin), cell(bmax))
}

/// One index row.
fn parse_row(row: &[u8], width: RefWidth) -> StoredTile {
    let w = width.ref_size();
    let u32_at = |at: usize| i32_at(row, at) as u32;
    StoredTile {
        tile_ref: width.ref_at(row),
        x: i32_at(row, w),
        y: i32_at(row, w + 4),
        layer: i32_at(row, w + 8),
        offset: u64::from(u32_at(w + 12)) | u64::from(u32_at(w + 16)) << 32,
        stored_size: u32_at(w + 20),
        data_size: u32_at(w + 24),
    }
}

/// The store's bytes into `part`: the header and a zeroed index, each tile's frame, then the
/// index filled in.
fn write_store(
    part: &Path,
    mesh: &NavMesh,
    order: &[(i32, i32, i32, TileRef)],
) -> std::io::Result<()> {
    let width = mesh.ref_width();
    let mut out = BufWriter::new(File::create(part)?);
    let mut flags = 0;
    if mesh.long_range_links_enabled() {
        flags |= LONG_RANGE_LINKS;
    }
    if width == RefWidth::Bits64 {
        flags |= REFS_64;
    }
    let p = mesh.params();
    let mut head = STORE_MAGIC.to_vec();
    for v in [STORE_VERSION, flags, order.len() as u32] {
        head.extend_from_slice(&v.to_le_bytes());
    }
    for v in [p.orig[0], p.orig[1], p.orig[2], p.tile_width, p.tile_height] {
        head.extend_from_slice(&v.to_le_bytes());
    }
    head.extend_from_slice(&p.max_tiles.to_le_bytes());
    head.extend_from_slice(&p.max_polys.to_le_bytes());
    out.write_all(&head)?;
    let index_len = order.len() * row_size(width);
    std::io::copy(&mut std::io::repeat(0).take(index_len as u64), &mut out)?;
    let mut compressor = zstd::bulk::Compressor::new(ZSTD_LEVEL)?;
    let mut index = Vec::with_capacity(index_len);
    let mut offset = (FILE_HEADER_SIZE + index_len) as u64;
    for &(_, _, _, tile_ref) in order {
        let tile = mesh
            .tile_by_ref(tile_ref)
            .ok_or_else(|| std::io::Error::other("a tile went missing while written"))?;
        let data = tile.to_bytes(width);
        let links = link_section(tile, width);
        let mut linkless = Vec::with_capacity(data.len() - links.len());
        linkless.extend_from_slice(&data[..links.start]);
        linkless.extend_from_slice(&data[links.end..]);
        let frame = compressor.compress(&linkless)?;
        let too_large = |what: &str, size: usize| {
            std::io::Error::other(format!(
                "tile ({}, {}) layer {}: its {what} is {size} bytes, over the store's {} a tile",
                tile.header().x,
                tile.header().y,
                tile.header().layer,
                MAX_TILE_BYTES
            ))
        };
        if data.len() > MAX_TILE_BYTES as usize {
            return Err(too_large("data", data.len()));
        }
        out.write_all(&frame)?;
        width.put_ref(&mut index, tile_ref);
        let h = tile.header();
        for v in [h.x, h.y, h.layer] {
            index.extend_from_slice(&v.to_le_bytes());
        }
        index.extend_from_slice(&offset.to_le_bytes());
        index.extend_from_slice(&(frame.len() as u32).to_le_bytes());
        index.extend_from_slice(&(data.len() as u32).to_le_bytes());
        offset += frame.len() as u64;
    }
    out.seek(SeekFrom::Start(FILE_HEADER_SIZE as u64))?;
    out.write_all(&index)?;
    out.flush()
}

/// Reads `len` bytes at `offset`, without moving a shared cursor (so a store can be read from
/// several threads).
fn read_at(file: &File, offset: u64, len: usize) -> std::io::Result<Vec<u8>> {
    let mut buf = vec![0; len];
    #[cfg(unix)]
    std::os::unix::fs::FileExt::read_exact_at(file, &mut buf, offset)?;
    #[cfg(windows)]
    {
        let mut done = 0;
        while done < len {
            let n = std::os::windows::fs::FileExt::seek_read(
                file,
                &mut buf[done..],
                offset + done as u64,
            )?;
            if n == 0 {
                return Err(std::io::ErrorKind::UnexpectedEof.into());
            }
            done += n;
        }
    }
    #[cfg(not(any(unix, windows)))]
    {
        let _ = (file, offset);
        return Err(std::io::Error::new(
            std::io::ErrorKind::Unsupported,
            "positioned reads need Unix or Windows",
        ));
    }
    Ok(buf)
}

/// The file's first bytes, for the message about a file that is not a store.
fn first_bytes(file: &File, file_len: u64) -> String {
    let bytes = read_at(file, 0, file_len.min(4) as usize).unwrap_or_default();
    bytes.escape_ascii().to_string()
}
