//! Stages 1–4 (rasterize, filters, compact heightfield, erosion) against the C++ stage dumps,
//! built as `Sample_SoloMesh::build` does with RecastDemo's default settings.
use crate::support as common;

use common::{HeightfieldStage, as_i64s, assert_slices_eq, heightfield_stage, load_json};
use std::sync::Arc;

use navlab::bake::settings::BuildSettings;
use navlab::bake::solo::Build;
use navlab::input::obj::load_obj;
use navlab::recast::area::erode_walkable_area;
use navlab::recast::compact::build_compact_heightfield;
use navlab::recast::context::BuildContext;
use navlab::recast::filter::{
    filter_ledge_spans, filter_low_hanging_walkable_obstacles, filter_walkable_low_height_spans,
};
use navlab::recast::heightfield::Heightfield;
use navlab::recast::rasterize::{add_span, mark_walkable_triangles, rasterize_triangles};

/// Asserts the heightfield equals a stage dump, column by column.
fn assert_heightfield_eq(what: &str, hf: &Heightfield, reference: &HeightfieldStage) {
    assert_eq!(
        (hf.width, hf.height),
        (reference.width, reference.height),
        "{what}: size"
    );
    let mut counts = Vec::with_capacity(hf.columns.len());
    let mut spans = Vec::new();
    for z in 0..hf.height {
        for x in 0..hf.width {
            let before = spans.len();
            spans.extend(
                hf.column(x, z)
                    .map(|s| [i64::from(s.smin), i64::from(s.smax), i64::from(s.area)]),
            );
            counts.push((spans.len() - before) as i64);
        }
    }
    assert_slices_eq(
        &format!("{what}: column span counts"),
        &counts,
        &reference.column_span_counts,
    );
    assert_slices_eq(&format!("{what}: spans"), &spans, &reference.spans);
}

fn ints<T: Into<i64>>(values: impl Iterator<Item = T>) -> Vec<i64> {
    values.map(Into::into).collect()
}

fn check_mesh(mesh: &str) {
    let Some(rasterized) = heightfield_stage(mesh, "1_heightfield_rasterized") else {
        return;
    };
    let filtered = heightfield_stage(mesh, "2_heightfield_filtered").unwrap();
    let compact = load_json(&format!("stages/{mesh}/3_compact.json")).unwrap();
    let eroded = load_json(&format!("stages/{mesh}/4_compact_eroded.json")).unwrap();

    let tri_mesh = load_obj(&common::mesh_path(mesh).unwrap()).unwrap();
    let (bmin, bmax) = tri_mesh.bounds();
    let cfg = BuildSettings::default().to_config(bmin, bmax).unwrap();
    let mut ctx = BuildContext::new();

    let mut hf = Heightfield::new(cfg.width, cfg.height, cfg.bmin, cfg.bmax, cfg.cs, cfg.ch);
    let mut areas = vec![0u8; tri_mesh.tri_count()];
    mark_walkable_triangles(
        &mut ctx,
        cfg.walkable_slope_angle,
        &tri_mesh.verts,
        &tri_mesh.tris,
        &mut areas,
    )
    .unwrap();
    rasterize_triangles(
        &mut ctx,
        &tri_mesh.verts,
        &tri_mesh.tris,
        &areas,
        &mut hf,
        cfg.walkable_climb,
    )
    .unwrap();
    assert_heightfield_eq(&format!("{mesh} rasterized"), &hf, &rasterized);

    filter_low_hanging_walkable_obstacles(&mut ctx, cfg.walkable_climb, &mut hf);
    filter_ledge_spans(&mut ctx, cfg.walkable_height, cfg.walkable_climb, &mut hf);
    filter_walkable_low_height_spans(&mut ctx, cfg.walkable_height, &mut hf);
    assert_heightfield_eq(&format!("{mesh} filtered"), &hf, &filtered);

    let mut chf =
        build_compact_heightfield(&mut ctx, cfg.walkable_height, cfg.walkable_climb, &hf).unwrap();
    // A whole build keeps one heightfield and one compact heightfield, and the earlier states
    // as their areas: what it rebuilds from them is what each stage made.
    let build = Build::new(Arc::new(tri_mesh.clone()), BuildSettings::default()).unwrap();
    assert_heightfield_eq(
        &format!("{mesh} build: rasterized"),
        &build.heightfield_rasterized(),
        &rasterized,
    );
    assert_heightfield_eq(
        &format!("{mesh} build: filtered"),
        &build.heightfield_filtered,
        &filtered,
    );
    assert_eq!(build.compact(), chf, "{mesh} build: compact");
    let field = |name: &str| as_i64s(&compact[name]);
    assert_eq!(
        chf.span_count() as i64,
        compact["spanCount"].as_i64().unwrap(),
        "{mesh}: span count"
    );
    assert_eq!((chf.width, chf.height), (cfg.width, cfg.height));
    assert_slices_eq(
        &format!("{mesh} compact: cell index"),
        &ints(chf.cells.iter().map(|c| c.index)),
        &field("cellIndex"),
    );
    assert_slices_eq(
        &format!("{mesh} compact: cell count"),
        &ints(chf.cells.iter().map(|c| c.count)),
        &field("cellCount"),
    );
    assert_slices_eq(
        &format!("{mesh} compact: y"),
        &ints(chf.spans.iter().map(|s| s.y)),
        &field("y"),
    );
    assert_slices_eq(
        &format!("{mesh} compact: h"),
        &ints(chf.spans.iter().map(|s| s.h)),
        &field("h"),
    );
    assert_slices_eq(
        &format!("{mesh} compact: con"),
        &ints(chf.spans.iter().map(|s| s.con)),
        &field("con"),
    );
    assert_slices_eq(
        &format!("{mesh} compact: areas"),
        &ints(chf.areas.iter().copied()),
        &field("areas"),
    );
    let mut bmax_expected = cfg.bmax;
    bmax_expected[1] += cfg.walkable_height as f32 * cfg.ch;
    assert_eq!(chf.bmin, cfg.bmin);
    assert_eq!(chf.bmax, bmax_expected);
    assert_eq!(
        (chf.walkable_height, chf.walkable_climb),
        (cfg.walkable_height, cfg.walkable_climb)
    );

    erode_walkable_area(&mut ctx, cfg.walkable_radius, &mut chf).unwrap();
    assert_slices_eq(
        &format!("{mesh} eroded: areas"),
        &ints(chf.areas.iter().copied()),
        &as_i64s(&eroded["areas"]),
    );
    assert_eq!(build.compact_eroded(), chf, "{mesh} build: eroded");

    assert!(
        !ctx.entries()
            .iter()
            .any(|e| e.category != navlab::recast::context::LogCategory::Progress),
        "{mesh}: {:?}",
        ctx.entries()
    );
}

#[test]
fn nav_test_stages_1_to_4_match_recast() {
    check_mesh("nav_test");
}

#[test]
fn dungeon_stages_1_to_4_match_recast() {
    check_mesh("dungeon");
}

/// The span counts every solo dump records, for all three meshes (undulating has no stage dumps).
#[test]
fn solo_span_counts_match_recast() {
    for mesh in common::MESHES {
        let Some(solo) = common::solo(mesh, "watershed") else {
            return;
        };
        let tri_mesh = load_obj(&common::mesh_path(mesh).unwrap()).unwrap();
        let (bmin, bmax) = tri_mesh.bounds();
        let cfg = BuildSettings::default().to_config(bmin, bmax).unwrap();
        let mut ctx = BuildContext::new();
        let mut hf = Heightfield::new(cfg.width, cfg.height, cfg.bmin, cfg.bmax, cfg.cs, cfg.ch);
        let mut areas = vec![0u8; tri_mesh.tri_count()];
        let (verts, tris) = (&tri_mesh.verts, &tri_mesh.tris);
        mark_walkable_triangles(&mut ctx, cfg.walkable_slope_angle, verts, tris, &mut areas)
            .unwrap();
        rasterize_triangles(&mut ctx, verts, tris, &areas, &mut hf, cfg.walkable_climb).unwrap();
        let counts = &solo["heightfield"];
        let expect = |v: &serde_json::Value| v.as_u64().unwrap() as usize;
        assert_eq!(
            hf.span_count(),
            expect(&counts["spanCountAfterRasterize"]),
            "{mesh}"
        );
        assert_eq!(
            hf.walkable_span_count(),
            expect(&counts["walkableSpansAfterRasterize"]),
            "{mesh}"
        );

        filter_low_hanging_walkable_obstacles(&mut ctx, cfg.walkable_climb, &mut hf);
        filter_ledge_spans(&mut ctx, cfg.walkable_height, cfg.walkable_climb, &mut hf);
        filter_walkable_low_height_spans(&mut ctx, cfg.walkable_height, &mut hf);
        assert_eq!(
            hf.span_count(),
            expect(&counts["spanCountAfterFilters"]),
            "{mesh}"
        );
        assert_eq!(
            hf.walkable_span_count(),
            expect(&counts["walkableSpansAfterFilters"]),
            "{mesh}"
        );

        let mut chf =
            build_compact_heightfield(&mut ctx, cfg.walkable_height, cfg.walkable_climb, &hf)
                .unwrap();
        let compact = &solo["compactHeightfield"];
        assert_eq!(chf.span_count(), expect(&compact["spanCount"]), "{mesh}");
        erode_walkable_area(&mut ctx, cfg.walkable_radius, &mut chf).unwrap();
        assert_eq!(
            chf.walkable_span_count(),
            expect(&compact["walkableSpansAfterErode"]),
            "{mesh}"
        );
    }
}

/// Random columns of up to 40 stacked spans, some close enough to climb between and some
/// not, so that the ledge filter's and the linker's shortcuts over stacked floors meet every
/// case of Recast's full scans.
fn stacked_heightfield(seed: u32, size: i32) -> Heightfield {
    let mut state = seed;
    let mut next = move |n: u32| {
        state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        (state >> 8) % n
    };
    let mut hf = Heightfield::new(
        size,
        size,
        [0.0; 3],
        [size as f32, 100.0, size as f32],
        1.0,
        0.1,
    );
    let mut ctx = BuildContext::new();
    for z in 0..size {
        for x in 0..size {
            let mut bottom = next(6) as u16;
            for _ in 0..next(40) {
                let top = bottom + 1 + next(4) as u16;
                let area = if next(5) == 0 { 0 } else { 63 };
                add_span(&mut ctx, &mut hf, x, z, bottom..top, area, 1).unwrap();
                // Gaps from none to more than an agent's height.
                bottom = top + next(30) as u16;
            }
        }
    }
    hf
}

/// Recast's `rcFilterLedgeSpans` as written: every span against every gap of each neighbour.
fn ledges_by_full_scan(hf: &Heightfield, walkable_height: i32, walkable_climb: i32) -> Vec<bool> {
    const SKY: i32 = 0xffff;
    let gaps = |x: i32, z: i32| -> Vec<(i32, i32)> {
        let spans: Vec<_> = hf.column(x, z).collect();
        let mut gaps = vec![(-SKY, spans.first().map_or(SKY, |s| i32::from(s.smin)))];
        for (k, span) in spans.iter().enumerate() {
            let ceiling = spans.get(k + 1).map_or(SKY, |s| i32::from(s.smin));
            gaps.push((i32::from(span.smax), ceiling));
        }
        gaps
    };
    let mut ledges = Vec::new();
    for z in 0..hf.height {
        for x in 0..hf.width {
            let spans: Vec<_> = hf.column(x, z).collect();
            for (k, span) in spans.iter().enumerate() {
                if span.area == 0 {
                    ledges.push(false);
                    continue;
                }
                let floor = i32::from(span.smax);
                let ceiling = spans.get(k + 1).map_or(SKY, |s| i32::from(s.smin));
                let (mut lowest, mut highest) = (floor, floor);
                let mut min_drop = SKY;
                for (dx, dz) in [(-1, 0), (0, 1), (1, 0), (0, -1)] {
                    let (nx, nz) = (x + dx, z + dz);
                    if nx < 0 || nz < 0 || nx >= hf.width || nz >= hf.height {
                        min_drop = -walkable_climb - 1;
                        break;
                    }
                    for (neighbour_floor, neighbour_ceiling) in gaps(nx, nz) {
                        if ceiling.min(neighbour_ceiling) - floor.max(neighbour_floor)
                            >= walkable_height
                        {
                            let drop = neighbour_floor - floor;
                            min_drop = min_drop.min(drop);
                            if drop.abs() <= walkable_climb {
                                lowest = lowest.min(neighbour_floor);
                                highest = highest.max(neighbour_floor);
                            }
                        }
                    }
                }
                ledges.push(min_drop < -walkable_climb || highest - lowest > walkable_climb);
            }
        }
    }
    ledges
}

#[test]
fn stacked_floors_keep_recasts_ledges_and_links() {
    let (walkable_height, walkable_climb) = (20, 9);
    for seed in 1..=4 {
        let mut hf = stacked_heightfield(seed, 9);
        let expected = ledges_by_full_scan(&hf, walkable_height, walkable_climb);
        let mut ctx = BuildContext::new();
        filter_ledge_spans(&mut ctx, walkable_height, walkable_climb, &mut hf);
        let walkable_before: Vec<bool> = {
            let fresh = stacked_heightfield(seed, 9);
            (0..fresh.height)
                .flat_map(|z| (0..fresh.width).map(move |x| (x, z)))
                .flat_map(|(x, z)| fresh.column(x, z).map(|s| s.area != 0).collect::<Vec<_>>())
                .collect()
        };
        let walkable_after: Vec<bool> = (0..hf.height)
            .flat_map(|z| (0..hf.width).map(move |x| (x, z)))
            .flat_map(|(x, z)| hf.column(x, z).map(|s| s.area != 0).collect::<Vec<_>>())
            .collect();
        let expected_after: Vec<bool> = walkable_before
            .iter()
            .zip(&expected)
            .map(|(&walkable, &ledge)| walkable && !ledge)
            .collect();
        assert_eq!(walkable_after, expected_after, "seed {seed}: ledges");

        let chf =
            build_compact_heightfield(&mut ctx, walkable_height, walkable_climb, &hf).unwrap();
        let offsets = [(-1, 0), (0, 1), (1, 0), (0, -1)];
        for z in 0..chf.height {
            for x in 0..chf.width {
                let cell = chf.cells[(x + z * chf.width) as usize];
                for i in cell.index..cell.index + cell.count {
                    let span = chf.spans[i as usize];
                    for (dir, (dx, dz)) in offsets.into_iter().enumerate() {
                        let (nx, nz) = (x + dx, z + dz);
                        let mut expected = 0x3f;
                        if nx >= 0 && nz >= 0 && nx < chf.width && nz < chf.height {
                            let other = chf.cells[(nx + nz * chf.width) as usize];
                            let spans = &chf.spans[other.index as usize..][..other.count as usize];
                            let connects = |n: &&navlab::recast::compact::CompactSpan| {
                                let (y, ny) = (i32::from(span.y), i32::from(n.y));
                                let top = (y + i32::from(span.h)).min(ny + i32::from(n.h));
                                top - y.max(ny) >= walkable_height
                                    && (ny - y).abs() <= walkable_climb
                            };
                            if let Some(layer) = spans.iter().position(|n| connects(&n)) {
                                expected = layer as u32;
                            }
                        }
                        assert_eq!(
                            span.con(dir),
                            expected,
                            "seed {seed}: link of span {i} to {dir}"
                        );
                    }
                }
            }
        }
    }
}
