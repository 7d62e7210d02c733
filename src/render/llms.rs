//! `llms.txt` (the llmstxt.org convention): what the archive is, in a few lines of
//! markdown, and links to its data, so that an agent reads the JSON API rather than
//! scraping pages. Names come from providers' files and status pages: written as plain
//! text, their markdown escaped (`<`, `>` and `&` as entities), on one line each.

use std::fmt::Write as _;

use crate::config::BaseUrl;
use crate::diagnostics::count;
use crate::render::views::ProviderView;
use crate::routes::{self, FeedFormat};

/// What `llms.txt` says of the site as a whole.
pub(crate) struct About<'a> {
    pub title: &'a str,
    pub description: &'a str,
    pub base: &'a BaseUrl,
    pub incidents: usize,
    /// The archive's latest update, `2026-08-22`.
    pub through: Option<&'a str>,
    /// Whether each incident has its markdown twin.
    pub markdown: bool,
}

pub(crate) fn llms_txt(about: &About, providers: &[ProviderView]) -> Vec<u8> {
    let base = about.base;
    let mut out = String::with_capacity(512 + 256 * providers.len());
    let _ = writeln!(out, "# {}\n", plain(about.title));
    if !about.description.trim().is_empty() {
        let _ = writeln!(out, "> {}\n", plain(about.description));
    }
    let _ = write!(
        out,
        "An outage archive of {} of {}, as their status pages told them",
        count(about.incidents, "incident"),
        count(providers.len(), "provider"),
    );
    if let Some(through) = about.through {
        let _ = write!(out, ", up to {through}");
    }
    out.push_str(". Times are UTC. Each incident has a page and a JSON file with every update");
    if about.markdown {
        out.push_str(
            ", and beside its page its file as markdown (the page's URL and `index.md`, as \
             `github/2024-03-05-api-errors/index.md`), which builds again as the same incident",
        );
    }
    out.push_str("; the updates' text is the providers' own.\n\n## Data\n\n");
    let _ = writeln!(
        out,
        "- [API]({}): every file of the JSON API, what it holds, and an example of each",
        base.url(routes::API_INDEX)
    );
    let _ = writeln!(
        out,
        "- [Downloads]({}): every incident and update, a JSON Lines and a CSV file per year",
        base.url(routes::DATA_DIR)
    );
    let _ = writeln!(
        out,
        "- [Providers]({}): every provider with its counts and the link to its incidents, as JSON",
        base.url(routes::API_PROVIDERS)
    );
    let _ = writeln!(
        out,
        "- [Latest incidents]({}): every provider's, as an Atom feed",
        base.url(&routes::feed("", FeedFormat::Atom))
    );
    let _ = writeln!(
        out,
        "- [Sitemap]({}): every page",
        base.url(routes::SITEMAP)
    );
    if !providers.is_empty() {
        out.push_str("\n## Providers\n\n");
    }
    for provider in providers {
        let slug = &provider.reference.slug;
        let _ = write!(
            out,
            "- [{}]({}): {}",
            plain(&provider.reference.name),
            provider.reference.url,
            count(provider.incident_count, "incident"),
        );
        let covered =
            (provider.stats.covered_from.as_ref()).zip(provider.stats.covered_to.as_ref());
        if let Some((from, to)) = covered {
            let _ = write!(out, ", records {} to {}", from.date, to.date);
        }
        let _ = writeln!(
            out,
            "; [incidents as JSON]({}), [statistics]({})",
            base.url(&routes::api_provider(slug)),
            base.url(&routes::api_stats(slug))
        );
    }
    out.into_bytes()
}

/// `text` on one line, with what markdown would read as markup escaped: a name cannot end
/// a link early, start a heading or hide a link of its own.
pub(crate) fn plain(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        for c in word.chars() {
            match c {
                _ if c.is_control() => {}
                // As entities: markdown shows them as the characters, and no tag is opened
                // for a reader that would render one.
                '<' => out.push_str("&lt;"),
                '>' => out.push_str("&gt;"),
                '&' => out.push_str("&amp;"),
                '\\' | '[' | ']' | '(' | ')' | '*' | '_' | '`' | '#' | '!' | '|' => {
                    out.push('\\');
                    out.push(c);
                }
                _ => out.push(c),
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::plain;

    #[test]
    fn a_name_stays_text_on_one_line() {
        assert_eq!(
            plain("Evil](javascript:alert(1))\n# Heading <b> &"),
            "Evil\\]\\(javascript:alert\\(1\\)\\) \\# Heading &lt;b&gt; &amp;"
        );
        assert_eq!(plain("  GitHub \u{7}Status  "), "GitHub Status");
    }
}
