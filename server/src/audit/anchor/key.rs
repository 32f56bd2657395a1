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
        // Written whole under a name of its own, then linked to `path`: servers starting at
        // once never both make a key, and none reads one half written (an empty key file
        // stopped one of four instances started together).
        let draft = draft_path(path, &seed);
        let written = write_draft(&draft, &seed);
        let linked = written.and_then(|()| std::fs::hard_link(&draft, path));
        let _ = std::fs::remove_file(&draft);
        match linked {
            Ok(()) => {
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

/// A name beside `path` that no other starting server picks: the public key's first bytes.
fn draft_path(path: &Path, seed: &[u8; 32]) -> std::path::PathBuf {
    let public = SigningKey::from_bytes(seed).verifying_key();
    let mut name = path.as_os_str().to_owned();
    name.push(format!(".new-{}", hex::encode(&public.as_bytes()[..8])));
    name.into()
}

/// The key file's whole text in `draft`, mode 0600, on disk before it is linked.
fn write_draft(draft: &Path, seed: &[u8; 32]) -> std::io::Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(draft)?;
    writeln!(file, "{KEY_HEADER}\n{}", hex::encode(seed))?;
    file.sync_all()
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Barrier;

    /// Servers started together on one key path all start, with one key among them. Before
    /// the key was linked in whole, a server could read the file another had just made and
    /// not yet written: "holds no Ed25519 key".
    #[test]
    fn servers_starting_together_share_one_key() {
        let dir = tempfile::tempdir().unwrap();
        for round in 0..200 {
            let path = dir.path().join(format!("keys/{round}.key"));
            let starts = Barrier::new(8);
            let keys: Vec<String> = std::thread::scope(|s| {
                let handles: Vec<_> = (0..8)
                    .map(|_| {
                        s.spawn(|| {
                            starts.wait();
                            AuditKey::load_or_create(&path).map(|k| k.public_hex())
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().unwrap().unwrap_or_else(|e| panic!("{e:#}")))
                    .collect()
            });
            assert!(
                keys.iter().all(|k| *k == keys[0]),
                "round {round}: {keys:?}"
            );
            let left: Vec<_> = std::fs::read_dir(path.parent().unwrap())
                .unwrap()
                .map(|e| e.unwrap().file_name())
                .filter(|n| n.to_string_lossy().contains(".new-"))
                .collect();
            assert!(left.is_empty(), "drafts left behind: {left:?}");
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }
}
