//! Reading input files: whole, with a size cap that holds for pipes and devices too, and without
//! the UTF-8 byte-order mark some editors put in front of text.

use std::io::Read;
use std::path::Path;

use crate::error::{NavlabError, Result};

/// How much is read from the file at a time.
const CHUNK_BYTES: usize = 64 * 1024;

/// The UTF-8 encoding of U+FEFF, which Windows editors write at the start of text files.
const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// Reads `path` whole, refusing anything over `limit` bytes with [`NavlabError::FileTooLarge`].
///
/// A regular file is measured first and refused unread. Everything is then read through
/// `Read::take(limit + 1)`, so a pipe or a device that never ends (a FIFO, `/dev/zero`) stops at
/// the cap instead of growing memory without bound, and a file that grows while it is read is
/// refused too. The buffer grows at most to the cap and fails cleanly if memory runs out.
pub fn read_capped(path: &Path, limit: u64) -> Result<Vec<u8>> {
    let io_error = |source| NavlabError::Io {
        path: path.to_owned(),
        source,
    };
    let too_large = |size| NavlabError::FileTooLarge {
        path: path.to_owned(),
        size,
        limit,
    };
    let file = std::fs::File::open(path).map_err(io_error)?;
    let metadata = file.metadata().map_err(io_error)?;
    let mut bytes = Vec::new();
    if metadata.is_file() {
        if metadata.len() > limit {
            return Err(too_large(Some(metadata.len())));
        }
        reserve(&mut bytes, metadata.len()).map_err(io_error)?;
    }
    let mut reader = file.take(limit.saturating_add(1));
    let mut chunk = vec![0; CHUNK_BYTES];
    loop {
        let count = match reader.read(&mut chunk) {
            Ok(0) => break,
            Ok(count) => count,
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(err) => return Err(io_error(err)),
        };
        let total = bytes.len() as u64 + count as u64;
        if total > limit {
            return Err(too_large(None));
        }
        if bytes.capacity() - bytes.len() < count {
            // Double as `Vec` would, but never past the cap.
            let room_to_cap = limit - bytes.len() as u64;
            let grown = (bytes.capacity() as u64).max(count as u64);
            reserve(&mut bytes, grown.min(room_to_cap)).map_err(io_error)?;
        }
        bytes.extend_from_slice(&chunk[..count]);
    }
    Ok(bytes)
}

/// Makes room for `additional` more bytes, as an I/O error when memory runs out.
fn reserve(bytes: &mut Vec<u8>, additional: u64) -> std::io::Result<()> {
    usize::try_from(additional)
        .ok()
        .and_then(|additional| bytes.try_reserve_exact(additional).ok())
        .ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::OutOfMemory,
                format!("not enough memory to read {additional} bytes"),
            )
        })
}

/// `bytes` without a leading UTF-8 byte-order mark.
pub fn strip_utf8_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(UTF8_BOM).unwrap_or(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cap_is_exact() {
        let dir = std::env::temp_dir().join(format!("navlab-read-capped-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("ten.txt");
        std::fs::write(&path, b"0123456789").unwrap();
        assert_eq!(read_capped(&path, 10).unwrap(), b"0123456789");
        let err = read_capped(&path, 9).unwrap_err();
        assert!(
            matches!(
                err,
                NavlabError::FileTooLarge {
                    size: Some(10),
                    limit: 9,
                    ..
                }
            ),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn only_a_leading_bom_is_stripped() {
        assert_eq!(strip_utf8_bom(b"\xEF\xBB\xBFv 1"), b"v 1");
        assert_eq!(strip_utf8_bom(b"v 1\xEF\xBB\xBF"), b"v 1\xEF\xBB\xBF");
        assert_eq!(strip_utf8_bom(b"\xEF\xBB"), b"\xEF\xBB");
    }
}
