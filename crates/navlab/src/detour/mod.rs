//! Detour's navigation-mesh data: tile creation from a Recast poly mesh, the tiled navmesh that
//! links tiles together, and RecastDemo's "MSET" all-tiles file.
//!
//! - [`nav_mesh_builder`] turns a poly mesh and its detail mesh into one tile
//!   (`dtCreateNavMeshData`), with RecastDemo's area → flag rule as a replaceable default.
//! - [`tile`] holds the typed tile data and its exact byte layout (Detour's tile format, version
//!   7, 32-bit refs), with a loader that validates every count and index before use.
//! - [`nav_mesh`] is `dtNavMesh`: poly/tile references with salts, adding and removing tiles,
//!   and the links between polygons, tiles and off-mesh connections.
//! - [`nav_mesh_file`] reads and writes the "MSET" file of `Sample::saveAll`/`loadAll`.
//!
//! For the same input the tile bytes and the saved file equal C++ Detour's byte for byte.

pub mod common;
pub mod islands;
mod load;
pub mod nav_mesh;
pub mod nav_mesh_builder;
#[cfg(feature = "zstd")]
pub mod nav_mesh_compact;
pub mod nav_mesh_file;
mod portal_index;
pub mod query;
pub mod tile;
#[cfg(feature = "zstd")]
pub mod tile_store;

pub use load::{load_nav_mesh, nav_mesh_from_bytes};
pub use nav_mesh::{LongLink, NavMesh, NavMeshParams};
pub use nav_mesh_builder::{
    NavMeshCreateParams, OffMeshConnectionParams, create_nav_mesh_data, create_nav_mesh_data_into,
};
pub use nav_mesh_file::{NavMeshFileError, save_nav_mesh};
pub use tile::{
    BoundaryEdge, BvNode, Link, MeshHeader, MeshTile, OffMeshConnection, Poly, PolyDetail, PolyType,
};

/// A polygon reference: salt, tile index and polygon index packed into the navmesh's
/// [`RefWidth`] (32 bits by default, as Detour without `DT_POLYREF64`; 64 bits as with it). The
/// type holds either, so one build of the library serves both. Zero is never a valid reference.
pub type PolyRef = u64;
/// A tile reference: a [`PolyRef`] whose polygon field is zero.
pub type TileRef = u64;

/// How wide a navmesh's polygon references are: Detour's compile-time `DT_POLYREF64` made a
/// runtime choice of the navmesh (`docs/poly-refs.md`).
///
/// 32 bits split salt, tile and polygon bits by the navmesh parameters, which caps a navmesh
/// at 2²² tiles and polygons together; 64 bits split them 16 / 28 / 20 whatever the
/// parameters. Only the files tell them apart: each tile's reference in an MSET file and each
/// link in the tile data take 8 bytes instead of 4.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum RefWidth {
    /// 32-bit references, C++ Detour's default.
    #[default]
    Bits32,
    /// 64-bit references (`DT_POLYREF64`).
    Bits64,
}

impl RefWidth {
    /// 32 or 64.
    pub fn bits(self) -> u32 {
        match self {
            RefWidth::Bits32 => 32,
            RefWidth::Bits64 => 64,
        }
    }

    /// The width of `bits` (32 or 64).
    pub fn from_bits(bits: u32) -> Option<RefWidth> {
        match bits {
            32 => Some(RefWidth::Bits32),
            64 => Some(RefWidth::Bits64),
            _ => None,
        }
    }

    /// Bytes of one `dtLink` in tile data: the reference, then 8 bytes of the rest.
    pub fn link_size(self) -> usize {
        self.ref_size() + 8
    }

    /// Bytes of one reference in a file.
    pub fn ref_size(self) -> usize {
        (self.bits() / 8) as usize
    }

    /// Appends reference `r` little-endian in this width's bytes (a 32-bit navmesh's
    /// references fit 32 bits).
    pub(crate) fn put_ref(self, out: &mut Vec<u8>, r: PolyRef) {
        match self {
            RefWidth::Bits32 => out.extend_from_slice(&(r as u32).to_le_bytes()),
            RefWidth::Bits64 => out.extend_from_slice(&r.to_le_bytes()),
        }
    }

    /// The reference at the start of `bytes`, little-endian in this width's bytes (read byte
    /// by byte: references in Detour's data are only 4-aligned).
    pub(crate) fn ref_at(self, bytes: &[u8]) -> PolyRef {
        match self {
            RefWidth::Bits32 => u32::from_le_bytes(std::array::from_fn(|k| bytes[k])).into(),
            RefWidth::Bits64 => u64::from_le_bytes(std::array::from_fn(|k| bytes[k])),
        }
    }

    /// The width's other choice, for messages about a file that needs it.
    pub fn other(self) -> RefWidth {
        match self {
            RefWidth::Bits32 => RefWidth::Bits64,
            RefWidth::Bits64 => RefWidth::Bits32,
        }
    }
}

impl std::fmt::Display for RefWidth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}-bit", self.bits())
    }
}

/// Most vertices a Detour polygon can have (`DT_VERTS_PER_POLYGON`).
pub const VERTS_PER_POLYGON: usize = 6;
/// Tile data magic, 'D' 'N' 'A' 'V' (`DT_NAVMESH_MAGIC`).
pub const NAVMESH_MAGIC: i32 = i32::from_be_bytes(*b"DNAV");
/// Tile data format version (`DT_NAVMESH_VERSION`).
pub const NAVMESH_VERSION: i32 = 7;
/// Neighbour-field bit marking a portal to another tile (`DT_EXT_LINK`).
pub const EXT_LINK: u16 = 0x8000;
/// End of a link list (`DT_NULL_LINK`).
pub const NULL_LINK: u32 = 0xffff_ffff;
/// Off-mesh connection flag: it can be travelled both ways (`DT_OFFMESH_CON_BIDIR`).
pub const OFFMESH_CON_BIDIR: u8 = 1;
/// Number of area ids a polygon can carry (`DT_MAX_AREAS`).
pub const MAX_AREAS: usize = 64;
/// Detail-triangle edge flag: the edge lies on the polygon boundary (`DT_DETAIL_EDGE_BOUNDARY`).
pub const DETAIL_EDGE_BOUNDARY: u8 = 0x01;

/// The 2-bit flags of edge `edge` (0..3) of a detail triangle (`dtGetDetailTriEdgeFlags`).
#[inline]
pub fn detail_tri_edge_flags(tri_flags: u8, edge: usize) -> u8 {
    (tri_flags >> (edge * 2)) & 0x3
}

/// The tile side facing `side` (`dtOppositeTile`). Sides count 0..8 counter-clockwise from +x.
#[inline]
pub fn opposite_tile(side: u8) -> u8 {
    (side + 4) & 0x7
}

/// Everything that can go wrong when creating, adding or loading navmesh tiles.
#[derive(Debug, thiserror::Error, PartialEq)]
#[non_exhaustive]
pub enum DetourError {
    /// The input to tile creation is inconsistent or out of Detour's limits.
    #[error("dtCreateNavMeshData: {0}")]
    InvalidCreateParams(String),
    /// Navmesh parameters Detour cannot represent.
    #[error("invalid navmesh parameters: {0}")]
    InvalidNavMeshParams(String),
    /// Fewer bytes than a structure needs.
    #[error("{what} needs {needed} bytes but only {available} are left")]
    Truncated {
        /// What was being read.
        what: &'static str,
        /// Bytes it needs.
        needed: u64,
        /// Bytes left in the input.
        available: u64,
    },
    /// Tile data that does not start with 'DNAV'.
    #[error(
        "tile data has magic {found:#010x}, expected 'DNAV' ({:#010x})",
        NAVMESH_MAGIC
    )]
    WrongTileMagic {
        /// The first four bytes, as a little-endian int.
        found: i32,
    },
    /// Tile data of another format version.
    #[error("tile data has version {found}, expected {}", NAVMESH_VERSION)]
    WrongTileVersion {
        /// The version the data has.
        found: i32,
    },
    /// A count in the tile header is negative or over Detour's limits.
    #[error("tile header field {field} = {value} is out of range")]
    BadCount {
        /// The header field, by its C++ name.
        field: &'static str,
        /// Its value.
        value: i64,
    },
    /// A compact file whose tile table claims more bytes than its compressed bytes could hold.
    #[error(
        "the tiles claim {claimed} bytes from {compressed} compressed bytes, more than the \
         {limit} real navmesh data could expand to"
    )]
    ExpansionTooLarge {
        /// Bytes the tile table claims the tiles expand to.
        claimed: u64,
        /// Compressed bytes present.
        compressed: u64,
        /// The most they may expand to.
        limit: u64,
    },
    /// The tile's byte size disagrees with the sections its header describes.
    #[error("tile data is {actual} bytes but its header describes {expected}")]
    TileSizeMismatch {
        /// Bytes the header's counts describe.
        expected: u64,
        /// Bytes present.
        actual: u64,
    },
    /// Data laid out for references of the other width: its size is right for them.
    #[error(
        "the data is laid out for {needs} polygon references, not the {reading} ones it was read \
         with"
    )]
    WrongRefWidth {
        /// The width the data's layout fits.
        needs: RefWidth,
        /// The width it was read with.
        reading: RefWidth,
    },
    /// Header counts that contradict each other.
    #[error("inconsistent tile header: {0}")]
    InconsistentTile(String),
    /// An index stored in the tile points outside the array it refers to.
    #[error("{what} {item}: index {index} is out of range (limit {limit})")]
    IndexOutOfRange {
        /// The array the index belongs to.
        what: &'static str,
        /// Which item holds the index.
        item: usize,
        /// The index.
        index: i64,
        /// The array's length.
        limit: usize,
    },
    /// A polygon whose type, vertex count or neighbour code cannot occur in Detour data.
    #[error("poly {poly}: {reason}")]
    InvalidPoly {
        /// The polygon's index in its tile.
        poly: usize,
        /// What is wrong with it.
        reason: String,
    },
    /// A coordinate or size in a loaded tile that is NaN or infinite. C++ loads such tiles,
    /// but queries on them can loop for ever; Navlab refuses them.
    #[error("tile ({x}, {y}) layer {layer}: {what} is not finite ({value})")]
    NonFiniteValue {
        /// The tile's x in the grid.
        x: i32,
        /// The tile's y in the grid.
        y: i32,
        /// The tile's layer.
        layer: i32,
        /// What holds the value.
        what: String,
        /// The value.
        value: f32,
    },
    /// A file that does not start with 'MSET'.
    #[error("navmesh file has magic {found:#010x}, expected 'MSET' (or a compact file's 'NLMZ')")]
    WrongFileMagic {
        /// The first four bytes, as a little-endian int.
        found: i32,
    },
    /// A navmesh file of another version.
    #[error("navmesh file has version {found}, expected 1")]
    WrongFileVersion {
        /// The version the file has.
        found: i32,
    },
    /// A navmesh file's long-range link block (after the tiles) that is malformed or lists
    /// other links than its tiles hold.
    #[error("long-range link block: {0}")]
    BadLongLinkBlock(String),
    /// A compact navmesh file's tiles could not be compressed or decompressed.
    #[error("compact navmesh tiles: {0}")]
    Compression(String),
    /// A tile of a navmesh file failed to load.
    #[error("tile #{index} (file offset {offset}): {source}")]
    FileTile {
        /// The tile's place in the file, from 0.
        index: usize,
        /// Its byte offset in the file.
        offset: usize,
        #[source]
        /// Why it failed.
        source: Box<DetourError>,
    },
    /// Every tile slot is in use.
    #[error("no free tile slot left (max tiles {max_tiles})")]
    NoFreeTileSlot {
        /// The navmesh's `maxTiles`.
        max_tiles: usize,
    },
    /// The tile slot a reference asks for is taken or does not exist.
    #[error("tile slot {index} is not available")]
    TileSlotUnavailable {
        /// The slot asked for.
        index: u64,
    },
    /// A file's tile asks for a slot so far out that the slots before it would take more
    /// memory than the file's size justifies (64-bit references number 2²⁸ slots).
    #[error(
        "tile slot {index} is beyond the {budget} slots a {file_bytes}-byte file may make the \
         navmesh hold"
    )]
    SlotBeyondBudget {
        /// The slot asked for.
        index: u64,
        /// The most slots the file may use.
        budget: u64,
        /// The file's size.
        file_bytes: u64,
    },
    /// A tile already sits at that grid location and layer.
    #[error("a tile already exists at ({x}, {y}) layer {layer}")]
    AlreadyOccupied {
        /// Grid x.
        x: i32,
        /// Grid y.
        y: i32,
        /// Layer at that grid cell.
        layer: i32,
    },
    /// The tile has more polygons than the navmesh's poly bits can number.
    #[error("tile has {poly_count} polys, more than the navmesh's {poly_bits} poly bits allow")]
    TooManyPolys {
        /// Polygons in the tile.
        poly_count: usize,
        /// Bits a reference has for the polygon index.
        poly_bits: u32,
    },
    /// A tile reference that names no live tile.
    #[error("invalid tile reference {0:#x}")]
    InvalidTileRef(TileRef),
    /// A polygon reference that names no live polygon.
    #[error("invalid polygon reference {0:#x}")]
    InvalidPolyRef(PolyRef),
    /// The polygon is not an off-mesh connection.
    #[error("polygon {0:#x} is not an off-mesh connection")]
    NotOffMeshConnection(PolyRef),
}
