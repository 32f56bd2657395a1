//! The trail's chains (issue 21) and the heads a checkpoint folds into one.
//!
//! One head row that every append locked made every sale writer and every instance wait in
//! turn on PostgreSQL. An append there takes whichever chain no one holds (`FOR UPDATE SKIP
//! LOCKED`) and numbers its entries from a sequence; SQLite has one writer at a time, so its
//! appends all use chain 0 and number one after the other. Each entry links to the one before
//! in its own chain, so a changed, removed or inserted entry breaks its chain; the numbers order
//! the entries across chains and may skip (a number taken by a transaction that rolled back).

use diesel::prelude::*;
use diesel::sql_types::{BigInt, Integer, Text};

use crate::db::prepared::fixed;
use crate::db::schema::{audit_chains, audit_log};
use crate::db::DbConnection;

/// What a chain starts from: the `prev_hash` of its first entry.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// A chain's last entry: its number and hash.
#[derive(Clone, Debug, PartialEq, Eq, Queryable)]
pub struct Head {
    pub chain: i32,
    pub seq: i64,
    pub hash: String,
}

/// A chain held for an append, with the numbers its entries take.
pub struct Held {
    pub chain: i32,
    pub prev: String,
    pub seqs: Vec<i64>,
}

#[derive(QueryableByName)]
struct Taken {
    #[diesel(sql_type = Integer)]
    chain: i32,
    #[diesel(sql_type = Text)]
    hash: String,
    #[diesel(sql_type = BigInt)]
    seq: i64,
}

/// The PostgreSQL chains, one round trip: a free chain held and that many numbers taken; or a
/// given chain, waited for (when every chain is held, which takes more appends at once
/// than there are chains).
// MATERIALIZED: the chain is chosen and locked once, never again for each number taken.
const TAKE_FREE: &str = "WITH c AS MATERIALIZED (SELECT chain, hash FROM audit_chains \
     ORDER BY chain LIMIT 1 FOR UPDATE SKIP LOCKED) SELECT c.chain, c.hash, \
     nextval('audit_log_seq') AS seq FROM c CROSS JOIN generate_series(1, ?)";
const TAKE_WAITING: &str = "WITH c AS MATERIALIZED (SELECT chain, hash FROM audit_chains \
     WHERE chain = ? FOR UPDATE) SELECT c.chain, c.hash, nextval('audit_log_seq') AS seq \
     FROM c CROSS JOIN generate_series(1, ?)";

/// Holds a chain until the transaction ends and numbers `count` entries on it.
pub fn hold(conn: &mut DbConnection, count: usize) -> QueryResult<Held> {
    let count = i32::try_from(count).expect("an append of fewer than 2^31 entries");
    match conn {
        DbConnection::Pg(c) => {
            let mut taken: Vec<Taken> = fixed(TAKE_FREE).bind::<Integer, _>(count).load(c)?;
            if taken.is_empty() {
                let chains: i64 = audit_chains::table.count().get_result(c)?;
                // Any chain will do: spread the waiters over them.
                let pick = crate::db::now_micros() % chains.max(1);
                taken = fixed(TAKE_WAITING)
                    .bind::<Integer, _>(pick as i32)
                    .bind::<Integer, _>(count)
                    .load(c)?;
            }
            let first = taken.first().ok_or(diesel::result::Error::NotFound)?;
            let (chain, prev) = (first.chain, first.hash.clone());
            let mut seqs: Vec<i64> = taken.into_iter().map(|t| t.seq).collect();
            seqs.sort_unstable();
            Ok(Held { chain, prev, seqs })
        }
        DbConnection::Sqlite(c) => {
            // The writer's turn holds the whole database: chain 0, numbered after the last.
            let prev: String = audit_chains::table
                .find(0)
                .select(audit_chains::hash)
                .first(c)?;
            let last: Option<i64> = audit_log::table
                .select(diesel::dsl::max(audit_log::seq))
                .first(c)?;
            let first = last.unwrap_or(0) + 1;
            let seqs = (first..first + i64::from(count)).collect();
            Ok(Held {
                chain: 0,
                prev,
                seqs,
            })
        }
    }
}

/// Every chain's head that has an entry, by chain.
pub fn heads(conn: &mut DbConnection) -> QueryResult<Vec<Head>> {
    audit_chains::table
        .filter(audit_chains::seq.gt(0))
        .order(audit_chains::chain)
        .select((audit_chains::chain, audit_chains::seq, audit_chains::hash))
        .load(conn)
}

/// Heads as a checkpoint signs them: `chain:seq:hash`, by chain, `;` between.
pub fn encode(heads: &[Head]) -> String {
    let mut sorted: Vec<&Head> = heads.iter().collect();
    sorted.sort_by_key(|h| h.chain);
    let parts: Vec<String> = sorted
        .iter()
        .map(|h| format!("{}:{}:{}", h.chain, h.seq, h.hash))
        .collect();
    parts.join(";")
}

/// `encode` read back; `None` for text no server writes.
pub fn decode(text: &str) -> Option<Vec<Head>> {
    if text.is_empty() {
        return Some(Vec::new());
    }
    text.split(';')
        .map(|part| {
            let mut fields = part.splitn(3, ':');
            let chain = fields.next()?.parse().ok()?;
            let seq = fields.next()?.parse().ok()?;
            let hash = fields.next()?.to_string();
            Some(Head { chain, seq, hash })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heads_read_back_as_signed_and_text_no_server_writes_is_refused() {
        let heads = vec![
            Head {
                chain: 3,
                seq: 12,
                hash: "ab".into(),
            },
            Head {
                chain: 0,
                seq: 40,
                hash: "cd".into(),
            },
        ];
        let text = encode(&heads);
        assert_eq!(text, "0:40:cd;3:12:ab");
        let mut back = decode(&text).expect("read back");
        back.sort_by_key(|h| h.chain);
        assert_eq!(back[0], heads[1]);
        assert_eq!(back[1], heads[0]);
        assert_eq!(decode(""), Some(Vec::new()));
        assert_eq!(decode("0:x:cd"), None);
        assert_eq!(decode("0:40"), None);
    }
}
