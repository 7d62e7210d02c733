//! The integration tests, one binary (as ripgrep does): whole builds of fixture sites in
//! temp folders, run through the real `outages` binary and read back with real parsers.

mod common;

mod api;
mod badges;
mod build;
mod cache;
mod data;
mod design;
mod diagnostics;
mod docs;
mod feeds;
mod filters;
mod fuzz_regressions;
mod golden;
mod import;
mod incremental;
mod insight;
mod links;
mod output;
mod planning;
mod platforms;
mod reading;
mod readme;
mod robustness;
mod search;
mod security;
mod serve;
mod sync;
mod telling;
mod truth;
mod twins;
mod writers;
