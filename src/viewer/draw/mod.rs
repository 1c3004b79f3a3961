//! Draw modes and the retained drawings behind them. Each stage has its own plugin that owns its
//! modes; all of them share [`sync_layer`], which rebuilds a mode's meshes only when the stage
//! output it shows has changed, and otherwise just hides or shows them.

mod authored;
mod compact;
mod contours;
mod detail_mesh;
pub mod heat_maps;
mod input_mesh;
mod nav_mesh;
mod poly_mesh;
mod span_boxes;
mod tile_cache;
mod voxels;
pub mod world;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use bevy::asset::RenderAssetUsages;
use bevy::image::{ImageAddressMode, ImageSampler, ImageSamplerDescriptor};
use bevy::mesh::{Indices, PrimitiveTopology};
use bevy::prelude::*;
use bevy::render::render_resource::{Extent3d, Face, TextureDimension, TextureFormat};

use crate::viewer::build::BuildState;
use navlab::bake::solo::Stage;
use navlab::debug_draw::{self, DebugDraw, Rgba, TriangleBatch};

pub use authored::AuthoredDrawPlugin;
pub use compact::{CompactDrawPlugin, WatershedView};
pub use contours::ContourDrawPlugin;
pub use detail_mesh::DetailMeshDrawPlugin;
pub use heat_maps::HeatMapDrawPlugin;
pub use input_mesh::InputMeshDrawPlugin;
pub use nav_mesh::NavMeshDrawPlugin;
pub use poly_mesh::PolyMeshDrawPlugin;
pub use tile_cache::TileCacheDrawPlugin;
pub use voxels::VoxelDrawPlugin;
pub use world::WorldViewPlugin;

/// RecastDemo's draw modes for a solo mesh, in pipeline order.
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DrawMode {
    InputMesh,
    Voxels,
    WalkableVoxels,
    Compact,
    CompactDistance,
    CompactRegions,
    RegionConnections,
    RawContours,
    BothContours,
    Contours,
    PolyMesh,
    PolyMeshDetail,
    /// RecastDemo's mode after a build.
    #[default]
    Navmesh,
    NavmeshInvis,
    NavmeshTrans,
    NavmeshBVTree,
    /// The navmesh with the search nodes of the last Test Navmesh query.
    NavmeshNodes,
    NavmeshPortals,
    /// Temp Obstacles: every stored layer's bounds over the input mesh.
    CacheBounds,
    /// Heat maps ([`heat_maps`]): each reads one measure against the setting that decides it.
    HeatClearance,
    HeatWallDistance,
    HeatSlope,
    HeatStepHeight,
    HeatOverheadClearance,
    HeatRegionArea,
    HeatTileBuildTime,
    HeatTileBytes,
    HeatSearchNodes,
}

/// The draw-mode combo's text while a heat map is shown.
pub const HEAT_MAP_SHOWN: &str = "(a heat map)";
/// The heat-map combo's text while none is shown.
pub const NO_HEAT_MAP: &str = "(none)";

impl DrawMode {
    /// Every mode, in pipeline order (the order Prev/Next step through).
    pub const ALL: [DrawMode; 28] = [
        DrawMode::InputMesh,
        DrawMode::Voxels,
        DrawMode::WalkableVoxels,
        DrawMode::Compact,
        DrawMode::CompactDistance,
        DrawMode::CompactRegions,
        DrawMode::RegionConnections,
        DrawMode::RawContours,
        DrawMode::BothContours,
        DrawMode::Contours,
        DrawMode::PolyMesh,
        DrawMode::PolyMeshDetail,
        DrawMode::Navmesh,
        DrawMode::NavmeshInvis,
        DrawMode::NavmeshTrans,
        DrawMode::NavmeshBVTree,
        DrawMode::NavmeshNodes,
        DrawMode::NavmeshPortals,
        DrawMode::CacheBounds,
        DrawMode::HeatClearance,
        DrawMode::HeatWallDistance,
        DrawMode::HeatSlope,
        DrawMode::HeatStepHeight,
        DrawMode::HeatOverheadClearance,
        DrawMode::HeatRegionArea,
        DrawMode::HeatTileBuildTime,
        DrawMode::HeatTileBytes,
        DrawMode::HeatSearchNodes,
    ];

    /// RecastDemo's combo-box label.
    pub fn label(self) -> &'static str {
        match self {
            DrawMode::InputMesh => "Input Mesh",
            DrawMode::Voxels => "Voxels",
            DrawMode::WalkableVoxels => "Walkable Voxels",
            DrawMode::Compact => "Compact",
            DrawMode::CompactDistance => "Compact Distance",
            DrawMode::CompactRegions => "Compact Regions",
            DrawMode::RegionConnections => "Region Connections",
            DrawMode::RawContours => "Raw Contours",
            DrawMode::BothContours => "Both Contours",
            DrawMode::Contours => "Contours",
            DrawMode::PolyMesh => "Poly Mesh",
            DrawMode::PolyMeshDetail => "Poly Mesh Detail",
            DrawMode::Navmesh => "Navmesh",
            DrawMode::NavmeshInvis => "Navmesh Invis",
            DrawMode::NavmeshTrans => "Navmesh Trans",
            DrawMode::NavmeshBVTree => "Navmesh BVTree",
            DrawMode::NavmeshNodes => "Navmesh Nodes",
            DrawMode::NavmeshPortals => "Navmesh Portals",
            DrawMode::CacheBounds => "Cache Bounds",
            DrawMode::HeatClearance => "Heat: Clearance",
            DrawMode::HeatWallDistance => "Heat: Wall Distance",
            DrawMode::HeatSlope => "Heat: Slope",
            DrawMode::HeatStepHeight => "Heat: Step Height",
            DrawMode::HeatOverheadClearance => "Heat: Overhead Clearance",
            DrawMode::HeatRegionArea => "Heat: Region Area",
            DrawMode::HeatTileBuildTime => "Heat: Tile Build Time",
            DrawMode::HeatTileBytes => "Heat: Tile Bytes",
            DrawMode::HeatSearchNodes => "Heat: Search Nodes",
        }
    }

    /// The label in kebab case, for the command line and file names.
    pub fn slug(self) -> String {
        self.label()
            .to_ascii_lowercase()
            .replace(':', "")
            .replace(' ', "-")
    }

    /// Whether the mode is a heat map (drawn with a colour legend).
    pub fn is_heat_map(self) -> bool {
        self >= DrawMode::HeatClearance
    }

    /// What the two draw-mode combos show: RecastDemo's modes in one (its list stays the
    /// length RecastDemo's is, all in view), the heat maps in the other.
    pub fn combo_texts(self) -> (&'static str, &'static str) {
        if self.is_heat_map() {
            (HEAT_MAP_SHOWN, self.label())
        } else {
            (self.label(), NO_HEAT_MAP)
        }
    }

    /// The build stage whose output the mode shows (`None` for the input mesh).
    pub fn stage(self) -> Option<Stage> {
        Some(match self {
            DrawMode::InputMesh | DrawMode::HeatSlope => return None,
            DrawMode::Voxels => Stage::Rasterize,
            DrawMode::WalkableVoxels => Stage::Filter,
            DrawMode::Compact => Stage::Erode,
            DrawMode::CompactDistance => Stage::DistanceField,
            DrawMode::CompactRegions => Stage::Regions,
            DrawMode::RegionConnections
            | DrawMode::RawContours
            | DrawMode::BothContours
            | DrawMode::Contours => Stage::Contours,
            DrawMode::PolyMesh => Stage::PolyMesh,
            DrawMode::PolyMeshDetail => Stage::DetailMesh,
            DrawMode::Navmesh
            | DrawMode::NavmeshInvis
            | DrawMode::NavmeshTrans
            | DrawMode::NavmeshBVTree
            | DrawMode::NavmeshNodes
            | DrawMode::NavmeshPortals
            | DrawMode::CacheBounds => Stage::NavMesh,
            DrawMode::HeatOverheadClearance => Stage::Filter,
            DrawMode::HeatStepHeight => Stage::Erode,
            DrawMode::HeatClearance => Stage::DistanceField,
            DrawMode::HeatRegionArea => Stage::Regions,
            DrawMode::HeatWallDistance
            | DrawMode::HeatTileBuildTime
            | DrawMode::HeatTileBytes
            | DrawMode::HeatSearchNodes => Stage::NavMesh,
        })
    }

    /// Whether the mode shows the Detour navmesh (a loaded file's or the build's).
    pub fn shows_nav_mesh(self) -> bool {
        self.stage() == Some(Stage::NavMesh)
            && !matches!(self, DrawMode::CacheBounds | DrawMode::HeatWallDistance)
    }

    /// The neighbouring mode in pipeline order (`step` = -1 or +1), clamped at the ends.
    pub fn step(self, step: i32) -> DrawMode {
        let index = DrawMode::ALL.iter().position(|&m| m == self).unwrap_or(0) as i32;
        DrawMode::ALL[(index + step).clamp(0, DrawMode::ALL.len() as i32 - 1) as usize]
    }
}

impl std::str::FromStr for DrawMode {
    type Err = String;

    /// Accepts the label in any case with spaces, dashes or underscores ("Poly Mesh",
    /// "poly-mesh", "polymesh").
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse_label(s, &DrawMode::ALL, |m| m.label(), "draw mode")
    }
}

/// The item of `all` whose label matches `text` ignoring case, spaces, dashes and
/// underscores, or an error listing the labels in kebab case.
pub fn parse_label<T: Copy>(
    text: &str,
    all: &[T],
    label: impl Fn(T) -> &'static str,
    what: &str,
) -> Result<T, String> {
    let squash = |t: &str| {
        t.chars()
            .filter(|c| c.is_ascii_alphanumeric())
            .collect::<String>()
            .to_ascii_lowercase()
    };
    let wanted = squash(text);
    all.iter()
        .copied()
        .find(|&item| squash(label(item)) == wanted)
        .ok_or_else(|| {
            let names: Vec<String> = all
                .iter()
                .map(|&item| label(item).to_ascii_lowercase().replace(' ', "-"))
                .collect();
            format!(
                "unknown {what} `{text}` (expected one of {})",
                names.join(", ")
            )
        })
}

/// Time spent turning stage outputs into retained meshes, for the status line and the report.
#[derive(Resource, Default)]
pub struct DrawStats {
    /// The last rebuild: which layer, how long, and how many triangles and line segments.
    pub last_rebuild: Option<(&'static str, Duration, usize, usize)>,
}

/// Whether the debug drawings hide the faces turned away from the camera, as RecastDemo does
/// (`GL_CULL_FACE` with OpenGL's counter-clockwise front faces, which are Bevy's too): seen
/// from above, a dungeon's ceilings face away (down, into the rooms) and its navmesh shows
/// through them. On by default; the View menu turns it off.
#[derive(Resource, Clone, Copy, Debug, PartialEq, Eq)]
pub struct CullBackFaces(pub bool);

impl Default for CullBackFaces {
    fn default() -> Self {
        Self(true)
    }
}

/// Shared assets of the debug drawings.
#[derive(Resource)]
pub struct DrawAssets {
    opaque: Handle<StandardMaterial>,
    blended: Handle<StandardMaterial>,
    textured: Handle<StandardMaterial>,
}

/// The retained entity tree of one layer and the version of the data it was built from.
struct Retained {
    root: Entity,
    version: u64,
    visible: bool,
    /// The layer's line entities and their gizmos. Bevy draws a retained [`Gizmo`] whatever
    /// its visibility, so a hidden layer takes the component off its entities and puts it back
    /// when shown again.
    gizmos: Vec<(Entity, Gizmo)>,
}

/// Every retained layer, keyed by name.
#[derive(Resource, Default)]
pub struct RetainedLayers {
    layers: HashMap<&'static str, Retained>,
    /// The gizmos spawned for the layer being filled, handed to it when the fill ends.
    filling_gizmos: Vec<(Entity, Gizmo)>,
}

/// Marks the root entity of a retained layer.
#[derive(Component)]
pub struct DebugLayer(pub &'static str);

/// Adds the shared debug-draw assets and one plugin per stage.
pub struct DrawPlugin;

impl Plugin for DrawPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<DrawMode>()
            .init_resource::<RetainedLayers>()
            .init_resource::<DrawStats>()
            .init_resource::<CullBackFaces>()
            .add_systems(PreStartup, create_assets)
            .add_systems(
                Update,
                apply_face_culling.run_if(resource_changed::<CullBackFaces>),
            )
            .add_plugins((
                InputMeshDrawPlugin,
                VoxelDrawPlugin,
                CompactDrawPlugin,
                ContourDrawPlugin,
                PolyMeshDrawPlugin,
                DetailMeshDrawPlugin,
                NavMeshDrawPlugin,
                AuthoredDrawPlugin,
                TileCacheDrawPlugin,
                span_boxes::SpanBoxPlugin,
                HeatMapDrawPlugin,
                WorldViewPlugin,
            ));
    }
}

/// The system set the layer systems run in (after the build state is updated).
#[derive(SystemSet, Clone, Debug, PartialEq, Eq, Hash)]
pub struct DrawSystems;

fn create_assets(
    mut commands: Commands,
    mut materials: ResMut<Assets<StandardMaterial>>,
    mut images: ResMut<Assets<Image>>,
) {
    // Back faces are culled, Bevy's default, until `apply_face_culling` says otherwise.
    let base = StandardMaterial {
        base_color: Color::WHITE,
        unlit: true,
        ..default()
    };
    let opaque = materials.add(base.clone());
    let blended = materials.add(StandardMaterial {
        alpha_mode: AlphaMode::Blend,
        // Overlays sit on the surface they describe; pull them in front of it.
        depth_bias: 50.0,
        ..base.clone()
    });
    let textured = materials.add(StandardMaterial {
        base_color_texture: Some(images.add(checker_texture())),
        ..base
    });
    commands.insert_resource(DrawAssets {
        opaque,
        blended,
        textured,
    });
}

/// Culls the back faces of the debug materials, or shows both sides, as [`CullBackFaces`]
/// says; a material already set so is left untouched (a write would upload it again).
fn apply_face_culling(
    cull: Res<CullBackFaces>,
    assets: Res<DrawAssets>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    let cull_mode = cull.0.then_some(Face::Back);
    for handle in [&assets.opaque, &assets.blended, &assets.textured] {
        if materials
            .get(handle)
            .is_some_and(|m| m.cull_mode != cull_mode)
            && let Some(mut material) = materials.get_mut(handle)
        {
            material.cull_mode = cull_mode;
            material.double_sided = !cull.0;
        }
    }
}

/// RecastDemo's grid texture: white with a light grey line on two edges, repeated.
fn checker_texture() -> Image {
    const SIZE: u32 = 64;
    let mut data = Vec::with_capacity((SIZE * SIZE * 4) as usize);
    for y in 0..SIZE {
        for x in 0..SIZE {
            let v = if x == 0 || y == 0 { 215 } else { 255 };
            data.extend_from_slice(&[v, v, v, 255]);
        }
    }
    let mut image = Image::new(
        Extent3d {
            width: SIZE,
            height: SIZE,
            depth_or_array_layers: 1,
        },
        TextureDimension::D2,
        data,
        TextureFormat::Rgba8UnormSrgb,
        RenderAssetUsages::RENDER_WORLD,
    );
    image.sampler = ImageSampler::Descriptor(ImageSamplerDescriptor {
        address_mode_u: ImageAddressMode::Repeat,
        address_mode_v: ImageAddressMode::Repeat,
        ..ImageSamplerDescriptor::linear()
    });
    image
}

/// Everything [`sync_layer`] needs to create meshes and gizmos.
#[derive(bevy::ecs::system::SystemParam)]
pub struct LayerParams<'w, 's> {
    commands: Commands<'w, 's>,
    layers: ResMut<'w, RetainedLayers>,
    meshes: ResMut<'w, Assets<Mesh>>,
    gizmos: ResMut<'w, Assets<GizmoAsset>>,
    assets: Res<'w, DrawAssets>,
    stats: ResMut<'w, DrawStats>,
    /// Whether the GPU expands span faces (absent without the span plugin).
    span_support: Option<Res<'w, span_boxes::SpanBoxSupport>>,
}

/// Makes layer `name` visible with the data of `version` (building it with `make` if the
/// retained copy is older), or hides it when `version` is `None`. Cheap when nothing changed.
pub fn sync_layer(
    params: &mut LayerParams,
    name: &'static str,
    version: Option<u64>,
    make: impl FnOnce() -> DebugDraw,
) {
    retain_layer(params, name, version, |params, root, _| {
        let started = Instant::now();
        let drawing = make();
        let triangles = drawing.triangles.triangle_count();
        let segments = drawing.lines.iter().map(|l| l.segments.len()).sum();
        spawn_drawing(params, root, drawing);
        params.stats.last_rebuild = Some((name, started.elapsed(), triangles, segments));
    });
}

/// Shows, hides or replaces retained layer `name`: when the retained one is older or missing,
/// a new root entity is made and `fill` adds the layer's entities for `version` under it.
fn retain_layer(
    params: &mut LayerParams,
    name: &'static str,
    version: Option<u64>,
    fill: impl FnOnce(&mut LayerParams, Entity, u64),
) {
    let existing = params.layers.layers.get_mut(name);
    let Some(version) = version else {
        if let Some(retained) = existing.filter(|r| r.visible) {
            retained.visible = false;
            params
                .commands
                .entity(retained.root)
                .insert(Visibility::Hidden);
            for (entity, _) in &retained.gizmos {
                params.commands.entity(*entity).remove::<Gizmo>();
            }
        }
        return;
    };
    if let Some(retained) = existing {
        if retained.version == version {
            if !retained.visible {
                retained.visible = true;
                params
                    .commands
                    .entity(retained.root)
                    .insert(Visibility::Inherited);
                for (entity, gizmo) in &retained.gizmos {
                    params.commands.entity(*entity).insert(gizmo.clone());
                }
            }
            return;
        }
        let root = retained.root;
        params.commands.entity(root).despawn();
        params.layers.layers.remove(name);
    }
    let root = params
        .commands
        .spawn((
            DebugLayer(name),
            Transform::default(),
            Visibility::Inherited,
        ))
        .id();
    fill(params, root, version);
    let gizmos = std::mem::take(&mut params.layers.filling_gizmos);
    params.layers.layers.insert(
        name,
        Retained {
            root,
            version,
            visible: true,
            gizmos,
        },
    );
}

/// Like [`sync_layer`] for a layer of span faces, which the GPU expands (the voxel views) from
/// `source`, made only when the layer needs it.
pub fn sync_span_layer(
    params: &mut LayerParams,
    name: &'static str,
    version: Option<u64>,
    source: impl FnOnce() -> Option<span_boxes::SpanSource>,
) {
    let Some(support) = params.span_support.as_deref().cloned() else {
        return;
    };
    if !support.available() {
        // The device cannot expand faces: the same faces as triangles (a distinct version, so
        // a layer made before the device was checked is made again).
        let version = version.map(|v| v ^ (1 << 63));
        sync_layer(params, name, version, || {
            source().map(|s| s.triangles()).unwrap_or_default()
        });
        return;
    }
    retain_layer(params, name, version, |params, root, version| {
        let started = Instant::now();
        let Some(source) = source() else {
            return;
        };
        let triangles =
            match span_boxes::SpanBoxes::bundle(source.clone(), version, &mut params.meshes) {
                Some((bundle, faces)) => {
                    params
                        .commands
                        .spawn((bundle, Transform::default(), ChildOf(root)));
                    faces as usize * 2
                }
                None => {
                    warn!(
                        "navlab: {name}: the grid is too large for GPU faces; drawn as triangles"
                    );
                    let drawing = source.triangles();
                    let triangles = drawing.triangles.triangle_count();
                    spawn_drawing(params, root, drawing);
                    triangles
                }
            };
        params.stats.last_rebuild = Some((name, started.elapsed(), triangles, 0));
    });
}

/// The meshes and gizmos of `drawing`, under `root`.
fn spawn_drawing(params: &mut LayerParams, root: Entity, mut drawing: DebugDraw) {
    let tris = std::mem::take(&mut drawing.triangles);
    if !tris.indices.is_empty() {
        let material = if !tris.uvs.is_empty() {
            params.assets.textured.clone()
        } else if tris.is_opaque() {
            params.assets.opaque.clone()
        } else {
            params.assets.blended.clone()
        };
        let mesh = triangle_mesh(tris);
        let mesh = params.meshes.add(mesh);
        params
            .commands
            .spawn((Mesh3d(mesh), MeshMaterial3d(material), ChildOf(root)));
    }
    for (gizmo, width) in bevy_navlab::debug_draw::drawing_gizmos(&drawing) {
        spawn_gizmo(params, root, gizmo, width);
    }
}

/// A batch of triangles as a mesh: positions, linear vertex colours, texture coordinates when
/// it has them.
pub fn triangle_mesh(tris: TriangleBatch) -> Mesh {
    let colors: Vec<[f32; 4]> = tris.colors.iter().map(|&c| linear(c)).collect();
    let mut mesh = Mesh::new(
        PrimitiveTopology::TriangleList,
        RenderAssetUsages::RENDER_WORLD,
    )
    .with_inserted_attribute(Mesh::ATTRIBUTE_POSITION, tris.positions)
    .with_inserted_attribute(Mesh::ATTRIBUTE_COLOR, colors);
    if !tris.uvs.is_empty() {
        mesh.insert_attribute(Mesh::ATTRIBUTE_UV_0, tris.uvs);
    }
    mesh.insert_indices(Indices::U32(tris.indices));
    mesh
}

fn spawn_gizmo(params: &mut LayerParams, root: Entity, gizmo: GizmoAsset, width: f32) {
    let gizmo = Gizmo {
        handle: params.gizmos.add(gizmo),
        line_config: GizmoLineConfig { width, ..default() },
        depth_bias: -0.002,
    };
    let entity = params
        .commands
        .spawn((gizmo.clone(), Transform::default(), ChildOf(root)))
        .id();
    params.layers.filling_gizmos.push((entity, gizmo));
}

/// The version to show for a layer of `stage`'s output, or `None` to hide it (not the current
/// mode, or no build on screen).
pub fn stage_layer_version(state: &BuildState, shown: bool, stage: Stage) -> Option<u64> {
    (shown && state.stage_build().is_some()).then(|| state.stage_version(stage))
}

/// A packed colour as Bevy's sRGB colour.
pub fn srgba(c: Rgba) -> Color {
    bevy_navlab::debug_draw::debug_color(c)
}

/// A packed colour as linear RGBA floats (what mesh vertex colours hold).
pub fn linear(c: Rgba) -> [f32; 4] {
    let [r, g, b, a] = debug_draw::channels(c);
    let lut = srgb_to_linear_table();
    [
        lut[r as usize],
        lut[g as usize],
        lut[b as usize],
        a as f32 / 255.0,
    ]
}

fn srgb_to_linear_table() -> &'static [f32; 256] {
    static TABLE: std::sync::OnceLock<[f32; 256]> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| std::array::from_fn(|i| Color::srgb_u8(i as u8, 0, 0).to_linear().red))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draw_modes_parse_from_labels_and_slugs() {
        for mode in DrawMode::ALL {
            assert_eq!(mode.label().parse::<DrawMode>(), Ok(mode));
            assert_eq!(mode.slug().parse::<DrawMode>(), Ok(mode));
        }
        assert_eq!("polymeshdetail".parse(), Ok(DrawMode::PolyMeshDetail));
        assert_eq!("navmesh-bvtree".parse(), Ok(DrawMode::NavmeshBVTree));
        assert_eq!("navmesh-nodes".parse(), Ok(DrawMode::NavmeshNodes));
        assert!("navmesh-crowds".parse::<DrawMode>().is_err());
    }

    /// The build plugin plus the draw plugins over bare asset storage (no renderer).
    fn draw_app() -> App {
        let mut app = crate::viewer::build::tests::build_app();
        app.add_plugins(bevy::asset::AssetPlugin::default())
            .init_asset::<Mesh>()
            .init_asset::<StandardMaterial>()
            .init_asset::<Image>()
            .init_asset::<GizmoAsset>()
            .add_plugins((DrawPlugin, crate::viewer::navmesh::NavMeshPlugin));
        app
    }

    fn layer_root(app: &App, name: &str) -> Option<(Entity, bool)> {
        let layers = app.world().resource::<RetainedLayers>();
        layers.layers.get(name).map(|r| (r.root, r.visible))
    }

    /// The parts of the entities under a layer's root: span-face layers and triangle meshes.
    fn layer_parts(app: &mut App, name: &str) -> (usize, usize) {
        let (root, _) = layer_root(app, name).expect("the layer is built");
        let mut parts = app.world_mut().query::<(
            &ChildOf,
            Option<&span_boxes::SpanBoxes>,
            Option<&MeshMaterial3d<StandardMaterial>>,
        )>();
        let mut counts = (0, 0);
        for (parent, faces, material) in parts.iter(app.world()) {
            if parent.parent() == root {
                counts.0 += usize::from(faces.is_some());
                counts.1 += usize::from(material.is_some());
            }
        }
        counts
    }

    /// The voxel modes go to the GPU as span faces; on a device that cannot expand them the
    /// same faces are CPU triangles.
    #[test]
    fn voxel_layers_fall_back_to_triangles_without_gpu_faces() {
        for gpu in [true, false] {
            let mut app = draw_app();
            if !gpu {
                app.world()
                    .resource::<span_boxes::SpanBoxSupport>()
                    .disable();
            }
            crate::viewer::build::tests::settle(&mut app);
            for (mode, name) in [
                (DrawMode::Voxels, "Voxels"),
                (DrawMode::CompactRegions, "Compact Regions"),
                (DrawMode::CompactDistance, "Compact Distance"),
            ] {
                *app.world_mut().resource_mut::<DrawMode>() = mode;
                app.update();
                let expected = if gpu { (1, 0) } else { (0, 1) };
                assert_eq!(layer_parts(&mut app, name), expected, "{name}, GPU {gpu}");
            }
        }
    }

    /// Retained gizmos are drawn whatever their visibility: after a tour of every mode, only
    /// the shown mode's layers may hold line gizmos (Raw Contours' outlines stayed on screen).
    #[test]
    fn a_tour_of_the_modes_leaves_only_the_shown_layers_lines() {
        let mut app = draw_app();
        crate::viewer::build::tests::settle(&mut app);
        for mode in DrawMode::ALL.into_iter().chain([DrawMode::Compact]) {
            *app.world_mut().resource_mut::<DrawMode>() = mode;
            app.update();
            let visible_roots: Vec<Entity> = {
                let layers = app.world().resource::<RetainedLayers>();
                layers
                    .layers
                    .values()
                    .filter(|r| r.visible)
                    .map(|r| r.root)
                    .collect()
            };
            let mut lines = app.world_mut().query::<(&ChildOf, &Gizmo)>();
            for (parent, _) in lines.iter(app.world()) {
                let layer = app.world().get::<DebugLayer>(parent.parent()).map(|l| l.0);
                assert!(
                    visible_roots.contains(&parent.parent()),
                    "in {}, lines of the hidden layer {layer:?} are still drawn",
                    mode.label()
                );
            }
        }
        // Shown again, a retained layer gets its lines back without being rebuilt.
        *app.world_mut().resource_mut::<DrawMode>() = DrawMode::RawContours;
        app.update();
        let (root, visible) = layer_root(&app, "Raw Contours").unwrap();
        assert!(visible);
        let mut lines = app.world_mut().query::<(&ChildOf, &Gizmo)>();
        assert!(lines.iter(app.world()).any(|(p, _)| p.parent() == root));
    }

    #[test]
    fn layers_are_rebuilt_only_when_their_stage_changes() {
        let mut app = draw_app();
        crate::viewer::build::tests::settle(&mut app);
        *app.world_mut().resource_mut::<DrawMode>() = DrawMode::Voxels;
        app.update();
        let (voxels, visible) = layer_root(&app, "Voxels").expect("the voxel layer is built");
        assert!(visible);
        assert!(
            layer_root(&app, "Poly Mesh Detail").is_none(),
            "hidden modes stay idle"
        );

        // A detail-mesh change does not touch the voxels.
        app.world_mut()
            .write_message(crate::viewer::BuildRequest::Settings(
                navlab::bake::settings::BuildSettings {
                    detail_sample_dist: 2.0,
                    ..Default::default()
                },
            ));
        crate::viewer::build::tests::settle(&mut app);
        app.update();
        assert_eq!(layer_root(&app, "Voxels"), Some((voxels, true)));

        *app.world_mut().resource_mut::<DrawMode>() = DrawMode::PolyMeshDetail;
        app.update();
        assert_eq!(layer_root(&app, "Voxels"), Some((voxels, false)));
        assert!(layer_root(&app, "Poly Mesh Detail").is_some_and(|(_, visible)| visible));

        // Back to voxels: the retained copy is shown again, not rebuilt.
        *app.world_mut().resource_mut::<DrawMode>() = DrawMode::Voxels;
        app.update();
        assert_eq!(layer_root(&app, "Voxels"), Some((voxels, true)));

        // A cell-size change rebuilds it.
        app.world_mut()
            .write_message(crate::viewer::BuildRequest::Settings(
                navlab::bake::settings::BuildSettings {
                    cell_size: 0.5,
                    ..Default::default()
                },
            ));
        crate::viewer::build::tests::settle(&mut app);
        app.update();
        let (rebuilt, _) = layer_root(&app, "Voxels").unwrap();
        assert_ne!(rebuilt, voxels);
    }

    /// Navlab's own per-frame CPU cost once the layers are built, and the retained-mesh rebuild
    /// time, on undulating.obj (the largest voxel view among the reference meshes). A measurement,
    /// not a check: `cargo test --release --features viewer --lib frame_cost -- --ignored
    /// --nocapture`.
    #[test]
    #[ignore = "a measurement; run by hand"]
    fn frame_cost_on_undulating() {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/Meshes/undulating.obj");
        let mut app = draw_app();
        // Start from a mode that builds nothing big, so each mode below builds its own layer.
        *app.world_mut().resource_mut::<DrawMode>() = DrawMode::InputMesh;
        crate::viewer::build::tests::settle(&mut app);
        let scene = std::sync::Arc::new(crate::viewer::SceneData::load(path).unwrap());
        app.world_mut()
            .write_message(crate::viewer::BuildRequest::Scene(scene.clone()));
        crate::viewer::build::tests::settle(&mut app);
        let ray = Ray3d::new(Vec3::new(5050.0, 100.0, 5050.0), Dir3::NEG_Y);
        for mode in [
            DrawMode::Voxels,
            DrawMode::PolyMeshDetail,
            DrawMode::Navmesh,
        ] {
            *app.world_mut().resource_mut::<DrawMode>() = mode;
            app.update();
            let stats = app.world().resource::<DrawStats>();
            let (layer, rebuild, tris, lines) = stats.last_rebuild.unwrap();
            let frames = 200;
            let started = Instant::now();
            for _ in 0..frames {
                app.update();
                // What picking adds each frame with the mouse over the mesh.
                crate::viewer::picking::raycast_scene(&scene, ray, 200.0);
            }
            let per_frame = started.elapsed() / frames;
            println!(
                "{layer}: retained mesh built in {:.1} ms ({tris} tris, {lines} lines); \
                 {:.3} ms per frame after that",
                rebuild.as_secs_f64() * 1000.0,
                per_frame.as_secs_f64() * 1000.0
            );
        }
    }

    /// Culling back faces keeps the walkable surfaces in view from above: the navmesh, and the
    /// Recast polygons and detail triangles it is made of, are counter-clockwise seen from above.
    #[test]
    fn walkable_surfaces_face_up() {
        let mut app = crate::viewer::build::tests::build_app();
        crate::viewer::build::tests::settle(&mut app);
        let state = app.world().resource::<BuildState>();
        let build = state.build.as_deref().expect("a solo build");
        let mesh = build.nav_mesh.as_deref().expect("a navmesh");
        for (name, drawing) in [
            ("navmesh", debug_draw::detour::nav_mesh(mesh, default())),
            ("poly mesh", debug_draw::recast::poly_mesh(&build.poly_mesh)),
            (
                "detail mesh",
                debug_draw::recast::poly_mesh_detail(&build.detail_mesh),
            ),
        ] {
            let ups: Vec<f32> = drawing.triangles.front_faces().map(|(_, n)| n[1]).collect();
            assert!(ups.iter().any(|&y| y > 0.0), "{name}: nothing faces up");
            assert!(
                ups.iter().all(|&y| y >= 0.0),
                "{name}: a triangle faces down"
            );
        }
    }

    #[test]
    fn the_view_toggle_culls_back_faces_or_shows_both_sides() {
        let mut app = draw_app();
        app.update();
        let cull_modes = |app: &App| {
            let assets = app.world().resource::<DrawAssets>();
            let materials = app.world().resource::<Assets<StandardMaterial>>();
            [&assets.opaque, &assets.blended, &assets.textured]
                .map(|h| materials.get(h).map(|m| (m.cull_mode, m.double_sided)))
        };
        assert_eq!(cull_modes(&app), [Some((Some(Face::Back), false)); 3]);
        app.world_mut().resource_mut::<CullBackFaces>().0 = false;
        app.update();
        assert_eq!(cull_modes(&app), [Some((None, true)); 3]);
    }

    #[test]
    fn stepping_walks_the_pipeline_and_stops_at_the_ends() {
        assert_eq!(DrawMode::InputMesh.step(-1), DrawMode::InputMesh);
        assert_eq!(DrawMode::InputMesh.step(1), DrawMode::Voxels);
        assert_eq!(DrawMode::PolyMeshDetail.step(1), DrawMode::Navmesh);
        assert_eq!(DrawMode::NavmeshPortals.step(1), DrawMode::CacheBounds);
        // The heat maps come after RecastDemo's modes, and the last one is the end.
        assert_eq!(DrawMode::CacheBounds.step(1), DrawMode::HeatClearance);
        assert_eq!(DrawMode::HeatSearchNodes.step(1), DrawMode::HeatSearchNodes);
        let stages: Vec<_> = DrawMode::ALL
            .iter()
            .filter(|m| !m.is_heat_map())
            .filter_map(|m| m.stage())
            .collect();
        assert!(stages.windows(2).all(|w| w[0] <= w[1]));
    }
}
