#![no_main]
//! Fuzz target: see [`outages_fuzz::load_incident`].

libfuzzer_sys::fuzz_target!(|data: &[u8]| outages_fuzz::load_incident(data));
