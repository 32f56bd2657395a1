//! The keno writer's terminal (rules 5, 6, 8, 11, 15): selling, checking, paying and
//! cancelling tickets over the server's HTTP API.
//!
//! With no command it opens the full-screen counter (`counter`); the subcommands do the same
//! for scripts, each with `--json`; `--print` sends receipts and slips to ESC/POS printers and
//! PDF (`print`). A writer signs on at this registered terminal (`sign_on`) and the session is
//! kept between commands (`session`); what a writer may not do alone waits for a supervisor's
//! approval given at the counter (`approval`, `ask`).

mod approval;
mod ask;
mod claim;
mod client;
mod counter;
mod entry;
mod forms;
mod order;
mod print;
mod prompt;
mod receipt;
mod session;
mod shift;
mod sign_on;
mod views;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};
use keno_api::games::Game;
use keno_api::set_bets::SetBet;
use keno_api::staff::{OverrideAction, PayRequest};
use keno_api::tickets::{BetRequest, Cancellation, Payment, Schedule, SoldTicket, TicketDetail};
use keno_api::vouchers::{CashOut, IssueRequest, Voucher};
use keno_api::Refusal;
use serde::Serialize;

use ask::{ApprovalArgs, Asks, HandPayArgs};
use client::{CallError, Client, Sale};
use order::{new_request_id, Order};
use receipt::Receipt;

#[derive(Parser)]
#[command(
    name = "writer-terminal",
    version,
    about = "The keno writer's terminal"
)]
struct Cli {
    /// A TOML file with `server`, `credential`, `casino` and `print = [...]`; options given on
    /// the command line or in the environment win over it.
    #[arg(long, env = "KENO_TERMINAL_CONFIG", global = true)]
    config: Option<PathBuf>,
    /// The Keno server [default: http://127.0.0.1:8080].
    #[arg(long, env = "KENO_SERVER", global = true)]
    server: Option<String>,
    /// This registered terminal's credential (`keno-server terminal add`): writers sign on
    /// with it.
    #[arg(
        long,
        env = "KENO_TERMINAL_CREDENTIAL",
        global = true,
        hide_env_values = true
    )]
    credential: Option<String>,
    /// Deprecated (this release only): a writer token of `keno-server principal add`, used
    /// instead of a credential and sign-on.
    #[arg(long, env = "KENO_TOKEN", global = true, hide_env_values = true)]
    token: Option<String>,
    /// Where the session of the writer signed on is kept, readable by its owner only (mode
    /// 0600) [default: $XDG_RUNTIME_DIR/keno-writer-terminal/session.json, or session.json in
    /// the state dir without XDG_RUNTIME_DIR].
    #[arg(long, env = "KENO_TERMINAL_SESSION", global = true)]
    session_file: Option<PathBuf>,
    /// Casino name printed on receipts [default: CASINO].
    #[arg(long, env = "KENO_CASINO", global = true)]
    casino: Option<String>,
    /// Seconds to wait for the server's answer before trying again.
    #[arg(long, env = "KENO_TIMEOUT", default_value_t = 10, global = true)]
    timeout: u64,
    /// Where the last receipt is kept for `reprint` [default:
    /// ~/.local/state/keno-writer-terminal].
    #[arg(long, env = "KENO_TERMINAL_STATE", global = true)]
    state_dir: Option<PathBuf>,
    /// Print the server's JSON instead of the receipt or slip.
    #[arg(long, global = true)]
    json: bool,
    /// Also print the receipt or slip: escpos:tcp://HOST:PORT, escpos:file:PATH or pdf:PATH
    /// (repeat for several).
    #[arg(long = "print", global = true, value_name = "TARGET")]
    print: Vec<print::Target>,
    /// The counter: a folder a document scanner drops entry forms into (rule 5.5(a)); each is
    /// read as it arrives and shown for Enter as a typed sale is, then kept in its `read/`.
    #[arg(long, env = "KENO_SCAN_DIR")]
    scan_dir: Option<PathBuf>,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Sign a writer on at this terminal with staff ID and PIN; the session is kept (see
    /// --session-file) for the commands that follow, until sign-off.
    SignOn {
        #[arg(long)]
        staff_id: String,
        /// The PIN; without it, it is asked without echo (or read from standard input).
        #[arg(long)]
        pin: Option<String>,
    },
    /// Sign off: the session ends at once.
    SignOff,
    /// Who is signed on here, and when the session ends.
    Whoami,
    /// The writer's shift: with no command, the cash so far and what the drawer should hold.
    Shift {
        #[command(subcommand)]
        command: Option<shift::ShiftCommand>,
    },
    /// Sell a ticket and print its receipt.
    Sell(SellArgs),
    /// Show a ticket's games, results and what is payable.
    Check {
        serial: String,
        #[command(flatten)]
        approval: ApprovalArgs,
    },
    /// Pay a winning ticket (once): in cash (by cheque for a major prize), or as a voucher.
    Pay {
        serial: String,
        /// Pay it as a voucher instead (rule 1(n)(ii)); not a major prize (rule 12.2).
        #[arg(long)]
        voucher: bool,
        /// With --voucher: the request id of a try whose outcome is unknown, to find out.
        #[arg(long, requires = "voucher")]
        request_id: Option<String>,
        #[command(flatten)]
        hand_pay: HandPayArgs,
        #[command(flatten)]
        approval: ApprovalArgs,
    },
    /// Vouchers (rule 1(n)): issue one for a cash deposit, check one, cash one out.
    #[command(subcommand)]
    Voucher(VoucherCommand),
    /// Cancel what rule 8 allows of a ticket.
    Cancel {
        serial: String,
        #[command(flatten)]
        approval: ApprovalArgs,
    },
    /// Print the last receipt again, marked REPRINT.
    Reprint,
    /// Sell the last ticket's selections again (a new ticket).
    Replay,
    /// Unclaimed Prize Claim Forms: a ticket over 12 months old, lost or unreadable.
    #[command(subcommand)]
    Claim(claim::ClaimCommand),
    /// The numbers of the last games drawn.
    Results {
        #[arg(long, default_value_t = 10)]
        last: i64,
    },
    /// The entry forms of rule 5.5: print them blank, read a marked one.
    #[command(subcommand)]
    Forms(forms::FormsCommand),
    /// The catalogue of set bets on sale (rule 6.3(h)): `sell --set N` sells one.
    Sets {
        /// Retired sets too.
        #[arg(long)]
        all: bool,
    },
}

#[derive(Subcommand)]
enum VoucherCommand {
    /// Issue a voucher for a cash deposit and print it.
    Issue {
        /// The deposit in dollars: "20", "20.00".
        #[arg(long)]
        amount: String,
        /// The issue's request id: give the id of an issue whose outcome is unknown to find out.
        #[arg(long)]
        request_id: Option<String>,
    },
    /// Show a voucher's balance, spends and how long it is usable (rule 13.1).
    Check { code: String },
    /// Pay a voucher's balance in cash (once) and print the slip. Another site's voucher, or
    /// more than the writer's payout limit, needs a supervisor's approval, asked here.
    Cash {
        code: String,
        #[command(flatten)]
        approval: ApprovalArgs,
    },
}

#[derive(Args)]
struct SellArgs {
    /// The player's numbers: "6,45,36,80".
    #[arg(long, conflicts_with_all = ["quick_pick", "mystery", "groups", "set"])]
    spots: Option<String>,
    /// Quick pick of this many numbers (rule 6.3(b)).
    #[arg(long, conflicts_with_all = ["mystery", "groups", "set"])]
    quick_pick: Option<String>,
    /// Mystery quick pick: the terminal picks how many and which (rule 6.3(c)).
    #[arg(long, conflicts_with_all = ["groups", "set"])]
    mystery: bool,
    /// A way ticket's groups as on the receipt: "6 45-36 80" (rule 5.5(b)).
    #[arg(long, requires = "combine", conflicts_with = "set")]
    groups: Option<String>,
    /// A set bet: the set's number in the catalogue (`sets` lists them; rule 6.3(h)). Its own
    /// numbers, or with --random numbers of the same shape picked by the server.
    #[arg(long)]
    set: Option<i64>,
    /// With --set: random numbers instead of the set's own.
    #[arg(long, requires = "set")]
    random: bool,
    /// How many groups each way combines: "2", "1,3" or "all".
    #[arg(long)]
    combine: Option<String>,
    /// standard, special1, special2, special3 or jackpot.
    #[arg(long, default_value = "standard", value_parser = schedule)]
    schedule: Schedule,
    /// Amount per way in dollars: "3", "3.00", "0.50" (a set bet: the set's suggested amount
    /// when left out).
    #[arg(long)]
    amount: Option<String>,
    /// Consecutive games (50 or more is Keno To Go).
    #[arg(long, default_value_t = 1)]
    games: u32,
    /// The sale's request id: give the id of a sale whose outcome is unknown to find out.
    #[arg(long)]
    request_id: Option<String>,
    /// Paid with a voucher or a winning ticket besides cash (rule 6.1): voucher:CODE,
    /// voucher:CODE:AMOUNT (that much of it) or ticket:SERIAL; repeat for several, in order.
    #[arg(long = "tender", value_name = "TENDER")]
    tender: Vec<String>,
    #[command(flatten)]
    approval: ApprovalArgs,
}

/// What went wrong, and the exit code that tells a script.
enum Failure {
    /// The server said no (exit 1).
    Refused(String),
    /// No answer from the server (exit 3): for a sale, nothing is known.
    Unreachable(String),
    /// The command itself is wrong (exit 2).
    Usage(String),
    /// Done, but a printer failed (exit 4).
    Printer(String),
    /// The server ended the writer's session, in its words (exit 1): sign on again.
    SessionEnded(String),
}

impl From<CallError> for Failure {
    fn from(e: CallError) -> Self {
        match e {
            CallError::Refused { code, message, .. } if code == Refusal::SessionEnded => {
                Failure::SessionEnded(message)
            }
            CallError::Refused { code, message, .. } => {
                Failure::Refused(format!("REFUSED ({code}): {message}"))
            }
            CallError::Network(m) | CallError::NotSent(m) => Failure::Unreachable(m),
        }
    }
}

/// The terminal's configuration file.
#[derive(serde::Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    server: Option<String>,
    /// This registered terminal's credential.
    credential: Option<String>,
    /// Deprecated: a legacy writer token.
    token: Option<String>,
    casino: Option<String>,
    #[serde(default)]
    print: Vec<String>,
}

/// Fills what the command line and environment left out from the configuration file.
fn apply_config(cli: &mut Cli) -> Result<(), Failure> {
    let file = match &cli.config {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| Failure::Usage(format!("{}: {e}", path.display())))?;
            toml::from_str::<ConfigFile>(&text)
                .map_err(|e| Failure::Usage(format!("{}: {e}", path.display())))?
        }
        None => ConfigFile::default(),
    };
    cli.server = cli.server.take().or(file.server);
    cli.credential = cli.credential.take().or(file.credential);
    cli.token = cli.token.take().or(file.token);
    cli.casino = cli.casino.take().or(file.casino);
    if cli.print.is_empty() {
        cli.print = file
            .print
            .iter()
            .map(|t| t.parse().map_err(Failure::Usage))
            .collect::<Result<_, _>>()?;
    }
    Ok(())
}

fn main() -> ExitCode {
    let mut cli = Cli::parse();
    match apply_config(&mut cli).and_then(|()| run(&cli)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            let (message, code) = match failure {
                Failure::Refused(m) => (m, 1),
                Failure::Usage(m) => (format!("writer-terminal: {m}"), 2),
                Failure::Unreachable(m) => (m, 3),
                Failure::Printer(m) => (m, 4),
                Failure::SessionEnded(m) => (
                    format!(
                        "SESSION ENDED: {m}\nSign on again: writer-terminal sign-on --staff-id ID"
                    ),
                    1,
                ),
            };
            eprintln!("{message}");
            ExitCode::from(code)
        }
    }
}

impl Cli {
    fn server(&self) -> &str {
        self.server.as_deref().unwrap_or("http://127.0.0.1:8080")
    }

    fn casino(&self) -> &str {
        self.casino.as_deref().unwrap_or("CASINO")
    }

    fn timeout(&self) -> Duration {
        Duration::from_secs(self.timeout.max(1))
    }
}

fn run(cli: &Cli) -> Result<(), Failure> {
    let Some(command) = &cli.command else {
        return run_counter(cli);
    };
    match command {
        Command::Reprint => return reprint(cli),
        // Paper and images only: no server, no writer.
        Command::Forms(f) => return run_forms(f),
        Command::SignOn { staff_id, pin } => {
            return sign_on::sign_on(cli, staff_id, pin.as_deref())
        }
        _ => {}
    }
    let bearer = sign_on::bearer(cli)?;
    let client = Client::new(cli.server(), bearer.token(), cli.timeout());
    let done = dispatch(cli, &client, &bearer, command);
    // The server ended the session: forgotten here, so the writer signs on again.
    if let (Err(Failure::SessionEnded(_)), sign_on::Bearer::Session(saved)) = (&done, &bearer) {
        let _ = sign_on::session_file(cli).clear(&saved.token);
    }
    done
}

/// The full-screen counter: its sign-on screen when no writer is signed on here.
fn run_counter(cli: &Cli) -> Result<(), Failure> {
    let sessions = sign_on::session_file(cli);
    if cli.credential.is_none() && cli.token.is_none() && sessions.load(cli.server()).is_none() {
        return Err(Failure::Usage(
            "give this terminal's credential (--credential, KENO_TERMINAL_CREDENTIAL or \
             `credential` in the config)"
                .into(),
        ));
    }
    let save = |t: &SoldTicket| save_last(cli, t);
    let last = || load_last(cli);
    counter::run(counter::Settings {
        server: cli.server(),
        credential: cli.credential.as_deref(),
        // A credential wins over a legacy token: the writer signs on.
        token: cli.token.as_deref().filter(|_| cli.credential.is_none()),
        sessions,
        casino: cli.casino(),
        print: &cli.print,
        scan_dir: cli.scan_dir.as_deref(),
        save_last: &save,
        last: &last,
    })
    .map_err(|e| Failure::Unreachable(format!("{e:#}")))
}

fn dispatch(
    cli: &Cli,
    client: &Client,
    bearer: &sign_on::Bearer,
    command: &Command,
) -> Result<(), Failure> {
    match command {
        Command::Sell(args) => sell(cli, client, args),
        Command::Results { last } => results(cli, client, *last),
        Command::Replay => {
            let last = load_last(cli)
                .ok_or_else(|| Failure::Usage("no ticket sold yet on this terminal".into()))?;
            let order = Order::replay(&last.ticket)
                .ok_or_else(|| Failure::Usage("the last ticket cannot be replayed".into()))?;
            sell_order(cli, client, &order, None, &ApprovalArgs::default())
        }
        Command::Sets { all } => sets(cli, client, *all),
        Command::Check { serial, approval } => check(cli, client, serial, approval),
        Command::Claim(c) => claim(cli, client, c),
        Command::Pay {
            serial,
            voucher: false,
            hand_pay,
            approval,
            ..
        } => pay(cli, client, serial, approval, hand_pay),
        Command::Pay {
            serial,
            voucher: true,
            request_id,
            hand_pay,
            approval,
        } => {
            let body = IssueRequest {
                request_id: request_id.clone().unwrap_or_else(new_request_id),
                amount_cents: None,
                ticket: Some(serial_arg(serial)?.to_string()),
                hand_pay: None,
            };
            let asks = Asks {
                approval,
                hand_pay: hand_pay.given(),
                pays: true,
            };
            issue_voucher(cli, client, &body, asks)
        }
        Command::Voucher(v) => voucher(cli, client, v),
        Command::Cancel { serial, approval } => cancel(cli, client, serial, approval),
        Command::SignOff => sign_on::sign_off(cli, bearer),
        Command::Whoami => sign_on::whoami(cli, client, bearer),
        Command::Shift { command } => shift::run(cli, client, command.as_ref()),
        Command::Reprint | Command::SignOn { .. } | Command::Forms(_) => {
            unreachable!("handled in run")
        }
    }
}

/// `results`: the numbers of the last games drawn.
fn results(cli: &Cli, client: &Client, last: i64) -> Result<(), Failure> {
    let open = client
        .get::<Game>("/api/v1/games/current")
        .ok()
        .map(|g| g.number);
    let newest = match open {
        Some(n) => n - 1,
        None => return Err(Failure::Refused("no game is open: Keno is closed".into())),
    };
    let from = (newest - last.max(1) + 1).max(1);
    let games: Vec<Game> = client.get(&format!(
        "/api/v1/games?from={from}&to={}",
        newest.max(from)
    ))?;
    print_or_json(cli, &games, || views::results(&games).join("\n") + "\n");
    Ok(())
}

/// `sets`: the catalogue of set bets.
fn sets(cli: &Cli, client: &Client, all: bool) -> Result<(), Failure> {
    let path = if all {
        "/api/v1/set-bets?include_retired=true"
    } else {
        "/api/v1/set-bets"
    };
    let sets: Vec<SetBet> = client.get(path)?;
    print_or_json(cli, &sets, || views::set_bets(&sets).join("\n") + "\n");
    Ok(())
}

/// `claim ...`: Unclaimed Prize Claim Forms.
fn claim(cli: &Cli, client: &Client, command: &claim::ClaimCommand) -> Result<(), Failure> {
    match claim::run(client, command)? {
        claim::Done::Shown(value, text) => {
            print_or_json(cli, &value, || text);
            Ok(())
        }
        claim::Done::Saved(path) => {
            println!("claim form saved to {}", path.display());
            Ok(())
        }
    }
}

/// `voucher issue|check|cash`.
fn voucher(cli: &Cli, client: &Client, command: &VoucherCommand) -> Result<(), Failure> {
    match command {
        VoucherCommand::Issue { amount, request_id } => {
            let body = IssueRequest {
                request_id: request_id.clone().unwrap_or_else(new_request_id),
                amount_cents: Some(entry::parse_cents(amount).map_err(Failure::Usage)?),
                ticket: None,
                hand_pay: None,
            };
            let none = ApprovalArgs::default();
            let asks = Asks {
                approval: &none,
                hand_pay: None,
                pays: false,
            };
            issue_voucher(cli, client, &body, asks)
        }
        VoucherCommand::Check { code } => {
            let v: Voucher = client.get(&format!("/api/v1/vouchers/{}", voucher_arg(code)?))?;
            print_or_json(cli, &v, || views::voucher(&v).join("\n") + "\n");
            Ok(())
        }
        VoucherCommand::Cash { code, approval } => {
            let code = voucher_arg(code)?;
            let path = format!("/api/v1/vouchers/{code}/cash");
            // One request id for the cash-out, however many tries and approvals it takes.
            let request_id = new_request_id();
            let asks = Asks {
                approval,
                hand_pay: None,
                pays: false,
            };
            let done = ask::attempt(
                client,
                asks,
                on_ticket(OverrideAction::CashOut, code),
                |c, _| c.post_once::<_, CashOut>(&path, &(), &request_id, 5),
            )?;
            let answer = done.result?;
            let (line, rows) = views::cash_out(&answer);
            print_or_json(cli, &answer, || format!("{line}\nVOUCHER {code}\n"));
            let title = "VOUCHER CASHED";
            print_to(cli, title, &receipt::voucher_slip(title, &rows, code))
        }
    }
}

/// The ticket `serial`'s action as a supervisor approves it.
fn on_ticket(
    action: OverrideAction,
    serial: &str,
) -> impl Fn(&str) -> Option<(OverrideAction, String)> + '_ {
    move |_| Some((action, serial.to_string()))
}

/// Pays a ticket and prints its slip; a major prize's hand-pay (the claimant, the identity
/// document, the cheque) is recorded with it and printed on the slip.
fn pay(
    cli: &Cli,
    client: &Client,
    serial: &str,
    approval: &ApprovalArgs,
    hand_pay: &HandPayArgs,
) -> Result<(), Failure> {
    let serial = serial_arg(serial)?;
    let path = format!("/api/v1/tickets/{serial}/pay");
    // One request id for the payment, however many tries and approvals it takes.
    let request_id = new_request_id();
    let asks = Asks {
        approval,
        hand_pay: hand_pay.given(),
        pays: true,
    };
    let done = ask::attempt(
        client,
        asks,
        on_ticket(OverrideAction::Pay, serial),
        |c, hand_pay| {
            let body = PayRequest {
                hand_pay: hand_pay.cloned(),
            };
            c.post_once::<_, Payment>(&path, &body, &request_id, 5)
        },
    )?;
    let paid = done.result?;
    let (line, mut rows) = views::payment(&paid);
    if let Some(h) = &done.hand_pay {
        rows.extend(approval::slip_rows(h));
    }
    print_or_json(cli, &paid, || {
        let extra: Vec<String> = done
            .hand_pay
            .iter()
            .flat_map(approval::slip_rows)
            .map(|(label, value)| format!("{label} {value}"))
            .collect();
        format!("{line}\nTICKET {serial}\n{}", lines(&extra))
    });
    let title = "PAYMENT SLIP";
    print_to(cli, title, &receipt::slip(title, &rows, serial))
}

/// Lines of text, each ended.
fn lines(lines: &[String]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// Cancels what rule 8 allows of a ticket and prints the slip.
fn cancel(
    cli: &Cli,
    client: &Client,
    serial: &str,
    approval: &ApprovalArgs,
) -> Result<(), Failure> {
    let serial = serial_arg(serial)?;
    let path = format!("/api/v1/tickets/{serial}/cancel");
    let request_id = new_request_id();
    let asks = Asks {
        approval,
        hand_pay: None,
        pays: false,
    };
    let answer: Cancellation = ask::attempt(
        client,
        asks,
        on_ticket(OverrideAction::Cancel, serial),
        |c, _| c.post_once(&path, &(), &request_id, 5),
    )?
    .result?;
    let (line, rows) = views::cancellation(&answer);
    print_or_json(cli, &answer, || format!("{line}\nTICKET {serial}\n"));
    let title = "CANCELLATION SLIP";
    print_to(cli, title, &receipt::slip(title, &rows, serial))
}

/// Issues a voucher (a deposit, or a winning ticket paid as one), retried under the same request
/// id until the server answers, and prints it. Another site's ticket waits for a supervisor.
fn issue_voucher(
    cli: &Cli,
    client: &Client,
    body: &IssueRequest,
    asks: Asks,
) -> Result<(), Failure> {
    let request_id = &body.request_id;
    let ticket = body.ticket.clone();
    let done = ask::attempt(
        client,
        asks,
        |_| ticket.clone().map(|t| (OverrideAction::Pay, t)),
        |c, hand_pay| {
            let body = IssueRequest {
                hand_pay: hand_pay.cloned(),
                ..body.clone()
            };
            c.issue_voucher(&body, 5)
        },
    )?;
    let (voucher, retried) = match done.result {
        Ok(Sale::Sold(v)) => (v, false),
        Ok(Sale::AlreadySold(v)) => (v, true),
        Err(CallError::NotSent(m)) => {
            return Err(Failure::Unreachable(format!(
                "NOT ISSUED: {m}. The server was never reached: nothing was issued or paid."
            )))
        }
        Err(CallError::Network(m)) => {
            return Err(Failure::Unreachable(format!(
                "NOT CONFIRMED: {m}.\nThe voucher may or may not be issued. Run the same command \
                 with --request-id {request_id}: if it was issued you get that voucher; if not, \
                 it is issued then."
            )))
        }
        Err(e) => return Err(e.into()),
    };
    let title = "VOUCHER";
    let lines = receipt::voucher(&voucher, cli.casino(), title);
    print_or_json(cli, &voucher, || {
        let note = if retried {
            "ISSUED (found on retry: one voucher, not two)\n"
        } else {
            "ISSUED\n"
        };
        format!("{note}{}", receipt::to_text(&lines))
    });
    print_to(cli, title, &lines)
}

/// A voucher's code as typed or scanned: 22 digits with a check digit.
fn voucher_arg(code: &str) -> Result<&str, Failure> {
    let code = code.trim();
    if keno_core::serial::is_voucher_code(code) {
        Ok(code)
    } else {
        Err(Failure::Usage(format!(
            "{code:?} is not a voucher code (22 digits): check the digits"
        )))
    }
}

/// A serial as typed or scanned (a scanner types it and Enter): digits with a check digit.
fn serial_arg(serial: &str) -> Result<&str, Failure> {
    let serial = serial.trim();
    if keno_core::serial::is_well_formed(serial) {
        Ok(serial)
    } else {
        Err(Failure::Usage(format!(
            "{serial:?} is not a ticket serial number: check the digits"
        )))
    }
}

/// `--json`: the server's answer as it sent it (read and written by the same keno-api type);
/// otherwise the words for the writer.
fn print_or_json(cli: &Cli, value: &impl Serialize, human: impl FnOnce() -> String) {
    if cli.json {
        match serde_json::to_string(value) {
            Ok(json) => println!("{json}"),
            Err(e) => eprintln!("warning: the answer could not be written as JSON ({e})"),
        }
    } else {
        print!("{}", human());
    }
}

/// `--schedule`: a schedule by its name.
fn schedule(name: &str) -> Result<Schedule, String> {
    Schedule::parse(name)
        .ok_or_else(|| format!("{name:?}: give standard, special1, special2, special3 or jackpot"))
}

fn bet(args: &SellArgs) -> Result<BetRequest, Failure> {
    let usage = Failure::Usage;
    if let Some(spots) = &args.spots {
        let spots = entry::parse_spots(spots).map_err(usage)?;
        return Ok(BetRequest::Standard { spots });
    }
    if let Some(count) = &args.quick_pick {
        let count = entry::parse_count(count).map_err(usage)?;
        return Ok(BetRequest::QuickPick { count });
    }
    if args.mystery {
        return Ok(BetRequest::MysteryQuickPick);
    }
    if let Some(set) = args.set {
        return Ok(order::set_bet(set, args.random));
    }
    if let (Some(groups), Some(combine)) = (&args.groups, &args.combine) {
        let groups = entry::parse_groups(groups).map_err(usage)?;
        let combine = entry::parse_combine(combine, groups.len()).map_err(usage)?;
        return Ok(BetRequest::Way { groups, combine });
    }
    Err(Failure::Usage(
        "say what to sell: --spots, --quick-pick, --mystery, --groups with --combine, or --set"
            .into(),
    ))
}

fn sell(cli: &Cli, client: &Client, args: &SellArgs) -> Result<(), Failure> {
    let bet = bet(args)?;
    let amount_cents = match (&args.amount, args.set) {
        (Some(amount), _) => entry::parse_dollars(amount).map_err(Failure::Usage)?,
        // A set bet at the amount its set suggests.
        (None, Some(set)) => {
            let found: SetBet = client.get(&format!("/api/v1/set-bets/{set}"))?;
            u64::try_from(found.amount_per_way_cents)
                .map_err(|_| Failure::Refused(format!("set bet {set} has no suggested amount")))?
        }
        (None, None) => {
            return Err(Failure::Usage(
                "give the amount per way: --amount 3.00".into(),
            ))
        }
    };
    let order = Order {
        bet,
        schedule: args.schedule,
        amount_cents,
        games: args.games,
        tenders: args
            .tender
            .iter()
            .map(|t| entry::parse_tender(t))
            .collect::<Result<_, _>>()
            .map_err(Failure::Usage)?,
        entry_form: None,
    };
    sell_order(cli, client, &order, args.request_id.clone(), &args.approval)
}

fn sell_order(
    cli: &Cli,
    client: &Client,
    order: &Order,
    request_id: Option<String>,
    approval: &ApprovalArgs,
) -> Result<(), Failure> {
    let request_id = request_id.unwrap_or_else(new_request_id);
    let body = order.body(&request_id);
    let asks = Asks {
        approval,
        hand_pay: None,
        pays: false,
    };
    // Another site's ticket tendered waits for a supervisor's approval.
    let tendered = |message: &str| {
        approval::tendered_ticket(&order.tenders, message).map(|t| (OverrideAction::Tender, t))
    };
    // Never sell twice: every attempt carries the same request id.
    let done = ask::attempt(client, asks, tendered, |c, _| c.sell(&body, 5))?;
    let (ticket, retried) = match done.result {
        Ok(Sale::Sold(t)) => (t, false),
        Ok(Sale::AlreadySold(t)) => (t, true),
        Err(CallError::NotSent(m)) => {
            return Err(Failure::Unreachable(format!(
                "NOT SOLD: {m}. The server was never reached: nothing was sold."
            )))
        }
        Err(CallError::Network(m)) => {
            return Err(Failure::Unreachable(format!(
                "NOT CONFIRMED: {m}.\nThe ticket may or may not be sold. Do not sell it again \
                 under a new id: run the same sale with --request-id {request_id}. If it was sold \
                 you get that ticket; if not, it is sold then."
            )))
        }
        Err(e) => return Err(e.into()),
    };
    save_last(cli, &ticket);
    let receipt = Receipt::from_ticket(&ticket.ticket, &ticket.payment, cli.casino());
    print_or_json(cli, &ticket, || {
        let note = if retried {
            "SOLD (found on retry: one ticket, not two)\n"
        } else {
            "SOLD\n"
        };
        let paid = views::sale_payment(&ticket.payment);
        let paid = if paid.is_empty() {
            String::new()
        } else {
            paid.join("\n") + "\n"
        };
        format!("{note}{}{paid}", receipt.to_text())
    });
    let mut docs = vec![("RECEIPT TICKET", receipt.lines())];
    // The change of a winning ticket tendered, as a voucher for the player.
    if let Some(code) = &ticket.payment.change_voucher {
        match client.get::<Voucher>(&format!("/api/v1/vouchers/{code}")) {
            Ok(v) => docs.push(("VOUCHER", receipt::voucher(&v, cli.casino(), "VOUCHER"))),
            Err(e) => eprintln!(
                "warning: the change voucher {code} was not printed ({e}); its code is on the receipt (PAID BY), and `writer-terminal voucher check {code}` shows it"
            ),
        }
    }
    print_docs_to(cli, &docs)
}

/// Prints to every `--print` target. The action it records is done whatever happens here: a
/// printer failure says so, and `reprint` prints again.
fn print_to(cli: &Cli, title: &str, lines: &[receipt::Line]) -> Result<(), Failure> {
    print_docs_to(cli, &[(title, lines.to_vec())])
}

/// As [`print_to`], several documents (a receipt and its change voucher) one after the other.
fn print_docs_to(cli: &Cli, docs: &[(&str, Vec<receipt::Line>)]) -> Result<(), Failure> {
    let Some((title, _)) = docs.first() else {
        return Ok(());
    };
    let pages: Vec<&[receipt::Line]> = docs.iter().map(|(_, lines)| lines.as_slice()).collect();
    let failed: Vec<String> = cli
        .print
        .iter()
        .filter_map(|target| {
            print::print_docs(target, title, &pages)
                .err()
                .map(|e| format!("{e:#}"))
        })
        .collect();
    if failed.is_empty() {
        Ok(())
    } else {
        Err(Failure::Printer(format!(
            "DONE, BUT NOT PRINTED: {}. Print it again with `writer-terminal reprint --print ...`.",
            failed.join("; ")
        )))
    }
}

fn check(cli: &Cli, client: &Client, serial: &str, approval: &ApprovalArgs) -> Result<(), Failure> {
    let serial = serial_arg(serial)?;
    let path = format!("/api/v1/tickets/{serial}");
    let asks = Asks {
        approval,
        hand_pay: None,
        pays: false,
    };
    let t: TicketDetail = ask::attempt(
        client,
        asks,
        on_ticket(OverrideAction::Check, serial),
        |c, _| c.get(&path),
    )?
    .result?;
    print_or_json(cli, &t, || views::ticket(&t).join("\n") + "\n");
    Ok(())
}

fn state_dir(cli: &Cli) -> PathBuf {
    cli.state_dir.clone().unwrap_or_else(|| {
        std::env::var_os("HOME")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("."))
            .join(".local/state/keno-writer-terminal")
    })
}

/// Keeps the last receipt for `reprint`. A failure only costs the reprint, not the sale.
fn save_last(cli: &Cli, ticket: &SoldTicket) {
    let dir = state_dir(cli);
    let json = serde_json::to_string(ticket).map_err(std::io::Error::other);
    if let Err(e) = std::fs::create_dir_all(&dir)
        .and_then(|()| std::fs::write(dir.join("last-ticket.json"), json?))
    {
        eprintln!("warning: the receipt was not kept for reprint ({e})");
    }
}

/// The last ticket this terminal sold, for `reprint` and replay.
fn load_last(cli: &Cli) -> Option<SoldTicket> {
    let text = std::fs::read_to_string(state_dir(cli).join("last-ticket.json")).ok()?;
    serde_json::from_str(&text).ok()
}

fn reprint(cli: &Cli) -> Result<(), Failure> {
    let saved = load_last(cli)
        .ok_or_else(|| Failure::Usage("no receipt printed yet on this terminal".into()))?;
    // The server's record now, so a ticket cancelled or paid since says so; the saved copy if
    // the server cannot be asked.
    let now = sign_on::bearer(cli).ok().and_then(|bearer| {
        Client::new(cli.server(), bearer.token(), cli.timeout())
            .get::<TicketDetail>(&format!("/api/v1/tickets/{}", saved.ticket.serial))
            .ok()
    });
    // With the server's record, the games cancelled or invalidated since are listed.
    let mut receipt = match &now {
        Some(d) => Receipt::from_detail(d, cli.casino()),
        None => Receipt::from_ticket(&saved.ticket, &saved.payment, cli.casino()),
    };
    receipt.reprint = true;
    match &now {
        Some(d) => print_or_json(cli, d, || receipt.to_text()),
        None => print_or_json(cli, &saved, || receipt.to_text()),
    }
    print_to(cli, "RECEIPT TICKET (REPRINT)", &receipt.lines())
}

fn run_forms(command: &forms::FormsCommand) -> Result<(), Failure> {
    match command {
        forms::FormsCommand::Print { diagram, out } => {
            let form = match diagram {
                forms::Diagram::A => keno_forms::diagram_a(),
                forms::Diagram::B => keno_forms::diagram_b(),
            };
            std::fs::write(out, keno_forms::pdf::render(&form))
                .map_err(|e| Failure::Usage(format!("{}: {e}", out.display())))?;
            println!(
                "{}: the {}, A5 (148 x 210 mm), version {}",
                out.display(),
                form.id.name(),
                form.version
            );
            Ok(())
        }
        forms::FormsCommand::Read { file, json, rules } => read_form(file, *json, rules.as_deref()),
    }
}

/// `forms read`: the sale a form chooses, or exit 2 naming what is wrong with it.
fn read_form(
    file: &std::path::Path,
    json: bool,
    rules: Option<&std::path::Path>,
) -> Result<(), Failure> {
    let rules = match rules {
        None => keno_core::rules::RuleSet::act_1992(),
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| Failure::Usage(format!("{}: {e}", path.display())))?;
            keno_core::rules::RuleSet::from_toml_str(&text)
                .map_err(|e| Failure::Usage(format!("{}: {e}", path.display())))?
        }
    };
    let scanned =
        forms::scan(file).and_then(|s| forms::check_rules(&s, &rules).map(|total| (s, total)));
    let (scanned, total_cents) = match scanned {
        Ok(read) => read,
        Err(e) => {
            if json {
                let why = match &e {
                    forms::ScanError::Refused(r) => {
                        serde_json::json!({"refused": r.problems, "message": r.to_string()})
                    }
                    other => serde_json::json!({"refused": [], "message": other.to_string()}),
                };
                println!("{why}");
            }
            return Err(Failure::Usage(format!("{}: {e}", file.display())));
        }
    };
    let o = &scanned.order;
    let bet = forms::ReadBet {
        form: keno_forms::FormId::MarkSense,
        spots: &scanned.choice.numbers,
        schedule: o.schedule,
        games: o.games,
        amount_per_way_cents: o.amount_cents,
        total_cents,
        sha256: &scanned.sha256,
    };
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&bet).map_err(|e| Failure::Usage(e.to_string()))?
        );
        return Ok(());
    }
    let numbers: Vec<String> = bet.spots.iter().map(|n| format!("{n:02}")).collect();
    println!(
        "Mark Sense Entry Form (Diagram A), read from {}",
        file.display()
    );
    println!(
        "NUMBERS   {} ({} spots)",
        numbers.join(" "),
        bet.spots.len()
    );
    println!("SCHEDULE  {}", receipt::schedule_name(o.schedule));
    println!("GAMES     {}", o.games);
    println!("AMOUNT    {} a game", keno_core::Dollars(o.amount_cents));
    println!("TOTAL     {}", keno_core::Dollars(total_cents));
    println!("TYPED AS  {}", scanned.typed);
    println!("FORM      sha256 {}", scanned.sha256);
    Ok(())
}
