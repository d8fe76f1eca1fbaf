/* The leaderboard: its rows replaced from the standings API when they change (a 304 while
 * nothing did), changed rows marked. */
import { LIVE, fmt } from "./common.js";
import { poll } from "./poll.js";
import { standingRow } from "./standings.js";

function rowKey(tr) {
  return Array.prototype.map.call(tr.cells, function (td) { return td.textContent; }).join("|");
}

function leaderboard() {
  var table = document.getElementById("standings");
  if (!table || !LIVE.api) return;
  var tbody = table.tBodies[0];
  var columns = LIVE.columns;

  poll(function () { return LIVE.api; }, { etag: LIVE.etag, seconds: LIVE.interval },
    function (data) {
      var results = data.results || [];
      var before = {};
      Array.prototype.forEach.call(tbody.rows, function (tr) {
        if (tr.dataset.entry) before[tr.dataset.entry] = rowKey(tr);
      });
      var fresh = document.createDocumentFragment();
      results.forEach(function (s) {
        var tr = standingRow(s, columns, LIVE.entry_url);
        fresh.appendChild(tr);
        var key = String(s.entry.id);
        if (before[key] !== undefined && before[key] !== rowKey(tr)) {
          tr.classList.add("changed");
        }
      });
      if (results.length) {
        tbody.replaceChildren(fresh);
        var through = document.getElementById("through");
        if (through && results[0].through_round) {
          // a released board says so; only the live one is "after round n", as it stands
          through.textContent = fmt(LIVE.released === null || LIVE.released === undefined
            ? "through" : "released_through", { n: results[0].through_round });
        }
      }
    });
}

leaderboard();
