//! Reading one Mark Sense Entry Form at 200 dpi (issue 36: under 50 ms): from its decoded
//! image, and from the PNG and JPEG bytes a scanner writes (decoding included).

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use keno_forms::layout::{diagram_a, Meaning};
use keno_testkit::scans::{marked, Mark, Spoil};

fn form() -> image::GrayImage {
    let marks: Vec<(Meaning, Mark)> = [3u8, 17, 29, 44, 58, 61, 80]
        .iter()
        .map(|&n| (Meaning::Number(n), Mark::Cross))
        .chain([
            (Meaning::Games(5), Mark::Cross),
            (Meaning::Price(300), Mark::Cross),
        ])
        .collect();
    let s = Spoil {
        degrees: 2.0,
        blur: 0.8,
        noise: 4.0,
        ..Spoil::none()
    };
    marked(&diagram_a(), 200, &marks, s, 1)
}

fn encoded(image: &image::GrayImage, format: image::ImageFormat) -> Vec<u8> {
    let mut bytes = std::io::Cursor::new(Vec::new());
    image.write_to(&mut bytes, format).unwrap();
    bytes.into_inner()
}

fn read_one_form(c: &mut Criterion) {
    let image = form();
    assert_eq!(
        keno_forms::choice(&keno_forms::read(&image).unwrap())
            .unwrap()
            .numbers
            .len(),
        7
    );
    let png = encoded(&image, image::ImageFormat::Png);
    let jpeg = encoded(&image, image::ImageFormat::Jpeg);
    let mut g = c.benchmark_group("read a form at 200 dpi");
    g.bench_function("decoded image", |b| {
        b.iter(|| keno_forms::read(black_box(&image)).unwrap())
    });
    g.bench_function("from PNG bytes", |b| {
        b.iter(|| keno_forms::read_bytes(black_box(&png)).unwrap())
    });
    g.bench_function("from JPEG bytes", |b| {
        b.iter(|| keno_forms::read_bytes(black_box(&jpeg)).unwrap())
    });
    g.finish();
}

criterion_group!(benches, read_one_form);
criterion_main!(benches);
