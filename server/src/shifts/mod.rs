//! Writers' shifts and their banks (issue 17; Nebraska 316-35-615: writer check-out with
//! over/short). A writer opens a shift at their terminal with a float, sells, cancels, pays and
//! handles vouchers, and closes it with the cash counted. The drawer's expected cash is the
//! float plus the cash taken, less the cash given (`drawer`: summed from the acts' own records;
//! keno-core's `balance`); the close keeps it with the count and the over/short. Beyond
//! `--over-short-tolerance` a supervisor signs the shift off with a reason. Each act enters the
//! audit trail (`shift_opened`, `shift_closed`, `shift_signed_off`); over/short and sign-offs
//! are in the day's exceptions; `report` gives a shift's figures as JSON and PDF.
//!
//! One shift is open per writer and per terminal (two partial unique indexes): a second open
//! is refused, and of two at once the index keeps one.

mod acts;
pub mod drawer;
mod report;

use std::collections::HashMap;

use diesel::prelude::*;
use keno_api::staff::{DrawerCash, Shift, ShiftReport};
use keno_api::Refusal;
use keno_core::{expected_cash, DrawerMovements, KenoDay, ShiftState};

use crate::auth::{Principal, Role};
use crate::db::schema::{principals, shifts};
use crate::db::{rfc3339, DbConnection};
use crate::error::{DomainResult, Failure};
use drawer::Window;

pub use acts::amount;

#[derive(Queryable, Selectable, Clone, Debug)]
#[diesel(table_name = shifts)]
pub struct ShiftRow {
    pub id: i64,
    pub principal_id: String,
    pub site: String,
    pub terminal: String,
    pub keno_day: String,
    pub opened_at: i64,
    pub float_cents: i64,
    pub closed_at: Option<i64>,
    pub counted_cents: Option<i64>,
    pub expected_cents: Option<i64>,
    pub over_short_cents: Option<i64>,
    pub signed_off_by: Option<String>,
    pub signed_off_at: Option<i64>,
    pub sign_off_reason: Option<String>,
    pub sign_off_required: bool,
}

impl ShiftRow {
    pub fn state(&self) -> ShiftState {
        ShiftState::of(
            self.closed_at.is_some(),
            self.sign_off_required,
            self.signed_off_at.is_some(),
        )
    }

    /// The float as stored: never negative (a check of the table).
    pub fn float(&self) -> DomainResult<u64> {
        u64::try_from(self.float_cents).map_err(|_| {
            Failure::Internal(anyhow::anyhow!(
                "shift {}: its float is stored as {}",
                self.id,
                self.float_cents
            ))
        })
    }

    /// Whose drawer and when: from the opening to the close, or on while open.
    pub fn window(&self, conn: &mut DbConnection) -> QueryResult<Window> {
        Ok(Window {
            principal: self.principal_id.clone(),
            site: self.site.clone(),
            terminal: self.terminal.clone(),
            from: self.opened_at,
            to: self.closed_at.unwrap_or(i64::MAX),
            first_game: drawer::first_game_from(conn, self.opened_at)?,
        })
    }

    /// The drawer's movements in the shift, as the records stand.
    pub fn movements(&self, conn: &mut DbConnection) -> DomainResult<DrawerMovements> {
        let window = self.window(conn)?;
        drawer::movements(conn, &window)
    }

    /// The trail's record of the opening (`shift_opened`), which `audit verify` compares with
    /// the row.
    pub fn opened_payload(&self) -> serde_json::Value {
        serde_json::json!({
            "principal_id": self.principal_id,
            "site": self.site,
            "terminal": self.terminal,
            "keno_day": self.keno_day,
            "opened_at": self.opened_at,
            "float_cents": self.float_cents,
        })
    }

    /// The trail's record of the close (`shift_closed`) with the drawer's movements it was
    /// balanced on; none while open.
    pub fn closed_payload(&self, cash: &DrawerMovements) -> Option<serde_json::Value> {
        self.closed_at.map(|at| {
            serde_json::json!({
                "principal_id": self.principal_id,
                "site": self.site,
                "terminal": self.terminal,
                "closed_at": at,
                "counted_cents": self.counted_cents,
                "expected_cents": self.expected_cents,
                "over_short_cents": self.over_short_cents,
                "sign_off_required": self.sign_off_required,
                "cash": cash_json(cash),
            })
        })
    }

    /// The trail's record of a supervisor's sign-off (`shift_signed_off`), if signed off.
    pub fn signed_off_payload(&self) -> Option<serde_json::Value> {
        self.signed_off_at.map(|at| {
            serde_json::json!({
                "principal_id": self.principal_id,
                "site": self.site,
                "terminal": self.terminal,
                "signed_off_by": self.signed_off_by,
                "signed_off_at": at,
                "reason": self.sign_off_reason,
                "over_short_cents": self.over_short_cents,
            })
        })
    }

    /// What the drawer should hold: at the close as stored; while open, the float and `cash`.
    pub fn expected(&self, cash: &DrawerMovements) -> DomainResult<i64> {
        Ok(match self.expected_cents {
            Some(stored) => stored,
            None => expected_cash(self.float()?, cash),
        })
    }

    /// The shift as the API shows it: what the drawer should hold now (open) or held at the
    /// close (as stored).
    fn view(
        self,
        (writer, signed_off_by_name): (String, Option<String>),
        cash: &DrawerMovements,
    ) -> DomainResult<Shift> {
        let expected_cents = self.expected(cash)?;
        Ok(Shift {
            id: self.id,
            state: self.state().into(),
            staff_id: self.principal_id,
            writer,
            site: self.site,
            terminal: self.terminal,
            keno_day: self.keno_day,
            opened_at: rfc3339(self.opened_at),
            float_cents: self.float_cents,
            cash: drawer_cash(cash),
            expected_cents,
            closed_at: self.closed_at.map(rfc3339),
            counted_cents: self.counted_cents,
            over_short_cents: self.over_short_cents,
            signed_off_by: self.signed_off_by,
            signed_off_by_name,
            signed_off_at: self.signed_off_at.map(rfc3339),
            sign_off_reason: self.sign_off_reason,
        })
    }
}

/// The movements as the trail records them.
pub fn cash_json(m: &DrawerMovements) -> serde_json::Value {
    serde_json::json!({
        "sales_cash_cents": m.sales_cash_cents,
        "voucher_deposits_cents": m.voucher_deposits_cents,
        "tender_change_cents": m.tender_change_cents,
        "refunds_cents": m.refunds_cents,
        "prizes_cash_cents": m.prizes_cash_cents,
        "voucher_cash_outs_cents": m.voucher_cash_outs_cents,
    })
}

fn drawer_cash(m: &DrawerMovements) -> DrawerCash {
    // Each is at most a few sums of stored BIGINTs: far inside i64.
    let c = |cents: u64| i64::try_from(cents).unwrap_or(i64::MAX);
    DrawerCash {
        sales_cash_cents: c(m.sales_cash_cents),
        voucher_deposits_cents: c(m.voucher_deposits_cents),
        tender_change_cents: c(m.tender_change_cents),
        refunds_cents: c(m.refunds_cents),
        prizes_cash_cents: c(m.prizes_cash_cents),
        voucher_cash_outs_cents: c(m.voucher_cash_outs_cents),
    }
}

/// The names of the principals `ids`, by id.
fn names(conn: &mut DbConnection, ids: &[&str]) -> QueryResult<HashMap<String, String>> {
    Ok(principals::table
        .filter(principals::id.eq_any(ids))
        .select((principals::id, principals::name))
        .load::<(String, String)>(conn)?
        .into_iter()
        .collect())
}

/// The shifts as the API shows them, their drawers summed as the records stand.
fn views(conn: &mut DbConnection, rows: Vec<ShiftRow>) -> DomainResult<Vec<Shift>> {
    let ids: Vec<&str> = rows
        .iter()
        .flat_map(|r| std::iter::once(r.principal_id.as_str()).chain(r.signed_off_by.as_deref()))
        .collect();
    let names = names(conn, &ids)?;
    rows.into_iter()
        .map(|row| {
            let cash = row.movements(conn)?;
            let writer = names.get(&row.principal_id).cloned().ok_or_else(|| {
                Failure::Internal(anyhow::anyhow!(
                    "shift {}: its writer {} is no principal",
                    row.id,
                    row.principal_id
                ))
            })?;
            let signed_off_by = row
                .signed_off_by
                .as_ref()
                .and_then(|id| names.get(id))
                .cloned();
            row.view((writer, signed_off_by), &cash)
        })
        .collect()
}

fn one_view(conn: &mut DbConnection, row: ShiftRow) -> DomainResult<Shift> {
    views(conn, vec![row])?
        .pop()
        .ok_or_else(|| Failure::Internal(anyhow::anyhow!("a shift's view went missing")))
}

pub fn find(conn: &mut DbConnection, id: i64) -> QueryResult<Option<ShiftRow>> {
    shifts::table
        .find(id)
        .select(ShiftRow::as_select())
        .first(conn)
        .optional()
}

/// Shift `id` for `principal`: a writer sees only their own.
fn load_for(conn: &mut DbConnection, id: i64, principal: &Principal) -> DomainResult<ShiftRow> {
    let row = find(conn, id)?.ok_or_else(|| Failure::not_found("shift"))?;
    if principal.role == Role::Writer && row.principal_id != principal.id {
        return Err(Failure::forbidden(
            "a writer sees their own shifts only; a supervisor sees every shift",
        ));
    }
    Ok(row)
}

/// The writer's open shift, if any.
fn open_of(conn: &mut DbConnection, principal: &str) -> QueryResult<Option<ShiftRow>> {
    shifts::table
        .filter(shifts::principal_id.eq(principal))
        .filter(shifts::closed_at.is_null())
        .select(ShiftRow::as_select())
        .first(conn)
        .optional()
}

/// The writer's shift at their terminal, looked up only where the rule asks for one (with
/// the rule off, every act goes ahead as with a shift open).
pub fn shift_of(
    conn: &mut DbConnection,
    principal: &Principal,
    rule: keno_core::ShiftRule,
) -> DomainResult<keno_core::ShiftAt> {
    use keno_core::{ShiftAt, ShiftRule};
    match (rule, &principal.site, &principal.terminal) {
        (ShiftRule::NotRequired, ..) => Ok(ShiftAt::Open),
        // One shift is open per writer: theirs, if it is at this terminal.
        (ShiftRule::Required, Some(site), Some(terminal)) => Ok(open_of(conn, &principal.id)?
            .filter(|s| &s.site == site && &s.terminal == terminal)
            .map_or(ShiftAt::NoneOpen, |_| ShiftAt::Open)),
        (ShiftRule::Required, ..) => Ok(ShiftAt::NoneOpen),
    }
}

/// Money taken in at the counter by `principal` (a voucher bought with cash): a writer's only
/// with their shift open at the terminal (`keno_core::drawer_for`).
pub fn taking_in(
    conn: &mut DbConnection,
    principal: &Principal,
    rule: keno_core::ShiftRule,
) -> DomainResult<()> {
    let Some(office) = crate::staff::office(principal.role) else {
        return Ok(());
    };
    let shift = shift_of(conn, principal, rule)?;
    keno_core::drawer_for(office, rule, shift).map_err(|keno_core::NoShift| no_shift())
}

pub fn no_shift() -> Failure {
    Failure::refuse(
        Refusal::NoShift,
        "no shift is open for you at this terminal: open one with the float in the drawer (POST /api/v1/shifts)",
    )
}

/// Opens a shift for the writer at their terminal with `float` in the drawer, on Keno Day
/// `today`.
pub fn open(
    conn: &mut DbConnection,
    principal: &Principal,
    float: u64,
    today: KenoDay,
) -> DomainResult<Shift> {
    let row = acts::open(conn, principal, float, today)?;
    row.clone()
        .view((principal.name.clone(), None), &row.movements(conn)?)
}

/// The writer's open shift, or `no_shift`.
pub fn current(conn: &mut DbConnection, principal: &Principal) -> DomainResult<Shift> {
    let row = open_of(conn, &principal.id)?.ok_or_else(no_shift)?;
    row.clone()
        .view((principal.name.clone(), None), &row.movements(conn)?)
}

/// Closes the writer's open shift with `counted` in the drawer; over or short beyond
/// `tolerance` cents it waits for a supervisor's sign-off.
pub fn close(
    conn: &mut DbConnection,
    principal: &Principal,
    counted: u64,
    tolerance: u64,
) -> DomainResult<Shift> {
    let (row, cash) = acts::close(conn, &principal.id, counted, tolerance)?;
    row.view((principal.name.clone(), None), &cash)
}

/// A supervisor signs off shift `id`, saying why.
pub fn sign_off(
    conn: &mut DbConnection,
    id: i64,
    supervisor: &Principal,
    reason: &str,
) -> DomainResult<Shift> {
    let row = acts::sign_off(conn, id, &supervisor.id, reason)?;
    one_view(conn, row)
}

/// The shifts opened on Keno Day `day`.
pub fn of_day(conn: &mut DbConnection, day: KenoDay) -> DomainResult<Vec<Shift>> {
    let rows: Vec<ShiftRow> = shifts::table
        .filter(shifts::keno_day.eq(day.to_string()))
        .order(shifts::id)
        .select(ShiftRow::as_select())
        .load(conn)?;
    views(conn, rows)
}

/// Shift `id` as `principal` may see it (a writer: their own).
pub fn one(conn: &mut DbConnection, id: i64, principal: &Principal) -> DomainResult<Shift> {
    let row = load_for(conn, id, principal)?;
    one_view(conn, row)
}

/// The report of shift `id` as `principal` may see it (a writer: their own).
pub fn report_of(
    conn: &mut DbConnection,
    id: i64,
    principal: &Principal,
) -> DomainResult<ShiftReport> {
    let row = load_for(conn, id, principal)?;
    report::read(conn, row)
}

/// A shift's report as a printable PDF (A4), printed at `now`.
pub fn report_pdf(report: &ShiftReport, now: i64) -> Vec<u8> {
    report::pdf(report, now)
}
