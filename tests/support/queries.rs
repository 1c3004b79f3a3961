//! Helpers of the Detour query tests: reference files, navmeshes, test files, and a JSON
//! comparison that follows `compare_json.py`. The reference directory comes from
//! `tests/common` (include it as `mod common;` beside this module).
#![allow(dead_code)]

use navlab::detour::{NavMesh, NavMeshParams, RefWidth};
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

/// `nav` with 64-bit references: the same tiles in the same slots with the same salts, linked
/// afresh (what the navmesh C++ built with `DT_POLYREF64` holds).
pub fn widened(nav: &NavMesh) -> NavMesh {
    let params = NavMeshParams {
        ref_width: RefWidth::Bits64,
        ..*nav.params()
    };
    let mut wide = NavMesh::new(params).expect("64-bit parameters");
    for (tile_ref, tile) in nav.tiles() {
        let (salt, index, _) = nav.decode_poly_id(tile_ref);
        let wide_ref = wide.encode_poly_id(salt, index, 0);
        assert_eq!(
            wide.add_tile(tile.with_links_cleared(), wide_ref)
                .expect("re-add"),
            wide_ref
        );
    }
    wide
}

/// Rewrites every 64-bit reference in `value` (a number whose salt sits at bit 48 or above,
/// which no other number in a query report reaches) as the 32-bit navmesh `narrow` numbers the
/// same salt, tile and polygon, so a report on [`widened`] compares with a 32-bit reference.
pub fn narrow_refs(value: &mut Value, wide: &NavMesh, narrow: &NavMesh) {
    match value {
        Value::Number(n) => {
            if let Some(r) = n.as_u64().filter(|&r| r >= 1 << 48) {
                let (salt, tile, poly) = wide.decode_poly_id(r);
                *value = narrow.encode_poly_id(salt, tile, poly).into();
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| narrow_refs(v, wide, narrow)),
        Value::Object(fields) => fields
            .values_mut()
            .for_each(|v| narrow_refs(v, wide, narrow)),
        _ => {}
    }
}

/// Whether `wide` (64-bit) holds exactly `narrow`'s (32-bit) tiles: the same slots and salts,
/// the same tile data, and the same links (neighbours naming the same salt, tile and polygon)
/// in the same slots, stale ones included. Returns the first difference.
pub fn tile_difference(narrow: &NavMesh, wide: &NavMesh) -> Option<String> {
    let narrow_tiles: Vec<_> = narrow.tiles().collect();
    let wide_tiles: Vec<_> = wide.tiles().collect();
    if narrow_tiles.len() != wide_tiles.len() {
        return Some(format!(
            "{} tiles, 64-bit {}",
            narrow_tiles.len(),
            wide_tiles.len()
        ));
    }
    for ((nr, nt), (wr, wt)) in narrow_tiles.into_iter().zip(wide_tiles) {
        let at = format!("tile {:?}", narrow.decode_poly_id(nr));
        if narrow.decode_poly_id(nr) != wide.decode_poly_id(wr) {
            return Some(format!(
                "{at}: 64-bit ref decodes to {:?}",
                wide.decode_poly_id(wr)
            ));
        }
        if nt.with_links_cleared().to_bytes(RefWidth::Bits32)
            != wt.with_links_cleared().to_bytes(RefWidth::Bits32)
        {
            return Some(format!("{at}: tile data differs"));
        }
        let first_links = |t: &navlab::detour::MeshTile| -> Vec<u32> {
            t.polys().iter().map(|p| p.first_link).collect()
        };
        if first_links(nt) != first_links(wt) {
            return Some(format!("{at}: polygons' first links differ"));
        }
        for (k, (nl, wl)) in nt.links().iter().zip(wt.links()).enumerate() {
            let neighbour = |nav: &NavMesh, r| (r != 0).then(|| nav.decode_poly_id(r));
            let same = neighbour(narrow, nl.neighbour) == neighbour(wide, wl.neighbour)
                && (nl.next, nl.edge, nl.side, nl.bmin, nl.bmax)
                    == (wl.next, wl.edge, wl.side, wl.bmin, wl.bmax);
            if !same {
                return Some(format!("{at}: link {k} is {nl:?}, 64-bit {wl:?}"));
            }
        }
    }
    None
}
