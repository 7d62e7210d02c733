#![no_main]
//! Fuzz target: see [`outages_fuzz::read_cache`].

libfuzzer_sys::fuzz_target!(|data: &[u8]| outages_fuzz::read_cache(data));
