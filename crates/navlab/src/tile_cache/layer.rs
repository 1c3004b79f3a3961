//! A compressed heightfield layer as the tile cache stores it (`dtBuildTileCacheLayer`): the
//! 56-byte `dtTileCacheLayerHeader`, then the layer's heights, areas and connections, each a
//! `width × height` grid, compressed as one buffer. The header's two trailing padding bytes are
//! written as zero (RecastDemo leaves stack garbage there) and ignored when read.

use super::fastlz::{self, FastLzError};
use crate::detour::tile::{f32_at, i32_at};

/// `DT_TILECACHE_MAGIC`: "DTLR" as a little-endian int.
pub const LAYER_MAGIC: i32 =
    (b'D' as i32) << 24 | (b'T' as i32) << 16 | (b'L' as i32) << 8 | b'R' as i32;
/// `DT_TILECACHE_VERSION`.
pub const LAYER_VERSION: i32 = 1;
/// Bytes of the header, already a multiple of 4, so the payload follows at once.
pub const LAYER_HEADER_SIZE: usize = 56;

/// Where a layer sits and what part of its grid holds data (`dtTileCacheLayerHeader`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LayerHeader {
    /// Tile column x.
    pub tx: i32,
    /// Tile column y.
    pub ty: i32,
    /// The layer's index in its tile column.
    pub tlayer: i32,
    /// Minimum corner of the layer's bounds, world units.
    pub bmin: [f32; 3],
    /// Maximum corner.
    pub bmax: [f32; 3],
    /// Height range in cells.
    pub hmin: u16,
    /// Highest cell height.
    pub hmax: u16,
    /// Grid width in cells.
    pub width: u8,
    /// Grid height in cells.
    pub height: u8,
    /// The cells holding data, inclusive.
    pub minx: u8,
    /// Last column holding data.
    pub maxx: u8,
    /// First row holding data.
    pub miny: u8,
    /// Last row holding data.
    pub maxy: u8,
}

/// Why a compressed layer could not be made or read.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum LayerError {
    #[error("the layer grids hold {found} cells each, the header says {width} x {height}")]
    /// Grids whose lengths disagree with the header's size.
    GridSize {
        /// Cells each grid holds.
        found: usize,
        /// The header's width.
        width: u8,
        /// The header's height.
        height: u8,
    },
    #[error("the layer data is {0} bytes, shorter than its 56-byte header")]
    /// Fewer bytes than the layer header (how many).
    Truncated(usize),
    #[error("the layer header has magic {0:#010x}, not DTLR")]
    /// A header that does not start with `DTLR` (the magic found).
    BadMagic(i32),
    #[error("the layer header has version {0}; only 1 is known")]
    /// A header of another version (the one found).
    BadVersion(i32),
    #[error("the layer's compressed cells are broken: {0}")]
    /// The FastLZ stream is broken.
    Compressed(#[from] FastLzError),
    #[error("the layer's cells expand to {found} bytes, not the {expected} of its grids")]
    /// The cells expand to another size than the grids need.
    WrongExpandedSize {
        /// Bytes they expand to.
        found: usize,
        /// Bytes the grids need.
        expected: usize,
    },
}

impl LayerHeader {
    /// The header as stored, little-endian, padding zeroed.
    pub fn to_bytes(&self) -> [u8; LAYER_HEADER_SIZE] {
        let mut out = [0u8; LAYER_HEADER_SIZE];
        let ints = [LAYER_MAGIC, LAYER_VERSION, self.tx, self.ty, self.tlayer];
        for (k, v) in ints.iter().enumerate() {
            out[k * 4..k * 4 + 4].copy_from_slice(&v.to_le_bytes());
        }
        for (k, v) in self.bmin.iter().chain(&self.bmax).enumerate() {
            out[20 + k * 4..24 + k * 4].copy_from_slice(&v.to_le_bytes());
        }
        out[44..46].copy_from_slice(&self.hmin.to_le_bytes());
        out[46..48].copy_from_slice(&self.hmax.to_le_bytes());
        out[48..54].copy_from_slice(&[
            self.width,
            self.height,
            self.minx,
            self.maxx,
            self.miny,
            self.maxy,
        ]);
        out
    }

    /// Reads a stored header, checking its magic and version.
    pub fn from_bytes(data: &[u8]) -> Result<Self, LayerError> {
        let bytes: &[u8; LAYER_HEADER_SIZE] = data
            .get(..LAYER_HEADER_SIZE)
            .and_then(|b| b.try_into().ok())
            .ok_or(LayerError::Truncated(data.len()))?;
        let int = |at: usize| i32_at(bytes, at);
        let float = |at: usize| f32_at(bytes, at);
        let short = |at: usize| u16::from_le_bytes([bytes[at], bytes[at + 1]]);
        match (int(0), int(4)) {
            (LAYER_MAGIC, LAYER_VERSION) => {}
            (LAYER_MAGIC, version) => return Err(LayerError::BadVersion(version)),
            (magic, _) => return Err(LayerError::BadMagic(magic)),
        }
        Ok(Self {
            tx: int(8),
            ty: int(12),
            tlayer: int(16),
            bmin: [float(20), float(24), float(28)],
            bmax: [float(32), float(36), float(40)],
            hmin: short(44),
            hmax: short(46),
            width: bytes[48],
            height: bytes[49],
            minx: bytes[50],
            maxx: bytes[51],
            miny: bytes[52],
            maxy: bytes[53],
        })
    }

    fn cells(&self) -> usize {
        usize::from(self.width) * usize::from(self.height)
    }
}

/// The stored bytes of a layer: `header`, then `heights`, `areas` and `cons` compressed with
/// FastLZ as RecastDemo's compressor does.
pub fn build_compressed_layer(
    header: &LayerHeader,
    heights: &[u8],
    areas: &[u8],
    cons: &[u8],
) -> Result<Vec<u8>, LayerError> {
    let cells = header.cells();
    if let Some(found) = [heights.len(), areas.len(), cons.len()]
        .into_iter()
        .find(|&n| n != cells)
    {
        return Err(LayerError::GridSize {
            found,
            width: header.width,
            height: header.height,
        });
    }
    let grids = [heights, areas, cons].concat();
    let mut data = header.to_bytes().to_vec();
    data.extend(fastlz::compress(&grids));
    Ok(data)
}

/// Reads a stored layer's header and expands its heights, areas and connections, one grid
/// after the other, into `grids`, checking that they fill exactly the header's cells.
pub fn decompress_layer_into(data: &[u8], grids: &mut Vec<u8>) -> Result<LayerHeader, LayerError> {
    let header = LayerHeader::from_bytes(data)?;
    let expected = header.cells() * 3;
    fastlz::decompress_into(&data[LAYER_HEADER_SIZE..], expected, grids)?;
    if grids.len() != expected {
        return Err(LayerError::WrongExpandedSize {
            found: grids.len(),
            expected,
        });
    }
    Ok(header)
}

/// A stored layer read back: its header and its three grids.
#[derive(Clone, Debug, PartialEq)]
pub struct DecompressedLayer {
    /// The layer's header.
    pub header: LayerHeader,
    /// Cell heights, row by row.
    pub heights: Vec<u8>,
    /// Cell area ids.
    pub areas: Vec<u8>,
    /// Cell neighbour connections and portal bits.
    pub cons: Vec<u8>,
}

/// Reads a stored layer, checking that the cells expand to exactly the header's grids.
pub fn decompress_layer(data: &[u8]) -> Result<DecompressedLayer, LayerError> {
    let mut grids = Vec::new();
    let header = decompress_layer_into(data, &mut grids)?;
    let cells = header.cells();
    // The heights keep the buffer; the other two grids are split off it.
    let mut heights = grids;
    let cons = heights.split_off(2 * cells);
    let areas = heights.split_off(cells);
    Ok(DecompressedLayer {
        heights,
        areas,
        cons,
        header,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_layer_round_trips_and_bad_bytes_are_errors() {
        let header = LayerHeader {
            tx: 3,
            ty: -1,
            tlayer: 2,
            bmin: [1.0, 2.0, 3.0],
            bmax: [4.0, 5.0, 6.0],
            hmin: 7,
            hmax: 9,
            width: 4,
            height: 3,
            minx: 0,
            maxx: 3,
            miny: 1,
            maxy: 2,
        };
        let grid: Vec<u8> = (0..12).collect();
        let data = build_compressed_layer(&header, &grid, &grid, &grid).unwrap();
        assert_eq!(&data[..4], b"RLTD");
        let back = decompress_layer(&data).unwrap();
        assert_eq!((back.header, back.heights), (header.clone(), grid.clone()));
        assert!(matches!(
            build_compressed_layer(&header, &grid[..5], &grid, &grid),
            Err(LayerError::GridSize { found: 5, .. })
        ));
        assert_eq!(
            decompress_layer(&data[..20]),
            Err(LayerError::Truncated(20))
        );
        let mut bad = data.clone();
        bad[0] = 0;
        assert!(matches!(
            decompress_layer(&bad),
            Err(LayerError::BadMagic(_))
        ));
        let mut bigger = header;
        bigger.width = 5;
        let mut lying = bigger.to_bytes().to_vec();
        lying.extend_from_slice(&data[LAYER_HEADER_SIZE..]);
        assert!(matches!(
            decompress_layer(&lying),
            Err(LayerError::WrongExpandedSize { .. })
        ));
    }
}
