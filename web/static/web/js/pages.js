/* Public pages of a 够级 event: keep them current by polling the JSON API (/api/v1/).
 * No build step, no library. Each page hands its settings over in #live-data and its
 * translated texts in #js-text; the markup mirrors the server-rendered templates. */
(function () {
  "use strict";

  function readJSON(id) {
    var el = document.getElementById(id);
    return el ? JSON.parse(el.textContent) : null;
  }

  var T = readJSON("js-text") || {};
  var LIVE = readJSON("live-data") || {};

  function fmt(key, values) {
    var text = T[key] || key;
    return text.replace(/%\((\w+)\)s/g, function (_, name) {
      return values && values[name] !== undefined ? values[name] : "";
    });
  }

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  }

  function debounce(fn, ms) {
    var timer = null;
    return function () {
      var args = arguments;
      clearTimeout(timer);
      timer = setTimeout(function () { fn.apply(null, args); }, ms);
    };
  }

  function liveState(ok) {
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
  function poll(url, options, onData) {
    var etag = options.etag || null;
    var base = (options.seconds || 5) * 1000;
    var delay = base;
    var stopped = false;
    var timer = null;

    function schedule(ms) {
      clearTimeout(timer);
      // a little jitter, so a room full of phones does not poll in step
      timer = setTimeout(tick, ms + Math.random() * 0.2 * ms);
    }

    function tick() {
      if (stopped) return;
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
    return {
      now: function () { schedule(0); },
      stop: function () { stopped = true; clearTimeout(timer); }
    };
  }

  function getJSON(url) {
    return fetch(url, { headers: { Accept: "application/json" }, cache: "no-store",
                        credentials: "same-origin" })
      .then(function (r) { if (!r.ok) throw new Error("HTTP " + r.status); return r.json(); });
  }

  function movementCell(movement) {
    if (movement === null || movement === undefined) return el("span", "move none");
    if (movement > 0) {
      var up = el("span", "move up", "▲" + movement);
      up.title = fmt("up", { n: movement });
      return up;
    }
    if (movement < 0) {
      var down = el("span", "move down", "▼" + (-movement));
      down.title = fmt("down", { n: -movement });
      return down;
    }
    var same = el("span", "move same", "–");
    same.title = T.same || "";
    return same;
  }

  function entryName(entry) {
    // the API names a numbered player "name (#number)"; the number is shown apart
    var suffix = " (#" + entry.number + ")";
    var name = entry.name;
    if (entry.number && name.slice(-suffix.length) === suffix) name = name.slice(0, -suffix.length);
    return name;
  }

  function standingRow(s, columns) {
    var tr = el("tr");
    tr.dataset.entry = s.entry.id;
    tr.appendChild(el("td", "rank", s.rank));
    var move = el("td", "move");
    move.appendChild(movementCell(s.movement));
    tr.appendChild(move);
    var name = el("td", "name", entryName(s.entry));
    if (s.entry.number) {
      name.appendChild(document.createTextNode(" "));
      name.appendChild(el("small", "pno", "#" + s.entry.number));
    }
    tr.appendChild(name);
    columns.forEach(function (key) { tr.appendChild(el("td", "num", s[key])); });
    return tr;
  }

  function rowKey(tr) {
    return Array.prototype.map.call(tr.cells, function (td) { return td.textContent; }).join("|");
  }

  /* ------------------------------------------------------------------ leaderboard */
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
          var tr = standingRow(s, columns);
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
            through.textContent = fmt("through", { n: results[0].through_round });
          }
        }
      });
  }

  /* ------------------------------------------------------------------ seating */
  function seatItem(seat, hit) {
    var li = el("li", "seat side-" + seat.side + (hit ? " hit" : ""));
    var no = el("span", "seat-no", seat.seat);
    no.title = fmt("seat", { s: seat.seat });
    li.appendChild(no);
    li.appendChild(el("span", "pname", seat.player.name));
    if (seat.player.number) li.appendChild(el("small", "pno", "#" + seat.player.number));
    return li;
  }

  function matches(query, player) {
    if (!query) return false;
    if (/^\d+$/.test(query) && player.number === parseInt(query, 10)) return true;
    return player.name.toLocaleLowerCase().indexOf(query.toLocaleLowerCase()) !== -1;
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
    var submitted = (t.results || []).length;
    if (submitted) {
      var confirmed = t.results.filter(function (r) { return r.status === "confirmed"; }).length;
      header.appendChild(el("span", "badge" + (confirmed === LIVE.games_per_match ? " done" : ""),
        fmt("confirmed", { c: confirmed, n: LIVE.games_per_match })));
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

  function seating() {
    var form = document.getElementById("find-form");
    var input = document.getElementById("find-q");
    var summary = document.getElementById("find-summary");
    var tables = document.getElementById("tables");
    var pager = document.querySelector(".pager");
    var byesBox = document.querySelector(".byes");
    var request = 0;

    if (form && input && tables && LIVE.tables_api) {
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
        getJSON(api).then(function (data) {
          if (mine !== request) return;  // a newer search is under way
          var found = data.results || [];
          var cards = document.createDocumentFragment();
          var lines = document.createDocumentFragment();
          found.forEach(function (t) {
            cards.appendChild(tableCard(t, query));
            t.seats.forEach(function (seat) {
              if (!matches(query, seat.player)) return;
              var p = el("p", "found");
              var a = el("a", "", fmt("found", { name: seat.player.name, table: t.number,
                                                 seat: seat.seat, side: seat.side }));
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
    if (LIVE.rounds_api && LIVE.latest !== false) {
      poll(function () { return LIVE.rounds_api; }, { seconds: Math.max(LIVE.interval * 3, 15) },
        function (rounds) {
          var newest = 0;
          (rounds || []).forEach(function (r) {
            if ((r.status === "published" || r.status === "finished") && r.number > newest) {
              newest = r.number;
            }
          });
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
  }

  /* ------------------------------------------------------------------ table */
  function tablePage() {
    var results = document.getElementById("results");
    if (!results || !LIVE.api) return;
    var tbody = results.tBodies[0];
    var last = null;
    poll(function () { return LIVE.api; }, { seconds: LIVE.interval }, function (data) {
      var key = JSON.stringify(data.results);
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
          confirmed ? T.confirmed_status : T.submitted));
        if (r.void) { status.appendChild(document.createTextNode(" ")); status.appendChild(el("span", "tag", T.void)); }
        tr.appendChild(status);
        tr.appendChild(el("td", "num", r.points_a));
        tr.appendChild(el("td", "num", r.points_b));
        var places = r.places || [];
        tr.appendChild(el("td", "", LIVE.names[places.indexOf(1)] || ""));
        tr.appendChild(el("td", "", LIVE.names[places.indexOf(6)] || ""));
        if (confirmed) { totalA += r.points_a; totalB += r.points_b; }
        if (!firstLoad) tr.classList.add("changed");
        rows.appendChild(tr);
      });
      for (var n = played + 1; n <= LIVE.games_per_match; n++) {
        var pending = el("tr", "pending");
        pending.appendChild(el("td", "", n));
        var cell = el("td", "muted", T.not_played || "…");
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

  /* ------------------------------------------------------------------ projector */
  function projector() {
    var stage = document.getElementById("pj-slides");
    var title = document.getElementById("pj-title");
    var dots = document.getElementById("pj-dots");
    var clock = document.getElementById("pj-clock");
    var headCells = document.getElementById("pj-head-cells");
    if (!stage) return;
    var standings = [];
    var seatingRound = 0;
    var seatList = [];
    var index = 0;
    var slides = [];

    function tick() {
      if (clock) clock.textContent = new Date().toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
    }
    tick();
    setInterval(tick, 10000);

    function build() {
      var built = [];
      var per = LIVE.rows;
      for (var i = 0; i < standings.length; i += per) {
        built.push({ kind: "lb", rows: standings.slice(i, i + per), from: i + 1,
                     to: Math.min(i + per, standings.length) });
      }
      if (!standings.length) built.push({ kind: "lb", rows: [], from: 0, to: 0 });
      if (LIVE.seating && seatList.length) {
        var perSlide = (LIVE.rows + 4) * 3;
        for (var j = 0; j < seatList.length; j += perSlide) {
          built.push({ kind: "seat", rows: seatList.slice(j, j + perSlide) });
        }
      }
      slides = built;
      if (index >= slides.length) index = 0;
      render();
    }

    function render() {
      var slide = slides[index];
      if (!slide) return;
      var section = el("section", "slide " + slide.kind);
      if (slide.kind === "lb") {
        title.textContent = slide.rows.length
          ? T.leaderboard + " · " + fmt("places", { from: slide.from, to: slide.to })
          : T.leaderboard;
        if (!slide.rows.length) {
          section.appendChild(el("p", "pj-note", T.no_results));
        } else {
          var table = el("table", "pj-standings");
          var head = el("tr");
          head.appendChild(el("th", "rank", stage.dataset.headRank));
          head.appendChild(el("th", "move", "±"));
          head.appendChild(el("th", "name", stage.dataset.headName));
          head.appendChild(headCells.content.cloneNode(true));
          var thead = el("thead");
          thead.appendChild(head);
          table.appendChild(thead);
          var tbody = el("tbody");
          slide.rows.forEach(function (s) { tbody.appendChild(standingRow(s, LIVE.columns)); });
          table.appendChild(tbody);
          section.appendChild(table);
        }
      } else {
        var a = slide.rows[0].name;
        var b = slide.rows[slide.rows.length - 1].name;
        title.textContent = fmt("seating", { n: seatingRound }) + " · " + fmt("seating_names", { from: a, to: b });
        var list = el("ol", "pj-names");
        list.style.setProperty("--rows", LIVE.rows + 4);
        slide.rows.forEach(function (p) {
          var li = el("li", p.bye ? "bye" : "side-" + p.side);
          li.appendChild(el("span", "pname", p.name));
          li.appendChild(el("span", "where", p.bye ? T.bye_short : fmt("where", { t: p.table, s: p.seat })));
          list.appendChild(li);
        });
        section.appendChild(list);
      }
      stage.replaceChildren(section);
      dots.replaceChildren();
      slides.forEach(function (_, k) { dots.appendChild(el("span", k === index ? "on" : "")); });
      document.body.dataset.slide = slide.kind;
    }

    setInterval(function () {
      if (!slides.length) return;
      index = (index + 1) % slides.length;
      render();
    }, LIVE.seconds * 1000);

    poll(function () { return LIVE.standings_api + "?page_size=" + LIVE.top; },
      { etag: null, seconds: LIVE.interval, first: 0 }, function (data) {
        standings = data.results || [];
        build();
      });

    function loadTables(number) {
      var api = LIVE.tables_api.replace("/rounds/0/", "/rounds/" + number + "/");
      var all = [];
      function page(url) {
        return getJSON(url).then(function (data) {
          (data.results || []).forEach(function (t) {
            t.seats.forEach(function (s) {
              all.push({ name: s.player.name, table: t.number, seat: s.seat, side: s.side });
            });
          });
          if (data.next) return page(data.next);
          return null;
        });
      }
      return page(api + "?page_size=1000").then(function () {
        all.sort(function (x, y) { return x.name.localeCompare(y.name); });
        seatingRound = number;
        seatList = all;
        build();
      });
    }

    if (LIVE.seating) {
      poll(function () { return LIVE.rounds_api; }, { seconds: Math.max(LIVE.interval * 3, 15), first: 0 },
        function (rounds) {
          var newest = 0;
          (rounds || []).forEach(function (r) {
            if ((r.status === "published" || r.status === "finished") && r.number > newest) newest = r.number;
          });
          if (newest && newest !== seatingRound) loadTables(newest).catch(function () { liveState(false); });
        });
    }
  }

  var pages = { leaderboard: leaderboard, seating: seating, table: tablePage, projector: projector };
  var page = pages[document.body.dataset.page];
  if (page) page();
})();
