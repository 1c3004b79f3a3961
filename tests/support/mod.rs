//! The one support module of every test binary: helpers for tests that compare against the C++ reference data in
//! `tests/data/reference/` (a copy of `../shared/reference/`), or `$NAVLAB_REFERENCE_DIR`.
#![allow(dead_code)]

pub mod detour;
pub mod queries;
pub mod stand_in_game;

use std::path::{Path, PathBuf};

use navlab::recast::compact::{CompactCell, CompactHeightfield, CompactSpan};
use navlab::recast::contour::{Contour, ContourSet};
use navlab::recast::poly_mesh::PolyMesh;
use serde_json::Value;

/// The meshes with full solo reference dumps.
pub const MESHES: [&str; 3] = ["nav_test", "dungeon", "undulating"];
/// The meshes that also have per-stage dumps.
pub const STAGE_MESHES: [&str; 2] = ["nav_test", "dungeon"];
/// The partition names used in reference file names.
pub const PARTITIONS: [&str; 3] = ["watershed", "monotone", "layers"];

/// The reference directory, or `None` (after printing a notice) when it is absent.
/// With `NAVLAB_REQUIRE_REFERENCE=1` a missing directory fails the test instead.
///
/// The repository carries the C++ reference data in `tests/data/reference`, so a clone alone
/// runs every exactness test; `NAVLAB_REFERENCE_DIR` points elsewhere (a newer `shared/reference`
/// before it is copied in). `reference_copy_matches_shared` keeps the copy in step.
pub fn reference_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("NAVLAB_REFERENCE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(repository_reference_dir);
    if dir.join("solo").is_dir() {
        return Some(dir);
    }
    if std::env::var("NAVLAB_REQUIRE_REFERENCE").is_ok_and(|v| v == "1") {
        panic!(
            "reference data not found at {} and NAVLAB_REQUIRE_REFERENCE=1",
            dir.display()
        );
    }
    eprintln!(
        "notice: reference data not found at {}; skipping (set NAVLAB_REFERENCE_DIR)",
        dir.display()
    );
    None
}

/// The repository's copy of the C++ reference data.
pub fn repository_reference_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/reference")
}

/// The shared C++ reference data beside the checkout or one of its parents
/// (`../shared/reference` for a clone, further up for a git worktree), when present.
pub fn shared_reference_dir() -> Option<PathBuf> {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .skip(1)
        .map(|a| a.join("shared/reference"))
        .find(|d| d.is_dir())
}

/// Path of a reference input mesh.
pub fn mesh_path(mesh: &str) -> Option<PathBuf> {
    reference_dir().map(|d| d.join("meshes").join(format!("{mesh}.obj")))
}

/// Parses a JSON file under the reference directory.
pub fn load_json(relative: &str) -> Option<Value> {
    let path = reference_dir()?.join(relative);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    Some(serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

/// The solo reference dump of `mesh` built with `partition`.
pub fn solo(mesh: &str, partition: &str) -> Option<Value> {
    load_json(&format!("solo/{mesh}_{partition}.json"))
}

pub fn as_i64s(v: &Value) -> Vec<i64> {
    v.as_array()
        .expect("array")
        .iter()
        .map(|x| x.as_i64().expect("integer"))
        .collect()
}

pub fn as_f32s(v: &Value) -> Vec<f32> {
    v.as_array()
        .expect("array")
        .iter()
        .map(|x| x.as_f64().expect("number") as f32)
        .collect()
}

pub fn as_vec3(v: &Value) -> [f32; 3] {
    let f = as_f32s(v);
    [f[0], f[1], f[2]]
}

/// Asserts two slices are equal, reporting the first differing index and the lengths.
pub fn assert_slices_eq<T: PartialEq + std::fmt::Debug>(what: &str, ours: &[T], reference: &[T]) {
    if ours == reference {
        return;
    }
    let first = ours
        .iter()
        .zip(reference)
        .position(|(a, b)| a != b)
        .unwrap_or(ours.len().min(reference.len()));
    let lo = first.saturating_sub(3);
    panic!(
        "{what}: differs at index {first} (lengths ours {} / C++ {})\n ours[{lo}..]: {:?}\n  C++[{lo}..]: {:?}",
        ours.len(),
        reference.len(),
        &ours[lo..(lo + 8).min(ours.len())],
        &reference[lo..(lo + 8).min(reference.len())],
    );
}

/// A heightfield stage dump: span count per column and `[smin, smax, area]` per span.
pub struct HeightfieldStage {
    pub width: i32,
    pub height: i32,
    pub column_span_counts: Vec<i64>,
    pub spans: Vec<[i64; 3]>,
}

/// Loads `stages/<mesh>/<file>` (1_heightfield_rasterized or 2_heightfield_filtered).
pub fn heightfield_stage(mesh: &str, file: &str) -> Option<HeightfieldStage> {
    let v = load_json(&format!("stages/{mesh}/{file}.json"))?;
    let flat = as_i64s(&v["spans"]);
    Some(HeightfieldStage {
        width: v["width"].as_i64().unwrap() as i32,
        height: v["height"].as_i64().unwrap() as i32,
        column_span_counts: as_i64s(&v["columnSpanCounts"]),
        spans: flat.chunks(3).map(|c| [c[0], c[1], c[2]]).collect(),
    })
}

/// The reference `config` block of a mesh's solo dump.
pub fn reference_config(mesh: &str) -> Option<Value> {
    Some(solo(mesh, "watershed")?["config"].clone())
}

/// The compact heightfield as C++ left it after a given point of the pipeline, rebuilt from the
/// stage dumps, so a stage can be tested on exactly C++'s input:
/// `eroded` applies 4_compact_eroded, `distance` 5_distance_field, `regions_of` 6_regions of that
/// partition.
pub fn compact_from_stages(
    mesh: &str,
    eroded: bool,
    distance: bool,
    regions_of: Option<&str>,
) -> Option<CompactHeightfield> {
    let cfg = reference_config(mesh)?;
    let c = load_json(&format!("stages/{mesh}/3_compact.json"))?;
    let index = as_i64s(&c["cellIndex"]);
    let count = as_i64s(&c["cellCount"]);
    let y = as_i64s(&c["y"]);
    let h = as_i64s(&c["h"]);
    let con = as_i64s(&c["con"]);
    let mut areas: Vec<u8> = as_i64s(&c["areas"]).iter().map(|&a| a as u8).collect();
    let ch = cfg["ch"].as_f64().unwrap() as f32;
    let walkable_height = cfg["walkableHeight"].as_i64().unwrap() as i32;
    let bmin = as_vec3(&cfg["bmin"]);
    let mut bmax = as_vec3(&cfg["bmax"]);
    bmax[1] += walkable_height as f32 * ch;
    if eroded {
        let e = load_json(&format!("stages/{mesh}/4_compact_eroded.json"))?;
        areas = as_i64s(&e["areas"]).iter().map(|&a| a as u8).collect();
    }
    let mut chf = CompactHeightfield {
        width: c["width"].as_i64().unwrap() as i32,
        height: c["height"].as_i64().unwrap() as i32,
        walkable_height,
        walkable_climb: cfg["walkableClimb"].as_i64().unwrap() as i32,
        border_size: 0,
        max_distance: 0,
        max_regions: 0,
        bmin,
        bmax,
        cs: cfg["cs"].as_f64().unwrap() as f32,
        ch,
        cells: index
            .iter()
            .zip(&count)
            .map(|(&index, &count)| CompactCell {
                index: index as u32,
                count: count as u32,
            })
            .collect(),
        spans: (0..y.len())
            .map(|i| CompactSpan {
                y: y[i] as u16,
                reg: 0,
                con: con[i] as u32,
                h: h[i] as u8,
            })
            .collect(),
        dist: Vec::new(),
        areas,
    };
    if distance {
        let d = load_json(&format!("stages/{mesh}/5_distance_field.json"))?;
        chf.max_distance = d["maxDistance"].as_i64().unwrap() as u16;
        chf.dist = as_i64s(&d["dist"]).iter().map(|&v| v as u16).collect();
    }
    if let Some(partition) = regions_of {
        let r = load_json(&format!("stages/{mesh}/{partition}/6_regions.json"))?;
        chf.max_regions = r["maxRegions"].as_i64().unwrap() as u16;
        for (span, reg) in chf.spans.iter_mut().zip(as_i64s(&r["reg"])) {
            span.reg = reg as u16;
        }
    }
    Some(chf)
}

/// The contour set C++ built for `mesh` with `partition`, from 7_contours and the solo dump.
pub fn contours_from_stage(mesh: &str, partition: &str) -> Option<ContourSet> {
    let v = load_json(&format!("stages/{mesh}/{partition}/7_contours.json"))?;
    let s = solo(mesh, partition)?;
    let c = &s["contours"];
    let cfg = &s["config"];
    let contours = v["conts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|cont| Contour {
            verts: as_i64s(&cont["verts"]).iter().map(|&x| x as i32).collect(),
            raw_verts: as_i64s(&cont["rverts"]).iter().map(|&x| x as i32).collect(),
            reg: cont["reg"].as_i64().unwrap() as u16,
            area: cont["area"].as_i64().unwrap() as u8,
        })
        .collect();
    let ch = cfg["ch"].as_f64().unwrap() as f32;
    let mut bmax = as_vec3(&cfg["bmax"]);
    bmax[1] += cfg["walkableHeight"].as_i64().unwrap() as f32 * ch;
    Some(ContourSet {
        contours,
        bmin: as_vec3(&cfg["bmin"]),
        bmax,
        cs: cfg["cs"].as_f64().unwrap() as f32,
        ch,
        width: c["width"].as_i64().unwrap() as i32,
        height: c["height"].as_i64().unwrap() as i32,
        border_size: c["borderSize"].as_i64().unwrap() as i32,
        max_error: c["maxError"].as_f64().unwrap() as f32,
    })
}

/// The poly mesh C++ built for `mesh` with `partition`, from the solo dump.
pub fn poly_mesh_from_solo(mesh: &str, partition: &str) -> Option<PolyMesh> {
    Some(poly_mesh_from_dump(&solo(mesh, partition)?))
}

/// The poly mesh of a solo-schema dump (`solo/` or `authoring/`).
pub fn poly_mesh_from_dump(s: &Value) -> PolyMesh {
    let p = &s["polymesh"];
    let u16s = |key: &str| {
        as_i64s(&p[key])
            .iter()
            .map(|&x| x as u16)
            .collect::<Vec<_>>()
    };
    PolyMesh {
        verts: u16s("verts"),
        polys: u16s("polys"),
        regs: u16s("regs"),
        flags: u16s("flags"),
        areas: as_i64s(&p["areas"]).iter().map(|&x| x as u8).collect(),
        nverts: p["nverts"].as_u64().unwrap() as usize,
        npolys: p["npolys"].as_u64().unwrap() as usize,
        maxpolys: p["maxpolys"].as_u64().unwrap() as usize,
        nvp: p["nvp"].as_u64().unwrap() as usize,
        bmin: as_vec3(&p["bmin"]),
        bmax: as_vec3(&p["bmax"]),
        cs: p["cs"].as_f64().unwrap() as f32,
        ch: p["ch"].as_f64().unwrap() as f32,
        border_size: p["borderSize"].as_i64().unwrap() as i32,
        max_edge_error: p["maxEdgeError"].as_f64().unwrap() as f32,
    }
}

/// Checks that `load` refuses a file one byte over `limit` before reading it, with an error
/// naming the file and the limit. The file is sparse, so no disk is used.
pub fn assert_huge_file_refused<T, E: std::fmt::Display>(
    file_name: &str,
    limit: u64,
    load: impl FnOnce(&Path) -> Result<T, E>,
) {
    let dir = std::env::temp_dir().join(format!(
        "navlab-huge-{}-{}",
        std::process::id(),
        file_name.replace('.', "-")
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(file_name);
    let file = std::fs::File::create(&path).unwrap();
    file.set_len(limit + 1).unwrap();
    let message = match load(&path) {
        Ok(_) => String::from("loaded"),
        Err(err) => err.to_string(),
    };
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(
        message.contains(file_name) && message.contains("over the limit"),
        "{message}"
    );
}
