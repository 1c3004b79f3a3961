//! Tools: each is a plugin registering one [`Tool`], which gets a panel in the Tools window, the
//! clicks on the mesh while active, and a chance to draw. This module is the framework; each tool
//! has a file of its own ([`pick`]).

use bevy::prelude::*;
use bevy_egui::egui;

pub mod pick;

use pick::PickToolPlugin;

use crate::viewer::build::BuildState;
use crate::viewer::picking::{Hit, MeshClick, PointerHit};

/// What a tool can see: the scene and build on screen, and what the mouse is over.
pub struct ToolContext<'a> {
    pub state: &'a BuildState,
    pub hover: Option<Hit>,
}

/// An interactive tool, RecastDemo style.
pub trait Tool: Send + Sync + 'static {
    /// The name in the Tools panel.
    fn name(&self) -> &'static str;
    /// The tool's own controls and read-outs.
    fn ui(&mut self, ui: &mut egui::Ui, ctx: &ToolContext);
    /// A click on the mesh (`shift` for Shift+click or a right click without dragging).
    fn on_click(&mut self, ctx: &ToolContext, hit: Hit, shift: bool);
    /// Draws the tool's markers for this frame.
    fn draw(&self, ctx: &ToolContext, gizmos: &mut Gizmos);
}

/// The registered tools and which one is active.
#[derive(Resource, Default)]
pub struct Tools {
    pub tools: Vec<Box<dyn Tool>>,
    pub active: usize,
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

/// Dispatches clicks to the active tool and lets it draw.
pub struct ToolsPlugin;

impl Plugin for ToolsPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<Tools>()
            .add_plugins(PickToolPlugin)
            .add_systems(
                Update,
                (dispatch_clicks, draw_active_tool)
                    .chain()
                    .after(crate::viewer::picking::PickingSystems),
            );
    }
}

fn dispatch_clicks(
    mut clicks: MessageReader<MeshClick>,
    state: Res<BuildState>,
    pointer: Res<PointerHit>,
    mut tools: ResMut<Tools>,
) {
    let ctx = ToolContext {
        state: &state,
        hover: pointer.hit,
    };
    let active = tools.active;
    for click in clicks.read() {
        if let Some(tool) = tools.tools.get_mut(active) {
            tool.on_click(&ctx, click.hit, click.shift);
        }
    }
}

fn draw_active_tool(
    state: Res<BuildState>,
    pointer: Res<PointerHit>,
    tools: Res<Tools>,
    mut gizmos: Gizmos,
) {
    let ctx = ToolContext {
        state: &state,
        hover: pointer.hit,
    };
    if let Some(tool) = tools.tools.get(tools.active) {
        tool.draw(&ctx, &mut gizmos);
    }
}
