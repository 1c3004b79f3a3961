//! Helpers of the Detour query tests: reference files, navmeshes, test files, and a JSON
//! comparison that follows `compare_json.py`. The reference directory comes from
//! `tests/common` (include it as `mod common;` beside this module).
#![allow(dead_code)]

use navlab::detour::NavMesh;
use navlab_app::demo::text::TestFile;
use serde_json::Value;

/// A file under the reference directory.
pub fn read(relative: &str) -> Option<Vec<u8>> {
    let path = crate::support::reference_dir()?.join(relative);
    Some(std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

/// A C++ "MSET" navmesh file of the reference.
pub fn nav_mesh(relative: &str) -> Option<NavMesh> {
    let bytes = read(relative)?;
    Some(NavMesh::from_mset_bytes(&bytes).unwrap_or_else(|e| panic!("{relative}: {e}")))
}

pub fn json(relative: &str) -> Option<Value> {
    let bytes = read(relative)?;
    Some(serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{relative}: {e}")))
}

pub fn test_file(relative: &str) -> Option<TestFile> {
    let bytes = read(relative)?;
    Some(TestFile::parse(&String::from_utf8_lossy(&bytes)))
}

/// Differences between a reference value and ours, as `compare_json.py` finds them: every
/// key of `reference` must be in `ours` with an equal value (extra keys are fine), lists
/// match item by item, numbers compare as f32 exactly.
pub fn json_differences(reference: &Value, ours: &Value) -> Vec<String> {
    let mut out = Vec::new();
    compare(reference, ours, String::new(), &mut out);
    out
}

fn compare(reference: &Value, ours: &Value, path: String, out: &mut Vec<String>) {
    match (reference, ours) {
        (Value::Object(r), Value::Object(o)) => {
            for (key, value) in r {
                let sub = if path.is_empty() {
                    key.clone()
                } else {
                    format!("{path}.{key}")
                };
                match o.get(key) {
                    Some(v) => compare(value, v, sub, out),
                    None => out.push(format!("{sub}: missing in ours")),
                }
            }
        }
        (Value::Array(r), Value::Array(o)) => {
            if r.len() != o.len() {
                out.push(format!("{path}: length ref={} ours={}", r.len(), o.len()));
            }
            for (i, (a, b)) in r.iter().zip(o).enumerate() {
                compare(a, b, format!("{path}[{i}]"), out);
            }
        }
        (Value::Number(r), Value::Number(o)) => {
            let equal = match (r.as_i64(), o.as_i64()) {
                (Some(a), Some(b)) => a == b,
                _ => r.as_f64().map(|x| x as f32) == o.as_f64().map(|x| x as f32),
            };
            if !equal {
                out.push(format!("{path}: ref={r} ours={o}"));
            }
        }
        (r, o) => {
            if r != o {
                out.push(format!("{path}: ref={r} ours={o}"));
            }
        }
    }
}

/// Panics with the first differences, if any.
pub fn assert_json_matches(what: &str, reference: &Value, ours: &Value) {
    let diffs = json_differences(reference, ours);
    assert!(
        diffs.is_empty(),
        "{what}: {} differences, first:\n{}",
        diffs.len(),
        diffs[..diffs.len().min(25)].join("\n")
    );
}
