//! The open game's live liability (issue 18): keno-core's [`Exposure`] and [`Simulation`], kept
//! in memory as the game's tickets are found, never rescanned whole per request.
//!
//! The book of the open game is built once (every ticket covering it, multi-game tickets sold
//! earlier included), then caught up every second (and at each request) with only what changed
//! since it last looked: tickets issued since (by any instance: the book reads the database, so
//! a second instance's sales count), and tickets it holds that were cancelled or voided since
//! (their ways taken back, rules 8, 17.2). A sale's `issued_at` is stamped before its batch
//! commits, so the look back reaches [`LOOK_BACK_MICROS`] behind the last look and a ticket
//! already in the book is not added twice.
//!
//! With the game's limits set (`--game-expected-payout-limit`, `--number-stake-limit`), a sale
//! is judged against the book before it is queued: its ways are held in the book until it
//! commits (then counted under its serial) or fails (then let go), so the sales in flight count
//! too. Other instances' sales count from the book's next catch-up, within a second. Without
//! those limits the sale path never touches the book.
//!
//! The task that keeps the book caught up is the app's (`task.rs`); the endpoint is
//! `routes/liability.rs`.

pub mod task;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use diesel::prelude::*;
use keno_api::games::{
    ColumnStake, Liability, LiabilityLimits, NumberStake, PayoutPercentile, SimulatedPayout,
};
use keno_core::{
    bonus_by_catch, BetKind, BonusOffer, Exposure, NumberSet, RuleSet, Simulation, TicketStatus,
    WayExposure, WayInPlay,
};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

use crate::db::schema::{ticket_voids, tickets};
use crate::db::{now_micros, DbConnection};
use crate::error::{DomainResult, Failure};
use crate::rule_sets::RuleSets;
use crate::store::Store;

/// How far behind its last look a catch-up reads: more than a sale batch takes to commit.
const LOOK_BACK_MICROS: i64 = 10_000_000;

/// How many simulated draws the payout curve is taken over.
const SIMULATED_DRAWS: usize = 1_000;
/// The curve's points, in tenths of a percent.
const CURVE: [u32; 5] = [500, 900, 990, 999, 1000];
/// A book older than this is caught up before a sale is judged against it.
const FRESH_MICROS: i64 = 2_000_000;

/// A ticket's ways in the game, each with its exposure and its ticket's type (what a bonus
/// prize may ask for, rule 6.3(e)).
type Ways = Vec<(WayInPlay, WayExposure, BetKind)>;

/// The books of this instance (one open game at a time): app data of its own
/// (`web::Data<Books>`), given the rule sets and the limits it needs by each caller.
#[derive(Default)]
pub struct Books {
    book: Mutex<Option<Book>>,
}

struct Book {
    game: i64,
    rules: std::sync::Arc<RuleSet>,
    /// The bonus prizes the game offers, fixed when it opened: part of every way's prize.
    bonuses: Vec<BonusOffer>,
    exposure: Exposure,
    simulation: Simulation,
    /// Serial -> its ways in this game, as added.
    counted: HashMap<String, Ways>,
    /// Sales judged and not yet committed: their ways, by hold.
    held: HashMap<u64, Ways>,
    held_exposure: Exposure,
    next_hold: u64,
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

/// The sample of draws a game's payout is simulated over: the same for every instance and
/// every rebuild of the game's book (seeded by the game's number), not the certified RNG's.
fn sample(game: i64) -> Vec<NumberSet> {
    let mut rng = ChaCha20Rng::seed_from_u64(game as u64);
    (0..SIMULATED_DRAWS)
        .map(|_| {
            let numbers = keno_core::random::distinct_numbers(&mut rng, 20);
            NumberSet::from_numbers(&numbers).expect("20 distinct numbers from 1 to 80")
        })
        .collect()
}

impl Book {
    fn new(game: i64, rules: std::sync::Arc<RuleSet>, bonuses: Vec<BonusOffer>) -> Book {
        Book {
            game,
            rules,
            bonuses,
            exposure: Exposure::default(),
            simulation: Simulation::new(sample(game)),
            counted: HashMap::new(),
            held: HashMap::new(),
            held_exposure: Exposure::default(),
            next_hold: 0,
            looked_at: 0,
        }
    }

    /// Counts a ticket's ways in the game, once.
    fn count(&mut self, serial: String, ways: Ways) {
        if self.counted.contains_key(&serial) {
            return;
        }
        for (way, exposure, kind) in &ways {
            self.exposure.add(way, exposure);
            let bonus = self.bonus(*kind, way);
            self.simulation.add(&self.rules, way, &bonus);
        }
        self.counted.insert(serial, ways);
    }

    fn uncount(&mut self, serial: &str) {
        if let Some(ways) = self.counted.remove(serial) {
            for (way, exposure, kind) in &ways {
                self.exposure.remove(way, exposure);
                let bonus = self.bonus(*kind, way);
                self.simulation.remove(&self.rules, way, &bonus);
            }
        }
    }

    /// What `way` of a ticket of `kind` wins in the game's bonus prizes with each catch.
    fn bonus(&self, kind: BetKind, way: &WayInPlay) -> Vec<u64> {
        bonus_by_catch(
            &self.bonuses,
            kind,
            way.numbers.len(),
            way.amount_per_way_cents,
        )
    }

    /// A ticket's ways in the game with their exposure, bonus prizes included.
    fn ways(&self, kind: BetKind, ways: impl IntoIterator<Item = WayInPlay>) -> Ways {
        ways.into_iter()
            .map(|way| {
                let bonus = self.bonus(kind, &way);
                (way, self.rules.way_exposure_with(&way, &bonus), kind)
            })
            .collect()
    }

    /// Adds the tickets covering the game issued since `since` and not yet in the book: the
    /// serials issued since first (an index's range), the rest of a ticket only when new.
    fn add_new(&mut self, conn: &mut DbConnection, since: i64) -> DomainResult<()> {
        if since == i64::MIN {
            return self.add_sold(conn, None);
        }
        let recent: Vec<String> = tickets::table
            .filter(tickets::issued_at.ge(since))
            .select(tickets::serial)
            .load(conn)?;
        let new: Vec<String> = recent
            .into_iter()
            .filter(|s| !self.counted.contains_key(s))
            .collect();
        for chunk in new.chunks(500) {
            self.add_sold(conn, Some(chunk))?;
        }
        Ok(())
    }

    /// Adds the tickets covering the game (of `only`, if given) and not yet in the book.
    fn add_sold(&mut self, conn: &mut DbConnection, only: Option<&[String]>) -> DomainResult<()> {
        let mut query = tickets::table.into_boxed();
        if let Some(serials) = only {
            query = query.filter(tickets::serial.eq_any(serials));
        }
        let sold: Vec<Sold> = query
            .filter(tickets::first_game.le(self.game))
            .filter(tickets::last_game.ge(self.game))
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
            let rules = &self.rules;
            let plan = crate::tickets::plan_stored(
                rules,
                &t.serial,
                &t.bet_type,
                &t.schedule,
                &t.groups_json,
                &t.combine_json,
            )?;
            let ways = self.ways(
                plan.kind,
                plan.ways.iter().map(|w| WayInPlay {
                    numbers: w.numbers,
                    plays_under: w.plays_under,
                    amount_per_way_cents: t.amount_per_way_cents as u64,
                }),
            );
            self.count(t.serial, ways);
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
        gone.extend(crate::tickets::void::voided_since(conn, since)?);
        for serial in gone {
            self.uncount(&serial);
        }
        Ok(())
    }
}

impl Books {
    /// Brings the open game's book up to date: built when the game is new to it, else caught
    /// up with what changed since it last looked. `None` when no game is open.
    pub fn catch_up(
        &self,
        rule_sets: &RuleSets,
        conn: &mut DbConnection,
    ) -> DomainResult<Option<i64>> {
        let Some(game) = crate::games::open_game(conn)? else {
            return Ok(None);
        };
        let rules = rule_sets.get(conn, &game.rule_set)?;
        let fresh = self
            .book
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
            .is_none_or(|b| b.game != game.number);
        let bonuses = if fresh {
            offered_bonuses(conn, game.number)?
        } else {
            Vec::new()
        };
        let mut books = self.book.lock().unwrap_or_else(|p| p.into_inner());
        let book = match books.as_mut() {
            Some(book) if book.game == game.number => book,
            _ => books.insert(Book::new(game.number, rules, bonuses)),
        };
        let now = now_micros();
        let since = if book.looked_at == 0 {
            i64::MIN
        } else {
            book.looked_at - LOOK_BACK_MICROS
        };
        book.add_new(conn, since)?;
        if book.looked_at != 0 {
            book.take_back(conn, since)?;
        }
        book.looked_at = now;
        Ok(Some(game.number))
    }

    fn stale(&self) -> bool {
        let books = self.book.lock().unwrap_or_else(|p| p.into_inner());
        books
            .as_ref()
            .is_none_or(|b| now_micros() - b.looked_at > FRESH_MICROS)
    }

    /// The open game's book brought up to date, as the answer shows it.
    pub fn liability(
        &self,
        (rule_sets, limits): (&RuleSets, &keno_core::LiabilityLimits),
        conn: &mut DbConnection,
    ) -> DomainResult<Liability> {
        self.catch_up(rule_sets, conn)?
            .ok_or_else(|| Failure::refuse(keno_api::Refusal::NoOpenGame, "no game is open"))?;
        let (rules, jackpot_ways) = {
            let books = self.book.lock().unwrap_or_else(|p| p.into_inner());
            let book = books.as_ref().expect("caught up above");
            (book.rules.clone(), book.exposure.jackpot_ways)
        };
        let pools = pools_at_stake(&rules, conn, jackpot_ways)?;
        let (unpaid, vouchers) = outstanding(conn)?;
        let books = self.book.lock().unwrap_or_else(|p| p.into_inner());
        let book = books.as_ref().expect("caught up above");
        let mut answer = view(book, pools, limits);
        (answer.unpaid_prizes_cents, answer.live_vouchers_cents) = (unpaid, vouchers);
        Ok(answer)
    }

    /// Judges a sale's ways against the open game's limits and holds them in the book.
    fn reserve(
        &self,
        (rules, limits): (&RuleSet, &keno_core::LiabilityLimits),
        (kind, ways): (BetKind, Vec<WayInPlay>),
    ) -> DomainResult<Option<u64>> {
        let mut books = self.book.lock().unwrap_or_else(|p| p.into_inner());
        // No open game: the sale will be refused for that.
        let Some(book) = books.as_mut() else {
            return Ok(None);
        };
        // Judged under the rule set in force, with the game's bonus prizes.
        let ways: Ways = ways
            .into_iter()
            .map(|w| {
                let bonus = book.bonus(kind, &w);
                (w, rules.way_exposure_with(&w, &bonus), kind)
            })
            .collect();
        let mut with_held = book.exposure.clone();
        with_held.absorb(&book.held_exposure);
        limits.check_game(&with_held, ways.iter().map(|(w, e, _)| (w, e)))?;
        for (way, exposure, _) in &ways {
            book.held_exposure.add(way, exposure);
        }
        book.next_hold += 1;
        let id = book.next_hold;
        book.held.insert(id, ways);
        Ok(Some(id))
    }

    /// Lets a hold go; counts its ways under `sold` (the serial) if the sale landed in the
    /// book's game.
    fn release(&self, game: i64, id: u64, sold: Option<(&str, i64)>) {
        let mut books = self.book.lock().unwrap_or_else(|p| p.into_inner());
        let Some(book) = books.as_mut().filter(|b| b.game == game) else {
            return;
        };
        let Some(ways) = book.held.remove(&id) else {
            return;
        };
        for (way, exposure, _) in &ways {
            book.held_exposure.remove(way, exposure);
        }
        if let Some((serial, first_game)) = sold {
            if first_game <= game {
                book.count(serial.to_string(), ways);
            }
        }
    }
}

/// A sale's ways held in the open game's book until it commits or fails.
pub struct Hold {
    books: Arc<Books>,
    game: i64,
    id: u64,
    done: bool,
}

impl Hold {
    /// The sale committed as ticket `serial`, first playing `first_game`.
    pub fn sold(mut self, serial: &str, first_game: i64) {
        self.books
            .release(self.game, self.id, Some((serial, first_game)));
        self.done = true;
    }
}

impl Drop for Hold {
    fn drop(&mut self) {
        if !self.done {
            self.books.release(self.game, self.id, None);
        }
    }
}

/// Judges a sale against the open game's limits (issue 18: AGCO 3.1.6, wagers over a
/// liability limit are refused) before it is stored: refused with its own code if it would
/// pass one, else held in the book until it commits. `None` when no game limit is set. The
/// ways are judged under `rules` (the rule set in force), a book built under the game's own
/// (`rule_sets`).
pub async fn hold(
    store: &Store,
    books: &Arc<Books>,
    (rules, rule_sets, limits): (&RuleSet, &RuleSets, keno_core::LiabilityLimits),
    ways: (BetKind, Vec<WayInPlay>),
) -> DomainResult<Option<Hold>> {
    if !limits.bind_the_game() {
        return Ok(None);
    }
    if books.stale() {
        let (caught, rule_sets) = (books.clone(), rule_sets.clone());
        crate::store::read(store, move |conn| caught.catch_up(&rule_sets, conn)).await?;
    }
    let game = {
        let book = books.book.lock().unwrap_or_else(|p| p.into_inner());
        book.as_ref().map(|b| b.game)
    };
    let (Some(game), Some(id)) = (game, books.reserve((rules, &limits), ways)?) else {
        return Ok(None);
    };
    Ok(Some(Hold {
        books: books.clone(),
        game,
        id,
        done: false,
    }))
}

/// The bonus prizes game `game` offers (rule 6.3(e)), as fixed when it opened.
fn offered_bonuses(conn: &mut DbConnection, game: i64) -> DomainResult<Vec<BonusOffer>> {
    crate::bonus::offered(conn, game)?
        .into_iter()
        .map(|b| {
            Ok(BonusOffer {
                terms: b.terms()?,
                prize_cents: u64::try_from(b.prize_cents).map_err(anyhow::Error::from)?,
            })
        })
        .collect()
}

/// The jackpot pools now, when jackpot ways are in play (rule 7).
fn pools_at_stake(
    rules: &RuleSet,
    conn: &mut DbConnection,
    jackpot_ways: u64,
) -> DomainResult<u64> {
    if jackpot_ways == 0 {
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

fn view(book: &Book, pools: u64, limits: &keno_core::LiabilityLimits) -> Liability {
    let e = &book.exposure;
    let curve = book.simulation.curve(&book.rules, &CURVE);
    Liability {
        game: book.game,
        tickets: book.counted.len() as u64,
        ways: e.ways,
        stake_cents: e.stake_cents,
        expected_payout_cents: e.expected_cents(),
        worst_case_cents: e.worst_case(&book.rules, pools),
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
        simulated: SimulatedPayout {
            draws: curve.draws as u64,
            largest_cents: curve.largest_cents,
            percentiles: curve
                .percentiles
                .iter()
                .map(|p| PayoutPercentile {
                    per_mille: p.per_mille,
                    payout_cents: p.payout_cents,
                })
                .collect(),
        },
        limits: LiabilityLimits {
            ticket_potential_cents: limits.ticket_potential_cents,
            game_expected_payout_cents: limits.game_expected_payout_cents,
            number_stake_cents: limits.number_stake_cents,
        },
    }
}
