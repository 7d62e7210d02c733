//! `sitemap.xml` and the `robots.txt` that points at it.

use crate::render::feeds::escape;

/// One page for crawlers: its absolute URL and the day it last changed.
pub struct Entry<'a> {
    pub url: std::borrow::Cow<'a, str>,
    pub lastmod: Option<&'a str>,
}

pub fn sitemap<'a>(entries: impl Iterator<Item = Entry<'a>>) -> Vec<u8> {
    let mut xml = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n",
    );
    for entry in entries {
        xml.push_str("  <url>\n    <loc>");
        xml.push_str(&escape(&entry.url));
        xml.push_str("</loc>\n");
        if let Some(lastmod) = entry.lastmod {
            xml.push_str("    <lastmod>");
            xml.push_str(&escape(lastmod));
            xml.push_str("</lastmod>\n");
        }
        xml.push_str("  </url>\n");
    }
    xml.push_str("</urlset>\n");
    xml.into_bytes()
}

pub fn robots(sitemap_url: &str) -> Vec<u8> {
    format!("User-agent: *\nAllow: /\n\nSitemap: {sitemap_url}\n").into_bytes()
}
