//! One error type for every fallible operation, so callers (CLI, viewer) can show a clear message,
//! and [`Warnings`], the bounded record of problems that did not stop one.

use std::borrow::Cow;
use std::path::PathBuf;

/// Everything that can go wrong when loading input or building a navmesh.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum NavlabError {
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A file larger than Navlab reads for its kind, so that a wrong file, a pipe or a device that
    /// never ends cannot exhaust memory. `size` is unknown for what is not a regular file.
    #[error("{path}: {}, over the limit of {limit} bytes", describe_size(.size, *.limit))]
    FileTooLarge {
        path: PathBuf,
        size: Option<u64>,
        limit: u64,
    },
    /// The input mesh file is not valid OBJ or glTF, or its content is unusable.
    #[error("{path}: {message}")]
    InvalidMesh { path: PathBuf, message: String },
    /// A settings file (TOML or `.gset`) could not be parsed.
    #[error("{path}: {message}")]
    InvalidSettingsFile { path: PathBuf, message: String },
    /// A `--set NAME=VALUE` override could not be applied.
    #[error("--set {assignment}: {message}")]
    InvalidSettingOverride { assignment: String, message: String },
    /// An output path the run may not write: one of its inputs, a file an input names, or
    /// another output of the same run.
    #[error("{flag} {}: {problem}", path.display())]
    OutputPath {
        flag: &'static str,
        path: PathBuf,
        problem: String,
    },
    /// A build setting is out of its valid range.
    #[error("setting `{name}` = {value}: {reason}")]
    InvalidSetting {
        name: &'static str,
        value: String,
        reason: String,
    },
    /// The voxel grid would be too large to build.
    #[error(
        "the voxel grid would be {width} x {height} = {cells} cells, over the limit of {limit}; raise cellSize (now {cell_size})"
    )]
    GridTooLarge {
        width: i64,
        height: i64,
        cells: i64,
        limit: i64,
        cell_size: f32,
    },
    /// The bounds are taller than a span's height bits can hold at this cell height (Recast
    /// would clamp everything above to the top silently).
    #[error(
        "the mesh is {} m tall (y {} to {}), more than {} cells of cellHeight {cell_height} can hold; raise cellHeight to at least {min_cell_height}",
        round_tenth(*.tall),
        round_tenth(*.bottom),
        round_tenth(*.bottom + *.tall),
        crate::recast::heightfield::SPAN_MAX_HEIGHT
    )]
    TooTall {
        tall: f32,
        bottom: f32,
        cell_height: f32,
        min_cell_height: f32,
    },
    /// A buffer of the build would not fit in memory (`limit` is the machine's memory when that
    /// was the reason, `None` when the allocator refused).
    #[error("{}", out_of_memory(.what, *.bytes, *.limit))]
    OutOfMemory {
        what: String,
        bytes: u64,
        limit: Option<u64>,
    },
    /// The build made no polygon; `what` says which stage removed the last walkable geometry.
    #[error("nothing is walkable: {what}; check {check}")]
    NothingWalkable { what: String, check: String },
    /// The tile grid has more tiles than a Detour navmesh can address.
    #[error(
        "{tiles_x} x {tiles_y} tiles exceed the {max_tiles} tiles a Detour navmesh can address; {}",
        match .min_tile_size {
            Some(size) => format!("use --tile-size {size} or more"),
            None => "no tile size up to 4096 is enough: raise cellSize".to_string(),
        }
    )]
    TooManyTiles {
        tiles_x: i64,
        tiles_y: i64,
        max_tiles: i64,
        min_tile_size: Option<i32>,
    },
    /// A `--tiles` range that is malformed or does not fit the tile grid.
    #[error("--tiles {range}: {reason}")]
    InvalidTileRange { range: String, reason: String },
    /// Parts given to `navlab merge` that do not make one navmesh.
    #[error("{0}")]
    MergeParts(String),
    /// A navmesh file is unreadable as Detour data (see [`crate::detour::DetourError`]).
    #[error("{path}: {source}")]
    InvalidNavMeshFile {
        path: PathBuf,
        #[source]
        source: crate::detour::DetourError,
    },
    /// Detour rejected navmesh data or an operation on a navmesh.
    #[error(transparent)]
    Detour(#[from] crate::detour::DetourError),
    /// A build stage failed (Recast's wording is kept in `message` to help searching).
    #[error("{stage}: {message}")]
    Stage {
        stage: &'static str,
        message: String,
    },
}

/// A length in metres for messages, to a tenth.
fn round_tenth(metres: f32) -> f32 {
    (metres * 10.0).round() / 10.0
}

fn out_of_memory(what: &str, bytes: u64, limit: Option<u64>) -> String {
    let size = crate::memory::format_bytes(bytes);
    let why = match limit {
        Some(limit) => format!(
            "{what} would need {size}, more than the {} of memory here",
            crate::memory::format_bytes(limit)
        ),
        None => format!("{what} would need {size}, which could not be allocated"),
    };
    format!("{why}; raise cellSize or cellHeight")
}

/// Shorthand used across the crate.
pub type Result<T, E = NavlabError> = std::result::Result<T, E>;

fn describe_size(size: &Option<u64>, limit: u64) -> String {
    match size {
        Some(size) => format!("the file is {size} bytes"),
        None => format!("it gave more than {limit} bytes (a pipe or device that does not end?)"),
    }
}

/// At most `max_chars` characters of `text` for a one-line message, with control characters
/// escaped (`\n`, `\u{1b}`: a hostile file cannot break the line or send terminal codes) and
/// `…` where it was cut.
pub fn excerpt(text: &str, max_chars: usize) -> String {
    let mut shown = String::new();
    for (i, c) in text.chars().enumerate() {
        if i == max_chars {
            shown.push('…');
            break;
        }
        if c.is_control() {
            shown.extend(c.escape_debug());
        } else {
            shown.push(c);
        }
    }
    shown
}

/// Problems that did not stop an operation (a skipped face, a non-fatal Recast error), kept
/// bounded: the first [`Warnings::SHOWN_PER_KIND`] of each kind in full, the rest only counted,
/// so a file of millions of bad rows costs a few lines of memory and output, not millions.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Warnings {
    kinds: Vec<WarningKind>,
}

#[derive(Clone, Debug, PartialEq)]
struct WarningKind {
    /// What the warnings of this kind are about, in the plural, for the summary line.
    name: Cow<'static, str>,
    shown: Vec<String>,
    count: u64,
}

impl Warnings {
    /// How many warnings of one kind are kept in full.
    pub const SHOWN_PER_KIND: usize = 5;

    /// Records a warning of `kind` (a plural noun phrase: "faces with an index out of range");
    /// `message` is only built when the warning is kept in full.
    pub fn push(&mut self, kind: impl Into<Cow<'static, str>>, message: impl FnOnce() -> String) {
        let kind = kind.into();
        let index = match self.kinds.iter().position(|k| k.name == kind) {
            Some(index) => index,
            None => {
                self.kinds.push(WarningKind {
                    name: kind,
                    shown: Vec::new(),
                    count: 0,
                });
                self.kinds.len() - 1
            }
        };
        let entry = &mut self.kinds[index];
        entry.count += 1;
        if entry.shown.len() < Self::SHOWN_PER_KIND {
            entry.shown.push(message());
        }
    }

    /// Whether nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.kinds.is_empty()
    }

    /// How many warnings were recorded, shown or counted.
    pub fn total(&self) -> u64 {
        self.kinds.iter().map(|k| k.count).sum()
    }

    /// The lines to show: each kind's first warnings, then "… and 24 999 995 more …" for the
    /// rest of that kind.
    pub fn lines(&self) -> Vec<String> {
        let mut lines = Vec::new();
        for kind in &self.kinds {
            lines.extend(kind.shown.iter().cloned());
            let hidden = kind.count - kind.shown.len() as u64;
            if hidden > 0 {
                lines.push(format!("… and {} more {}", group_digits(hidden), kind.name));
            }
        }
        lines
    }
}

/// `24999995` as `24 999 995`.
fn group_digits(value: u64) -> String {
    let digits = value.to_string();
    let mut grouped = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            grouped.push(' ');
        }
        grouped.push(digit);
    }
    grouped
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warnings_keep_the_first_few_of_each_kind_and_count_the_rest() {
        let mut warnings = Warnings::default();
        let mut built = 0;
        for i in 0..25_000_000u64 / 1000 {
            warnings.push("bad faces", || {
                built += 1;
                format!("bad face {i}")
            });
        }
        warnings.push("long rows", || "long row".into());
        assert_eq!(built, Warnings::SHOWN_PER_KIND);
        assert_eq!(warnings.total(), 25_001);
        let lines = warnings.lines();
        assert_eq!(lines.len(), Warnings::SHOWN_PER_KIND + 2);
        assert_eq!(lines[0], "bad face 0");
        assert_eq!(lines[5], "… and 24 995 more bad faces");
        assert_eq!(lines[6], "long row");
    }

    #[test]
    fn excerpts_are_short_and_printable() {
        assert_eq!(excerpt("cellSize", 40), "cellSize");
        assert_eq!(excerpt("a\nb\r\u{1b}[2J", 40), "a\\nb\\r\\u{1b}[2J");
        assert_eq!(excerpt("abcdef", 3), "abc…");
        assert_eq!(excerpt("é\tü", 40), "é\\tü");
    }

    #[test]
    fn digits_group_by_thousands() {
        assert_eq!(group_digits(0), "0");
        assert_eq!(group_digits(999), "999");
        assert_eq!(group_digits(1000), "1 000");
        assert_eq!(group_digits(24_999_995), "24 999 995");
    }
}
