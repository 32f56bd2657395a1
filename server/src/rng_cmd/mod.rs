//! `keno-server rng ...`: evidence for a testing laboratory that the draw's random numbers are
//! independent, uniform over the board and unpredictable (the general rules' RNG). `dump`
//! writes draws made by the production draw; `test` runs statistical tests on them.

mod draws;
mod dump_file;
mod progress;
mod report;

use std::fs::File;
use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context};
use clap::{Args, Subcommand};

use crate::rng_check::{Battery, MIN_DRAWS};

#[derive(Debug, Subcommand)]
pub enum RngCommand {
    /// Write draws made by the production draw (keno_core::random::draw_next from the OS
    /// CSPRNG, as the server draws each game): one draw per line, its 20 numbers in drawn order
    /// separated by single spaces.
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
    #[arg(long)]
    pub draws: u64,
    /// The file to write (default: standard output).
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
    #[command(flatten)]
    pub threads: Threads,
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
    print!("{}", report::render(battery.draws(), &source, &outcomes));
    Ok(if outcomes.iter().all(|o| o.passed()) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn dump(args: DumpArgs) -> anyhow::Result<ExitCode> {
    let threads = args.threads.get()?;
    let (mut out, name): (Box<dyn Write>, String) = match &args.out {
        Some(path) => (
            Box::new(
                File::create(path).with_context(|| format!("cannot create {}", path.display()))?,
            ),
            path.display().to_string(),
        ),
        None => (Box::new(io::stdout().lock()), "standard output".into()),
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
    draws::generate(args.draws, threads, &mut write)
        .and_then(|()| {
            out.write_all(&buffer)?;
            Ok(out.flush()?)
        })
        .with_context(|| format!("cannot write to {name}"))?;
    Ok(ExitCode::SUCCESS)
}
