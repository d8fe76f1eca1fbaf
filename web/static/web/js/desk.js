/* The referee desk keeps its list current: it re-fetches the list's fragment (the same
 * server-rendered markup, with an ETag so an unchanged desk is a 304) every few seconds and
 * swaps it in. Without JavaScript the Refresh button reloads the page. */
import { liveState } from "./poll.js";

var list = document.getElementById("desk-list");
if (list) {
  var url = list.dataset.fragment;
  var base = (parseInt(list.dataset.seconds, 10) || 10) * 1000;
  var delay = base;
  var etag = null;

  var tick = function () {
    if (document.hidden) { setTimeout(tick, base); return; }
    var headers = {};
    if (etag) headers["If-None-Match"] = etag;
    fetch(url, { headers: headers, cache: "no-store", credentials: "same-origin" })
      .then(function (response) {
        if (response.status === 304) { liveState(true); delay = base; return; }
        if (!response.ok) throw new Error("HTTP " + response.status);
        etag = response.headers.get("ETag");
        return response.text().then(function (html) {
          list.innerHTML = html;
          liveState(true);
          delay = base;
        });
      })
      .catch(function () { liveState(false); delay = Math.min(delay * 2, 60000); })
      .then(function () { setTimeout(tick, delay + Math.random() * 0.2 * delay); });
  };
  setTimeout(tick, base);
}
