//! Streaming a tile store (`navlab store`, opened as a navmesh file) into the viewer: the tiles
//! of the blocks the world view draws, and of a corridor along the Test Navmesh path, are read
//! and expanded on the I/O pool and added between frames within a time budget; tiles nobody
//! wants any more are dropped. The navmesh holds what is in view, not the world.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bevy::prelude::*;
use bevy::tasks::futures::check_ready;
use bevy::tasks::{IoTaskPool, Task};

use crate::viewer::build::{BuildState, ViewerLog};
use crate::viewer::draw::DrawSystems;
use crate::viewer::draw::world::{TileGrid, WorldView};
use crate::viewer::navmesh::ShownNavMesh;
use crate::viewer::tools::Tools;
use navlab::detour::tile_store::{StoredTile, TileStore};
use navlab::detour::{MeshTile, NavMesh, TileRef};

/// Tiles read by one task on the I/O pool.
const TILES_PER_READ: usize = 64;
/// Reads running at once.
const MAX_READS: usize = 8;
/// Main-thread time a frame spends adding and dropping tiles.
const FRAME_BUDGET: Duration = Duration::from_millis(6);
/// Frames to wait for the world view's blocks to let go of the navmesh before it is copied.
const MAX_WAIT_FRAMES: u32 = 30;
/// The corridor loaded around a path reaches this far from the straight line between its ends
/// (metres), or a tenth of the path's length if that is more, and holds at most this many
/// tile cells. A path that must stray further is found partial, to the corridor's edge.
const CORRIDOR_REACH: f32 = 250.0;
const CORRIDOR_REACH_PER_LENGTH: f32 = 0.1;
/// Cells kept loaded beyond what is wanted, so a camera moving back and forth over a block's
/// edge does not drop and read the same tiles again.
const KEEP_MARGIN_CELLS: i32 = 2;
const MAX_CORRIDOR_CELLS: usize = 1 << 16;

/// A tile read from the store, or why it could not be.
type ReadTile = Result<(StoredTile, MeshTile), String>;

/// The streaming state of the tile store on screen.
#[derive(Resource, Default)]
pub struct Streaming {
    /// The navmesh the state is of ([`ShownNavMesh::source_version`]).
    source: Option<u64>,
    reading: Vec<Task<Vec<ReadTile>>>,
    /// Tiles being read, by grid cell and layer.
    in_flight: HashSet<(i32, i32, i32)>,
    /// Tiles read, waiting to be added.
    ready: Vec<(StoredTile, MeshTile)>,
    /// The regions last asked for in full, as cell ranges, so an unchanged view asks nothing
    /// again (cleared when a tile read for them was let go).
    asked: Vec<(IVec2, IVec2)>,
    /// The regions the loaded tiles were last trimmed to: the drop check walks every loaded
    /// tile, so it runs only when they change.
    trimmed_to: Option<Vec<(IVec2, IVec2)>>,
    waited_frames: u32,
    /// The Test Navmesh path's corridor, as cell ranges along it.
    pub corridor: Vec<(IVec2, IVec2)>,
    /// Tiles added and dropped since the store was opened.
    pub loaded: usize,
    pub dropped: usize,
    /// A read failed: reported once per store.
    failed: bool,
}

impl Streaming {
    /// Whether nothing is being read or waiting to be added.
    pub fn idle(&self) -> bool {
        self.reading.is_empty() && self.ready.is_empty()
    }
}

pub struct StreamingPlugin;

impl Plugin for StreamingPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<Streaming>()
            .add_systems(Update, stream_tiles.after(DrawSystems));
    }
}

/// The cell ranges along the straight line from `start` to `end`, each reaching
/// [`CORRIDOR_REACH`] (or a tenth of the length) from it; empty past [`MAX_CORRIDOR_CELLS`].
pub fn corridor_cells(grid: &TileGrid, start: Vec3, end: Vec3) -> Vec<(IVec2, IVec2)> {
    let length = start.xz().distance(end.xz());
    let reach = CORRIDOR_REACH.max(length * CORRIDOR_REACH_PER_LENGTH);
    let pieces = (length / reach).ceil().max(1.0) as usize;
    let mut ranges = Vec::with_capacity(pieces);
    let mut cells = 0usize;
    for i in 0..pieces {
        let a = start.xz().lerp(end.xz(), i as f32 / pieces as f32);
        let b = start.xz().lerp(end.xz(), (i + 1) as f32 / pieces as f32);
        let first = grid.cell_of(a.min(b) - reach).max(grid.first);
        let last = grid.cell_of(a.max(b) + reach).min(grid.last);
        if first.cmpgt(last).any() {
            continue;
        }
        let size = (last - first + 1).as_i64vec2();
        cells += (size.x * size.y) as usize;
        if cells > MAX_CORRIDOR_CELLS {
            return Vec::new();
        }
        ranges.push((first, last));
    }
    ranges
}

fn stream_tiles(
    state: Res<BuildState>,
    mut shown: ResMut<ShownNavMesh>,
    mut world: ResMut<WorldView>,
    tools: Option<Res<Tools>>,
    mut streaming: ResMut<Streaming>,
    mut log: ResMut<ViewerLog>,
) {
    let streaming = &mut *streaming;
    let Some(store) = shown.store().cloned() else {
        if streaming.source.is_some() {
            *streaming = Streaming::default();
            world.hold = false;
        }
        return;
    };
    let source = shown.source_version(&state);
    if streaming.source != Some(source) {
        *streaming = Streaming {
            source: Some(source),
            ..Default::default()
        };
    }
    let Some(grid) = world.grid() else {
        return;
    };

    // What is wanted: the world view's blocks, and the tester's corridor.
    streaming.corridor = tools
        .as_ref()
        .and_then(|tools| tools.path_end_points())
        .map(|(start, end, _)| corridor_cells(&grid, Vec3::from(start), Vec3::from(end)))
        .unwrap_or_default();
    let mut regions: Vec<(IVec2, IVec2)> = world.wanted_cells().into_iter().collect();
    regions.extend(streaming.corridor.iter().copied());

    // Reads finished.
    let mut still_reading = Vec::new();
    for mut task in streaming.reading.drain(..) {
        match check_ready(&mut task) {
            None => still_reading.push(task),
            Some(tiles) => {
                for tile in tiles {
                    match tile {
                        Ok((stored, tile)) => streaming.ready.push((stored, tile)),
                        Err(message) if !streaming.failed => {
                            streaming.failed = true;
                            log.error(message);
                        }
                        Err(_) => {}
                    }
                }
            }
        }
    }
    streaming.reading = still_reading;

    // New reads for the tiles wanted and not loaded, the view's first, a few reads at a time.
    let room = MAX_READS.saturating_sub(streaming.reading.len()) * TILES_PER_READ;
    if room > 0 && streaming.asked != regions {
        let nav = shown.get(&state);
        let mut wanted: Vec<StoredTile> = Vec::new();
        'regions: for &(first, last) in &regions {
            let (bmin, bmax) = grid.cells_box(first, last);
            for stored in store.tiles_in(bmin.into(), bmax.into()) {
                if wanted.len() == room {
                    break 'regions;
                }
                let key = (stored.x, stored.y, stored.layer);
                let loaded = nav.is_some_and(|n| n.tile_at(key.0, key.1, key.2).is_some());
                if !loaded && streaming.in_flight.insert(key) {
                    wanted.push(*stored);
                }
            }
        }
        // Asked in full only if nothing was left out for lack of room.
        streaming.asked = if wanted.len() < room {
            regions.clone()
        } else {
            Vec::new()
        };
        for chunk in wanted.chunks(TILES_PER_READ) {
            let chunk = chunk.to_vec();
            let store = store.clone();
            streaming
                .reading
                .push(IoTaskPool::get().spawn(async move { read_tiles(&store, &chunk) }));
        }
    }

    // Tiles to drop: loaded, and outside every region and its margin.
    let keep: Vec<(IVec2, IVec2)> = regions
        .iter()
        .map(|&(a, b)| (a - KEEP_MARGIN_CELLS, b + KEEP_MARGIN_CELLS))
        .collect();
    let inside = |x: i32, y: i32| {
        keep.iter()
            .any(|(a, b)| x >= a.x && y >= a.y && x <= b.x && y <= b.y)
    };
    let trimmed = streaming.trimmed_to.as_ref() == Some(&regions);
    let outside: Vec<TileRef> = match shown
        .get(&state)
        .filter(|_| !regions.is_empty() && !trimmed)
    {
        Some(nav) => nav
            .tiles()
            .filter(|(_, t)| !inside(t.header().x, t.header().y))
            .map(|(r, _)| r)
            .collect(),
        None => Vec::new(),
    };
    if streaming.ready.is_empty() && outside.is_empty() {
        streaming.trimmed_to = Some(regions);
        world.hold = false;
        return;
    }

    // The navmesh changes: blocks being made hold it, so none are started until it is free.
    world.hold = true;
    if world.is_making() && streaming.waited_frames < MAX_WAIT_FRAMES {
        streaming.waited_frames += 1;
        return;
    }
    streaming.waited_frames = 0;
    let Some(shared) = shown.streamed_mut() else {
        return;
    };
    // Copied only if something else still holds it (a running crowd, or blocks that waited too
    // long).
    let mesh: &mut NavMesh = Arc::make_mut(shared);
    let started = Instant::now();
    // The references hold in a copy too: it keeps the slots and salts.
    for tile_ref in outside {
        if mesh.remove_tile(tile_ref).is_ok() {
            streaming.dropped += 1;
        }
    }
    streaming.trimmed_to = Some(regions.clone());
    while started.elapsed() < FRAME_BUDGET {
        let Some((stored, tile)) = streaming.ready.pop() else {
            break;
        };
        streaming
            .in_flight
            .remove(&(stored.x, stored.y, stored.layer));
        // A tile whose region was left while it was read is not added; should the view come
        // back, the regions are asked for again.
        if !inside(stored.x, stored.y) {
            streaming.asked.clear();
            continue;
        }
        if mesh.tile_at(stored.x, stored.y, stored.layer).is_some() {
            continue;
        }
        match mesh.add_tile(tile, stored.tile_ref) {
            Ok(_) => streaming.loaded += 1,
            Err(err) if !streaming.failed => {
                streaming.failed = true;
                log.error(format!(
                    "Could not add tile ({}, {}) of {}: {err}",
                    stored.x,
                    stored.y,
                    store.path().display()
                ));
            }
            Err(_) => {}
        }
    }
    if streaming.ready.is_empty() {
        world.hold = false;
    }
}

/// Reads and expands `tiles` from `store`.
fn read_tiles(store: &TileStore, tiles: &[StoredTile]) -> Vec<ReadTile> {
    tiles
        .iter()
        .map(|stored| {
            store
                .read_tile(stored)
                .map(|tile| (*stored, tile))
                .map_err(|err| format!("Could not stream a tile: {err}"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_corridor_follows_the_path_and_stays_in_the_grid() {
        let grid = TileGrid {
            orig: Vec3::ZERO,
            tile_width: 20.0,
            tile_height: 20.0,
            first: IVec2::ZERO,
            last: IVec2::splat(499),
        };
        // 5 km along the diagonal: pieces of a tenth of it, each reaching 500 m beside the line.
        let (start, end) = (Vec3::new(500.0, 0.0, 500.0), Vec3::new(4035.0, 0.0, 4035.0));
        let ranges = corridor_cells(&grid, start, end);
        assert_eq!(ranges.len(), 10);
        let covers = |p: Vec3| {
            let cell = IVec2::new((p.x / 20.0) as i32, (p.z / 20.0) as i32);
            ranges
                .iter()
                .any(|(a, b)| cell.cmpge(*a).all() && cell.cmple(*b).all())
        };
        for i in 0..=20 {
            assert!(covers(start.lerp(end, i as f32 / 20.0)));
        }
        // The far corners are not in it, and nothing is outside the grid.
        assert!(!covers(Vec3::new(9900.0, 0.0, 100.0)));
        assert!(
            ranges
                .iter()
                .all(|(a, b)| a.cmpge(grid.first).all() && b.cmple(grid.last).all())
        );
        // A path across a grid too big to hold the corridor gets none.
        let huge = TileGrid {
            last: IVec2::splat(1 << 20),
            tile_width: 1.0,
            tile_height: 1.0,
            ..grid
        };
        let far_end = Vec3::new(900_000.0, 0.0, 900_000.0);
        assert!(corridor_cells(&huge, Vec3::ZERO, far_end).is_empty());
    }
}
