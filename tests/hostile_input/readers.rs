//! Round 2 of bounded readers (issue 24): sizes a file claims are checked against the bytes
//! present and a budget before anything is decompressed or allocated; files that name other
//! files must name regular ones; test-case files, pipes, devices and glTF instancing are
//! bounded; and faces too short to keep are reported.

use std::path::Path;

use navlab::bake::settings::BuildSettings;
use navlab::bake::tiled::TiledBuild;
use navlab::detour::NavMesh;
use navlab::input::gltf::MAX_GLTF_VERTICES;
use navlab::input::input_geom::InputGeom;
use navlab_app::demo::text::MAX_TEST_LINES;

use crate::files::{TempDir, floor_obj, navlab, one_error_line};

const DUNGEON: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/Meshes/dungeon.obj");

/// The compact file's layout, as `nav_mesh_compact` documents it.
const FILE_HEADER_SIZE: usize = 44;
const TILE_ENTRY_SIZE: usize = 12;
/// Where a tile header keeps its polygon count and its link slot count.
const POLY_COUNT_AT: usize = 24;
const MAX_LINK_COUNT_AT: usize = 32;

fn word(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap())
}

fn put_word(bytes: &mut [u8], at: usize, value: u32) {
    bytes[at..at + 4].copy_from_slice(&value.to_le_bytes());
}

/// The dungeon's tiled navmesh as a compact file.
fn compact_dungeon() -> Vec<u8> {
    let input = InputGeom::load(Path::new(DUNGEON)).unwrap();
    let settings = BuildSettings::for_input(&input);
    let build = TiledBuild::new(&input, settings, 32).unwrap();
    build.nav_mesh.to_compact_bytes().unwrap()
}

/// A compact file split into its header, its tile table rows and its tiles' stored bytes.
struct CompactParts {
    header: Vec<u8>,
    table: Vec<[u32; 3]>,
    tiles: Vec<Vec<u8>>,
}

impl CompactParts {
    fn split(file: &[u8]) -> CompactParts {
        let count = word(file, 12) as usize;
        let table: Vec<[u32; 3]> = (0..count)
            .map(|i| {
                let at = FILE_HEADER_SIZE + i * TILE_ENTRY_SIZE;
                [word(file, at), word(file, at + 4), word(file, at + 8)]
            })
            .collect();
        let frame = &file[FILE_HEADER_SIZE + count * TILE_ENTRY_SIZE..];
        let stored: usize = table.iter().map(|e| e[2] as usize).sum();
        let all = zstd::bulk::decompress(frame, stored).unwrap();
        let mut offset = 0;
        let tiles = table
            .iter()
            .map(|e| {
                let tile = all[offset..offset + e[2] as usize].to_vec();
                offset += e[2] as usize;
                tile
            })
            .collect();
        CompactParts {
            header: file[..FILE_HEADER_SIZE].to_vec(),
            table,
            tiles,
        }
    }

    fn join(&self, frame: &[u8]) -> Vec<u8> {
        let mut file = self.header.clone();
        put_word(&mut file, 12, self.table.len() as u32);
        for entry in &self.table {
            for value in entry {
                file.extend_from_slice(&value.to_le_bytes());
            }
        }
        file.extend_from_slice(frame);
        file
    }

    fn compressed(&self) -> Vec<u8> {
        self.join(&zstd::bulk::compress(&self.tiles.concat(), 3).unwrap())
    }
}

#[test]
fn a_compact_file_is_loaded_as_it_was_saved() {
    let file = compact_dungeon();
    let parts = CompactParts::split(&file);
    let again = NavMesh::from_compact_bytes(&parts.compressed()).unwrap();
    let original = NavMesh::from_compact_bytes(&file).unwrap();
    assert_eq!(again.to_mset_bytes(), original.to_mset_bytes());
}

/// A few kilobytes of zstd that would expand to 64 MiB of zeros is refused from the sizes,
/// before a byte is decompressed.
#[test]
fn a_decompression_bomb_is_refused_before_decompressing() {
    let file = compact_dungeon();
    let mut parts = CompactParts::split(&file);
    let claimed = 64u32 << 20;
    parts.table.truncate(1);
    parts.table[0][1] = claimed;
    parts.table[0][2] = claimed;
    let frame = zstd::bulk::compress(&vec![0u8; claimed as usize], 3).unwrap();
    assert!(frame.len() < 64 << 10, "{} bytes of frame", frame.len());
    let err = NavMesh::from_compact_bytes(&parts.join(&frame))
        .unwrap_err()
        .to_string();
    assert!(err.contains("compressed bytes"), "{err}");

    // A frame whose own header disagrees with the table is refused the same way.
    let mut parts = CompactParts::split(&file);
    parts.table[0][2] += 1;
    parts.table[0][1] += 1;
    let err = NavMesh::from_compact_bytes(&parts.compressed())
        .unwrap_err()
        .to_string();
    assert!(err.contains("bytes"), "{err}");
}

/// A tile whose header claims far more link slots than its polygons can use is refused before
/// the slots (left out of compact files, so made by the loader) are allocated.
#[test]
fn claimed_link_slots_are_bounded_by_the_polygons() {
    let file = compact_dungeon();
    let mut parts = CompactParts::split(&file);
    let polys = word(&parts.tiles[0], POLY_COUNT_AT);
    for (slots, refused) in [(80_000_000u32, true), (polys * 20, false)] {
        let stored = parts.tiles[0].len() as u32;
        put_word(&mut parts.tiles[0], MAX_LINK_COUNT_AT, slots);
        parts.table[0][1] = stored + slots * 12;
        let loaded = NavMesh::from_compact_bytes(&parts.compressed());
        match loaded {
            Err(err) if refused => {
                assert!(err.to_string().contains("maxLinkCount"), "{err}")
            }
            Ok(_) if !refused => {}
            other => panic!("{slots} slots: {:?}", other.map(|_| ())),
        }
    }
}

#[test]
fn test_files_of_too_many_lines_are_refused_with_the_line() {
    let dir = TempDir::new("test-lines");
    let line = "pf 1 2 3 4 5 6 0x3 0x0\n";
    let cases = dir.file(
        "many.txt",
        format!(
            "s Solo Mesh\nf floor.obj\n{}",
            line.repeat(MAX_TEST_LINES + 1)
        ),
    );
    let error = one_error_line(&navlab([Path::new("test"), &cases]), "too many lines");
    let over = MAX_TEST_LINES + 3;
    assert!(
        error.contains(&format!("line {over}")) && error.contains(&MAX_TEST_LINES.to_string()),
        "{error}"
    );
    // A device of endless zeros is read up to the test file cap and refused.
    #[cfg(unix)]
    for command in ["test", "crowd"] {
        let error = one_error_line(
            &navlab([Path::new(command), Path::new("/dev/zero")]),
            "a test file from /dev/zero",
        );
        assert!(error.contains("over the limit"), "{error}");
    }
}

/// Where a file names another (a `.gset` its mesh, a glTF its buffer), the named one must be a
/// regular file; a device given directly is read only up to the streaming cap.
#[cfg(unix)]
#[test]
fn named_files_must_be_regular_and_devices_end() {
    let dir = TempDir::new("devices");
    let gset = dir.file("zero.gset", "f /dev/zero\n");
    let gltf = dir.file(
        "zero.gltf",
        r#"{"asset":{"version":"2.0"},"scene":0,"scenes":[{"nodes":[0]}],"nodes":[{"mesh":0}],
"meshes":[{"primitives":[{"attributes":{"POSITION":0}}]}],
"buffers":[{"uri":"/dev/zero","byteLength":36}],
"bufferViews":[{"buffer":0,"byteLength":36}],
"accessors":[{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[0,0,0]}]}"#,
    );
    std::fs::create_dir_all(dir.0.join("sub")).unwrap();
    let folder = dir.file("folder.gset", "f sub\n");
    for (input, expected) in [
        (&gset, "not a regular file"),
        (&gltf, "not a regular file"),
        (&folder, "a folder"),
    ] {
        let error = one_error_line(&navlab([Path::new("bake"), input]), "a named device");
        assert!(error.contains(expected), "{input:?}: {error}");
    }
    let error = one_error_line(
        &navlab([Path::new("bake"), Path::new("/dev/zero")]),
        "bake /dev/zero",
    );
    assert!(error.contains("over the limit"), "{error}");
}

/// One small strip of triangles instanced by thousands of nodes: the triangles the nodes make
/// are budgeted, and the bake refuses them in one line instead of running out of memory.
#[test]
fn node_instancing_past_the_budget_is_refused() {
    let dir = TempDir::new("instancing");
    let strip_vertices = 87_000usize;
    let nodes = MAX_GLTF_VERTICES / strip_vertices + 2;
    let positions: Vec<u8> = (0..strip_vertices)
        .flat_map(|i| [(i / 2) as f32 * 0.1, 0.0, (i % 2) as f32])
        .flat_map(f32::to_le_bytes)
        .collect();
    let bin = dir.file("strip.bin", &positions);
    let node_list: Vec<String> = (0..nodes)
        .map(|n| format!(r#"{{"mesh":0,"translation":[0,{n},0]}}"#))
        .collect();
    let children: Vec<String> = (1..=nodes).map(|n| n.to_string()).collect();
    let gltf = dir.file(
        "instanced.gltf",
        format!(
            r#"{{"asset":{{"version":"2.0"}},"scene":0,"scenes":[{{"nodes":[0]}}],
"nodes":[{{"children":[{}]}},{}],
"meshes":[{{"primitives":[{{"attributes":{{"POSITION":0}},"mode":5}}]}}],
"buffers":[{{"uri":"strip.bin","byteLength":{len}}}],
"bufferViews":[{{"buffer":0,"byteLength":{len}}}],
"accessors":[{{"bufferView":0,"componentType":5126,"count":{strip_vertices},"type":"VEC3","min":[0,0,0],"max":[5000,0,1]}}]}}"#,
            children.join(","),
            node_list.join(","),
            len = positions.len()
        ),
    );
    assert!(std::fs::metadata(&bin).unwrap().len() < 2 << 20);
    let error = one_error_line(&navlab([Path::new("bake"), &gltf]), "instancing");
    assert!(
        error.contains(&format!("more than {MAX_GLTF_VERTICES} vertices")),
        "{error}"
    );
}

#[test]
fn faces_of_fewer_than_three_vertices_are_reported() {
    let dir = TempDir::new("short-faces");
    let mesh = dir.file(
        "short.obj",
        format!("{}f 1 2\nf 3\nf\n", floor_obj(10.0, 0.0)),
    );
    let output = navlab([Path::new("bake"), &mesh]);
    assert!(output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    for (line, count) in [(6, 2), (7, 1), (8, 0)] {
        let expected = format!("line {line}: skipped a face of {count} vertices");
        assert!(stderr.contains(&expected), "{expected}: {stderr}");
    }
}
