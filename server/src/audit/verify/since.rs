//! What is new since a checkpoint (`audit verify --from-checkpoint N`, issue 33): a day's
//! verify costs what the day added, not the 36 months before it.
//!
//! Taken as proved, by the full verify that covered checkpoint N: the trail's entries up to the
//! heads N signs, and every ticket, voucher, shift and game that no later entry names. Proved
//! here: N itself (its signature, and the trail's hashes at its heads as it signed them); every
//! entry after it, linked from those heads; every record a later entry names, against all of its
//! entries, old and new (a voucher issued last year and spent today is summed from its issue);
//! every game from the lowest a later entry names, replayed and settled again; the records of the
//! room's administration (people, terminals, rule sets, the catalogue, the fund, voids,
//! suspensions) whole, since they grow with the room, not the sales; and each table's count of
//! tickets, vouchers and games against the trail's count of their creations, so a row added or
//! removed anywhere in the history still shows.

use std::collections::{BTreeMap, BTreeSet};

use anyhow::Context;
use diesel::prelude::*;

use crate::audit::anchor::Checkpoint;
use crate::audit::chains::Head;
use crate::audit::kind::EntryKind;
use crate::db::schema::{audit_checkpoints, audit_log};
use crate::db::DbConnection;

/// The checkpoint a verify starts from and what the entries after it name.
pub struct Since {
    pub checkpoint: Checkpoint,
    /// Its heads: where each chain's walk resumes.
    pub heads: Vec<Head>,
    /// The tickets named by a sale, cancellation, payment or void after it.
    pub tickets: BTreeSet<String>,
    /// The vouchers issued, spent or cashed after it.
    pub vouchers: BTreeSet<String>,
    /// The shifts opened, closed or signed off after it.
    pub shifts: BTreeSet<String>,
    /// The lowest game an entry after it names.
    pub first_game: Option<i64>,
}

/// The kinds whose records are checked only when an entry after the checkpoint names them.
pub const TICKET_KINDS: [EntryKind; 4] = [
    EntryKind::TicketSold,
    EntryKind::TicketCancelled,
    EntryKind::TicketPaid,
    EntryKind::TicketVoided,
];
pub const VOUCHER_KINDS: [EntryKind; 3] = [
    EntryKind::VoucherIssued,
    EntryKind::VoucherSpent,
    EntryKind::VoucherCashed,
];
pub const SHIFT_KINDS: [EntryKind; 3] = [
    EntryKind::ShiftOpened,
    EntryKind::ShiftClosed,
    EntryKind::ShiftSignedOff,
];

/// The trail's kinds of entry about a game and its draw.
pub const GAME_KINDS: [EntryKind; 7] = [
    EntryKind::GameOpened,
    EntryKind::GameClosed,
    EntryKind::GameSettled,
    EntryKind::GameInvalidated,
    EntryKind::NumberDrawn,
    EntryKind::DrawFault,
    EntryKind::CorrectionApplied,
];

/// The kinds of the room's administration: gathered from the whole trail, each record checked.
pub const ADMINISTRATION: [EntryKind; 18] = [
    EntryKind::PrincipalAdded,
    EntryKind::RuleSetRecorded,
    EntryKind::SetBetCreated,
    EntryKind::SetBetRetired,
    EntryKind::Special3ApprovalRecorded,
    EntryKind::Special3ApprovalWithdrawn,
    EntryKind::TicketVoided,
    EntryKind::BonusFundMoved,
    EntryKind::KenoClosureScheduled,
    EntryKind::KenoClosureWithdrawn,
    EntryKind::StaffAdded,
    EntryKind::StaffDisabled,
    EntryKind::StaffEnabled,
    EntryKind::StaffSecretReset,
    EntryKind::TerminalRegistered,
    EntryKind::TerminalCredentialRotated,
    EntryKind::Suspended,
    EntryKind::ResumeKeyTurned,
];

impl Since {
    /// Checkpoint `n` as stored; an error names a checkpoint the database does not hold.
    pub fn load(conn: &mut DbConnection, n: i64) -> anyhow::Result<Since> {
        let checkpoint: Checkpoint = audit_checkpoints::table
            .find(n)
            .select(Checkpoint::as_select())
            .first(conn)
            .optional()?
            .with_context(|| format!("checkpoint {n} is not in the database"))?;
        let heads = checkpoint.signed_heads().with_context(|| {
            format!("checkpoint {n} names the chains' heads in a form no server writes")
        })?;
        Ok(Since {
            checkpoint,
            heads,
            tickets: BTreeSet::new(),
            vouchers: BTreeSet::new(),
            shifts: BTreeSet::new(),
            first_game: None,
        })
    }

    /// The last entry the checkpoint covers: the walk resumes after it.
    pub fn seq(&self) -> i64 {
        self.heads.iter().map(|h| h.seq).max().unwrap_or(0)
    }

    /// Notes what an entry after the checkpoint names.
    pub fn note(&mut self, kind: EntryKind, subject: &str) {
        if TICKET_KINDS.contains(&kind) {
            self.tickets.insert(subject.to_string());
        } else if VOUCHER_KINDS.contains(&kind) {
            self.vouchers.insert(subject.to_string());
        } else if SHIFT_KINDS.contains(&kind) {
            self.shifts.insert(subject.to_string());
        } else if GAME_KINDS.contains(&kind) {
            if let Ok(game) = subject.parse::<i64>() {
                self.first_game = Some(self.first_game.map_or(game, |g| g.min(game)));
            }
        }
    }

    /// The trail's chain and hash at each entry in `seqs` up to the checkpoint, which the walk
    /// after it does not read.
    pub fn hashes_at(
        &self,
        conn: &mut DbConnection,
        seqs: &BTreeSet<i64>,
    ) -> QueryResult<BTreeMap<i64, (i32, String)>> {
        let before: Vec<i64> = seqs.range(..=self.seq()).copied().collect();
        let mut out = BTreeMap::new();
        for chunk in before.chunks(super::PAGE as usize) {
            let rows: Vec<(i64, i32, String)> = audit_log::table
                .filter(audit_log::seq.eq_any(chunk))
                .select((audit_log::seq, audit_log::chain, audit_log::hash))
                .load(conn)?;
            out.extend(rows.into_iter().map(|(s, c, h)| (s, (c, h))));
        }
        Ok(out)
    }

    /// What the report says is taken as proved.
    pub fn taken_as_proved(&self) -> String {
        format!(
            "taken as proved by the full verify that covered checkpoint {n}: entries 1 to {seq} \
             of the trail, and every ticket, voucher, shift and game no later entry names (a \
             change to one of them since is found by a full verify, or by the counts below if a \
             row was added or removed)",
            n = self.checkpoint.n,
            seq = self.seq()
        )
    }
}

/// Each table's rows against the trail's count of their creations: cheap over any history,
/// it finds a row added or removed among those taken as proved. `None` when they agree.
pub fn counted(conn: &mut DbConnection, rows: i64, created: EntryKind) -> QueryResult<Option<i64>> {
    let recorded: i64 = audit_log::table
        .filter(audit_log::kind.eq(created.as_str()))
        .count()
        .get_result(conn)?;
    Ok((recorded != rows).then_some(recorded))
}
