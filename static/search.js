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
// The button that searches more years, in a paragraph hidden while there are none.
const older = document.getElementById("search-older");

// The facets, in the order they are offered: filter name, label, "any" option.
const FACETS = [
  ["provider", "Provider", "All providers"],
  ["impact", "Impact", "Any impact"],
  ["year", "Year", "Any year"],
  ["component", "Component", "Any component"],
  ["region", "Region", "Any region"],
];
const IMPACTS = ["critical", "major", "minor", "maintenance", "none"];
// The impacts' labels worst first, as the pages list them: the page gives the order.
const IMPACT_ORDER = (form.dataset.impacts ?? "").split("|");
const PAGE = 20;
// Counts as the pages write them: 10,088.
const number = new Intl.NumberFormat("en-US");

// The query from the URL, at once: what is typed while the index loads is kept.
const params = new URLSearchParams(location.search);
query.value = params.get("q") ?? "";
form.elements.sort.value = params.get("sort") ?? "";

// The index is in shards, newest first, listed in `pagefind/shards.json` with every facet's
// totals. Pagefind's script opens the bundle of the shards' words (`pagefind/words/`), which
// says which shards can match a search; only those are loaded, each merged in under a
// `shard` filter of its own, so that Pagefind ranks them as one index and one of them can
// still be asked alone.
let pagefind;
let shards;
let sizes;
let reach;
let all;
try {
  const listed = await fetch(form.dataset.index + "shards.json");
  if (!listed.ok) throw new Error(`${listed.status} fetching the index's list of shards`);
  const manifest = await listed.json();
  shards = manifest.shards.map((shard) => shard.name);
  sizes = new Map(manifest.shards.map((shard) => [shard.name, shard.incidents]));
  reach = manifest.reach;
  all = manifest.filters;
  if (shards.length > 0) {
    pagefind = await import(form.dataset.index + "words/pagefind.js");
    await pagefind.options({ excerptLength: 24 });
    pagefind.init();
  }
} catch (error) {
  status.textContent = "Search could not load its index. Try again later, or browse the incident archive.";
  throw error;
}

// The shards that can hold what `words` finds (every shard for a search by facets alone).
async function within(words) {
  if (!words || shards.length === 0) return shards;
  const found = await pagefind.search(words, { filters: { covers: { any: shards } } });
  const counts = found?.filters?.covers ?? {};
  return shards.filter((shard) => counts[shard] > 0);
}

// The year a shard is of: `2024` of `2024-2`.
const yearOf = (shard) => shard.split("-")[0];

// The shards a search reads, of those in `scope` (in time order, from the end it reads
// first): all of them when they hold at most `reach.whole` incidents together; beyond,
// the first `batches` batches of them, each whole shards of about `reach.first`
// incidents (one batch, then one more each time the reader asks for more years). A first
// search of a common word then downloads about as much in an archive of a million
// incidents as in one of ten thousand.
function span(scope, batches) {
  const total = scope.reduce((sum, shard) => sum + sizes.get(shard), 0);
  if (total <= reach.whole) return scope;
  let end = 0;
  for (let batch = 0; batch < batches && end < scope.length; batch++) {
    let held = 0;
    do held += sizes.get(scope[end++]);
    while (end < scope.length && held < reach.first);
  }
  return scope.slice(0, end);
}

const merged = new Set();
async function load(names) {
  const fresh = names.filter((name) => !merged.has(name));
  if (fresh.length === 0) return;
  for (const name of fresh) merged.add(name);
  await Promise.all(
    fresh.map((shard) => pagefind.mergeIndex(`${form.dataset.index}${shard}/`, { mergeFilter: { shard } })),
  );
  // Every facet's values in the shards now merged, for the counts of the next searches.
  await pagefind.filters();
}

// A search over the shards in `scope`, with the facets chosen.
function find(words, filters, scope, sort) {
  if (scope.length === 0) return { results: [], filters: {} };
  return pagefind.search(words || null, { filters: { ...filters, shard: { any: scope } }, sort });
}

// Each facet: its select, its label and every value it has in the index, in order.
const facets = new Map();
const selects = new Map();
for (const [name, label, any] of FACETS) {
  const values = ordered(name, Object.keys(all[name] ?? {}));
  if (values.length === 0) continue;
  const wrap = document.createElement("label");
  wrap.append(label + " ");
  const select = document.createElement("select");
  select.name = name;
  select.append(new Option(any, ""));
  for (const value of values) select.append(new Option(value, value));
  wrap.append(select);
  facets.set(name, { select, label: wrap, values, any });
  selects.set(name, select);
}
options.prepend(...[...facets.values()].map((facet) => facet.label));
options.hidden = false;

for (const [name, select] of selects) {
  const wanted = params.get(name);
  if (wanted && [...select.options].some((o) => o.value === wanted)) select.value = wanted;
}
offer(all);

// Years newest first; impacts worst first; the rest as a reader looks a name up (case
// aside, numbers by value), then as written, so the order is always the same.
function ordered(name, values) {
  if (name === "year") return values.sort((a, b) => b.localeCompare(a));
  if (name === "impact") {
    const rank = (value) => {
      const at = IMPACT_ORDER.indexOf(value);
      return at < 0 ? IMPACT_ORDER.length : at;
    };
    return values.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  }
  const words = (a, b) => a.localeCompare(b, "en", { numeric: true, sensitivity: "base" });
  return values.sort((a, b) => words(a, b) || (a < b ? -1 : a > b ? 1 : 0));
}

// The results: a function giving the first n of them.
let shown = async () => [];
let total = 0;
let generation = 0;
// How many batches of shards the reader asked to search these words in (see `span`).
let depth = 1;
let asked = null;

async function run(wider = false) {
  const mine = ++generation;
  const words = query.value.trim();
  const filters = {};
  for (const [name, select] of selects) if (select.value) filters[name] = select.value;
  const order = form.elements.sort.value;
  keepInUrl(words, filters, order);
  depth = wider ? depth + 1 : words === asked ? depth : 1;
  asked = words;
  if (!words && Object.keys(filters).length === 0) {
    older.parentElement.hidden = true;
    show(mine, async () => [], 0, "");
    offer(all);
    return;
  }
  const possible = await within(words);
  // A year's shards are known by name: a search in one year reads no other.
  const scope = filters.year ? possible.filter((shard) => yearOf(shard) === filters.year) : possible;
  // Oldest first reads from the oldest end.
  const picked = new Set(span(order === "oldest" ? [...scope].reverse() : scope, depth));
  const searched = scope.filter((shard) => picked.has(shard));
  await load(searched);
  if (mine !== generation) return;
  const search = await find(words, filters, searched);
  if (mine !== generation || !search) return;
  const counts = await facetCounts(words, filters, searched, search.filters);
  if (mine !== generation) return;
  // Years with a shard that may match but was not read: offered without a count.
  const unread = new Set(possible.filter((shard) => !searched.includes(shard)).map(yearOf));
  offer(counts, unread);
  const n = search.results.length;
  const what = words ? ` for “${words}”` : "";
  const partial = searched.length < scope.length;
  const from = yearOf(searched[searched.length - 1] ?? "");
  const to = yearOf(searched[0] ?? "");
  const when = partial ? (from === to ? ` in ${to}` : ` from ${from} to ${to}`) : "";
  const found = n === 0 ? `No incident found${what}${when}` : `${number.format(n)} incident${n === 1 ? "" : "s"} found${what}${when}`;
  const rest = order === "oldest" ? "newer" : "older";
  older.parentElement.hidden = !partial;
  older.textContent = `Search ${rest} years too`;
  show(mine, inOrder(words, filters, searched, search, order), n, partial ? `${found}; ${rest} years not searched yet.` : `${found}.`);
}

// The results in the order asked, as far as the reader goes. Pagefind ranks the shards'
// results together, by score; by date, each shard with results is asked alone, in time
// order (shards are spans of time, newest first), and sorts its own.
function inOrder(words, filters, scope, search, order) {
  if (!order) return async (n) => search.results.slice(0, n);
  const found = search.filters.shard ?? {};
  const queue = (order === "newest" ? scope : [...scope].reverse()).filter((shard) => found[shard] > 0);
  const sort = { start: order === "newest" ? "desc" : "asc" };
  const loaded = [];
  return async (n) => {
    while (loaded.length < n && queue.length > 0) {
      const one = await find(words, filters, [queue.shift()], sort);
      loaded.push(...(one?.results ?? []));
    }
    return loaded.slice(0, n);
  };
}

// How many results each value of each facet would give: with the words and the other
// facets' choices, not the facet's own (with its own, every other value of it counts 0).
// A provider's counts leave the component out too: components are a provider's own, and
// another provider is picked with a new one in mind.
async function facetCounts(words, filters, scope, found) {
  const counts = { ...found };
  const widened = new Set(Object.keys(filters));
  if (filters.component && selects.has("provider")) widened.add("provider");
  await Promise.all(
    [...widened].map(async (name) => {
      const others = { ...filters };
      delete others[name];
      if (name === "provider") delete others.component;
      const wider = words || Object.keys(others).length > 0
        ? (await find(words, others, scope))?.filters
        : all;
      counts[name] = wider?.[name] ?? {};
    }),
  );
  return counts;
}

function keepInUrl(words, filters, order) {
  const next = new URLSearchParams();
  if (words) next.set("q", words);
  for (const [name, value] of Object.entries(filters)) next.set(name, value);
  if (order) next.set("sort", order);
  const search = next.toString();
  history.replaceState(null, "", search ? "?" + search : location.pathname);
}

// Each facet offers the values that would find something, with how many (the chosen one
// always). Components are a provider's own: they are offered once a provider is chosen,
// and then only that provider's.
function offer(counts, unread = new Set()) {
  for (const [name, facet] of facets) {
    const chosen = facet.select.value;
    const shown = [new Option(facet.any, "")];
    for (const value of facet.values) {
      const count = counts?.[name]?.[value] ?? 0;
      if (name === "year" && unread.has(value)) shown.push(new Option(value, value));
      else if (count > 0 || value === chosen) shown.push(new Option(`${value} (${number.format(count)})`, value));
    }
    facet.select.replaceChildren(...shown);
    facet.select.value = chosen;
  }
  const component = facets.get("component");
  if (component) component.label.hidden = !selects.get("provider")?.value && !component.select.value;
}

async function show(mine, results, count, message) {
  status.textContent = message;
  list.replaceChildren();
  shown = results;
  total = count;
  await page(mine);
}

async function page(mine) {
  more.disabled = true;
  const from = list.children.length;
  const next = (await shown(from + PAGE)).slice(from);
  const data = await Promise.all(next.map((r) => r.data()));
  if (mine !== generation) return;
  for (const result of data) list.append(row(result));
  more.hidden = list.children.length >= total;
  more.disabled = false;
  return from;
}

function row(result) {
  const li = el("li", "incident-row");
  const meta = result.meta ?? {};
  const date = el("time", "", meta.date ?? "");
  if (/^\d{4}-\d{2}-\d{2}$/.test(meta.date)) date.dateTime = meta.date;
  li.append(date);
  const main = el("div");
  const link = el("a", "", meta.title ?? result.url);
  link.href = result.url;
  main.append(link);
  const facts = el("div");
  const key = IMPACTS.includes(meta.impact_key) ? meta.impact_key : "none";
  const impact = el("span", `impact impact-${key}`, meta.impact ?? "");
  facts.append(impact, el("span", "row-provider", meta.provider ?? ""));
  main.append(facts, excerpt(result.excerpt ?? ""));
  const duration = el("span", "", meta.duration ?? "");
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
options.addEventListener("change", (event) => {
  // Another provider's components are not this one's.
  if (event.target.name === "provider" && selects.has("component")) selects.get("component").value = "";
  run();
});
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
older.addEventListener("click", async () => {
  await run(true);
  // The button goes once every year is searched: the keyboard goes on from the results.
  if (older.parentElement.hidden) list.querySelector("a")?.focus();
});
run();
