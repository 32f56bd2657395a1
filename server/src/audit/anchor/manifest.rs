//! An export's signed manifest (issue 20): `MANIFEST.json` beside the exported files, naming
//! each with its size and SHA-256, signed with the server's audit key. `audit verify-export DIR
//! --public-key KEY` checks a received export offline: the signature, every file's digest, and
//! no file added or missing.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use ed25519_dalek::{Signature, Verifier, VerifyingKey};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::key::AuditKey;

pub const MANIFEST: &str = "MANIFEST.json";

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileDigest {
    pub name: String,
    pub bytes: u64,
    pub sha256: String,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct Manifest {
    /// What was exported, in words (the range of Keno Days or games).
    pub range: String,
    pub made_at: String,
    pub files: Vec<FileDigest>,
    /// Empty when no key was at hand: the digests then prove nothing of who made them.
    pub public_key: String,
    pub signature: String,
}

impl Manifest {
    /// The bytes signed: every field but the signature, length-prefixed under a version tag.
    fn message(&self) -> Vec<u8> {
        let mut out = b"keno-audit-export/1".to_vec();
        let mut part = |p: &str| {
            out.extend((p.len() as u64).to_be_bytes());
            out.extend(p.as_bytes());
        };
        part(&self.range);
        part(&self.made_at);
        part(&self.public_key);
        for f in &self.files {
            part(&f.name);
            part(&f.bytes.to_string());
            part(&f.sha256);
        }
        out
    }
}

/// The size and SHA-256 of a file, read in pieces (exports can be large).
fn digest(path: &Path) -> anyhow::Result<(u64, String)> {
    let mut file =
        std::fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
    let (mut hasher, mut buf, mut bytes) = (Sha256::new(), vec![0u8; 1 << 16], 0u64);
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            return Ok((bytes, hex::encode(hasher.finalize())));
        }
        hasher.update(&buf[..n]);
        bytes += n as u64;
    }
}

/// Writes `dir/MANIFEST.json` for `files` (in `dir`), signed with `key` if there is one.
pub fn write(
    dir: &Path,
    files: &[PathBuf],
    range: String,
    key: Option<&AuditKey>,
) -> anyhow::Result<()> {
    let mut digests = Vec::new();
    for path in files {
        let (bytes, sha256) = digest(path)?;
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .context("an exported file's name")?;
        digests.push(FileDigest {
            name: name.to_string(),
            bytes,
            sha256,
        });
    }
    let mut manifest = Manifest {
        range,
        made_at: chrono::Utc::now().to_rfc3339(),
        files: digests,
        public_key: key.map(AuditKey::public_hex).unwrap_or_default(),
        signature: String::new(),
    };
    if let Some(key) = key {
        manifest.signature = key.sign(&manifest.message());
    }
    let path = dir.join(MANIFEST);
    std::fs::write(&path, serde_json::to_string_pretty(&manifest)? + "\n")
        .with_context(|| format!("cannot write {}", path.display()))
}

/// What differs between the export in `dir` and its manifest signed by one of `keys`.
pub fn check(dir: &Path, keys: &[VerifyingKey]) -> anyhow::Result<Vec<String>> {
    let path = dir.join(MANIFEST);
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("{}: the export has no manifest", path.display()))?;
    let manifest: Manifest = serde_json::from_str(&text)
        .with_context(|| format!("{}: not a manifest", path.display()))?;
    let mut out = Vec::new();
    let signature = hex::decode(&manifest.signature)
        .ok()
        .and_then(|b| Signature::from_slice(&b).ok());
    let signed = signature.is_some_and(|s| {
        keys.iter()
            .any(|k| k.verify(&manifest.message(), &s).is_ok())
    });
    if !signed {
        out.push(if manifest.signature.is_empty() {
            "the manifest is not signed".to_string()
        } else {
            "the manifest is not signed by the public key given (another key's, or changed)"
                .to_string()
        });
    }
    for f in &manifest.files {
        match digest(&dir.join(&f.name)) {
            Err(_) => out.push(format!("{}: in the manifest but not in the export", f.name)),
            Ok((bytes, sha256)) if (bytes, &sha256) != (f.bytes, &f.sha256) => {
                out.push(format!("{}: changed since it was exported", f.name))
            }
            Ok(_) => {}
        }
    }
    for entry in std::fs::read_dir(dir)? {
        let name = entry?.file_name().to_string_lossy().to_string();
        if name != MANIFEST && !manifest.files.iter().any(|f| f.name == name) {
            out.push(format!("{name}: in the export but not in the manifest"));
        }
    }
    Ok(out)
}

#[derive(Debug, clap::Args)]
pub struct VerifyExportArgs {
    /// The folder `audit export --out` wrote.
    pub dir: PathBuf,
    /// The server's public key: 64 hex digits, or a file written by `audit public-key`.
    #[arg(long = "public-key", required = true)]
    pub public_keys: Vec<String>,
}

/// `keno-server audit verify-export`: exits 1 on any difference.
pub fn run(args: VerifyExportArgs) -> anyhow::Result<ExitCode> {
    let keys = args
        .public_keys
        .iter()
        .map(|k| super::key::parse_public(k))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let differences = check(&args.dir, &keys)?;
    for d in &differences {
        println!("DIFFERENCE: {d}");
    }
    if differences.is_empty() {
        println!("verified: every file is as the server signed it");
        Ok(ExitCode::SUCCESS)
    } else {
        println!("NOT VERIFIED: {} difference(s)", differences.len());
        Ok(ExitCode::from(1))
    }
}
