//! Times linking two tiles whose border edges all face each other (issue 24): every polygon of
//! both tiles is the same triangle with one portal edge on the shared border, so Detour's
//! `findConnectingPolys` tests every edge against every polygon across (n² tests).
//!
//! `cargo run --release --no-default-features --example facing_tiles -- [POLYS] [OUT.nlmz]`
//! prints the time to add the second tile and the links made; with OUT it also writes the pair
//! as a compact navmesh file (a few hundred bytes for 65 535 polygons a tile).

use std::time::Instant;

use navlab::detour::RefWidth;
use navlab::detour::nav_mesh_compact::save_compact_nav_mesh;
use navlab::detour::{
    MeshTile, NavMesh, NavMeshCreateParams, NavMeshParams, VERTS_PER_POLYGON, create_nav_mesh_data,
};

/// Tile side in voxels, and the voxel size.
const SIZE: u16 = 16;
const CELL: f32 = 0.5;

/// Tile `x` (0 or 1) of `polys` copies of a triangle with one edge on the shared border.
fn facing_tile(x: i32, polys: usize) -> MeshTile {
    let (border, inner, portal) = if x == 0 {
        (SIZE, SIZE - 2, 0x8002)
    } else {
        (0, 2, 0x8000)
    };
    let verts = [border, 0, 0, border, 0, SIZE, inner, 0, 0];
    let mut poly = [0xffffu16; 2 * VERTS_PER_POLYGON];
    poly[..3].copy_from_slice(&[0, 1, 2]);
    poly[VERTS_PER_POLYGON] = portal;
    let all_polys = poly.repeat(polys);
    let extent = f32::from(SIZE) * CELL;
    let params = NavMeshCreateParams {
        verts: &verts,
        polys: &all_polys,
        poly_flags: &vec![1; polys],
        poly_areas: &vec![63; polys],
        nvp: VERTS_PER_POLYGON,
        detail: None,
        off_mesh_connections: &[],
        user_id: 0,
        tile_x: x,
        tile_y: 0,
        tile_layer: 0,
        bmin: [x as f32 * extent, 0.0, 0.0],
        bmax: [(x + 1) as f32 * extent, 1.0, extent],
        walkable_height: 2.0,
        walkable_radius: 0.6,
        walkable_climb: 0.9,
        cs: CELL,
        ch: 0.2,
        build_bv_tree: false,
    };
    create_nav_mesh_data(&params).expect("tile builds")
}

fn main() {
    let mut args = std::env::args().skip(1);
    let polys: usize = args.next().map_or(0xffff, |n| n.parse().expect("POLYS"));
    let out = args.next();
    let extent = f32::from(SIZE) * CELL;
    let mut mesh = NavMesh::new(NavMeshParams {
        orig: [0.0; 3],
        tile_width: extent,
        tile_height: extent,
        max_tiles: 4,
        max_polys: 1 << 16,
        ref_width: RefWidth::Bits32,
    })
    .expect("navmesh");
    mesh.add_tile(facing_tile(0, polys), 0).expect("tile 0");
    let second = facing_tile(1, polys);
    let start = Instant::now();
    mesh.add_tile(second, 0).expect("tile 1");
    let elapsed = start.elapsed();
    let links: usize = mesh
        .tiles()
        .map(|(_, tile)| {
            (0..tile.poly_count())
                .map(|p| tile.poly_links(p).count())
                .sum::<usize>()
        })
        .sum();
    println!(
        "{polys} polygons a tile: second tile added and linked in {:.3} s, {links} links",
        elapsed.as_secs_f64()
    );
    if let Some(path) = out {
        save_compact_nav_mesh(path.as_ref(), &mesh).expect("compact file written");
        let size = std::fs::metadata(&path).map_or(0, |m| m.len());
        println!("compact file {path}: {size} bytes");
    }
}
