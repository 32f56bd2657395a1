//! The checkpoint file outside the database: one JSON line per checkpoint, appended and synced
//! as each is made. An operator points it at write-once or off-host storage (an append-only
//! mount, a log shipper); `audit verify --checkpoints FILE` reads it back.

use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use anyhow::Context;

use super::Checkpoint;

/// Appends `checkpoints` to the file (made, with its folder, if absent: 0600 and 0700) and
/// syncs it.
pub fn append(path: &Path, checkpoints: &[Checkpoint]) -> anyhow::Result<()> {
    if checkpoints.is_empty() {
        return Ok(());
    }
    crate::private_files::folder_of(path)?;
    let mut lines = String::new();
    for c in checkpoints {
        lines.push_str(&serde_json::to_string(c)?);
        lines.push('\n');
    }
    // 0600 as the database is: it names the trail's heads, a map of what was paid (issue 31).
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .mode(crate::private_files::FILE_MODE)
        .open(path)
        .with_context(|| format!("the checkpoint file {}", path.display()))?;
    // One write of whole lines: O_APPEND keeps them whole beside another writer's.
    file.write_all(lines.as_bytes())?;
    file.sync_data()?;
    Ok(())
}

/// Every checkpoint in the file, in its order; none if there is no file yet. A line that is
/// not a checkpoint is an error naming it: a damaged file proves nothing.
pub fn read(path: &Path) -> anyhow::Result<Vec<Checkpoint>> {
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e).with_context(|| format!("{}", path.display())),
    };
    let mut out = Vec::new();
    for (i, line) in BufReader::new(file).lines().enumerate() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        out.push(
            serde_json::from_str(&line)
                .with_context(|| format!("{} line {}: not a checkpoint", path.display(), i + 1))?,
        );
    }
    Ok(out)
}

/// The file's last checkpoint, read from its end (the file grows by a line a minute; a
/// checkpoint's line is well under the tail read).
pub fn last(path: &Path) -> anyhow::Result<Option<Checkpoint>> {
    const TAIL: u64 = 16 * 1024;
    let mut file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e).with_context(|| format!("{}", path.display())),
    };
    let len = file.metadata()?.len();
    file.seek(SeekFrom::Start(len.saturating_sub(TAIL)))?;
    let mut tail = String::new();
    file.read_to_string(&mut tail)?;
    let Some(line) = tail.lines().rev().find(|l| !l.trim().is_empty()) else {
        return Ok(None);
    };
    let last = serde_json::from_str(line)
        .with_context(|| format!("{}: its last line is not a checkpoint", path.display()))?;
    Ok(Some(last))
}

/// The number of the file's last checkpoint (0 for none).
pub fn last_n(path: &Path) -> anyhow::Result<i64> {
    Ok(last(path)?.map_or(0, |c| c.n))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn checkpoint(n: i64) -> Checkpoint {
        Checkpoint {
            n,
            seq: n * 10,
            hash: "ab".repeat(32),
            made_at: n,
            keno_day: "2026-11-26".into(),
            instance: "a".into(),
            reason: "interval".into(),
            prev: super::super::GENESIS.into(),
            public_key: "cd".repeat(32),
            signature: "ef".repeat(64),
            // Lines of both forms in one file: a checkpoint of one chain (issue 20) and of
            // several.
            heads: (n % 2 == 0)
                .then(|| format!("0:{}:{};2:7:{}", n * 10, "ab".repeat(32), "01".repeat(32))),
        }
    }

    #[test]
    fn the_last_checkpoint_is_read_from_the_end_of_a_long_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.jsonl");
        assert_eq!(last_n(&path).unwrap(), 0);
        let many: Vec<Checkpoint> = (1..=200).map(checkpoint).collect();
        append(&path, &many).unwrap();
        assert!(std::fs::metadata(&path).unwrap().len() > 16 * 1024);
        assert_eq!(last(&path).unwrap(), Some(checkpoint(200)));
        assert_eq!(read(&path).unwrap(), many);
    }
}
