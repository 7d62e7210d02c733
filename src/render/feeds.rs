//! Atom 1.0, RSS 2.0 and JSON Feed 1.1, from the same entries. Entry ids are tag URIs that
//! never change; a feed's `updated` is its newest entry's, never the build time, so an
//! unchanged archive gives byte-identical feeds.

use atom_syndication as atom;
use chrono::{DateTime, FixedOffset};
use serde::Serialize;

use crate::content::source::without_forbidden;
use crate::model::Timestamp;
use crate::render::views::{IncidentView, TimeView};
use crate::routes::FeedFormat;

/// One feed: the site's or a provider's.
pub struct FeedSpec<'a> {
    pub title: String,
    pub description: String,
    pub language: &'a str,
    /// The page the feed is about, absolute.
    pub home_url: String,
    /// The absolute URL of the folder holding the three feeds.
    pub dir_url: String,
    /// The feed's own id: a tag URI like the entries'.
    pub tag: String,
    /// Newest first.
    pub entries: Vec<&'a IncidentView>,
    /// Entries of facts and a link, without the updates' text: a component's feed, of
    /// which an archive has thousands.
    pub brief: bool,
}

impl FeedSpec<'_> {
    /// The newest entry's time: a feed changes only when an entry does, so no build time
    /// is ever written. An empty feed says the Unix epoch, the same on every build.
    fn updated(&self) -> DateTime<FixedOffset> {
        let newest = self.entries.iter().map(|entry| entry.updated.at).max();
        newest.unwrap_or(Timestamp::UNIX_EPOCH).fixed_offset()
    }
}

pub fn atom(spec: &FeedSpec) -> Vec<u8> {
    let link = |href: String, rel: &str, mime: Option<&str>| atom::Link {
        href,
        rel: rel.to_string(),
        mime_type: mime.map(str::to_string),
        ..Default::default()
    };
    let text = |value: &str| atom::Text::plain(without_forbidden(value).into_owned());
    let entries = spec
        .entries
        .iter()
        .map(|incident| atom::Entry {
            title: text(&incident.summary.title),
            id: incident.tag.clone(),
            updated: incident.updated.at.fixed_offset(),
            published: Some(incident.summary.started.at.fixed_offset()),
            authors: vec![atom::Person {
                name: without_forbidden(&incident.summary.provider.name).into_owned(),
                ..Default::default()
            }],
            categories: vec![atom::Category {
                term: incident.summary.impact.keyword.to_string(),
                label: Some(incident.summary.impact.label.to_string()),
                ..Default::default()
            }],
            links: vec![link(
                incident.summary.url.clone(),
                "alternate",
                Some("text/html"),
            )],
            summary: Some(text(&summary_line(incident))),
            content: Some(atom::Content {
                value: Some(without_forbidden(&entry_html(incident, spec.brief)).into_owned()),
                content_type: Some("html".to_string()),
                ..Default::default()
            }),
            ..Default::default()
        })
        .collect();
    let feed = atom::Feed {
        title: text(&spec.title),
        id: spec.tag.clone(),
        updated: spec.updated(),
        subtitle: Some(text(&spec.description)),
        lang: Some(spec.language.to_string()),
        links: vec![
            link(
                format!("{}{}", spec.dir_url, FeedFormat::Atom.file_name()),
                "self",
                Some("application/atom+xml"),
            ),
            link(spec.home_url.clone(), "alternate", Some("text/html")),
        ],
        authors: vec![atom::Person {
            name: without_forbidden(&spec.title).into_owned(),
            ..Default::default()
        }],
        generator: Some(atom::Generator {
            value: "outages".to_string(),
            uri: None,
            version: None,
        }),
        entries,
        ..Default::default()
    };
    let mut out = feed
        .write_to(Vec::new())
        .expect("writing to memory cannot fail");
    out.push(b'\n');
    out
}

pub fn rss(spec: &FeedSpec) -> Vec<u8> {
    let rfc2822 = |time: &TimeView| time.at.to_rfc2822();
    let items = spec
        .entries
        .iter()
        .map(|incident| rss::Item {
            title: Some(without_forbidden(&incident.summary.title).into_owned()),
            link: Some(incident.summary.url.clone()),
            description: Some(without_forbidden(&entry_html(incident, spec.brief)).into_owned()),
            guid: Some(rss::Guid {
                value: incident.tag.clone(),
                permalink: false,
            }),
            pub_date: Some(rfc2822(&incident.summary.started)),
            categories: vec![rss::Category {
                name: incident.summary.impact.label.to_string(),
                domain: None,
            }],
            ..Default::default()
        })
        .collect();
    let channel = rss::Channel {
        title: without_forbidden(&spec.title).into_owned(),
        link: spec.home_url.clone(),
        description: without_forbidden(&spec.description).into_owned(),
        language: Some(spec.language.to_string()),
        last_build_date: Some(spec.updated().to_rfc2822()),
        generator: Some("outages".to_string()),
        atom_ext: Some(rss::extension::atom::AtomExtension {
            links: vec![atom::Link {
                href: format!("{}{}", spec.dir_url, FeedFormat::Rss.file_name()),
                rel: "self".to_string(),
                mime_type: Some("application/rss+xml".to_string()),
                ..Default::default()
            }],
        }),
        items,
        ..Default::default()
    };
    let mut out = channel
        .write_to(Vec::new())
        .expect("writing to memory cannot fail");
    out.push(b'\n');
    out
}

#[derive(Serialize)]
struct JsonFeed<'a> {
    version: &'static str,
    title: &'a str,
    home_page_url: &'a str,
    feed_url: String,
    description: &'a str,
    language: &'a str,
    items: Vec<JsonItem<'a>>,
}

#[derive(Serialize)]
struct JsonItem<'a> {
    id: &'a str,
    url: &'a str,
    title: &'a str,
    summary: String,
    content_html: String,
    date_published: &'a str,
    date_modified: &'a str,
    authors: [JsonAuthor<'a>; 1],
    tags: [&'a str; 2],
    #[serde(rename = "_outages")]
    outages: OutagesExtension<'a>,
}

/// The incident as data, in JSON Feed 1.1's room for extensions (an object whose name starts
/// with `_`, which readers that do not know it ignore): what a script needs from an entry
/// without parsing its HTML or fetching the API.
#[derive(Serialize)]
struct OutagesExtension<'a> {
    provider: &'a str,
    provider_name: &'a str,
    impact: &'a str,
    impact_label: &'a str,
    started: &'a str,
    resolved: Option<&'a str>,
    duration_seconds: Option<i64>,
    components: &'a [String],
    regions: &'a [String],
}

#[derive(Serialize)]
struct JsonAuthor<'a> {
    name: &'a str,
    url: &'a str,
}

pub fn json(spec: &FeedSpec) -> Vec<u8> {
    let feed = JsonFeed {
        version: "https://jsonfeed.org/version/1.1",
        title: &spec.title,
        home_page_url: &spec.home_url,
        feed_url: format!("{}{}", spec.dir_url, FeedFormat::Json.file_name()),
        description: &spec.description,
        language: spec.language,
        items: spec
            .entries
            .iter()
            .map(|incident| JsonItem {
                id: &incident.tag,
                url: &incident.summary.url,
                title: &incident.summary.title,
                summary: summary_line(incident),
                content_html: entry_html(incident, spec.brief),
                date_published: &incident.summary.started.iso,
                date_modified: &incident.updated.iso,
                authors: [JsonAuthor {
                    name: &incident.summary.provider.name,
                    url: &incident.summary.provider.url,
                }],
                tags: [
                    incident.summary.impact.keyword,
                    &incident.summary.provider.slug,
                ],
                outages: OutagesExtension {
                    provider: &incident.summary.provider.slug,
                    provider_name: &incident.summary.provider.name,
                    impact: incident.summary.impact.keyword,
                    impact_label: incident.summary.impact.label,
                    started: &incident.summary.started.iso,
                    resolved: incident.summary.resolved.as_ref().map(|t| t.iso.as_str()),
                    duration_seconds: incident.duration_seconds,
                    components: &incident.components,
                    regions: &incident.regions,
                },
            })
            .collect(),
    };
    crate::render::api::to_json(&feed)
}

/// `Major outage · 3h 24m · ServiceNow Cloud Observability`
fn summary_line(incident: &IncidentView) -> String {
    let s = &incident.summary;
    let duration = crate::render::views::duration_text(s);
    format!(
        "{} · {} · {} · started {}",
        s.impact.label, duration, s.provider.name, s.started.text
    )
}

/// The whole incident as HTML for feed readers: facts, timeline, postmortem (or, `brief`,
/// its facts and a link). Every piece
/// of content in it was sanitised when the views were made; text fields are escaped here.
fn entry_html(incident: &IncidentView, brief: bool) -> String {
    let mut html = format!("<p>{}</p>\n", escape(&summary_line(incident)));
    if !incident.components.is_empty() {
        html.push_str(&format!(
            "<p>Components: {}</p>\n",
            escape(&incident.components.join(", "))
        ));
    }
    if brief {
        html.push_str(&format!(
            "<p><a href=\"{}\">Every update on its page</a></p>\n",
            escape(&incident.summary.url)
        ));
        return html;
    }
    html.push_str(incident.summary_html.as_str());
    if !incident.timeline.is_empty() {
        html.push_str("<ul>\n");
        for update in &incident.timeline {
            html.push_str(&format!(
                "<li><strong>{}</strong> <a href=\"{}\">{}</a>\n{}</li>\n",
                escape(&update.status),
                escape(&update.anchor.on(&incident.summary.url)),
                escape(&update.time.text),
                update.html.as_str()
            ));
        }
        html.push_str("</ul>\n");
    }
    if let Some(postmortem) = &incident.postmortem {
        html.push_str(&format!(
            "<h3><a href=\"{}\">Postmortem</a></h3>\n{}",
            escape(&postmortem.anchor.on(&incident.summary.url)),
            postmortem.html.as_str()
        ));
    }
    html
}

/// Text made safe for HTML, by the templates' own escaping.
pub fn escape(text: &str) -> String {
    let mut out = Vec::with_capacity(text.len() + text.len() / 8);
    // Writing to memory cannot fail, and escaping keeps UTF-8 whole.
    let _ = tera::escape_html(text, &mut out);
    String::from_utf8(out).unwrap_or_default()
}
