//! `keno-server rng ...`: evidence for a testing laboratory that the draw's random numbers are
//! independent, uniform over the board and unpredictable (the general rules' RNG). `dump`
//! writes draws made by the production draw; `test` runs statistical tests on them.

mod draws;
mod dump_file;
mod progress;
mod raw;
mod report;

use std::fs::File;
use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context};
use clap::{Args, Subcommand};

use crate::rng_check::{Battery, ALPHA, MIN_DRAWS};

#[derive(Debug, Subcommand)]
pub enum RngCommand {
    /// Write draws made by the production draw (keno_core::random::draw_next from the OS
    /// CSPRNG, as the server draws each game): one draw per line, its 20 numbers in drawn order
    /// separated by single spaces. With --raw, the generator's own bytes before any scaling,
    /// for a battery such as dieharder (docs/rng.md).
    Dump(DumpArgs),
    /// Run statistical tests on draws made by the production draw, or on a dump file: the
    /// frequency of each number, of each pair, runs above and below the mean sum, the gaps
    /// between a number's appearances, and the serial correlation of draw sums. Each is at 99%
    /// confidence (it fails when p < 0.01); prints each statistic and p-value. Exit code 0 when
    /// every test passes, 1 when any fails.
    Test(TestArgs),
}

#[derive(Debug, Args)]
pub struct DumpArgs {
    /// How many draws to write.
    #[arg(long, required_unless_present = "raw", conflicts_with = "raw")]
    pub draws: Option<u64>,
    /// Write the generator's raw output, binary, instead of draws: the bytes the draw's
    /// scaling reads, through the same source (`DrawRng`). Needs --bytes and --out.
    #[arg(long, requires_all = ["bytes", "out"])]
    pub raw: bool,
    /// How many raw bytes to write (with --raw); 1G, 512M and 64K are understood.
    #[arg(long, value_parser = parse_bytes, requires = "raw")]
    pub bytes: Option<u64>,
    /// The file to write (default: standard output; `-` too).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub threads: Threads,
}

#[derive(Debug, Args)]
pub struct TestArgs {
    /// How many draws to make and test; with --input, test only the first N of the file.
    #[arg(long, required_unless_present = "input")]
    pub draws: Option<u64>,
    /// Test the draws of a dump file (`-`: standard input) instead of making them; the format
    /// of `rng dump`, blank lines and lines starting with `#` skipped.
    #[arg(long, value_name = "FILE")]
    pub input: Option<PathBuf>,
    /// The significance of each test: it fails when its p-value is below this. The lab's
    /// 0.01 by default; CI's quick battery uses 0.0001, so that a perfect generator fails a
    /// run of it about once in 2,000 rather than once in 20.
    #[arg(long, default_value_t = ALPHA, value_parser = parse_alpha)]
    pub alpha: f64,
    #[command(flatten)]
    pub threads: Threads,
}

fn parse_alpha(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(a) if a > 0.0 && a < 0.5 => Ok(a),
        _ => Err(format!(
            "{text:?}: a significance above 0 and below 0.5, e.g. 0.01"
        )),
    }
}

#[derive(Debug, Args)]
pub struct Threads {
    /// Threads making draws, each calling the OS generator itself.
    #[arg(long = "threads", default_value_t = 2)]
    pub count: usize,
}

impl Threads {
    fn get(&self) -> anyhow::Result<usize> {
        if self.count == 0 {
            bail!("--threads must be at least 1");
        }
        Ok(self.count)
    }
}

pub fn run(command: RngCommand) -> anyhow::Result<ExitCode> {
    match command {
        RngCommand::Dump(args) => dump(args),
        RngCommand::Test(args) => test(args),
    }
}

fn test(args: TestArgs) -> anyhow::Result<ExitCode> {
    let threads = args.threads.get()?;
    if let Some(n) = args.draws.filter(|&n| n < MIN_DRAWS) {
        bail!("{n} draws are too few: the tests need at least {MIN_DRAWS}");
    }
    let mut battery = Battery::new();
    let mut add = |draw: &dump_file::Numbers| Ok(battery.add(draw)?);
    let source = match (&args.input, args.draws) {
        (Some(path), limit) => {
            draws::read(path, limit, &mut add)?;
            if path.as_os_str() == "-" {
                "read from standard input".into()
            } else {
                format!("read from {}", path.display())
            }
        }
        (None, Some(n)) => {
            draws::generate(n, threads, &mut add)?;
            "made by the production draw (keno_core::random::draw_next from the OS CSPRNG)".into()
        }
        (None, None) => unreachable!("clap requires --draws without --input"),
    };
    if battery.draws() < MIN_DRAWS {
        bail!(
            "{} draws {source}: the tests need at least {MIN_DRAWS}",
            battery.draws()
        );
    }
    let outcomes = battery.outcomes();
    print!(
        "{}",
        report::render(battery.draws(), &source, &outcomes, args.alpha)
    );
    Ok(if outcomes.iter().all(|o| o.passed_at(args.alpha)) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// "4G", "512M", "64K" or a plain count of bytes (powers of 1024).
fn parse_bytes(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let (digits, unit) = match t.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => (&t[..i], c.to_ascii_uppercase()),
        _ => (t, 'B'),
    };
    let scale: u64 = match unit {
        'B' => 1,
        'K' => 1 << 10,
        'M' => 1 << 20,
        'G' => 1 << 30,
        _ => return Err(format!("{text:?}: a count of bytes, or with K, M or G")),
    };
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(scale))
        .filter(|&n| n > 0)
        .ok_or_else(|| format!("{text:?}: a count of bytes above 0, or with K, M or G"))
}

fn dump(args: DumpArgs) -> anyhow::Result<ExitCode> {
    let threads = args.threads.get()?;
    let out_path = args.out.as_ref().filter(|p| p.as_os_str() != "-");
    let (mut out, name): (Box<dyn Write>, String) = match out_path {
        Some(path) => (
            Box::new(
                File::create(path).with_context(|| format!("cannot create {}", path.display()))?,
            ),
            path.display().to_string(),
        ),
        None => (Box::new(io::stdout().lock()), "standard output".into()),
    };
    if let (true, Some(bytes)) = (args.raw, args.bytes) {
        raw::write(bytes, &mut out).with_context(|| format!("cannot write to {name}"))?;
        return Ok(ExitCode::SUCCESS);
    }
    let Some(draws) = args.draws else {
        bail!("rng dump: give --draws N, or --raw --bytes N --out FILE");
    };
    let mut buffer = Vec::with_capacity(1 << 16);
    let mut write = |draw: &dump_file::Numbers| -> anyhow::Result<()> {
        dump_file::write_line(&mut buffer, draw);
        if buffer.len() >= 1 << 16 {
            out.write_all(&buffer)?;
            buffer.clear();
        }
        Ok(())
    };
    draws::generate(draws, threads, &mut write)
        .and_then(|()| {
            out.write_all(&buffer)?;
            Ok(out.flush()?)
        })
        .with_context(|| format!("cannot write to {name}"))?;
    Ok(ExitCode::SUCCESS)
}
