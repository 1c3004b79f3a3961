//! The solo build on rayon's threads equals the single-threaded one: every reference mesh and
//! two generated cities (one under and one over the grid size from which stages split their
//! work, `recast::parallel`), with all three partitions, built in a pool of one thread and in a
//! pool of two, give the same stage outputs (the heightfields' columns, not their pools'
//! layout), the same log and the same navmesh bytes.
use crate::support as common;

use std::sync::Arc;

use navlab::bake::settings::BuildSettings;
use navlab::bake::solo::Build;
use navlab::input::obj::TriMesh;
use navlab::recast::heightfield::Heightfield;
use navlab::recast::region::PartitionType;

/// Builds `mesh` with `partition` on a pool of `threads` threads.
fn build_on(threads: usize, mesh: &Arc<TriMesh>, partition: PartitionType) -> Build {
    let settings = BuildSettings {
        partition_type: partition,
        ..BuildSettings::default()
    };
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(|| Build::new(mesh.clone(), settings))
        .unwrap()
}

/// A column's spans, bottom to top, as (smin, smax, area).
type Column = Vec<(u16, u16, u8)>;

/// A heightfield's grid and the spans of each column: everything but the layout of its span
/// pool, which follows the bands rows were rasterized in (and no stage reads).
fn columns(hf: &Heightfield) -> (Vec<u32>, Vec<Column>) {
    let grid = [hf.bmin, hf.bmax]
        .iter()
        .flatten()
        .chain([&hf.cs, &hf.ch])
        .map(|v| v.to_bits())
        .chain([hf.width as u32, hf.height as u32])
        .collect();
    let spans = (0..hf.height)
        .flat_map(|z| (0..hf.width).map(move |x| (x, z)))
        .map(|(x, z)| hf.column(x, z).map(|s| (s.smin, s.smax, s.area)).collect())
        .collect();
    (grid, spans)
}

/// Asserts that every stage output of `a` and `b` is the same, floats bit for bit.
fn assert_same_build(a: &Build, b: &Build, what: &str) {
    assert_eq!(a.triangle_areas, b.triangle_areas, "{what}: triangle areas");
    assert_eq!(
        columns(&a.heightfield_rasterized()),
        columns(&b.heightfield_rasterized()),
        "{what}: rasterized heightfield"
    );
    assert_eq!(
        columns(&a.heightfield_filtered),
        columns(&b.heightfield_filtered),
        "{what}: filtered heightfield"
    );
    assert_eq!(a.compact(), b.compact(), "{what}: compact heightfield");
    assert_eq!(a.compact_eroded(), b.compact_eroded(), "{what}: eroded");
    assert_eq!(a.regions, b.regions, "{what}: distance field and regions");
    assert_eq!(a.contours, b.contours, "{what}: contours");
    assert_eq!(a.poly_mesh, b.poly_mesh, "{what}: poly mesh");
    assert_eq!(a.detail_mesh, b.detail_mesh, "{what}: detail mesh");
    let bits = |verts: &[f32]| verts.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    assert_eq!(
        bits(&a.detail_mesh.verts),
        bits(&b.detail_mesh.verts),
        "{what}: detail vertex bits"
    );
    assert_eq!(a.span_counts, b.span_counts, "{what}: span counts");
    assert_eq!(a.context.entries(), b.context.entries(), "{what}: log");
    let bytes = |build: &Build| build.nav_mesh.as_ref().map(|nm| nm.to_mset_bytes());
    assert_eq!(bytes(a), bytes(b), "{what}: navmesh bytes");
}

fn check(mesh: TriMesh, name: &str) {
    let mesh = Arc::new(mesh);
    for partition in PartitionType::ALL {
        let one = build_on(1, &mesh, partition);
        let two = build_on(2, &mesh, partition);
        assert!(one.poly_mesh.npolys > 0, "{name}: nothing built");
        assert_same_build(&one, &two, &format!("{name}/{}", partition.name()));
    }
}

#[test]
fn reference_meshes_build_the_same_on_one_and_two_threads() {
    for name in common::MESHES {
        let Some(path) = common::mesh_path(name) else {
            return;
        };
        check(navlab::input::obj::load_obj(&path).unwrap(), name);
    }
}

#[test]
fn a_city_builds_the_same_on_one_and_two_threads() {
    check(navlab::input::scene::city(4), "city(4)");
    // 1120 x 1120 cells: every stage that can splits its work.
    check(navlab::input::scene::city(28), "city(28)");
}
