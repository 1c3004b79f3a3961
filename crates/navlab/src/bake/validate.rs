//! The settings report: plain-word warnings about settings that build, but not what was meant
//! (a climb the agent cannot reach, a radius of zero cells, polygons Detour cannot hold), and
//! the errors a build would stop with, found before it runs. The viewer's Properties panel shows
//! it as settings change; `navlab bake` prints the same warnings.

use crate::bake::settings::BuildSettings;
use crate::bake::tiled::MAX_BAKE_TILES_64;
use crate::detour::RefWidth;
use crate::detour::VERTS_PER_POLYGON;
use crate::detour::nav_mesh::MAX_TILE_BITS;
use crate::recast::config::calc_grid_size;

/// How serious a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// The build runs, but likely not as meant.
    Warning,
    /// The build would stop with this error.
    Error,
}

/// One line of the report.
#[derive(Clone, Debug, PartialEq)]
pub struct Finding {
    /// How much it matters.
    pub severity: Severity,
    /// The setting to change, by RecastDemo's name.
    pub setting: &'static str,
    /// What is wrong and what to do.
    pub message: String,
}

/// What the report knows of the build it is about.
#[derive(Clone, Copy, Debug, Default)]
pub struct BuildShape {
    /// The navmesh bounds, when an input is loaded.
    pub bounds: Option<([f32; 3], [f32; 3])>,
    /// The tile size in cells for a tiled build (Tile Mesh), `None` for a solo build.
    pub tile_size: Option<i32>,
    /// Whether a Detour navmesh will be made (the viewer always makes one; `navlab bake` only
    /// with `-o`).
    pub detour: bool,
}

/// Checks `settings` for a build of `shape`, warnings first, then errors.
pub fn settings_report(settings: &BuildSettings, shape: BuildShape) -> Vec<Finding> {
    let mut findings = Vec::new();
    let mut warn = |setting, message: String| {
        findings.push(Finding {
            severity: Severity::Warning,
            setting,
            message,
        })
    };
    if settings.agent_max_climb > settings.agent_height {
        warn(
            "agentMaxClimb",
            format!(
                "the agent climbs {} but is only {} tall: steps higher than the agent are \
                 climbed; lower agentMaxClimb or raise agentHeight",
                settings.agent_max_climb, settings.agent_height
            ),
        );
    }
    let ch = settings.cell_height;
    let cs = settings.cell_size;
    if settings.agent_max_climb > 0.0 && ch > 0.0 && (settings.agent_max_climb / ch).floor() < 1.0 {
        warn(
            "agentMaxClimb",
            format!(
                "a climb of {} is less than one cell ({ch} high): it rounds to 0 cells, so the \
                 agent climbs no step at all; lower cellHeight or raise agentMaxClimb",
                settings.agent_max_climb
            ),
        );
    }
    if settings.agent_radius == 0.0 {
        warn(
            "agentRadius",
            "an agent radius of 0 erodes nothing: polygons reach right up to the walls".into(),
        );
    } else if cs > 0.0 && settings.agent_radius < 0.5 * cs {
        warn(
            "agentRadius",
            format!(
                "a radius of {} rounds up to a whole cell ({cs}): walls keep more than twice \
                 the radius away; lower cellSize for a closer fit",
                settings.agent_radius
            ),
        );
    }
    if shape.detour && settings.verts_per_poly as usize > VERTS_PER_POLYGON {
        warn(
            "vertsPerPoly",
            format!(
                "{} vertices per polygon is more than Detour's {VERTS_PER_POLYGON}: the poly \
                 mesh builds, but no Detour navmesh can be made from it",
                settings.verts_per_poly
            ),
        );
    }
    if let (Some(tile_size), Some((bmin, bmax))) = (shape.tile_size, shape.bounds)
        && settings.cell_size > 0.0
        && tile_size > 0
    {
        tile_budget(settings, tile_size, bmin, bmax, &mut warn);
    }
    if let Err(err) = settings.validate() {
        findings.push(error_finding(err));
    } else if let Some((bmin, bmax)) = shape.bounds
        && let Err(err) = settings.to_config(bmin, bmax)
    {
        findings.push(error_finding(err));
    }
    findings
}

/// Sample_TileMesh's split of 22 reference bits between tiles and the polygons of a tile.
fn tile_budget(
    settings: &BuildSettings,
    tile_size: i32,
    bmin: [f32; 3],
    bmax: [f32; 3],
    warn: &mut impl FnMut(&'static str, String),
) {
    let (grid_width, grid_height) = calc_grid_size(&bmin, &bmax, settings.cell_size);
    let tiles_along =
        |cells: i32| (i64::from(cells) + i64::from(tile_size) - 1) / i64::from(tile_size);
    let tiles = tiles_along(grid_width) * tiles_along(grid_height);
    let tile_bits = 64 - (tiles.max(1) - 1).leading_zeros();
    if settings.ref_width() == RefWidth::Bits64 {
        // 20 polygon bits hold any tile; only the tile count can run out.
        if tiles > MAX_BAKE_TILES_64 {
            warn(
                "tileSize",
                format!(
                    "{tiles} tiles are more than the {MAX_BAKE_TILES_64} Navlab bakes into one \
                     navmesh: raise tileSize"
                ),
            );
        }
        return;
    }
    if tile_bits > MAX_TILE_BITS {
        warn(
            "tileSize",
            format!(
                "{tiles} tiles need {tile_bits} bits of a polygon reference, more than the \
                 {MAX_TILE_BITS} Tile Mesh gives them: turn on 64-bit references (polyRefs = \
                 64, --poly-refs 64) or raise tileSize"
            ),
        );
        return;
    }
    let max_polys = 1i64 << (22 - tile_bits);
    // A tile's polygons cannot outnumber its cells (every polygon covers at least one), so a
    // tile of fewer cells than the budget can never overflow it.
    let tile_cells = i64::from(tile_size) * i64::from(tile_size);
    if tile_cells > max_polys {
        warn(
            "tileSize",
            format!(
                "with {tiles} tiles a tile may hold at most {max_polys} polygons, fewer than its \
                 {tile_cells} cells could make: a detailed tile would be refused; use smaller \
                 tiles or fewer of them"
            ),
        );
    }
}

fn error_finding(err: crate::error::NavlabError) -> Finding {
    let setting = match &err {
        crate::error::NavlabError::InvalidSetting { name, .. } => name,
        crate::error::NavlabError::GridTooLarge { .. } => "cellSize",
        crate::error::NavlabError::TooTall { .. } => "cellHeight",
        _ => "",
    };
    Finding {
        severity: Severity::Error,
        setting,
        message: err.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings_named(report: &[Finding]) -> Vec<&'static str> {
        report.iter().map(|f| f.setting).collect()
    }

    #[test]
    fn recastdemo_defaults_are_clean() {
        let shape = BuildShape {
            bounds: Some(([0.0; 3], [100.0, 10.0, 100.0])),
            tile_size: Some(32),
            detour: true,
        };
        assert_eq!(
            settings_report(&BuildSettings::default(), shape),
            Vec::new()
        );
    }

    #[test]
    fn each_mistake_is_named() {
        let settings = BuildSettings {
            agent_max_climb: 3.0,
            agent_radius: 0.0,
            verts_per_poly: 8.0,
            ..BuildSettings::default()
        };
        let shape = BuildShape {
            detour: true,
            ..BuildShape::default()
        };
        assert_eq!(
            settings_named(&settings_report(&settings, shape)),
            ["agentMaxClimb", "agentRadius", "vertsPerPoly"]
        );
        let low_climb = BuildSettings {
            agent_max_climb: 0.1,
            ..BuildSettings::default()
        };
        assert_eq!(
            settings_named(&settings_report(&low_climb, shape)),
            ["agentMaxClimb"]
        );
    }

    #[test]
    fn tile_budgets_and_grid_limits() {
        let bounds = Some(([0.0; 3], [1000.0, 10.0, 1000.0]));
        let tiny_tiles = BuildShape {
            bounds,
            tile_size: Some(8),
            detour: true,
        };
        let report = settings_report(&BuildSettings::default(), tiny_tiles);
        assert_eq!(settings_named(&report), ["tileSize"]);
        assert!(report[0].message.contains("raise tileSize"), "{report:?}");
        let huge_tiles = BuildShape {
            tile_size: Some(2048),
            ..tiny_tiles
        };
        assert_eq!(
            settings_named(&settings_report(&BuildSettings::default(), huge_tiles)),
            ["tileSize"]
        );
        let fine = BuildSettings {
            cell_size: 0.01,
            ..BuildSettings::default()
        };
        let report = settings_report(
            &fine,
            BuildShape {
                bounds,
                ..BuildShape::default()
            },
        );
        assert_eq!(report.len(), 1);
        assert_eq!(report[0].severity, Severity::Error);
        assert_eq!(report[0].setting, "cellSize");
    }
}
