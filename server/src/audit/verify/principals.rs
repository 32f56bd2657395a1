//! Each principal against its entry (who it is, its role, its token's digest), each rule set's
//! body against its hash and its entry.

use diesel::prelude::*;
use sha2::{Digest, Sha256};

use super::chain::Trail;
use super::Report;
use crate::auth::PrincipalRow;
use crate::db::schema::{principals, rule_sets};
use crate::db::DbConnection;

pub fn check(conn: &mut DbConnection, trail: &Trail, report: &mut Report) -> anyhow::Result<()> {
    // People who sign on are checked against their own history (`super::staff`).
    let rows: Vec<PrincipalRow> = principals::table
        .filter(principals::kind.eq(crate::staff::PrincipalKind::Token.as_str()))
        .select(PrincipalRow::as_select())
        .load(conn)?;
    for PrincipalRow {
        id,
        role,
        name,
        site,
        terminal,
        token_hash: token,
        created_at: created,
        ..
    } in rows
    {
        if created < trail.started_at {
            continue;
        }
        let expected = serde_json::json!({
            "role": role, "name": name, "site": site, "terminal": terminal,
            "token_sha256": token,
        });
        if trail.principals.get(&id) != Some(&expected) {
            report.differ(format!(
                "principal {id} ({role} {name}) differs from the one added"
            ));
        }
    }
    let sets: Vec<(String, String, String, i64)> = rule_sets::table
        .select((
            rule_sets::hash,
            rule_sets::name,
            rule_sets::body,
            rule_sets::created_at,
        ))
        .load(conn)?;
    for (hash, name, body, created) in sets {
        if hex::encode(Sha256::digest(body.as_bytes())) != hash {
            report.differ(format!("rule set {hash} ({name}): its body was changed"));
        }
        if created >= trail.started_at && !trail.rule_sets.contains_key(&hash) {
            report.differ(format!(
                "rule set {hash} ({name}) is not in the audit trail"
            ));
        }
    }
    report.checked("principals and rule sets".into());
    Ok(())
}
