#!/usr/bin/env python3
"""Write a deterministic synthetic outage archive, for benchmarks.

    python3 scripts/gen-archive.py DIR --incidents 10000 [--providers 40] [--seed 1]

writes DIR/content/<provider>/_index.md and DIR/content/<provider>/<date>-<title>.md.
About 85% of the incidents use the canonical front matter format, 15% the down.guide
export; about 10% carry a postmortem, 5% are maintenance, 1% are ongoing. The same
arguments always give byte-identical files (stdlib only, no clock, no hash order).
"""

import argparse
import datetime as dt
import json
import os
import random
import re
import shutil
import sys

# ---------------------------------------------------------------------------
# Vocabulary

PREFIXES = [
    "Nimbus", "Corvid", "Larch", "Quartz", "Tidal", "Ember", "Halyard", "Kestrel",
    "Juniper", "Basalt", "Mistral", "Orchid", "Pylon", "Sable", "Tern", "Vellum",
    "Wharf", "Yarrow", "Zephyr", "Alder", "Brook", "Cinder", "Dune", "Fathom",
    "Gantry", "Heron", "Iris", "Jetty", "Kiln", "Lumen", "Marrow", "Nettle",
    "Osprey", "Pewter", "Quill", "Rook", "Spruce", "Thistle", "Umber", "Vireo",
]

# kind: (name suffixes, description, components, regions, vocabulary of problems)
KINDS = {
    "cdn": (
        ["CDN", "Edge", "Delivery"],
        "A content delivery network with {n} points of presence, image optimisation and an edge compute runtime.",
        ["Edge delivery", "Cache purge", "Image optimizer", "Edge functions", "TLS certificates",
         "Origin shield (IAD)", "Origin shield (FRA)", "Analytics", "Dashboard", "Configuration API"],
        ["us", "eu", "ap", "sa", "global"],
    ),
    "dns": (
        ["DNS", "Resolve", "Zones"],
        "Authoritative DNS with anycast name servers on {n} sites, DNSSEC signing and health-checked failover records.",
        ["Authoritative DNS", "Record updates", "DNSSEC signing", "Health checks", "Zone transfers",
         "DNS API", "Dashboard", "Query analytics"],
        ["us", "eu", "ap", "global"],
    ),
    "payments": (
        ["Pay", "Payments", "Ledger"],
        "Card payments, payouts and invoicing for {n} thousand businesses, with a REST API and webhooks.",
        ["Card authorization", "Payouts", "Webhooks", "3-D Secure", "Dashboard", "REST API",
         "Invoicing", "Disputes", "Reporting"],
        ["us", "eu", "uk", "ap"],
    ),
    "chat": (
        ["Chat", "Talk", "Huddle"],
        "Team chat with channels, calls and file sharing, used by {n} thousand workspaces.",
        ["Messaging", "Notifications", "File uploads", "Calls", "Search", "SSO login",
         "Apps and integrations", "Desktop app", "Mobile apps"],
        ["us", "eu", "ap", "global"],
    ),
    "git": (
        ["Forge", "Git", "Code"],
        "Git hosting with pull requests, issues, hosted CI runners and static site hosting for {n} thousand teams.",
        ["Git operations", "Web interface", "REST API", "Pipelines", "Pages", "Webhooks",
         "Package registry", "Issues", "Pull requests"],
        ["us", "eu", "global"],
    ),
    "cloud": (
        ["Cloud", "Compute", "Stack"],
        "Virtual machines, managed Kubernetes, block and object storage in {n} regions.",
        ["Droplets", "Block storage", "Object storage", "Kubernetes", "Load balancers",
         "Cloud API", "Networking", "Managed databases", "Control panel"],
        ["nyc1", "sfo2", "fra1", "ams3", "sgp1", "syd1", "global"],
    ),
    "email": (
        ["Mail", "Post", "Send"],
        "Transactional and marketing email delivery, sending {n} million messages a day.",
        ["SMTP relay", "Sending API", "Inbound parse", "Event webhooks", "Dashboard",
         "Suppression lists", "Templates", "Statistics"],
        ["us", "eu", "global"],
    ),
    "database": (
        ["Base", "DB", "Data"],
        "Managed Postgres with connection pooling, point-in-time restore and read replicas in {n} regions.",
        ["Database", "Connection pooler", "Backups and restore", "Read replicas", "Dashboard",
         "Management API", "Branching", "Metrics"],
        ["us-east", "us-west", "eu-central", "ap-southeast", "global"],
    ),
    "monitoring": (
        ["Watch", "Metrics", "Trace"],
        "Hosted metrics, logs and tracing, ingesting {n} billion events a day.",
        ["Ingestion", "Query API", "Dashboards", "Alerting", "Log search", "Trace explorer",
         "Service directory", "Web app"],
        ["us", "eu", "global"],
    ),
    "auth": (
        ["Auth", "ID", "Identity"],
        "Hosted login, single sign-on and user management for {n} thousand applications.",
        ["Login", "Social connections", "SAML SSO", "Management API", "MFA", "Dashboard",
         "Token issuance", "User import"],
        ["us", "eu", "au", "jp", "global"],
    ),
}

PROBLEMS = [
    ("Elevated error rates for {c}", "is returning elevated rates of `{code}` errors"),
    ("{c} degraded", "is responding slowly for some customers"),
    ("{c} unavailable", "is unavailable for most customers"),
    ("Increased latency for {c}", "is showing increased latency, with p99 above **{secs} seconds**"),
    ("{c} delays", "is processing requests with delays of up to {mins} minutes"),
    ("{c} failing in {r}", "is failing for customers in `{r}`"),
    ("Intermittent {c} errors", "is failing intermittently, for about {pct}% of requests"),
    ("{c} timeouts", "is timing out for a subset of requests"),
    ("Partial outage of {c}", "is partly unavailable"),
    ("{c} and {c2} degraded", "and {c2} are degraded"),
]

MAINTENANCE_TITLES = [
    "Scheduled maintenance of {c}",
    "{c} upgrade",
    "{c} maintenance in {r}",
    "Database migration for {c}",
    "Network maintenance in {r}",
]

CAUSES = [
    "a configuration change that was rolled out to every region at once",
    "a certificate on an internal load balancer that expired",
    "a database failover that left connections pinned to the old primary",
    "a deploy that introduced a memory leak in the {c} service",
    "an upstream network provider losing a transit link in {r}",
    "a noisy tenant that saturated a shared storage cluster",
    "a cache cluster that evicted keys faster than they could be used",
    "a queue consumer that stopped acknowledging messages after a restart",
    "a DNS record for an internal service that was removed by mistake",
    "a rate limiter that was set ten times lower than intended",
]

INVESTIGATING = [
    "We are investigating reports that {c} {symptom}.",
    "Some customers may see errors when using {c}. We are looking into it.",
    "Our monitoring shows that {c} {symptom}. Engineers are investigating.",
    "We are aware of issues with {c} and are working to find the cause.",
    "Requests to {c} in `{r}` are failing at an elevated rate. We are investigating.",
]
IDENTIFIED = [
    "We have identified the cause: {cause}. We are rolling back the change.",
    "The issue was caused by {cause}. A fix is being deployed.",
    "We found the problem in {cause}, and are working on mitigation.",
    "The cause is {cause}. We are moving traffic away from the affected hosts.",
]
UPDATE = [
    "Mitigation is in progress. About {pct}% of requests are succeeding again.",
    "We are still working on a fix. Retrying failed requests should work in most cases.",
    "The fix is rolling out region by region; `{r}` is done and the rest will follow.",
    "We continue to work on this issue. The next update will come within {mins} minutes.",
    "Customers in `{r}` should see improvement now. Other regions are still affected.",
]
MONITORING = [
    "A fix has been deployed and error rates are back to normal. We are monitoring the results.",
    "{c} has recovered. We are watching it closely to make sure the problem does not return.",
    "The rollback is complete and latency is back to its usual level. We are monitoring.",
    "Requests that failed during the incident can be retried now. We are monitoring.",
]
RESOLVED = [
    "This incident has been resolved.",
    "{c} is operating normally. This incident is resolved.",
    "All systems are working as expected. We apologise for the disruption.",
    "The issue is resolved. Any delayed work has been processed.",
]
SCHEDULED = [
    "We will perform maintenance on {c} on **{date}, between {start} and {end} UTC**.",
    "Scheduled maintenance of {c} in `{r}` will take place on {date} from {start} to {end} UTC.",
]
IN_PROGRESS = [
    "The maintenance has started.",
    "Maintenance is in progress. {c} may be briefly unavailable.",
    "The first half of the work is done; the migration continues as planned.",
]
VERIFYING = [
    "The work is done. We are verifying that {c} behaves as expected.",
    "Everything is on the new version; we are checking error rates and latency.",
]
COMPLETED = [
    "The maintenance is complete.",
    "The scheduled maintenance has been completed. {c} is fully available.",
]
EXTRA_SENTENCES = [
    "Customers do not need to take any action.",
    "No data has been lost.",
    "Requests made through the [REST API](https://docs.{domain}/api) are affected as well.",
    "You can follow along on our [status page]({status}).",
    "Some customers may need to **retry** failed operations.",
    "Webhook deliveries from this period will be retried automatically.",
    "We will share a postmortem once our investigation is complete.",
    "If you see `{code}` responses, back off and retry with exponential delays.",
    "Data in the dashboard may lag behind by a few minutes until the backlog clears.",
    "Our support team is answering tickets about this incident.",
]
LISTS = [
    ["Existing {c} sessions keep working.", "New requests may fail or time out.",
     "Retries succeed after a short delay."],
    ["`{r}` is the most affected region.", "Other regions see elevated latency only."],
    ["**Affected:** {c}", "**Not affected:** {c2}", "**Workaround:** retry the request"],
]
CODE_BLOCKS = [
    "```\nError: {code} upstream connect error or disconnect/reset before headers\n```",
    "```sh\ncurl -sS https://api.{domain}/v1/health\n```",
    "```\nconnection refused: dial tcp 10.0.{n}.12:5432\n```",
]

# ---------------------------------------------------------------------------


def yaml_str(text):
    """A YAML scalar: plain when safe, else double-quoted (JSON escapes are valid YAML)."""
    if re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9 ().\-/]*[A-Za-z0-9).]|[A-Za-z0-9]", text) and not re.search(
        r"\s#|^(true|false|yes|no|null|on|off)$", text, re.I
    ):
        return text
    return json.dumps(text, ensure_ascii=False)


def yaml_flow_list(items):
    return "[" + ", ".join(yaml_str(i) for i in items) + "]"


def slugify(text):
    return re.sub(r"-+", "-", re.sub(r"[^a-z0-9]+", "-", text.lower())).strip("-")


def fmt_time(t):
    return t.strftime("%Y-%m-%d %H:%M UTC")


def fmt_rfc3339(t):
    return t.strftime("%Y-%m-%dT%H:%M:00Z")


def fmt_duration(minutes):
    days, rest = divmod(minutes, 1440)
    hours, mins = divmod(rest, 60)
    parts = []
    if days:
        parts.append(f"{days}d")
    if hours:
        parts.append(f"{hours}h")
    if mins:
        parts.append(f"{mins}m")
    return " ".join(parts) or "0m"


class Gen:
    def __init__(self, seed, n_providers):
        self.rng = random.Random(seed)
        self.providers = self.make_providers(n_providers)

    # -- providers ---------------------------------------------------------

    def make_providers(self, count):
        rng = self.rng
        kinds = sorted(KINDS)
        providers = []
        used = set()
        i = 0
        while len(providers) < count:
            prefix = PREFIXES[i % len(PREFIXES)]
            kind = kinds[(i * 7 + i // len(PREFIXES)) % len(kinds)]
            suffixes, desc, components, regions = KINDS[kind]
            suffix = suffixes[(i // len(PREFIXES)) % len(suffixes)]
            name = f"{prefix} {suffix}"
            if i >= len(PREFIXES) * len(suffixes):
                name += f" {i // (len(PREFIXES) * len(suffixes)) + 1}"
            slug = slugify(name)
            i += 1
            if slug in used:
                continue
            used.add(slug)
            domain = slug.replace("-", "") + ".example"
            providers.append({
                "slug": slug,
                "name": name,
                "kind": kind,
                "domain": domain,
                "url": f"https://{domain}",
                "status": f"https://status.{domain}",
                "description": desc.format(n=rng.randint(5, 400)),
                "components": components,
                "regions": regions,
                # Zipf-like weight: a few big providers, a long tail.
                "weight": 1.0 / (1 + (len(providers) % 13)) + rng.random() * 0.2,
                "prefix": "".join(w[0] for w in name.split()).upper(),
                "slugs": set(),
                "aliases": 0,
            })
        return providers

    def provider_index(self, p):
        lines = [
            "---",
            f"name: {yaml_str(p['name'])}",
            f"url: {p['url']}",
            f"status_page: {p['status']}",
            f"description: {yaml_str(p['description'])}",
            "---",
            "",
        ]
        return "\n".join(lines)

    # -- text --------------------------------------------------------------

    def fill(self, template, ctx):
        rng = self.rng
        return template.format(
            c=ctx["c"], c2=ctx["c2"], r=ctx["r"], cause=ctx["cause"], symptom=ctx["symptom"],
            code=rng.choice(["500", "502", "503", "504", "429"]),
            secs=rng.randint(2, 30), mins=rng.choice([15, 30, 45, 60, 90]),
            pct=rng.randint(20, 95), domain=ctx["p"]["domain"], status=ctx["p"]["status"],
            n=rng.randint(0, 255), date=ctx.get("date", ""), start=ctx.get("start", ""),
            end=ctx.get("end", ""),
        )

    def update_text(self, pool, ctx, sentences):
        rng = self.rng
        parts = [self.fill(rng.choice(pool), ctx)]
        parts += [self.fill(x, ctx) for x in rng.sample(EXTRA_SENTENCES, sentences - 1)]
        text = " ".join(parts)
        roll = rng.random()
        if roll < 0.10:
            items = [self.fill(x, ctx) for x in rng.choice(LISTS)]
            text += "\n\n" + "\n".join(f"- {x}" for x in items)
        elif roll < 0.14:
            text += "\n\n" + self.fill(rng.choice(CODE_BLOCKS), ctx)
        return text

    def postmortem(self, ctx, started, resolved, down_guide):
        rng = self.rng
        b = (lambda s: f"\\*\\*{s}\\*\\*") if down_guide else (lambda s: s)
        paren = (lambda s: f"\\\\({s}\\\\)") if down_guide else (lambda s: f"({s})")
        minutes = int((resolved - started).total_seconds() // 60)
        lines = [f"## {b('Summary')}"]
        lines.append(
            f"On {started.strftime('%B %-d, %Y')}, {ctx['c']} was degraded for {fmt_duration(minutes)} "
            f"{paren(started.strftime('%H:%M') + ' to ' + resolved.strftime('%H:%M') + ' UTC')}. "
            f"At the worst point, {rng.randint(10, 99)}% of requests failed."
        )
        lines.append("")
        lines.append(f"## {b('Timeline')}")
        steps = sorted(rng.sample(range(0, max(minutes, 6)), min(5, max(minutes, 6))))
        events = ["the change is applied", "alerts fire", "incident declared",
                  "cause identified", "fix deployed", "error rates back to normal"]
        for k, step in enumerate(steps):
            at = started + dt.timedelta(minutes=step)
            stamp = b(at.strftime('%H:%M') + " UTC")
            if not down_guide:
                stamp = f"**{stamp}**"
            item = f"{stamp}: {events[k % len(events)]}."
            lines.append(item if down_guide else f"- {item}")
        lines.append("")
        lines.append(f"## {b('Root cause')}")
        lines.append(
            f"The incident was caused by {ctx['cause']}. "
            f"{self.fill(rng.choice(EXTRA_SENTENCES), ctx)} "
            "Our alerting caught the symptom, but not the change that led to it."
        )
        lines.append("")
        lines.append(f"## {b('Action items')}")
        actions = [
            "Roll out configuration changes one region at a time.",
            "Alert on the cause, not only on error rates.",
            "Add a load test for this failure mode to the release checklist.",
            "Shorten the time to roll back a deploy to under five minutes.",
            f"Give {ctx['c']} its own capacity limits.",
        ]
        for a in rng.sample(actions, rng.randint(2, 4)):
            lines.append(a if down_guide else f"- {a}")
        return "\n".join(lines)

    # -- incidents ---------------------------------------------------------

    def incident(self, p, started, seq):
        rng = self.rng
        roll = rng.random()
        maintenance = roll < 0.05
        ongoing = not maintenance and roll < 0.06
        down_guide = not ongoing and rng.random() < 0.15
        postmortem = not maintenance and not ongoing and rng.random() < 0.10 / 0.94

        comps = rng.sample(p["components"], rng.choice([1, 1, 1, 2, 2, 3, 4]))
        c = comps[0]
        c2 = comps[1] if len(comps) > 1 else rng.choice([x for x in p["components"] if x != c])
        region = rng.choice(p["regions"])
        regions = [region] if rng.random() < 0.8 else sorted(set([region, rng.choice(p["regions"])]))
        ctx = {
            "p": p, "c": c, "c2": c2, "r": region,
            "cause": "", "symptom": "",
        }
        ctx["cause"] = rng.choice(CAUSES).format(c=c, r=region)

        if maintenance:
            title = rng.choice(MAINTENANCE_TITLES).format(c=c, r=region)
            impact = rng.choice(["maintenance", "maintenance", "Under maintenance"])
        else:
            tmpl, symptom = rng.choice(PROBLEMS)
            title = tmpl.format(c=c, c2=c2, r=region)
            ctx["symptom"] = symptom.format(
                code=rng.choice(["500", "502", "503"]), secs=rng.randint(2, 30),
                mins=rng.choice([15, 30, 45, 90]), r=region, pct=rng.randint(5, 60), c2=c2)
            impact = rng.choice(["minor", "minor", "major", "major", "critical", "none",
                                 "Major outage", "Partial outage", "Degraded performance"])

        # Durations: log-normal around ~1h, from 10 minutes to 3 days.
        n_updates = rng.randint(3, 8)
        duration = int(min(4320, max(10 + n_updates * 2, rng.lognormvariate(4.1, 1.0))))
        resolved = None if ongoing else started + dt.timedelta(minutes=duration)

        # Update times, strictly ascending.
        updates = []
        if maintenance:
            ctx["date"] = started.strftime("%B %-d")
            ctx["start"] = started.strftime("%H:%M")
            ctx["end"] = resolved.strftime("%H:%M")
            announce = started - dt.timedelta(days=rng.randint(2, 10), minutes=rng.randint(0, 600))
            updates.append((announce, "scheduled", SCHEDULED))
            statuses = [("in progress", IN_PROGRESS)] * max(1, n_updates - 3) + [("verifying", VERIFYING)]
            times = self.spread(started, resolved, len(statuses))
            updates += [(t, s, pool) for t, (s, pool) in zip(times, statuses)]
            updates.append((resolved, "completed", COMPLETED))
        else:
            end = resolved or started + dt.timedelta(minutes=duration)
            statuses = [("investigating", INVESTIGATING)]
            middle = n_updates - (2 if ongoing else 3)
            if middle > 0:
                statuses.append(("identified", IDENTIFIED))
                statuses += [(rng.choice(["update", "update", "identified"]), UPDATE) for _ in range(middle - 1)]
            if not ongoing:
                statuses.append(("monitoring", MONITORING))
            else:
                statuses.append(("update", UPDATE))
            times = [started] + self.spread(started, end, len(statuses) - 1)
            updates = [(t, s, pool) for t, (s, pool) in zip(times, statuses)]
            if not ongoing:
                updates.append((resolved, "resolved", RESOLVED))

        body_updates = []
        for t, status, pool in updates:
            body_updates.append((t, status, self.update_text(pool, ctx, rng.choice([1, 1, 2, 2, 3, 4]))))
        if postmortem:
            pm_time = resolved + dt.timedelta(days=rng.randint(1, 14), minutes=rng.randint(0, 1440))
            body_updates.append((pm_time, "postmortem", self.postmortem(ctx, started, resolved, down_guide)))

        # Slug: the file stem, unique within the provider.
        stem = f"{started.strftime('%Y-%m-%d')}-{slugify(title)}"
        base, k = stem, 2
        while stem in p["slugs"]:
            stem = f"{base}-{k}"
            k += 1
        p["slugs"].add(stem)

        if down_guide:
            text = self.down_guide(p, title, impact, started, duration, comps, regions, body_updates, seq)
        else:
            text = self.canonical(p, title, impact, started, resolved, duration, comps, regions,
                                  body_updates, seq, stem, ctx)
        return stem, text

    def spread(self, start, end, count):
        """`count` strictly ascending minute times in (start, end)."""
        span = int((end - start).total_seconds() // 60)
        if count <= 0:
            return []
        points = sorted(self.rng.sample(range(1, span), count))
        return [start + dt.timedelta(minutes=m) for m in points]

    def canonical(self, p, title, impact, started, resolved, duration, comps, regions, updates,
                  seq, stem, ctx):
        rng = self.rng
        fm = ["---", f"title: {yaml_str(title)}"]
        roll = rng.random()
        if roll < 0.5:
            fm.append(f"provider: {p['slug']}")
        elif roll < 0.8:
            fm.append(f"provider: {yaml_str(p['name'])}")
        # else: omitted, the folder names it
        if rng.random() < 0.5:
            fm.append(f"started: {fmt_rfc3339(started)}")
        else:
            fm.append(f"started: {fmt_time(started)}")
        if resolved is not None:
            if rng.random() < 0.6:
                fm.append(f"resolved: {fmt_rfc3339(resolved)}")
            else:
                fm.append(f"duration: {fmt_duration(duration)}")
        fm.append(f"impact: {yaml_str(impact)}")
        if rng.random() < 0.3:
            fm.append(f"level: {rng.choice(['confirmed', 'confirmed', 'suspected'])}")
        if rng.random() < 0.7:
            fm.append(f"components: {yaml_flow_list(comps)}")
        else:
            fm.append("components:")
            fm += [f"  - {yaml_str(x)}" for x in comps]
        fm.append(f"regions: {yaml_flow_list(regions)}")
        if rng.random() < 0.7:
            fm.append(f"id: {p['prefix']}-{started.strftime('%Y%m%d')}-{seq:05d}")
        if rng.random() < 0.8:
            fm.append(f"official_url: {p['status']}/incidents/{rng.getrandbits(48):012x}")
        if rng.random() < 0.03:
            slug = f"{stem}-x{seq}"
            p["slugs"].add(slug)
            fm.append(f"slug: {slug}")
        if rng.random() < 0.03:
            p["aliases"] += 1
            fm.append(f"aliases: [/{p['slug']}/legacy/{p['aliases']}/]")
        roll = rng.random()
        if roll < 0.01:
            fm.append("draft: true")
        elif roll < 0.06:
            fm.append("draft: false")
        if rng.random() < 0.15:
            fm.append(f"source: {{kind: statuspage, id: {rng.getrandbits(48):012x}}}")
        if rng.random() < 0.05:
            fm.append(f"extra: {{team: {rng.choice(['payments', 'platform', 'web', 'data'])}, "
                      f"ticket: OPS-{rng.randint(100, 9999)}}}")
        fm.append("---")
        body = []
        if rng.random() < 0.2:
            body.append(self.update_text(EXTRA_SENTENCES, ctx, rng.randint(1, 3)))
            body.append("")
        body.append("## Updates")
        for t, status, text in updates:
            body.append(f"### {fmt_time(t)}: {status}")
            body.append(text)
            body.append("")
        return "\n".join(fm + body)

    def down_guide(self, p, title, impact, started, duration, comps, regions, updates, seq):
        rng = self.rng
        labels = {"none": "No impact", "minor": "Degraded performance", "major": "Partial outage",
                  "critical": "Major outage", "maintenance": "Under maintenance"}
        impact = labels.get(impact, impact)
        named = comps
        more = 0
        if len(comps) > 1 and rng.random() < 0.3:
            more = rng.randint(1, 3)
            named = comps[:-1] if len(comps) > 2 else comps
        comp_line = ", ".join(named) + (f" +{more}" if more else "")
        lines = [
            f"# {title}",
            "",
            f"- Provider: [{p['name']}](https://down.guide/{p['slug']})",
            f"- Level: {rng.choice(['confirmed', 'confirmed', 'suspected'])}",
            f"- Impact: {impact}",
            f"- lasted {fmt_duration(duration)}",
            f"- started {fmt_time(started)}",
            f"- {comp_line}",
            f"- {', '.join(regions)}",
            f"- id: DWN-{rng.getrandbits(40):010x}",
            f"- Official page: https://stspg.io/{rng.getrandbits(48):012x}",
            "",
            f"## Updates from {p['name']}",
        ]
        for t, status, text in updates:
            lines.append(f"### {fmt_time(t)}: {status}")
            lines.append(text)
            lines.append("")
        lines.append("---")
        lines.append(
            "down.guide reads providers' official status pages every minute and adds its own "
            "evidence, always labeled. Free, no account. Agents: MCP at https://down.guide/mcp, "
            "REST at https://down.guide/api/v1, feeds at https://down.guide/feed."
        )
        return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir")
    ap.add_argument("--incidents", type=int, default=10000)
    ap.add_argument("--providers", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    if args.incidents < 0 or args.providers < 1:
        ap.error("--incidents must be >= 0 and --providers >= 1")

    gen = Gen(args.seed, args.providers)
    rng = gen.rng
    content = os.path.join(args.dir, "content")
    if os.path.exists(content):
        shutil.rmtree(content)
    os.makedirs(content)
    for p in gen.providers:
        os.makedirs(os.path.join(content, p["slug"]))
        with open(os.path.join(content, p["slug"], "_index.md"), "w", encoding="utf-8") as f:
            f.write(gen.provider_index(p))

    first = dt.datetime(2016, 1, 1)
    span_minutes = int((dt.datetime(2026, 12, 31) - first).total_seconds() // 60)
    weights = [p["weight"] for p in gen.providers]
    total_bytes = 0
    for seq in range(args.incidents):
        p = rng.choices(gen.providers, weights)[0]
        started = first + dt.timedelta(minutes=rng.randrange(span_minutes))
        stem, text = gen.incident(p, started, seq)
        data = text.encode("utf-8")
        total_bytes += len(data)
        with open(os.path.join(content, p["slug"], stem + ".md"), "wb") as f:
            f.write(data)
    print(f"wrote {args.incidents} incidents from {len(gen.providers)} providers "
          f"({total_bytes / 1e6:.1f} MB) into {content}", file=sys.stderr)


if __name__ == "__main__":
    main()
