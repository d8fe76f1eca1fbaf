/* The live table (and practice) page: one seat's view of a 够级 game, from the server.
 *
 * The server renders the first view in #live-data and then sends each new one: the answer to
 * an act, or (live games) the server-sent event stream, which a browser reconnects by itself
 * with Last-Event-ID after a network drop; the page then re-reads the view to be sure. The
 * legal acts are the engine's (view.legal): this script only shows them, groups the hand,
 * and posts the act chosen, naming the version it was shown. A refused or stale act is a
 * message, and the page is brought to the game as it is. */

import { T, LIVE, fmt, el } from "./common.js";

var SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
var RED = { H: true, D: true };
var csrf = (document.querySelector("input[name=csrfmiddlewaretoken]") || {}).value || "";

var view = LIVE.view;
var mySeat = LIVE.seat;
var selected = {};  // hand index -> true
var source = null;
var clock = null;

function rankOf(card) { return card === "BJ" || card === "RJ" ? card : card.slice(0, -1); }

function seatName(s) {
  var seat = LIVE.seats[s];
  return seat.label + (seat.name ? " " + seat.name : "");
}

function cardNode(card, tag) {
  var node = el(tag || "span", "pc");
  node.dataset.card = card;
  if (card === "BJ" || card === "RJ") {
    node.classList.add("joker", card === "RJ" ? "red" : "black");
    node.appendChild(el("span", "rank", card === "RJ" ? "大王" : "小王"));
  } else {
    var suit = card.slice(-1);
    if (RED[suit]) node.classList.add("red");
    node.appendChild(el("span", "rank", rankOf(card)));
    node.appendChild(el("span", "suit", SUITS[suit] || suit));
  }
  return node;
}

function cardsNode(cards, className) {
  var box = el("span", "cards " + (className || ""));
  cards.forEach(function (c) { box.appendChild(cardNode(c)); });
  return box;
}

function showMessage(text) {
  var box = document.getElementById("message");
  box.textContent = text || "";
  box.hidden = !text;
}

/* ---------------------------------------------------------------- the seats around */
function renderRing() {
  var ring = document.getElementById("ring");
  ring.textContent = "";
  var order = [2, 3, 4, 1, null, 5];
  var toAct = view.to_act ? view.to_act.seat : null;
  order.forEach(function (k) {
    if (k === null) {
      var mid = el("div", "seat mid");
      mid.id = "turn-box";
      ring.appendChild(mid);
      return;
    }
    var s = (mySeat + k) % 6;
    var box = el("div", "seat");
    box.dataset.seat = s;
    if (s % 2 === mySeat % 2) box.classList.add("partner");
    if (s === toAct) box.classList.add("turn");
    box.appendChild(el("strong", "label", LIVE.seats[s].label));
    if (LIVE.seats[s].name) box.appendChild(el("span", "name", LIVE.seats[s].name));
    placeBadges(box, s);
    if ((view.hosted_seats || []).indexOf(s) >= 0) box.appendChild(el("span", "badge", "托管"));
    if ((view.revolutions || []).indexOf(s) >= 0) box.appendChild(el("span", "badge", "革命"));
    ring.appendChild(box);
  });
}

/** A seat's place on the ring: "finished 头科" for a seat that ran out of cards (in play, its
 * place in `finished`); at the end, the places of the seats that did not — those left holding
 * cards when one team was out, the eliminated (闷, 诈烧), revolutionaries — as "placed 大落",
 * with what they hold. Otherwise its card count. */
function placeBadges(box, s) {
  var ranOut = (view.finished || []).indexOf(s);
  var result = view.outcome;
  var placed = result && result.order ? result.order.indexOf(s) : -1;
  var out = result ? (result.eliminated || []).filter(function (e) { return e.seat === s; })[0] : null;
  var emptied = view.counts[s] === 0 && !out && (view.revolutions || []).indexOf(s) < 0;
  if (ranOut >= 0 || (placed >= 0 && emptied)) {
    box.appendChild(el("span", "badge done", fmt("finished", {
      place: T.places[ranOut >= 0 ? ranOut : placed] })));
    return;
  }
  if (placed >= 0) box.appendChild(el("span", "badge", fmt("placed", { place: T.places[placed] })));
  if (out) box.appendChild(el("span", "badge", T.eliminated[out.reason] || out.reason));
  else if (view.counts[s] !== 0 || placed < 0) {
    box.appendChild(el("span", "count", fmt("cards_left", { n: view.counts[s] })));
  }
}

function renderTurn() {
  var box = document.getElementById("turn-box");
  var line = document.getElementById("status-line");
  var text = "";
  if (view.state === "over") text = T.game_over;
  else if (view.to_act && view.to_act.seat === mySeat) text = T.your_turn;
  else if (view.to_act) text = fmt("waiting_for", { seat: LIVE.seats[view.to_act.seat].label });
  if (box) {
    box.textContent = "";
    box.appendChild(el("strong", null, text));
    box.appendChild(el("span", "clock", ""));
  }
  line.textContent = fmt("cards_left", { n: (view.hand || []).length });
  tick();
}

function tick() {
  var node = document.querySelector("#turn-box .clock");
  if (!node) return;
  if (!view.turn_deadline || view.state === "over") { node.textContent = ""; return; }
  var left = Math.max(0, Math.round((Date.parse(view.turn_deadline) - Date.now()) / 1000));
  node.textContent = fmt("clock", { s: left });
}

/* ---------------------------------------------------------------- the table */
function renderTop() {
  var top = document.getElementById("table-top");
  top.textContent = "";
  top.hidden = view.state !== "play";  // before play and after the game: no empty felt
  if (top.hidden) return;
  if (view.top) {
    top.appendChild(el("p", "top-by", fmt("top_by", { seat: seatName(view.top.seat) })));
    top.appendChild(cardsNode(view.top.cards, "top"));
  } else if (view.to_act) {
    top.appendChild(el("p", "top-by", fmt("leading", { seat: seatName(view.to_act.seat) })));
  } else {
    top.appendChild(el("p", "top-by", T.nothing_on_table));
  }
  if (view.burn_window) top.appendChild(el("p", "burn-note", T.burn_window));
}

function actText(a) {
  if (a.act === "play" || a.act === "burn") return null;
  return a.act === "pass" ? T.pass : a.act === "yield" ? T.yield : a.act;
}

function renderLog() {
  var log = document.getElementById("log");
  log.textContent = "";
  var acts = (view.actions || []).slice(-8).reverse();
  acts.forEach(function (a) {
    var row = el("li", a.seat === mySeat ? "mine" : null);
    row.appendChild(el("span", "who", LIVE.seats[a.seat].label));
    if (a.cards) {
      if (a.act === "burn") row.appendChild(el("span", "badge", "烧"));
      row.appendChild(cardsNode(a.cards, "small"));
    } else {
      row.appendChild(el("span", "muted", actText(a)));
    }
    if (a.auto) row.appendChild(el("span", "badge", "托管"));
    log.appendChild(row);
  });
}

/* ---------------------------------------------------------------- pre-play questions */
function preKind(legal) {
  var acts = view.to_act ? view.to_act.acts : [];
  var kinds = ["revolt", "waive_gousiji", "return", "buy3", "hui3"];
  for (var i = 0; i < kinds.length; i++) {
    if (acts.indexOf(kinds[i]) < 0) continue;
    // every seat is asked about 革命; only a seat whose dealt cards allow it has "revolt"
    if (kinds[i] === "revolt" && !legal.some(function (a) { return a.act === "revolt"; })) {
      return "revolt_not";
    }
    return kinds[i];
  }
  var declare = legal.filter(function (a) { return a.act === "declare"; })[0];
  return declare ? declare.kind : null;
}

function preLabel(a) {
  var P = T.pre;
  if (a.act === "decline") return P.decline;
  if (a.act === "declare") return P.declare;
  if (a.act === "revolt") return P.revolt_button;
  if (a.act === "waive_gousiji") return P.waive_button;
  if (a.act === "hui3") return P.hui3_button;
  return null;
}

function renderPre() {
  var box = document.getElementById("pre");
  var legal = view.state === "pre" ? (view.legal || []) : [];
  box.hidden = legal.length === 0;
  if (box.hidden) return;
  var kind = preKind(legal);
  document.getElementById("pre-text").textContent = T.pre[kind] || "";
  var acts = document.getElementById("pre-acts");
  acts.textContent = "";
  legal.forEach(function (a) {
    var button = el("button", "act");
    button.type = "button";
    button.dataset.act = a.act;
    var label = preLabel(a);
    if (label) {
      button.textContent = label;
    } else {
      var cards = a.cards || [a.give];
      button.appendChild(el("span", null, T.pre.give.replace("%(cards)s", "").trim()));
      button.appendChild(cardsNode(cards, "small"));
      button.dataset.cards = cards.join(" ");
    }
    if (a.act === "decline") button.classList.add("secondary");
    button.addEventListener("click", function () { send(a); });
    acts.appendChild(button);
  });
}

/* ---------------------------------------------------------------- the hand and the acts */
function selectedCards() {
  return (view.hand || []).filter(function (_, i) { return selected[i]; });
}

function rankKey(cards) { return cards.map(rankOf).sort().join(","); }

function matching(kind) {
  var key = rankKey(selectedCards());
  if (!key) return null;
  return (view.legal || []).filter(function (a) {
    return a.act === kind && rankKey(a.cards) === key;
  })[0] || null;
}

function renderHand() {
  var hand = document.getElementById("hand");
  hand.textContent = "";
  var cards = view.hand || [];
  var rows = { plain: el("div", "row plain"), high: el("div", "row high") };
  var group = null, last = null;
  cards.forEach(function (card, i) {
    var rank = rankOf(card);
    var row = rank === "2" || rank === "BJ" || rank === "RJ" ? rows.high : rows.plain;
    if (rank !== last) {
      group = el("span", "group");
      group.dataset.rank = rank;
      row.appendChild(group);
      last = rank;
    }
    var button = cardNode(card, "button");
    button.type = "button";
    button.dataset.i = i;
    button.setAttribute("aria-pressed", selected[i] ? "true" : "false");
    button.addEventListener("click", function () {
      if (selected[i]) delete selected[i]; else selected[i] = true;
      button.setAttribute("aria-pressed", selected[i] ? "true" : "false");
      renderActs();
    });
    group.appendChild(button);
  });
  if (rows.plain.childNodes.length) hand.appendChild(rows.plain);
  if (rows.high.childNodes.length) hand.appendChild(rows.high);
}

function actButton(label, act, enabled, extra) {
  var button = el("button", "act " + (extra || ""), label);
  button.type = "button";
  button.dataset.act = act;
  button.disabled = !enabled;
  return button;
}

function renderActs() {
  var box = document.getElementById("acts");
  var hints = document.getElementById("hints");
  box.textContent = "";
  hints.textContent = "";
  var legal = view.state === "play" ? (view.legal || []) : [];
  if (!legal.length) return;
  var kinds = {};
  legal.forEach(function (a) { kinds[a.act] = true; });
  var chosen = selectedCards();
  if (kinds.play) {
    var play = matching("play");
    var button = actButton(T.play, "play", !!play, "primary");
    button.addEventListener("click", function () {
      if (matching("play")) send({ act: "play", cards: selectedCards() });
    });
    box.appendChild(button);
  }
  if (kinds.burn) {
    var burn = actButton(T.burn, "burn", !!matching("burn"), "burn");
    burn.addEventListener("click", function () {
      if (matching("burn")) send({ act: "burn", cards: selectedCards() });
    });
    box.appendChild(burn);
  }
  ["pass", "yield"].forEach(function (kind) {
    if (!kinds[kind]) return;
    var button = actButton(T[kind], kind, true, "secondary");
    button.addEventListener("click", function () { send({ act: kind }); });
    box.appendChild(button);
  });
  if (chosen.length) {
    var clear = actButton(T.clear, "clear", true, "secondary");
    clear.addEventListener("click", function () { selected = {}; renderHand(); renderActs(); });
    box.appendChild(clear);
    if (!matching("play") && !matching("burn")) box.appendChild(el("p", "hint-note", T.not_legal));
  }
  var plays = legal.filter(function (a) { return a.cards; }).slice(0, 10);
  if (plays.length) hints.appendChild(el("span", "muted small", T.choose_hint));
  plays.forEach(function (a) {
    var hint = el("button", "hint" + (a.act === "burn" ? " burn" : ""));
    hint.type = "button";
    hint.appendChild(cardsNode(a.cards, "small"));
    hint.addEventListener("click", function () { pick(a.cards); });
    hints.appendChild(hint);
  });
}

/** Select the hand's cards of `cards` (the same card, else one of the same rank). */
function pick(cards) {
  selected = {};
  var hand = view.hand || [];
  cards.forEach(function (card) {
    var i = hand.findIndex(function (c, k) { return !selected[k] && c === card; });
    if (i < 0) i = hand.findIndex(function (c, k) { return !selected[k] && rankOf(c) === rankOf(card); });
    if (i >= 0) selected[i] = true;
  });
  renderHand();
  renderActs();
}

/* ---------------------------------------------------------------- the end */
function renderResult() {
  var box = document.getElementById("result");
  var res = view.outcome;
  box.hidden = !(view.state === "over" && res);
  if (box.hidden) return;
  var places = document.getElementById("places");
  places.textContent = "";
  (res.order || []).forEach(function (s, i) {
    var row = el("li", s === mySeat ? "mine" : null);
    row.appendChild(el("strong", null, T.places[i]));
    row.appendChild(el("span", null, " " + seatName(s) + " "));
    if (res.kaidian) row.appendChild(el("span", "badge" + (res.kaidian[s] ? " done" : ""),
      res.kaidian[s] ? T.kaidian : T.not_kaidian));
    places.appendChild(row);
  });
  if (res.void) places.appendChild(el("li", null, T.void));
  var points = res.team_points || [0, 0];
  document.getElementById("points").textContent = fmt("points", {
    a: LIVE.sides[0] + " " + points[0], b: LIVE.sides[1] + " " + points[1] });
  var tributes = document.getElementById("tributes");
  tributes.textContent = "";
  var owed = res.owed_tributes || [];
  tributes.appendChild(el("p", null, owed.length ? T.tributes_owed : T.no_tributes));
  var list = el("ul");
  owed.forEach(function (t) {
    list.appendChild(el("li", null, fmt("tribute_row", {
      from: LIVE.seats[t.from].label, to: LIVE.seats[t.to].label, n: t.count,
      kind: ({ dian: "点贡", men: "闷贡", shao: "烧贡", luo: "落贡" })[t.kind] || t.kind })));
  });
  tributes.appendChild(list);
}

function renderHosting() {
  var box = document.getElementById("hosted");
  if (!box) return;
  box.checked = (view.hosted_seats || []).indexOf(mySeat) >= 0;
  box.disabled = view.state === "over";
}

function render() {
  renderRing();
  renderTurn();
  renderTop();
  renderPre();
  renderHand();
  renderActs();
  renderResult();
  renderLog();
  renderHosting();
  document.body.dataset.version = view.version;
  document.body.dataset.state = view.state;
  document.body.dataset.myTurn = view.to_act && view.to_act.seat === mySeat ? "1" : "0";
}

/** A view from the stream (asked with actions=new) has only the acts the page has not had,
 * from index `actions_from`: put them after the ones it has. Null if the page lacks some
 * (never, as the stream's earlier views were shown or a newer one was). */
function withEarlierActs(next) {
  var have = view.actions || [];
  if (have.length < next.actions_from) return null;
  next.actions = have.slice(0, next.actions_from).concat(next.actions);
  delete next.actions_from;
  return next;
}

/** Show `next` if it is not older than the view shown (a 托管 switch keeps the version). */
function apply(next) {
  if (!next || next.version < view.version) return;
  if (next.version !== view.version) selected = {};
  view = next;
  render();
  if (view.status === "finished" && source) {
    source.close();  // nothing more will come (its last event may not have come yet)
    source = null;
    document.body.dataset.stream = "closed";
  }
}

/* ---------------------------------------------------------------- talking to the server */
function resync() {
  return fetch(LIVE.state_url, { headers: { Accept: "application/json" }, cache: "no-store",
                                 credentials: "same-origin" })
    .then(function (r) { return r.ok ? r.json() : null; })
    .then(function (next) { if (next) { apply(next); } })
    .catch(function () { showMessage(T.network); });
}

function post(url, body, json) {
  var headers = { "X-CSRFToken": csrf, Accept: "application/json" };
  if (json) headers["Content-Type"] = "application/json";
  return fetch(url, { method: "POST", headers: headers, credentials: "same-origin",
                      body: json ? JSON.stringify(body) : body })
    .then(function (r) {
      return r.json().catch(function () { return {}; }).then(function (data) {
        return { ok: r.ok, status: r.status, data: data };
      });
    });
}

function answered(res) {
  if (res.ok) {
    showMessage("");
    // an act's answer asked with actions_from carries only the acts the page did not have
    var next = res.data.actions_from === undefined ? res.data : withEarlierActs(res.data);
    if (next) { apply(next); } else { resync(); }
    return;
  }
  var error = res.data && res.data.error;
  showMessage(error ? error.message : T.network);
  selected = {};
  resync();  // the game as it is now: a stale act is not shown as made
}

var sending = false;
function send(act) {
  if (sending) return;
  sending = true;
  document.body.dataset.sending = "1";
  var body = Object.assign({ version: view.version }, act);
  // a live game's answer then carries only the acts after those shown (a practice game's
  // carries them all: the bots' replies come with it)
  var url = LIVE.mode === "live" ? LIVE.act_url + "?actions_from=" + (view.actions || []).length
                                 : LIVE.act_url;
  post(url, body, true).then(answered).catch(function () {
    showMessage(T.network);
    resync();
  }).then(function () { sending = false; document.body.dataset.sending = "0"; });
}

function follow() {
  if (!LIVE.events_url || view.status === "finished" || !window.EventSource) return;
  source = new EventSource(LIVE.events_url + "?actions=new&since=" + view.version);
  var lost = false;
  source.addEventListener("view", function (event) {
    var next = withEarlierActs(JSON.parse(event.data));
    if (next) { apply(next); } else { resync(); }
    document.body.dataset.streamed = event.lastEventId;  // the last version the stream sent
  });
  source.addEventListener("open", function () {
    document.body.dataset.stream = "open";
    if (lost) { lost = false; showMessage(""); resync(); }
  });
  source.addEventListener("error", function () {
    if (!source) return;
    document.body.dataset.stream = "lost";
    lost = true;
    showMessage(T.reconnecting);
    // the stream ended (its time is up) or the network dropped: EventSource reconnects by
    // itself, sending Last-Event-ID; a closed one (e.g. an error answer) is reopened here
    if (source.readyState === EventSource.CLOSED) {
      source = null;
      setTimeout(function () { resync().then(follow); }, 2000);
    }
  });
}

var hosted = document.getElementById("hosted");
if (hosted) {
  hosted.addEventListener("change", function () {
    var form = new URLSearchParams({ on: hosted.checked ? "1" : "0" });
    post(LIVE.host_url, form, false).then(answered).catch(function () { showMessage(T.network); });
  });
}

render();
clock = setInterval(tick, 1000);
follow();
window.addEventListener("pagehide", function () { if (source) source.close(); clearInterval(clock); });
