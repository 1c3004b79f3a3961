//! A RecastDemo test-case file and what it names: read and checked, its sample (`s` row) and
//! its mesh (`f` row), found where RecastDemo's layout keeps meshes. Shared by `navlab test`,
//! `navlab crowd` and the viewer's Test Cases window, so all three refuse and find the same.

use std::path::{Component, Path, PathBuf};

use crate::demo::text::TestFile;
use navlab::error::{NavlabError, Result};
use navlab::file::{read_capped, strip_utf8_bom};

/// Test-case files are small; anything bigger is not one.
pub const MAX_TEST_FILE_BYTES: u64 = 16 << 20;

/// The samples a test file can name, as RecastDemo writes them in its `s` row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TestSample {
    SoloMesh,
    TileMesh,
    TempObstacles,
}

impl TestSample {
    /// RecastDemo's name, any case, or the short "solo", "tile", "obstacles".
    pub fn parse(name: &str) -> Option<TestSample> {
        match name.trim().to_ascii_lowercase().as_str() {
            "solo mesh" | "solo" => Some(TestSample::SoloMesh),
            "tile mesh" | "tile" => Some(TestSample::TileMesh),
            "temp obstacles" | "obstacles" => Some(TestSample::TempObstacles),
            _ => None,
        }
    }

    /// RecastDemo's name for the sample.
    pub fn name(self) -> &'static str {
        match self {
            TestSample::SoloMesh => "Solo Mesh",
            TestSample::TileMesh => "Tile Mesh",
            TestSample::TempObstacles => "Temp Obstacles",
        }
    }
}

/// Reads and checks a test file: UTF-8 (a byte-order mark is dropped), at most
/// [`MAX_TEST_FILE_BYTES`], every `pf`/`rc` row well formed, at least one of them. Returns
/// the text (for [`line_of`]) and the parsed file; errors name the file and the line.
pub fn read_test_file(path: &Path) -> Result<(String, TestFile)> {
    let bytes = read_capped(path, MAX_TEST_FILE_BYTES)?;
    let text = String::from_utf8(strip_utf8_bom(&bytes).to_vec())
        .map_err(|_| test_file_error(path, None, "is not a text file (not UTF-8)".into()))?;
    let file = TestFile::parse_checked(&text)
        .map_err(|e| test_file_error(path, Some(e.line), e.message))?;
    if file.tests.is_empty() {
        return Err(test_file_error(
            path,
            None,
            "has no `pf` or `rc` lines".into(),
        ));
    }
    Ok((text, file))
}

/// An error in the test file `path`, at its 1-based `line` if known.
pub fn test_file_error(path: &Path, line: Option<usize>, message: String) -> NavlabError {
    let message = match line {
        Some(line) => format!("line {line}: {message}"),
        None => message,
    };
    NavlabError::InvalidSettingsFile {
        path: path.to_owned(),
        message,
    }
}

/// The 1-based line of the first row starting with `prefix` (after blanks).
pub fn line_of(text: &str, prefix: char) -> Option<usize> {
    text.lines()
        .position(|l| l.trim_start().starts_with(prefix))
        .map(|i| i + 1)
}

/// A test file's mesh that is in none of the places looked in (or a file naming none).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MeshNotFound {
    /// The `f` row's name; empty when the file has no `f` row.
    pub name: String,
    /// Where it was looked for, in order.
    pub searched: Vec<PathBuf>,
}

impl std::fmt::Display for MeshNotFound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.name.is_empty() {
            return f.write_str("names no mesh (no `f` line)");
        }
        write!(f, "names the mesh `{}`, which is in none of ", self.name)?;
        for (n, place) in self.searched.iter().enumerate() {
            let separator = if n == 0 { "" } else { ", " };
            write!(f, "{separator}{}", place.display())?;
        }
        Ok(())
    }
}

/// Where the mesh `name` of the test file `cases` may be, in the order looked at. RecastDemo
/// opens it from its working directory, where `Meshes/` holds the meshes and `TestCases/` the
/// test files: so `Meshes/` (or `meshes/`) beside the file's folder, then the repository's
/// `assets/Meshes/` and `assets/` (relative to the working directory), then the file's folder.
pub fn mesh_places(cases: &Path, name: &str) -> Vec<PathBuf> {
    let dir = cases.parent().unwrap_or(Path::new(""));
    // `TestCases/..` written as its parent, so the paths shown stay short.
    let above = match dir.components().next_back() {
        Some(Component::Normal(_)) => dir.parent().unwrap_or(Path::new("")).to_owned(),
        _ => dir.join(".."),
    };
    vec![
        above.join("Meshes").join(name),
        above.join("meshes").join(name),
        Path::new("assets").join("Meshes").join(name),
        Path::new("assets").join(name),
        dir.join(name),
    ]
}

/// The mesh the `f` row `name` of the test file `cases` names, from [`mesh_places`].
pub fn find_test_mesh(cases: &Path, name: &str) -> std::result::Result<PathBuf, MeshNotFound> {
    let name = name.trim();
    let not_found = |searched| MeshNotFound {
        name: name.to_string(),
        searched,
    };
    if name.is_empty() {
        return Err(not_found(Vec::new()));
    }
    let places = mesh_places(cases, name);
    match places.iter().find(|p| p.is_file()) {
        Some(found) => Ok(found.clone()),
        None => Err(not_found(places)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_parse_as_recast_demo_writes_them() {
        for sample in [
            TestSample::SoloMesh,
            TestSample::TileMesh,
            TestSample::TempObstacles,
        ] {
            assert_eq!(TestSample::parse(sample.name()), Some(sample));
            assert_eq!(
                TestSample::parse(&format!(" {} ", sample.name().to_uppercase())),
                Some(sample)
            );
        }
        assert_eq!(TestSample::parse("Crowd Mesh"), None);
    }

    #[test]
    fn meshes_are_found_beside_the_test_cases_folder_first() {
        let root = std::env::temp_dir().join(format!("navlab-test-file-{}", std::process::id()));
        let cases = root.join("TestCases");
        std::fs::create_dir_all(&cases).unwrap();
        std::fs::create_dir_all(root.join("Meshes")).unwrap();
        std::fs::write(root.join("Meshes/level.obj"), "v 0 0 0\n").unwrap();
        std::fs::write(cases.join("level.obj"), "v 0 0 0\n").unwrap();
        std::fs::write(cases.join("own.obj"), "v 0 0 0\n").unwrap();
        let file = cases.join("t.txt");
        assert_eq!(
            find_test_mesh(&file, "level.obj"),
            Ok(root.join("Meshes/level.obj"))
        );
        assert_eq!(find_test_mesh(&file, " own.obj"), Ok(cases.join("own.obj")));
        let missing = find_test_mesh(&file, "no_such_mesh.obj").unwrap_err();
        assert_eq!(missing.searched.len(), 5);
        let message = missing.to_string();
        assert!(message.contains("`no_such_mesh.obj`"), "{message}");
        assert!(message.contains(&root.join("Meshes").display().to_string()));
        assert_eq!(
            find_test_mesh(&file, "").unwrap_err().to_string(),
            "names no mesh (no `f` line)"
        );
        // Relative folders stay short; `..` is climbed by another `..`.
        assert_eq!(
            mesh_places(Path::new("TestCases/t.txt"), "m.obj")[0],
            Path::new("Meshes/m.obj")
        );
        assert_eq!(
            mesh_places(Path::new("t.txt"), "m.obj")[0],
            Path::new("../Meshes/m.obj")
        );
        assert_eq!(
            mesh_places(Path::new("../t.txt"), "m.obj")[0],
            Path::new("../../Meshes/m.obj")
        );
        std::fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn bad_files_name_the_line() {
        let dir = std::env::temp_dir().join(format!("navlab-test-file-bad-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("bad.txt");
        std::fs::write(&path, "\u{feff}s Solo Mesh\npf 1 2 3\n").unwrap();
        let message = read_test_file(&path).unwrap_err().to_string();
        assert!(message.contains("bad.txt: line 2"), "{message}");
        std::fs::write(&path, "s Solo Mesh\nf m.obj\n").unwrap();
        let message = read_test_file(&path).unwrap_err().to_string();
        assert!(message.contains("no `pf` or `rc`"), "{message}");
        std::fs::write(&path, [0xff, 0xfe, 0]).unwrap();
        assert!(read_test_file(&path).is_err());
        std::fs::remove_dir_all(dir).unwrap();
    }
}
