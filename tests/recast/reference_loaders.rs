//! Sanity checks of the reference loaders themselves.
use crate::support as common;

#[test]
fn stage_dumps_load_consistently() {
    let Some(chf) = common::compact_from_stages("nav_test", true, true, Some("watershed")) else {
        return;
    };
    assert_eq!(chf.span_count(), 56795);
    assert_eq!(chf.max_distance, 60);
    assert_eq!(chf.max_regions, 48);
    let cset = common::contours_from_stage("nav_test", "watershed").unwrap();
    assert_eq!(cset.contours.len(), 47);
    let pmesh = common::poly_mesh_from_solo("nav_test", "watershed").unwrap();
    assert_eq!((pmesh.nverts, pmesh.npolys), (349, 155));
}

/// Every file of the shared C++ reference data, where a checkout has it beside, is in the
/// repository's copy with the same bytes, so new or remade reference files are noticed.
#[test]
fn reference_copy_matches_shared() {
    let Some(shared) = common::shared_reference_dir() else {
        eprintln!("notice: no shared/reference beside the checkout; the copy is all there is");
        return;
    };
    let copy = common::repository_reference_dir();
    let mut stack = vec![shared.clone()];
    let mut files = 0;
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let relative = path.strip_prefix(&shared).unwrap();
            let ours = std::fs::read(copy.join(relative)).unwrap_or_else(|_| {
                panic!(
                    "{} is not in tests/data/reference: copy it in",
                    relative.display()
                )
            });
            assert!(
                ours == std::fs::read(&path).unwrap(),
                "tests/data/reference/{} differs from the shared copy",
                relative.display()
            );
            files += 1;
        }
    }
    assert!(files > 0, "{} holds no files", shared.display());
}
