//! The open game's live liability (issue 18): keno-core's [`Exposure`], kept in memory as the
//! game's tickets are found, never rescanned whole per request.
//!
//! The book of the open game is built once when a game is first asked about (every ticket
//! covering it, multi-game tickets sold earlier included), then caught up at each request with
//! only what changed since it last looked: tickets issued since (by any instance: the book reads
//! the database, so a second instance's sales count), and tickets it holds that were cancelled
//! or voided since (their ways taken back, rules 8, 17.2). A sale's `issued_at` is stamped before
//! its batch commits, so the look back reaches [`LOOK_BACK_MICROS`] behind the last look and a
//! ticket already in the book is not added twice. The sale path itself is untouched.

use std::collections::HashMap;
use std::sync::Mutex;

use actix_web::{get, web};
use diesel::prelude::*;
use keno_api::games::{ColumnStake, Liability, NumberStake};
use keno_core::{Exposure, RuleSet, TicketStatus, WayExposure, WayInPlay};

use crate::auth::{Require, Role};
use crate::db::schema::{ticket_voids, tickets};
use crate::db::{now_micros, DbConnection};
use crate::error::{ApiResult, DomainResult, Failure};
use crate::state::AppState;

/// How far behind its last look a catch-up reads: more than a sale batch takes to commit.
const LOOK_BACK_MICROS: i64 = 10_000_000;

/// The books of this instance (one open game at a time).
#[derive(Default)]
pub struct Books(Mutex<Option<Book>>);

struct Book {
    game: i64,
    exposure: Exposure,
    /// Serial -> its ways in this game, as added.
    counted: HashMap<String, Vec<(WayInPlay, WayExposure)>>,
    looked_at: i64,
}

#[derive(Queryable, Selectable)]
#[diesel(table_name = tickets)]
struct Sold {
    serial: String,
    bet_type: String,
    schedule: String,
    groups_json: String,
    combine_json: String,
    amount_per_way_cents: i64,
}

impl Book {
    fn new(game: i64) -> Book {
        Book {
            game,
            exposure: Exposure::default(),
            counted: HashMap::new(),
            looked_at: 0,
        }
    }

    /// Adds the tickets covering the game issued since `since` and not yet in the book.
    fn add_new(
        &mut self,
        rules: &RuleSet,
        conn: &mut DbConnection,
        since: i64,
    ) -> DomainResult<()> {
        let sold: Vec<Sold> = tickets::table
            .filter(tickets::first_game.le(self.game))
            .filter(tickets::last_game.ge(self.game))
            .filter(tickets::issued_at.ge(since))
            .filter(tickets::status.eq(TicketStatus::Active.as_str()))
            // Rule 8: a ticket's games cancelled from before this one take no part in it.
            .filter(
                tickets::cancelled_from_game
                    .is_null()
                    .or(tickets::cancelled_from_game.gt(self.game)),
            )
            // Rule 17.2: a voided ticket takes no part in a game not yet settled.
            .filter(diesel::dsl::not(diesel::dsl::exists(
                ticket_voids::table.filter(ticket_voids::serial.eq(tickets::serial)),
            )))
            .select(Sold::as_select())
            .load(conn)?;
        for t in sold {
            if self.counted.contains_key(&t.serial) {
                continue;
            }
            let plan = crate::tickets::plan_stored(
                rules,
                &t.serial,
                &t.bet_type,
                &t.schedule,
                &t.groups_json,
                &t.combine_json,
            )?;
            let ways: Vec<(WayInPlay, WayExposure)> = plan
                .ways
                .iter()
                .map(|w| {
                    let way = WayInPlay {
                        numbers: w.numbers,
                        plays_under: w.plays_under,
                        amount_per_way_cents: t.amount_per_way_cents as u64,
                    };
                    (way, rules.way_exposure(&way))
                })
                .collect();
            for (way, exposure) in &ways {
                self.exposure.add(way, exposure);
            }
            self.counted.insert(t.serial, ways);
        }
        Ok(())
    }

    /// Takes back the tickets in the book cancelled from this game or voided since `since`.
    fn take_back(&mut self, conn: &mut DbConnection, since: i64) -> QueryResult<()> {
        let mut gone: Vec<String> = tickets::table
            .filter(tickets::cancelled_at.ge(since))
            .filter(
                tickets::cancelled_from_game
                    .le(self.game)
                    .or(tickets::status.eq(TicketStatus::Cancelled.as_str())),
            )
            .select(tickets::serial)
            .load(conn)?;
        gone.extend(
            ticket_voids::table
                .filter(ticket_voids::voided_at.ge(since))
                .select(ticket_voids::serial)
                .load::<String>(conn)?,
        );
        for serial in gone {
            if let Some(ways) = self.counted.remove(&serial) {
                for (way, exposure) in &ways {
                    self.exposure.remove(way, exposure);
                }
            }
        }
        Ok(())
    }
}

impl Books {
    /// The open game's book brought up to date, as the answer shows it.
    fn liability(&self, state: &AppState, conn: &mut DbConnection) -> DomainResult<Liability> {
        let game = crate::games::open_game(conn)?
            .ok_or_else(|| Failure::refuse(keno_api::Refusal::NoOpenGame, "no game is open"))?;
        let rules = state.rule_sets.get(conn, &game.rule_set)?;
        let mut books = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let book = match books.as_mut() {
            Some(book) if book.game == game.number => book,
            _ => books.insert(Book::new(game.number)),
        };
        let now = now_micros();
        let since = if book.looked_at == 0 {
            i64::MIN
        } else {
            book.looked_at - LOOK_BACK_MICROS
        };
        book.add_new(&rules, conn, since)?;
        if book.looked_at != 0 {
            book.take_back(conn, since)?;
        }
        book.looked_at = now;
        let pools = pools_at_stake(&rules, conn, &book.exposure)?;
        let mut answer = view(book, &rules, pools);
        drop(books);
        (answer.unpaid_prizes_cents, answer.live_vouchers_cents) = outstanding(conn)?;
        Ok(answer)
    }
}

/// The jackpot pools now, when jackpot ways are in play (rule 7).
fn pools_at_stake(
    rules: &RuleSet,
    conn: &mut DbConnection,
    exposure: &Exposure,
) -> DomainResult<u64> {
    if exposure.jackpot_ways == 0 {
        return Ok(0);
    }
    Ok(crate::jackpots::current(rules, conn)?
        .iter()
        .map(|j| j.pool_cents)
        .sum())
}

/// Prizes won and not yet paid (by tickets neither voided, cancelled, nor with their prizes
/// moved as unclaimed, rule 13.2), and the balances of live vouchers.
fn outstanding(conn: &mut DbConnection) -> DomainResult<(u64, u64)> {
    use crate::db::schema::{ticket_results, unclaimed_prizes_moved, vouchers};
    use diesel::dsl::sql;
    use diesel::sql_types::BigInt;
    // PostgreSQL sums BIGINT as NUMERIC: cast back, 0 for none.
    let unpaid: i64 = ticket_results::table
        .inner_join(tickets::table.on(tickets::serial.eq(ticket_results::serial)))
        .filter(tickets::status.eq(TicketStatus::Active.as_str()))
        .filter(diesel::dsl::not(diesel::dsl::exists(
            unclaimed_prizes_moved::table
                .filter(unclaimed_prizes_moved::serial.eq(tickets::serial)),
        )))
        .select(sql::<BigInt>(
            "CAST(COALESCE(SUM(ticket_results.prize_cents), 0) AS BIGINT)",
        ))
        .first(conn)?;
    let held: i64 = vouchers::table
        .filter(vouchers::status.eq(crate::vouchers::VoucherStatus::Active.as_str()))
        .select(sql::<BigInt>(
            "CAST(COALESCE(SUM(vouchers.balance_cents), 0) AS BIGINT)",
        ))
        .first(conn)?;
    let cents = |sum: i64| {
        u64::try_from(sum).map_err(|_| Failure::Internal(anyhow::anyhow!("a negative sum: {sum}")))
    };
    Ok((cents(unpaid)?, cents(held)?))
}

fn view(book: &Book, rules: &RuleSet, pools: u64) -> Liability {
    let e = &book.exposure;
    Liability {
        game: book.game,
        tickets: book.counted.len() as u64,
        ways: e.ways,
        stake_cents: e.stake_cents,
        expected_payout_cents: e.expected_cents(),
        worst_case_cents: e.worst_case(rules, pools),
        jackpot_pools_cents: pools,
        unpaid_prizes_cents: 0,
        live_vouchers_cents: 0,
        per_number: (1..=80u8)
            .map(|n| NumberStake {
                number: n,
                ways: e.per_number[n as usize].ways,
                stake_cents: e.per_number[n as usize].stake_cents,
            })
            .collect(),
        per_column: e
            .per_column
            .iter()
            .map(|(&(schedule, spots), stake)| ColumnStake {
                schedule: schedule.to_string(),
                spots,
                ways: stake.ways,
                stake_cents: stake.stake_cents,
            })
            .collect(),
    }
}

/// What the open game could cost: stake per number and column, the exact expected payout and
/// a sound worst case, kept as its tickets are sold.
#[utoipa::path(
    tag = "games",
    security(("bearer" = [])),
    responses(
        (status = 200, body = Liability),
        (status = 404, body = crate::error::ErrorBody, description = "`no_open_game`"),
        (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)
    )
)]
#[get(
    "/api/v1/games/current/liability",
    wrap = "Require(&[Role::Supervisor, Role::Inspector, Role::Auditor])"
)]
pub async fn current(state: web::Data<AppState>) -> ApiResult<web::Json<Liability>> {
    let answer =
        crate::store::read(&state, |state, conn| state.liability.liability(state, conn)).await?;
    Ok(web::Json(answer))
}
