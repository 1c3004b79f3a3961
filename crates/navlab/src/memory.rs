//! Allocation that fails with an error instead of aborting the process.
//!
//! Rust aborts when an allocation fails, and on Linux an allocation beyond the machine's memory
//! may also succeed and get the process killed once it is touched. The build's big buffers (one
//! entry per grid cell or per span) are therefore allocated through these helpers, which refuse
//! a buffer larger than the machine's memory up front and turn an allocator failure into
//! [`OutOfMemory`] naming the buffer.

use std::sync::OnceLock;

/// A buffer that would not fit in memory: `limit` is the machine's memory when that was the
/// reason, `None` when the allocator refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutOfMemory {
    /// The buffer, in words ("the heightfield's span pool").
    pub what: String,
    /// Bytes it would need.
    pub bytes: u64,
    /// The machine's memory when that was the reason, `None` when the allocator refused.
    pub limit: Option<u64>,
}

impl std::fmt::Display for OutOfMemory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let size = format_bytes(self.bytes);
        let what = &self.what;
        match self.limit {
            Some(limit) => write!(
                f,
                "{what} would need {size}, more than the {} of memory here",
                format_bytes(limit)
            )?,
            None => write!(f, "{what} would need {size}, which could not be allocated")?,
        }
        write!(f, "; raise cellSize or cellHeight")
    }
}

impl std::error::Error for OutOfMemory {}

/// Shorthand for this module's results.
type Result<T> = std::result::Result<T, OutOfMemory>;

/// The memory a build may use in bytes: the machine's physical memory, or the cgroup limit when
/// lower (Linux); `None` where neither can be read.
pub fn memory_limit() -> Option<u64> {
    static LIMIT: OnceLock<Option<u64>> = OnceLock::new();
    *LIMIT.get_or_init(|| {
        let physical = std::fs::read_to_string("/proc/meminfo")
            .ok()
            .and_then(|text| {
                let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
                let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
                kib.checked_mul(1024)
            });
        let cgroup = std::fs::read_to_string("/sys/fs/cgroup/memory.max")
            .ok()
            .and_then(|text| text.trim().parse::<u64>().ok());
        match (physical, cgroup) {
            (Some(p), Some(c)) => Some(p.min(c)),
            (p, c) => p.or(c),
        }
    })
}

/// Checks that a buffer of `bytes` (described by `what`) fits in [`memory_limit`].
pub fn check_fits(bytes: u64, what: impl FnOnce() -> String) -> Result<()> {
    match memory_limit() {
        Some(limit) if bytes > limit => Err(OutOfMemory {
            what: what(),
            bytes,
            limit: Some(limit),
        }),
        _ => Ok(()),
    }
}

/// The size of `count` values of `T`, saturating.
pub fn bytes_of<T>(count: usize) -> u64 {
    (count as u64).saturating_mul(std::mem::size_of::<T>() as u64)
}

/// An empty vector with room for `capacity` values, or an error naming `what`.
pub fn try_with_capacity<T>(capacity: usize, what: impl Fn() -> String) -> Result<Vec<T>> {
    let bytes = bytes_of::<T>(capacity);
    check_fits(bytes, &what)?;
    let mut vec = Vec::new();
    vec.try_reserve_exact(capacity).map_err(|_| OutOfMemory {
        what: what(),
        bytes,
        limit: None,
    })?;
    Ok(vec)
}

/// A vector of `len` copies of `value`, or an error naming `what`.
pub fn try_filled<T: Clone>(len: usize, value: T, what: impl Fn() -> String) -> Result<Vec<T>> {
    let mut vec = try_with_capacity(len, what)?;
    vec.resize(len, value);
    Ok(vec)
}

/// Makes room for one more value in `vec`, growing it as `push` would, or returns `false` when
/// the grown buffer would not fit in memory or cannot be allocated.
pub fn try_grow_for_one<T>(vec: &mut Vec<T>) -> bool {
    if vec.len() < vec.capacity() {
        return true;
    }
    let grown = vec.capacity().max(4).saturating_mul(2);
    if memory_limit().is_some_and(|limit| bytes_of::<T>(grown) > limit) {
        return false;
    }
    vec.try_reserve(1).is_ok()
}

/// The most memory this process has held resident so far (Linux's `VmHWM`), in bytes; `None`
/// where it cannot be read. A split bake's parts report it so a batch job's memory request can
/// be sized from a trial part.
pub fn peak_resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// A byte count for messages: "28.2 GB", "512 MB", "37 KB".
pub fn format_bytes(bytes: u64) -> String {
    const UNITS: [(&str, f64); 3] = [("GB", 1e9), ("MB", 1e6), ("KB", 1e3)];
    let b = bytes as f64;
    for (unit, size) in UNITS {
        if b >= size {
            return if b >= 10.0 * size {
                format!("{:.0} {unit}", b / size)
            } else {
                format!("{:.1} {unit}", b / size)
            };
        }
    }
    format!("{bytes} bytes")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_well() {
        assert_eq!(format_bytes(28_200_000_000), "28 GB");
        assert_eq!(format_bytes(2_760_000_000), "2.8 GB");
        assert_eq!(format_bytes(512), "512 bytes");
    }

    #[test]
    fn peak_resident_memory_is_read_on_linux() {
        let peak = peak_resident_bytes();
        if cfg!(target_os = "linux") {
            assert!(peak.is_some_and(|bytes| bytes > 0), "{peak:?}");
        }
    }

    #[test]
    fn impossible_buffers_are_errors() {
        let err = try_filled(usize::MAX / 2, 0u32, || "the test buffer".into()).unwrap_err();
        let message = err.to_string();
        assert!(
            message.starts_with("the test buffer would need"),
            "{message}"
        );
        assert_eq!(err.limit.is_some(), memory_limit().is_some());
        let mut vec = vec![0u8; 4];
        assert!(try_grow_for_one(&mut vec));
    }
}
