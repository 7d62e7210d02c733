#![no_main]
//! Fuzz target: see [`outages_fuzz::render_markdown`].

libfuzzer_sys::fuzz_target!(|data: &[u8]| outages_fuzz::render_markdown(data));
