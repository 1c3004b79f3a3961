//! Build settings in agent units (RecastDemo's sliders, as `Sample::resetCommonSettings` sets
//! them) and their derivation into Recast's voxel-unit `rcConfig`, as `Sample_SoloMesh::build`
//! does it.

use std::path::Path;

use crate::detour::RefWidth;
use crate::error::{NavlabError, Result};
use crate::input::InputGeom;
use crate::input::geomset::GeomSetSettings;
use crate::recast::config::{Config, calc_grid_size};
use crate::recast::region::{PartitionType, RegionOptions};

/// Default limit on voxel grid cells (width × height) before a build is refused.
pub const DEFAULT_MAX_GRID_CELLS: i64 = 64 * 1024 * 1024;

/// The largest settings file `BuildSettings::load_toml` (feature `toml`) reads (a settings file
/// is under a kilobyte), so that a wrong file or an endless pipe is refused.
pub const MAX_SETTINGS_FILE_BYTES: u64 = 1 << 20;

/// Every key a settings file may have: the fields of [`BuildSettings`], as RecastDemo names them.
pub const SETTING_NAMES: [&str; 31] = [
    "cellSize",
    "cellHeight",
    "agentHeight",
    "agentRadius",
    "agentMaxClimb",
    "agentMaxSlope",
    "regionMinSize",
    "regionMergeSize",
    "edgeMaxLen",
    "edgeMaxError",
    "vertsPerPoly",
    "detailSampleDist",
    "detailSampleMaxError",
    "filterLowHangingObstacles",
    "filterLedgeSpans",
    "filterWalkableLowHeightSpans",
    "partitionType",
    "removeDegeneratePolygons",
    "maxGridCells",
    "splitOverlappingRegions",
    "longRangeLinks",
    "polyRefs",
    "jumpLinks",
    "jumpGroundTolerance",
    "jumpClimbDownMin",
    "jumpClimbDownMax",
    "jumpMaxDistance",
    "jumpMaxUp",
    "jumpMaxDown",
    "jumpSampleSpacing",
    "jumpLinkWidth",
];

/// The settings a user tunes, in world units, with RecastDemo's names and defaults
/// (`Sample::resetCommonSettings`).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(
    feature = "serde",
    serde(rename_all = "camelCase", default, deny_unknown_fields)
)]
pub struct BuildSettings {
    /// Voxel size on xz, world units (`cellSize`).
    pub cell_size: f32,
    /// Voxel height, world units (`cellHeight`).
    pub cell_height: f32,
    /// Agent height, world units (`agentHeight`).
    pub agent_height: f32,
    /// Agent radius, world units (`agentRadius`).
    pub agent_radius: f32,
    /// Highest step the agent climbs, world units (`agentMaxClimb`).
    pub agent_max_climb: f32,
    /// Steepest walkable slope, degrees (`agentMaxSlope`).
    pub agent_max_slope: f32,
    /// Smallest region kept, cells along a side (`regionMinSize`).
    pub region_min_size: f32,
    /// Regions smaller than this merge, cells along a side (`regionMergeSize`).
    pub region_merge_size: f32,
    /// Longest contour edge, world units (`edgeMaxLen`).
    pub edge_max_len: f32,
    /// Largest contour simplification error, cells (`edgeMaxError`).
    pub edge_max_error: f32,
    /// Most vertices per polygon (`vertsPerPoly`).
    pub verts_per_poly: f32,
    /// Detail sampling distance, cells (`detailSampleDist`).
    pub detail_sample_dist: f32,
    /// Largest detail height error, cell heights (`detailSampleMaxError`).
    pub detail_sample_max_error: f32,
    /// Let agents step over low obstacles (`rcFilterLowHangingWalkableObstacles`).
    pub filter_low_hanging_obstacles: bool,
    /// Drop spans at ledges (`rcFilterLedgeSpans`).
    pub filter_ledge_spans: bool,
    /// Drop spans without headroom (`rcFilterWalkableLowHeightSpans`).
    pub filter_walkable_low_height_spans: bool,
    /// How the walkable area is cut into regions (`partitionType`).
    pub partition_type: PartitionType,
    /// Drop the poly mesh's degenerate polygons (no area on the xz-plane, or a vertex position
    /// visited twice) before the detail mesh and Detour. Off by default: C++ Recast keeps them
    /// (random triangle soups make a few; recastnavigation issue #414), and so does Navlab
    /// unless asked.
    pub remove_degenerate_polygons: bool,
    /// Refuse grids with more cells than this (protects against a tiny cell size on a huge map).
    pub max_grid_cells: i64,
    /// Cut regions that overlap themselves in height (a spiral ramp) into pieces that do not,
    /// after the region merge, as `rcBuildRegions`' unfinished note describes. Off by default:
    /// C++ leaves them, and its contours and polygons then lose part of such a region.
    pub split_overlapping_regions: bool,
    /// Keep off-mesh links whose ends lie in tiles that are not neighbours, in a navmesh-level
    /// link table (C++ Detour joins a link only within the tiles around its start). Off by
    /// default: such links are dropped as in C++ and files stay byte-identical.
    pub long_range_links: bool,
    /// Bits of a polygon reference, 32 (C++ Detour's default) or 64 (its `DT_POLYREF64`): 64
    /// lets a navmesh hold far more than the 2¹⁴ tiles of 32-bit references, and the files
    /// are then those of a `DT_POLYREF64` build (`docs/poly-refs.md`).
    pub poly_refs: u32,
    /// Find jump and climb-down links along the navmesh's edges and add them as off-mesh links
    /// (area jump, flags jump). Off by default: C++ has no automatic links.
    pub jump_links: bool,
    /// How far a jump link's landing may lie above or below the navmesh surface, world units.
    pub jump_ground_tolerance: f32,
    /// Shortest drop a climb-down link is made for, world units (shorter drops are walked).
    pub jump_climb_down_min: f32,
    /// Highest drop a climb-down link is made for, world units.
    pub jump_climb_down_max: f32,
    /// Widest gap a jump crosses, world units along the ground.
    pub jump_max_distance: f32,
    /// Highest a jump may land above its take-off, world units.
    pub jump_max_up: f32,
    /// Deepest a jump may land below its take-off, world units.
    pub jump_max_down: f32,
    /// Distance between samples along a navmesh edge, world units.
    pub jump_sample_spacing: f32,
    /// Width of the edge stretch one link stands for, world units: neighbouring samples that
    /// land alike are grouped into one link per this much edge.
    pub jump_link_width: f32,
}

impl Default for BuildSettings {
    fn default() -> Self {
        Self {
            cell_size: 0.3,
            cell_height: 0.2,
            agent_height: 2.0,
            agent_radius: 0.6,
            agent_max_climb: 0.9,
            agent_max_slope: 45.0,
            region_min_size: 8.0,
            region_merge_size: 20.0,
            edge_max_len: 12.0,
            edge_max_error: 1.3,
            verts_per_poly: 6.0,
            detail_sample_dist: 6.0,
            detail_sample_max_error: 1.0,
            filter_low_hanging_obstacles: true,
            filter_ledge_spans: true,
            filter_walkable_low_height_spans: true,
            partition_type: PartitionType::Watershed,
            remove_degenerate_polygons: false,
            max_grid_cells: DEFAULT_MAX_GRID_CELLS,
            split_overlapping_regions: false,
            long_range_links: false,
            poly_refs: 32,
            jump_links: false,
            jump_ground_tolerance: 0.3,
            jump_climb_down_min: 1.0,
            jump_climb_down_max: 2.5,
            jump_max_distance: 3.0,
            jump_max_up: 0.5,
            jump_max_down: 2.5,
            jump_sample_spacing: 0.5,
            jump_link_width: 2.0,
        }
    }
}

fn invalid(name: &'static str, value: impl ToString, reason: &str) -> NavlabError {
    NavlabError::InvalidSetting {
        name,
        value: value.to_string(),
        reason: reason.to_string(),
    }
}

impl BuildSettings {
    /// Checks every value is finite and in a range the build can use.
    pub fn validate(&self) -> Result<()> {
        let positive = [
            ("cellSize", self.cell_size),
            ("cellHeight", self.cell_height),
            ("agentHeight", self.agent_height),
        ];
        for (name, value) in positive {
            if !(value.is_finite() && value > 0.0) {
                return Err(invalid(name, value, "must be a finite number above zero"));
            }
        }
        let non_negative = [
            ("agentRadius", self.agent_radius),
            ("agentMaxClimb", self.agent_max_climb),
            ("regionMinSize", self.region_min_size),
            ("regionMergeSize", self.region_merge_size),
            ("edgeMaxLen", self.edge_max_len),
            ("edgeMaxError", self.edge_max_error),
            ("detailSampleDist", self.detail_sample_dist),
            ("detailSampleMaxError", self.detail_sample_max_error),
            ("jumpGroundTolerance", self.jump_ground_tolerance),
            ("jumpClimbDownMin", self.jump_climb_down_min),
            ("jumpClimbDownMax", self.jump_climb_down_max),
            ("jumpMaxDistance", self.jump_max_distance),
            ("jumpMaxUp", self.jump_max_up),
            ("jumpMaxDown", self.jump_max_down),
        ];
        for (name, value) in non_negative {
            if !(value.is_finite() && value >= 0.0) {
                return Err(invalid(
                    name,
                    value,
                    "must be a finite number, zero or more",
                ));
            }
        }
        if !(self.agent_max_slope.is_finite() && (0.0..=90.0).contains(&self.agent_max_slope)) {
            return Err(invalid(
                "agentMaxSlope",
                self.agent_max_slope,
                "must be between 0 and 90 degrees",
            ));
        }
        if !(self.verts_per_poly.is_finite() && (3.0..=12.0).contains(&self.verts_per_poly)) {
            return Err(invalid(
                "vertsPerPoly",
                self.verts_per_poly,
                "must be between 3 and 12",
            ));
        }
        let jump_steps = [
            ("jumpSampleSpacing", self.jump_sample_spacing),
            ("jumpLinkWidth", self.jump_link_width),
        ];
        for (name, value) in jump_steps {
            if !(value.is_finite() && value >= 0.01) {
                return Err(invalid(
                    name,
                    value,
                    "must be a finite number of 0.01 or more",
                ));
            }
        }
        if self.jump_climb_down_min > self.jump_climb_down_max {
            return Err(invalid(
                "jumpClimbDownMin",
                self.jump_climb_down_min,
                "must not be above jumpClimbDownMax",
            ));
        }
        if RefWidth::from_bits(self.poly_refs).is_none() {
            return Err(invalid("polyRefs", self.poly_refs, "must be 32 or 64"));
        }
        if self.max_grid_cells <= 0 {
            return Err(invalid(
                "maxGridCells",
                self.max_grid_cells,
                "must be above zero",
            ));
        }
        let voxel_limits = [
            ("agentHeight", self.agent_height / self.cell_height),
            ("agentMaxClimb", self.agent_max_climb / self.cell_height),
        ];
        for (name, voxels) in voxel_limits {
            if voxels > crate::recast::heightfield::SPAN_MAX_HEIGHT as f32 {
                return Err(invalid(
                    name,
                    voxels,
                    "is more voxels than a span can hold (8191); raise cellHeight",
                ));
            }
        }
        Ok(())
    }

    /// The navmesh's reference width ([`BuildSettings::poly_refs`]; 32 bits for a value
    /// [`BuildSettings::validate`] refuses).
    pub fn ref_width(&self) -> RefWidth {
        RefWidth::from_bits(self.poly_refs).unwrap_or_default()
    }

    /// The region builders' options beyond Recast these settings ask for.
    pub fn region_options(&self) -> RegionOptions {
        RegionOptions {
            split_overlapping: self.split_overlapping_regions,
        }
    }

    /// Derives the voxel-unit config over the given bounds, as `Sample_SoloMesh::build` does.
    pub fn to_config(&self, bmin: [f32; 3], bmax: [f32; 3]) -> Result<Config> {
        self.validate()?;
        if bmin.iter().chain(&bmax).any(|v| !v.is_finite()) {
            return Err(invalid(
                "bounds",
                format!("{bmin:?}..{bmax:?}"),
                "must be finite",
            ));
        }
        let bounds = || format!("{bmin:?}..{bmax:?}");
        for (axis, k) in ["x", "y", "z"].into_iter().zip(0..3) {
            if bmin[k] > bmax[k] {
                return Err(invalid(
                    "bounds",
                    bounds(),
                    &format!("are inverted: the minimum {axis} is above the maximum"),
                ));
            }
        }
        let cs = self.cell_size;
        let ch = self.cell_height;
        let width_cells = ((bmax[0] - bmin[0]) as f64 / cs as f64 + 0.5).floor() as i64;
        let height_cells = ((bmax[2] - bmin[2]) as f64 / cs as f64 + 0.5).floor() as i64;
        if width_cells < 1 || height_cells < 1 {
            return Err(invalid(
                "bounds",
                bounds(),
                &format!(
                    "give a {width_cells} x {height_cells} cell grid at cellSize {cs}; \
                     they must be at least one cell wide in x and z"
                ),
            ));
        }
        let cells = width_cells.saturating_mul(height_cells);
        if cells > self.max_grid_cells
            || width_cells > i32::MAX as i64
            || height_cells > i32::MAX as i64
        {
            return Err(NavlabError::GridTooLarge {
                width: width_cells,
                height: height_cells,
                cells,
                limit: self.max_grid_cells,
                cell_size: cs,
            });
        }
        let tall = bmax[1] - bmin[1];
        if !crate::recast::heightfield::span_heights_fit(tall, ch) {
            return Err(NavlabError::TooTall {
                tall,
                bottom: bmin[1],
                cell_height: ch,
                min_cell_height: crate::recast::heightfield::min_cell_height_for(tall),
            });
        }
        let (width, height) = calc_grid_size(&bmin, &bmax, cs);
        Ok(Config {
            width,
            height,
            tile_size: 0,
            border_size: 0,
            cs,
            ch,
            bmin,
            bmax,
            walkable_slope_angle: self.agent_max_slope,
            walkable_height: (self.agent_height / ch).ceil() as i32,
            walkable_climb: (self.agent_max_climb / ch).floor() as i32,
            walkable_radius: (self.agent_radius / cs).ceil() as i32,
            max_edge_len: (self.edge_max_len / cs) as i32,
            max_simplification_error: self.edge_max_error,
            min_region_area: (self.region_min_size * self.region_min_size) as i32,
            merge_region_area: (self.region_merge_size * self.region_merge_size) as i32,
            max_verts_per_poly: self.verts_per_poly as i32,
            detail_sample_dist: if self.detail_sample_dist < 0.9 {
                0.0
            } else {
                cs * self.detail_sample_dist
            },
            detail_sample_max_error: ch * self.detail_sample_max_error,
        })
    }

    /// The settings as RecastDemo's Sample saves them in a geometry set (`collectSettings`),
    /// with the navmesh bounds and tile size.
    pub fn to_geom_set_settings(
        &self,
        nav_mesh_bmin: [f32; 3],
        nav_mesh_bmax: [f32; 3],
        tile_size: f32,
    ) -> GeomSetSettings {
        GeomSetSettings {
            cell_size: self.cell_size,
            cell_height: self.cell_height,
            agent_height: self.agent_height,
            agent_radius: self.agent_radius,
            agent_max_climb: self.agent_max_climb,
            agent_max_slope: self.agent_max_slope,
            region_min_size: self.region_min_size,
            region_merge_size: self.region_merge_size,
            edge_max_len: self.edge_max_len,
            edge_max_error: self.edge_max_error,
            verts_per_poly: self.verts_per_poly as i32,
            detail_sample_dist: self.detail_sample_dist,
            detail_sample_max_error: self.detail_sample_max_error,
            partition_type: self.partition_type,
            nav_mesh_bmin,
            nav_mesh_bmax,
            tile_size,
        }
    }

    /// Takes the settings RecastDemo takes from a geometry set (`Sample::onMeshChanged`); the
    /// filters and grid limit stay. `verts_per_poly` is taken only when positive, since
    /// RecastDemo's files hold 0 there and RecastDemo keeps its own value.
    pub fn apply_geom_set(&mut self, saved: &GeomSetSettings) {
        self.cell_size = saved.cell_size;
        self.cell_height = saved.cell_height;
        self.agent_height = saved.agent_height;
        self.agent_radius = saved.agent_radius;
        self.agent_max_climb = saved.agent_max_climb;
        self.agent_max_slope = saved.agent_max_slope;
        self.region_min_size = saved.region_min_size;
        self.region_merge_size = saved.region_merge_size;
        self.edge_max_len = saved.edge_max_len;
        self.edge_max_error = saved.edge_max_error;
        if saved.verts_per_poly > 0 {
            self.verts_per_poly = saved.verts_per_poly as f32;
        }
        self.detail_sample_dist = saved.detail_sample_dist;
        self.detail_sample_max_error = saved.detail_sample_max_error;
        self.partition_type = saved.partition_type;
    }

    /// RecastDemo's defaults with an input's saved geometry-set settings applied.
    pub fn for_input(input: &InputGeom) -> Self {
        let mut settings = BuildSettings::default();
        if let Some(saved) = &input.geom_set.settings {
            settings.apply_geom_set(saved);
        }
        settings
    }

    /// The geometry set RecastDemo's key 9 saves for `input` built with these settings, to be
    /// written at `gset_path`: the mesh named from the `.gset`'s folder, the settings with the
    /// navmesh bounds and `tile_size` (for a solo build, the one the input saved, else 0) and the input's convex volumes and
    /// off-mesh connections. Unlike RecastDemo, vertsPerPoly is saved too, and every float is
    /// written so that it reads back exactly.
    pub fn geom_set_to_save(
        &self,
        input: &InputGeom,
        tile_size: Option<i32>,
        gset_path: &Path,
    ) -> Result<crate::input::geomset::GeomSet> {
        let mesh_file = input
            .mesh_file()
            .ok_or_else(|| NavlabError::InvalidSetting {
                name: "mesh",
                value: "<generated>".into(),
                reason: "this scene was made in code and has no mesh file a geometry set could \
                     name; export it as OBJ first"
                    .into(),
            })?;
        let gset_dir = gset_path.parent().unwrap_or(Path::new(""));
        let (bmin, bmax) = input.nav_mesh_bounds()?;
        let mut geom_set = input.geom_set.clone();
        geom_set.mesh_path = crate::input::geomset::path_from_dir(gset_dir, &mesh_file);
        // A solo build keeps the tile size the input saved, for the next tiled build.
        let saved_tile_size = input.geom_set.settings.as_ref().map(|s| s.tile_size);
        let tile_size = tile_size.map_or(saved_tile_size.unwrap_or(0.0), |t| t as f32);
        geom_set.settings = Some(self.to_geom_set_settings(bmin, bmax, tile_size));
        Ok(geom_set)
    }

    #[cfg(feature = "toml")]
    /// Reads settings from a TOML file of at most [`MAX_SETTINGS_FILE_BYTES`] with RecastDemo's
    /// names (`cellSize = 0.3`, …); missing keys keep their defaults.
    pub fn load_toml(path: &Path) -> Result<Self> {
        let bytes = crate::file::read_capped(path, MAX_SETTINGS_FILE_BYTES)?;
        Self::parse_toml(&bytes, path)
    }

    #[cfg(feature = "toml")]
    /// Parses and validates settings TOML; `source` names it in errors. A leading byte-order
    /// mark is skipped, and a key that is not a setting is refused with the nearest valid name
    /// (a misspelled key would otherwise silently leave its default in place).
    pub fn parse_toml(bytes: &[u8], source: &Path) -> Result<Self> {
        let (text, _) = checked_toml_keys(bytes, source)?;
        let settings: BuildSettings = toml::from_str(text)
            .map_err(|err| settings_file_error(source, toml_error_line(text, &err)))?;
        settings.validate()?;
        Ok(settings)
    }

    #[cfg(feature = "toml")]
    /// Sets only the keys a TOML settings file has, keeping the others: a variant described
    /// by its differences from these settings (`navlab diff --config-b`). The file is checked
    /// as [`BuildSettings::load_toml`] checks it, and the result is validated.
    pub fn apply_toml_file(&mut self, path: &Path) -> Result<()> {
        let bytes = crate::file::read_capped(path, MAX_SETTINGS_FILE_BYTES)?;
        let (_, keys) = checked_toml_keys(&bytes, path)?;
        let mut table =
            toml::Table::try_from(&*self).expect("build settings always serialise as a TOML table");
        for (key, value) in keys {
            table.insert(key.into_inner(), value);
        }
        let updated: BuildSettings = table.try_into().map_err(|err: toml::de::Error| {
            settings_file_error(path, err.message().trim().replace('\n', " "))
        })?;
        updated.validate()?;
        *self = updated;
        Ok(())
    }

    /// The setting whose name is nearest to `key` (ignoring case, `_` and `-`), if near enough
    /// to be what was meant.
    pub fn nearest_setting_name(key: &str) -> Option<&'static str> {
        /// Longer than any name and its allowed distance: no need to compare.
        const LONGEST_NEAR_KEY: usize = 64;
        if key.len() > LONGEST_NEAR_KEY {
            return None;
        }
        let key = normalized_name(key);
        SETTING_NAMES
            .into_iter()
            .map(|name| (edit_distance(&key, &normalized_name(name)), name))
            .min()
            .filter(|&(distance, name)| distance <= name.len() / 4)
            .map(|(_, name)| name)
    }

    #[cfg(feature = "toml")]
    /// Overrides one setting from `name=value` (RecastDemo's name, the value as a settings file
    /// writes it: `cellSize=0.2`, `filterLedgeSpans=false`, `partitionType=monotone`), for
    /// build pipelines that tune a setting or two without a file. The result is validated.
    pub fn set(&mut self, assignment: &str) -> Result<()> {
        let fail = |message: String| NavlabError::InvalidSettingOverride {
            flag: "--set",
            assignment: crate::warnings::excerpt(assignment, 80),
            message,
        };
        let (name, value_text) = assignment
            .split_once('=')
            .ok_or_else(|| fail("write it as NAME=VALUE, e.g. cellSize=0.2".into()))?;
        let name = name.trim();
        let value_text = value_text.trim();
        if !SETTING_NAMES.contains(&name) {
            return Err(fail(unknown_key_message(name, false)));
        }
        // The value as TOML reads it; a bare word (`monotone`) is taken as a string.
        let value: toml::Value = toml::from_str::<toml::Table>(&format!("v = {value_text}"))
            .ok()
            .and_then(|mut table| table.remove("v"))
            .unwrap_or_else(|| toml::Value::String(value_text.to_owned()));
        let mut table =
            toml::Table::try_from(&*self).expect("build settings always serialise as a TOML table");
        table.insert(name.to_owned(), value);
        let updated: BuildSettings = table.try_into().map_err(|err: toml::de::Error| {
            fail(format!(
                "`{}` is not a value {name} takes: {}",
                crate::warnings::excerpt(value_text, 40),
                err.message().trim().replace('\n', " ")
            ))
        })?;
        updated.validate()?;
        *self = updated;
        Ok(())
    }

    #[cfg(feature = "toml")]
    /// The settings as TOML.
    pub fn to_toml_string(&self) -> String {
        // Every field is a number, a bool or a unit enum, which TOML always represents.
        toml::to_string_pretty(self).expect("build settings always serialise as TOML")
    }

    #[cfg(feature = "toml")]
    /// Writes the settings as TOML, whole or not at all.
    pub fn save_toml(&self, path: &Path) -> Result<()> {
        Ok(crate::file::write_atomically(
            path,
            self.to_toml_string().as_bytes(),
        )?)
    }
}

#[cfg(feature = "toml")]
fn settings_file_error(path: &Path, message: String) -> NavlabError {
    NavlabError::InvalidSettingsFile {
        path: path.to_owned(),
        message,
    }
}

#[cfg(feature = "toml")]
/// A settings file's text and keys: UTF-8 TOML (a leading byte-order mark skipped) whose every
/// key is a setting, a wrong one refused with the nearest valid name (a misspelled key would
/// otherwise silently leave its value unchanged).
fn checked_toml_keys<'a>(
    bytes: &'a [u8],
    source: &Path,
) -> Result<(
    &'a str,
    std::collections::BTreeMap<toml::Spanned<String>, toml::Value>,
)> {
    let fail = |message: String| settings_file_error(source, message);
    let text = std::str::from_utf8(crate::file::strip_utf8_bom(bytes))
        .map_err(|_| fail("this is not a settings file (it is not UTF-8 text)".into()))?;
    let keys: std::collections::BTreeMap<toml::Spanned<String>, toml::Value> =
        toml::from_str(text).map_err(|err| fail(toml_error_line(text, &err)))?;
    let unknown = keys
        .iter()
        .filter(|(key, _)| !SETTING_NAMES.contains(&key.get_ref().as_str()))
        .min_by_key(|(key, _)| key.span().start);
    if let Some((key, value)) = unknown {
        let line = line_of(text, key.span().start);
        return Err(fail(format!(
            "line {line}: {}",
            unknown_key_message(key.get_ref(), value.is_table())
        )));
    }
    Ok((text, keys))
}

#[cfg(feature = "toml")]
/// The message for a key that is not a setting.
fn unknown_key_message(key: &str, is_table: bool) -> String {
    let shown = crate::warnings::excerpt(key, 40);
    if is_table {
        return format!(
            "`{shown}` is a table, but settings are plain top-level keys (`cellSize = 0.3`, \
             no `[{shown}]` header)"
        );
    }
    match BuildSettings::nearest_setting_name(key) {
        Some(name) => format!("unknown setting `{shown}`; did you mean `{name}`?"),
        None => {
            // The jump-link builder's eight tuning keys are named by their prefix, to keep the
            // line short enough to read.
            let names: Vec<&str> = SETTING_NAMES
                .into_iter()
                .filter(|name| !name.starts_with("jump") || *name == "jumpLinks")
                .collect();
            format!(
                "unknown setting `{shown}`; the settings are {} and the jump-link builder's \
                 jump… keys (docs/jump-links.md)",
                names.join(", ")
            )
        }
    }
}

#[cfg(feature = "toml")]
/// A TOML error as one line: where it is and what is wrong (toml's own text is a multi-line
/// snippet with a caret).
fn toml_error_line(text: &str, err: &toml::de::Error) -> String {
    let message = crate::warnings::excerpt(&err.message().trim().replace('\n', " "), 400);
    match err.span() {
        Some(span) => {
            let line = line_of(text, span.start);
            let line_start = text[..span.start].rfind('\n').map_or(0, |i| i + 1);
            let column = text[line_start..span.start].chars().count() + 1;
            format!("line {line}, column {column}: {message}")
        }
        None => message,
    }
}

#[cfg(feature = "toml")]
/// The 1-based line of byte `offset` in `text`.
fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&c| c == b'\n')
        .count()
        + 1
}

/// A name for comparison: lower case, without `_`, `-` or spaces.
fn normalized_name(name: &str) -> Vec<char> {
    name.chars()
        .filter(|c| !matches!(c, '_' | '-' | ' '))
        .flat_map(char::to_lowercase)
        .collect()
}

/// Levenshtein distance: the fewest single-character insertions, deletions and substitutions
/// that turn `a` into `b`.
fn edit_distance(a: &[char], b: &[char]) -> usize {
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut current = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        current[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != cb);
            current[j + 1] = substitution.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        std::mem::swap(&mut previous, &mut current);
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    // Bounds as the C++ reference printed them (%.9g round-trips f32 exactly).
    #[allow(clippy::excessive_precision)]
    #[test]
    fn defaults_derive_recastdemo_config_for_nav_test() {
        let bmin = [-28.8893166, -4.86951685, -46.3001518];
        let bmax = [62.4948082, 17.0107536, 31.0531406];
        let cfg = BuildSettings::default().to_config(bmin, bmax).unwrap();
        assert_eq!((cfg.width, cfg.height), (305, 258));
        assert_eq!(cfg.walkable_height, 10);
        assert_eq!(cfg.walkable_climb, 4);
        assert_eq!(cfg.walkable_radius, 2);
        assert_eq!(cfg.max_edge_len, 40);
        assert_eq!(cfg.min_region_area, 64);
        assert_eq!(cfg.merge_region_area, 400);
        assert_eq!(cfg.detail_sample_dist, 1.800_000_07);
        assert_eq!(cfg.detail_sample_max_error, 0.200_000_003);
    }

    #[test]
    #[cfg(feature = "toml")]
    fn a_file_applied_over_settings_sets_only_its_keys() {
        let dir = std::env::temp_dir().join(format!("navlab-apply-toml-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (variant, misspelt) = (dir.join("variant.toml"), dir.join("misspelt.toml"));
        std::fs::write(&variant, "agentMaxClimb = 0.3\n").unwrap();
        std::fs::write(&misspelt, "agentMaxClmb = 0.3\n").unwrap();
        let base = BuildSettings {
            cell_size: 0.2,
            ..BuildSettings::default()
        };
        let mut settings = base.clone();
        settings.apply_toml_file(&variant).unwrap();
        let expected = BuildSettings {
            agent_max_climb: 0.3,
            ..base.clone()
        };
        assert_eq!(settings, expected);
        let err = settings.apply_toml_file(&misspelt).unwrap_err().to_string();
        assert!(err.contains("agentMaxClimb"), "{err}");
        assert_eq!(settings, expected);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    #[cfg(feature = "toml")]
    fn overrides_take_settings_file_names_and_values() {
        let mut settings = BuildSettings::default();
        for assignment in [
            "cellSize=0.2",
            "agentRadius = 0.4",
            "vertsPerPoly=4",
            "filterLedgeSpans=false",
            "partitionType=monotone",
            "partitionType=\"layers\"",
            "maxGridCells=1000000",
        ] {
            settings.set(assignment).unwrap();
        }
        let expected = BuildSettings {
            cell_size: 0.2,
            agent_radius: 0.4,
            verts_per_poly: 4.0,
            filter_ledge_spans: false,
            partition_type: PartitionType::Layers,
            max_grid_cells: 1_000_000,
            ..BuildSettings::default()
        };
        assert_eq!(settings, expected);

        for (assignment, says) in [
            ("cellSize", "NAME=VALUE"),
            ("cell_size=0.2", "did you mean `cellSize`"),
            ("cellSize=fast", "not a value cellSize takes"),
            ("cellSize=-1", "above zero"),
            ("partitionType=voronoi", "not a value partitionType takes"),
            ("filterLedgeSpans=2", "not a value filterLedgeSpans takes"),
            ("agentMaxSlope=nan", "between 0 and 90"),
        ] {
            let err = settings.set(assignment).unwrap_err().to_string();
            assert!(err.contains(says), "{assignment}: {err}");
            assert!(!err.contains('\n'), "{err}");
        }
        assert_eq!(settings, expected, "a refused override changes nothing");
    }

    #[test]
    fn bad_settings_are_named() {
        let bad = BuildSettings {
            cell_size: f32::NAN,
            ..Default::default()
        };
        let err = bad.validate().unwrap_err().to_string();
        assert!(err.contains("cellSize"), "{err}");

        let tiny = BuildSettings {
            cell_size: 0.0001,
            ..Default::default()
        };
        let err = tiny.to_config([0.0; 3], [1000.0, 1.0, 1000.0]).unwrap_err();
        assert!(matches!(err, NavlabError::GridTooLarge { .. }), "{err}");
        assert!(err.to_string().contains("cellSize"));
    }

    #[test]
    #[cfg(feature = "toml")]
    fn setting_names_are_the_serialised_keys() {
        let text = BuildSettings::default().to_toml_string();
        let keys: Vec<&str> = text
            .lines()
            .filter_map(|line| line.split_once(" = ").map(|(key, _)| key))
            .collect();
        assert_eq!(keys, SETTING_NAMES);
    }

    #[test]
    fn nearest_names_forgive_case_separators_and_typos() {
        let nearest = BuildSettings::nearest_setting_name;
        assert_eq!(nearest("cell_size"), Some("cellSize"));
        assert_eq!(nearest("cell-size"), Some("cellSize"));
        assert_eq!(nearest("agentRadious"), Some("agentRadius"));
        assert_eq!(nearest("AGENT_MAX_SLOPE"), Some("agentMaxSlope"));
        assert_eq!(nearest("tileSize"), None);
        assert_eq!(nearest("settings"), None);
        assert_eq!(nearest(&"cellSize".repeat(100)), None);
        assert_eq!(edit_distance(&['a', 'b'], &[]), 2);
    }

    #[test]
    #[cfg(feature = "toml")]
    fn toml_round_trips() {
        let dir = std::env::temp_dir().join(format!("navlab-config-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("settings.toml");
        let settings = BuildSettings {
            cell_size: 0.25,
            partition_type: PartitionType::Layers,
            ..Default::default()
        };
        settings.save_toml(&path).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("cellSize = 0.25"), "{text}");
        assert!(text.contains("partitionType = \"layers\""), "{text}");
        assert_eq!(BuildSettings::load_toml(&path).unwrap(), settings);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
