//! Lines to a PDF page 80 mm wide (a thermal roll's width), Courier from the PDF's builtin
//! fonts, the serial as an ITF barcode drawn in bars.

use printpdf::{
    BuiltinFont, Color, Mm, Op, PaintMode, PdfDocument, PdfFontHandle, PdfPage, PdfSaveOptions,
    Point, Pt, Rect, Rgb, TextItem,
};

use super::itf;
use crate::receipt::{Line, Span};

const WIDTH_MM: f32 = 80.0;
const MARGIN_MM: f32 = 4.0;
const FONT_PT: f32 = 7.0;
const LINE_PT: f32 = 9.0;
const BARCODE_MM: f32 = 12.0;

/// Several documents (a receipt and its change voucher), a page each, in one PDF.
pub fn render_pages(title: &str, docs: &[&[Line]]) -> Vec<u8> {
    let pages = docs.iter().map(|lines| page(lines)).collect();
    let mut warnings = Vec::new();
    PdfDocument::new(title)
        .with_pages(pages)
        .save(&PdfSaveOptions::default(), &mut warnings)
}

fn page(lines: &[Line]) -> PdfPage {
    let text_lines = lines.iter().filter(|l| matches!(l, Line::Text(_))).count() as f32;
    let barcodes = lines.len() as f32 - text_lines;
    let height_mm = 2.0 * MARGIN_MM + text_lines * LINE_PT * 0.3528 + barcodes * (BARCODE_MM + 3.0);
    let mut ops = Vec::new();
    // From the top: PDF coordinates start at the bottom left.
    let mut y = Mm(height_mm - MARGIN_MM).into_pt().0;
    for line in lines {
        match line {
            Line::Text(spans) => {
                y -= LINE_PT;
                text_line(&mut ops, spans, y);
            }
            Line::Barcode(digits) => {
                let Some(modules) = itf::modules(digits) else {
                    continue;
                };
                y -= Mm(BARCODE_MM).into_pt().0 + 4.0;
                barcode(&mut ops, &modules, y);
            }
        }
    }
    PdfPage::new(Mm(WIDTH_MM), Mm(height_mm), ops)
}

fn rgb(level: f32) -> Color {
    Color::Rgb(Rgb {
        r: level,
        g: level,
        b: level,
        icc_profile: None,
    })
}

/// One line of text with its baseline at `y`: a reversed span is white on a black box.
fn text_line(ops: &mut Vec<Op>, spans: &[Span], y: f32) {
    let (black, white) = (rgb(0.0), rgb(1.0));
    let mut x = Mm(MARGIN_MM).into_pt().0;
    // Courier's advance is 0.6 em.
    let char_pt = FONT_PT * 0.6;
    for span in spans {
        let width = char_pt * span.text.chars().count() as f32;
        if span.reverse {
            ops.push(Op::SetFillColor { col: black.clone() });
            ops.push(Op::DrawRectangle {
                rectangle: filled(x, y - 2.0, width, LINE_PT),
            });
        }
        ops.push(Op::SetFillColor {
            col: if span.reverse {
                white.clone()
            } else {
                black.clone()
            },
        });
        ops.push(Op::StartTextSection);
        ops.push(Op::SetTextCursor {
            pos: Point { x: Pt(x), y: Pt(y) },
        });
        let font = if span.bold || span.reverse {
            BuiltinFont::CourierBold
        } else {
            BuiltinFont::Courier
        };
        ops.push(Op::SetFont {
            font: PdfFontHandle::Builtin(font),
            size: Pt(FONT_PT),
        });
        ops.push(Op::ShowText {
            items: vec![TextItem::Text(span.text.clone())],
        });
        ops.push(Op::EndTextSection);
        x += width;
    }
}

/// An ITF barcode across the slip's width, its foot at `y`: the bars are the even modules.
fn barcode(ops: &mut Vec<Op>, modules: &[u8], y: f32) {
    let units: f32 = modules.iter().map(|&m| f32::from(m)).sum();
    let narrow = (Mm(WIDTH_MM - 2.0 * MARGIN_MM).into_pt().0) / units;
    let height = Mm(BARCODE_MM).into_pt().0;
    let mut x = Mm(MARGIN_MM).into_pt().0;
    ops.push(Op::SetFillColor { col: rgb(0.0) });
    for (i, &m) in modules.iter().enumerate() {
        let w = narrow * f32::from(m);
        if i % 2 == 0 {
            ops.push(Op::DrawRectangle {
                rectangle: filled(x, y, w, height),
            });
        }
        x += w;
    }
}

/// A rectangle painted with the fill colour (a bare rectangle is only a path).
fn filled(x: f32, y: f32, width: f32, height: f32) -> Rect {
    Rect {
        mode: Some(PaintMode::Fill),
        ..Rect::from_xywh(Pt(x), Pt(y), Pt(width), Pt(height))
    }
}
