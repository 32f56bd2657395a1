//! The command line.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(
    name = "keno-server",
    version,
    about = "The central Keno draw and ticketing server"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Work with rule sets: theoretical return, validation, the built-in rules.
    #[command(subcommand)]
    Rules(RulesCommand),
}

#[derive(Debug, Subcommand)]
pub enum RulesCommand {
    /// Print the theoretical return to player of every schedule and spot count.
    Return {
        #[command(flatten)]
        rules: RulesFile,
        /// Also print the exact probability and prize of each catch.
        #[arg(long)]
        catches: bool,
    },
    /// Validate a rule-set file (TOML, or JSON by its .json ending); exits 1 with the reasons
    /// when it is invalid.
    Check {
        /// The rule-set file.
        file: PathBuf,
    },
    /// Print the built-in rule set (the ACT 1992 rules as interpreted) in the file format.
    Show {
        /// Print it as JSON instead of TOML.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Args)]
pub struct RulesFile {
    /// A rule-set file (TOML, or JSON by its .json ending); the built-in rules when absent.
    #[arg(long = "rules", env = "KENO_RULES", value_name = "FILE")]
    pub path: Option<PathBuf>,
}
