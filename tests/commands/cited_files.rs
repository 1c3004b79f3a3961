//! Every file the README, the docs or a comment in the code cites by its path exists, so a
//! reader who follows a citation finds it (paths are taken relative to the repository, to the
//! citing file, to the crate, or to the reference data, as the citations are written).

use std::path::{Path, PathBuf};

/// The files whose citations are checked.
fn citing_files(root: &Path) -> Vec<PathBuf> {
    let mut files = vec![root.join("README.md")];
    let mut folders: Vec<PathBuf> = ["docs", "src", "crates", "tests", "benches", "examples"]
        .iter()
        .map(|f| root.join(f))
        .collect();
    while let Some(folder) = folders.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() && !path.ends_with("data") && !path.ends_with("target") {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "rs" || e == "md") {
                files.push(path);
            }
        }
    }
    files
}

/// The paths cited in `text` as `` `folder/file.ext` ``.
fn cited_paths(text: &str) -> Vec<&str> {
    const EXTENSIONS: [&str; 12] = [
        "rs", "md", "json", "txt", "obj", "gset", "bin", "toml", "sh", "png", "tset", "glb",
    ];
    text.split('`')
        .skip(1)
        .step_by(2)
        .filter(|quoted| {
            quoted.contains('/')
                && !quoted.contains(char::is_whitespace)
                && !quoted.contains(['*', '{', '$', '<', ':'])
                && quoted
                    .rsplit_once('.')
                    .is_some_and(|(_, ext)| EXTENSIONS.contains(&ext))
        })
        .collect()
}

#[test]
fn every_cited_file_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bases = [
        root.to_path_buf(),
        root.join("crates/navlab"),
        root.join("crates/bevy_navlab"),
        root.join("tests/data/reference"),
    ];
    let mut missing = Vec::new();
    for file in citing_files(root) {
        let text = std::fs::read_to_string(&file).unwrap();
        for cited in cited_paths(&text) {
            let beside = file.parent().unwrap().join(cited);
            if !beside.exists() && !bases.iter().any(|base| base.join(cited).exists()) {
                missing.push(format!("{}: `{cited}`", file.display()));
            }
        }
    }
    // Paths the hostile-input tests create in a temporary folder.
    missing.retain(|m| !m.contains("hostile_input/outputs.rs"));
    assert!(
        missing.is_empty(),
        "cited files missing:\n{}",
        missing.join("\n")
    );
}

#[test]
fn citations_are_found_in_backquotes() {
    let text = "see `docs/cli.md` and `tests/data/reference/README.md`, not `a b/c.md` or `x.rs`";
    assert_eq!(
        cited_paths(text),
        ["docs/cli.md", "tests/data/reference/README.md"]
    );
}
