//! Fuzzes the reading of a game's answer to `navlab remote pull` (an HTTP answer carrying the
//! remote protocol's JSON): any bytes give a level whose every triangle indexes its vertices,
//! or one printable error.
#![no_main]

use libfuzzer_sys::fuzz_target;
use navlab_app::remote::{answer_result, level_from_result};

fuzz_target!(|data: &[u8]| {
    let level = answer_result("fuzz", "navlab.sources", data)
        .and_then(|result| level_from_result("fuzz", &result));
    match level {
        Ok(level) => {
            let vertices = level.mesh.vert_count();
            assert!(level.mesh.tris.iter().all(|&i| i >= 0 && (i as usize) < vertices));
            let triangles: usize = level.sources.iter().map(|s| s.triangles).sum();
            assert_eq!(triangles, level.mesh.tri_count());
        }
        Err(err) => assert!(!err.to_string().contains('\n'), "{err}"),
    }
});
