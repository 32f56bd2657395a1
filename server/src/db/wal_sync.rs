//! SQLite's WAL synced beside the sale writer, not in its turn (issue 37).
//!
//! With `synchronous = FULL` each of the sale writer's commits ended in an fsync of the WAL:
//! 16% of that one thread's processor, and wall time in which it committed nothing. Its own
//! connection now commits with `synchronous = NORMAL` (the WAL is written, not synced), and it
//! hands what it would answer to a thread of its own ([`AfterSync`]), which syncs the WAL and
//! only then answers. The WAL is a log written in order: an fsync begun after a commit makes
//! that commit and every one before it durable. So a sale is still never answered before it
//! would survive a power cut, and a crash of the process alone loses
//! nothing written (the kernel holds it). Every other connection keeps FULL, and its commits
//! sync whatever the writer wrote before them.
//!
//! A failed fsync is not tried again: Linux may have dropped the pages it could not write and
//! marked them clean, so a later fsync could succeed over a hole (PostgreSQL's answer to the
//! same finding is to stop, and so does this). Everything waiting is answered "outcome
//! unknown", nothing more is answered as done, and the server stops ([`stop_serving`]) with
//! its own exit status, which a service manager must not restart on: the kernel may still
//! cache pages it failed to write, and a server started again before the disk is mended and
//! the machine restarted could read them back as if they were stored. Started again after
//! that, SQLite reads the WAL up to its last whole frame, and the terminals send their sales
//! again under the same request ids: each is found or sold, once.

use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;

/// The exit status of a server stopped by a failed sync (sysexits' EX_IOERR).
pub const STOPPED_BY_FAILED_SYNC: i32 = 74;

/// How long a server whose sync failed lets its last answers out before it stops.
const LET_ANSWERS_OUT: std::time::Duration = std::time::Duration::from_secs(1);

/// Commits handed over and not yet synced past which the writer waits for the syncing thread.
const WAITING: usize = 256;

/// A sync has failed in this process: no later one is believed (see the module's comment).
static FAILED: AtomicBool = AtomicBool::new(false);

/// The WAL of an SQLite database, open for the server's life.
///
/// Kept open rather than opened at each sync: Linux reports a failed write-back once to each
/// descriptor open when it happened, so a descriptor opened later would be told nothing if
/// SQLite's own connections (a checkpoint, a commit) had seen the failure first. Each sync
/// checks that the path still names the same file; another would be a WAL this descriptor
/// does not cover, and counts as a failed sync.
#[derive(Debug)]
pub struct WalFile {
    path: PathBuf,
    file: std::fs::File,
    inode: u64,
    /// Syncs take turns: the write-back error is told once to the descriptor, so of two syncs
    /// at once one could be told nothing and succeed before the other has set [`FAILED`].
    turn: std::sync::Mutex<()>,
}

impl WalFile {
    /// Opens the WAL beside the database file `database` (as SQLite names it: `-wal` added),
    /// and syncs it once, so that a WAL that cannot be synced is found at start.
    pub fn open(database: &Path) -> io::Result<WalFile> {
        let path = wal_of(database);
        let file = std::fs::File::open(&path)?;
        let inode = file.metadata()?.ino();
        let wal = WalFile {
            path,
            file,
            inode,
            turn: std::sync::Mutex::new(()),
        };
        wal.sync()?;
        Ok(wal)
    }

    /// Syncs the WAL's data to the disk. Once a sync has failed in this process, every later
    /// one fails too.
    pub fn sync(&self) -> io::Result<()> {
        let _turn = self.turn.lock().unwrap_or_else(|e| e.into_inner());
        if FAILED.load(Ordering::SeqCst) {
            return Err(io::Error::other("an earlier sync of the WAL failed"));
        }
        let synced = self.same_file().and_then(|()| {
            if crate::faults::sync_fails() {
                return Err(io::Error::other(
                    "the fault harness made the sync fail (KENO_FAULT_SYNC_FILE)",
                ));
            }
            self.file.sync_data()
        });
        if synced.is_err() {
            FAILED.store(true, Ordering::SeqCst);
        }
        synced
    }

    fn same_file(&self) -> io::Result<()> {
        if std::fs::metadata(&self.path)?.ino() == self.inode {
            return Ok(());
        }
        Err(io::Error::other(format!(
            "{} is no longer the WAL the server opened",
            self.path.display()
        )))
    }
}

/// A sync of the WAL has failed in this process: the server is stopping, and changes no more.
pub fn failed() -> bool {
    FAILED.load(Ordering::SeqCst)
}

/// What a write meets once a sync has failed: the database as out of reach (503, nothing was
/// changed), for the moment before the server stops.
pub fn refused_while_stopping() -> diesel::result::Error {
    diesel::result::Error::DatabaseError(
        diesel::result::DatabaseErrorKind::ClosedConnection,
        Box::new(
            "a sync of the database's WAL failed and the server is stopping: nothing was \
             changed"
                .to_string(),
        ),
    )
}

/// SQLite's name for the WAL of the database file `database`.
fn wal_of(database: &Path) -> PathBuf {
    let mut name = database.as_os_str().to_owned();
    name.push("-wal");
    PathBuf::from(name)
}

/// Whether what was handed over is on the disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Synced {
    /// A sync begun after it was handed over succeeded: it is durable.
    Durable,
    /// The sync failed (now or earlier): whether it is on the disk is unknown.
    Unknown,
}

/// A thread that syncs the WAL and then delivers what was committed before the sync: each
/// item handed over is delivered once, after a sync begun after it was handed over, in the
/// order handed over. Several items waiting share one sync.
pub struct AfterSync<T> {
    queue: mpsc::SyncSender<T>,
}

/// What the syncing thread does: sync, deliver an item, and stop after a failed sync.
pub struct Syncing<S, D, F> {
    pub sync: S,
    pub deliver: D,
    pub failed: F,
}

impl<T: Send + 'static> AfterSync<T> {
    /// Starts the thread named `name`. `failed` is called once, after the first failed sync
    /// and after everything waiting was delivered as [`Synced::Unknown`]; items handed over
    /// after it are delivered so too, never synced.
    pub fn start<S, D, F>(name: String, syncing: Syncing<S, D, F>) -> io::Result<AfterSync<T>>
    where
        S: FnMut() -> io::Result<()> + Send + 'static,
        D: FnMut(T, Synced) + Send + 'static,
        F: FnOnce(io::Error) + Send + 'static,
    {
        let (queue, handed) = mpsc::sync_channel(WAITING);
        std::thread::Builder::new()
            .name(name)
            .spawn(move || run(handed, syncing))?;
        Ok(AfterSync { queue })
    }

    /// Hands `item` over, once committed; given back if the thread has ended.
    pub fn hand(&self, item: T) -> Result<(), T> {
        self.queue.send(item).map_err(|mpsc::SendError(item)| item)
    }
}

fn run<T, S, D, F>(handed: mpsc::Receiver<T>, syncing: Syncing<S, D, F>)
where
    S: FnMut() -> io::Result<()>,
    D: FnMut(T, Synced),
    F: FnOnce(io::Error),
{
    let Syncing {
        mut sync,
        mut deliver,
        failed,
    } = syncing;
    let mut failed = Some(failed);
    while let Ok(first) = handed.recv() {
        let waiting: Vec<T> = std::iter::once(first).chain(handed.try_iter()).collect();
        let (synced, error) = match failed.is_some().then(&mut sync) {
            Some(Ok(())) => (Synced::Durable, None),
            Some(Err(e)) => (Synced::Unknown, Some(e)),
            None => (Synced::Unknown, None),
        };
        for item in waiting {
            deliver(item, synced);
        }
        if let Some(e) = error {
            if let Some(failed) = failed.take() {
                failed(e);
            }
        }
    }
}

/// What a failed sync of the WAL does in the server: says why, and stops the process at once
/// (see the module's comment). Only once the disk is mended and the machine restarted is it
/// started again: a service manager must not restart it on this exit status.
pub fn stop_serving(e: io::Error) {
    tracing::error!(
        error = %e,
        "the database's WAL could not be synced to the disk: sales not yet answered were \
         answered \"outcome unknown\", and the server stops now, because a later sync could \
         succeed over pages the kernel failed to write; mend the disk and restart the machine \
         before starting it again, and the terminals send those sales again under their \
         request ids"
    );
    eprintln!(
        "keno-server: the database's WAL could not be synced to the disk ({e}); stopping \
         (exit status {STOPPED_BY_FAILED_SYNC}): mend the disk and restart the machine before \
         starting it again"
    );
    // The "outcome unknown" answers just given are let out first. Nothing is done meanwhile:
    // every sync fails (`FAILED`), so no sale is answered as made, and every write is refused
    // before it begins (`store::transact`).
    std::thread::sleep(LET_ANSWERS_OUT);
    std::process::exit(STOPPED_BY_FAILED_SYNC);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    #[derive(Debug, PartialEq, Eq)]
    enum Seen {
        SyncBegun,
        Delivered(u32, Synced),
        Failed,
    }

    /// An [`AfterSync`] whose syncs are watched and wait for the test's word on `go`.
    struct Watched {
        seen: Arc<Mutex<Vec<Seen>>>,
        after: AfterSync<u32>,
        go: mpsc::SyncSender<()>,
    }

    fn watching(fail_at: Option<usize>) -> Watched {
        let seen = Arc::new(Mutex::new(Vec::new()));
        // Each sync waits for the test's word, so that items pile up behind it.
        let (go, gate) = mpsc::sync_channel::<()>(16);
        let (s1, s2, s3) = (seen.clone(), seen.clone(), seen.clone());
        let mut syncs = 0;
        let syncing = Syncing {
            sync: move || {
                s1.lock().unwrap().push(Seen::SyncBegun);
                gate.recv().unwrap();
                syncs += 1;
                match fail_at {
                    Some(n) if syncs == n => Err(io::Error::other("disk gone")),
                    _ => Ok(()),
                }
            },
            deliver: move |item, synced| s2.lock().unwrap().push(Seen::Delivered(item, synced)),
            failed: move |_| s3.lock().unwrap().push(Seen::Failed),
        };
        let after = AfterSync::start("test-sync".into(), syncing).unwrap();
        Watched { seen, after, go }
    }

    fn wait_for(seen: &Mutex<Vec<Seen>>, count: usize) {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while seen.lock().unwrap().len() < count {
            assert!(std::time::Instant::now() < deadline, "{:?}", seen.lock());
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }

    /// Nothing is delivered before a sync begun after it was handed over has ended; what
    /// waits behind a sync is delivered after the next one, all of it.
    #[test]
    fn an_item_is_delivered_only_after_a_sync_begun_after_it() {
        let Watched { seen, after, go } = watching(None);
        after.hand(1).unwrap();
        wait_for(&seen, 1);
        // The first sync has begun; 2 and 3 come while it runs.
        after.hand(2).unwrap();
        after.hand(3).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert_eq!(*seen.lock().unwrap(), vec![Seen::SyncBegun]);
        go.send(()).unwrap();
        wait_for(&seen, 3);
        go.send(()).unwrap();
        wait_for(&seen, 5);
        use Seen::*;
        assert_eq!(
            *seen.lock().unwrap(),
            vec![
                SyncBegun,
                Delivered(1, Synced::Durable),
                SyncBegun,
                Delivered(2, Synced::Durable),
                Delivered(3, Synced::Durable),
            ]
        );
    }

    /// After a failed sync everything waiting and everything after is delivered as unknown,
    /// no sync is tried again, and the failure is told once, after the deliveries.
    #[test]
    fn after_a_failed_sync_nothing_is_delivered_as_durable() {
        let Watched { seen, after, go } = watching(Some(1));
        after.hand(1).unwrap();
        wait_for(&seen, 1);
        after.hand(2).unwrap();
        go.send(()).unwrap();
        wait_for(&seen, 3);
        after.hand(3).unwrap();
        wait_for(&seen, 5);
        use Seen::*;
        assert_eq!(
            *seen.lock().unwrap(),
            vec![
                SyncBegun,
                Delivered(1, Synced::Unknown),
                Failed,
                Delivered(2, Synced::Unknown),
                Delivered(3, Synced::Unknown),
            ]
        );
    }

    #[test]
    fn the_wal_is_named_after_the_database() {
        let wal = wal_of(Path::new("/var/lib/keno/keno.sqlite"));
        assert_eq!(wal, Path::new("/var/lib/keno/keno.sqlite-wal"));
    }
}
