//! scikit-learn's 8×8 digits, as `examples/data/gen_digits.py` wrote them
//! to `digits.bin` (its origin and licence are there): the loader the
//! digits examples share (`#[path = "data/digits.rs"] mod digits;`).

/// How many images the file holds.
pub const IMAGES: usize = 1797;
/// Pixels per image (8×8).
pub const PIXELS: usize = 64;

/// The images as pixels scaled to [0, 1] (row-major, 64 per image), and
/// their labels.
pub fn load() -> (Vec<f32>, Vec<u8>) {
    let bytes: &[u8] = include_bytes!("digits.bin");
    let (magic, rest) = bytes.split_at(8);
    assert_eq!(
        magic, b"DIGITS8\0",
        "examples/data/digits.bin: not a digits file"
    );
    let n = u32::from_le_bytes(rest[..4].try_into().expect("4 bytes")) as usize;
    assert_eq!(n, IMAGES, "examples/data/digits.bin: image count");
    let (pixels, labels) = rest[4..].split_at(n * PIXELS);
    assert_eq!(labels.len(), n, "examples/data/digits.bin: length");
    (
        pixels.iter().map(|&v| v as f32 / 16.0).collect(),
        labels.to_vec(),
    )
}
