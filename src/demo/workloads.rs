//! The C++ reference's performance workloads (tests/data/reference/PERF_DETOUR.md): **Q**, the
//! tester's "pathfind straight" and "raycast" queries over a test-case file, and **P**, 1000 paths
//! between pseudo-random points. Each workload's loop is its own non-inlined function
//! ([`run_queries`], [`run_paths`]) so callgrind can count just it
//! (`--toggle-collect='*run_queries*'`).

use crate::demo::tester::{MAX_POLYS, POLY_PICK_EXT, tester_filter};
use crate::demo::text::{TestKind, TestLine};
use navlab::detour::common::{Vec3, vlerp};
use navlab::detour::query::StraightPathPoint;
use navlab::detour::query::{NavMeshQuery, PolyFilter, QueryFilter, Status};
use navlab::detour::{NavMesh, PolyRef};

/// FNV-1a 64 offset basis.
pub const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0100_0000_01b3;

/// Folds `bytes` into an FNV-1a 64 hash.
#[inline]
pub fn fnv1a64(hash: u64, bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .fold(hash, |h, &b| (h ^ u64::from(b)).wrapping_mul(FNV_PRIME))
}

/// One line of workload Q with its tester filter, built before the timed part.
#[derive(Clone, Debug)]
pub struct QueryCase {
    pub line: TestLine,
    pub filter: QueryFilter,
}

impl QueryCase {
    /// The cases of a test-case file's lines, each with the tester's filter.
    pub fn from_lines(lines: &[TestLine]) -> Vec<QueryCase> {
        lines
            .iter()
            .map(|line| QueryCase {
                line: line.clone(),
                filter: tester_filter(line.include_flags, line.exclude_flags),
            })
            .collect()
    }
}

/// What one line of workload Q produced (for checking against the reference).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QueryOutcome {
    pub start_ref: PolyRef,
    pub end_ref: PolyRef,
    /// The path polygons (`pf`) or the polygons the ray crossed (`rc`).
    pub path: Vec<PolyRef>,
    pub find_path_status: Status,
    /// The straight path points (`pf`).
    pub straight: Vec<Vec3>,
    /// The height-adjusted hit position (`rc`).
    pub hit_pos: Vec3,
    pub raycast_t: f32,
}

/// Sums over all passes of workload Q (the reference gives them per pass).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QuerySums {
    pub pf_lines: u64,
    pub rc_lines: u64,
    pub skipped: u64,
    pub partial: u64,
    pub out_of_nodes: u64,
    pub path_polys: u64,
    pub straight_points: u64,
    pub raycast_hits: u64,
    pub raycast_path_polys: u64,
}

/// Workload Q: `passes` times over `cases`, the nearest polygons of both ends, then a path
/// and its straight path (end clamped when partial) or a raycast with the demo's height
/// fix. `observe(line index, outcome)` sees each line's results when `RECORD` is set; the
/// timed run leaves it off so nothing but the queries is measured.
#[inline(never)]
pub fn run_queries<const RECORD: bool>(
    query: &mut NavMeshQuery<'_>,
    cases: &[QueryCase],
    passes: usize,
    mut observe: impl FnMut(usize, QueryOutcome),
) -> QuerySums {
    let mut sums = QuerySums::default();
    let mut path = [0 as PolyRef; MAX_POLYS];
    let mut straight = [StraightPathPoint::default(); MAX_POLYS];
    for _ in 0..passes {
        for (index, case) in cases.iter().enumerate() {
            let line = &case.line;
            let filter = &case.filter;
            let start_ref = query
                .find_nearest_poly(&line.start, &POLY_PICK_EXT, filter)
                .1
                .poly_ref;
            let end_ref = query
                .find_nearest_poly(&line.end, &POLY_PICK_EXT, filter)
                .1
                .poly_ref;
            match line.kind {
                TestKind::Pathfind => {
                    sums.pf_lines += 1;
                    if start_ref == 0 || end_ref == 0 {
                        sums.skipped += 1;
                        continue;
                    }
                    let (status, n) = query.find_path(
                        start_ref,
                        end_ref,
                        &line.start,
                        &line.end,
                        filter,
                        &mut path,
                    );
                    sums.path_polys += n as u64;
                    if status.has_detail(Status::PARTIAL_RESULT) {
                        sums.partial += 1;
                    }
                    if status.has_detail(Status::OUT_OF_NODES) {
                        sums.out_of_nodes += 1;
                    }
                    let mut nstraight = 0;
                    if n > 0 {
                        let mut end_pos = line.end;
                        if path[n - 1] != end_ref {
                            end_pos = query.closest_point_on_poly(path[n - 1], &line.end).1;
                        }
                        nstraight = query
                            .find_straight_path(&line.start, &end_pos, &path[..n], &mut straight, 0)
                            .1;
                    }
                    sums.straight_points += nstraight as u64;
                    if RECORD {
                        observe(
                            index,
                            QueryOutcome {
                                start_ref,
                                end_ref,
                                path: path[..n].to_vec(),
                                find_path_status: status,
                                straight: straight[..nstraight].iter().map(|p| p.pos).collect(),
                                ..QueryOutcome::default()
                            },
                        );
                    }
                }
                TestKind::Raycast => {
                    sums.rc_lines += 1;
                    if start_ref == 0 {
                        sums.skipped += 1;
                        continue;
                    }
                    let (_, hit) =
                        query.raycast(start_ref, &line.start, &line.end, filter, &mut path);
                    let mut hit_pos = if hit.t > 1.0 {
                        line.end
                    } else {
                        sums.raycast_hits += 1;
                        vlerp(&line.start, &line.end, hit.t)
                    };
                    let n = hit.path_count;
                    if n > 0 {
                        hit_pos[1] = query.get_poly_height(path[n - 1], &hit_pos).1;
                    }
                    sums.raycast_path_polys += n as u64;
                    if RECORD {
                        observe(
                            index,
                            QueryOutcome {
                                start_ref,
                                end_ref,
                                path: path[..n].to_vec(),
                                hit_pos,
                                raycast_t: hit.t,
                                ..QueryOutcome::default()
                            },
                        );
                    }
                }
            }
        }
    }
    sums
}

/// One pair of workload P: both ends snapped onto the navmesh.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PathPair {
    /// The attempt that produced the pair.
    pub attempt: usize,
    /// The raw sample points.
    pub raw_start: Vec3,
    pub raw_end: Vec3,
    pub start_ref: PolyRef,
    pub start_pos: Vec3,
    pub end_ref: PolyRef,
    pub end_pos: Vec3,
}

/// The pairs of workload P and how many attempts they took.
#[derive(Clone, Debug, PartialEq)]
pub struct PathPairs {
    pub pairs: Vec<PathPair>,
    pub attempts: usize,
    pub skipped_attempts: usize,
}

/// The 32-bit LCG of workload P (x = x · 1664525 + 1013904223), giving floats in [0, 1)
/// from its top 24 bits.
#[derive(Clone, Copy, Debug)]
pub struct Lcg(pub u32);

impl Lcg {
    pub fn next_f32(&mut self) -> f32 {
        self.0 = self.0.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        (self.0 >> 8) as f32 / 16_777_216.0
    }
}

/// The union of the tile boxes (`bmin`/`bmax` of every tile header).
pub fn nav_mesh_bounds(nav: &NavMesh) -> Option<(Vec3, Vec3)> {
    let mut tiles = nav.tiles();
    let (_, first) = tiles.next()?;
    let (mut bmin, mut bmax) = (first.header().bmin, first.header().bmax);
    for (_, tile) in tiles {
        navlab::detour::common::vmin(&mut bmin, &tile.header().bmin);
        navlab::detour::common::vmax(&mut bmax, &tile.header().bmax);
    }
    Some((bmin, bmax))
}

/// Workload P's pair generator: random points at mid height in the navmesh bounds (LCG
/// seeded 12345), both ends snapped with `findNearestPoly` (box 2 × full height × 2, the
/// default filter), pairs with a missing end skipped, until `count` pairs. Gives up after
/// `100 * count + 100` attempts (a navmesh with almost nothing to hit).
pub fn generate_path_pairs(query: &NavMeshQuery<'_>, count: usize) -> PathPairs {
    generate_path_pairs_seeded(query, count, 12345)
}

/// [`generate_path_pairs`] with the LCG seeded `seed`, for other sets of random pairs.
pub fn generate_path_pairs_seeded(query: &NavMeshQuery<'_>, count: usize, seed: u32) -> PathPairs {
    let mut result = PathPairs {
        pairs: Vec::with_capacity(count),
        attempts: 0,
        skipped_attempts: 0,
    };
    let Some((bmin, bmax)) = nav_mesh_bounds(query.nav_mesh()) else {
        return result;
    };
    let extents = [2.0, bmax[1] - bmin[1], 2.0];
    let filter = QueryFilter::default();
    let mut rng = Lcg(seed);
    let random_point = |rng: &mut Lcg| {
        let ux = rng.next_f32();
        let uz = rng.next_f32();
        [
            bmin[0] + ux * (bmax[0] - bmin[0]),
            (bmin[1] + bmax[1]) * 0.5,
            bmin[2] + uz * (bmax[2] - bmin[2]),
        ]
    };
    while result.pairs.len() < count
        && result.attempts < count.saturating_mul(100).saturating_add(100)
    {
        let attempt = result.attempts;
        result.attempts += 1;
        let raw_start = random_point(&mut rng);
        let raw_end = random_point(&mut rng);
        let (_, start) = query.find_nearest_poly(&raw_start, &extents, &filter);
        let (_, end) = query.find_nearest_poly(&raw_end, &extents, &filter);
        if start.poly_ref == 0 || end.poly_ref == 0 {
            result.skipped_attempts += 1;
            continue;
        }
        result.pairs.push(PathPair {
            attempt,
            raw_start,
            raw_end,
            start_ref: start.poly_ref,
            start_pos: start.point,
            end_ref: end.poly_ref,
            end_pos: end.point,
        });
    }
    result
}

/// Sums over workload P.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PathSums {
    pub partial: u64,
    pub out_of_nodes: u64,
    pub path_polys: u64,
    pub straight_points: u64,
}

/// What one pair of workload P produced.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PathOutcome<'r> {
    pub status: Status,
    pub path: &'r [PolyRef],
    pub straight: &'r [StraightPathPoint],
}

/// The check hashes of workload P, fed one pair at a time: FNV-1a 64 of every path
/// reference (little-endian, in its navmesh's width: a 32-bit navmesh's references fit 32
/// bits, a 64-bit one's never do) and of every straight-path point (3 × f32 little-endian),
/// in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PathHashes {
    pub path_refs: u64,
    pub straight_points: u64,
}

impl Default for PathHashes {
    fn default() -> Self {
        PathHashes {
            path_refs: FNV_OFFSET,
            straight_points: FNV_OFFSET,
        }
    }
}

impl PathHashes {
    pub fn add(&mut self, outcome: &PathOutcome<'_>) {
        for r in outcome.path {
            self.path_refs = match u32::try_from(*r) {
                Ok(narrow) => fnv1a64(self.path_refs, &narrow.to_le_bytes()),
                Err(_) => fnv1a64(self.path_refs, &r.to_le_bytes()),
            };
        }
        for c in outcome.straight.iter().flat_map(|p| p.pos) {
            self.straight_points = fnv1a64(self.straight_points, &c.to_le_bytes());
        }
    }
}

/// Workload P: for each pair, `findPath` (256 polygons) and, when it found any,
/// `findStraightPath` (256 points, end clamped onto the last polygon of a partial path).
/// `observe` sees each pair's outcome when `RECORD` is set.
#[inline(never)]
pub fn run_paths<const RECORD: bool, F: PolyFilter + ?Sized>(
    query: &mut NavMeshQuery<'_>,
    pairs: &[PathPair],
    filter: &F,
    mut observe: impl FnMut(usize, PathOutcome<'_>),
) -> PathSums {
    let mut sums = PathSums::default();
    let mut path = [0 as PolyRef; MAX_POLYS];
    let mut straight = [StraightPathPoint::default(); MAX_POLYS];
    for (index, pair) in pairs.iter().enumerate() {
        let (status, n) = query.find_path(
            pair.start_ref,
            pair.end_ref,
            &pair.start_pos,
            &pair.end_pos,
            filter,
            &mut path,
        );
        if status.has_detail(Status::PARTIAL_RESULT) {
            sums.partial += 1;
        }
        if status.has_detail(Status::OUT_OF_NODES) {
            sums.out_of_nodes += 1;
        }
        sums.path_polys += n as u64;
        let mut nstraight = 0;
        if n > 0 {
            let mut end_pos = pair.end_pos;
            if path[n - 1] != pair.end_ref {
                end_pos = query.closest_point_on_poly(path[n - 1], &pair.end_pos).1;
            }
            nstraight = query
                .find_straight_path(&pair.start_pos, &end_pos, &path[..n], &mut straight, 0)
                .1;
        }
        sums.straight_points += nstraight as u64;
        if RECORD {
            observe(
                index,
                PathOutcome {
                    status,
                    path: &path[..n],
                    straight: &straight[..nstraight],
                },
            );
        }
    }
    sums
}
