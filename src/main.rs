//! The `navlab` binary: everything lives in [`cli`], one file per command.

mod cli;

fn main() -> std::process::ExitCode {
    cli::run()
}
