//! RecastDemo's geometry set (`.gset`): the mesh to build from, optionally the build settings and
//! navmesh bounds it was saved with, and the authored off-mesh connections and convex volumes.
//!
//! One item per line, in the order RecastDemo writes them:
//!
//! ```text
//! f <mesh path>
//! s <cs> <ch> <agent height> <agent radius> <max climb> <max slope> <region min> <region merge>
//!   <edge max len> <edge max error> <verts per poly (int)> <detail dist> <detail max error>
//!   <partition (int)> <bmin x y z> <bmax x y z> <tile size>          (one line, 21 values)
//! c <start x y z>  <end x y z>  <radius> <bidirectional 0|1> <area> <flags>
//! v <vertex count> <area> <hmin> <hmax>
//! <x y z>                                        (one line per vertex of the volume)
//! ```
//!
//! RecastDemo reads these with `sscanf` and silently keeps zeros for whatever does not parse;
//! here any malformed line is an error naming its line number, and so are navmesh bounds whose
//! minimum lies above their maximum (RecastDemo would fail in a build stage with a negative grid
//! size). A leading UTF-8 byte-order mark is skipped. Floats are written as RecastDemo
//! writes them (`%f`) whenever that reads back to the same value, and otherwise with the shortest
//! text that does, so a file round-trips exactly.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::str::SplitAsciiWhitespace;

use crate::input::{Error, Result};
use crate::recast::region::PartitionType;
use crate::warnings::excerpt;

/// Most vertices a convex volume may have (RecastDemo's `MAX_CONVEXVOL_PTS`).
pub const MAX_CONVEX_VOLUME_VERTS: usize = 12;
/// Largest area id Detour can store (areas are 6 bits).
pub const MAX_AREA: u8 = 63;
/// The user id RecastDemo gives the first off-mesh connection; the next ones count up from it.
pub const FIRST_OFF_MESH_USER_ID: u32 = 1000;
/// The largest `.gset` file [`GeomSet::load`] reads: hundreds of thousands of connections and
/// volumes (RecastDemo's own sets are a few KiB), so a wrong file or an endless pipe is refused.
pub const MAX_GSET_FILE_BYTES: u64 = 64 << 20;

/// How much of a bad value or line an error message shows.
const SHOWN_CHARS: usize = 40;

/// A `.gset` file's content.
#[derive(Clone, Debug, PartialEq)]
pub struct GeomSet {
    /// The mesh file (OBJ, or glTF for Navlab), as written in the file (RecastDemo opens it relative to its working
    /// directory; see [`GeomSet::mesh_path_relative_to`]).
    pub mesh_path: PathBuf,
    /// The `s` line, if the file has one.
    pub settings: Option<GeomSetSettings>,
    /// Authored links, in file order.
    pub off_mesh_connections: Vec<OffMeshConnection>,
    /// Authored area volumes, in file order.
    pub convex_volumes: Vec<ConvexVolume>,
}

/// The 21 values of the `s` line (RecastDemo's `BuildSettings`), in file order.
#[derive(Clone, Debug, PartialEq)]
pub struct GeomSetSettings {
    /// Voxel size on xz, world units.
    pub cell_size: f32,
    /// Voxel height, world units.
    pub cell_height: f32,
    /// Agent height, world units.
    pub agent_height: f32,
    /// Agent radius, world units.
    pub agent_radius: f32,
    /// The highest step the agent climbs, world units.
    pub agent_max_climb: f32,
    /// The steepest walkable slope, degrees.
    pub agent_max_slope: f32,
    /// Smallest region kept, in cells along a side (squared by RecastDemo).
    pub region_min_size: f32,
    /// Regions smaller than this merge, cells along a side.
    pub region_merge_size: f32,
    /// Longest contour edge, world units.
    pub edge_max_len: f32,
    /// Largest contour simplification error, cells.
    pub edge_max_error: f32,
    /// RecastDemo always writes 0 here and ignores the value when loading.
    pub verts_per_poly: i32,
    /// Detail sampling distance, cells.
    pub detail_sample_dist: f32,
    /// Largest detail height error, cell heights.
    pub detail_sample_max_error: f32,
    /// Watershed, monotone or layers.
    pub partition_type: PartitionType,
    /// The navmesh bounds, used instead of the mesh bounds.
    pub nav_mesh_bmin: [f32; 3],
    /// Maximum corner of the navmesh bounds.
    pub nav_mesh_bmax: [f32; 3],
    /// Tile size in cells; used by tiled builds when above zero.
    pub tile_size: f32,
}

/// An authored link between two points that the navmesh surface does not connect (a jump, a
/// ladder), as Detour's off-mesh connection.
#[derive(Clone, Debug, PartialEq)]
pub struct OffMeshConnection {
    /// Start point, world units.
    pub start: [f32; 3],
    /// End point, world units.
    pub end: [f32; 3],
    /// How far from each end point the link can be entered.
    pub radius: f32,
    /// Whether the link can also be taken from `end` to `start`.
    pub bidirectional: bool,
    /// Area id the link gives its polygon.
    pub area: u8,
    /// Ability flags the link's polygon gets.
    pub flags: u16,
}

/// A vertical prism whose walkable spans get `area` (Recast's `rcMarkConvexPolyArea` input).
#[derive(Clone, Debug, PartialEq)]
pub struct ConvexVolume {
    /// The xz-polygon's vertices (y is kept from the file but not used by Recast).
    pub verts: Vec<[f32; 3]>,
    /// Area id given to the spans inside.
    pub area: u8,
    /// Lowest y the volume covers.
    pub hmin: f32,
    /// Highest y the volume covers.
    pub hmax: f32,
}

impl GeomSetSettings {
    /// The tile size a tiled build uses, if set (`Sample_TileMesh` truncates it to cells).
    pub fn tile_size_cells(&self) -> Option<i32> {
        (self.tile_size >= 1.0).then_some(self.tile_size as i32)
    }
}

fn partition_index(partition: PartitionType) -> i32 {
    match partition {
        PartitionType::Watershed => 0,
        PartitionType::Monotone => 1,
        PartitionType::Layers => 2,
    }
}

impl GeomSet {
    /// A geometry set naming only a mesh.
    pub fn new(mesh_path: impl Into<PathBuf>) -> Self {
        Self {
            mesh_path: mesh_path.into(),
            settings: None,
            off_mesh_connections: Vec::new(),
            convex_volumes: Vec::new(),
        }
    }

    /// Reads a `.gset` file of at most [`MAX_GSET_FILE_BYTES`].
    pub fn load(path: &Path) -> Result<Self> {
        let bytes = crate::file::read_capped(path, MAX_GSET_FILE_BYTES)?;
        Self::parse(&bytes, path)
    }

    /// Parses `.gset` text; `source` names it in errors.
    pub fn parse(bytes: &[u8], source: &Path) -> Result<Self> {
        let fail = |message: String| Error::InvalidGeomSet {
            path: source.to_owned(),
            message,
        };
        let text = std::str::from_utf8(crate::file::strip_utf8_bom(bytes))
            .map_err(|_| fail("this is not a .gset file (it is not UTF-8 text)".into()))?;
        Parser::new(text).run().map_err(fail)
    }

    /// The mesh path for a geometry set read from `gset_path`: a relative path is looked up
    /// as [`find_named_file`] does from the `.gset` file's folder.
    pub fn mesh_path_relative_to(&self, gset_path: &Path) -> PathBuf {
        match gset_path.parent() {
            Some(dir) if self.mesh_path.is_relative() => find_named_file(dir, &self.mesh_path),
            _ => self.mesh_path.clone(),
        }
    }

    /// The bounds to build over: the saved navmesh bounds if there are settings, else the mesh's
    /// (RecastDemo's `getNavMeshBoundsMin/Max`).
    pub fn nav_mesh_bounds(&self, mesh_bounds: ([f32; 3], [f32; 3])) -> ([f32; 3], [f32; 3]) {
        match &self.settings {
            Some(s) => (s.nav_mesh_bmin, s.nav_mesh_bmax),
            None => mesh_bounds,
        }
    }

    /// The Detour user id RecastDemo gives the off-mesh connection at `index`.
    pub fn off_mesh_user_id(index: usize) -> u32 {
        FIRST_OFF_MESH_USER_ID.saturating_add(u32::try_from(index).unwrap_or(u32::MAX))
    }

    /// The file text, laid out as RecastDemo's `saveGeomSet` writes it.
    pub fn to_gset_string(&self) -> String {
        let mut out = String::new();
        // Writing to a String cannot fail.
        let _ = self.write_to(&mut out);
        out
    }

    fn write_to(&self, out: &mut String) -> std::fmt::Result {
        writeln!(out, "f {}", self.mesh_path.display())?;
        if let Some(s) = &self.settings {
            let floats = [
                s.cell_size,
                s.cell_height,
                s.agent_height,
                s.agent_radius,
                s.agent_max_climb,
                s.agent_max_slope,
                s.region_min_size,
                s.region_merge_size,
                s.edge_max_len,
                s.edge_max_error,
            ];
            write!(out, "s")?;
            for v in floats {
                write!(out, " {}", Num(v))?;
            }
            write!(
                out,
                " {} {} {} {}",
                s.verts_per_poly,
                Num(s.detail_sample_dist),
                Num(s.detail_sample_max_error),
                partition_index(s.partition_type)
            )?;
            for v in s.nav_mesh_bmin.iter().chain(&s.nav_mesh_bmax) {
                write!(out, " {}", Num(*v))?;
            }
            writeln!(out, " {}", Num(s.tile_size))?;
        }
        for c in &self.off_mesh_connections {
            let [sx, sy, sz] = c.start.map(Num);
            let [ex, ey, ez] = c.end.map(Num);
            writeln!(
                out,
                "c {sx} {sy} {sz}  {ex} {ey} {ez}  {} {} {} {}",
                Num(c.radius),
                u8::from(c.bidirectional),
                c.area,
                c.flags
            )?;
        }
        for vol in &self.convex_volumes {
            writeln!(
                out,
                "v {} {} {} {}",
                vol.verts.len(),
                vol.area,
                Num(vol.hmin),
                Num(vol.hmax)
            )?;
            for v in &vol.verts {
                let [x, y, z] = v.map(Num);
                writeln!(out, "{x} {y} {z}")?;
            }
        }
        Ok(())
    }

    /// Writes the file, whole or not at all.
    pub fn save(&self, path: &Path) -> Result<()> {
        Ok(crate::file::write_atomically(
            path,
            self.to_gset_string().as_bytes(),
        )?)
    }
}

/// How a file in `dir` names `target`: relative when both sit on one root (so the pair can be
/// moved together, as RecastDemo's `Meshes/` folder is), else `target` made absolute.
pub fn path_from_dir(dir: &Path, target: &Path) -> PathBuf {
    let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_owned());
    let (dir, target) = (absolute(dir), absolute(target));
    let (from, to) = (normal_components(&dir), normal_components(&target));
    if from.first() != to.first() {
        return target;
    }
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut relative = PathBuf::new();
    for _ in common..from.len() {
        relative.push("..");
    }
    for part in &to[common..] {
        relative.push(part.as_os_str());
    }
    relative
}

/// The parts of an absolute path with `.` dropped and `name/..` folded.
fn normal_components(path: &Path) -> Vec<std::path::Component<'_>> {
    let mut parts = Vec::new();
    for part in path.components() {
        match part {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir
                if matches!(parts.last(), Some(std::path::Component::Normal(_))) =>
            {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    parts
}

/// A file that a RecastDemo file in `dir` names by the relative path `name`: RecastDemo opens
/// it from its working directory, where `Meshes/` holds the meshes and geometry sets and
/// `TestCases/` the test files. So the first that exists of `dir/name`, `dir/../Meshes/name`
/// and `dir/../meshes/name`, else `dir/name` (for the error message).
pub fn find_named_file(dir: &Path, name: &Path) -> PathBuf {
    let beside = dir.join(name);
    [
        dir.join("..").join("Meshes").join(name),
        dir.join("..").join("meshes").join(name),
    ]
    .into_iter()
    .find(|p| !beside.is_file() && p.is_file())
    .unwrap_or(beside)
}

/// A float as `%f` prints it when that text reads back exactly, else its shortest exact text.
struct Num(f32);

impl std::fmt::Display for Num {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let fixed = format!("{:.6}", self.0);
        if fixed
            .parse::<f32>()
            .is_ok_and(|v| v.to_bits() == self.0.to_bits())
        {
            f.write_str(&fixed)
        } else {
            write!(f, "{}", self.0)
        }
    }
}

/// Line-by-line reader; errors are messages that the caller prefixes with the path.
struct Parser<'a> {
    lines: std::iter::Enumerate<std::str::Lines<'a>>,
    set: GeomSet,
    seen_mesh: bool,
}

/// The whitespace-separated values after a line's tag, and where they came from for errors.
struct Fields<'a> {
    values: SplitAsciiWhitespace<'a>,
    line: usize,
    /// What the line is, for messages ("the off-mesh connection").
    what: String,
}

impl<'a> Fields<'a> {
    fn next_token(&mut self, name: &str) -> std::result::Result<&'a str, String> {
        self.values
            .next()
            .ok_or_else(|| format!("line {}: {} is missing its {name}", self.line, self.what))
    }

    fn float(&mut self, name: &str) -> std::result::Result<f32, String> {
        let token = self.next_token(name)?;
        match token.parse::<f32>() {
            Ok(v) if v.is_finite() => Ok(v),
            _ => Err(format!(
                "line {}: {} has `{}` as its {name}, expected a finite number",
                self.line,
                self.what,
                excerpt(token, SHOWN_CHARS)
            )),
        }
    }

    fn point(&mut self, name: &str) -> std::result::Result<[f32; 3], String> {
        Ok([
            self.float(&format!("{name} x"))?,
            self.float(&format!("{name} y"))?,
            self.float(&format!("{name} z"))?,
        ])
    }

    fn int_in(
        &mut self,
        name: &str,
        range: std::ops::RangeInclusive<i64>,
    ) -> std::result::Result<i64, String> {
        let token = self.next_token(name)?;
        match token.parse::<i64>() {
            Ok(v) if range.contains(&v) => Ok(v),
            _ => Err(format!(
                "line {}: {} has `{}` as its {name}, expected a whole number from {} to {}",
                self.line,
                self.what,
                excerpt(token, SHOWN_CHARS),
                range.start(),
                range.end()
            )),
        }
    }

    fn finish(mut self) -> std::result::Result<(), String> {
        match self.values.next() {
            None => Ok(()),
            Some(extra) => Err(format!(
                "line {}: unexpected `{}` after {}",
                self.line,
                excerpt(extra, SHOWN_CHARS),
                self.what
            )),
        }
    }
}

impl<'a> Parser<'a> {
    fn new(text: &'a str) -> Self {
        Self {
            lines: text.lines().enumerate(),
            set: GeomSet::new(PathBuf::new()),
            seen_mesh: false,
        }
    }

    /// The next line with content, as (1-based line number, trimmed text).
    fn next_line(&mut self) -> Option<(usize, &'a str)> {
        self.lines
            .by_ref()
            .map(|(i, line)| (i + 1, line.trim()))
            .find(|(_, line)| !line.is_empty())
    }

    fn run(mut self) -> std::result::Result<GeomSet, String> {
        while let Some((line, text)) = self.next_line() {
            let (tag, rest) = text
                .split_once(|c: char| c.is_ascii_whitespace())
                .unwrap_or((text, ""));
            match tag {
                "f" => self.mesh_line(line, rest.trim())?,
                "s" => self.settings_line(line, rest)?,
                "c" => self.connection_line(line, rest)?,
                "v" => self.volume_lines(line, rest)?,
                _ if tag.starts_with('#') => {}
                _ => {
                    return Err(format!(
                        "line {line}: unknown line `{}` (expected f, s, c or v)",
                        excerpt(text, SHOWN_CHARS)
                    ));
                }
            }
        }
        if !self.seen_mesh {
            return Err("no `f` line naming the mesh file".into());
        }
        Ok(self.set)
    }

    fn mesh_line(&mut self, line: usize, path: &str) -> std::result::Result<(), String> {
        if self.seen_mesh {
            return Err(format!(
                "line {line}: a second `f` line (only one mesh is allowed)"
            ));
        }
        if path.is_empty() {
            return Err(format!("line {line}: the `f` line names no mesh file"));
        }
        if !self.set.off_mesh_connections.is_empty() || !self.set.convex_volumes.is_empty() {
            // RecastDemo would load the mesh here and drop what came before it.
            return Err(format!(
                "line {line}: the `f` line must come before the connections and volumes"
            ));
        }
        self.seen_mesh = true;
        self.set.mesh_path = PathBuf::from(path);
        Ok(())
    }

    fn settings_line(&mut self, line: usize, rest: &str) -> std::result::Result<(), String> {
        if self.set.settings.is_some() {
            return Err(format!("line {line}: a second `s` settings line"));
        }
        let mut f = Fields {
            values: rest.split_ascii_whitespace(),
            line,
            what: "the settings line".into(),
        };
        let settings = GeomSetSettings {
            cell_size: f.float("cell size")?,
            cell_height: f.float("cell height")?,
            agent_height: f.float("agent height")?,
            agent_radius: f.float("agent radius")?,
            agent_max_climb: f.float("agent max climb")?,
            agent_max_slope: f.float("agent max slope")?,
            region_min_size: f.float("region min size")?,
            region_merge_size: f.float("region merge size")?,
            edge_max_len: f.float("edge max length")?,
            edge_max_error: f.float("edge max error")?,
            verts_per_poly: f.int_in("verts per poly", 0..=i32::MAX as i64)? as i32,
            detail_sample_dist: f.float("detail sample distance")?,
            detail_sample_max_error: f.float("detail sample max error")?,
            partition_type: PartitionType::ALL[f.int_in("partition type", 0..=2)? as usize],
            nav_mesh_bmin: f.point("navmesh bounds min")?,
            nav_mesh_bmax: f.point("navmesh bounds max")?,
            tile_size: f.float("tile size")?,
        };
        f.finish()?;
        for (axis, (min, max)) in ["x", "y", "z"]
            .into_iter()
            .zip(settings.nav_mesh_bmin.iter().zip(&settings.nav_mesh_bmax))
        {
            if min > max {
                return Err(format!(
                    "line {line}: the navmesh bounds are inverted: min {axis} {min} is above max {axis} {max}"
                ));
            }
        }
        self.set.settings = Some(settings);
        Ok(())
    }

    fn connection_line(&mut self, line: usize, rest: &str) -> std::result::Result<(), String> {
        let mut f = Fields {
            values: rest.split_ascii_whitespace(),
            line,
            what: "the off-mesh connection".into(),
        };
        let connection = OffMeshConnection {
            start: f.point("start")?,
            end: f.point("end")?,
            radius: f.float("radius")?,
            bidirectional: f.int_in("bidirectional flag", 0..=1)? == 1,
            area: f.int_in("area", 0..=MAX_AREA as i64)? as u8,
            flags: f.int_in("flags", 0..=u16::MAX as i64)? as u16,
        };
        f.finish()?;
        self.set.off_mesh_connections.push(connection);
        Ok(())
    }

    fn volume_lines(&mut self, line: usize, rest: &str) -> std::result::Result<(), String> {
        let mut f = Fields {
            values: rest.split_ascii_whitespace(),
            line,
            what: "the convex volume".into(),
        };
        let count = f.int_in("vertex count", 3..=MAX_CONVEX_VOLUME_VERTS as i64)? as usize;
        let area = f.int_in("area", 0..=MAX_AREA as i64)? as u8;
        let hmin = f.float("minimum height")?;
        let hmax = f.float("maximum height")?;
        f.finish()?;

        let mut verts = Vec::with_capacity(count);
        for i in 1..=count {
            let Some((vertex_line, text)) = self.next_line() else {
                return Err(format!(
                    "the convex volume of line {line} ends after {} of its {count} vertices",
                    i - 1
                ));
            };
            let mut f = Fields {
                values: text.split_ascii_whitespace(),
                line: vertex_line,
                what: format!("vertex {i} of {count} of the convex volume on line {line}"),
            };
            verts.push(f.point("position")?);
            f.finish()?;
        }
        self.set.convex_volumes.push(ConvexVolume {
            verts,
            area,
            hmin,
            hmax,
        });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_like_printf_when_exact() {
        assert_eq!(Num(2.63).to_string(), "2.630000");
        assert_eq!(Num(-0.0).to_string(), "-0.000000");
        assert_eq!(Num(0.3).to_string(), "0.300000");
        assert_eq!(Num(6.054_083_3).to_string(), "6.0540833");
        assert_eq!(Num(1e-7).to_string(), "0.0000001");
    }
}
