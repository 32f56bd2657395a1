//! The three acts of a shift, each in one transaction with its audit entry: opened by its
//! writer with a float, closed by its writer with the count, signed off by a supervisor.

use diesel::prelude::*;
use keno_api::Refusal;
use keno_core::{balance, DrawerMovements, KenoDay, ShiftState};

use super::{open_of, ShiftRow};
use crate::audit::log::{append, Entry};
use crate::auth::Principal;
use crate::db::schema::shifts;
use crate::db::{now_micros, rfc3339, DbConnection};
use crate::error::{DomainResult, Failure};
use crate::store::hold::held;

/// A float or a count as typed, checked by the core (0 to $1,000,000.00).
pub fn amount(cents: i64, what: &str) -> DomainResult<u64> {
    keno_core::drawer_amount(cents)
        .map_err(|e| Failure::refuse(Refusal::InvalidAmount, format!("{what}: {e}")))
}

/// Opens a shift for `principal` at their site and terminal with `float` in the drawer.
pub fn open(
    conn: &mut DbConnection,
    principal: &Principal,
    float: u64,
    today: KenoDay,
) -> DomainResult<ShiftRow> {
    let (Some(site), Some(terminal)) = (&principal.site, &principal.terminal) else {
        return Err(Failure::forbidden(
            "a shift is a terminal's drawer: sign on at a terminal to open one",
        ));
    };
    if let Some(open) = open_of(conn, &principal.id)? {
        return Err(already_open(&open, "you have"));
    }
    let at_terminal: Option<ShiftRow> = shifts::table
        .filter(shifts::site.eq(site))
        .filter(shifts::terminal.eq(terminal))
        .filter(shifts::closed_at.is_null())
        .select(ShiftRow::as_select())
        .first(conn)
        .optional()?;
    if let Some(open) = at_terminal {
        return Err(already_open(&open, "this terminal has"));
    }
    let row: ShiftRow = crate::db::per_backend!(conn, |c| diesel::insert_into(shifts::table)
        .values((
            shifts::principal_id.eq(&principal.id),
            shifts::site.eq(site),
            shifts::terminal.eq(terminal),
            shifts::keno_day.eq(today.to_string()),
            shifts::opened_at.eq(now_micros()),
            shifts::float_cents.eq(float as i64),
        ))
        .returning(ShiftRow::as_returning())
        .get_result(c))?;
    append(
        conn,
        vec![Entry::new(
            crate::audit::kind::EntryKind::ShiftOpened,
            row.id,
            row.opened_payload(),
        )
        .by(&principal.id)],
    )?;
    Ok(row)
}

fn already_open(open: &ShiftRow, whose: &str) -> Failure {
    Failure::refuse(
        Refusal::ShiftOpen,
        format!(
            "{whose} shift {} open at site {} terminal {} since {}: close it first",
            open.id,
            open.site,
            open.terminal,
            rfc3339(open.opened_at)
        ),
    )
}

/// Closes `principal`'s open shift with `counted` cents in the drawer: the drawer's movements
/// from its opening to now, the balance by the core, kept with the count. Returns the row and
/// the movements it was balanced on.
pub fn close(
    conn: &mut DbConnection,
    principal: &str,
    counted: u64,
    tolerance: u64,
) -> DomainResult<(ShiftRow, DrawerMovements)> {
    let row: Option<ShiftRow> = held!(
        conn,
        Hold::Update,
        shifts::table
            .filter(shifts::principal_id.eq(principal))
            .filter(shifts::closed_at.is_null())
            .select(ShiftRow::as_select()),
        |c, q| q.first(c).optional()
    )?;
    let row = row.ok_or_else(super::no_shift)?;
    let now = now_micros();
    let closing = ShiftRow {
        closed_at: Some(now),
        ..row
    };
    let cash = closing.movements(conn)?;
    let b = balance(closing.float()?, &cash, counted, tolerance);
    let changed = diesel::update(shifts::table.find(closing.id))
        .filter(shifts::closed_at.is_null())
        .set((
            shifts::closed_at.eq(now),
            shifts::counted_cents.eq(counted as i64),
            shifts::expected_cents.eq(b.expected_cents),
            shifts::over_short_cents.eq(b.over_short_cents),
            shifts::sign_off_required.eq(b.needs_sign_off),
        ))
        .execute(conn)?;
    if changed != 1 {
        return Err(super::no_shift());
    }
    let row = ShiftRow {
        counted_cents: Some(counted as i64),
        expected_cents: Some(b.expected_cents),
        over_short_cents: Some(b.over_short_cents),
        sign_off_required: b.needs_sign_off,
        ..closing
    };
    let payload = row.closed_payload(&cash).expect("just closed");
    append(
        conn,
        vec![Entry::new(crate::audit::kind::EntryKind::ShiftClosed, row.id, payload).by(principal)],
    )?;
    Ok((row, cash))
}

/// A supervisor signs off shift `id`, closed over or short beyond the tolerance.
pub fn sign_off(
    conn: &mut DbConnection,
    id: i64,
    supervisor: &str,
    reason: &str,
) -> DomainResult<ShiftRow> {
    let row: Option<ShiftRow> = held!(
        conn,
        Hold::Update,
        shifts::table.find(id).select(ShiftRow::as_select()),
        |c, q| q.first(c).optional()
    )?;
    let row = row.ok_or_else(|| Failure::not_found("shift"))?;
    let why = match row.state() {
        ShiftState::AwaitingSignOff => None,
        ShiftState::Open => Some("it is still open"),
        ShiftState::Closed if row.signed_off_at.is_some() => Some("it was signed off already"),
        ShiftState::Closed => Some("it closed within the tolerance: nothing to sign off"),
    };
    if let Some(why) = why {
        return Err(Failure::refuse(
            Refusal::ShiftNotAwaitingSignOff,
            format!("shift {id} cannot be signed off: {why}"),
        ));
    }
    let now = now_micros();
    diesel::update(shifts::table.find(id))
        .filter(shifts::signed_off_at.is_null())
        .set((
            shifts::signed_off_by.eq(supervisor),
            shifts::signed_off_at.eq(now),
            shifts::sign_off_reason.eq(reason),
        ))
        .execute(conn)?;
    let row = ShiftRow {
        signed_off_by: Some(supervisor.to_string()),
        signed_off_at: Some(now),
        sign_off_reason: Some(reason.to_string()),
        ..row
    };
    let payload = row.signed_off_payload().expect("just signed off");
    append(
        conn,
        vec![Entry::new(crate::audit::kind::EntryKind::ShiftSignedOff, id, payload).by(supervisor)],
    )?;
    Ok(row)
}
