//! Lines of a report to A4 pages of PDF (printpdf, builtin fonts): Courier for the body so that
//! columns line up, Helvetica for the title, a footer with the page number on every page.

use printpdf::{
    BuiltinFont, Color, Mm, Op, PdfDocument, PdfFontHandle, PdfPage, PdfSaveOptions, Point, Pt,
    Rgb, TextItem,
};

/// A line of a report.
#[derive(Clone, Debug, PartialEq)]
pub enum Line {
    Title(String),
    /// A section's heading: never the last line of a page.
    Heading(String),
    Text(String),
    /// A table's column names.
    Columns(String),
    Blank,
}

const PAGE_WIDTH_MM: f32 = 210.0;
const PAGE_HEIGHT_MM: f32 = 297.0;
const MARGIN_MM: f32 = 15.0;
const BODY_PT: f32 = 8.0;
const LEADING_PT: f32 = 10.0;
/// Courier's advance is 0.6 em: 8 pt Courier fits 106 characters in the text width (180 mm).
pub const WIDTH_CHARS: usize = 105;

impl Line {
    /// The height the line takes, and its font and size.
    fn style(&self) -> (f32, BuiltinFont, f32) {
        match self {
            Line::Title(_) => (24.0, BuiltinFont::HelveticaBold, 16.0),
            Line::Heading(_) => (20.0, BuiltinFont::CourierBold, 10.0),
            Line::Columns(_) => (LEADING_PT, BuiltinFont::CourierBold, BODY_PT),
            Line::Text(_) => (LEADING_PT, BuiltinFont::Courier, BODY_PT),
            Line::Blank => (LEADING_PT / 2.0, BuiltinFont::Courier, BODY_PT),
        }
    }

    fn text(&self) -> Option<&str> {
        match self {
            Line::Title(t) | Line::Heading(t) | Line::Text(t) | Line::Columns(t) => Some(t),
            Line::Blank => None,
        }
    }
}

/// The pages: `footer` and "page N of M" at the foot of each.
pub fn render(title: &str, footer: &str, lines: &[Line]) -> Vec<u8> {
    let left = Mm(MARGIN_MM).into_pt().0;
    let pages = paginate(lines);
    let black = Color::Rgb(Rgb {
        r: 0.0,
        g: 0.0,
        b: 0.0,
        icc_profile: None,
    });
    let count = pages.len();
    let pdf_pages = pages
        .iter()
        .enumerate()
        .map(|(n, page)| {
            let mut ops = vec![Op::SetFillColor { col: black.clone() }];
            for (y, line) in page {
                if let Some(text) = line.text() {
                    let (_, font, size) = line.style();
                    text_op(&mut ops, left, *y, font, size, text);
                }
            }
            let foot = format!("{footer}  -  page {} of {count}", n + 1);
            text_op(
                &mut ops,
                left,
                Mm(MARGIN_MM).into_pt().0,
                BuiltinFont::Helvetica,
                BODY_PT,
                &foot,
            );
            PdfPage::new(Mm(PAGE_WIDTH_MM), Mm(PAGE_HEIGHT_MM), ops)
        })
        .collect();
    let mut warnings = Vec::new();
    PdfDocument::new(title)
        .with_pages(pdf_pages)
        .save(&PdfSaveOptions::default(), &mut warnings)
}

/// Each page's lines with the height of their baselines.
fn paginate(lines: &[Line]) -> Vec<Vec<(f32, &Line)>> {
    let top = Mm(PAGE_HEIGHT_MM - MARGIN_MM).into_pt().0;
    let bottom = Mm(MARGIN_MM).into_pt().0 + 2.0 * LEADING_PT;
    let mut pages: Vec<Vec<(f32, &Line)>> = vec![Vec::new()];
    let mut y = top;
    for line in lines {
        let (height, _, _) = line.style();
        // A heading keeps at least its next two lines with it.
        let needed = match line {
            Line::Heading(_) => height + 2.0 * LEADING_PT,
            _ => height,
        };
        if y - needed < bottom && !pages.last().is_some_and(Vec::is_empty) {
            if matches!(line, Line::Blank) {
                continue;
            }
            pages.push(Vec::new());
            y = top;
        }
        // At the top of a page a line takes only its own leading (no space above a heading).
        y -= if pages.last().is_some_and(Vec::is_empty) {
            height.min(LEADING_PT)
        } else {
            height
        };
        if let Some(page) = pages.last_mut() {
            page.push((y, line));
        }
    }
    pages
}

fn text_op(ops: &mut Vec<Op>, x: f32, y: f32, font: BuiltinFont, size: f32, text: &str) {
    ops.push(Op::StartTextSection);
    ops.push(Op::SetTextCursor {
        pos: Point { x: Pt(x), y: Pt(y) },
    });
    ops.push(Op::SetFont {
        font: PdfFontHandle::Builtin(font),
        size: Pt(size),
    });
    ops.push(Op::ShowText {
        items: vec![TextItem::Text(ascii(text))],
    });
    ops.push(Op::EndTextSection);
}

/// The builtin fonts' encoding holds ASCII safely: anything else (say, in a reason someone
/// typed) shows as '?'.
fn ascii(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii() && !c.is_ascii_control() {
                c
            } else {
                '?'
            }
        })
        .collect()
}

/// `text` cut into lines of at most `width` characters at spaces, the later ones indented by
/// `indent`; spaces inside a line (the columns of a table) are kept.
pub fn wrap(text: &str, width: usize, indent: usize) -> Vec<String> {
    if text.chars().count() <= width {
        return vec![text.to_string()];
    }
    let indent = " ".repeat(indent.min(width / 2));
    let body = text.trim_start_matches(' ');
    let mut lines = Vec::new();
    let mut current = text[..text.len() - body.len()].to_string();
    // Whether the current line has a word yet.
    let mut started = false;
    for word in body.split(' ') {
        if started && current.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::replace(&mut current, indent.clone()));
            started = false;
        }
        if started {
            current.push(' ');
        }
        current.push_str(word);
        started = true;
        // A word longer than a line is cut.
        while current.chars().count() > width {
            let cut: String = current.chars().take(width).collect();
            let rest: String = current.chars().skip(width).collect();
            lines.push(cut);
            current = format!("{indent}{rest}");
        }
    }
    lines.push(current);
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lines_wrap_at_spaces_with_an_indent() {
        assert_eq!(
            wrap("why: fire alarm in the building", 16, 4),
            ["why: fire alarm", "    in the", "    building"]
        );
        assert_eq!(wrap("short", 16, 4), ["short"]);
        assert_eq!(wrap("   1  settled", 16, 4), ["   1  settled"]);
        assert_eq!(
            wrap("    why: a b c d e f g", 12, 8),
            ["    why: a b", "      c d e", "      f g"]
        );
        assert_eq!(wrap("abcdefghij", 4, 0), ["abcd", "efgh", "ij"]);
    }

    #[test]
    fn many_lines_make_several_pages() {
        let mut lines = vec![Line::Title("T".into()), Line::Heading("H".into())];
        lines.extend((0..200).map(|i| Line::Text(format!("line {i}"))));
        // About 70 lines of 10 pt fit an A4 page inside the margins and above the footer.
        let pages = paginate(&lines);
        assert_eq!(pages.len(), 3);
        assert_eq!(pages.iter().map(Vec::len).sum::<usize>(), lines.len());
        let bottom = Mm(MARGIN_MM).into_pt().0 + 2.0 * LEADING_PT;
        assert!(pages.iter().flatten().all(|(y, _)| *y >= bottom));
        // A heading never ends a page.
        let mut lines: Vec<Line> = (0..71).map(|i| Line::Text(format!("{i}"))).collect();
        lines.push(Line::Heading("NEXT".into()));
        lines.push(Line::Text("under it".into()));
        let pages = paginate(&lines);
        assert_eq!(pages[1][0].1, &Line::Heading("NEXT".into()));
        let pdf = render("t", "foot", &lines);
        assert!(pdf.starts_with(b"%PDF"));
    }
}
