//! `keno-server`: the central Keno computer (rule 3.1).
//!
//! For now it is the command line for the rule set only: the draw server (`serve`) comes with
//! issue 4.

mod cli;
mod rules_cmd;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    let result = match cli.command {
        cli::Command::Rules(rules) => rules_cmd::run(rules),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("keno-server: {e:#}");
            ExitCode::from(2)
        }
    }
}
