//! What a build starts from: triangle meshes read from OBJ ([`obj`]) or glTF (`gltf`, with the feature of that name),
//! RecastDemo's geometry sets ([`geomset`]), the triangle tree tile builds and picking use ([`partitioned_mesh`]),
//! the three joined as one loaded input ([`input_geom`]), and scenes generated in code
//! ([`scene`]). Nothing here knows Recast's stages or Detour.

mod error;
pub mod geomset;
#[cfg(feature = "gltf")]
pub mod gltf;
pub mod input_geom;
pub mod obj;
pub mod partitioned_mesh;
pub mod scene;

pub use error::{Error, Result};
pub use geomset::GeomSet;
pub use input_geom::InputGeom;
pub use obj::TriMesh;
pub use partitioned_mesh::{LazyPartitionedMesh, PartitionedMesh};
