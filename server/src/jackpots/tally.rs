//! The pools as the announcer shows them, kept up to date rather than read whole every second
//! (issue 37).
//!
//! [`current`](super::current) reads and parses every jackpot ticket of the games not yet
//! settled. The announcer ran it once a second while jackpot tickets sold, so its cost per sale
//! grew with the open game: at 2,000 sales a second it was a fifth of the background tasks'
//! processor 15 seconds into a game and twice that a minute in. The tally keeps the tickets it
//! has read and reads, at each look, only what changed since the one before: the jackpot
//! tickets issued since (told apart within the index `tickets_jackpot`), and those cancelled
//! (rule 8) or voided (rule 17.2) since, which it reads again. The pools are summed from the
//! tickets held by the same code as `current` (`pools`), so the two cannot count differently.
//!
//! As the liability's book does, a look reaches [`LOOK_BACK_MICROS`] behind the one before: a
//! sale's `issued_at` is stamped before its batch commits. A game settled since (the pools carry
//! over), a clock gone back, or [`READ_WHOLE_MICROS`] since the last whole read start the tally
//! over from the whole read: what another instance's clock, far from this one's, stamped is never
//! missed for long. Each look still steps over the index entries of the unsettled games' jackpot
//! tickets (`tickets_jackpot`: schedule, last game, issue time), but reads from the table and
//! parses only the tickets it does not hold.

use std::collections::HashMap;

use diesel::prelude::*;
use keno_core::RuleSet;

use super::{pools, sold, Counted, Jackpot, Unsettled, Which};
use crate::db::schema::tickets;
use crate::db::{now_micros, DbConnection};

/// How far behind its last look a look reads: more than a sale batch takes to commit.
const LOOK_BACK_MICROS: i64 = 10_000_000;

/// How long after a whole read the tally is read whole again (the server's clock).
const READ_WHOLE_MICROS: i64 = 60_000_000;

/// The jackpot tickets of the games not yet settled, as last looked at.
#[derive(Default)]
pub struct Tally {
    /// The last settled game when the tickets were read whole; `None` before the first look.
    after: Option<i64>,
    /// When it last looked (the server's clock).
    looked_at: i64,
    /// When it was last read whole.
    read_whole_at: i64,
    tickets: HashMap<String, Counted>,
}

impl Tally {
    /// The pools as they stand, as [`current`](super::current) gives them.
    pub fn pools(
        &mut self,
        rules: &RuleSet,
        conn: &mut DbConnection,
    ) -> anyhow::Result<Vec<Jackpot>> {
        let unsettled = Unsettled::read(rules, conn)?;
        let now = now_micros();
        let whole = self.after != Some(unsettled.last_settled)
            || now < self.looked_at
            || now - self.read_whole_at >= READ_WHOLE_MICROS;
        if whole {
            self.tickets = sold(conn, unsettled.last_settled, Which::All, None)?
                .into_iter()
                .collect();
            self.read_whole_at = now;
        } else if let Err(e) = self.catch_up(conn, unsettled.last_settled) {
            // Half caught up (the changed tickets taken out, not read again): the next look
            // reads whole.
            self.after = None;
            return Err(e);
        }
        self.after = Some(unsettled.last_settled);
        self.looked_at = now;
        pools(rules, &unsettled, self.tickets.values())
    }

    /// Reads the jackpot tickets issued since the last look that it does not hold, and again
    /// those it holds that were cancelled or voided since (no longer held if they no longer
    /// count).
    fn catch_up(&mut self, conn: &mut DbConnection, last_settled: i64) -> anyhow::Result<()> {
        let since = self.looked_at - LOOK_BACK_MICROS;
        // By the time alone (`tickets_cancelled_at`): with the schedule too, the index on it
        // would be chosen, and every jackpot ticket ever sold read. Those of other schedules
        // are not held, and read again they are not found.
        let mut changed: Vec<String> = tickets::table
            .filter(tickets::cancelled_at.ge(since))
            .select(tickets::serial)
            .load(conn)?;
        changed.extend(crate::tickets::void::voided_since(conn, since)?);
        // A ticket not held takes no part: one of another schedule, or one issued since, which
        // the read by issue time below finds as it now stands.
        changed.retain(|serial| self.tickets.remove(serial).is_some());
        let held = &self.tickets;
        let mut read = sold(conn, last_settled, Which::IssuedSince(since), Some(held))?;
        for serials in changed.chunks(500) {
            read.extend(sold(conn, last_settled, Which::Serials(serials), None)?);
        }
        self.tickets.extend(read);
        Ok(())
    }
}
