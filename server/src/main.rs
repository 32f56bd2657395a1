//! `keno-server`: the central Keno computer (rule 3.1). The program is the library
//! (`lib.rs`); this sets up logging and hands it the parsed command line.

use std::io::IsTerminal;
use std::process::ExitCode;

use clap::Parser;
use tracing_subscriber::EnvFilter;

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            EnvFilter::try_from_env("KENO_LOG").unwrap_or_else(|_| EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .init();
    keno_server::run(keno_server::Cli::parse())
}
