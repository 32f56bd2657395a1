//! Printing receipts and slips: ESC/POS thermal printers (network TCP 9100, or a device or
//! plain file) and PDF (a receipt archive, a reprint, a site without a thermal printer).

mod escpos_printer;
mod itf;
mod pdf;

use std::path::PathBuf;
use std::time::Duration;

use crate::receipt::Line;

/// Where `--print` sends a receipt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// `escpos:tcp://HOST:PORT`: a network printer (raw TCP, usually port 9100).
    EscposTcp { host: String, port: u16 },
    /// `escpos:file:PATH`: a USB or serial device file, or a plain file.
    EscposFile(PathBuf),
    /// `pdf:PATH`.
    Pdf(PathBuf),
}

impl std::str::FromStr for Target {
    type Err = String;

    fn from_str(s: &str) -> Result<Target, String> {
        let usage = || {
            format!("{s:?}: a print target is escpos:tcp://HOST:PORT, escpos:file:PATH or pdf:PATH")
        };
        if let Some(addr) = s.strip_prefix("escpos:tcp://") {
            let (host, port) = addr.rsplit_once(':').ok_or_else(usage)?;
            let port = port.parse().map_err(|_| usage())?;
            return Ok(Target::EscposTcp {
                host: host.to_string(),
                port,
            });
        }
        if let Some(path) = s.strip_prefix("escpos:file:") {
            return Ok(Target::EscposFile(PathBuf::from(path)));
        }
        if let Some(path) = s.strip_prefix("pdf:") {
            return Ok(Target::Pdf(PathBuf::from(path)));
        }
        Err(usage())
    }
}

/// Prints documents (a receipt or a slip; a receipt and its change voucher) to `target`: one
/// after the other, each cut, on a printer; a page each in one PDF.
pub fn print_docs(target: &Target, title: &str, docs: &[&[Line]]) -> anyhow::Result<()> {
    if let Target::Pdf(path) = target {
        return std::fs::write(path, pdf::render_pages(title, docs))
            .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()));
    }
    docs.iter().try_for_each(|lines| print_one(target, lines))
}

fn print_one(target: &Target, lines: &[Line]) -> anyhow::Result<()> {
    match target {
        Target::EscposTcp { host, port } => {
            let driver =
                escpos::driver::NetworkDriver::open(host, *port, Some(Duration::from_secs(5)))
                    .map_err(|e| anyhow::anyhow!("printer {host}:{port}: {e}"))?;
            escpos_printer::print(driver, lines)
        }
        Target::EscposFile(path) => {
            // A device file (USB, serial) or a plain file that collects what is printed.
            let options = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .clone();
            let driver = escpos::driver::FileDriver::open_with_options(path, &options)
                .map_err(|e| anyhow::anyhow!("printer {}: {e}", path.display()))?;
            escpos_printer::print(driver, lines)
        }
        Target::Pdf(path) => std::fs::write(path, pdf::render_pages("KENO", &[lines]))
            .map_err(|e| anyhow::anyhow!("{}: {e}", path.display())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_as_written_on_the_command_line() {
        assert_eq!(
            "escpos:tcp://10.1.2.3:9100".parse(),
            Ok(Target::EscposTcp {
                host: "10.1.2.3".into(),
                port: 9100
            })
        );
        assert_eq!(
            "escpos:file:/dev/usb/lp0".parse(),
            Ok(Target::EscposFile("/dev/usb/lp0".into()))
        );
        assert_eq!(
            "pdf:receipt.pdf".parse(),
            Ok(Target::Pdf("receipt.pdf".into()))
        );
        assert!("lpt1".parse::<Target>().is_err());
        assert!("escpos:tcp://host".parse::<Target>().is_err());
    }
}
