//! DetourTileCacheBuilder: a stored layer turned into a navmesh tile (`buildNavMeshTile`).
//! The layer is decompressed, obstacles clear their cells, then the byte-grid variants of
//! Recast's steps run: monotone regions (`regions`), contours (`contours`) and the polygon
//! mesh (`poly_mesh`), each with C++'s integer and f32 arithmetic so the tile's bytes equal
//! C++'s. Obstacle shapes are in [`obstacles`].

mod contours;
pub mod obstacles;
mod poly_mesh;
mod regions;
pub mod scratch;
mod work_layer;

use crate::detour::{
    MeshTile, NavMeshCreateParams, OffMeshConnectionParams, create_nav_mesh_data_into,
};

use super::file::TileCacheParams;
use super::layer::{DecompressedLayer, LayerHeader, decompress_layer_into};
use contours::ContourBuffers;
use poly_mesh::MeshBuffers;
use regions::RegionBuffers;

pub use contours::Contour as LayerContour;
pub use obstacles::ObstacleShape;
pub use poly_mesh::LayerPolyMesh;
pub use scratch::ScratchAllocator;
pub use work_layer::{BuildError, NULL_AREA};
use work_layer::{MAX_VERTS_PER_POLY, WorkLayer};

/// Everything a layer's build works in, kept from one build to the next so that rebuilding
/// tiles (obstacles coming and going) allocates nothing once the buffers have grown to the
/// largest layer seen.
#[derive(Default)]
struct StepBuffers {
    /// The decompressed grids, one after the other.
    grids: Vec<u8>,
    work: WorkLayer,
    regions: RegionBuffers,
    contour_buffers: ContourBuffers,
    contours: Vec<LayerContour>,
    /// Regions in the order their contours were made.
    order: Vec<usize>,
    mesh_buffers: MeshBuffers,
    mesh: LayerPolyMesh,
    /// The scratch allocations C++ would make, for [`ScratchAllocator`].
    allocations: Vec<usize>,
}

impl StepBuffers {
    /// Obstacle marking, regions, contours and polygons of the layer in `self.work`.
    fn run(
        &mut self,
        params: &TileCacheParams,
        orig: [f32; 3],
        obstacles: &[ObstacleShape],
    ) -> Result<(), BuildError> {
        for obstacle in obstacles {
            obstacle.mark(&mut self.work, orig, params.cs, params.ch, NULL_AREA);
        }
        let walkable_climb = (params.walkable_climb / params.ch) as i32;
        regions::build_regions(&mut self.work, walkable_climb, &mut self.regions)?;
        contours::build_contours(
            &self.work,
            self.regions.region_starts(),
            walkable_climb,
            params.max_simplification_error,
            &mut self.contours,
            &mut self.order,
            &mut self.contour_buffers,
        )?;
        poly_mesh::build_poly_mesh(&self.contours, &mut self.mesh, &mut self.mesh_buffers)?;
        scratch::allocations(
            &self.work,
            &self.contours,
            &self.order,
            &self.mesh,
            &mut self.allocations,
        );
        Ok(())
    }
}

/// The polygon mesh of a decompressed layer after marking `obstacles` (each cell they cover
/// becomes [`NULL_AREA`]): regions, contours and polygons with `params`' climb and maximum
/// error, areas as in the layer and flags 0.
pub fn build_layer_poly_mesh(
    layer: DecompressedLayer,
    params: &TileCacheParams,
    obstacles: &[ObstacleShape],
) -> Result<LayerPolyMesh, BuildError> {
    let mut steps = run_steps(layer, params, obstacles)?;
    Ok(std::mem::take(&mut steps.mesh))
}

/// Every step of a layer's build, kept for drawing them (RecastDemo's Highlight Tile Cache
/// tool): the cells after the obstacles, the monotone regions, the contours and the mesh.
#[derive(Clone, Debug, PartialEq)]
pub struct LayerSteps {
    /// The layer's header.
    pub header: LayerHeader,
    /// Cell heights after the obstacles.
    pub heights: Vec<u8>,
    /// Cell area ids after the obstacles (cleared under them).
    pub areas: Vec<u8>,
    /// The region of each cell, 0xff where there is none.
    pub regions: Vec<u8>,
    /// One outline per region.
    pub contours: Vec<LayerContour>,
    /// The polygon mesh.
    pub mesh: LayerPolyMesh,
}

/// [`build_layer_poly_mesh`] keeping each step's output.
pub fn layer_steps(
    layer: DecompressedLayer,
    params: &TileCacheParams,
    obstacles: &[ObstacleShape],
) -> Result<LayerSteps, BuildError> {
    let header = layer.header.clone();
    let steps = run_steps(layer, params, obstacles)?;
    Ok(LayerSteps {
        header,
        heights: steps.work.heights,
        areas: steps.work.areas,
        regions: steps.work.regs,
        contours: steps.contours,
        mesh: steps.mesh,
    })
}

/// One layer's build from its decompressed grids, in fresh buffers.
fn run_steps(
    layer: DecompressedLayer,
    params: &TileCacheParams,
    obstacles: &[ObstacleShape],
) -> Result<StepBuffers, BuildError> {
    let orig = layer.header.bmin;
    let mut steps = StepBuffers {
        work: WorkLayer::new(layer)?,
        ..StepBuffers::default()
    };
    steps.run(params, orig, obstacles)?;
    Ok(steps)
}

/// Builds navmesh tiles from stored layers (`dtTileCache::buildNavMeshTile`) in working
/// memory it keeps, the tile included: a tile cache that keeps one builder rebuilds tiles
/// without allocating once it has seen its largest layer (copy the tile into the one it
/// replaces with [`MeshTile::assign_from`] to keep that memory too).
#[derive(Default)]
pub struct LayerTileBuilder {
    steps: StepBuffers,
    tile: MeshTile,
}

/// A copy starts with empty buffers: they hold no state, only memory.
impl Clone for LayerTileBuilder {
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl std::fmt::Debug for LayerTileBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LayerTileBuilder").finish_non_exhaustive()
    }
}

impl LayerTileBuilder {
    /// A builder with empty buffers, which grow with the first layers.
    pub fn new() -> Self {
        Self::default()
    }

    /// The navmesh tile of a stored layer with the obstacles touching it. `mesh_process` sets
    /// each polygon's area and flags before the tile is made, as a `dtTileCacheMeshProcess`
    /// does; `off_mesh` are the links it passes (RecastDemo's passes all of the geometry's,
    /// and Detour keeps those starting in the tile). With `scratch`, C++'s scratch allocator is
    /// modelled: a build whose allocations do not fit in it fails with
    /// [`BuildError::OutOfScratch`] as C++'s does, and its figures move as the demo's would.
    /// `None` when the layer has no polygons: C++ then builds no tile. The tile stays the
    /// builder's until the next build.
    pub fn build(
        &mut self,
        data: &[u8],
        params: &TileCacheParams,
        obstacles: &[ObstacleShape],
        off_mesh: &[OffMeshConnectionParams],
        mesh_process: impl FnOnce(&mut [u8], &mut [u16]),
        scratch: Option<&mut ScratchAllocator>,
    ) -> Result<Option<&MeshTile>, BuildError> {
        let steps = &mut self.steps;
        let header = decompress_layer_into(data, &mut steps.grids)?;
        let cells = steps.grids.len() / 3;
        let (heights, rest) = steps.grids.split_at(cells);
        let (areas, cons) = rest.split_at(cells);
        steps.work.load(&header, heights, areas, cons)?;
        steps.run(params, header.bmin, obstacles)?;
        if let Some(scratch) = scratch
            && !scratch.build(&steps.allocations)
        {
            return Err(BuildError::OutOfScratch {
                needed: steps.allocations.iter().sum(),
                capacity: scratch.capacity,
            });
        }
        let mesh = &mut steps.mesh;
        if mesh.poly_count() == 0 {
            return Ok(None);
        }
        mesh_process(&mut mesh.areas, &mut mesh.flags);
        let create = NavMeshCreateParams {
            verts: &mesh.verts,
            polys: &mesh.polys,
            poly_flags: &mesh.flags,
            poly_areas: &mesh.areas,
            nvp: MAX_VERTS_PER_POLY,
            detail: None,
            off_mesh_connections: off_mesh,
            user_id: 0,
            tile_x: header.tx,
            tile_y: header.ty,
            tile_layer: header.tlayer,
            bmin: header.bmin,
            bmax: header.bmax,
            walkable_height: params.walkable_height,
            walkable_radius: params.walkable_radius,
            walkable_climb: params.walkable_climb,
            cs: params.cs,
            ch: params.ch,
            // The tile cache builds tiles without a BV tree.
            build_bv_tree: false,
        };
        create_nav_mesh_data_into(&create, &mut self.tile)?;
        Ok(Some(&self.tile))
    }
}

/// [`LayerTileBuilder::build`] once, without the scratch model.
pub fn build_nav_mesh_tile(
    data: &[u8],
    params: &TileCacheParams,
    obstacles: &[ObstacleShape],
    off_mesh: &[OffMeshConnectionParams],
    mesh_process: impl FnOnce(&mut [u8], &mut [u16]),
) -> Result<Option<MeshTile>, BuildError> {
    let mut builder = LayerTileBuilder::new();
    let tile = builder.build(data, params, obstacles, off_mesh, mesh_process, None)?;
    Ok(tile.cloned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tile_cache::layer::LayerHeader;

    const W: u8 = 12;

    /// A flat `W` x `W` walkable layer, every cell linked to the cells beside it.
    fn flat_layer() -> DecompressedLayer {
        let w = usize::from(W);
        let cons = (0..w * w)
            .map(|i| {
                let (x, y) = (i % w, i / w);
                let links = [x > 0, y + 1 < w, x + 1 < w, y > 0];
                links
                    .iter()
                    .enumerate()
                    .fold(0u8, |c, (dir, &l)| c | (u8::from(l) << dir))
            })
            .collect();
        DecompressedLayer {
            header: LayerHeader {
                bmax: [3.6, 1.0, 3.6],
                width: W,
                height: W,
                maxx: W - 1,
                maxy: W - 1,
                ..Default::default()
            },
            heights: vec![5; w * w],
            areas: vec![63; w * w],
            cons,
        }
    }

    fn params() -> TileCacheParams {
        TileCacheParams {
            cs: 0.3,
            ch: 0.2,
            walkable_height: 2.0,
            walkable_radius: 0.6,
            walkable_climb: 0.9,
            max_simplification_error: 1.3,
            width: i32::from(W),
            height: i32::from(W),
            ..Default::default()
        }
    }

    fn marked_cells(shape: ObstacleShape) -> Vec<(usize, usize)> {
        let mut work = WorkLayer::new(flat_layer()).unwrap();
        shape.mark(&mut work, [0.0; 3], 0.3, 0.2, NULL_AREA);
        let w = usize::from(W);
        (0..w * w)
            .filter(|&i| work.areas[i] == NULL_AREA)
            .map(|i| (i % w, i / w))
            .collect()
    }

    #[test]
    fn a_flat_layer_is_one_quad() {
        let mesh = build_layer_poly_mesh(flat_layer(), &params(), &[]).unwrap();
        assert_eq!((mesh.vert_count(), mesh.poly_count()), (4, 1));
        assert_eq!(mesh.areas, [63]);
    }

    #[test]
    fn obstacles_clear_the_cells_they_cover_within_their_height() {
        let box_cells = marked_cells(ObstacleShape::Box {
            bmin: [0.35, 0.5, 0.65],
            bmax: [0.95, 1.5, 0.95],
        });
        assert_eq!(box_cells, [(1, 2), (2, 2), (3, 2), (1, 3), (2, 3), (3, 3)]);
        let above = ObstacleShape::Box {
            bmin: [0.0, 1.2, 0.0],
            bmax: [3.0, 2.0, 3.0],
        };
        assert!(marked_cells(above).is_empty());
        let cylinder = marked_cells(ObstacleShape::Cylinder {
            pos: [1.8, 0.5, 1.8],
            radius: 0.6,
            height: 1.0,
        });
        assert!(cylinder.contains(&(6, 6)) && !cylinder.contains(&(3, 6)));
        assert!(
            cylinder
                .iter()
                .all(|&(x, z)| (3..=8).contains(&x) && (3..=8).contains(&z))
        );
        let turned = marked_cells(ObstacleShape::oriented_box(
            [1.8, 1.0, 1.8],
            [0.9, 1.0, 0.3],
            std::f32::consts::FRAC_PI_2,
        ));
        let straight = marked_cells(ObstacleShape::oriented_box(
            [1.8, 1.0, 1.8],
            [0.3, 1.0, 0.9],
            0.0,
        ));
        assert_eq!(turned, straight);
        assert!(!straight.is_empty());
        let mesh = build_layer_poly_mesh(
            flat_layer(),
            &params(),
            &[ObstacleShape::Cylinder {
                pos: [1.8, 0.5, 1.8],
                radius: 0.6,
                height: 1.0,
            }],
        )
        .unwrap();
        assert!(mesh.poly_count() > 1, "the cylinder leaves a hole");
    }

    #[test]
    fn inconsistent_grids_and_too_many_regions_are_errors() {
        let mut short = flat_layer();
        short.cons.pop();
        assert!(matches!(
            build_layer_poly_mesh(short, &params(), &[]),
            Err(BuildError::InconsistentGrids { .. })
        ));

        // Rows alternating far apart in height, each cut into one-cell runs: a region per run.
        let (w, h) = (255usize, 4usize);
        let layer = DecompressedLayer {
            header: LayerHeader {
                width: w as u8,
                height: h as u8,
                ..Default::default()
            },
            heights: (0..w * h).map(|i| ((i / w) % 2 * 100) as u8).collect(),
            areas: (0..w * h)
                .map(|i| if i % 2 == 0 { 63 } else { 0 })
                .collect(),
            cons: vec![0; w * h],
        };
        assert_eq!(
            build_layer_poly_mesh(layer, &params(), &[]),
            Err(BuildError::TooManyRegions)
        );
    }
}
