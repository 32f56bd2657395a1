//! `keno-server audit exceptions`: what a supervisor reviews each day (as Nevada's keno MICS
//! asks): void draws and other faults, draw corrections, invalidated games, cancellations,
//! prizes paid late, new rule sets and principals, devices returned to service, set bets added to
//! or retired from the catalogue, approvals of Special 3 recorded or withdrawn, early closures of
//! Keno scheduled (with the inspector told) or withdrawn (rule 16.2), writers' shifts closed
//! over or short and their sign-offs, the room's acts (failed sign-ons, people and terminals
//! changed, supervisors' approvals at a counter), draw monitoring's alarms (a test of the games
//! drawn failing at 99.9%), the clock's steps and the games repaired at a restart. Each with
//! when, what, who and why; as text,
//! or JSON with `--json`.

use chrono::NaiveDate;
use clap::Args;
use diesel::prelude::*;
use keno_api::audit::{AuditException, DayExceptions, ExceptionKind};

use super::queries::{self, fault_kind};
use super::report::money;
use super::source::{self, Days, People, Range, Source, SourceArgs, Span};
use crate::auth::PrincipalRow;
use crate::closures::{local_hh_mm, ClosureRow};
use crate::db::schema::{
    claims, device_holds, draw_faults, keno_closures, principals, rule_sets, set_bets,
    special3_approvals,
};
use crate::db::{rfc3339, DbConnection};
use crate::set_bets::SetBetRow;
use crate::special3::ApprovalRow;
use keno_core::CorrectionState;
use keno_core::TicketStatus;

#[derive(Debug, Args)]
pub struct ExceptionsArgs {
    #[command(flatten)]
    pub source: SourceArgs,
    /// The Keno Day (YYYY-MM-DD).
    #[arg(long, value_name = "YYYY-MM-DD")]
    pub day: String,
    /// JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// One thing to review, with when it happened as stored: the day's order, and the local time
/// the text shows.
struct Found {
    micros: i64,
    exception: AuditException,
}

impl Found {
    fn in_game(mut self, game: i64) -> Found {
        self.exception.game = Some(game);
        self
    }

    fn of_ticket(mut self, serial: String) -> Found {
        self.exception.serial = Some(serial);
        self
    }
}

/// A Keno Day's exceptions in the order they happened, and the hours they fall in.
pub struct Review {
    keno_day: NaiveDate,
    /// From the day's start to the next day's, as stored.
    window: (i64, i64),
    found: Vec<Found>,
}

impl Review {
    /// The review as `--json` prints it and the HTTP API answers it.
    pub fn wire(self) -> DayExceptions {
        DayExceptions {
            keno_day: source::day_text(self.keno_day),
            from: rfc3339(self.window.0),
            to: rfc3339(self.window.1),
            exceptions: self.found.into_iter().map(|f| f.exception).collect(),
            not_recorded: NOT_RECORDED.iter().map(|n| n.to_string()).collect(),
        }
    }
}

/// Who invalidated a game opened under a clock ahead of time (`invalidation::by_the_server`).
pub const BY_THE_SERVER: &str = "the server (game time, at a restart)";

/// Who invalidated a game: the person, or the server itself.
pub fn invalidated_by(people: &People, principal: Option<&str>) -> String {
    match principal {
        Some(p) => people.who(Some(p)),
        None => BY_THE_SERVER.to_string(),
    }
}

/// Kinds the record cannot show yet.
const NOT_RECORDED: [&str; 1] = [
    "when a bearer token of `principal add` was disabled (it records only when it was added; people who sign on record every change)",
];

pub fn run(args: ExceptionsArgs) -> anyhow::Result<()> {
    let day = source::parse_day(&args.day)?;
    let source = Source::open(&args.source)?;
    let review = source.read(|conn| review(source.days(), conn, day))?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&review.wire())?);
        return Ok(());
    }
    let (from, to) = review.window;
    println!(
        "Exceptions for Keno Day {} ({} to {}, local time): {} to review",
        source::day_text(review.keno_day),
        source::when(from),
        source::when(to),
        review.found.len()
    );
    for Found {
        micros,
        exception: e,
    } in &review.found
    {
        println!(
            "{}  {:<15} {}  | who: {}  | why: {}",
            source::when(*micros),
            e.kind.as_str(),
            e.what,
            e.who,
            e.why
        );
    }
    if review.found.is_empty() {
        println!("Nothing to review.");
    }
    for n in &NOT_RECORDED {
        println!("Not shown: {n}.");
    }
    Ok(())
}

/// Keno Day `day`'s exceptions, as `conn` sees the record (the caller's read-only snapshot):
/// the command and `GET /api/v1/audit/exceptions` both read them here.
pub fn review(days: &Days, conn: &mut DbConnection, day: NaiveDate) -> anyhow::Result<Review> {
    let range = Range::resolve(days, conn, Span::Days(day, day))?;
    let people = People::load(conn)?;
    let mut found = Vec::new();
    if let Some((lo, hi)) = range.games {
        faults(conn, &people, lo, hi, &mut found)?;
        corrections(conn, &people, lo, hi, &mut found)?;
        invalidations(conn, &people, lo, hi, &mut found)?;
    }
    cancellations(conn, &people, range.window, &mut found)?;
    late_payments(conn, days, &people, range.window, &mut found)?;
    claims(conn, &people, range.window, &mut found)?;
    voids(conn, &people, range.window, &mut found)?;
    rule_set_changes(conn, range.window, &mut found)?;
    principal_changes(conn, range.window, &mut found)?;
    devices_returned(conn, &people, range.window, &mut found)?;
    set_bet_changes(conn, &people, range.window, &mut found)?;
    special3_approvals(conn, &people, range.window, &mut found)?;
    keno_closures(conn, &people, range.window, &mut found)?;
    for act in super::room::acts(conn, &people, range.window)? {
        let e = exception(act.micros, act.kind, act.what, act.who, act.why);
        found.push(match act.serial {
            Some(serial) => e.of_ticket(serial),
            None => e,
        });
    }
    shifts(conn, &people, range.window, &mut found)?;
    for a in super::draw_alarms::alarms(conn, &people, range.window)? {
        found.push(
            exception(
                a.micros,
                ExceptionKind::DrawMonitor,
                a.what,
                "the server (draw monitoring)".to_string(),
                a.why,
            )
            .in_game(a.game),
        );
    }
    for c in super::clock_steps::clock_exceptions(conn, range.window)? {
        let e = exception(
            c.micros,
            ExceptionKind::Clock,
            c.what,
            "the server (game time)".to_string(),
            c.why,
        );
        found.push(match c.game {
            Some(game) => e.in_game(game),
            None => e,
        });
    }
    for c in super::closed_early::closed_early(conn, &people, range.window)? {
        let e = exception(
            c.micros,
            ExceptionKind::GameClosedEarly,
            c.what,
            c.who,
            c.why,
        );
        found.push(e.in_game(c.game));
    }
    let name = |id: &str| people.name(id);
    for e in super::system_events::system_events(conn, range.window, &name)? {
        found.push(exception(
            e.micros,
            ExceptionKind::System,
            e.what,
            e.who,
            e.why,
        ));
    }
    found.sort_by_key(|f| (f.micros, f.exception.kind.as_str()));
    Ok(Review {
        keno_day: day,
        window: range.window,
        found,
    })
}

fn exception(micros: i64, kind: ExceptionKind, what: String, who: String, why: String) -> Found {
    Found {
        micros,
        exception: AuditException {
            at: rfc3339(micros),
            kind,
            game: None,
            serial: None,
            what,
            who,
            why,
        },
    }
}

fn faults(
    conn: &mut DbConnection,
    people: &People,
    lo: i64,
    hi: i64,
    found: &mut Vec<Found>,
) -> anyhow::Result<()> {
    for f in queries::faults(conn, lo, hi)? {
        let r = f.row;
        let ball = r.number.map(|n| format!(", ball {n}")).unwrap_or_default();
        let device = r
            .device_id
            .as_deref()
            .filter(|d| *d != r.principal_id)
            .map(|d| format!("; device {}", people.name(d)))
            .unwrap_or_default();
        found.push(
            exception(
                r.recorded_at,
                ExceptionKind::DrawFault,
                format!(
                    "game {} attempt {}: {}{ball}; {} ball(s) taken out of the record{device}",
                    r.game,
                    r.attempt,
                    fault_kind(&r.kind),
                    f.voided_balls
                ),
                people.who(Some(&r.principal_id)),
                r.reason,
            )
            .in_game(r.game),
        );
    }
    Ok(())
}

fn corrections(
    conn: &mut DbConnection,
    people: &People,
    lo: i64,
    hi: i64,
    found: &mut Vec<Found>,
) -> anyhow::Result<()> {
    for c in queries::corrections(conn, lo, hi)? {
        let outcome = match c.state {
            CorrectionState::Applied => "applied",
            CorrectionState::Rejected => "rejected",
            CorrectionState::Lapsed => "lapsed (the draw record changed)",
            CorrectionState::Pending => "pending: waiting for its second approval",
        };
        let mut who = vec![format!("asked by {}", people.who(Some(&c.requested_by)))];
        if let Some(s) = &c.supervisor_id {
            who.push(format!(
                "supervisor {} at {}",
                people.who(Some(s)),
                c.supervisor_at.map(source::when).unwrap_or_default()
            ));
        }
        if let Some(i) = &c.inspector_id {
            who.push(format!(
                "inspector {} at {}",
                people.who(Some(i)),
                c.inspector_at.map(source::when).unwrap_or_default()
            ));
        }
        if let Some(by) = &c.closed_by {
            if c.state == CorrectionState::Rejected {
                who.push(format!("rejected by {}", people.who(Some(by))));
            }
        }
        let mut why = c.reason.clone();
        if let Some(r) = &c.close_reason {
            why.push_str(&format!("; closed: {r}"));
        }
        found.push(
            exception(
                c.requested_at,
                ExceptionKind::Correction,
                format!(
                    "game {} attempt {} ball {}: {} corrected to {} (rule 10.1), {outcome}",
                    c.game, c.attempt, c.position, c.old_number, c.new_number
                ),
                who.join("; "),
                why,
            )
            .in_game(c.game),
        );
    }
    Ok(())
}

fn invalidations(
    conn: &mut DbConnection,
    people: &People,
    lo: i64,
    hi: i64,
    found: &mut Vec<Found>,
) -> anyhow::Result<()> {
    let refunds = queries::refunds_by_game(conn, lo, hi)?;
    for i in queries::invalidation_rows(conn, lo, hi)? {
        let (tickets, cents) = refunds.get(&i.game).copied().unwrap_or_default();
        found.push(
            exception(
                i.invalidated_at,
                ExceptionKind::Invalidation,
                format!(
                    "game {} invalidated (rule 17.3): {tickets} ticket(s) refunded {}",
                    i.game,
                    money(cents)
                ),
                invalidated_by(people, i.principal_id.as_deref()),
                i.reason,
            )
            .in_game(i.game),
        );
    }
    Ok(())
}

fn cancellations(
    conn: &mut DbConnection,
    people: &People,
    window: (i64, i64),
    found: &mut Vec<Found>,
) -> anyhow::Result<()> {
    for c in queries::cancellations(conn, window)? {
        let from = c.cancelled_from_game.unwrap_or(c.first_game);
        let what = if c.status == TicketStatus::Cancelled {
            format!("the whole ticket (games {from}-{})", c.last_game)
        } else {
            format!("games {from}-{}", c.last_game)
        };
        let cancellation = exception(
            c.cancelled_at,
            ExceptionKind::Cancellation,
            format!(
                "ticket {} (sold Keno Day {}, site {} terminal {}, {}) cancelled: {what}; refund {}",
                c.serial,
                c.keno_day,
                c.site,
                c.terminal,
                money(c.total_cents),
                money(c.refund_cents)
            ),
            people.who(c.cancelled_by.as_deref()),
            format!("cancelled before game {from} was drawn (rule 8); the server asks no reason"),
        );
        found.push(cancellation.in_game(from).of_ticket(c.serial));
    }
    Ok(())
}

fn late_payments(
    conn: &mut DbConnection,
    days: &Days,
    people: &People,
    window: (i64, i64),
    found: &mut Vec<Found>,
) -> anyhow::Result<()> {
    queries::for_each_payment(conn, window, |p| {
        let at = p.paid_at;
        let paid_day = days.day_of(at);
        let Ok(payable) = source::parse_day(&p.payable_day) else {
            return Ok(());
        };
        if paid_day <= payable {
            return Ok(());
        }
        let late_by = (paid_day - payable).num_days();
        let late = exception(
            at,
            ExceptionKind::LatePayment,
            format!(
                "ticket {} paid {} by {}; its last game {} was on Keno Day {}",
                p.serial,
                money(p.paid_cents),
                p.pay_method.as_deref().unwrap_or("?"),
                p.last_played_game,
                p.payable_day
            ),
            people.who(p.paid_by.as_deref()),
            format!("paid {late_by} Keno Day(s) after its last game; prizes are payable at a terminal for 12 months (rule 13.1)"),
        );
        found.push(late.in_game(p.last_played_game).of_ticket(p.serial.clone()));
        Ok(())
    })
}

/// Tickets whose wagers a supervisor voided in `window` (rule 17.2): why, the person excluded,
/// and the stake refunded or forfeited.
fn voids(
    conn: &mut DbConnection,
    people: &People,
    (from, to): (i64, i64),
    found: &mut Vec<Found>,
) -> anyhow::Result<()> {
    use crate::db::schema::ticket_voids;
    use crate::tickets::void::VoidRow;
    let rows: Vec<VoidRow> = ticket_voids::table
        .filter(ticket_voids::voided_at.ge(from))
        .filter(ticket_voids::voided_at.lt(to))
        .select(VoidRow::as_select())
        .load(conn)?;
    for v in rows {
        let stake = if v.forfeited {
            "stake forfeited".to_string()
        } else {
            format!("{} refunded", money(v.refund_cents))
        };
        let person = v
            .excluded_person
            .as_deref()
            .map_or(String::new(), |p| format!("; excluded: {p}"));
        found.push(exception(
            v.voided_at,
            ExceptionKind::TicketVoided,
            format!("ticket {} voided, {stake}{person}", v.serial),
            people.who(Some(&v.voided_by)),
            v.reason,
        ));
    }
    Ok(())
}

/// Unclaimed Prize Claim Forms decided or paid in `window` (rules 13.4, 13.5, 14): the
/// inspector's decision with its reason, and each prize paid by claim with its cheque.
fn claims(
    conn: &mut DbConnection,
    people: &People,
    (from, to): (i64, i64),
    found: &mut Vec<Found>,
) -> anyhow::Result<()> {
    let rows: Vec<crate::claims::ClaimRow> = claims::table
        .filter(
            claims::decided_at
                .ge(from)
                .and(claims::decided_at.lt(to))
                .or(claims::paid_at.ge(from).and(claims::paid_at.lt(to))),
        )
        .select(crate::claims::ClaimRow::as_select())
        .load(conn)?;
    for c in rows {
        let ticket = match (&c.ticket_serial, &c.approved_voucher) {
            (Some(serial), _) => format!("ticket {serial}"),
            (None, Some(code)) => format!("voucher {code}"),
            (None, None) => "ticket -".to_string(),
        };
        if let Some(at) = c.decided_at.filter(|at| (from..to).contains(at)) {
            found.push(exception(
                at,
                ExceptionKind::ClaimDecision,
                format!(
                    "claim {} ({}, {}) {} for {ticket}",
                    c.id,
                    c.reason,
                    c.claimant_name,
                    // The decision, whatever has happened since (a paid claim was approved).
                    if c.state == crate::claims::ClaimState::Rejected {
                        "rejected"
                    } else {
                        "approved"
                    }
                ),
                people.who(c.decided_by.as_deref()),
                c.decision_reason.clone().unwrap_or_default(),
            ));
        }
        if let Some(at) = c.paid_at.filter(|at| (from..to).contains(at)) {
            found.push(exception(
                at,
                ExceptionKind::ClaimPayment,
                format!(
                    "claim {} paid {} by cheque {} for {ticket}",
                    c.id,
                    money(c.paid_cents.unwrap_or(0)),
                    c.cheque_reference.as_deref().unwrap_or("-")
                ),
                people.who(c.paid_by.as_deref()),
                "an approved Unclaimed Prize Claim Form (rule 13.5)".into(),
            ));
        }
    }
    Ok(())
}

fn rule_set_changes(
    conn: &mut DbConnection,
    (from, to): (i64, i64),
    found: &mut Vec<Found>,
) -> anyhow::Result<()> {
    let rows: Vec<(String, String, i64)> = rule_sets::table
        .filter(rule_sets::created_at.ge(from))
        .filter(rule_sets::created_at.lt(to))
        .select((rule_sets::hash, rule_sets::name, rule_sets::created_at))
        .load(conn)?;
    for (hash, name, at) in rows {
        found.push(exception(
            at,
            ExceptionKind::RuleSet,
            format!(
                "rule set {name:?} (SHA-256 {}) first in force; games opened after it are played under it",
                &hash[..hash.len().min(16)]
            ),
            "not recorded: the operator who started `keno-server serve` with it".into(),
            "not recorded".into(),
        ));
    }
    Ok(())
}

fn principal_changes(
    conn: &mut DbConnection,
    (from, to): (i64, i64),
    found: &mut Vec<Found>,
) -> anyhow::Result<()> {
    // People who sign on: their acts come from the trail (`super::room`).
    let rows: Vec<PrincipalRow> = principals::table
        .filter(principals::kind.eq(crate::staff::PrincipalKind::Token.as_str()))
        .filter(principals::created_at.ge(from))
        .filter(principals::created_at.lt(to))
        .select(PrincipalRow::as_select())
        .load(conn)?;
    for PrincipalRow {
        id,
        role,
        name,
        site,
        terminal,
        created_at: at,
        disabled,
        ..
    } in rows
    {
        let place = match (site, terminal) {
            (Some(s), Some(t)) => format!(", site {s} terminal {t}"),
            _ => String::new(),
        };
        let disabled = if disabled { "; now disabled" } else { "" };
        found.push(exception(
            at,
            ExceptionKind::Principal,
            format!("{role} {name:?} added (id {id}{place}){disabled}"),
            "not recorded: added at the server with `keno-server principal add`".into(),
            "not recorded".into(),
        ));
    }
    Ok(())
}

fn devices_returned(
    conn: &mut DbConnection,
    people: &People,
    (from, to): (i64, i64),
    found: &mut Vec<Found>,
) -> anyhow::Result<()> {
    type Row = (
        String,
        i64,
        i64,
        Option<String>,
        Option<String>,
        Option<String>,
        Option<String>,
        i64,
    );
    let rows: Vec<Row> = device_holds::table
        .inner_join(draw_faults::table.on(draw_faults::id.eq(device_holds::fault_id)))
        .filter(device_holds::returned_at.ge(from))
        .filter(device_holds::returned_at.lt(to))
        .select((
            device_holds::device_id,
            device_holds::fault_id,
            // In the window, so never null.
            device_holds::returned_at.assume_not_null(),
            device_holds::supervisor_id,
            device_holds::supervisor_note,
            device_holds::inspector_id,
            device_holds::inspector_note,
            draw_faults::game,
        ))
        .load(conn)?;
    for (device, fault, returned_at, supervisor, s_note, inspector, i_note, game) in rows {
        found.push(
            exception(
                returned_at,
                ExceptionKind::DeviceReturned,
                format!(
                    "device {} returned to service after fault #{fault} in game {game} (rule 10.4)",
                    people.name(&device)
                ),
                format!(
                    "supervisor {}; inspector {}",
                    people.who(supervisor.as_deref()),
                    people.who(inspector.as_deref())
                ),
                format!(
                    "supervisor: {}; inspector: {}",
                    s_note.unwrap_or_default(),
                    i_note.unwrap_or_default()
                ),
            )
            .in_game(game),
        );
    }
    Ok(())
}

/// Sets added to the catalogue of set bets, and sets retired (rule 6.3(h)).
fn set_bet_changes(
    conn: &mut DbConnection,
    people: &People,
    (from, to): (i64, i64),
    found: &mut Vec<Found>,
) -> anyhow::Result<()> {
    let rows: Vec<SetBetRow> = set_bets::table
        .filter(
            set_bets::created_at
                .ge(from)
                .and(set_bets::created_at.lt(to))
                .or(set_bets::retired_at
                    .ge(from)
                    .and(set_bets::retired_at.lt(to))),
        )
        .select(SetBetRow::as_select())
        .load(conn)?;
    for set in rows {
        let (id, name) = (set.id, &set.name);
        if (from..to).contains(&set.created_at) {
            found.push(exception(
                set.created_at,
                ExceptionKind::SetBet,
                format!(
                    "set bet {id} {name:?} added to the catalogue: groups {}, combining {}, {} a way suggested (rule 6.3(h))",
                    set.groups_json,
                    set.combine_json,
                    money(set.amount_per_way_cents)
                ),
                people.who(Some(&set.created_by)),
                set.description.clone().unwrap_or_default(),
            ));
        }
        if let Some(at) = set.retired_at.filter(|at| (from..to).contains(at)) {
            found.push(exception(
                at,
                ExceptionKind::SetBet,
                format!("set bet {id} {name:?} retired: no longer sold (rule 6.3(h))"),
                people.who(set.retired_by.as_deref()),
                "not recorded".into(),
            ));
        }
    }
    Ok(())
}

/// Approvals of Special 3 recorded and withdrawn (rule 18.4).
fn special3_approvals(
    conn: &mut DbConnection,
    people: &People,
    (from, to): (i64, i64),
    found: &mut Vec<Found>,
) -> anyhow::Result<()> {
    let rows: Vec<ApprovalRow> = special3_approvals::table
        .filter(
            special3_approvals::recorded_at
                .ge(from)
                .and(special3_approvals::recorded_at.lt(to))
                .or(special3_approvals::withdrawn_at
                    .ge(from)
                    .and(special3_approvals::withdrawn_at.lt(to))),
        )
        .select(ApprovalRow::as_select())
        .load(conn)?;
    for a in rows {
        let digest = &a.schedule_digest[..a.schedule_digest.len().min(16)];
        if (from..to).contains(&a.recorded_at) {
            let expiry = a.expires_at.map_or_else(
                || "no expiry".to_string(),
                |e| format!("expires {}", rfc3339(e)),
            );
            found.push(exception(
                a.recorded_at,
                ExceptionKind::Special3Approval,
                format!(
                    "approval {} of Special 3 (table SHA-256 {digest}) recorded: {:?} by {}, given {}, {expiry} (rule 18.4)",
                    a.id,
                    a.reference,
                    a.approved_by,
                    rfc3339(a.approved_at)
                ),
                people.who(Some(&a.recorded_by)),
                a.note.clone().unwrap_or_default(),
            ));
        }
        if let Some(at) = a.withdrawn_at.filter(|at| (from..to).contains(at)) {
            found.push(exception(
                at,
                ExceptionKind::Special3Approval,
                format!(
                    "approval {} of Special 3 ({:?}) withdrawn: Special 3 not sold without another (rule 18.4)",
                    a.id, a.reference
                ),
                people.who(a.withdrawn_by.as_deref()),
                a.withdrawal_reason.clone().unwrap_or_default(),
            ));
        }
    }
    Ok(())
}

/// Early closures of Keno (rule 16.2): each scheduled, with the inspector told and the notice
/// given, and each withdrawn, when it happened in the day's hours.
fn keno_closures(
    conn: &mut DbConnection,
    people: &People,
    (from, to): (i64, i64),
    found: &mut Vec<Found>,
) -> anyhow::Result<()> {
    let rows: Vec<ClosureRow> = keno_closures::table
        .filter(
            keno_closures::scheduled_at
                .ge(from)
                .and(keno_closures::scheduled_at.lt(to))
                .or(keno_closures::withdrawn_at
                    .ge(from)
                    .and(keno_closures::withdrawn_at.lt(to))),
        )
        .order(keno_closures::id)
        .select(ClosureRow::as_select())
        .load(conn)?;
    for c in rows {
        if (from..to).contains(&c.scheduled_at) {
            let notice_minutes = (c.closes_at - c.scheduled_at) / 60_000_000;
            found.push(exception(
                c.scheduled_at,
                ExceptionKind::KenoClosure,
                format!(
                    "closure {} of Keno Day {} scheduled for {} ({}), notice to players from now ({notice_minutes} min); inspector told: {:?} (rule 16.2)",
                    c.id,
                    c.keno_day,
                    local_hh_mm(c.closes_at),
                    rfc3339(c.closes_at),
                    c.inspector_notified
                ),
                people.who(Some(&c.scheduled_by)),
                c.reason.clone(),
            ));
        }
        if let Some(at) = c.withdrawn_at.filter(|at| (from..to).contains(at)) {
            let why = c.withdrawal_reason.clone().ok_or_else(|| {
                anyhow::anyhow!("closure {}: withdrawn without a recorded reason", c.id)
            })?;
            found.push(exception(
                at,
                ExceptionKind::KenoClosure,
                format!(
                    "closure {} of Keno Day {} at {} withdrawn: Keno runs its normal hours (rule 16.2)",
                    c.id,
                    c.keno_day,
                    local_hh_mm(c.closes_at)
                ),
                people.who(c.withdrawn_by.as_deref()),
                why,
            ));
        }
    }
    Ok(())
}

/// Writers' shifts closed over or short in `window`, and the sign-offs of those beyond the
/// tolerance (issue 17; Nebraska 316-35-615: writer check-out with over/short).
fn shifts(
    conn: &mut DbConnection,
    people: &People,
    (from, to): (i64, i64),
    found: &mut Vec<Found>,
) -> anyhow::Result<()> {
    use crate::db::schema::shifts;
    use crate::shifts::ShiftRow;
    let rows: Vec<ShiftRow> = shifts::table
        .filter(
            shifts::closed_at
                .ge(from)
                .and(shifts::closed_at.lt(to))
                .and(shifts::over_short_cents.ne(0))
                .or(shifts::signed_off_at
                    .ge(from)
                    .and(shifts::signed_off_at.lt(to))),
        )
        .order(shifts::id)
        .select(ShiftRow::as_select())
        .load(conn)?;
    for s in rows {
        found.extend(over_short(&s, people, (from, to)));
        if let Some(at) = s.signed_off_at.filter(|at| (from..to).contains(at)) {
            let why = s.sign_off_reason.clone().ok_or_else(|| {
                anyhow::anyhow!("shift {}: signed off without a recorded reason", s.id)
            })?;
            found.push(exception(
                at,
                ExceptionKind::ShiftSignOff,
                format!(
                    "shift {} of {} at site {} terminal {} signed off, over/short {}",
                    s.id,
                    people.name(&s.principal_id),
                    s.site,
                    s.terminal,
                    s.over_short_cents.map_or("not recorded".into(), money)
                ),
                people.who(s.signed_off_by.as_deref()),
                why,
            ));
        }
    }
    Ok(())
}

/// Shift `s` closed over or short in `window`, if it was.
fn over_short(
    s: &crate::shifts::ShiftRow,
    people: &People,
    (from, to): (i64, i64),
) -> Option<Found> {
    // The table's checks keep the close's columns together.
    let (at, counted, expected, os) = match (
        s.closed_at,
        s.counted_cents,
        s.expected_cents,
        s.over_short_cents,
    ) {
        (Some(at), Some(c), Some(e), Some(os)) if os != 0 && (from..to).contains(&at) => {
            (at, c, e, os)
        }
        _ => return None,
    };
    Some(exception(
        at,
        ExceptionKind::ShiftOverShort,
        format!(
            "shift {} at site {} terminal {} closed {} {}: counted {}, expected {}; {}",
            s.id,
            s.site,
            s.terminal,
            if os > 0 { "over" } else { "short" },
            money(os.abs()),
            money(counted),
            money(expected),
            if s.sign_off_required {
                "beyond the tolerance: a supervisor signs it off"
            } else {
                "within the tolerance"
            }
        ),
        people.who(Some(&s.principal_id)),
        "not recorded: the count is the writer's".into(),
    ))
}
