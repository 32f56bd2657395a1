//! A form printed from its model: one A5 page, Helvetica from the PDF's builtin fonts.
//!
//! The boxes' outlines and values are a mid grey: the player reads them, and a cross in black
//! pen or pencil stands out from them (the reader leaves the printed value out of its count).
//! The marks and the code are solid black, for the reader to find.

use printpdf::{
    BuiltinFont, Color, Mm, Op, PaintMode, PdfDocument, PdfFontHandle, PdfPage, PdfSaveOptions,
    Point, Pt, Rect as PdfRect, Rgb, TextItem,
};

use crate::layout::{text_width_mm, Form, Rect, Words, LABEL_PT};

/// The grey of the printed boxes and their values (0 black, 1 white).
pub const PRINT_GREY: f32 = 0.55;

/// The form as a PDF document of one page.
pub fn render(form: &Form) -> Vec<u8> {
    let mut ops = Vec::new();
    ops.push(Op::SetFillColor { col: grey(0.0) });
    for mark in form.marks.iter() {
        ops.push(Op::DrawRectangle {
            rectangle: rect(form, mark, PaintMode::Fill),
        });
    }
    for (cell, on) in form.code.iter().zip(form.code_bits()) {
        let mode = if on {
            PaintMode::Fill
        } else {
            PaintMode::Stroke
        };
        ops.push(Op::SetOutlineColor { col: grey(0.0) });
        ops.push(Op::SetOutlineThickness { pt: Pt(0.5) });
        ops.push(Op::DrawRectangle {
            rectangle: rect(form, cell, mode),
        });
    }
    ops.push(Op::SetOutlineColor {
        col: grey(PRINT_GREY),
    });
    ops.push(Op::SetOutlineThickness { pt: Pt(0.6) });
    for b in &form.boxes {
        ops.push(Op::DrawRectangle {
            rectangle: rect(form, &b.rect, PaintMode::Stroke),
        });
        if !b.label.is_empty() {
            let at = b.label_baseline();
            let style = Style {
                pt: LABEL_PT,
                bold: false,
                grey: PRINT_GREY,
            };
            text(&mut ops, form, at, style, &b.label);
        }
    }
    for w in &form.words {
        words(&mut ops, form, w);
    }
    let page = PdfPage::new(Mm(form.page.w), Mm(form.page.h), ops);
    let mut warnings = Vec::new();
    PdfDocument::new(form.id.name())
        .with_pages(vec![page])
        .save(&PdfSaveOptions::default(), &mut warnings)
}

fn grey(level: f32) -> Color {
    Color::Rgb(Rgb {
        r: level,
        g: level,
        b: level,
        icc_profile: None,
    })
}

fn pt(mm: f32) -> f32 {
    Mm(mm).into_pt().0
}

/// A rectangle of the model (top left origin) in the PDF's coordinates (bottom left origin).
fn rect(form: &Form, r: &Rect, mode: PaintMode) -> PdfRect {
    PdfRect {
        mode: Some(mode),
        ..PdfRect::from_xywh(
            Pt(pt(r.x)),
            Pt(pt(form.page.h - r.y - r.h)),
            Pt(pt(r.w)),
            Pt(pt(r.h)),
        )
    }
}

fn words(ops: &mut Vec<Op>, form: &Form, w: &Words) {
    let x = if w.centred {
        w.x - text_width_mm(&w.text, w.pt) / 2.0
    } else {
        w.x
    };
    let style = Style {
        pt: w.pt,
        bold: w.bold,
        grey: 0.0,
    };
    text(ops, form, (x, w.y), style, &w.text);
}

/// How words are printed: size, weight and grey.
#[derive(Clone, Copy)]
struct Style {
    pt: f32,
    bold: bool,
    grey: f32,
}

/// `s` with its baseline starting at `(x, y)` millimetres from the page's top left.
fn text(ops: &mut Vec<Op>, form: &Form, (x, y): (f32, f32), style: Style, s: &str) {
    let Style {
        pt: size,
        bold,
        grey: level,
    } = style;
    ops.push(Op::SetFillColor { col: grey(level) });
    ops.push(Op::StartTextSection);
    ops.push(Op::SetTextCursor {
        pos: Point {
            x: Pt(pt(x)),
            y: Pt(pt(form.page.h - y)),
        },
    });
    let font = if bold {
        BuiltinFont::HelveticaBold
    } else {
        BuiltinFont::Helvetica
    };
    ops.push(Op::SetFont {
        font: PdfFontHandle::Builtin(font),
        size: Pt(size),
    });
    ops.push(Op::ShowText {
        items: vec![TextItem::Text(s.to_string())],
    });
    ops.push(Op::EndTextSection);
}
