//! Secrets of people and terminals: argon2id for PINs and passwords, RFC 6238 codes, tokens.
//!
//! A PIN or password is stored only as an argon2id hash (PHC string, its own random salt),
//! and never logged, put in an error or in the audit trail. A token (a session's, a
//! terminal's, a supervisor's approval) is 32 bytes from the OS CSPRNG, stored as its SHA-256,
//! as the legacy bearer tokens are (`crate::auth`): a token has the entropy a password lacks,
//! so a fast digest suffices for it.

use argon2::password_hash::{PasswordHasher, PasswordVerifier};
use argon2::Argon2;
use getrandom::SysRng;
use rand_core::{Rng, UnwrapErr};
use totp_rs::{Builder, Totp};

/// The issuer an authenticator app shows beside the code.
const TOTP_ISSUER: &str = "Keno";

/// The argon2id hash of `secret` (default parameters: 19 MiB, 2 passes, as OWASP advises).
pub fn hash(secret: &str) -> anyhow::Result<String> {
    let mut salt = [0u8; 16];
    UnwrapErr(SysRng).fill_bytes(&mut salt);
    let hashed = Argon2::default()
        .hash_password_with_salt(secret.as_bytes(), &salt)
        .map_err(|e| anyhow::anyhow!("argon2: {e}"))?;
    Ok(hashed.to_string())
}

/// Whether `secret` is the one hashed in `stored`. A stored hash that does not parse matches
/// nothing (and is reported), rather than letting anyone in.
pub fn verify(secret: &str, stored: &str) -> bool {
    match Argon2::default().verify_password(secret.as_bytes(), stored) {
        Ok(()) => true,
        Err(argon2::password_hash::Error::PasswordInvalid) => false,
        Err(e) => {
            tracing::error!(error = %e, "a stored secret hash is unreadable");
            false
        }
    }
}

/// Spends the time of a verification for a staff ID that does not exist, so that the answer's
/// timing does not tell which IDs do.
pub fn verify_nothing(secret: &str) {
    static DUMMY: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    if let Some(stored) = DUMMY.get_or_init(|| hash("not anyone's secret").ok()) {
        let _ = verify(secret, stored);
    }
}

/// A uniformly random number below `bound` from the OS CSPRNG (rejection sampling).
fn below(bound: u32) -> u32 {
    let zone = u32::MAX - u32::MAX % bound;
    loop {
        let n = UnwrapErr(SysRng).next_u32();
        if n < zone {
            return n % bound;
        }
    }
}

/// A new 6-digit PIN.
pub fn new_pin() -> String {
    format!("{:06}", below(1_000_000))
}

/// A new password: 20 characters of an alphabet without look-alikes (about 100 bits).
pub fn new_password() -> String {
    const ALPHABET: &[u8] = b"abcdefghjkmnpqrstuvwxyzACDEFGHJKLMNPQRSTUVWXYZ23456789";
    (0..20)
        .map(|_| ALPHABET[below(ALPHABET.len() as u32) as usize] as char)
        .collect()
}

/// A new TOTP secret, base32 (160 bits, as RFC 4226 recommends).
pub fn new_totp_secret() -> String {
    let mut bytes = [0u8; 20];
    UnwrapErr(SysRng).fill_bytes(&mut bytes);
    totp_rs::Secret::from(bytes).to_base32()
}

/// The RFC 6238 generator of a stored secret: SHA-1, 6 digits, 30-second steps, one step of
/// clock skew either way (what authenticator apps use).
pub fn totp(secret_base32: &str, account: &str) -> anyhow::Result<Totp> {
    let secret = totp_rs::Secret::try_from_base32(secret_base32)
        .map_err(|e| anyhow::anyhow!("a stored TOTP secret is unreadable: {e}"))?;
    Builder::new()
        .with_secret(secret)
        .with_issuer(Some(TOTP_ISSUER))
        .with_account_name(account.replace(':', " "))
        .build()
        .map_err(|e| anyhow::anyhow!("TOTP: {e}"))
}

/// The time step `code` is good for at `unix_seconds`, if it is good.
pub fn totp_step(
    secret_base32: &str,
    code: &str,
    unix_seconds: u64,
) -> anyhow::Result<Option<u64>> {
    Ok(totp(secret_base32, "check")?.check(code.trim(), unix_seconds))
}

/// The `otpauth://` URI an authenticator app reads (as a QR code or typed).
pub fn totp_uri(secret_base32: &str, account: &str) -> anyhow::Result<String> {
    totp(secret_base32, account)?
        .to_url()
        .map_err(|e| anyhow::anyhow!("TOTP URI: {e}"))
}

/// A new token: `prefix` and 32 random bytes in hex. The prefix says what it is (`ks_` a
/// session, `kt_` a terminal, `ko_` an approval), so a lookup goes to the right table.
pub fn new_token(prefix: &str) -> String {
    let mut bytes = [0u8; 32];
    UnwrapErr(SysRng).fill_bytes(&mut bytes);
    format!("{prefix}{}", hex::encode(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hash_verifies_its_secret_only() {
        let stored = hash("4821").unwrap();
        assert!(stored.starts_with("$argon2id$"), "{stored}");
        assert!(verify("4821", &stored));
        assert!(!verify("4822", &stored));
        assert!(!verify("4821", "not a hash"));
        assert_ne!(hash("4821").unwrap(), stored, "each hash has its own salt");
    }

    /// RFC 6238 appendix B's SHA-1 vectors (8 digits there; the last 6 here), with its
    /// secret "12345678901234567890" and a fixed clock.
    #[test]
    fn codes_of_rfc_6238_at_a_fixed_clock() {
        let secret = totp_rs::Secret::from(b"12345678901234567890".to_vec()).to_base32();
        assert_eq!(totp_step(&secret, "287082", 59).unwrap(), Some(1));
        assert_eq!(
            totp_step(&secret, "081804", 1_111_111_109).unwrap(),
            Some(37_037_036)
        );
        assert_eq!(
            totp_step(&secret, "050471", 1_111_111_111).unwrap(),
            Some(37_037_037)
        );
        // One step of skew either way, no more.
        assert_eq!(totp_step(&secret, "287082", 89).unwrap(), Some(1));
        assert_eq!(totp_step(&secret, "287082", 200).unwrap(), None);
        assert_eq!(totp_step(&secret, "000000", 59).unwrap(), None);
    }

    #[test]
    fn made_secrets_have_their_shapes() {
        let pin = new_pin();
        assert!(pin.len() == 6 && pin.bytes().all(|b| b.is_ascii_digit()));
        assert!(keno_core::check_secret(keno_core::SecretKind::Pin, &pin).is_ok());
        let password = new_password();
        assert!(keno_core::check_secret(keno_core::SecretKind::PasswordAndCode, &password).is_ok());
        let uri = totp_uri(&new_totp_secret(), "Ann Supervisor").unwrap();
        assert!(uri.starts_with("otpauth://totp/"), "{uri}");
        assert!(new_token("ks_").starts_with("ks_"));
    }
}
