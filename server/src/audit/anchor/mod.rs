//! Evidence that survives its own database (issue 20): signed checkpoints of the audit trail.
//!
//! The trail's hash chain proves that no entry was changed in place, but a writer with the
//! database in hand can rewrite the whole chain consistently, or cut its tail and move the head
//! back. A checkpoint commits to the trail's heads (each chain's last entry's number and hash,
//! `audit::chains`: it folds every chain into one) with an Ed25519 signature by a key that is
//! not in the database (`key`); each is stored in the database and appended to a file outside
//! it (`file`), which an operator points at write-once or off-host storage. Checkpoints are
//! chained to each other too (each names the digest of the one before), so one removed from the
//! file is seen. A server makes one as it starts and as it stops gracefully; the leader makes
//! one within `--checkpoint-interval` (a second) of any write while writes go on, after every
//! game's settlement and at the end of every Keno Day (`make`). So a database put back to an
//! earlier copy is behind the file, and no server serves on it (`make::check_file`), and
//! `audit verify --public-key` proves the trail against them.

pub mod file;
pub mod key;
pub mod make;
pub mod manifest;
pub mod task;

use diesel::prelude::*;
use ed25519_dalek::{Signature, Verifier, VerifyingKey};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::audit::chains::{self, Head};
use crate::db::schema::audit_checkpoints;

/// What the first checkpoint names as the one before it.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// Why a checkpoint was made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason {
    /// The leader's first, when it starts leading with none made yet.
    Start,
    /// The interval passed with entries written since the last one.
    Interval,
    /// A game was settled.
    Settlement,
    /// The Keno Day it names ended.
    KenoDayEnd,
    /// This server started (issue 33): before it serves, so a database behind the file is
    /// caught at the next start however little was written.
    ServerStart,
    /// This server stopped gracefully: after its last request.
    ServerStop,
    /// A supervisor and an inspector accepted a restore: numbered after the file's last
    /// checkpoint and naming it, it signs the trail as restored; the checkpoints between the
    /// database's last and the file's last are the accepted gap.
    RestoreAccepted,
}

impl Reason {
    const ALL: [Reason; 7] = [
        Reason::Start,
        Reason::Interval,
        Reason::Settlement,
        Reason::KenoDayEnd,
        Reason::ServerStart,
        Reason::ServerStop,
        Reason::RestoreAccepted,
    ];

    /// The stored text read back; `None` for text no server writes.
    pub fn parse(text: &str) -> Option<Reason> {
        Reason::ALL.into_iter().find(|r| r.as_str() == text)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Reason::Start => "start",
            Reason::Interval => "interval",
            Reason::Settlement => "settlement",
            Reason::KenoDayEnd => "keno_day_end",
            Reason::ServerStart => "server_start",
            Reason::ServerStop => "server_stop",
            Reason::RestoreAccepted => "restore_accepted",
        }
    }
}

/// One signed checkpoint, as stored and as a line of the checkpoint file.
#[derive(
    Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Queryable, Selectable, Insertable,
)]
#[diesel(table_name = audit_checkpoints)]
pub struct Checkpoint {
    pub n: i64,
    pub seq: i64,
    pub hash: String,
    pub made_at: i64,
    pub keno_day: String,
    pub instance: String,
    pub reason: String,
    pub prev: String,
    pub public_key: String,
    pub signature: String,
    /// Every chain's head (`chains::encode`); `seq` and `hash` are then the latest of them.
    /// Absent from the checkpoints of one chain made before (issue 20), which sign chain 0's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heads: Option<String>,
}

impl Checkpoint {
    /// The bytes signed: every field but the signature, each length-prefixed under a version
    /// tag, so that no two checkpoints sign the same bytes.
    pub fn message(&self) -> Vec<u8> {
        let tag: &[u8] = match self.heads {
            Some(_) => b"keno-audit-checkpoint/2",
            None => b"keno-audit-checkpoint/1",
        };
        let mut out = tag.to_vec();
        for part in [
            &self.n.to_string(),
            &self.seq.to_string(),
            &self.hash,
            &self.made_at.to_string(),
            &self.keno_day,
            &self.instance,
            &self.reason,
            &self.prev,
            &self.public_key,
        ]
        .into_iter()
        .chain(&self.heads)
        {
            out.extend((part.len() as u64).to_be_bytes());
            out.extend(part.as_bytes());
        }
        out
    }

    /// The chains' heads it signs; `None` for heads no server writes.
    pub fn signed_heads(&self) -> Option<Vec<Head>> {
        match &self.heads {
            Some(text) => chains::decode(text),
            // A checkpoint of the single chain: chain 0 at `seq`.
            None if self.seq == 0 => Some(Vec::new()),
            None => Some(vec![Head {
                chain: 0,
                seq: self.seq,
                hash: self.hash.clone(),
            }]),
        }
    }

    /// What the next checkpoint names as the one before: the digest of this one's signature,
    /// which covers all of it.
    pub fn digest(&self) -> String {
        hex::encode(Sha256::digest(self.signature.as_bytes()))
    }

    /// Whether `key` signed this checkpoint as it stands.
    pub fn signed_by(&self, key: &VerifyingKey) -> bool {
        let Ok(bytes) = hex::decode(&self.signature) else {
            return false;
        };
        let Ok(signature) = Signature::from_slice(&bytes) else {
            return false;
        };
        key.verify(&self.message(), &signature).is_ok()
    }
}

/// The last checkpoint of Keno Day `day` (`YYYY-MM-DD`): its closing one once it ended.
pub fn last_of_day(
    conn: &mut crate::db::DbConnection,
    day: &str,
) -> QueryResult<Option<Checkpoint>> {
    audit_checkpoints::table
        .filter(audit_checkpoints::keno_day.eq(day))
        .order(audit_checkpoints::n.desc())
        .select(Checkpoint::as_select())
        .first(conn)
        .optional()
}

/// The last stored checkpoint.
pub fn stored_last(conn: &mut crate::db::DbConnection) -> QueryResult<Option<Checkpoint>> {
    audit_checkpoints::table
        .order(audit_checkpoints::n.desc())
        .select(Checkpoint::as_select())
        .first(conn)
        .optional()
}

/// The stored checkpoints from number `n` on, in order.
pub fn stored_from(conn: &mut crate::db::DbConnection, n: i64) -> QueryResult<Vec<Checkpoint>> {
    audit_checkpoints::table
        .filter(audit_checkpoints::n.ge(n))
        .order(audit_checkpoints::n)
        .select(Checkpoint::as_select())
        .load(conn)
}
