//! `keno-server device ...`: programs that talk to a running server as a ball device does: a
//! simulator of a ball machine (for demos and tests) and a supervisor's console for drawing by
//! hand, reporting faults, correcting numbers and returning devices to service (rule 10).

mod client;
mod console;
mod simulate;

use clap::{Args, Subcommand};

#[derive(Debug, Subcommand)]
pub enum DeviceCommand {
    /// Simulate a ball-drawing device: draws each game awaiting a draw at a realistic pace and
    /// can inject each fault of rule 10.
    Simulate(simulate::SimulateArgs),
    /// A supervisor's or inspector's console: enter balls drawn by hand, report faults, correct
    /// numbers, approve, return devices to service. Reads commands from standard input.
    Console(console::ConsoleArgs),
}

/// Where the server is and who is calling.
#[derive(Debug, Args)]
pub struct Connection {
    /// The server's base URL.
    #[arg(long, env = "KENO_SERVER", default_value = "http://127.0.0.1:8080")]
    pub server: String,
    /// The principal's bearer token.
    #[arg(long, env = "KENO_TOKEN", hide_env_values = true)]
    pub token: String,
}

pub fn run(command: DeviceCommand) -> anyhow::Result<std::process::ExitCode> {
    match command {
        DeviceCommand::Simulate(args) => simulate::run(args),
        DeviceCommand::Console(args) => console::run(args),
    }
}
