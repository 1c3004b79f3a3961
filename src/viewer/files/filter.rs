//! Which files a dialog offers, by extension.

use std::path::Path;

/// The file types a dialog offers.
#[derive(Clone, Copy)]
pub struct FileFilter {
    pub name: &'static str,
    pub extensions: &'static [&'static str],
}

/// Whether `path`'s extension is one of `extensions`, ignoring case; `*` takes any file.
pub fn has_extension(path: &Path, extensions: &[&str]) -> bool {
    extensions.contains(&"*")
        || path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| extensions.iter().any(|x| x.eq_ignore_ascii_case(e)))
}
