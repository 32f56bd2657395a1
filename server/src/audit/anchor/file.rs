//! The checkpoint file outside the database: one JSON line per checkpoint, appended and synced
//! as each is made. An operator points it at write-once or off-host storage (an append-only
//! mount, a log shipper); `audit verify --checkpoints FILE` reads it back.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;

use anyhow::Context;

use super::Checkpoint;

/// Appends `checkpoints` to the file (made, with its folder, if absent) and syncs it.
pub fn append(path: &Path, checkpoints: &[Checkpoint]) -> anyhow::Result<()> {
    if checkpoints.is_empty() {
        return Ok(());
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let mut lines = String::new();
    for c in checkpoints {
        lines.push_str(&serde_json::to_string(c)?);
        lines.push('\n');
    }
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
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

/// The number of the file's last checkpoint (0 for none).
pub fn last_n(path: &Path) -> anyhow::Result<i64> {
    Ok(read(path)?.last().map_or(0, |c| c.n))
}
