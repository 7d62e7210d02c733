//! `outages`: a static site generator for outage archives.
//!
//! The pipeline runs one way: [`content`] reads files into the [`model`], [`archive`]
//! assembles and sorts it, [`render`] plans and renders every page, [`output`] writes the
//! bytes. [`build`] drives it; the binary adds the command line.

#![deny(missing_docs)]

pub(crate) mod archive;
pub mod build;
pub mod cache;
pub mod config;
pub mod content;
pub mod diagnostics;
pub mod import;
mod lockfile;
pub mod model;
pub(crate) mod numbers;
pub(crate) mod output;
pub(crate) mod rebuild;
pub mod render;
pub(crate) mod routes;
pub mod search;
pub mod serve;
pub mod site;
pub(crate) mod sources;
pub mod sync;
