//! The `navlab` binary: everything lives in [`cli`], one file per command.

mod cli;

fn main() -> std::process::ExitCode {
    // Rust ignores SIGPIPE, which turns a closed pipe (`navlab test … | head`) into a panic in
    // `println!`; the default action ends the process quietly, as command-line tools do.
    #[cfg(unix)]
    // SAFETY: setting a signal's disposition to the default before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    // A file-size limit (`ulimit -f`) kills the process by default; ignored, the write that
    // passes it fails with an error instead, which the atomic writer reports after leaving the
    // old file whole.
    #[cfg(unix)]
    // SAFETY: as above.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
    cli::run()
}
