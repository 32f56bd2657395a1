//! Lines to ESC/POS through the `escpos` crate: bold, reverse (the marked numbers), the serial
//! as an ITF barcode, and a cut.

use escpos::driver::Driver;
use escpos::printer::Printer;
use escpos::utils::{
    BarcodeFont, BarcodeHeight, BarcodeOption, BarcodePosition, BarcodeWidth, JustifyMode, Protocol,
};

use crate::receipt::Line;

pub fn print<D: Driver>(driver: D, lines: &[Line]) -> anyhow::Result<()> {
    let e = |e: escpos::errors::PrinterError| anyhow::anyhow!("printer: {e}");
    let mut p = Printer::new(driver, Protocol::default(), None);
    p.init().map_err(e)?;
    p.justify(JustifyMode::LEFT).map_err(e)?;
    for line in lines {
        match line {
            Line::Text(spans) => {
                for span in spans {
                    p.bold(span.bold).map_err(e)?;
                    p.reverse(span.reverse).map_err(e)?;
                    p.write(&ascii(&span.text)).map_err(e)?;
                }
                p.bold(false).map_err(e)?.reverse(false).map_err(e)?;
                p.feed().map_err(e)?;
            }
            Line::Barcode(digits) => {
                p.justify(JustifyMode::CENTER).map_err(e)?;
                // Narrow modules (2 dots): 20 digits then fit a 58 mm roll; the digits are printed
                // as text on the line above.
                let option = BarcodeOption::new(
                    BarcodeWidth::S,
                    BarcodeHeight::S,
                    BarcodeFont::A,
                    BarcodePosition::None,
                );
                p.itf_option(digits, option).map_err(e)?;
                p.justify(JustifyMode::LEFT).map_err(e)?;
            }
        }
    }
    p.print_cut().map_err(e)?;
    Ok(())
}

/// Printers take one byte per character in their code page: anything outside ASCII (an
/// operator's accented name) prints as "?" rather than as two garbled characters.
fn ascii(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_ascii() { c } else { '?' })
        .collect()
}
