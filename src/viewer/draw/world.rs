//! The world view: a navmesh of more tiles than can be drawn whole at interactive rates (the
//! 100 km² world has 271 441) is drawn as blocks of 16 × 16 tile cells around the camera's
//! focus, the nearest in full and the rest, to the view distance, as wall outlines; nothing
//! beyond it. Blocks are made on the compute pool and kept while they stay in view, so a frame
//! only uploads the blocks that just came into view. A streamed tile store is always drawn so.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use bevy::asset::{RenderAssetUsages, load_internal_asset, uuid_handle};
use bevy::camera::visibility::NoFrustumCulling;
use bevy::mesh::PrimitiveTopology;
use bevy::pbr::{Material, MaterialPlugin};
use bevy::prelude::*;
use bevy::render::render_resource::AsBindGroup;
use bevy::shader::ShaderRef;
use bevy::tasks::futures::check_ready;
use bevy::tasks::{AsyncComputeTaskPool, Task};
use bevy_panorbit_camera::PanOrbitCamera;

use super::{DrawMode, DrawSystems, linear, triangle_mesh};
use crate::viewer::build::BuildState;
use crate::viewer::navmesh::{SharedNavMesh, ShownNavMesh};
use navlab::debug_draw::DebugDraw;
use navlab::debug_draw::detour::{TileDetail, nav_mesh_cells};
use navlab::detour::tile_store::TileStore;
use navlab::detour::{NavMesh, NavMeshParams};

/// Navmeshes of more tiles than this are drawn as a world (the 1 km² city at tile size 64 has
/// 2 704; drawn whole, a few thousand tiles still make a frame in time).
pub const WORLD_VIEW_TILES: usize = 4096;
/// Tile cells along each side of a block.
pub const BLOCK_CELLS: i32 = 16;
/// The most blocks drawn in full, and in all: what a frame of Mesa's software renderer draws
/// within 100 ms over the 100 km² world (docs/world-view.md has the measurements).
const MAX_FULL_BLOCKS: usize = 9;
const MAX_BLOCKS: usize = 49;
/// Blocks made at once on the compute pool; each finished one is uploaded in the frame it lands.
const MAX_BLOCK_TASKS: usize = 4;
/// How far the outlines reach, in camera distances from the focus.
const FAR_PER_DISTANCE: f32 = 3.0;

/// Where a navmesh's tile grid lies: its origin, cell size and the cells holding tiles.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TileGrid {
    pub orig: Vec3,
    pub tile_width: f32,
    pub tile_height: f32,
    /// First and last cell (x, y) with a tile.
    pub first: IVec2,
    pub last: IVec2,
}

impl TileGrid {
    /// The grid of `mesh`'s loaded tiles (`None` without tiles).
    pub fn of_nav_mesh(mesh: &NavMesh) -> Option<TileGrid> {
        let cells = mesh
            .tiles()
            .map(|(_, t)| IVec2::new(t.header().x, t.header().y));
        TileGrid::spanning(mesh.params(), cells)
    }

    /// The grid of a tile store's tiles (`None` for a store of none).
    pub fn of_store(store: &TileStore) -> Option<TileGrid> {
        let cells = store.tiles().iter().map(|t| IVec2::new(t.x, t.y));
        TileGrid::spanning(store.params(), cells)
    }

    /// The grid of `params` over the range `cells` span.
    fn spanning(params: &NavMeshParams, cells: impl Iterator<Item = IVec2>) -> Option<TileGrid> {
        let (first, last) = cells.fold(None, |range: Option<(IVec2, IVec2)>, c| {
            Some(range.map_or((c, c), |(a, b)| (a.min(c), b.max(c))))
        })?;
        Some(TileGrid {
            orig: Vec3::from(params.orig),
            tile_width: params.tile_width,
            tile_height: params.tile_height,
            first,
            last,
        })
    }

    /// The cell holding the xz point `p` (Detour's `calcTileLoc`).
    pub fn cell_of(&self, p: Vec2) -> IVec2 {
        IVec2::new(
            ((p.x - self.orig.x) / self.tile_width).floor() as i32,
            ((p.y - self.orig.z) / self.tile_height).floor() as i32,
        )
    }

    fn block_size(&self) -> Vec2 {
        Vec2::new(self.tile_width, self.tile_height) * BLOCK_CELLS as f32
    }

    /// The block holding cell `cell`.
    fn block_of(cell: IVec2) -> IVec2 {
        IVec2::new(
            cell.x.div_euclid(BLOCK_CELLS),
            cell.y.div_euclid(BLOCK_CELLS),
        )
    }

    /// The cells of `block`, first and last.
    pub fn block_cells(block: IVec2) -> (IVec2, IVec2) {
        let first = block * BLOCK_CELLS;
        (first, first + IVec2::splat(BLOCK_CELLS - 1))
    }

    /// The xz distance from `point` to `block`'s area (0 inside it).
    fn distance_to_block(&self, block: IVec2, point: Vec3) -> f32 {
        let size = self.block_size();
        let min = Vec2::new(self.orig.x, self.orig.z) + block.as_vec2() * size;
        let p = Vec2::new(point.x, point.z);
        (p.clamp(min, min + size) - p).length()
    }

    /// The box of `blocks` × `blocks` blocks in the middle of the grid, at the height of the
    /// grid's origin (what a camera frames first).
    pub fn middle_blocks(&self, blocks: i32) -> ([f32; 3], [f32; 3]) {
        let centre = (self.first + self.last) / 2;
        let half = IVec2::splat(blocks * BLOCK_CELLS / 2);
        let first = (centre - half).max(self.first);
        let last = (centre + half).min(self.last);
        let (bmin, bmax) = self.cells_box(first, last);
        ([bmin.x, self.orig.y, bmin.z], [bmax.x, self.orig.y, bmax.z])
    }

    /// The xz box (min, max; y unbounded) of cells `first` to `last`.
    pub fn cells_box(&self, first: IVec2, last: IVec2) -> (Vec3, Vec3) {
        let size = Vec2::new(self.tile_width, self.tile_height);
        let min = Vec2::new(self.orig.x, self.orig.z) + first.as_vec2() * size;
        let max = Vec2::new(self.orig.x, self.orig.z) + (last + 1).as_vec2() * size;
        // Inset a little so the box's edges do not reach into the next cells.
        let inset = size * 1e-3;
        (
            Vec3::new(min.x + inset.x, f32::MIN, min.y + inset.y),
            Vec3::new(max.x - inset.x, f32::MAX, max.y - inset.y),
        )
    }
}

/// The blocks to draw for a camera `distance` from `focus`, nearest first: up to
/// [`MAX_FULL_BLOCKS`] within the near distance in full, then outlines to the far distance, up
/// to [`MAX_BLOCKS`] in all. Only blocks holding cells of the grid are listed.
pub fn blocks_in_view(grid: &TileGrid, focus: Vec3, distance: f32) -> Vec<(IVec2, TileDetail)> {
    let size = grid.block_size();
    let reach = size.max_element();
    let near = distance.max(reach);
    // Far enough to show the surroundings, and never so far that the candidates are many.
    let far = (distance * FAR_PER_DISTANCE).clamp(reach, 64.0 * reach);
    let focus_cell = grid.cell_of(focus.xz());
    let radius_blocks = (far / size.min_element()).ceil() as i32 + 1;
    let centre = TileGrid::block_of(focus_cell.clamp(grid.first, grid.last));
    let lo = (centre - radius_blocks).max(TileGrid::block_of(grid.first));
    let hi = (centre + radius_blocks).min(TileGrid::block_of(grid.last));
    let mut candidates = Vec::new();
    for y in lo.y..=hi.y {
        for x in lo.x..=hi.x {
            let block = IVec2::new(x, y);
            let d = grid.distance_to_block(block, focus);
            if d <= far {
                candidates.push((d, block));
            }
        }
    }
    candidates.sort_by(|a, b| {
        a.0.total_cmp(&b.0)
            .then(a.1.to_array().cmp(&b.1.to_array()))
    });
    candidates
        .into_iter()
        .take(MAX_BLOCKS)
        .enumerate()
        .map(|(i, (d, block))| {
            let detail = if i < MAX_FULL_BLOCKS && d <= near {
                TileDetail::Full
            } else {
                TileDetail::Outline
            };
            (block, detail)
        })
        .collect()
}

/// Whether the navmesh on screen is drawn as a world.
pub fn shows_world(shown: &ShownNavMesh, mesh: &NavMesh) -> bool {
    shown.is_streamed() || mesh.tile_count() > WORLD_VIEW_TILES
}

/// A block on screen: what it shows and its entity.
struct Block {
    detail: TileDetail,
    signature: u64,
    entity: Entity,
    /// Triangles and line segments drawn.
    primitives: (usize, usize),
}

/// A block being made on the compute pool.
struct Making {
    detail: TileDetail,
    signature: u64,
    task: Task<BlockMeshes>,
}

/// The world view's blocks, and what it draws now (the session state reports it).
#[derive(Resource, Default)]
pub struct WorldView {
    /// The navmesh the blocks were made from (its [`ShownNavMesh::version`]); `None` when the
    /// world view is off.
    version: Option<u64>,
    /// Which navmesh the grid is of ([`ShownNavMesh::source_version`]).
    grid_source: Option<u64>,
    grid: Option<TileGrid>,
    root: Option<Entity>,
    blocks: HashMap<IVec2, Block>,
    making: HashMap<IVec2, Making>,
    /// What the camera wants: each block's detail and signature, nearest first.
    wanted: Vec<(IVec2, TileDetail, u64)>,
    /// No new blocks are started while set, so the navmesh is free to change (streaming).
    pub hold: bool,
    /// The blocks' material, made on first use.
    material: Option<Handle<WorldColorMaterial>>,
}

impl WorldView {
    /// Blocks on screen in full and as outlines, and blocks being made.
    pub fn counts(&self) -> (usize, usize, usize) {
        let full = self
            .blocks
            .values()
            .filter(|b| b.detail == TileDetail::Full)
            .count();
        (full, self.blocks.len() - full, self.making.len())
    }

    /// The tile grid of the navmesh drawn.
    pub fn grid(&self) -> Option<TileGrid> {
        self.grid
    }

    /// Triangles and line segments of the blocks on screen.
    pub fn primitives(&self) -> (usize, usize) {
        self.blocks
            .values()
            .fold((0, 0), |(t, l), b| (t + b.primitives.0, l + b.primitives.1))
    }

    /// Whether the world view is on.
    pub fn is_on(&self) -> bool {
        self.version.is_some()
    }

    /// The cells of the blocks the camera wants, first and last (what streaming loads).
    pub fn wanted_cells(&self) -> Option<(IVec2, IVec2)> {
        self.wanted
            .iter()
            .map(|&(block, _, _)| TileGrid::block_cells(block))
            .reduce(|(a0, a1), (b0, b1)| (a0.min(b0), a1.max(b1)))
    }

    /// Whether every wanted block is on screen as wanted.
    pub fn settled(&self) -> bool {
        self.making.is_empty()
            && self.wanted.iter().all(|(block, detail, signature)| {
                self.blocks
                    .get(block)
                    .is_some_and(|b| b.detail == *detail && b.signature == *signature)
            })
    }

    /// Whether blocks are being made (they hold the navmesh).
    pub fn is_making(&self) -> bool {
        !self.making.is_empty()
    }
}

/// The blocks' material: vertex colours as they are, blended. The standard material's
/// unlit path still runs its fog and much of its setup for every pixel, which on a software
/// renderer cost more than the blocks' geometry (docs/world-view.md).
#[derive(Asset, TypePath, AsBindGroup, Clone, Default)]
pub struct WorldColorMaterial {}

const WORLD_COLOR_SHADER: Handle<Shader> = uuid_handle!("5c0f4f3e-8a61-4d8e-9f5e-2b7a93c1d604");

impl Material for WorldColorMaterial {
    fn fragment_shader() -> ShaderRef {
        WORLD_COLOR_SHADER.into()
    }

    fn alpha_mode(&self) -> AlphaMode {
        AlphaMode::Blend
    }

    fn enable_prepass() -> bool {
        false
    }

    fn enable_shadows() -> bool {
        false
    }
}

pub struct WorldViewPlugin;

impl Plugin for WorldViewPlugin {
    fn build(&self, app: &mut App) {
        if app.world().contains_resource::<Assets<Shader>>() {
            load_internal_asset!(
                app,
                WORLD_COLOR_SHADER,
                "../../../shaders/world_colors.wgsl",
                Shader::from_wgsl
            );
            app.add_plugins(MaterialPlugin::<WorldColorMaterial>::default());
        } else {
            // No renderer (the draw tests): the material is only stored.
            app.init_asset::<WorldColorMaterial>();
        }
        app.init_resource::<WorldView>().add_systems(
            Update,
            (sync_world, multisample_off_on_worlds, end_pipeline_warm_up).in_set(DrawSystems),
        );
    }
}

/// Multisampling is off while a world is shown: on a software renderer it doubled the cost of
/// a frame of blocks, and far lines one pixel wide need it least.
///
/// Every mesh's pipeline depends on the sample count, and Bevy makes a mesh's pipeline when the
/// mesh first comes into view: the scene's, made at start-up with multisampling, was made again
/// in the middle of a flight over a world, when the scene came into view (a 120–140 ms frame on
/// lavapipe). So when the count changes, the meshes already there are shown unculled for
/// [`WARM_UP_FRAMES`], which queues their new pipelines at once.
fn multisample_off_on_worlds(
    mut commands: Commands,
    view: Res<WorldView>,
    mut cameras: Query<&mut Msaa, With<PanOrbitCamera>>,
    culled_meshes: Query<Entity, (With<Mesh3d>, Without<NoFrustumCulling>)>,
) {
    let wanted = if view.is_on() {
        Msaa::Off
    } else {
        Msaa::Sample4
    };
    let mut changed = false;
    for mut msaa in &mut cameras {
        changed |= msaa.set_if_neq(wanted);
    }
    if changed {
        for mesh in &culled_meshes {
            commands
                .entity(mesh)
                .insert((NoFrustumCulling, PipelineWarmUp(WARM_UP_FRAMES)));
        }
    }
}

/// Frames a mesh stays unculled after the sample count changed: its pipeline is queued in the
/// first and made in the background (a pipeline once queued is finished whether or not the
/// mesh stays in view).
const WARM_UP_FRAMES: u8 = 2;

/// A mesh shown unculled while its pipeline for a new sample count is queued, and the frames
/// left.
#[derive(Component)]
struct PipelineWarmUp(u8);

/// Culls the warmed-up meshes again.
fn end_pipeline_warm_up(mut commands: Commands, mut warming: Query<(Entity, &mut PipelineWarmUp)>) {
    for (mesh, mut frames) in &mut warming {
        frames.0 = frames.0.saturating_sub(1);
        if frames.0 == 0 {
            commands
                .entity(mesh)
                .remove::<(NoFrustumCulling, PipelineWarmUp)>();
        }
    }
}

/// A block's meshes, made off the main thread.
#[derive(Default)]
struct BlockMeshes {
    triangles: Option<Mesh>,
    lines: Option<Mesh>,
    /// Triangles and line segments in them.
    primitives: (usize, usize),
}

/// The drawing's triangles as a mesh, and all its lines as one line-list mesh (one pixel wide:
/// far cheaper for a software renderer than wide gizmo lines, and a world has many).
fn block_meshes(drawing: DebugDraw) -> BlockMeshes {
    let tris = drawing.triangles;
    let triangle_count = tris.triangle_count();
    let triangles = (!tris.indices.is_empty()).then(|| triangle_mesh(tris));
    let segments: usize = drawing.lines.iter().map(|l| l.segments.len()).sum();
    let lines = (segments > 0).then(|| {
        let mut positions = Vec::with_capacity(segments * 2);
        let mut colors = Vec::with_capacity(segments * 2);
        for batch in &drawing.lines {
            for (segment, &color) in batch.segments.iter().zip(&batch.colors) {
                positions.extend_from_slice(segment);
                colors.extend_from_slice(&[linear(color); 2]);
            }
        }
        Mesh::new(PrimitiveTopology::LineList, RenderAssetUsages::RENDER_WORLD)
            .with_inserted_attribute(Mesh::ATTRIBUTE_POSITION, positions)
            .with_inserted_attribute(Mesh::ATTRIBUTE_COLOR, colors)
    });
    BlockMeshes {
        triangles,
        lines,
        primitives: (triangle_count, segments),
    }
}

/// What a block shows of a streamed navmesh changes with the tiles in it and around it (a
/// neighbour's arrival turns border walls into portals): their references, hashed.
fn block_signature(mesh: &NavMesh, block: IVec2) -> u64 {
    let (first, last) = TileGrid::block_cells(block);
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    for y in first.y - 1..=last.y + 1 {
        for x in first.x - 1..=last.x + 1 {
            for index in mesh.tile_indices_at(x, y) {
                mesh.tile_ref(index).hash(&mut hasher);
            }
        }
    }
    hasher.finish()
}

#[allow(clippy::too_many_arguments)]
fn sync_world(
    mode: Res<DrawMode>,
    state: Res<BuildState>,
    shown: Res<ShownNavMesh>,
    // The viewer's one orbit camera (the 3D view's).
    cameras: Query<&PanOrbitCamera>,
    mut view: ResMut<WorldView>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<WorldColorMaterial>>,
    mut commands: Commands,
) {
    let view = &mut *view;
    let mesh = shown
        .get(&state)
        .filter(|mesh| mode.shows_nav_mesh() && shows_world(&shown, mesh));
    let Some(mesh) = mesh else {
        if view.version.take().is_some()
            && let Some(root) = view.root
        {
            commands.entity(root).insert(Visibility::Hidden);
        }
        return;
    };
    let version = shown.version(&state);
    let root = *view.root.get_or_insert_with(|| {
        commands
            .spawn((
                super::DebugLayer("World"),
                Transform::default(),
                Visibility::Inherited,
            ))
            .id()
    });
    if view.version.is_none() {
        commands.entity(root).insert(Visibility::Inherited);
    }
    let material = view
        .material
        .get_or_insert_with(|| materials.add(WorldColorMaterial {}))
        .clone();
    let source = shown.source_version(&state);
    if view.grid_source != Some(source) {
        // Another navmesh: nothing on screen is of it.
        for (_, block) in view.blocks.drain() {
            commands.entity(block.entity).despawn();
        }
        view.making.clear();
        view.grid = match shown.store() {
            Some(store) => TileGrid::of_store(store),
            None => TileGrid::of_nav_mesh(mesh),
        };
        view.grid_source = Some(source);
    }
    view.version = Some(version);
    let Some(grid) = view.grid else {
        return;
    };
    let Ok(camera) = cameras.single() else {
        return;
    };
    let distance = camera.radius.unwrap_or(camera.target_radius);
    let streamed = shown.is_streamed();
    view.wanted = blocks_in_view(&grid, camera.focus, distance)
        .into_iter()
        .map(|(block, detail)| {
            let signature = if streamed {
                block_signature(mesh, block)
            } else {
                version
            };
            (block, detail, signature)
        })
        .collect();

    // Blocks made: shown if still wanted as they are.
    let ready: Vec<(IVec2, BlockMeshes)> = view
        .making
        .iter_mut()
        .filter_map(|(block, making)| check_ready(&mut making.task).map(|made| (*block, made)))
        .collect();
    for (block, made) in ready {
        let Some(making) = view.making.remove(&block) else {
            continue;
        };
        let still_wanted = view
            .wanted
            .contains(&(block, making.detail, making.signature));
        if !still_wanted {
            continue;
        }
        if let Some(old) = view.blocks.remove(&block) {
            commands.entity(old.entity).despawn();
        }
        let primitives = made.primitives;
        let entity = spawn_block(&mut commands, &mut meshes, material.clone(), root, made);
        view.blocks.insert(
            block,
            Block {
                detail: making.detail,
                signature: making.signature,
                entity,
                primitives,
            },
        );
    }

    // Blocks no longer wanted go.
    let wanted: HashMap<IVec2, (TileDetail, u64)> = view
        .wanted
        .iter()
        .map(|&(block, detail, signature)| (block, (detail, signature)))
        .collect();
    view.blocks.retain(|block, b| {
        let keep = wanted.contains_key(block);
        if !keep {
            commands.entity(b.entity).despawn();
        }
        keep
    });
    view.making
        .retain(|block, m| wanted.get(block) == Some(&(m.detail, m.signature)));

    // New or changed blocks, nearest first, a few at a time.
    if view.hold {
        return;
    }
    let Some(shared) = shown.shared(&state) else {
        return;
    };
    for &(block, detail, signature) in &view.wanted {
        if view.making.len() >= MAX_BLOCK_TASKS {
            break;
        }
        let current = view
            .blocks
            .get(&block)
            .is_some_and(|b| b.detail == detail && b.signature == signature);
        if current || view.making.contains_key(&block) {
            continue;
        }
        let nav: SharedNavMesh = shared.clone();
        let task = AsyncComputeTaskPool::get().spawn(async move {
            let (first, last) = TileGrid::block_cells(block);
            block_meshes(nav_mesh_cells(
                &nav,
                (first.x, first.y),
                (last.x, last.y),
                detail,
            ))
        });
        view.making.insert(
            block,
            Making {
                detail,
                signature,
                task,
            },
        );
    }
}

/// A block's entity under `root`, with its triangles and lines.
fn spawn_block(
    commands: &mut Commands,
    meshes: &mut Assets<Mesh>,
    material: Handle<WorldColorMaterial>,
    root: Entity,
    made: BlockMeshes,
) -> Entity {
    let entity = commands
        .spawn((Transform::default(), Visibility::Inherited, ChildOf(root)))
        .id();
    if let Some(triangles) = made.triangles {
        commands.spawn((
            Mesh3d(meshes.add(triangles)),
            MeshMaterial3d(material.clone()),
            ChildOf(entity),
        ));
    }
    if let Some(lines) = made.lines {
        commands.spawn((
            Mesh3d(meshes.add(lines)),
            MeshMaterial3d(material),
            ChildOf(entity),
        ));
    }
    entity
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(cells: i32) -> TileGrid {
        TileGrid {
            orig: Vec3::ZERO,
            tile_width: 10.0,
            tile_height: 10.0,
            first: IVec2::ZERO,
            last: IVec2::splat(cells - 1),
        }
    }

    #[test]
    fn near_blocks_are_full_far_ones_outlines_and_none_beyond_the_grid() {
        let grid = grid(BLOCK_CELLS * 40);
        let focus = Vec3::new(2000.0, 0.0, 2000.0);
        let blocks = blocks_in_view(&grid, focus, 100.0);
        assert!(blocks.len() <= MAX_BLOCKS);
        let full: Vec<_> = blocks
            .iter()
            .filter(|(_, d)| *d == TileDetail::Full)
            .collect();
        assert!(!full.is_empty() && full.len() <= MAX_FULL_BLOCKS);
        // The block under the focus is drawn in full, and first.
        assert_eq!(blocks[0], (IVec2::new(12, 12), TileDetail::Full));
        // At the grid's corner, nothing outside the grid is listed.
        let corner = blocks_in_view(&grid, Vec3::new(-500.0, 0.0, -500.0), 100.0);
        assert!(corner.iter().all(|(b, _)| b.x >= 0 && b.y >= 0));
        // Zoomed far out, still at most MAX_BLOCKS, most of them outlines.
        let high = blocks_in_view(&grid, focus, 50_000.0);
        assert_eq!(high.len(), MAX_BLOCKS);
        assert!(high.iter().filter(|(_, d)| *d == TileDetail::Full).count() <= MAX_FULL_BLOCKS);
    }

    #[test]
    fn meshes_already_there_are_unculled_for_a_moment_when_the_sample_count_changes() {
        let mut app = App::new();
        app.init_resource::<WorldView>()
            .add_systems(Update, (multisample_off_on_worlds, end_pipeline_warm_up));
        let camera = app
            .world_mut()
            .spawn((PanOrbitCamera::default(), Msaa::Sample4))
            .id();
        let scene = app.world_mut().spawn(Mesh3d::default()).id();
        let never_culled = app
            .world_mut()
            .spawn((Mesh3d::default(), NoFrustumCulling))
            .id();
        let unculled =
            |app: &App, mesh: Entity| app.world().entity(mesh).contains::<NoFrustumCulling>();
        app.update();
        assert!(!unculled(&app, scene));

        // The world view comes on: multisampling goes off, the scene is shown unculled.
        app.world_mut().resource_mut::<WorldView>().version = Some(1);
        app.update();
        assert_eq!(app.world().get::<Msaa>(camera), Some(&Msaa::Off));
        assert!(unculled(&app, scene));
        for _ in 0..WARM_UP_FRAMES {
            app.update();
        }
        assert!(!unculled(&app, scene));
        assert!(unculled(&app, never_culled), "a mesh never culled stays so");
    }

    #[test]
    fn cells_box_covers_its_cells_only() {
        let grid = grid(64);
        let (bmin, bmax) = grid.cells_box(IVec2::new(2, 3), IVec2::new(4, 5));
        assert!(bmin.x > 20.0 && bmin.x < 20.1 && bmax.x < 50.0 && bmax.x > 49.9);
        assert!(bmin.z > 30.0 && bmax.z < 60.0);
        assert_eq!(TileGrid::block_of(IVec2::new(-1, 16)), IVec2::new(-1, 1));
    }
}
