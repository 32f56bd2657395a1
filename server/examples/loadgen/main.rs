//! Load generator and settlement benchmark for `keno-server` (issue 4).
//!
//! It starts a real server on the given database, adds one writer per terminal, and:
//! 1. sells tickets over HTTP from C concurrent terminals for T seconds, then prints tickets/s
//!    and latency percentiles;
//! 2. with `--settle-tickets N`, fills one game with N way tickets of 10 ways each, closes it,
//!    and prints the time from the 20th number to `game_settled` (from the event stream).
//!
//! ```sh
//! cargo build --release -p keno-server --examples
//! target/release/examples/loadgen --terminals 16 --seconds 10                 # SQLite in a temp dir
//! target/release/examples/loadgen --database-url postgres://postgres@127.0.0.1:5432/keno_load
//! target/release/examples/loadgen --seconds 0 --settle-tickets 100000         # 1,000,000 ways
//! ```
//! The PostgreSQL database must exist and may hold earlier runs' data.
//!
//! The rush before a close (issue 21): `--burst` waits for the open game's last 5 seconds,
//! every terminal sells as fast as it can until a second past its close, and it prints the
//! sales that made the game, those sent on to the next game, those refused for the close and
//! those that failed, each apart (`burst`):
//!
//! ```sh
//! target/release/examples/loadgen --seconds 0 --burst --game-interval 12
//! ```
//!
//! A storm of sign-ons (issue 31): `--sign-on-storm 400` keeps 400 clients trying to sign on
//! for staff IDs that do not exist, at a registered terminal, through the sales, and prints
//! their answers and the server's peak memory beside the writers' latencies:
//!
//! ```sh
//! target/release/examples/loadgen --terminals 16 --seconds 20 --sign-on-storm 400
//! ```
//!
//! The floor under a sale (issue 37): `--quote` sends the same requests at the same rate to
//! `POST /api/v1/tickets/quote`, which authenticates, parses and prices each as a sale does but
//! takes no writer's turn and, for a cash sale, reads no database. The processor a quote takes
//! is what a sale costs before it is sold; a sale's figure less a quote's is the cost of
//! selling it:
//!
//! ```sh
//! target/release/examples/loadgen --terminals 64 --rate 2000 --seconds 15 --quote
//! ```
//!
//! Several instances (issue 9): `--instances 2` starts two servers on the same PostgreSQL
//! database and spreads the terminals over them. The soak run sells at a steady rate with a
//! game drawn every 30 s and prints, at the end, sales/s, latency, settlement times and the
//! invariants of the fault harness (`keno_testkit::invariants`), read from the database:
//!
//! ```sh
//! target/release/examples/loadgen --database-url postgres://postgres@127.0.0.1:5432/keno_soak \
//!     --instances 2 --terminals 8 --rate 100 --seconds 600 --game-interval 30 --soak
//! ```

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

mod burst;
mod cpu;
mod displays;
mod storm;

use clap::Parser;
use keno_api::tickets::{BetRequest, SaleRequest, Schedule};
use keno_testkit::{
    add_principal, free_port, invariants, random_hex, server_bin, subscribe_timed, try_post,
    Server, Session,
};
use serde_json::Value;

#[derive(Parser)]
struct Args {
    /// The keno-server binary (default: beside this program's target folder).
    #[arg(long)]
    server_bin: Option<PathBuf>,
    /// Database for the server (default: a new SQLite file in a temporary folder).
    #[arg(long)]
    database_url: Option<String>,
    /// Concurrent terminals, each with its own writer.
    #[arg(long, default_value_t = 16)]
    terminals: usize,
    /// Seconds of sales for the throughput figure (0 to skip).
    #[arg(long, default_value_t = 10)]
    seconds: u64,
    /// Tickets of 10 ways each to fill one game with before timing its settlement (0 to skip).
    #[arg(long, default_value_t = 0)]
    settle_tickets: usize,
    /// HTTP worker threads of the server.
    #[arg(long, default_value_t = 2)]
    workers: usize,
    /// Server instances on the one database (more than one needs PostgreSQL).
    #[arg(long, default_value_t = 1)]
    instances: usize,
    /// Tickets a second from all terminals together, steadily (0: as fast as they can).
    #[arg(long, default_value_t = 0.0)]
    rate: f64,
    /// Seconds each game is open for sale: a draw every so often (default: none in the run).
    #[arg(long, default_value_t = 36000.0)]
    game_interval: f64,
    /// After the sales: settlement times of the games drawn and the invariants (PostgreSQL).
    #[arg(long)]
    soak: bool,
    /// Every so many seconds of the sales, kill the leading instance (SIGKILL) and start it
    /// again: terminals send what got no answer to another instance (0: never).
    #[arg(long, default_value_t = 0)]
    kill_leader_every: u64,
    /// Sell as fast as every terminal can in the open game's last 5 seconds (needs a
    /// `--game-interval` of more than 5 s) and report the close's refusals apart.
    #[arg(long)]
    burst: bool,
    /// A setting passed on to every server (repeat it for several), e.g.
    /// `--server-arg=--number-stake-limit --server-arg=100000000`.
    #[arg(long, allow_hyphen_values = true)]
    server_arg: Vec<String>,
    /// Displays holding the event stream open through the sales, spread over the instances
    /// (raise `--event-streams-per-address` with `--server-arg` past 500: they all come from
    /// 127.0.0.1).
    #[arg(long, default_value_t = 0)]
    displays: usize,
    /// Clients trying to sign on at once for staff IDs that do not exist, again and again,
    /// through the sales (at a registered terminal); the server's peak memory is reported.
    #[arg(long, default_value_t = 0)]
    sign_on_storm: usize,
    /// Price the sales rather than make them (`POST /api/v1/tickets/quote`): the floor under a
    /// sale's processor figures.
    #[arg(long)]
    quote: bool,
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let bin = args
        .server_bin
        .clone()
        .unwrap_or_else(|| server_bin().to_path_buf());
    let tmp = tempfile::tempdir()?;
    let db = args
        .database_url
        .clone()
        .unwrap_or_else(|| format!("sqlite://{}", tmp.path().join("load.sqlite").display()));
    let run = random_hex(4);
    let writers: Vec<String> = (0..args.terminals)
        .map(|i| {
            let terminal = format!("{run}-{i}");
            let site_terminal = Some(("LOAD", terminal.as_str()));
            add_principal(&bin, &db, "writer", &format!("LOAD{i}"), site_terminal)
        })
        .collect::<anyhow::Result<_>>()?;
    let supervisor = add_principal(&bin, &db, "supervisor", "LOADSUP", None)?;

    anyhow::ensure!(
        args.instances == 1 || db.starts_with("postgres"),
        "several instances need a PostgreSQL database"
    );
    let log = std::env::var("KENO_LOG").unwrap_or_else(|_| "warn".into());
    let (interval, workers) = (args.game_interval.to_string(), args.workers.to_string());
    // The run's own audit key and checkpoint file: a database of an earlier run may be gone.
    let key = tmp.path().join("keno-audit.key").display().to_string();
    let checkpoints = tmp
        .path()
        .join("keno-checkpoints.jsonl")
        .display()
        .to_string();
    let launch = |i: usize, listen: &str| {
        let instance = format!("load-{i}");
        let settings = [
            ["--game-interval", interval.as_str()],
            ["--reveal-interval", "0"],
            ["--instance", instance.as_str()],
            ["--keno-day-start", "00:00"],
            ["--keno-day-end", "00:00"],
            ["--workers", workers.as_str()],
        ];
        let mut all: Vec<&str> = settings.as_flattened().to_vec();
        all.extend(args.server_arg.iter().map(String::as_str));
        let env = [
            ("KENO_LOG", log.as_str()),
            ("KENO_AUDIT_KEY", key.as_str()),
            ("KENO_CHECKPOINTS", checkpoints.as_str()),
        ];
        Server::launch(&bin, &db, listen, &all, &env)
    };
    // Fixed addresses, so that an instance killed on purpose comes back where terminals look.
    let listens: Vec<String> = (0..args.instances.max(1))
        .map(|_| format!("127.0.0.1:{}", free_port()))
        .collect();
    let servers = std::sync::Mutex::new(
        listens
            .iter()
            .enumerate()
            .map(|(i, l)| launch(i, l))
            .collect::<anyhow::Result<Vec<_>>>()?,
    );
    let bases: Vec<String> = servers
        .lock()
        .expect("servers")
        .iter()
        .map(|s| s.base.clone())
        .collect();
    // Each writer opens a shift with an empty drawer, as before selling at a counter.
    for writer in &writers {
        keno_testkit::open_shift(&bases[0], writer);
    }
    println!(
        "servers: {} on {}",
        bases.join(", "),
        if db.starts_with("postgres") {
            "PostgreSQL"
        } else {
            "SQLite"
        }
    );
    let result = (|| -> anyhow::Result<()> {
        let started_at = chrono_now_micros();
        let mut sold = Vec::new();
        let displays = match args.displays {
            0 => None,
            n => Some(displays::Displays::open(&bases, n)?),
        };
        let storm = match args.sign_on_storm {
            0 => None,
            n => Some(storm::Storm::start(&bin, &db, &bases[0], n)?),
        };
        if args.seconds > 0 {
            let length = Duration::from_secs(args.seconds);
            let pids: Vec<u32> = servers
                .lock()
                .expect("servers")
                .iter()
                .map(Server::pid)
                .collect();
            std::thread::scope(|scope| -> anyhow::Result<()> {
                if args.kill_leader_every > 0 {
                    let every = Duration::from_secs(args.kill_leader_every);
                    let (servers, listens, launch, db) = (&servers, &listens, &launch, &db);
                    scope.spawn(move || chaos(db, servers, listens, launch, every, length));
                }
                let asked = Asked {
                    length,
                    rate: args.rate,
                    quote: args.quote,
                };
                sold = throughput(&bases, &writers, asked, &run, &pids);
                Ok(())
            })?;
        }
        if let Some(storm) = storm {
            storm.stop(servers.lock().expect("servers")[0].pid());
        }
        if args.burst {
            burst::run(&bases, &writers, &run)?;
        }
        if let Some(displays) = displays {
            displays.stop();
        }
        if args.soak {
            soak_report(&bin, &db, started_at, &sold)?;
        }
        if args.settle_tickets > 0 {
            settlement(&bases[0], &writers, &supervisor, args.settle_tickets, &run)?;
        }
        Ok(())
    })();
    for server in servers.lock().expect("servers").iter_mut() {
        server.stop();
    }
    result
}

/// Kills the leading instance every `every` until `length` has passed, starts it again, and
/// prints how long the lead took to move.
fn chaos(
    db: &str,
    servers: &std::sync::Mutex<Vec<Server>>,
    listens: &[String],
    launch: &(dyn Fn(usize, &str) -> anyhow::Result<Server> + Sync),
    every: Duration,
    length: Duration,
) {
    let started = Instant::now();
    let session = Session::open(db).expect("the database");
    let holder = || -> String {
        session
            .try_text("SELECT holder AS s FROM leadership")
            .unwrap_or_default()
    };
    while started.elapsed() + every < length {
        std::thread::sleep(every);
        let leader = holder();
        let Some(i) = leader
            .strip_prefix("load-")
            .and_then(|i| i.parse::<usize>().ok())
        else {
            continue;
        };
        servers.lock().expect("servers")[i].stop();
        let killed = Instant::now();
        while holder() == leader && killed.elapsed() < Duration::from_secs(30) {
            std::thread::sleep(Duration::from_millis(5));
        }
        println!(
            "chaos: killed the leader {leader} at {:.0} s; {} leads {} ms later",
            started.elapsed().as_secs_f64(),
            holder(),
            killed.elapsed().as_millis()
        );
        std::thread::sleep(Duration::from_secs(1));
        match launch(i, &listens[i]) {
            Ok(server) => servers.lock().expect("servers")[i] = server,
            Err(e) => println!("chaos: load-{i} did not start again: {e:#}"),
        }
    }
}

fn chrono_now_micros() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("after 1970")
        .as_micros() as i64
}

/// The games drawn since `since`: how long each took from its 20th number to its settlement,
/// and the invariants of the run.
fn soak_report(bin: &std::path::Path, db: &str, since: i64, sold: &[String]) -> anyhow::Result<()> {
    anyhow::ensure!(
        db.starts_with("postgres"),
        "--soak reads a PostgreSQL database"
    );
    let session = Session::open(db)?;
    let query = |sql: &str| session.i64(sql);
    let text = |sql: &str| session.text(sql);
    // Wait for the last game closed in the run to be settled.
    let deadline = Instant::now() + Duration::from_secs(120);
    while query("SELECT COUNT(*) AS n FROM games WHERE state IN ('closed', 'drawing', 'drawn')") > 0
    {
        anyhow::ensure!(Instant::now() < deadline, "games left unsettled");
        std::thread::sleep(Duration::from_millis(200));
    }
    let times: Vec<f64> = text(&format!(
        "SELECT COALESCE(string_agg((s.settled_at - d.at)::text, ',' ORDER BY g.number), '') AS s \
         FROM games g JOIN game_settlements s ON s.game = g.number \
         JOIN (SELECT game, MAX(drawn_at) AS at FROM drawn_numbers GROUP BY game) d \
           ON d.game = g.number WHERE g.opened_at >= {since}"
    ))
    .split(',')
    .filter(|t| !t.is_empty())
    .map(|t| t.parse::<f64>().unwrap_or(0.0) / 1000.0)
    .collect();
    let mut sorted = times.clone();
    sorted.sort_by(f64::total_cmp);
    println!(
        "settlement: {} games drawn and settled; from the 20th number to settled: median {:.0} ms, max {:.0} ms; each: {:?}",
        times.len(),
        sorted.get(sorted.len() / 2).copied().unwrap_or(0.0),
        sorted.last().copied().unwrap_or(0.0),
        times.iter().map(|t| t.round() as i64).collect::<Vec<_>>()
    );
    let epochs = query("SELECT epoch AS n FROM leadership");
    println!("leadership: epoch {epochs} (changes of leader since the database was made)");
    let checks = invariants::check_all(&session, bin, sold, &Default::default());
    for c in &checks {
        println!("{c}");
    }
    anyhow::ensure!(
        checks.iter().all(|c| c.failure.is_none()),
        "invariants broken"
    );
    Ok(())
}

/// The `p` quantile of `sorted` latencies in µs, in ms (0 for none).
fn percentile_ms(sorted: &[u64], p: f64) -> f64 {
    let at = ((sorted.len() as f64 * p) as usize).min(sorted.len().saturating_sub(1));
    sorted.get(at).copied().unwrap_or(0) as f64 / 1000.0
}

/// A terminal's HTTP client. Its buffers are the size of a sale's answer, not ureq's 128 KiB
/// default: copying those at every request cost loadgen more than the sale's JSON did, and
/// loadgen shares the machine with the server it measures.
fn new_agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(60)))
        .input_buffer_size(16 * 1024)
        .output_buffer_size(16 * 1024)
        .build()
        .into()
}

/// What loadgen reads of a sale's answer: the ticket's serial and first game, or the
/// refusal's code. The rest of the ticket is skipped unread (into no `Value`).
#[derive(serde::Deserialize, Default)]
struct Answer {
    serial: Option<String>,
    first_game: Option<i64>,
    error: Option<String>,
    message: Option<String>,
}

/// Sells at `url`: the status (0 when no answer came: an instance killed) and the answer.
fn sell(agent: &ureq::Agent, url: &str, token: &str, body: &SaleRequest) -> (u16, Answer) {
    let Ok(mut resp) = agent
        .post(url)
        .header("Authorization", format!("Bearer {token}"))
        .send_json(body)
    else {
        return (0, Answer::default());
    };
    let status = resp.status().as_u16();
    match resp.body_mut().read_to_string() {
        Ok(text) => (status, serde_json::from_str(&text).unwrap_or_default()),
        Err(_) => (0, Answer::default()),
    }
}

/// A sale (keno-api's `SaleRequest`, as a terminal sends it) or a close (no body: `None`);
/// status 0 when no answer came (an instance killed).
fn post(agent: &ureq::Agent, url: &str, token: &str, body: Option<&SaleRequest>) -> (u16, Value) {
    let body = serde_json::to_value(body).expect("a sale serializes");
    try_post(agent, url, token, &body).unwrap_or((0, Value::Null))
}

/// The mix a counter sells: mostly quick picks and standard tickets, some ways and jackpots.
fn sale(request_id: String, i: u64) -> SaleRequest {
    let (bet, schedule, amount_per_way_cents, games) = match i % 10 {
        0 => (
            BetRequest::Way {
                groups: vec![vec![1, 2], vec![3, 4], vec![5, 6]],
                combine: vec![2],
            },
            Schedule::Standard,
            100,
            1,
        ),
        1 => (
            BetRequest::Standard {
                spots: vec![6, 16, 26, 36, 46, 56],
            },
            Schedule::Jackpot,
            200,
            1,
        ),
        2 => (BetRequest::MysteryQuickPick, Schedule::Standard, 200, 1),
        3 => (
            BetRequest::Standard {
                spots: vec![7, 17, 27],
            },
            Schedule::Special2,
            100,
            5,
        ),
        _ => (
            BetRequest::QuickPick {
                count: 1 + (i % 10) as u8,
            },
            Schedule::Standard,
            100 * (1 + i % 3),
            1,
        ),
    };
    SaleRequest {
        request_id,
        bet,
        schedule,
        amount_per_way_cents,
        games,
        tender: None,
        entry_form_sha256: None,
    }
}

/// What the terminals do for the throughput figure.
#[derive(Clone, Copy)]
struct Asked {
    length: Duration,
    /// Sales a second from all terminals together (0: flat out).
    rate: f64,
    /// Only price each sale (`POST /api/v1/tickets/quote`).
    quote: bool,
}

/// Sells (or with `quote`, prices) from every terminal (terminal t at instance t mod n) for
/// `length` at `rate` (0: flat out); prints the rate, the latencies and the processor each
/// sale took of the servers (`servers`, their pids), PostgreSQL and this program; returns the
/// serials sold.
fn throughput(
    bases: &[String],
    writers: &[String],
    Asked {
        length,
        rate,
        quote,
    }: Asked,
    run: &str,
    servers: &[u32],
) -> Vec<String> {
    let (path, done, noun) = if quote {
        ("/api/v1/tickets/quote", 200, "quote")
    } else {
        ("/api/v1/tickets", 201, "sale")
    };
    // Each terminal's pace when the rate is set.
    let gap = (rate > 0.0).then(|| Duration::from_secs_f64(writers.len() as f64 / rate));
    let cpu_before = cpu::Sample::take(servers);
    let start = Instant::now();
    let deadline = start + length;
    let errors = Arc::new(AtomicU64::new(0));
    let handles: Vec<_> = writers
        .iter()
        .enumerate()
        .map(|(t, token)| {
            let urls: Vec<String> = (0..bases.len())
                .map(|k| format!("{}{path}", bases[(t + k) % bases.len()]))
                .collect();
            let (token, errors, run) = (token.clone(), errors.clone(), run.to_string());
            std::thread::spawn(move || {
                let agent = new_agent();
                let mut latencies = Vec::new();
                let mut serials = Vec::new();
                let mut i = 0u64;
                // Terminals start spread over one gap, not all at once.
                let mut next = start + gap.map_or(Duration::ZERO, |g| g.mul_f64(t as f64 / 16.0));
                while Instant::now() < deadline {
                    if let Some(gap) = gap {
                        let now = Instant::now();
                        if next > now {
                            std::thread::sleep(next - now);
                        }
                        next += gap;
                    }
                    i += 1;
                    let body = sale(format!("{run}-{t}-{i}"), i);
                    let sent = Instant::now();
                    // No answer (an instance killed, a database session ended): the same request
                    // again at the next instance, as a terminal does; it sells once.
                    let mut attempt = 0;
                    let (status, ticket) = loop {
                        let (status, ticket) =
                            sell(&agent, &urls[attempt % urls.len()], &token, &body);
                        attempt += 1;
                        if !matches!(status, 0 | 502 | 503) || attempt >= 50 {
                            break (status, ticket);
                        }
                        std::thread::sleep(Duration::from_millis(20));
                    };
                    // 200: a sale sent again after its instance died had been made there: the
                    // ticket it made, once.
                    if status == done || (status == 200 && !quote) {
                        latencies.push(sent.elapsed().as_micros() as u64);
                        if let Some(serial) = ticket.serial {
                            serials.push(serial);
                        }
                    } else {
                        // The first few refusals are shown: a refusal under load is a finding.
                        if errors.fetch_add(1, Ordering::Relaxed) < 5 {
                            println!(
                                "sale refused or failed after {attempt} attempts: {status} {} {}",
                                ticket.error.unwrap_or_default(),
                                ticket.message.unwrap_or_default()
                            );
                        }
                    }
                }
                (latencies, serials)
            })
        })
        .collect();
    let mut latencies: Vec<u64> = Vec::new();
    let mut sold: Vec<String> = Vec::new();
    for h in handles {
        let (l, s) = h.join().unwrap();
        latencies.extend(l);
        sold.extend(s);
    }
    let cpu_after = cpu::Sample::take(servers);
    let elapsed = start.elapsed().as_secs_f64();
    latencies.sort_unstable();
    let pct = |p: f64| percentile_ms(&latencies, p);
    println!(
        "{noun}s: {} {} in {:.1} s from {} terminals on {} instance(s) = {:.0} {}/s; latency p50 {:.2} ms, p90 {:.2} ms, p99 {:.2} ms, max {:.2} ms; {} refused or failed",
        latencies.len(),
        if quote { "quotes" } else { "tickets" },
        elapsed,
        writers.len(),
        bases.len(),
        latencies.len() as f64 / elapsed,
        if quote { "quotes" } else { "tickets" },
        pct(0.50),
        pct(0.90),
        pct(0.99),
        latencies.last().copied().unwrap_or(0) as f64 / 1000.0,
        errors.load(Ordering::Relaxed)
    );
    cpu::report(&cpu_before, &cpu_after, (latencies.len(), noun));
    sold
}

/// A ticket of the game filled for the settlement benchmark: five groups of 1 to 3 numbers
/// from `o + 1`, every 2 of them: 10 ways of 2 to 6 spots.
fn fill_sale(request_id: String, o: u8) -> SaleRequest {
    SaleRequest {
        request_id,
        bet: BetRequest::Way {
            groups: vec![
                vec![o + 1, o + 2],
                vec![o + 3],
                vec![o + 4, o + 5, o + 6],
                vec![o + 7],
                vec![o + 8, o + 9],
            ],
            combine: vec![2],
        },
        schedule: Schedule::Standard,
        amount_per_way_cents: 50,
        games: 1,
        tender: None,
        entry_form_sha256: None,
    }
}

fn settlement(
    base: &str,
    writers: &[String],
    supervisor: &str,
    tickets: usize,
    run: &str,
) -> anyhow::Result<()> {
    let agent = new_agent();
    // Start from an empty game.
    let (status, _) = post(
        &agent,
        &format!("{base}/api/v1/games/current/close"),
        supervisor,
        None,
    );
    anyhow::ensure!(status == 200, "close failed: {status}");
    std::thread::sleep(Duration::from_millis(500));
    let url = format!("{base}/api/v1/tickets");
    let start = Instant::now();
    let per = tickets.div_ceil(writers.len());
    let handles: Vec<_> = writers
        .iter()
        .enumerate()
        .map(|(t, token)| {
            let (url, token, run) = (url.clone(), token.clone(), run.to_string());
            std::thread::spawn(move || {
                let agent = new_agent();
                let mut sold = 0;
                for i in 0..per {
                    let o = ((t * per + i) % 60) as u8;
                    let body = fill_sale(format!("{run}-fill-{t}-{i}"), o);
                    if post(&agent, &url, &token, Some(&body)).0 == 201 {
                        sold += 1;
                    }
                }
                sold
            })
        })
        .collect();
    let sold: usize = handles.into_iter().map(|h| h.join().unwrap()).sum();
    println!(
        "filled the game with {sold} tickets ({} ways) in {:.1} s",
        sold * 10,
        start.elapsed().as_secs_f64()
    );

    liability_page(&agent, base, supervisor)?;

    let rx = subscribe_timed(base);
    let (status, game) = post(
        &agent,
        &format!("{base}/api/v1/games/current/close"),
        supervisor,
        None,
    );
    anyhow::ensure!(status == 200, "close failed: {status}");
    let number = game["number"].as_i64().unwrap_or_default();
    let mut twentieth = None;
    loop {
        let (kind, data, at) = rx.recv_timeout(Duration::from_secs(600))?;
        if data["game"] != number {
            continue;
        }
        if kind == "number_drawn" && data["position"] == 20 {
            twentieth = Some(at);
        }
        if kind == "game_settled" {
            let from = twentieth.unwrap_or(at);
            println!(
                "settlement: game {number}, {} tickets, {} ways, {} winning tickets, {} cents in prizes: {:.0} ms from the 20th number to game_settled",
                data["tickets"], data["ways"], data["winning_tickets"], data["total_prizes_cents"],
                at.duration_since(from).as_secs_f64() * 1000.0
            );
            return Ok(());
        }
    }
}

/// How long the open game's liability takes to answer (issue 18), read 20 times once the
/// book has caught up with the fill.
fn liability_page(agent: &ureq::Agent, base: &str, supervisor: &str) -> anyhow::Result<()> {
    let url = format!("{base}/api/v1/games/current/liability");
    let read = || -> anyhow::Result<(Duration, Value)> {
        let start = Instant::now();
        let mut response = agent
            .get(&url)
            .header("Authorization", &format!("Bearer {supervisor}"))
            .call()?;
        let body: Value = response.body_mut().read_json()?;
        Ok((start.elapsed(), body))
    };
    let (first, body) = read()?;
    let mut times: Vec<Duration> = (0..20)
        .map(|_| read().map(|r| r.0))
        .collect::<anyhow::Result<_>>()?;
    times.sort();
    println!(
        "liability: {} tickets, {} ways, expected {} cents, worst case {} cents, largest of {} simulated draws {} cents; first read {:.0} ms, then p50 {:.1} ms, max {:.1} ms",
        body["tickets"], body["ways"], body["expected_payout_cents"], body["worst_case_cents"],
        body["simulated"]["draws"], body["simulated"]["largest_cents"],
        first.as_secs_f64() * 1000.0,
        times[10].as_secs_f64() * 1000.0,
        times[19].as_secs_f64() * 1000.0,
    );
    Ok(())
}
