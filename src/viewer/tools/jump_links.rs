//! The Jump Links tool (beyond RecastDemo, which makes every link by hand): tune the builder's
//! settings, press Build links, and the jump and climb-down links found along the navmesh's
//! edges ([`navlab::bake::jump_links`]) join the geometry set's off-mesh links as one undoable
//! edit, so they are drawn, tested, walked by crowds and saved in the `.gset` like hand-made
//! ones. The overlay shows how the builder decided: the edges it sampled, each sample's
//! trajectory (green when it became a link, red when rejected) and the landings; hovering a
//! rejected sample names the reason.

use bevy::prelude::*;
use bevy_egui::egui;

use super::framework::{Tool, ToolAppExt, ToolContext, ToolOutput};
use crate::viewer::labels::Label;
use crate::viewer::picking::Hit;
use navlab::bake::BuildSettings;
use navlab::bake::jump_links::{JumpLinks, LinkKind, find_jump_links, obstacle_heightfield};
use navlab::debug_draw::{DebugDraw, LineBatch, PointBatch, Rgba, rgba};
use navlab::input::geomset::OffMeshConnection;

pub struct JumpLinkToolPlugin;

impl Plugin for JumpLinkToolPlugin {
    fn build(&self, app: &mut App) {
        app.register_tool(JumpLinkTool::default());
    }
}

const EDGE_COLOR: Rgba = rgba(0, 200, 255, 200);
const MADE_COLOR: Rgba = rgba(60, 220, 90, 255);
const REJECTED_COLOR: Rgba = rgba(230, 70, 60, 140);
/// How near the pointer must be to a sample (metres) for its verdict to be shown.
const HOVER_RADIUS: f32 = 0.6;

/// What the debug overlay shows.
#[derive(Clone, Copy, PartialEq)]
struct Layers {
    edges: bool,
    made: bool,
    rejected: bool,
    landings: bool,
}

impl Default for Layers {
    fn default() -> Self {
        Self {
            edges: true,
            made: true,
            rejected: true,
            landings: true,
        }
    }
}

#[derive(Default)]
pub struct JumpLinkTool {
    /// The builder's settings (the jump keys of the build settings), first taken from the build.
    tuning: Option<BuildSettings>,
    /// What the last Build links found.
    found: Option<JumpLinks>,
    /// The links the last Build links added, so the next one replaces them and Remove drops them.
    added: Vec<OffMeshConnection>,
    layers: Layers,
    /// The sample under the pointer, by index.
    hovered: Option<usize>,
}

impl JumpLinkTool {
    /// Finds links on the navmesh on screen with the tool's settings and swaps them for the
    /// ones the tool added last time.
    fn build_links(&mut self, ctx: &ToolContext, out: &mut ToolOutput) {
        let Some(nav_mesh) = ctx.nav_mesh else {
            out.log
                .push("Jump links need a navmesh: build first".into());
            return;
        };
        let settings = self.tuning(ctx).clone();
        let state = ctx.state;
        // The builder reads only where the solid spans are, which the filters leave as they are:
        // the build's filtered heightfield serves, read in place, when the build kept it.
        let rasterized;
        let heightfield = match state.stage_build() {
            Some(build) if build.holds_intermediates() => &*build.heightfield_filtered,
            _ => match obstacle_heightfield(&state.scene.input, &settings) {
                Ok(heightfield) => {
                    rasterized = heightfield;
                    &rasterized
                }
                Err(err) => {
                    out.log.push(format!("Jump links: {err}"));
                    return;
                }
            },
        };
        let found = find_jump_links(nav_mesh, heightfield, &settings);
        out.log.push(found.summary());
        let mut geom_set = state.scene.input.geom_set.clone();
        geom_set
            .off_mesh_connections
            .retain(|link| !self.added.contains(link));
        // Links already in the set (found again from the far side, or made by hand) stay once.
        found.append_to(&mut geom_set);
        self.added = found.links.clone();
        out.authored = Some(geom_set);
        out.overlay = Some(self.overlay_of(&found));
        self.found = Some(found);
        self.hovered = None;
    }

    /// Drops the links the tool added (those still in the set) as one undoable edit.
    fn remove_links(&mut self, ctx: &ToolContext, out: &mut ToolOutput) {
        let mut geom_set = ctx.state.scene.input.geom_set.clone();
        let before = geom_set.off_mesh_connections.len();
        geom_set
            .off_mesh_connections
            .retain(|link| !self.added.contains(link));
        if geom_set.off_mesh_connections.len() != before {
            out.authored = Some(geom_set);
        }
        self.added.clear();
        self.found = None;
        out.overlay = Some(DebugDraw::default());
        out.labels = Some(Vec::new());
    }

    fn tuning(&mut self, ctx: &ToolContext) -> &mut BuildSettings {
        let settings = self
            .tuning
            .get_or_insert_with(|| ctx.state.settings.clone());
        // The agent is the build's: links are for the agent the navmesh was built for.
        settings.agent_radius = ctx.state.settings.agent_radius;
        settings.agent_height = ctx.state.settings.agent_height;
        settings.agent_max_climb = ctx.state.settings.agent_max_climb;
        settings.cell_size = ctx.state.settings.cell_size;
        settings.cell_height = ctx.state.settings.cell_height;
        settings
    }

    fn overlay_of(&self, found: &JumpLinks) -> DebugDraw {
        let mut lines = LineBatch::new(2.0);
        let mut trajectories = LineBatch::new(1.0);
        let mut points = PointBatch::new(6.0);
        if self.layers.edges {
            for [a, b] in &found.edges {
                lines.segment(lifted(*a), lifted(*b), EDGE_COLOR);
            }
        }
        for sample in &found.samples {
            let made = sample.outcome.is_ok();
            let (shown, color) = if made {
                (self.layers.made, MADE_COLOR)
            } else {
                (self.layers.rejected, REJECTED_COLOR)
            };
            if !shown {
                continue;
            }
            for pair in sample.trajectory.windows(2) {
                trajectories.segment(pair[0], pair[1], color);
            }
            if sample.trajectory.is_empty() {
                points.point(lifted(sample.start), color);
            }
            if self.layers.landings
                && let Some(landing) = sample.landing
            {
                points.point(lifted(landing), color);
            }
        }
        DebugDraw {
            lines: vec![lines, trajectories],
            points: vec![points],
            ..Default::default()
        }
    }

    /// The sample nearest the pointer, if near enough.
    fn sample_near(&self, p: Vec3) -> Option<usize> {
        let found = self.found.as_ref()?;
        found
            .samples
            .iter()
            .enumerate()
            .map(|(i, s)| (i, p.distance(Vec3::from(s.start))))
            .filter(|&(_, d)| d < HOVER_RADIUS)
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(i, _)| i)
    }
}

fn lifted(p: [f32; 3]) -> [f32; 3] {
    [p[0], p[1] + 0.1, p[2]]
}

impl Tool for JumpLinkTool {
    fn name(&self) -> &'static str {
        "Jump Links"
    }

    fn ui(&mut self, ui: &mut egui::Ui, ctx: &ToolContext, out: &mut ToolOutput) {
        ui.spacing_mut().slider_width = 100.0;
        let s = self.tuning(ctx);
        let sliders: [(&mut f32, std::ops::RangeInclusive<f32>, &str); 8] = [
            (&mut s.jump_ground_tolerance, 0.0..=2.0, "Ground Tolerance"),
            (&mut s.jump_climb_down_min, 0.0..=10.0, "Climb Down Min"),
            (&mut s.jump_climb_down_max, 0.0..=10.0, "Climb Down Max"),
            (&mut s.jump_max_distance, 0.0..=10.0, "Jump Max Distance"),
            (&mut s.jump_max_up, 0.0..=5.0, "Jump Max Up"),
            (&mut s.jump_max_down, 0.0..=10.0, "Jump Max Down"),
            (&mut s.jump_sample_spacing, 0.1..=5.0, "Sample Spacing"),
            (&mut s.jump_link_width, 0.1..=10.0, "Link Width"),
        ];
        for (value, range, label) in sliders {
            ui.add(egui::Slider::new(value, range).step_by(0.1).text(label));
        }
        if s.jump_climb_down_min > s.jump_climb_down_max {
            s.jump_climb_down_max = s.jump_climb_down_min;
        }
        ui.horizontal(|ui| {
            if ui.button("Build links").clicked() {
                self.build_links(ctx, out);
            }
            if ui.button("Remove links").clicked() {
                self.remove_links(ctx, out);
            }
        });
        let before = self.layers;
        ui.checkbox(&mut self.layers.edges, "Show sampled edges");
        ui.checkbox(&mut self.layers.made, "Show links' trajectories");
        ui.checkbox(&mut self.layers.rejected, "Show rejected samples");
        ui.checkbox(&mut self.layers.landings, "Show landings");
        if self.layers != before
            && let Some(found) = &self.found
        {
            out.overlay = Some(self.overlay_of(found));
        }
        let Some(found) = &self.found else {
            ui.small("Build links samples the navmesh's edges for jumps and climb-downs.");
            return;
        };
        let count = |kind| found.kinds.iter().filter(|&&k| k == kind).count();
        ui.label(format!(
            "{} links: {} jumps, {} climb-downs",
            found.links.len(),
            count(LinkKind::Jump),
            count(LinkKind::ClimbDown)
        ));
        for (reason, rejected) in found.rejected() {
            ui.label(
                egui::RichText::new(format!("{rejected} rejected: {}", reason.name()))
                    .small()
                    .color(egui::Color32::from_rgb(230, 120, 100)),
            );
        }
        ui.small("Hover a sample for its verdict; Ctrl+Z undoes Build links.");
    }

    fn on_click(&mut self, _ctx: &ToolContext, _hit: Hit, _shift: bool, _out: &mut ToolOutput) {}

    fn update(&mut self, ctx: &ToolContext, _keys: &ButtonInput<KeyCode>, out: &mut ToolOutput) {
        let hovered = ctx.hover.and_then(|hit| self.sample_near(hit.point));
        if hovered == self.hovered {
            return;
        }
        self.hovered = hovered;
        let label = hovered.zip(self.found.as_ref()).map(|(i, found)| {
            let sample = &found.samples[i];
            let text = match (&sample.outcome, sample.kind) {
                (Ok(_), Some(kind)) => format!("{} link", kind.name()),
                (Ok(_), None) => "link".to_owned(),
                (Err(reason), _) => format!("rejected: {}", reason.name()),
            };
            Label {
                position: Vec3::from(sample.start) + Vec3::Y * 0.6,
                text,
                color: egui::Color32::from_rgb(255, 230, 120),
            }
        });
        out.labels = Some(label.into_iter().collect());
    }

    fn activated(&mut self, active: bool, _ctx: &ToolContext, out: &mut ToolOutput) {
        out.overlay = Some(match (&self.found, active) {
            (Some(found), true) => self.overlay_of(found),
            _ => DebugDraw::default(),
        });
        if !active {
            out.labels = Some(Vec::new());
            self.hovered = None;
        }
    }

    fn draw(&self, _ctx: &ToolContext, _gizmos: &mut Gizmos) {}

    fn session_state(&self) -> Option<serde_json::Value> {
        let found = self.found.as_ref()?;
        let rejected: serde_json::Map<String, serde_json::Value> = found
            .rejected()
            .into_iter()
            .map(|(reason, n)| (reason.name().to_owned(), n.into()))
            .collect();
        Some(serde_json::json!({
            "made": found.links.len(),
            "rejected": rejected,
            "samples": found.samples.len(),
        }))
    }
}
