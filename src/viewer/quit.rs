//! Leaving the viewer as an editor does: Esc closes the popup or window on top first, and
//! quitting (Esc, File → Quit, the window's close button) with unsaved authoring (convex
//! volumes, off-mesh links, Create Tiles edits) asks before anything is lost.

use bevy::prelude::*;
use bevy::window::WindowCloseRequested;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};

use crate::viewer::build::BuildState;
use crate::viewer::saving::SaveRequest;
use crate::viewer::test_cases::TestCases;
use crate::viewer::unsaved::{UnsavedWork, track_saved_state};

pub struct QuitPlugin;

impl Plugin for QuitPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<UnsavedWork>()
            .init_resource::<QuitDialog>()
            .add_message::<QuitRequest>()
            // Present with a window plugin; added here too for apps without one (tests).
            .add_message::<WindowCloseRequested>()
            .add_systems(
                Update,
                (
                    track_saved_state,
                    escape_closes_the_top_first,
                    window_close_asks,
                    answer_quit_requests,
                )
                    .chain(),
            )
            .add_systems(EguiPrimaryContextPass, quit_dialog);
    }
}

/// Asks the viewer to quit; it does at once unless there is unsaved authoring.
#[derive(Message, Clone, Copy, Debug, Default)]
pub struct QuitRequest;

/// The "Quit without saving?" question, open or not.
#[derive(Resource, Default)]
pub struct QuitDialog {
    pub open: bool,
}

/// Esc closes what is on top: an open popup (egui closes it itself), the quit question, the
/// Test Cases window; only then does it ask to quit.
fn escape_closes_the_top_first(
    keys: Res<ButtonInput<KeyCode>>,
    egui_input: Option<Res<bevy_egui::input::EguiWantsInput>>,
    typing: Option<Res<crate::viewer::typing::TypingInUi>>,
    mut dialog: ResMut<QuitDialog>,
    mut tests: ResMut<TestCases>,
    mut quit: MessageWriter<QuitRequest>,
) {
    if !keys.just_pressed(KeyCode::Escape) {
        return;
    }
    // A text field (Esc leaves it) or an open popup (Esc closes it) takes the key.
    let egui_has_it = typing.is_some_and(|t| t.0) || egui_input.is_some_and(|e| e.is_popup_open());
    if egui_has_it {
        return;
    }
    if dialog.open {
        dialog.open = false;
    } else if tests.open {
        tests.open = false;
    } else {
        quit.write(QuitRequest);
    }
}

/// The window's close button asks like File → Quit (the window plugin is told not to close
/// it by itself).
fn window_close_asks(
    mut closes: MessageReader<WindowCloseRequested>,
    mut quit: MessageWriter<QuitRequest>,
) {
    if closes.read().count() > 0 {
        quit.write(QuitRequest);
    }
}

fn answer_quit_requests(
    mut requests: MessageReader<QuitRequest>,
    state: Res<BuildState>,
    unsaved: Res<UnsavedWork>,
    mut dialog: ResMut<QuitDialog>,
    mut exit: MessageWriter<AppExit>,
) {
    if requests.read().count() == 0 {
        return;
    }
    if unsaved.kinds(&state).is_empty() {
        exit.write(AppExit::Success);
    } else {
        dialog.open = true;
    }
}

fn quit_dialog(
    mut contexts: EguiContexts,
    mut dialog: ResMut<QuitDialog>,
    state: Res<BuildState>,
    unsaved: Res<UnsavedWork>,
    mut save: MessageWriter<SaveRequest>,
    mut exit: MessageWriter<AppExit>,
) -> Result {
    if !dialog.open {
        return Ok(());
    }
    let ctx = contexts.ctx_mut()?.clone();
    let kinds = unsaved.kinds(&state);
    egui::Window::new("Quit without saving?")
        .collapsible(false)
        .resizable(false)
        .anchor(egui::Align2::CENTER_CENTER, egui::Vec2::ZERO)
        .show(&ctx, |ui| {
            ui.label(format!("Unsaved: {}.", kinds.join(", ")));
            ui.horizontal(|ui| {
                if ui.button("Save geometry set…").clicked() {
                    save.write(SaveRequest::GeomSetDialog);
                    dialog.open = false;
                }
                if ui.button("Quit without saving").clicked() {
                    exit.write(AppExit::Success);
                }
                if ui.button("Cancel").clicked() {
                    dialog.open = false;
                }
            });
        });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::viewer::build::BuildRequest;
    use crate::viewer::build::tests::{build_app, settle};
    use bevy::input::ButtonState;
    use bevy::input::keyboard::{Key, KeyboardInput};
    use navlab::input::geomset::ConvexVolume;

    fn quit_app() -> App {
        let mut app = build_app();
        app.add_plugins(bevy::input::InputPlugin)
            .init_resource::<TestCases>()
            .add_message::<SaveRequest>()
            .add_plugins(QuitPlugin);
        settle(&mut app);
        app
    }

    /// Esc pressed and released through Bevy's keyboard messages, as a window sends them.
    fn press_escape(app: &mut App) {
        for state in [ButtonState::Pressed, ButtonState::Released] {
            app.world_mut().write_message(KeyboardInput {
                key_code: KeyCode::Escape,
                logical_key: Key::Escape,
                state,
                text: None,
                repeat: false,
                window: Entity::PLACEHOLDER,
            });
            app.update();
        }
    }

    fn exited(app: &App) -> bool {
        !app.world().resource::<Messages<AppExit>>().is_empty()
    }

    #[test]
    fn esc_closes_the_test_cases_window_before_it_quits() {
        let mut app = quit_app();
        app.world_mut().resource_mut::<TestCases>().open = true;
        press_escape(&mut app);
        assert!(!app.world().resource::<TestCases>().open);
        assert!(!exited(&app));
        press_escape(&mut app);
        assert!(exited(&app));
    }

    #[test]
    fn quitting_with_an_unsaved_volume_asks_and_a_save_clears_it() {
        let mut app = quit_app();
        let mut set = app
            .world()
            .resource::<BuildState>()
            .scene
            .input
            .geom_set
            .clone();
        set.convex_volumes.push(ConvexVolume {
            verts: vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 0.0, 1.0]],
            hmin: -1.0,
            hmax: 1.0,
            area: 1,
        });
        app.world_mut().write_message(BuildRequest::Authored(set));
        settle(&mut app);
        app.world_mut().write_message(QuitRequest);
        app.update();
        assert!(app.world().resource::<QuitDialog>().open);
        assert!(!exited(&app));
        assert_eq!(
            app.world()
                .resource::<UnsavedWork>()
                .kinds(app.world().resource::<BuildState>()),
            ["convex volumes"]
        );

        // Esc closes the question and does not quit.
        press_escape(&mut app);
        assert!(!app.world().resource::<QuitDialog>().open);
        assert!(!exited(&app));

        // Saved: quitting goes through.
        app.world_mut()
            .resource_scope(|world, mut unsaved: Mut<UnsavedWork>| {
                unsaved.geom_set_saved(world.resource::<BuildState>())
            });
        app.world_mut().write_message(QuitRequest);
        app.update();
        assert!(exited(&app));
    }
}
