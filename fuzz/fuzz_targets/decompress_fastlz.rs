//! Fuzzes FastLZ for tile-cache layers: any bytes expand to at most the limit asked for, or
//! give an error, never a panic or an overrun; read as a stored layer they give its grids or an
//! error; and any bytes compress and expand back.
#![no_main]

use libfuzzer_sys::fuzz_target;
use navlab::tile_cache::fastlz::{compress, decompress};

fuzz_target!(|data: &[u8]| {
    // The first two bytes choose the output limit (up to a 255 x 255 layer's three grids).
    let (limit, compressed) = match data {
        [a, b, rest @ ..] => (usize::from(u16::from_le_bytes([*a, *b])) * 3, rest),
        _ => (0, data),
    };
    if let Ok(out) = decompress(compressed, limit) {
        assert!(out.len() <= limit);
    }
    // The same bytes as a stored tile-cache layer: a header and compressed grids.
    if let Ok(layer) = navlab::tile_cache::layer::decompress_layer(data) {
        let cells = usize::from(layer.header.width) * usize::from(layer.header.height);
        assert_eq!(layer.heights.len(), cells);
    }
    if !data.is_empty() {
        let packed = compress(data);
        assert_eq!(decompress(&packed, data.len()).as_deref(), Ok(data));
    }
});
