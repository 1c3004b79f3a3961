//! Recast's own unit tests (`Tests/Recast/Tests_Recast.cpp`, `Tests_RecastFilter.cpp`,
//! `Tests_RecastRasterization.cpp`), ported case by case with the same inputs and expectations.
//! Each Catch2 `SECTION` is one test here, since Catch re-runs the shared setup per section.

use std::hint::black_box;

use navlab::input::obj::calc_bounds;
use navlab::math::{
    clamp_i32, fmax, fmin, vadd, vcross, vdist, vdist_sqr, vdot, vmad, vmax, vmin, vnormalize, vsub,
};
use navlab::recast::config::calc_grid_size;
use navlab::recast::context::BuildContext;
use navlab::recast::filter::{
    filter_ledge_spans, filter_low_hanging_walkable_obstacles, filter_walkable_low_height_spans,
};
use navlab::recast::heightfield::{Heightfield, NO_SPAN, Span};
use navlab::recast::rasterize::{
    add_span, clear_unwalkable_triangles, mark_walkable_triangles, rasterize_triangle,
    rasterize_triangle_soup, rasterize_triangles, rasterize_triangles_u16,
};
use navlab::{recast::NULL_AREA, recast::WALKABLE_AREA};

/// Catch2's default `Approx`: relative tolerance of 100 float epsilons.
fn approx(value: f32, expected: f32) -> bool {
    value == expected || (value - expected).abs() <= f32::EPSILON * 100.0 * expected.abs()
}

macro_rules! assert_approx {
    ($value:expr, $expected:expr) => {{
        let (value, expected) = ($value as f32, $expected as f32);
        assert!(
            approx(value, expected),
            "{value} is not approximately {expected}"
        );
    }};
}

/// The spans of column (`x`, `z`) as `(smin, smax, area)`, bottom to top.
fn column(hf: &Heightfield, x: i32, z: i32) -> Vec<(u16, u16, u8)> {
    hf.column(x, z).map(|s| (s.smin, s.smax, s.area)).collect()
}

/// Replaces column (`x`, `z`) with the given `(smin, smax, area)` spans, bottom to top.
fn set_column(hf: &mut Heightfield, x: i32, z: i32, spans: &[(u16, u16, u8)]) {
    let mut next = NO_SPAN;
    for &(smin, smax, area) in spans.iter().rev() {
        next = hf.alloc_span(Span {
            smin,
            smax,
            area,
            next,
        });
    }
    let width = hf.width;
    hf.columns[(x + z * width) as usize] = next;
}

// ---------------------------------------------------------------------------------------------
// Tests_Recast.cpp: the math helpers map to std or to `navlab::math`.

#[test]
fn rc_swap_swaps_two_values() {
    let (mut one, mut two) = (1, 2);
    std::mem::swap(&mut one, &mut two);
    assert_eq!((one, two), (2, 1));
}

#[test]
fn rc_min_returns_the_lowest_value() {
    assert_eq!(black_box(1).min(2), 1);
    assert_eq!(black_box(2).min(1), 1);
    assert_eq!(fmin(1.0, 2.0), 1.0);
    assert_eq!(fmin(2.0, 1.0), 1.0);
}

#[test]
fn rc_min_with_equal_args() {
    assert_eq!(black_box(1).min(1), 1);
    assert_eq!(fmin(1.0, 1.0), 1.0);
}

#[test]
fn rc_max_returns_the_greatest_value() {
    assert_eq!(black_box(1).max(2), 2);
    assert_eq!(black_box(2).max(1), 2);
    assert_eq!(fmax(1.0, 2.0), 2.0);
    assert_eq!(fmax(2.0, 1.0), 2.0);
}

#[test]
fn rc_max_with_equal_args() {
    assert_eq!(black_box(1).max(1), 1);
    assert_eq!(fmax(1.0, 1.0), 1.0);
}

#[test]
fn rc_abs_returns_the_absolute_value() {
    assert_eq!((-1i32).abs(), 1);
    assert_eq!(1i32.abs(), 1);
    assert_eq!(0i32.abs(), 0);
}

#[test]
fn rc_sqr_squares_a_number() {
    let sqr = |v: i32| v * v;
    assert_eq!(sqr(2), 4);
    assert_eq!(sqr(-4), 16);
    assert_eq!(sqr(0), 0);
}

#[test]
fn rc_clamp_higher_than_range() {
    assert_eq!(clamp_i32(2, 0, 1), 1);
}

#[test]
fn rc_clamp_within_range() {
    assert_eq!(clamp_i32(1, 0, 2), 1);
}

#[test]
fn rc_clamp_lower_than_range() {
    assert_eq!(clamp_i32(0, 1, 2), 1);
}

#[test]
fn rc_sqrt_gets_the_sqrt_of_a_number() {
    assert_approx!(4.0f32.sqrt(), 2.0);
    assert_approx!(81.0f32.sqrt(), 9.0);
}

#[test]
fn rc_vcross_computes_cross_product() {
    let result = vcross(&[3.0, -3.0, 1.0], &[4.0, 9.0, 2.0]);
    assert_approx!(result[0], -15.0);
    assert_approx!(result[1], -2.0);
    assert_approx!(result[2], 39.0);
}

#[test]
fn rc_vcross_with_itself_is_zero() {
    let v1 = [3.0, -3.0, 1.0];
    let result = vcross(&v1, &v1);
    assert_approx!(result[0], 0.0);
    assert_approx!(result[1], 0.0);
    assert_approx!(result[2], 0.0);
}

#[test]
fn rc_vdot_normalized_vector_with_itself() {
    let v1 = [1.0, 0.0, 0.0];
    assert_approx!(vdot(&v1, &v1), 1.0);
}

#[test]
fn rc_vdot_zero_vector_with_anything_is_zero() {
    assert_approx!(vdot(&[1.0, 2.0, 3.0], &[0.0, 0.0, 0.0]), 0.0);
}

#[test]
fn rc_vmad_scaled_add_two_vectors() {
    let result = vmad(&[1.0, 2.0, 3.0], &[0.0, 2.0, 4.0], 2.0);
    assert_approx!(result[0], 1.0);
    assert_approx!(result[1], 6.0);
    assert_approx!(result[2], 11.0);
}

#[test]
fn rc_vmad_second_vector_is_scaled_first_is_not() {
    let result = vmad(&[1.0, 2.0, 3.0], &[5.0, 6.0, 7.0], 0.0);
    assert_approx!(result[0], 1.0);
    assert_approx!(result[1], 2.0);
    assert_approx!(result[2], 3.0);
}

#[test]
fn rc_vadd_add_two_vectors() {
    let result = vadd(&[1.0, 2.0, 3.0], &[5.0, 6.0, 7.0]);
    assert_approx!(result[0], 6.0);
    assert_approx!(result[1], 8.0);
    assert_approx!(result[2], 10.0);
}

#[test]
fn rc_vsub_subtract_two_vectors() {
    let result = vsub(&[5.0, 4.0, 3.0], &[1.0, 2.0, 3.0]);
    assert_approx!(result[0], 4.0);
    assert_approx!(result[1], 2.0);
    assert_approx!(result[2], 0.0);
}

#[test]
fn rc_vmin_selects_the_min_component_from_the_vectors() {
    let mut v1 = [5.0, 4.0, 0.0];
    vmin(&mut v1, &[1.0, 2.0, 9.0]);
    assert_approx!(v1[0], 1.0);
    assert_approx!(v1[1], 2.0);
    assert_approx!(v1[2], 0.0);
}

#[test]
fn rc_vmin_v1_is_min() {
    let mut v1 = [1.0, 2.0, 3.0];
    vmin(&mut v1, &[4.0, 5.0, 6.0]);
    assert_approx!(v1[0], 1.0);
    assert_approx!(v1[1], 2.0);
    assert_approx!(v1[2], 3.0);
}

#[test]
fn rc_vmin_v2_is_min() {
    let mut v1 = [4.0, 5.0, 6.0];
    vmin(&mut v1, &[1.0, 2.0, 3.0]);
    assert_approx!(v1[0], 1.0);
    assert_approx!(v1[1], 2.0);
    assert_approx!(v1[2], 3.0);
}

#[test]
fn rc_vmax_selects_the_max_component_from_the_vectors() {
    let mut v1 = [5.0, 4.0, 0.0];
    vmax(&mut v1, &[1.0, 2.0, 9.0]);
    assert_approx!(v1[0], 5.0);
    assert_approx!(v1[1], 4.0);
    assert_approx!(v1[2], 9.0);
}

#[test]
fn rc_vmax_v2_is_max() {
    let mut v1 = [1.0, 2.0, 3.0];
    vmax(&mut v1, &[4.0, 5.0, 6.0]);
    assert_approx!(v1[0], 4.0);
    assert_approx!(v1[1], 5.0);
    assert_approx!(v1[2], 6.0);
}

#[test]
fn rc_vmax_v1_is_max() {
    let mut v1 = [4.0, 5.0, 6.0];
    vmax(&mut v1, &[1.0, 2.0, 3.0]);
    assert_approx!(v1[0], 4.0);
    assert_approx!(v1[1], 5.0);
    assert_approx!(v1[2], 6.0);
}

#[test]
fn rc_vcopy_copies_a_vector_into_another_vector() {
    let v1: [f32; 3] = [5.0, 4.0, 0.0];
    let mut result = [1.0, 2.0, 9.0];
    assert_approx!(result[2], 9.0);
    result = v1;
    assert_approx!(result[0], 5.0);
    assert_approx!(result[1], 4.0);
    assert_approx!(result[2], 0.0);
    assert_approx!(v1[0], 5.0);
    assert_approx!(v1[1], 4.0);
    assert_approx!(v1[2], 0.0);
}

#[test]
fn rc_vdist_distance_between_two_vectors() {
    assert_approx!(vdist(&[3.0, 1.0, 3.0], &[1.0, 3.0, 1.0]), 3.4641);
}

#[test]
fn rc_vdist_distance_from_zero_is_magnitude() {
    let v1 = [3.0f32, 1.0, 3.0];
    let magnitude = (v1[0] * v1[0] + v1[1] * v1[1] + v1[2] * v1[2]).sqrt();
    assert_approx!(vdist(&v1, &[0.0, 0.0, 0.0]), magnitude);
}

#[test]
fn rc_vdist_sqr_squared_distance_between_two_vectors() {
    assert_approx!(vdist_sqr(&[3.0, 1.0, 3.0], &[1.0, 3.0, 1.0]), 12.0);
}

#[test]
fn rc_vdist_sqr_squared_distance_from_zero_is_squared_magnitude() {
    let v1 = [3.0f32, 1.0, 3.0];
    let magnitude = v1[0] * v1[0] + v1[1] * v1[1] + v1[2] * v1[2];
    assert_approx!(vdist_sqr(&v1, &[0.0, 0.0, 0.0]), magnitude);
}

#[test]
fn rc_vnormalize_normalizing_reduces_magnitude_to_1() {
    let mut v = [3.0f32, 3.0, 3.0];
    vnormalize(&mut v);
    let third = (1.0f32 / 3.0).sqrt();
    assert_approx!(v[0], third);
    assert_approx!(v[1], third);
    assert_approx!(v[2], third);
    assert_approx!((v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt(), 1.0);
}

#[test]
fn rc_calc_bounds_bounds_of_one_vector() {
    let verts = [1.0, 2.0, 3.0];
    let (bmin, bmax) = calc_bounds(&verts);
    for k in 0..3 {
        assert_approx!(bmin[k], verts[k]);
        assert_approx!(bmax[k], verts[k]);
    }
}

#[test]
fn rc_calc_bounds_bounds_of_more_than_one_vector() {
    let (bmin, bmax) = calc_bounds(&[1.0, 2.0, 3.0, 0.0, 2.0, 5.0]);
    assert_approx!(bmin[0], 0.0);
    assert_approx!(bmin[1], 2.0);
    assert_approx!(bmin[2], 3.0);
    assert_approx!(bmax[0], 1.0);
    assert_approx!(bmax[1], 2.0);
    assert_approx!(bmax[2], 5.0);
}

#[test]
fn rc_calc_grid_size_computes_the_size_of_an_x_z_axis_grid() {
    let (bmin, bmax) = calc_bounds(&[1.0, 2.0, 3.0, 0.0, 2.0, 6.0]);
    assert_eq!(calc_grid_size(&bmin, &bmax, 1.5), (1, 2));
}

#[test]
fn rc_create_heightfield_create_a_heightfield() {
    let (bmin, bmax) = calc_bounds(&[1.0, 2.0, 3.0, 0.0, 2.0, 6.0]);
    let (cell_size, cell_height) = (1.5, 2.0);
    let (width, height) = calc_grid_size(&bmin, &bmax, cell_size);
    let hf = Heightfield::new(width, height, bmin, bmax, cell_size, cell_height);
    assert_eq!((hf.width, hf.height), (width, height));
    for k in 0..3 {
        assert_approx!(hf.bmin[k], bmin[k]);
        assert_approx!(hf.bmax[k], bmax[k]);
    }
    assert_approx!(hf.cs, cell_size);
    assert_approx!(hf.ch, cell_height);
    assert_eq!(hf.columns.len(), (width * height) as usize);
    assert!(hf.columns.iter().all(|&c| c == NO_SPAN));
    assert!(hf.pool.is_empty());
    assert_eq!(hf.free_head, NO_SPAN);
}

/// The setup shared by the walkable-triangle tests: one triangle, either winding.
const SLOPE_VERTS: [f32; 9] = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, -1.0];
const WALKABLE_TRI: [i32; 3] = [0, 1, 2];
const UNWALKABLE_TRI: [i32; 3] = [0, 2, 1];

fn mark_walkable(slope: f32, tri: &[i32; 3], area: u8) -> u8 {
    let mut areas = [area];
    let mut ctx = BuildContext::new();
    mark_walkable_triangles(&mut ctx, slope, &SLOPE_VERTS, tri, &mut areas).unwrap();
    areas[0]
}

fn clear_unwalkable(slope: f32, tri: &[i32; 3], area: u8) -> u8 {
    let mut areas = [area];
    let mut ctx = BuildContext::new();
    clear_unwalkable_triangles(&mut ctx, slope, &SLOPE_VERTS, tri, &mut areas).unwrap();
    areas[0]
}

#[test]
fn rc_mark_walkable_triangles_one_walkable_triangle() {
    assert_eq!(mark_walkable(45.0, &WALKABLE_TRI, NULL_AREA), WALKABLE_AREA);
}

#[test]
fn rc_mark_walkable_triangles_one_non_walkable_triangle() {
    assert_eq!(mark_walkable(45.0, &UNWALKABLE_TRI, NULL_AREA), NULL_AREA);
}

#[test]
fn rc_mark_walkable_triangles_non_walkable_area_ids_are_not_modified() {
    assert_eq!(mark_walkable(45.0, &UNWALKABLE_TRI, 42), 42);
}

#[test]
fn rc_mark_walkable_triangles_slopes_equal_to_the_max_slope_are_unwalkable() {
    assert_eq!(mark_walkable(0.0, &WALKABLE_TRI, NULL_AREA), NULL_AREA);
}

#[test]
fn rc_clear_unwalkable_triangles_sets_area_of_unwalkable_triangle_to_null() {
    assert_eq!(clear_unwalkable(45.0, &UNWALKABLE_TRI, 42), NULL_AREA);
}

#[test]
fn rc_clear_unwalkable_triangles_does_not_modify_walkable_triangle_area_ids() {
    assert_eq!(clear_unwalkable(45.0, &WALKABLE_TRI, 42), 42);
}

#[test]
fn rc_clear_unwalkable_triangles_slopes_equal_to_the_max_slope_are_unwalkable() {
    assert_eq!(clear_unwalkable(0.0, &WALKABLE_TRI, 42), NULL_AREA);
}

/// The setup of the `rcRasterizeTriangles` tests: two triangles with areas 1 and 2 on a 2×4 grid.
const RASTER_VERTS: [f32; 12] = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, -1.0, 0.0, 0.0, 1.0];
const RASTER_AREAS: [u8; 2] = [1, 2];

fn raster_heightfield() -> Heightfield {
    let (bmin, bmax) = calc_bounds(&RASTER_VERTS);
    let (cell_size, cell_height) = (0.5, 0.5);
    let (width, height) = calc_grid_size(&bmin, &bmax, cell_size);
    Heightfield::new(width, height, bmin, bmax, cell_size, cell_height)
}

fn assert_two_triangles_rasterized(hf: &Heightfield) {
    let expected: [(i32, i32, Option<u8>); 8] = [
        (0, 0, Some(1)),
        (0, 1, Some(1)),
        (0, 2, Some(2)),
        (0, 3, Some(2)),
        (1, 0, None),
        (1, 1, Some(1)),
        (1, 2, Some(2)),
        (1, 3, None),
    ];
    for (x, z, area) in expected {
        let spans = column(hf, x, z);
        match area {
            Some(area) => assert_eq!(spans, [(0, 1, area)], "column ({x}, {z})"),
            None => assert!(spans.is_empty(), "column ({x}, {z})"),
        }
    }
}

#[test]
fn rc_rasterize_triangles_rasterize_some_triangles() {
    let mut ctx = BuildContext::new();
    let mut hf = raster_heightfield();
    let tris = [0, 1, 2, 0, 3, 1];
    rasterize_triangles(&mut ctx, &RASTER_VERTS, &tris, &RASTER_AREAS, &mut hf, 1).unwrap();
    assert_two_triangles_rasterized(&hf);
}

#[test]
fn rc_rasterize_triangles_unsigned_short_overload() {
    let mut ctx = BuildContext::new();
    let mut hf = raster_heightfield();
    let tris: [u16; 6] = [0, 1, 2, 0, 3, 1];
    rasterize_triangles_u16(&mut ctx, &RASTER_VERTS, &tris, &RASTER_AREAS, &mut hf, 1).unwrap();
    assert_two_triangles_rasterized(&hf);
}

#[test]
fn rc_rasterize_triangles_triangle_list_overload() {
    let mut ctx = BuildContext::new();
    let mut hf = raster_heightfield();
    let verts = [
        0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, -1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0,
    ];
    rasterize_triangle_soup(&mut ctx, &verts, &RASTER_AREAS, &mut hf, 1).unwrap();
    assert_two_triangles_rasterized(&hf);
}

// ---------------------------------------------------------------------------------------------
// Tests_RecastFilter.cpp

/// The 1×1 heightfield of the low-hanging and low-height filter tests.
fn single_column() -> Heightfield {
    Heightfield::new(1, 1, [0.0; 3], [1.0; 3], 1.0, 1.0)
}

#[test]
fn filter_low_hanging_span_with_no_spans_above_it_is_unchanged() {
    let mut ctx = BuildContext::new();
    let mut hf = single_column();
    set_column(&mut hf, 0, 0, &[(0, 1, 1)]);
    filter_low_hanging_walkable_obstacles(&mut ctx, 5, &mut hf);
    assert_eq!(column(&hf, 0, 0), [(0, 1, 1)]);
}

#[test]
fn filter_low_hanging_span_with_span_above_higher_than_walkable_height_is_unchanged() {
    let walkable_height: u16 = 5;
    let mut ctx = BuildContext::new();
    let mut hf = single_column();
    let second = 1 + walkable_height;
    set_column(&mut hf, 0, 0, &[(0, 1, 1), (second, second + 1, NULL_AREA)]);
    filter_low_hanging_walkable_obstacles(&mut ctx, walkable_height.into(), &mut hf);
    assert_eq!(
        column(&hf, 0, 0),
        [(0, 1, 1), (second, second + 1, NULL_AREA)]
    );

    // Again with more clearance.
    let second = second + 10;
    set_column(&mut hf, 0, 0, &[(0, 1, 1), (second, second + 1, NULL_AREA)]);
    filter_low_hanging_walkable_obstacles(&mut ctx, walkable_height.into(), &mut hf);
    assert_eq!(
        column(&hf, 0, 0),
        [(0, 1, 1), (second, second + 1, NULL_AREA)]
    );
}

#[test]
fn filter_low_hanging_marks_low_obstacles_walkable_if_below_walkable_climb() {
    let walkable_height: u16 = 5;
    let mut ctx = BuildContext::new();
    let mut hf = single_column();
    let second = 1 + (walkable_height - 1);
    set_column(&mut hf, 0, 0, &[(0, 1, 1), (second, second + 1, NULL_AREA)]);
    filter_low_hanging_walkable_obstacles(&mut ctx, walkable_height.into(), &mut hf);
    assert_eq!(column(&hf, 0, 0), [(0, 1, 1), (second, second + 1, 1)]);
}

#[test]
fn filter_low_hanging_obstacle_overlapping_walkable_climb_is_not_changed() {
    let walkable_height: u16 = 5;
    let mut ctx = BuildContext::new();
    let mut hf = single_column();
    let second = 2 + (walkable_height - 1);
    set_column(&mut hf, 0, 0, &[(0, 1, 1), (second, second + 1, NULL_AREA)]);
    filter_low_hanging_walkable_obstacles(&mut ctx, walkable_height.into(), &mut hf);
    assert_eq!(
        column(&hf, 0, 0),
        [(0, 1, 1), (second, second + 1, NULL_AREA)]
    );
}

#[test]
fn filter_low_hanging_only_the_first_of_multiple_low_obstacles_is_marked_walkable() {
    let walkable_height: u16 = 5;
    let mut ctx = BuildContext::new();
    let mut hf = single_column();
    let mut spans = vec![(0u16, 1u16, 1u8)];
    for _ in 0..9 {
        let smin = spans.last().unwrap().1 + (walkable_height - 1);
        spans.push((smin, smin + 1, NULL_AREA));
    }
    set_column(&mut hf, 0, 0, &spans);
    filter_low_hanging_walkable_obstacles(&mut ctx, walkable_height.into(), &mut hf);
    let areas: Vec<u8> = column(&hf, 0, 0).iter().map(|s| s.2).collect();
    assert_eq!(areas.len(), 10);
    for (i, &area) in areas.iter().enumerate() {
        assert_eq!(area, if i <= 1 { 1 } else { NULL_AREA }, "span {i}");
    }
}

#[test]
fn filter_ledge_spans_edge_spans_are_marked_unwalkable() {
    let (walkable_climb, walkable_height) = (5, 10);
    let mut ctx = BuildContext::new();
    let mut hf = Heightfield::new(10, 10, [0.0; 3], [10.0, 1.0, 10.0], 1.0, 1.0);
    for x in 0..10 {
        for z in 0..10 {
            set_column(&mut hf, x, z, &[(0, 1, 1)]);
        }
    }
    filter_ledge_spans(&mut ctx, walkable_height, walkable_climb, &mut hf);
    for x in 0..10 {
        for z in 0..10 {
            let edge = x == 0 || z == 0 || x == 9 || z == 9;
            let area = if edge { NULL_AREA } else { 1 };
            assert_eq!(column(&hf, x, z), [(0, 1, area)], "column ({x}, {z})");
        }
    }
}

#[test]
fn filter_low_height_span_with_nothing_above_is_unchanged() {
    let mut ctx = BuildContext::new();
    let mut hf = single_column();
    set_column(&mut hf, 0, 0, &[(0, 1, 1)]);
    filter_walkable_low_height_spans(&mut ctx, 5, &mut hf);
    assert_eq!(column(&hf, 0, 0), [(0, 1, 1)]);
}

#[test]
fn filter_low_height_span_with_lots_of_room_above_is_unchanged() {
    let mut ctx = BuildContext::new();
    let mut hf = single_column();
    set_column(&mut hf, 0, 0, &[(0, 1, 1), (10, 11, NULL_AREA)]);
    filter_walkable_low_height_spans(&mut ctx, 5, &mut hf);
    assert_eq!(column(&hf, 0, 0), [(0, 1, 1), (10, 11, NULL_AREA)]);
}

#[test]
fn filter_low_height_span_with_low_hanging_obstacle_is_marked_unwalkable() {
    let mut ctx = BuildContext::new();
    let mut hf = single_column();
    set_column(&mut hf, 0, 0, &[(0, 1, 1), (3, 4, NULL_AREA)]);
    filter_walkable_low_height_spans(&mut ctx, 5, &mut hf);
    assert_eq!(column(&hf, 0, 0), [(0, 1, NULL_AREA), (3, 4, NULL_AREA)]);
}

// ---------------------------------------------------------------------------------------------
// Tests_RecastRasterization.cpp

const SPAN_AREA: u8 = 42;
const FLAG_MERGE_THRESHOLD: i32 = 1;

/// The 4×4 heightfield (10 cells high) of the `rcAddSpan` tests.
fn add_span_heightfield() -> Heightfield {
    let (cell_size, cell_height) = (1.0, 2.0);
    let bmax = [cell_size * 4.0, cell_height * 10.0, cell_size * 4.0];
    Heightfield::new(4, 4, [0.0; 3], bmax, cell_size, cell_height)
}

/// Adds a span to column (0, 0) with a silent context, as the C++ tests do.
fn add(hf: &mut Heightfield, smin: u16, smax: u16, area: u8) {
    let mut ctx = BuildContext::silent();
    add_span(&mut ctx, hf, 0, 0, smin..smax, area, FLAG_MERGE_THRESHOLD).unwrap();
}

#[test]
fn add_span_to_an_empty_heightfield() {
    let mut hf = add_span_heightfield();
    add(&mut hf, 0, 1, SPAN_AREA);
    assert_eq!(column(&hf, 0, 0), [(0, 1, SPAN_AREA)]);
}

#[test]
fn add_span_invalid_or_zero_size_spans_do_nothing() {
    let mut hf = add_span_heightfield();
    add(&mut hf, 0, 0, SPAN_AREA);
    assert_eq!(hf.columns[0], NO_SPAN);
    add(&mut hf, 1, 0, SPAN_AREA);
    assert_eq!(hf.columns[0], NO_SPAN);
}

#[test]
fn add_span_two_spans_not_touching_are_not_merged() {
    let mut hf = add_span_heightfield();
    add(&mut hf, 0, 1, SPAN_AREA);
    assert_eq!(column(&hf, 0, 0), [(0, 1, SPAN_AREA)]);
    add(&mut hf, 2, 3, SPAN_AREA);
    assert_eq!(column(&hf, 0, 0), [(0, 1, SPAN_AREA), (2, 3, SPAN_AREA)]);
}

#[test]
fn add_span_merge_within_flag_threshold_keeps_the_highest_area_id() {
    let mut hf = add_span_heightfield();
    add(&mut hf, 0, 1, 42);
    assert_eq!(column(&hf, 0, 0), [(0, 1, 42)]);
    add(&mut hf, 1, 2, 24);
    assert_eq!(column(&hf, 0, 0), [(0, 2, 42)]);
}

#[test]
fn add_span_merge_outside_flag_threshold_keeps_the_last_added_area_id() {
    let mut hf = add_span_heightfield();
    add(&mut hf, 0, 1, 42);
    assert_eq!(column(&hf, 0, 0), [(0, 1, 42)]);
    add(&mut hf, 1, 8, 24);
    assert_eq!(column(&hf, 0, 0), [(0, 8, 24)]);
}

#[test]
fn add_span_merged_with_an_existing_span() {
    let mut hf = add_span_heightfield();
    add(&mut hf, 0, 1, SPAN_AREA);
    assert_eq!(column(&hf, 0, 0), [(0, 1, SPAN_AREA)]);
    add(&mut hf, 1, 2, SPAN_AREA);
    assert_eq!(column(&hf, 0, 0), [(0, 2, SPAN_AREA)]);
}

#[test]
fn add_span_merges_with_two_spans_above_and_below() {
    let mut hf = add_span_heightfield();
    add(&mut hf, 0, 1, SPAN_AREA);
    assert_eq!(column(&hf, 0, 0), [(0, 1, SPAN_AREA)]);
    add(&mut hf, 2, 3, SPAN_AREA);
    assert_eq!(column(&hf, 0, 0), [(0, 1, SPAN_AREA), (2, 3, SPAN_AREA)]);
    add(&mut hf, 1, 2, SPAN_AREA);
    assert_eq!(column(&hf, 0, 0), [(0, 3, SPAN_AREA)]);
}

#[test]
fn add_span_spans_are_insertion_sorted_by_height() {
    let mut hf = add_span_heightfield();
    add(&mut hf, 2, 3, SPAN_AREA);
    add(&mut hf, 0, 1, SPAN_AREA);
    add(&mut hf, 6, 7, SPAN_AREA);
    assert_eq!(
        column(&hf, 0, 0),
        [(0, 1, SPAN_AREA), (2, 3, SPAN_AREA), (6, 7, SPAN_AREA)]
    );
}

#[test]
fn add_span_inside_another_span_merges_them() {
    let mut hf = add_span_heightfield();
    add(&mut hf, 0, 8, SPAN_AREA);
    assert_eq!(column(&hf, 0, 0), [(0, 8, SPAN_AREA)]);
    add(&mut hf, 2, 3, SPAN_AREA);
    assert_eq!(column(&hf, 0, 0), [(0, 8, SPAN_AREA)]);
}

#[test]
fn add_span_overlapping_spans_are_merged() {
    let mut hf = add_span_heightfield();
    add(&mut hf, 0, 4, SPAN_AREA);
    assert_eq!(column(&hf, 0, 0), [(0, 4, SPAN_AREA)]);
    add(&mut hf, 2, 6, SPAN_AREA);
    assert_eq!(column(&hf, 0, 0), [(0, 6, SPAN_AREA)]);
}

#[test]
fn alloc_span_more_spans_than_a_pool_page_holds() {
    let mut ctx = BuildContext::silent();
    let mut hf = Heightfield::new(50, 50, [0.0; 3], [50.0, 20.0, 50.0], 1.0, 2.0);
    for x in 0..50 {
        for z in 0..50 {
            add_span(
                &mut ctx,
                &mut hf,
                x,
                z,
                0..1,
                SPAN_AREA,
                FLAG_MERGE_THRESHOLD,
            )
            .unwrap();
        }
    }
    assert_eq!(hf.span_count(), 2500);
}

/// The 10×10×10 unit-cell heightfield of the `rcRasterizeTriangle` tests.
fn unit_grid() -> Heightfield {
    Heightfield::new(10, 10, [0.0; 3], [10.0; 3], 1.0, 1.0)
}

fn rasterize(hf: &mut Heightfield, v0: [f32; 3], v1: [f32; 3], v2: [f32; 3]) {
    let mut ctx = BuildContext::silent();
    rasterize_triangle(&mut ctx, &v0, &v1, &v2, WALKABLE_AREA, hf, 1).unwrap();
}

/// A column (x, z) and the `smin..smax` of the one walkable span expected in it.
type ExpectedColumn = ((i32, i32), (u16, u16));

/// Asserts that exactly the listed columns hold one walkable span each.
fn assert_only_columns(hf: &Heightfield, expected: &[ExpectedColumn]) {
    for x in 0..hf.width {
        for z in 0..hf.height {
            let spans = column(hf, x, z);
            match expected.iter().find(|(cell, _)| *cell == (x, z)) {
                Some(&(_, (smin, smax))) => {
                    assert_eq!(spans, [(smin, smax, WALKABLE_AREA)], "column ({x}, {z})")
                }
                None => assert!(spans.is_empty(), "column ({x}, {z}): {spans:?}"),
            }
        }
    }
}

#[test]
fn rasterize_triangle_simple_triangle_in_xz_plane() {
    let mut hf = unit_grid();
    rasterize(&mut hf, [0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [0.0, 0.0, 2.0]);
    assert_only_columns(&hf, &[((0, 0), (0, 1)), ((0, 1), (0, 1)), ((1, 0), (0, 1))]);
}

#[test]
fn rasterize_triangle_simple_triangle_inside_a_single_voxel() {
    let mut hf = unit_grid();
    rasterize(&mut hf, [0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]);
    assert_only_columns(&hf, &[((0, 0), (0, 1))]);
}

#[test]
fn rasterize_triangle_triangles_are_clipped_by_the_heightfield_bounds() {
    let mut hf = unit_grid();
    rasterize(
        &mut hf,
        [-2.0, 0.0, -2.0],
        [4.0, 0.0, -2.0],
        [-2.0, 0.0, 4.0],
    );
    assert_only_columns(&hf, &[((0, 0), (0, 1)), ((0, 1), (0, 1)), ((1, 0), (0, 1))]);
}

#[test]
fn rasterize_triangle_outside_of_heightfield_bounds_rasterizes_to_nothing() {
    let mut hf = unit_grid();
    // Outside the xz bounds.
    rasterize(
        &mut hf,
        [-5.0, 0.0, -5.0],
        [-5.0, 0.0, 5.0],
        [5.0, 0.0, -5.0],
    );
    assert_only_columns(&hf, &[]);
    // Below the y bounds.
    rasterize(
        &mut hf,
        [0.0, -1.0, 0.0],
        [5.0, -1.0, 5.0],
        [5.0, -1.0, 0.0],
    );
    assert_only_columns(&hf, &[]);
    // Above the y bounds.
    rasterize(
        &mut hf,
        [0.0, 40.0, 0.0],
        [5.0, 40.0, 5.0],
        [5.0, 40.0, 0.0],
    );
    assert_only_columns(&hf, &[]);
}

#[test]
fn rasterize_triangle_voxels_are_rasterized_if_the_triangle_overlaps_any_part() {
    let mut hf = unit_grid();
    rasterize(
        &mut hf,
        [-1.0, 0.0, -1.0],
        [1.01, 0.0, -1.0],
        [-1.0, 0.0, 1.01],
    );
    assert_only_columns(&hf, &[((0, 0), (0, 1))]);
}

#[test]
fn rasterize_triangle_vertical_span_includes_every_voxel_it_touches() {
    let mut hf = unit_grid();
    rasterize(&mut hf, [0.0, 0.0, 0.0], [0.5, 0.0, 0.5], [0.5, 2.01, 0.5]);
    assert_only_columns(&hf, &[((0, 0), (0, 3))]);
}

#[test]
fn rasterize_triangle_sloped_triangle_produces_varying_span_heights() {
    let mut hf = unit_grid();
    rasterize(&mut hf, [0.0, 0.0, 0.5], [4.0, 0.0, 0.5], [2.0, 2.0, 0.5]);
    assert_only_columns(
        &hf,
        &[
            ((0, 0), (0, 1)),
            ((3, 0), (0, 1)),
            ((1, 0), (0, 2)),
            ((2, 0), (0, 2)),
        ],
    );
}

#[test]
fn rasterize_triangle_crossing_y_bounds_gets_clamped() {
    let mut hf = unit_grid();
    rasterize(
        &mut hf,
        [0.0, -5.0, 0.0],
        [1.0, -5.0, 1.0],
        [0.5, 15.0, 0.5],
    );
    assert_only_columns(&hf, &[((0, 0), (0, 10))]);
}

#[test]
#[ignore = "skipped in Recast too: degenerate triangles rasterize as a line or point of non-zero volume"]
fn rasterize_triangle_degenerate_triangles_rasterize_to_nothing() {
    let mut hf = unit_grid();
    // Co-linear points.
    rasterize(&mut hf, [1.0, 0.0, 0.5], [2.0, 0.0, 0.5], [4.0, 0.0, 0.5]);
    assert_only_columns(&hf, &[]);
    // All vertices are the same point.
    let v0 = [0.5, 0.0, 0.5];
    rasterize(&mut hf, v0, v0, v0);
    assert_only_columns(&hf, &[]);
}

#[test]
fn rasterize_triangle_outside_with_bounding_box_overlapping_rasterizes_nothing() {
    // Recast PR #476's minimal repro.
    let mut hf = unit_grid();
    rasterize(
        &mut hf,
        [-10.0, 5.5, -10.0],
        [-10.0, 5.5, 3.0],
        [3.0, 5.5, -10.0],
    );
    assert_only_columns(&hf, &[]);
}
