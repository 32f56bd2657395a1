//! Unclaimed Prize Claim Forms (rules 13.1, 13.4, 13.5, 14; Diagram E).
//!
//! A player whose ticket is more than 12 months old, lost or unreadable fills in the form; a
//! writer or supervisor records it (`POST /claims`), and the system lists the tickets that
//! match what the player remembers. An inspector decides: approves, choosing the ticket, or
//! rejects with a reason. An approved claim is paid by cheque (13.5), once: the ticket is
//! marked paid in the same way a terminal marks it, so a claim and a terminal payment of the
//! same ticket cannot both succeed. Each step enters the audit trail.

mod candidates;
mod form;
mod told;
pub mod unclaimed;
mod voucher;

use diesel::prelude::*;
use serde::Deserialize;
use utoipa::ToSchema;

pub use candidates::Candidate;

use crate::approvals::{self, approvable};
use crate::audit::log::append;
use crate::auth::{Principal, Role};
use crate::db::schema::claims;
use crate::db::{now_micros, per_backend, rfc3339, DbConnection};
use crate::error::{DomainResult, Failure};
use crate::tickets::pay::{facts, mark_paid, refused};
use keno_api::Refusal;
pub use keno_core::ClaimState;
use keno_core::{Act, Part};
// The wire's types (keno-api), where the server's modules have always found them.
pub use keno_api::claims::{Claim, ClaimForm, VoucherCandidate};

#[derive(Queryable, Selectable, Debug, Clone)]
#[diesel(table_name = claims)]
pub struct ClaimRow {
    pub id: i64,
    pub reason: String,
    pub claimant_name: String,
    pub postal_address: String,
    pub phone: String,
    pub purchase_place: String,
    pub purchase_date: String,
    pub approx_game: Option<i64>,
    pub games: Option<i32>,
    pub other_details: String,
    pub serial: Option<String>,
    #[diesel(deserialize_as = String)]
    pub state: ClaimState,
    pub recorded_by: String,
    pub recorded_at: i64,
    pub ticket_serial: Option<String>,
    pub decided_by: Option<String>,
    pub decided_at: Option<i64>,
    pub decision_reason: Option<String>,
    pub paid_cents: Option<i64>,
    pub paid_by: Option<String>,
    pub paid_at: Option<i64>,
    pub cheque_reference: Option<String>,
    pub voucher_code: Option<String>,
    pub voucher_amount_cents: Option<i64>,
    pub approved_voucher: Option<String>,
    /// The numbers the claimant remembers, as kept: ascending, space-separated.
    pub numbers: Option<String>,
    pub amount_cents: Option<i64>,
}

impl ClaimRow {
    /// The numbers the claimant remembers, as stored.
    pub fn remembered_numbers(&self) -> DomainResult<Option<Vec<u8>>> {
        self.numbers
            .as_deref()
            .map(|kept| {
                kept.split_whitespace()
                    .map(|n| n.parse::<u8>())
                    .collect::<Result<Vec<u8>, _>>()
                    .map_err(|_| {
                        Failure::Internal(anyhow::anyhow!(
                            "claim {}: stored numbers {kept:?}",
                            self.id
                        ))
                    })
            })
            .transpose()
    }
}

/// What a writer is shown: the tickets' serials masked ([`load_for`]).
fn for_the_counter(mut claim: Claim) -> Claim {
    for c in &mut claim.candidates {
        c.serial = masked_serial(&c.serial);
    }
    claim.ticket_serial = claim.ticket_serial.as_deref().map(masked_serial);
    for v in &mut claim.voucher_candidates {
        v.code = masked_serial(&v.code);
    }
    claim.approved_voucher = claim.approved_voucher.as_deref().map(masked_serial);
    claim
}

/// The claim as the API shows it, with the tickets that match it.
fn shown(
    r: ClaimRow,
    candidates: Vec<Candidate>,
    vouchers: Vec<VoucherCandidate>,
) -> DomainResult<Claim> {
    let numbers = r.remembered_numbers()?;
    Ok(Claim {
        id: r.id,
        reason: r.reason,
        claimant_name: r.claimant_name,
        postal_address: r.postal_address,
        phone: r.phone,
        purchase_place: r.purchase_place,
        purchase_date: r.purchase_date,
        approx_game: r.approx_game,
        games: r.games,
        other_details: r.other_details,
        serial: r.serial,
        numbers,
        amount_cents: r.amount_cents,
        state: r.state.to_string(),
        recorded_by: r.recorded_by,
        recorded_at: rfc3339(r.recorded_at),
        ticket_serial: r.ticket_serial,
        decided_by: r.decided_by,
        decided_at: r.decided_at.map(rfc3339),
        decision_reason: r.decision_reason,
        paid_cents: r.paid_cents,
        paid_by: r.paid_by,
        paid_at: r.paid_at.map(rfc3339),
        cheque_reference: r.cheque_reference,
        candidates,
        voucher_code: r.voucher_code,
        voucher_amount_cents: r.voucher_amount_cents,
        approved_voucher: r.approved_voucher,
        voucher_candidates: vouchers,
    })
}

/// A field of the form as kept (keno-core's text rule, issue 31), or `invalid_claim`.
fn text(field: &str, value: &str, max: usize) -> DomainResult<String> {
    crate::reason::kept(field, value, max, Refusal::InvalidClaim)
}

/// The form's texts as kept, checked before the transaction.
struct Filed {
    name: String,
    address: String,
    phone: String,
    place: String,
    date: String,
    details: String,
    /// The numbers remembered, ascending and space-separated.
    numbers: Option<String>,
}

impl Filed {
    fn check(f: &ClaimForm) -> DomainResult<Filed> {
        let date = chrono::NaiveDate::parse_from_str(f.purchase_date.trim(), "%Y-%m-%d").map_err(
            |_| {
                Failure::refuse(
                    Refusal::InvalidClaim,
                    "give the date the ticket was bought as YYYY-MM-DD",
                )
            },
        )?;
        if f.games.is_some_and(|g| !(1..=10_000).contains(&g))
            || f.approx_game.is_some_and(|g| g < 1)
        {
            return Err(Failure::refuse(
                Refusal::InvalidClaim,
                "the game and the number of games are positive numbers",
            ));
        }
        // An address and the other details are typed on several lines.
        let lines =
            |what, value, max| crate::reason::kept_lines(what, value, max, Refusal::InvalidClaim);
        let details = match f.other_details.trim() {
            "" => String::new(),
            d => lines("the other details", d, 2000)?,
        };
        if f.amount_cents
            .is_some_and(|c| !(1..=MAX_REMEMBERED_CENTS).contains(&c))
        {
            return Err(Failure::refuse(
                Refusal::InvalidClaim,
                "the amount remembered is a positive number of cents",
            ));
        }
        Ok(Filed {
            numbers: remembered(f.numbers.as_deref())?,
            name: text("the claimant's name", &f.claimant_name, 200)?,
            address: lines("a postal address", &f.postal_address, 500)?,
            phone: text("a phone number", &f.phone, 50)?,
            place: text("where the ticket was bought", &f.purchase_place, 200)?,
            date: date.format("%Y-%m-%d").to_string(),
            details,
        })
    }
}

/// The most an amount remembered may be: $100,000,000, far above any prize.
const MAX_REMEMBERED_CENTS: i64 = 10_000_000_000;

/// The numbers a claimant remembers as kept: each 1 to 80, each once, ascending.
fn remembered(numbers: Option<&[u8]>) -> DomainResult<Option<String>> {
    let Some(numbers) = numbers.filter(|n| !n.is_empty()) else {
        return Ok(None);
    };
    let mut kept: Vec<u8> = numbers.to_vec();
    kept.sort_unstable();
    kept.dedup();
    if kept.len() != numbers.len() || kept.iter().any(|n| !(1..=80).contains(n)) {
        return Err(Failure::refuse(
            Refusal::InvalidClaim,
            "the numbers remembered are each from 1 to 80, each given once",
        ));
    }
    let words: Vec<String> = kept.iter().map(u8::to_string).collect();
    Ok(Some(words.join(" ")))
}

fn find_claim(conn: &mut DbConnection, id: i64) -> DomainResult<ClaimRow> {
    approvals::held(conn, id)
}
approvable! {
    ClaimRow in claims as "claim",
    state: ClaimState = |c| c.state,
    refused: |act| match act {
        Act::Pay => Refusal::ClaimNotApproved,
        _ => Refusal::ClaimDecided,
    },
    subject: |c| c.id.to_string(),
    kind: |act| match act {
        None => crate::audit::kind::EntryKind::ClaimFiled,
        Some(Act::Approve) => crate::audit::kind::EntryKind::ClaimApproved,
        Some(Act::Pay) => crate::audit::kind::EntryKind::ClaimPaid,
        Some(_) => crate::audit::kind::EntryKind::ClaimRejected,
    },
    // What the claimant remembers of the numbers and an amount enters only when given, so
    // claims filed before issue 34 read as they were written.
    payload: |c| remembered_payload(c, serde_json::json!({
        "reason": c.reason, "claimant_name": c.claimant_name,
        "postal_address": c.postal_address, "phone": c.phone,
        "purchase_place": c.purchase_place, "purchase_date": c.purchase_date,
        "approx_game": c.approx_game, "games": c.games, "serial": c.serial,
        "state": c.state.as_str(), "ticket_serial": c.ticket_serial,
        "decision_reason": c.decision_reason, "paid_cents": c.paid_cents,
        "cheque_reference": c.cheque_reference, "voucher_code": c.voucher_code,
        "voucher_amount_cents": c.voucher_amount_cents, "approved_voucher": c.approved_voucher,
    })),
}

fn remembered_payload(c: &ClaimRow, mut payload: serde_json::Value) -> serde_json::Value {
    if let Some(numbers) = &c.numbers {
        payload["numbers"] = numbers.as_str().into();
    }
    if let Some(cents) = c.amount_cents {
        payload["amount_cents"] = cents.into();
    }
    payload
}

fn load(conn: &mut DbConnection, id: i64) -> DomainResult<Claim> {
    let row = find_claim(conn, id)?;
    if row.state != ClaimState::Submitted {
        return shown(row, Vec::new(), Vec::new());
    }
    // A claim for a voucher lists vouchers; one for a ticket, tickets.
    match voucher::named(&row) {
        true => {
            let found = voucher::matching(conn, &row)?;
            shown(row, Vec::new(), found)
        }
        false => {
            let found = candidates::matching(conn, &row)?;
            shown(row, found, Vec::new())
        }
    }
}

/// The claim as `principal` may see it. A writer sees only the claims recorded at its own site
/// (a claim holds a player's name, address and phone), and of the tickets no more than the last
/// four digits of each serial: a serial is what a terminal pays, so the matching unpaid
/// tickets' serials go to those who decide and pay claims, not to the counter.
pub fn load_for(conn: &mut DbConnection, id: i64, principal: &Principal) -> DomainResult<Claim> {
    let claim = load(conn, id)?;
    if principal.role != Role::Writer {
        return Ok(claim);
    }
    // Where it was filed, not the filer's principal's site: a writer signed on with a session
    // has its site from the session (issue 31), and one person may work at several.
    let filed_at: Option<String> = claims::table
        .find(id)
        .select(claims::site)
        .first::<Option<String>>(conn)?;
    if filed_at.is_none() || filed_at != principal.site {
        return Err(Failure::forbidden(
            "a writer sees only the claims recorded at its own site",
        ));
    }
    Ok(for_the_counter(claim))
}

/// `1234567890123456789` as `***************6789`.
fn masked_serial(serial: &str) -> String {
    let keep = serial.len().saturating_sub(4);
    serial
        .char_indices()
        .map(|(i, c)| if i < keep { '*' } else { c })
        .collect()
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ClaimApproval {
    /// The ticket the claim is for, chosen from the candidates.
    #[serde(default)]
    pub serial: Option<String>,
    /// Or the voucher it is for (rules 13.1, 13.3), chosen from the voucher candidates.
    #[serde(default)]
    pub voucher: Option<String>,
    pub reason: String,
}

/// What an approval names: a ticket or a voucher, one of them.
pub enum Claimed {
    Ticket(String),
    Voucher(String),
}

impl Claimed {
    pub fn of(a: &ClaimApproval) -> DomainResult<Claimed> {
        fn trimmed(s: &Option<String>) -> Option<&str> {
            s.as_deref().map(str::trim).filter(|s| !s.is_empty())
        }
        match (trimmed(&a.serial), trimmed(&a.voucher)) {
            (Some(serial), None) => Ok(Claimed::Ticket(serial.to_string())),
            (None, Some(code)) => Ok(Claimed::Voucher(code.to_string())),
            _ => Err(Failure::refuse(
                Refusal::InvalidClaim,
                "approve the claim for one ticket (serial) or one voucher (voucher)",
            )),
        }
    }

    /// The columns the approval sets: (ticket_serial, approved_voucher).
    fn columns(&self) -> (Option<&str>, Option<&str>) {
        match self {
            Claimed::Ticket(s) => (Some(s), None),
            Claimed::Voucher(c) => (None, Some(c)),
        }
    }
}

/// Another claim than `id` is approved (or paid) for what `claimed` names: one ticket or
/// voucher, one claim.
pub(super) fn held_by_another(
    conn: &mut DbConnection,
    id: i64,
    claimed: &Claimed,
) -> QueryResult<bool> {
    let mut others = claims::table
        .filter(claims::state.eq_any([ClaimState::Approved.as_str(), ClaimState::Paid.as_str()]))
        .filter(claims::id.ne(id))
        .select(claims::id)
        .into_boxed();
    others = match claimed {
        Claimed::Ticket(serial) => others.filter(claims::ticket_serial.eq(serial.clone())),
        Claimed::Voucher(code) => others.filter(claims::approved_voucher.eq(code.clone())),
    };
    Ok(!others.limit(1).load::<i64>(conn)?.is_empty())
}

/// The ticket `serial` may be what claim `id` is approved for: it is owed a prize and no other
/// claim has it.
fn claimable(conn: &mut DbConnection, id: i64, serial: &str) -> DomainResult<()> {
    let ticket = crate::tickets::find(conn, serial)?.ok_or_else(|| Failure::not_found("ticket"))?;
    // Rules 11.5, 12.2: what the ticket is owed wherever it is paid; a claim is not held to the
    // twelve months of a terminal (rule 13.1).
    keno_core::owed(&facts(conn, &ticket)?).map_err(|e| refused(serial, e))?;
    if held_by_another(conn, id, &Claimed::Ticket(serial.to_string()))? {
        return Err(Failure::refuse(
            Refusal::TicketClaimed,
            format!("ticket {serial} is already the subject of an approved claim"),
        ));
    }
    Ok(())
}

/// Refuses `part` of claim `row` by the person named `who` when they took an earlier part of
/// it (issue 31): who files a claim, who approves it and who pays it are three people, told
/// apart by name whatever staff ID each part was taken under.
fn another_person(
    conn: &mut DbConnection,
    row: &ClaimRow,
    (part, who): (Part, &str),
) -> DomainResult<()> {
    let earlier = [
        (Part::FiledTheClaim, Some(&row.recorded_by)),
        (Part::ApprovedTheClaim, row.decided_by.as_ref()),
    ];
    for (earlier_part, id) in earlier {
        let Some(id) = id else { continue };
        let name = crate::staff::name_of(conn, id)?;
        keno_core::two_people((earlier_part, &name), (part, who))
            .map_err(|e| Failure::refuse(Refusal::SamePerson, e.to_string()))?;
    }
    Ok(())
}

/// Pays approved claim `row` by cheque: the claim and its ticket marked paid together.
fn pay_cheque(
    conn: &mut DbConnection,
    row: &ClaimRow,
    to: ClaimState,
    cheque: &str,
    by: &str,
) -> DomainResult<usize> {
    if let Some(code) = &row.approved_voucher {
        return voucher::pay(conn, row, code, (to, cheque, by));
    }
    let serial = row.ticket_serial.clone().ok_or_else(|| {
        Failure::Internal(anyhow::anyhow!("claim {} approved for no ticket", row.id))
    })?;
    let ticket =
        crate::tickets::find(conn, &serial)?.ok_or_else(|| Failure::not_found("ticket"))?;
    // Rule 13.5: what it is owed, by cheque whatever it won.
    let due = keno_core::owed(&facts(conn, &ticket)?)
        .map_err(|e| refused(&serial, e))?
        .by_claim();
    let changed = diesel::update(claims::table.find(row.id))
        .filter(claims::state.eq(ClaimState::Approved.as_str()))
        .set((
            claims::state.eq(to.as_str()),
            claims::paid_cents.eq(due.total_cents as i64),
            claims::paid_by.eq(by),
            claims::paid_at.eq(now_micros()),
            claims::cheque_reference.eq(cheque),
        ))
        .execute(conn)?;
    // The same guarded update as a terminal's payment.
    let paid = mark_paid(
        conn,
        &ticket,
        due.total_cents,
        due.method,
        by,
        serde_json::json!({ "claim": row.id }),
    )?;
    append(conn, vec![paid])?;
    Ok(changed)
}

/// A form checked before the transaction: its texts as kept, the voucher it names, and the
/// serial as typed, without spaces or dashes.
pub struct Filing {
    form: ClaimForm,
    filed: Filed,
    voucher: (Option<String>, Option<i64>),
    serial: Option<String>,
}

impl Filing {
    /// The form `principal` files, checked (`invalid_claim`): a writer files at a terminal.
    pub fn check(principal: &Principal, form: ClaimForm) -> DomainResult<Filing> {
        if principal.role == Role::Writer && principal.site.is_none() {
            return Err(Failure::forbidden(
                "a writer files a claim at a terminal: sign on at one (the claim is its site's)",
            ));
        }
        let filed = Filed::check(&form)?;
        let voucher = voucher::named_on(&form, form.serial.is_some())?;
        let serial = form
            .serial
            .as_deref()
            .map(|s| {
                s.chars()
                    .filter(|c| !c.is_whitespace() && *c != '-')
                    .collect::<String>()
            })
            .filter(|s| !s.is_empty());
        Ok(Filing {
            form,
            filed,
            voucher,
            serial,
        })
    }
}

/// Records the form `principal` files: the claim as they may see it, with its candidates.
pub fn file(
    conn: &mut DbConnection,
    principal: &Principal,
    filing: &Filing,
) -> DomainResult<Claim> {
    let Filing {
        form: f,
        filed,
        voucher: (voucher_code, voucher_amount),
        serial,
    } = filing;
    let row: ClaimRow = per_backend!(conn, |c| diesel::insert_into(claims::table)
        .values((
            claims::reason.eq(f.reason.as_str()),
            claims::claimant_name.eq(&filed.name),
            claims::postal_address.eq(&filed.address),
            claims::phone.eq(&filed.phone),
            claims::purchase_place.eq(&filed.place),
            claims::purchase_date.eq(&filed.date),
            claims::approx_game.eq(f.approx_game),
            claims::games.eq(f.games),
            claims::other_details.eq(&filed.details),
            claims::serial.eq(serial),
            claims::voucher_code.eq(voucher_code),
            claims::voucher_amount_cents.eq(voucher_amount),
            claims::numbers.eq(&filed.numbers),
            claims::amount_cents.eq(f.amount_cents),
            claims::state.eq(ClaimState::Submitted.as_str()),
            claims::recorded_by.eq(&principal.id),
            claims::recorded_at.eq(now_micros()),
            claims::site.eq(&principal.site),
        ))
        .returning(ClaimRow::as_returning())
        .get_result(c))?;
    approvals::proposed(conn, &row, &principal.id)?;
    load_for(conn, row.id, principal)
}

/// Claims newest first, in state `wanted` or any: at most `limit`, numbered below `before`.
pub fn list(
    conn: &mut DbConnection,
    wanted: Option<String>,
    (limit, before): (i64, Option<i64>),
) -> DomainResult<Vec<Claim>> {
    let mut q = claims::table
        .order(claims::id.desc())
        .limit(limit)
        .select(ClaimRow::as_select())
        .into_boxed();
    if let Some(s) = wanted {
        q = q.filter(claims::state.eq(s));
    }
    if let Some(before) = before {
        q = q.filter(claims::id.lt(before));
    }
    let rows: Vec<ClaimRow> = q.load(conn)?;
    rows.into_iter()
        .map(|r| shown(r, Vec::new(), Vec::new()))
        .collect()
}

/// An inspector approves claim `id` for what `claimed` names, saying why.
pub fn approve(
    conn: &mut DbConnection,
    id: i64,
    inspector: &Principal,
    claimed: &Claimed,
    why: &str,
) -> DomainResult<Claim> {
    // The claim first: no such claim is a 404 and a decided one `claim_decided`, whatever
    // the ticket named.
    approvals::decide::<ClaimRow, _>(conn, id, Act::Approve, &inspector.id, |conn, row, to| {
        another_person(conn, row, (Part::ApprovedTheClaim, &inspector.name))?;
        match claimed {
            Claimed::Ticket(serial) => claimable(conn, id, serial)?,
            Claimed::Voucher(code) => voucher::claimable(conn, id, code)?,
        }
        let (serial, code) = claimed.columns();
        Ok(diesel::update(claims::table.find(id))
            .filter(claims::state.eq(ClaimState::Submitted.as_str()))
            .set((
                claims::state.eq(to.as_str()),
                claims::ticket_serial.eq(serial),
                claims::approved_voucher.eq(code),
                claims::decided_by.eq(&inspector.id),
                claims::decided_at.eq(now_micros()),
                claims::decision_reason.eq(why),
            ))
            .execute(conn)?)
    })?;
    load(conn, id)
}

/// An inspector rejects claim `id`, saying why.
pub fn reject(
    conn: &mut DbConnection,
    id: i64,
    inspector: &Principal,
    why: &str,
) -> DomainResult<Claim> {
    approvals::decide::<ClaimRow, _>(conn, id, Act::Reject, &inspector.id, |conn, _, to| {
        Ok(diesel::update(claims::table.find(id))
            .filter(claims::state.eq(ClaimState::Submitted.as_str()))
            .set((
                claims::state.eq(to.as_str()),
                claims::decided_by.eq(&inspector.id),
                claims::decided_at.eq(now_micros()),
                claims::decision_reason.eq(why),
            ))
            .execute(conn)?)
    })?;
    load(conn, id)
}

/// A cheque's number or reference as kept (`invalid_claim`).
pub fn cheque(reference: &str) -> DomainResult<String> {
    text("the cheque's reference", reference, 100)
}

/// A supervisor pays approved claim `id` by `cheque` (rule 13.5); the ticket is marked paid.
pub fn pay(
    conn: &mut DbConnection,
    id: i64,
    supervisor: &Principal,
    cheque: &str,
) -> DomainResult<Claim> {
    approvals::decide::<ClaimRow, _>(conn, id, Act::Pay, &supervisor.id, |conn, row, to| {
        another_person(conn, row, (Part::PaysTheClaim, &supervisor.name))?;
        pay_cheque(conn, row, to, cheque, &supervisor.id)
    })?;
    load(conn, id)
}

/// The claim as a printable Unclaimed Prize Claim Form (Diagram E), PDF.
pub fn form_pdf(claim: &Claim) -> Vec<u8> {
    form::render_form(claim)
}
