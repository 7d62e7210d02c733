#!/usr/bin/env python3
"""Reads every Atom and RSS feed of a built site as feedparser (a real feed reader) does.
Fails on any feed feedparser finds malformed (bozo) and on any entry without id, title,
link or date. Prints one line with the counts."""
import pathlib
import sys

import feedparser

site = pathlib.Path(sys.argv[1])
feeds = sorted(p for p in site.rglob("*.xml") if p.name in ("feed.xml", "rss.xml"))
entries = 0
problems = []
for path in feeds:
    parsed = feedparser.parse(path.read_bytes())
    if parsed.bozo:
        problems.append(f"{path}: {parsed.bozo_exception}")
    if not parsed.feed.get("title") or not parsed.feed.get("link"):
        problems.append(f"{path}: feed without title or link")
    for entry in parsed.entries:
        entries += 1
        missing = [key for key in ("id", "title", "link") if not entry.get(key)]
        if not (entry.get("published_parsed") or entry.get("updated_parsed")):
            missing.append("date")
        if missing:
            problems.append(f"{path}: entry {entry.get('id', '?')} lacks {', '.join(missing)}")
for problem in problems:
    print(problem, file=sys.stderr)
print(f"feedparser: {len(feeds)} feeds, {entries} entries, {len(problems)} problems")
sys.exit(1 if problems else 0)
