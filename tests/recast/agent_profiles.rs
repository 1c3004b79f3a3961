//! Agent profiles built from one rasterization (`navlab::bake::profiles`) equal single builds
//! with each profile's settings: the rasterized heightfield pool for pool (areas of free slots
//! included), the filtered heightfield, the compact heightfield with its areas, distances and
//! regions, the meshes and the navmesh bytes. The profiles differ in slope and in climb, and
//! two share both (and so one heightfield).
use crate::support as common;

use std::sync::Arc;

use navlab::bake::profiles::{AgentProfile, build_profiles, default_profiles};
use navlab::bake::settings::BuildSettings;
use navlab::bake::solo::{Build, Retention};
use navlab::input::input_geom::InputGeom;
use navlab::recast::context::BuildContext;
use navlab::recast::heightfield::Heightfield;
use navlab::recast::rasterize::{mark_walkable_triangles, rasterize_triangles_parallel};
use navlab::recast::span_log::rasterize_triangles_logged;

/// The default three, one sharing the human's slope and climb (but not its height or radius),
/// and a steep climber.
fn profiles() -> Vec<AgentProfile> {
    let mut profiles = default_profiles();
    profiles.push("tall=0.4,2.6,0.9,45".parse().unwrap());
    profiles.push("goat=0.3,1.0,1.5,60".parse().unwrap());
    profiles
}

/// Asserts every stage output of `shared` (a profile's build) equals `single`'s.
fn assert_same_build(shared: &Build, single: &Build, what: &str) {
    assert_eq!(
        shared.triangle_areas, single.triangle_areas,
        "{what}: triangle areas"
    );
    assert_eq!(
        shared.heightfield_rasterized(),
        single.heightfield_rasterized(),
        "{what}: rasterized heightfield"
    );
    assert_eq!(
        shared.heightfield_filtered, single.heightfield_filtered,
        "{what}: filtered heightfield"
    );
    assert_eq!(
        shared.compact(),
        single.compact(),
        "{what}: compact heightfield"
    );
    assert_eq!(
        shared.regions, single.regions,
        "{what}: areas, distances and regions"
    );
    assert_eq!(shared.contours, single.contours, "{what}: contours");
    assert_eq!(shared.poly_mesh, single.poly_mesh, "{what}: poly mesh");
    assert_eq!(
        shared.detail_mesh, single.detail_mesh,
        "{what}: detail mesh"
    );
    assert_eq!(
        shared.span_counts, single.span_counts,
        "{what}: span counts"
    );
    let bytes = |build: &Build| build.nav_mesh.as_ref().map(|nm| nm.to_mset_bytes());
    assert!(bytes(single).is_some(), "{what}: no navmesh");
    assert_eq!(bytes(shared), bytes(single), "{what}: navmesh bytes");
}

fn assert_profiles_equal_single_builds(input: &InputGeom, what: &str) {
    let base = BuildSettings::for_input(input);
    let profiles = profiles();
    let builds = build_profiles(input, &base, &profiles, Retention::Everything).unwrap();
    assert_eq!(builds.len(), profiles.len());
    for (profile, build) in profiles.iter().zip(builds) {
        let what = format!("{what}, profile {}", profile.name);
        match (
            build,
            Build::from_input_keeping(input, profile.apply(&base), Retention::Everything),
        ) {
            (Ok(build), Ok(single)) => assert_same_build(&build, &single, &what),
            (Err(shared), Err(single)) => {
                assert_eq!(shared.to_string(), single.to_string(), "{what}")
            }
            (build, single) => panic!("{what}: {:?} vs {:?}", build.err(), single.err()),
        }
    }
}

#[test]
fn profiles_equal_single_builds_on_the_reference_meshes() {
    let Some(dir) = common::reference_dir() else {
        return;
    };
    for mesh in common::MESHES {
        let input = InputGeom::load(&dir.join("meshes").join(format!("{mesh}.obj"))).unwrap();
        assert_profiles_equal_single_builds(&input, mesh);
    }
}

/// A city over the size from which rasterization splits into bands of rows (1040 x 1040 cells,
/// over `recast::parallel`'s million), on two threads: the replayed areas land in the bands'
/// pools.
#[test]
fn profiles_equal_single_builds_when_rasterized_in_bands() {
    let input = InputGeom::from_mesh(navlab::input::scene::city(26)).unwrap();
    rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap()
        .install(|| assert_profiles_equal_single_builds(&input, "city(26)"));
}

/// A headless bake's builds (which free the heightfields) give the same navmeshes.
#[test]
fn final_retention_gives_the_same_navmeshes() {
    let input = InputGeom::from_mesh(navlab::input::scene::default_scene()).unwrap();
    let base = BuildSettings::default();
    let profiles = profiles();
    let builds = build_profiles(&input, &base, &profiles, Retention::Final).unwrap();
    for (profile, build) in profiles.iter().zip(builds) {
        let single =
            Build::from_input_keeping(&input, profile.apply(&base), Retention::Final).unwrap();
        let bytes = |build: &Build| build.nav_mesh.as_ref().map(|nm| nm.to_mset_bytes());
        assert_eq!(bytes(&build.unwrap()), bytes(&single), "{}", profile.name);
    }
}

/// A profile whose settings fail fails as its single build does; the others still build.
#[test]
fn a_failing_profile_fails_alone() {
    let input = InputGeom::from_mesh(navlab::input::scene::city(4)).unwrap();
    let flat: AgentProfile = "flat=0.6,2.0,0.9,0".parse().unwrap();
    let mut profiles = default_profiles();
    profiles.insert(1, flat.clone());
    let base = BuildSettings::default();
    let builds = build_profiles(&input, &base, &profiles, Retention::Final).unwrap();
    let single = Build::from_input_keeping(&input, flat.apply(&base), Retention::Final);
    assert_eq!(
        builds[1].as_ref().unwrap_err().to_string(),
        single.unwrap_err().to_string()
    );
    for k in [0, 2, 3] {
        assert!(builds[k].is_ok(), "{}", profiles[k].name);
    }
}

/// The area log replayed with another slope's triangle areas and another climb gives the very
/// heightfield (pool, free list and all) a rasterization with them gives, in one band and in
/// several.
#[test]
fn replayed_areas_equal_a_rasterization_with_them() {
    let cities = [
        (navlab::input::scene::city(5), 1),
        (navlab::input::scene::city(26), 2),
    ];
    for (mesh, threads) in cities {
        let mesh = Arc::new(mesh);
        let (bmin, bmax) = mesh.bounds();
        let config = BuildSettings::default().to_config(bmin, bmax).unwrap();
        let rasterize = |slope: f32, climb: i32, logged: bool| {
            let mut ctx = BuildContext::new();
            let mut areas = vec![0u8; mesh.tri_count()];
            mark_walkable_triangles(&mut ctx, slope, &mesh.verts, &mesh.tris, &mut areas).unwrap();
            let mut hf = Heightfield::new(
                config.width,
                config.height,
                config.bmin,
                config.bmax,
                config.cs,
                config.ch,
            );
            let log = if logged {
                Some(
                    rasterize_triangles_logged(
                        &mut ctx,
                        &mesh.verts,
                        &mesh.tris,
                        &areas,
                        &mut hf,
                        climb,
                    )
                    .unwrap(),
                )
            } else {
                rasterize_triangles_parallel(
                    &mut ctx,
                    &mesh.verts,
                    &mesh.tris,
                    &areas,
                    &mut hf,
                    climb,
                )
                .unwrap();
                None
            };
            (hf, areas, log)
        };
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| {
                let (recorded, _, log) = rasterize(45.0, 4, true);
                let log = log.unwrap();
                for (slope, climb) in [(45.0, 4), (45.0, 0), (20.0, 1), (89.0, 12), (0.0, 4)] {
                    let (direct, areas, _) = rasterize(slope, climb, false);
                    let mut replayed = recorded.clone();
                    log.replay(&mut replayed, &areas, climb).unwrap();
                    assert!(
                        replayed == direct,
                        "{threads} threads, slope {slope}, climb {climb}"
                    );
                }
            });
    }
}
