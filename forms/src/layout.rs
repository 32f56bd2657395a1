//! The forms as models of their boxes: where each box is (millimetres from the page's top left
//! corner), what marking it means, the four registration marks and the code that names the form
//! and its version. The PDF is printed from this model and scans are read against it, so the
//! two cannot drift apart.

use serde::Serialize;

/// A5 portrait: what a venue's printer prints two to an A4 sheet, and a document scanner takes
/// whole at 200 dpi (1,169 x 1,654 pixels).
pub const PAGE_MM: Size = Size { w: 148.0, h: 210.0 };

/// The registration marks: solid squares at the page's corners, larger than any box.
pub const MARK_MM: f32 = 6.0;
const MARK_CENTRE_MM: f32 = 10.0;

/// The code's cells between the bottom marks (bits, filled for 1): `1 0`, the form's number (3
/// bits), its version (3 bits), `1 1`. The ends differ, so a form fed upside down reads as one.
pub const CODE_CELLS: usize = 10;
const CODE_CELL_MM: f32 = 3.5;
const CODE_PITCH_MM: f32 = 6.0;
const CODE_X_MM: f32 = 44.0;

/// A number box and each row of the grid's pitch.
const BOX: Size = Size { w: 11.0, h: 8.0 };
const PITCH: Size = Size { w: 12.5, h: 9.5 };
const GRID_X_MM: f32 = 12.25;
const GRID_Y_MM: f32 = 30.0;

/// Rule 5.5(a)(ii) and INTERPRETATION.md: the game counts the form offers.
pub const GAME_COUNTS: [u32; 10] = [1, 2, 3, 4, 5, 10, 20, 30, 50, 100];
/// Rule 5.5(a)(i): the bets per game the form offers, in dollars.
pub const PRICES_DOLLARS: [u64; 10] = [1, 2, 3, 4, 5, 10, 20, 30, 50, 100];

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Size {
    pub w: f32,
    pub h: f32,
}

/// A rectangle in millimetres, from the page's top left corner, y downwards.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Rect {
    pub x: f32,
    pub y: f32,
    pub w: f32,
    pub h: f32,
}

impl Rect {
    pub fn centre(&self) -> (f32, f32) {
        (self.x + self.w / 2.0, self.y + self.h / 2.0)
    }

    /// The rectangle grown by `mm` on every side (shrunk, for a negative `mm`).
    pub fn grown(&self, mm: f32) -> Rect {
        Rect {
            x: self.x - mm,
            y: self.y - mm,
            w: self.w + 2.0 * mm,
            h: self.h + 2.0 * mm,
        }
    }

    pub fn contains(&self, x: f32, y: f32) -> bool {
        x >= self.x && x <= self.x + self.w && y >= self.y && y <= self.y + self.h
    }
}

/// Which form: its number is in its code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FormId {
    /// Rule 5.5(a): the Mark Sense Entry Form (Diagram A), read by machine.
    MarkSense,
    /// Rule 5.5(b): the Way Bet Entry Form (Diagram B), read by the writer.
    WayBet,
}

impl FormId {
    pub fn number(self) -> u8 {
        match self {
            FormId::MarkSense => 1,
            FormId::WayBet => 2,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            FormId::MarkSense => "Mark Sense Entry Form (Diagram A)",
            FormId::WayBet => "Way Bet Entry Form (Diagram B)",
        }
    }
}

/// What a cross in a box chooses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "choice", content = "value", rename_all = "snake_case")]
pub enum Meaning {
    /// Rule 5.5(a)(iv): a number played.
    Number(u8),
    /// Rule 5.5(a)(ii): the number of games.
    Games(u32),
    /// Rule 5.5(a)(i): the bet per game, in cents.
    Price(u64),
    /// Rule 5.5(a)(iii): Special 1, 2 or 3 (rules 18.2-18.4).
    Special(u8),
    /// Rule 7 and 5.3(a): the jackpot schedule.
    Jackpot,
    /// Rule 5.5(b)(v): every union of this many groups is a way.
    Combine(u8),
    /// Rule 5.5(b)(v): all the groups together, one way.
    CombineAll,
    /// A square the player writes a figure in (the way form's price and games): for the writer.
    WriteIn,
}

/// One box: where it is, what it means, and the value printed inside it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FormBox {
    pub rect: Rect,
    pub meaning: Meaning,
    pub label: String,
}

impl FormBox {
    /// Where the printed value sits (centred, Helvetica digits at [`LABEL_PT`]): left out when
    /// the box's ink is measured.
    pub fn label_rect(&self) -> Rect {
        let w = text_width_mm(&self.label, LABEL_PT);
        let h = LABEL_PT * PT_MM * 0.72;
        let (cx, cy) = self.rect.centre();
        Rect {
            x: cx - w / 2.0,
            y: cy - h / 2.0,
            w,
            h,
        }
    }

    /// The label's baseline, so that its capitals sit in the middle of the box.
    pub fn label_baseline(&self) -> (f32, f32) {
        let r = self.label_rect();
        (r.x, r.y + r.h)
    }
}

/// The size of the values printed in the boxes.
pub const LABEL_PT: f32 = 8.0;
/// Millimetres in a point.
pub const PT_MM: f32 = 25.4 / 72.0;

/// Helvetica's advance widths, in thousandths of an em, for what the forms print in boxes.
fn advance(c: char) -> f32 {
    match c {
        '0'..='9' | '$' => 556.0,
        ' ' => 278.0,
        'I' => 278.0,
        'J' => 500.0,
        'A' | 'K' | 'P' | 'C' => 667.0,
        'L' => 556.0,
        'T' => 611.0,
        _ => 667.0,
    }
}

/// How wide `text` is in Helvetica at `pt` points, in millimetres.
pub fn text_width_mm(text: &str, pt: f32) -> f32 {
    text.chars().map(advance).sum::<f32>() / 1000.0 * pt * PT_MM
}

/// Printed words: a baseline's start (or centre), in millimetres.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Words {
    pub x: f32,
    pub y: f32,
    pub pt: f32,
    pub bold: bool,
    pub centred: bool,
    pub text: String,
}

/// A form: its code, its marks, its boxes and its words.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Form {
    pub id: FormId,
    pub version: u8,
    pub page: Size,
    pub marks: [Rect; 4],
    pub code: [Rect; CODE_CELLS],
    pub boxes: Vec<FormBox>,
    pub words: Vec<Words>,
}

impl Form {
    /// The code's bits, in cell order.
    pub fn code_bits(&self) -> [bool; CODE_CELLS] {
        code_bits(self.id.number(), self.version)
    }

    /// The form and version a code names: the ones this program prints.
    pub fn from_code(bits: &[bool; CODE_CELLS]) -> Option<Form> {
        [diagram_a(), diagram_b()]
            .into_iter()
            .find(|f| f.code_bits() == *bits)
    }

    /// The boxes that mean `meaning`.
    pub fn boxes_meaning(&self, pick: impl Fn(Meaning) -> bool) -> impl Iterator<Item = &FormBox> {
        self.boxes.iter().filter(move |b| pick(b.meaning))
    }
}

fn code_bits(number: u8, version: u8) -> [bool; CODE_CELLS] {
    let bit = |v: u8, i: u8| v >> i & 1 == 1;
    [
        true,
        false,
        bit(number, 2),
        bit(number, 1),
        bit(number, 0),
        bit(version, 2),
        bit(version, 1),
        bit(version, 0),
        true,
        true,
    ]
}

/// The four marks: top left, top right, bottom right, bottom left.
pub fn marks() -> [Rect; 4] {
    let (near, far_x, far_y) = (
        MARK_CENTRE_MM,
        PAGE_MM.w - MARK_CENTRE_MM,
        PAGE_MM.h - MARK_CENTRE_MM,
    );
    let at = |cx: f32, cy: f32| Rect {
        x: cx - MARK_MM / 2.0,
        y: cy - MARK_MM / 2.0,
        w: MARK_MM,
        h: MARK_MM,
    };
    [
        at(near, near),
        at(far_x, near),
        at(far_x, far_y),
        at(near, far_y),
    ]
}

pub fn code_cells() -> [Rect; CODE_CELLS] {
    std::array::from_fn(|i| Rect {
        x: CODE_X_MM + CODE_PITCH_MM * i as f32,
        y: PAGE_MM.h - MARK_CENTRE_MM - CODE_CELL_MM / 2.0,
        w: CODE_CELL_MM,
        h: CODE_CELL_MM,
    })
}

/// The box in column `col` (0 to 9) of a row whose top is at `y`, `span` columns wide.
fn cell(col: usize, y: f32, span: usize) -> Rect {
    Rect {
        x: GRID_X_MM + PITCH.w * col as f32,
        y,
        w: BOX.w + PITCH.w * (span - 1) as f32,
        h: BOX.h,
    }
}

/// Rule 5.5(a)(iv), (b)(iv): the numbers 1 to 80, 8 rows of 10, as in the diagrams.
fn number_grid() -> Vec<FormBox> {
    (1..=80u8)
        .map(|n| {
            let i = usize::from(n - 1);
            FormBox {
                rect: cell(i % 10, GRID_Y_MM + PITCH.h * (i / 10) as f32, 1),
                meaning: Meaning::Number(n),
                label: n.to_string(),
            }
        })
        .collect()
}

fn heading(y: f32, text: &str) -> Words {
    Words {
        x: GRID_X_MM,
        y,
        pt: 8.0,
        bold: true,
        centred: false,
        text: text.to_string(),
    }
}

fn line(y: f32, pt: f32, text: &str) -> Words {
    Words {
        x: PAGE_MM.w / 2.0,
        y,
        pt,
        bold: false,
        centred: true,
        text: text.to_string(),
    }
}

fn title(text: &str, sub: &str) -> Vec<Words> {
    vec![
        Words {
            x: PAGE_MM.w / 2.0,
            y: 20.0,
            pt: 14.0,
            bold: true,
            centred: true,
            text: text.to_string(),
        },
        line(25.5, 7.0, sub),
    ]
}

/// Under the grid: where the rows of choices start.
const BELOW_GRID_MM: f32 = GRID_Y_MM + 7.0 * PITCH.h + BOX.h;

fn footer(id: FormId, version: u8) -> Words {
    Words {
        x: PAGE_MM.w / 2.0,
        y: PAGE_MM.h - 16.0,
        pt: 6.0,
        bold: false,
        centred: true,
        text: format!(
            "{} - form {} version {} - A5 (148 x 210 mm)",
            id.name(),
            id.number(),
            version
        ),
    }
}

/// Diagram A, the Mark Sense Entry Form (rule 5.5(a)): the 80 numbers, NUMBER OF GAMES, PRICE
/// PER GAME, SPECIAL 1-3, and the jackpot (rule 7), each chosen by a cross.
pub fn diagram_a() -> Form {
    let mut boxes = number_grid();
    let games_y = BELOW_GRID_MM + 8.0;
    let price_y = games_y + 15.0;
    let special_y = price_y + 15.0;
    boxes.extend(GAME_COUNTS.iter().enumerate().map(|(col, &g)| FormBox {
        rect: cell(col, games_y, 1),
        meaning: Meaning::Games(g),
        label: g.to_string(),
    }));
    boxes.extend(PRICES_DOLLARS.iter().enumerate().map(|(col, &d)| FormBox {
        rect: cell(col, price_y, 1),
        meaning: Meaning::Price(d * 100),
        label: format!("${d}"),
    }));
    let (schedule_boxes, schedule_words) =
        schedule_row(special_y, "JACKPOT (6 or 8 numbers, $2 or more)");
    boxes.extend(schedule_boxes);
    let mut words = title("KENO ENTRY FORM", "MARK SENSE ENTRY FORM - RULE 5.5(a)");
    words.extend([
        heading(games_y - 1.5, "NUMBER OF GAMES"),
        heading(price_y - 1.5, "PRICE PER GAME"),
    ]);
    words.extend(schedule_words);
    let own = [
        "MAKE YOUR SELECTIONS USING AN X IN PENCIL OR BLACK PEN:",
        "1 TO 15 NUMBERS, ONE NUMBER OF GAMES, ONE PRICE PER GAME,",
        "AND SPECIAL 1, 2 OR 3 OR THE JACKPOT IF YOU WISH.",
    ];
    finished(FormId::MarkSense, boxes, words, special_y, &own)
}

/// Diagram B, the Way Bet Entry Form (rule 5.5(b)): the 80 numbers, squares to write the price
/// per way and the number of games in, SPECIAL 1-3 and the jackpot, and the ways to be played
/// (how many groups make a way, or all of them together).
pub fn diagram_b() -> Form {
    let mut boxes = number_grid();
    let ways_y = BELOW_GRID_MM + 8.0;
    let write_y = ways_y + 15.0;
    let special_y = write_y + 15.0;
    boxes.extend((1..=8u8).map(|k| FormBox {
        rect: cell(usize::from(k - 1), ways_y, 1),
        meaning: Meaning::Combine(k),
        label: k.to_string(),
    }));
    boxes.push(FormBox {
        rect: cell(8, ways_y, 2),
        meaning: Meaning::CombineAll,
        label: "ALL".to_string(),
    });
    // Price per way: $ _ _ _ . _ _ ; games: _ _ _ (written, one figure a square).
    boxes.extend((0..5).chain(7..10).map(|col| FormBox {
        rect: cell(col, write_y, 1),
        meaning: Meaning::WriteIn,
        label: String::new(),
    }));
    let (schedule_boxes, schedule_words) =
        schedule_row(special_y, "JACKPOT (ways of 6 or 8, $2 or more)");
    boxes.extend(schedule_boxes);
    let mut words = title("WAY TICKET ENTRY FORM", "WAY BET ENTRY FORM - RULE 5.5(b)");
    let point = Words {
        x: GRID_X_MM + PITCH.w * 3.0 - 1.1,
        pt: 16.0,
        ..heading(write_y + BOX.h - 0.3, ".")
    };
    words.extend([
        heading(ways_y - 1.5, "WAYS TO BE PLAYED: GROUPS IN EACH WAY"),
        heading(write_y - 1.5, "PRICE PER WAY ($ and cents)"),
        Words {
            x: GRID_X_MM + PITCH.w * 7.0,
            ..heading(write_y - 1.5, "NO OF GAMES")
        },
        point,
    ]);
    words.extend(schedule_words);
    let own = [
        "MARK YOUR SELECTIONS WITH A CROSS, AND DRAW A LINE AROUND EACH GROUP",
        "(A GROUP OF ONE NUMBER IS A KING). MARK HOW MANY GROUPS MAKE A WAY:",
        "2 PLAYS EVERY PAIR OF GROUPS; ALL PLAYS ALL THE GROUPS AS ONE WAY.",
    ];
    finished(FormId::WayBet, boxes, words, special_y, &own)
}

/// Diagram A's words at the foot of the form, and Diagram B's own first lines before them.
const CLOSING_NOTES: [&str; 3] = [
    "PLEASE ENSURE YOUR TICKET IS CORRECT BEFORE EACH GAME IS CLOSED.",
    "WINNINGS ARE PAID ON THE PRINTED RECEIPT TICKET ONLY.",
    "WAGERS MUST BE PLACED WITH A KENO WRITER BEFORE EACH GAME IS CLOSED.",
];

/// The row of SPECIAL 1-3 and the jackpot at `y`, with its headings (`jackpot` says who may).
fn schedule_row(y: f32, jackpot: &str) -> (Vec<FormBox>, Vec<Words>) {
    let mut boxes: Vec<FormBox> = (1..=3u8)
        .map(|s| FormBox {
            rect: cell(usize::from(s - 1), y, 1),
            meaning: Meaning::Special(s),
            label: s.to_string(),
        })
        .collect();
    boxes.push(FormBox {
        rect: cell(5, y, 2),
        meaning: Meaning::Jackpot,
        label: "JACKPOT".to_string(),
    });
    let words = vec![
        heading(y - 1.5, "SPECIAL"),
        Words {
            x: GRID_X_MM + PITCH.w * 5.0,
            ..heading(y - 1.5, jackpot)
        },
    ];
    (boxes, words)
}

/// The form whose last row of boxes ends at `last_row_y`: its notes, `own` then the closing
/// ones, and its footer.
fn finished(
    id: FormId,
    boxes: Vec<FormBox>,
    mut words: Vec<Words>,
    last_row_y: f32,
    own: &[&str],
) -> Form {
    let notes_y = last_row_y + BOX.h + 7.0;
    words.extend(
        own.iter()
            .chain(CLOSING_NOTES.iter())
            .enumerate()
            .map(|(i, t)| line(notes_y + 3.6 * i as f32, 7.0, t)),
    );
    words.push(footer(id, 1));
    Form {
        id,
        version: 1,
        page: PAGE_MM,
        marks: marks(),
        code: code_cells(),
        boxes,
        words,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diagram_a_offers_what_rule_5_5_a_lists() {
        let a = diagram_a();
        let count = |pick: fn(Meaning) -> bool| a.boxes_meaning(pick).count();
        assert_eq!(count(|m| matches!(m, Meaning::Number(_))), 80);
        assert_eq!(count(|m| matches!(m, Meaning::Games(_))), 10);
        assert_eq!(count(|m| matches!(m, Meaning::Price(_))), 10);
        assert_eq!(count(|m| matches!(m, Meaning::Special(_))), 3);
        assert_eq!(count(|m| m == Meaning::Jackpot), 1);
    }

    #[test]
    fn no_two_boxes_overlap_and_all_are_on_the_page_clear_of_the_marks() {
        for form in [diagram_a(), diagram_b()] {
            let page = Rect {
                x: 0.0,
                y: 0.0,
                w: PAGE_MM.w,
                h: PAGE_MM.h,
            };
            let all: Vec<Rect> = form
                .boxes
                .iter()
                .map(|b| b.rect)
                .chain(form.marks)
                .chain(form.code)
                .collect();
            for (i, a) in all.iter().enumerate() {
                let (x, y) = (a.x + a.w, a.y + a.h);
                assert!(page.contains(a.x, a.y) && page.contains(x, y), "{a:?}");
                for b in &all[i + 1..] {
                    let apart =
                        a.x + a.w < b.x || b.x + b.w < a.x || a.y + a.h < b.y || b.y + b.h < a.y;
                    assert!(apart, "{a:?} and {b:?} overlap");
                }
            }
            for b in &form.boxes {
                let l = b.label_rect();
                assert!(b.rect.grown(-1.0).contains(l.x, l.y), "{}", b.label);
            }
        }
    }

    #[test]
    fn each_code_names_its_form_and_reads_wrong_upside_down() {
        for form in [diagram_a(), diagram_b()] {
            let bits = form.code_bits();
            assert_eq!(Form::from_code(&bits).map(|f| f.id), Some(form.id));
            let mut turned = bits;
            turned.reverse();
            assert_eq!(Form::from_code(&turned), None);
        }
    }
}
