//! The command line.

use std::path::PathBuf;

use clap::builder::TypedValueParser;
use clap::{Args, Parser, Subcommand};

use crate::auth::Role;

#[derive(Debug, Parser)]
#[command(
    name = "keno-server",
    version,
    about = "The central Keno draw and ticketing server"
)]
#[command(args_conflicts_with_subcommands = true)]
pub struct Cli {
    /// Without a command: `serve`.
    #[command(subcommand)]
    pub(crate) command: Option<Command>,
    #[command(flatten)]
    pub(crate) serve: ServeArgs,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the server: the game clock, the draw, sales, settlement and payment.
    Serve(Box<ServeArgs>),
    /// Bearer tokens: a device's credential. For people, deprecated (kept one release so a
    /// running venue can move over): add staff, who sign on, with `staff add`.
    #[command(subcommand)]
    Principal(PrincipalCommand),
    /// People who sign on: writers (PIN), supervisors, inspectors and auditors (password and
    /// TOTP code).
    #[command(subcommand)]
    Staff(crate::staff::cli::StaffCommand),
    /// Registered writer terminals and their credentials (rule 5.1).
    #[command(subcommand)]
    Terminal(crate::staff::cli::TerminalCommand),
    /// Registered displays: a venue's boards, whose event streams come before anonymous ones.
    #[command(subcommand)]
    Display(crate::displays::cli::DisplayCommand),
    /// Work with rule sets: theoretical return, validation, the built-in rules.
    #[command(subcommand)]
    Rules(RulesCommand),
    /// Talk to a running server as a ball device, or draw by hand at a console (rule 10).
    #[command(subcommand)]
    Device(crate::device::DeviceCommand),
    /// Tools for auditors, reading the database directly and writing nothing to it: verify the
    /// tamper-evident audit trail, exports, the daily report (PDF) and the day's exceptions.
    #[command(subcommand)]
    Audit(crate::audit::AuditCommand),
    /// Evidence for a testing laboratory: dump draws made by the production draw, and test
    /// them (or a dump file) statistically.
    #[command(subcommand)]
    Rng(crate::rng_cmd::RngCommand),
    /// The components of this software (the binary, its pages and migrations, the rule set)
    /// with their SHA-256 and, given a seed, HMAC-SHA256: for an inspector to check against the
    /// approved release. `integrity approve` writes the signed manifest `serve
    /// --approved-manifest` checks against.
    Integrity(crate::integrity::cli::IntegrityArgs),
    /// Print the OpenAPI document of the HTTP API (checked in as schemas/openapi.json).
    Openapi,
}

pub use crate::db::DEFAULT_DATABASE;

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address to listen on (port 0: any free port, printed at start).
    #[arg(long, env = "KENO_LISTEN", default_value = "127.0.0.1:8080")]
    pub listen: String,
    /// sqlite://PATH (created and migrated on first start) or postgres://...
    #[arg(long, env = "KENO_DATABASE_URL", default_value = DEFAULT_DATABASE)]
    pub database_url: String,
    /// Where the numbers come from (rule 3.2).
    #[arg(long, env = "KENO_DRAW_SOURCE", value_enum, default_value = "rng")]
    pub draw_source: DrawSourceArg,
    /// Seconds a game is open for sale.
    #[arg(long, env = "KENO_GAME_INTERVAL", default_value_t = 180.0)]
    pub game_interval: f64,
    /// Seconds between two drawn numbers on the displays (0 for none).
    #[arg(long, env = "KENO_REVEAL_INTERVAL", default_value_t = 1.0)]
    pub reveal_interval: f64,
    /// Seconds a ball draw stays open to correction after its 20th ball before it is settled
    /// (rule 10.1): time to compare the balls with the numbers shown. A correction asked in
    /// that time holds settlement until it is approved or rejected.
    #[arg(long, env = "KENO_BALL_CHECK", default_value_t = 15.0)]
    pub ball_check: f64,
    /// Seconds of notice players must have of an early closure of Keno (rule 16.2): a closure
    /// can be scheduled no sooner than this from now, and the displays and counters show it
    /// from the moment it is scheduled.
    #[arg(long, env = "KENO_CLOSURE_NOTICE", default_value_t = 900.0)]
    pub closure_notice: f64,
    /// Seconds without a request after which a person's session ends.
    #[arg(long, env = "KENO_SESSION_IDLE", default_value_t = 900.0)]
    pub session_idle: f64,
    /// Failed sign-ons in a row after which a staff ID is locked at the place they were tried
    /// (the registered terminal, or else the client's address).
    #[arg(long, env = "KENO_SIGN_ON_FAILURES", default_value_t = 5)]
    pub sign_on_failures: u32,
    /// Seconds a staff ID stays locked there after too many failed sign-ons (a supervisor's
    /// reset or enable clears it sooner).
    #[arg(long, env = "KENO_SIGN_ON_LOCK", default_value_t = 900.0)]
    pub sign_on_lock: f64,
    /// Sign-on secrets checked at once (argon2id takes 19 MiB and tens of milliseconds each):
    /// what bounds the memory and processor sign-on can take.
    #[arg(long, env = "KENO_SIGN_ON_CHECKS", default_value_t = 2)]
    pub sign_on_checks: usize,
    /// Sign-ons that may wait for a check; one more is refused at once with 429.
    #[arg(long, env = "KENO_SIGN_ON_QUEUE", default_value_t = 32)]
    pub sign_on_queue: usize,
    /// Seconds between the records of failed sign-ons for staff IDs that do not exist: they
    /// are counted and entered in the trail as one tally, not one entry each.
    #[arg(long, env = "KENO_SIGN_ON_TALLY_INTERVAL", default_value_t = 60.0)]
    pub sign_on_tally_interval: f64,
    /// The most one ticket may stand to win in one game, in cents (its ways' largest prizes
    /// after the per-way cap and pro-rating); a sale over it is refused. Unset: no limit.
    #[arg(long, env = "KENO_TICKET_POTENTIAL_LIMIT")]
    pub ticket_potential_limit: Option<u64>,
    /// The most the open game's expected payout may reach, in cents; a sale that would take
    /// it higher is refused. Unset: no limit.
    #[arg(long, env = "KENO_GAME_EXPECTED_PAYOUT_LIMIT")]
    pub game_expected_payout_limit: Option<u64>,
    /// The most the ways including any one number may stake in the open game, in cents; a sale
    /// that would take a number higher is refused. Unset: no limit.
    #[arg(long, env = "KENO_NUMBER_STAKE_LIMIT")]
    pub number_stake_limit: Option<u64>,
    /// The most event streams (`GET /api/v1/events`, one per display) open at once; one more
    /// is refused with 503 and `Retry-After` (`too_many_streams`).
    #[arg(long, env = "KENO_EVENT_STREAMS", default_value_t = 4000)]
    pub event_streams: usize,
    /// The most event streams open at once from one address (a venue's displays behind one
    /// NAT share an address).
    #[arg(long, env = "KENO_EVENT_STREAMS_PER_ADDRESS", default_value_t = 500)]
    pub event_streams_per_address: usize,
    /// Seconds between catch-ups of the open game's live liability with the sales made
    /// since; 0: only when the liability is asked for (or a game limit needs it).
    #[arg(long, env = "KENO_LIABILITY_INTERVAL", default_value_t = 1.0)]
    pub liability_interval: f64,
    /// The most a writer pays on one ticket alone, in cents; above it a supervisor approves.
    #[arg(long, env = "KENO_WRITER_PAYOUT_LIMIT", default_value_t = 199_999)]
    pub writer_payout_limit: u64,
    /// Whether a writer sells, cancels, pays and handles vouchers only with their shift open at
    /// the terminal (`true`, the default: every cent is in a drawer a count closes); `false`
    /// for a venue that keeps no drawer per writer.
    #[arg(long, env = "KENO_CASH_NEEDS_SHIFT", default_value_t = true, action = clap::ArgAction::Set)]
    pub cash_needs_shift: bool,
    /// Settled games of each draw source and device that draw monitoring's tests look at: the
    /// last N (1 or more). A test failing at 99.9% over them raises an alarm.
    #[arg(long, env = "KENO_MONITOR_GAMES", default_value = "500")]
    pub monitor_games: std::num::NonZeroUsize,
    /// The Ed25519 key that signs the audit trail's checkpoints, kept outside the database:
    /// made (mode 0600) on first start if absent. Every instance of one database uses the same.
    #[arg(long, env = "KENO_AUDIT_KEY", default_value = "data/keno-audit.key")]
    pub audit_key: std::path::PathBuf,
    /// The file every checkpoint is appended to, outside the database: point it at write-once
    /// or off-host storage (`audit verify --checkpoints` reads it).
    #[arg(
        long,
        env = "KENO_CHECKPOINTS",
        default_value = "data/keno-checkpoints.jsonl"
    )]
    pub checkpoints: std::path::PathBuf,
    /// Seconds at most from a write to the checkpoint that signs it, while anything is written
    /// (checkpoints are also made at every settlement, at the end of every Keno Day, and as the
    /// server starts and stops). What a crash can lose unseen is at most this much of the last
    /// writes (issue 33).
    #[arg(long, env = "KENO_CHECKPOINT_INTERVAL", default_value_t = 1.0)]
    pub checkpoint_interval: f64,
    /// The approved manifest (`keno-server integrity approve`): the software and the rule set
    /// are checked against it at start (a difference refuses to start) and every
    /// --integrity-interval (a difference suspends the system). Needs --manifest-public-key.
    #[arg(long, env = "KENO_APPROVED_MANIFEST", value_name = "FILE")]
    pub approved_manifest: Option<PathBuf>,
    /// The public key the approved manifest must be signed by (64 hex digits, or a file).
    #[arg(long, env = "KENO_MANIFEST_PUBLIC_KEY", value_name = "KEY")]
    pub manifest_public_key: Option<String>,
    /// Seconds between two checks of the software against the approved manifest.
    #[arg(long, env = "KENO_INTEGRITY_INTERVAL", default_value_t = 300.0)]
    pub integrity_interval: f64,
    /// Seconds a game may stay closed and undrawn before the draw mechanism is taken to have
    /// failed and the system is suspended (a ball draw's balls and its check included).
    #[arg(long, env = "KENO_UNDRAWN_LIMIT", default_value_t = 600.0)]
    pub undrawn_limit: f64,
    /// Seconds without a failure of the same kind (the database, a commit of unknown outcome,
    /// the drawer, a request failed inside) before its episode is over and recorded as ended.
    #[arg(long, env = "KENO_INCIDENT_QUIET", default_value_t = 60.0)]
    pub incident_quiet: f64,
    /// Cents a writer's drawer may be over or short at the close of a shift before a
    /// supervisor must sign the shift off (0: any difference needs a sign-off).
    #[arg(long, env = "KENO_OVER_SHORT_TOLERANCE", default_value_t = 0)]
    pub over_short_tolerance: u64,
    /// Public ticket checks allowed per client address and minute (after a burst of 10).
    #[arg(long, env = "KENO_CHECK_RATE", default_value_t = 30)]
    pub check_rate: u32,
    /// Requests with a bad bearer token allowed per client address and minute, after a burst
    /// of --auth-failure-burst; then the address is refused (429) until it has waited.
    #[arg(long, env = "KENO_AUTH_FAILURE_RATE", default_value_t = 10)]
    pub auth_failure_rate: u32,
    /// Requests with a bad bearer token a client address may make at once.
    #[arg(long, env = "KENO_AUTH_FAILURE_BURST", default_value_t = 30)]
    pub auth_failure_burst: u32,
    /// Key the per-address limits on the last address of X-Forwarded-For, as set by the one
    /// reverse proxy in front of the server. Only behind such a proxy, and only when the server
    /// cannot be reached except through it: otherwise anyone can name any address.
    #[arg(long, env = "KENO_TRUST_FORWARDED_FOR")]
    pub trust_forwarded_for: bool,
    /// Start of Keno gaming each day, local time (rule 16.1).
    #[arg(long, env = "KENO_DAY_START", default_value = "10:00")]
    pub keno_day_start: String,
    /// End of Keno gaming, local time; before the start means the next morning; equal to the
    /// start means all day.
    #[arg(long, env = "KENO_DAY_END", default_value = "02:00")]
    pub keno_day_end: String,
    #[command(flatten)]
    pub rules: RulesFile,
    /// Database connections in the pool.
    #[arg(long, env = "KENO_POOL_SIZE", default_value_t = 16)]
    pub pool_size: u32,
    /// Threads committing sales (default 1). On PostgreSQL more than one overlaps batches on a
    /// machine with cores to spare; on a 2-core machine one makes larger batches and sells more.
    #[arg(long, env = "KENO_SALE_WRITERS")]
    pub sale_writers: Option<usize>,
    /// HTTP worker threads.
    #[arg(long, env = "KENO_WORKERS", default_value_t = 2)]
    pub workers: usize,
    /// How long the leader's lease lasts, in seconds: a standby takes over from a leader that
    /// has not renewed it for this long (one whose process died is replaced at once).
    #[arg(long, env = "KENO_LEADER_LEASE", default_value_t = 10.0)]
    pub leader_lease: f64,
    /// The name of this instance in the leadership record and its database sessions (default:
    /// the process id and random bits).
    #[arg(long, env = "KENO_INSTANCE")]
    pub instance: Option<String>,
}

#[derive(Debug, Subcommand)]
pub enum PrincipalCommand {
    /// Create a principal; prints its token as the last line (shown once, stored hashed).
    Add {
        #[arg(long, value_parser = role_parser())]
        role: Role,
        /// The operator's name (for a writer, printed on receipts).
        #[arg(long)]
        name: String,
        /// A writer's site.
        #[arg(long)]
        site: Option<String>,
        /// A writer's terminal.
        #[arg(long)]
        terminal: Option<String>,
        #[arg(long, env = "KENO_DATABASE_URL", default_value = DEFAULT_DATABASE)]
        database_url: String,
    },
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

/// `--draw-source`: where the numbers come from, as typed on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum DrawSourceArg {
    Rng,
    BallDevice,
}

impl From<DrawSourceArg> for keno_core::DrawSource {
    fn from(arg: DrawSourceArg) -> Self {
        match arg {
            DrawSourceArg::Rng => keno_core::DrawSource::Rng,
            DrawSourceArg::BallDevice => keno_core::DrawSource::BallDevice,
        }
    }
}

/// `--role`: one of the roles' names, listed in the help as a `value_enum` would list them (the
/// role is keno-api's, which knows nothing of clap).
pub fn role_parser() -> impl TypedValueParser<Value = Role> {
    clap::builder::PossibleValuesParser::new(Role::ALL.iter().map(|r| r.as_str()))
        .map(|name: String| Role::parse(&name).expect("a role's own name"))
}
