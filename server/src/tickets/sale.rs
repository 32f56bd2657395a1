//! Selling a ticket (rules 4, 5, 6; `POST /api/v1/tickets`, and its price alone, `quote`).
//!
//! The price and the ways come from keno-core. The sale commits in one transaction that holds
//! the open game against the close (PostgreSQL: a shared row lock on the game; SQLite: the
//! single writer), so a sale that races the close lands in the game before it closes or in the
//! next one, never in a closed game. A `request_id` already sold by the same writer returns that
//! ticket and sells nothing. A sale may be paid in whole or in part with vouchers and winning
//! tickets (`tender`, rule 6.1): the spends commit with the ticket (`tickets::tender`).
//!
//! A set bet (rule 6.3(h)) is looked up in the catalogue first; a retry of one already sold is
//! answered from the record before anything is picked, so a "random" set bet is picked once.
//! Special 3 sells only while the regulator's approval is in force (rule 18.4). Both are checked
//! again in the transaction that commits the sale, holding the set's and the approval's rows, so
//! a retirement or a withdrawal is wholly before a sale or wholly after it.

use diesel::prelude::*;
use keno_core::serial::new_serial;
use keno_core::{LiabilityLimits, RuleSet, ScheduleId, Special3Approval, TicketStatus, WayInPlay};
use rand_core::UnwrapErr;

use super::tender::{self, Ledger, SalePayment, TenderRef};
use super::{bet_kind_name, find, view, ways_lines, BetRequest, SetBetRef, Ticket, TicketRow};
use crate::auth::Principal;
use crate::db::schema::{games, tickets};
use crate::db::DbConnection;
use crate::error::{DomainResult, Failure};
use crate::games::GameRow;
use crate::keno_day::KenoHours;
use crate::rule_sets::RuleSets;
use crate::sale_rng::SaleRng;
use crate::set_bets::SetBetRow;
use crate::store::hold::held;
use keno_api::Refusal;
// The wire's types (keno-api), where the server's modules have always found them.
pub use keno_api::tickets::{Quote, SaleRequest, SoldTicket};

/// A sale on its way to the sale writer: the ticket as it will be stored and its tenders.
#[derive(Clone, Debug)]
pub struct Sale {
    pub ticket: TicketRow,
    pub tenders: Vec<TenderRef>,
    /// The catalogue set of a set bet: it must still be on sale when the sale commits.
    pub set_bet: Option<SetBetRef>,
    /// The Special 3 table (its digest) the sale plays: an approval of it must be in force when
    /// the sale commits.
    pub special3_digest: Option<String>,
    /// Its trail record but for what the commit gives (`sold_record`), made before the sale
    /// writer's turn.
    pub record: String,
}

/// What the rule set in force and the operator's settings say of a sale.
#[derive(Clone, Copy)]
pub struct Selling<'a> {
    pub rules: &'a RuleSet,
    /// The rule set's hash, stored with the ticket.
    pub rule_set_hash: &'a str,
    /// Its Special 3 table's digest: what an approval in force must cover.
    pub special3_digest: Option<&'a str>,
    /// What one ticket may stand to win, and whether the game's liability binds (issue 18).
    pub limits: LiabilityLimits,
}

/// The ticket just sold (`t`, from `sale`, under `rules`, the rule set in force) and how it
/// was paid.
pub fn sold_now(
    rules: &RuleSet,
    sale: &Sale,
    t: &TicketRow,
    payment: Option<SalePayment>,
) -> DomainResult<SoldTicket> {
    let payment = payment.unwrap_or_else(|| SalePayment::cash(t.total_cents));
    Ok(SoldTicket {
        ticket: Ticket {
            set_bet: sale.set_bet.clone(),
            // Sold just now under the rule set in force (rule 1(f)).
            keno_to_go: Some(super::is_keno_to_go(rules, t)),
            ..Ticket::try_from(t)?
        },
        payment,
    })
}

/// A ticket sold earlier, as the answer to a sale sent again (after [`same_sale`]): its set
/// bet and how it was paid, as recorded.
pub fn sold_earlier(
    rule_sets: &RuleSets,
    conn: &mut DbConnection,
    t: &TicketRow,
) -> DomainResult<SoldTicket> {
    Ok(SoldTicket {
        payment: tender::load_payment(conn, t)?,
        ticket: view(rule_sets, conn, t)?,
    })
}

/// What a sale needs from the database before it is checked and priced: a set bet's set, or
/// the ticket a set bet already sold under request id `request_id` of `principal` (the answer,
/// with nothing picked again). Special 3's approval is the caller's to look up.
pub fn context(
    conn: &mut DbConnection,
    (principal, request_id): (&str, &str),
    set: Option<i64>,
) -> DomainResult<Context> {
    let mut context = Context::default();
    if let Some(id) = set {
        if let Some(earlier) = by_request(conn, principal, request_id)? {
            context.sold = Some(Box::new(earlier));
            return Ok(context);
        }
        context.set = crate::set_bets::find(conn, id)?;
    }
    Ok(context)
}

/// What a quote's tenders pay of a sale of `total` cents, on the Keno Day now (`hours`): a
/// writer is shown no other site's ticket's prize.
pub fn quoted(
    conn: &mut DbConnection,
    principal: &Principal,
    tenders: &[TenderRef],
    (total, hours): (u64, KenoHours),
) -> DomainResult<SalePayment> {
    tender::quoted_at_own_site(conn, principal, tenders)?;
    let today = hours.today()?;
    let mut ledger = Ledger::load(conn, std::iter::once(tenders), false, today)?;
    Ok(Ledger::quote(&ledger.plan(total, tenders)?))
}

/// The price of ticket `t` (a quote's), paid as `payment`.
pub fn quote(t: &TicketRow, payment: SalePayment) -> DomainResult<Quote> {
    Ok(Quote {
        payment,
        ways: t.way_counts()?,
        amount_per_way_cents: t.amount_per_way_cents,
        games: t.games,
        charged_games: t.charged_games,
        game_cost_cents: t.game_cost_cents,
        total_cents: t.total_cents,
    })
}

/// The refusal of a sale that found no game open for sale.
pub fn no_game_open() -> Failure {
    Failure::refuse(
        Refusal::GameClosed,
        "no game is open for sale: Keno is closed",
    )
}

/// What a sale needs from the database before it is checked and priced.
#[derive(Default)]
pub struct Context {
    /// The set a set bet names, if it exists.
    pub set: Option<SetBetRow>,
    /// The regulator's approval of Special 3, looked up when the sale may play it.
    pub special3: Special3Approval,
    /// A set bet already sold under this request id: the answer, with nothing picked again.
    pub sold: Option<Box<TicketRow>>,
}

pub enum Outcome {
    /// Sold now; how it was paid when tenders paid part of it.
    Sold(Box<TicketRow>, Option<SalePayment>),
    AlreadySold(Box<TicketRow>),
}

/// A sale checked and priced: the ticket, and what must still hold when it commits.
pub struct Prepared {
    pub ticket: TicketRow,
    set_bet: Option<SetBetRef>,
    special3_digest: Option<String>,
    /// Its type and ways as they play, when the game's liability limits must see them (a
    /// bonus prize may ask for a type, rule 6.3(e)).
    ways: (keno_core::BetKind, Vec<WayInPlay>),
    /// What picked its numbers (a quick pick's): the serial is drawn from the same read of the
    /// kernel's randomness.
    rng: UnwrapErr<SaleRng>,
}

impl Prepared {
    /// The sale to commit, paid with `tenders`, under its request's `digest`; and its ways
    /// for the game's liability book.
    pub fn into_sale(
        self,
        tenders: Vec<TenderRef>,
        digest: String,
    ) -> (Sale, (keno_core::BetKind, Vec<WayInPlay>)) {
        let mut rng = self.rng;
        let mut ticket = self.ticket;
        ticket.request_digest = Some(digest);
        // Drawn here, on the request's thread, not in the sale writer's turn; drawn again only
        // if its commit must be tried again (`writer`).
        ticket.serial = new_serial(&mut rng);
        let set = self.set_bet.as_ref().map(|b| (b.id, b.mode.as_str()));
        let record = record_before_commit(&ticket, set);
        let sale = Sale {
            ticket,
            tenders,
            set_bet: self.set_bet,
            special3_digest: self.special3_digest,
            record,
        };
        (sale, self.ways)
    }
}

fn unknown_set(id: i64) -> Failure {
    Failure::refuse(
        Refusal::UnknownSet,
        format!("there is no set bet {id} in the catalogue (rule 6.3(h))"),
    )
}

pub(super) fn set_retired(id: i64, name: &str) -> Failure {
    Failure::refuse(
        Refusal::SetRetired,
        format!("set bet {id} ({name}) is retired and no longer sold (rule 6.3(h))"),
    )
}

/// The ticket's price (rule 6.2), once the most it stands to win in one game is within the
/// operator's limit (issue 18, `--ticket-potential-limit`): before anything is stored. With the
/// game's limits set, its ways as they play, for the book to judge.
fn checked_price(
    selling: Selling<'_>,
    plan: &keno_core::BetPlan,
    request: &SaleRequest,
) -> DomainResult<(keno_core::Price, Vec<WayInPlay>)> {
    let price = selling
        .rules
        .price(plan, request.amount_per_way_cents, request.games)?;
    let limits = &selling.limits;
    if limits.ticket_potential_cents.is_none() && !limits.bind_the_game() {
        return Ok((price, Vec::new()));
    }
    let amount = price.amount_per_way_cents;
    let ways: Vec<WayInPlay> = plan
        .ways
        .iter()
        .map(|w| WayInPlay {
            numbers: w.numbers,
            plays_under: w.plays_under,
            amount_per_way_cents: amount,
        })
        .collect();
    if limits.ticket_potential_cents.is_some() {
        limits.check_ticket(keno_core::ticket_potential(selling.rules, &ways))?;
    }
    Ok((price, ways))
}

/// The set a set bet plays, as it was looked up: refused when unknown or retired.
fn set_bet_of(request: &SaleRequest, context: &Context) -> DomainResult<Option<SetBetRef>> {
    match (&request.bet, &context.set) {
        (BetRequest::SetBet { set, .. }, None) => Err(unknown_set(*set)),
        (BetRequest::SetBet { mode, .. }, Some(set)) => {
            if set.retired_at.is_some() {
                return Err(set_retired(set.id, &set.name));
            }
            Ok(Some(SetBetRef {
                id: set.id,
                name: set.name.clone(),
                mode: *mode,
            }))
        }
        _ => Ok(None),
    }
}

/// The ticket as it will be stored, checked and priced by keno-core; the game, serial and
/// ticket number are given when it commits. A quote's has no `site` or `terminal`.
pub fn prepare(
    selling: Selling<'_>,
    (principal, request): (&Principal, &SaleRequest),
    context: &Context,
    site: String,
    terminal: String,
) -> DomainResult<Prepared> {
    let rules = selling.rules;
    let schedule = ScheduleId::from(request.schedule);
    let set_bet = set_bet_of(request, context)?;
    let shape = context.set.as_ref().map(SetBetRow::shape).transpose()?;
    let bet = request
        .bet
        .to_bet(|_| shape)
        .expect("a set bet's set is looked up above");
    let mut rng = UnwrapErr(SaleRng::default());
    let marks = bet.mark(rules, schedule, &mut rng)?;
    let plan = rules.plan_sale(marks, schedule, context.special3)?;
    let (price, ways) = checked_price(selling, &plan, request)?;
    let ways = (plan.kind, ways);
    let plays_special3 = plan
        .ways
        .iter()
        .any(|w| w.plays_under == ScheduleId::Special3);
    let groups: Vec<Vec<u8>> = plan.groups.iter().map(|g| g.to_vec()).collect();
    let ticket = TicketRow {
        serial: String::new(),
        principal_id: principal.id.clone(),
        request_id: request.request_id.clone(),
        ticket_number: 0,
        site,
        terminal,
        writer: principal.name.clone(),
        issued_at: 0,
        keno_day: String::new(),
        bet_type: bet_kind_name(plan.kind),
        schedule: schedule.key().to_string(),
        groups_json: serde_json::to_string(&groups).expect("numbers serialize"),
        combine_json: serde_json::to_string(&plan.combine).expect("numbers serialize"),
        way_counts_json: serde_json::to_string(&ways_lines(&plan)).expect("lines serialize"),
        amount_per_way_cents: price.amount_per_way_cents as i64,
        way_count: price.ways as i64,
        first_game: 0,
        last_game: 0,
        games: price.games as i32,
        charged_games: price.charged_games as i32,
        game_cost_cents: price.game_cost_cents as i64,
        total_cents: price.total_cents as i64,
        rule_set: selling.rule_set_hash.to_string(),
        status: TicketStatus::Active,
        cancelled_from_game: None,
        refund_cents: 0,
        cancelled_at: None,
        paid_cents: 0,
        paid_at: None,
        paid_by: None,
        pay_method: None,
        // Set by the sale; a quote has none.
        request_digest: None,
        entry_form_sha256: entry_form(request)?,
    };
    Ok(Prepared {
        ticket,
        set_bet,
        ways,
        rng,
        special3_digest: if plays_special3 {
            selling.special3_digest.map(str::to_string)
        } else {
            None
        },
    })
}

/// What the audit trail records of a sale: the columns it wrote, and for a set bet the set and
/// how it was played.
pub fn sold_payload(t: &TicketRow, set_bet: Option<(i64, &str)>) -> serde_json::Value {
    let mut payload = serde_json::json!(NewTicket::from(t));
    if let (Some((id, mode)), Some(map)) = (set_bet, payload.as_object_mut()) {
        map.insert("set_bet_id".into(), id.into());
        map.insert("set_bet_mode".into(), mode.into());
    }
    payload
}

/// `sold_payload`'s members but those the commit gives (`sold_record`), as JSON text without
/// its braces: the most of a record, serialized before the sale writer's turn (issue 37).
/// Written straight from the ticket (`RecordBeforeCommit`), not through a `serde_json::Value`,
/// whose map and its allocations took 7% of the HTTP workers' processor.
fn record_before_commit(t: &TicketRow, set_bet: Option<(i64, &str)>) -> String {
    let text = serde_json::to_string(&RecordBeforeCommit::new(t, set_bet))
        .expect("a ticket's record serializes");
    text[1..text.len() - 1].to_string()
}

/// `NewTicket`'s members and a set bet's, but those the commit gives, in the order of their
/// names: the order a `serde_json::Value` writes, so the record's text is as it always was.
#[derive(serde::Serialize)]
struct RecordBeforeCommit<'a> {
    amount_per_way_cents: i64,
    bet_type: &'a str,
    charged_games: i32,
    combine_json: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    entry_form_sha256: Option<&'a str>,
    game_cost_cents: i64,
    games: i32,
    groups_json: &'a str,
    principal_id: &'a str,
    request_id: &'a str,
    rule_set: &'a str,
    schedule: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    set_bet_id: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    set_bet_mode: Option<&'a str>,
    site: &'a str,
    status: &'a str,
    terminal: &'a str,
    total_cents: i64,
    way_count: i64,
    way_counts_json: &'a str,
    writer: &'a str,
}

impl<'a> RecordBeforeCommit<'a> {
    fn new(t: &'a TicketRow, set_bet: Option<(i64, &'a str)>) -> Self {
        RecordBeforeCommit {
            amount_per_way_cents: t.amount_per_way_cents,
            bet_type: &t.bet_type,
            charged_games: t.charged_games,
            combine_json: &t.combine_json,
            entry_form_sha256: t.entry_form_sha256.as_deref(),
            game_cost_cents: t.game_cost_cents,
            games: t.games,
            groups_json: &t.groups_json,
            principal_id: &t.principal_id,
            request_id: &t.request_id,
            rule_set: &t.rule_set,
            schedule: &t.schedule,
            set_bet_id: set_bet.map(|(id, _)| id),
            set_bet_mode: set_bet.map(|(_, mode)| mode),
            site: &t.site,
            status: t.status.as_str(),
            terminal: &t.terminal,
            total_cents: t.total_cents,
            way_count: t.way_count,
            way_counts_json: &t.way_counts_json,
            writer: &t.writer,
        }
    }
}

/// The sale's trail record (`sold_payload`'s members), from the part made before the commit and
/// what the commit gave the ticket.
pub fn sold_record(before_commit: &str, t: &TicketRow) -> String {
    let text = |s: &str| serde_json::Value::from(s).to_string();
    format!(
        "{{\"first_game\":{},\"issued_at\":{},\"keno_day\":{},\"last_game\":{},\"serial\":{},\
         \"ticket_number\":{},{before_commit}}}",
        t.first_game,
        t.issued_at,
        text(&t.keno_day),
        t.last_game,
        text(&t.serial),
        t.ticket_number,
    )
}

/// Rule 5.4: the scanned entry form's SHA-256, as 64 lowercase hex digits.
fn entry_form(request: &SaleRequest) -> DomainResult<Option<String>> {
    match &request.entry_form_sha256 {
        Some(digest)
            if digest.len() != 64 || !digest.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) =>
        {
            Err(Failure::refuse(
                Refusal::InvalidEntryForm,
                "entry_form_sha256 is the SHA-256 of the entry form's image: 64 lowercase hex digits",
            ))
        }
        other => Ok(other.clone()),
    }
}

/// The columns a sale writes; the rest start empty (cancellation, payment). The audit trail
/// records a sale as these.
#[derive(Insertable, serde::Serialize)]
#[diesel(table_name = tickets)]
pub struct NewTicket<'a> {
    pub serial: &'a str,
    pub principal_id: &'a str,
    pub request_id: &'a str,
    pub ticket_number: i64,
    pub site: &'a str,
    pub terminal: &'a str,
    pub writer: &'a str,
    pub issued_at: i64,
    pub keno_day: &'a str,
    pub bet_type: &'a str,
    pub schedule: &'a str,
    pub groups_json: &'a str,
    pub combine_json: &'a str,
    pub way_counts_json: &'a str,
    pub amount_per_way_cents: i64,
    pub way_count: i64,
    pub first_game: i64,
    pub last_game: i64,
    pub games: i32,
    pub charged_games: i32,
    pub game_cost_cents: i64,
    pub total_cents: i64,
    pub rule_set: &'a str,
    pub status: &'a str,
    /// Not evidence of the sale, only what a retry is matched against: not in the trail.
    #[serde(skip)]
    pub request_digest: Option<&'a str>,
    /// Left out when none, so a keyed sale's record is as it always was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entry_form_sha256: Option<&'a str>,
}

impl<'a> From<&'a TicketRow> for NewTicket<'a> {
    fn from(t: &'a TicketRow) -> Self {
        NewTicket {
            serial: &t.serial,
            principal_id: &t.principal_id,
            request_id: &t.request_id,
            ticket_number: t.ticket_number,
            site: &t.site,
            terminal: &t.terminal,
            writer: &t.writer,
            issued_at: t.issued_at,
            keno_day: &t.keno_day,
            bet_type: &t.bet_type,
            schedule: &t.schedule,
            groups_json: &t.groups_json,
            combine_json: &t.combine_json,
            way_counts_json: &t.way_counts_json,
            amount_per_way_cents: t.amount_per_way_cents,
            way_count: t.way_count,
            first_game: t.first_game,
            last_game: t.last_game,
            games: t.games,
            charged_games: t.charged_games,
            game_cost_cents: t.game_cost_cents,
            total_cents: t.total_cents,
            rule_set: &t.rule_set,
            status: t.status.as_str(),
            request_digest: t.request_digest.as_deref(),
            entry_form_sha256: t.entry_form_sha256.as_deref(),
        }
    }
}

/// The open game, held against the close until this transaction ends.
pub fn lock_open_game(conn: &mut DbConnection) -> QueryResult<Option<GameRow>> {
    let open = games::table
        .filter(games::state.eq(keno_core::GameState::Open.as_str()))
        .order(games::number.desc());
    // A shared lock: sales run side by side; the close's UPDATE waits for them, and a sale
    // that waited on a close finds the row no longer open.
    held!(
        conn,
        Hold::Share,
        open.select(GameRow::as_select()),
        |c, q| q.first(c).optional()
    )
}

/// Refuses a retry whose request is not the one that sold `t` under the same request id.
pub fn same_sale(t: &TicketRow, digest: &str) -> DomainResult<()> {
    if crate::request_ids::same(t.request_digest.as_deref(), digest) {
        return Ok(());
    }
    let earlier = format_args!(
        "the sale of ticket {}, at {}",
        t.serial,
        crate::db::rfc3339(t.issued_at)
    );
    Err(crate::request_ids::reused(&t.request_id, earlier))
}

/// A sale already made under `request_id` by the same request (409 for another), with how it
/// was paid.
pub fn sold_before(
    rule_sets: &RuleSets,
    conn: &mut DbConnection,
    (principal, request_id): (&str, &str),
    digest: &str,
) -> DomainResult<Option<SoldTicket>> {
    let Some(t) = by_request(conn, principal, request_id)? else {
        return Ok(None);
    };
    same_sale(&t, digest)?;
    let payment = tender::load_payment(conn, &t)?;
    Ok(Some(SoldTicket {
        ticket: view(rule_sets, conn, &t)?,
        payment,
    }))
}

fn by_request(
    conn: &mut DbConnection,
    principal: &str,
    request_id: &str,
) -> QueryResult<Option<TicketRow>> {
    let serial: Option<String> = tickets::table
        .filter(tickets::principal_id.eq(principal))
        .filter(tickets::request_id.eq(request_id))
        .select(tickets::serial)
        .first(conn)
        .optional()?;
    match serial {
        Some(s) => find(conn, &s),
        None => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::Role;

    /// The record made in two parts, before the commit and at it, is `sold_payload`: what
    /// `audit verify` compares the trail with.
    #[test]
    fn a_record_made_before_the_commit_is_the_sale_as_verify_reads_it() {
        let rules = RuleSet::act_1992();
        let selling = Selling {
            rules: &rules,
            rule_set_hash: "ab12",
            special3_digest: None,
            limits: LiabilityLimits::default(),
        };
        let writer = Principal {
            id: "w1".into(),
            role: Role::Writer,
            name: "Writer \"One\"".into(),
            site: Some("site".into()),
            terminal: Some("t1".into()),
            session: None,
        };
        let request: SaleRequest = serde_json::from_value(serde_json::json!({
            "request_id": "r-1",
            "bet": {"type": "way", "groups": [[1, 2], [3, 4], [5, 6]], "combine": [2]},
            "amount_per_way_cents": 100,
            "games": 5,
            "entry_form_sha256": "0".repeat(64),
        }))
        .unwrap();
        let prepared = prepare(
            selling,
            (&writer, &request),
            &Context::default(),
            "site".into(),
            "t1".into(),
        )
        .unwrap();
        let (sale, _) = prepared.into_sale(Vec::new(), "digest".into());
        assert!(keno_core::serial::is_well_formed(&sale.ticket.serial));
        let mut t = sale.ticket.clone();
        (t.ticket_number, t.issued_at, t.first_game, t.last_game) =
            (7, 1_700_000_000_000_000, 40, 44);
        t.keno_day = "2026-11-28".into();
        let record: serde_json::Value =
            serde_json::from_str(&sold_record(&sale.record, &t)).unwrap();
        assert_eq!(record, sold_payload(&t, None));
        for set in [Some((3, "fixed")), None] {
            let record = record_before_commit(&t, set);
            let whole: serde_json::Value = serde_json::from_str(&sold_record(&record, &t)).unwrap();
            assert_eq!(whole, sold_payload(&t, set));
        }
        // Byte for byte what the record was when made through a `Value`: a member added to
        // `NewTicket` and not to `RecordBeforeCommit`, or out of order, shows here.
        for entry_form in [t.entry_form_sha256.clone(), None] {
            let t = TicketRow {
                entry_form_sha256: entry_form,
                ..t.clone()
            };
            for set in [Some((3, "random")), None] {
                assert_eq!(record_before_commit(&t, set), through_a_value(&t, set));
            }
        }
    }

    /// The trail record's fields that the commit gives the ticket.
    const GIVEN_AT_COMMIT: [&str; 6] = [
        "first_game",
        "issued_at",
        "keno_day",
        "last_game",
        "serial",
        "ticket_number",
    ];

    /// The record's first part as it was made until issue 37: `sold_payload` less the members
    /// the commit gives, written by a `serde_json::Value`.
    fn through_a_value(t: &TicketRow, set_bet: Option<(i64, &str)>) -> String {
        let mut payload = sold_payload(t, set_bet);
        for field in GIVEN_AT_COMMIT {
            payload.as_object_mut().unwrap().remove(field);
        }
        let text = payload.to_string();
        text[1..text.len() - 1].to_string()
    }
}
