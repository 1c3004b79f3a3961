//! Detour's `dtStatus`: a high-level outcome (success, failure, in progress) plus detail bits
//! that say what went wrong or what was cut short.

use std::fmt;

/// The outcome of a query (`dtStatus`). Success can still carry details: a path that did not
/// reach its goal is `SUCCESS | PARTIAL_RESULT`, a search that ran out of nodes adds
/// `OUT_OF_NODES`, a result cut to the caller's buffer adds `BUFFER_TOO_SMALL`.
///
/// It prints as Detour's status word in hex, as the reference data writes it: `0x40000000`,
/// `0x40000040`, `0x80000008`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Status(u32);

impl Status {
    /// The operation failed (`DT_FAILURE`).
    pub const FAILURE: Status = Status(1 << 31);
    /// The operation succeeded (`DT_SUCCESS`).
    pub const SUCCESS: Status = Status(1 << 30);
    /// The operation is not finished yet (`DT_IN_PROGRESS`).
    pub const IN_PROGRESS: Status = Status(1 << 29);
    /// The bits that hold details (`DT_STATUS_DETAIL_MASK`).
    pub const DETAIL_MASK: u32 = 0x0ff_ffff;
    /// Input data is not recognised (`DT_WRONG_MAGIC`).
    pub const WRONG_MAGIC: Status = Status(1 << 0);
    /// Input data has the wrong version (`DT_WRONG_VERSION`).
    pub const WRONG_VERSION: Status = Status(1 << 1);
    /// The operation ran out of memory (`DT_OUT_OF_MEMORY`).
    pub const OUT_OF_MEMORY: Status = Status(1 << 2);
    /// An input parameter was invalid (`DT_INVALID_PARAM`).
    pub const INVALID_PARAM: Status = Status(1 << 3);
    /// The result buffer was too small for the whole result (`DT_BUFFER_TOO_SMALL`).
    pub const BUFFER_TOO_SMALL: Status = Status(1 << 4);
    /// The search ran out of nodes (`DT_OUT_OF_NODES`).
    pub const OUT_OF_NODES: Status = Status(1 << 5);
    /// The query did not reach its goal and returns the best guess (`DT_PARTIAL_RESULT`).
    pub const PARTIAL_RESULT: Status = Status(1 << 6);
    /// A tile is already at that grid position (`DT_ALREADY_OCCUPIED`).
    pub const ALREADY_OCCUPIED: Status = Status(1 << 7);

    /// The status with raw bits `bits`.
    pub const fn from_bits(bits: u32) -> Status {
        Status(bits)
    }

    /// The raw status word.
    pub const fn bits(self) -> u32 {
        self.0
    }

    /// `dtStatusSucceed`.
    pub const fn is_success(self) -> bool {
        self.0 & Status::SUCCESS.0 != 0
    }

    /// `dtStatusFailed`.
    pub const fn is_failure(self) -> bool {
        self.0 & Status::FAILURE.0 != 0
    }

    /// `dtStatusInProgress`.
    pub const fn is_in_progress(self) -> bool {
        self.0 & Status::IN_PROGRESS.0 != 0
    }

    /// `dtStatusDetail`: whether any bit of `detail` is set.
    pub const fn has_detail(self, detail: Status) -> bool {
        self.0 & detail.0 != 0
    }

    /// Only the detail bits.
    pub const fn details(self) -> Status {
        Status(self.0 & Status::DETAIL_MASK)
    }

    /// The status as a `Result`: `Err` when the query failed, so that `?` hands the failure
    /// on (a success keeps its detail bits, such as `PARTIAL_RESULT`, in the `Ok`).
    ///
    /// ```
    /// use navlab::detour::query::Status;
    /// fn run(status: Status) -> Result<Status, Status> {
    ///     let done = status.ok()?;
    ///     Ok(done)
    /// }
    /// assert!(run(Status::SUCCESS).is_ok());
    /// let failed = Status::FAILURE | Status::INVALID_PARAM;
    /// assert_eq!(run(failed), Err(failed));
    /// ```
    pub fn ok(self) -> Result<Status, Status> {
        if self.is_failure() {
            Err(self)
        } else {
            Ok(self)
        }
    }

    /// `FAILURE | INVALID_PARAM`, the answer to bad input.
    pub(crate) const fn invalid_param() -> Status {
        Status(Status::FAILURE.0 | Status::INVALID_PARAM.0)
    }
}

impl std::ops::BitOr for Status {
    type Output = Status;
    fn bitor(self, rhs: Status) -> Status {
        Status(self.0 | rhs.0)
    }
}

impl std::ops::BitOrAssign for Status {
    fn bitor_assign(&mut self, rhs: Status) {
        self.0 |= rhs.0;
    }
}

impl fmt::LowerHex for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::LowerHex::fmt(&self.0, f)
    }
}

impl fmt::Display for Status {
    /// `0x` and eight lowercase hex digits, as the reference data prints statuses.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:#010x}", self.0)
    }
}

/// A failed status is an error: `?` turns it into a `Box<dyn Error>` or the pipeline's error.
impl std::error::Error for Status {}

impl fmt::Debug for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Status({self})")
    }
}
