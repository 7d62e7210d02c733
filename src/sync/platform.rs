//! What `outages sync` reads of each platform: the answers it asks for on every sync (the
//! latest incidents, or the whole history where one answer holds it), and, where those do
//! not hold every incident, where the rest of the history is.

use reqwest::Url;

use super::providers::Followed;
use crate::model::Platform;

/// Where a platform keeps the incidents its latest answers do not hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum History {
    /// Statuspage: `history.json?page=N` lists every code, each read whole from
    /// `api/v2/incidents/<code>.json` ([`super::history`]).
    Listed,
    /// One feed of every incident (incident.io's `history.atom`).
    Feed(Url),
}

/// The hosts of a platform's own status page, whose answers live at fixed addresses:
/// `(host, platform)`.
const OWN_HOSTS: [(&str, Platform); 5] = [
    ("status.cloud.google.com", Platform::GoogleCloud),
    ("health.aws.amazon.com", Platform::Aws),
    ("status.aws.amazon.com", Platform::Aws),
    ("slack-status.com", Platform::Slack),
    ("status.slack.com", Platform::Slack),
];

/// The platform whose own status page `url` is on, if it is one.
pub fn own_host(url: &Url) -> Option<Platform> {
    let host = url.host_str()?.to_ascii_lowercase();
    OWN_HOSTS
        .iter()
        .find(|(known, _)| *known == host)
        .map(|(_, platform)| *platform)
}

impl Followed {
    /// What every sync of the provider asks for, in the order it is merged.
    pub fn endpoints(&self) -> Vec<Url> {
        let under = |paths: &[&str]| paths.iter().map(|p| self.endpoint(p)).collect();
        let fixed = |urls: &[&str]| urls.iter().filter_map(|u| Url::parse(u).ok()).collect();
        let own = own_host(&self.status_page) == Some(self.platform);
        match self.platform {
            Platform::Statuspage => under(&[
                "api/v2/incidents.json",
                "api/v2/scheduled-maintenances.json",
            ]),
            Platform::IncidentIo => under(&["api/v2/incidents.json"]),
            Platform::GoogleCloud if own => {
                fixed(&["https://status.cloud.google.com/incidents.json"])
            }
            Platform::GoogleCloud => under(&["incidents.json"]),
            // One service's feed (`rss/ec2-us-east-1.rss`) when that is the address given.
            Platform::Aws if own && self.status_page.path().ends_with(".rss") => {
                let events = "https://health.aws.amazon.com/public/currentevents";
                let mut both = vec![self.status_page.clone()];
                both.extend(Url::parse(events).ok());
                both
            }
            Platform::Aws if own => fixed(&[
                "https://status.aws.amazon.com/rss/all.rss",
                "https://health.aws.amazon.com/public/currentevents",
            ]),
            Platform::Aws => under(&["rss/all.rss", "public/currentevents"]),
            Platform::Slack if own => fixed(&[
                "https://slack-status.com/api/v2.0.0/history",
                "https://slack-status.com/api/v2.0.0/current",
            ]),
            Platform::Slack => under(&["api/v2.0.0/history", "api/v2.0.0/current"]),
            Platform::BetterStack => under(&["index.json"]),
            Platform::Feed => vec![self.status_page.clone()],
        }
    }

    /// Whether the provider's answers are read together: AWS's feed and events tell of the
    /// same events, so when one has changed the other is read whole too.
    pub fn reads_together(&self) -> bool {
        self.platform == Platform::Aws
    }

    /// Where the rest of the provider's history is, when its endpoints do not hold it all.
    pub fn history(&self) -> Option<History> {
        match self.platform {
            Platform::Statuspage => Some(History::Listed),
            Platform::IncidentIo => Some(History::Feed(self.endpoint("history.atom"))),
            Platform::GoogleCloud
            | Platform::Aws
            | Platform::Slack
            | Platform::BetterStack
            | Platform::Feed => None,
        }
    }
}
