// The search page: reads the query, filters and order from the URL, asks Pagefind's index
// (loaded piece by piece from the site's `pagefind/`), shows the results and keeps the URL
// in step, so a search can be shared. The index holds the incidents' text as it is, from
// third-party status pages: it is only ever set as text here, never parsed as markup.

const form = document.getElementById("search");
const query = document.getElementById("search-query");
const options = document.getElementById("search-options");
const status = document.getElementById("search-status");
const list = document.getElementById("search-results");
const more = document.getElementById("search-more");

// The facets, in the order they are offered: filter name, label, "any" option.
const FACETS = [
  ["provider", "Provider", "All providers"],
  ["impact", "Impact", "Any impact"],
  ["year", "Year", "Any year"],
  ["component", "Component", "Any component"],
  ["region", "Region", "Any region"],
];
const IMPACTS = ["critical", "major", "minor", "maintenance", "none"];
const PAGE = 20;

// The query from the URL, at once: what is typed while the index loads is kept.
const params = new URLSearchParams(location.search);
query.value = params.get("q") ?? "";
form.elements.sort.value = params.get("sort") ?? "";

let pagefind;
try {
  pagefind = await import(form.dataset.index + "pagefind.js");
  await pagefind.options({ excerptLength: 24 });
  pagefind.init();
} catch (error) {
  status.textContent = "Search could not load its index. Try again later, or browse the incident archive.";
  throw error;
}

const selects = new Map();
const labels = [];
const all = await pagefind.filters();
for (const [name, label, any] of FACETS) {
  const values = Object.keys(all[name] ?? {});
  if (values.length === 0) continue;
  // Years newest first; the rest as words sort.
  values.sort(name === "year" ? (a, b) => b.localeCompare(a) : (a, b) => a.localeCompare(b));
  const wrap = document.createElement("label");
  wrap.append(label + " ");
  const select = document.createElement("select");
  select.name = name;
  select.append(new Option(any, ""));
  for (const value of values) select.append(new Option(value, value));
  wrap.append(select);
  labels.push(wrap);
  selects.set(name, select);
}
options.prepend(...labels);
options.hidden = false;

for (const [name, select] of selects) {
  const wanted = params.get(name);
  if (wanted && [...select.options].some((o) => o.value === wanted)) select.value = wanted;
}

let shown = [];
let generation = 0;

async function run() {
  const mine = ++generation;
  const words = query.value.trim();
  const filters = {};
  for (const [name, select] of selects) if (select.value) filters[name] = select.value;
  const order = form.elements.sort.value;
  keepInUrl(words, filters, order);
  if (!words && Object.keys(filters).length === 0) {
    show(mine, [], "");
    counts(all);
    return;
  }
  const sort = order === "newest" ? { start: "desc" } : order === "oldest" ? { start: "asc" } : undefined;
  const search = await pagefind.search(words || null, { filters, sort });
  if (mine !== generation || !search) return;
  counts(search.filters);
  const n = search.results.length;
  const what = words ? `for “${words}”` : "";
  show(mine, search.results, n === 0 ? `No incident found ${what}.` : `${n} incident${n === 1 ? "" : "s"} found ${what}.`);
}

function keepInUrl(words, filters, order) {
  const next = new URLSearchParams();
  if (words) next.set("q", words);
  for (const [name, value] of Object.entries(filters)) next.set(name, value);
  if (order) next.set("sort", order);
  const search = next.toString();
  history.replaceState(null, "", search ? "?" + search : location.pathname);
}

// Each option's count among the results (or the whole archive).
function counts(remaining) {
  for (const [name, select] of selects) {
    for (const option of select.options) {
      if (!option.value) continue;
      const count = remaining?.[name]?.[option.value] ?? 0;
      option.textContent = `${option.value} (${count})`;
    }
  }
}

async function show(mine, results, message) {
  status.textContent = message;
  list.replaceChildren();
  shown = results;
  await page(mine);
}

async function page(mine) {
  more.disabled = true;
  const from = list.children.length;
  const next = shown.slice(from, from + PAGE);
  const data = await Promise.all(next.map((r) => r.data()));
  if (mine !== generation) return;
  for (const result of data) list.append(row(result));
  more.hidden = list.children.length >= shown.length;
  more.disabled = false;
  return from;
}

function row(result) {
  const li = el("li", "incident-row");
  const meta = result.meta ?? {};
  const date = el("time", "row-date", meta.date ?? "");
  if (/^\d{4}-\d{2}-\d{2}$/.test(meta.date)) date.dateTime = meta.date;
  li.append(date);
  const main = el("div", "row-main");
  const link = el("a", "row-title", meta.title ?? result.url);
  link.href = result.url;
  main.append(link);
  const facts = el("div", "row-meta");
  const key = IMPACTS.includes(meta.impact_key) ? meta.impact_key : "none";
  const impact = el("span", `impact impact-${key}`);
  const dot = el("span", "impact-dot");
  dot.setAttribute("aria-hidden", "true");
  impact.append(dot, meta.impact ?? "");
  facts.append(impact, el("span", "row-provider", meta.provider ?? ""));
  main.append(facts, excerpt(result.excerpt ?? ""));
  const duration = el("div", "row-duration", meta.duration ?? "");
  if (meta.duration === "Ongoing") duration.replaceChildren(el("span", "ongoing-label", "Ongoing"));
  li.append(main, duration);
  return li;
}

// Pagefind's excerpt is the record's text with `<mark>` around the words found: rebuilt
// here from text nodes and marks, so nothing in the text can become markup.
function excerpt(html) {
  const p = el("p", "excerpt");
  const parts = html.split(/<mark>|<\/mark>/);
  parts.forEach((part, i) => {
    p.append(i % 2 === 1 ? el("mark", "", part) : part);
  });
  return p;
}


function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

let typing;
query.addEventListener("input", () => {
  clearTimeout(typing);
  typing = setTimeout(run, 200);
});
options.addEventListener("change", run);
form.addEventListener("submit", (event) => {
  event.preventDefault();
  clearTimeout(typing);
  run();
});
more.addEventListener("click", async () => {
  if (more.disabled) return;
  const from = await page(generation);
  // Keyboard users go on from the first new result, not from a button that may be gone.
  list.children[from]?.querySelector("a")?.focus();
});
run();
