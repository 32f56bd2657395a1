//! Reading a scanned or photographed form: find its marks, map the model's millimetres onto the
//! image (rotation, scale and perspective in one homography), read its code to know which form
//! and which way up, then judge every box by its ink against the form's own paper.

mod ink;
mod marks;

use image::GrayImage;
use imageproc::geometric_transformations::Projection;
use serde::Serialize;

pub use ink::{Ink, Judgement};

use crate::layout::{Form, Rect};

/// Why an image gave no form to read.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum NotRead {
    #[error("the file is not an image this reader takes (PNG, JPEG or TIFF): {0}")]
    Image(String),
    #[error("no registration mark found near the image's {0} corner: scan the whole form, flat")]
    NoMark(&'static str),
    #[error("the marks were found but the form's code reads as no form this program prints")]
    NoCode,
}

/// One box as read.
#[derive(Clone, Debug, Serialize)]
pub struct BoxRead {
    /// Its place in the form's boxes.
    pub index: usize,
    pub judgement: Judgement,
    pub ink: Ink,
}

/// A form as read: which one, and every box's judgement.
#[derive(Clone, Debug, Serialize)]
pub struct Reading {
    pub form: Form,
    /// How far the form was turned from upright, in quarter turns clockwise (a form fed
    /// sideways or upside down is read as well).
    pub quarter_turns: u8,
    pub boxes: Vec<BoxRead>,
}

/// Decodes a PNG, JPEG or TIFF (by its contents) and reads it.
pub fn read_bytes(bytes: &[u8]) -> Result<Reading, NotRead> {
    let image = image::load_from_memory(bytes)
        .map_err(|e| NotRead::Image(e.to_string()))?
        .into_luma8();
    read(&image)
}

/// Reads a greyscale image of a form.
pub fn read(image: &GrayImage) -> Result<Reading, NotRead> {
    let levels = marks::Levels::of(image);
    let found = marks::find(image, levels);
    let mut centres = [(0.0, 0.0); 4];
    for (i, corner) in found.iter().enumerate() {
        centres[i] = corner.ok_or(NotRead::NoMark(CORNERS[i]))?;
    }
    let sampler = Sampler { image };
    let black = mean_level(&sampler, &centres);
    for turns in 0..4u8 {
        let Some(to_image) = projection(&centres, turns) else {
            continue;
        };
        let Some(form) = read_code(&sampler, &to_image, levels.paper, black) else {
            continue;
        };
        let boxes = form
            .boxes
            .iter()
            .enumerate()
            .map(|(index, b)| {
                let ink = ink::measure(&sampler, &to_image, b, black);
                BoxRead {
                    index,
                    judgement: ink.judgement(),
                    ink,
                }
            })
            .collect();
        return Ok(Reading {
            form,
            quarter_turns: turns,
            boxes,
        });
    }
    Err(NotRead::NoCode)
}

const CORNERS: [&str; 4] = ["top left", "top right", "bottom right", "bottom left"];

/// The model's millimetres to the image's pixels, with the form turned `turns` quarter turns
/// clockwise: the model's top left mark is the image's corner `turns` along.
fn projection(centres: &[(f32, f32); 4], turns: u8) -> Option<Projection> {
    let model = crate::layout::marks().map(|m| m.centre());
    let image: [(f32, f32); 4] = std::array::from_fn(|i| centres[(i + usize::from(turns)) % 4]);
    Projection::from_control_points(model, image)
}

/// The darkest ink: the marks' own level, from their middles.
fn mean_level(sampler: &Sampler<'_>, centres: &[(f32, f32); 4]) -> f32 {
    let levels: Vec<f32> = centres
        .iter()
        .filter_map(|&(x, y)| sampler.at(x, y))
        .collect();
    levels.iter().sum::<f32>() / levels.len().max(1) as f32
}

/// The form the code names, read at each cell's middle.
fn read_code(sampler: &Sampler<'_>, to_image: &Projection, paper: f32, black: f32) -> Option<Form> {
    let cells = crate::layout::code_cells();
    let mut bits = [false; crate::layout::CODE_CELLS];
    for (bit, cell) in bits.iter_mut().zip(cells.iter()) {
        let middle = cell.grown(-cell.w * 0.2);
        let level = mean_over(sampler, to_image, &middle)?;
        *bit = level < (paper + black) / 2.0;
    }
    Form::from_code(&bits)
}

fn mean_over(sampler: &Sampler<'_>, to_image: &Projection, r: &Rect) -> Option<f32> {
    let mut sum = 0.0;
    let mut n = 0u32;
    let step = r.w.min(r.h) / 6.0;
    for i in 0..=6 {
        for j in 0..=6 {
            let (x, y) = *to_image * (r.x + step * i as f32, r.y + step * j as f32);
            sum += sampler.at(x, y)?;
            n += 1;
        }
    }
    Some(sum / n as f32)
}

/// Reads the image between its pixels (bilinear), so a box's samples follow its edges at any
/// angle.
pub(crate) struct Sampler<'a> {
    image: &'a GrayImage,
}

impl Sampler<'_> {
    /// The level at (x, y) in pixels; `None` off the image.
    pub(crate) fn at(&self, x: f32, y: f32) -> Option<f32> {
        let (w, h) = (self.image.width(), self.image.height());
        if !(x >= 0.0 && y >= 0.0 && x < (w - 1) as f32 && y < (h - 1) as f32) {
            return None;
        }
        let (x0, y0) = (x as u32, y as u32);
        let (fx, fy) = (x - x0 as f32, y - y0 as f32);
        let p = |dx, dy| f32::from(self.image.get_pixel(x0 + dx, y0 + dy).0[0]);
        let top = p(0, 0) * (1.0 - fx) + p(1, 0) * fx;
        let bottom = p(0, 1) * (1.0 - fx) + p(1, 1) * fx;
        Some(top * (1.0 - fy) + bottom * fy)
    }
}
