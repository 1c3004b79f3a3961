//! The source's shape, checked rather than stated: every file's uses of other files are read
//! with `syn`, and
//! - no two files use each other, directly or round a circle (test code aside);
//! - each top-level module of the library uses only the modules below it in [`LIBRARY_LAYERS`],
//!   and so does each of the application's in [`APPLICATION_LAYERS`] (when the workspace's
//!   application sits beside this crate).
//!
//! A use of an item that a module re-exports (`pub use child::Item`) counts as a use of the file
//! that defines it, and a module's `pub use` of its own children is its shape, not a use, so a
//! parent that only re-exports is never part of a circle.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use syn::visit::Visit;

/// The library's top-level modules, each with the modules it may use.
const LIBRARY_LAYERS: &[(&str, &[&str])] = &[
    ("threads", &[]),
    ("math", &[]),
    ("memory", &[]),
    ("warnings", &[]),
    ("file", &["warnings"]),
    ("recast", &["threads", "math", "memory"]),
    ("input", &["math", "memory", "warnings", "file", "recast"]),
    ("detour", &["math", "memory", "file"]),
    ("crowd", &["math", "detour"]),
    ("tile_cache", &["math", "memory", "file", "detour"]),
    (
        "error",
        &["memory", "file", "recast", "input", "detour", "tile_cache"],
    ),
    (
        "bake",
        &[
            "threads",
            "math",
            "memory",
            "warnings",
            "file",
            "recast",
            "input",
            "detour",
            "tile_cache",
            "error",
        ],
    ),
    (
        "debug_draw",
        &[
            "math",
            "recast",
            "input",
            "detour",
            "crowd",
            "tile_cache",
            "bake",
        ],
    ),
    (
        "game",
        &[
            "detour",
            "crowd",
            "tile_cache",
            "input",
            "recast",
            "bake",
            "error",
        ],
    ),
    ("prelude", &["bake", "detour", "error", "game", "input"]),
];

/// The application's top-level modules (its library and its binary's `cli`), each with the
/// modules it may use; all of them may use the `navlab` library.
const APPLICATION_LAYERS: &[(&str, &[&str])] = &[
    ("demo", &[]),
    ("remote", &[]),
    ("session_script", &[]),
    ("viewer", &["demo", "remote", "session_script"]),
    ("cli", &["demo", "remote", "session_script", "viewer"]),
];

/// One source file: its module path and what it uses.
struct SourceFile {
    path: PathBuf,
    module: Vec<String>,
    /// Whether the file exists only for tests (`#[cfg(test)] mod name;`).
    test_only: bool,
    syntax: syn::File,
}

/// Every `.rs` file under `src`, with the module path its place gives it.
fn source_files(src: &Path) -> Vec<SourceFile> {
    let mut files = Vec::new();
    let mut folders = vec![src.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let relative = path.strip_prefix(src).unwrap();
                let mut module: Vec<String> = relative
                    .with_extension("")
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                if matches!(
                    module.last().map(String::as_str),
                    Some("mod" | "lib" | "main")
                ) {
                    module.pop();
                }
                let text = std::fs::read_to_string(&path).unwrap();
                let syntax =
                    syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                files.push(SourceFile {
                    path,
                    module,
                    test_only: false,
                    syntax,
                });
            }
        }
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    // Files declared under `#[cfg(test)]` are test code.
    let mut test_modules = BTreeSet::new();
    for file in &files {
        for item in &file.syntax.items {
            if let syn::Item::Mod(m) = item
                && m.content.is_none()
                && is_test_only(&m.attrs)
            {
                let mut module = file.module.clone();
                module.push(m.ident.to_string());
                test_modules.insert(module);
            }
        }
    }
    for file in &mut files {
        file.test_only = test_modules
            .iter()
            .any(|m| file.module.starts_with(m) && !m.is_empty());
    }
    files
}

fn is_test_only(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && a.parse_args::<syn::Meta>()
                .is_ok_and(|meta| meta.path().is_ident("test"))
    })
}

/// A path as written, the inline modules (`mod name { … }`) it was written in, and whether it
/// was a `pub use` (a re-export).
struct Reference {
    segments: Vec<String>,
    inline: Vec<String>,
    reexport: bool,
}

/// Collects the paths a file's non-test items name, and its imports (name → path).
#[derive(Default)]
struct Collector {
    /// The inline modules the visit is in.
    inline: Vec<String>,
    references: Vec<Reference>,
    /// (inline modules, name) → path, as `use` brought the name into that scope.
    imports: BTreeMap<(Vec<String>, String), Vec<String>>,
    /// `pub use` leaves: exported name → path.
    exports: Vec<(String, Vec<String>)>,
}

impl Collector {
    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree, public: bool) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(prefix, &p.tree, public);
                prefix.pop();
            }
            syn::UseTree::Name(n) => self.leaf(prefix, n.ident.to_string(), None, public),
            syn::UseTree::Rename(r) => self.leaf(
                prefix,
                r.ident.to_string(),
                Some(r.rename.to_string()),
                public,
            ),
            syn::UseTree::Glob(_) => self.references.push(Reference {
                segments: prefix.clone(),
                inline: self.inline.clone(),
                reexport: public,
            }),
            syn::UseTree::Group(g) => {
                for tree in &g.items {
                    self.use_tree(prefix, tree, public);
                }
            }
        }
    }

    fn leaf(&mut self, prefix: &[String], name: String, rename: Option<String>, public: bool) {
        let mut segments = prefix.to_vec();
        let alias = rename.unwrap_or_else(|| name.clone());
        if name != "self" {
            segments.push(name);
        }
        if alias == "_" {
            return;
        }
        let alias = if alias == "self" {
            segments.last().cloned().unwrap_or_default()
        } else {
            alias
        };
        if public {
            self.exports.push((alias.clone(), segments.clone()));
        }
        self.imports
            .insert((self.inline.clone(), alias), segments.clone());
        self.references.push(Reference {
            segments,
            inline: self.inline.clone(),
            reexport: public,
        });
    }
}

impl<'ast> Visit<'ast> for Collector {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        let attrs = match item {
            syn::Item::Mod(m) => &m.attrs,
            syn::Item::Fn(f) => &f.attrs,
            syn::Item::Impl(i) => &i.attrs,
            syn::Item::Use(u) => &u.attrs,
            syn::Item::Const(c) => &c.attrs,
            syn::Item::Static(s) => &s.attrs,
            syn::Item::Struct(s) => &s.attrs,
            syn::Item::Enum(e) => &e.attrs,
            syn::Item::Trait(t) => &t.attrs,
            _ => return syn::visit::visit_item(self, item),
        };
        if is_test_only(attrs) {
            return;
        }
        if let syn::Item::Use(u) = item {
            let public = !matches!(u.vis, syn::Visibility::Inherited);
            self.use_tree(&mut Vec::new(), &u.tree, public);
            return;
        }
        if let syn::Item::Mod(m) = item
            && m.content.is_some()
        {
            self.inline.push(m.ident.to_string());
            syn::visit::visit_item(self, item);
            self.inline.pop();
            return;
        }
        syn::visit::visit_item(self, item);
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        if path.segments.len() > 1 {
            self.references.push(Reference {
                segments: path.segments.iter().map(|s| s.ident.to_string()).collect(),
                inline: self.inline.clone(),
                reexport: false,
            });
        }
        syn::visit::visit_path(self, path);
    }
}

/// The files of one crate and how their paths resolve.
struct Crate {
    files: Vec<SourceFile>,
    by_module: BTreeMap<Vec<String>, usize>,
    collected: Vec<Collector>,
}

impl Crate {
    fn read(src: &Path) -> Crate {
        let files = source_files(src);
        let by_module = files
            .iter()
            .enumerate()
            .map(|(i, f)| (f.module.clone(), i))
            .collect();
        let collected = files
            .iter()
            .map(|file| {
                let mut collector = Collector::default();
                collector.visit_file(&file.syntax);
                collector
            })
            .collect();
        Crate {
            files,
            by_module,
            collected,
        }
    }

    /// `segments` as written in `file`, made absolute; `None` for paths into other crates
    /// (including those of the standard library) and local names.
    fn absolute(&self, file: usize, inline: &[String], segments: &[String]) -> Option<Vec<String>> {
        let mut module = self.files[file].module.clone();
        module.extend_from_slice(inline);
        let mut rest = segments;
        match rest.first().map(String::as_str) {
            Some("crate") => {
                module.clear();
                rest = &rest[1..];
            }
            Some("self") => rest = &rest[1..],
            Some("super") => {
                while rest.first().map(String::as_str) == Some("super") {
                    module.pop()?;
                    rest = &rest[1..];
                }
            }
            Some(first) => {
                let mut child = module.clone();
                child.push(first.to_string());
                if !self.by_module.contains_key(&child) {
                    // A name this file imported (`use crate::detour; … detour::NavMesh`).
                    let key = (inline.to_vec(), first.to_string());
                    let imported = self.collected[file].imports.get(&key)?;
                    let mut full = imported.clone();
                    full.extend_from_slice(&rest[1..]);
                    if full.first().is_some_and(|s| s == first) && full.len() == rest.len() {
                        return None;
                    }
                    return self.absolute(file, inline, &full);
                }
            }
            None => return None,
        }
        module.extend(rest.iter().cloned());
        Some(module)
    }

    /// The file that defines what `path` (absolute) names, following re-exports.
    fn defining_file(&self, path: &[String], depth: usize) -> Option<usize> {
        let module_len = (0..=path.len())
            .rev()
            .find(|&n| self.by_module.contains_key(&path[..n]))?;
        let file = self.by_module[&path[..module_len]];
        if depth < 8
            && let Some(item) = path.get(module_len)
        {
            for (name, target) in &self.collected[file].exports {
                if name == item
                    && let Some(target) = self.absolute(file, &[], target)
                    && let Some(found) = self.defining_file(&target, depth + 1)
                {
                    return Some(found);
                }
            }
        }
        Some(file)
    }

    /// Each file's uses of other files (test files and test code aside).
    fn edges(&self) -> BTreeMap<usize, BTreeSet<usize>> {
        let mut edges = BTreeMap::new();
        for (i, file) in self.files.iter().enumerate() {
            if file.test_only {
                continue;
            }
            let uses: &mut BTreeSet<usize> = edges.entry(i).or_default();
            for reference in &self.collected[i].references {
                let Some(path) = self.absolute(i, &reference.inline, &reference.segments) else {
                    continue;
                };
                // A module's re-export of its own descendants is its shape, not a use.
                if reference.reexport && path.starts_with(&file.module) {
                    continue;
                }
                if let Some(target) = self.defining_file(&path, 0)
                    && target != i
                    && !self.files[target].test_only
                {
                    uses.insert(target);
                }
            }
        }
        edges
    }

    fn name(&self, file: usize) -> String {
        let module = &self.files[file].module;
        if module.is_empty() {
            "crate root".into()
        } else {
            module.join("::")
        }
    }
}

/// The circles among files: Tarjan's strongly connected components of more than one file.
fn circles(edges: &BTreeMap<usize, BTreeSet<usize>>) -> Vec<Vec<usize>> {
    struct Search<'e> {
        edges: &'e BTreeMap<usize, BTreeSet<usize>>,
        index: BTreeMap<usize, usize>,
        low: BTreeMap<usize, usize>,
        stack: Vec<usize>,
        on_stack: BTreeSet<usize>,
        found: Vec<Vec<usize>>,
    }
    impl Search<'_> {
        fn visit(&mut self, v: usize) {
            let next = self.index.len();
            self.index.insert(v, next);
            self.low.insert(v, next);
            self.stack.push(v);
            self.on_stack.insert(v);
            for &w in self.edges.get(&v).into_iter().flatten() {
                if !self.index.contains_key(&w) {
                    self.visit(w);
                    let low = self.low[&v].min(self.low[&w]);
                    self.low.insert(v, low);
                } else if self.on_stack.contains(&w) {
                    let low = self.low[&v].min(self.index[&w]);
                    self.low.insert(v, low);
                }
            }
            if self.low[&v] == self.index[&v] {
                let mut component = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack.remove(&w);
                    component.push(w);
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 {
                    component.sort();
                    self.found.push(component);
                }
            }
        }
    }
    let mut search = Search {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for &v in edges.keys() {
        if !search.index.contains_key(&v) {
            search.visit(v);
        }
    }
    search.found
}

/// The problems in one crate: circles, and uses that go against `layers`.
fn problems(src: &Path, layers: &[(&str, &[&str])]) -> Vec<String> {
    let krate = Crate::read(src);
    let edges = krate.edges();
    let mut problems = Vec::new();
    for circle in circles(&edges) {
        let names: Vec<String> = circle.iter().map(|&f| krate.name(f)).collect();
        problems.push(format!("files use each other: {}", names.join(" ↔ ")));
    }
    let layer_of = |file: usize| -> Option<&str> {
        let module = &krate.files[file].module;
        let top = module.first()?;
        layers
            .iter()
            .find(|(name, _)| name == top)
            .map(|(name, _)| *name)
    };
    for (&from, targets) in &edges {
        let Some(from_layer) = layer_of(from) else {
            continue;
        };
        let allowed = layers.iter().find(|(n, _)| *n == from_layer).unwrap().1;
        for &to in targets {
            let to_layer = match layer_of(to) {
                Some(layer) => layer,
                None => continue,
            };
            if to_layer != from_layer && !allowed.contains(&to_layer) {
                problems.push(format!(
                    "{} uses {} ({} may use only {:?})",
                    krate.name(from),
                    krate.name(to),
                    from_layer,
                    allowed
                ));
            }
        }
    }
    // Every top-level module has a place in the table.
    for file in &krate.files {
        if let Some(top) = file.module.first()
            && file.module.len() == 1
            && !layers.iter().any(|(name, _)| name == top)
        {
            problems.push(format!("module {top} has no place in the layering table"));
        }
    }
    problems
}

#[test]
fn the_library_has_no_circles_and_uses_only_lower_layers() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let problems = problems(&src, LIBRARY_LAYERS);
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

#[test]
fn the_application_has_no_circles_and_uses_only_lower_layers() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../src");
    if !src.join("demo").is_dir() {
        // This crate alone, outside the Navlab workspace.
        return;
    }
    let problems = problems(&src, APPLICATION_LAYERS);
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

#[test]
fn the_checker_finds_a_circle_and_a_use_against_the_layers() {
    let folder = std::env::temp_dir().join(format!("navlab-layering-{}", std::process::id()));
    std::fs::create_dir_all(folder.join("low")).unwrap();
    std::fs::write(folder.join("lib.rs"), "pub mod low;\npub mod high;\n").unwrap();
    std::fs::write(folder.join("low/mod.rs"), "pub mod a;\npub mod b;\n").unwrap();
    std::fs::write(folder.join("low/a.rs"), "use super::b::B;\npub struct A;\n").unwrap();
    std::fs::write(
        folder.join("low/b.rs"),
        "pub struct B;\nfn f() { let _ = super::a::A; let _ = crate::high::H; }\n",
    )
    .unwrap();
    std::fs::write(folder.join("high.rs"), "pub struct H;\n").unwrap();
    let found = problems(&folder, &[("low", &[]), ("high", &["low"])]);
    std::fs::remove_dir_all(&folder).unwrap();
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found[0].contains("low::a ↔ low::b"), "{found:?}");
    assert!(found[1].starts_with("low::b uses high"), "{found:?}");
}

#[test]
fn the_checker_sees_the_librarys_known_uses() {
    let krate = Crate::read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    let edges = krate.edges();
    let uses = |from: &str, to: &str| {
        edges.iter().any(|(&f, targets)| {
            krate.name(f) == from && targets.iter().any(|&t| krate.name(t) == to)
        })
    };
    // A `use` of a sibling, a path written in code, and an item a parent re-exports.
    assert!(uses("bake::tiled", "bake::solo"));
    assert!(uses("recast::rasterize", "memory"));
    assert!(uses("crowd::crowd", "detour::nav_mesh"));
    let count: usize = edges.values().map(BTreeSet::len).sum();
    assert!(count > 200, "only {count} uses found");
}
