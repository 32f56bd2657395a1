//! The writer's session at this terminal, kept between commands: the sign-on answers a session
//! token, and every later command (and the counter) sends it as its bearer token until the
//! writer signs off or the server ends it.
//!
//! The token is a secret as good as the PIN for the rest of the Keno Day, so the file is the
//! writer's alone (mode 0600, its folder 0700) and by default on `$XDG_RUNTIME_DIR`, which
//! lives in memory and goes at log-out. A session is kept with the server it was made on: a
//! terminal pointed at another server is not signed on there.

use std::io::Write;
use std::path::{Path, PathBuf};

use keno_api::staff::Session;
use serde::{Deserialize, Serialize};

/// A session as the file keeps it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Saved {
    /// The server signed on at, as configured.
    pub server: String,
    /// The session's bearer token.
    pub token: String,
    /// The session as the sign-on answered it: who, where, until when.
    pub session: Session,
}

/// Where the session is kept.
#[derive(Clone, Debug)]
pub struct SessionFile {
    path: PathBuf,
}

/// The file's place when none is given: on `$XDG_RUNTIME_DIR` (in memory, the user's own),
/// else in the terminal's state folder.
pub fn default_path(state_dir: &Path) -> PathBuf {
    match std::env::var_os("XDG_RUNTIME_DIR").filter(|d| !d.is_empty()) {
        Some(dir) => PathBuf::from(dir)
            .join("keno-writer-terminal")
            .join("session.json"),
        None => state_dir.join("session.json"),
    }
}

/// A server's address as typed, without the slash a config may end it with.
fn same_server(a: &str, b: &str) -> bool {
    a.trim_end_matches('/') == b.trim_end_matches('/')
}

impl SessionFile {
    pub fn new(path: PathBuf) -> SessionFile {
        SessionFile { path }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The session kept for `server`, if any. A file that cannot be read is no session: the
    /// writer signs on again.
    pub fn load(&self, server: &str) -> Option<Saved> {
        let text = std::fs::read_to_string(&self.path).ok()?;
        let saved: Saved = serde_json::from_str(&text).ok()?;
        same_server(&saved.server, server).then_some(saved)
    }

    /// Keeps `saved`, replacing what was kept: written aside, then renamed over, so a reader
    /// never sees half a file.
    pub fn save(&self, saved: &Saved) -> std::io::Result<()> {
        let dir = self.path.parent().unwrap_or(Path::new("."));
        create_private_dir(dir)?;
        let json = serde_json::to_vec(saved).map_err(std::io::Error::other)?;
        let aside = self.path.with_extension("json.new");
        let mut file = private_file(&aside)?;
        file.write_all(&json)?;
        file.sync_all()?;
        std::fs::rename(&aside, &self.path)
    }

    /// Forgets the session whose token is `token` (signed off, or ended by the server); a
    /// session signed on since, by another command, stays.
    pub fn clear(&self, token: &str) -> std::io::Result<()> {
        let kept = std::fs::read_to_string(&self.path)
            .ok()
            .and_then(|t| serde_json::from_str::<Saved>(&t).ok());
        if kept.is_some_and(|k| k.token != token) {
            return Ok(());
        }
        match std::fs::remove_file(&self.path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }
}

#[cfg(unix)]
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    if dir.is_dir() {
        return Ok(());
    }
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
}

#[cfg(not(unix))]
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)
}

/// A new file only its owner reads (0600 from its creation, never readable by others).
#[cfg(unix)]
fn private_file(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    let _ = std::fs::remove_file(path);
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
}

#[cfg(not(unix))]
fn private_file(path: &Path) -> std::io::Result<std::fs::File> {
    std::fs::File::create(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use keno_api::principals::Role;

    fn saved(server: &str, token: &str) -> Saved {
        Saved {
            server: server.into(),
            token: token.into(),
            session: Session {
                id: "s1".into(),
                staff_id: "1001".into(),
                name: "JULIE".into(),
                role: Role::Writer,
                site: Some("735624".into()),
                terminal: Some("03".into()),
                started_at: "2026-01-01T10:00:00Z".into(),
                expires_at: "2026-01-02T02:00:00Z".into(),
                idle_timeout_seconds: 900,
            },
        }
    }

    #[test]
    fn a_session_is_kept_for_its_server_only_and_readable_by_its_owner_only() {
        let dir = tempfile::tempdir().unwrap();
        let file = SessionFile::new(dir.path().join("run/session.json"));
        assert!(file.load("http://k:8080").is_none());
        file.save(&saved("http://k:8080/", "ks_1")).unwrap();
        assert_eq!(file.load("http://k:8080").unwrap().token, "ks_1");
        assert!(file.load("http://other:8080").is_none());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(file.path()).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        // Another session signed on since is not forgotten with the old one.
        file.save(&saved("http://k:8080", "ks_2")).unwrap();
        file.clear("ks_1").unwrap();
        assert!(file.load("http://k:8080").is_some());
        file.clear("ks_2").unwrap();
        assert!(file.load("http://k:8080").is_none());
        file.clear("ks_2").unwrap();
    }
}
