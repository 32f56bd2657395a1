//! The approved manifest: the components of an approved release with their SHA-256, signed
//! with the operator's or the regulator's Ed25519 key (`keno-server integrity approve`). The
//! server is given the file and the public key it trusts (`serve --approved-manifest`,
//! `--manifest-public-key`), so a manifest re-signed by anyone else is refused.

use std::path::Path;

use anyhow::Context;
use ed25519_dalek::{Signature, Verifier, VerifyingKey};
use serde::{Deserialize, Serialize};

use super::components::{Component, RULES};
use crate::audit::anchor::key::AuditKey;

/// What is approved.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Approved {
    pub release: String,
    pub made_at: String,
    pub components: Vec<Approval>,
}

/// One component as approved.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Approval {
    pub name: String,
    pub sha256: String,
}

/// The file: what is approved, the key that signed it and the signature.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    pub approved: Approved,
    pub public_key: String,
    pub signature: String,
}

/// A component that is not as approved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    pub name: String,
    /// In a sentence: "rules: its SHA-256 is 3f2a..., approved 9c1e...".
    pub said: String,
}

impl Difference {
    /// The rule set differs (a suspension for the rules, not the software).
    pub fn of_rules(&self) -> bool {
        self.name == RULES
    }
}

fn message(approved: &Approved) -> Vec<u8> {
    let mut out = b"keno-approved-manifest/1\n".to_vec();
    out.extend(serde_json::to_vec(approved).expect("a manifest serializes"));
    out
}

impl Manifest {
    /// `components` approved, signed with `key`.
    pub fn sign(components: &[Component], key: &AuditKey, made_at: String) -> Manifest {
        let approved = Approved {
            release: super::release(),
            made_at,
            components: components
                .iter()
                .map(|c| Approval {
                    name: c.name.clone(),
                    sha256: c.sha256.clone(),
                })
                .collect(),
        };
        Manifest {
            signature: key.sign(&message(&approved)),
            public_key: key.public_hex(),
            approved,
        }
    }

    /// The file at `path`, refused unless `trusted` signed it as it stands.
    pub fn read(path: &Path, trusted: &VerifyingKey) -> anyhow::Result<Manifest> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("the approved manifest {}", path.display()))?;
        let manifest: Manifest = serde_json::from_str(&text)
            .with_context(|| format!("{}: not an approved manifest", path.display()))?;
        let signature = hex::decode(&manifest.signature)
            .ok()
            .and_then(|b| Signature::from_slice(&b).ok());
        let signed =
            signature.is_some_and(|s| trusted.verify(&message(&manifest.approved), &s).is_ok());
        anyhow::ensure!(
            signed,
            "{}: the approved manifest is not signed by the key given (--manifest-public-key), or \
             was changed since it was signed",
            path.display()
        );
        Ok(manifest)
    }

    /// Where `running` differs from what is approved: a component changed, missing, or not
    /// approved at all.
    pub fn differences(&self, running: &[Component]) -> Vec<Difference> {
        let approved = &self.approved.components;
        let mut out = Vec::new();
        for a in approved {
            match running.iter().find(|c| c.name == a.name) {
                Some(c) if c.sha256 == a.sha256 => {}
                Some(c) => out.push(Difference {
                    name: a.name.clone(),
                    said: format!(
                        "{} ({}): its SHA-256 is {}, approved {}",
                        a.name, c.source, c.sha256, a.sha256
                    ),
                }),
                None => out.push(Difference {
                    name: a.name.clone(),
                    said: format!("{}: approved, but not in the running software", a.name),
                }),
            }
        }
        for c in running
            .iter()
            .filter(|c| !approved.iter().any(|a| a.name == c.name))
        {
            out.push(Difference {
                name: c.name.clone(),
                said: format!("{} ({}): not in the approved manifest", c.name, c.source),
            });
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn component(name: &str, sha: &str) -> Component {
        Component {
            name: name.into(),
            source: "here".into(),
            sha256: sha.into(),
            ..Component::default()
        }
    }

    #[test]
    fn a_manifest_names_each_component_changed_missing_or_unapproved() {
        let dir = tempfile::tempdir().unwrap();
        let key = AuditKey::load_or_create(&dir.path().join("k")).unwrap();
        let approved = [component("binary", "aa"), component(RULES, "bb")];
        let m = Manifest::sign(&approved, &key, "now".into());
        let path = dir.path().join("m.json");
        std::fs::write(&path, serde_json::to_string(&m).unwrap()).unwrap();
        let read = Manifest::read(&path, &key.public()).unwrap();
        assert!(read.differences(&approved).is_empty());
        let running = [component(RULES, "cc"), component("extra", "dd")];
        let said: Vec<(String, bool)> = read
            .differences(&running)
            .into_iter()
            .map(|d| (d.said.clone(), d.of_rules()))
            .collect();
        assert_eq!(
            said,
            [
                (
                    "binary: approved, but not in the running software".to_string(),
                    false
                ),
                (
                    "rules (here): its SHA-256 is cc, approved bb".to_string(),
                    true
                ),
                (
                    "extra (here): not in the approved manifest".to_string(),
                    false
                ),
            ]
        );
        // Changed after signing, or signed by another key: refused.
        let mut changed = m.clone();
        changed.approved.components[0].sha256 = "ff".into();
        std::fs::write(&path, serde_json::to_string(&changed).unwrap()).unwrap();
        assert!(Manifest::read(&path, &key.public()).is_err());
        let other = AuditKey::load_or_create(&dir.path().join("other")).unwrap();
        std::fs::write(&path, serde_json::to_string(&m).unwrap()).unwrap();
        assert!(Manifest::read(&path, &other.public()).is_err());
    }
}
