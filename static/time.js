// Times in the reader's own zone. Every page writes its times in UTC (`2024-03-05 14:02 UTC`,
// with the instant in `datetime`), and reads the same without this script. With it, those
// times show in the browser's zone ("2024-03-05 23:02 GMT+9"), each with its UTC time as a
// tooltip, and a button in the footer goes back to UTC; the choice is remembered. Dates
// alone are left as they are: the archive's days are UTC days. Only text is set here.

const KEY = "outages-times";
const UTC_TEXT = /^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/;
const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
const times = [...document.querySelectorAll("time[datetime]")].filter((t) =>
  UTC_TEXT.test(t.textContent.trim()),
);

function remembered() {
  try {
    return localStorage.getItem(KEY) === "utc";
  } catch {
    return false; // storage refused: local, as by default
  }
}

function remember(utc) {
  try {
    if (utc) localStorage.setItem(KEY, "utc");
    else localStorage.removeItem(KEY);
  } catch {
    // Not remembered, but shown.
  }
}

// `2024-03-05 23:02 GMT+9` in the reader's zone.
const format = new Intl.DateTimeFormat("en-US", {
  timeZone: zone,
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
  hour: "2-digit",
  minute: "2-digit",
  hourCycle: "h23",
  timeZoneName: "short",
});

function local(date) {
  const part = Object.fromEntries(format.formatToParts(date).map((p) => [p.type, p.value]));
  return `${part.year}-${part.month}-${part.day} ${part.hour}:${part.minute} ${part.timeZoneName}`;
}

function show(utc) {
  for (const time of times) {
    time.dataset.utc ??= time.textContent;
    const date = new Date(time.getAttribute("datetime"));
    if (utc || Number.isNaN(date.getTime())) {
      time.textContent = time.dataset.utc;
      time.removeAttribute("title");
    } else {
      time.textContent = local(date);
      time.title = time.dataset.utc;
    }
  }
  note.textContent = utc ? "Times are in UTC. " : `Times are in your time zone, ${zone}. `;
  // The button says what it does; its label changes, so it is no toggle (`aria-pressed`).
  button.textContent = utc ? "Show my time zone" : "Show UTC";
  shownInUtc = utc;
}

// A reader in UTC, or a page with no time of day, has nothing to switch.
const inUtc = ["UTC", "Etc/UTC", "Etc/GMT", "GMT"].includes(zone);
const footer = document.querySelector(".site-footer .wrap");
const note = document.createElement("span");
const button = document.createElement("button");
let shownInUtc = false;
if (times.length > 0 && !inUtc && footer) {
  const line = document.createElement("p");
  line.className = "time-zone";
  button.type = "button";
  button.className = "time-toggle";
  button.addEventListener("click", () => {
    const utc = !shownInUtc;
    remember(utc);
    show(utc);
  });
  line.append(note, button);
  footer.prepend(line);
  show(remembered());
}
