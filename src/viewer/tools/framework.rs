//! The tools' framework: what a [`Tool`] sees ([`ToolContext`]) and hands back
//! ([`ToolOutput`]), the registry of tools ([`Tools`]) and the systems that dispatch clicks and
//! frames to the active one, draw it and apply what it asks (undo and redo included).

use bevy::prelude::*;
use bevy_egui::egui;

use crate::viewer::build::{
    BuildRequest, BuildState, ObstacleEdit, Sample, TileEdit, ViewerLog, tile_presence,
};
use crate::viewer::draw::{DrawSystems, LayerParams, sync_layer};
use crate::viewer::labels::{Label, WorldLabels};
use crate::viewer::navmesh::{SharedNavMesh, ShownNavMesh};
use crate::viewer::picking::{Hit, MeshClick, PointerHit};
use navlab::debug_draw::DebugDraw;
use navlab::detour::NavMesh;
use navlab::detour::query::{NavMeshQuery, NodePool, QueryFilter};
use navlab::input::GeomSet;

/// What a tool can see: the scene and build on screen, the navmesh shown, and what the mouse
/// is over.
pub struct ToolContext<'a> {
    pub state: &'a BuildState,
    /// The navmesh on screen (an edited copy, a loaded file's or the build's).
    pub nav_mesh: Option<&'a NavMesh>,
    /// Changes whenever `nav_mesh` may be another one, so tools know to recalculate.
    pub nav_mesh_version: u64,
    pub hover: Option<Hit>,
    shown: &'a ShownNavMesh,
}

impl ToolContext<'_> {
    /// The navmesh on screen, shared, for state that outlives the frame (a crowd walking on it).
    pub fn shared_nav_mesh(&self) -> Option<SharedNavMesh> {
        self.shown.shared(self.state)
    }

    /// Whether the navmesh on screen is a world, drawn in blocks around the camera and maybe
    /// streamed (queries may then cross kilometres).
    pub fn shows_world(&self) -> bool {
        self.nav_mesh
            .is_some_and(|mesh| crate::viewer::draw::world::shows_world(self.shown, mesh))
    }
}

/// What tools ask of the viewer besides their gizmos; applied once per frame.
#[derive(Resource, Default)]
pub struct ToolOutput {
    /// Replaces the tool overlay, a retained drawing (filled polygons, paths, nodes).
    pub overlay: Option<DebugDraw>,
    /// Shows this edited copy of the navmesh until the next build (Prune Navmesh).
    pub edited_nav_mesh: Option<NavMesh>,
    /// Lines for the Log panel.
    pub log: Vec<String>,
    /// Replaces the search nodes the Navmesh modes draw.
    pub query_nodes: Option<QueryNodes>,
    /// Replaces the tool's text labels in the 3D view.
    pub labels: Option<Vec<Label>>,
    /// Replaces the scene's authored content (convex volumes, off-mesh connections) with this
    /// geometry set's, as one undoable edit.
    pub authored: Option<GeomSet>,
    /// Edits the Tile Mesh grid, as one undoable edit.
    pub tile_edit: Option<TileEdit>,
    /// Replaces the drawing of tool state that stays on screen whichever tool is active (the
    /// crowd, as RecastDemo renders every tool state).
    pub state_overlay: Option<DebugDraw>,
    /// Replaces the labels of that state.
    pub state_labels: Option<Vec<Label>>,
    /// Obstacles added or removed in the Temp Obstacles sample, in order.
    pub obstacle_edits: Vec<ObstacleEdit>,
}

/// What an undo or redo restores.
#[derive(Clone, Debug)]
enum Edit {
    /// The convex volumes and off-mesh links of this geometry set.
    Authored(GeomSet),
    /// Which tiles of the grid were in the navmesh (row by row).
    Tiles(Vec<bool>),
}

/// Edits that Ctrl+Z undoes and Ctrl+Shift+Z redoes: the authored content or tile presence
/// before each.
#[derive(Resource, Default)]
pub struct EditHistory {
    undo: Vec<Edit>,
    redo: Vec<Edit>,
}

impl EditHistory {
    /// How many edits can be undone and redone.
    pub fn depth(&self) -> (usize, usize) {
        (self.undo.len(), self.redo.len())
    }
}

/// The search nodes of the last query a tool ran (the sample's `dtNavMeshQuery` in
/// RecastDemo): drawn by Navmesh Nodes, and its closed list tints the Navmesh mode.
#[derive(Resource, Clone, Default)]
pub struct QueryNodes {
    pub pool: Option<NodePool>,
    /// Bumped whenever `pool` is replaced.
    pub version: u64,
}

impl QueryNodes {
    /// The main node pool of `query`, copied.
    pub fn of(query: &NavMeshQuery) -> Self {
        Self {
            pool: Some(query.node_pool().clone()),
            version: 0,
        }
    }
}

/// An interactive tool, RecastDemo style.
pub trait Tool: Send + Sync + 'static {
    /// The name in the Tools panel.
    fn name(&self) -> &'static str;
    /// The tool's own controls and read-outs.
    fn ui(&mut self, ui: &mut egui::Ui, ctx: &ToolContext, out: &mut ToolOutput);
    /// A click on the mesh (`shift` for Shift+click or a right click without dragging).
    fn on_click(&mut self, ctx: &ToolContext, hit: Hit, shift: bool, out: &mut ToolOutput);
    /// Every frame while the tool is active: follow navmesh changes, step animations.
    fn update(&mut self, _ctx: &ToolContext, _keys: &ButtonInput<KeyCode>, _out: &mut ToolOutput) {}
    /// Every frame whichever tool is active, `dt` seconds after the last (RecastDemo's tool
    /// states): a running crowd keeps walking while another tool is used.
    fn update_state(&mut self, _ctx: &ToolContext, _dt: f32, _out: &mut ToolOutput) {}
    /// The tool became active (`true`) or another one did (`false`); a tool that draws an
    /// overlay sets it again, or clears it.
    fn activated(&mut self, _active: bool, _ctx: &ToolContext, _out: &mut ToolOutput) {}
    /// Draws the tool's markers for this frame.
    fn draw(&self, ctx: &ToolContext, gizmos: &mut Gizmos);
    /// What a scripted session's state reports of the tool (`toolState`), for tools whose
    /// effect is not in the build: a crowd's agents and updates.
    fn session_state(&self) -> Option<serde_json::Value> {
        None
    }
    /// The path the tool shows, as start, end and filter: what A/B compare runs on both
    /// navmeshes (the Test Navmesh tool's).
    fn path_end_points(&self) -> Option<([f32; 3], [f32; 3], QueryFilter)> {
        None
    }
    /// Seed points the tool placed (the Prune tool's): the agent profiles' reachability matrix
    /// uses them.
    fn seed_points(&self) -> Vec<[f32; 3]> {
        Vec::new()
    }
}

/// The registered tools and which one is active.
#[derive(Resource, Default)]
pub struct Tools {
    pub tools: Vec<Box<dyn Tool>>,
    pub active: usize,
    /// The tool that was active last frame, to tell tools when they are switched.
    seen_active: Option<usize>,
}

impl Tools {
    /// The tools the Tools panel lists for `sample`, as indices into `tools`: RecastDemo's
    /// for that sample in its order, then Navlab's own (those no RecastDemo sample has).
    pub fn listed(&self, sample: Sample) -> Vec<usize> {
        let in_recastdemo = |name: &str| {
            Sample::ALL
                .iter()
                .any(|&s| recastdemo_tools(s).contains(&name))
        };
        let index_of = |name: &&str| self.tools.iter().position(|t| t.name() == *name);
        let mut listed: Vec<usize> = recastdemo_tools(sample)
            .iter()
            .filter_map(index_of)
            .collect();
        listed.extend((0..self.tools.len()).filter(|&i| !in_recastdemo(self.tools[i].name())));
        listed
    }

    /// The path a tool shows (Test Navmesh's start, end and filter), for A/B compare and the
    /// profiles' reachability.
    pub fn path_end_points(&self) -> Option<([f32; 3], [f32; 3], QueryFilter)> {
        self.tools.iter().find_map(|tool| tool.path_end_points())
    }

    /// Keeps the active tool if `sample` lists it, else makes the first listed one active
    /// (after a switch of sample).
    fn keep_listed(&mut self, sample: Sample) {
        let listed = self.listed(sample);
        if !listed.contains(&self.active)
            && let Some(&first) = listed.first()
        {
            self.active = first;
        }
    }
}

/// The tools of a RecastDemo sample, in the order its `drawToolsUI` lists them.
fn recastdemo_tools(sample: Sample) -> &'static [&'static str] {
    match sample {
        Sample::SoloMesh => &[
            "Test Navmesh",
            "Prune Navmesh",
            "Create Off-Mesh Links",
            "Create Convex Volumes",
            "Create Crowds",
        ],
        Sample::TileMesh => &[
            "Test Navmesh",
            "Prune Navmesh",
            "Create Tiles",
            "Create Off-Mesh Links",
            "Create Convex Volumes",
            "Create Crowds",
        ],
        Sample::TempObstacles => &[
            "Test Navmesh",
            "Highlight Tile Cache",
            "Create Temp Obstacles",
            "Create Off-Mesh Links",
            "Create Convex Volumes",
            "Create Crowds",
        ],
    }
}

/// Registers tools from their plugins.
pub trait ToolAppExt {
    fn register_tool(&mut self, tool: impl Tool) -> &mut Self;
}

impl ToolAppExt for App {
    fn register_tool(&mut self, tool: impl Tool) -> &mut Self {
        self.world_mut()
            .get_resource_or_init::<Tools>()
            .tools
            .push(Box::new(tool));
        self
    }
}

/// The tool overlay on screen and its version.
#[derive(Resource, Default)]
struct ToolOverlay {
    version: u64,
    drawing: DebugDraw,
}

/// The drawing of tool state kept whichever tool is active, and its version.
#[derive(Resource, Default)]
struct StateOverlay {
    version: u64,
    drawing: DebugDraw,
}

/// Dispatches clicks and frames to the active tool, lets it draw, and applies what it asks.
pub(super) struct ToolFrameworkPlugin;

impl Plugin for ToolFrameworkPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<Tools>()
            .init_resource::<ToolOutput>()
            .init_resource::<ToolOverlay>()
            .init_resource::<StateOverlay>()
            .init_resource::<QueryNodes>()
            .init_resource::<EditHistory>()
            .init_resource::<WorldLabels>()
            .add_systems(
                Update,
                (
                    run_active_tool,
                    undo_redo,
                    draw_active_tool,
                    apply_tool_output,
                )
                    .chain()
                    .after(crate::viewer::picking::PickingSystems)
                    .before(DrawSystems),
            )
            .add_systems(
                Update,
                (sync_tool_overlay, sync_state_overlay).in_set(DrawSystems),
            );
    }
}

/// The context tools see this frame.
pub fn tool_context<'a>(
    state: &'a BuildState,
    shown: &'a ShownNavMesh,
    pointer: &PointerHit,
) -> ToolContext<'a> {
    ToolContext {
        state,
        nav_mesh: shown.get(state),
        nav_mesh_version: shown.version(state),
        hover: pointer.hit,
        shown,
    }
}

/// What tool systems read to make a [`ToolContext`].
#[derive(bevy::ecs::system::SystemParam)]
struct ToolView<'w> {
    state: Res<'w, BuildState>,
    shown: Res<'w, ShownNavMesh>,
    pointer: Res<'w, PointerHit>,
}

impl ToolView<'_> {
    fn context(&self) -> ToolContext<'_> {
        tool_context(&self.state, &self.shown, &self.pointer)
    }
}

fn run_active_tool(
    mut clicks: MessageReader<MeshClick>,
    view: ToolView,
    keys: Res<ButtonInput<KeyCode>>,
    time: Res<Time>,
    typing: Option<Res<crate::viewer::typing::TypingInUi>>,
    mut tools: ResMut<Tools>,
    mut out: ResMut<ToolOutput>,
) {
    let ctx = view.context();
    // Keys typed into a text field are not the tool's.
    let no_keys = ButtonInput::default();
    let keys = if typing.is_some_and(|t| t.0) {
        &no_keys
    } else {
        &*keys
    };
    let tools = &mut *tools;
    tools.keep_listed(ctx.state.sample);
    let active = tools.active;
    if tools.seen_active != Some(active) {
        if let Some(tool) = tools.seen_active.and_then(|i| tools.tools.get_mut(i)) {
            tool.activated(false, &ctx, &mut out);
        }
        if let Some(tool) = tools.tools.get_mut(active) {
            tool.activated(true, &ctx, &mut out);
        }
        tools.seen_active = Some(active);
    }
    for tool in &mut tools.tools {
        tool.update_state(&ctx, time.delta_secs(), &mut out);
    }
    let Some(tool) = tools.tools.get_mut(active) else {
        return;
    };
    for click in clicks.read() {
        tool.on_click(&ctx, click.hit, click.shift, &mut out);
    }
    tool.update(&ctx, keys, &mut out);
}

fn draw_active_tool(view: ToolView, tools: Res<Tools>, mut gizmos: Gizmos) {
    let ctx = view.context();
    if let Some(tool) = tools.tools.get(tools.active) {
        tool.draw(&ctx, &mut gizmos);
    }
}

/// Ctrl+Z / Ctrl+Shift+Z: the authored content before the last edit, or after the last undo.
fn undo_redo(
    keys: Res<ButtonInput<KeyCode>>,
    typing: Option<Res<crate::viewer::typing::TypingInUi>>,
    state: Res<BuildState>,
    mut history: ResMut<EditHistory>,
    mut requests: MessageWriter<BuildRequest>,
    mut log: ResMut<ViewerLog>,
) {
    if typing.is_some_and(|t| t.0) || !keys.just_pressed(KeyCode::KeyZ) {
        return;
    }
    let ctrl = keys.any_pressed([KeyCode::ControlLeft, KeyCode::ControlRight]);
    let shift = keys.any_pressed([KeyCode::ShiftLeft, KeyCode::ShiftRight]);
    if !ctrl {
        return;
    }
    let history = &mut *history;
    let (from, to, what) = if shift {
        (&mut history.redo, &mut history.undo, "Redo")
    } else {
        (&mut history.undo, &mut history.redo, "Undo")
    };
    match from.pop() {
        Some(Edit::Authored(geom_set)) => {
            to.push(Edit::Authored(state.scene.input.geom_set.clone()));
            requests.write(BuildRequest::Authored(geom_set));
            log.info(format!("{what}: volumes and links restored"));
        }
        Some(Edit::Tiles(presence)) => match state.tiled.as_deref() {
            Some(tiled) if tiled.tiles.len() == presence.len() => {
                to.push(Edit::Tiles(tile_presence(tiled)));
                requests.write(BuildRequest::Tiles(TileEdit::Restore(presence)));
                log.info(format!("{what}: tiles restored"));
            }
            _ => log.warning(format!(
                "{what}: that tile edit belongs to another tile grid; skipped"
            )),
        },
        None => {}
    }
}

/// Where authored edits go: the history, then the build.
#[derive(bevy::ecs::system::SystemParam)]
struct AuthoredEdits<'w> {
    state: Res<'w, BuildState>,
    history: ResMut<'w, EditHistory>,
    requests: MessageWriter<'w, BuildRequest>,
}

/// The retained drawings tools hand over.
#[derive(bevy::ecs::system::SystemParam)]
struct Overlays<'w> {
    tool: ResMut<'w, ToolOverlay>,
    state: ResMut<'w, StateOverlay>,
}

fn apply_tool_output(
    mut out: ResMut<ToolOutput>,
    mut overlays: Overlays,
    mut shown: ResMut<ShownNavMesh>,
    mut log: ResMut<ViewerLog>,
    mut nodes: ResMut<QueryNodes>,
    mut edits: AuthoredEdits,
    mut labels: ResMut<WorldLabels>,
) {
    if let Some(list) = out.labels.take() {
        labels.set("Tool", list);
    }
    if let Some(geom_set) = out.authored.take() {
        let before = edits.state.scene.input.geom_set.clone();
        edits.history.undo.push(Edit::Authored(before));
        edits.history.redo.clear();
        edits.requests.write(BuildRequest::Authored(geom_set));
    }
    if let Some(edit) = out.tile_edit.take() {
        if let Some(tiled) = edits.state.tiled.as_deref() {
            edits.history.undo.push(Edit::Tiles(tile_presence(tiled)));
            edits.history.redo.clear();
        }
        edits.requests.write(BuildRequest::Tiles(edit));
    }
    for edit in out.obstacle_edits.drain(..) {
        edits.requests.write(BuildRequest::Obstacle(edit));
    }
    if let Some(new_nodes) = out.query_nodes.take() {
        let version = nodes.version + 1;
        *nodes = QueryNodes {
            version,
            ..new_nodes
        };
    }
    if let Some(drawing) = out.overlay.take() {
        overlays.tool.drawing = drawing;
        overlays.tool.version += 1;
    }
    if let Some(drawing) = out.state_overlay.take() {
        overlays.state.drawing = drawing;
        overlays.state.version += 1;
    }
    if let Some(list) = out.state_labels.take() {
        labels.set("Tool state", list);
    }
    if let Some(mesh) = out.edited_nav_mesh.take() {
        shown.show_edited(mesh);
    }
    for line in out.log.drain(..) {
        log.info(line);
    }
}

fn sync_state_overlay(overlay: Res<StateOverlay>, mut params: LayerParams) {
    let version = (!overlay.drawing.is_empty()).then_some(overlay.version);
    sync_layer(&mut params, "Tool state", version, || {
        overlay.drawing.clone()
    });
}

fn sync_tool_overlay(overlay: Res<ToolOverlay>, mut params: LayerParams) {
    let version = (!overlay.drawing.is_empty()).then_some(overlay.version);
    sync_layer(&mut params, "Tool", version, || overlay.drawing.clone());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::viewer::tools::ToolsPlugin;

    fn names(tools: &Tools, sample: Sample) -> Vec<&'static str> {
        tools
            .listed(sample)
            .into_iter()
            .map(|i| tools.tools[i].name())
            .collect()
    }

    #[test]
    fn each_sample_lists_its_recastdemo_tools_then_navlabs_own() {
        let mut app = App::new();
        app.add_plugins(ToolsPlugin);
        let tools = app.world_mut().remove_resource::<Tools>().unwrap();
        for sample in Sample::ALL {
            let mut expected = recastdemo_tools(sample).to_vec();
            expected.extend(["Pick", "Explain", "Jump Links"]);
            assert_eq!(names(&tools, sample), expected, "{}", sample.label());
        }
    }

    #[test]
    fn switching_sample_keeps_the_active_tool_where_it_is_listed() {
        let mut app = App::new();
        app.add_plugins(ToolsPlugin);
        let mut tools = app.world_mut().remove_resource::<Tools>().unwrap();
        let index = |tools: &Tools, name| tools.tools.iter().position(|t| t.name() == name);
        tools.active = index(&tools, "Create Crowds").unwrap();
        tools.keep_listed(Sample::TempObstacles);
        assert_eq!(tools.tools[tools.active].name(), "Create Crowds");
        tools.active = index(&tools, "Prune Navmesh").unwrap();
        tools.keep_listed(Sample::TileMesh);
        assert_eq!(tools.tools[tools.active].name(), "Prune Navmesh");
        tools.keep_listed(Sample::TempObstacles);
        assert_eq!(tools.tools[tools.active].name(), "Test Navmesh");
        tools.active = index(&tools, "Create Tiles").unwrap();
        tools.keep_listed(Sample::SoloMesh);
        assert_eq!(tools.tools[tools.active].name(), "Test Navmesh");
    }
}
