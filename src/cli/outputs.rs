//! The rule every command's outputs go through, before any work is done: no output may be one
//! of the run's inputs, a file an input names (a `.gset`'s mesh, a glTF's buffer files, the
//! mesh a test-case file names), or another output of the same run. Two paths are one file
//! when they reach it through links, hard links, `..` or a relative path. (That each output is
//! then written whole or not at all is `navlab::file::write_atomically`'s part.)

use std::path::{Path, PathBuf};

use navlab::error::{NavlabError, Result};
use navlab::input::InputGeom;

/// The files one run reads and writes.
#[derive(Default)]
pub struct RunFiles {
    /// What each input is, for the message ("the test-case file"), and its path.
    inputs: Vec<(String, PathBuf)>,
    /// The flag that names each output, and its path.
    outputs: Vec<(&'static str, PathBuf)>,
}

impl RunFiles {
    /// An input file, described as `what` in the refusal.
    pub fn input(&mut self, what: impl Into<String>, path: &Path) -> &mut Self {
        self.inputs.push((what.into(), path.to_owned()));
        self
    }

    /// Every file a loaded input was read from: the file named on the command line, the mesh
    /// a `.gset` names, a glTF's buffer files.
    pub fn input_geom(&mut self, what: &str, input: &InputGeom) -> &mut Self {
        let is_gset = input.files_read.first().is_some_and(|first| {
            first
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("gset"))
        });
        for (n, path) in input.files_read.iter().enumerate() {
            let what = match n {
                0 => what.to_owned(),
                1 if is_gset => format!("{what}'s mesh"),
                _ => format!("a buffer file of {what}"),
            };
            self.input(what, path);
        }
        self
    }

    /// An output, if given, named by its flag.
    pub fn output(&mut self, flag: &'static str, path: Option<&Path>) -> &mut Self {
        if let Some(path) = path {
            self.outputs.push((flag, path.to_owned()));
        }
        self
    }

    /// Refuses the first output that is an input or an earlier output.
    pub fn check(&self) -> Result<()> {
        for (i, (flag, output)) in self.outputs.iter().enumerate() {
            let refuse = |problem: String| NavlabError::OutputPath {
                flag,
                path: output.clone(),
                problem,
            };
            if let Some((what, _)) = self.inputs.iter().find(|(_, i)| same_file(output, i)) {
                return Err(refuse(format!(
                    "is {what}; writing there would destroy it, choose another file"
                )));
            }
            // A device or a pipe (`/dev/null`, `/dev/stdout`) may take several outputs.
            let is_special = std::fs::metadata(output).is_ok_and(|m| !m.is_file() && !m.is_dir());
            if !is_special
                && let Some((first, _)) =
                    self.outputs[..i].iter().find(|(_, o)| same_file(o, output))
            {
                return Err(refuse(format!(
                    "is also the {first} file; the two would overwrite each other"
                )));
            }
        }
        Ok(())
    }
}

/// Whether two paths name one file: the same file when both exist (through links too), else
/// the same place once links and the folders are resolved.
pub fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        #[cfg(unix)]
        (Ok(ma), Ok(mb)) => {
            use std::os::unix::fs::MetadataExt;
            (ma.dev(), ma.ino()) == (mb.dev(), mb.ino())
        }
        #[cfg(not(unix))]
        (Ok(_), Ok(_)) => a.canonicalize().ok() == b.canonicalize().ok(),
        (Err(_), Err(_)) => resolved(a) == resolved(b),
        _ => false,
    }
}

/// Where a file that may not exist yet would be written: the path made absolute, with its
/// folder's links and a dangling link at the end resolved.
fn resolved(path: &Path) -> PathBuf {
    // A dangling link is written through, so it is where its target is.
    let target = navlab::file::link_target(path);
    let absolute = std::path::absolute(&target).unwrap_or(target);
    match (absolute.parent(), absolute.file_name()) {
        (Some(dir), Some(name)) => dir
            .canonicalize()
            .map(|dir| dir.join(name))
            .unwrap_or(absolute.clone()),
        _ => absolute,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_dots_and_missing_files_are_seen_through() {
        let dir = std::env::temp_dir().join(format!("navlab-outputs-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        let input = dir.join("in.obj");
        std::fs::write(&input, "v 0 0 0\n").unwrap();
        assert!(same_file(&input, &dir.join("sub/../in.obj")));
        assert!(same_file(&dir.join("new.bin"), &dir.join("sub/../new.bin")));
        assert!(!same_file(&dir.join("new.bin"), &input));
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(&input, dir.join("link.obj")).unwrap();
            std::fs::hard_link(&input, dir.join("hard.obj")).unwrap();
            std::os::unix::fs::symlink(dir.join("later.bin"), dir.join("dangling.bin")).unwrap();
            assert!(same_file(&input, &dir.join("link.obj")));
            assert!(same_file(&input, &dir.join("hard.obj")));
            assert!(same_file(&dir.join("dangling.bin"), &dir.join("later.bin")));
        }
        let mut files = RunFiles::default();
        files
            .input("the input", &input)
            .output("--json", Some(&dir.join("a.json")))
            .output("-o", Some(&dir.join("sub/../a.json")));
        let err = files.check().unwrap_err().to_string();
        assert!(
            err.contains("-o") && err.contains("also the --json file"),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn devices_may_take_several_outputs() {
        let mut files = RunFiles::default();
        files
            .output("--json", Some(Path::new("/dev/null")))
            .output("-o", Some(Path::new("/dev/null")));
        files.check().unwrap();
    }
}
