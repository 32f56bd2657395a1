//! Files that hold what is paid to whoever presents it (ticket serials, voucher codes): the
//! SQLite database with its `-wal` and `-shm`, and the audit checkpoint file. Only the server's
//! own user may read them (issue 31): each is made mode 0600, a folder the server makes for
//! them 0700, and one found readable or writable by others is tightened at start, with a
//! warning in the log.
//!
//! Explicit modes rather than the process's umask: the umask would also reach what the server
//! writes for people to take away (the auditors' exports, the public key).

use std::fs::{DirBuilder, OpenOptions, Permissions};
use std::io::ErrorKind;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use anyhow::Context;

/// A private file's mode: read and write by the server's user only.
pub const FILE_MODE: u32 = 0o600;
/// A folder the server makes for its private files.
pub const DIR_MODE: u32 = 0o700;

/// Makes `dir` and any missing parent, each 0700; a folder already there is left as it is (it
/// may be the working directory, or shared with what is not the server's).
pub fn folder(dir: &Path) -> anyhow::Result<()> {
    DirBuilder::new()
        .recursive(true)
        .mode(DIR_MODE)
        .create(dir)
        .with_context(|| format!("cannot create {}", dir.display()))
}

/// The folder of `path`, made as [`folder`] makes it, if `path` names one.
pub fn folder_of(path: &Path) -> anyhow::Result<()> {
    match path.parent().filter(|d| !d.as_os_str().is_empty()) {
        Some(dir) => folder(dir),
        None => Ok(()),
    }
}

/// `path` made empty with mode 0600 if it is not there (its folder too), or tightened if it is.
pub fn own(path: &Path) -> anyhow::Result<()> {
    folder_of(path)?;
    let made = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(FILE_MODE)
        .open(path);
    match made {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == ErrorKind::AlreadyExists => tighten(path),
        Err(e) => Err(e).with_context(|| format!("cannot create {}", path.display())),
    }
}

/// An existing `path` that its group or others may use is made 0600, and the log says so.
/// Nothing if there is no such file. A file the server cannot change (another user's, or on
/// append-only storage) is warned about, not refused: the server can still run, and the
/// operator is told what to fix.
pub fn tighten(path: &Path) -> anyhow::Result<()> {
    let mode = match std::fs::metadata(path) {
        Ok(m) => m.permissions().mode() & 0o777,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    if mode & 0o077 == 0 {
        return Ok(());
    }
    let was = format!("{mode:o}");
    match std::fs::set_permissions(path, Permissions::from_mode(FILE_MODE)) {
        Ok(()) => tracing::warn!(
            file = %path.display(), was,
            "others could read this file (it holds serials and voucher codes): made it 0600"
        ),
        Err(e) => tracing::warn!(
            file = %path.display(), was, error = %e,
            "others can read this file (it holds serials and voucher codes) and it could not be made 0600: chmod 600 it"
        ),
    }
    Ok(())
}

/// The SQLite database at `path` made ready to open: its folder and the file made (0600) if
/// absent, and the file and any `-wal` and `-shm` left from before tightened. SQLite makes its
/// `-wal` and `-shm` with the database file's mode, so a 0600 database keeps them 0600 too.
pub fn sqlite_database(path: &Path) -> anyhow::Result<()> {
    own(path)?;
    for suffix in ["-wal", "-shm", "-journal"] {
        tighten(&beside(path, suffix))?;
    }
    Ok(())
}

/// `keno.sqlite` + `-wal`: the name SQLite gives a database's companion file.
fn beside(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_os_string();
    name.push(suffix);
    PathBuf::from(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode(path: &Path) -> u32 {
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn a_new_database_is_private_and_an_old_one_tightened() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("data/deeper/keno.sqlite");
        sqlite_database(&db).unwrap();
        assert_eq!(mode(&db), FILE_MODE);
        assert_eq!(mode(db.parent().unwrap()), DIR_MODE);
        let wal = beside(&db, "-wal");
        std::fs::write(&wal, b"").unwrap();
        std::fs::set_permissions(&db, Permissions::from_mode(0o644)).unwrap();
        std::fs::set_permissions(&wal, Permissions::from_mode(0o666)).unwrap();
        sqlite_database(&db).unwrap();
        assert_eq!((mode(&db), mode(&wal)), (FILE_MODE, FILE_MODE));
        // A stricter mode is the operator's choice, kept.
        std::fs::set_permissions(&db, Permissions::from_mode(0o400)).unwrap();
        tighten(&db).unwrap();
        assert_eq!(mode(&db), 0o400);
    }
}
