//! The reader against a corpus the test makes: 520 Mark Sense Entry Forms printed by this crate,
//! rasterised at 200 dpi (some at 150 and 300), marked by a varied hand (crosses of every size,
//! place and stroke, pencil, ticks, filled boxes, half-erased marks and stray lines), turned up
//! to 5 degrees, skewed and scaled a few percent, blurred, noisy and JPEG-compressed.
//!
//! Every form is read right, refused, or read wrong; none may be read wrong, and under 2% of
//! the forms marked only with clean crosses may be refused. `KENO_FORMS_CORPUS_TABLE=1` prints
//! the table (the note) and each box kind's ink.

use std::collections::BTreeMap;

use image::GrayImage;
use keno_forms::layout::{diagram_a, Form, Meaning, GAME_COUNTS, PRICES_DOLLARS};
use keno_forms::read::Judgement;
use keno_forms::{choice, read, Choice, FormSchedule};
use keno_testkit::scans::{below, printed, rng, spoil, ChaCha8Rng, Hand, Mark, Spoil};

/// At least 500 forms; `KENO_FORMS_CORPUS` for another size.
fn forms() -> u64 {
    std::env::var("KENO_FORMS_CORPUS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(520)
}

/// What one form of the corpus holds.
struct Sample {
    kind: &'static str,
    marks: Vec<(Meaning, Mark)>,
    truth: Choice,
    dpi: u32,
}

fn sample(seed: u64, form: &Form) -> Sample {
    let mut r = rng(seed);
    let count = 1 + below(&mut r, 15);
    let mut numbers: Vec<u8> = Vec::new();
    while numbers.len() < count {
        let n = 1 + below(&mut r, 80) as u8;
        if !numbers.contains(&n) {
            numbers.push(n);
        }
    }
    numbers.sort_unstable();
    let games = GAME_COUNTS[below(&mut r, 10)];
    let price = PRICES_DOLLARS[below(&mut r, 10)] * 100;
    let schedule = match below(&mut r, 10) {
        0 => FormSchedule::Special(1 + below(&mut r, 3) as u8),
        1 => FormSchedule::Jackpot,
        _ => FormSchedule::Standard,
    };
    let kind = [
        "crosses",
        "crosses",
        "crosses",
        "pencil",
        "filled",
        "ticks",
        "half-erased",
        "stray line",
    ][below(&mut r, 8)];
    let chosen_mark = |r: &mut ChaCha8Rng| match kind {
        "pencil" => [Mark::PencilCross, Mark::Cross][below(r, 2)],
        "filled" => [Mark::Filled, Mark::Cross][below(r, 2)],
        "ticks" => [Mark::Tick, Mark::Cross, Mark::Cross][below(r, 3)],
        _ => Mark::Cross,
    };
    let mut marks: Vec<(Meaning, Mark)> = Vec::new();
    for &n in &numbers {
        marks.push((Meaning::Number(n), chosen_mark(&mut r)));
    }
    marks.push((Meaning::Games(games), chosen_mark(&mut r)));
    marks.push((Meaning::Price(price), chosen_mark(&mut r)));
    match schedule {
        FormSchedule::Special(s) => marks.push((Meaning::Special(s), chosen_mark(&mut r))),
        FormSchedule::Jackpot => marks.push((Meaning::Jackpot, chosen_mark(&mut r))),
        FormSchedule::Standard => {}
    }
    // A mark the player did not mean, on a box not chosen.
    let stray = match kind {
        "half-erased" => Some(Mark::HalfErased),
        "stray line" => Some(Mark::StrayLine),
        _ => None,
    };
    if let Some(stray) = stray {
        loop {
            let b = &form.boxes[below(&mut r, form.boxes.len())];
            if !marks.iter().any(|(m, _)| *m == b.meaning) {
                marks.push((b.meaning, stray));
                break;
            }
        }
    }
    let dpi = match below(&mut r, 10) {
        0 => 150,
        1 => 300,
        _ => 200,
    };
    Sample {
        kind,
        marks,
        truth: Choice {
            numbers,
            games,
            price_cents: price,
            schedule,
        },
        dpi,
    }
}

#[derive(Default, Clone, Copy)]
struct Row {
    right: u32,
    refused: u32,
    wrong: u32,
}

/// Reads one sample: the outcome, and each marked box's kind with its ink (for the table).
fn run(
    seed: u64,
    form: &Form,
    blanks: &BTreeMap<u32, GrayImage>,
) -> (&'static str, Row, Vec<String>) {
    let s = sample(seed, form);
    let mut page = blanks[&s.dpi].clone();
    let mut r = rng(seed ^ 0x5eed);
    let mut hand = Hand {
        image: &mut page,
        dpi: s.dpi as f32,
    };
    for &(meaning, mark) in &s.marks {
        let b = form.boxes.iter().find(|b| b.meaning == meaning).unwrap();
        hand.mark(b.rect, mark, &mut r);
    }
    let spoiled = spoil(&page, Spoil::random(&mut r), &mut r);
    let mut row = Row::default();
    let mut inks = Vec::new();
    let Ok(reading) = read(&spoiled) else {
        row.refused = 1;
        return (s.kind, row, inks);
    };
    let mut box_wrong = false;
    for b in &reading.boxes {
        let meaning = reading.form.boxes[b.index].meaning;
        let mark = s.marks.iter().find(|(m, _)| *m == meaning).map(|(_, k)| *k);
        // A box read the other way is wrong even where the form is refused for another.
        box_wrong |= match (mark, b.judgement) {
            (None, Judgement::Marked) => true,
            (Some(k), Judgement::Empty) => k.never_empty(),
            (Some(k), Judgement::Marked) => k.never_marked(),
            _ => false,
        };
        let k = mark.map_or("Blank".to_string(), |k| format!("{k:?}"));
        inks.push(format!(
            "{k} {:?} {:.3} {:.3} {:.3?} {} {} {}",
            b.judgement,
            b.ink.inked,
            b.ink.mean,
            b.ink.quarters,
            s.kind.replace(' ', "-"),
            s.dpi,
            reading.form.boxes[b.index].label
        ));
    }
    match choice(&reading) {
        _ if box_wrong => row.wrong = 1,
        Ok(c) if c == s.truth => row.right = 1,
        Ok(_) => row.wrong = 1,
        Err(_) => row.refused = 1,
    }
    (s.kind, row, inks)
}

#[test]
fn the_corpus_reads_right_or_refuses_never_wrong() {
    let form = diagram_a();
    let blanks: BTreeMap<u32, GrayImage> = [150, 200, 300]
        .into_iter()
        .map(|dpi| (dpi, printed(&form, dpi)))
        .collect();
    let results: Vec<(&'static str, Row, Vec<String>)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..2u64)
            .map(|w| {
                let (form, blanks) = (&form, &blanks);
                scope.spawn(move || {
                    (0..forms())
                        .filter(|seed| seed % 2 == w)
                        .map(|seed| run(seed, form, blanks))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect()
    });
    let mut table: BTreeMap<&str, Row> = BTreeMap::new();
    for (kind, row, _) in &results {
        let t = table.entry(kind).or_default();
        t.right += row.right;
        t.refused += row.refused;
        t.wrong += row.wrong;
    }
    if std::env::var_os("KENO_FORMS_CORPUS_TABLE").is_some() {
        println!("| forms marked with | forms | read right | refused | read wrong |");
        println!("|---|---|---|---|---|");
        for (kind, t) in &table {
            let n = t.right + t.refused + t.wrong;
            println!(
                "| {kind} | {n} | {} | {} | {} |",
                t.right, t.refused, t.wrong
            );
        }
        let mut by_mark: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for (_, _, inks) in &results {
            for ink in inks {
                let key = ink.split(' ').take(2).collect::<Vec<_>>().join(" ");
                by_mark.entry(key).or_default().push(ink.clone());
            }
        }
        for (key, inks) in by_mark {
            let most = |i: usize| {
                inks.iter()
                    .map(|s| s.split(' ').nth(i).unwrap().parse::<f32>().unwrap())
                    .fold(0.0, f32::max)
            };
            println!(
                "{key}: {} boxes, most inked {:.3}, most mean {:.3}, e.g. {:?}",
                inks.len(),
                most(2),
                most(3),
                &inks[..inks.len().min(if key.contains("Unclear") { 8 } else { 2 })]
            );
        }
    }
    let wrong: u32 = table.values().map(|t| t.wrong).sum();
    assert_eq!(wrong, 0, "forms read wrong");
    let clean = table["crosses"];
    let clean_n = clean.right + clean.refused;
    assert!(
        clean_n * 4 >= forms() as u32,
        "{clean_n} forms of clean crosses"
    );
    assert!(
        f64::from(clean.refused) < 0.02 * f64::from(clean_n),
        "{} of {clean_n} forms of clean crosses refused",
        clean.refused
    );
}
