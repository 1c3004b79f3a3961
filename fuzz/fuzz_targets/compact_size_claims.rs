//! Fuzzes the compact loader's size checks: a real tile table and zstd frame whose claimed
//! sizes, counts and link slots the fuzzer rewrites. Every claim must be refused or honoured
//! without allocating more than the file's bytes and the loader's budget allow; libFuzzer's
//! `-rss_limit_mb` (2 GB by default) and `-malloc_limit_mb` catch an allocation the checks let
//! through.
#![no_main]

use libfuzzer_sys::fuzz_target;
use navlab::detour::NavMesh;

/// The compact file's header and tile-table row sizes.
const FILE_HEADER_SIZE: usize = 44;
const TILE_ENTRY_SIZE: usize = 12;

fuzz_target!(|input: (u32, u32, u32, u32, u32, Vec<u8>)| {
    let (tile_count, data_size, stored_size, max_links, polys, tile) = input;
    // One stored tile whose header counts are the fuzzer's, in a valid zstd frame.
    let mut stored = tile;
    if stored.len() >= 36 {
        stored[24..28].copy_from_slice(&polys.to_le_bytes());
        stored[32..36].copy_from_slice(&max_links.to_le_bytes());
    }
    let Ok(frame) = zstd::bulk::compress(&stored, 1) else {
        return;
    };
    let mut file = Vec::with_capacity(FILE_HEADER_SIZE + TILE_ENTRY_SIZE + frame.len());
    file.extend_from_slice(b"NLMZ");
    file.extend_from_slice(&1u32.to_le_bytes());
    file.extend_from_slice(&0u32.to_le_bytes());
    file.extend_from_slice(&tile_count.min(1).to_le_bytes());
    for value in [0.0f32, 0.0, 0.0, 32.0, 32.0] {
        file.extend_from_slice(&value.to_le_bytes());
    }
    file.extend_from_slice(&1i32.to_le_bytes());
    file.extend_from_slice(&1024i32.to_le_bytes());
    if tile_count > 0 {
        file.extend_from_slice(&0u32.to_le_bytes());
        file.extend_from_slice(&data_size.to_le_bytes());
        file.extend_from_slice(&stored_size.to_le_bytes());
    }
    file.extend_from_slice(&frame);
    let _ = NavMesh::from_compact_bytes(&file);
});
