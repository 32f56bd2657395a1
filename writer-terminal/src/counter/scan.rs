//! Entry forms at the counter: `scan FILE`, and the watched folder (`--scan-dir`) a document
//! scanner drops each form's image into.
//!
//! A file is taken once its size has held between two looks (a scanner writes it as it goes),
//! and moved into the folder's `read/` before it is read: the image is the form the writer
//! retains (rule 5.4), never read twice, and the sale names it by its SHA-256.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How often the folder is looked at.
const EVERY: Duration = Duration::from_millis(500);

/// What scanners write.
fn is_image(path: &Path) -> bool {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    matches!(
        ext.as_deref(),
        Some("png" | "jpg" | "jpeg" | "tif" | "tiff")
    )
}

pub struct ScanDir {
    dir: PathBuf,
    /// Each image's size at the last look.
    sizes: HashMap<PathBuf, u64>,
    looked: Instant,
}

impl ScanDir {
    pub fn new(dir: &Path) -> ScanDir {
        ScanDir {
            dir: dir.to_path_buf(),
            sizes: HashMap::new(),
            looked: Instant::now(),
        }
    }

    /// The oldest image written whole since the last look, moved into `read/`: its new path.
    /// An error (the folder gone, the move refused) is the writer's to see.
    pub fn next(&mut self) -> Option<Result<PathBuf, String>> {
        if self.looked.elapsed() < EVERY {
            return None;
        }
        self.looked = Instant::now();
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) => return Some(Err(format!("{}: {e}", self.dir.display()))),
        };
        let mut now: HashMap<PathBuf, u64> = HashMap::new();
        let mut whole: Vec<(std::time::SystemTime, PathBuf)> = Vec::new();
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(meta) = entry.metadata() else { continue };
            if !meta.is_file() || !is_image(&path) {
                continue;
            }
            let size = meta.len();
            if size > 0 && self.sizes.get(&path) == Some(&size) {
                let when = meta.modified().unwrap_or(std::time::UNIX_EPOCH);
                whole.push((when, path.clone()));
            }
            now.insert(path, size);
        }
        self.sizes = now;
        whole.sort();
        let (_, path) = whole.into_iter().next()?;
        self.sizes.remove(&path);
        Some(self.keep(&path))
    }

    /// Moves `path` into `read/`, under a name no earlier form has there.
    fn keep(&self, path: &Path) -> Result<PathBuf, String> {
        let read = self.dir.join("read");
        std::fs::create_dir_all(&read).map_err(|e| format!("{}: {e}", read.display()))?;
        let name = path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        let mut to = read.join(&name);
        let mut n = 1;
        while to.exists() {
            n += 1;
            to = read.join(format!("{n}-{name}"));
        }
        std::fs::rename(path, &to).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(to)
    }
}
