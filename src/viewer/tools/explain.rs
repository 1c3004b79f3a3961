//! The Explain tool: click any point of the input mesh and read why it is, or is not, walkable:
//! the stage and the setting that removed it, the value measured and the value that would keep
//! it ([`navlab::bake::explain`]). The line follows the build: move the slider it names and it
//! says what the new build did with the same point.

use bevy::prelude::*;
use bevy_egui::egui;

use super::framework::{Tool, ToolAppExt, ToolContext, ToolOutput};
use crate::viewer::labels::Label;
use crate::viewer::picking::Hit;
use navlab::bake::explain::{Explanation, explain};
use navlab::bake::solo::Stage;

pub struct ExplainToolPlugin;

impl Plugin for ExplainToolPlugin {
    fn build(&self, app: &mut App) {
        app.register_tool(ExplainTool::default());
    }
}

/// The point clicked and what the build on screen says about it.
#[derive(Default)]
pub struct ExplainTool {
    point: Option<Vec3>,
    verdict: Option<Verdict>,
    /// The build (stage versions) the verdict was made for.
    explained_for: Option<[u64; Stage::ALL.len()]>,
}

/// The tool's read-out: the library's explanation, or why there is none here.
enum Verdict {
    Explained(Box<Explanation>),
    Unavailable(&'static str),
}

impl Verdict {
    fn sentence(&self) -> &str {
        match self {
            Verdict::Explained(explanation) => &explanation.sentence,
            Verdict::Unavailable(why) => why,
        }
    }
}

impl ExplainTool {
    /// Explains `point` with the stages on screen (the solo build, or in Tile Mesh the tile
    /// Create Tiles last built).
    fn explain_at(&mut self, ctx: &ToolContext, point: Vec3, out: &mut ToolOutput) {
        let state = ctx.state;
        self.explained_for = Some(state.stage_versions);
        let verdict = match state.stage_build() {
            Some(build) if build.holds_intermediates() => {
                Verdict::Explained(Box::new(explain(build, point.to_array())))
            }
            Some(_) => Verdict::Unavailable(
                "the build kept no intermediate stages (Keep Intermediate Results)",
            ),
            None if state.tiled.is_some() => Verdict::Unavailable(
                "Tile Mesh: build the point's tile with Create Tiles first, then click again",
            ),
            None => Verdict::Unavailable("no build on screen"),
        };
        out.labels = Some(vec![Label {
            position: point + Vec3::Y * 0.5,
            text: verdict.sentence().to_owned(),
            color: egui::Color32::from_rgb(255, 230, 120),
        }]);
        self.verdict = Some(verdict);
        self.point = Some(point);
    }
}

impl Tool for ExplainTool {
    fn name(&self) -> &'static str {
        "Explain"
    }

    fn ui(&mut self, ui: &mut egui::Ui, _ctx: &ToolContext, _out: &mut ToolOutput) {
        ui.label("Click the input mesh: why is this spot walkable, or not?");
        let Some(verdict) = &self.verdict else {
            return;
        };
        if let Some(p) = self.point {
            ui.label(format!("Point {:.2}, {:.2}, {:.2}", p.x, p.y, p.z));
        }
        ui.label(egui::RichText::new(verdict.sentence()).strong().size(15.0));
        if let Verdict::Explained(explanation) = verdict {
            if let Some(stage) = explanation.stage {
                ui.label(format!("Stage: {}", stage.name()));
            }
            if let Some(setting) = explanation.setting {
                ui.label(format!("Setting: {setting}"));
            }
            if let (Some(measured), Some(keep)) = (explanation.measured, explanation.keep_value) {
                ui.label(format!(
                    "Measured {measured:.2} {unit}; {keep:.2} {unit} would keep it",
                    unit = explanation.unit
                ));
            }
        }
    }

    fn on_click(&mut self, ctx: &ToolContext, hit: Hit, _shift: bool, out: &mut ToolOutput) {
        self.explain_at(ctx, hit.point, out);
    }

    fn update(&mut self, ctx: &ToolContext, _keys: &ButtonInput<KeyCode>, out: &mut ToolOutput) {
        if let Some(point) = self.point
            && self.explained_for != Some(ctx.state.stage_versions)
            && !ctx.state.is_busy()
        {
            self.explain_at(ctx, point, out);
        }
    }

    fn activated(&mut self, active: bool, _ctx: &ToolContext, out: &mut ToolOutput) {
        if !active {
            out.labels = Some(Vec::new());
        }
    }

    fn draw(&self, _ctx: &ToolContext, gizmos: &mut Gizmos) {
        if let Some(point) = self.point {
            let walkable = matches!(&self.verdict, Some(Verdict::Explained(e)) if e.walkable);
            let color = if walkable {
                Color::srgb(0.2, 0.9, 0.3)
            } else {
                Color::srgb(1.0, 0.3, 0.2)
            };
            gizmos.sphere(Isometry3d::from_translation(point), 0.2, color);
            gizmos.line(point, point + Vec3::Y * 0.5, color);
        }
    }

    fn session_state(&self) -> Option<serde_json::Value> {
        let verdict = self.verdict.as_ref()?;
        let explained = match verdict {
            Verdict::Explained(e) => Some(e),
            Verdict::Unavailable(_) => None,
        };
        Some(serde_json::json!({
            "sentence": verdict.sentence(),
            "stage": explained.and_then(|e| e.stage).map(Stage::name),
            "setting": explained.and_then(|e| e.setting),
            "measured": explained.and_then(|e| e.measured),
            "walkable": explained.map(|e| e.walkable),
        }))
    }
}
