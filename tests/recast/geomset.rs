//! RecastDemo's `.gset` geometry sets: the reference file, round trips, and bad input.

use crate::support as common;

use std::path::{Path, PathBuf};

use navlab::bake::settings::BuildSettings;
use navlab::input::geomset::{ConvexVolume, GeomSet, OffMeshConnection};
use navlab::recast::region::PartitionType;

fn parse(text: &str) -> navlab::input::Result<GeomSet> {
    GeomSet::parse(text.as_bytes(), Path::new("test.gset"))
}

fn authoring_gset() -> Option<(PathBuf, Vec<u8>)> {
    let path = common::reference_dir()?.join("authoring/nav_test_authoring.gset");
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Some((path, bytes))
}

#[test]
fn reference_authoring_gset_parses_and_writes_back_byte_for_byte() {
    let Some((path, bytes)) = authoring_gset() else {
        return;
    };
    let set = GeomSet::load(&path).unwrap();
    assert_eq!(set.mesh_path, PathBuf::from("nav_test.obj"));
    assert_eq!(set.settings, None, "the README says there is no `s` line");

    let areas: Vec<u8> = set.convex_volumes.iter().map(|v| v.area).collect();
    assert_eq!(areas, [1, 4, 2, 3], "water, grass, road, door");
    let counts: Vec<usize> = set.convex_volumes.iter().map(|v| v.verts.len()).collect();
    assert_eq!(counts, [4, 5, 4, 4]);
    for vol in &set.convex_volumes {
        assert_eq!((vol.hmin, vol.hmax), (-3.37, 2.63));
    }
    assert_eq!(
        set.convex_volumes[1].verts[1],
        [-8.763932, -2.37, 13.804226]
    );

    assert_eq!(set.off_mesh_connections.len(), 3);
    let bidirectional: Vec<bool> = set
        .off_mesh_connections
        .iter()
        .map(|c| c.bidirectional)
        .collect();
    assert_eq!(
        bidirectional,
        [true, false, true],
        "the second link is one-way"
    );
    for c in &set.off_mesh_connections {
        assert_eq!((c.radius, c.area, c.flags), (0.6, 5, 8));
    }
    assert_eq!(
        set.off_mesh_connections[0].start,
        [6.054083, -2.365402, 3.330421]
    );
    let ids: Vec<u32> = (0..3).map(GeomSet::off_mesh_user_id).collect();
    assert_eq!(ids, [1000, 1001, 1002]);

    // The file lists volumes before connections and single-spaces its `c` lines, while
    // saveGeomSet writes connections first; every line must still come out with the same values
    // printed the same way.
    let written = set.to_gset_string();
    let normalize = |text: &str| -> Vec<String> {
        let mut lines: Vec<String> = text
            .lines()
            .map(|l| l.split_ascii_whitespace().collect::<Vec<_>>().join(" "))
            .collect();
        lines.sort();
        lines
    };
    let reference = String::from_utf8(bytes).unwrap();
    assert_eq!(normalize(&written), normalize(&reference));
    assert_eq!(GeomSet::parse(written.as_bytes(), &path).unwrap(), set);
}

fn sample_set() -> GeomSet {
    let build = BuildSettings {
        cell_size: 0.25,
        agent_radius: 0.123_456_79,
        partition_type: PartitionType::Layers,
        verts_per_poly: 5.0,
        ..Default::default()
    };
    GeomSet {
        mesh_path: PathBuf::from("meshes/with space/level.obj"),
        settings: Some(build.to_geom_set_settings(
            [-28.889_317, -4.869_517, -46.300_15],
            [62.494_81, 1e-7, 31.053_14],
            48.0,
        )),
        off_mesh_connections: vec![
            OffMeshConnection {
                start: [1.0, -0.0, 3.333_333_3],
                end: [1e6, 2.5, -7.25],
                radius: 0.6,
                bidirectional: false,
                area: 63,
                flags: 0xffff,
            },
            OffMeshConnection {
                start: [0.0; 3],
                end: [1.0; 3],
                radius: 0.0,
                bidirectional: true,
                area: 0,
                flags: 0,
            },
        ],
        convex_volumes: vec![ConvexVolume {
            verts: vec![[0.0, 1.0, 0.0], [4.0, 1.0, 0.1], [2.0, 1.0, 3.25]],
            area: 4,
            hmin: -1.5,
            hmax: 4.5,
        }],
    }
}

#[test]
fn round_trip_is_exact() {
    let set = sample_set();
    let text = set.to_gset_string();
    assert_eq!(parse(&text).unwrap(), set, "{text}");
    // Values %f shows exactly are written as RecastDemo writes them.
    assert!(text.contains("c 1.000000 -0.000000 3.3333333  1000000.000000 2.500000 -7.250000  0.600000 0 63 65535\n"), "{text}");
    assert!(
        text.contains("\nv 3 4 -1.500000 4.500000\n0.000000 1.000000 0.000000\n"),
        "{text}"
    );

    let dir = std::env::temp_dir().join(format!("navlab-gset-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("level.gset");
    set.save(&path).unwrap();
    assert_eq!(GeomSet::load(&path).unwrap(), set);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn settings_line_has_recastdemos_21_values_in_order() {
    let text = "f level.obj\n\
        s 0.3 0.2 2.0 0.6 0.9 45 8 20 12 1.3 0 6 1 1 -10 -1 -20 10 5 20 32\n";
    let set = parse(text).unwrap();
    let s = set.settings.as_ref().unwrap();
    assert_eq!(
        (s.cell_size, s.cell_height, s.agent_height, s.agent_radius),
        (0.3, 0.2, 2.0, 0.6)
    );
    assert_eq!((s.agent_max_climb, s.agent_max_slope), (0.9, 45.0));
    assert_eq!((s.region_min_size, s.region_merge_size), (8.0, 20.0));
    assert_eq!((s.edge_max_len, s.edge_max_error), (12.0, 1.3));
    assert_eq!(s.verts_per_poly, 0);
    assert_eq!(
        (s.detail_sample_dist, s.detail_sample_max_error),
        (6.0, 1.0)
    );
    assert_eq!(s.partition_type, PartitionType::Monotone);
    assert_eq!(s.nav_mesh_bmin, [-10.0, -1.0, -20.0]);
    assert_eq!(s.nav_mesh_bmax, [10.0, 5.0, 20.0]);
    assert_eq!(s.tile_size_cells(), Some(32));
    assert_eq!(
        set.nav_mesh_bounds(([0.0; 3], [1.0; 3])),
        ([-10.0, -1.0, -20.0], [10.0, 5.0, 20.0])
    );

    // Applying keeps the filters and, as RecastDemo does, the current verts-per-poly for a 0.
    let mut build = BuildSettings {
        filter_ledge_spans: false,
        verts_per_poly: 5.0,
        ..Default::default()
    };
    build.apply_geom_set(s);
    assert_eq!(build.partition_type, PartitionType::Monotone);
    assert_eq!(build.verts_per_poly, 5.0);
    assert!(!build.filter_ledge_spans);
    assert_eq!(build.detail_sample_max_error, 1.0);
    build.validate().unwrap();

    let without = parse("f level.obj\n").unwrap();
    assert_eq!(
        without.nav_mesh_bounds(([0.0; 3], [1.0; 3])),
        ([0.0; 3], [1.0; 3])
    );
}

#[test]
fn build_settings_survive_a_trip_through_the_file() {
    let build = BuildSettings {
        cell_size: 0.1,
        agent_max_slope: 60.0,
        verts_per_poly: 4.0,
        partition_type: PartitionType::Monotone,
        ..Default::default()
    };
    let mut set = GeomSet::new("m.obj");
    set.settings = Some(build.to_geom_set_settings([0.0; 3], [1.0; 3], 0.0));
    let back = parse(&set.to_gset_string()).unwrap();
    let s = back.settings.unwrap();
    assert_eq!(s.tile_size_cells(), None);
    let mut restored = BuildSettings::default();
    restored.apply_geom_set(&s);
    assert_eq!(restored, build);
}

#[test]
fn blank_lines_comments_and_crlf_are_accepted() {
    let text = "\r\n# made by hand\r\n  f  level.obj  \r\n\r\nv 3 2 0 1\r\n\r\n1 0 1\r\n\t2 0 1\r\n3 0 4\r\n";
    let set = parse(text).unwrap();
    assert_eq!(set.mesh_path, PathBuf::from("level.obj"));
    assert_eq!(set.convex_volumes[0].verts[2], [3.0, 0.0, 4.0]);
}

#[test]
fn malformed_lines_are_named() {
    let cases = [
        ("", "no `f` line"),
        ("v 3 1 0 1\n0 0 0\n1 0 0\n0 0 1\n", "no `f` line"),
        ("f\n", "line 1: the `f` line names no mesh"),
        ("f a.obj\nf b.obj\n", "line 2: a second `f` line"),
        (
            "f a.obj\ns 1 2 3\n",
            "line 2: the settings line is missing its agent radius",
        ),
        (
            "f a.obj\ns 0.3 0.2 2 0.6 0.9 45 8 20 12 1.3 6.0 6 1 0 0 0 0 1 1 1 32\n",
            "line 2: the settings line has `6.0` as its verts per poly",
        ),
        (
            "f a.obj\ns 0.3 0.2 2 0.6 0.9 45 8 20 12 1.3 6 6 1 3 0 0 0 1 1 1 32\n",
            "partition type, expected a whole number from 0 to 2",
        ),
        (
            "f a.obj\ns 0.3 0.2 2 0.6 0.9 45 8 20 12 1.3 6 6 1 0 0 0 0 1 1 1 32 7\n",
            "line 2: unexpected `7` after the settings line",
        ),
        (
            "f a.obj\ns 0.3 0.2 2 0.6 0.9 45 8 20 12 1.3 6 6 1 0 0 0 0 1 1 1 32\ns 0.3 0.2 2 0.6 0.9 45 8 20 12 1.3 6 6 1 0 0 0 0 1 1 1 32\n",
            "line 3: a second `s`",
        ),
        (
            "f a.obj\nc 0 0 0 1 1 1 0.6 1 5\n",
            "line 2: the off-mesh connection is missing its flags",
        ),
        (
            "f a.obj\nc 0 0 0 1 nan 1 0.6 1 5 8\n",
            "`nan` as its end y, expected a finite number",
        ),
        ("f a.obj\nc 0 0 0 1 1 1 0.6 2 5 8\n", "bidirectional flag"),
        ("f a.obj\nc 0 0 0 1 1 1 0.6 1 64 8\n", "`64` as its area"),
        (
            "f a.obj\nc 0 0 0 1 1 1 0.6 1 5 65536\n",
            "`65536` as its flags",
        ),
        (
            "f a.obj\n\nv 13 1 0 1\n",
            "line 3: the convex volume has `13` as its vertex count",
        ),
        ("f a.obj\nv 2 1 0 1\n0 0 0\n1 0 0\n", "vertex count"),
        (
            "f a.obj\nv 3 1 0\n",
            "line 2: the convex volume is missing its maximum height",
        ),
        (
            "f a.obj\nv 3 1 0 1\n0 0 0\n1 0 0\n",
            "ends after 2 of its 3 vertices",
        ),
        (
            "f a.obj\nv 3 1 0 1\n0 0 0\n1 0\n",
            "line 4: vertex 2 of 3 of the convex volume on line 2 is missing its position z",
        ),
        (
            "f a.obj\nv 3 1 0 1\n0 0 0\nv 3 1 0 1\n",
            "line 4: vertex 2 of 3 of the convex volume on line 2 has `v` as its position x",
        ),
        (
            "f a.obj\nv 3 1 0 1\n0 0 0\n1 0 0 9\n0 0 1\n",
            "line 4: unexpected `9` after vertex 2 of 3",
        ),
        ("f a.obj\nx 1 2 3\n", "line 2: unknown line `x 1 2 3`"),
        ("f a.obj\nfoo.obj\n", "line 2: unknown line"),
        (
            "c 0 0 0 1 1 1 0.6 1 5 8\nf a.obj\n",
            "line 2: the `f` line must come before",
        ),
    ];
    for (text, expected) in cases {
        match parse(text) {
            Err(navlab::input::Error::InvalidGeomSet { path, message }) => {
                assert_eq!(path, Path::new("test.gset"));
                assert!(message.contains(expected), "{text:?}: {message}");
            }
            other => panic!("{text:?}: expected an InvalidGeomSet error, got {other:?}"),
        }
    }
    let err = GeomSet::parse(b"f a.obj\n\xff\xfe\n", Path::new("x.gset")).unwrap_err();
    assert!(err.to_string().contains("not UTF-8"), "{err}");
    let err = GeomSet::load(Path::new("/nonexistent/navlab.gset")).unwrap_err();
    assert!(
        matches!(
            err,
            navlab::input::Error::File(navlab::file::FileError::Io { .. })
        ),
        "{err}"
    );
}

/// Truncated, mutated and random input must give a result or an error, never a panic.
#[test]
fn damaged_input_never_panics() {
    let text = sample_set().to_gset_string();
    let bytes = text.as_bytes();
    for end in 0..=bytes.len() {
        let _ = GeomSet::parse(&bytes[..end], Path::new("cut.gset"));
    }
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let alphabet = b"fscv0123456789.-+eE \n\r\t#naif";
    for _ in 0..3000 {
        let mut mutated = bytes.to_vec();
        for _ in 0..1 + next() % 4 {
            let at = (next() as usize) % mutated.len();
            match next() % 3 {
                0 => mutated[at] = alphabet[(next() as usize) % alphabet.len()],
                1 => {
                    mutated.remove(at);
                }
                _ => mutated.insert(at, (next() & 0xff) as u8),
            }
        }
        let _ = GeomSet::parse(&mutated, Path::new("mutated.gset"));
        let random: Vec<u8> = (0..next() % 200)
            .map(|_| alphabet[(next() as usize) % alphabet.len()])
            .collect();
        let _ = GeomSet::parse(&random, Path::new("random.gset"));
    }
}

#[test]
fn relative_mesh_paths_are_taken_from_the_gset_folder() {
    let set = GeomSet::new("nav_test.obj");
    assert_eq!(
        set.mesh_path_relative_to(Path::new("/data/sets/a.gset")),
        PathBuf::from("/data/sets/nav_test.obj")
    );
    let absolute = GeomSet::new("/meshes/nav_test.obj");
    assert_eq!(
        absolute.mesh_path_relative_to(Path::new("/data/sets/a.gset")),
        PathBuf::from("/meshes/nav_test.obj")
    );
}

/// Links the navmesh does not join are reported by index and end; the reference set's links
/// all join, in solo and tiled builds.
#[test]
fn loose_links_are_found_after_a_build() {
    use navlab::bake::authoring::{LooseLink, loose_links};
    let Some((path, _)) = authoring_gset() else {
        return;
    };
    let mut input = navlab::input::InputGeom::load(&path).unwrap();
    let settings = BuildSettings::for_input(&input);
    let solo = navlab::bake::solo::Build::from_input(&input, settings.clone()).unwrap();
    assert_eq!(
        loose_links(solo.nav_mesh.as_ref().unwrap(), &input.geom_set),
        []
    );
    // With 32-cell tiles (9.6 m) the third link's end lies two tiles from its start, which
    // Detour (C++ too: the navmesh files are byte-identical) never joins.
    let tiled = navlab::bake::tiled::TiledBuild::new(&input, settings.clone(), 32).unwrap();
    let loose = loose_links(&tiled.nav_mesh, &input.geom_set);
    assert_eq!(
        loose,
        [LooseLink {
            index: 2,
            start_joined: true,
            end_joined: false,
            end_beyond_neighbour_tiles: true
        }]
    );
    assert!(loose[0].to_string().contains("more than one tile"));
    let tiled = navlab::bake::tiled::TiledBuild::new(&input, settings.clone(), 128).unwrap();
    assert_eq!(loose_links(&tiled.nav_mesh, &input.geom_set), []);

    let good = input.geom_set.off_mesh_connections[0].clone();
    let far = [
        good.start[0] + 1000.0,
        good.start[1],
        good.start[2] + 1000.0,
    ];
    let links = &mut input.geom_set.off_mesh_connections;
    links.push(OffMeshConnection {
        end: far,
        ..good.clone()
    });
    links.push(OffMeshConnection {
        start: far,
        end: good.start,
        ..good
    });
    let solo = navlab::bake::solo::Build::from_input(&input, settings).unwrap();
    let loose = loose_links(solo.nav_mesh.as_ref().unwrap(), &input.geom_set);
    let count = input.geom_set.off_mesh_connections.len();
    assert_eq!(
        loose,
        [
            LooseLink {
                index: count - 2,
                start_joined: true,
                end_joined: false,
                end_beyond_neighbour_tiles: false
            },
            LooseLink {
                index: count - 1,
                start_joined: false,
                end_joined: false,
                end_beyond_neighbour_tiles: false
            },
        ]
    );
    assert!(
        loose[0]
            .to_string()
            .contains("its end is not on the navmesh")
    );
}
