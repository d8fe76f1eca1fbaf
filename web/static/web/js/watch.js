/* A live table for spectators: the public view from watch.json, long-polled (or, when the event
 * delays spectators, asked again as the next act becomes old enough). The page never holds a
 * card from a hand: the server sends none. */
import { LIVE, T, el, fmt } from "./common.js";
import { cardsNode, preEventNode } from "./cards.js";
import { liveState } from "./poll.js";

var shown = { game: 0, version: -1 };
var timer = null;

function who(seat) {
  var name = (LIVE.names || {})[seat] || "";
  return fmt("seat", { s: seat + 1 }) + (name ? " " + name : "");
}

function actText(act) {
  return { play: T.played, pass: T.passed, yield: T.yielded, burn: T.burned }[act.act] || act.act;
}

function renderSeats(view) {
  var places = view.places || [];
  var hosted = view.hosted_seats || [];
  var turn = view.to_act ? view.to_act.seat : null;
  document.querySelectorAll("#ring .ring-seat").forEach(function (node) {
    var seat = parseInt(node.dataset.seat, 10);
    var bits = [];
    var count = (view.counts || [])[seat];
    if (places[seat]) bits.push(T["place_" + places[seat]]);
    else if (count !== undefined) bits.push(fmt("cards", { n: count }));
    var kd = (view.kaidian || [])[seat];
    if (kd === true) bits.push(T.kaidian);
    else if (kd === false) bits.push(T.not_kaidian);
    if (hosted.indexOf(seat) >= 0) bits.push(T.hosted);
    node.querySelector('[data-role="state"]').textContent = bits.join(" · ");
    node.classList.toggle("turn", turn === seat && view.state !== "over");
    node.classList.toggle("done", !!places[seat]);
  });
}

function renderTop(view) {
  var top = document.getElementById("top");
  top.replaceChildren();
  if (view.state === "over") {
    top.appendChild(el("span", "", T.over));
  } else if (view.top) {
    top.appendChild(el("span", "top-by", fmt("top_by", { who: who(view.top.seat) })));
    top.appendChild(cardsNode(view.top.cards, "top-cards"));
  } else if (view.state === "pre") {
    top.appendChild(el("span", "", T.pre_play));
  } else if (view.to_act) {
    top.appendChild(el("span", "", fmt("nothing_on_top", { who: who(view.to_act.seat) })));
  }
  if (view.to_act && view.state !== "over") {
    top.appendChild(el("span", "turn-line", who(view.to_act.seat) + " · " + T.turn));
  }
}

function renderActs(view) {
  var list = document.getElementById("acts");
  var items = (view.recent || []).slice().reverse().map(function (act) {
    var li = el("li", "act act-" + act.act);
    li.appendChild(el("span", "act-who", who(act.seat)));
    li.appendChild(el("span", "act-what", actText(act) + (act.auto ? " " + T.auto : "")));
    if (act.cards) li.appendChild(cardsNode(act.cards));
    return li;
  });
  list.replaceChildren.apply(list, items);
}

function renderFacts(view) {
  var list = document.getElementById("facts");
  var items = [];
  (view.public_pre || []).forEach(function (ev) { items.push(preEventNode(ev, who)); });
  (view.burns || []).forEach(function (b) {
    items.push(el("li", "burn", fmt("burn_by", { burner: who(b.burner), burned: who(b.burned) }) +
      (b.counter ? " " + T.counter : "") + (b.failed ? " " + T.failed : "")));
  });
  (view.smothers || []).forEach(function (s) { items.push(el("li", "men", who(s) + " · 闷")); });
  if (view.luanchan) items.push(el("li", "luanchan", T.luanchan));
  list.replaceChildren.apply(list, items);
  document.getElementById("facts-card").hidden = items.length === 0;
}

function renderOver(view, data) {
  var box = document.getElementById("over");
  box.replaceChildren();
  box.hidden = view.state !== "over";
  if (box.hidden) return;
  box.appendChild(el("h2", "", T.result));
  var result = view.result || {};
  var order = el("ol", "order");
  (result.order || []).forEach(function (seat) {
    order.appendChild(el("li", "", T["place_" + result.places[seat]] + " " + who(seat)));
  });
  box.appendChild(order);
  var pts = result.team_points || [0, 0];
  box.appendChild(el("p", "points", fmt("points", { sa: LIVE.sides[0], a: pts[0], sb: LIVE.sides[1], b: pts[1] })));
  if (data.replay) {
    var link = el("a", "button primary", T.replay);
    link.href = data.replay;
    box.appendChild(link);
  }
}

function render(data) {
  var status = document.getElementById("watch-status");
  var view = data.view;
  var ring = document.getElementById("ring");
  if (!view) {
    status.hidden = false;
    status.textContent = data.game ? fmt("delayed", { n: data.delay }) : T.waiting;
    return;
  }
  status.hidden = true;
  document.getElementById("game-no").textContent = fmt("game", { n: data.game });
  ring.dataset.game = data.game;
  ring.dataset.version = view.version;
  ring.dataset.acts = view.n_actions;
  renderSeats(view);
  renderTop(view);
  renderActs(view);
  renderFacts(view);
  renderOver(view, data);
  shown.game = data.game;
  shown.version = view.version;
}

function next(ms) {
  clearTimeout(timer);
  timer = setTimeout(tick, ms);
}

function tick() {
  var wait = LIVE.delay ? 0 : LIVE.wait;
  var url = LIVE.api + "?game=" + shown.game + "&since=" + shown.version + "&wait=" + wait;
  fetch(url, { headers: { Accept: "application/json" }, cache: "no-store", credentials: "same-origin" })
    .then(function (response) {
      if (!response.ok) throw new Error(response.status);
      return response.json();
    })
    .then(function (data) {
      liveState(true);
      var moved = data.game !== shown.game || (data.view && data.view.version !== shown.version);
      render(data);
      if (LIVE.delay) {
        var soon = data.next_in === null || data.next_in === undefined ? 1 : data.next_in;
        next(Math.min(5000, Math.max(250, soon * 1000)));
      } else if (!data.view || data.view.state === "over") {
        next(LIVE.interval * 1000);  // waiting for the next game
      } else {
        next(moved ? 0 : 250);
      }
    })
    .catch(function () {
      liveState(false);
      next(3000);
    });
}

if (LIVE.api) tick();
