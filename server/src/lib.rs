//! `keno-server`: the central Keno computer (rule 3.1), as a library: every module, and
//! [`run`], which carries out a parsed command line. The `keno-server` binary (`main.rs`) only
//! sets up logging, parses its arguments into a [`Cli`] and calls [`run`].
//!
//! Nothing else is public: the tests and tools drive the server as a process (the command line
//! and HTTP), and the modules stay crate-private so that the compiler still reports code
//! nothing uses.

mod api;
mod approvals;
mod assets;
mod audit;
mod auth;
mod ball_draw;
mod body_limits;
mod bonus;
mod bonus_fund;
mod claims;
mod cli;
mod clock;
mod closures;
mod console;
mod db;
mod device;
mod display;
mod displays;
mod draw_monitor;
mod draw_rng;
mod error;
mod events;
mod failure;
mod faults;
mod game_summary;
mod games;
mod incidents;
mod integrity;
mod invalidation;
mod jackpots;
mod keno_day;
mod leader;
mod liability;
mod lifecycle;
mod limits_doc;
mod paging;
mod private_files;
mod rate_limit;
mod reason;
mod request_ids;
mod rng_check;
mod rng_cmd;
mod routes;
mod rule_sets;
mod rules_cmd;
mod sale_rng;
mod schedules;
mod serve;
mod set_bets;
mod settlement;
mod shifts;
mod single_flight;
mod special3;
mod staff;
mod state;
mod store;
mod suspension;
mod tickets;
mod time;
mod vouchers;
mod wall_clock_watch;

use std::process::ExitCode;

pub use cli::Cli;

/// Carries out a command (`serve` when none is given); the exit code is the process's: 0, or
/// a command's own (`rules check`, `audit verify`, `rng test`), or 2 after printing an error.
pub fn run(cli: Cli) -> ExitCode {
    let result = match cli
        .command
        .unwrap_or(cli::Command::Serve(Box::new(cli.serve)))
    {
        cli::Command::Rules(rules) => rules_cmd::run(rules),
        cli::Command::Device(cmd) => device::run(cmd),
        cli::Command::Audit(cmd) => audit::run(cmd),
        cli::Command::Rng(cmd) => rng_cmd::run(cmd),
        cli::Command::Integrity(args) => integrity::cli::run(args),
        cli::Command::Serve(args) => serve::run(*args).map(|()| ExitCode::SUCCESS),
        cli::Command::Principal(cmd) => principal(cmd).map(|()| ExitCode::SUCCESS),
        cli::Command::Staff(cmd) => staff::cli::run_staff(cmd).map(|()| ExitCode::SUCCESS),
        cli::Command::Terminal(cmd) => staff::cli::run_terminal(cmd).map(|()| ExitCode::SUCCESS),
        cli::Command::Display(cmd) => displays::cli::run(cmd).map(|()| ExitCode::SUCCESS),
        cli::Command::Openapi => {
            print!("{}", api::openapi_json());
            Ok(ExitCode::SUCCESS)
        }
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("keno-server: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn principal(cmd: cli::PrincipalCommand) -> anyhow::Result<()> {
    let cli::PrincipalCommand::Add {
        role,
        name,
        site,
        terminal,
        database_url,
    } = cmd;
    anyhow::ensure!(
        role != auth::Role::Administrator,
        "an administrator signs on as staff: `keno-server staff add --role administrator`"
    );
    if role != auth::Role::Device {
        eprintln!(
            "keno-server: deprecated: a person's bearer token works for this release only; \
             add people with `keno-server staff add`, who sign on (README, \"Running the room\")"
        );
    }
    let db = db::Db::open(&database_url, 1)?;
    let mut conn = db.conn()?;
    let (id, token) =
        auth::add_principal(&mut conn, role, &name, site.as_deref(), terminal.as_deref())?;
    println!(
        "added {} {name:?} (id {id}); its token, shown once:",
        role.as_str()
    );
    println!("{token}");
    Ok(())
}
