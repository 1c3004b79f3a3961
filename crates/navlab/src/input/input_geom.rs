//! What a build starts from: the triangle mesh, its partitioned tree, and the authored extras of
//! a RecastDemo geometry set (navmesh bounds, settings, convex volumes, off-mesh connections).
//! `bake` turns the saved settings into build settings and the links into Detour's input.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::input::geomset::GeomSet;
use crate::input::obj::{TriMesh, load_obj};
use crate::input::partitioned_mesh::LazyPartitionedMesh;
use crate::input::{Error, Result};

/// A loaded input, shared cheaply between builds and the viewer.
#[derive(Clone, Debug)]
pub struct InputGeom {
    /// The file it came from (`.obj`, `.gltf`, `.glb` or `.gset`), if any.
    pub source: Option<PathBuf>,
    /// The triangles, shared with builds.
    pub mesh: Arc<TriMesh>,
    /// The triangle tree for tile builds and ray picking, built when first read.
    pub partitioned: LazyPartitionedMesh,
    /// The geometry set's authored content; a plain mesh gets an empty one.
    pub geom_set: GeomSet,
    /// Every file the load read: `source` first, then the mesh a `.gset` names and a glTF's
    /// buffer files. A command must not write over any of them.
    pub files_read: Vec<PathBuf>,
}

impl InputGeom {
    /// Wraps a mesh made in code.
    pub fn from_mesh(mesh: TriMesh) -> Result<Self> {
        let mesh = Arc::new(mesh);
        let partitioned = LazyPartitionedMesh::new(Arc::clone(&mesh))?;
        Ok(Self {
            source: None,
            mesh,
            partitioned,
            geom_set: GeomSet::new(""),
            files_read: Vec::new(),
        })
    }

    /// Loads a mesh (glTF for a `.gltf` or `.glb` extension, else OBJ), or a `.gset` file and
    /// the mesh it names (relative to the `.gset`), read by the same rule.
    pub fn load(path: &Path) -> Result<Self> {
        let is_gset = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("gset"));
        let (mesh_path, geom_set) = if is_gset {
            let geom_set = GeomSet::load(path)?;
            (geom_set.mesh_path_relative_to(path), geom_set)
        } else {
            (path.to_owned(), GeomSet::new(path))
        };
        let mut files_read = vec![path.to_owned()];
        if is_gset {
            crate::file::require_regular_file(&mesh_path, "the mesh a .gset names")?;
            files_read.push(mesh_path.clone());
        }
        let mesh = if is_gltf_path(&mesh_path) {
            let (mesh, buffer_files) = load_gltf(&mesh_path)?;
            files_read.extend(buffer_files);
            mesh
        } else {
            load_obj(&mesh_path)?
        };
        let mut input = Self::from_mesh(mesh)?;
        input.source = Some(path.to_owned());
        input.geom_set = geom_set;
        input.files_read = files_read;
        Ok(input)
    }

    /// The bounds to build over: a geometry set's saved bounds, else the mesh's. Saved bounds
    /// that are inverted or miss the mesh are an error naming the file, before any stage runs
    /// into an empty or negative grid.
    pub fn nav_mesh_bounds(&self) -> Result<([f32; 3], [f32; 3])> {
        let mesh_bounds = self.mesh.bounds();
        let (bmin, bmax) = self.geom_set.nav_mesh_bounds(mesh_bounds);
        if self.geom_set.settings.is_none() {
            return Ok((bmin, bmax));
        }
        let fail = |problem: String| Error::InvalidGeomSet {
            path: self
                .source
                .clone()
                .unwrap_or_else(|| PathBuf::from("<geometry set>")),
            message: format!(
                "the navmesh bounds of the `s` line, {} to {}, {problem}; correct them or save \
                 the set again from the mesh",
                point(bmin),
                point(bmax)
            ),
        };
        for (axis, k) in ["x", "y", "z"].into_iter().zip(0..3) {
            if bmin[k] > bmax[k] {
                return Err(fail(format!("are inverted in {axis}")));
            }
            if bmin[k] > mesh_bounds.1[k] || bmax[k] < mesh_bounds.0[k] {
                return Err(fail(format!(
                    "miss the mesh, which spans {} to {} (no overlap in {axis})",
                    point(mesh_bounds.0),
                    point(mesh_bounds.1)
                )));
            }
        }
        Ok((bmin, bmax))
    }
}

impl InputGeom {
    /// The mesh file itself: the source, or for a `.gset` the mesh it names.
    pub fn mesh_file(&self) -> Option<PathBuf> {
        let source = self.source.as_ref()?;
        let is_gset = source
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("gset"));
        Some(if is_gset {
            self.geom_set.mesh_path_relative_to(source)
        } else {
            source.clone()
        })
    }
}

/// A point for a message: `(1.5, 0, -2)`.
fn point(p: [f32; 3]) -> String {
    format!("({}, {}, {})", p[0], p[1], p[2])
}

/// Whether `path` names a glTF file by its extension (`.gltf` or `.glb`, any case).
pub fn is_gltf_path(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("gltf") || e.eq_ignore_ascii_case("glb"))
}

/// A glTF mesh and the buffer files read for it.
#[cfg(feature = "gltf")]
fn load_gltf(path: &Path) -> Result<(TriMesh, Vec<PathBuf>)> {
    crate::input::gltf::load_gltf_and_buffer_files(path)
}

/// Without the `gltf` feature a glTF file is refused, saying what would read it.
#[cfg(not(feature = "gltf"))]
fn load_gltf(path: &Path) -> Result<(TriMesh, Vec<PathBuf>)> {
    Err(Error::InvalidMesh {
        path: path.to_owned(),
        message: "this build of navlab reads no glTF (its `gltf` feature is off)".into(),
    })
}
