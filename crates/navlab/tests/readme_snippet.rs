//! The README's library snippet is the `find_path` example, word for word, so that the
//! example CI runs and the snippet a reader copies cannot drift apart.

#[test]
fn the_readme_snippet_is_the_find_path_example() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("../../README.md")).unwrap();
    let example = std::fs::read_to_string(root.join("examples/find_path.rs")).unwrap();
    let snippet = readme
        .split("```rust\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("the README has a rust block");
    let code = &example[example.find("use ").expect("the example has a use")..];
    assert_eq!(
        snippet, code,
        "the README's snippet differs from examples/find_path.rs"
    );
}
