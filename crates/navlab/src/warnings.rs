//! Problems that did not stop an operation, kept bounded ([`Warnings`]), and one-line
//! excerpts of hostile text for messages ([`excerpt`]). Every layer that reports a problem
//! uses them, so they sit below all of them.

use std::borrow::Cow;

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
