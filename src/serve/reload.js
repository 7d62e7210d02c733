// outages serve: reloads the page after each rebuild; a stylesheet change swaps the CSS in place.
(() => {
  const events = new EventSource(document.currentScript.dataset.events);
  events.addEventListener("reload", () => location.reload());
  events.addEventListener("css", () => {
    for (const link of document.querySelectorAll('link[rel="stylesheet"]')) {
      const url = new URL(link.href);
      url.searchParams.set("outages-reload", Date.now());
      link.href = url.href;
    }
  });
})();
