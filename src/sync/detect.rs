//! Which platform a status page runs on, for `outages provider add`: by its address when
//! that says (a platform's own host, a feed's file name), else by what it answers, asked
//! one question at a time (`api/v2/summary.json`, `index.json`, …) until one fits.

use std::time::Duration;

use reqwest::Url;
use serde_json::Value;

use super::fetch::{Client, Fetched, Limits, Paced};
use super::platform::own_host;
use crate::import::under;
use crate::model::Platform;

/// What was found, and how, in the user's words.
#[derive(Debug)]
pub struct Found {
    pub platform: Platform,
    pub how: String,
}

/// Why a page's platform cannot be followed.
#[derive(Debug)]
pub enum Refused {
    /// Instatus, which `sync` recognises but does not read.
    Instatus,
    /// No platform fits: each question asked, and what came of it.
    Unknown { asked: Vec<String> },
    /// The page could not be asked at all.
    Cannot(String),
}

/// The questions asked of a page, in order: a path under it, and what the answer must be.
const QUESTIONS: [(&str, Answer); 7] = [
    ("api/v2/summary.json", Answer::StatuspageSummary),
    ("index.json", Answer::BetterStack),
    ("api/v2.0.0/current", Answer::Slack),
    ("products.json", Answer::GoogleProducts),
    ("public/currentevents", Answer::AwsEvents),
    ("summary.json", Answer::Instatus),
    ("", Answer::Feed),
];

#[derive(Debug, Clone, Copy)]
enum Answer {
    StatuspageSummary,
    BetterStack,
    Slack,
    GoogleProducts,
    AwsEvents,
    Instatus,
    Feed,
}

/// Finds the platform of `page`: by its address, else by asking it, a question at a time
/// with `delay` between two.
pub fn platform(page: &Url, delay: Duration) -> Result<Found, Refused> {
    if let Some(found) = by_address(page)? {
        return Ok(found);
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Refused::Cannot(format!("cannot start the network runtime: {e}")))?;
    let limits = Limits {
        timeout: Duration::from_secs(15),
        retries: 0,
        ..Limits::default()
    };
    let client = Client::new(limits).map_err(|error| Refused::Cannot(error.to_string()))?;
    runtime.block_on(by_answer(&client, page, delay))
}

/// What the address alone says.
fn by_address(page: &Url) -> Result<Option<Found>, Refused> {
    if let Some(platform) = own_host(page) {
        return Ok(Some(Found {
            platform,
            how: format!(
                "{} is its own status page",
                page.host_str().unwrap_or_default()
            ),
        }));
    }
    let host = page.host_str().unwrap_or_default().to_ascii_lowercase();
    let hosted = [
        (".statuspage.io", Platform::Statuspage),
        (".incident.io", Platform::IncidentIo),
        (".betteruptime.com", Platform::BetterStack),
        (".betterstack.com", Platform::BetterStack),
    ];
    if let Some((suffix, platform)) = hosted.iter().find(|(s, _)| host.ends_with(s)) {
        return Ok(Some(Found {
            platform: *platform,
            how: format!("its host is on {}", suffix.trim_start_matches('.')),
        }));
    }
    if host.ends_with(".instatus.com") {
        return Err(Refused::Instatus);
    }
    let path = page.path().to_ascii_lowercase();
    if [".atom", ".rss", ".xml"]
        .iter()
        .any(|end| path.ends_with(end))
    {
        return Ok(Some(Found {
            platform: Platform::Feed,
            how: "its address is a feed's".to_string(),
        }));
    }
    Ok(None)
}

async fn by_answer(client: &Client, page: &Url, delay: Duration) -> Result<Found, Refused> {
    let mut paced = Paced::new(client, delay);
    let mut asked = Vec::new();
    for (path, answer) in QUESTIONS {
        let url = match path {
            "" => page.clone(),
            path => under(page, path),
        };
        let bytes = match paced.get(&url, None).await {
            Ok(Fetched::Body { bytes, .. }) => bytes,
            Ok(Fetched::NotModified) => continue,
            Err(failure) => {
                asked.push(format!("{url}: {}", failure.reason));
                // A page that gave no answer will not answer the next question either.
                if failure.silent {
                    break;
                }
                continue;
            }
        };
        match fits(answer, &bytes) {
            Some(Ok(platform)) => {
                return Ok(Found {
                    platform,
                    how: format!("it answers {url} as one does"),
                });
            }
            Some(Err(refused)) => return Err(refused),
            None => asked.push(format!("{url}: not {}", answer.expected())),
        }
    }
    Err(Refused::Unknown { asked })
}

impl Answer {
    fn expected(self) -> &'static str {
        match self {
            Answer::StatuspageSummary => "a Statuspage or incident.io summary",
            Answer::BetterStack => "a Better Stack status page",
            Answer::Slack => "Slack's status API",
            Answer::GoogleProducts => "Google Cloud's product list",
            Answer::AwsEvents => "AWS's current events",
            Answer::Instatus => "an Instatus summary",
            Answer::Feed => "an Atom or RSS feed",
        }
    }
}

/// Whether `bytes` are the answer a platform gives to the question: which platform, or why
/// it is not followed; `None` when they are not.
fn fits(answer: Answer, bytes: &[u8]) -> Option<Result<Platform, Refused>> {
    let json = || -> Option<Value> {
        let text = crate::import::payload_text(bytes.to_vec()).ok()?;
        serde_json::from_str(&text).ok()
    };
    let platform = match answer {
        Answer::Feed => {
            let start = String::from_utf8_lossy(&bytes[..bytes.len().min(1024)]).to_lowercase();
            ["<rss", "<feed", "<rdf:rdf"]
                .iter()
                .any(|root| start.contains(root))
                .then_some(())?;
            Platform::Feed
        }
        Answer::StatuspageSummary => {
            let json = json()?;
            let id = json.get("page")?.get("id")?.as_str()?;
            // incident.io names pages by ULIDs (26 characters); Statuspage by 12.
            match id.len() == 26 && id.chars().all(|c| c.is_ascii_alphanumeric()) {
                true => Platform::IncidentIo,
                false => Platform::Statuspage,
            }
        }
        Answer::BetterStack => {
            (json()?.get("data")?.get("type")?.as_str()? == "status_page").then_some(())?;
            Platform::BetterStack
        }
        Answer::Slack => {
            json()?.get("active_incidents")?.as_array()?;
            Platform::Slack
        }
        Answer::GoogleProducts => {
            json()?.get("products")?.as_array()?;
            Platform::GoogleCloud
        }
        Answer::AwsEvents => {
            json()?
                .as_array()?
                .iter()
                .all(|e| e.get("arn").is_some() && e.get("event_log").is_some())
                .then_some(())?;
            Platform::Aws
        }
        Answer::Instatus => {
            json()?.get("page")?.get("status")?.as_str()?;
            return Some(Err(Refused::Instatus));
        }
    };
    Some(Ok(platform))
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refused::Instatus => f.write_str(
                "this is an Instatus status page, which `sync` does not read: its public JSON lists only what is open now, with no updates and no history; if it publishes an Atom or RSS feed, add that address with `--kind feed`",
            ),
            Refused::Cannot(why) => f.write_str(why),
            Refused::Unknown { asked } => {
                write!(f, "cannot tell which platform this status page runs on")?;
                for line in asked {
                    write!(f, "\n  asked {line}")?;
                }
                write!(
                    f,
                    "\n  = help: give the platform with `--kind KIND`, one of {}; a page on none of them may publish an Atom or RSS feed: add that address with `--kind feed`",
                    Platform::keywords()
                )
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(answer: Answer, json: &str) -> Option<Platform> {
        fits(answer, json.as_bytes()).and_then(Result::ok)
    }

    #[test]
    fn summaries_tell_statuspage_from_incident_io_by_the_page_id() {
        let statuspage = r#"{"page": {"id": "kctbh9vrtdwd", "name": "GitHub"}}"#;
        let incident_io = r#"{"page": {"id": "01JMDK9XYNY6RXSED6SDWW50WY", "name": "OpenAI"}}"#;
        assert_eq!(
            answer(Answer::StatuspageSummary, statuspage),
            Some(Platform::Statuspage)
        );
        assert_eq!(
            answer(Answer::StatuspageSummary, incident_io),
            Some(Platform::IncidentIo)
        );
        assert_eq!(answer(Answer::StatuspageSummary, "{}"), None);
        assert_eq!(
            answer(Answer::Feed, "<?xml version=\"1.0\"?><rss>"),
            Some(Platform::Feed)
        );
        assert_eq!(answer(Answer::Feed, "<html><body>"), None);
        assert_eq!(answer(Answer::AwsEvents, "[]"), Some(Platform::Aws));
    }

    #[test]
    fn addresses_that_say_need_no_question() {
        let found = |url: &str| {
            by_address(&Url::parse(url).unwrap())
                .ok()
                .flatten()
                .map(|f| f.platform)
        };
        assert_eq!(
            found("https://status.cloud.google.com/"),
            Some(Platform::GoogleCloud)
        );
        assert_eq!(
            found("https://health.aws.amazon.com/health/status"),
            Some(Platform::Aws)
        );
        assert_eq!(found("https://slack-status.com"), Some(Platform::Slack));
        assert_eq!(
            found("https://acme.statuspage.io"),
            Some(Platform::Statuspage)
        );
        assert_eq!(
            found("https://status.example.com/history.rss"),
            Some(Platform::Feed)
        );
        assert_eq!(found("https://status.example.com"), None);
        assert!(by_address(&Url::parse("https://acme.instatus.com").unwrap()).is_err());
    }
}
