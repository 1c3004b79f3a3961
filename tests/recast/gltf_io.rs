//! glTF in and OBJ / glTF out: a glTF made from a reference OBJ builds C++'s navmesh byte for
//! byte (also through node transforms, a `.gltf` with its buffer beside it, and a `.gset`
//! naming a `.glb`); the exported detail mesh has every detail triangle, grouped by area, reads
//! back with the `gltf` crate and honours `z_up` and `scale`; bad files are one clear error.
use crate::support as common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use navlab::bake::export::{self, AreaMesh, ExportOptions};
use navlab::bake::{Build, BuildSettings, TiledBuild};
use navlab::input::InputGeom;
use navlab::input::gltf::parse_gltf;
use navlab::input::obj::{TriMesh, parse_obj};
use serde_json::{Value, json};

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("navlab-gltf-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A reference mesh as one glTF primitive on one untransformed node, through the exporter's
/// GLB writer.
fn mesh_glb(mesh: &TriMesh) -> Vec<u8> {
    let area = AreaMesh {
        area: 0,
        verts: mesh.verts.clone(),
        tris: mesh.tris.iter().map(|&i| i as u32).collect(),
    };
    export::glb_bytes(&[area]).unwrap()
}

/// A GLB's document as JSON and its binary chunk, read with the `gltf` crate.
fn unpack(glb: &[u8]) -> (Value, Vec<u8>) {
    let gltf = gltf::Gltf::from_slice(glb).unwrap();
    let blob = gltf.blob.clone().unwrap_or_default();
    (
        serde_json::to_value(gltf.document.into_json()).unwrap(),
        blob,
    )
}

fn glb(document: &Value, bin: &[u8]) -> Vec<u8> {
    export::pack_glb(document, bin).unwrap()
}

/// The Detour navmesh file of a solo build with the input's settings.
fn navmesh_bytes(input: &InputGeom) -> Vec<u8> {
    let build = Build::from_input(input, BuildSettings::for_input(input)).unwrap();
    build.nav_mesh.as_ref().unwrap().to_mset_bytes()
}

fn mesh_navmesh_bytes(mesh: TriMesh) -> Vec<u8> {
    navmesh_bytes(&InputGeom::from_mesh(mesh).unwrap())
}

fn load_obj(name: &str) -> Option<TriMesh> {
    let path = common::mesh_path(name)?;
    Some(navlab::input::obj::load_obj(&path).unwrap())
}

#[test]
fn a_gltf_of_a_reference_obj_builds_cpps_navmesh() {
    let Some(reference) = common::reference_dir() else {
        return;
    };
    let dir = temp_dir("reference");
    for name in ["nav_test", "dungeon"] {
        let obj = load_obj(name).unwrap();
        let path = dir.join(format!("{name}.GLB"));
        std::fs::write(&path, mesh_glb(&obj)).unwrap();
        let input = InputGeom::load(&path).unwrap();
        assert_eq!(input.mesh.verts, obj.verts, "{name}");
        assert_eq!(input.mesh.tris, obj.tris, "{name}");
        assert!(input.mesh.warnings.is_empty());
        let cpp = std::fs::read(reference.join(format!("navmesh/{name}_solo.bin"))).unwrap();
        assert!(navmesh_bytes(&input) == cpp, "{name}: differs from C++'s");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// A `.gltf` whose buffer is a file beside it (with a percent-escaped name), or embedded as a
/// data URI, and a `.gset` naming a `.glb`, load the same mesh.
#[test]
fn gltf_json_buffers_and_geometry_sets_load_the_same_mesh() {
    let Some(obj) = load_obj("nav_test") else {
        return;
    };
    let dir = temp_dir("json");
    let glb_path = dir.join("level.glb");
    std::fs::write(&glb_path, mesh_glb(&obj)).unwrap();
    let (mut document, bin) = unpack(&std::fs::read(&glb_path).unwrap());

    document["buffers"][0]["uri"] = json!("my%20level.bin");
    std::fs::write(dir.join("my level.bin"), &bin).unwrap();
    let external = dir.join("level.gltf");
    std::fs::write(&external, document.to_string()).unwrap();
    assert_eq!(InputGeom::load(&external).unwrap().mesh.tris, obj.tris);
    // From bytes, the file beside it is not read.
    let err = parse_gltf(document.to_string().as_bytes(), &external).unwrap_err();
    assert!(err.to_string().contains("in another file"), "{err}");

    let areas = [AreaMesh {
        area: 0,
        verts: obj.verts.clone(),
        tris: obj.tris.iter().map(|&i| i as u32).collect(),
    }];
    let embedded = export::gltf_embedded(&areas).unwrap();
    let mesh = parse_gltf(embedded.as_bytes(), Path::new("embedded.gltf")).unwrap();
    assert_eq!(
        (mesh.verts, mesh.tris),
        (obj.verts.clone(), obj.tris.clone())
    );

    let gset = dir.join("level.gset");
    std::fs::write(&gset, "f level.glb\n").unwrap();
    let input = InputGeom::load(&gset).unwrap();
    assert_eq!(input.mesh.tris, obj.tris);
    assert_eq!(input.mesh_file().unwrap(), glb_path);
    std::fs::remove_dir_all(dir).unwrap();
}

/// The OBJ's vertices moved as `place` says and its triangles as given: what a glTF node
/// transform should make of the mesh.
fn placed(obj: &TriMesh, place: impl Fn([f32; 3]) -> [f32; 3], mirrored: bool) -> TriMesh {
    let verts = obj
        .verts
        .chunks_exact(3)
        .flat_map(|v| place([v[0], v[1], v[2]]))
        .collect();
    let tris = obj
        .tris
        .chunks_exact(3)
        .flat_map(|t| {
            if mirrored {
                [t[0], t[2], t[1]]
            } else {
                [t[0], t[1], t[2]]
            }
        })
        .collect();
    TriMesh::from_parts(verts, tris).unwrap()
}

/// A translated parent with a rotated child (matrix), a TRS node, and a mirroring node: each
/// glTF builds the navmesh of the OBJ transformed the same way (the mirror with its winding
/// turned back, so its floors stay walkable). The transforms are exact in f32.
#[test]
fn node_transforms_place_the_mesh() {
    let Some(obj) = load_obj("nav_test") else {
        return;
    };
    let (document, bin) = unpack(&mesh_glb(&obj));
    let with_nodes = |nodes: Value| {
        let mut document = document.clone();
        document["nodes"] = nodes;
        document["scenes"] = json!([{ "nodes": [0] }]);
        glb(&document, &bin)
    };
    // 90° about y as a column-major matrix: x' = z, z' = -x.
    let rotate_y = json!([0, 0, -1, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1]);
    let cases = [
        (
            json!([
                { "translation": [10.0, 2.0, -4.0], "children": [1] },
                { "matrix": rotate_y, "mesh": 0 },
            ]),
            placed(&obj, |[x, y, z]| [z + 10.0, y + 2.0, -x - 4.0], false),
        ),
        (
            json!([{
                "translation": [1.0, 0.0, 3.0], "rotation": [0.0, 1.0, 0.0, 0.0],
                "scale": [2.0, 2.0, 2.0], "mesh": 0,
            }]),
            placed(
                &obj,
                |[x, y, z]| [-2.0 * x + 1.0, 2.0 * y, -2.0 * z + 3.0],
                false,
            ),
        ),
        (
            json!([{ "scale": [-1.0, 1.0, 1.0], "mesh": 0 }]),
            placed(&obj, |[x, y, z]| [-x, y, z], true),
        ),
    ];
    for (i, (nodes, expected)) in cases.into_iter().enumerate() {
        let mesh = parse_gltf(&with_nodes(nodes), Path::new("placed.glb")).unwrap();
        assert_eq!(mesh.verts, expected.verts, "case {i}");
        assert_eq!(mesh.tris, expected.tris, "case {i}");
        assert!(
            mesh_navmesh_bytes(mesh) == mesh_navmesh_bytes(expected),
            "case {i}: the navmeshes differ"
        );
    }
}

#[test]
fn strips_and_fans_become_front_facing_triangles() {
    // A unit quad on the floor, counter-clockwise seen from above (+y): the fan's order; the
    // strip zigzags through 0, 1, 3, 2.
    let quad = [
        [0.0f32, 0.0, 0.0],
        [0.0, 0.0, 1.0],
        [1.0, 0.0, 1.0],
        [1.0, 0.0, 0.0],
    ];
    let bytes = |order: [usize; 4]| -> Vec<u8> {
        order
            .iter()
            .flat_map(|&v| quad[v])
            .flat_map(f32::to_le_bytes)
            .collect()
    };
    let cases = [
        (6, bytes([0, 1, 2, 3]), [1, 2, 0, 2, 3, 0]),
        (5, bytes([0, 1, 3, 2]), [0, 1, 2, 1, 3, 2]),
    ];
    for (mode, bin, expected) in cases {
        let mut document = triangle_document(4);
        document["meshes"][0]["primitives"][0]["mode"] = json!(mode);
        let mesh = parse_gltf(&glb(&document, &bin), Path::new("quad.glb")).unwrap();
        assert_eq!(mesh.tris, expected, "mode {mode}");
        for n in mesh.normals.chunks_exact(3) {
            assert_eq!(n, [0.0, 1.0, 0.0], "mode {mode}");
        }
    }
}

/// The exported detail mesh has every detail triangle of the build, solo and tiled, grouped by
/// the navmesh's area ids (the authoring set's volumes make several).
#[test]
fn exports_have_every_detail_triangle_by_area() {
    let Some(reference) = common::reference_dir() else {
        return;
    };
    let dir = temp_dir("export");
    std::fs::copy(
        reference.join("meshes/nav_test.obj"),
        dir.join("nav_test.obj"),
    )
    .unwrap();
    std::fs::copy(
        reference.join("authoring/nav_test_authoring.gset"),
        dir.join("authoring.gset"),
    )
    .unwrap();
    let input = InputGeom::load(&dir.join("authoring.gset")).unwrap();
    let build = Build::from_input(&input, BuildSettings::for_input(&input)).unwrap();
    let areas = export::solo_detail_by_area(&build, ExportOptions::default()).unwrap();
    let total: usize = areas.iter().map(AreaMesh::tri_count).sum();
    assert_eq!(total, build.detail_mesh.ntris());
    assert!(areas.len() > 1, "the volumes mark other areas");
    assert!(areas.windows(2).all(|w| w[0].area < w[1].area));
    assert_eq!(
        areas[0].area, 0,
        "Recast's walkable area is exported as ground"
    );
    for area in &areas {
        let expected: usize = (0..build.poly_mesh.npolys)
            .filter(|&p| {
                navlab::bake::sample_areas::sample_area_flags(build.poly_mesh.areas[p], 0).0
                    == area.area
            })
            .map(|p| build.detail_mesh.meshes[p * 4 + 3] as usize)
            .sum();
        assert_eq!(area.tri_count(), expected, "area {}", area.area);
    }

    let mut obj = Vec::new();
    export::write_obj(&areas, &mut obj).unwrap();
    let text = String::from_utf8(obj.clone()).unwrap();
    let groups: Vec<&str> = text.lines().filter(|l| l.starts_with("g ")).collect();
    let names: Vec<String> = areas.iter().map(|a| format!("g area_{}", a.area)).collect();
    assert_eq!(groups, names);
    let read_back = parse_obj(&obj, Path::new("export.obj")).unwrap();
    assert_eq!(read_back.tri_count(), total);
    let all_verts: Vec<f32> = areas.iter().flat_map(|a| a.verts.clone()).collect();
    assert_eq!(read_back.verts, all_verts, "OBJ floats round-trip");

    let glb = export::glb_bytes(&areas).unwrap();
    let gltf = gltf::Gltf::from_slice(&glb).unwrap();
    let mesh = gltf.document.meshes().next().unwrap();
    assert_eq!(gltf.document.nodes().count(), 1);
    assert_eq!(mesh.primitives().count(), areas.len());
    for (primitive, area) in mesh.primitives().zip(&areas) {
        assert_eq!(primitive.mode(), gltf::mesh::Mode::Triangles);
        assert_eq!(primitive.indices().unwrap().count(), area.tris.len());
        let positions = primitive.get(&gltf::Semantic::Positions).unwrap();
        assert_eq!(positions.count(), area.verts.len() / 3);
        assert!(positions.min().is_some() && positions.max().is_some());
        let name = format!("area_{}", area.area);
        assert_eq!(primitive.material().name(), Some(name.as_str()));
    }
    let read_back = parse_gltf(&glb, Path::new("export.glb")).unwrap();
    assert_eq!(read_back.verts, all_verts);
    assert_eq!(read_back.tri_count(), total);

    let tiled = TiledBuild::new(&input, BuildSettings::for_input(&input), 32).unwrap();
    let tiled_areas = export::tiled_detail_by_area(&tiled, ExportOptions::default()).unwrap();
    let tiled_total: usize = tiled
        .tiles
        .iter()
        .filter_map(|t| t.output.as_ref().ok())
        .map(|o| o.detail_mesh.ntris())
        .sum();
    assert_eq!(
        tiled_areas.iter().map(AreaMesh::tri_count).sum::<usize>(),
        tiled_total
    );
    let ids = |areas: &[AreaMesh]| areas.iter().map(|a| a.area).collect::<Vec<_>>();
    assert_eq!(
        ids(&tiled_areas),
        ids(&areas),
        "solo and tiled name areas alike"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn z_up_and_scale_transform_the_export() {
    let Some(obj) = load_obj("nav_test") else {
        return;
    };
    let build = Build::new(Arc::new(obj), BuildSettings::default()).unwrap();
    let y_up = export::solo_detail_by_area(&build, ExportOptions::default()).unwrap();
    let options = ExportOptions {
        z_up: true,
        scale: 0.5,
    };
    let z_up = export::solo_detail_by_area(&build, options).unwrap();
    assert_eq!(y_up.len(), z_up.len());
    for (a, b) in y_up.iter().zip(&z_up) {
        assert_eq!(a.tris, b.tris);
        for (p, q) in a.verts.chunks_exact(3).zip(b.verts.chunks_exact(3)) {
            assert_eq!(q, [p[0] * 0.5, -p[2] * 0.5, p[1] * 0.5]);
        }
    }
    // Floors face +y before and +z after: the rotation kept the winding.
    let normal_of = |verts: &[f32], t: &[u32]| {
        let v = |i: u32| &verts[i as usize * 3..i as usize * 3 + 3];
        let (a, b, c) = (v(t[0]), v(t[1]), v(t[2]));
        let e0 = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
        let e1 = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
        [
            e0[1] * e1[2] - e0[2] * e1[1],
            e0[2] * e1[0] - e0[0] * e1[2],
            e0[0] * e1[1] - e0[1] * e1[0],
        ]
    };
    let up_facing = |mesh: &AreaMesh, axis: usize| {
        mesh.tris
            .chunks_exact(3)
            .filter(|t| normal_of(&mesh.verts, t)[axis] > 0.0)
            .count()
    };
    assert!(up_facing(&y_up[0], 1) * 10 > y_up[0].tri_count() * 9);
    assert_eq!(up_facing(&y_up[0], 1), up_facing(&z_up[0], 2));

    let bad = ExportOptions {
        z_up: false,
        scale: 0.0,
    };
    let err = export::solo_detail_by_area(&build, bad).unwrap_err();
    assert!(err.to_string().contains("positive"), "{err}");
    let huge = ExportOptions {
        z_up: false,
        scale: 1e38,
    };
    let err = export::solo_detail_by_area(&build, huge).unwrap_err();
    assert!(err.to_string().contains("overflow"), "{err}");
}

fn navlab() -> Command {
    Command::new(env!("CARGO_BIN_EXE_navlab"))
}

#[test]
fn bake_reads_gltf_and_writes_exports() {
    let Some(reference) = common::reference_dir() else {
        return;
    };
    let dir = temp_dir("cli");
    let obj = load_obj("nav_test").unwrap();
    let input = dir.join("nav_test.glb");
    std::fs::write(&input, mesh_glb(&obj)).unwrap();
    let (navmesh, obj_out, glb_out, gltf_out) = (
        dir.join("out.bin"),
        dir.join("detail.obj"),
        dir.join("detail.glb"),
        dir.join("detail.gltf"),
    );
    let output = navlab()
        .arg("bake")
        .arg(&input)
        .args(["--quiet", "--export-z-up", "--export-scale", "2", "-o"])
        .arg(&navmesh)
        .arg("--export-obj")
        .arg(&obj_out)
        .arg("--export-gltf")
        .arg(&glb_out)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        std::fs::read(&navmesh).unwrap()
            == std::fs::read(reference.join("navmesh/nav_test_solo.bin")).unwrap()
    );
    let build = Build::new(Arc::new(obj), BuildSettings::default()).unwrap();
    let options = ExportOptions {
        z_up: true,
        scale: 2.0,
    };
    let areas = export::solo_detail_by_area(&build, options).unwrap();
    let exported_obj = navlab::input::obj::load_obj(&obj_out).unwrap();
    let exported_glb = navlab::input::gltf::load_gltf(&glb_out).unwrap();
    for mesh in [&exported_obj, &exported_glb] {
        assert_eq!(mesh.tri_count(), build.detail_mesh.ntris());
        assert_eq!(mesh.verts, areas[0].verts);
    }

    // A .gltf name gets JSON with the buffer embedded; a tiled bake exports too.
    let status = navlab()
        .arg("bake")
        .arg(&input)
        .args(["--quiet", "--tile-size", "32", "--export-gltf"])
        .arg(&gltf_out)
        .status()
        .unwrap();
    assert!(status.success());
    let text = std::fs::read_to_string(&gltf_out).unwrap();
    assert!(text.contains("data:application/octet-stream;base64,"));
    assert!(parse_gltf(text.as_bytes(), &gltf_out).unwrap().tri_count() > 0);

    let input_arg = input.to_str().unwrap();
    let obj_arg = obj_out.to_str().unwrap();
    let cases: [(Vec<&str>, &str); 5] = [
        (
            vec!["--export-obj", obj_arg, "-o", obj_arg],
            "is also the -o file",
        ),
        (vec!["--export-gltf", input_arg], "is the input"),
        (
            vec!["--export-obj", obj_arg, "--export-scale", "0"],
            "positive finite",
        ),
        (
            vec!["--export-obj", obj_arg, "--export-scale", "-2"],
            "positive finite",
        ),
        (vec!["--export-z-up"], "add --export-obj or --export-gltf"),
    ];
    for (args, expected) in cases {
        let output = navlab()
            .args(["bake", input_arg])
            .args(&args)
            .output()
            .unwrap();
        assert!(!output.status.success(), "{args:?} should fail");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.starts_with("navlab: ") && stderr.contains(expected),
            "{args:?}: {stderr}"
        );
    }
    let output = navlab()
        .args(["bake", dir.join("missing.glb").to_str().unwrap()])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&output.stderr).contains("missing.glb"));
    std::fs::remove_dir_all(dir).unwrap();
}

/// A document of one mesh of one triangle primitive: `vertex_count` positions from byte 0 of
/// buffer 0, no indices.
fn triangle_document(vertex_count: usize) -> Value {
    json!({
        "asset": { "version": "2.0" },
        "scenes": [{ "nodes": [0] }],
        "nodes": [{ "mesh": 0 }],
        "meshes": [{ "primitives": [{ "attributes": { "POSITION": 0 } }] }],
        "accessors": [{
            "bufferView": 0, "componentType": 5126, "count": vertex_count, "type": "VEC3",
        }],
        "bufferViews": [{ "buffer": 0, "byteLength": vertex_count * 12 }],
        "buffers": [{ "byteLength": vertex_count * 12 }],
    })
}

/// One floor triangle's positions.
fn triangle_bin() -> Vec<u8> {
    [0.0f32, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect()
}

/// `document` with an indices accessor (u16, after the three positions) added.
fn with_indices(mut document: Value, indices: &[u16]) -> (Value, Vec<u8>) {
    let mut bin = triangle_bin();
    bin.extend(indices.iter().flat_map(|i| i.to_le_bytes()));
    document["accessors"].as_array_mut().unwrap().push(
        json!({ "bufferView": 1, "componentType": 5123, "count": indices.len(), "type": "SCALAR" }),
    );
    document["bufferViews"]
        .as_array_mut()
        .unwrap()
        .push(json!({ "buffer": 0, "byteOffset": 36, "byteLength": indices.len() * 2 }));
    document["buffers"][0]["byteLength"] = json!(bin.len());
    document["meshes"][0]["primitives"][0]["indices"] = json!(1);
    (document, bin)
}

#[test]
fn bad_gltf_is_one_clear_error() {
    let bin = triangle_bin();
    let good = triangle_document(3);
    let source = Path::new("bad.glb");
    let parse = |document: &Value, bin: &[u8]| parse_gltf(&glb(document, bin), source);
    assert_eq!(parse(&good, &bin).unwrap().tri_count(), 1);

    let edit = |change: &dyn Fn(&mut Value)| {
        let mut document = good.clone();
        change(&mut document);
        document
    };
    let (out_of_range, index_bin) = with_indices(good.clone(), &[0, 1, 7]);
    let (not_triples, pair_bin) = with_indices(good.clone(), &[0, 1]);
    let mut nan = bin.clone();
    nan[4..8].copy_from_slice(&f32::NAN.to_le_bytes());
    let cases: Vec<(Value, Vec<u8>, &str)> = vec![
        (
            edit(&|d| d["nodes"] = json!([{}])),
            bin.clone(),
            "no triangles",
        ),
        (
            edit(&|d| d["meshes"][0]["primitives"][0]["mode"] = json!(1)),
            bin.clone(),
            "no triangles: the scene has no triangle primitive (1 points or lines primitives",
        ),
        (
            out_of_range,
            index_bin,
            "mesh 0 primitive 0: indices accessor 1: index 2 is 7, out of range for the \
             primitive's 3 vertices",
        ),
        (not_triples, pair_bin, "2 indices, not a multiple of 3"),
        (
            edit(&|d| d["accessors"][0]["byteOffset"] = json!(4)),
            bin.clone(),
            "mesh 0 primitive 0: POSITION accessor 0: 3 elements from byte 4 need more than \
             buffer view 0's 36 bytes",
        ),
        (
            edit(&|d| d["bufferViews"][0]["byteOffset"] = json!(8)),
            bin.clone(),
            "buffer view 0 (bytes 8 to 44) runs past the end of buffer 0 (36 bytes)",
        ),
        (
            edit(&|d| d["accessors"][0]["count"] = json!(1_000_000_000_000_000u64)),
            bin.clone(),
            "need more than buffer view 0's 36 bytes",
        ),
        (
            edit(&|d| d["accessors"][0]["count"] = json!(u64::MAX)),
            bin.clone(),
            "18446744073709551615 elements from byte 0 need more than buffer view 0's 36 bytes",
        ),
        (
            good.clone(),
            nan,
            "vertex 0 has a non-finite coordinate (0, NaN, 0)",
        ),
        (
            edit(&|d| d["nodes"][0]["scale"] = json!([1e30, 1e30, 1e30])),
            {
                let mut far = bin.clone();
                far[24..28].copy_from_slice(&1e30f32.to_le_bytes());
                far
            },
            "vertex 2 is not finite once node 0's transform is applied",
        ),
        (
            edit(&|d| d["accessors"][0]["componentType"] = json!(5123)),
            bin.clone(),
            "POSITION is VEC3 of u16; Navlab reads VEC3 of 32-bit floats",
        ),
        (
            edit(&|d| d["buffers"][0]["byteLength"] = json!(48)),
            bin.clone(),
            "buffer 0 has 36 bytes, less than its byteLength of 48",
        ),
        (
            edit(&|d| d["buffers"][0]["uri"] = json!("level.bin")),
            bin.clone(),
            "the buffer `level.bin` is in another file, which is not read here",
        ),
        (
            edit(&|d| d["buffers"][0]["uri"] = json!("https://example.invalid/level.bin")),
            bin.clone(),
            "is not a relative file path",
        ),
        (
            edit(&|d| d["nodes"] = json!([{ "mesh": 0, "children": [1] }, { "children": [0] }])),
            bin.clone(),
            "node 0 is reached twice",
        ),
        (
            edit(&|d| d["extensionsRequired"] = json!(["KHR_draco_mesh_compression"])),
            bin.clone(),
            "requires the extension `KHR_draco_mesh_compression`",
        ),
        (
            edit(&|d| d["scenes"] = json!([])),
            bin.clone(),
            "the file has no scene",
        ),
        (
            edit(&|d| d["nodes"][0]["mesh"] = json!(5)),
            bin.clone(),
            "invalid glTF: nodes[0].mesh names an object that does not exist",
        ),
        (
            edit(&|d| d["meshes"][0]["primitives"][0]["attributes"] = json!({ "POSITION": 5 })),
            bin.clone(),
            "invalid glTF: meshes[0].primitives[0].attributes[\"POSITION\"] names an object \
             that does not exist",
        ),
        (
            edit(&|d| d["meshes"][0]["primitives"][0]["attributes"] = json!({ "NORMAL": 0 })),
            bin.clone(),
            "invalid glTF: meshes[0].primitives[0].attributes[\"POSITION\"] is missing",
        ),
    ];
    for (document, bin, expected) in cases {
        let err = parse(&document, &bin).unwrap_err().to_string();
        assert!(
            err.starts_with("bad.glb: ") && err.contains(expected),
            "{expected:?}: {err}"
        );
    }
    let err = parse_gltf(b"{ not json", source).unwrap_err().to_string();
    assert!(err.contains("not a glTF file"), "{err}");
}

#[test]
fn truncated_glb_files_are_refused_at_every_length() {
    let whole = glb(&triangle_document(3), &triangle_bin());
    for cut in 4..whole.len() {
        let err = parse_gltf(&whole[..cut], Path::new("cut.glb"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("truncated GLB"), "cut at {cut}: {err}");
    }
    let mut version_one = whole.clone();
    version_one[4] = 1;
    let err = parse_gltf(&version_one, Path::new("v1.glb")).unwrap_err();
    assert!(err.to_string().contains("GLB version 1"), "{err}");
}

/// Lines beside triangles are skipped with a warning that names them; the triangles load.
#[test]
fn lines_beside_triangles_are_skipped_with_a_warning() {
    let mut document = triangle_document(3);
    let lines = json!({ "attributes": { "POSITION": 0 }, "mode": 1 });
    document["meshes"][0]["primitives"]
        .as_array_mut()
        .unwrap()
        .insert(0, lines);
    let mesh = parse_gltf(&glb(&document, &triangle_bin()), Path::new("mixed.glb")).unwrap();
    assert_eq!(mesh.tri_count(), 1);
    assert_eq!(mesh.vert_count(), 3, "a skipped primitive adds no vertices");
    let warnings = mesh.warnings.lines();
    assert_eq!(
        warnings,
        ["mixed.glb: mesh 0 primitive 0: skipped: a LINES primitive has no triangles"]
    );
}

/// A missing buffer file is an error naming it.
#[test]
fn a_missing_buffer_file_is_named() {
    let dir = temp_dir("missing-buffer");
    let mut document = triangle_document(3);
    document["buffers"][0]["uri"] = json!("gone.bin");
    let path = dir.join("level.gltf");
    std::fs::write(&path, document.to_string()).unwrap();
    let err = InputGeom::load(&path).unwrap_err().to_string();
    assert!(
        err.contains("level.gltf: mesh 0 primitive 0: POSITION accessor 0: buffer `gone.bin`")
            && err.contains("gone.bin:"),
        "{err}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}
