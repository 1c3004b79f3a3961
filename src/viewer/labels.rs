//! Text placed in the 3D view ("Path 3" beside a test's start, an area cost on a polygon):
//! each owner keeps its own list, painted every frame through the main camera.

use std::collections::HashMap;

use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};

use crate::viewer::camera::MainCamera;

/// A line of text at a world position.
#[derive(Clone, Debug, PartialEq)]
pub struct Label {
    pub position: Vec3,
    pub text: String,
    pub color: egui::Color32,
}

/// The labels on screen, by owner.
#[derive(Resource, Default)]
pub struct WorldLabels {
    layers: HashMap<&'static str, Vec<Label>>,
}

impl WorldLabels {
    /// Replaces the labels of `owner` (an empty list removes them).
    pub fn set(&mut self, owner: &'static str, labels: Vec<Label>) {
        if labels.is_empty() {
            self.layers.remove(owner);
        } else {
            self.layers.insert(owner, labels);
        }
    }
}

pub struct LabelsPlugin;

impl Plugin for LabelsPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<WorldLabels>()
            .add_systems(EguiPrimaryContextPass, paint_labels);
    }
}

fn paint_labels(
    mut contexts: EguiContexts,
    labels: Res<WorldLabels>,
    cameras: Query<(&Camera, &GlobalTransform), With<MainCamera>>,
) -> Result {
    if labels.layers.is_empty() {
        return Ok(());
    }
    let Ok((camera, transform)) = cameras.single() else {
        return Ok(());
    };
    let ctx = contexts.ctx_mut()?;
    let painter = ctx.layer_painter(egui::LayerId::new(
        egui::Order::Background,
        egui::Id::new("world-labels"),
    ));
    for label in labels.layers.values().flatten() {
        if let Ok(p) = camera.world_to_viewport(transform, label.position) {
            painter.text(
                egui::pos2(p.x, p.y),
                egui::Align2::CENTER_BOTTOM,
                &label.text,
                egui::FontId::proportional(12.0),
                label.color,
            );
        }
    }
    Ok(())
}
