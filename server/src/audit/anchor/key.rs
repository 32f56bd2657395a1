//! The server's Ed25519 signing key, kept in a file outside the database: whoever can write
//! the database cannot sign a checkpoint. Created on first start (mode 0600) if absent; the
//! public key is what auditors verify with (`keno-server audit public-key`).

use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::Path;

use anyhow::Context;
use ed25519_dalek::{Signer, SigningKey, VerifyingKey};

/// The first line of a key file, so that a person who finds it knows what it is.
const KEY_HEADER: &str =
    "# keno-server audit signing key (Ed25519 seed, hex): secret, keep it outside the database";
const PUBLIC_HEADER: &str = "# keno-server audit public key (Ed25519, hex)";

pub struct AuditKey {
    signing: SigningKey,
}

impl AuditKey {
    /// The key in `path`, made there (mode 0600, its folder too if need be) if there is none.
    pub fn load_or_create(path: &Path) -> anyhow::Result<AuditKey> {
        crate::private_files::folder_of(path)
            .with_context(|| format!("the audit key {}", path.display()))?;
        let mut seed = [0u8; 32];
        getrandom::fill(&mut seed).map_err(|e| anyhow::anyhow!("OS randomness: {e}"))?;
        // create_new: two servers starting at once never both write a key; the second reads.
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(path)
        {
            Ok(mut file) => {
                writeln!(file, "{KEY_HEADER}\n{}", hex::encode(seed))?;
                file.sync_all()?;
                tracing::info!(key = %path.display(), "made a new audit signing key");
                Ok(AuditKey {
                    signing: SigningKey::from_bytes(&seed),
                })
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => AuditKey::load(path),
            Err(e) => Err(e).with_context(|| format!("the audit key {}", path.display())),
        }
    }

    /// The key in `path`, which must exist.
    pub fn load(path: &Path) -> anyhow::Result<AuditKey> {
        let mode = std::fs::metadata(path)
            .with_context(|| format!("the audit key {}", path.display()))?
            .permissions()
            .mode();
        if mode & 0o077 != 0 {
            tracing::warn!(key = %path.display(), "the audit key can be read by others: chmod 600");
        }
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("the audit key {}", path.display()))?;
        let seed: [u8; 32] = hex::decode(content(&text))
            .ok()
            .and_then(|b| b.try_into().ok())
            .with_context(|| format!("{} holds no Ed25519 key (64 hex digits)", path.display()))?;
        Ok(AuditKey {
            signing: SigningKey::from_bytes(&seed),
        })
    }

    pub fn public(&self) -> VerifyingKey {
        self.signing.verifying_key()
    }

    pub fn public_hex(&self) -> String {
        hex::encode(self.public().as_bytes())
    }

    /// The public key as a file to hand to auditors.
    pub fn public_file(&self) -> String {
        format!("{PUBLIC_HEADER}\n{}\n", self.public_hex())
    }

    /// The signature of `message`, in hex.
    pub fn sign(&self, message: &[u8]) -> String {
        hex::encode(self.signing.sign(message).to_bytes())
    }
}

/// The text of a key file without its comments and blank lines.
fn content(text: &str) -> String {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect()
}

/// A public key given as 64 hex digits, or as the path of a file holding them (as
/// `audit public-key` writes it).
pub fn parse_public(given: &str) -> anyhow::Result<VerifyingKey> {
    let text = if given.len() == 64 && given.chars().all(|c| c.is_ascii_hexdigit()) {
        given.to_string()
    } else {
        content(
            &std::fs::read_to_string(given)
                .with_context(|| format!("--public-key {given}: neither a key nor a file"))?,
        )
    };
    let bytes: [u8; 32] = hex::decode(&text)
        .ok()
        .and_then(|b| b.try_into().ok())
        .with_context(|| format!("--public-key {given}: not an Ed25519 public key"))?;
    VerifyingKey::from_bytes(&bytes).context("--public-key: not a point of Ed25519")
}

#[derive(Debug, clap::Args)]
pub struct PublicKeyArgs {
    /// The server's signing key file (`serve --audit-key`).
    #[arg(long, env = "KENO_AUDIT_KEY", default_value = "data/keno-audit.key")]
    pub audit_key: std::path::PathBuf,
    /// Write the public key to this file instead of printing it.
    #[arg(long)]
    pub out: Option<std::path::PathBuf>,
}

/// `keno-server audit public-key`: the key must exist (a mistyped path never makes a new one).
pub fn print_public(args: PublicKeyArgs) -> anyhow::Result<()> {
    let key = AuditKey::load(&args.audit_key)?;
    match args.out {
        Some(out) => {
            std::fs::write(&out, key.public_file()).with_context(|| format!("{}", out.display()))
        }
        None => {
            print!("{}", key.public_file());
            Ok(())
        }
    }
}
