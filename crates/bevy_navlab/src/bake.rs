//! Baking the navmesh from the scene: every [`NavMeshSource`]'s mesh, placed by its
//! `GlobalTransform`, on the `AsyncComputeTaskPool`. The first bake builds the whole tile
//! cache; later changes re-bake only the tiles that a moved, new or removed source touches,
//! on a copy of the navmesh that is swapped in when it is done.

use std::collections::HashMap;

use bevy::mesh::{Indices, Mesh, Mesh3d, VertexAttributeValues};
use bevy::prelude::*;
use bevy::tasks::{AsyncComputeTaskPool, Task, futures::check_ready};
use navlab::detour::NavMesh;
use navlab::game::{NavMeshBuilder, TileCache};

use crate::obstacles::AppliedObstacles;
use crate::{NavMeshSettings, Navigation};

/// Marks an entity whose `Mesh3d` is part of the walkable level.
#[derive(Component, Clone, Copy, Debug, Default)]
pub struct NavMeshSource;

/// Sent when a new navmesh is in use.
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq)]
pub struct NavMeshUpdated {
    /// [`Navigation::revision`] with the new navmesh in.
    pub revision: u64,
    /// Tiles baked again, or `None` after a whole bake.
    pub tiles_rebaked: Option<usize>,
}

/// One source as last baked: its world-space triangles and their bounds.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct SourceGeometry {
    pub(crate) vertices: Vec<[f32; 3]>,
    pub(crate) indices: Vec<u32>,
    min: [f32; 3],
    max: [f32; 3],
}

/// What a bake task gives back.
struct BakeOutcome {
    result: navlab::Result<(TileCache, NavMesh)>,
    /// Tiles re-baked, or `None` for a whole bake.
    tiles_rebaked: Option<usize>,
    /// The obstacles carved into the copy a re-bake worked on.
    obstacles: AppliedObstacles,
}

/// The sources as baked, the bake under way, and what changed since.
#[derive(Resource, Default)]
pub(crate) struct BakeState {
    baked: HashMap<Entity, SourceGeometry>,
    task: Option<Task<BakeOutcome>>,
    /// The sources the running task bakes, which become `baked` when it lands.
    baking: HashMap<Entity, SourceGeometry>,
    /// The last bake's error, shown once.
    last_error: Option<String>,
    /// Whether a source may have changed since the sources were last gathered.
    dirty: bool,
}

pub(crate) fn build(app: &mut App) {
    app.init_resource::<BakeState>()
        .add_message::<NavMeshUpdated>()
        // After transform propagation, so that a source is baked where it is this frame.
        .add_systems(
            PostUpdate,
            (note_changes, finish_bake, start_bake)
                .chain()
                .after(bevy::transform::TransformSystems::Propagate),
        );
}

/// The world-space triangles of `mesh` placed by `transform`; none for a mesh without
/// positions or with a topology other than triangles.
pub(crate) fn world_geometry(mesh: &Mesh, transform: &GlobalTransform) -> Option<SourceGeometry> {
    if mesh.primitive_topology() != bevy::mesh::PrimitiveTopology::TriangleList {
        return None;
    }
    // A mesh whose data went to the render world only has nothing left to bake.
    let Ok(Some(VertexAttributeValues::Float32x3(positions))) =
        mesh.try_attribute_option(Mesh::ATTRIBUTE_POSITION)
    else {
        return None;
    };
    let affine = transform.affine();
    let vertices: Vec<[f32; 3]> = positions
        .iter()
        .map(|&p| affine.transform_point3(Vec3::from(p)).to_array())
        .collect();
    let indices: Vec<u32> = match mesh.try_indices_option().ok()? {
        Some(Indices::U16(i)) => i.iter().map(|&i| u32::from(i)).collect(),
        Some(Indices::U32(i)) => i.clone(),
        None => (0..vertices.len() as u32).collect(),
    };
    let mut min = [f32::MAX; 3];
    let mut max = [f32::MIN; 3];
    for v in &vertices {
        for k in 0..3 {
            min[k] = min[k].min(v[k]);
            max[k] = max[k].max(v[k]);
        }
    }
    Some(SourceGeometry {
        vertices,
        indices,
        min,
        max,
    })
}

/// Every source's geometry now.
fn current_sources(
    sources: &Query<(Entity, &Mesh3d, &GlobalTransform), With<NavMeshSource>>,
    meshes: &Assets<Mesh>,
) -> HashMap<Entity, SourceGeometry> {
    sources
        .iter()
        .filter_map(|(entity, mesh, transform)| {
            let geometry = world_geometry(meshes.get(&mesh.0)?, transform)?;
            Some((entity, geometry))
        })
        .collect()
}

fn builder_for(
    settings: &NavMeshSettings,
    sources: &HashMap<Entity, SourceGeometry>,
) -> NavMeshBuilder {
    // Sources in entity order, so the same scene always bakes the same navmesh.
    let mut entities: Vec<&Entity> = sources.keys().collect();
    entities.sort();
    entities.into_iter().fold(
        NavMeshBuilder::new(settings.build.clone()),
        |builder, entity| {
            let g = &sources[entity];
            builder.triangles(&g.vertices, &g.indices)
        },
    )
}

/// A source that appeared, moved or got another mesh this frame.
type ChangedSource = (
    With<NavMeshSource>,
    Or<(
        Added<NavMeshSource>,
        Changed<GlobalTransform>,
        Changed<Mesh3d>,
    )>,
);

/// Marks the sources dirty when one appeared, moved, changed its mesh or went, or a mesh
/// changed, so that the sources are gathered again only then.
fn note_changes(
    mut state: ResMut<BakeState>,
    changed: Query<(), ChangedSource>,
    mut removed: RemovedComponents<NavMeshSource>,
    mut mesh_events: MessageReader<AssetEvent<Mesh>>,
) {
    let meshes_changed = mesh_events.read().any(|e| {
        matches!(
            e,
            AssetEvent::Modified { .. }
                | AssetEvent::LoadedWithDependencies { .. }
                | AssetEvent::Added { .. }
        )
    });
    if !changed.is_empty() || removed.read().count() > 0 || meshes_changed {
        state.dirty = true;
    }
}

/// Starts a bake when the sources differ from the last one and none is running: the whole
/// level the first time (or when the level grew out of the grid), else the tiles around
/// what changed, on a copy of the current navmesh.
fn start_bake(
    mut state: ResMut<BakeState>,
    mut navigation: ResMut<Navigation>,
    settings: Res<NavMeshSettings>,
    sources: Query<(Entity, &Mesh3d, &GlobalTransform), With<NavMeshSource>>,
    meshes: Res<Assets<Mesh>>,
) {
    if navigation.resume_requested && state.task.is_none() {
        // The whole level again, whatever was baked before the navmesh was put in by hand.
        navigation.resume_requested = false;
        state.baked.clear();
        state.dirty = true;
    }
    if state.task.is_some() || !state.dirty || navigation.pinned {
        return;
    }
    state.dirty = false;
    let now = current_sources(&sources, &meshes);
    if now == state.baked || now.is_empty() {
        return;
    }
    let builder = builder_for(&settings, &now);
    let pool = AsyncComputeTaskPool::get();
    let tile_size = settings.tile_size;
    let incremental = match (&navigation.tile_cache, &navigation.nav_mesh) {
        (Some(cache), Some(nav)) if within(cache.bounds(), &now) => Some((
            cache.clone(),
            nav.clone(),
            navigation.obstacles.clone(),
            changed_region(&state.baked, &now),
        )),
        _ => None,
    };
    let task = match incremental {
        Some((mut cache, mut nav, obstacles, (min, max))) => pool.spawn(async move {
            let result = builder.rebake_tiles(&mut cache, &mut nav, min, max);
            let tiles = result.as_ref().map_or(0, Vec::len);
            BakeOutcome {
                result: result.map(|_| (cache, nav)),
                tiles_rebaked: Some(tiles),
                obstacles,
            }
        }),
        None => pool.spawn(async move {
            BakeOutcome {
                result: builder.build_tile_cache(tile_size),
                tiles_rebaked: None,
                obstacles: AppliedObstacles::default(),
            }
        }),
    };
    state.task = Some(task);
    state.baking = now;
}

/// Whether every source lies within the grid the tile cache was first baked over.
fn within(bounds: ([f32; 3], [f32; 3]), sources: &HashMap<Entity, SourceGeometry>) -> bool {
    sources
        .values()
        .all(|g| (0..3).all(|k| g.min[k] >= bounds.0[k] && g.max[k] <= bounds.1[k]))
}

/// The box around every source that appeared, went or changed: its old and new bounds.
fn changed_region(
    before: &HashMap<Entity, SourceGeometry>,
    after: &HashMap<Entity, SourceGeometry>,
) -> ([f32; 3], [f32; 3]) {
    let mut min = [f32::MAX; 3];
    let mut max = [f32::MIN; 3];
    let mut grow = |g: &SourceGeometry| {
        for k in 0..3 {
            min[k] = min[k].min(g.min[k]);
            max[k] = max[k].max(g.max[k]);
        }
    };
    for (entity, g) in before {
        if after.get(entity) != Some(g) {
            grow(g);
        }
    }
    for (entity, g) in after {
        if before.get(entity) != Some(g) {
            grow(g);
        }
    }
    (min, max)
}

/// Swaps in a finished bake; a failed one is logged once and the old navmesh stays.
fn finish_bake(
    mut state: ResMut<BakeState>,
    mut navigation: ResMut<Navigation>,
    mut updated: MessageWriter<NavMeshUpdated>,
) {
    let Some(task) = state.task.as_mut() else {
        return;
    };
    let Some(outcome) = check_ready(task) else {
        return;
    };
    state.task = None;
    let baking = std::mem::take(&mut state.baking);
    if navigation.pinned {
        // A navmesh put in by hand while this bake ran stays; the sources bake again once
        // baking resumes.
        state.dirty = true;
        return;
    }
    match outcome.result {
        Ok((cache, nav)) => {
            state.baked = baking;
            state.last_error = None;
            navigation.swap_baked(
                nav,
                cache,
                outcome.obstacles,
                outcome.tiles_rebaked.is_some(),
            );
            updated.write(NavMeshUpdated {
                revision: navigation.revision,
                tiles_rebaked: outcome.tiles_rebaked,
            });
        }
        Err(error) => {
            let message = error.to_string();
            if state.last_error.as_ref() != Some(&message) {
                error!("navlab: the navmesh bake failed: {message}");
            }
            // Counted as baked, so the same sources are not baked again and again.
            state.baked = baking;
            state.last_error = Some(message);
        }
    }
}

impl Navigation {
    /// Puts in a baked navmesh and its tile cache. After a re-bake of some tiles the crowd
    /// stays: the navmesh changed in place as far as the crowd can tell, and its next update
    /// checks every path, as C++'s crowd does after a tile cache update.
    fn swap_baked(
        &mut self,
        nav_mesh: NavMesh,
        tile_cache: TileCache,
        obstacles: AppliedObstacles,
        keep_crowd: bool,
    ) {
        if keep_crowd && self.crowd.is_some() {
            self.nav_mesh = Some(nav_mesh);
            self.tile_cache = Some(tile_cache);
            self.revision += 1;
        } else {
            self.swap(nav_mesh, Some(tile_cache));
        }
        // Obstacles changed since the copy was taken are carved again by the next sync.
        self.obstacles = obstacles;
    }
}
