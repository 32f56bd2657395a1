//! The trail against its signed checkpoints (issue 20): each checkpoint signed by a key the
//! auditor trusts, following the one before it, and naming an entry of the trail with the
//! hash the trail has there. A consistent rewrite of the chain changes that hash; a tail cut
//! with the head moved back leaves a checkpoint past the trail's end; a checkpoint removed
//! from the file breaks the checkpoints' own chain; one removed from the database is missing
//! beside the file.

use std::collections::{BTreeSet, HashMap, HashSet};

use ed25519_dalek::VerifyingKey;

use super::chain::Trail;
use super::Report;
use crate::audit::anchor::{Checkpoint, Reason, GENESIS};

/// What the auditor brings: the keys to trust and, if given, the checkpoint file with when it
/// was read.
#[derive(Default)]
pub struct Proof {
    pub keys: Vec<VerifyingKey>,
    pub file: Option<Vec<Checkpoint>>,
    pub read_at: i64,
}

/// The entries the checkpoints name (from checkpoint `from`), for the chain's reading to keep
/// their hashes.
pub fn wanted(stored: &[Checkpoint], proof: &Proof, from: Option<i64>) -> BTreeSet<i64> {
    let filed = proof
        .file
        .iter()
        .flatten()
        .filter(|c| c.n >= from.unwrap_or(1));
    stored
        .iter()
        .chain(filed)
        // Heads that do not read name no entry here; `in_the_trail` reports them.
        .flat_map(|c| c.signed_heads().into_iter().flatten())
        .map(|h| h.seq)
        .collect()
}

/// From a checkpoint (`trail.since`), the checkpoints from it on: it follows the ones before as
/// the full verify that covered it found.
pub fn check(stored: &[Checkpoint], proof: &Proof, trail: &Trail, report: &mut Report) {
    let from = trail.since.as_ref().map_or(1, |s| s.checkpoint.n);
    // The file, held outside the database, is the authority when given.
    let filed = proof.file.as_deref().map(|f| {
        let mut file = once_each(f, report);
        file.retain(|c| c.n >= from);
        file
    });
    let list = filed.as_deref().unwrap_or(stored);
    let lost = accepted_gaps(stored, from, report);
    let mut before: Option<&Checkpoint> = None;
    for c in list {
        if trail.since.is_some() && c.n == from {
            signed(c, &proof.keys, report);
            in_the_trail(c, trail, report);
            before = Some(c);
            continue;
        }
        if lost.contains(&c.n) {
            // Signed before a restore two people accepted: of a history the database lost.
            signed(c, &proof.keys, report);
            before = Some(c);
            continue;
        }
        let bridged = before.is_some_and(|b| lost.contains(&(b.n + 1)));
        if !(bridged && filed.is_none()) {
            follows(c, before, report);
        }
        signed(c, &proof.keys, report);
        in_the_trail(c, trail, report);
        before = Some(c);
    }
    if let Some(file) = &filed {
        let kept: Vec<Checkpoint> = file
            .iter()
            .filter(|f| !lost.contains(&f.n))
            .cloned()
            .collect();
        beside_the_file(stored, &kept, proof.read_at, report);
    }
    // No checkpoint at all is not a difference by itself: a server signs its first within a
    // second of leading, and a database from before checkpoints has none until then. Removing
    // them from the database is what the file, kept outside it, shows.
    let anchored = list.last().map_or(0, |c| c.seq);
    // Its number is where tomorrow's `--from-checkpoint` starts.
    let last = list
        .last()
        .map_or(String::new(), |c| format!(" (checkpoint {})", c.n));
    let tail = if anchored >= trail.last_seq {
        format!("the last{last} covers the whole trail")
    } else {
        format!(
            "entries {} to {} are after the last{last}",
            anchored + 1,
            trail.last_seq
        )
    };
    let source = if proof.file.is_some() {
        " from the checkpoint file"
    } else {
        ""
    };
    let signatures = if proof.keys.is_empty() {
        " (signatures not checked: give --public-key)"
    } else {
        ", each signature checked"
    };
    report.checked(format!(
        "{} checkpoints{source}{signatures}; {tail}",
        list.len()
    ));
}

/// The checkpoints lost with restores that a supervisor and an inspector accepted (issue 33):
/// those between a `restore_accepted` checkpoint and the database's one before it. Each gap is
/// said, never silently passed over.
fn accepted_gaps(stored: &[Checkpoint], from: i64, report: &mut Report) -> BTreeSet<i64> {
    let mut lost = BTreeSet::new();
    let mut before = from - 1;
    for c in stored {
        if Reason::parse(&c.reason) == Some(Reason::RestoreAccepted) && c.n > before + 1 {
            report.checked(format!(
                "checkpoints {} to {} were lost with a restore of the database, accepted by a \
                 supervisor and an inspector at checkpoint {} (the trail's resume_key_turned \
                 entries name them and why)",
                before + 1,
                c.n - 1,
                c.n
            ));
            lost.extend(before + 1..c.n);
        }
        before = c.n;
    }
    lost
}

/// The file's checkpoints with an identical repeat read as one (two instances given the same
/// file may both have caught it up); a number repeated with other content is a difference.
fn once_each(file: &[Checkpoint], report: &mut Report) -> Vec<Checkpoint> {
    let mut out: Vec<Checkpoint> = Vec::with_capacity(file.len());
    let mut at: std::collections::HashMap<i64, usize> = std::collections::HashMap::new();
    for c in file {
        match at.get(&c.n).map(|&i| &out[i]) {
            Some(o) if o == c => {}
            Some(_) => report.differ(format!(
                "checkpoint {} appears twice in the checkpoint file with different content",
                c.n
            )),
            None => {
                at.insert(c.n, out.len());
                out.push(c.clone());
            }
        }
    }
    out
}

/// Numbered one after the other, each naming the digest of the one before.
fn follows(c: &Checkpoint, before: Option<&Checkpoint>, report: &mut Report) {
    let (n, prev) = before.map_or((1, GENESIS.to_string()), |b| (b.n + 1, b.digest()));
    if c.n != n || c.prev != prev {
        report.differ(format!(
            "checkpoint {} does not follow checkpoint {}: a checkpoint was removed, inserted or \
             changed",
            c.n,
            n - 1
        ));
    }
}

fn signed(c: &Checkpoint, keys: &[VerifyingKey], report: &mut Report) {
    if !keys.is_empty() && !keys.iter().any(|k| c.signed_by(k)) {
        report.differ(format!(
            "checkpoint {} is not signed by the public key given (another server's, or changed)",
            c.n
        ));
    }
}

/// Each chain's head as signed is an entry of that chain with the hash signed.
fn in_the_trail(c: &Checkpoint, trail: &Trail, report: &mut Report) {
    let Some(heads) = c.signed_heads() else {
        return report.differ(format!(
            "checkpoint {} names the chains' heads in a form no server writes",
            c.n
        ));
    };
    for head in heads {
        let end = trail.chain_ends.get(&head.chain).copied().unwrap_or(0);
        if head.seq > end {
            report.differ(format!(
                "checkpoint {} signs audit chain {} to entry {}, but it ends at entry {end}: \
                 entries were removed from the end",
                c.n, head.chain, head.seq
            ));
            continue;
        }
        match trail.hashes_at.get(&head.seq) {
            Some((chain, hash)) if *chain == head.chain && *hash == head.hash => {}
            found => report.differ(format!(
                "checkpoint {} signed entry {} of audit chain {} as {}, but the trail has {}: \
                 the trail was rewritten",
                c.n,
                head.seq,
                head.chain,
                head.hash,
                found.map_or("no such entry".to_string(), |(chain, hash)| format!(
                    "{hash} in chain {chain}"
                ))
            )),
        }
    }
}

/// How long a checkpoint may stand in the database without being in the file: the server
/// appends it right after its commit, so only one made as the file was read is missing yet.
const FILING_GRACE_MICROS: i64 = 300_000_000;

/// The database's checkpoints and the file's, both ways.
fn beside_the_file(stored: &[Checkpoint], file: &[Checkpoint], read_at: i64, report: &mut Report) {
    let filed: HashMap<i64, &Checkpoint> = file.iter().map(|f| (f.n, f)).collect();
    let ours: HashSet<i64> = stored.iter().map(|c| c.n).collect();
    let last_filed = file.last().map_or(0, |f| f.n);
    let mut pending = 0;
    for c in stored {
        match filed.get(&c.n) {
            None if c.n > last_filed && c.made_at > read_at - FILING_GRACE_MICROS => pending += 1,
            None => report.differ(format!(
                "checkpoint {} is in the database but not in the checkpoint file",
                c.n
            )),
            Some(f) if *f != c => report.differ(format!(
                "checkpoint {} differs between the database and the checkpoint file",
                c.n
            )),
            Some(_) => {}
        }
    }
    for f in file {
        if !ours.contains(&f.n) {
            report.differ(format!(
                "checkpoint {} is in the checkpoint file but not in the database",
                f.n
            ));
        }
    }
    if pending > 0 {
        report.checked(format!(
            "{pending} checkpoint(s) made as the file was read, not in it yet"
        ));
    }
}
