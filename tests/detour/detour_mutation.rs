//! Randomised mutation of C++ navmesh files: whatever the bytes, loading returns a typed error
//! or a navmesh that every accessor can use. Runs for `NAVLAB_MUTATION_SECS` seconds (default
//! 2); the fuzz target in `fuzz/` does the same with coverage guidance where cargo-fuzz runs.
use crate::support::detour as detour_common;

use std::time::{Duration, Instant};

use detour_common::{exercise, reference_file};
use navlab::detour::NavMesh;

/// xorshift64*: a small, seedable generator, so failures can be replayed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Offsets of the headers in an MSET file: the file header and each tile's headers, where a
/// change matters most.
fn header_offsets(file: &[u8]) -> Vec<usize> {
    let int = |at: usize| i32::from_le_bytes(file[at..at + 4].try_into().unwrap());
    let mut offsets: Vec<usize> = (0..40).collect();
    let mut at = 40;
    for _ in 0..int(8) {
        offsets.extend(at..at + 8 + 100);
        at += 8 + int(at + 4) as usize;
    }
    offsets
}

/// Applies one random edit, or now and then up to 8: bit flips, random bytes, interesting 32-bit values (often on
/// a header field), truncation, or a removed or repeated chunk.
fn mutate(rng: &mut Rng, original: &[u8], headers: &[usize]) -> Vec<u8> {
    const VALUES: [i32; 10] = [0, 1, -1, 2, 255, 256, 0xffff, 0x10000, i32::MAX, i32::MIN];
    let mut data = original.to_vec();
    let edits = if rng.below(4) == 0 {
        1 + rng.below(8)
    } else {
        1
    };
    for _ in 0..edits {
        if data.is_empty() {
            break;
        }
        let pos = if rng.below(3) == 0 {
            headers[rng.below(headers.len())].min(data.len() - 1)
        } else {
            rng.below(data.len())
        };
        match rng.below(6) {
            0 => data[pos] ^= 1 << rng.below(8),
            1 => data[pos] = rng.next() as u8,
            2 => {
                let at = (pos & !3).min(data.len().saturating_sub(4));
                let value = VALUES[rng.below(VALUES.len())].wrapping_add(rng.below(3) as i32 - 1);
                let end = (at + 4).min(data.len());
                data[at..end].copy_from_slice(&value.to_le_bytes()[..end - at]);
            }
            3 => data.truncate(pos),
            4 => {
                let end = (pos + 1 + rng.below(64)).min(data.len());
                data.drain(pos..end);
            }
            _ => {
                let end = (pos + 1 + rng.below(64)).min(data.len());
                let chunk = data[pos..end].to_vec();
                data.splice(pos..pos, chunk);
            }
        }
    }
    data
}

#[test]
fn random_mutations_never_panic() {
    let files: Vec<Vec<u8>> = [
        "navmesh/nav_test_solo.bin",
        "navmesh/dungeon_tiled32.bin",
        "authoring/nav_test_authoring_solo.bin",
        "authoring/nav_test_authoring_tiled32.bin",
        "detour/tilecache_nav_test_obstacles.bin",
    ]
    .iter()
    .filter_map(|f| reference_file(f))
    .collect();
    if files.is_empty() {
        return;
    }
    let headers: Vec<Vec<usize>> = files.iter().map(|f| header_offsets(f)).collect();
    let seconds = std::env::var("NAVLAB_MUTATION_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2);
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut runs, mut loaded) = (0u64, 0u64);
    while Instant::now() < deadline {
        for _ in 0..64 {
            let k = rng.below(files.len());
            let state = rng.0;
            let data = mutate(&mut rng, &files[k], &headers[k]);
            let result = std::panic::catch_unwind(|| {
                NavMesh::from_mset_bytes(&data).map(|mut mesh| {
                    exercise(&mut mesh);
                    mesh.to_mset_bytes().len()
                })
            });
            assert!(
                result.is_ok(),
                "panic on a mutant of file {k} (rng state {state:#x})"
            );
            runs += 1;
            loaded += u64::from(result.is_ok_and(|r| r.is_ok()));
        }
    }
    println!("{runs} mutants in {seconds} s, {loaded} loaded, the rest rejected with errors");
}
