#![no_main]
//! Fuzz target: see [`outages_fuzz::split_updates`].

libfuzzer_sys::fuzz_target!(|data: &[u8]| outages_fuzz::split_updates(data));
