//! Suspension (issue 33), as stored: what was found, when and by which instance, and the two
//! keys that resume it (`keno_core::suspension` says what stays open meanwhile). One row per
//! cause in force: a cause found again while its suspension stands adds nothing. The system is
//! suspended while any row is in force, across restarts and across instances; each instance's
//! [`gate::Gate`] holds what is in force for its requests and its drawer.

pub mod gate;
pub mod task;

use diesel::prelude::*;
use keno_api::suspension::{Standing, Suspension};
use keno_api::Refusal;
use keno_core::suspension::{Cause, SuspensionState};
use keno_core::Key;

use crate::approvals::{self, approvable, TwoKey};
use crate::audit::log::append;
use crate::auth::{Principal, Role};
use crate::db::per_backend;
use crate::db::schema::suspensions;
use crate::db::{now_micros, rfc3339, DbConnection};
use crate::error::{DomainResult, Failure};

#[derive(Queryable, Selectable, Debug, Clone)]
#[diesel(table_name = suspensions)]
pub struct SuspensionRow {
    pub id: i64,
    #[diesel(deserialize_as = String)]
    pub cause: Cause,
    pub detail: String,
    pub began_at: i64,
    pub instance: String,
    #[diesel(deserialize_as = String)]
    pub state: SuspensionState,
    pub lost_from: Option<i64>,
    pub lost_to: Option<i64>,
    pub supervisor_id: Option<String>,
    pub supervisor_at: Option<i64>,
    pub supervisor_note: Option<String>,
    pub inspector_id: Option<String>,
    pub inspector_at: Option<i64>,
    pub inspector_note: Option<String>,
    pub resumed_at: Option<i64>,
}

/// What was found that suspends the system.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    pub cause: Cause,
    /// A sentence naming what is wrong.
    pub detail: String,
    /// For a restore: the file's checkpoints the database no longer holds, first and last.
    pub lost: Option<(i64, i64)>,
}

approvable! {
    SuspensionRow in suspensions as "suspension",
    state: SuspensionState = |s| s.state,
    refused: |_| Refusal::NotSuspended,
    subject: |s| s.id.to_string(),
    kind: |act| match act {
        None => crate::audit::kind::EntryKind::Suspended,
        Some(_) => crate::audit::kind::EntryKind::ResumeKeyTurned,
    },
    payload: recorded,
}

/// What the trail's entries record of a suspension as it stands: verify compares the row with
/// its last entry, so a suspension ended by editing the database is a difference.
pub fn recorded(s: &SuspensionRow) -> serde_json::Value {
    serde_json::json!({
        "suspension": s.id, "cause": s.cause.as_str(), "detail": s.detail,
        "instance": s.instance, "lost_from": s.lost_from, "lost_to": s.lost_to,
        "supervisor": s.supervisor_id, "supervisor_note": s.supervisor_note,
        "inspector": s.inspector_id, "inspector_note": s.inspector_note,
        "resumed": s.resumed_at.is_some(), "state": s.state.as_str(),
    })
}

impl TwoKey for SuspensionRow {
    fn holder(&self, key: Key) -> Option<&str> {
        match key {
            Key::Supervisor => self.supervisor_id.as_deref(),
            Key::Inspector => self.inspector_id.as_deref(),
        }
    }
}

/// Suspends the system for `found` by `instance`, entered in the trail; if a suspension of
/// that cause is in force already, that one stands and nothing is added. The row, and whether
/// it is new.
pub fn begin(
    conn: &mut DbConnection,
    found: &Found,
    instance: &str,
) -> DomainResult<(SuspensionRow, bool)> {
    if let Some(row) = in_force(conn)?.into_iter().find(|r| r.cause == found.cause) {
        return Ok((row, false));
    }
    let row: SuspensionRow = per_backend!(conn, |c| diesel::insert_into(suspensions::table)
        .values((
            suspensions::cause.eq(found.cause.as_str()),
            suspensions::detail.eq(&found.detail),
            suspensions::began_at.eq(now_micros()),
            suspensions::instance.eq(instance),
            suspensions::state.eq(SuspensionState::InForce.as_str()),
            suspensions::lost_from.eq(found.lost.map(|l| l.0)),
            suspensions::lost_to.eq(found.lost.map(|l| l.1)),
        ))
        .returning(SuspensionRow::as_returning())
        .get_result(c))?;
    append(conn, vec![approvals::Approvable::entry(&row, None)])?;
    Ok((row, true))
}

/// The suspensions in force, oldest first.
pub fn in_force(conn: &mut DbConnection) -> QueryResult<Vec<SuspensionRow>> {
    suspensions::table
        .filter(suspensions::state.eq(SuspensionState::InForce.as_str()))
        .order(suspensions::id)
        .select(SuspensionRow::as_select())
        .load(conn)
}

/// Whether the system stands suspended, why, and the last ten resumed.
pub fn standing(conn: &mut DbConnection) -> DomainResult<Standing> {
    let in_force = in_force(conn)?;
    let resumed: Vec<SuspensionRow> = suspensions::table
        .filter(suspensions::state.eq(SuspensionState::Resumed.as_str()))
        .order(suspensions::id.desc())
        .limit(10)
        .select(SuspensionRow::as_select())
        .load(conn)?;
    Ok(Standing {
        suspended: !in_force.is_empty(),
        message: message(&in_force),
        in_force: in_force.iter().map(shown).collect(),
        resumed: resumed.iter().map(shown).collect(),
    })
}

/// The lowest game closed before `before` and not yet drawn and settled, with when it closed:
/// a draw mechanism that has failed (AGCO 21.1.9).
pub fn undrawn_since(conn: &mut DbConnection, before: i64) -> QueryResult<Option<(i64, i64)>> {
    use crate::db::schema::games;
    let awaiting = keno_core::GameState::codes_where(keno_core::GameState::awaiting_draw);
    games::table
        .filter(games::state.eq_any(awaiting))
        .filter(games::closed_at.lt(before))
        .order(games::number)
        .select((games::number, games::closed_at.assume_not_null()))
        .first(conn)
        .optional()
}

/// Suspends for game `number`, closed at `closed_at` and undrawn after `limit_seconds`.
pub fn undrawn(
    conn: &mut DbConnection,
    (number, closed_at): (i64, i64),
    limit_seconds: u64,
    instance: &str,
) -> DomainResult<bool> {
    let found = Found {
        cause: Cause::UndrawnGame,
        detail: format!(
            "game {number} closed at {} and is not drawn {limit_seconds} s later (--undrawn-limit)",
            crate::time::local(closed_at).format("%H:%M:%S")
        ),
        lost: None,
    };
    Ok(begin(conn, &found, instance)?.1)
}

/// Whether suspension `id` ended on the record: its last entry in the trail has both keys
/// turned. One whose row says resumed without it was ended by editing the database.
pub fn ended_on_the_record(conn: &mut DbConnection, id: i64) -> QueryResult<bool> {
    use crate::audit::kind::EntryKind;
    use crate::db::schema::audit_log;
    let last: Option<String> = audit_log::table
        .filter(audit_log::kind.eq_any([
            EntryKind::Suspended.as_str(),
            EntryKind::ResumeKeyTurned.as_str(),
        ]))
        .filter(audit_log::subject.eq(id.to_string()))
        .order(audit_log::seq.desc())
        .select(audit_log::payload)
        .first(conn)
        .optional()?;
    Ok(last
        .and_then(|p| serde_json::from_str::<serde_json::Value>(&p).ok())
        .is_some_and(|p| p["state"] == SuspensionState::Resumed.as_str()))
}

/// Suspends for the trail: suspension `id` was ended without its keys.
pub fn ended_off_the_record(
    conn: &mut DbConnection,
    id: i64,
    instance: &str,
) -> DomainResult<bool> {
    let found = Found {
        cause: Cause::Trail,
        detail: format!(
            "suspension {id} was ended in the database without a supervisor's and an \
             inspector's keys on the record: its row was changed behind the server's back"
        ),
        lost: None,
    };
    Ok(begin(conn, &found, instance)?.1)
}

/// What the gate holds: the suspensions in force, if any.
pub fn closed(conn: &mut DbConnection) -> QueryResult<Option<gate::Closed>> {
    let rows = in_force(conn)?;
    Ok((!rows.is_empty()).then(|| gate::Closed {
        message: message(&rows),
        causes: rows.iter().map(|r| r.cause).collect(),
        ids: rows.iter().map(|r| r.id).collect(),
    }))
}

/// What players and staff read while `rows` are in force (empty for none).
pub fn message(rows: &[SuspensionRow]) -> String {
    let Some(first) = rows.first() else {
        return String::new();
    };
    let causes: Vec<&str> = rows.iter().map(|r| r.cause.words()).collect();
    format!(
        "Keno is suspended since {}: {}. Nothing is sold, cancelled, paid or drawn until a \
         supervisor and an inspector resume it.",
        crate::time::local(first.began_at).format("%d/%m/%Y %H:%M"),
        causes.join("; ")
    )
}

pub fn shown(r: &SuspensionRow) -> Suspension {
    Suspension {
        id: r.id,
        cause: r.cause.as_str().to_string(),
        cause_words: r.cause.words().to_string(),
        detail: r.detail.clone(),
        began_at: rfc3339(r.began_at),
        instance: r.instance.clone(),
        state: r.state.as_str().to_string(),
        lost_checkpoints: r.lost_from.zip(r.lost_to).map(|(a, b)| [a, b]),
        supervisor: r.supervisor_id.clone(),
        supervisor_at: r.supervisor_at.map(rfc3339),
        supervisor_note: r.supervisor_note.clone(),
        inspector: r.inspector_id.clone(),
        inspector_at: r.inspector_at.map(rfc3339),
        inspector_note: r.inspector_note.clone(),
        resumed_at: r.resumed_at.map(rfc3339),
    }
}

/// `by` (a supervisor or an inspector) turns their key, with `note`, on suspension `id`;
/// with both keys turned by two people it is resumed. `resumed` runs in the same transaction
/// when this key completes the two (a restore's accepted gap is signed there).
pub fn turn_key<F>(
    conn: &mut DbConnection,
    id: i64,
    by: &Principal,
    note: &str,
    resumed: F,
) -> DomainResult<SuspensionRow>
where
    F: FnOnce(&mut DbConnection, &SuspensionRow) -> DomainResult<()>,
{
    let key = match by.role {
        Role::Supervisor => Key::Supervisor,
        Role::Inspector => Key::Inspector,
        _ => {
            return Err(Failure::forbidden(
                "only a supervisor or an inspector resumes",
            ))
        }
    };
    let turner = approvals::Turner {
        id: &by.id,
        name: &by.name,
    };
    approvals::turn::<SuspensionRow, _>(conn, id, key, turner, |conn, row, to| {
        let now = now_micros();
        let target = suspensions::table
            .find(id)
            .filter(suspensions::state.eq(SuspensionState::InForce.as_str()));
        let state = to.unwrap_or(SuspensionState::InForce).as_str();
        let resumed_at = to.map(|_| now);
        let changed = match key {
            Key::Supervisor => diesel::update(target.filter(suspensions::supervisor_id.is_null()))
                .set((
                    suspensions::supervisor_id.eq(&by.id),
                    suspensions::supervisor_at.eq(now),
                    suspensions::supervisor_note.eq(note),
                    suspensions::state.eq(state),
                    suspensions::resumed_at.eq(resumed_at),
                ))
                .execute(conn)?,
            Key::Inspector => diesel::update(target.filter(suspensions::inspector_id.is_null()))
                .set((
                    suspensions::inspector_id.eq(&by.id),
                    suspensions::inspector_at.eq(now),
                    suspensions::inspector_note.eq(note),
                    suspensions::state.eq(state),
                    suspensions::resumed_at.eq(resumed_at),
                ))
                .execute(conn)?,
        };
        if changed == 1 && to == Some(SuspensionState::Resumed) {
            resumed(conn, row)?;
        }
        Ok(changed)
    })
}
