//! Early closure of Keno with notice (rule 16.2): "the Casino Operator may close Keno prior to
//! the closing of gaming, provided that prior notice of closure of Keno is given to the
//! players, subject to prior notification to a Government Casino Inspector."
//!
//! A supervisor schedules today's closure, recording the inspector told of it; the core
//! (`keno_core::closure`) decides whether the time gives the players the notice period
//! (`--closure-notice`) and falls before today's normal end of gaming. From then the displays
//! and counters show "KENO CLOSES AT hh:mm" (the `keno_closure` event and
//! `GET /api/v1/keno/closure`); the game clock opens no game at or after it (`clock_step` and
//! `games::insert_next_game` take the closure in force as an input). A closure binds only its
//! own Keno Day: the next day games open as usual, and the unplayed games of multi-game tickets,
//! the next game numbers, are played then. It can be withdrawn until it takes effect. Each act
//! enters the audit trail and the day's exceptions.

use std::time::Duration;

use chrono::{DateTime, Local};
use diesel::prelude::*;
use keno_api::closures::{notice_text, Closure, ClosureNotice, ScheduleClosure};
use keno_api::events::{Event, KenoClosure};
use keno_api::Refusal;
use keno_core::{check_closure, ClosureError, ClosureState};

use crate::db::schema::keno_closures;
use crate::db::{now_micros, rfc3339, DbConnection};
use crate::error::{DomainResult, Failure};
use crate::keno_day::KenoHours;
use crate::store::hold::held;

#[derive(Queryable, Selectable, Clone, Debug)]
#[diesel(table_name = keno_closures)]
pub struct ClosureRow {
    pub id: i64,
    pub keno_day: String,
    pub closes_at: i64,
    pub inspector_notified: String,
    pub reason: String,
    pub scheduled_by: String,
    pub scheduled_at: i64,
    pub withdrawn_at: Option<i64>,
    pub withdrawn_by: Option<String>,
    pub withdrawal_reason: Option<String>,
}

impl ClosureRow {
    /// Where it stands at `now` (derived from the record, never stored).
    pub fn state(&self, now: i64) -> ClosureState {
        ClosureState::at(self.withdrawn_at.is_some(), self.closes_at, now)
    }

    /// The audit trail's record of it as scheduled (`keno_closure_scheduled`), which
    /// `audit verify` compares with the row.
    pub fn scheduled_payload(&self) -> serde_json::Value {
        serde_json::json!({
            "keno_day": self.keno_day,
            "closes_at": self.closes_at,
            "inspector_notified": self.inspector_notified,
            "reason": self.reason,
            "scheduled_by": self.scheduled_by,
            "scheduled_at": self.scheduled_at,
        })
    }

    /// The audit trail's record of its withdrawal (`keno_closure_withdrawn`), if withdrawn.
    pub fn withdrawn_payload(&self) -> Option<serde_json::Value> {
        self.withdrawn_at.map(|at| {
            serde_json::json!({
                "withdrawn_at": at,
                "withdrawn_by": self.withdrawn_by,
                "reason": self.withdrawal_reason,
            })
        })
    }

    /// As the API shows it at `now`.
    pub fn view(self, now: i64) -> Closure {
        Closure {
            state: self.state(now).into(),
            id: self.id,
            keno_day: self.keno_day,
            closes_at: rfc3339(self.closes_at),
            closes_at_local: local_hh_mm(self.closes_at),
            inspector_notified: self.inspector_notified,
            reason: self.reason,
            scheduled_by: self.scheduled_by,
            scheduled_at: rfc3339(self.scheduled_at),
            withdrawn_at: self.withdrawn_at.map(rfc3339),
            withdrawn_by: self.withdrawn_by,
            withdrawal_reason: self.withdrawal_reason,
        }
    }

    fn notice(&self, now: i64) -> ClosureNotice {
        let local = local_hh_mm(self.closes_at);
        let state = self.state(now).into();
        ClosureNotice {
            id: self.id,
            keno_day: self.keno_day.clone(),
            closes_at: rfc3339(self.closes_at),
            message: notice_text(&local, state),
            closes_at_local: local,
            state,
        }
    }

    /// The displays' `keno_closure` event of it.
    pub fn event(&self) -> Event {
        Event::KenoClosure(KenoClosure {
            id: self.id,
            keno_day: self.keno_day.clone(),
            closes_at: rfc3339(self.closes_at),
            closes_at_local: local_hh_mm(self.closes_at),
            withdrawn: self.withdrawn_at.is_some(),
        })
    }
}

/// `micros` as hh:mm on the venue's clock (the server's local time, as Keno hours are).
pub fn local_hh_mm(micros: i64) -> String {
    local(micros).format("%H:%M").to_string()
}

fn local(micros: i64) -> DateTime<Local> {
    crate::time::local(micros)
}

/// The closure in force (scheduled or in effect, not withdrawn) for Keno Day `keno_day`.
pub fn in_force(conn: &mut DbConnection, keno_day: &str) -> QueryResult<Option<ClosureRow>> {
    keno_closures::table
        .filter(keno_closures::keno_day.eq(keno_day))
        .filter(keno_closures::withdrawn_at.is_null())
        .select(ClosureRow::as_select())
        .first(conn)
        .optional()
}

/// The time Keno closes early on the Keno Day `now` falls in, if a closure is in force: what
/// the game clock takes as an input (rule 16.2). Outside Keno hours there is none.
pub fn closes_at(hours: &KenoHours, conn: &mut DbConnection, now: i64) -> QueryResult<Option<i64>> {
    let Some(day) = hours.keno_day(local(now)) else {
        return Ok(None);
    };
    let day = day.format("%Y-%m-%d").to_string();
    Ok(in_force(conn, &day)?.map(|c| c.closes_at))
}

/// The core's refusal in words, its times on the venue's clock.
fn refusal(e: &ClosureError, notice_seconds: u64) -> Failure {
    let when = |micros: i64| local(micros).format("%H:%M:%S").to_string();
    let message = match e {
        ClosureError::TooLittleNotice { earliest } => format!(
            "rule 16.2: players must be given notice of the closure, at least {notice_seconds} s \
             from now: the earliest time is {} (venue time)",
            when(*earliest)
        ),
        ClosureError::NotBeforeEndOfGaming { ends_at } => format!(
            "rule 16.2: an early closure must fall before today's normal end of gaming at {} \
             (venue time, rule 16.1)",
            when(*ends_at)
        ),
        other => other.to_string(),
    };
    Failure::refuse(Refusal::InvalidClosure, message)
}

fn closure_time(text: &str) -> DomainResult<i64> {
    DateTime::parse_from_rfc3339(text.trim())
        .map(|t| t.timestamp_micros())
        .map_err(|_| {
            Failure::refuse(
                Refusal::InvalidClosure,
                format!("closes_at must be a time in RFC 3339, like 2026-11-25T21:45:00+11:00, not {text:?}"),
            )
        })
}

/// What a schedule request comes to once checked: the Keno Day, the time, the inspector and
/// the reason, trimmed.
pub struct Checked {
    keno_day: String,
    closes_at: i64,
    inspector: String,
    reason: String,
}

/// A request to close today's Keno Day early, checked against the Keno `hours` and the
/// players' `notice` (`--closure-notice`) at `now`.
pub fn check(
    (hours, notice): (&KenoHours, Duration),
    request: &ScheduleClosure,
    now: i64,
) -> DomainResult<Checked> {
    let closes_at = closure_time(&request.closes_at)?;
    let day = hours.keno_day(local(now));
    let today = day.map(|d| hours.hours_of(d));
    check_closure(
        closes_at,
        &request.inspector_notified,
        now,
        notice.as_micros() as i64,
        today,
    )
    .map_err(|e| refusal(&e, notice.as_secs()))?;
    let reason = crate::reason::reason(&request.reason)?;
    // The inspector's name as every name is kept (issue 31).
    let inspector = crate::reason::kept(
        "the inspector notified",
        &request.inspector_notified,
        keno_core::closure::INSPECTOR_MAX_CHARS,
        Refusal::InvalidClosure,
    )?;
    Ok(Checked {
        keno_day: day
            .map(|d| d.format("%Y-%m-%d").to_string())
            .ok_or_else(|| refusal(&ClosureError::KenoClosed, 0))?,
        closes_at,
        inspector,
        reason,
    })
}

/// The notice of the closure in force today, at `now`; `None` when Keno runs its normal hours
/// (or is closed).
pub fn notice_today(
    hours: &KenoHours,
    conn: &mut DbConnection,
    now: i64,
) -> DomainResult<Option<ClosureNotice>> {
    let Some(day) = hours.keno_day(local(now)) else {
        return Ok(None);
    };
    let row = in_force(conn, &day.format("%Y-%m-%d").to_string())?;
    Ok(row.map(|r| r.notice(now)))
}

fn already_scheduled(existing: &ClosureRow) -> Failure {
    Failure::refuse(
        Refusal::ClosureScheduled,
        format!(
            "Keno Day {} already has closure {} at {}: withdraw it first to schedule another",
            existing.keno_day,
            existing.id,
            local_hh_mm(existing.closes_at)
        ),
    )
}

/// Records the closure and its audit entry, one in force per Keno Day.
pub fn record(
    conn: &mut DbConnection,
    c: &Checked,
    principal: &str,
    now: i64,
) -> DomainResult<ClosureRow> {
    if let Some(existing) = in_force(conn, &c.keno_day)? {
        return Err(already_scheduled(&existing));
    }
    let row: ClosureRow =
        crate::db::per_backend!(conn, |conn| diesel::insert_into(keno_closures::table)
            .values((
                keno_closures::keno_day.eq(&c.keno_day),
                keno_closures::closes_at.eq(c.closes_at),
                keno_closures::inspector_notified.eq(&c.inspector),
                keno_closures::reason.eq(&c.reason),
                keno_closures::scheduled_by.eq(principal),
                keno_closures::scheduled_at.eq(now),
            ))
            .returning(ClosureRow::as_returning())
            .get_result(conn))?;
    crate::audit::log::append(
        conn,
        vec![crate::audit::log::Entry::new(
            crate::audit::kind::EntryKind::KenoClosureScheduled,
            row.id,
            row.scheduled_payload(),
        )
        .by(principal)],
    )?;
    Ok(row)
}

/// The closure held, checked withdrawable at this moment, withdrawn and audited.
pub fn withdrawn(
    conn: &mut DbConnection,
    id: i64,
    principal: &str,
    reason: &str,
) -> DomainResult<ClosureRow> {
    let row: Option<ClosureRow> = held!(
        conn,
        Hold::Update,
        keno_closures::table
            .find(id)
            .select(ClosureRow::as_select()),
        |c, q| q.first(c).optional()
    )?;
    let row = row.ok_or_else(|| Failure::not_found("closure"))?;
    let now = now_micros();
    // Rule 16.2: once Keno has closed it stays closed for the day; a withdrawal is for a
    // closure still to come.
    let refused = match row.state(now) {
        ClosureState::Scheduled => None,
        ClosureState::InEffect => Some("it has taken effect: Keno is closed for the day"),
        ClosureState::Withdrawn => Some("it was withdrawn already"),
    };
    if let Some(why) = refused {
        let message = format!("closure {id} cannot be withdrawn: {why}");
        return Err(Failure::refuse(Refusal::ClosureNotOpen, message));
    }
    diesel::update(keno_closures::table.find(id))
        .set((
            keno_closures::withdrawn_at.eq(now),
            keno_closures::withdrawn_by.eq(principal),
            keno_closures::withdrawal_reason.eq(reason),
        ))
        .execute(conn)?;
    let row = ClosureRow {
        withdrawn_at: Some(now),
        withdrawn_by: Some(principal.to_string()),
        withdrawal_reason: Some(reason.to_string()),
        ..row
    };
    let payload = row.withdrawn_payload().expect("just withdrawn");
    crate::audit::log::append(
        conn,
        vec![crate::audit::log::Entry::new(
            crate::audit::kind::EntryKind::KenoClosureWithdrawn,
            id,
            payload,
        )
        .by(principal)],
    )?;
    Ok(row)
}
