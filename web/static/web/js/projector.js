/* The projector: large type, turning between leaderboard pages and the current round's seating
 * by name; both polled from the API. */
import { LIVE, T, el, fmt } from "./common.js";
import { getJSON, liveState, newestPublicRound, poll } from "./poll.js";
import { standingRow } from "./standings.js";

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
            all.push({ name: s.player.name, table: t.number, seat: s.seat + 1, side: s.side });  // seats 1–6 (号位)
          });
        });
        if (data.next) return page(data.next);
        return null;
      });
    }
    var byes = getJSON(LIVE.byes_url.replace("/rounds/0/", "/rounds/" + number + "/"));
    return page(api + "?page_size=1000").then(function () { return byes; }).then(function (data) {
      (data.byes || []).forEach(function (b) { all.push({ name: b.name, bye: true }); });
      all.sort(function (x, y) { return x.name.localeCompare(y.name); });
      seatingRound = number;
      seatList = all;
      build();
    });
  }

  if (LIVE.seating) {
    poll(function () { return LIVE.rounds_api; }, { seconds: Math.max(LIVE.interval * 3, 15), first: 0 },
      function (rounds) {
        var newest = newestPublicRound(rounds);
        if (newest && newest !== seatingRound) loadTables(newest).catch(function () { liveState(false); });
      });
  }
}

projector();
