//! Joining partial tiled bakes (`navlab bake --tiles`, one per machine) into the navmesh one
//! bake of the whole grid makes (`navlab merge`).
//!
//! A whole bake adds its tiles row by row (y outer, x inner) to a fresh navmesh, so the n-th
//! tile with data takes slot n with salt 1, and `Sample::saveAll` writes them in slot order.
//! Merging re-adds every part's tiles in that same order to a fresh navmesh with the same
//! parameters, with their link slots cleared as the builder leaves them: the links across the
//! parts' borders are made here, and the file is byte for byte the whole bake's.

use std::path::PathBuf;

use crate::detour::{MeshTile, NavMesh, NavMeshParams};
use crate::error::{NavlabError, Result};

/// Merges `parts` (each a file name and the navmesh loaded from it). Refuses zero parts,
/// parts whose navmesh parameters or reference widths differ (naming both files and the
/// field) and a tile found in two parts (naming the tile and both files).
pub fn merge_parts(parts: &[(PathBuf, NavMesh)]) -> Result<NavMesh> {
    let Some((first_path, first)) = parts.first() else {
        return Err(NavlabError::MergeParts(
            "no parts to merge: name the files `navlab bake --tiles` wrote".into(),
        ));
    };
    let params = *first.params();
    for (path, part) in &parts[1..] {
        if part.ref_width() != params.ref_width {
            return Err(NavlabError::MergeParts(format!(
                "{} has {} polygon references and {} {} ones: bake every part with the same \
                 --poly-refs",
                first_path.display(),
                params.ref_width,
                path.display(),
                part.ref_width()
            )));
        }
        if let Some((field, a, b)) = differing_param(&params, part.params()) {
            return Err(NavlabError::MergeParts(format!(
                "{} and {} are not parts of one bake: navmesh parameter {field} is {a} in the \
                 first and {b} in the second (same mesh, settings and --tile-size needed)",
                first_path.display(),
                path.display()
            )));
        }
    }
    let mut tiles: Vec<(&MeshTile, usize)> = parts
        .iter()
        .enumerate()
        .flat_map(|(part, (_, mesh))| mesh.tiles().map(move |(_, tile)| (tile, part)))
        .collect();
    let cell = |tile: &MeshTile| {
        let h = tile.header();
        (h.y, h.x, h.layer)
    };
    tiles.sort_by_key(|&(tile, part)| (cell(tile), part));
    for pair in tiles.windows(2) {
        let ((a, part_a), (b, part_b)) = (pair[0], pair[1]);
        if cell(a) == cell(b) {
            let h = a.header();
            return Err(NavlabError::MergeParts(format!(
                "tile ({}, {}) layer {} is in both {} and {}: the parts' --tiles ranges overlap",
                h.x,
                h.y,
                h.layer,
                parts[part_a].0.display(),
                parts[part_b].0.display()
            )));
        }
    }
    let mut merged = NavMesh::new(params)?;
    if parts
        .iter()
        .any(|(_, part)| part.long_range_links_enabled())
    {
        merged.enable_long_range_links();
    }
    for (tile, _) in tiles {
        merged.add_tile(tile.with_links_cleared(), 0)?;
    }
    Ok(merged)
}

/// The first navmesh parameter that differs between `a` and `b`, by name with both values.
/// Floats are compared bit for bit: parts of one bake have identical parameters.
fn differing_param(a: &NavMeshParams, b: &NavMeshParams) -> Option<(&'static str, String, String)> {
    let floats = [
        ("orig.x", a.orig[0], b.orig[0]),
        ("orig.y", a.orig[1], b.orig[1]),
        ("orig.z", a.orig[2], b.orig[2]),
        ("tileWidth", a.tile_width, b.tile_width),
        ("tileHeight", a.tile_height, b.tile_height),
    ];
    let ints = [
        ("maxTiles", a.max_tiles, b.max_tiles),
        ("maxPolys", a.max_polys, b.max_polys),
    ];
    let float = floats
        .into_iter()
        .find(|(_, x, y)| x.to_bits() != y.to_bits())
        .map(|(name, x, y)| (name, x.to_string(), y.to_string()));
    float.or_else(|| {
        ints.into_iter()
            .find(|(_, x, y)| x != y)
            .map(|(name, x, y)| (name, x.to_string(), y.to_string()))
    })
}
