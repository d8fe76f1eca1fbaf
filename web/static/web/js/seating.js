/* Find my table: the search answered as one types from a shard of the round's seating index
 * (web/seating_index.py: the same few URLs for every phone, micro-cached), the tables API
 * only for what no name or number equals (the form still works without the script); and a
 * note when a newer round's seating is published. */
import { LIVE, T, debounce, el, fmt } from "./common.js";
import { getJSON, liveState, newestPublicRound, poll } from "./poll.js";
import { appendRating } from "./standings.js";

function seatItem(seat, hit) {
  var li = el("li", "seat side-" + seat.side + (hit ? " hit" : ""));
  var no = el("span", "seat-no", seat.seat + 1);  // people count seats 1–6 (号位)
  no.title = fmt("seat", { s: seat.seat + 1 });
  li.appendChild(no);
  li.appendChild(el("span", "pname", seat.player.name));
  if (seat.player.number) li.appendChild(el("small", "pno", "#" + seat.player.number));
  appendRating(li, seat.entry_id);
  return li;
}

/* What people call a table's 联邦: the team's name in a team event, else 红方 or 黑方. */
function sideName(t, side) {
  if (t.team_a && t.team_b) return side === 0 ? t.team_a : t.team_b;
  return T.sides[side];
}

function matches(query, player) {
  if (!query) return false;
  if (/^\d+$/.test(query) && player.number === parseInt(query, 10)) return true;
  return player.name.toLocaleLowerCase().indexOf(query.toLocaleLowerCase()) !== -1;
}

/* What a search is looked up by, and its shard: web/seating_index.py's find_key and bucket. */
export function findKey(text) {
  text = text.trim().split(/\s+/).join(" ");
  if (/^\d{1,9}$/.test(text)) return String(parseInt(text, 10));
  return text.toLowerCase();
}

export function bucket(key, of) {
  var h = 0;
  for (var ch of key) h = (Math.imul(h, 31) + ch.codePointAt(0)) >>> 0;
  return h % Math.max(1, of);
}

var shards = {};
var status = { at: 0, data: null };

/* The tables whose name, player number or table number equals ``query``, as the tables API
 * gives them (null when none does: the API's substring search then answers). */
function fromIndex(query) {
  var key = findKey(query);
  if (!key || !LIVE.find_api || !LIVE.find_of) return Promise.resolve(null);
  var k = bucket(key, LIVE.find_of);
  var url = LIVE.find_api + "?k=" + k + "&of=" + LIVE.find_of;
  var shard = shards[url] || (shards[url] = getJSON(url).catch(function (e) {
    delete shards[url]; throw e;
  }));
  return shard.then(function (data) {
    var numbers = data.keys[key];
    if (!numbers || !numbers.length) return null;
    if (!status.data || Date.now() - status.at > LIVE.interval * 1000) {
      status = { at: Date.now(), data: getJSON(LIVE.status_api).catch(function () {
        return { tables: {} };
      }) };
    }
    return status.data.then(function (now) {
      return numbers.map(function (n) {
        var row = data.tables[String(n)];
        var state = now.tables[String(n)] || [0, 0, null];
        return {
          number: n, team_a: row[0], team_b: row[1], live_game: state[2],
          confirmed: state[0], submitted: state[1],
          seats: row[2].map(function (s) {
            return { seat: s[0], side: s[0] % 2, entry_id: s[3],
                     player: { name: s[1], number: s[2] } };
          }),
        };
      });
    });
  });
}

function tableCard(t, query) {
  var tableHit = /^\d+$/.test(query) && t.number === parseInt(query, 10);
  var card = el("article", "table-card");
  card.id = "table-" + t.number;
  card.dataset.table = t.number;
  var header = el("header");
  var link = el("a", "", fmt("table", { n: t.number }));
  link.href = LIVE.table_url.replace(/\/0\/$/, "/" + t.number + "/");
  header.appendChild(link);
  var submitted = t.results ? t.results.length : t.submitted;
  if (submitted) {
    var confirmed = t.results ? t.results.filter(function (r) {
      return r.status === "confirmed";
    }).length : t.confirmed;
    header.appendChild(el("span", "badge" + (confirmed === LIVE.games_per_match ? " done" : ""),
      fmt("confirmed", { c: confirmed, n: LIVE.games_per_match })));
  }
  if (t.live_game) {  // being played live now: the way to watch it
    var watch = el("a", "badge live-now", fmt("live_game", { n: t.live_game }));
    watch.href = link.href + "watch/";
    header.appendChild(watch);
  }
  card.appendChild(header);
  if (t.team_a) {
    var teams = el("p", "teams");
    teams.appendChild(el("span", "side-0", t.team_a));
    teams.appendChild(el("span", "vs", " vs "));
    teams.appendChild(el("span", "side-1", t.team_b));
    card.appendChild(teams);
  }
  var list = el("ol", "seats");
  var hit = tableHit;
  t.seats.forEach(function (seat) {
    var seatHit = matches(query, seat.player);
    hit = hit || seatHit;
    list.appendChild(seatItem(seat, seatHit));
  });
  card.appendChild(list);
  if (hit) card.classList.add("hit");
  return card;
}

function findMyTable() {
  var form = document.getElementById("find-form");
  var input = document.getElementById("find-q");
  var summary = document.getElementById("find-summary");
  var tables = document.getElementById("tables");
  var pager = document.querySelector(".pager");
  var byesBox = document.querySelector(".byes");
  var request = 0;
  if (!form || !input || !tables || !LIVE.tables_api) return;

  var original = tables.innerHTML;
  var originalSummary = summary.innerHTML;
  var initialQuery = input.value.trim();

  var search = function (query, scroll) {
    var mine = ++request;
    var url = new URL(window.location.href);
    if (query) url.searchParams.set("q", query); else url.searchParams.delete("q");
    url.searchParams.delete("page");
    window.history.replaceState(null, "", url);
    if (!query) {
      tables.innerHTML = initialQuery ? "" : original;
      summary.innerHTML = initialQuery ? "" : originalSummary;
      if (pager) pager.hidden = false;
      if (byesBox) byesBox.hidden = false;
      if (initialQuery) { initialQuery = ""; window.location.reload(); }
      return;
    }
    if (pager) pager.hidden = true;
    if (byesBox) byesBox.hidden = true;
    var api = LIVE.tables_api + "?page_size=100&player=" + encodeURIComponent(query);
    fromIndex(query).catch(function () { return null; }).then(function (tables) {
      return tables || getJSON(api).then(function (data) { return data.results || []; });
    }).then(function (found) {
      if (mine !== request) return;  // a newer search is under way
      var cards = document.createDocumentFragment();
      var lines = document.createDocumentFragment();
      found.forEach(function (t) {
        cards.appendChild(tableCard(t, query));
        t.seats.forEach(function (seat) {
          if (!matches(query, seat.player)) return;
          var p = el("p", "found");
          var a = el("a", "", fmt("found", { name: seat.player.name, table: t.number,
                                             seat: seat.seat + 1,
                                             side: sideName(t, seat.side) }));
          a.href = "#table-" + t.number;
          p.appendChild(a);
          lines.appendChild(p);
        });
      });
      (LIVE.byes || []).forEach(function (b) {
        if (matches(query, b)) {
          lines.appendChild(el("p", "found", fmt("bye", { name: b.name, points: b.points })));
        }
      });
      if (!lines.childNodes.length && !found.length) {
        lines.appendChild(el("p", "miss", fmt("no_match", { q: query })));
      }
      tables.replaceChildren(cards);
      summary.replaceChildren(lines);
      if (scroll) {
        var first = tables.querySelector(".table-card.hit");
        if (first) first.scrollIntoView({ behavior: "smooth", block: "center" });
      }
    }).catch(function () { liveState(false); });
  };

  var typed = debounce(function () { search(input.value.trim(), false); }, 250);
  input.addEventListener("input", typed);
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    search(input.value.trim(), true);
  });
  if (initialQuery) {
    var first = tables.querySelector(".table-card.hit");
    if (first) first.scrollIntoView({ block: "center" });
  }
}

// tell the reader when a newer round's seating is published
function newRoundNotice() {
  if (!LIVE.rounds_api || LIVE.latest === false) return;
  poll(function () { return LIVE.rounds_api; }, { seconds: Math.max(LIVE.interval * 3, 15) },
    function (rounds) {
      var newest = newestPublicRound(rounds);
      var box = document.getElementById("new-round");
      if (newest > LIVE.round) {
        if (!box) { window.location.reload(); return; }  // no seating shown yet
        box.replaceChildren(el("span", "", fmt("new_round", { n: newest }) + " "));
        var a = el("a", "button primary", T.show || "");
        a.href = LIVE.seating_url;
        box.appendChild(a);
        box.hidden = false;
      }
    });
}

findMyTable();
newRoundNotice();
