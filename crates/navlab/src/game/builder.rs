//! Triangles in, navmesh out: [`NavMeshBuilder`] runs the solo or the tiled bake (tiles on
//! rayon) on triangles given in code, with their areas, convex volumes and off-mesh links,
//! and gives back the navmesh, or a tile cache with the navmesh it keeps up to date.

use std::sync::Arc;

use super::flags::PolyFlags;
use super::tile_cache::{BakedGrid, TileCache};
use crate::bake::settings::BuildSettings;
use crate::bake::solo::{Build, Retention};
use crate::bake::temp_obstacles::{build_initial_nav_mesh, build_tile_cache, tile_grid};
use crate::bake::tiled::{TiledBuild, tile_config};
use crate::detour::NavMesh;
use crate::error::{NavlabError, Result};
use crate::input::geomset::{ConvexVolume, GeomSet, OffMeshConnection};
use crate::input::input_geom::InputGeom;
use crate::input::obj::TriMesh;
use crate::recast::{NULL_AREA, WALKABLE_AREA};
use crate::tile_cache::builder::LayerTileBuilder;
use crate::tile_cache::obstacles::Obstacles;

/// The per-triangle area of a triangle that must never be walkable, whatever its slope
/// ([`NavMeshBuilder::triangle_areas`]).
pub const UNWALKABLE: u8 = 0xff;

/// Solo or tiled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Layout {
    Solo,
    Tiled { tile_size: i32 },
}

/// An off-mesh link for the builder: a jump, a drop or a ladder between two points that the
/// surface does not join.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OffMeshLink {
    /// Where the link starts, world units.
    pub start: [f32; 3],
    /// Where it ends.
    pub end: [f32; 3],
    /// How far from each end the link can be entered.
    pub radius: f32,
    /// Whether it can also be taken from `end` to `start`.
    pub bidirectional: bool,
    /// Its area id (RecastDemo's ids: [`area::JUMP`](super::area::JUMP) by default).
    pub area: u8,
    /// What it allows (jump by default); a query filter includes and excludes it by these.
    pub flags: PolyFlags,
}

impl OffMeshLink {
    /// A two-way jump link of radius 0.6 (RecastDemo's agent radius) from `start` to `end`.
    pub fn new(start: [f32; 3], end: [f32; 3]) -> OffMeshLink {
        OffMeshLink {
            start,
            end,
            radius: 0.6,
            bidirectional: true,
            area: super::area::JUMP,
            flags: PolyFlags::JUMP,
        }
    }

    /// The link taken from `start` to `end` only.
    pub fn one_way(mut self) -> OffMeshLink {
        self.bidirectional = false;
        self
    }
}

/// Builds a navmesh from triangles in one expression:
///
/// ```
/// use navlab::prelude::*;
///
/// let vertices = [[0.0, 0.0, 0.0], [0.0, 0.0, 30.0], [30.0, 0.0, 30.0], [30.0, 0.0, 0.0]];
/// let nav = NavMeshBuilder::new(BuildSettings::default())
///     .triangles(&vertices, &[0, 1, 2, 0, 2, 3])
///     .tiled(32)
///     .build()
///     .unwrap();
/// assert!(nav.tiles().count() > 1);
/// ```
///
/// The settings are RecastDemo's ([`BuildSettings`], in metres for a human-sized agent by
/// default), and the result is byte for byte what `navlab bake` and RecastDemo build from the
/// same triangles. Polygons get RecastDemo's flags from their areas ([`PolyFlags`]).
#[derive(Clone, Debug)]
pub struct NavMeshBuilder {
    settings: BuildSettings,
    layout: Layout,
    vertices: Vec<f32>,
    indices: Vec<i32>,
    /// Recast area per triangle, when any triangle's area was given.
    areas: Option<Vec<u8>>,
    /// A problem found while adding triangles, reported by the build.
    invalid: Option<String>,
    geom_set: GeomSet,
}

impl NavMeshBuilder {
    /// A builder with `settings`, no triangles yet, building one solo tile.
    pub fn new(settings: BuildSettings) -> NavMeshBuilder {
        NavMeshBuilder {
            settings,
            layout: Layout::Solo,
            vertices: Vec::new(),
            indices: Vec::new(),
            areas: None,
            invalid: None,
            geom_set: GeomSet::new(""),
        }
    }

    /// Adds a mesh: `vertices` in world units (y up) and `indices`, three per triangle, into
    /// `vertices`. Meshes added one after another are built together.
    pub fn triangles(mut self, vertices: &[[f32; 3]], indices: &[u32]) -> NavMeshBuilder {
        let base = self.vertices.len() / 3;
        if !indices.len().is_multiple_of(3) {
            self.invalid.get_or_insert(format!(
                "{} indices do not make whole triangles",
                indices.len()
            ));
            return self;
        }
        if let Some(&bad) = indices.iter().find(|&&i| i as usize >= vertices.len()) {
            self.invalid.get_or_insert(format!(
                "index {bad} is out of range for {} vertices",
                vertices.len()
            ));
            return self;
        }
        if i32::try_from(base + vertices.len()).is_err() {
            self.invalid
                .get_or_insert_with(|| "too many vertices for Recast's 32-bit indices".into());
            return self;
        }
        self.vertices.extend(vertices.iter().flatten());
        self.indices
            .extend(indices.iter().map(|&i| (base + i as usize) as i32));
        if let Some(areas) = &mut self.areas {
            areas.resize(self.indices.len() / 3, WALKABLE_AREA);
        }
        self
    }

    /// Adds a mesh loaded from a file ([`load_obj`](crate::input::obj::load_obj)) or made
    /// by [`scene`](crate::input::scene), with its per-triangle areas if it has them.
    pub fn mesh(self, mesh: &TriMesh) -> NavMeshBuilder {
        let vertices: Vec<[f32; 3]> = mesh
            .verts
            .chunks_exact(3)
            .map(|v| [v[0], v[1], v[2]])
            .collect();
        // Loaded and generated meshes hold only in-range, non-negative indices.
        let indices: Vec<u32> = mesh.tris.iter().map(|&i| i.max(0) as u32).collect();
        let builder = self.triangles(&vertices, &indices);
        match &mesh.areas {
            // Recast's areas, which need no translation from RecastDemo's ids.
            Some(areas) => builder.recast_areas(areas),
            None => builder,
        }
    }

    /// Sets the Recast areas of the last `areas.len()` triangles as they are.
    fn recast_areas(mut self, areas: &[u8]) -> NavMeshBuilder {
        let count = self.indices.len() / 3;
        let all = self.areas.get_or_insert_with(|| vec![WALKABLE_AREA; count]);
        let first = count.saturating_sub(areas.len());
        all[first..].copy_from_slice(&areas[areas.len() - (count - first)..]);
        self
    }

    /// Gives the triangles added last (as many as `areas` has, counted from the end) an area
    /// each, in RecastDemo's ids ([`area`](super::area)): ground, water, road, door, grass, or
    /// [`UNWALKABLE`]. Triangles too steep for the agent stay unwalkable. Triangles given no
    /// area are ground where they are gentle enough.
    pub fn triangle_areas(mut self, areas: &[u8]) -> NavMeshBuilder {
        let count = self.indices.len() / 3;
        if areas.len() > count {
            self.invalid.get_or_insert(format!(
                "{} triangle areas for {count} triangles",
                areas.len()
            ));
            return self;
        }
        if let Some(&bad) = areas
            .iter()
            .find(|&&a| a != UNWALKABLE && a >= WALKABLE_AREA)
        {
            self.invalid
                .get_or_insert(format!("area {bad} is not an area id below 63"));
            return self;
        }
        let all = self.areas.get_or_insert_with(|| vec![WALKABLE_AREA; count]);
        for (slot, &area) in all[count - areas.len()..].iter_mut().zip(areas) {
            // Recast's walkable area is what RecastDemo's rule turns into ground.
            *slot = match area {
                UNWALKABLE => NULL_AREA,
                super::area::GROUND => WALKABLE_AREA,
                other => other,
            };
        }
        self
    }

    /// Marks the walkable surface inside a vertical prism with `area`: `outline` is the
    /// prism's outline in xz (a convex polygon, heights ignored) from `min_y` to `max_y`
    /// (RecastDemo's convex volumes, applied after erosion). As in RecastDemo, area 0
    /// ([`area::GROUND`](super::area::GROUND)) there removes the surface.
    pub fn convex_volume(
        mut self,
        outline: &[[f32; 3]],
        min_y: f32,
        max_y: f32,
        area: u8,
    ) -> NavMeshBuilder {
        self.geom_set.convex_volumes.push(ConvexVolume {
            verts: outline.to_vec(),
            area,
            hmin: min_y,
            hmax: max_y,
        });
        self
    }

    /// Adds an off-mesh link.
    pub fn off_mesh_link(mut self, link: OffMeshLink) -> NavMeshBuilder {
        self.geom_set.off_mesh_connections.push(OffMeshConnection {
            start: link.start,
            end: link.end,
            radius: link.radius,
            bidirectional: link.bidirectional,
            area: link.area,
            flags: link.flags.bits(),
        });
        self
    }

    /// Builds tiles of `tile_size` cells (RecastDemo's Tile Mesh sample), on every core with
    /// the `rayon` feature. Large levels and levels that change at run time want tiles.
    pub fn tiled(mut self, tile_size: i32) -> NavMeshBuilder {
        self.layout = Layout::Tiled { tile_size };
        self
    }

    /// Builds one tile over the whole level (RecastDemo's Solo Mesh sample); the default.
    pub fn solo(mut self) -> NavMeshBuilder {
        self.layout = Layout::Solo;
        self
    }

    /// The settings the build will use.
    pub fn settings(&self) -> &BuildSettings {
        &self.settings
    }

    /// The input the bake pipelines take.
    fn input(&self) -> Result<InputGeom> {
        if let Some(problem) = &self.invalid {
            return Err(builder_error(problem.clone()));
        }
        let mut mesh = TriMesh::from_parts(self.vertices.clone(), self.indices.clone())?;
        if let Some(areas) = &self.areas {
            mesh = mesh.with_areas(areas.clone())?;
        }
        let mut input = InputGeom::from_mesh(mesh)?;
        input.geom_set = self.geom_set.clone();
        Ok(input)
    }

    /// Builds the navmesh.
    pub fn build(&self) -> Result<NavMesh> {
        let input = self.input()?;
        match self.layout {
            Layout::Solo => {
                let build =
                    Build::from_input_keeping(&input, self.settings.clone(), Retention::Final)?;
                let nav = build.nav_mesh.ok_or_else(|| NavlabError::InvalidSetting {
                    name: "vertsPerPoly",
                    value: self.settings.verts_per_poly.to_string(),
                    reason: "must be 6 or less for a Detour navmesh".into(),
                })?;
                Ok(Arc::unwrap_or_clone(nav))
            }
            Layout::Tiled { tile_size } => {
                Ok(TiledBuild::new(&input, self.settings.clone(), tile_size)?.nav_mesh)
            }
        }
    }

    /// Bakes again, from this builder's triangles (the whole level as it is now), the tiles of
    /// `cache` that the box `min`..`max` touches, and rebuilds them in `nav` with the cache's
    /// obstacles carved ([`TileCache::rebake_region`]): call it with the old and the new
    /// bounds of what moved, appeared or went. The tiles equal those of a whole bake of the
    /// same triangles. Returns the tiles rebuilt.
    pub fn rebake_tiles(
        &self,
        cache: &mut TileCache,
        nav: &mut NavMesh,
        min: [f32; 3],
        max: [f32; 3],
    ) -> Result<Vec<super::ChangedTile>> {
        cache.rebake_region(nav, &self.input()?, min, max)
    }

    /// Builds a tile cache of `tile_size`-cell tiles (RecastDemo's Temp Obstacles sample)
    /// and the navmesh of its layers; the cache carves obstacles into that navmesh.
    pub fn build_tile_cache(&self, tile_size: i32) -> Result<(TileCache, NavMesh)> {
        let input = self.input()?;
        let grid = tile_grid(&input, &self.settings, tile_size)?;
        let (cache, nav_params) = build_tile_cache(&input, &self.settings, tile_size, None)?;
        let mut builder = LayerTileBuilder::new();
        let (mut nav, _) =
            build_initial_nav_mesh(&cache, nav_params, grid, None, &mut builder, None)?;
        if self.settings.long_range_links {
            nav.enable_long_range_links();
        }
        let mut obstacles =
            Obstacles::new(cache.params().max_obstacles).map_err(|e| NavlabError::Stage {
                stage: "tile cache obstacles",
                message: e.to_string(),
            })?;
        obstacles.set_builder(builder);
        let bounds = input.nav_mesh_bounds()?;
        let border_cells = tile_config(&self.settings, tile_size, bounds.0, bounds.1)?.border_size;
        let grid = BakedGrid {
            settings: self.settings.clone(),
            tile_size,
            bounds,
            tiles: grid,
            border_cells,
        };
        let cache = TileCache::from_parts(cache, obstacles, grid);
        Ok((cache, nav))
    }
}

/// A problem with the triangles given, named as an input mesh's problem is.
fn builder_error(message: String) -> NavlabError {
    crate::input::Error::InvalidMesh {
        path: "<NavMeshBuilder>".into(),
        message,
    }
    .into()
}
