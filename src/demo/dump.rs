//! The stage summary written by `navlab bake --dump-json`, in the schema of the C++ reference
//! dumps (`tests/data/reference/solo/*.json`), so `compare_ref.py` can diff the two.

use serde_json::{Value, json};

use navlab::bake::solo::Build;

/// The reference-schema summary of a finished build of `mesh_name`.
pub fn stage_summary(mesh_name: &str, build: &Build) -> Value {
    let mut summary = summary_values(mesh_name, build);
    shorten_floats(&mut summary);
    summary
}

/// Every float in the summary is an f32 widened to f64; print it with the fewest digits that
/// read back as the same f32 (as the C++ dumps' `%.9g` does), not with the f64's 17.
fn shorten_floats(value: &mut Value) {
    match value {
        Value::Number(n) if n.is_f64() => {
            let shortest = n
                .as_f64()
                .map(|f| f as f32)
                .and_then(|f| f.to_string().parse::<f64>().ok())
                .and_then(serde_json::Number::from_f64);
            if let Some(shortest) = shortest {
                *n = shortest;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(shorten_floats),
        Value::Object(fields) => fields.values_mut().for_each(shorten_floats),
        _ => {}
    }
}

fn summary_values(mesh_name: &str, build: &Build) -> Value {
    let config = &build.config;
    let contours = &build.contours.contours;
    let poly_mesh = &build.poly_mesh;
    let detail = &build.detail_mesh;
    let compact = &build.regions;
    let counts = &build.span_counts;
    json!({
        "mesh": mesh_name,
        "partition": build.settings.partition_type.name(),
        "sample": "Sample_SoloMesh",
        "config": config,
        "heightfield": {
            "width": config.width,
            "height": config.height,
            "spanCountAfterRasterize": counts.rasterized,
            "walkableSpansAfterRasterize": counts.rasterized_walkable,
            "spanCountAfterFilters": counts.rasterized,
            "walkableSpansAfterFilters": counts.filtered_walkable,
        },
        "compactHeightfield": {
            "width": compact.width,
            "height": compact.height,
            "spanCount": compact.span_count(),
            "walkableSpansAfterErode": counts.eroded_walkable,
            "maxDistance": compact.max_distance,
            "maxRegions": compact.max_regions,
            "borderSize": compact.border_size,
            "walkableHeight": compact.walkable_height,
            "walkableClimb": compact.walkable_climb,
        },
        "contours": {
            "nconts": contours.len(),
            "totalVerts": contours.iter().map(|c| c.nverts()).sum::<usize>(),
            "totalRawVerts": contours.iter().map(|c| c.nraw_verts()).sum::<usize>(),
            "perContourNverts": contours.iter().map(|c| c.nverts()).collect::<Vec<_>>(),
            "perContourNrverts": contours.iter().map(|c| c.nraw_verts()).collect::<Vec<_>>(),
            "perContourReg": contours.iter().map(|c| c.reg).collect::<Vec<_>>(),
            "perContourArea": contours.iter().map(|c| c.area).collect::<Vec<_>>(),
            "width": build.contours.width,
            "height": build.contours.height,
            "borderSize": build.contours.border_size,
            "maxError": build.contours.max_error,
        },
        "polymesh": {
            "nverts": poly_mesh.nverts,
            "npolys": poly_mesh.npolys,
            "maxpolys": poly_mesh.maxpolys,
            "nvp": poly_mesh.nvp,
            "bmin": poly_mesh.bmin,
            "bmax": poly_mesh.bmax,
            "cs": poly_mesh.cs,
            "ch": poly_mesh.ch,
            "borderSize": poly_mesh.border_size,
            "maxEdgeError": poly_mesh.max_edge_error,
            "verts": poly_mesh.verts,
            "polys": &poly_mesh.polys[..poly_mesh.npolys * 2 * poly_mesh.nvp],
            "regs": poly_mesh.regs,
            "areas": poly_mesh.areas,
            "flags": poly_mesh.flags,
        },
        "detail": {
            "nmeshes": detail.nmeshes(),
            "nverts": detail.nverts(),
            "ntris": detail.ntris(),
            "meshes": detail.meshes,
            "verts_exact": detail.verts,
            "tris": detail.tris,
        },
    })
}
