//! The forms printed by this crate, rasterised by pdftoppm, marked and read back.

use keno_forms::layout::{diagram_a, diagram_b, FormId, Meaning};
use keno_forms::read::Judgement;
use keno_forms::{choice, read, Choice, FormSchedule, NotRead, Problem};
use keno_testkit::scans::{printed, Mark, Spoil};

const DPI: f32 = 200.0;

/// Diagram A at 200 dpi with `marks` made, spoiled as `s`.
fn marked(marks: &[(Meaning, Mark)], s: Spoil, seed: u64) -> image::GrayImage {
    keno_testkit::scans::marked(&diagram_a(), DPI as u32, marks, s, seed)
}

fn crosses(numbers: &[u8], games: u32, dollars: u64) -> Vec<(Meaning, Mark)> {
    let mut m: Vec<(Meaning, Mark)> = numbers
        .iter()
        .map(|&n| (Meaning::Number(n), Mark::Cross))
        .collect();
    m.push((Meaning::Games(games), Mark::Cross));
    m.push((Meaning::Price(dollars * 100), Mark::Cross));
    m
}

#[test]
fn a_blank_form_reads_every_box_empty() {
    for form in [diagram_a(), diagram_b()] {
        let reading = read(&printed(&form, DPI as u32)).unwrap();
        assert_eq!(reading.form.id, form.id);
        assert_eq!(reading.quarter_turns, 0);
        let not_empty: Vec<_> = reading
            .boxes
            .iter()
            .filter(|b| b.judgement != Judgement::Empty)
            .map(|b| (&form.boxes[b.index].label, b.ink))
            .collect();
        assert!(not_empty.is_empty(), "{not_empty:?}");
    }
}

#[test]
fn crosses_read_as_the_sale_they_choose() {
    let mut marks = crosses(&[6, 45, 36, 80, 1, 10, 71], 5, 3);
    marks.push((Meaning::Special(2), Mark::PencilCross));
    let reading = read(&marked(&marks, Spoil::none(), 1)).unwrap();
    assert_eq!(
        choice(&reading),
        Ok(Choice {
            numbers: vec![1, 6, 10, 36, 45, 71, 80],
            games: 5,
            price_cents: 300,
            schedule: FormSchedule::Special(2),
        })
    );
}

#[test]
fn a_form_turned_upside_down_or_sideways_reads_the_same() {
    let marks = crosses(&[7, 8, 9], 10, 2);
    let image = marked(&marks, Spoil::none(), 2);
    let turned = [
        (1, image::imageops::rotate90(&image)),
        (2, image::imageops::rotate180(&image)),
        (3, image::imageops::rotate270(&image)),
    ];
    for (turns, image) in turned {
        let reading = read(&image).unwrap();
        assert_eq!(reading.quarter_turns, turns);
        let read = choice(&reading).unwrap();
        assert_eq!(
            (read.numbers, read.games, read.price_cents),
            (vec![7, 8, 9], 10, 200)
        );
    }
}

#[test]
fn what_is_ambiguous_is_refused_naming_its_boxes() {
    let mut marks = crosses(&[1, 2, 3], 1, 5);
    marks.push((Meaning::Price(1000), Mark::Cross));
    marks.push((Meaning::Number(40), Mark::StrayLine));
    marks.push((Meaning::Special(1), Mark::Cross));
    marks.push((Meaning::Jackpot, Mark::Cross));
    let refusal = choice(&read(&marked(&marks, Spoil::none(), 3)).unwrap()).unwrap_err();
    let said = refusal.to_string();
    assert!(
        refusal.problems.contains(&Problem::SeveralPrices(vec![
            "PRICE PER GAME $5".into(),
            "PRICE PER GAME $10".into()
        ])),
        "{said}"
    );
    assert!(
        refusal.problems.contains(&Problem::SeveralSchedules(vec![
            "SPECIAL 1".into(),
            "JACKPOT".into()
        ])),
        "{said}"
    );
    // The stray line crosses its neighbours too: each is named.
    let unclear = refusal.problems.iter().find_map(|p| match p {
        Problem::Unclear(boxes) => Some(boxes.clone()),
        _ => None,
    });
    assert!(
        unclear.is_some_and(|b| b.contains(&"number 40".to_string())),
        "{said}"
    );

    let sixteen: Vec<u8> = (11..=26).collect();
    let too_many = crosses(&sixteen, 2, 1);
    let refusal = choice(&read(&marked(&too_many, Spoil::none(), 4)).unwrap()).unwrap_err();
    assert!(
        refusal.to_string().contains("16 numbers are marked"),
        "{refusal}"
    );

    let no_price = vec![
        (Meaning::Number(5), Mark::Cross),
        (Meaning::Games(3), Mark::Cross),
    ];
    let refusal = choice(&read(&marked(&no_price, Spoil::none(), 5)).unwrap()).unwrap_err();
    assert_eq!(refusal.problems, vec![Problem::NoPrice]);

    let mut two_games = crosses(&[5], 3, 1);
    two_games.push((Meaning::Games(4), Mark::Filled));
    let refusal = choice(&read(&marked(&two_games, Spoil::none(), 6)).unwrap()).unwrap_err();
    assert_eq!(
        refusal.problems,
        vec![Problem::SeveralGames(vec![
            "NUMBER OF GAMES 3".into(),
            "NUMBER OF GAMES 4".into()
        ])]
    );
}

#[test]
fn the_way_form_is_known_and_left_to_the_writer() {
    let reading = read(&printed(&diagram_b(), DPI as u32)).unwrap();
    assert_eq!(reading.form.id, FormId::WayBet);
    assert_eq!(
        choice(&reading).unwrap_err().problems,
        vec![Problem::WayForm]
    );
}

#[test]
fn a_picture_without_the_forms_marks_is_not_read() {
    let blank = image::GrayImage::from_pixel(1000, 1400, image::Luma([240]));
    assert_eq!(read(&blank).unwrap_err(), NotRead::NoMark("top left"));
    let mut half = printed(&diagram_a(), DPI as u32);
    let h = half.height();
    let top = image::imageops::crop(&mut half, 0, 0, 1169, h / 2).to_image();
    assert!(matches!(
        read(&top),
        Err(NotRead::NoMark(_) | NotRead::NoCode)
    ));
}
