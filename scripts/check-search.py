"""Search as a visitor uses it, in headless Chromium driven by Selenium.

    python3 scripts/check-search.py CHROMEDRIVER ROOT_DIR BASE_PATH
    python3 scripts/check-search.py --hostile CHROMEDRIVER ROOT_DIR

serves ROOT_DIR (a build whose site lives under BASE_PATH, `/` or `/outages/`) with the
Content-Security-Policy headers that the build's `_headers` gives each path, so a script the
policy forbids fails here as it would on a host. Then:

- types a word found only in one incident's postmortem into the header's box of the home
  page, lands on the search page with the word in its URL, sees only that incident's shard
  of the index loaded, and follows the one result to that incident;
- searches a common word, picks one provider in the facet, and sees fewer results, all of
  that provider, with the provider in the URL;
- opens a shared URL (query and filter in it) and gets the same results;
- shows 20 results, and 20 more on "Show more", with the keyboard focus on the first new one;
- orders them newest and oldest first across the index's shards (a year each);
- with the build's reach lowered to one shard at a time (as a search of a common word in a
  big archive reads), searches the newest year first and says so, adds the older years on
  "Search older years too" until the count is the whole one, and searches a chosen year
  alone;
- offers facets as a reader uses them: impacts worst first, in the page's order; no
  component until a provider is chosen, then only that provider's (every one its page
  lists, each finding something); another provider's choice clears the component; the
  status of a search by filters alone ends "found." with no space before the period.

With `--hostile`, over a site of one incident whose title and text are markup: `AT&T`
finds it (the index keeps text as it is), and its title shows as that text, no element made
of it. Prints one line and exits non-zero on any failure.
"""

import json
import sys
import urllib.parse

import browser

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.support.ui import Select, WebDriverWait

RARE = "normalisation"  # only in Edgewise's postmortem of 27 September 2024
RARE_INCIDENT = "edgewise-cdn/2024-09-27-global-edge-outage/"
RARE_SHARD = "2024"
COMMON = "investigating"


def main_hostile(chromedriver, root):
    server, site, driver, wait = start(chromedriver, root, "/")
    try:
        problems = hostile(driver, wait, site)
    finally:
        driver.quit()
        server.shutdown()
    report("hostile content", problems,
           "`AT&T` finds the incident, `amp` nothing, and its markup-laden title shows as text")


def report(what, problems, done):
    """Each problem on stderr and a failing exit, or the one line of what was checked."""
    for problem in problems:
        print(f"search ({what}): {problem}", file=sys.stderr)
    if problems:
        sys.exit(1)
    print(f"search in Chromium ({what}): {done}")


class Handler(browser.Handler):
    # How many incidents a search reads at once, in place of the build's (`shards.json`).
    reach = None

    def do_GET(self):
        path = urllib.parse.urlsplit(self.path).path
        if Handler.reach is None or not path.endswith("/pagefind/shards.json"):
            return super().do_GET()
        with open(self.translate_path(path), encoding="utf-8") as listed:
            manifest = json.load(listed)
        manifest["reach"] = Handler.reach
        body = json.dumps(manifest).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def end_headers(self):
        if self.path.endswith("/pagefind/shards.json"):
            # Never from the browser's cache: `reach` changes what it says.
            self.send_header("Cache-Control", "no-store")
        super().end_headers()


def start(chromedriver, root, base):
    return browser.start(chromedriver, root, base, Handler)


HOSTILE_TITLE = "<img src=x onerror=\"document.title='pwned'\"> AT&T <b>outage</b>"


def hostile(driver, wait, site):
    """A site of one hostile incident: found by `AT&T`, and shown as the text it is."""
    driver.get(f"{site}search/?q=AT%26T")
    wait.until(lambda d: "found" in d.find_element(By.ID, "search-status").text)
    rows = driver.find_elements(By.CSS_SELECTOR, "#search-results > li")
    problems = []
    if len(rows) != 1:
        problems.append(f"`AT&T` found {len(rows)} incidents, not the one")
    else:
        title = rows[0].find_element(By.CSS_SELECTOR, ".incident-row > div > a").text
        if title != HOSTILE_TITLE:
            problems.append(f"the title shows as {title!r}")
    made = driver.find_elements(By.CSS_SELECTOR, "#search-results img, #search-results script, #search-results b")
    if made or driver.title == "pwned":
        problems.append(f"content became markup: {len(made)} elements, title {driver.title!r}")
    # The text as it is, not escaped: `&` is no word `amp` of the index.
    driver.get(f"{site}search/?q=amp")
    wait.until(lambda d: "found" in d.find_element(By.ID, "search-status").text)
    if not driver.find_element(By.ID, "search-status").text.startswith("No incident"):
        problems.append("`amp` finds an incident: the index holds escaped text")
    return problems


def count(text):
    """A count as the page writes it: `1,204`."""
    return int(text.replace(",", ""))


def offered(driver, name):
    """The values a facet offers (its "any" option aside), and whether it shows."""
    select = driver.find_element(By.NAME, name)
    values = [o.get_attribute("value") for o in Select(select).options][1:]
    return values, select.is_displayed()


def facets(driver, wait, site):
    """Impacts in the page's order, components scoped to the chosen provider."""
    problems = []
    driver.get(f"{site}edgewise-cdn/")
    listed = {a.text.strip().lower() for a in driver.find_elements(By.CSS_SELECTOR, ".component-chips a")}
    driver.get(f"{site}search/?provider=Edgewise+CDN")
    wait.until(lambda d: "found" in d.find_element(By.ID, "search-status").text)
    status = driver.find_element(By.ID, "search-status").text
    if not status.endswith(" found."):
        problems.append(f"a search by filters alone says {status!r}")
    order = driver.find_element(By.ID, "search").get_attribute("data-impacts").split("|")
    impacts, _ = offered(driver, "impact")
    if not impacts or impacts != [i for i in order if i in impacts]:
        problems.append(f"impacts offered as {impacts}, not in the order {order}")
    components, shown = offered(driver, "component")
    counts = [o.text for o in Select(driver.find_element(By.NAME, "component")).options][1:]
    if not shown or {c.lower() for c in components} != listed:
        problems.append(f"Edgewise CDN's components offered: {components} (shown: {shown}), "
                        f"its page lists {sorted(listed)}")
    if any(text.endswith("(0)") for text in counts):
        problems.append(f"a component that finds nothing is offered: {counts}")
    # Another provider: its own components, and none chosen.
    Select(driver.find_element(By.NAME, "component")).select_by_index(1)
    wait.until(lambda d: "component=" in d.current_url)
    Select(driver.find_element(By.NAME, "provider")).select_by_value("Forgehub")
    wait.until(lambda d: "provider=Forgehub" in d.current_url)
    if "component=" in driver.current_url:
        problems.append(f"choosing another provider kept the component: {driver.current_url}")
    # With no provider, no component to pick from every provider's.
    driver.get(f"{site}search/?q={COMMON}")
    wait.until(lambda d: COMMON in d.find_element(By.ID, "search-status").text)
    _, shown = offered(driver, "component")
    if shown:
        problems.append("components are offered before a provider is chosen")
    return problems


def by_date(driver, wait, site, many):
    """`the` newest first and oldest first: every result once, in order across shards."""
    problems = []
    for order, newest in [("newest", True), ("oldest", False)]:
        driver.get(f"{site}search/?q=the&sort={order}")
        wait.until(lambda d: "the" in d.find_element(By.ID, "search-status").text)
        while True:
            more = driver.find_element(By.ID, "search-more")
            shown = len(driver.find_elements(By.CSS_SELECTOR, "#search-results > li"))
            if shown >= many or not more.is_displayed():
                break
            more.click()
            wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#search-results > li")) > shown)
        dates = [t.get_attribute("datetime") for t in driver.find_elements(By.CSS_SELECTOR, "#search-results .incident-row > time")]
        years = {date[:4] for date in dates}
        if len(dates) != many or dates != sorted(dates, reverse=newest) or len(years) < 2:
            problems.append(f"`the`, {order} first: {len(dates)} of {many} results, "
                            f"dates {dates[:3]}…{dates[-3:]} over {len(years)} years")
    return problems


def shards_read(base):
    """The shards whose index was fetched, by name."""
    index = base + "pagefind/"
    return {path[len(index):].split("/")[0] for path in Handler.asked
            if path.startswith(index) and path[len(index):][:1].isdigit()}


def by_reach(driver, wait, site, base, many):
    """A search that reads a shard at a time, as one of a big archive does: the newest
    year first, said so, older years on request until the count is the whole one, a
    chosen year alone and whole, and the oldest year first for oldest first."""
    problems = []
    Handler.reach = {"whole": 1, "first": 1}
    try:
        Handler.asked.clear()
        driver.get(f"{site}search/?q=the")
        wait.until(lambda d: "not searched yet" in d.find_element(By.ID, "search-status").text)
        status = driver.find_element(By.ID, "search-status").text
        newest = shards_read(base)
        years = {t.get_attribute("datetime")[:4] for t in driver.find_elements(By.CSS_SELECTOR, "#search-results .incident-row > time")}
        if len(newest) != 1 or years != {next(iter(newest))} or f"in {next(iter(newest))}; older years" not in status:
            problems.append(f"a first search read {sorted(newest)} and shows {sorted(years)}: {status}")
        button = driver.find_element(By.ID, "search-older")
        clicks = 0
        while driver.find_element(By.ID, "search-older").is_displayed() and clicks < 20:
            before = driver.find_element(By.ID, "search-status").text
            button.click()
            clicks += 1
            wait.until(lambda d: d.find_element(By.ID, "search-status").text != before)
        status = driver.find_element(By.ID, "search-status").text
        read = shards_read(base)
        if "not searched" in status or count(status.split()[0]) != many or clicks != len(read) - 1:
            problems.append(f"after {clicks} widenings over {sorted(read)}: {status}, not {many} found")
        oldest = min(read)
        Handler.asked.clear()
        driver.get(f"{site}search/?q=the&year={oldest}")
        wait.until(lambda d: "found" in d.find_element(By.ID, "search-status").text)
        status = driver.find_element(By.ID, "search-status").text
        if shards_read(base) != {oldest} or "not searched" in status or driver.find_element(By.ID, "search-older").is_displayed():
            problems.append(f"the year {oldest} read {sorted(shards_read(base))}: {status}")
        # Oldest first starts at the other end.
        Handler.asked.clear()
        driver.get(f"{site}search/?q=the&sort=oldest")
        wait.until(lambda d: "found" in d.find_element(By.ID, "search-status").text)
        status = driver.find_element(By.ID, "search-status").text
        if shards_read(base) != {oldest} or f"in {oldest}; newer years not searched yet" not in status:
            problems.append(f"oldest first read {sorted(shards_read(base))}: {status}")
    finally:
        Handler.reach = None
    return problems


def main():
    if sys.argv[1] == "--hostile":
        return main_hostile(*sys.argv[2:])
    chromedriver, root, base = sys.argv[1], sys.argv[2], sys.argv[3]
    server, site, driver, wait = start(chromedriver, root, base)
    problems = []

    def results():
        status = driver.find_element(By.ID, "search-status").text
        rows = driver.find_elements(By.CSS_SELECTOR, "#search-results > li")
        return status, rows

    def settled(words):
        # The status names the query once the results for it are shown.
        wait.until(lambda d: words in d.find_element(By.ID, "search-status").text)

    try:
        # 1. The header's box, from the home page, to the incident, loading the one shard
        # that holds the word.
        driver.get(site)
        Handler.asked.clear()
        box = driver.find_element(By.CSS_SELECTOR, "header input[name=q]")
        box.send_keys(RARE, Keys.ENTER)
        wait.until(lambda d: "/search/" in d.current_url)
        if urllib.parse.parse_qs(urllib.parse.urlsplit(driver.current_url).query).get("q") != [RARE]:
            problems.append(f"the search page's URL lacks the query: {driver.current_url}")
        settled(RARE)
        status, rows = results()
        links = [r.find_element(By.CSS_SELECTOR, ".incident-row > div > a").get_attribute("href") for r in rows]
        if links != [site + RARE_INCIDENT]:
            problems.append(f"`{RARE}` found {links} ({status}), not only {site + RARE_INCIDENT}")
        loaded = shards_read(base)
        if loaded != {RARE_SHARD}:
            problems.append(f"`{RARE}` loaded the shards {sorted(loaded)}, not only {RARE_SHARD}")
        else:
            mark = rows[0].find_element(By.CSS_SELECTOR, ".excerpt mark").text
            if RARE not in mark.lower():
                problems.append(f"the excerpt marks `{mark}`, not the word found")
            rows[0].find_element(By.CSS_SELECTOR, ".incident-row > div > a").click()
            wait.until(lambda d: d.current_url == site + RARE_INCIDENT)
            if "Global outage" not in driver.find_element(By.TAG_NAME, "h1").text:
                problems.append("the result did not lead to the incident")

        # 2. A facet narrows the results.
        driver.get(f"{site}search/?q={COMMON}")
        settled(COMMON)
        _, every = results()
        total = count(driver.find_element(By.ID, "search-status").text.split()[0])
        # The facets may be drawn after the results (see step 3).
        wait.until(lambda d: any(
            o.get_attribute("value") == "Edgewise CDN"
            for select in d.find_elements(By.NAME, "provider")
            for o in Select(select).options
        ))
        provider = Select(driver.find_element(By.NAME, "provider"))
        choice = next(o for o in provider.options if o.get_attribute("value") == "Edgewise CDN")
        expected = count(choice.text.rsplit("(", 1)[1].rstrip(")"))
        provider.select_by_value("Edgewise CDN")
        wait.until(lambda d: "provider=Edgewise+CDN" in d.current_url)
        wait.until(lambda d: count(d.find_element(By.ID, "search-status").text.split()[0]) == expected)
        # The count comes first, the rows as their fragments load (in CI the check once
        # read none of the 3): wait for them.
        try:
            wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#search-results > li")) == min(expected, 20))
        except TimeoutException:
            pass
        _, narrowed = results()
        names = {r.find_element(By.CSS_SELECTOR, ".row-provider").text for r in narrowed}
        if not 0 < expected < total or names != {"Edgewise CDN"}:
            problems.append(f"the provider facet gave {expected} of {total}, from {names}")

        # 3. The URL is the search: opened afresh, the same results.
        shared = driver.current_url
        driver.get("about:blank")
        driver.get(shared)
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#search-results > li")) == len(narrowed))

        # The facets are drawn when Pagefind's filters arrive, which may be after the
        # results: wait for them, not just for the results.
        def restored(d):
            selects = d.find_elements(By.NAME, "provider")
            return bool(selects) and Select(selects[0]).first_selected_option.get_attribute("value") == "Edgewise CDN"

        try:
            wait.until(restored)
        except TimeoutException:
            problems.append("a shared URL does not restore its filter")

        # 4. Results come 20 at a time; "Show more" adds the next, and the keyboard goes on
        # from the first of them.
        driver.get(f"{site}search/?q=the")
        settled("the")
        # The count comes with the first answer; the rows as their fragments load (slowly
        # on a busy machine): wait for a page of them.
        try:
            wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#search-results > li")) >= 20)
        except TimeoutException:
            pass
        many = count(driver.find_element(By.ID, "search-status").text.split()[0])
        _, first_page = results()
        more = driver.find_element(By.ID, "search-more")
        if many <= 20 or len(first_page) != 20 or not more.is_displayed():
            problems.append(f"`the`: {many} results, {len(first_page)} shown, no way to more")
        else:
            more.click()
            wait.until(lambda d: len(results()[1]) == min(many, 40))
            focused = driver.switch_to.active_element.get_attribute("href")
            twenty_first = results()[1][20].find_element(By.CSS_SELECTOR, "a").get_attribute("href")
            if focused != twenty_first:
                problems.append(f"after Show more the focus is on {focused}, not {twenty_first}")

        # 5. Newest and oldest first: the index is in shards, one per year, and the order
        # runs across them, 20 at a time.
        problems.extend(by_date(driver, wait, site, many))

        # 6. The facets.
        problems.extend(facets(driver, wait, site))

        # 7. A common word in an archive too big to read at once.
        problems.extend(by_reach(driver, wait, site, base, many))

        errors = [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]
        if errors:
            problems.append(f"console errors: {errors}")
    finally:
        driver.quit()
        server.shutdown()

    report(f"{base}, CSP as _headers sets it", problems, "the header box finds the one "
          f"incident with `{RARE}`, loading its shard alone, and leads to it; the provider facet narrows {total} results to "
          f"{expected}; a shared URL restores them; Show more adds the next 20 of {many}; "
          "newest and oldest first run across years; impacts come worst first and components only "
          "for the chosen provider; read a shard at a time, a search starts at the newest year, "
          "says so, and reaches the whole count year by year")


if __name__ == "__main__":
    main()
