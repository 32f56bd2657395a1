//! `writer-terminal forms`: the blank forms of rule 5.5 printed, and marked forms read into
//! their sale or refused, as real processes on real images (printed by the project, rasterised
//! by pdftoppm, marked and spoiled by keno-forms' test hand).

use std::path::Path;
use std::process::{Command, Output};

use keno_forms::layout::{diagram_a, Meaning};
use keno_testkit::scans::{marked, Mark, Spoil};
use serde_json::Value;
use sha2::{Digest, Sha256};

fn terminal(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_writer-terminal"))
        .args(args)
        .output()
        .expect("writer-terminal runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).to_string()
}

/// Diagram A with `marks`, turned and blurred a little, written to `path` (PNG or JPEG by its
/// name).
pub fn marked_form(path: &Path, marks: &[(Meaning, Mark)], seed: u64) {
    let s = Spoil {
        degrees: 2.5,
        blur: 0.8,
        noise: 4.0,
        ..Spoil::none()
    };
    marked(&diagram_a(), 200, marks, s, seed)
        .save(path)
        .unwrap();
}

fn crosses(numbers: &[u8], games: u32, dollars: u64) -> Vec<(Meaning, Mark)> {
    numbers
        .iter()
        .map(|&n| (Meaning::Number(n), Mark::Cross))
        .chain([
            (Meaning::Games(games), Mark::Cross),
            (Meaning::Price(dollars * 100), Mark::Cross),
        ])
        .collect()
}

#[test]
fn both_forms_print_as_one_a5_page_each() {
    let dir = tempfile::tempdir().unwrap();
    for (diagram, title) in [("a", "KENO ENTRY FORM"), ("b", "WAY TICKET ENTRY FORM")] {
        let pdf = dir.path().join(format!("form-{diagram}.pdf"));
        let out = terminal(&[
            "forms",
            "print",
            "--diagram",
            diagram,
            "--out",
            pdf.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert!(
            text(&out.stdout).contains("A5 (148 x 210 mm)"),
            "{}",
            text(&out.stdout)
        );
        let info = Command::new("pdfinfo")
            .arg(&pdf)
            .output()
            .expect("pdfinfo (poppler-utils)");
        let info = text(&info.stdout);
        // 148 x 210 mm in points.
        assert!(
            info.lines()
                .any(|l| l.starts_with("Pages:") && l.ends_with(" 1"))
                && info.contains("419.528 x 595.276 pts"),
            "{info}"
        );
        let words = keno_testkit::pdf_text(&pdf);
        assert!(
            words.contains(title) && words.contains("RULE 5.5"),
            "{words}"
        );
        if let Some(docs) = std::env::var_os("KENO_SCREENSHOTS") {
            let png = Path::new(&docs).join(format!("entry-form-{diagram}"));
            let made = Command::new("pdftoppm")
                .args(["-r", "100", "-png", "-singlefile"])
                .arg(&pdf)
                .arg(&png)
                .status()
                .unwrap();
            assert!(made.success());
        }
    }
}

#[test]
fn a_marked_form_reads_as_its_sale_from_png_jpeg_and_tiff() {
    let dir = tempfile::tempdir().unwrap();
    let mut marks = crosses(&[6, 45, 36, 80], 5, 3);
    marks.push((Meaning::Special(1), Mark::PencilCross));
    for name in ["form.png", "form.jpg", "form.tif"] {
        let path = dir.path().join(name);
        marked_form(&path, &marks, 7);
        // The README's example (`forms read docs/entry-form-marked.jpg`).
        if let (Some(docs), "form.jpg") = (std::env::var_os("KENO_SCREENSHOTS"), name) {
            std::fs::copy(&path, Path::new(&docs).join("entry-form-marked.jpg")).unwrap();
        }
        let out = terminal(&["forms", "read", path.to_str().unwrap()]);
        let said = text(&out.stdout);
        assert!(out.status.success(), "{said}{}", text(&out.stderr));
        for line in [
            "NUMBERS   06 36 45 80 (4 spots)",
            "SCHEDULE  SPECIAL 1",
            "GAMES     5",
            "AMOUNT    $3.00 a game",
            "TOTAL     $15.00",
            "TYPED AS  6 36 45 80 $3 g5 s1",
        ] {
            assert!(said.contains(line), "{line}:\n{said}");
        }
        let out = terminal(&["forms", "read", "--json", path.to_str().unwrap()]);
        let bet: Value = serde_json::from_slice(&out.stdout).unwrap();
        let sha: String = Sha256::digest(std::fs::read(&path).unwrap())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(
            bet,
            serde_json::json!({"form": "mark_sense", "spots": [6, 36, 45, 80], "schedule": "special1",
                "games": 5, "amount_per_way_cents": 300, "total_cents": 1500, "sha256": sha})
        );
    }
}

#[test]
fn an_ambiguous_or_invalid_form_is_refused_with_exit_2_naming_its_boxes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("form.png");
    let mut two_prices = crosses(&[1, 2, 3], 1, 5);
    two_prices.push((Meaning::Price(1000), Mark::Cross));
    two_prices.push((Meaning::Number(50), Mark::StrayLine));
    marked_form(&path, &two_prices, 8);
    let out = terminal(&["forms", "read", path.to_str().unwrap()]);
    let said = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(
        said.contains("more than one PRICE PER GAME: PRICE PER GAME $5, PRICE PER GAME $10")
            && said.contains("unclear (neither crossed nor empty): ")
            && said.contains("number 50"),
        "{said}"
    );
    let out = terminal(&["forms", "read", "--json", path.to_str().unwrap()]);
    let why: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(why["refused"][0]["problem"], "unclear", "{why}");

    // Read clearly, but the rules refuse it: a jackpot entry of 5 numbers (rule 7, 18.1).
    let mut jackpot_of_5 = crosses(&[1, 2, 3, 4, 5], 1, 2);
    jackpot_of_5.push((Meaning::Jackpot, Mark::Cross));
    marked_form(&path, &jackpot_of_5, 9);
    let out = terminal(&["forms", "read", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stdout));
    assert!(
        text(&out.stderr).contains("the rules refuse it"),
        "{}",
        text(&out.stderr)
    );

    // Not a form at all.
    std::fs::write(&path, b"not an image").unwrap();
    let out = terminal(&["forms", "read", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("not an image this reader takes"),
        "{}",
        text(&out.stderr)
    );
}
