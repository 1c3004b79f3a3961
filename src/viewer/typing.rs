//! Whether the keyboard belongs to a text field of the panels, which the camera's fly keys and
//! the shortcuts must then leave alone.

use bevy::prelude::*;

/// Whether a text field of the panels (or a number being typed into a slider's box) has the
/// keyboard, as of the last egui pass: then the keys are the text's, not the fly keys. egui's
/// own `wants_keyboard_input` is true while any widget has the focus, and Tab (which also
/// shows and hides the panels) gives it to the first button until a click elsewhere: W/A/S/D
/// stopped until the 3D view was clicked.
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TypingInUi(pub bool);
