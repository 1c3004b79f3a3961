//! Reading input files with a size cap that holds for pipes and devices too, and without the
//! UTF-8 byte-order mark some editors put in front of text; writing output files whole or not
//! at all.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

/// A file that could not be read or written, or that is larger than Navlab reads for its kind.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FileError {
    /// Reading or writing failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        #[source]
        /// What the system said.
        source: std::io::Error,
    },
    /// More bytes than Navlab reads for this kind of file, so that a wrong file, a pipe or a
    /// device that never ends cannot exhaust memory. `size` is unknown for what is not a
    /// regular file.
    #[error("{path}: {}, over the limit of {limit} bytes", describe_size(.size, *.limit))]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Its size, when it is a regular file.
        size: Option<u64>,
        /// The most bytes read for its kind.
        limit: u64,
    },
}

fn describe_size(size: &Option<u64>, limit: u64) -> String {
    match size {
        Some(size) => format!("the file is {size} bytes"),
        None => format!("it gave more than {limit} bytes (a pipe or device that does not end?)"),
    }
}

/// Shorthand for this module's results.
pub type Result<T, E = FileError> = std::result::Result<T, E>;

/// How much [`read_capped`] reads at a time.
const CHUNK_BYTES: usize = 64 * 1024;

/// The most bytes read from a pipe or a device, whose size is not known before reading: far
/// above a level streamed through a pipe, low enough that `/dev/zero` ends in a moment.
pub const MAX_STREAMED_BYTES: u64 = 256 << 20;

/// The UTF-8 encoding of U+FEFF, which Windows editors write at the start of text files.
const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// A file opened by [`open_capped`]: it reads as the file does, but ends after one byte past
/// the limit, which [`CappedFile::finish`] then reports.
pub struct CappedFile {
    reader: std::io::Take<File>,
    path: PathBuf,
    limit: u64,
    /// The size of a regular file, for reserving memory up front.
    size: Option<u64>,
}

/// Opens `path` for reading at most `limit` bytes. A regular file over the limit is refused
/// before anything is read; anything else (a pipe, a device such as `/dev/zero`, a file that
/// grows) is read through `Read::take(limit + 1)`, the limit lowered to
/// [`MAX_STREAMED_BYTES`] for what has no size, so it stops just past the limit instead of
/// growing memory without bound, and [`CappedFile::finish`] refuses it.
pub fn open_capped(path: &Path, limit: u64) -> Result<CappedFile> {
    let io_error = |source| FileError::Io {
        path: path.to_owned(),
        source,
    };
    let file = File::open(path).map_err(io_error)?;
    let metadata = file.metadata().map_err(io_error)?;
    let size = metadata.is_file().then_some(metadata.len());
    let limit = match size {
        Some(_) => limit,
        None => limit.min(MAX_STREAMED_BYTES),
    };
    if let Some(size) = size.filter(|&size| size > limit) {
        return Err(FileError::TooLarge {
            path: path.to_owned(),
            size: Some(size),
            limit,
        });
    }
    Ok(CappedFile {
        reader: file.take(limit.saturating_add(1)),
        path: path.to_owned(),
        limit,
        size,
    })
}

impl Read for CappedFile {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.reader.read(buf)
    }
}

impl CappedFile {
    /// The outcome of reading the file: [`FileError::TooLarge`] if more than the limit
    /// arrived (whatever was made of the truncated input), else `result`.
    pub fn finish<T, E: From<FileError>>(self, result: Result<T, E>) -> Result<T, E> {
        if self.reader.limit() == 0 {
            return Err(FileError::TooLarge {
                path: self.path,
                size: None,
                limit: self.limit,
            }
            .into());
        }
        result
    }
}

/// Refuses `path` unless it is a regular file: where a file names another one (a `.gset` its
/// mesh, a glTF its buffers), a device or a pipe there is a mistake or a trap, never a level.
pub fn require_regular_file(path: &Path, what: &str) -> Result<()> {
    let metadata = std::fs::metadata(path).map_err(|source| FileError::Io {
        path: path.to_owned(),
        source,
    })?;
    if metadata.is_file() {
        return Ok(());
    }
    let kind = if metadata.is_dir() {
        "a folder"
    } else {
        "a device or a pipe"
    };
    Err(FileError::Io {
        path: path.to_owned(),
        source: std::io::Error::other(format!("is {kind}, not a regular file, as {what} must be")),
    })
}

/// Reads `path` whole through [`open_capped`], refusing more than `limit` bytes. The buffer
/// grows at most to the cap and fails cleanly if memory runs out.
pub fn read_capped(path: &Path, limit: u64) -> Result<Vec<u8>> {
    let mut file = open_capped(path, limit)?;
    let io_error = |source| FileError::Io {
        path: path.to_owned(),
        source,
    };
    let mut bytes = Vec::new();
    reserve(&mut bytes, file.size.unwrap_or(0)).map_err(io_error)?;
    let mut chunk = vec![0; CHUNK_BYTES];
    loop {
        let count = match file.read(&mut chunk) {
            Ok(0) => break,
            Ok(count) => count,
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(err) => return Err(io_error(err)),
        };
        if bytes.capacity() - bytes.len() < count {
            // Double as `Vec` would, but never past the cap (and the one byte that shows it
            // was passed).
            let room_to_cap = limit.saturating_add(1).saturating_sub(bytes.len() as u64);
            let grown = (bytes.capacity() as u64).max(count as u64);
            reserve(&mut bytes, grown.min(room_to_cap)).map_err(io_error)?;
        }
        bytes.extend_from_slice(&chunk[..count]);
    }
    file.finish(Ok(bytes))
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

/// Tells apart the temporary files of one process's concurrent writes.
static PART_COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Writes `path` whole or not at all: `write` fills a temporary file beside it (same folder, so
/// the rename stays on one file system), which is flushed to the disk and then renamed over
/// `path`. A crash, a full disk or a file-size limit leaves the old file as it was, never a
/// half-written one, and removes the temporary file. A `path` that is a link is written through
/// it: the file it points to is replaced, and the link stays. An existing file keeps its
/// permissions; a device or a pipe is written directly.
pub fn write_atomically_with(
    path: &Path,
    write: impl FnOnce(&Path) -> std::io::Result<()>,
) -> Result<()> {
    let io_error = |source| FileError::Io {
        path: path.to_owned(),
        source,
    };
    let target = link_target(path);
    // A device or a pipe (`/dev/stdout`, a FIFO) cannot be replaced, only written to.
    if std::fs::metadata(&target).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
        return write(&target).map_err(io_error);
    }
    let name = target
        .file_name()
        .ok_or_else(|| io_error(std::io::Error::other("not a file name")))?;
    // The temporary name keeps the extension, for writers that pick the format by it.
    let mut part_name = std::ffi::OsString::from(".");
    part_name.push(name);
    let serial = PART_COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    part_name.push(format!(".{}-{serial}.part", std::process::id()));
    if let Some(extension) = target.extension() {
        part_name.push(".");
        part_name.push(extension);
    }
    let part = target.with_file_name(part_name);
    let written = write(&part)
        .and_then(|()| finish_part(&part, &target))
        .and_then(|()| std::fs::rename(&part, &target));
    if written.is_err() {
        let _ = std::fs::remove_file(&part);
    }
    written.map_err(io_error)?;
    sync_folder(&target);
    Ok(())
}

/// The file a link at `path` points to (through every link, to where a dangling one's file is
/// to be), or `path` itself: where [`write_atomically`] writes `path`.
pub fn link_target(path: &Path) -> PathBuf {
    let is_link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    if !is_link {
        return path.to_owned();
    }
    // A dangling link names where its file is to be; a live one resolves whole.
    std::fs::canonicalize(path).unwrap_or_else(|_| {
        let mut target = path.to_owned();
        for _ in 0..40 {
            match std::fs::read_link(&target) {
                Ok(next) => target = target.parent().unwrap_or(Path::new("")).join(next),
                Err(_) => break,
            }
        }
        target
    })
}

/// Gives the written temporary file the permissions of the file it replaces, and flushes it
/// to the disk, so the rename never exposes a file whose bytes are not there yet.
fn finish_part(part: &Path, target: &Path) -> std::io::Result<()> {
    if let Ok(existing) = std::fs::metadata(target) {
        std::fs::set_permissions(part, existing.permissions())?;
    }
    File::open(part)?.sync_all()
}

/// Flushes the folder's entry for a renamed file, so the new name survives a crash. Some file
/// systems cannot sync a folder; the file itself is already safe, so that is not an error.
fn sync_folder(path: &Path) {
    #[cfg(unix)]
    if let Some(folder) = path.parent() {
        let folder = if folder.as_os_str().is_empty() {
            Path::new(".")
        } else {
            folder
        };
        if let Ok(handle) = File::open(folder) {
            let _ = handle.sync_all();
        }
    }
    #[cfg(not(unix))]
    let _ = path;
}

/// [`write_atomically_with`] for bytes already in memory.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    write_atomically_with(path, |part| std::fs::write(part, bytes))
}

/// `bytes` without a leading UTF-8 byte-order mark.
pub fn strip_utf8_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(UTF8_BOM).unwrap_or(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_write_leaves_the_old_file_and_no_part() {
        let dir = std::env::temp_dir().join(format!("navlab-atomic-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("state.json");
        write_atomically(&path, b"old").unwrap();
        let failed = write_atomically_with(&path, |part| {
            std::fs::write(part, b"half")?;
            Err(std::io::Error::other("disk full"))
        });
        assert!(failed.unwrap_err().to_string().contains("disk full"));
        assert_eq!(std::fs::read(&path).unwrap(), b"old");
        write_atomically(&path, b"new").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        let names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["state.json"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_link_is_written_through_and_permissions_stay() {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("navlab-atomic-link-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let real = dir.join("real.bin");
        let link = dir.join("link.bin");
        std::fs::write(&real, b"old").unwrap();
        std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o640)).unwrap();
        std::os::unix::fs::symlink("real.bin", &link).unwrap();
        write_atomically(&link, b"new").unwrap();
        assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
        assert_eq!(std::fs::read(&real).unwrap(), b"new");
        let mode = std::fs::metadata(&real).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o640);
        // A dangling link makes its target.
        std::os::unix::fs::symlink("later.bin", dir.join("dangling.bin")).unwrap();
        write_atomically(&dir.join("dangling.bin"), b"made").unwrap();
        assert_eq!(std::fs::read(dir.join("later.bin")).unwrap(), b"made");
        // A device is written, not replaced.
        write_atomically(Path::new("/dev/null"), b"gone").unwrap();
        assert!(!std::fs::metadata("/dev/null").unwrap().is_file());
        std::fs::remove_dir_all(&dir).unwrap();
    }

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
                FileError::TooLarge {
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
