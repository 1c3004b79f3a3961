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
    cli::run()
}
