//! Tiled builds (RecastDemo's Sample_TileMesh): the navmesh area cut into square tiles, each
//! built through the whole pipeline with a border of extra cells so tiles join seamlessly, the
//! tiles built in parallel and added to one Detour navmesh in the order RecastDemo adds them.
//!
//! A built grid can then be edited tile by tile, as the Create Tiles tool does: rebuild or remove
//! one tile ([`TiledBuild::rebuild_tile`], [`TiledBuild::remove_tile`]), rebuild only the tiles
//! an authoring change touches ([`TiledBuild::update_authored`]), or rebuild one tile keeping
//! every stage so it can be drawn like a solo build ([`TiledBuild::inspect_tile`]). Each tile's
//! data equals the full build's; only the Detour salts of replaced tiles differ.

use std::sync::atomic::{AtomicUsize, Ordering};

use crate::threads::prelude::*;

use crate::bake::nothing_walkable::{
    WalkableCounts, nothing_walkable, region_count, spans_in_regions,
};
use crate::bake::sample_areas::{apply_area_flags, sample_area_flags};
use crate::bake::settings::BuildSettings;
use crate::bake::solo::{Build, TileStages};
use crate::detour::nav_mesh::MAX_TILE_BITS;
use crate::detour::{
    MeshTile, NavMesh, NavMeshParams, RefWidth, VERTS_PER_POLYGON, create_nav_mesh_data,
};
use crate::error::{NavlabError, Result};
use crate::input::geomset::GeomSet;
use crate::input::input_geom::InputGeom;
use crate::recast::compact::{CompactHeightfield, build_compact_heightfield};
use crate::recast::config::{Config, calc_grid_size};
use crate::recast::context::{BuildContext, TimerLabel};
use crate::recast::contour::{ContourBuildFlags, build_contours};
use crate::recast::detail_mesh::{PolyMeshDetail, build_poly_mesh_detail};
use crate::recast::heightfield::Heightfield;
use crate::recast::poly_mesh::{PolyMesh, build_poly_mesh};
use crate::recast::region::PartitionType;
use crate::{
    recast::area, recast::distance_field, recast::filter, recast::rasterize, recast::region,
};

/// The largest tile edge in cells.
pub const MAX_TILE_SIZE: i32 = 4096;

/// Why a tile has no navmesh data, in the reference dumps' words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EmptyTile {
    /// No input triangle overlaps the tile (`null:no_overlapping_chunks`).
    NoOverlappingChunks,
    /// Nothing walkable survived to the contour stage (`null:no_contours`).
    NoContours,
    /// The poly mesh was empty or too large for Detour (`Could not build Detour navmesh.`).
    NoDetourData,
    /// Removed by [`TiledBuild::remove_tile`] (RecastDemo's Shift+click in Create Tiles).
    Removed,
    /// Outside the [`TileRange`] a partial build was asked for, so not built.
    OutsideRange,
}

/// An inclusive rectangle of grid cells, `x0..=x1` by `y0..=y1`: the part of a tiled bake one
/// machine builds (`navlab bake --tiles X0..X1,Y0..Y1`); `navlab merge` joins the parts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TileRange {
    /// First column.
    pub x0: i32,
    /// Last column.
    pub x1: i32,
    /// First row.
    pub y0: i32,
    /// Last row.
    pub y1: i32,
}

impl TileRange {
    /// Whether grid cell (`x`, `y`) is in the range.
    pub fn contains(&self, x: i32, y: i32) -> bool {
        (self.x0..=self.x1).contains(&x) && (self.y0..=self.y1).contains(&y)
    }

    /// How many grid cells the range covers.
    pub fn tile_count(&self) -> usize {
        let along = |lo: i32, hi: i32| (i64::from(hi) - i64::from(lo) + 1).max(0) as usize;
        along(self.x0, self.x1) * along(self.y0, self.y1)
    }

    /// Refuses a range reaching past a `tiles_x` × `tiles_y` grid, naming the grid's range.
    fn check_inside(&self, tiles_x: i32, tiles_y: i32) -> Result<()> {
        for (axis, hi, count) in [("x", self.x1, tiles_x), ("y", self.y1, tiles_y)] {
            if hi >= count {
                return Err(invalid_range(
                    self,
                    format!(
                        "{axis} reaches tile {hi}, but the grid is {tiles_x} x {tiles_y} tiles \
                         (0..{},0..{})",
                        tiles_x - 1,
                        tiles_y - 1
                    ),
                ));
            }
        }
        Ok(())
    }
}

impl std::fmt::Display for TileRange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}..{},{}..{}", self.x0, self.x1, self.y0, self.y1)
    }
}

impl std::str::FromStr for TileRange {
    type Err = NavlabError;

    /// Parses `X0..X1,Y0..Y1` (a lone `X` stands for `X..X`), bounds inclusive and not reversed.
    fn from_str(text: &str) -> Result<Self> {
        let malformed = || NavlabError::InvalidTileRange {
            range: text.to_owned(),
            reason: "expected X0..X1,Y0..Y1 (inclusive tile indices from 0, e.g. 0..3,4..7)".into(),
        };
        let (xs, ys) = text.split_once(',').ok_or_else(malformed)?;
        let bounds = |part: &str| -> Result<(i32, i32)> {
            let (lo, hi) = part.split_once("..").unwrap_or((part, part));
            let parse = |n: &str| n.trim().parse::<i32>().ok().filter(|n| *n >= 0);
            parse(lo).zip(parse(hi)).ok_or_else(malformed)
        };
        let ((x0, x1), (y0, y1)) = (bounds(xs)?, bounds(ys)?);
        let range = TileRange { x0, x1, y0, y1 };
        for (axis, lo, hi) in [("x", x0, x1), ("y", y0, y1)] {
            if lo > hi {
                return Err(invalid_range(
                    &range,
                    format!("{axis} bounds are reversed ({lo} > {hi}); write {hi}..{lo}"),
                ));
            }
        }
        Ok(range)
    }
}

fn invalid_range(range: &TileRange, reason: String) -> NavlabError {
    NavlabError::InvalidTileRange {
        range: range.to_string(),
        reason,
    }
}

/// The result of one tile: its meshes (kept for drawing) and its Detour data.
#[derive(Clone, Debug)]
pub struct TileOutput {
    /// The tile's convex polygons.
    pub poly_mesh: PolyMesh,
    /// The tile's detail mesh.
    pub detail_mesh: PolyMeshDetail,
    /// The tile's Detour data before it was added to the navmesh.
    pub data: Option<MeshTile>,
}

/// One tile of the grid.
#[derive(Clone, Debug)]
pub struct Tile {
    /// Grid column.
    pub x: i32,
    /// Grid row.
    pub y: i32,
    /// Input triangles the tile rasterized (from the overlapping chunks).
    pub triangle_count: usize,
    /// What was left walkable after each stage of the tile.
    pub walkable: WalkableCounts,
    /// Its meshes and data, or why it has none.
    pub output: std::result::Result<TileOutput, EmptyTile>,
    /// Log lines and Recast timers of this tile's build.
    pub context: BuildContext,
}

/// A whole tiled build.
#[derive(Clone, Debug)]
pub struct TiledBuild {
    /// The settings every tile was built with.
    pub settings: BuildSettings,
    /// The navmesh bounds the grid covers.
    pub bmin: [f32; 3],
    /// Maximum corner of the navmesh bounds.
    pub bmax: [f32; 3],
    /// The authored volumes and links the tiles were built with.
    pub geom_set: GeomSet,
    /// Tile edge in cells.
    pub tile_size: i32,
    /// Tiles along x.
    pub tiles_x: i32,
    /// Tiles along z.
    pub tiles_y: i32,
    /// Every tile, row by row (y outer, x inner), as RecastDemo visits them.
    pub tiles: Vec<Tile>,
    /// The Detour navmesh holding every tile.
    pub nav_mesh: NavMesh,
    /// Cells of border around each tile (what a tile's build reads beyond its bounds).
    border_cells: i32,
}

impl Tile {
    /// A grid cell a partial build skipped.
    fn outside_range(x: i32, y: i32) -> Tile {
        Tile {
            x,
            y,
            triangle_count: 0,
            walkable: WalkableCounts::default(),
            output: Err(EmptyTile::OutsideRange),
            context: BuildContext::new(),
        }
    }

    /// The tile's Detour data, when it has any.
    pub fn data(&self) -> Option<&MeshTile> {
        self.output.as_ref().ok()?.data.as_ref()
    }
}

impl TiledBuild {
    /// Builds every tile of `input` with `tile_size`-cell tiles.
    pub fn new(input: &InputGeom, settings: BuildSettings, tile_size: i32) -> Result<Self> {
        Self::new_part(input, settings, tile_size, None, &|_, _| {})
    }

    /// Builds the tiles of `range` (every tile when `None`), calling `progress(done, total)` from
    /// the worker threads as each tile finishes, for progress bars. The navmesh has the whole grid's
    /// parameters, so parts of one grid can be merged ([`crate::bake::merge`]); a range with
    /// no walkable tile is an error, like a grid with none.
    pub fn new_part(
        input: &InputGeom,
        settings: BuildSettings,
        tile_size: i32,
        range: Option<TileRange>,
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> Result<Self> {
        if !(1..=MAX_TILE_SIZE).contains(&tile_size) {
            return Err(NavlabError::InvalidSetting {
                name: "tileSize",
                value: tile_size.to_string(),
                reason: "must be between 1 and 4096 cells".into(),
            });
        }
        let (bmin, bmax) = input.nav_mesh_bounds()?;
        // Validates the settings over the whole area. `maxGridCells` bounds one heightfield,
        // and a tiled bake rasterizes one tile's at a time: it holds each tile's grid, and the
        // tile count has its own check below.
        let whole_area = BuildSettings {
            max_grid_cells: i64::MAX,
            ..settings.clone()
        };
        let border_cells = tile_border_cells(&whole_area.to_config(bmin, bmax)?);
        let tile_side = i64::from(tile_size) + 2 * i64::from(border_cells);
        if tile_side * tile_side > settings.max_grid_cells {
            return Err(NavlabError::GridTooLarge {
                width: tile_side,
                height: tile_side,
                cells: tile_side * tile_side,
                limit: settings.max_grid_cells,
                cell_size: settings.cell_size,
            });
        }
        let (grid_width, grid_height) = calc_grid_size(&bmin, &bmax, settings.cell_size);
        check_tile_count(grid_width, grid_height, tile_size, settings.ref_width())?;
        let tiles_x = (grid_width + tile_size - 1) / tile_size;
        let tiles_y = (grid_height + tile_size - 1) / tile_size;
        if let Some(range) = &range {
            range.check_inside(tiles_x, tiles_y)?;
        }
        let params = NavMeshParams::for_tile_grid(
            bmin,
            tile_size,
            settings.cell_size,
            (tiles_x, tiles_y),
            settings.ref_width(),
        );
        let nav_mesh = tiled_nav_mesh(params, &settings)?;
        let mut build = Self {
            settings,
            bmin,
            bmax,
            geom_set: input.geom_set.clone(),
            tile_size,
            tiles_x,
            tiles_y,
            tiles: Vec::new(),
            nav_mesh,
            border_cells,
        };

        let coords: Vec<(i32, i32)> = (0..tiles_y)
            .flat_map(|y| (0..tiles_x).map(move |x| (x, y)))
            .collect();
        let total = range.map_or(coords.len(), |r| r.tile_count());
        let done = AtomicUsize::new(0);
        build.tiles = coords
            .into_par_iter()
            .map(|(x, y)| {
                if range.is_some_and(|r| !r.contains(x, y)) {
                    return Ok(Tile::outside_range(x, y));
                }
                let tile = build.build_tile(input, x, y, None);
                progress(done.fetch_add(1, Ordering::Relaxed) + 1, total);
                tile
            })
            .collect::<Result<Vec<Tile>>>()?;

        if let Some(range) = &range
            && !build.tiles.iter().any(|t| t.data().is_some())
        {
            return Err(invalid_range(
                range,
                format!(
                    "none of its {} tiles has navmesh polygons (all empty); pick tiles over \
                     walkable ground",
                    range.tile_count()
                ),
            ));
        }
        let mut walkable = WalkableCounts::default();
        for tile in &build.tiles {
            walkable.add(&tile.walkable);
        }
        if walkable.polygons == 0 {
            return Err(nothing_walkable(
                &input.mesh,
                bmin,
                bmax,
                &build.settings,
                &walkable,
            ));
        }
        for data in build.tiles.iter().filter_map(Tile::data) {
            build.nav_mesh.add_tile(data.clone(), 0)?;
        }
        Ok(build)
    }

    /// The tile's bounds without its border: the grid cell (`x`, `y`) over the full height.
    pub fn tile_bounds(&self, x: i32, y: i32) -> ([f32; 3], [f32; 3]) {
        grid_cell_bounds(
            (self.bmin, self.bmax),
            self.tile_size as f32 * self.settings.cell_size,
            x,
            y,
        )
    }

    /// The grid cell under `p` on the xz-plane, if inside the grid (RecastDemo's tile pick).
    pub fn tile_at(&self, p: [f32; 3]) -> Option<(i32, i32)> {
        let tile_world = self.tile_size as f32 * self.settings.cell_size;
        let fx = ((p[0] - self.bmin[0]) / tile_world).floor();
        let fy = ((p[2] - self.bmin[2]) / tile_world).floor();
        let inside =
            (0.0..self.tiles_x as f32).contains(&fx) && (0.0..self.tiles_y as f32).contains(&fy);
        inside.then_some((fx as i32, fy as i32))
    }

    /// The tile at grid cell (`x`, `y`).
    pub fn tile(&self, x: i32, y: i32) -> Option<&Tile> {
        self.tile_index(x, y).map(|i| &self.tiles[i])
    }

    fn tile_index(&self, x: i32, y: i32) -> Option<usize> {
        ((0..self.tiles_x).contains(&x) && (0..self.tiles_y).contains(&y))
            .then(|| (y * self.tiles_x + x) as usize)
    }

    /// Builds tile (`x`, `y`) of `input` with this grid's settings, recording each stage into
    /// `stages` when given.
    fn build_tile(
        &self,
        input: &InputGeom,
        x: i32,
        y: i32,
        stages: Option<&mut TileStages>,
    ) -> Result<Tile> {
        let (bmin, bmax) = self.tile_bounds(x, y);
        build_tile(
            input,
            &self.settings,
            self.tile_size,
            x,
            y,
            bmin,
            bmax,
            stages,
        )
    }

    /// Puts a freshly built tile in its cell and its data in the navmesh, in place of the old.
    fn replace_tile(&mut self, tile: Tile) -> Result<()> {
        let index = self
            .tile_index(tile.x, tile.y)
            .ok_or_else(|| outside_grid(tile.x, tile.y))?;
        self.unload_tile(tile.x, tile.y)?;
        if let Ok(TileOutput {
            data: Some(data), ..
        }) = &tile.output
        {
            self.nav_mesh.add_tile(data.clone(), 0)?;
        }
        self.tiles[index] = tile;
        Ok(())
    }

    /// Takes the navmesh's tile at (`x`, `y`) out, if it has one.
    fn unload_tile(&mut self, x: i32, y: i32) -> Result<()> {
        if let Some(r) = self.nav_mesh.tile_ref_at(x, y, 0) {
            self.nav_mesh.remove_tile(r)?;
        }
        Ok(())
    }

    /// Rebuilds tile (`x`, `y`) from `input` and swaps it into the navmesh (RecastDemo's click
    /// in Create Tiles). `input` must be the one the grid was built from, or the same mesh
    /// with other authored content.
    pub fn rebuild_tile(&mut self, input: &InputGeom, x: i32, y: i32) -> Result<&Tile> {
        let tile = self.build_tile(input, x, y, None)?;
        self.replace_tile(tile)?;
        self.tile(x, y).ok_or_else(|| outside_grid(x, y))
    }

    /// Rebuilds tile (`x`, `y`) like [`TiledBuild::rebuild_tile`] and returns every stage of
    /// it as a [`Build`] to draw: its config is the tile's (border included); it has no navmesh
    /// of its own (the grid's holds the tile). The build is for looking at: re-running its
    /// stages would build a solo mesh.
    pub fn inspect_tile(&mut self, input: &InputGeom, x: i32, y: i32) -> Result<Build> {
        let mut stages = TileStages::default();
        let tile = self.build_tile(input, x, y, Some(&mut stages))?;
        let (bmin, bmax) = self.tile_bounds(x, y);
        let config = tile_config(&self.settings, self.tile_size, bmin, bmax)?;
        let (poly_mesh, detail_mesh) = match &tile.output {
            Ok(output) => (output.poly_mesh.clone(), output.detail_mesh.clone()),
            Err(_) => Default::default(),
        };
        let build = Build::from_tile_stages(
            input,
            self.settings.clone(),
            config,
            stages,
            (poly_mesh, detail_mesh),
            tile.walkable,
            tile.context.clone(),
        );
        self.replace_tile(tile)?;
        Ok(build)
    }

    /// Removes tile (`x`, `y`) from the navmesh (RecastDemo's Shift+click in Create Tiles).
    pub fn remove_tile(&mut self, x: i32, y: i32) -> Result<()> {
        let index = self.tile_index(x, y).ok_or_else(|| outside_grid(x, y))?;
        self.unload_tile(x, y)?;
        let tile = &mut self.tiles[index];
        tile.output = Err(EmptyTile::Removed);
        tile.triangle_count = 0;
        tile.walkable = WalkableCounts::default();
        tile.context = BuildContext::new();
        Ok(())
    }

    /// Removes every tile ("Remove All").
    pub fn remove_all(&mut self) -> Result<()> {
        for y in 0..self.tiles_y {
            for x in 0..self.tiles_x {
                self.remove_tile(x, y)?;
            }
        }
        Ok(())
    }

    /// Rebuilds every tile in place ("Create All"), keeping the navmesh's tile slots.
    pub fn rebuild_all(&mut self, input: &InputGeom) -> Result<()> {
        let coords: Vec<(i32, i32)> = (0..self.tiles_y)
            .flat_map(|y| (0..self.tiles_x).map(move |x| (x, y)))
            .collect();
        let tiles = coords
            .into_par_iter()
            .map(|(x, y)| self.build_tile(input, x, y, None))
            .collect::<Result<Vec<Tile>>>()?;
        for tile in tiles {
            self.replace_tile(tile)?;
        }
        Ok(())
    }

    /// The tiles whose build reads an authored item at `bmin`..`bmax` (xz): those whose
    /// bounds with their border overlap it.
    fn tiles_touching(&self, bmin: [f32; 2], bmax: [f32; 2]) -> Vec<(i32, i32)> {
        let border = self.border_cells as f32 * self.settings.cell_size;
        let mut touched = Vec::new();
        for y in 0..self.tiles_y {
            for x in 0..self.tiles_x {
                let (tmin, tmax) = self.tile_bounds(x, y);
                let overlaps = tmin[0] - border <= bmax[0]
                    && tmax[0] + border >= bmin[0]
                    && tmin[2] - border <= bmax[1]
                    && tmax[2] + border >= bmin[1];
                if overlaps {
                    touched.push((x, y));
                }
            }
        }
        touched
    }

    /// The tiles an authoring change from this grid's geometry set to `geom_set` touches: the
    /// tiles around every volume added or removed, around both ends of every link added or
    /// removed (Detour stores a link in its start's tile and joins it to its end's), and around
    /// the start of every link from the first one that differs, whose user ids an insertion or
    /// removal renumbers.
    pub fn tiles_affected_by(&self, geom_set: &GeomSet) -> Vec<(i32, i32)> {
        let around = |p: [f32; 3], radius: f32| {
            let r = radius.max(0.0);
            self.tiles_touching([p[0] - r, p[2] - r], [p[0] + r, p[2] + r])
        };
        let mut touched = Vec::new();
        let (old, new) = (&self.geom_set, geom_set);
        for volume in symmetric_difference(&old.convex_volumes, &new.convex_volumes) {
            let (mut lo, mut hi) = ([f32::MAX; 2], [f32::MIN; 2]);
            for v in &volume.verts {
                lo = [lo[0].min(v[0]), lo[1].min(v[2])];
                hi = [hi[0].max(v[0]), hi[1].max(v[2])];
            }
            touched.extend(self.tiles_touching(lo, hi));
        }
        let (old_links, new_links) = (&old.off_mesh_connections, &new.off_mesh_connections);
        for link in symmetric_difference(old_links, new_links) {
            touched.extend(around(link.start, link.radius));
            touched.extend(around(link.end, link.radius));
        }
        if let Some(first) = first_changed_link(old, new) {
            for link in old_links
                .iter()
                .skip(first)
                .chain(new_links.iter().skip(first))
            {
                touched.extend(around(link.start, link.radius));
            }
        }
        touched.sort_unstable_by_key(|&(x, y)| (y, x));
        touched.dedup();
        touched
    }

    /// Switches to `input`'s authored volumes and links, rebuilding only the tiles the change
    /// touches ([`TiledBuild::tiles_affected_by`]). Returns those tiles. The result equals a
    /// full build of `input` tile for tile.
    pub fn update_authored(&mut self, input: &InputGeom) -> Result<Vec<(i32, i32)>> {
        let touched = self.tiles_affected_by(&input.geom_set);
        let tiles = touched
            .par_iter()
            .map(|&(x, y)| self.build_tile(input, x, y, None))
            .collect::<Result<Vec<Tile>>>()?;
        for tile in tiles {
            self.replace_tile(tile)?;
        }
        self.geom_set = input.geom_set.clone();
        Ok(touched)
    }
}

/// An empty navmesh for a tiled build's tiles, its long-range link table on when the settings
/// ask for it ([`BuildSettings::long_range_links`]).
pub fn tiled_nav_mesh(params: NavMeshParams, settings: &BuildSettings) -> Result<NavMesh> {
    let mut nav_mesh = NavMesh::new(params)?;
    if settings.long_range_links {
        nav_mesh.enable_long_range_links();
    }
    Ok(nav_mesh)
}

/// Cell (`x`, `y`) of a tile grid over `bounds` with tiles `tile_world` wide, over the full
/// height, computed as the RecastDemo samples do.
pub(crate) fn grid_cell_bounds(
    (bmin, bmax): ([f32; 3], [f32; 3]),
    tile_world: f32,
    x: i32,
    y: i32,
) -> ([f32; 3], [f32; 3]) {
    (
        [
            bmin[0] + x as f32 * tile_world,
            bmin[1],
            bmin[2] + y as f32 * tile_world,
        ],
        [
            bmin[0] + (x + 1) as f32 * tile_world,
            bmax[1],
            bmin[2] + (y + 1) as f32 * tile_world,
        ],
    )
}

/// The error for a tile coordinate outside the grid.
fn outside_grid(x: i32, y: i32) -> NavlabError {
    NavlabError::InvalidSetting {
        name: "tile",
        value: format!("({x}, {y})"),
        reason: "is outside the tile grid".into(),
    }
}

/// The items in one list and not the other.
fn symmetric_difference<'a, T: PartialEq>(old: &'a [T], new: &'a [T]) -> Vec<&'a T> {
    let gone = old.iter().filter(|a| !new.contains(a));
    let added = new.iter().filter(|b| !old.contains(b));
    gone.chain(added).collect()
}

/// The index of the first link that differs between two geometry sets, when any does.
fn first_changed_link(old: &GeomSet, new: &GeomSet) -> Option<usize> {
    let (a, b) = (&old.off_mesh_connections, &new.off_mesh_connections);
    (0..a.len().max(b.len())).find(|&i| a.get(i) != b.get(i))
}

/// Cells of border Sample_TileMesh adds around each tile: the agent radius in cells plus 3.
fn tile_border_cells(cfg: &Config) -> i32 {
    cfg.walkable_radius + 3
}

/// The most tiles a bake with 64-bit references makes: 64-bit references number 2²⁸ tiles, but
/// a grid that large comes from tiny tiles (a 1 km plane at tile size 1 has 11 million, each
/// rasterizing mostly its border), whose bake would run for hours; 2²² is 15 times the 10 km
/// world at 64-cell tiles.
pub const MAX_BAKE_TILES_64: i64 = 1 << 22;

/// Refuses a grid of more tiles than a Detour navmesh can number (RecastDemo's tile bits are
/// capped at [`MAX_TILE_BITS`] with 32-bit references; with 64-bit ones, more than
/// [`MAX_BAKE_TILES_64`]), before anything is built, naming the smallest tile size that fits.
fn check_tile_count(
    grid_width: i32,
    grid_height: i32,
    tile_size: i32,
    ref_width: RefWidth,
) -> Result<()> {
    let max_tiles = match ref_width {
        RefWidth::Bits32 => 1i64 << MAX_TILE_BITS,
        RefWidth::Bits64 => MAX_BAKE_TILES_64,
    };
    let tiles_along =
        |cells: i32, size: i32| (i64::from(cells) + i64::from(size) - 1) / i64::from(size);
    let tile_count = |size: i32| tiles_along(grid_width, size) * tiles_along(grid_height, size);
    if tile_count(tile_size) <= max_tiles {
        return Ok(());
    }
    // The count only falls as tiles grow: bisect for the first size that fits.
    let (mut too_small, mut fits) = (tile_size, MAX_TILE_SIZE + 1);
    while fits - too_small > 1 {
        let mid = too_small + (fits - too_small) / 2;
        if tile_count(mid) <= max_tiles {
            fits = mid;
        } else {
            too_small = mid;
        }
    }
    Err(NavlabError::TooManyTiles {
        tiles_x: tiles_along(grid_width, tile_size),
        tiles_y: tiles_along(grid_height, tile_size),
        max_tiles,
        min_tile_size: (fits <= MAX_TILE_SIZE).then_some(fits),
        ref_width,
    })
}

/// Sample_TileMesh's per-tile config: the common derivation plus the tile's grid with a border
/// of `walkableRadius + 3` cells on every side.
pub(crate) fn tile_config(
    settings: &BuildSettings,
    tile_size: i32,
    bmin: [f32; 3],
    bmax: [f32; 3],
) -> Result<Config> {
    let mut cfg = settings.to_config(bmin, bmax)?;
    cfg.tile_size = tile_size;
    cfg.border_size = tile_border_cells(&cfg);
    cfg.width = tile_size + cfg.border_size * 2;
    cfg.height = cfg.width;
    let border = cfg.border_size as f32 * cfg.cs;
    cfg.bmin[0] -= border;
    cfg.bmin[2] -= border;
    cfg.bmax[0] += border;
    cfg.bmax[2] += border;
    Ok(cfg)
}

/// Sample_TileMesh::buildTileMesh for tile (`x`, `y`).
#[allow(clippy::too_many_arguments)]
fn build_tile(
    input: &InputGeom,
    settings: &BuildSettings,
    tile_size: i32,
    x: i32,
    y: i32,
    bmin: [f32; 3],
    bmax: [f32; 3],
    stages: Option<&mut TileStages>,
) -> Result<Tile> {
    let mut ctx = BuildContext::new();
    let cfg = tile_config(settings, tile_size, bmin, bmax)?;
    let mut tile = Tile {
        x,
        y,
        triangle_count: 0,
        walkable: WalkableCounts::default(),
        output: Err(EmptyTile::NoOverlappingChunks),
        context: BuildContext::new(),
    };
    ctx.start_timer(TimerLabel::Total);
    let output = run_tile_pipeline(&mut ctx, input, settings, &cfg, &mut tile, stages);
    ctx.stop_timer(TimerLabel::Total);
    tile.output = output?;
    tile.context = ctx;
    Ok(tile)
}

/// The first stages of a tile, shared by Tile Mesh and Temp Obstacles: the chunks overlapping
/// `cfg`'s bounds rasterized, filtered, made compact, eroded and painted with the convex
/// volumes. `None` when no chunk overlaps (nothing is allocated then). Counts the triangles
/// and walkable spans into `triangle_count` and `walkable`, and records the stages when asked.
pub(crate) fn rasterize_tile(
    ctx: &mut BuildContext,
    input: &InputGeom,
    settings: &BuildSettings,
    cfg: &Config,
    triangle_count: &mut usize,
    walkable: &mut WalkableCounts,
    mut stages: Option<&mut TileStages>,
) -> Result<Option<CompactHeightfield>> {
    let mesh = &input.mesh;
    let partitioned = &input.partitioned;
    let mut chunks = partitioned
        .chunks_overlapping_rect([cfg.bmin[0], cfg.bmin[2]], [cfg.bmax[0], cfg.bmax[2]])
        .peekable();
    if chunks.peek().is_none() {
        return Ok(None);
    }
    let mut hf = Heightfield::try_new(cfg.width, cfg.height, cfg.bmin, cfg.bmax, cfg.cs, cfg.ch)?;
    let mut areas = Vec::with_capacity(partitioned.max_tris_per_chunk());
    for node in chunks {
        let tris = partitioned.chunk_tris(node);
        *triangle_count += tris.len() / 3;
        areas.clear();
        areas.resize(tris.len() / 3, crate::recast::NULL_AREA);
        crate::bake::solo::mark_triangle_areas(
            ctx,
            cfg.walkable_slope_angle,
            mesh,
            tris,
            Some(partitioned.chunk_tri_ids(node)),
            &mut areas,
        )?;
        rasterize::rasterize_triangles(
            ctx,
            &mesh.verts,
            tris,
            &areas,
            &mut hf,
            cfg.walkable_climb,
        )?;
    }
    walkable.rasterized = hf.span_counts().1;
    if let Some(stages) = stages.as_deref_mut() {
        stages.rasterized = Some(hf.clone());
    }
    if settings.filter_low_hanging_obstacles {
        filter::filter_low_hanging_walkable_obstacles(ctx, cfg.walkable_climb, &mut hf);
    }
    if settings.filter_ledge_spans {
        filter::filter_ledge_spans(ctx, cfg.walkable_height, cfg.walkable_climb, &mut hf);
    }
    if settings.filter_walkable_low_height_spans {
        filter::filter_walkable_low_height_spans(ctx, cfg.walkable_height, &mut hf);
    }
    let mut chf = build_compact_heightfield(ctx, cfg.walkable_height, cfg.walkable_climb, &hf)?;
    if let Some(stages) = stages.as_deref_mut() {
        stages.filtered = Some(hf);
        stages.compact = Some(chf.clone());
    } else {
        drop(hf);
    }
    walkable.filtered = chf.span_count();
    area::erode_walkable_area(ctx, cfg.walkable_radius, &mut chf)?;
    for volume in &input.geom_set.convex_volumes {
        let verts: Vec<f32> = volume.verts.iter().flatten().copied().collect();
        area::mark_convex_poly_area(ctx, &verts, volume.hmin, volume.hmax, volume.area, &mut chf);
    }
    walkable.eroded = chf.walkable_span_count();
    if let Some(stages) = stages {
        stages.eroded = Some(chf.clone());
    }
    Ok(Some(chf))
}

/// Runs the pipeline for `tile`, counting its triangles and walkable geometry into it.
fn run_tile_pipeline(
    ctx: &mut BuildContext,
    input: &InputGeom,
    settings: &BuildSettings,
    cfg: &Config,
    tile: &mut Tile,
    mut stages: Option<&mut TileStages>,
) -> Result<std::result::Result<TileOutput, EmptyTile>> {
    let Some(mut chf) = rasterize_tile(
        ctx,
        input,
        settings,
        cfg,
        &mut tile.triangle_count,
        &mut tile.walkable,
        stages.as_deref_mut(),
    )?
    else {
        return Ok(Err(EmptyTile::NoOverlappingChunks));
    };
    let walkable = &mut tile.walkable;
    match settings.partition_type {
        PartitionType::Watershed => {
            let links = distance_field::build_distance_field_keeping_links(ctx, &mut chf)?;
            region::build_regions_reusing_links(
                ctx,
                &mut chf,
                cfg.border_size,
                (cfg.min_region_area, cfg.merge_region_area),
                settings.region_options(),
                Some(&links),
                |_, _| {},
            )?;
        }
        PartitionType::Monotone => region::build_regions_monotone_with(
            ctx,
            &mut chf,
            cfg.border_size,
            cfg.min_region_area,
            cfg.merge_region_area,
            settings.region_options(),
        )?,
        PartitionType::Layers => {
            region::build_layer_regions(ctx, &mut chf, cfg.border_size, cfg.min_region_area)?
        }
    }
    walkable.in_regions = spans_in_regions(&chf);
    walkable.regions = region_count(&chf);
    if let Some(stages) = stages.as_deref_mut() {
        stages.regions = Some(chf.clone());
    }
    let contours = build_contours(
        ctx,
        &chf,
        cfg.max_simplification_error,
        cfg.max_edge_len,
        ContourBuildFlags::default(),
    )?;
    if let Some(stages) = stages {
        stages.contours = Some(contours.clone());
    }
    if contours.contours.is_empty() {
        return Ok(Err(EmptyTile::NoContours));
    }
    let mut poly_mesh = build_poly_mesh(ctx, &contours, cfg.max_verts_per_poly as usize)?;
    if settings.remove_degenerate_polygons {
        crate::bake::solo::remove_degenerate_polygons(ctx, &mut poly_mesh);
    }
    walkable.polygons = poly_mesh.npolys;
    let detail_mesh = build_poly_mesh_detail(
        ctx,
        &poly_mesh,
        &chf,
        cfg.detail_sample_dist,
        cfg.detail_sample_max_error,
    )?;
    let mut data = None;
    if poly_mesh.nvp <= VERTS_PER_POLYGON {
        if poly_mesh.nverts >= 0xffff {
            ctx.error(format!(
                "Too many vertices per tile {} (max: {}).",
                poly_mesh.nverts, 0xffff
            ));
            return Ok(Err(EmptyTile::NoDetourData));
        }
        apply_area_flags(
            &mut poly_mesh.areas,
            &mut poly_mesh.flags,
            sample_area_flags,
        );
        let off_mesh = crate::bake::detour_input::off_mesh_connections(&input.geom_set);
        let mut params = crate::bake::detour_input::nav_mesh_create_params(
            &poly_mesh,
            &detail_mesh,
            &off_mesh,
            settings.agent_height,
            settings.agent_radius,
            settings.agent_max_climb,
        )?;
        params.tile_x = tile.x;
        params.tile_y = tile.y;
        if poly_mesh.npolys == 0 || poly_mesh.nverts == 0 {
            ctx.error("Could not build Detour navmesh.");
            return Ok(Err(EmptyTile::NoDetourData));
        }
        data = Some(create_nav_mesh_data(&params)?);
    }
    ctx.progress(format!(
        ">> Polymesh: {} vertices  {} polygons",
        poly_mesh.nverts, poly_mesh.npolys
    ));
    Ok(Ok(TileOutput {
        poly_mesh,
        detail_mesh,
        data,
    }))
}
