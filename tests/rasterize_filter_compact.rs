//! Stages 1–4 (rasterize, filters, compact heightfield, erosion) against the C++ stage dumps,
//! built as `Sample_SoloMesh::build` does with RecastDemo's default settings.
mod common;

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
use navlab::recast::rasterize::{mark_walkable_triangles, rasterize_triangles};

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
