//! Unit tests of the query helpers: recastnavigation's own Detour and DetourCrowd cases
//! (Tests_Detour.cpp, Tests_DetourPathCorridor.cpp) with their inputs and expectations, and
//! the pieces the reference tests do not isolate (status text, `%.9g`, test-file parsing,
//! the other corridor merges).

use navlab::detour::PolyRef;
use navlab::detour::query::geometry::random_point_in_convex_poly;
use navlab::detour::query::path_follow::{
    in_range, merge_corridor_end_moved, merge_corridor_start_moved, merge_corridor_start_shortcut,
};
use navlab::detour::query::{QueryFilter, Status};
use navlab_app::demo::text::{TestFile, TestKind, format_g9};

/// Catch2's `Approx` default: relative epsilon of 100 × f32 epsilon, scale 0.
fn approx(a: f32, b: f32) {
    let eps = f32::EPSILON * 100.0;
    assert!(
        (a - b).abs() <= eps * (a.abs().max(b.abs())),
        "{a} != approx {b}"
    );
}

#[test]
fn random_point_in_convex_poly_with_s_one() {
    // Tests_Detour.cpp: "Properly works when the argument 's' is 1.0f".
    let pts = [[0.0, 0.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]];
    let out = random_point_in_convex_poly(&pts, 0.0, 1.0);
    approx(out[0], 0.0);
    approx(out[1], 0.0);
    approx(out[2], 1.0);
    let out = random_point_in_convex_poly(&pts, 0.5, 1.0);
    approx(out[0], 0.5);
    approx(out[1], 0.0);
    approx(out[2], 0.5);
    let out = random_point_in_convex_poly(&pts, 1.0, 1.0);
    approx(out[0], 1.0);
    approx(out[1], 0.0);
    approx(out[2], 0.0);
}

/// A corridor merge case: path buffer, npath, visited, expected result, expected buffer.
type MergeCase<'a> = (&'a [PolyRef], usize, &'a [PolyRef], usize, &'a [PolyRef]);

/// Tests_DetourPathCorridor.cpp, `dtMergeCorridorStartMoved`.
#[test]
fn merge_corridor_start_moved_cases() {
    let cases: [MergeCase; 8] = [
        // Should handle empty input.
        (&[], 0, &[], 0, &[]),
        // Should handle empty visited.
        (&[1], 1, &[], 1, &[1]),
        // Should handle empty path.
        (&[], 0, &[1], 0, &[]),
        // Should strip visited points from path except last.
        (&[1, 2], 2, &[1, 2], 1, &[2, 2]),
        // Should add visited points not present in path in reverse order.
        (&[1, 2, 0], 2, &[1, 2, 3, 4], 3, &[4, 3, 2]),
        // Should add visited points not present in path up to the path capacity.
        (&[1, 2, 0], 2, &[1, 2, 3, 4, 5], 3, &[5, 4, 3]),
        // Should not change path if there is no intersection with visited.
        (&[1, 2], 2, &[3, 4], 2, &[1, 2]),
        // Should save unvisited path points.
        (&[1, 2, 0], 2, &[1, 3], 3, &[3, 1, 2]),
    ];
    for (path, npath, visited, expected_n, expected) in cases {
        let mut buf = path.to_vec();
        let n = merge_corridor_start_moved(&mut buf, npath, visited);
        assert_eq!(n, expected_n, "{path:?} {visited:?}");
        assert_eq!(buf, expected, "{path:?} {visited:?}");
    }
    // Should save unvisited path points up to the path capacity.
    let mut buf = vec![1, 2];
    assert_eq!(merge_corridor_start_moved(&mut buf, 2, &[1, 3]), 2);
    assert_eq!(buf, [3, 1]);
}

#[test]
fn merge_corridor_end_moved_appends_after_the_furthest_common_poly() {
    // The target moved from 3 through 4 to 5: the corridor continues after 3.
    let mut buf = vec![1, 2, 3, 0, 0];
    assert_eq!(merge_corridor_end_moved(&mut buf, 3, &[3, 4, 5]), 5);
    assert_eq!(buf, [1, 2, 3, 4, 5]);
    // Limited by the capacity.
    let mut buf = vec![1, 2, 3, 0];
    assert_eq!(merge_corridor_end_moved(&mut buf, 3, &[3, 4, 5]), 4);
    assert_eq!(buf, [1, 2, 3, 4]);
    // No common polygon: unchanged.
    let mut buf = vec![1, 2];
    assert_eq!(merge_corridor_end_moved(&mut buf, 2, &[7, 8]), 2);
    assert_eq!(buf, [1, 2]);
}

#[test]
fn merge_corridor_start_shortcut_replaces_the_start() {
    // A raycast from 1 reached 3 through 9: the corridor becomes 1 9 3 4.
    let mut buf = vec![1, 2, 3, 4, 0];
    assert_eq!(merge_corridor_start_shortcut(&mut buf, 4, &[1, 9, 3]), 4);
    assert_eq!(&buf[..4], [1, 9, 3, 4]);
    // The shortcut starts at the common polygon: nothing to do.
    let mut buf = vec![1, 2, 3];
    assert_eq!(merge_corridor_start_shortcut(&mut buf, 3, &[3, 4]), 3);
    assert_eq!(buf, [1, 2, 3]);
    // Capacity bounds the result.
    let mut buf = vec![5, 6, 7];
    assert_eq!(
        merge_corridor_start_shortcut(&mut buf, 3, &[1, 2, 3, 4, 7]),
        3
    );
    assert_eq!(buf, [1, 2, 3]);
}

#[test]
fn in_range_is_strict_in_xz_and_height() {
    assert!(in_range(&[0.0, 0.0, 0.0], &[0.5, 0.9, 0.0], 1.0, 1.0));
    assert!(!in_range(&[0.0, 0.0, 0.0], &[1.0, 0.0, 0.0], 1.0, 1.0));
    assert!(!in_range(&[0.0, 0.0, 0.0], &[0.0, 1.0, 0.0], 1.0, 1.0));
}

#[test]
fn status_prints_like_the_reference() {
    assert_eq!(Status::SUCCESS.to_string(), "0x40000000");
    assert_eq!(
        (Status::SUCCESS | Status::PARTIAL_RESULT).to_string(),
        "0x40000040"
    );
    assert_eq!(Status::IN_PROGRESS.to_string(), "0x20000000");
    let invalid = Status::FAILURE | Status::INVALID_PARAM;
    assert_eq!(invalid.to_string(), "0x80000008");
    assert!(invalid.is_failure() && !invalid.is_success() && !invalid.is_in_progress());
    assert!(invalid.has_detail(Status::INVALID_PARAM));
    assert!(!invalid.has_detail(Status::OUT_OF_NODES));
    assert_eq!(invalid.details(), Status::INVALID_PARAM);
    assert_eq!(format!("{:x}", Status::BUFFER_TOO_SMALL), "10");
    assert_eq!(Status::from_bits(0x4000_0020).bits(), 0x4000_0020);
}

#[test]
fn format_g9_matches_printf() {
    // Values and their C printf("%.9g") text.
    let cases = [
        (0.6f32, "0.600000024"),
        (2.0, "2"),
        (f32::from_bits(0xc011_3fc3), "-2.26951671"),
        (f32::MAX, "3.40282347e+38"),
        (1.5, "1.5"),
        (100.0, "100"),
        (0.0, "0"),
        (-0.0, "-0"),
        (1e-5, "9.99999975e-06"),
        (0.0001, "9.99999975e-05"),
        (0.001, "0.00100000005"),
        (123456789.0, "123456792"),
        (1234567890.0, "1.23456794e+09"),
        (f32::from_bits(0x426d_6181), "59.3452187"),
        (f32::MIN_POSITIVE, "1.17549435e-38"),
        (0.5, "0.5"),
    ];
    for (v, text) in cases {
        assert_eq!(format_g9(v), text, "{v:e}");
        assert_eq!(
            text.parse::<f32>().unwrap().to_bits(),
            v.to_bits(),
            "round trip {text}"
        );
    }
}

#[test]
fn test_file_parsing_follows_the_demo() {
    let text = "s Solo Mesh\r\n\n   f  nav_test.obj\n\tpf 1 2 3 4 5 6 0x3 0x0\nrc  -1.5 2 3 4 5 6 ffef 10\n# comment\npf 1 2 oops\n";
    let file = TestFile::parse(text);
    assert_eq!(file.sample_name, "Solo Mesh");
    assert_eq!(file.geom_file_name, "nav_test.obj");
    assert_eq!(file.tests.len(), 3);
    let pf = &file.tests[0];
    assert_eq!(pf.kind, TestKind::Pathfind);
    assert_eq!(pf.text, "pf 1 2 3 4 5 6 0x3 0x0");
    assert_eq!((pf.start, pf.end), ([1.0, 2.0, 3.0], [4.0, 5.0, 6.0]));
    assert_eq!((pf.include_flags, pf.exclude_flags), (3, 0));
    let rc = &file.tests[1];
    assert_eq!(rc.kind, TestKind::Raycast);
    assert_eq!(rc.start[0], -1.5);
    assert_eq!((rc.include_flags, rc.exclude_flags), (0xffef, 0x10));
    // sscanf stops at the first field it cannot read; the rest stays 0.
    let bad = &file.tests[2];
    assert_eq!((bad.start, bad.end), ([1.0, 2.0, 0.0], [0.0; 3]));
}

#[test]
fn default_filter_is_detours() {
    let f = QueryFilter::default();
    assert_eq!((f.include_flags(), f.exclude_flags()), (0xffff, 0));
    assert!((0..64).all(|a| f.area_cost(a) == 1.0));
    let mut f = QueryFilter::with_flags(1, 2);
    f.set_area_cost(5, 1.5);
    assert_eq!(f.area_cost(5), 1.5);
    assert_eq!(f.area_cost(5 + 64), 1.5);
}
