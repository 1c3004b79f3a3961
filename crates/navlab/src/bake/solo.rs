//! A whole solo build that keeps every stage's output, and re-runs only the stages a settings
//! change affects.
//!
//! | Stage            | Output kept                      | Settings that make it the earliest stage to re-run |
//! |------------------|----------------------------------|-----------------------------------------------------|
//! | `Rasterize`      | triangle areas, the spans' areas as rasterized | input mesh, bounds, `cellSize`, `cellHeight`, `agentMaxSlope`, `agentMaxClimb` |
//! | `Filter`         | `heightfield_filtered`           | `agentHeight`, the three filter switches            |
//! | `Compact`        | the compact spans' areas as built | (only upstream changes)                            |
//! | `Erode`          | `regions.areas` (and volume areas) | `agentRadius`, convex volumes                     |
//! | `DistanceField`  | `regions.dist` (watershed only)  | `partitionType`                                     |
//! | `Regions`        | `regions` (region id per span)   | `regionMinSize`, `regionMergeSize`                  |
//! | `Contours`       | `contours`                       | `edgeMaxLen`, `edgeMaxError`                        |
//! | `PolyMesh`       | `poly_mesh`                      | `vertsPerPoly`, `removeDegeneratePolygons`          |
//! | `DetailMesh`     | `detail_mesh`                    | `detailSampleDist`, `detailSampleMaxError`          |
//! | `NavMesh`        | `nav_mesh` (Detour, one tile)    | off-mesh connections                                |
//!
//! `agentMaxClimb` reaches back to rasterization because Recast merges spans whose tops are
//! within the climb; `agentHeight` reaches back to filtering, which also re-runs everything after.
//!
//! The filters only clear span areas, and erosion, the distance field and region building only
//! write areas, distances and region ids: so a build holds one heightfield and one compact
//! heightfield, as RecastDemo does, and the earlier states as the areas they had
//! ([`Build::heightfield_rasterized`], [`Build::compact`], [`Build::compact_eroded`] rebuild
//! them). A stage re-run restores its input's areas and works in place.
//!
//! What a build holds on to is its [`Retention`]: the viewer keeps every stage (within
//! [`INTERMEDIATE_BUDGET`]), `navlab bake` only what the later stages need, so that a big map
//! needs one heightfield or one compact heightfield at a time.
//!
//! The stages run on rayon's current pool (the global one, sized by `RAYON_NUM_THREADS`, or one
//! a caller `install`s): rasterization by bands of rows, the ledge filter, the compact
//! heightfield, the distance field's per-span passes, the watershed's expansion steps, the
//! contours' boundary marking and the detail meshes are split into parts whose results are
//! joined in order, so every output is the same on any number of threads (only the span pool's
//! layout follows the rasterization bands; on one thread it is the sequential one). The rest,
//! whose steps depend on each other (the chamfer sweeps, erosion, region floods and merges,
//! contour walks, the poly mesh), stays sequential.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::bake::nothing_walkable::{
    WalkableCounts, nothing_walkable, region_count, spans_in_regions,
};
use crate::bake::progress::BuildProgress;
use crate::bake::sample_areas::{apply_area_flags, sample_area_flags};
use crate::bake::settings::BuildSettings;
use crate::detour::VERTS_PER_POLYGON;
use crate::detour::{NavMesh, OffMeshConnectionParams, create_nav_mesh_data};
use crate::error::Result;
use crate::input::geomset::{ConvexVolume, GeomSet};
use crate::input::input_geom::InputGeom;
use crate::input::obj::TriMesh;
use crate::recast::compact::{CompactHeightfield, build_compact_heightfield};
use crate::recast::config::Config;
use crate::recast::context::{BuildContext, TimerLabel};
use crate::recast::contour::{ContourBuildFlags, ContourSet, build_contours};
use crate::recast::detail_mesh::{PolyMeshDetail, build_poly_mesh_detail};
use crate::recast::distance_field::SpanLinks;
use crate::recast::heightfield::Heightfield;
use crate::recast::poly_mesh::{PolyMesh, build_poly_mesh};
use crate::recast::region::PartitionType;
use crate::{
    recast::area, recast::distance_field, recast::filter, recast::rasterize, recast::region,
};

/// The build stages in pipeline order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Stage {
    /// Rasterizing the triangles into the heightfield.
    Rasterize,
    /// The span filters.
    Filter,
    /// The compact heightfield.
    Compact,
    /// Eroding the walkable area and marking convex volumes.
    Erode,
    /// The distance field (watershed only).
    DistanceField,
    /// Partitioning into regions.
    Regions,
    /// Region outlines.
    Contours,
    /// Convex polygons.
    PolyMesh,
    /// The detail mesh.
    DetailMesh,
    /// The Detour navmesh.
    NavMesh,
}

impl Stage {
    /// Every stage, in pipeline order.
    pub const ALL: [Stage; 10] = [
        Stage::Rasterize,
        Stage::Filter,
        Stage::Compact,
        Stage::Erode,
        Stage::DistanceField,
        Stage::Regions,
        Stage::Contours,
        Stage::PolyMesh,
        Stage::DetailMesh,
        Stage::NavMesh,
    ];

    /// A human-readable name.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Rasterize => "Rasterize",
            Stage::Filter => "Filter",
            Stage::Compact => "Compact",
            Stage::Erode => "Erode",
            Stage::DistanceField => "Distance field",
            Stage::Regions => "Regions",
            Stage::Contours => "Contours",
            Stage::PolyMesh => "Poly mesh",
            Stage::DetailMesh => "Detail mesh",
            Stage::NavMesh => "Navmesh",
        }
    }
}

/// The earliest stage whose output a change from `old` to `new` settings invalidates, or `None`
/// when nothing the build reads has changed (see the module table).
pub fn earliest_affected_stage(old: &BuildSettings, new: &BuildSettings) -> Option<Stage> {
    let changed = |a: f32, b: f32| a.to_bits() != b.to_bits();
    if changed(old.cell_size, new.cell_size)
        || changed(old.cell_height, new.cell_height)
        || changed(old.agent_max_slope, new.agent_max_slope)
        || changed(old.agent_max_climb, new.agent_max_climb)
        || old.max_grid_cells != new.max_grid_cells
    {
        Some(Stage::Rasterize)
    } else if changed(old.agent_height, new.agent_height)
        || old.filter_low_hanging_obstacles != new.filter_low_hanging_obstacles
        || old.filter_ledge_spans != new.filter_ledge_spans
        || old.filter_walkable_low_height_spans != new.filter_walkable_low_height_spans
    {
        Some(Stage::Filter)
    } else if changed(old.agent_radius, new.agent_radius) {
        Some(Stage::Erode)
    } else if old.partition_type != new.partition_type {
        Some(Stage::DistanceField)
    } else if changed(old.region_min_size, new.region_min_size)
        || changed(old.region_merge_size, new.region_merge_size)
        || old.split_overlapping_regions != new.split_overlapping_regions
    {
        Some(Stage::Regions)
    } else if changed(old.edge_max_len, new.edge_max_len)
        || changed(old.edge_max_error, new.edge_max_error)
    {
        Some(Stage::Contours)
    } else if changed(old.verts_per_poly, new.verts_per_poly)
        || old.remove_degenerate_polygons != new.remove_degenerate_polygons
    {
        Some(Stage::PolyMesh)
    } else if changed(old.detail_sample_dist, new.detail_sample_dist)
        || changed(old.detail_sample_max_error, new.detail_sample_max_error)
    {
        Some(Stage::DetailMesh)
    } else if old.long_range_links != new.long_range_links || old.poly_refs != new.poly_refs {
        Some(Stage::NavMesh)
    } else {
        None
    }
}

/// Which stage outputs a [`Build`] keeps once the next stage has used them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Retention {
    /// Every stage's output, to draw each stage and re-run any stage alone (the viewer). When
    /// the copies would need more than [`INTERMEDIATE_BUDGET`] bytes, the build keeps only
    /// what [`Retention::Final`] keeps and logs a warning.
    #[default]
    Everything,
    /// Only what later stages, the navmesh and the stage summary need (a headless bake): the
    /// heightfields and the compact heightfield before region building are freed once used,
    /// and filtering and erosion work in place.
    Final,
}

/// How much memory [`Retention::Everything`] may spend on copies of intermediate stages (the
/// rasterized heightfield, and the compact heightfield before erosion and before regions).
pub const INTERMEDIATE_BUDGET: u64 = 1 << 30;

/// The span counts of the stage summary, recorded as the stages run so that they survive
/// the heightfields ([`Retention::Final`] frees them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SpanCounts {
    /// Spans after rasterization (the filters only change areas, so also after filtering).
    pub rasterized: usize,
    /// Spans with an area after rasterization.
    pub rasterized_walkable: usize,
    /// Spans with an area after the filters (the compact heightfield's spans).
    pub filtered_walkable: usize,
    /// Compact spans still walkable after erosion and convex volumes.
    pub eroded_walkable: usize,
}

/// The area of each triangle of `tris` (a subset of `mesh`'s, whose input indices `ids` gives;
/// all of them in order when `None`): the caller's areas with the steep triangles cleared
/// when the mesh has them, else Recast's walkable area on the gentle ones.
pub(crate) fn mark_triangle_areas(
    ctx: &mut BuildContext,
    walkable_slope_angle: f32,
    mesh: &TriMesh,
    tris: &[i32],
    ids: Option<&[u32]>,
    areas: &mut [u8],
) -> std::result::Result<(), crate::recast::Error> {
    match &mesh.areas {
        None => {
            rasterize::mark_walkable_triangles(ctx, walkable_slope_angle, &mesh.verts, tris, areas)
        }
        Some(given) => {
            match ids {
                None => areas.copy_from_slice(&given[..areas.len()]),
                Some(ids) => {
                    for (area, &id) in areas.iter_mut().zip(ids) {
                        *area = given[id as usize];
                    }
                }
            }
            rasterize::clear_unwalkable_triangles(
                ctx,
                walkable_slope_angle,
                &mesh.verts,
                tris,
                areas,
            )
        }
    }
}

/// `mesh` rasterized over `cfg`'s grid as the Rasterize stage does it: the heightfield and the
/// area each triangle was rasterized with.
pub(crate) fn rasterize_mesh(
    ctx: &mut BuildContext,
    cfg: &Config,
    mesh: &TriMesh,
) -> Result<(Heightfield, Vec<u8>)> {
    let mut hf = Heightfield::try_new(cfg.width, cfg.height, cfg.bmin, cfg.bmax, cfg.cs, cfg.ch)?;
    let mut areas = vec![crate::recast::NULL_AREA; mesh.tri_count()];
    mark_triangle_areas(
        ctx,
        cfg.walkable_slope_angle,
        mesh,
        &mesh.tris,
        None,
        &mut areas,
    )?;
    rasterize::rasterize_triangles_parallel(
        ctx,
        &mesh.verts,
        &mesh.tris,
        &areas,
        &mut hf,
        cfg.walkable_climb,
    )?;
    Ok((hf, areas))
}

/// A heightfield rasterized outside a build, for [`Build::from_rasterized`].
#[derive(Debug)]
pub(crate) struct Rasterized {
    /// The heightfield as rasterized, before the filters.
    pub heightfield: Heightfield,
    /// The area of each input triangle it was rasterized with.
    pub triangle_areas: Vec<u8>,
    /// The time spent making it, reported as the build's rasterization time.
    pub time: Duration,
}

/// A solo navmesh build with every stage's output.
///
/// Cloning is cheap for the input mesh (shared) and copies the stage outputs, which is what a
/// viewer wants before handing a rebuild to a background thread.
#[derive(Clone, Debug)]
pub struct Build {
    /// The input triangles, shared with the input.
    pub mesh: Arc<TriMesh>,
    /// Minimum corner of the build's bounds, world units.
    pub bmin: [f32; 3],
    /// Maximum corner of the build's bounds.
    pub bmax: [f32; 3],
    /// Areas marked after erosion, as RecastDemo applies its convex volumes.
    pub convex_volumes: Vec<ConvexVolume>,
    /// Authored links passed to Detour with the tile.
    pub off_mesh_connections: Vec<OffMeshConnectionParams>,
    /// The settings the build ran with.
    pub settings: BuildSettings,
    /// Recast's configuration derived from them.
    pub config: Config,
    /// Area id per input triangle after slope marking.
    pub triangle_areas: Vec<u8>,
    /// The heightfield after the filters (the rasterized one has the same spans).
    pub heightfield_filtered: Arc<Heightfield>,
    /// Every pool slot's area as rasterized, before the filters cleared some.
    rasterized_areas: Arc<Vec<u8>>,
    /// The compact heightfield after erosion, the distance field (watershed only) and region
    /// partitioning.
    pub regions: Arc<CompactHeightfield>,
    /// Every compact span's area as built, before erosion and the convex volumes.
    compact_areas: Arc<Vec<u8>>,
    /// Region outlines.
    pub contours: Arc<ContourSet>,
    /// The convex polygon mesh.
    pub poly_mesh: Arc<PolyMesh>,
    /// The detail mesh.
    pub detail_mesh: Arc<PolyMeshDetail>,
    /// The Detour navmesh of one tile, with RecastDemo's area → flag rule applied; `None` when
    /// `vertsPerPoly` is above Detour's 6 (RecastDemo skips Detour then too).
    pub nav_mesh: Option<Arc<NavMesh>>,
    /// Log lines and Recast timer totals of the last (re)build.
    pub context: BuildContext,
    /// Wall time of each stage in the last (re)build that ran it.
    pub stage_times: [Option<Duration>; Stage::ALL.len()],
    /// What the build keeps of the stages it ran.
    pub retention: Retention,
    /// Span counts for the stage summary.
    pub span_counts: SpanCounts,
    /// Whether the heightfield and the earlier stages' areas are held (else they are empty,
    /// and re-running any stage before `Regions` starts from rasterization).
    intermediates_held: bool,
    /// Where (re)builds report the stage they are running, for a progress bar.
    pub progress: Option<Arc<BuildProgress>>,
    /// The stage the last (re)build stopped at with an error; it and later stages are empty.
    pub failed_stage: Option<Stage>,
    /// The span links the distance field resolved, held until the watershed reuses them.
    span_links: Option<Arc<SpanLinks>>,
}

impl Build {
    /// Builds everything for `mesh` over its own bounds.
    pub fn new(mesh: Arc<TriMesh>, settings: BuildSettings) -> Result<Self> {
        let (bmin, bmax) = mesh.bounds();
        Self::with_bounds(mesh, bmin, bmax, settings, BuildContext::new())
    }

    /// Builds everything for a loaded input: its navmesh bounds and convex volumes.
    pub fn from_input(input: &InputGeom, settings: BuildSettings) -> Result<Self> {
        Self::from_input_keeping(input, settings, Retention::Everything)
    }

    /// [`Build::from_input`], keeping what `retention` says.
    pub fn from_input_keeping(
        input: &InputGeom,
        settings: BuildSettings,
        retention: Retention,
    ) -> Result<Self> {
        Self::from_input_with(input, settings, retention, None)
    }

    /// [`Build::from_input_keeping`] starting from a heightfield rasterized elsewhere for
    /// these settings (a rasterization shared by agent profiles, `bake::profiles`): the
    /// stages after rasterization run as in a full build, so the build equals a full one when
    /// the heightfield and its triangle areas equal what its own rasterization would give.
    pub(crate) fn from_rasterized(
        input: &InputGeom,
        settings: BuildSettings,
        retention: Retention,
        rasterized: Rasterized,
    ) -> Result<Self> {
        let mut build = Self::unbuilt_for_input(input, settings, retention, None)?;
        build.run_stages(Stage::Rasterize, Some(rasterized))?;
        Ok(build)
    }

    fn from_input_with(
        input: &InputGeom,
        settings: BuildSettings,
        retention: Retention,
        progress: Option<Arc<BuildProgress>>,
    ) -> Result<Self> {
        let mut build = Self::unbuilt_for_input(input, settings, retention, progress)?;
        build.rebuild_from(Stage::Rasterize)?;
        Ok(build)
    }

    /// A build of `input` with its bounds and settings checked and no stage run yet:
    /// [`Build::rebuild_from`]`(Stage::Rasterize)` runs them, and a viewer that keeps the
    /// build after a stage failed can draw the stages before it, as RecastDemo does.
    pub fn unbuilt_for_input(
        input: &InputGeom,
        settings: BuildSettings,
        retention: Retention,
        progress: Option<Arc<BuildProgress>>,
    ) -> Result<Self> {
        let (bmin, bmax) = input.nav_mesh_bounds()?;
        let mut build = Self::unbuilt(
            input.mesh.clone(),
            bmin,
            bmax,
            settings,
            BuildContext::new(),
        )?;
        build.retention = retention;
        build.progress = progress;
        build.convex_volumes = input.geom_set.convex_volumes.clone();
        build.off_mesh_connections =
            crate::bake::detour_input::off_mesh_connections(&input.geom_set);
        Ok(build)
    }

    /// Builds everything over explicit bounds, logging into `context`.
    pub fn with_bounds(
        mesh: Arc<TriMesh>,
        bmin: [f32; 3],
        bmax: [f32; 3],
        settings: BuildSettings,
        context: BuildContext,
    ) -> Result<Self> {
        let mut build = Self::unbuilt(mesh, bmin, bmax, settings, context)?;
        build.rebuild_from(Stage::Rasterize)?;
        Ok(build)
    }

    /// A build with its settings checked and no stage run yet.
    fn unbuilt(
        mesh: Arc<TriMesh>,
        bmin: [f32; 3],
        bmax: [f32; 3],
        settings: BuildSettings,
        context: BuildContext,
    ) -> Result<Self> {
        let config = settings.to_config(bmin, bmax)?;
        let empty_hf = Arc::new(empty_heightfield(&config));
        Ok(Build {
            rasterized_areas: Arc::default(),
            compact_areas: Arc::default(),
            mesh,
            bmin,
            bmax,
            convex_volumes: Vec::new(),
            off_mesh_connections: Vec::new(),
            settings,
            config,
            triangle_areas: Vec::new(),
            heightfield_filtered: empty_hf,
            regions: Arc::default(),
            contours: Arc::default(),
            poly_mesh: Arc::default(),
            detail_mesh: Arc::default(),
            nav_mesh: None,
            context,
            stage_times: [None; Stage::ALL.len()],
            retention: Retention::default(),
            span_counts: SpanCounts::default(),
            intermediates_held: false,
            progress: None,
            failed_stage: None,
            span_links: None,
        })
    }

    /// One tile of a tiled build as a build to draw: `stages` and the tile's meshes, walkable
    /// counts and log in the fields a solo build fills, `config` the tile's (border included).
    /// Its Detour navmesh is left for the caller (the grid's); re-running its stages would
    /// build a solo mesh.
    pub(crate) fn from_tile_stages(
        input: &InputGeom,
        settings: BuildSettings,
        config: Config,
        stages: TileStages,
        (poly_mesh, detail_mesh): (PolyMesh, PolyMeshDetail),
        walkable: WalkableCounts,
        context: BuildContext,
    ) -> Self {
        let rasterized_areas = stages
            .rasterized
            .as_ref()
            .map(|hf| hf.pool.iter().map(|span| span.area).collect())
            .unwrap_or_default();
        let compact_areas = stages
            .compact
            .as_ref()
            .map(|chf| chf.areas.clone())
            .unwrap_or_default();
        let span_counts = SpanCounts {
            rasterized: stages
                .rasterized
                .as_ref()
                .map_or(0, |hf| hf.span_counts().0),
            rasterized_walkable: walkable.rasterized,
            filtered_walkable: walkable.filtered,
            eroded_walkable: walkable.eroded,
        };
        Build {
            mesh: input.mesh.clone(),
            bmin: config.bmin,
            bmax: config.bmax,
            convex_volumes: input.geom_set.convex_volumes.clone(),
            off_mesh_connections: crate::bake::detour_input::off_mesh_connections(&input.geom_set),
            settings,
            triangle_areas: Vec::new(),
            heightfield_filtered: Arc::new(
                stages
                    .filtered
                    .unwrap_or_else(|| empty_heightfield(&config)),
            ),
            rasterized_areas: Arc::new(rasterized_areas),
            regions: Arc::new(stages.regions.unwrap_or_default()),
            compact_areas: Arc::new(compact_areas),
            contours: Arc::new(stages.contours.unwrap_or_default()),
            poly_mesh: Arc::new(poly_mesh),
            detail_mesh: Arc::new(detail_mesh),
            nav_mesh: None,
            context,
            stage_times: [None; Stage::ALL.len()],
            retention: Retention::Everything,
            span_counts,
            intermediates_held: true,
            progress: None,
            failed_stage: None,
            span_links: None,
            config,
        }
    }

    /// Whether the intermediate stage outputs (the heightfields, the compact heightfield before
    /// erosion and before regions) are held; when not, they are empty.
    pub fn holds_intermediates(&self) -> bool {
        self.intermediates_held
    }

    /// Every heightfield pool slot's area as rasterized (empty when intermediates are not
    /// held), read in place where [`Build::heightfield_rasterized`] would copy the field.
    pub(crate) fn rasterized_areas(&self) -> &[u8] {
        &self.rasterized_areas
    }

    /// The heightfield as rasterized: the filtered one with the areas it had before the
    /// filters. Empty when intermediates are not held.
    pub fn heightfield_rasterized(&self) -> Heightfield {
        let mut hf = Heightfield::clone(&self.heightfield_filtered);
        restore_heightfield_areas(&mut hf, &self.rasterized_areas);
        hf
    }

    /// The compact heightfield as built, before erosion. Empty when intermediates are not
    /// held.
    pub fn compact(&self) -> CompactHeightfield {
        let mut chf = self.compact_eroded();
        if chf.areas.len() == self.compact_areas.len() {
            chf.areas.copy_from_slice(&self.compact_areas);
        }
        chf
    }

    /// The compact heightfield after erosion and the convex volumes, before the distance
    /// field and regions. Empty when intermediates are not held.
    pub fn compact_eroded(&self) -> CompactHeightfield {
        if !self.intermediates_held {
            return CompactHeightfield::default();
        }
        let mut chf = CompactHeightfield::clone(&self.regions);
        clear_distances(&mut chf);
        clear_regions(&mut chf);
        chf
    }

    /// Switches to `settings` and re-runs from the earliest stage they affect. Returns that
    /// stage, or `None` when nothing needed re-running.
    pub fn update(&mut self, settings: BuildSettings) -> Result<Option<Stage>> {
        let stage = earliest_affected_stage(&self.settings, &settings);
        if let Some(stage) = stage {
            self.config = settings.to_config(self.bmin, self.bmax)?;
            self.settings = settings;
            self.rebuild_from(stage)?;
        }
        Ok(stage)
    }

    /// Switches to `settings` and to an input's authored content (convex volumes, off-mesh
    /// connections), re-running from the earliest stage any of them affects: volumes reach
    /// back to erosion (where they paint areas), connections only to the Detour data. Returns
    /// that stage, or `None` when nothing changed. The result equals a full build of the same
    /// input and settings.
    pub fn update_authored(
        &mut self,
        settings: BuildSettings,
        geom_set: &GeomSet,
    ) -> Result<Option<Stage>> {
        let stage = self.stage_to_rerun(&settings, geom_set);
        if let Some(stage) = stage {
            self.config = settings.to_config(self.bmin, self.bmax)?;
            self.settings = settings;
            self.convex_volumes = geom_set.convex_volumes.clone();
            self.off_mesh_connections = crate::bake::detour_input::off_mesh_connections(geom_set);
            self.rebuild_from(stage)?;
        }
        Ok(stage)
    }

    /// The stage [`Build::update_authored`] would re-run from, or `None` when nothing changed.
    pub fn stage_to_rerun(&self, settings: &BuildSettings, geom_set: &GeomSet) -> Option<Stage> {
        let authored = if geom_set.convex_volumes != self.convex_volumes {
            Some(Stage::Erode)
        } else if crate::bake::detour_input::off_mesh_connections(geom_set)
            != self.off_mesh_connections
        {
            Some(Stage::NavMesh)
        } else {
            None
        };
        match (earliest_affected_stage(&self.settings, settings), authored) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Re-runs `stage` and every stage after it with the current settings (from rasterization
    /// when the intermediate outputs `stage` starts from were not kept, from the stage that
    /// failed last time when that is earlier). When a stage fails, the stages before it keep
    /// their new outputs and it and the later ones are emptied ([`Build::failed_stage`]): keep
    /// a clone if the previous result must survive.
    pub fn rebuild_from(&mut self, stage: Stage) -> Result<()> {
        let stage = if stage < Stage::Regions && !self.intermediates_held {
            Stage::Rasterize
        } else {
            stage.min(self.failed_stage.unwrap_or(stage))
        };
        self.run_stages(stage, None)
    }

    /// Runs `stage` and every later one, the rasterization's output being `rasterized` when
    /// given.
    fn run_stages(&mut self, stage: Stage, mut rasterized: Option<Rasterized>) -> Result<()> {
        self.context.reset_timers();
        self.context.reset_log();
        self.context.start_timer(TimerLabel::Total);
        if let Some(progress) = &self.progress {
            progress.start_run(stage as usize, Stage::ALL.len());
        }
        self.failed_stage = None;
        let result = Stage::ALL
            .into_iter()
            .filter(|&s| s >= stage)
            .try_for_each(|s| {
                if let Some(progress) = &self.progress {
                    progress.start_stage(s as usize);
                }
                self.run_stage(s, &mut rasterized)
                    .inspect_err(|_| self.clear_from(s))
            });
        self.context.stop_timer(TimerLabel::Total);
        result?;
        self.context.progress(format!(
            ">> Polymesh: {} vertices  {} polygons",
            self.poly_mesh.nverts, self.poly_mesh.npolys
        ));
        Ok(())
    }

    /// Empties the outputs of `failed` and every later stage, restoring what an in-place stage
    /// had half changed, and records `failed`.
    fn clear_from(&mut self, failed: Stage) {
        self.failed_stage = Some(failed);
        let cfg = &self.config;
        match failed {
            Stage::Rasterize => {
                self.triangle_areas = Vec::new();
                self.heightfield_filtered = Arc::new(empty_heightfield(cfg));
                self.rasterized_areas = Arc::default();
            }
            Stage::Filter => {
                let hf = Arc::make_mut(&mut self.heightfield_filtered);
                restore_heightfield_areas(hf, &self.rasterized_areas);
            }
            _ => {}
        }
        if failed <= Stage::Compact || (failed == Stage::Erode && !self.intermediates_held) {
            self.regions = Arc::default();
            self.compact_areas = Arc::default();
        } else if failed <= Stage::Regions {
            let chf = Arc::make_mut(&mut self.regions);
            if failed == Stage::Erode && chf.areas.len() == self.compact_areas.len() {
                chf.areas.copy_from_slice(&self.compact_areas);
            }
            if failed <= Stage::DistanceField {
                clear_distances(chf);
            }
            clear_regions(chf);
        }
        if failed <= Stage::Contours {
            self.contours = Arc::default();
        }
        if failed <= Stage::PolyMesh {
            self.poly_mesh = Arc::default();
        }
        if failed <= Stage::DetailMesh {
            self.detail_mesh = Arc::default();
        }
        self.nav_mesh = None;
        for time in &mut self.stage_times[failed as usize..] {
            *time = None;
        }
    }

    /// Runs `stage`; rasterization takes `rasterized`'s heightfield when there is one.
    fn run_stage(&mut self, stage: Stage, rasterized: &mut Option<Rasterized>) -> Result<()> {
        let started = Instant::now();
        let mut time_elsewhere = Duration::ZERO;
        let cfg = &self.config;
        let ctx = &mut self.context;
        match stage {
            Stage::Rasterize => {
                ctx.progress("Building navigation:");
                ctx.progress(format!(" - {} x {} cells", cfg.width, cfg.height));
                ctx.progress(format!(
                    " - {:.1}K verts, {:.1}K tris",
                    self.mesh.vert_count() as f32 / 1000.0,
                    self.mesh.tri_count() as f32 / 1000.0
                ));
                let (hf, areas) = match rasterized.take() {
                    Some(given) => {
                        time_elsewhere = given.time;
                        (given.heightfield, given.triangle_areas)
                    }
                    None => rasterize_mesh(ctx, cfg, &self.mesh)?,
                };
                self.triangle_areas = areas;
                let (rasterized, rasterized_walkable) = hf.span_counts();
                self.span_counts.rasterized = rasterized;
                self.span_counts.rasterized_walkable = rasterized_walkable;
                self.intermediates_held = match self.retention {
                    Retention::Final => false,
                    Retention::Everything => {
                        let copies = intermediate_copies_bytes(&hf, rasterized);
                        let fits = copies <= INTERMEDIATE_BUDGET;
                        if !fits {
                            ctx.warning(format!(
                                "Keeping every stage would need {} more; only the final stages are kept (the heightfield and compact views stay empty).",
                                crate::memory::format_bytes(copies)
                            ));
                        }
                        fits
                    }
                };
                self.rasterized_areas = Arc::new(if self.intermediates_held {
                    hf.pool.iter().map(|span| span.area).collect()
                } else {
                    Vec::new()
                });
                self.heightfield_filtered = Arc::new(hf);
            }
            Stage::Filter => {
                // Copies the heightfield only when an earlier build still shares it.
                let hf = Arc::make_mut(&mut self.heightfield_filtered);
                if self.intermediates_held {
                    restore_heightfield_areas(hf, &self.rasterized_areas);
                }
                if self.settings.filter_low_hanging_obstacles {
                    filter::filter_low_hanging_walkable_obstacles(ctx, cfg.walkable_climb, hf);
                }
                if self.settings.filter_ledge_spans {
                    filter::filter_ledge_spans(ctx, cfg.walkable_height, cfg.walkable_climb, hf);
                }
                if self.settings.filter_walkable_low_height_spans {
                    filter::filter_walkable_low_height_spans(ctx, cfg.walkable_height, hf);
                }
            }
            Stage::Compact => {
                let chf = build_compact_heightfield(
                    ctx,
                    cfg.walkable_height,
                    cfg.walkable_climb,
                    &self.heightfield_filtered,
                )?;
                self.span_counts.filtered_walkable = chf.span_count();
                self.compact_areas = Arc::new(if self.intermediates_held {
                    chf.areas.clone()
                } else {
                    self.heightfield_filtered = Arc::new(empty_heightfield(cfg));
                    Vec::new()
                });
                self.regions = Arc::new(chf);
            }
            Stage::Erode => {
                // Copies the field only when an earlier build still shares it.
                let chf = Arc::make_mut(&mut self.regions);
                if self.intermediates_held && chf.areas.len() == self.compact_areas.len() {
                    chf.areas.copy_from_slice(&self.compact_areas);
                }
                area::erode_walkable_area(ctx, cfg.walkable_radius, chf)?;
                for volume in &self.convex_volumes {
                    let verts: Vec<f32> = volume.verts.iter().flatten().copied().collect();
                    area::mark_convex_poly_area(
                        ctx,
                        &verts,
                        volume.hmin,
                        volume.hmax,
                        volume.area,
                        chf,
                    );
                }
                self.span_counts.eroded_walkable = chf.walkable_span_count();
            }
            Stage::DistanceField => {
                let chf = Arc::make_mut(&mut self.regions);
                self.span_links = None;
                if self.settings.partition_type == PartitionType::Watershed {
                    let links = distance_field::build_distance_field_keeping_links(ctx, chf)?;
                    self.span_links = Some(Arc::new(links));
                } else {
                    clear_distances(chf);
                }
            }
            Stage::Regions => {
                let chf = Arc::make_mut(&mut self.regions);
                clear_regions(chf);
                let options = self.settings.region_options();
                match self.settings.partition_type {
                    PartitionType::Watershed => region::build_regions_reusing_links(
                        ctx,
                        chf,
                        0,
                        (cfg.min_region_area, cfg.merge_region_area),
                        options,
                        self.span_links.take().as_deref(),
                        |_, _| {},
                    )?,
                    PartitionType::Monotone => region::build_regions_monotone_with(
                        ctx,
                        chf,
                        0,
                        cfg.min_region_area,
                        cfg.merge_region_area,
                        options,
                    )?,
                    PartitionType::Layers => {
                        region::build_layer_regions(ctx, chf, 0, cfg.min_region_area)?
                    }
                }
            }
            Stage::Contours => {
                self.contours = Arc::new(build_contours(
                    ctx,
                    &self.regions,
                    cfg.max_simplification_error,
                    cfg.max_edge_len,
                    ContourBuildFlags::default(),
                )?);
            }
            Stage::PolyMesh => {
                let mut poly_mesh =
                    build_poly_mesh(ctx, &self.contours, cfg.max_verts_per_poly as usize)?;
                if self.settings.remove_degenerate_polygons {
                    remove_degenerate_polygons(ctx, &mut poly_mesh);
                }
                self.poly_mesh = Arc::new(poly_mesh);
            }
            Stage::DetailMesh => {
                self.detail_mesh = Arc::new(build_poly_mesh_detail(
                    ctx,
                    &self.poly_mesh,
                    &self.regions,
                    cfg.detail_sample_dist,
                    cfg.detail_sample_max_error,
                )?);
            }
            Stage::NavMesh => {
                if self.poly_mesh.npolys == 0 {
                    return Err(nothing_walkable(
                        &self.mesh,
                        self.config.bmin,
                        self.config.bmax,
                        &self.settings,
                        &self.walkable_counts(),
                    ));
                }
                self.nav_mesh = self.create_nav_mesh()?.map(Arc::new);
            }
        }
        self.stage_times[stage as usize] = Some(started.elapsed() + time_elsewhere);
        Ok(())
    }

    /// What was left walkable after each stage.
    pub fn walkable_counts(&self) -> WalkableCounts {
        WalkableCounts {
            rasterized: self.span_counts.rasterized_walkable,
            filtered: self.span_counts.filtered_walkable,
            eroded: self.span_counts.eroded_walkable,
            in_regions: spans_in_regions(&self.regions),
            regions: region_count(&self.regions),
            polygons: self.poly_mesh.npolys,
        }
    }

    /// Sample_SoloMesh's step 8: RecastDemo's area → flag rule on a copy of the poly mesh, one
    /// Detour tile from it, and a navmesh holding that tile.
    fn create_nav_mesh(&self) -> Result<Option<NavMesh>> {
        if self.poly_mesh.nvp > VERTS_PER_POLYGON {
            return Ok(None);
        }
        let mut poly_mesh = PolyMesh::clone(&self.poly_mesh);
        apply_area_flags(
            &mut poly_mesh.areas,
            &mut poly_mesh.flags,
            sample_area_flags,
        );
        let params = crate::bake::detour_input::nav_mesh_create_params(
            &poly_mesh,
            &self.detail_mesh,
            &self.off_mesh_connections,
            self.settings.agent_height,
            self.settings.agent_radius,
            self.settings.agent_max_climb,
        )?;
        let tile = create_nav_mesh_data(&params)?;
        Ok(Some(NavMesh::new_solo(tile, self.settings.ref_width())?))
    }

    /// RecastDemo's build-time report (`duLogBuildTimes`): one line per Recast timer that ran,
    /// with its share of the total.
    pub fn timing_report(&self) -> Vec<String> {
        let total = self
            .context
            .accumulated(TimerLabel::Total)
            .unwrap_or_default()
            .as_secs_f64()
            * 1000.0;
        let percent = if total > 0.0 { 100.0 / total } else { 0.0 };
        let mut lines = vec!["Build Times".to_string()];
        for (label, indent) in REPORT_ORDER {
            if let Some(t) = self.context.accumulated(label) {
                let ms = t.as_secs_f64() * 1000.0;
                lines.push(format!(
                    "{indent}- {}:\t{ms:.2}ms\t({:.1}%)",
                    label.display_name(),
                    ms * percent
                ));
            }
        }
        lines.push(format!("=== TOTAL:\t{total:.2}ms"));
        lines
    }
}

/// Drops the poly mesh's degenerate polygons (the `removeDegeneratePolygons` setting), saying
/// how many in the log.
pub(crate) fn remove_degenerate_polygons(ctx: &mut BuildContext, poly_mesh: &mut PolyMesh) {
    let removed = poly_mesh.remove_degenerate_polygons();
    if removed > 0 {
        ctx.progress(format!("Removed {removed} degenerate polygons."));
    }
}

/// The stand-in for a heightfield that is not held: no cells, the config's bounds.
fn empty_heightfield(cfg: &Config) -> Heightfield {
    Heightfield::new(0, 0, cfg.bmin, cfg.bmax, cfg.cs, cfg.ch)
}

/// Gives every pool slot of `hf` its area from `areas` (a snapshot of the same pool); a
/// mismatched snapshot (intermediates not held) leaves `hf` as it is.
fn restore_heightfield_areas(hf: &mut Heightfield, areas: &[u8]) {
    if hf.pool.len() == areas.len() {
        for (span, &area) in hf.pool.iter_mut().zip(areas) {
            span.area = area;
        }
    }
}

/// The distance field as before [`distance_field::build_distance_field`] ran.
fn clear_distances(chf: &mut CompactHeightfield) {
    chf.dist = Vec::new();
    chf.max_distance = 0;
}

/// Region ids as before region building ran.
fn clear_regions(chf: &mut CompactHeightfield) {
    for span in &mut chf.spans {
        span.reg = 0;
    }
    chf.max_regions = 0;
    chf.border_size = 0;
}

/// The memory [`Retention::Everything`] spends beyond [`Retention::Final`] after rasterizing
/// `hf` into `spans` spans: the heightfield past the compact build, and the areas as
/// rasterized and as compacted (every span walkable, the upper bound). Counted from the spans
/// rather than the pool, whose free slots depend on how many threads rasterized.
fn intermediate_copies_bytes(hf: &Heightfield, spans: usize) -> u64 {
    use crate::memory::bytes_of;
    bytes_of::<crate::recast::heightfield::Span>(spans)
        + bytes_of::<u32>(hf.columns.len())
        + 2 * bytes_of::<u8>(spans)
}

/// The order and indentation of RecastDemo's build-time report.
/// (RecastDemo leaves out the low-obstacle filter; it is listed here after the ledge filter.)
const REPORT_ORDER: [(TimerLabel, &str); 26] = [
    (TimerLabel::RasterizeTriangles, ""),
    (TimerLabel::BuildCompactHeightfield, ""),
    (TimerLabel::FilterBorder, ""),
    (TimerLabel::FilterLowObstacles, ""),
    (TimerLabel::FilterWalkable, ""),
    (TimerLabel::ErodeArea, ""),
    (TimerLabel::MedianArea, ""),
    (TimerLabel::MarkBoxArea, ""),
    (TimerLabel::MarkConvexPolyArea, ""),
    (TimerLabel::MarkCylinderArea, ""),
    (TimerLabel::BuildDistanceField, ""),
    (TimerLabel::BuildDistanceFieldDist, "    "),
    (TimerLabel::BuildDistanceFieldBlur, "    "),
    (TimerLabel::BuildRegions, ""),
    (TimerLabel::BuildRegionsWatershed, "    "),
    (TimerLabel::BuildRegionsExpand, "      "),
    (TimerLabel::BuildRegionsFlood, "      "),
    (TimerLabel::BuildRegionsFilter, "    "),
    (TimerLabel::BuildLayers, ""),
    (TimerLabel::BuildContours, ""),
    (TimerLabel::BuildContoursTrace, "    "),
    (TimerLabel::BuildContoursSimplify, "    "),
    (TimerLabel::BuildPolyMesh, ""),
    (TimerLabel::BuildPolyMeshDetail, ""),
    (TimerLabel::MergePolyMesh, ""),
    (TimerLabel::MergePolyMeshDetail, ""),
];

/// Every stage of one tile, recorded for [`TiledBuild::inspect_tile`](crate::bake::tiled::TiledBuild::inspect_tile); a stage the tile did
/// not reach stays `None`.
#[derive(Default)]
pub struct TileStages {
    /// The heightfield as rasterized.
    pub rasterized: Option<Heightfield>,
    /// After the span filters.
    pub filtered: Option<Heightfield>,
    /// As first built.
    pub compact: Option<CompactHeightfield>,
    /// After erosion and the convex volumes.
    pub eroded: Option<CompactHeightfield>,
    /// After region partitioning.
    pub regions: Option<CompactHeightfield>,
    /// The region outlines.
    pub contours: Option<ContourSet>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::scene;
    use crate::recast::NULL_AREA;
    use crate::recast::poly_mesh::assert_ear_clipper_matches_scans;

    /// The default scene gives every stage something to show.
    #[test]
    fn every_stage_has_something_to_show() {
        let build = Build::new(
            std::sync::Arc::new(scene::default_scene()),
            BuildSettings::default(),
        )
        .unwrap();
        let hf = &build.heightfield_filtered;
        // The filters turn walkable spans unwalkable (under the tables and the canopy).
        assert!(
            hf.walkable_span_count() < build.heightfield_rasterized().walkable_span_count(),
            "{} vs {}",
            hf.walkable_span_count(),
            build.heightfield_rasterized().walkable_span_count()
        );
        // The bridge and the spiral stairs stack walkable spans over the floor.
        let (x, z) = ((0.0 - hf.bmin[0]) / hf.cs, (-17.0 - hf.bmin[2]) / hf.cs);
        let under_bridge = hf
            .column(x as i32, z as i32)
            .filter(|s| s.area != NULL_AREA)
            .count();
        assert_eq!(under_bridge, 2);
        assert!(
            build.regions.max_regions > 10,
            "{}",
            build.regions.max_regions
        );
        assert!(build.contours.contours.len() > 10);
        assert!(build.poly_mesh.npolys > 30, "{}", build.poly_mesh.npolys);
        assert!(build.detail_mesh.ntris() > build.poly_mesh.npolys);
    }

    /// A stage that fails leaves the stages before it to draw and empties the rest; the next
    /// update runs again from there and equals a fresh build.
    #[test]
    fn a_failed_stage_keeps_the_stages_before_it() {
        let mesh = Arc::new(scene::city(4));
        let flat = BuildSettings {
            agent_max_slope: 0.0,
            ..BuildSettings::default()
        };
        let (bmin, bmax) = mesh.bounds();
        let mut build =
            Build::unbuilt(mesh.clone(), bmin, bmax, flat, BuildContext::new()).unwrap();
        assert!(build.rebuild_from(Stage::Rasterize).is_err());
        assert_eq!(build.failed_stage, Some(Stage::NavMesh));
        assert!(build.heightfield_filtered.span_counts().0 > 0);
        assert_eq!(build.regions.width, build.heightfield_filtered.width);
        assert!(build.nav_mesh.is_none());
        assert_eq!(build.stage_times[Stage::NavMesh as usize], None);

        build.update(BuildSettings::default()).unwrap();
        assert_eq!(build.failed_stage, None);
        let fresh = Build::new(mesh, BuildSettings::default()).unwrap();
        assert_eq!(build.regions, fresh.regions);
        assert_eq!(build.poly_mesh, fresh.poly_mesh);
        assert!(build.nav_mesh.is_some());
    }

    /// The ear clipper agrees with the plain scans on real contours, the layers floor with every
    /// building's hole merged in among them.
    #[test]
    fn clipper_matches_scans_on_city_contours() {
        let mesh = Arc::new(scene::city(7));
        let mut largest = 0;
        for partition in PartitionType::ALL {
            let settings = BuildSettings {
                partition_type: partition,
                ..BuildSettings::default()
            };
            let build = Build::new(mesh.clone(), settings).unwrap();
            for contour in &build.contours.contours {
                if contour.nverts() >= 3 {
                    assert!(assert_ear_clipper_matches_scans(&contour.verts));
                    largest = largest.max(contour.nverts());
                }
            }
        }
        // The layers floor region has every building's hole merged in.
        assert!(largest > 200, "{largest}");
    }
}
