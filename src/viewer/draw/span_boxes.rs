//! GPU-expanded span faces for the voxel views: each visible face of a heightfield span's box,
//! merged with its neighbours in the same plane and colour into a run of cells (a compact
//! view's floor quad is the top of a box of no height), is one instance of 16 bytes (cell,
//! bottom, top, face, colour, run) that `shaders/voxel_boxes.wgsl` turns into a quad of four
//! vertices, so no vertex is made per span on the CPU. The distance view's runs carry each
//! cell's grey level too (32 bytes), in a pipeline of their own (`GREY_RUNS`), so the other
//! views keep the smaller instances and varyings, which the software renderer's memory
//! follows. The faces are written once per stage output, on the render thread, straight into the GPU buffers: the layer keeps only the stage
//! output it reads until then, and nothing once uploaded. The grid's origin, cell size and
//! cell height ride on the layer's own four-vertex mesh.
//!
//! Adapted from Bevy's custom shader instancing example: one draw call per layer (per buffer
//! the device allows, for layers larger than its biggest buffer), in the transparent phase,
//! alpha-blended when the layer has translucent colours. A device whose limits cannot take the
//! instance layout is reported once in the log and the layers fall back to CPU-built triangles
//! ([`SpanBoxSupport`]).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use bevy::asset::RenderAssetUsages;
use bevy::camera::visibility::NoFrustumCulling;
use bevy::core_pipeline::core_3d::{Transparent3d, TransparentSortingInfo3d};
use bevy::ecs::query::QueryItem;
use bevy::ecs::system::{SystemParamItem, lifetimeless::*};
use bevy::mesh::{
    MeshVertexAttribute, MeshVertexBufferLayoutRef, PrimitiveTopology, VertexBufferLayout,
};
use bevy::pbr::{
    MeshPipeline, MeshPipelineKey, MeshPipelineSystems, RenderMeshInstances, SetMeshBindGroup,
    SetMeshViewBindGroup, SetMeshViewBindingArrayBindGroup, ViewKeyCache,
};
use bevy::prelude::*;
use bevy::render::extract_component::{ExtractComponent, ExtractComponentPlugin};
use bevy::render::mesh::RenderMesh;
use bevy::render::mesh::allocator::MeshAllocator;
use bevy::render::render_asset::RenderAssets;
use bevy::render::render_phase::{
    AddRenderCommand, DrawFunctions, PhaseItem, PhaseItemExtraIndex, RenderCommand,
    RenderCommandResult, SetItemPipeline, TrackedRenderPass, ViewSortedRenderPhases,
};
use bevy::render::render_resource::*;
use bevy::render::renderer::RenderDevice;
use bevy::render::sync_component::SyncComponent;
use bevy::render::sync_world::MainEntity;
use bevy::render::view::ExtractedView;
use bevy::render::{Render, RenderApp, RenderStartup, RenderSystems};

use navlab::debug_draw::DebugDraw;
use navlab::debug_draw::recast::{
    self as recast_draw, CompactColoring, SpanFace, SpanGrid, VoxelColoring,
};
use navlab::recast::compact::CompactHeightfield;
use navlab::recast::heightfield::Heightfield;
use navlab::recast::{NULL_AREA, WALKABLE_AREA};

/// Words of one face instance ([`SpanFace::packed`]): the face, and with grey levels the
/// levels too.
const FACE_WORDS: usize = 4;
const GREY_FACE_WORDS: usize = 8;

/// The words each face takes on the GPU, with or without grey levels.
fn face_words(grey_runs: bool) -> usize {
    if grey_runs {
        GREY_FACE_WORDS
    } else {
        FACE_WORDS
    }
}

/// The stage output a span layer draws, and how it is coloured.
#[derive(Clone)]
pub enum SpanSource {
    Heightfield(Arc<Heightfield>, VoxelColoring),
    Compact {
        field: Arc<CompactHeightfield>,
        coloring: CompactColoring,
        /// Region ids to show instead of the field's own (a watershed level).
        regions: Option<Arc<[u16]>>,
    },
}

impl SpanSource {
    pub fn grid(&self) -> SpanGrid {
        match self {
            SpanSource::Heightfield(hf, _) => SpanGrid::of_heightfield(hf),
            SpanSource::Compact { field, .. } => SpanGrid::of_compact(field),
        }
    }

    /// Hands every visible face to `emit`.
    pub fn faces(&self, emit: &mut dyn FnMut(SpanFace)) {
        match self {
            SpanSource::Heightfield(hf, coloring) => {
                recast_draw::heightfield_faces(hf, *coloring, emit)
            }
            SpanSource::Compact {
                field,
                coloring,
                regions,
            } => match regions {
                Some(regions) => {
                    recast_draw::compact_heightfield_faces(field, *coloring, |i| regions[i], emit)
                }
                None => recast_draw::compact_heightfield_faces(
                    field,
                    *coloring,
                    |i| field.spans[i].reg,
                    emit,
                ),
            },
        }
    }

    /// Whether the faces carry a grey level per cell (the distance view).
    fn grey_runs(&self) -> bool {
        matches!(
            self,
            SpanSource::Compact {
                coloring: CompactColoring::Distance,
                ..
            }
        )
    }

    /// Whether some face is translucent (RecastDemo's compact views draw walkable, null and
    /// region-less spans at alpha 64), so the layer is alpha-blended.
    fn blended(&self) -> bool {
        match self {
            SpanSource::Heightfield(..) => false,
            SpanSource::Compact {
                field,
                coloring,
                regions,
            } => match coloring {
                CompactColoring::Distance => false,
                CompactColoring::Area => field
                    .areas
                    .iter()
                    .any(|&a| a == WALKABLE_AREA || a == NULL_AREA),
                CompactColoring::Regions => match regions {
                    Some(regions) => regions.contains(&0),
                    None => field.spans.iter().any(|s| s.reg == 0),
                },
            },
        }
    }

    /// The faces as CPU triangles, for a device that cannot expand them.
    pub fn triangles(&self) -> DebugDraw {
        recast_draw::span_faces_triangles(&self.grid(), |emit| self.faces(emit))
    }
}

/// The grid origin and cell size, per vertex of a layer's mesh.
const ATTRIBUTE_SPAN_GRID: MeshVertexAttribute =
    MeshVertexAttribute::new("SpanGrid", 0x6e61_766c_6162_0001, VertexFormat::Float32x4);
/// The grid's cell height, per vertex of a layer's mesh.
const ATTRIBUTE_CELL_HEIGHT: MeshVertexAttribute = MeshVertexAttribute::new(
    "SpanCellHeight",
    0x6e61_766c_6162_0002,
    VertexFormat::Float32,
);

/// A span layer: the faces still to upload (taken by the render world, which frees the stage
/// output they come from once they are on the GPU), and the version they belong to.
#[derive(Component, Clone)]
pub struct SpanBoxes {
    pending: Arc<Mutex<Option<SpanSource>>>,
    /// How many faces the source gives.
    faces: u64,
    version: u64,
    /// Some colour is translucent: the layer is drawn alpha-blended.
    blended: bool,
    /// The faces carry grey levels ([`SpanSource::grey_runs`]).
    grey_runs: bool,
}

impl SpanBoxes {
    /// The entity parts that draw `source`'s faces for stage output `version`, and how many
    /// faces there are; `None` when the grid is too large for the packed faces.
    pub fn bundle(
        source: SpanSource,
        version: u64,
        meshes: &mut Assets<Mesh>,
    ) -> Option<(impl Bundle + use<>, u64)> {
        let grid = source.grid();
        if !grid.packable() {
            return None;
        }
        let [x, y, z] = grid.origin;
        let corners = vec![
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [1.0, 1.0, 0.0],
        ];
        let mesh = Mesh::new(
            PrimitiveTopology::TriangleStrip,
            RenderAssetUsages::RENDER_WORLD,
        )
        .with_inserted_attribute(Mesh::ATTRIBUTE_POSITION, corners)
        .with_inserted_attribute(ATTRIBUTE_SPAN_GRID, vec![[x, y, z, grid.cs]; 4])
        .with_inserted_attribute(ATTRIBUTE_CELL_HEIGHT, vec![grid.ch; 4]);
        let mut faces = 0;
        source.faces(&mut |_| faces += 1);
        let boxes = SpanBoxes {
            faces,
            blended: source.blended(),
            grey_runs: source.grey_runs(),
            pending: Arc::new(Mutex::new(Some(source))),
            version,
        };
        Some(((Mesh3d(meshes.add(mesh)), boxes, NoFrustumCulling), faces))
    }
}

impl SyncComponent for SpanBoxes {
    type Target = Self;
}

impl ExtractComponent for SpanBoxes {
    type QueryData = &'static SpanBoxes;
    type QueryFilter = ();
    type Out = Self;

    fn extract_component(item: QueryItem<'_, '_, Self::QueryData>) -> Option<Self> {
        Some(item.clone())
    }
}

/// The WGSL of the boxes, compiled into the binary.
#[derive(Resource, Clone)]
struct SpanBoxShader(Handle<Shader>);

/// Whether the render device can draw the instanced boxes; shared by the main and render
/// worlds (the render world learns it at start-up, the main world's layers read it).
#[derive(Resource, Clone)]
pub struct SpanBoxSupport(Arc<AtomicBool>);

impl Default for SpanBoxSupport {
    fn default() -> Self {
        Self(Arc::new(AtomicBool::new(true)))
    }
}

impl SpanBoxSupport {
    pub fn available(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// Turns the GPU path off (a device without what it needs).
    pub fn disable(&self) {
        self.0.store(false, Ordering::Relaxed);
    }
}

/// Vertex buffers and attributes the face pipeline binds: the layer mesh's corner, grid and
/// cell height, and the packed face (with grey levels, its second four words too).
const NEEDED_VERTEX_BUFFERS: u32 = 2;
const NEEDED_VERTEX_ATTRIBUTES: u32 = 5;

/// Checks the device once; one without the limits the instances need turns the GPU path off.
fn check_support(device: Res<RenderDevice>, support: Res<SpanBoxSupport>) {
    let limits = device.limits();
    if limits.max_vertex_buffers < NEEDED_VERTEX_BUFFERS
        || limits.max_vertex_attributes < NEEDED_VERTEX_ATTRIBUTES
    {
        warn!(
            "navlab: the GPU offers {} vertex buffers and {} attributes, the instanced voxel \
             faces need {NEEDED_VERTEX_BUFFERS} and {NEEDED_VERTEX_ATTRIBUTES}; voxel views \
             fall back to CPU-built boxes (slower on large maps)",
            limits.max_vertex_buffers, limits.max_vertex_attributes
        );
        support.disable();
    }
}

pub struct SpanBoxPlugin;

impl Plugin for SpanBoxPlugin {
    fn build(&self, app: &mut App) {
        let shader = app
            .world_mut()
            .get_resource_mut::<Assets<Shader>>()
            .map(|mut shaders| {
                shaders.add(Shader::from_wgsl(
                    include_str!("../../../shaders/voxel_boxes.wgsl"),
                    "shaders/voxel_boxes.wgsl",
                ))
            });
        let support = SpanBoxSupport::default();
        app.insert_resource(support.clone());
        // Without a renderer (tests over bare asset storage) the layers stay in the main world.
        let Some(shader) = shader.filter(|_| app.get_sub_app(RenderApp).is_some()) else {
            return;
        };
        app.add_plugins(ExtractComponentPlugin::<SpanBoxes>::default());
        let Some(render_app) = app.get_sub_app_mut(RenderApp) else {
            return;
        };
        render_app
            .insert_resource(SpanBoxShader(shader))
            .insert_resource(support)
            .add_systems(RenderStartup, check_support)
            .add_render_command::<Transparent3d, DrawSpanBoxes>()
            .init_resource::<SpecializedMeshPipelines<SpanBoxPipeline>>()
            .add_systems(RenderStartup, init_pipeline.after(MeshPipelineSystems))
            .add_systems(
                Render,
                (
                    queue_span_boxes.in_set(RenderSystems::QueueMeshes),
                    prepare_span_buffers.in_set(RenderSystems::PrepareResources),
                ),
            );
    }
}

#[derive(Resource)]
struct SpanBoxPipeline {
    shader: Handle<Shader>,
    mesh_pipeline: MeshPipeline,
}

fn init_pipeline(
    mut commands: Commands,
    shader: Res<SpanBoxShader>,
    mesh_pipeline: Res<MeshPipeline>,
) {
    commands.insert_resource(SpanBoxPipeline {
        shader: shader.0.clone(),
        mesh_pipeline: mesh_pipeline.clone(),
    });
}

/// The mesh pipeline's key, and whether the faces carry grey levels.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct SpanBoxKey {
    mesh: MeshPipelineKey,
    grey_runs: bool,
}

impl SpecializedMeshPipeline for SpanBoxPipeline {
    type Key = SpanBoxKey;

    fn specialize(
        &self,
        key: Self::Key,
        layout: &MeshVertexBufferLayoutRef,
    ) -> Result<RenderPipelineDescriptor, SpecializedMeshPipelineError> {
        let mut descriptor = self.mesh_pipeline.specialize(key.mesh, layout)?;
        descriptor.vertex.shader = self.shader.clone();
        let corners = layout.0.get_layout(&[
            Mesh::ATTRIBUTE_POSITION.at_shader_location(0),
            ATTRIBUTE_SPAN_GRID.at_shader_location(1),
            ATTRIBUTE_CELL_HEIGHT.at_shader_location(2),
        ])?;
        // The face's four words, then with grey levels four more.
        let attributes = (0..face_words(key.grey_runs) / FACE_WORDS)
            .map(|k| VertexAttribute {
                format: VertexFormat::Uint32x4,
                offset: (k * FACE_WORDS * size_of::<u32>()) as u64,
                shader_location: 3 + k as u32,
            })
            .collect();
        let faces = VertexBufferLayout {
            array_stride: (face_words(key.grey_runs) * size_of::<u32>()) as u64,
            step_mode: VertexStepMode::Instance,
            attributes,
        };
        descriptor.vertex.buffers = vec![corners, faces];
        if key.grey_runs {
            descriptor.vertex.shader_defs.push("GREY_RUNS".into());
        }
        if let Some(fragment) = descriptor.fragment.as_mut() {
            fragment.shader = self.shader.clone();
            if key.grey_runs {
                fragment.shader_defs.push("GREY_RUNS".into());
            }
        }
        Ok(descriptor)
    }
}

#[allow(clippy::too_many_arguments)]
fn queue_span_boxes(
    draw_functions: Res<DrawFunctions<Transparent3d>>,
    pipeline: Res<SpanBoxPipeline>,
    mut pipelines: ResMut<SpecializedMeshPipelines<SpanBoxPipeline>>,
    pipeline_cache: Res<PipelineCache>,
    meshes: Res<RenderAssets<RenderMesh>>,
    render_mesh_instances: Res<RenderMeshInstances>,
    layers: Query<(Entity, &MainEntity, &SpanBoxes)>,
    mut phases: ResMut<ViewSortedRenderPhases<Transparent3d>>,
    views: Query<&ExtractedView>,
    view_key_cache: Res<ViewKeyCache>,
) {
    let draw = draw_functions.read().id::<DrawSpanBoxes>();
    for view in &views {
        let Some(phase) = phases.get_mut(&view.retained_view_entity) else {
            continue;
        };
        let Some(&view_key) = view_key_cache.get(&view.retained_view_entity) else {
            continue;
        };
        for (entity, main_entity, boxes) in &layers {
            let Some(instance) = render_mesh_instances.render_mesh_queue_data(*main_entity) else {
                continue;
            };
            let Some(mesh) = meshes.get(instance.mesh_asset_id()) else {
                continue;
            };
            let mut key = view_key
                | MeshPipelineKey::from_primitive_topology_and_strip_index(
                    mesh.primitive_topology(),
                    mesh.index_format(),
                );
            if boxes.blended {
                key |= MeshPipelineKey::BLEND_ALPHA;
            }
            let key = SpanBoxKey {
                mesh: key,
                grey_runs: boxes.grey_runs,
            };
            let Ok(pipeline) = pipelines.specialize(&pipeline_cache, &pipeline, key, &mesh.layout)
            else {
                continue;
            };
            phase.add_retained(Transparent3d {
                sorting_info: TransparentSortingInfo3d::Sorted {
                    mesh_center: Vec3::ZERO,
                    depth_bias: 0.0,
                },
                entity: (entity, *main_entity),
                pipeline,
                draw_function: draw,
                distance: 0.0,
                batch_range: 0..1,
                extra_index: PhaseItemExtraIndex::None,
                indexed: false,
            });
        }
    }
}

/// A layer's faces on the GPU, in buffers of at most the device's buffer size, each with its
/// instance count, and the version they came from.
#[derive(Component)]
struct SpanBuffer {
    chunks: Vec<(Buffer, u32)>,
    version: u64,
}

/// Faces gathered before they are copied into a mapped buffer (1 or 2 MiB).
const FACES_PER_COPY: usize = 1 << 16;

/// Writes the pending faces of each new layer into GPU buffers mapped at creation, gathered in
/// small batches, so no whole copy of them is held.
fn prepare_span_buffers(
    mut commands: Commands,
    layers: Query<(Entity, &SpanBoxes, Option<&SpanBuffer>)>,
    device: Res<RenderDevice>,
) {
    for (entity, boxes, uploaded) in &layers {
        if uploaded.is_some_and(|u| u.version == boxes.version) {
            continue;
        }
        let Some(source) = boxes
            .pending
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
        else {
            continue;
        };
        let total = boxes.faces;
        let words = face_words(boxes.grey_runs);
        let face_bytes = (words * size_of::<u32>()) as u64;
        let per_buffer =
            (device.limits().max_buffer_size / face_bytes).clamp(1, u64::from(u32::MAX));
        let mut chunks: Vec<(Buffer, u32)> = Vec::new();
        // Faces of `words` words each, one after another.
        let mut batch: Vec<u32> = Vec::with_capacity(FACES_PER_COPY * words);
        // Faces of the current buffer already copied in.
        let mut filled = 0u64;
        let mut flush = |batch: &mut Vec<u32>, chunks: &mut Vec<(Buffer, u32)>| {
            let mut rest = &batch[..];
            while !rest.is_empty() {
                let room = match chunks.last() {
                    Some((_, count)) if filled < u64::from(*count) => u64::from(*count) - filled,
                    _ => {
                        let made: u64 = chunks.iter().map(|c| u64::from(c.1)).sum();
                        let count = total.saturating_sub(made).min(per_buffer);
                        if count == 0 {
                            // More faces than counted: cannot happen, the source is fixed.
                            break;
                        }
                        chunks.push((
                            device.create_buffer(&BufferDescriptor {
                                label: Some("span faces"),
                                size: count * face_bytes,
                                usage: BufferUsages::VERTEX,
                                mapped_at_creation: true,
                            }),
                            count as u32,
                        ));
                        filled = 0;
                        count
                    }
                };
                let faces_now = (room as usize).min(rest.len() / words);
                let (now, later) = rest.split_at(faces_now * words);
                let (buffer, _) = chunks.last().expect("a buffer was just made");
                let start = filled * face_bytes;
                let end = start + faces_now as u64 * face_bytes;
                buffer
                    .slice(start..end)
                    .get_mapped_range_mut()
                    .copy_from_slice(bytemuck::cast_slice(now));
                filled += faces_now as u64;
                rest = later;
            }
            batch.clear();
        };
        source.faces(&mut |face| {
            batch.extend_from_slice(&face.packed()[..words]);
            if batch.len() == FACES_PER_COPY * words {
                flush(&mut batch, &mut chunks);
            }
        });
        flush(&mut batch, &mut chunks);
        for (buffer, _) in &chunks {
            buffer.unmap();
        }
        commands.entity(entity).insert(SpanBuffer {
            chunks,
            version: boxes.version,
        });
    }
}

type DrawSpanBoxes = (
    SetItemPipeline,
    SetMeshViewBindGroup<0>,
    SetMeshViewBindingArrayBindGroup<1>,
    SetMeshBindGroup<2>,
    DrawInstancedBoxes,
);

struct DrawInstancedBoxes;

impl<P: PhaseItem> RenderCommand<P> for DrawInstancedBoxes {
    type Param = (SRes<RenderMeshInstances>, SRes<MeshAllocator>);
    type ViewQuery = ();
    type ItemQuery = Read<SpanBuffer>;

    fn render<'w>(
        item: &P,
        _view: (),
        spans: Option<&'w SpanBuffer>,
        (render_mesh_instances, mesh_allocator): SystemParamItem<'w, '_, Self::Param>,
        pass: &mut TrackedRenderPass<'w>,
    ) -> RenderCommandResult {
        let mesh_allocator = mesh_allocator.into_inner();
        let Some(instance) = render_mesh_instances.render_mesh_queue_data(item.main_entity())
        else {
            return RenderCommandResult::Skip;
        };
        let Some(spans) = spans else {
            return RenderCommandResult::Skip;
        };
        let Some(vertices) = mesh_allocator.mesh_vertex_slice(&instance.mesh_asset_id()) else {
            return RenderCommandResult::Skip;
        };
        pass.set_vertex_buffer(0, vertices.buffer.slice(..));
        for (buffer, count) in &spans.chunks {
            pass.set_vertex_buffer(1, buffer.slice(..));
            pass.draw(vertices.range.clone(), 0..*count);
        }
        RenderCommandResult::Success
    }
}
