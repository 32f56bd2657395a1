//! What the running software is made of, each part with its SHA-256 and, given an inspector's
//! seed, HMAC-SHA256(seed, its bytes): the binary's file, the pages compiled into it, the
//! migrations it carries, and the rule-set file in force. An inspector's own tool computes the
//! same over its copy of the approved release (GSA's GAT; Ontario 3.1, 3.2): a seed chosen on
//! the spot means an answer cannot be replayed from a recording of an earlier one.
//!
//! A folder (the migrations) is digested as `sha256sum` lists it: one line `HEX  PATH` per
//! file, in byte order of the path (relative to `migrations/`), and the component's SHA-256 and
//! HMAC are of that text. So `(cd migrations && find sqlite -type f | LC_ALL=C sort | xargs
//! sha256sum) | sha256sum` gives the same digest.

use std::path::{Path, PathBuf};

use anyhow::Context;
use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};

/// The migrations compiled into the binary, as files.
static MIGRATIONS: include_dir::Dir<'_> =
    include_dir::include_dir!("$CARGO_MANIFEST_DIR/../migrations");

pub use keno_api::integrity::Component;

/// The rule set in force: a file given with `--rules`, or the built-in rules.
#[derive(Clone, Debug)]
pub enum RulesSource {
    File(PathBuf),
    /// The built-in rules, as their TOML text.
    BuiltIn(String),
}

/// The name of the component that is the rule set: a difference in it suspends for the rules.
pub const RULES: &str = "rules";

/// Every component, hashed, keyed with `seed` if given.
pub fn components(rules: &RulesSource, seed: Option<&[u8]>) -> anyhow::Result<Vec<Component>> {
    let exe = std::env::current_exe().context("the running binary's path")?;
    let mut out = vec![of_file("binary", &exe, seed)?];
    for asset in crate::assets::CONSOLE.iter().chain(crate::assets::DISPLAY) {
        out.push(of_bytes(
            asset.source,
            "compiled in".into(),
            asset.body.as_bytes(),
            seed,
        ));
    }
    for backend in ["sqlite", "postgres"] {
        out.push(of_folder(backend, seed)?);
    }
    out.push(match rules {
        RulesSource::File(path) => of_file(RULES, path, seed)?,
        RulesSource::BuiltIn(toml) => of_bytes(
            RULES,
            "the built-in rules (act-keno-rules-1992)".into(),
            toml.as_bytes(),
            seed,
        ),
    });
    Ok(out)
}

fn of_file(name: &str, path: &Path, seed: Option<&[u8]>) -> anyhow::Result<Component> {
    let bytes = std::fs::read(path).with_context(|| format!("{name}: {}", path.display()))?;
    Ok(of_bytes(name, path.display().to_string(), &bytes, seed))
}

fn of_bytes(name: &str, source: String, bytes: &[u8], seed: Option<&[u8]>) -> Component {
    Component {
        name: name.to_string(),
        source,
        bytes: bytes.len() as u64,
        sha256: hex::encode(Sha256::digest(bytes)),
        hmac_sha256: seed.map(|s| keyed(s, bytes)),
    }
}

/// `migrations/{backend}`: its `sha256sum` listing, digested.
fn of_folder(backend: &str, seed: Option<&[u8]>) -> anyhow::Result<Component> {
    let dir = MIGRATIONS
        .get_dir(backend)
        .with_context(|| format!("migrations/{backend} is not compiled in"))?;
    let mut files = Vec::new();
    collect(dir, &mut files);
    files.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    let listing: String = files
        .iter()
        .map(|(path, bytes)| format!("{}  {path}\n", hex::encode(Sha256::digest(bytes))))
        .collect();
    let mut c = of_bytes(
        &format!("migrations/{backend}"),
        format!("compiled in: {} files", files.len()),
        listing.as_bytes(),
        seed,
    );
    c.bytes = files.iter().map(|(_, b)| b.len() as u64).sum();
    Ok(c)
}

fn collect(dir: &'static include_dir::Dir<'static>, out: &mut Vec<(String, &'static [u8])>) {
    for file in dir.files() {
        out.push((file.path().display().to_string(), file.contents()));
    }
    for sub in dir.dirs() {
        collect(sub, out);
    }
}

/// HMAC-SHA256(seed, bytes), hex.
pub fn keyed(seed: &[u8], bytes: &[u8]) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(seed).expect("HMAC takes a key of any length");
    mac.update(bytes);
    hex::encode(mac.finalize().into_bytes())
}

/// A seed as an inspector types it: 2 to 128 hex digits (1 to 64 bytes).
pub fn parse_seed(text: &str) -> Result<Vec<u8>, String> {
    match hex::decode(text) {
        Ok(bytes) if (1..=64).contains(&bytes.len()) => Ok(bytes),
        _ => Err(format!(
            "the seed {text:?} is not 1 to 64 bytes written as hex digits (e.g. 5eed0f1c)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_is_digested_as_sha256sum_lists_it() {
        let c = of_folder("sqlite", Some(b"seed")).unwrap();
        let mut files = Vec::new();
        collect(MIGRATIONS.get_dir("sqlite").unwrap(), &mut files);
        assert!(files.iter().all(|(p, _)| p.starts_with("sqlite/")));
        files.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        let listing: String = files
            .iter()
            .map(|(p, b)| format!("{}  {p}\n", hex::encode(Sha256::digest(b))))
            .collect();
        assert_eq!(c.sha256, hex::encode(Sha256::digest(listing.as_bytes())));
        assert_eq!(c.hmac_sha256, Some(keyed(b"seed", listing.as_bytes())));
        // RFC 4231, test case 2.
        assert_eq!(
            keyed(b"Jefe", b"what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        assert!(parse_seed("zz").is_err() && parse_seed("").is_err());
        assert_eq!(parse_seed("5eed").unwrap(), vec![0x5e, 0xed]);
    }
}
