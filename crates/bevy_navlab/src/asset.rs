//! Baked navmesh files as Bevy assets: RecastDemo's MSET all-tiles file or Navlab's compact
//! NLMZ file, as `navlab bake` and the viewer export them, loaded as they are.

use bevy::asset::io::Reader;
use bevy::asset::{AssetLoader, LoadContext};
use bevy::prelude::*;
use bevy::tasks::futures_lite::AsyncReadExt;
use navlab::detour::NavMesh;
use navlab::detour::nav_mesh_file::MAX_NAVMESH_FILE_BYTES;

/// A navmesh loaded from a file.
#[derive(Asset, TypePath, Clone, Debug)]
pub struct NavMeshAsset(pub NavMesh);

/// Loads `.bin`, `.mset`, `.navmesh` and `.nlm` files (either format, told apart by their
/// first bytes).
#[derive(Default, TypePath)]
pub struct NavMeshAssetLoader;

/// Why a navmesh file did not load.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum NavMeshLoadError {
    /// The file could not be read.
    #[error("navlab: reading the navmesh file: {0}")]
    Io(#[from] std::io::Error),
    /// The file is larger than any navmesh Navlab reads.
    #[error("navlab: the navmesh file is over {MAX_NAVMESH_FILE_BYTES} bytes")]
    TooLarge,
    /// The bytes are not a navmesh.
    #[error("navlab: {0}")]
    Invalid(#[from] navlab::detour::DetourError),
}

impl AssetLoader for NavMeshAssetLoader {
    type Asset = NavMeshAsset;
    type Settings = ();
    type Error = NavMeshLoadError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        _settings: &(),
        _load_context: &mut LoadContext<'_>,
    ) -> Result<NavMeshAsset, NavMeshLoadError> {
        // One byte past the limit is enough to know the file is too large; nothing more is
        // read into memory.
        let mut bytes = Vec::new();
        AsyncReadExt::take(reader, MAX_NAVMESH_FILE_BYTES + 1)
            .read_to_end(&mut bytes)
            .await?;
        if bytes.len() as u64 > MAX_NAVMESH_FILE_BYTES {
            return Err(NavMeshLoadError::TooLarge);
        }
        Ok(NavMeshAsset(navlab::detour::nav_mesh_from_bytes(&bytes)?))
    }

    fn extensions(&self) -> &[&str] {
        &["bin", "mset", "navmesh", "nlm"]
    }
}

pub(crate) fn build(app: &mut App) {
    app.init_asset::<NavMeshAsset>()
        .init_asset_loader::<NavMeshAssetLoader>();
}
