//! A Statuspage's whole history: `history.json?page=N` lists every incident's code, newest
//! first, about three months a page; each code is then read whole from
//! `api/v2/incidents/<code>.json`. `incidents.json` holds only the latest 50, so the first
//! sync of a provider walks these pages. The walk is bounded whatever a server answers.

use std::collections::BTreeSet;

use reqwest::Url;
use serde::Deserialize;

use super::fetch::{Failure, Fetched, Paced};
use super::providers::Followed;

/// Pages read at most: a century of quarters.
pub const MAX_PAGES: u32 = 400;

/// Codes listed at most, over all pages.
pub const MAX_CODES: usize = 100_000;

/// Pages in a row without an incident after which the listing is taken to be over (a
/// server that lists empty months for ever would otherwise be read to [`MAX_PAGES`]).
const QUIET_PAGES: u32 = 8;

/// The longest code taken: Statuspage's are 12 characters.
const MAX_CODE_CHARS: usize = 64;

#[derive(Deserialize)]
struct HistoryPage {
    #[serde(default)]
    months: Vec<Month>,
}

#[derive(Deserialize)]
struct Month {
    #[serde(default)]
    incidents: Vec<Listed>,
}

#[derive(Deserialize)]
struct Listed {
    code: Option<String>,
}

/// Why the walk of a history stopped short.
#[derive(Debug)]
pub enum Stopped {
    Fetch(Failure),
    /// A page is not a history listing.
    Content {
        url: Url,
        reason: String,
    },
}

/// The page `n` (from 1) of the provider's history.
pub fn page_url(provider: &Followed, n: u32) -> Url {
    let mut url = provider.endpoint("history.json");
    url.set_query(Some(&format!("page={n}")));
    url
}

/// The incident `code`, whole.
pub fn incident_url(provider: &Followed, code: &str) -> Url {
    provider.endpoint(&format!("api/v2/incidents/{code}.json"))
}

/// Every code the history lists, newest first, each once: pages are read until one lists
/// no month, repeats the one before, or [`QUIET_PAGES`] in a row list no incident.
pub async fn list(paced: &mut Paced<'_>, provider: &Followed) -> Result<Vec<String>, Stopped> {
    let mut codes = Vec::new();
    let mut seen = BTreeSet::new();
    let mut quiet = 0;
    let mut previous: Option<Vec<String>> = None;
    for n in 1..=MAX_PAGES {
        let url = page_url(provider, n);
        let bytes = match paced.get(&url, None).await.map_err(Stopped::Fetch)? {
            Fetched::Body { bytes, .. } => bytes,
            Fetched::NotModified => break,
        };
        let page: HistoryPage = serde_json::from_slice(&bytes).map_err(|e| Stopped::Content {
            url: url.clone(),
            reason: format!("this is not a Statuspage history listing: {e}"),
        })?;
        if page.months.is_empty() {
            break;
        }
        let listed: Vec<String> = page
            .months
            .into_iter()
            .flat_map(|month| month.incidents)
            .filter_map(|incident| incident.code.filter(|code| is_code(code)))
            .collect();
        if previous.as_ref() == Some(&listed) && !listed.is_empty() {
            break;
        }
        quiet = if listed.is_empty() { quiet + 1 } else { 0 };
        if quiet >= QUIET_PAGES {
            break;
        }
        for code in &listed {
            if codes.len() < MAX_CODES && seen.insert(code.clone()) {
                codes.push(code.clone());
            }
        }
        previous = Some(listed);
    }
    Ok(codes)
}

/// Whether `code` can name an incident in a URL as it is: letters and digits only.
fn is_code(code: &str) -> bool {
    !code.is_empty()
        && code.len() <= MAX_CODE_CHARS
        && code.bytes().all(|b| b.is_ascii_alphanumeric())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_codes_go_into_a_url() {
        assert!(is_code("rcwk6twq397d"));
        for bad in ["", "../x", "a/b", "a?b", "ü", &"a".repeat(65)] {
            assert!(!is_code(bad), "{bad}");
        }
    }
}
