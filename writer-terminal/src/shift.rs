//! The writer's shift from the command line (Nebraska 316-35-615: writer check-out with
//! over/short): opened with the float in the drawer, closed with the cash counted. The server
//! works out what the drawer should hold from the counter's own records; the terminal shows it.

use clap::Subcommand;
use keno_api::staff::{CloseShift, OpenShift, Shift};

use crate::client::Client;
use crate::{entry, print_or_json, views, Cli, Failure};

#[derive(Subcommand)]
pub enum ShiftCommand {
    /// Open a shift at this terminal with the float (bank) in the drawer.
    Open {
        /// The float in dollars: "500", "500.00".
        #[arg(long, value_name = "DOLLARS")]
        float: String,
    },
    /// Close the shift with the cash counted in the drawer: the over/short is recorded (beyond
    /// the venue's tolerance a supervisor signs it off).
    Close {
        /// The cash counted in dollars.
        #[arg(long, value_name = "DOLLARS")]
        counted: String,
    },
}

/// `shift [open|close]`: the shift as the server answers it.
pub fn run(cli: &Cli, client: &Client, command: Option<&ShiftCommand>) -> Result<(), Failure> {
    let dollars = |text: &str| entry::parse_cents(text).map_err(Failure::Usage);
    let shift: Shift = match command {
        None => client.get("/api/v1/shifts/current")?,
        Some(ShiftCommand::Open { float }) => client.post(
            "/api/v1/shifts",
            &OpenShift {
                float_cents: dollars(float)?,
            },
        )?,
        Some(ShiftCommand::Close { counted }) => client.post(
            "/api/v1/shifts/current/close",
            &CloseShift {
                counted_cents: dollars(counted)?,
            },
        )?,
    };
    print_or_json(cli, &shift, || views::shift(&shift).join("\n") + "\n");
    Ok(())
}
