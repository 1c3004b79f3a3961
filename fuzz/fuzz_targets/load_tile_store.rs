//! Fuzzes the tile store reader (`TileStore::open`, `NavMesh::load_tiles_in`): any file must
//! give a typed error or tiles that load, in a window and then whole; the loaded navmesh is
//! written as a store again and reads back with the same tiles under the same references.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use navlab::detour::tile_store::TileStore;

/// This process's scratch file: the reader takes a path, as a game opens its store.
fn scratch() -> &'static PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        std::env::temp_dir().join(format!("navlab-fuzz-store-{}.nlts", std::process::id()))
    })
}

fuzz_target!(|data: &[u8]| {
    let path = scratch();
    std::fs::write(path, data).expect("the scratch file is writable");
    let Ok(store) = TileStore::open(path) else {
        return;
    };
    let Ok(mut mesh) = store.empty_nav_mesh() else {
        return;
    };
    // The first tile's cell alone, then everything.
    if let Some(first) = store.tiles().first() {
        let p = store.params();
        let corner = [
            p.orig[0] + first.x as f32 * p.tile_width,
            0.0,
            p.orig[2] + first.y as f32 * p.tile_height,
        ];
        if mesh.load_tiles_in(&store, corner, corner).is_err() {
            return;
        }
    }
    if mesh
        .load_tiles_in(&store, [f32::MIN; 3], [f32::MAX; 3])
        .is_err()
    {
        return;
    }
    let again = path.with_extension("again.nlts");
    TileStore::write(&again, &mesh).expect("a loaded navmesh is written");
    let reread = TileStore::open(&again).expect("a written store opens");
    let mut loaded: Vec<_> = mesh
        .tiles()
        .map(|(r, t)| (r, t.header().x, t.header().y, t.header().layer))
        .collect();
    loaded.sort_unstable();
    let mut stored: Vec<_> = reread
        .tiles()
        .iter()
        .map(|t| (t.tile_ref, t.x, t.y, t.layer))
        .collect();
    stored.sort_unstable();
    assert_eq!(stored, loaded);
    let mut whole = reread.empty_nav_mesh().expect("its parameters are the store's");
    whole
        .load_tiles_in(&reread, [f32::MIN; 3], [f32::MAX; 3])
        .expect("a written store loads");
    assert_eq!(whole.tile_count(), mesh.tile_count());
});
