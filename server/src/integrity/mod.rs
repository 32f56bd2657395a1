//! Software that proves itself (issue 33; N.J.A.C. 13:69E-1.28U (j), (k)): the components of
//! the running software with their digests (`components`), checked against an approved
//! manifest (`manifest`) at start and every `--integrity-interval`. A difference suspends the
//! system (`suspension`: for the rules if the rule set differs, else for the software); every
//! check enters the trail with what it found.

pub mod cli;
pub mod components;
pub mod manifest;
pub mod task;

use std::time::Duration;

use keno_core::suspension::Cause;

use crate::audit::kind::EntryKind;
use crate::audit::log::{append, Entry};
use crate::db::DbConnection;
use crate::error::DomainResult;
use crate::suspension::{Found, SuspensionRow};
use components::{Component, RulesSource};
use manifest::{Difference, Manifest};

/// This program and its version, as reports and manifests name it.
pub fn release() -> String {
    format!("keno-server {}", env!("CARGO_PKG_VERSION"))
}

/// What the server checks itself against: where its rule set came from, the approved
/// manifest it was given (if any), and how often.
pub struct Integrity {
    pub rules: RulesSource,
    pub approved: Option<Manifest>,
    pub interval: Duration,
}

impl Integrity {
    /// The components now, keyed with `seed` (hex, and its bytes) if given, with the
    /// differences from the approved manifest.
    pub fn report(
        &self,
        seed: Option<(&str, &[u8])>,
    ) -> anyhow::Result<keno_api::integrity::Integrity> {
        let components = components::components(&self.rules, seed.map(|s| s.1))?;
        let approved = self.approved.as_ref().map(|m| {
            m.differences(&components)
                .into_iter()
                .map(|d| d.said)
                .collect()
        });
        Ok(keno_api::integrity::Integrity {
            release: release(),
            seed: seed.map(|s| s.0.to_string()),
            components,
            approved,
        })
    }

    /// The components as they are now against the approved manifest; `None` without one.
    pub fn differences(&self) -> anyhow::Result<Option<Vec<Difference>>> {
        let Some(approved) = &self.approved else {
            return Ok(None);
        };
        let now: Vec<Component> = components::components(&self.rules, None)?;
        Ok(Some(approved.differences(&now)))
    }
}

/// Records a check against the manifest in the trail, by `instance`; a difference suspends
/// the system (the rules, or the software). The suspensions begun by this check.
pub fn record(
    conn: &mut DbConnection,
    differences: &[Difference],
    instance: &str,
) -> DomainResult<Vec<SuspensionRow>> {
    let said: Vec<&str> = differences.iter().map(|d| d.said.as_str()).collect();
    append(
        conn,
        vec![Entry::new(
            EntryKind::IntegrityChecked,
            instance,
            serde_json::json!({
                "release": release(), "instance": instance,
                "as_approved": differences.is_empty(), "differences": said,
            }),
        )],
    )?;
    let mut begun = Vec::new();
    for (cause, of_rules) in [(Cause::RuleSet, true), (Cause::Software, false)] {
        let found: Vec<&str> = differences
            .iter()
            .filter(|d| d.of_rules() == of_rules)
            .map(|d| d.said.as_str())
            .collect();
        if found.is_empty() {
            continue;
        }
        let detail = format!("not as approved: {}", found.join("; "));
        let (row, new) = crate::suspension::begin(
            conn,
            &Found {
                cause,
                detail,
                lost: None,
            },
            instance,
        )?;
        if new {
            begun.push(row);
        }
    }
    Ok(begun)
}
