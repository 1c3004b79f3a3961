//! `splitOverlappingRegions`: a spiral ramp's watershed region winds over itself, Recast logs
//! "N overlapping regions" and loses part of the ramp; with the option every walkable span is
//! under a polygon and a path climbs the ramp. On meshes without such regions the option
//! changes no byte of the navmesh.
use crate::support as common;

use navlab::bake::settings::BuildSettings;
use navlab::bake::solo::Build;
use navlab::bake::tiled::TiledBuild;
use navlab::detour::NavMesh;
use navlab::detour::query::{NavMeshQuery, PolyFilter, QueryFilter};
use navlab::input::input_geom::InputGeom;
use navlab::input::scene;
use navlab::recast::NULL_AREA;
use navlab::recast::compact::CompactHeightfield;
use navlab::recast::context::BuildContext;
use navlab::recast::region::PartitionType;

/// `assets/Meshes/spiral_ramp.obj`: three turns of 4 m round a column, then a landing.
fn spiral_ramp() -> InputGeom {
    InputGeom::from_mesh(scene::spiral_ramp(3, 4.0)).unwrap()
}

fn settings(partition: PartitionType, split: bool) -> BuildSettings {
    BuildSettings {
        partition_type: partition,
        split_overlapping_regions: split,
        ..BuildSettings::default()
    }
}

fn log_has(ctx: &BuildContext, text: &str) -> bool {
    ctx.entries().iter().any(|e| e.message.contains(text))
}

/// The centres of the walkable spans of `chf` (after erosion and region filtering: those with
/// an area and a region) that no polygon of `nav` covers: a span inside the walkable area (its
/// four neighbours walkable and in regions) must lie over a polygon, one on its outline within
/// a cell of one (the contours are simplified by up to 1.3 cells), and the polygon's detail
/// surface must be within `walkableClimb` of the span's floor (a cell where a low ramp's edge
/// meets the floor takes the ramp's height; the turns of a ramp are metres apart).
fn uncovered_spans(chf: &CompactHeightfield, nav: &NavMesh) -> Vec<[f32; 3]> {
    let query = NavMeshQuery::new(nav, 64).unwrap();
    let filter = QueryFilter::default();
    let (cs, ch) = (chf.cs, chf.ch);
    let climb = chf.walkable_climb as f32 * ch;
    let mut uncovered = Vec::new();
    for z in 0..chf.height {
        for x in 0..chf.width {
            let c = chf.cell(x, z);
            for i in c.index as usize..(c.index + c.count) as usize {
                if chf.areas[i] == NULL_AREA || chf.spans[i].reg == 0 {
                    continue;
                }
                let centre = [
                    chf.bmin[0] + (x as f32 + 0.5) * cs,
                    chf.bmin[1] + f32::from(chf.spans[i].y) * ch,
                    chf.bmin[2] + (z as f32 + 0.5) * cs,
                ];
                let inside = (0..4).all(|dir| {
                    chf.neighbour(x, z, i, dir)
                        .is_some_and(|n| chf.areas[n] != NULL_AREA && chf.spans[n].reg != 0)
                });
                let across = if inside { 0.0 } else { cs };
                if !covered(&query, &filter, centre, across, climb) {
                    uncovered.push(centre);
                }
            }
        }
    }
    uncovered
}

/// Whether a polygon's detail surface comes within `across` of `centre` in xz and `up` in y.
fn covered(
    query: &NavMeshQuery,
    filter: &dyn PolyFilter,
    centre: [f32; 3],
    across: f32,
    up: f32,
) -> bool {
    let extents = [across.max(0.01), up, across.max(0.01)];
    let (status, nearest) = query.find_nearest_poly(&centre, &extents, filter);
    if status.is_failure() || nearest.poly_ref == 0 {
        return false;
    }
    let [dx, dy, dz] = [0, 1, 2].map(|k| nearest.point[k] - centre[k]);
    (dx * dx + dz * dz).sqrt() <= across && dy.abs() <= up
}

/// A path from the floor by the ramp's foot to the landing at its top ends on the landing.
fn climbs_the_ramp(nav: &NavMesh) -> bool {
    let (bottom, top) = ([5.0, 0.0, -1.0], [3.5, 12.0, 3.5]);
    match nav.find_path(bottom, top, &QueryFilter::default()) {
        Ok(path) => path.end().is_some_and(|end| {
            (end[0] - top[0]).abs() < 0.5
                && (end[1] - top[1]).abs() < 0.5
                && (end[2] - top[2]).abs() < 0.5
        }),
        Err(_) => false,
    }
}

#[test]
fn recast_loses_part_of_the_spiral_ramp() {
    let build =
        Build::from_input(&spiral_ramp(), settings(PartitionType::Watershed, false)).unwrap();
    assert!(log_has(
        &build.context,
        "rcBuildRegions: 1 overlapping regions."
    ));
    let nav = build.nav_mesh.as_ref().unwrap();
    let walkable = build.regions.walkable_span_count();
    let lost = uncovered_spans(&build.regions, nav).len();
    assert!(
        lost * 10 > walkable,
        "only {lost} of {walkable} walkable spans lost"
    );
    assert!(!climbs_the_ramp(nav));
}

#[test]
fn split_regions_cover_the_whole_spiral_ramp() {
    let build =
        Build::from_input(&spiral_ramp(), settings(PartitionType::Watershed, true)).unwrap();
    for message in ["overlapping regions", "Bad triangulation"] {
        assert!(!log_has(&build.context, message), "{message}");
    }
    assert!(log_has(&build.context, "overlapped themselves cut into"));
    assert_pieces_do_not_overlap(&build.regions);
    let nav = build.nav_mesh.as_ref().unwrap();
    assert_eq!(uncovered_spans(&build.regions, nav), Vec::<[f32; 3]>::new());
    assert!(climbs_the_ramp(nav));
}

/// The viewer's default scene: its spiral staircase makes one overlapping watershed region.
#[test]
fn split_regions_cover_the_default_scene() {
    let input = InputGeom::from_mesh(scene::default_scene()).unwrap();
    let off = Build::from_input(&input, settings(PartitionType::Watershed, false)).unwrap();
    assert!(log_has(
        &off.context,
        "rcBuildRegions: 1 overlapping regions."
    ));
    assert!(!uncovered_spans(&off.regions, off.nav_mesh.as_ref().unwrap()).is_empty());
    let on = Build::from_input(&input, settings(PartitionType::Watershed, true)).unwrap();
    assert!(!log_has(&on.context, "overlapping regions"));
    assert!(!log_has(&on.context, "Bad triangulation"));
    assert_pieces_do_not_overlap(&on.regions);
    let nav = on.nav_mesh.as_ref().unwrap();
    assert_eq!(uncovered_spans(&on.regions, nav), Vec::<[f32; 3]>::new());
}

/// No column holds two spans of one region, and no id is above `max_regions`.
fn assert_pieces_do_not_overlap(chf: &CompactHeightfield) {
    for c in &chf.cells {
        let column = &chf.spans[c.index as usize..(c.index + c.count) as usize];
        for (k, span) in column.iter().enumerate() {
            if span.reg == 0 {
                continue;
            }
            assert!(span.reg <= chf.max_regions, "region {}", span.reg);
            assert!(
                column[k + 1..].iter().all(|other| other.reg != span.reg),
                "region {} twice in a column",
                span.reg
            );
        }
    }
}

/// One tile over the whole ramp has the solo build's overlapping region; the solo build's spans
/// (same grid origin and cell size) are the points to cover.
#[test]
fn split_regions_cover_the_spiral_ramp_in_one_tile() {
    let input = spiral_ramp();
    let solo = Build::from_input(&input, settings(PartitionType::Watershed, false)).unwrap();
    for split in [false, true] {
        let tiled = TiledBuild::new(&input, settings(PartitionType::Watershed, split), 96).unwrap();
        assert_eq!(tiled.tiles.len(), 1);
        let tile_log = &tiled.tiles[0].context;
        assert_eq!(log_has(tile_log, "overlapping regions"), !split);
        assert_eq!(log_has(tile_log, "Bad triangulation"), !split);
        let uncovered = uncovered_spans(&solo.regions, &tiled.nav_mesh).len();
        assert_eq!(uncovered == 0, split, "{uncovered} spans uncovered");
        if split {
            assert!(climbs_the_ramp(&tiled.nav_mesh));
        }
    }
}

/// The monotone partition never makes a region overlap itself: the option changes nothing.
#[test]
fn monotone_spiral_ramp_is_unchanged() {
    let input = spiral_ramp();
    let [off, on] = [false, true]
        .map(|split| Build::from_input(&input, settings(PartitionType::Monotone, split)).unwrap());
    let nav = on.nav_mesh.as_ref().unwrap();
    assert_eq!(
        off.nav_mesh.as_ref().unwrap().to_mset_bytes(),
        nav.to_mset_bytes()
    );
    assert_eq!(uncovered_spans(&on.regions, nav), Vec::<[f32; 3]>::new());
    assert!(climbs_the_ramp(nav));
}

fn reference_input(mesh: &str) -> Option<InputGeom> {
    let path = common::mesh_path(mesh)?;
    Some(InputGeom::from_mesh(navlab::input::obj::load_obj(&path).unwrap()).unwrap())
}

/// Every reference mesh, solo with each partition and tiled at 32 and 64 cells: the same
/// navmesh file with the option as without.
#[test]
fn reference_meshes_are_byte_identical_with_the_option() {
    for mesh in common::MESHES {
        let Some(input) = reference_input(mesh) else {
            return;
        };
        for partition in PartitionType::ALL {
            let [off, on] = [false, true].map(|split| {
                let settings = BuildSettings {
                    partition_type: partition,
                    split_overlapping_regions: split,
                    ..BuildSettings::for_input(&input)
                };
                let build = Build::from_input(&input, settings).unwrap();
                build.nav_mesh.as_ref().unwrap().to_mset_bytes()
            });
            assert!(off == on, "{mesh} {} solo", partition.name());
        }
        for tile_size in [32, 64] {
            let [off, on] = [false, true].map(|split| {
                let settings = BuildSettings {
                    split_overlapping_regions: split,
                    ..BuildSettings::default()
                };
                TiledBuild::new(&input, settings, tile_size)
                    .unwrap()
                    .nav_mesh
                    .to_mset_bytes()
            });
            assert!(off == on, "{mesh} tiled {tile_size}");
        }
    }
}
