//! Scripted sessions: `navlab view --session FILE --state-json OUT` plays a
//! [`crate::session_script`] file through the same input path a person's mouse and keyboard
//! take. Every action becomes window messages as winit writes them (pointer moves, button
//! presses, keys, wheel), which Bevy's input state, the orbit camera, picking and bevy_egui
//! read; nothing sets a value directly.
//!
//! Widgets are found by their label in egui's AccessKit tree (the labels, roles, values and
//! rectangles egui gives screen readers), so any labelled widget can be clicked and any slider
//! dragged without the UI code knowing about sessions. A widget scrolled out of view is
//! scrolled to with the wheel first.
//!
//! With `--headless` the app has a window entity but no OS window: the camera renders into an
//! image, and the messages go to that window entity as they would to a real one.
//! `--record FILE` writes the person's own input as a session, for bug reports.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bevy::input::ButtonState;
use bevy::input::keyboard::{Key, KeyboardInput};
use bevy::input::mouse::{MouseButtonInput, MouseMotion, MouseScrollUnit, MouseWheel};
use bevy::input::touch::TouchPhase;
use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured};
use bevy::window::{PrimaryWindow, WindowEvent};
use bevy_egui::input::WindowToEguiContextMap;
use bevy_egui::{
    EguiContext, EguiFullOutput, EguiPostUpdateSet, EguiPreUpdateSet, PrimaryEguiContext, egui,
};
use serde_json::json;

use crate::session_script::{Action, Button, ScriptLine, action_line};
use crate::viewer::build::{BuildState, LogLevel, ViewerLog};
use bevy_panorbit_camera::PanOrbitCamera;

use crate::viewer::camera::MainCamera;
use crate::viewer::draw::DrawMode;
use crate::viewer::screenshot::OffscreenTarget;
use crate::viewer::test_cases::TestCases;
use crate::viewer::tools::Tools;

/// How long an action may wait for its widget to show up, in frames.
const FIND_FRAMES: u32 = 240;
/// How long `wait_build` waits.
const BUILD_TIMEOUT: Duration = Duration::from_secs(600);
/// Wheel lines per step when scrolling a widget into view.
const SCROLL_LINES: f32 = 3.0;

pub struct SessionPlugin {
    /// The actions to play (empty: only record or dump the state at quit).
    pub script: Vec<ScriptLine>,
    /// Where the state goes at the end or when the app would quit.
    pub state_json: Option<PathBuf>,
    /// Where a person's input is written as a session when the app quits.
    pub record: Option<PathBuf>,
    /// Receives the reason when the session failed.
    pub error: Arc<Mutex<Option<String>>>,
}

impl Plugin for SessionPlugin {
    fn build(&self, app: &mut App) {
        app.insert_resource(SessionDriver {
            lines: self.script.iter().cloned().collect(),
            step: None,
            line: 0,
            playing: !self.script.is_empty(),
            pointer: Vec2::ZERO,
            error: self.error.clone(),
            finished: false,
            last_target: None,
        })
        .insert_resource(SessionOutput {
            state_json: self.state_json.clone(),
            record: self.record.clone(),
            recorded: Vec::new(),
            idle_frames: 0,
            written: false,
        })
        .init_resource::<WidgetIndex>()
        .init_resource::<FrameTimes>()
        .add_systems(
            PreUpdate,
            map_offscreen_window
                .after(EguiPreUpdateSet::InitContexts)
                .before(EguiPreUpdateSet::ProcessInput),
        )
        .add_systems(
            First,
            (time_frames, drive.run_if(|d: Res<SessionDriver>| d.playing)).chain(),
        )
        .add_systems(
            PostUpdate,
            // Only a playing script looks widgets up; egui's tree costs a frame to build.
            (enable_accesskit, index_widgets)
                .chain()
                .run_if(|d: Res<SessionDriver>| d.playing)
                .after(EguiPostUpdateSet::EndPass)
                .before(EguiPostUpdateSet::ProcessOutput),
        )
        .add_systems(Last, (record_input, finish_on_exit).chain());
    }
}

/// One labelled widget of the last egui pass, from its AccessKit node.
#[derive(Clone, Debug)]
pub struct WidgetNode {
    pub role: egui::accesskit::Role,
    /// The label (buttons, sliders, checkboxes) or, for a combo box, the selected text.
    pub label: String,
    pub rect: egui::Rect,
    pub value: Option<f64>,
    pub range: Option<(f64, f64)>,
    pub enabled: bool,
}

/// The labelled widgets of the last egui pass, in the order egui made them (later ones are
/// on top: popups and windows come after the panels).
#[derive(Resource, Default)]
pub struct WidgetIndex {
    pub nodes: Vec<WidgetNode>,
}

impl WidgetIndex {
    /// The top-most enabled widget labelled `label` that `accept` takes: an exact match first,
    /// then one ignoring case and a trailing ellipsis ("Open" finds "Open…").
    pub fn find(&self, label: &str, accept: impl Fn(&WidgetNode) -> bool) -> Option<&WidgetNode> {
        let loose = |text: &str| {
            text.trim_end_matches('…')
                .trim_end_matches("...")
                .trim()
                .to_lowercase()
        };
        let wanted = loose(label);
        let candidates = || self.nodes.iter().rev().filter(|n| n.enabled && accept(n));
        candidates()
            .find(|n| n.label == label)
            .or_else(|| candidates().find(|n| loose(&n.label) == wanted))
    }

    /// A few labels on screen, for the error when a label is not found.
    fn some_labels(&self) -> String {
        let mut labels: Vec<&str> = self
            .nodes
            .iter()
            .filter(|n| n.enabled && is_clickable(n.role) && !n.label.is_empty())
            .map(|n| n.label.as_str())
            .collect();
        labels.dedup();
        labels.truncate(40);
        labels.join(", ")
    }
}

fn is_clickable(role: egui::accesskit::Role) -> bool {
    use egui::accesskit::Role;
    matches!(
        role,
        Role::Button
            | Role::CheckBox
            | Role::RadioButton
            | Role::ComboBox
            | Role::Link
            | Role::Slider
            | Role::SpinButton
            | Role::TextInput
    )
}

fn enable_accesskit(mut contexts: Query<&mut EguiContext, Added<PrimaryEguiContext>>) {
    for mut context in &mut contexts {
        context.get_mut().enable_accesskit();
    }
}

/// Reads the AccessKit tree egui made this pass (taken out of the output, which bevy_egui
/// would otherwise drop).
fn index_widgets(
    mut outputs: Query<&mut EguiFullOutput, With<PrimaryEguiContext>>,
    mut index: ResMut<WidgetIndex>,
) {
    let Ok(mut output) = outputs.single_mut() else {
        return;
    };
    let Some(update) = output
        .0
        .as_mut()
        .and_then(|o| o.platform_output.accesskit_update.take())
    else {
        return;
    };
    // The tree in depth-first order: egui hangs areas made later (popups, windows) off the root
    // after the panels, so later means drawn on top.
    let nodes: std::collections::HashMap<_, _> =
        update.nodes.iter().map(|(id, node)| (*id, node)).collect();
    let mut ordered = Vec::with_capacity(nodes.len());
    let mut stack: Vec<_> = update.tree.as_ref().map(|t| t.root).into_iter().collect();
    while let Some(id) = stack.pop() {
        let Some(node) = nodes.get(&id) else {
            continue;
        };
        ordered.push(*node);
        stack.extend(node.children().iter().rev());
    }
    index.nodes = ordered
        .into_iter()
        .filter_map(|node| {
            // A combo box is known by its selected text; a value box (a slider's number) has
            // no label and is found beside its slider.
            let label = match node.role() {
                // A label's text is its value.
                egui::accesskit::Role::ComboBox | egui::accesskit::Role::Label => {
                    node.label().or(node.value())
                }
                egui::accesskit::Role::SpinButton => node.label().or(Some("")),
                _ => node.label(),
            }?
            .to_owned();
            let bounds = node.bounds()?;
            Some(WidgetNode {
                role: node.role(),
                label,
                rect: egui::Rect::from_min_max(
                    egui::pos2(bounds.x0 as f32, bounds.y0 as f32),
                    egui::pos2(bounds.x1 as f32, bounds.y1 as f32),
                ),
                value: node.numeric_value(),
                range: node.min_numeric_value().zip(node.max_numeric_value()),
                enabled: !node.is_disabled(),
            })
        })
        .collect();
}

/// Without an OS window, bevy_egui does not know which window the offscreen camera's context
/// belongs to; tell it, so window messages reach egui as they would in a real window.
fn map_offscreen_window(
    offscreen: Option<Res<OffscreenTarget>>,
    windows: Query<Entity, With<PrimaryWindow>>,
    contexts: Query<Entity, With<PrimaryEguiContext>>,
    mut map: ResMut<WindowToEguiContextMap>,
) {
    if offscreen.is_none() {
        return;
    }
    let (Ok(window), Ok(context)) = (windows.single(), contexts.single()) else {
        return;
    };
    if map.context_to_window.get(&context) != Some(&window) {
        map.window_to_contexts
            .entry(window)
            .or_default()
            .insert(context);
        map.context_to_window.insert(context, window);
    }
}

/// One input as a window reports it.
#[derive(Clone, Debug)]
enum Input {
    Move(Vec2),
    Button(MouseButton, bool),
    Key(KeyCode, Key, bool),
    Wheel(f32),
}

/// What the action being played does next.
enum Step {
    /// Batches of inputs, one batch per frame.
    Inputs(VecDeque<Vec<Input>>),
    /// Waiting for the widget an action needs, scrolling it into view.
    Find {
        action: Action,
        frames: u32,
    },
    /// A step that opens something (a combo box's list), then the action tried again.
    Then {
        first: Box<Step>,
        action: Action,
        frames: u32,
    },
    Frames(u32),
    /// Frames until this moment.
    Until(Instant),
    Build {
        since: Instant,
        idle_frames: u32,
    },
    Screenshot(Arc<Mutex<Option<Result<(), String>>>>),
}

#[derive(Resource)]
struct SessionDriver {
    lines: VecDeque<ScriptLine>,
    step: Option<Step>,
    /// The script line being played.
    line: usize,
    playing: bool,
    /// Where the driver last put the pointer.
    pointer: Vec2,
    error: Arc<Mutex<Option<String>>>,
    /// The script ran to its end (not a quit).
    finished: bool,
    /// Where the widget the action is after was last frame.
    last_target: Option<egui::Rect>,
}

impl SessionDriver {
    /// Whether the target is where it was last frame: a panel still scrolling (egui animates
    /// the wheel) moves its widgets, and a press on a moving widget lands beside it.
    fn settled(&mut self, rect: egui::Rect) -> bool {
        let same = self.last_target == Some(rect);
        self.last_target = Some(rect);
        same
    }
}

/// Everything [`drive`] reads and writes.
#[derive(bevy::ecs::system::SystemParam)]
struct DriveParams<'w, 's> {
    driver: ResMut<'w, SessionDriver>,
    index: Res<'w, WidgetIndex>,
    viewer: ViewerState<'w, 's>,
    windows: Query<'w, 's, (Entity, &'static mut Window), With<PrimaryWindow>>,
    cameras: Query<'w, 's, (&'static Camera, &'static GlobalTransform), With<MainCamera>>,
    offscreen: Option<Res<'w, OffscreenTarget>>,
    commands: Commands<'w, 's>,
    window_events: MessageWriter<'w, WindowEvent>,
    cursor_moves: MessageWriter<'w, CursorMoved>,
    motions: MessageWriter<'w, MouseMotion>,
    buttons: MessageWriter<'w, MouseButtonInput>,
    keys: MessageWriter<'w, KeyboardInput>,
    wheels: MessageWriter<'w, MouseWheel>,
    exit: MessageWriter<'w, AppExit>,
}

/// Plays the script: runs at the start of each frame, before input is read.
fn drive(mut p: DriveParams) {
    let Ok((window, _)) = p.windows.single() else {
        return;
    };
    if p.driver.step.is_none() {
        let Some(next) = p.driver.lines.pop_front() else {
            p.driver.playing = false;
            p.driver.finished = true;
            p.exit.write(AppExit::Success);
            return;
        };
        p.driver.line = next.line;
        p.driver.step = Some(start(next.action));
    }
    let step = p.driver.step.take();
    match step.map(|step| advance(step, &mut p, window)) {
        Some(Ok(next)) => p.driver.step = next,
        Some(Err(message)) => {
            let message = format!("session line {}: {message}", p.driver.line);
            error!("navlab: {message}");
            *p.driver.error.lock().unwrap_or_else(|e| e.into_inner()) = Some(message);
            p.driver.playing = false;
            p.exit.write(AppExit::error());
        }
        None => {}
    }
}

/// The first step of an action.
fn start(action: Action) -> Step {
    match action {
        Action::Pointer { x, y } => inputs([vec![Input::Move(Vec2::new(x, y))]]),
        Action::Press(button) => inputs([vec![Input::Button(mouse_button(button), true)]]),
        Action::Release(button) => inputs([vec![Input::Button(mouse_button(button), false)]]),
        Action::Wheel(lines) => inputs([vec![Input::Wheel(lines)]]),
        Action::WaitFrames(frames) => Step::Frames(frames),
        Action::WaitSeconds(seconds) => {
            Step::Until(Instant::now() + Duration::from_secs_f32(seconds))
        }
        Action::WaitBuild => Step::Build {
            since: Instant::now(),
            idle_frames: 0,
        },
        action => Step::Find { action, frames: 0 },
    }
}

fn inputs<const N: usize>(batches: [Vec<Input>; N]) -> Step {
    Step::Inputs(batches.into_iter().collect())
}

fn mouse_button(button: Button) -> MouseButton {
    match button {
        Button::Left => MouseButton::Left,
        Button::Right => MouseButton::Right,
        Button::Middle => MouseButton::Middle,
    }
}

/// Runs one frame of `step`; the step to run next frame (`None`: the action is done).
fn advance(step: Step, p: &mut DriveParams, window: Entity) -> Result<Option<Step>, String> {
    match step {
        Step::Inputs(mut batches) => {
            for input in batches.pop_front().unwrap_or_default() {
                send(p, window, input);
            }
            Ok((!batches.is_empty()).then_some(Step::Inputs(batches)))
        }
        Step::Frames(0) => Ok(None),
        Step::Frames(n) => Ok(Some(Step::Frames(n - 1))),
        Step::Until(end) => Ok((Instant::now() < end).then_some(Step::Until(end))),
        Step::Build { since, idle_frames } => {
            if since.elapsed() > BUILD_TIMEOUT {
                return Err(format!("the build did not finish within {BUILD_TIMEOUT:?}"));
            }
            // Two idle frames in a row: a request sent last frame has been taken up.
            let idle_frames = if p.viewer.busy() { 0 } else { idle_frames + 1 };
            Ok((idle_frames < 2).then_some(Step::Build { since, idle_frames }))
        }
        Step::Screenshot(saved) => match saved.lock().unwrap_or_else(|e| e.into_inner()).take() {
            None => Ok(Some(Step::Screenshot(saved.clone()))),
            Some(Ok(())) => Ok(None),
            Some(Err(message)) => Err(message),
        },
        Step::Then {
            first,
            action,
            frames,
        } => Ok(Some(match advance(*first, p, window)? {
            Some(first) => Step::Then {
                first: Box::new(first),
                action,
                frames,
            },
            None => Step::Find { action, frames },
        })),
        Step::Find { action, frames } => match plan(&action, p) {
            Plan::Ready(step) => Ok(Some(step)),
            // Opening counts as many frames of waiting, so an item that never shows ends it.
            Plan::Open(step) => Ok(Some(Step::Then {
                first: Box::new(step),
                action,
                frames: frames + 20,
            })),
            Plan::Scroll(..) if frames >= FIND_FRAMES => {
                Err("the widget stays out of view however its panel is scrolled".into())
            }
            Plan::Scroll(at, lines) => {
                send(p, window, Input::Move(at));
                send(p, window, Input::Wheel(lines));
                Ok(Some(Step::Find {
                    action,
                    frames: frames + 1,
                }))
            }
            Plan::Fail(reason) => Err(reason),
            Plan::NotYet(reason) if frames >= FIND_FRAMES => Err(reason),
            Plan::NotYet(_) => Ok(Some(Step::Find {
                action,
                frames: frames + 1,
            })),
        },
    }
}

/// What an action that needs the screen does now.
enum Plan {
    Ready(Step),
    /// Run this step, then plan the action again.
    Open(Step),
    /// Scroll the panel under this point by these wheel lines to bring the widget into view.
    Scroll(Vec2, f32),
    /// Not possible yet (the widget is not on screen): tried again next frame, for a while.
    NotYet(String),
    /// Not possible at all.
    Fail(String),
}

fn plan(action: &Action, p: &mut DriveParams) -> Plan {
    let visible = visible_area(p);
    match action {
        Action::Click { label } => with_widget(
            p,
            label,
            visible,
            |n| is_clickable(n.role),
            |node| {
                let at = node.rect.center();
                Plan::Ready(click_at(Vec2::new(at.x, at.y)))
            },
        ),
        Action::Drag { label, to, frames } => {
            let is_slider = |n: &WidgetNode| n.role == egui::accesskit::Role::Slider;
            with_widget(p, label, visible, is_slider, |node| {
                let (Some(from), Some((low, high))) = (node.value, node.range) else {
                    return Plan::NotYet(format!("the slider \"{label}\" reports no value"));
                };
                let start = slider_point(node, from, low, high);
                let end = slider_point(node, *to, low, high);
                let mut batches: VecDeque<Vec<Input>> = [
                    vec![Input::Move(start)],
                    vec![Input::Button(MouseButton::Left, true)],
                ]
                .into_iter()
                .collect();
                for i in 1..=*frames {
                    let t = i as f32 / *frames as f32;
                    batches.push_back(vec![Input::Move(start.lerp(end, t))]);
                }
                batches.push_back(vec![Input::Button(MouseButton::Left, false)]);
                batches.push_back(Vec::new());
                Plan::Ready(Step::Inputs(batches))
            })
        }
        Action::Set { label, value } => {
            let is_slider = |n: &WidgetNode| n.role == egui::accesskit::Role::Slider;
            let slider = match p.index.find(label, is_slider) {
                Some(slider) => slider.rect,
                None => return not_found(p, label),
            };
            // The value box is the number field right of the slider, on its row.
            let value_box = p
                .index
                .nodes
                .iter()
                .filter(|n| {
                    n.role == egui::accesskit::Role::SpinButton
                        && n.rect.min.x >= slider.max.x - 1.0
                        && (n.rect.center().y - slider.center().y).abs() < slider.height()
                })
                .min_by(|a, b| a.rect.min.x.total_cmp(&b.rect.min.x));
            let Some(value_box) = value_box else {
                return Plan::NotYet(format!("the slider \"{label}\" has no value box"));
            };
            let (rect, at) = (value_box.rect, value_box.rect.center());
            if let Some(scroll) = scroll_into_view(at.y, visible, Vec2::new(at.x, at.y)) {
                return scroll;
            }
            if !p.driver.settled(rect) {
                return Plan::NotYet(format!("the value box of \"{label}\" keeps moving"));
            }
            let Step::Inputs(mut batches) = click_at(Vec2::new(at.x, at.y)) else {
                unreachable!("a click is inputs")
            };
            // The click selects the box's text; typing replaces it, Enter applies it.
            let typed: Vec<Input> = value
                .chars()
                .flat_map(|c| {
                    let (code, key) = key_for_char(c);
                    [
                        Input::Key(code, key.clone(), true),
                        Input::Key(code, key, false),
                    ]
                })
                .collect();
            batches.push_back(typed);
            batches.push_back(vec![
                Input::Key(KeyCode::Enter, Key::Enter, true),
                Input::Key(KeyCode::Enter, Key::Enter, false),
            ]);
            batches.push_back(Vec::new());
            Plan::Ready(Step::Inputs(batches))
        }
        Action::Draw { mode } => {
            let target = match mode.parse::<DrawMode>() {
                Ok(target) => target,
                Err(error) => return Plan::Fail(error),
            };
            if target == *p.viewer.mode {
                return Plan::Ready(Step::Frames(0));
            }
            // RecastDemo's modes and the heat maps have a combo each.
            let (recastdemo_text, heat_text) = p.viewer.mode.combo_texts();
            let current = if target.is_heat_map() {
                heat_text
            } else {
                recastdemo_text
            };
            let is_combo = |n: &WidgetNode| n.role == egui::accesskit::Role::ComboBox;
            let is_item = |n: &WidgetNode| n.role == egui::accesskit::Role::Button;
            // Open the combo, then pick the item from its list (drawn on top, found first).
            if let Some(item) = p
                .index
                .find(target.label(), is_item)
                .filter(|_| p.index.find(current, is_combo).is_some())
                .filter(|item| item_in_open_list(&p.index, item))
            {
                let at = item.rect.center();
                return Plan::Ready(click_at(Vec2::new(at.x, at.y)));
            }
            match with_widget(p, current, visible, is_combo, |combo| {
                let at = combo.rect.center();
                Plan::Ready(click_at(Vec2::new(at.x, at.y)))
            }) {
                Plan::Ready(click) => Plan::Open(click),
                other => other,
            }
        }
        Action::Key { key } | Action::KeyDown { key } | Action::KeyUp { key } => {
            let Some((code, logical)) = key_by_name(key) else {
                return Plan::Fail(format!("unknown key \"{key}\""));
            };
            let down = Input::Key(code, logical.clone(), true);
            let up = Input::Key(code, logical, false);
            Plan::Ready(match action {
                Action::KeyDown { .. } => inputs([vec![down]]),
                Action::KeyUp { .. } => inputs([vec![up]]),
                _ => inputs([vec![down], vec![up], Vec::new()]),
            })
        }
        Action::ClickWorld { point, shift } => {
            let Ok((camera, transform)) = p.cameras.single() else {
                return Plan::NotYet("no camera".into());
            };
            let Ok(at) = camera.world_to_viewport(transform, Vec3::from(*point)) else {
                return Plan::NotYet(format!("{point:?} is not in view"));
            };
            let Step::Inputs(mut batches) = click_at(at) else {
                unreachable!("a click is inputs")
            };
            if *shift {
                let shift = |down| Input::Key(KeyCode::ShiftLeft, Key::Shift, down);
                batches.push_front(vec![shift(true)]);
                batches.push_back(vec![shift(false)]);
            }
            Plan::Ready(Step::Inputs(batches))
        }
        Action::Expect { text, min_height } => {
            let shown = p
                .index
                .nodes
                .iter()
                .filter(|n| n.label.contains(text.as_str()));
            let tallest = shown.map(|n| n.rect.height()).reduce(f32::max);
            match (tallest, min_height) {
                (None, _) => Plan::NotYet(format!("no text \"{text}\" on screen")),
                (Some(height), Some(min)) if height < *min => {
                    Plan::Fail(format!("\"{text}\" is {height:.1} px high, under {min} px"))
                }
                _ => Plan::Ready(Step::Frames(0)),
            }
        }
        Action::State(path) => {
            let state = p.viewer.json(false, None);
            match navlab::file::write_atomically(path, format!("{state:#}\n").as_bytes()) {
                Ok(()) => {
                    // The next state's frame times start here: a rebuild's own, say.
                    p.viewer.frame_times.restart();
                    Plan::Ready(Step::Frames(0))
                }
                Err(err) => Plan::Fail(format!("could not write the state: {err}")),
            }
        }
        Action::Screenshot(path) => {
            let saved = Arc::new(Mutex::new(None));
            let screenshot = match &p.offscreen {
                Some(target) => Screenshot::image(target.0.clone()),
                None => Screenshot::primary_window(),
            };
            p.commands
                .spawn(screenshot)
                .observe(save_screenshot(path.clone(), saved.clone()));
            Plan::Ready(Step::Screenshot(saved))
        }
        Action::Pointer { .. }
        | Action::Press(_)
        | Action::Release(_)
        | Action::Wheel(_)
        | Action::WaitFrames(_)
        | Action::WaitSeconds(_)
        | Action::WaitBuild => Plan::Ready(start(action.clone())),
    }
}

/// Whether `item` lies in a popup list rather than in a panel: popups come after the panels
/// in egui's tree, so the item must be later than every combo box.
fn item_in_open_list(index: &WidgetIndex, item: &WidgetNode) -> bool {
    let position = |node: &WidgetNode| index.nodes.iter().position(|n| std::ptr::eq(n, node));
    let last_combo = index
        .nodes
        .iter()
        .rposition(|n| n.role == egui::accesskit::Role::ComboBox);
    matches!((position(item), last_combo), (Some(i), Some(c)) if i > c)
}

/// The window's area, where a widget can be clicked. (A panel's widget scrolled up under the
/// menu bar would count as in view; the driver scrolls toward what lies below far more often.)
fn visible_area(p: &DriveParams) -> egui::Rect {
    let size = p
        .windows
        .single()
        .map(|(_, w)| Vec2::new(w.width(), w.height()))
        .unwrap_or(Vec2::new(1280.0, 800.0));
    egui::Rect::from_min_max(egui::pos2(0.0, 0.0), egui::pos2(size.x, size.y))
}

fn with_widget(
    p: &mut DriveParams,
    label: &str,
    visible: egui::Rect,
    accept: impl Fn(&WidgetNode) -> bool,
    ready: impl FnOnce(&WidgetNode) -> Plan,
) -> Plan {
    let Some(node) = p.index.find(label, accept) else {
        return not_found(p, label);
    };
    let center = node.rect.center();
    if let Some(scroll) = scroll_into_view(center.y, visible, Vec2::new(center.x, center.y)) {
        return scroll;
    }
    if !p.driver.settled(node.rect) {
        return Plan::NotYet(format!("\"{label}\" keeps moving"));
    }
    ready(node)
}

/// Scrolls when `y` is above or below the visible area, with the pointer over the widget's
/// column (clamped into the window).
fn scroll_into_view(y: f32, visible: egui::Rect, at: Vec2) -> Option<Plan> {
    let pointer = Vec2::new(
        at.x.clamp(visible.min.x + 1.0, visible.max.x - 1.0),
        visible.center().y,
    );
    if y > visible.max.y - 8.0 {
        Some(Plan::Scroll(pointer, -SCROLL_LINES))
    } else if y < visible.min.y + 2.0 {
        Some(Plan::Scroll(pointer, SCROLL_LINES))
    } else {
        None
    }
}

fn not_found(p: &DriveParams, label: &str) -> Plan {
    Plan::NotYet(format!(
        "no widget labelled \"{label}\" on screen (found: {})",
        p.index.some_labels()
    ))
}

/// Move, press, release: a click as three frames, so egui sees the hover before the press.
fn click_at(at: Vec2) -> Step {
    inputs([
        vec![Input::Move(at)],
        vec![Input::Button(MouseButton::Left, true)],
        vec![Input::Button(MouseButton::Left, false)],
        Vec::new(),
    ])
}

/// Where `value` lies on a horizontal slider: egui maps the range onto the rail less the
/// handle's radius (its height / 2.5) at each end.
fn slider_point(node: &WidgetNode, value: f64, low: f64, high: f64) -> Vec2 {
    let radius = node.rect.height() / 2.5;
    let (left, right) = (node.rect.min.x + radius, node.rect.max.x - radius);
    let t = if high > low {
        ((value - low) / (high - low)).clamp(0.0, 1.0) as f32
    } else {
        0.0
    };
    Vec2::new(left + (right - left) * t, node.rect.center().y)
}

/// Writes `input` as winit does: the window event and the input message it stands for.
fn send(p: &mut DriveParams, window: Entity, input: Input) {
    match input {
        Input::Move(position) => {
            let delta = position - p.driver.pointer;
            p.driver.pointer = position;
            if let Ok((_, mut w)) = p.windows.single_mut() {
                w.set_cursor_position(Some(position));
            }
            let moved = CursorMoved {
                window,
                position,
                delta: Some(delta),
            };
            p.window_events
                .write(WindowEvent::CursorMoved(moved.clone()));
            p.cursor_moves.write(moved);
            p.motions.write(MouseMotion { delta });
        }
        Input::Button(button, down) => {
            let message = MouseButtonInput {
                button,
                state: if down {
                    ButtonState::Pressed
                } else {
                    ButtonState::Released
                },
                window,
            };
            p.window_events
                .write(WindowEvent::MouseButtonInput(message));
            p.buttons.write(message);
        }
        Input::Key(key_code, logical_key, down) => {
            let text = match (&logical_key, down) {
                (Key::Character(c), true) => Some(c.clone()),
                _ => None,
            };
            let message = KeyboardInput {
                key_code,
                logical_key,
                state: if down {
                    ButtonState::Pressed
                } else {
                    ButtonState::Released
                },
                text,
                repeat: false,
                window,
            };
            p.window_events
                .write(WindowEvent::KeyboardInput(message.clone()));
            p.keys.write(message);
        }
        Input::Wheel(lines) => {
            let message = MouseWheel {
                unit: MouseScrollUnit::Line,
                x: 0.0,
                y: lines,
                window,
                phase: TouchPhase::Moved,
            };
            p.window_events.write(WindowEvent::MouseWheel(message));
            p.wheels.write(message);
        }
    }
}

/// Keys by the names a script uses: named keys, single characters, `F1`–`F12`.
fn key_by_name(name: &str) -> Option<(KeyCode, Key)> {
    let named = match name.to_ascii_lowercase().as_str() {
        "escape" | "esc" => (KeyCode::Escape, Key::Escape),
        "tab" => (KeyCode::Tab, Key::Tab),
        "enter" | "return" => (KeyCode::Enter, Key::Enter),
        "space" => (KeyCode::Space, Key::Space),
        "backspace" => (KeyCode::Backspace, Key::Backspace),
        "delete" => (KeyCode::Delete, Key::Delete),
        "left" => (KeyCode::ArrowLeft, Key::ArrowLeft),
        "right" => (KeyCode::ArrowRight, Key::ArrowRight),
        "up" => (KeyCode::ArrowUp, Key::ArrowUp),
        "down" => (KeyCode::ArrowDown, Key::ArrowDown),
        "home" => (KeyCode::Home, Key::Home),
        "end" => (KeyCode::End, Key::End),
        "shift" => (KeyCode::ShiftLeft, Key::Shift),
        "control" | "ctrl" => (KeyCode::ControlLeft, Key::Control),
        "alt" => (KeyCode::AltLeft, Key::Alt),
        lower => {
            if let Some(n) = lower.strip_prefix('f').and_then(|n| n.parse::<u8>().ok()) {
                return function_key(n);
            }
            let mut chars = name.chars();
            return match (chars.next(), chars.next()) {
                (Some(c), None) if c != ' ' => Some(key_for_char(c)),
                _ => None,
            };
        }
    };
    Some(named)
}

fn function_key(n: u8) -> Option<(KeyCode, Key)> {
    const KEYS: [(KeyCode, Key); 12] = [
        (KeyCode::F1, Key::F1),
        (KeyCode::F2, Key::F2),
        (KeyCode::F3, Key::F3),
        (KeyCode::F4, Key::F4),
        (KeyCode::F5, Key::F5),
        (KeyCode::F6, Key::F6),
        (KeyCode::F7, Key::F7),
        (KeyCode::F8, Key::F8),
        (KeyCode::F9, Key::F9),
        (KeyCode::F10, Key::F10),
        (KeyCode::F11, Key::F11),
        (KeyCode::F12, Key::F12),
    ];
    KEYS.get(usize::from(n).checked_sub(1)?).cloned()
}

/// The key that types `c` on a US layout (letters by their lower case), with `c` as its text.
fn key_for_char(c: char) -> (KeyCode, Key) {
    let code = CHAR_KEYS
        .iter()
        .find(|(ch, _)| *ch == c.to_ascii_lowercase())
        .map_or(
            KeyCode::Unidentified(bevy::input::keyboard::NativeKeyCode::Unidentified),
            |(_, code)| *code,
        );
    (code, Key::Character(c.to_string().into()))
}

/// Characters and the physical keys that type them.
const CHAR_KEYS: [(char, KeyCode); 47] = [
    ('a', KeyCode::KeyA),
    ('b', KeyCode::KeyB),
    ('c', KeyCode::KeyC),
    ('d', KeyCode::KeyD),
    ('e', KeyCode::KeyE),
    ('f', KeyCode::KeyF),
    ('g', KeyCode::KeyG),
    ('h', KeyCode::KeyH),
    ('i', KeyCode::KeyI),
    ('j', KeyCode::KeyJ),
    ('k', KeyCode::KeyK),
    ('l', KeyCode::KeyL),
    ('m', KeyCode::KeyM),
    ('n', KeyCode::KeyN),
    ('o', KeyCode::KeyO),
    ('p', KeyCode::KeyP),
    ('q', KeyCode::KeyQ),
    ('r', KeyCode::KeyR),
    ('s', KeyCode::KeyS),
    ('t', KeyCode::KeyT),
    ('u', KeyCode::KeyU),
    ('v', KeyCode::KeyV),
    ('w', KeyCode::KeyW),
    ('x', KeyCode::KeyX),
    ('y', KeyCode::KeyY),
    ('z', KeyCode::KeyZ),
    ('0', KeyCode::Digit0),
    ('1', KeyCode::Digit1),
    ('2', KeyCode::Digit2),
    ('3', KeyCode::Digit3),
    ('4', KeyCode::Digit4),
    ('5', KeyCode::Digit5),
    ('6', KeyCode::Digit6),
    ('7', KeyCode::Digit7),
    ('8', KeyCode::Digit8),
    ('9', KeyCode::Digit9),
    ('.', KeyCode::Period),
    (',', KeyCode::Comma),
    ('-', KeyCode::Minus),
    ('=', KeyCode::Equal),
    ('[', KeyCode::BracketLeft),
    (']', KeyCode::BracketRight),
    ('/', KeyCode::Slash),
    (';', KeyCode::Semicolon),
    ('\'', KeyCode::Quote),
    ('\\', KeyCode::Backslash),
    ('`', KeyCode::Backquote),
];

/// The name a recorded session gives a key (the reverse of [`key_by_name`]).
fn key_name(code: KeyCode) -> Option<String> {
    let named = match code {
        KeyCode::Escape => "Escape",
        KeyCode::Tab => "Tab",
        KeyCode::Enter | KeyCode::NumpadEnter => "Enter",
        KeyCode::Space => "Space",
        KeyCode::Backspace => "Backspace",
        KeyCode::Delete => "Delete",
        KeyCode::ArrowLeft => "Left",
        KeyCode::ArrowRight => "Right",
        KeyCode::ArrowUp => "Up",
        KeyCode::ArrowDown => "Down",
        KeyCode::Home => "Home",
        KeyCode::End => "End",
        KeyCode::ShiftLeft | KeyCode::ShiftRight => "Shift",
        KeyCode::ControlLeft | KeyCode::ControlRight => "Control",
        KeyCode::AltLeft | KeyCode::AltRight => "Alt",
        code => {
            return CHAR_KEYS
                .iter()
                .find(|(_, c)| *c == code)
                .map(|(ch, _)| ch.to_string())
                .or_else(|| {
                    (1..=12u8)
                        .find(|&n| function_key(n).is_some_and(|(c, _)| c == code))
                        .map(|n| format!("F{n}"))
                });
        }
    };
    Some(named.to_owned())
}

/// An observer that saves the captured frame at `path` (written whole, then renamed into
/// place) and reports how it went.
fn save_screenshot(
    path: PathBuf,
    saved: Arc<Mutex<Option<Result<(), String>>>>,
) -> impl FnMut(On<ScreenshotCaptured>) {
    move |captured| {
        let result = captured
            .image
            .clone()
            .try_into_dynamic()
            .map_err(|e| e.to_string())
            .and_then(|image| {
                let rgb = image.to_rgb8();
                navlab::file::write_atomically_with(&path, |part| {
                    let png = bevy::image::ImageFormat::Png
                        .as_image_crate_format()
                        .ok_or_else(|| std::io::Error::other("no PNG encoder built in"))?;
                    rgb.save_with_format(part, png)
                        .map_err(std::io::Error::other)
                })
                .map_err(|e| e.to_string())
            })
            .map_err(|e| format!("{}: {e}", path.display()));
        *saved.lock().unwrap_or_else(|e| e.into_inner()) = Some(result);
    }
}

/// How long the frames took, start to start: whether a build ever held one up.
#[derive(Resource, Default)]
pub struct FrameTimes {
    last_start: Option<Instant>,
    pub frames: u64,
    pub longest: Duration,
    /// Frames longer than 100 ms, the longest a person does not notice as a stall.
    pub over_100_ms: u64,
    /// Every frame's time in microseconds, for the mean and the 95th percentile.
    micros: Vec<u32>,
}

impl FrameTimes {
    fn restart(&mut self) {
        *self = FrameTimes {
            last_start: self.last_start,
            ..FrameTimes::default()
        };
    }
}

fn time_frames(mut times: ResMut<FrameTimes>) {
    let now = Instant::now();
    if let Some(last) = times.last_start.replace(now) {
        let frame = now - last;
        times.frames += 1;
        times.longest = times.longest.max(frame);
        times.over_100_ms += u64::from(frame > Duration::from_millis(100));
        times
            .micros
            .push(frame.as_micros().min(u128::from(u32::MAX)) as u32);
    }
}

impl FrameTimes {
    /// The mean frame time and the 95th percentile, in milliseconds.
    pub fn mean_and_p95_ms(&self) -> (f64, f64) {
        if self.micros.is_empty() {
            return (0.0, 0.0);
        }
        let mut sorted = self.micros.clone();
        sorted.sort_unstable();
        let mean = sorted.iter().map(|&m| f64::from(m)).sum::<f64>() / sorted.len() as f64;
        let p95 = sorted[(sorted.len() * 95 / 100).min(sorted.len() - 1)];
        (mean / 1000.0, f64::from(p95) / 1000.0)
    }
}

#[derive(Resource)]
struct SessionOutput {
    state_json: Option<PathBuf>,
    record: Option<PathBuf>,
    /// The person's input so far, as script actions.
    recorded: Vec<Action>,
    /// Frames without input since the last recorded action.
    idle_frames: u32,
    written: bool,
}

/// Turns this frame's window input into session actions (with `--record`).
fn record_input(mut output: ResMut<SessionOutput>, mut events: MessageReader<WindowEvent>) {
    if output.record.is_none() {
        events.clear();
        return;
    }
    let mut frame = Vec::new();
    for event in events.read() {
        let action = match event {
            WindowEvent::CursorMoved(moved) => Action::Pointer {
                x: moved.position.x,
                y: moved.position.y,
            },
            WindowEvent::MouseButtonInput(input) => {
                let button = match input.button {
                    MouseButton::Left => Button::Left,
                    MouseButton::Right => Button::Right,
                    MouseButton::Middle => Button::Middle,
                    _ => continue,
                };
                match input.state {
                    ButtonState::Pressed => Action::Press(button),
                    ButtonState::Released => Action::Release(button),
                }
            }
            WindowEvent::KeyboardInput(input) if !input.repeat => {
                let Some(key) = key_name(input.key_code) else {
                    continue;
                };
                match input.state {
                    ButtonState::Pressed => Action::KeyDown { key },
                    ButtonState::Released => Action::KeyUp { key },
                }
            }
            WindowEvent::MouseWheel(wheel) => Action::Wheel(wheel.y),
            _ => continue,
        };
        // Of consecutive pointer moves, the last is enough.
        if matches!(
            (frame.last(), &action),
            (Some(Action::Pointer { .. }), Action::Pointer { .. })
        ) {
            frame.pop();
        }
        frame.push(action);
    }
    if frame.is_empty() {
        output.idle_frames += 1;
        return;
    }
    if output.idle_frames > 0 && !output.recorded.is_empty() {
        let idle = output.idle_frames;
        output.recorded.push(Action::WaitFrames(idle));
    }
    output.idle_frames = 0;
    output.recorded.extend(frame);
}

/// When the app is about to quit (the script's end, File → Quit, Esc, an error): writes the
/// state and the recorded session.
fn finish_on_exit(
    mut exits: MessageReader<AppExit>,
    mut output: ResMut<SessionOutput>,
    driver: Res<SessionDriver>,
    viewer: ViewerState,
) {
    if exits.read().count() == 0 || output.written {
        return;
    }
    output.written = true;
    if let Some(path) = output.state_json.clone() {
        let error = driver
            .error
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let state = viewer.json(!driver.finished, error);
        write_or_log(&path, format!("{state:#}\n").as_bytes(), "state");
    }
    if let Some(path) = output.record.clone() {
        let text: String = output
            .recorded
            .iter()
            .map(|action| action_line(action) + "\n")
            .collect();
        write_or_log(&path, text.as_bytes(), "recorded session");
    }
}

/// What a session's state is made of (the frame times restart at each `state` action).
#[derive(bevy::ecs::system::SystemParam)]
struct ViewerState<'w, 's> {
    state: Res<'w, BuildState>,
    mode: Res<'w, DrawMode>,
    log: Res<'w, ViewerLog>,
    frame_times: ResMut<'w, FrameTimes>,
    test_cases: Option<Res<'w, TestCases>>,
    tools: Option<Res<'w, Tools>>,
    game_link: Option<Res<'w, crate::viewer::game_link::GameLink>>,
    comparison: Option<Res<'w, crate::viewer::compare::Comparison>>,
    profiles: Option<Res<'w, crate::viewer::profiles::AgentProfiles>>,
    world: Option<Res<'w, crate::viewer::draw::world::WorldView>>,
    streaming: Option<Res<'w, crate::viewer::streaming::Streaming>>,
    shown: Option<Res<'w, crate::viewer::navmesh::ShownNavMesh>>,
    orbits: Query<'w, 's, &'static PanOrbitCamera, With<MainCamera>>,
}

/// Where the orbit camera is headed (its targets: the smoothed values trail them).
fn orbit_pose(orbit: &PanOrbitCamera) -> (Vec3, f32, f32, f32) {
    (
        orbit.target_focus,
        orbit.target_radius,
        orbit.target_yaw,
        orbit.target_pitch,
    )
}

fn write_or_log(path: &Path, bytes: &[u8], what: &str) {
    match navlab::file::write_atomically(path, bytes) {
        Ok(()) => info!("navlab: wrote the {what} to {}", path.display()),
        Err(err) => error!("navlab: could not write the {what}: {err}"),
    }
}

impl ViewerState<'_, '_> {
    /// Whether a build runs or waits, or a world's view is still coming: blocks being made or
    /// not yet what the camera wants, tiles being streamed.
    fn busy(&self) -> bool {
        self.state.is_busy()
            || self
                .world
                .as_deref()
                .is_some_and(|w| w.is_on() && !w.settled())
            || self.streaming.as_deref().is_some_and(|s| !s.idle())
    }

    /// The viewer's state as a session reports it: the settings by RecastDemo's names, the
    /// sample, mesh and draw mode, whether the app was asked to quit, and the test cases' run.
    fn json(&self, quit: bool, error: Option<String>) -> serde_json::Value {
        let camera = self.orbits.single().ok().map(orbit_pose);
        let (state, mode, log, frame_times) =
            (&*self.state, *self.mode, &*self.log, &*self.frame_times);
        let (test_cases, tools) = (self.test_cases.as_deref(), self.tools.as_deref());
        let mesh = state
            .scene
            .input
            .source
            .as_ref()
            .map_or_else(|| state.scene.name.clone(), |p| p.display().to_string());
        let errors: Vec<&str> = log
            .lines
            .iter()
            .filter(|(level, _)| *level == LogLevel::Error)
            .map(|(_, line)| line.as_str())
            .collect();
        let (mean_ms, p95_ms) = frame_times.mean_and_p95_ms();
        let mut value = json!({
            "settings": state.settings,
            "sample": state.sample.label(),
            "mesh": mesh,
            "drawMode": mode.label(),
            "quit": quit,
            "tileSize": state.tile_size,
            "convexVolumes": state.scene.input.geom_set.convex_volumes.len(),
            "offMeshLinks": state.scene.input.geom_set.off_mesh_connections.len(),
            "building": state.is_busy(),
            "builds": state.finished,
            "lastBuildMs": state.last_build.map(|(_, time)| time.as_secs_f64() * 1000.0),
            "logErrors": errors,
            "lastLog": log.lines.last().map(|(_, line)| line.as_str()),
            "camera": camera.map(|(focus, radius, yaw, pitch)| json!({
                "focus": focus.to_array(),
                "radius": radius,
                "yaw": yaw,
                "pitch": pitch,
            })),
            "frames": {
                "count": frame_times.frames,
                "longestMs": frame_times.longest.as_secs_f64() * 1000.0,
                "over100Ms": frame_times.over_100_ms,
                "meanMs": mean_ms,
                "p95Ms": p95_ms,
            },
        });
        if let Some(tiled) = &state.tiled {
            let present = crate::viewer::build::tile_presence(tiled);
            value["tiles"] = json!({
                "present": present.iter().filter(|&&p| p).count(),
                "total": present.len(),
                "longLinks": tiled.nav_mesh.long_links().count(),
                "refBits": tiled.nav_mesh.ref_width().bits(),
                "firstTileRef": tiled.nav_mesh.tiles().next().map(|(r, _)| r),
            });
        }
        if let Some(view) = &state.temp_obstacles {
            value["obstacles"] = json!(view.build.obstacles.live().count());
        }
        if let Some(world) = self.world.as_deref().filter(|w| w.is_on()) {
            let (full, outline, making) = world.counts();
            let shown = self.shown.as_deref();
            let mesh = shown.and_then(|shown| shown.get(state));
            value["world"] = json!({
                "fullBlocks": full,
                "outlineBlocks": outline,
                "making": making,
                "settled": world.settled(),
                "triangles": world.primitives().0,
                "lineSegments": world.primitives().1,
                "tilesLoaded": mesh.map(|m| m.tile_count()),
            });
            if let Some(streaming) = self
                .streaming
                .as_deref()
                .filter(|_| shown.is_some_and(|s| s.is_streamed()))
            {
                value["world"]["streamed"] = json!({
                    "loaded": streaming.loaded,
                    "dropped": streaming.dropped,
                    "idle": streaming.idle(),
                    "corridorRanges": streaming.corridor.len(),
                });
            }
        }
        if let Some(tools) = tools {
            let listed = tools.listed(state.sample);
            value["tools"] = json!(
                listed
                    .iter()
                    .map(|&i| tools.tools[i].name())
                    .collect::<Vec<_>>()
            );
            if let Some(active) = tools.tools.get(tools.active) {
                value["tool"] = json!(active.name());
                if let Some(tool_state) = active.session_state() {
                    value["toolState"] = tool_state;
                }
            }
        }
        if let Some(link) = self.game_link.as_deref().filter(|link| link.open) {
            value["game"] = link.session_state();
        }
        if let Some(comparison) = self.comparison.as_deref().filter(|c| c.baseline.is_some()) {
            value["compare"] = comparison.session_state();
        }
        if let Some(profiles) = self
            .profiles
            .as_deref()
            .filter(|p| !p.results.is_empty() || p.busy())
        {
            value["profiles"] = profiles.session_state();
        }
        if let Some(summary) = test_cases.and_then(|t| t.summary()) {
            value["testCases"] = json!(summary);
        }
        if let Some(error) = error {
            value["error"] = json!(error);
        }
        value
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_names_round_trip() {
        for name in ["Escape", "Enter", "Shift", "9", "t", "[", "F5", "Left"] {
            let (code, _) = key_by_name(name).unwrap();
            let back = key_name(code).unwrap();
            assert_eq!(back.to_lowercase(), name.to_lowercase(), "{name}");
        }
        assert!(key_by_name("Hyper").is_none());
        assert!(key_by_name("F13").is_none());
    }

    #[test]
    fn slider_values_map_inside_the_handle_radius() {
        let node = WidgetNode {
            role: egui::accesskit::Role::Slider,
            label: "Max Slope".into(),
            rect: egui::Rect::from_min_size(egui::pos2(100.0, 50.0), egui::vec2(100.0, 20.0)),
            value: Some(45.0),
            range: Some((0.0, 90.0)),
            enabled: true,
        };
        assert_eq!(slider_point(&node, 0.0, 0.0, 90.0), Vec2::new(108.0, 60.0));
        assert_eq!(slider_point(&node, 90.0, 0.0, 90.0), Vec2::new(192.0, 60.0));
        assert_eq!(slider_point(&node, 45.0, 0.0, 90.0), Vec2::new(150.0, 60.0));
        assert_eq!(slider_point(&node, 500.0, 0.0, 90.0).x, 192.0);
    }
}
