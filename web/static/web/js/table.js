/* A table's page: its games and totals replaced from the table API as results arrive. */
import { LIVE, T, el } from "./common.js";
import { poll } from "./poll.js";

function tablePage() {
  var results = document.getElementById("results");
  if (!results || !LIVE.api) return;
  var tbody = results.tBodies[0];
  var last = null;
  poll(function () { return LIVE.api; }, { seconds: LIVE.interval }, function (data) {
    var key = JSON.stringify([data.results, data.live_game]);
    if (key === last) return;
    var firstLoad = last === null;
    last = key;
    var rows = document.createDocumentFragment();
    var totalA = 0;
    var totalB = 0;
    var played = 0;
    (data.results || []).forEach(function (r) {
      played = Math.max(played, r.number);
      var tr = el("tr", "status-" + r.status);
      tr.appendChild(el("td", "", r.number));
      var status = el("td");
      var confirmed = r.status === "confirmed";
      status.appendChild(el("span", "badge" + (confirmed ? " done" : ""),
        confirmed ? T.confirmed_status : (T[r.status] || T.submitted)));
      if (r.void) { status.appendChild(document.createTextNode(" ")); status.appendChild(el("span", "tag", T.void)); }
      tr.appendChild(status);
      tr.appendChild(el("td", "num", r.points_a));
      tr.appendChild(el("td", "num", r.points_b));
      var places = r.places || [];
      [1, 6].forEach(function (place) {  // 头科, 大落: whole names (CSS ends long ones in …)
        var name = LIVE.names[places.indexOf(place)] || "";
        var who = el("td", "who", name);
        if (name) who.title = name;
        tr.appendChild(who);
      });
      if (confirmed) { totalA += r.points_a; totalB += r.points_b; }
      if (!firstLoad) tr.classList.add("changed");
      rows.appendChild(tr);
    });
    var upTo = Math.max(LIVE.games_per_match, data.live_game || 0);
    for (var n = played + 1; n <= upTo; n++) {
      var live = n === data.live_game;  // being played live now: the way to watch it
      if (!live && n > LIVE.games_per_match) continue;
      var pending = el("tr", live ? "pending live-now" : "pending");
      pending.appendChild(el("td", "", n));
      var cell = el("td", live ? "" : "muted", live ? "" : (T.not_played || "…"));
      if (live) {
        var link = el("a", "", T.live_now);
        link.href = LIVE.watch_url;
        cell.appendChild(link);
      }
      cell.colSpan = 5;
      pending.appendChild(cell);
      rows.appendChild(pending);
    }
    // the first answer may already differ from the page as served: render it too
    tbody.replaceChildren(rows);
    document.getElementById("total-a").textContent = totalA;
    document.getElementById("total-b").textContent = totalB;
  });
}

tablePage();
