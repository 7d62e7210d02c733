//! Every platform `sync` reads, against a server here that answers as the platform does,
//! with its real payloads (`tests/fixtures/<platform>/`): `provider add` finds the platform
//! from what the page answers, the first sync brings what the platform keeps, a second
//! changes no byte, and each platform's impacts, components, regions and postmortems land
//! where the guide's table says. Each payload imports from a file the same way.

use std::collections::BTreeMap;
use std::sync::Arc;

use outages::content::{self, Loaded};
use outages::model::{Impact, Incident, Status};
use serde_json::Value;

use crate::common::Site;
use crate::common::status_page::{
    Server, add, content, empty_site, fixture, json, raw, refused, run, sync,
};

const XML: &str = "application/xml";

/// The incidents of `provider` in the archive, read back by the loader, oldest first.
fn incidents(site: &Site, provider: &str) -> Vec<Arc<Incident>> {
    let mut all: Vec<Arc<Incident>> = content::load_all(site.root())
        .unwrap()
        .into_values()
        .filter_map(|loaded| match loaded {
            Ok(Loaded::Incident(incident)) if incident.provider.as_str() == provider => {
                Some(incident)
            }
            _ => None,
        })
        .collect();
    all.sort_by(|a, b| (a.started, &a.title).cmp(&(b.started, &b.title)));
    all
}

fn by_id<'a>(all: &'a [Arc<Incident>], id: &str) -> &'a Incident {
    all.iter()
        .find(|i| i.id.as_deref() == Some(id))
        .unwrap_or_else(|| panic!("no incident {id}"))
}

fn at(text: &str) -> outages::model::Timestamp {
    text.parse().unwrap()
}

/// `outages check` passes: every file loads and every page renders.
fn checks_clean(site: &Site) {
    let checked = site.run(&["check"]);
    let errors = crate::common::stderr(&checked);
    assert!(checked.status.success(), "{errors}");
}

/// The `sync: {kind: …}` an `_index.md` was given.
fn kind_written(site: &Site, provider: &str) -> String {
    let index = std::fs::read_to_string(site.path(&format!("content/{provider}/_index.md")));
    let index = index.unwrap();
    let line = index.lines().find(|l| l.starts_with("sync:")).unwrap();
    line.to_string()
}

/// `text` as UTF-16, little-endian, with its byte order mark: how AWS serves its events.
fn utf16(text: &[u8]) -> Vec<u8> {
    let text = String::from_utf8(text.to_vec()).unwrap();
    let mut bytes = vec![0xff, 0xfe];
    bytes.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
    bytes
}

#[test]
fn provider_add_finds_each_platform_from_what_its_page_answers() {
    let server = Server::start();
    let summary = |id: &str| format!("{{\"page\": {{\"id\": \"{id}\", \"name\": \"X\"}}}}");
    server.at(
        "/sp/api/v2/summary.json",
        vec![json(&summary("kctbh9vrtdwd"), "a")],
    );
    server.at(
        "/io/api/v2/summary.json",
        vec![raw(
            fixture("incident-io", "openai-summary-ongoing-2026-09-29.json"),
            "application/json",
            "b",
        )],
    );
    server.at(
        "/bs/index.json",
        vec![raw(
            fixture("better-stack", "index.json"),
            "application/json",
            "c",
        )],
    );
    server.at(
        "/sl/api/v2.0.0/current",
        vec![json("{\"status\": \"ok\", \"active_incidents\": []}", "d")],
    );
    server.at(
        "/gc/products.json",
        vec![raw(
            fixture("google-cloud", "products-2026-09-15.json"),
            "application/json",
            "e",
        )],
    );
    server.at(
        "/aws/public/currentevents",
        vec![raw(
            utf16(&fixture("aws", "public-currentevents.json")),
            "application/json",
            "f",
        )],
    );
    server.at(
        "/feed",
        vec![raw(
            fixture("feeds", "parse-history-2014-01-09.rss"),
            XML,
            "g",
        )],
    );
    server.at(
        "/is/summary.json",
        vec![raw(
            fixture("instatus", "summary-quiet.json"),
            "application/json",
            "h",
        )],
    );
    let site = empty_site();
    for (slug, path, kind) in [
        ("sp", "sp", "statuspage"),
        ("io", "io", "incident-io"),
        ("bs", "bs", "better-stack"),
        ("sl", "sl", "slack"),
        ("gc", "gc", "google-cloud"),
        ("aws", "aws", "aws"),
        ("feed", "feed", "feed"),
    ] {
        let said = add(&site, &[slug, &server.page(path)]);
        assert!(
            said.contains(&format!(
                "(sync: {{kind: {kind}}}, found because it answers"
            )),
            "{slug}: {said}"
        );
        assert_eq!(kind_written(&site, slug), format!("sync: {{kind: {kind}}}"));
    }
    // Given, the platform is not asked for.
    server.book.lock().unwrap().seen.clear();
    let said = add(
        &site,
        &["given", &server.page("nowhere"), "--kind", "slack"],
    );
    assert!(
        said.contains("Slack status page (sync: {kind: slack})"),
        "{said}"
    );
    assert!(server.book.lock().unwrap().seen.is_empty());
    // A platform that is recognised but not read, and a page that answers nothing, are
    // refused with what to do instead; nothing is written.
    refused(
        &site,
        &["provider", "add", "perplexity", &server.page("is")],
        "Instatus status page, which `sync` does not read",
    );
    refused(
        &site,
        &["provider", "add", "mystery", &server.page("mystery")],
        "give the platform with `--kind KIND`, one of statuspage, incident-io, google-cloud, aws, slack, better-stack, feed",
    );
    // Nothing listens there: one question, not seven.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let closed_page = format!("http://{}/page", closed.local_addr().unwrap());
    drop(closed);
    let (output, _) = run(&site, &["provider", "add", "gone", &closed_page]);
    let errors = crate::common::stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{errors}");
    assert_eq!(errors.matches("\n  asked ").count(), 1, "{errors}");
    assert!(errors.contains("cannot connect"), "{errors}");
    assert!(!site.path("content/perplexity").exists());
    assert!(!site.path("content/mystery").exists());
    refused(
        &site,
        &["provider", "add", "x", "https://x.example", "--kind", "rss"],
        "no platform `rss`",
    );
}

/// An Atom feed in the shape of a status page's `history.atom`, one entry per incident of
/// an `incidents.json` answer, linked to its page under `page`.
fn history_feed(incidents: &[Value], page: &str) -> String {
    let mut entries = String::new();
    for incident in incidents {
        let id = incident["id"].as_str().unwrap();
        let mut trail = String::new();
        for update in incident["incident_updates"].as_array().unwrap() {
            let at = chrono::DateTime::parse_from_rfc3339(update["created_at"].as_str().unwrap())
                .unwrap();
            let status = update["status"].as_str().unwrap();
            let mut word = status.to_string();
            word[..1].make_ascii_uppercase();
            let body = update["body"].as_str().unwrap();
            trail.push_str(&format!(
                "<p><small>{}</small><br><strong>{word}</strong> - {}</p>",
                at.format("%b %e, %H:%M UTC"),
                html_escape(body)
            ));
        }
        entries.push_str(&format!(
            "<entry><id>tag:{page},2005:Incident/{id}</id><published>{}</published><updated>{}</updated>\
             <link rel=\"alternate\" type=\"text/html\" href=\"{page}/incidents/{id}\"/>\
             <title>{}</title><content type=\"html\">{}</content></entry>",
            incident["created_at"].as_str().unwrap(),
            incident["updated_at"].as_str().unwrap(),
            html_escape(incident["name"].as_str().unwrap()),
            html_escape(&trail),
        ));
    }
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><feed xmlns=\"http://www.w3.org/2005/Atom\">\
         <id>tag:{page},2005:/history</id><link rel=\"alternate\" type=\"text/html\" href=\"{page}\"/>\
         <title>History</title><updated>2026-09-15T07:53:36Z</updated>{entries}</feed>"
    )
}

fn html_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[test]
fn an_incident_io_page_gives_its_latest_incidents_and_the_rest_from_its_feed() {
    let server = Server::start();
    let all: Value =
        serde_json::from_slice(&fixture("incident-io", "openai-incidents-2026-09-15.json"))
            .unwrap();
    let all = all["incidents"].as_array().unwrap().clone();
    assert_eq!(all.len(), 25);
    // The API's latest ten, with the nulls incident.io writes for what it does not have.
    let mut latest: Vec<Value> = all[..10].to_vec();
    for incident in &mut latest {
        incident["components"] = Value::Null;
        incident["shortlink"] = Value::Null;
    }
    latest[1]["incident_updates"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .for_each(|u| u["affected_components"] = Value::Null);
    let page = server.page("openai");
    server.at(
        "/openai/api/v2/summary.json",
        vec![raw(
            fixture("incident-io", "openai-summary-ongoing-2026-09-29.json"),
            "application/json",
            "s",
        )],
    );
    server.at(
        "/openai/api/v2/incidents.json",
        vec![json(
            &serde_json::json!({ "incidents": latest }).to_string(),
            "i1",
        )],
    );
    server.at(
        "/openai/history.atom",
        vec![raw(history_feed(&all, &page), XML, "h1")],
    );
    let site = empty_site();
    let said = add(&site, &["openai", &page]);
    assert!(said.contains("incident.io status page"), "{said}");

    let first = sync(&site, &[]);
    assert!(first.contains("openai: 25 new"), "{first}");
    let synced = incidents(&site, "openai");
    assert_eq!(synced.len(), 25);
    let ids: Vec<&str> = all.iter().map(|i| i["id"].as_str().unwrap()).collect();
    for incident in &synced {
        assert!(ids.contains(&incident.id.as_deref().unwrap()));
        let source = incident.source.as_ref().unwrap();
        assert_eq!(source.kind, "incident-io");
        assert!(incident.components.is_empty(), "incident.io names none");
    }
    // From the API: the impact it gives and every update to the second, each once.
    let api = by_id(&synced, "01M2HYH64J2CZMZ63HEV2FCQFA");
    assert_eq!(api.impact, Impact::Minor);
    assert_eq!(api.updates.len(), 3);
    assert_eq!(api.updates[0].at, at("2026-09-15T07:12:04Z"));
    assert_eq!(api.resolved, Some(at("2026-09-15T07:53:36Z")));
    assert_eq!(
        api.official_url.as_ref().map(|u| u.as_str().to_string()),
        Some(format!("{page}/incidents/01M2HYH64J2CZMZ63HEV2FCQFA"))
    );
    // From the feed only: what the feed says, to the minute.
    let older = by_id(&synced, "01M0JXWD740S0Y50DWJZS7SH75");
    assert_eq!(older.updates.len(), 3);
    assert!(older.updates.iter().all(|u| u.at.timestamp() % 60 == 0));
    assert_eq!(older.updates.last().unwrap().status, Status::Resolved);
    assert!(older.resolved.is_some());

    // Again: nothing new, nothing fetched but the latest, no byte changed.
    let before = content(&site);
    let second = sync(&site, &[]);
    assert!(second.contains("openai: unchanged (304)"), "{second}");
    assert_eq!(content(&site), before);
    let feed_reads = server
        .seen("openai")
        .iter()
        .filter(|(path, _)| path.ends_with("history.atom"))
        .count();
    assert_eq!(feed_reads, 1, "the feed is read on the first sync only");
    checks_clean(&site);
}

#[test]
fn google_cloud_gives_its_whole_history_with_products_locations_and_reports() {
    let server = Server::start();
    server.at(
        "/gcp/products.json",
        vec![raw(
            fixture("google-cloud", "products-2026-09-15.json"),
            "application/json",
            "p",
        )],
    );
    server.at(
        "/gcp/incidents.json",
        vec![raw(
            fixture("google-cloud", "incidents-2026-08-18.json"),
            "application/json",
            "i",
        )],
    );
    let site = empty_site();
    add(
        &site,
        &["gcp", &server.page("gcp"), "--name", "Google Cloud"],
    );
    let first = sync(&site, &[]);
    assert!(first.contains("gcp: 2 new"), "{first}");
    let synced = incidents(&site, "gcp");
    assert_eq!(synced.len(), 2);
    let cooling = by_id(&synced, "3BvH3LVGcupoYqV6F4Nw");
    assert_eq!(cooling.source.as_ref().unwrap().kind, "google-cloud");
    assert_eq!(cooling.started, at("2026-07-15T23:57:00Z"));
    assert_eq!(cooling.resolved, Some(at("2026-07-16T12:25:00Z")));
    // SERVICE_DISRUPTION of medium severity: a partial outage.
    assert_eq!(cooling.impact, Impact::Major);
    assert_eq!(
        cooling.components,
        [
            "Bare Metal Solution",
            "Google Cloud NetApp Volumes",
            "VMWare engine"
        ]
    );
    assert_eq!(cooling.regions, ["europe-west4"]);
    assert_eq!(cooling.updates.len(), 12);
    // The last incident report is the postmortem; the preliminary one stays an update.
    let postmortem = cooling.postmortem().unwrap();
    assert_eq!(postmortem.at, at("2026-07-25T13:16:55Z"));
    assert!(postmortem.body.contains("Incident Report"));
    let resolution: Vec<_> = cooling
        .updates
        .iter()
        .filter(|u| u.status == Status::Resolved)
        .collect();
    assert_eq!(resolution.len(), 1);
    assert_eq!(resolution[0].at, at("2026-07-16T12:25:47Z"));
    let stretched = by_id(&synced, "T8gmtofFSTGT5tbhyciF");
    assert_eq!(
        stretched.regions,
        ["australia-southeast2", "europe-west3"],
        "the locations it touched"
    );
    assert_eq!(
        stretched.official_url.as_ref().unwrap().as_str(),
        format!("{}/incidents/T8gmtofFSTGT5tbhyciF", server.page("gcp"))
    );

    let before = content(&site);
    assert!(sync(&site, &[]).contains("gcp: unchanged (304)"));
    assert_eq!(content(&site), before);
    // The page shows the report apart, and the regions.
    site.build(&[]);
    let page = site.read(&format!("gcp/{}/index.html", cooling.slug));
    assert!(page.contains("europe-west4"), "the region is on the page");
    let html = site.html(&format!("gcp/{}/index.html", cooling.slug));
    let postmortem = crate::common::select(&html, "section.postmortem");
    assert_eq!(postmortem.len(), 1, "one postmortem section");
}

#[test]
fn aws_posts_become_events_by_service_and_region_and_join_the_open_event() {
    let server = Server::start();
    let feed = fixture("aws", "all-2026-08-18.rss");
    server.at("/aws/rss/all.rss", vec![raw(feed.clone(), XML, "r1")]);
    server.at(
        "/aws/public/currentevents",
        vec![raw(
            utf16(&fixture("aws", "public-currentevents.json")),
            "application/json",
            "e1",
        )],
    );
    let site = empty_site();
    let said = add(&site, &["aws", &server.page("aws"), "--kind", "aws"]);
    assert!(said.contains("AWS Health Dashboard"), "{said}");
    let first = sync(&site, &[]);
    assert!(first.contains("aws: 4 new"), "{first}");
    let synced = incidents(&site, "aws");
    assert_eq!(
        synced.len(),
        4,
        "{:?}",
        synced.iter().map(|i| &i.id).collect::<Vec<_>>()
    );

    // Twenty posts of one service and region up to `[RESOLVED]`: one event.
    let packets = by_id(&synced, "directconnect-eu-central-1_1786765379");
    assert_eq!(packets.updates.len(), 20);
    assert_eq!(packets.title, "Increased Packet loss");
    assert_eq!(packets.regions, ["eu-central-1"]);
    assert_eq!(packets.components, ["directconnect (eu-central-1)"]);
    assert_eq!(packets.impact, Impact::Critical, "`Service impact`");
    assert_eq!(packets.resolved, Some(at("2026-08-18T04:01:19Z")));
    assert_eq!(packets.updates.last().unwrap().status, Status::Resolved);
    // The feed shows only the later posts of the UAE event: they join the event as
    // currentevents names it, which began earlier.
    let uae = by_id(&synced, "multipleservices-me-central-1_1772369485");
    assert_eq!(uae.started, at("2026-03-01T12:51:25Z"));
    assert_eq!(uae.resolved, None);
    assert_eq!(uae.updates.len(), 18, "17 posts and the event's own first");
    assert!(uae.components.iter().any(|c| c == "sts (me-central-1)"));
    assert_eq!(uae.regions, ["me-central-1"]);
    // An event currentevents alone still holds: resolved, with the services it touched.
    let oregon = by_id(&synced, "multipleservices-us-west-2_1788472198");
    assert_eq!(oregon.resolved, Some(at("2026-09-04T00:07:54Z")));
    assert_eq!(oregon.regions, ["us-west-2"]);
    assert_eq!(oregon.components, ["signin (us-west-2)", "sts (us-west-2)"]);
    assert_eq!(oregon.title, "Increased API Error Rates");

    // The feed moves on: the UAE event's oldest posts fall out of it, and currentevents no
    // longer lists it. What is left still joins the same event.
    let text = String::from_utf8(feed).unwrap();
    let cut = text.find("<item>").unwrap();
    let items: Vec<&str> = text[cut..].split_inclusive("</item>").collect();
    let kept: String = items
        .iter()
        .filter(|item| !item.contains("multipleservices-me-central-1_17723"))
        .copied()
        .collect();
    let moved = format!("{}{kept}", &text[..cut]);
    server.at("/aws/rss/all.rss", vec![raw(moved, XML, "r2")]);
    server.at("/aws/public/currentevents", vec![json("[]", "e2")]);
    let before = content(&site);
    let again = sync(&site, &[]);
    assert!(again.contains("aws: 0 new"), "{again}");
    assert_eq!(content(&site), before, "no byte changed");
    checks_clean(&site);
}

/// An AWS feed of these posts: `(epoch, state, summary, text)` of `ec2-us-east-1`.
fn aws_feed(posts: &[(i64, &str, &str, &str)]) -> String {
    let items: String = posts
        .iter()
        .map(|(epoch, state, summary, text)| {
            let date = chrono::DateTime::from_timestamp(*epoch, 0).unwrap().to_rfc2822();
            format!(
                "<item><title><![CDATA[{state}: {summary}]]></title><link>https://status.aws.amazon.com/</link>\
                 <pubDate>{date}</pubDate><guid isPermaLink=\"false\">https://status.aws.amazon.com/#ec2-us-east-1_{epoch}</guid>\
                 <description><![CDATA[{text}]]></description></item>"
            )
        })
        .collect();
    format!(
        "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>AWS</title>\
         <link>https://status.aws.amazon.com/</link><description>d</description>{items}</channel></rss>"
    )
}

#[test]
fn an_aws_event_that_ends_in_the_feed_is_not_the_next_one_and_both_answers_are_read_together() {
    let server = Server::start();
    let disruption = "Service disruption";
    let first = [
        (
            1_786_000_000,
            disruption,
            "Increased Error Rates",
            "Investigating.",
        ),
        (
            1_786_003_600,
            disruption,
            "Increased Error Rates",
            "Mitigating.",
        ),
    ];
    server.at("/aws/rss/all.rss", vec![raw(aws_feed(&first), XML, "r1")]);
    server.at("/aws/public/currentevents", vec![json("[]", "e1")]);
    let site = empty_site();
    add(&site, &["aws", &server.page("aws"), "--kind", "aws"]);
    assert!(sync(&site, &[]).contains("aws: 1 new"));
    // The event ends, and a new one of the same service and region begins, in one feed:
    // the archive still has the first open, but the feed says it ended.
    let normal = "Service is operating normally";
    let mut later = first.to_vec();
    later.push((
        1_786_007_200,
        normal,
        "[RESOLVED] Increased Error Rates",
        "Resolved.",
    ));
    later.push((
        1_786_090_000,
        disruption,
        "Increased Latency",
        "Investigating latency.",
    ));
    server.at("/aws/rss/all.rss", vec![raw(aws_feed(&later), XML, "r2")]);
    server.book.lock().unwrap().seen.clear();
    let second = sync(&site, &[]);
    assert!(second.contains("aws: 1 new, 1 updated"), "{second}");
    let events = incidents(&site, "aws");
    assert_eq!(events.len(), 2);
    let ended = by_id(&events, "ec2-us-east-1_1786000000");
    assert_eq!(ended.updates.len(), 3);
    assert_eq!(ended.resolved, Some(at("2026-08-06T09:06:40Z")));
    assert_eq!(
        ended.impact,
        Impact::Critical,
        "kept when the last post says none"
    );
    let next = by_id(&events, "ec2-us-east-1_1786090000");
    assert_eq!(next.updates.len(), 1);
    assert_eq!(next.resolved, None);
    // The feed changed and the events did not: they were asked for again, whole.
    let asked: Vec<Option<String>> = server
        .seen("aws")
        .into_iter()
        .filter(|(path, _)| path.ends_with("currentevents"))
        .map(|(_, tag)| tag)
        .collect();
    assert_eq!(asked, [Some("\"e1\"".to_string()), None]);
    checks_clean(&site);
}

#[test]
fn slack_gives_its_history_and_what_is_open_with_times_in_utc() {
    let server = Server::start();
    let history = fixture("slack", "history-2026-08-18.json");
    let all: Vec<Value> = serde_json::from_slice(&history).unwrap();
    let open: Vec<&Value> = all.iter().filter(|i| i["status"] == "active").collect();
    let current = serde_json::json!({"status": "active", "active_incidents": open});
    server.at(
        "/slack/api/v2.0.0/history",
        vec![raw(history, "application/json", "h")],
    );
    server.at(
        "/slack/api/v2.0.0/current",
        vec![json(&current.to_string(), "c")],
    );
    let site = empty_site();
    add(&site, &["slack", &server.page("slack")]);
    assert_eq!(kind_written(&site, "slack"), "sync: {kind: slack}");
    let first = sync(&site, &[]);
    assert!(first.contains("slack: 5 new"), "{first}");
    let synced = incidents(&site, "slack");
    assert_eq!(synced.len(), 5);
    let reminders = by_id(&synced, "1572");
    // 19:18:40-07:00 is 02:18:40 the next day in UTC.
    assert_eq!(reminders.started, at("2026-07-24T02:18:40Z"));
    assert_eq!(reminders.resolved, Some(at("2026-07-24T03:20:37Z")));
    assert_eq!(reminders.impact, Impact::Major, "an `incident`");
    assert_eq!(reminders.components, ["Notifications"]);
    assert_eq!(reminders.updates.len(), 3);
    assert_eq!(reminders.updates[2].status, Status::Resolved);
    let retention = by_id(&synced, "1576");
    assert_eq!(retention.resolved, None, "still active");
    assert_eq!(
        retention.components,
        ["Messaging", "Workspace/Org Administration"]
    );
    let before = content(&site);
    assert!(sync(&site, &[]).contains("slack: unchanged (304)"));
    assert_eq!(content(&site), before);
}

#[test]
fn better_stack_and_feeds_give_what_they_hold() {
    let server = Server::start();
    server.at(
        "/together/index.json",
        vec![raw(
            fixture("better-stack", "index.json"),
            "application/json",
            "b",
        )],
    );
    server.at(
        "/parse/history.rss",
        vec![raw(
            fixture("feeds", "parse-history-2014-01-09.rss"),
            XML,
            "p",
        )],
    );
    server.at(
        "/github/history.atom",
        vec![raw(
            fixture("feeds", "github-history-2026-07-09-ongoing.atom"),
            XML,
            "g",
        )],
    );
    let site = empty_site();
    add(&site, &["together", &server.page("together")]);
    add(
        &site,
        &["parse", &format!("{}/history.rss", server.page("parse"))],
    );
    add(
        &site,
        &["github", &format!("{}/history.atom", server.page("github"))],
    );
    let first = sync(&site, &[]);
    assert!(first.contains("together: 1 new"), "{first}");
    assert!(first.contains("parse: 17 new"), "{first}");
    assert!(first.contains("github: 25 new"), "{first}");

    let together = incidents(&site, "together");
    let maintenance = &together[0];
    assert_eq!(maintenance.impact, Impact::Maintenance);
    assert_eq!(maintenance.started, at("2026-07-03T04:00:59Z"));
    assert_eq!(maintenance.resolved, Some(at("2026-07-03T06:59:00Z")));
    assert_eq!(maintenance.updates.len(), 2);
    assert_eq!(maintenance.updates[1].status, Status::Completed);
    assert!(!maintenance.components.is_empty());

    // Parse's feed writes its times in the page's zone (PST): they land in UTC.
    let parse = incidents(&site, "parse");
    let elevated = by_id(&parse, "lzf7mjchpy20");
    assert_eq!(elevated.source.as_ref().unwrap().kind, "statuspage");
    assert_eq!(elevated.title, "Elevated error rates");
    assert_eq!(elevated.started, at("2014-01-01T16:17:00Z"));
    assert_eq!(elevated.resolved, Some(at("2014-01-01T17:09:00Z")));
    assert_eq!(elevated.updates[0].status, Status::Investigating);
    // GitHub's feed: every entry an incident, the newest still open.
    let github = incidents(&site, "github");
    assert_eq!(github.len(), 25);
    assert_eq!(github.iter().filter(|i| i.resolved.is_none()).count(), 1);

    let before = content(&site);
    let second = sync(&site, &[]);
    assert!(second.contains("parse: unchanged (304)"), "{second}");
    assert_eq!(content(&site), before);
}

#[test]
fn every_platform_syncs_into_one_archive_that_checks_clean() {
    let server = Server::start();
    let json_type = "application/json";
    server.at(
        "/gcp/incidents.json",
        vec![raw(
            fixture("google-cloud", "incidents-2026-08-18.json"),
            json_type,
            "1",
        )],
    );
    server.at(
        "/aws/rss/all.rss",
        vec![raw(fixture("aws", "all-2026-08-18.rss"), XML, "2")],
    );
    server.at(
        "/aws/public/currentevents",
        vec![raw(
            fixture("aws", "public-currentevents.json"),
            json_type,
            "3",
        )],
    );
    server.at(
        "/slack/api/v2.0.0/history",
        vec![raw(
            fixture("slack", "history-2026-08-18.json"),
            json_type,
            "4",
        )],
    );
    server.at(
        "/slack/api/v2.0.0/current",
        vec![json("{\"active_incidents\": []}", "5")],
    );
    server.at(
        "/together/index.json",
        vec![raw(fixture("better-stack", "index.json"), json_type, "6")],
    );
    server.at(
        "/openai/api/v2/incidents.json",
        vec![raw(
            fixture("incident-io", "openai-incidents-2026-09-15.json"),
            json_type,
            "7",
        )],
    );
    let site = empty_site();
    for (slug, kind) in [
        ("gcp", "google-cloud"),
        ("aws", "aws"),
        ("slack", "slack"),
        ("together", "better-stack"),
        ("openai", "incident-io"),
    ] {
        add(&site, &[slug, &server.page(slug), "--kind", kind]);
    }
    server.at(
        "/openai/history.atom",
        vec![raw(history_feed(&[], &server.page("openai")), XML, "8")],
    );
    let out = sync(&site, &[]);
    assert!(
        out.contains("synced 5 of 5 providers: 37 new, 0 updated, 0 unchanged"),
        "{out}"
    );
    checks_clean(&site);
    let built = site.build(&[]);
    assert!(
        built.contains("built 37 incidents from 5 providers"),
        "{built}"
    );
    // The imports of the same payloads, from files, find every incident already there.
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for (kind, folder, file, provider) in [
        (
            "google-cloud",
            "google-cloud",
            "incidents-2026-08-18.json",
            "gcp",
        ),
        ("aws", "aws", "all-2026-08-18.rss", "aws"),
        ("aws", "aws", "public-currentevents.json", "aws"),
        ("slack", "slack", "history-2026-08-18.json", "slack"),
        ("better-stack", "better-stack", "index.json", "together"),
        (
            "incident-io",
            "incident-io",
            "openai-incidents-2026-09-15.json",
            "openai",
        ),
    ] {
        let path = site.path(&format!("{provider}-{file}"));
        std::fs::write(&path, fixture(folder, file)).unwrap();
        let (output, stdout) = run(
            &site,
            &[
                "import",
                kind,
                path.to_str().unwrap(),
                "--provider",
                provider,
            ],
        );
        assert!(
            output.status.success(),
            "{}",
            crate::common::stderr(&output)
        );
        // A file names no page: Google's own address replaces the test server's.
        assert!(stdout.contains(" 0 created, "), "{kind}: {stdout}");
        assert!(
            !stdout.contains("(+1") && !stdout.contains("kept"),
            "{kind}: {stdout}"
        );
        *counts.entry(provider).or_default() += 1;
    }
    assert_eq!(counts.len(), 5);
}
