//! `keno-server rng ...`: evidence for a testing laboratory that the draw's random numbers are
//! independent, uniform over the board and unpredictable (the general rules' RNG). `dump`
//! writes draws made by the production draw; `test` runs statistical tests on them.

mod draws;
mod dump_file;
mod progress;

use std::fs::File;
use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context};
use clap::{Args, Subcommand};

#[derive(Debug, Subcommand)]
pub enum RngCommand {
    /// Write draws made by the production draw (keno_core::random::draw_next from the OS
    /// CSPRNG, as the server draws each game): one draw per line, its 20 numbers in drawn order
    /// separated by single spaces.
    Dump(DumpArgs),
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
    }
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
