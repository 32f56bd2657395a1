//! Entry forms as a scanner or a camera gives them (issue 36): printed by keno-forms,
//! rasterised by poppler's pdftoppm, marked by a hand of the tests' own (crosses, ticks, fills,
//! pencil, half-erased marks and stray lines), then turned, skewed, scaled, blurred, made noisy
//! and JPEG-compressed.

use std::process::Command;

use image::{GrayImage, Luma};
use imageproc::geometric_transformations::{warp, Border, Interpolation, Projection};
use keno_forms::layout::{Form, Meaning, Rect};
pub use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};

/// The form printed by keno-forms and rasterised at `dpi` in grey by pdftoppm.
pub fn printed(form: &Form, dpi: u32) -> GrayImage {
    rasterise(&keno_forms::pdf::render(form), dpi)
}

/// A PDF's first page rasterised at `dpi` in grey by pdftoppm.
pub fn rasterise(pdf_bytes: &[u8], dpi: u32) -> GrayImage {
    let dir = tempfile::tempdir().unwrap();
    let pdf = dir.path().join("form.pdf");
    std::fs::write(&pdf, pdf_bytes).unwrap();
    let out = Command::new("pdftoppm")
        .args(["-r", &dpi.to_string(), "-gray", "-png", "-singlefile"])
        .arg(&pdf)
        .arg(dir.path().join("form"))
        .output()
        .expect("pdftoppm (Debian's poppler-utils) runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    image::open(dir.path().join("form.png"))
        .unwrap()
        .into_luma8()
}

/// `form` printed at `dpi`, marked with `marks` by a hand seeded `seed`, then spoiled as `s`.
pub fn marked(form: &Form, dpi: u32, marks: &[(Meaning, Mark)], s: Spoil, seed: u64) -> GrayImage {
    let mut page = rasterise(&keno_forms::pdf::render(form), dpi);
    let mut r = rng(seed);
    let mut hand = Hand {
        image: &mut page,
        dpi: dpi as f32,
    };
    for &(meaning, mark) in marks {
        let b = form
            .boxes
            .iter()
            .find(|b| b.meaning == meaning)
            .expect("a box");
        hand.mark(b.rect, mark, &mut r);
    }
    spoil(&page, s, &mut r)
}

pub fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

/// A uniform number in [lo, hi).
pub fn between(rng: &mut ChaCha8Rng, lo: f32, hi: f32) -> f32 {
    let unit = (rng.next_u32() >> 8) as f32 / (1u32 << 24) as f32;
    lo + (hi - lo) * unit
}

pub fn below(rng: &mut ChaCha8Rng, n: usize) -> usize {
    (rng.next_u64() % n as u64) as usize
}

/// Pen and paper at `dpi`: strokes drawn in millimetres of the model.
pub struct Hand<'a> {
    pub image: &'a mut GrayImage,
    pub dpi: f32,
}

/// How a box is marked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Mark {
    /// A cross in black pen.
    Cross,
    /// A cross in pencil: grey.
    PencilCross,
    /// A tick: not the cross rule 5.5(a) asks for.
    Tick,
    /// The box filled in.
    Filled,
    /// A cross rubbed out, half of its grey left.
    HalfErased,
    /// One line across the box, as a slip of the pen.
    StrayLine,
}

impl Mark {
    /// What a reader must make of it: `Some(true)` marked, `Some(false)` empty, `None` either
    /// marked or refused as unclear (a tick) or empty or unclear (a half-erased cross, a stray
    /// line): what it must never do is read the other way.
    pub fn means(self) -> Option<bool> {
        match self {
            Mark::Cross | Mark::PencilCross | Mark::Filled => Some(true),
            Mark::Tick => None,
            Mark::HalfErased | Mark::StrayLine => None,
        }
    }

    /// Never read as marked.
    pub fn never_marked(self) -> bool {
        matches!(self, Mark::HalfErased | Mark::StrayLine)
    }

    /// Never read as empty.
    pub fn never_empty(self) -> bool {
        matches!(
            self,
            Mark::Cross | Mark::PencilCross | Mark::Filled | Mark::Tick
        )
    }
}

impl Hand<'_> {
    fn px(&self, mm: f32) -> f32 {
        mm * self.dpi / 25.4
    }

    /// A stroke from a to b (mm), `width` mm wide, at `ink` (0 paper to 1 black).
    pub fn stroke(&mut self, a: (f32, f32), b: (f32, f32), width: f32, ink: f32) {
        let (ax, ay, bx, by) = (self.px(a.0), self.px(a.1), self.px(b.0), self.px(b.1));
        let half = self.px(width) / 2.0;
        let (x0, x1) = (ax.min(bx) - half - 1.0, ax.max(bx) + half + 1.0);
        let (y0, y1) = (ay.min(by) - half - 1.0, ay.max(by) + half + 1.0);
        let (dx, dy) = (bx - ax, by - ay);
        let len2 = (dx * dx + dy * dy).max(1e-6);
        for y in y0.max(0.0) as u32..(y1 as u32).min(self.image.height()) {
            for x in x0.max(0.0) as u32..(x1 as u32).min(self.image.width()) {
                let (px, py) = (x as f32 + 0.5, y as f32 + 0.5);
                let t = (((px - ax) * dx + (py - ay) * dy) / len2).clamp(0.0, 1.0);
                let d = (px - ax - t * dx).hypot(py - ay - t * dy);
                // Soft edges, as a pen's are.
                let cover = (half + 0.5 - d).clamp(0.0, 1.0);
                if cover > 0.0 {
                    self.darken(x, y, ink * cover);
                }
            }
        }
    }

    fn darken(&mut self, x: u32, y: u32, ink: f32) {
        let p = self.image.get_pixel_mut(x, y);
        let level = f32::from(p.0[0]) * (1.0 - ink);
        p.0[0] = level.round() as u8;
    }

    /// `mark` in the box at `r`, its size, place and stroke varied by `rng`.
    pub fn mark(&mut self, r: Rect, mark: Mark, rng: &mut ChaCha8Rng) {
        // From corner to corner of the box to a small cross over its printed value.
        let inset = between(rng, 0.3, 2.6);
        let (ox, oy) = (between(rng, -0.8, 0.8), between(rng, -0.6, 0.6));
        let at = |fx: f32, fy: f32| (r.x + ox + fx * r.w, r.y + oy + fy * r.h);
        let ix = inset / r.w;
        let iy = inset / r.h;
        let pen = between(rng, 0.35, 0.8);
        match mark {
            Mark::Cross | Mark::PencilCross | Mark::HalfErased => {
                let ink = match mark {
                    Mark::Cross => between(rng, 0.85, 1.0),
                    Mark::PencilCross => between(rng, 0.5, 0.7),
                    _ => between(rng, 0.1, 0.22),
                };
                let w = if mark == Mark::PencilCross {
                    pen.min(0.6)
                } else {
                    pen
                };
                self.stroke(at(ix, iy), at(1.0 - ix, 1.0 - iy), w, ink);
                self.stroke(at(1.0 - ix, iy), at(ix, 1.0 - iy), w, ink);
            }
            Mark::Tick => {
                let ink = between(rng, 0.85, 1.0);
                let knee = at(0.4, 1.0 - iy);
                self.stroke(at(ix, 0.55), knee, pen, ink);
                self.stroke(knee, at(1.0 - ix, iy), pen, ink);
            }
            Mark::Filled => {
                let ink = between(rng, 0.8, 1.0);
                let mut y = r.y + inset;
                while y < r.y + r.h - inset {
                    self.stroke((r.x + inset, y), (r.x + r.w - inset, y), 0.7, ink);
                    y += 0.5;
                }
            }
            Mark::StrayLine => {
                // A line across the box at any angle, through any part of it.
                let ink = between(rng, 0.85, 1.0);
                let angle = between(rng, 0.0, std::f32::consts::PI);
                let (c, s) = (angle.cos(), angle.sin());
                let (cx, cy) = at(between(rng, 0.3, 0.7), between(rng, 0.3, 0.7));
                let reach = r.w.max(r.h);
                self.stroke(
                    (cx - c * reach, cy - s * reach),
                    (cx + c * reach, cy + s * reach),
                    pen,
                    ink,
                );
            }
        }
    }
}

/// How a form was spoiled on its way to the reader.
#[derive(Clone, Copy, Debug)]
pub struct Spoil {
    pub degrees: f32,
    /// How far each corner moves, as a share of the page: perspective and scale.
    pub skew: f32,
    pub scale: f32,
    pub blur: f32,
    pub noise: f32,
    pub jpeg: Option<u8>,
}

impl Spoil {
    pub fn none() -> Spoil {
        Spoil {
            degrees: 0.0,
            skew: 0.0,
            scale: 1.0,
            blur: 0.0,
            noise: 0.0,
            jpeg: None,
        }
    }

    /// Up to 5 degrees, a few percent of perspective and scale, some blur, noise and JPEG.
    pub fn random(rng: &mut ChaCha8Rng) -> Spoil {
        Spoil {
            degrees: between(rng, -5.0, 5.0),
            skew: between(rng, 0.0, 0.03),
            scale: between(rng, 0.95, 1.05),
            blur: between(rng, 0.0, 1.3),
            noise: between(rng, 0.0, 8.0),
            jpeg: (below(rng, 3) > 0).then(|| 55 + below(rng, 40) as u8),
        }
    }
}

/// The marked page as a scanner with some margin or a camera gives it: on a canvas 10% larger,
/// turned, skewed and scaled about its centre, then blurred, noisy and compressed.
pub fn spoil(page: &GrayImage, s: Spoil, rng: &mut ChaCha8Rng) -> GrayImage {
    let (w, h) = (page.width() as f32, page.height() as f32);
    let (cw, ch) = ((w * 1.1) as u32, (h * 1.1) as u32);
    let mut canvas = GrayImage::from_pixel(cw, ch, Luma([250]));
    image::imageops::overlay(
        &mut canvas,
        page,
        i64::from((cw - page.width()) / 2),
        i64::from((ch - page.height()) / 2),
    );
    let (cx, cy) = (cw as f32 / 2.0, ch as f32 / 2.0);
    let (sin, cos) = s.degrees.to_radians().sin_cos();
    let corners = [
        (0.0, 0.0),
        (cw as f32, 0.0),
        (cw as f32, ch as f32),
        (0.0, ch as f32),
    ];
    let moved = corners.map(|(x, y)| {
        let (dx, dy) = ((x - cx) * s.scale, (y - cy) * s.scale);
        let jitter = (
            between(rng, -s.skew, s.skew) * w,
            between(rng, -s.skew, s.skew) * h,
        );
        (
            cx + dx * cos - dy * sin + jitter.0,
            cy + dx * sin + dy * cos + jitter.1,
        )
    });
    let projection = Projection::from_control_points(corners, moved).expect("a projection");
    let mut out = warp(
        &canvas,
        projection,
        Interpolation::Bilinear,
        Border::Constant(Luma([250])),
    );
    if s.blur > 0.2 {
        out = imageproc::filter::gaussian_blur_f32(&out, s.blur);
    }
    if s.noise > 0.0 {
        // xorshift64: the rng's ChaCha per pixel is seconds a form unoptimised. Four 16-bit
        // uniforms summed: near enough to a scanner's normal noise.
        let mut x = rng.next_u64() | 1;
        for p in out.pixels_mut() {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let sum: i64 = (0..4)
                .map(|i| ((x >> (16 * i)) & 0xffff) as i64 - 32_768)
                .sum();
            let n = sum as f32 / 32_768.0 * 0.866;
            p.0[0] = (f32::from(p.0[0]) + n * s.noise).clamp(0.0, 255.0) as u8;
        }
    }
    if let Some(quality) = s.jpeg {
        let mut bytes = Vec::new();
        image::codecs::jpeg::JpegEncoder::new_with_quality(&mut bytes, quality)
            .encode_image(&out)
            .unwrap();
        out = image::load_from_memory(&bytes).unwrap().into_luma8();
    }
    out
}
