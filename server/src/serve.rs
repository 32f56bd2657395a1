//! `keno-server serve`: the central computer (rule 3.1).

use std::sync::Arc;

use actix_web::{web, App, HttpServer};
use diesel::prelude::*;
use sha2::{Digest, Sha256};

use crate::cli::ServeArgs;
use crate::db::schema::rule_sets;
use crate::db::{now_micros, Db};
use crate::events::bus::Events;
use crate::keno_day::KenoHours;
use crate::state::{AppState, Settings};
use crate::{api, clock, rules_cmd};

pub fn run(args: ServeArgs) -> anyhow::Result<()> {
    let rules = rules_cmd::load(&args.rules)?;
    let settings = settings(&args)?;
    let lease = positive_seconds("--leader-lease", args.leader_lease)?;
    let instance = instance(&args)?;
    let leadership = Arc::new(crate::leader::Leadership::new(instance.clone(), lease));
    let db = Db::open_to_serve(&args.database_url, args.pool_size, &instance)?;
    let _serving = Db::serving(&args.database_url)?;
    let rule_set_hash = record_rule_set(&db, &rules)?;
    crate::tickets::check_sold_tickets(&mut *db.conn()?, &rules)?;
    let rules = Arc::new(rules);
    let faults = crate::faults::FaultDelays::from_env()?;
    // Commits sales in batches (group commit); handlers reach it as its own app data.
    let sales = web::Data::new(crate::tickets::writer::SaleWriter::start(
        db.clone(),
        args.sale_writers,
        faults.clone(),
        shift_rule(&args),
    ));
    let (events, relay) = events(&db);
    let (anchor, behind) = anchor(&args, &db)?;
    let gate = web::Data::new(crate::suspension::gate::Gate::default());
    let state = web::Data::new(AppState {
        anchor,
        store: crate::store::Store { db, faults },
        streams: crate::events::slots::StreamSlots::new(
            args.event_streams,
            args.event_streams_per_address,
        ),
        rule_sets: crate::rule_sets::RuleSets::new(&rule_set_hash, rules.clone()),
        special3_digest: crate::special3::schedule_digest(&rules),
        rules,
        rule_set_hash,
        settings,
        events,
        leadership: leadership.clone(),
        principals: Default::default(),
        jackpots_changed: Default::default(),
        clock_wake: Default::default(),
        drawer_wake: Default::default(),
        announced_close: Default::default(),
        check_limit: check_limit(&args)?,
        auth_failures: auth_failures(&args)?,
        trust_forwarded_for: args.trust_forwarded_for,
    });

    let integrity = web::Data::new(integrity(&args, &state)?);
    suspend_if_behind(&state, &gate, behind)?;
    record_start(&state, &integrity)?;
    if !gate.restoring() {
        signed_at(&state, crate::audit::anchor::Reason::ServerStart)?;
    }
    if let Some((url, rx)) = relay {
        crate::events::relay::start(url, rx, state.clone());
    }
    {
        let db = state.store.db.clone();
        std::thread::Builder::new()
            .name("leader-election".into())
            .spawn(move || crate::leader::run(db, leadership))?;
    }

    let services = Services {
        sales,
        // Sign-on's turns at argon2 and its count of unknown IDs.
        guard: web::Data::new(crate::staff::guard::SignOnGuard::new(
            args.sign_on_checks,
            args.sign_on_queue,
            state.settings.staff.lock_out,
        )),
        verifying: web::Data::new(Default::default()),
        books: web::Data::new(Default::default()),
        monitor: web::Data::new(crate::draw_monitor::Monitor::new(args.monitor_games)),
        gate,
        integrity,
        incidents: web::Data::new(crate::incidents::Incidents::new(positive_seconds(
            "--incident-quiet",
            args.incident_quiet,
        )?)),
        pool_readings: web::Data::new(Default::default()),
    };
    serve(args, state, services)
}

/// This instance's name (`--instance`, else the host's and the process's).
fn instance(args: &ServeArgs) -> anyhow::Result<String> {
    let instance = args
        .instance
        .clone()
        .unwrap_or_else(crate::leader::instance_name);
    anyhow::ensure!(
        !instance.is_empty() && instance.len() <= 48 && instance.is_ascii(),
        "--instance must be 1 to 48 ASCII characters"
    );
    Ok(instance)
}

/// What the relay of events between instances takes: the database's URL and the queue.
type Relay = (
    String,
    std::sync::mpsc::Receiver<crate::events::bus::Outgoing>,
);

/// The event bus. Several instances share a PostgreSQL database: events go through it to all
/// of them (the relay's URL and queue).
fn events(db: &Db) -> (Events, Option<Relay>) {
    match db.backend() {
        crate::db::Backend::Postgres(url) => {
            let (tx, rx) = std::sync::mpsc::channel();
            (Events::relayed(tx), Some((url.clone(), rx)))
        }
        crate::db::Backend::Sqlite(_) => (Events::default(), None),
    }
}

/// The audit trail's anchor: the signing key (made on first start), the checkpoint file
/// checked against the database, and the interval between checkpoints; and whether the
/// database is behind the file.
fn anchor(
    args: &ServeArgs,
    db: &Db,
) -> anyhow::Result<(
    crate::audit::anchor::make::Anchor,
    Option<crate::audit::anchor::make::Behind>,
)> {
    let key = crate::audit::anchor::key::AuditKey::load_or_create(&args.audit_key)?;
    let behind = crate::audit::anchor::make::check_file(&mut *db.conn()?, &args.checkpoints)?;
    println!(
        "audit checkpoints signed by public key {}",
        key.public_hex()
    );
    let anchor = crate::audit::anchor::make::Anchor::new(
        key,
        args.checkpoints.clone(),
        positive_seconds("--checkpoint-interval", args.checkpoint_interval)?,
    );
    Ok((anchor, behind))
}

/// What the software checks itself against (issue 33). Given an approved manifest, the
/// software and the rule set are checked now: the check enters the trail, and a difference
/// suspends the system and refuses to start.
fn integrity(args: &ServeArgs, state: &AppState) -> anyhow::Result<crate::integrity::Integrity> {
    use crate::integrity::manifest::Manifest;
    let approved = match (&args.approved_manifest, &args.manifest_public_key) {
        (None, None) => None,
        (Some(path), Some(key)) => Some(Manifest::read(
            path,
            &crate::audit::anchor::key::parse_public(key)?,
        )?),
        _ => anyhow::bail!("--approved-manifest and --manifest-public-key go together"),
    };
    let integrity = crate::integrity::Integrity {
        rules: crate::integrity::cli::rules_source(args.rules.path.as_deref()),
        approved,
        interval: positive_seconds("--integrity-interval", args.integrity_interval)?,
    };
    let Some(differences) = integrity.differences()? else {
        return Ok(integrity);
    };
    let instance = state.leadership.instance.clone();
    let recorded = differences.clone();
    crate::store::transact(
        &state.store.db,
        &mut *state.store.db.conn()?,
        None,
        |conn| crate::integrity::record(conn, &recorded, &instance),
    )
    .map_err(|e| anyhow::anyhow!("{e}"))?;
    if !differences.is_empty() {
        let said: Vec<String> = differences.into_iter().map(|d| d.said).collect();
        anyhow::bail!(
            "the software is not as approved; the system is suspended until a supervisor and an \
             inspector resume it:\n  {}",
            said.join("\n  ")
        );
    }
    println!("the software and the rule set are as approved");
    Ok(integrity)
}

/// This start in the trail, with the digests of the binary and the rules (issue 33); an
/// instance that had not stopped gracefully before is said.
fn record_start(state: &AppState, integrity: &crate::integrity::Integrity) -> anyhow::Result<()> {
    let components = crate::integrity::components::components(&integrity.rules, None)?;
    let digest = |name: &str| {
        components
            .iter()
            .find(|c| c.name == name)
            .map(|c| c.sha256.clone())
            .unwrap_or_default()
    };
    let (binary, rules) = (
        digest("binary"),
        digest(crate::integrity::components::RULES),
    );
    let release = crate::integrity::release();
    let start = crate::lifecycle::Start {
        release: &release,
        binary_sha256: &binary,
        rules_sha256: &rules,
    };
    let instance = &state.leadership.instance;
    let not_stopped =
        crate::store::transact(&state.store.db, &mut *state.store.db.conn()?, None, |c| {
            crate::lifecycle::started(c, instance, &start)
        })?;
    if !not_stopped.is_empty() {
        println!(
            "no graceful stop was recorded for {} since its start: it crashed, was killed or \
             lost power (or it still runs)",
            not_stopped.join(", ")
        );
    }
    Ok(())
}

/// A database behind its checkpoint file is not served (issue 33): the system is suspended,
/// for a restore or a trail cut, until a supervisor and an inspector resume it; nothing is
/// sold, paid or drawn on it meanwhile. Then the gate holds what is in force, found now or
/// before the last stop.
fn suspend_if_behind(
    state: &AppState,
    gate: &crate::suspension::gate::Gate,
    behind: Option<crate::audit::anchor::make::Behind>,
) -> anyhow::Result<()> {
    use keno_core::suspension::Cause;
    let instance = state.leadership.instance.clone();
    let closed = crate::store::transact(
        &state.store.db,
        &mut *state.store.db.conn()?,
        None,
        |conn| {
            if let Some(behind) = &behind {
                let found = crate::suspension::Found {
                    cause: if behind.lost.is_some() {
                        Cause::Restore
                    } else {
                        Cause::Trail
                    },
                    detail: behind.detail.clone(),
                    lost: behind.lost,
                };
                let (row, new) = crate::suspension::begin(conn, &found, &instance)?;
                if new {
                    eprintln!("SUSPENDED: {} (suspension {})", row.detail, row.id);
                }
            }
            Ok::<_, crate::error::Failure>(crate::suspension::closed(conn)?)
        },
    )
    .map_err(|e| anyhow::anyhow!("{e}"))?;
    if let Some(closed) = &closed {
        println!("{}", closed.message);
    }
    gate.set(closed);
    Ok(())
}

/// The services with state of their own, each its own app data beside the `AppState`.
#[derive(Clone)]
struct Services {
    sales: web::Data<crate::tickets::writer::SaleWriter>,
    guard: web::Data<crate::staff::guard::SignOnGuard>,
    /// One auditor's verification at a time on this instance.
    verifying: web::Data<crate::audit::verify::Verifying>,
    /// The open game's liability, kept as its tickets are found.
    books: web::Data<crate::liability::Books>,
    /// Draw monitoring's windows of the last settled games, fed by the drawer's settlements.
    monitor: web::Data<crate::draw_monitor::Monitor>,
    /// Whether the system is suspended (issue 33), for every request and the drawer.
    gate: web::Data<crate::suspension::gate::Gate>,
    /// What the software checks itself against (issue 33).
    integrity: web::Data<crate::integrity::Integrity>,
    /// The server's own failures as they happen (issue 33): noted by the HTTP layer and the
    /// drawer, written to the trail by their task.
    incidents: web::Data<crate::incidents::Incidents>,
    /// The public readings of the jackpot pools, one at a time whoever asks.
    pool_readings: web::Data<crate::routes::jackpots::PoolReadings>,
}

/// The game's settings from the command line.
fn settings(args: &ServeArgs) -> anyhow::Result<Settings> {
    Ok(Settings {
        game_interval: positive_seconds("--game-interval", args.game_interval)?,
        reveal_interval: std::time::Duration::try_from_secs_f64(args.reveal_interval)
            .map_err(|_| anyhow::anyhow!("--reveal-interval must be 0 or more seconds"))?,
        hours: KenoHours {
            start: KenoHours::parse_time(&args.keno_day_start).map_err(anyhow::Error::msg)?,
            end: KenoHours::parse_time(&args.keno_day_end).map_err(anyhow::Error::msg)?,
        },
        draw_source: args.draw_source.into(),
        ball_check: std::time::Duration::try_from_secs_f64(args.ball_check)
            .map_err(|_| anyhow::anyhow!("--ball-check must be 0 or more seconds"))?,
        closure_notice: std::time::Duration::try_from_secs_f64(args.closure_notice)
            .map_err(|_| anyhow::anyhow!("--closure-notice must be 0 or more seconds"))?,
        staff: staff_settings(args)?,
        limits: keno_core::LiabilityLimits {
            ticket_potential_cents: args.ticket_potential_limit,
            game_expected_payout_cents: args.game_expected_payout_limit,
            number_stake_cents: args.number_stake_limit,
        },
        over_short_tolerance_cents: args.over_short_tolerance,
        liability_interval: if args.liability_interval == 0.0 {
            None
        } else {
            Some(positive_seconds(
                "--liability-interval",
                args.liability_interval,
            )?)
        },
    })
}

/// Sign-on, sessions and payout authority from the command line.
fn staff_settings(args: &ServeArgs) -> anyhow::Result<crate::staff::StaffSettings> {
    Ok(crate::staff::StaffSettings {
        idle: positive_seconds("--session-idle", args.session_idle)?,
        lock_out: keno_core::LockOut {
            max_failures: args.sign_on_failures.max(1),
            lock_micros: positive_seconds("--sign-on-lock", args.sign_on_lock)?.as_micros() as i64,
        },
        payout: keno_core::PayoutTiers {
            writer_limit_cents: args.writer_payout_limit,
        },
        shift: shift_rule(args),
    })
}

/// Whether a writer's acts at the counter need their shift open (`--cash-needs-shift`).
fn shift_rule(args: &ServeArgs) -> keno_core::ShiftRule {
    if args.cash_needs_shift {
        keno_core::ShiftRule::Required
    } else {
        keno_core::ShiftRule::NotRequired
    }
}

/// Public ticket checks per address (`--check-rate`).
fn check_limit(args: &ServeArgs) -> anyhow::Result<crate::rate_limit::PerAddress> {
    Ok(crate::rate_limit::PerAddress::new(
        std::num::NonZeroU32::new(args.check_rate)
            .ok_or_else(|| anyhow::anyhow!("--check-rate must be 1 or more"))?,
        std::num::NonZeroU32::new(10).expect("ten"),
    ))
}

/// Bad bearer tokens per address (`--auth-failure-rate`, `--auth-failure-burst`).
fn auth_failures(args: &ServeArgs) -> anyhow::Result<crate::rate_limit::AuthFailures> {
    Ok(crate::rate_limit::AuthFailures::new(
        std::num::NonZeroU32::new(args.auth_failure_rate)
            .ok_or_else(|| anyhow::anyhow!("--auth-failure-rate must be 1 or more"))?,
        std::num::NonZeroU32::new(args.auth_failure_burst)
            .ok_or_else(|| anyhow::anyhow!("--auth-failure-burst must be 1 or more"))?,
    ))
}

/// Serves HTTP and runs the background tasks until the server stops.
fn serve(args: ServeArgs, state: web::Data<AppState>, services: Services) -> anyhow::Result<()> {
    let tally_every = positive_seconds("--sign-on-tally-interval", args.sign_on_tally_interval)?;
    let undrawn_limit = positive_seconds("--undrawn-limit", args.undrawn_limit)?;
    actix_web::rt::System::new().block_on(async move {
        let app_state = state.clone();
        let s = services.clone();
        let server = HttpServer::new(move || {
            App::new()
                .app_data(app_state.clone())
                .app_data(s.sales.clone())
                .app_data(s.guard.clone())
                .app_data(s.verifying.clone())
                .app_data(s.books.clone())
                .app_data(s.monitor.clone())
                .app_data(s.gate.clone())
                .app_data(s.integrity.clone())
                .app_data(s.incidents.clone())
                .app_data(s.pool_readings.clone())
                .app_data(web::PayloadConfig::new(keno_api::limits::MAX_BODY_BYTES))
                .wrap(actix_web::middleware::from_fn(
                    crate::routes::incidents::noted,
                ))
                .wrap(actix_web::middleware::from_fn(
                    crate::routes::suspension::held,
                ))
                .wrap(actix_web::middleware::from_fn(crate::body_limits::bounded))
                .configure(api::routes)
        })
        .workers(args.workers)
        .bind(&args.listen)?;
        for addr in server.addrs() {
            // Tests and scripts read this line to find the port (with --listen 127.0.0.1:0).
            println!("keno-server listening on http://{addr}");
        }
        tracing::info!(
            instance = %state.leadership.instance,
            database = state.store.db.backend().name(),
            rules = state.rules.name(),
            "serving"
        );
        say_when_keno_is_closed(&state);
        spawn_tasks(&state, &services, (tally_every, undrawn_limit));
        // actix stops gracefully on the same signals, waiting for the requests in flight: the
        // event streams never finish by themselves, so they are ended first.
        actix_web::rt::spawn(end_streams_on_stop(state.streams.clone()));
        server.run().await?;
        // Stopped gracefully (SIGTERM, SIGINT): the last writes signed before the process ends
        // (none while a restore waits to be accepted).
        let stopping = state.clone();
        let restoring = services.gate.restoring();
        web::block(move || -> anyhow::Result<()> {
            let instance = &stopping.leadership.instance;
            crate::store::transact(
                &stopping.store.db,
                &mut *stopping.store.db.conn()?,
                None,
                |c| crate::lifecycle::stopped(c, instance),
            )?;
            if !restoring {
                signed_at(&stopping, crate::audit::anchor::Reason::ServerStop)?;
            }
            Ok(())
        })
        .await??;
        anyhow::Ok(())
    })
}

/// Ends every event stream as a stop is asked for (SIGTERM, SIGINT).
async fn end_streams_on_stop(streams: std::sync::Arc<crate::events::slots::StreamSlots>) {
    use tokio::signal::unix::{signal, SignalKind};
    let (Ok(mut term), Ok(mut int)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    ) else {
        tracing::warn!("cannot listen for SIGTERM and SIGINT: a stop waits for event streams");
        return;
    };
    tokio::select! {
        _ = term.recv() => {}
        _ = int.recv() => {}
    }
    streams.stop_all();
}

fn say_when_keno_is_closed(state: &AppState) {
    let hours = state.settings.hours;
    if hours.keno_day(crate::time::local_now()).is_none() {
        println!(
            "Keno is closed now: games run from {} to {} local time (--keno-day-start, --keno-day-end)",
            hours.start.format("%H:%M"),
            hours.end.format("%H:%M")
        );
    }
}

/// The background tasks, each given what it needs.
fn spawn_tasks(
    state: &web::Data<AppState>,
    s: &Services,
    (tally_every, undrawn_limit): (std::time::Duration, std::time::Duration),
) {
    actix_web::rt::spawn(crate::wall_clock_watch::watch(state.clone()));
    actix_web::rt::spawn(clock::run_clock(state.clone()));
    actix_web::rt::spawn(clock::run_drawer(
        state.clone(),
        s.monitor.clone(),
        s.gate.clone(),
        s.incidents.clone(),
    ));
    actix_web::rt::spawn(crate::incidents::task::run(
        state.clone(),
        s.incidents.clone(),
    ));
    actix_web::rt::spawn(crate::suspension::task::keep_up(
        state.clone(),
        s.gate.clone(),
        undrawn_limit,
    ));
    actix_web::rt::spawn(crate::jackpots::task::run_announcer(state.clone()));
    actix_web::rt::spawn(crate::liability::task::keep_up(
        state.store.clone(),
        state.rule_sets.clone(),
        state.settings.liability_interval,
        s.books.clone().into_inner(),
    ));
    actix_web::rt::spawn(crate::audit::anchor::task::run(
        state.clone(),
        s.gate.clone(),
    ));
    actix_web::rt::spawn(crate::integrity::task::run(
        state.clone(),
        s.integrity.clone(),
        s.gate.clone(),
    ));
    actix_web::rt::spawn(crate::staff::guard::record_tallies(
        state.store.clone(),
        s.guard.clone().into_inner(),
        tally_every,
    ));
}

/// A checkpoint of the trail as this server starts or stops (issue 33), said on its output.
fn signed_at(state: &AppState, reason: crate::audit::anchor::Reason) -> anyhow::Result<()> {
    let today = crate::audit::anchor::task::today(state);
    let made = crate::audit::anchor::make::mark(
        (&state.anchor, &state.store),
        reason,
        &today,
        &state.leadership.instance,
    )?;
    println!(
        "audit checkpoint {} signed ({}), the trail to entry {}",
        made.n,
        reason.as_str(),
        made.seq
    );
    Ok(())
}

fn positive_seconds(what: &str, seconds: f64) -> anyhow::Result<std::time::Duration> {
    match std::time::Duration::try_from_secs_f64(seconds) {
        Ok(d) if !d.is_zero() => Ok(d),
        _ => anyhow::bail!("{what} must be more than 0 seconds"),
    }
}

/// Stores the rule set in force (once per distinct rule set) and returns its hash, which every
/// game and ticket records.
fn record_rule_set(db: &Db, rules: &keno_core::RuleSet) -> anyhow::Result<String> {
    let body = rules.to_toml_string();
    let hash = hex::encode(Sha256::digest(body.as_bytes()));
    let mut conn = db.conn()?;
    // Instances started together may both find it unknown: the one whose insert loses finds
    // it known the second time.
    let record = |conn: &mut crate::db::DbConnection| -> QueryResult<()> {
        let known = rule_sets::table
            .find(&hash)
            .count()
            .get_result::<i64>(conn)?
            > 0;
        if !known {
            diesel::insert_into(rule_sets::table)
                .values((
                    rule_sets::hash.eq(&hash),
                    rule_sets::name.eq(rules.name()),
                    rule_sets::body.eq(&body),
                    rule_sets::created_at.eq(now_micros()),
                ))
                .execute(conn)?;
            crate::audit::log::append(
                conn,
                vec![crate::audit::log::Entry::new(
                    crate::audit::kind::EntryKind::RuleSetRecorded,
                    &hash,
                    serde_json::json!({ "name": rules.name(), "body_sha256": hash }),
                )],
            )?;
        }
        Ok(())
    };
    use diesel::result::{DatabaseErrorKind, Error};
    match crate::store::transact(db, &mut conn, None, record) {
        Err(Error::DatabaseError(DatabaseErrorKind::UniqueViolation, _)) => {
            crate::store::transact(db, &mut conn, None, record)?
        }
        done => done?,
    }
    Ok(hash)
}
