//! Tender (rule 6.1): a sale paid in whole or in part with vouchers and winning receipt tickets.
//!
//! A sale's `tender` is one tender or a list, applied in order (`keno_core::tender::allocate`);
//! what they leave of the ticket total is paid in cash. A voucher gives what the sale still needs,
//! up to its balance (or exactly `amount_cents`), and keeps the rest. A winning ticket is paid
//! whole, by tender (`pay_method = "tender"`), once; its winnings beyond the sale are returned as
//! a new voucher (the change: `source = "change"`), never as cash from the drawer, so every cent
//! stays on the record. A ticket with a major prize is paid by cheque only (rule 12.2) and
//! cannot be tendered.
//!
//! Spends are made by the sale writer in the batch's transaction, with the ticket insert: the
//! vouchers and tickets tendered in a batch are held first (PostgreSQL: `FOR UPDATE`, in key
//! order, so two batches never wait on each other; SQLite: the writer's turn), the batch's sales
//! are planned against them one after the other in memory, and each voucher's new balance is
//! written once, guarded by the balance it was read with. Two terminals spending the same
//! voucher at once are therefore one after the other: the second sees what the first left. A
//! retried sale is found by its request id before anything is planned, so it spends nothing.

use std::collections::{HashMap, HashSet};

use diesel::prelude::*;
use keno_core::tender::{allocate, Allocation, Applied, Offered, TenderError, TenderKind};

use super::pay::{facts, mark_paid, refused};
use super::TicketRow;
use crate::audit::log::Entry;
use crate::auth::{Principal, Role};
use crate::db::schema::{sale_tenders, tickets, vouchers};
use crate::db::{per_backend, DbConnection};
use crate::error::{DomainResult, Failure};
use crate::staff::overrides::OverrideHeader;
use crate::store::hold::{held, Hold};
use crate::vouchers::{
    at_a_terminal, new_code, NewVoucher, VoucherRow, VoucherSource, VoucherStatus,
};
use keno_api::Refusal;
use keno_core::{KenoDay, OutLimits, PayRefusal, Payable};
// The wire's types (keno-api), where the server's modules have always found them.
pub use keno_api::tickets::{SalePayment, Tender, TenderLine, Tenders, MAX_TENDERS};

/// A tender as checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TenderRef {
    Voucher {
        code: String,
        amount_cents: Option<u64>,
    },
    Ticket {
        serial: String,
    },
}

impl TenderRef {
    fn reference(&self) -> &str {
        match self {
            TenderRef::Voucher { code, .. } => code,
            TenderRef::Ticket { serial } => serial,
        }
    }

    fn kind(&self) -> TenderKind {
        match self {
            TenderRef::Voucher { .. } => TenderKind::Voucher,
            TenderRef::Ticket { .. } => TenderKind::Ticket,
        }
    }
}

/// The request's tenders, checked before the sale goes anywhere: codes and serials with good
/// check digits, each tendered once, amounts positive.
pub fn parse(tender: Option<&Tenders>) -> DomainResult<Vec<TenderRef>> {
    let list: &[Tender] = tender.map_or(&[], Tenders::as_slice);
    if list.len() > MAX_TENDERS {
        return Err(Failure::refuse(
            Refusal::InvalidTender,
            format!("at most {MAX_TENDERS} tenders on one sale"),
        ));
    }
    let mut out = Vec::with_capacity(list.len());
    let mut seen = HashSet::new();
    for (i, t) in list.iter().enumerate() {
        let position = i + 1;
        let r = match (&t.voucher, &t.ticket, t.amount_cents) {
            (Some(code), None, amount) => {
                crate::vouchers::check_code(code)?;
                let amount_cents = match amount {
                    None => None,
                    Some(a) if a > 0 => Some(a as u64),
                    Some(a) => {
                        return Err(Failure::refuse(Refusal::InvalidAmount,
                            format!("tender {position}: amount_cents {a} is not a positive amount"),
                        ))
                    }
                };
                TenderRef::Voucher {
                    code: code.clone(),
                    amount_cents,
                }
            }
            (None, Some(serial), None) => {
                if !keno_core::serial::is_well_formed(serial) {
                    return Err(Failure::refuse(Refusal::InvalidSerial,
                        format!("tender {position}: {serial:?} is not a ticket serial number: check the digits"),
                    ));
                }
                TenderRef::Ticket {
                    serial: serial.clone(),
                }
            }
            _ => {
                return Err(Failure::refuse(Refusal::InvalidTender,
                    format!(
                        "tender {position}: give {{\"voucher\": CODE}} (amount_cents optional) or {{\"ticket\": SERIAL}}"
                    ),
                ))
            }
        };
        if !seen.insert(r.reference().to_string()) {
            return Err(Failure::refuse(
                Refusal::DuplicateTender,
                format!("tender {position}: {} is tendered twice", r.reference()),
            ));
        }
        out.push(r);
    }
    Ok(out)
}

/// How a sale was paid as planned: `change_voucher` once it is issued (none in a quote).
fn planned_payment(p: &Planned, change_voucher: Option<String>) -> SalePayment {
    SalePayment {
        tenders: p
            .tenders
            .iter()
            .zip(&p.allocation.applied)
            .map(|(t, a)| line(t.kind(), t.reference(), a))
            .collect(),
        tendered_cents: p.allocation.tendered_cents() as i64,
        cash_cents: p.allocation.cash_cents as i64,
        change_cents: p.allocation.change_cents as i64,
        change_voucher,
    }
}

fn line(kind: TenderKind, reference: &str, a: &Applied) -> TenderLine {
    TenderLine {
        voucher: (kind == TenderKind::Voucher).then(|| reference.to_string()),
        ticket: (kind == TenderKind::Ticket).then(|| reference.to_string()),
        covered_cents: a.covered_cents as i64,
        remaining_cents: a.remaining_cents as i64,
        change_cents: a.change_cents as i64,
    }
}

/// How a sold ticket was paid, from what is stored.
pub fn load_payment(conn: &mut DbConnection, t: &TicketRow) -> DomainResult<SalePayment> {
    let rows: Vec<(String, String, i64, i64, i64)> = sale_tenders::table
        .filter(sale_tenders::serial.eq(&t.serial))
        .order(sale_tenders::position)
        .select((
            sale_tenders::kind,
            sale_tenders::reference,
            sale_tenders::covered_cents,
            sale_tenders::remaining_cents,
            sale_tenders::change_cents,
        ))
        .load(conn)?;
    if rows.is_empty() {
        return Ok(SalePayment::cash(t.total_cents));
    }
    let change_voucher: Option<String> = vouchers::table
        .filter(vouchers::ticket.eq(&t.serial))
        .filter(vouchers::source.eq(VoucherSource::Change.as_str()))
        .select(vouchers::code)
        .first(conn)
        .optional()?;
    let tenders: Vec<TenderLine> = rows
        .iter()
        .map(|(kind, reference, covered, remaining, change)| {
            let kind = TenderKind::parse(kind).ok_or_else(|| {
                Failure::Internal(anyhow::anyhow!(
                    "ticket {}: a tender of a kind no server writes: {kind:?}",
                    t.serial
                ))
            })?;
            Ok(line(
                kind,
                reference,
                &Applied {
                    covered_cents: *covered as u64,
                    remaining_cents: *remaining as u64,
                    change_cents: *change as u64,
                },
            ))
        })
        .collect::<DomainResult<_>>()?;
    let tendered: i64 = tenders.iter().map(|l| l.covered_cents).sum();
    Ok(SalePayment {
        change_cents: tenders.iter().map(|l| l.change_cents).sum(),
        tendered_cents: tendered,
        cash_cents: t.total_cents - tendered,
        tenders,
        change_voucher,
    })
}

/// A sale's tenders as planned.
#[derive(Debug, Clone)]
pub struct Planned {
    tenders: Vec<TenderRef>,
    allocation: Allocation,
}

/// A tendered ticket as found: payable as a tender (`Payable::as_tender`), or why not.
enum TicketState {
    Payable(Box<TicketRow>, Payable),
    Refused(PayRefusal),
}

/// The vouchers and tickets a batch of sales tenders, as found (and held) at the start, and
/// what the sales planned so far have done to them.
pub struct Ledger {
    /// Keno Day of the sales: a voucher is usable up to 12 months after its own (13.1).
    today: KenoDay,
    vouchers: HashMap<String, VoucherRow>,
    /// Balances as read, to guard the write.
    read_balances: HashMap<String, i64>,
    tickets: HashMap<String, TicketState>,
    tendered_tickets: HashSet<String>,
}

impl Ledger {
    /// Reads every voucher and ticket the sales tender; `hold`: until the transaction ends.
    pub fn load<'a>(
        conn: &mut DbConnection,
        sales: impl Iterator<Item = &'a [TenderRef]>,
        hold: bool,
        today: KenoDay,
    ) -> DomainResult<Ledger> {
        let mut codes = Vec::new();
        let mut serials = Vec::new();
        for tenders in sales {
            for t in tenders {
                match t {
                    TenderRef::Voucher { code, .. } => codes.push(code.as_str()),
                    TenderRef::Ticket { serial } => serials.push(serial.as_str()),
                }
            }
        }
        codes.sort_unstable();
        codes.dedup();
        serials.sort_unstable();
        serials.dedup();
        let found: Vec<VoucherRow> = if codes.is_empty() {
            Vec::new()
        } else if hold {
            crate::vouchers::lock(conn, &codes)?
        } else {
            vouchers::table
                .filter(vouchers::code.eq_any(&codes))
                .select(VoucherRow::as_select())
                .load(conn)?
        };
        let tendered: Vec<TicketRow> = if serials.is_empty() {
            Vec::new()
        } else {
            let q = tickets::table
                .filter(tickets::serial.eq_any(&serials))
                .order(tickets::serial);
            let how = if hold { Hold::Update } else { Hold::Read };
            held!(conn, how, q.select(TicketRow::as_select()), |c, q| q
                .load(c))?
        };
        let mut tickets = HashMap::new();
        for t in tendered {
            // Rules 13.1, 12.2, 6.1: payable at a terminal today, and tendered only without a
            // major prize; a refusal is kept for the sale that tenders it.
            let state =
                match keno_core::payable(&facts(conn, &t)?, today).and_then(Payable::as_tender) {
                    Ok(p) => TicketState::Payable(Box::new(t.clone()), p),
                    Err(e) => TicketState::Refused(e),
                };
            tickets.insert(t.serial.clone(), state);
        }
        Ok(Ledger {
            today,
            read_balances: found
                .iter()
                .map(|v| (v.code.clone(), v.balance_cents))
                .collect(),
            vouchers: found.into_iter().map(|v| (v.code.clone(), v)).collect(),
            tickets,
            tendered_tickets: HashSet::new(),
        })
    }

    /// Plans a sale of `total_cents` paid with `tenders` against what earlier sales left;
    /// a refusal leaves the ledger as it was.
    pub fn plan(&mut self, total_cents: u64, tenders: &[TenderRef]) -> Result<Planned, Failure> {
        let mut offered = Vec::with_capacity(tenders.len());
        for t in tenders {
            offered.push(match t {
                TenderRef::Voucher { code, amount_cents } => {
                    let v = self.vouchers.get(code).ok_or_else(|| {
                        Failure::refuse(Refusal::NotFound, format!("no such voucher {code}"))
                    })?;
                    if v.status == VoucherStatus::Cashed {
                        return Err(Failure::refuse(
                            Refusal::VoucherEmpty,
                            format!("voucher {code} was cashed out: nothing is left on it"),
                        ));
                    }
                    // Rule 13.1: at a terminal for twelve months only.
                    at_a_terminal(v, self.today)?;
                    Offered {
                        kind: TenderKind::Voucher,
                        available_cents: v.balance_cents as u64,
                        amount_cents: *amount_cents,
                    }
                }
                TenderRef::Ticket { serial } => {
                    if self.tendered_tickets.contains(serial) {
                        // Rule 11.5: tendered already by an earlier sale of the batch.
                        return Err(refused(serial, PayRefusal::AlreadyPaid));
                    }
                    match self.tickets.get(serial) {
                        None => {
                            return Err(Failure::refuse(
                                Refusal::NotFound,
                                format!("no such ticket {serial}"),
                            ))
                        }
                        Some(TicketState::Refused(e)) => return Err(refused(serial, *e)),
                        Some(TicketState::Payable(_, p)) => Offered {
                            kind: TenderKind::Ticket,
                            available_cents: p.total_cents,
                            amount_cents: None,
                        },
                    }
                }
            });
        }
        let allocation = allocate(total_cents, &offered).map_err(|e| refusal(&e, tenders))?;
        for (t, a) in tenders.iter().zip(&allocation.applied) {
            match t {
                TenderRef::Voucher { code, .. } => {
                    if let Some(v) = self.vouchers.get_mut(code) {
                        v.balance_cents = a.remaining_cents as i64;
                    }
                }
                TenderRef::Ticket { serial } => {
                    self.tendered_tickets.insert(serial.clone());
                }
            }
        }
        Ok(Planned {
            tenders: tenders.to_vec(),
            allocation,
        })
    }

    /// Records a sold ticket's tenders (after the ticket's row): its `sale_tenders`, each ticket
    /// tendered marked paid, the change voucher. Returns the trail's entries and how the sale
    /// was paid. The vouchers' balances are written once for the batch by `write_balances`.
    pub fn record_sale(
        &self,
        conn: &mut DbConnection,
        sold: &TicketRow,
        planned: &Planned,
        now: i64,
    ) -> DomainResult<(Vec<Entry>, SalePayment)> {
        #[derive(Insertable)]
        #[diesel(table_name = sale_tenders)]
        struct Row<'a> {
            serial: &'a str,
            position: i32,
            kind: &'a str,
            reference: &'a str,
            covered_cents: i64,
            remaining_cents: i64,
            change_cents: i64,
            spent_at: i64,
        }
        let rows: Vec<Row> = planned
            .tenders
            .iter()
            .zip(&planned.allocation.applied)
            .enumerate()
            .map(|(i, (t, a))| Row {
                serial: &sold.serial,
                position: i as i32 + 1,
                kind: t.kind().as_str(),
                reference: t.reference(),
                covered_cents: a.covered_cents as i64,
                remaining_cents: a.remaining_cents as i64,
                change_cents: a.change_cents as i64,
                spent_at: now,
            })
            .collect();
        per_backend!(conn, |c| diesel::insert_into(sale_tenders::table)
            .values(&rows)
            .execute(c))?;
        let mut entries = Vec::new();
        for (t, a) in planned.tenders.iter().zip(&planned.allocation.applied) {
            match t {
                TenderRef::Voucher { code, .. } => entries.push(
                    Entry::new(
                        crate::audit::kind::EntryKind::VoucherSpent,
                        code,
                        serde_json::json!({
                            "serial": sold.serial,
                            "amount_cents": a.covered_cents,
                            "balance_cents": a.remaining_cents,
                            "spent_at": now,
                        }),
                    )
                    .by(&sold.principal_id),
                ),
                TenderRef::Ticket { serial } => {
                    let Some(TicketState::Payable(t, p)) = self.tickets.get(serial) else {
                        return Err(anyhow::anyhow!("ticket {serial} was planned unpaid").into());
                    };
                    entries.push(mark_paid(
                        conn,
                        t,
                        p.total_cents,
                        p.method,
                        &sold.principal_id,
                        serde_json::json!({ "for_ticket": sold.serial }),
                    )?);
                }
            }
        }
        let change_voucher = if planned.allocation.change_cents > 0 {
            let (code, entry) = issue_change(conn, sold, planned.allocation.change_cents, now)?;
            entries.push(entry);
            Some(code)
        } else {
            None
        };
        Ok((entries, planned_payment(planned, change_voucher)))
    }

    /// Writes each voucher's balance after the batch's sales, guarded by the balance read.
    pub fn write_balances(&self, conn: &mut DbConnection) -> DomainResult<()> {
        for (code, v) in &self.vouchers {
            let read = self.read_balances[code];
            if v.balance_cents == read {
                continue;
            }
            let status = if v.balance_cents == 0 {
                VoucherStatus::Spent
            } else {
                VoucherStatus::Active
            };
            let changed = diesel::update(vouchers::table.find(code))
                .filter(vouchers::balance_cents.eq(read))
                .filter(vouchers::status.eq(VoucherStatus::Active.as_str()))
                .set((
                    vouchers::balance_cents.eq(v.balance_cents),
                    vouchers::status.eq(status.as_str()),
                ))
                .execute(conn)?;
            if changed != 1 {
                // Cannot happen while the row is held; the batch is undone and retried.
                return Err(anyhow::anyhow!("voucher {code} changed while held").into());
            }
        }
        Ok(())
    }

    /// A quote's view: how the sale would be paid now.
    pub fn quote(planned: &Planned) -> SalePayment {
        planned_payment(planned, None)
    }
}

/// The change of a ticket tendered for more than the sale, as a voucher of its own (rule 6.1
/// as interpreted: every cent stays on the record); its code and the trail's entry.
fn issue_change(
    conn: &mut DbConnection,
    sold: &TicketRow,
    change_cents: u64,
    now: i64,
) -> DomainResult<(String, Entry)> {
    let code = new_code();
    let amount = change_cents as i64;
    let entry = NewVoucher {
        code: &code,
        principal_id: &sold.principal_id,
        request_id: None,
        site: &sold.site,
        terminal: &sold.terminal,
        writer: &sold.writer,
        issued_at: now,
        keno_day: &sold.keno_day,
        source: VoucherSource::Change.as_str(),
        ticket: Some(&sold.serial),
        amount_cents: amount,
        balance_cents: amount,
        status: VoucherStatus::Active.as_str(),
        request_digest: None,
    }
    .insert(conn)?;
    Ok((code, entry))
}

fn refusal(e: &TenderError, tenders: &[TenderRef]) -> Failure {
    let what = tenders
        .get(e.position() - 1)
        .map(|t| format!(" ({} {})", t.kind().as_str(), t.reference()))
        .unwrap_or_default();
    Failure::refuse(Refusal::from(e), format!("{e}{what}"))
}

/// The tendered tickets of a sale whose approval is to be asked ([`admit_tendered`]): none
/// but a writer's.
pub fn tendered_tickets(principal: &Principal, tenders: &[TenderRef]) -> Vec<String> {
    if principal.role != Role::Writer {
        return Vec::new();
    }
    tenders
        .iter()
        .filter_map(|t| match t {
            TenderRef::Ticket { serial } => Some(serial.clone()),
            TenderRef::Voucher { .. } => None,
        })
        .collect()
}

/// A writer tenders a winning ticket of another site, or one worth more than the writer hands
/// out alone (under `limits`), only with a supervisor's approval given now (issue 31:
/// keno-core's one rule of value going out; a tendered ticket's whole value leaves, part as
/// the sale and the rest as change, so it counts against the payout limit as its payment
/// would). One such ticket per sale, its grant spent before the sale is queued (a sale then
/// refused leaves it spent: ask again). `serials`: the [`tendered_tickets`].
pub fn admit_tendered(
    conn: &mut DbConnection,
    (limits, today): (OutLimits, KenoDay),
    (principal, carried): (&Principal, &OverrideHeader),
    serials: &[String],
) -> DomainResult<()> {
    let needing = needing_approval(conn, (limits, today), principal, serials)?;
    match needing.as_slice() {
        [] => Ok(()),
        [(serial, site, amount)] => crate::staff::overrides::admit(
            limits,
            conn,
            principal,
            carried,
            keno_api::staff::OverrideAction::Tender,
            serial,
            site,
            *amount,
        )
        .map(drop),
        _ => Err(Failure::refuse(
            Refusal::ApprovalRequired,
            "tender at most one ticket that needs a supervisor's approval (another site's, or above the payout limit) per sale",
        )),
    }
}

/// The tendered tickets a writer may not hand out alone: (serial, site, value). A ticket not
/// found or not payable is left to the sale, which refuses it with its own reason.
fn needing_approval(
    conn: &mut DbConnection,
    (limits, today): (OutLimits, KenoDay),
    principal: &Principal,
    serials: &[String],
) -> DomainResult<Vec<(String, String, Option<u64>)>> {
    let mut needing = Vec::new();
    for serial in serials {
        let Some(t) = super::find(conn, serial)? else {
            continue;
        };
        let value = keno_core::payable(&super::pay::facts(conn, &t)?, today)
            .ok()
            .map(|due| due.total_cents);
        let out = keno_core::ValueOut {
            act: keno_core::OutAct::Tender,
            office: keno_core::Office::Writer,
            at_site: principal.site.as_deref(),
            of_site: &t.site,
            amount_cents: value,
            // The sale itself asks for the writer's drawer; here only the approval is asked.
            shift: keno_core::ShiftAt::Open,
        };
        if let Err(keno_core::Withheld::NeedsSupervisor(_)) = keno_core::value_out(out, limits) {
            needing.push((t.serial, t.site, value));
        }
    }
    Ok(needing)
}

/// A writer's quote shows no other site's ticket's prize (issue 31: site binding holds for a
/// quote as for a ticket's detail): tendering one is asked with a supervisor's approval, and
/// the sale itself then shows the price.
pub fn quoted_at_own_site(
    conn: &mut DbConnection,
    principal: &Principal,
    tenders: &[TenderRef],
) -> DomainResult<()> {
    let Some(office) = crate::staff::office(principal.role) else {
        return Ok(());
    };
    for tender in tenders {
        let TenderRef::Ticket { serial } = tender else {
            continue;
        };
        let Some(t) = super::find(conn, serial)? else {
            continue;
        };
        let out = keno_core::ValueOut {
            act: keno_core::OutAct::Handling,
            office,
            at_site: principal.site.as_deref(),
            of_site: &t.site,
            amount_cents: None,
            shift: keno_core::ShiftAt::Open,
        };
        let limits = keno_core::OutLimits {
            payout: keno_core::PayoutTiers::default(),
            shift: keno_core::ShiftRule::NotRequired,
        };
        if keno_core::value_out(out, limits).is_err() {
            return Err(Failure::refuse(
                Refusal::OtherSite,
                format!("ticket {serial} was sold at site {}: a quote does not show another site's prize; sell with a supervisor's approval (POST /api/v1/overrides, tender)", t.site),
            ));
        }
    }
    Ok(())
}
