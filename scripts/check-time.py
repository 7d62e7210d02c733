"""Times in the reader's zone, as a visitor in Tokyo sees them, in headless Chromium.

    python3 scripts/check-time.py CHROMEDRIVER ROOT_DIR BASE_PATH

serves ROOT_DIR (a build of the sample archive, its site under BASE_PATH) with the
Content-Security-Policy of its `_headers`, sets the browser's zone to Asia/Tokyo, and opens
an incident's page:

- a reader in UTC gets the page as built, with no button;
- in Tokyo, every time of day on it reads nine hours on, with its UTC time as a tooltip;
  dates alone stay as they are;
- the footer says the zone, and its button shows UTC again: the page as built;
- the choice outlives a reload, and the button brings Tokyo's times back.

Prints one line and exits non-zero on any failure.
"""

import datetime
import sys

from selenium.webdriver.common.by import By

import browser

INCIDENT = "edgewise-cdn/2024-09-27-global-edge-outage/"


class Stop(Exception):
    """A problem after which nothing more can be checked."""


def zone(driver, name):
    driver.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": name})


def times(driver):
    """Each time element's instant, text and tooltip."""
    return [(t.get_attribute("datetime"), t.text, t.get_attribute("title"))
            for t in driver.find_elements(By.CSS_SELECTOR, "main time[datetime]")]


def tokyo(instant):
    at = datetime.datetime.fromisoformat(instant.replace("Z", "+00:00"))
    return (at + datetime.timedelta(hours=9)).strftime("%Y-%m-%d %H:%M") + " GMT+9"


def utc(instant):
    at = datetime.datetime.fromisoformat(instant.replace("Z", "+00:00"))
    return at.strftime("%Y-%m-%d %H:%M") + " UTC"


def main():
    chromedriver, root, base = sys.argv[1:4]
    server, site, driver, wait = browser.start(chromedriver, root, base)
    problems = []
    try:
        # As built: what a reader in UTC sees, with no button to switch.
        zone(driver, "UTC")
        driver.get(site + INCIDENT)
        built = [(instant, text) for instant, text, _ in times(driver)]
        if driver.find_elements(By.CSS_SELECTOR, ".time-toggle"):
            problems.append("a reader in UTC is offered a button")
        of_day = [instant for instant, text in built if text == utc(instant)]
        if len(of_day) < 5 or len(of_day) == len(built):
            problems.append(f"{len(of_day)} times of day of {len(built)} times on {INCIDENT}")

        def shown(each):
            """Times of day as `each` writes them, dates as built."""
            return [(i, each(i) if i in of_day else text) for i, text in built]

        zone(driver, "Asia/Tokyo")
        driver.get(site + INCIDENT)
        seen = times(driver)
        if [(i, text) for i, text, _ in seen] != shown(tokyo):
            problems.append(f"in Tokyo the times read {seen}")
        tips = [title for i, _, title in seen if i in of_day]
        if tips != [utc(i) for i in of_day]:
            problems.append(f"the tooltips read {tips}")
        buttons = driver.find_elements(By.CSS_SELECTOR, ".site-footer .time-toggle")
        if not buttons:
            raise Stop("no button to show UTC in the footer")
        note = driver.find_element(By.CSS_SELECTOR, ".site-footer .time-zone").text
        if "Asia/Tokyo" not in note or buttons[0].text != "Show UTC":
            problems.append(f"the footer says {note!r}")
        buttons[0].click()
        if [(i, text) for i, text, _ in times(driver)] != built:
            problems.append("Show UTC does not restore the page as built")
        driver.refresh()
        if [(i, text) for i, text, _ in times(driver)] != built:
            problems.append("UTC is not remembered over a reload")
        driver.find_element(By.CSS_SELECTOR, ".time-toggle").click()
        if [(i, text) for i, text, _ in times(driver)] != shown(tokyo):
            problems.append("the button does not bring the reader's zone back")
        errors = [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]
        if errors:
            problems.append(f"console errors: {errors}")
    except Stop as stop:
        problems.append(str(stop))
    finally:
        driver.quit()
        server.shutdown()
    for problem in problems:
        print(f"local times: {problem}", file=sys.stderr)
    if problems:
        sys.exit(1)
    print(f"local times in Chromium ({base}, CSP as _headers sets it): {len(of_day)} times of day "
          f"of {len(built)} read in Tokyo's zone with UTC as their tooltip, dates as built; Show "
          "UTC restores the page, remembered over a reload; a reader in UTC sees it as built")


if __name__ == "__main__":
    main()
