//! GPU-expanded span boxes for the voxel views: each heightfield span is one instance of a few
//! bytes (corner, cell size, top, two colours) that `shaders/voxel_boxes.wgsl` turns into a box
//! of a unit cube, so no vertex is made per span on the CPU and a stage output is uploaded once.
//! Adapted from Bevy's custom shader instancing example: one draw call per layer (per buffer
//! the device allows, for layers larger than its biggest buffer), in the transparent phase,
//! alpha-blended when the layer has translucent colours (the compact views' floor quads, boxes
//! of no height). A device whose limits cannot take the instance layout is reported once in
//! the log and the layers fall back to CPU-built triangles ([`SpanBoxSupport`]).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use bevy::camera::visibility::NoFrustumCulling;
use bevy::core_pipeline::core_3d::{Transparent3d, TransparentSortingInfo3d};
use bevy::ecs::query::QueryItem;
use bevy::ecs::system::{SystemParamItem, lifetimeless::*};
use bevy::mesh::{MeshVertexBufferLayoutRef, VertexBufferLayout};
use bevy::pbr::{
    MeshPipeline, MeshPipelineKey, MeshPipelineSystems, RenderMeshInstances, SetMeshBindGroup,
    SetMeshViewBindGroup, SetMeshViewBindingArrayBindGroup, ViewKeyCache,
};
use bevy::prelude::*;
use bevy::render::extract_component::{ExtractComponent, ExtractComponentPlugin};
use bevy::render::mesh::allocator::MeshAllocator;
use bevy::render::mesh::{RenderMesh, RenderMeshBufferInfo};
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
use bytemuck::{Pod, Zeroable};

use crate::debug_draw;
use crate::debug_draw::recast::SpanBox;

/// One span as the shader reads it (32 bytes).
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
#[repr(C)]
struct SpanInstance {
    corner: [f32; 3],
    size: f32,
    top: f32,
    /// Top and side colours, then the faces to draw.
    colors_and_faces: [u32; 3],
}

/// The spans of one retained layer; `version` changes with the stage output, so the GPU buffer
/// is made once per output.
#[derive(Component, Clone)]
pub struct SpanBoxes {
    boxes: Arc<Vec<SpanInstance>>,
    version: u64,
    /// Some colour is translucent: the layer is drawn alpha-blended.
    blended: bool,
}

impl SpanBoxes {
    pub fn new(spans: &[SpanBox], version: u64) -> Self {
        let blended = spans.iter().any(|s| !debug_draw::is_opaque(s.top_color));
        let boxes = spans
            .iter()
            .map(|s| SpanInstance {
                corner: s.corner,
                size: s.size,
                top: s.top,
                colors_and_faces: [s.top_color, s.side_color, u32::from(s.faces)],
            })
            .collect();
        Self {
            boxes: Arc::new(boxes),
            version,
            blended,
        }
    }

    pub fn len(&self) -> usize {
        self.boxes.len()
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
}

/// Vertex buffers and attributes the box pipeline binds: the cube's position, normal and uv,
/// and the instance's three.
const NEEDED_VERTEX_BUFFERS: u32 = 2;
const NEEDED_VERTEX_ATTRIBUTES: u32 = 6;

/// Checks the device once; one without the limits the instances need turns the GPU path off.
fn check_support(device: Res<RenderDevice>, support: Res<SpanBoxSupport>) {
    let limits = device.limits();
    if limits.max_vertex_buffers < NEEDED_VERTEX_BUFFERS
        || limits.max_vertex_attributes < NEEDED_VERTEX_ATTRIBUTES
    {
        warn!(
            "navlab: the GPU offers {} vertex buffers and {} attributes, the instanced voxel \
             boxes need {NEEDED_VERTEX_BUFFERS} and {NEEDED_VERTEX_ATTRIBUTES}; voxel views \
             fall back to CPU-built boxes (slower on large maps)",
            limits.max_vertex_buffers, limits.max_vertex_attributes
        );
        support.0.store(false, Ordering::Relaxed);
    }
}

/// A unit cube for the boxes, and the components a span layer's entity needs.
#[derive(Resource, Clone)]
pub struct SpanBoxMesh(Handle<Mesh>);

impl SpanBoxMesh {
    /// The entity parts that draw `boxes`.
    pub fn bundle(&self, boxes: SpanBoxes) -> impl Bundle {
        (Mesh3d(self.0.clone()), boxes, NoFrustumCulling)
    }
}

pub struct SpanBoxPlugin;

impl Plugin for SpanBoxPlugin {
    fn build(&self, app: &mut App) {
        let mesh = app
            .world_mut()
            .get_resource_mut::<Assets<Mesh>>()
            .map(|mut meshes| meshes.add(Cuboid::new(1.0, 1.0, 1.0)));
        if let Some(mesh) = mesh {
            app.insert_resource(SpanBoxMesh(mesh));
        }
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

impl SpecializedMeshPipeline for SpanBoxPipeline {
    type Key = MeshPipelineKey;

    fn specialize(
        &self,
        key: Self::Key,
        layout: &MeshVertexBufferLayoutRef,
    ) -> Result<RenderPipelineDescriptor, SpecializedMeshPipelineError> {
        let mut descriptor = self.mesh_pipeline.specialize(key, layout)?;
        descriptor.vertex.shader = self.shader.clone();
        descriptor.vertex.buffers.push(VertexBufferLayout {
            array_stride: size_of::<SpanInstance>() as u64,
            step_mode: VertexStepMode::Instance,
            attributes: vec![
                VertexAttribute {
                    format: VertexFormat::Float32x4,
                    offset: 0,
                    shader_location: 3,
                },
                VertexAttribute {
                    format: VertexFormat::Float32,
                    offset: 16,
                    shader_location: 4,
                },
                VertexAttribute {
                    format: VertexFormat::Uint32x3,
                    offset: 20,
                    shader_location: 5,
                },
            ],
        });
        if let Some(fragment) = descriptor.fragment.as_mut() {
            fragment.shader = self.shader.clone();
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
                indexed: true,
            });
        }
    }
}

/// A layer's spans on the GPU, in buffers of at most the device's buffer size, each with its
/// instance count, and the version they came from.
#[derive(Component)]
struct SpanBuffer {
    chunks: Vec<(Buffer, u32)>,
    version: u64,
}

fn prepare_span_buffers(
    mut commands: Commands,
    layers: Query<(Entity, &SpanBoxes, Option<&SpanBuffer>)>,
    device: Res<RenderDevice>,
) {
    let per_buffer = (device.limits().max_buffer_size / size_of::<SpanInstance>() as u64)
        .clamp(1, u64::from(u32::MAX)) as usize;
    for (entity, boxes, uploaded) in &layers {
        if uploaded.is_some_and(|u| u.version == boxes.version) || boxes.boxes.is_empty() {
            continue;
        }
        let chunks = boxes
            .boxes
            .chunks(per_buffer)
            .map(|chunk| {
                let buffer = device.create_buffer_with_data(&BufferInitDescriptor {
                    label: Some("span boxes"),
                    contents: bytemuck::cast_slice(chunk),
                    usage: BufferUsages::VERTEX,
                });
                (buffer, chunk.len() as u32)
            })
            .collect();
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
    type Param = (
        SRes<RenderAssets<RenderMesh>>,
        SRes<RenderMeshInstances>,
        SRes<MeshAllocator>,
    );
    type ViewQuery = ();
    type ItemQuery = Read<SpanBuffer>;

    fn render<'w>(
        item: &P,
        _view: (),
        spans: Option<&'w SpanBuffer>,
        (meshes, render_mesh_instances, mesh_allocator): SystemParamItem<'w, '_, Self::Param>,
        pass: &mut TrackedRenderPass<'w>,
    ) -> RenderCommandResult {
        let mesh_allocator = mesh_allocator.into_inner();
        let Some(instance) = render_mesh_instances.render_mesh_queue_data(item.main_entity())
        else {
            return RenderCommandResult::Skip;
        };
        let Some(gpu_mesh) = meshes.into_inner().get(instance.mesh_asset_id()) else {
            return RenderCommandResult::Skip;
        };
        let Some(spans) = spans else {
            return RenderCommandResult::Skip;
        };
        let Some(vertices) = mesh_allocator.mesh_vertex_slice(&instance.mesh_asset_id()) else {
            return RenderCommandResult::Skip;
        };
        pass.set_vertex_buffer(0, vertices.buffer.slice(..));
        let indices = match &gpu_mesh.buffer_info {
            RenderMeshBufferInfo::Indexed {
                index_format,
                count,
            } => {
                let Some(indices) = mesh_allocator.mesh_index_slice(&instance.mesh_asset_id())
                else {
                    return RenderCommandResult::Skip;
                };
                pass.set_index_buffer(indices.buffer.slice(..), *index_format);
                Some(indices.range.start..(indices.range.start + count))
            }
            RenderMeshBufferInfo::NonIndexed => None,
        };
        for (buffer, count) in &spans.chunks {
            pass.set_vertex_buffer(1, buffer.slice(..));
            match &indices {
                Some(range) => {
                    pass.draw_indexed(range.clone(), vertices.range.start as i32, 0..*count)
                }
                None => pass.draw(vertices.range.clone(), 0..*count),
            }
        }
        RenderCommandResult::Success
    }
}
