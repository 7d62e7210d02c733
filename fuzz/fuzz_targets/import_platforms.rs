#![no_main]
//! Fuzz target: see [`outages_fuzz::import_platforms`].

libfuzzer_sys::fuzz_target!(|data: &[u8]| outages_fuzz::import_platforms(data));
