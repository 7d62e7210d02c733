//! `sitemap.xml` and the `robots.txt` that points at it. A site of more pages than one
//! sitemap may list (sitemaps.org: 50,000) gets a sitemap index in `sitemap.xml`, naming
//! `sitemap-1.xml`, `sitemap-2.xml`… of at most that many each.

use std::fmt::Write;

use chrono::NaiveDate;

use crate::render::feeds::escape;

/// The most URLs one sitemap file may list.
pub const MAX_URLS: usize = 50_000;

/// How many sitemap files `urls` URLs need: 0 when `sitemap.xml` holds them all.
pub fn parts(urls: usize) -> usize {
    if urls <= MAX_URLS {
        0
    } else {
        urls.div_ceil(MAX_URLS)
    }
}

/// One page for crawlers: its absolute URL and the day it last changed.
pub struct Entry {
    pub url: String,
    pub lastmod: Option<NaiveDate>,
}

/// `<lastmod>2024-03-01</lastmod>`, as the pages write a date.
fn lastmod(xml: &mut String, date: Option<NaiveDate>) {
    if let Some(date) = date {
        let _ = writeln!(xml, "    <lastmod>{date}</lastmod>");
    }
}

pub fn sitemap(entries: impl Iterator<Item = Entry>) -> Vec<u8> {
    let mut xml = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n",
    );
    for entry in entries {
        xml.push_str("  <url>\n    <loc>");
        xml.push_str(&escape(&entry.url));
        xml.push_str("</loc>\n");
        lastmod(&mut xml, entry.lastmod);
        xml.push_str("  </url>\n");
    }
    xml.push_str("</urlset>\n");
    xml.into_bytes()
}

/// A sitemap index: each part's absolute URL and the newest `lastmod` among its pages.
pub fn index(parts: impl Iterator<Item = (String, Option<NaiveDate>)>) -> Vec<u8> {
    let mut xml = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n",
    );
    for (url, date) in parts {
        xml.push_str("  <sitemap>\n    <loc>");
        xml.push_str(&escape(&url));
        xml.push_str("</loc>\n");
        lastmod(&mut xml, date);
        xml.push_str("  </sitemap>\n");
    }
    xml.push_str("</sitemapindex>\n");
    xml.into_bytes()
}

pub fn robots(sitemap_url: &str) -> Vec<u8> {
    format!("User-agent: *\nAllow: /\n\nSitemap: {sitemap_url}\n").into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sitemap_splits_only_past_the_limit() {
        assert_eq!(parts(0), 0);
        assert_eq!(parts(MAX_URLS), 0);
        assert_eq!(parts(MAX_URLS + 1), 2);
        assert_eq!(parts(3 * MAX_URLS), 3);
        assert_eq!(parts(3 * MAX_URLS + 1), 4);
    }
}
