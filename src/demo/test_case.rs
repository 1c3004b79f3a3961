//! RecastDemo's test cases (`TestCase::doTests`): for each line of a test-case file, the
//! nearest polygons, then a path and its straight path (`pf`) or a raycast (`rc`), recorded
//! in the schema of the C++ reference (`queries/*_results.json`).

use std::time::Instant;

use serde::Serialize;

use crate::demo::tester::{MAX_POLYS, POLY_PICK_EXT, QUERY_NODES};
use crate::demo::text::{JsonF32, RefJson, TestFile, TestKind, TestLine, flat_points, point};
use navlab::detour::common::vlerp;
use navlab::detour::query::StraightPathPoint;
use navlab::detour::query::{NavMeshQuery, QueryFilter, Status};
use navlab::detour::{NavMesh, PolyRef, RefWidth};

/// The whole report (`*_results.json`).
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct TestCaseReport {
    pub test_file: String,
    pub sample: String,
    pub geom: String,
    pub num_tests: usize,
    /// How the navmesh was built and queried.
    pub settings: String,
    /// Whether the navmesh's references are 64-bit, as C++ built with `DT_POLYREF64`.
    #[serde(rename = "DT_POLYREF64")]
    pub poly_ref64: bool,
    /// How the references split into salt, tile and polygon bits.
    pub ref_bits: RefBits,
    pub results: Vec<TestResult>,
}

/// Salt, tile and polygon bits of a navmesh's references.
#[derive(Clone, Copy, Debug, Serialize, PartialEq)]
pub struct RefBits {
    pub salt: u32,
    pub tile: u32,
    pub poly: u32,
}

impl RefBits {
    pub fn of(nav: &NavMesh) -> RefBits {
        let (salt, tile, poly) = nav.ref_bits();
        RefBits { salt, tile, poly }
    }
}

/// A raycast's `t`: the string `"FLT_MAX"` when nothing was hit, else the number.
#[derive(Clone, Copy, Debug, Serialize, PartialEq)]
#[serde(untagged)]
pub enum RaycastT {
    Max(&'static str),
    Value(JsonF32),
}

/// The outputs of a `pf` line.
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct PathResult {
    pub find_path_status: String,
    pub path_count: usize,
    pub path: Vec<PolyRef>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub find_straight_path_status: Option<String>,
    pub straight_count: usize,
    pub straight: Vec<JsonF32>,
    pub straight_flags: Vec<u8>,
    pub straight_refs: Vec<PolyRef>,
}

/// The outputs of an `rc` line.
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct RaycastResult {
    pub raycast_status: String,
    pub t: RaycastT,
    #[serde(rename = "t_is_flt_max")]
    pub t_is_flt_max: bool,
    pub hit: bool,
    pub hit_normal: [JsonF32; 3],
    pub path_count: usize,
    pub path: Vec<PolyRef>,
    pub hit_pos_adjusted: [JsonF32; 3],
    #[serde(skip_serializing_if = "Option::is_none")]
    pub get_poly_height_status: Option<String>,
    pub demo_straight: Vec<JsonF32>,
}

/// The outputs of one line; the path or raycast part is missing when a nearest polygon was
/// not found (`skipped`).
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct TestResult {
    pub index: usize,
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub line: String,
    pub spos: [JsonF32; 3],
    pub epos: [JsonF32; 3],
    pub include_flags: u16,
    pub exclude_flags: u16,
    pub start_ref: RefJson,
    pub end_ref: RefJson,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_nearest_pt: Option<[JsonF32; 3]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_nearest_pt: Option<[JsonF32; 3]>,
    pub find_nearest_status: [String; 2],
    pub skipped: bool,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub path: Option<PathResult>,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub raycast: Option<RaycastResult>,
    /// Microseconds in `findNearestPoly`, `findPath` (or the raycast) and
    /// `findStraightPath`, as the demo times them.
    pub find_nearest_poly_time: u64,
    pub find_path_time: u64,
    pub find_straight_path_time: u64,
}

/// Microseconds since `start`.
fn micros(start: Instant) -> u64 {
    start.elapsed().as_micros() as u64
}

/// Runs every line of `file` on `nav` as `TestCase::doTests` does: the default filter with
/// the line's flags, a 2048-node query, 256-polygon buffers. `settings` goes into the
/// report as the description of how `nav` was made.
pub fn run_test_case(
    nav: &NavMesh,
    file: &TestFile,
    test_file_name: &str,
    settings: &str,
) -> Result<TestCaseReport, Status> {
    let mut query = NavMeshQuery::new(nav, QUERY_NODES)?;
    let results = file
        .tests
        .iter()
        .enumerate()
        .map(|(index, line)| run_line(&mut query, index, line))
        .collect();
    Ok(TestCaseReport {
        test_file: test_file_name.to_string(),
        sample: file.sample_name.clone(),
        geom: file.geom_file_name.clone(),
        num_tests: file.tests.len(),
        settings: settings.to_string(),
        poly_ref64: nav.ref_width() == RefWidth::Bits64,
        ref_bits: RefBits::of(nav),
        results,
    })
}

fn run_line(query: &mut NavMeshQuery<'_>, index: usize, line: &TestLine) -> TestResult {
    let nav = query.nav_mesh();
    let filter = QueryFilter::with_flags(line.include_flags, line.exclude_flags);
    let (spos, epos) = (line.start, line.end);
    let started = Instant::now();
    let (start_status, start) = query.find_nearest_poly(&spos, &POLY_PICK_EXT, &filter);
    let (end_status, end) = query.find_nearest_poly(&epos, &POLY_PICK_EXT, &filter);
    let find_nearest_poly_time = micros(started);
    let skipped = start.poly_ref == 0 || end.poly_ref == 0;
    let mut result = TestResult {
        index,
        kind: match line.kind {
            TestKind::Pathfind => "pf",
            TestKind::Raycast => "rc",
        },
        line: line.text.clone(),
        spos: point(&spos),
        epos: point(&epos),
        include_flags: line.include_flags,
        exclude_flags: line.exclude_flags,
        start_ref: RefJson::new(nav, start.poly_ref),
        end_ref: RefJson::new(nav, end.poly_ref),
        start_nearest_pt: (start.poly_ref != 0).then(|| point(&start.point)),
        end_nearest_pt: (end.poly_ref != 0).then(|| point(&end.point)),
        find_nearest_status: [start_status.to_string(), end_status.to_string()],
        skipped,
        path: None,
        raycast: None,
        find_nearest_poly_time,
        find_path_time: 0,
        find_straight_path_time: 0,
    };
    if skipped {
        return result;
    }
    let mut polys = [0 as PolyRef; MAX_POLYS];
    match line.kind {
        TestKind::Pathfind => {
            let started = Instant::now();
            let (status, n) = query.find_path(
                start.poly_ref,
                end.poly_ref,
                &spos,
                &epos,
                &filter,
                &mut polys,
            );
            result.find_path_time = micros(started);
            let mut straight = [StraightPathPoint::default(); MAX_POLYS];
            let mut straight_status = None;
            let mut nstraight = 0;
            if n > 0 {
                let started = Instant::now();
                let (s, count) =
                    query.find_straight_path(&spos, &epos, &polys[..n], &mut straight, 0);
                result.find_straight_path_time = micros(started);
                straight_status = Some(s.to_string());
                nstraight = count;
            }
            let straight = &straight[..nstraight];
            result.path = Some(PathResult {
                find_path_status: status.to_string(),
                path_count: n,
                path: polys[..n].to_vec(),
                find_straight_path_status: straight_status,
                straight_count: nstraight,
                straight: flat_points(straight.iter().map(|p| p.pos)),
                straight_flags: straight.iter().map(|p| p.flags).collect(),
                straight_refs: straight.iter().map(|p| p.poly_ref).collect(),
            });
        }
        TestKind::Raycast => {
            let started = Instant::now();
            let (status, hit) = query.raycast(start.poly_ref, &spos, &epos, &filter, &mut polys);
            result.find_path_time = micros(started);
            let n = hit.path_count;
            let mut hit_pos = if hit.t > 1.0 {
                epos
            } else {
                vlerp(&spos, &epos, hit.t)
            };
            let mut height_status = None;
            if n > 0 {
                let (s, h) = query.get_poly_height(polys[n - 1], &hit_pos);
                hit_pos[1] = h;
                height_status = Some(s.to_string());
            }
            let t_is_flt_max = hit.t == f32::MAX;
            result.raycast = Some(RaycastResult {
                raycast_status: status.to_string(),
                t: if t_is_flt_max {
                    RaycastT::Max("FLT_MAX")
                } else {
                    RaycastT::Value(JsonF32(hit.t))
                },
                t_is_flt_max,
                hit: hit.t <= 1.0,
                hit_normal: point(&hit.hit_normal),
                path_count: n,
                path: polys[..n].to_vec(),
                hit_pos_adjusted: point(&hit_pos),
                get_poly_height_status: height_status,
                demo_straight: flat_points([spos, hit_pos]),
            });
        }
    }
    result
}
