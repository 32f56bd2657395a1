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
        ..
    } in &rows
    {
        let expected = serde_json::json!({
            "role": role, "name": name, "site": site, "terminal": terminal,
            "token_sha256": token,
        });
        if trail.principals.get(id) != Some(&expected) {
            report.differ(format!(
                "principal {id} ({role} {name}) differs from the one added"
            ));
        }
    }
    // Both ways: an entry whose principal is gone is a principal removed.
    for id in trail.principals.keys() {
        if !rows.iter().any(|r| &r.id == id) {
            report.differ(format!(
                "principal {id} is added in the audit trail but not in the principals table"
            ));
        }
    }
    let sets: Vec<(String, String, String)> = rule_sets::table
        .select((rule_sets::hash, rule_sets::name, rule_sets::body))
        .load(conn)?;
    for hash in trail.rule_sets.keys() {
        if !sets.iter().any(|(h, ..)| h == hash) {
            report.differ(format!(
                "rule set {hash} is recorded in the audit trail but not in the rule sets table"
            ));
        }
    }
    for (hash, name, body) in sets {
        if hex::encode(Sha256::digest(body.as_bytes())) != hash {
            report.differ(format!("rule set {hash} ({name}): its body was changed"));
        }
        if !trail.rule_sets.contains_key(&hash) {
            report.differ(format!(
                "rule set {hash} ({name}) is not in the audit trail"
            ));
        }
    }
    report.checked("principals and rule sets".into());
    Ok(())
}
