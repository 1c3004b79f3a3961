//! Scripted viewer sessions (`navlab view --session FILE`): one JSON action per line, each
//! played through the viewer's real input path (pointer over the widget, press, moves,
//! release). The reader lives outside the viewer so it builds, and is fuzzed, without Bevy.
//!
//! ```text
//! {"drag": "Max Slope", "to": 10.0, "frames": 20}
//! {"set": "Cell Size", "value": 0.2}
//! {"click": "Build"}
//! {"draw": "Raw Contours"}
//! {"key": "Escape"}
//! {"key_down": "Shift"}
//! {"key_up": "Shift"}
//! {"click_world": [1.0, 0.0, 2.5], "shift": true}
//! {"pointer": [640, 400]}
//! {"press": "left"}
//! {"release": "left"}
//! {"wheel": -1.0}
//! {"wait_frames": 10}
//! {"wait_seconds": 2.5}
//! {"wait_build": true}
//! {"screenshot": "after.png"}
//! {"state": "after.json"}
//! {"expect": "0 failed"}
//! {"expect": "Set a start", "min_height": 14}
//! ```
//!
//! Blank lines and lines starting with `#` or `//` are comments.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

/// A session file is typed or recorded: anything larger is not one.
pub const MAX_SCRIPT_BYTES: u64 = 16 << 20;
/// More actions than a person makes in hours.
pub const MAX_ACTIONS: usize = 1_000_000;
/// The longest single wait or drag, in frames (about half an hour at 60 frames a second).
pub const MAX_FRAMES: u32 = 100_000;
/// The longest wait in seconds (the same half hour).
pub const MAX_WAIT_SECONDS: f64 = 1800.0;

/// A mouse button of a `press` or `release` action.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Button {
    Left,
    Right,
    Middle,
}

impl Button {
    fn parse(text: &str) -> Option<Button> {
        match text.to_ascii_lowercase().as_str() {
            "left" => Some(Button::Left),
            "right" => Some(Button::Right),
            "middle" => Some(Button::Middle),
            _ => None,
        }
    }

    /// The name a script uses.
    pub fn name(self) -> &'static str {
        match self {
            Button::Left => "left",
            Button::Right => "right",
            Button::Middle => "middle",
        }
    }
}

/// One step of a session.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// Drag the slider labelled `label` from its handle to `to`, over `frames` frames.
    Drag {
        label: String,
        to: f64,
        frames: u32,
    },
    /// Click the value box beside the slider labelled `label`, type `value`, press Enter.
    Set {
        label: String,
        value: String,
    },
    /// Click the widget labelled `label` (a button, checkbox, radio button, menu entry, …).
    Click {
        label: String,
    },
    /// Pick a draw mode through the draw-mode combo box.
    Draw {
        mode: String,
    },
    /// Press and release a key by name ("Escape", "9", "T", "[", "Shift", …).
    Key {
        key: String,
    },
    /// Press a key and keep it down (a modifier held over clicks; what `--record` writes).
    KeyDown {
        key: String,
    },
    KeyUp {
        key: String,
    },
    /// Click where the world point shows on screen, with Shift held if `shift`.
    ClickWorld {
        point: [f32; 3],
        shift: bool,
    },
    /// Move the pointer to window pixels (logical).
    Pointer {
        x: f32,
        y: f32,
    },
    Press(Button),
    Release(Button),
    /// Turn the mouse wheel by this many lines (positive: away from the user, zooming in).
    Wheel(f32),
    WaitFrames(u32),
    /// Wait this many seconds of real time (a flight of a set length, however long frames take).
    WaitSeconds(f32),
    /// Wait until no build runs or waits.
    WaitBuild,
    /// Save what is on screen as PNG.
    Screenshot(PathBuf),
    /// Write the viewer's state as `--state-json` writes it at the end.
    State(PathBuf),
    /// Wait until text containing `text` shows on screen (a label, a button, a read-out), at
    /// least `min_height` pixels high if given (readable); the session fails if it does not.
    Expect {
        text: String,
        min_height: Option<f32>,
    },
}

/// An action and the line it came from, for error messages.
#[derive(Clone, Debug, PartialEq)]
pub struct ScriptLine {
    pub line: usize,
    pub action: Action,
}

/// Why a session file could not be read: the line and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct ScriptError {
    pub line: usize,
    pub message: String,
}

/// Reads a session file (size-capped) and parses it.
pub fn read_script(path: &Path) -> navlab::Result<Vec<ScriptLine>> {
    let bytes = navlab::file::read_capped(path, MAX_SCRIPT_BYTES)?;
    let text = std::str::from_utf8(navlab::file::strip_utf8_bom(&bytes)).map_err(|e| {
        navlab::NavlabError::Stage {
            stage: "session",
            message: format!("{}: not UTF-8 text ({e})", path.display()),
        }
    })?;
    parse_script(text).map_err(|e| navlab::NavlabError::Stage {
        stage: "session",
        message: format!("{}: {e}", path.display()),
    })
}

/// Parses a session: one JSON object per line, each naming exactly one action.
pub fn parse_script(text: &str) -> Result<Vec<ScriptLine>, ScriptError> {
    let mut actions = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let trimmed = raw.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with("//") {
            continue;
        }
        if actions.len() == MAX_ACTIONS {
            return Err(ScriptError {
                line,
                message: format!("more than {MAX_ACTIONS} actions"),
            });
        }
        let action = parse_action(trimmed).map_err(|message| ScriptError { line, message })?;
        actions.push(ScriptLine { line, action });
    }
    Ok(actions)
}

/// The action names a line may start with, for the error on an unknown one.
const ACTION_NAMES: [&str; 18] = [
    "drag",
    "set",
    "click",
    "draw",
    "key",
    "key_down",
    "key_up",
    "click_world",
    "pointer",
    "press",
    "release",
    "wheel",
    "wait_frames",
    "wait_seconds",
    "wait_build",
    "screenshot",
    "state",
    "expect",
];

fn parse_action(text: &str) -> Result<Action, String> {
    let value: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let Value::Object(fields) = value else {
        return Err("expected a JSON object such as {\"click\": \"Build\"}".into());
    };
    let mut fields = Fields(fields);
    let names: Vec<&str> = ACTION_NAMES
        .iter()
        .copied()
        .filter(|name| fields.0.contains_key(*name))
        .collect();
    let name = match names[..] {
        [name] => name,
        [] => {
            return Err(format!(
                "no action; expected one of {}",
                ACTION_NAMES.join(", ")
            ));
        }
        _ => {
            return Err(format!(
                "one action per line, found {}",
                names.join(" and ")
            ));
        }
    };
    let action = match name {
        "drag" => Action::Drag {
            label: fields.string("drag")?,
            to: fields.number("to")?,
            frames: fields
                .optional("frames", Fields::frames)?
                .unwrap_or(20)
                .max(1),
        },
        "set" => Action::Set {
            label: fields.string("set")?,
            value: fields.scalar_text("value")?,
        },
        "click" => Action::Click {
            label: fields.string("click")?,
        },
        "draw" => Action::Draw {
            mode: fields.string("draw")?,
        },
        "key" => Action::Key {
            key: fields.string("key")?,
        },
        "key_down" => Action::KeyDown {
            key: fields.string("key_down")?,
        },
        "key_up" => Action::KeyUp {
            key: fields.string("key_up")?,
        },
        "click_world" => Action::ClickWorld {
            point: fields.point("click_world")?,
            shift: fields.optional("shift", Fields::bool)?.unwrap_or(false),
        },
        "pointer" => {
            let [x, y] = fields.pair("pointer")?;
            Action::Pointer { x, y }
        }
        "press" => Action::Press(fields.button("press")?),
        "release" => Action::Release(fields.button("release")?),
        "wheel" => Action::Wheel(fields.number("wheel")? as f32),
        "wait_frames" => Action::WaitFrames(fields.frames("wait_frames")?),
        "wait_seconds" => {
            let seconds = fields.number("wait_seconds")?;
            if !(0.0..=MAX_WAIT_SECONDS).contains(&seconds) {
                return Err(format!(
                    "\"wait_seconds\" must be from 0 to {MAX_WAIT_SECONDS}, found {seconds}"
                ));
            }
            Action::WaitSeconds(seconds as f32)
        }
        "wait_build" => {
            if !fields
                .optional("wait_build", Fields::bool)?
                .unwrap_or(false)
            {
                return Err("\"wait_build\" takes true".into());
            }
            Action::WaitBuild
        }
        "screenshot" => Action::Screenshot(fields.file_name("screenshot")?),
        "state" => Action::State(fields.file_name("state")?),
        "expect" => Action::Expect {
            text: fields.string("expect")?,
            min_height: fields
                .optional("min_height", Fields::number)?
                .map(|h| h as f32),
        },
        _ => unreachable!("every name in ACTION_NAMES is handled"),
    };
    fields.finish()?;
    Ok(action)
}

/// The fields of one action line; each is taken once, and what is left is an error.
struct Fields(Map<String, Value>);

impl Fields {
    fn take(&mut self, key: &str) -> Result<Value, String> {
        self.0
            .remove(key)
            .ok_or_else(|| format!("missing \"{key}\""))
    }

    fn string(&mut self, key: &str) -> Result<String, String> {
        match self.take(key)? {
            Value::String(s) => Ok(s),
            other => Err(format!("\"{key}\" must be a string, found {other}")),
        }
    }

    fn number(&mut self, key: &str) -> Result<f64, String> {
        let value = self.take(key)?;
        value
            .as_f64()
            .filter(|v| v.is_finite() && v.abs() <= f32::MAX as f64)
            .ok_or_else(|| format!("\"{key}\" must be a finite number, found {value}"))
    }

    /// `read`'s value for `key` if the line has it.
    fn optional<T>(
        &mut self,
        key: &str,
        read: impl FnOnce(&mut Self, &str) -> Result<T, String>,
    ) -> Result<Option<T>, String> {
        if self.0.contains_key(key) {
            read(self, key).map(Some)
        } else {
            Ok(None)
        }
    }

    /// A number or string typed into a value box, as text.
    fn scalar_text(&mut self, key: &str) -> Result<String, String> {
        match self.take(key)? {
            Value::String(s) => Ok(s),
            Value::Number(n) => Ok(n.to_string()),
            other => Err(format!(
                "\"{key}\" must be a number or a string, found {other}"
            )),
        }
    }

    fn frames(&mut self, key: &str) -> Result<u32, String> {
        let value = self.take(key)?;
        value
            .as_u64()
            .filter(|&n| n <= MAX_FRAMES as u64)
            .map(|n| n as u32)
            .ok_or_else(|| {
                format!(
                    "\"{key}\" must be a whole number of frames up to {MAX_FRAMES}, found {value}"
                )
            })
    }

    fn bool(&mut self, key: &str) -> Result<bool, String> {
        match self.take(key)? {
            Value::Bool(b) => Ok(b),
            other => Err(format!("\"{key}\" must be true or false, found {other}")),
        }
    }

    fn floats<const N: usize>(&mut self, key: &str) -> Result<[f32; N], String> {
        let value = self.take(key)?;
        let numbers: Option<Vec<f32>> = value.as_array().and_then(|items| {
            items
                .iter()
                .map(|v| {
                    v.as_f64()
                        .filter(|f| f.is_finite() && f.abs() <= f32::MAX as f64)
                        .map(|f| f as f32)
                })
                .collect()
        });
        numbers
            .and_then(|n| <[f32; N]>::try_from(n).ok())
            .ok_or_else(|| format!("\"{key}\" must be {N} finite numbers, found {value}"))
    }

    fn point(&mut self, key: &str) -> Result<[f32; 3], String> {
        self.floats(key)
    }

    fn pair(&mut self, key: &str) -> Result<[f32; 2], String> {
        self.floats(key)
    }

    fn file_name(&mut self, key: &str) -> Result<PathBuf, String> {
        let path = self.string(key)?;
        if path.is_empty() {
            return Err(format!("\"{key}\" needs a file name"));
        }
        Ok(PathBuf::from(path))
    }

    fn button(&mut self, key: &str) -> Result<Button, String> {
        let name = self.string(key)?;
        Button::parse(&name)
            .ok_or_else(|| format!("\"{key}\": unknown button \"{name}\" (left, right or middle)"))
    }

    fn finish(self) -> Result<(), String> {
        match self.0.keys().next() {
            None => Ok(()),
            Some(extra) => Err(format!("unexpected \"{extra}\"")),
        }
    }
}

/// One action as a line of a session file (what `--record` writes).
pub fn action_line(action: &Action) -> String {
    let value = match action {
        Action::Drag { label, to, frames } => {
            serde_json::json!({ "drag": label, "to": to, "frames": frames })
        }
        Action::Set { label, value } => serde_json::json!({ "set": label, "value": value }),
        Action::Click { label } => serde_json::json!({ "click": label }),
        Action::Draw { mode } => serde_json::json!({ "draw": mode }),
        Action::Key { key } => serde_json::json!({ "key": key }),
        Action::KeyDown { key } => serde_json::json!({ "key_down": key }),
        Action::KeyUp { key } => serde_json::json!({ "key_up": key }),
        Action::ClickWorld { point, shift } => {
            serde_json::json!({ "click_world": point, "shift": shift })
        }
        Action::Pointer { x, y } => serde_json::json!({ "pointer": [x, y] }),
        Action::Press(button) => serde_json::json!({ "press": button.name() }),
        Action::Release(button) => serde_json::json!({ "release": button.name() }),
        Action::Wheel(lines) => serde_json::json!({ "wheel": lines }),
        Action::WaitFrames(frames) => serde_json::json!({ "wait_frames": frames }),
        Action::WaitSeconds(seconds) => serde_json::json!({ "wait_seconds": seconds }),
        Action::WaitBuild => serde_json::json!({ "wait_build": true }),
        Action::Screenshot(path) => serde_json::json!({ "screenshot": path }),
        Action::State(path) => serde_json::json!({ "state": path }),
        Action::Expect { text, min_height } => match min_height {
            Some(height) => serde_json::json!({ "expect": text, "min_height": height }),
            None => serde_json::json!({ "expect": text }),
        },
    };
    value.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_action_parses_and_prints_back() {
        let text = r#"
            # a comment
            {"drag": "Max Slope", "to": 10.0, "frames": 20}
            {"set": "Cell Size", "value": 0.2}
            {"click": "Build"}
            {"draw": "Raw Contours"}
            {"key": "Escape"}
            {"key_down": "Shift"}
            {"key_up": "Shift"}
            {"click_world": [1, 2.5, -3], "shift": true}
            {"pointer": [640, 400]}
            {"press": "left"}
            {"release": "Right"}
            {"wheel": -2}
            {"wait_frames": 3}
            {"wait_seconds": 1.5}
            {"wait_build": true}
            {"screenshot": "a.png"}
            {"state": "a.json"}
            {"expect": "0 failed", "min_height": 14}
        "#;
        let script = parse_script(text).unwrap();
        assert_eq!(script.len(), 18);
        assert_eq!(script[0].line, 3);
        assert_eq!(
            script[0].action,
            Action::Drag {
                label: "Max Slope".into(),
                to: 10.0,
                frames: 20
            }
        );
        assert_eq!(
            script[1].action,
            Action::Set {
                label: "Cell Size".into(),
                value: "0.2".into()
            }
        );
        assert_eq!(script[10].action, Action::Release(Button::Right));
        let printed: String = script
            .iter()
            .map(|l| action_line(&l.action) + "\n")
            .collect();
        let again: Vec<Action> = parse_script(&printed)
            .unwrap()
            .into_iter()
            .map(|l| l.action)
            .collect();
        let first: Vec<Action> = script.into_iter().map(|l| l.action).collect();
        assert_eq!(again, first);
    }

    #[test]
    fn bad_lines_name_the_line_and_the_problem() {
        let cases = [
            ("{\"click\": 3}", "must be a string"),
            ("{\"drag\": \"Radius\"}", "missing \"to\""),
            (
                "{\"drag\": \"Radius\", \"to\": 1, \"speed\": 2}",
                "unexpected \"speed\"",
            ),
            ("{\"click\": \"A\", \"key\": \"B\"}", "one action per line"),
            ("{\"jump\": 1}", "no action"),
            ("[1, 2]", "expected a JSON object"),
            ("{\"wait_frames\": -1}", "whole number"),
            ("{\"wait_frames\": 1e12}", "whole number"),
            ("{\"wait_seconds\": -1}", "from 0 to"),
            ("{\"wait_seconds\": 1e9}", "from 0 to"),
            ("{\"pointer\": [1]}", "2 finite numbers"),
            ("{\"click_world\": [1, 2, 1e300]}", "3 finite numbers"),
            ("{\"press\": \"thumb\"}", "unknown button"),
            ("{\"wait_build\": false}", "takes true"),
            ("{\"screenshot\": \"\"}", "needs a file name"),
            ("not json", "not JSON"),
        ];
        for (line, expected) in cases {
            let text = format!("{{\"wait_frames\": 1}}\n{line}\n");
            let error = parse_script(&text).unwrap_err();
            assert_eq!(error.line, 2, "{line}");
            assert!(error.message.contains(expected), "{line}: {error}");
        }
    }
}
