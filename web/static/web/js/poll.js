/* Keeping a page current from the JSON API (/api/v1/): polling, fetching, and the
 * "updated at … / connection lost" line. */
import { T, fmt } from "./common.js";

export function liveState(ok) {
  var node = document.getElementById("live-state");
  if (!node) return;
  if (ok) {
    var now = new Date();
    node.textContent = fmt("updated", { time: now.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" }) });
    node.classList.remove("offline");
  } else {
    node.textContent = T.offline || "offline";
    node.classList.add("offline");
  }
}

/* Poll `url()` every `seconds`; with `etag`, send If-None-Match and skip 304s. Backs off on
 * errors and on 429 (Retry-After), and rests while the page is hidden. */
export function poll(url, options, onData) {
  var etag = options.etag || null;
  var base = (options.seconds || 5) * 1000;
  var delay = base;
  var timer = null;

  function schedule(ms) {
    clearTimeout(timer);
    // a little jitter, so a room full of phones does not poll in step
    timer = setTimeout(tick, ms + Math.random() * 0.2 * ms);
  }

  function tick() {
    if (document.hidden) { schedule(base); return; }
    var headers = { Accept: "application/json" };
    if (etag) headers["If-None-Match"] = etag;
    fetch(url(), { headers: headers, cache: "no-store", credentials: "same-origin" })
      .then(function (response) {
        if (response.status === 304) { delay = base; liveState(true); return null; }
        if (response.status === 429) {
          var wait = parseInt(response.headers.get("Retry-After") || "0", 10) * 1000;
          delay = Math.max(wait, Math.min(delay * 2, 60000));
          return null;
        }
        if (!response.ok) throw new Error("HTTP " + response.status);
        if (options.etag !== undefined) etag = response.headers.get("ETag");
        delay = base;
        return response.json().then(function (data) { liveState(true); onData(data); });
      })
      .catch(function () {
        liveState(false);
        delay = Math.min(delay * 2, 60000);
      })
      .then(function () { schedule(delay); });
  }

  schedule(options.first === undefined ? base : options.first);
  document.addEventListener("visibilitychange", function () {
    if (!document.hidden) schedule(200);
  });
}

export function getJSON(url) {
  return fetch(url, { headers: { Accept: "application/json" }, cache: "no-store",
                      credentials: "same-origin" })
    .then(function (r) { if (!r.ok) throw new Error("HTTP " + r.status); return r.json(); });
}

/* The newest round whose seating is public, in the rounds API's answer (0 if none). */
export function newestPublicRound(rounds) {
  var newest = 0;
  (rounds || []).forEach(function (r) {
    if ((r.status === "published" || r.status === "finished") && r.number > newest) {
      newest = r.number;
    }
  });
  return newest;
}
