//! The precompressed copies of text files (`.gz`, `.br`) for servers that send them as
//! they are.

use super::*;

/// Whether a file is worth `.gz` and `.br` siblings: text, over a kilobyte.
pub fn compressible(site_path: &str, len: usize) -> bool {
    let text = ["html", "css", "js", "json", "xml", "txt", "svg"];
    len > 1024
        && site_path
            .rsplit_once('.')
            .is_some_and(|(_, extension)| text.contains(&extension))
}

/// The `.gz` and `.br` siblings of a file: the best compression, and the same bytes for
/// the same input (no time or name in the gzip header).
pub fn precompressed(bytes: &[u8]) -> [(&'static str, Vec<u8>); 2] {
    use std::io::Write as _;
    let mut gzip = flate2::GzBuilder::new()
        .mtime(0)
        .write(Vec::new(), flate2::Compression::best());
    gzip.write_all(bytes)
        .expect("writing to memory cannot fail");
    let gzip = gzip.finish().expect("writing to memory cannot fail");
    let mut brotli = Vec::new();
    let params = brotli::enc::BrotliEncoderParams {
        quality: 11,
        lgwin: 22,
        ..Default::default()
    };
    brotli::BrotliCompress(&mut &bytes[..], &mut brotli, &params)
        .expect("writing to memory cannot fail");
    let [gz, br] = routes::PRECOMPRESSED;
    [(gz, gzip), (br, brotli)]
}
