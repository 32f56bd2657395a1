//! `keno-server integrity [--seed HEX] [--json]`: the components of this software with their
//! digests, for an inspector to check against the approved release; and `integrity approve`,
//! which writes the signed manifest of this build and rule set that `serve
//! --approved-manifest` checks against.

use std::path::PathBuf;
use std::process::ExitCode;

use super::components::{parse_seed, RulesSource};
use super::manifest::Manifest;

#[derive(Debug, clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct IntegrityArgs {
    #[command(subcommand)]
    pub command: Option<IntegrityCommand>,
    /// Key an HMAC-SHA256 of each component with this seed (hex digits, 1 to 64 bytes), chosen
    /// by the inspector on the spot.
    #[arg(long, value_name = "HEX")]
    pub seed: Option<String>,
    /// The report as JSON (as `GET /api/v1/integrity` answers).
    #[arg(long)]
    pub json: bool,
    /// The rule-set file in force (`serve --rules`); the built-in rules when absent.
    #[arg(long = "rules", env = "KENO_RULES", value_name = "FILE")]
    pub rules: Option<PathBuf>,
}

#[derive(Debug, clap::Subcommand)]
pub enum IntegrityCommand {
    /// Write the approved manifest of this binary, its pages and migrations and the rule set,
    /// signed with an Ed25519 key file (made if absent, mode 0600; keep it off the server).
    Approve {
        /// The signing key file: the operator's or the regulator's.
        #[arg(long, value_name = "FILE")]
        key: PathBuf,
        /// Where to write the manifest.
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
        /// The approved rule-set file; the built-in rules when absent.
        #[arg(long = "rules", env = "KENO_RULES", value_name = "FILE")]
        rules: Option<PathBuf>,
    },
}

/// Where the rule set given by `--rules` comes from.
pub fn rules_source(file: Option<&std::path::Path>) -> RulesSource {
    match file {
        Some(path) => RulesSource::File(path.to_path_buf()),
        None => RulesSource::BuiltIn(keno_core::RuleSet::act_1992().to_toml_string()),
    }
}

pub fn run(args: IntegrityArgs) -> anyhow::Result<ExitCode> {
    if let Some(IntegrityCommand::Approve { key, out, rules }) = args.command {
        return approve(&key, &out, rules.as_deref());
    }
    let seed = match &args.seed {
        Some(text) => Some((text.as_str(), parse_seed(text).map_err(anyhow::Error::msg)?)),
        None => None,
    };
    let integrity = super::Integrity {
        rules: rules_source(args.rules.as_deref()),
        approved: None,
        interval: std::time::Duration::from_secs(300),
    };
    let report = integrity.report(seed.as_ref().map(|(t, b)| (*t, b.as_slice())))?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(ExitCode::SUCCESS);
    }
    let keyed = match &report.seed {
        Some(seed) => format!(", HMAC-SHA256 keyed with the seed {seed}"),
        None => String::new(),
    };
    println!(
        "{}: {} components, SHA-256{keyed}\n",
        report.release,
        report.components.len()
    );
    for c in &report.components {
        println!("{}: {}, {} bytes", c.name, c.source, grouped(c.bytes));
        println!("  SHA-256      {}", c.sha256);
        if let Some(hmac) = &c.hmac_sha256 {
            println!("  HMAC-SHA256  {hmac}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// 129678416 as "129,678,416".
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(d);
    }
    out
}

fn approve(
    key: &std::path::Path,
    out: &std::path::Path,
    rules: Option<&std::path::Path>,
) -> anyhow::Result<ExitCode> {
    let key = crate::audit::anchor::key::AuditKey::load_or_create(key)?;
    let components = super::components::components(&rules_source(rules), None)?;
    let made_at = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let manifest = Manifest::sign(&components, &key, made_at);
    std::fs::write(out, serde_json::to_string_pretty(&manifest)? + "\n")?;
    println!(
        "approved {} components of {} in {}, signed by public key {}",
        components.len(),
        manifest.approved.release,
        out.display(),
        manifest.public_key
    );
    Ok(ExitCode::SUCCESS)
}
