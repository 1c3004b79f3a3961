//! The acceptance test: a whole solo build of every reference mesh × partition equals C++
//! Recast's, field by field, in the `--dump-json` schema.
use crate::support as common;

use navlab::bake::settings::BuildSettings;
use navlab::bake::solo::Build;
use navlab::input::geomset::GeomSet;
use navlab::input::input_geom::InputGeom;
use serde_json::Value;

/// The fields `compare_ref.py` compares, per section.
const FIELDS: [(&str, &[&str]); 5] = [
    (
        "heightfield",
        &[
            "spanCountAfterRasterize",
            "walkableSpansAfterRasterize",
            "walkableSpansAfterFilters",
        ],
    ),
    (
        "compactHeightfield",
        &[
            "spanCount",
            "walkableSpansAfterErode",
            "maxDistance",
            "maxRegions",
        ],
    ),
    (
        "contours",
        &[
            "nconts",
            "totalVerts",
            "totalRawVerts",
            "perContourNverts",
            "perContourNrverts",
            "perContourReg",
            "perContourArea",
        ],
    ),
    (
        "polymesh",
        &["nverts", "npolys", "nvp", "verts", "polys", "regs", "areas"],
    ),
    ("detail", &["nmeshes", "nverts", "ntris", "meshes", "tris"]),
];

fn check(mesh_name: &str, partition: &str) {
    let Some(reference) = common::solo(mesh_name, partition) else {
        return;
    };
    let mesh = navlab::input::obj::load_obj(&common::mesh_path(mesh_name).unwrap()).unwrap();
    let input = InputGeom::from_mesh(mesh).unwrap();
    compare(
        &reference,
        &input,
        mesh_name,
        partition,
        &format!("{mesh_name}/{partition}"),
    );
}

/// The authoring reference: nav_test with RecastDemo's geometry set of 4 convex volumes
/// (water, grass, road, door areas) and 3 off-mesh connections.
fn check_authoring(partition: &str) {
    let Some(reference) = common::load_json(&format!(
        "authoring/nav_test_authoring_solo_{partition}.json"
    )) else {
        return;
    };
    let dir = common::reference_dir().unwrap();
    let mesh = navlab::input::obj::load_obj(&dir.join("meshes/nav_test.obj")).unwrap();
    let mut input = InputGeom::from_mesh(mesh).unwrap();
    input.geom_set = GeomSet::load(&dir.join("authoring/nav_test_authoring.gset")).unwrap();
    assert_eq!(input.geom_set.convex_volumes.len(), 4);
    let build = compare(
        &reference,
        &input,
        "nav_test",
        partition,
        &format!("authoring/{partition}"),
    );
    if partition == "watershed" {
        let path = common::reference_dir()
            .unwrap()
            .join("authoring/nav_test_authoring_solo.bin");
        let ours = build.nav_mesh.as_ref().unwrap().to_mset_bytes();
        assert!(
            ours == std::fs::read(&path).unwrap(),
            "authoring navmesh file differs"
        );
    }
}

fn compare(
    reference: &Value,
    input: &InputGeom,
    mesh_name: &str,
    partition: &str,
    case: &str,
) -> Build {
    let settings = BuildSettings {
        partition_type: partition.parse().unwrap(),
        ..BuildSettings::for_input(input)
    };
    let build = Build::from_input(input, settings).unwrap();
    let ours = navlab_app::demo::dump::stage_summary(mesh_name, &build);

    for (key, value) in reference["config"].as_object().unwrap() {
        assert!(
            same_f32s(&ours["config"][key], value),
            "{case}: config.{key}: ours {} / C++ {value}",
            ours["config"][key]
        );
    }
    let mut mismatches = Vec::new();
    for (section, keys) in FIELDS {
        for key in keys {
            let (theirs, mine) = (&reference[section][key], &ours[section][key]);
            if theirs != mine {
                mismatches.push(describe(section, key, theirs, mine));
            }
        }
    }
    let theirs: Vec<f32> = common::as_f32s(&reference["detail"]["verts_exact"]);
    let mine: Vec<f32> = common::as_f32s(&ours["detail"]["verts_exact"]);
    if theirs != mine {
        mismatches.push(format!(
            "detail.verts_exact: {} of {} differ",
            theirs.iter().zip(&mine).filter(|(a, b)| a != b).count()
                + theirs.len().abs_diff(mine.len()),
            theirs.len()
        ));
    }
    assert!(
        mismatches.is_empty(),
        "{case}:\n  {}",
        mismatches.join("\n  ")
    );
    build
}

/// Numbers (or arrays of numbers) equal once read as f32, as both sides were printed from f32.
fn same_f32s(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same_f32s(x, y))
        }
        (Value::Number(x), Value::Number(y)) => {
            x.as_f64().map(|v| v as f32) == y.as_f64().map(|v| v as f32)
        }
        _ => a == b,
    }
}

fn describe(section: &str, key: &str, theirs: &Value, mine: &Value) -> String {
    match (theirs.as_array(), mine.as_array()) {
        (Some(t), Some(m)) => {
            let first = t
                .iter()
                .zip(m)
                .position(|(a, b)| a != b)
                .unwrap_or(t.len().min(m.len()));
            format!(
                "{section}.{key}: lengths C++ {} / ours {}, first difference at {first}",
                t.len(),
                m.len()
            )
        }
        _ => format!("{section}.{key}: C++ {theirs} / ours {mine}"),
    }
}

macro_rules! solo_cases {
    ($($name:ident: $mesh:literal, $partition:literal;)*) => {
        $(#[test] fn $name() { check($mesh, $partition); })*
    };
}

solo_cases! {
    nav_test_watershed: "nav_test", "watershed";
    nav_test_monotone: "nav_test", "monotone";
    nav_test_layers: "nav_test", "layers";
    dungeon_watershed: "dungeon", "watershed";
    dungeon_monotone: "dungeon", "monotone";
    dungeon_layers: "dungeon", "layers";
    undulating_watershed: "undulating", "watershed";
    undulating_monotone: "undulating", "monotone";
    undulating_layers: "undulating", "layers";
}

#[test]
fn authoring_watershed() {
    check_authoring("watershed");
}

#[test]
fn authoring_monotone() {
    check_authoring("monotone");
}

#[test]
fn authoring_layers() {
    check_authoring("layers");
}
