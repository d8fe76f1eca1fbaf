/* The replay viewer (复盘): steps through the engine's account of a finished game (replay.json:
 * the hands as play begins, then each act with the hands it changed, the table after it and
 * why each seat may or may not answer). No rule is worked out here; the page only shows. */
import { LIVE, T, el, fmt } from "./common.js";
import { cardsNode, preEventNode } from "./cards.js";

var data = null;
var hands = [];  // hands[k]: the six hands after k acts (k = 0: as play begins)
var at = 0;

function who(seat) {
  var name = (LIVE.names || {})[seat] || "";
  return fmt("seat", { s: seat + 1 }) + (name ? " " + name : "");
}

function tableAt(k) { return k === 0 ? data.start : data.steps[k - 1]; }

function actText(step) {
  var what = { play: T.played, pass: T.passed, yield: T.yielded, burn: T.burned }[step.act] || step.act;
  return who(step.seat) + ": " + what + (step.auto ? " " + T.auto : "");
}

function build() {
  var current = data.start.hands;
  hands = [current];
  data.steps.forEach(function (step) {
    var changed = step.hands || {};
    current = current.map(function (hand, seat) {
      return changed[seat] !== undefined ? changed[seat] : hand;
    });
    hands.push(current);
  });
  var range = document.getElementById("step-range");
  range.max = data.steps.length;
  var jump = document.getElementById("round-jump");
  var seen = {};
  data.steps.forEach(function (step, i) {
    if (seen[step.round]) return;
    seen[step.round] = true;
    var option = el("option", "", fmt("round", { n: step.round }));
    option.value = i + 1;  // the round's first act: its lead
    jump.appendChild(option);
  });
  var pre = document.getElementById("pre");
  (data.start.pre || []).forEach(function (ev) { pre.appendChild(preEventNode(ev, who)); });
  document.getElementById("pre-card").hidden = !pre.children.length;
}

function renderResult() {
  var box = document.getElementById("result");
  box.replaceChildren();
  var result = data.result;
  box.appendChild(el("h2", "", T.result));
  var order = el("ol", "order");
  (result.order || []).forEach(function (seat) {
    var li = el("li", "", T["place_" + result.places[seat]] + " " + who(seat));
    var kd = (result.kaidian || [])[seat];
    if (kd === true) li.appendChild(el("span", "tag", T.kaidian));
    if (kd === false) li.appendChild(el("span", "tag", T.not_kaidian));
    order.appendChild(li);
  });
  box.appendChild(order);
  var pts = result.team_points || [0, 0];
  box.appendChild(el("p", "points", fmt("points", { sa: LIVE.sides[0], a: pts[0], sb: LIVE.sides[1], b: pts[1] })));
  (result.burns || []).forEach(function (b) {
    box.appendChild(el("p", "small", fmt("burn_by", { burner: who(b.burner), burned: who(b.burned) }) + (b.counter ? " " + T.counter : "")));
  });
  (result.owed_tributes || []).forEach(function (t) {
    box.appendChild(el("p", "small", fmt("tribute", { kind: T["tribute_" + t.kind] || t.kind, from: who(t.from), to: who(t.to), cards: "×" + t.count })));
  });
}

function show(k) {
  at = Math.max(0, Math.min(k, data.steps.length));
  var root = document.getElementById("replay");
  root.dataset.step = at;
  document.getElementById("step-range").value = at;
  var table = tableAt(at);
  var step = at > 0 ? data.steps[at - 1] : null;
  var caption = document.getElementById("step-caption");
  caption.textContent = at === 0 ? T.start : fmt("step", { i: at, n: data.steps.length }) + " · " + fmt("round", { n: step.round });
  var act = document.getElementById("step-act");
  act.replaceChildren();
  if (step) {
    act.appendChild(el("span", "", actText(step)));
    if (step.cards && step.cards.length) act.appendChild(cardsNode(step.cards));
  }
  var jump = document.getElementById("round-jump");
  var current = step ? step.round : 1;
  Array.prototype.forEach.call(jump.options, function (o) { o.selected = o.textContent === fmt("round", { n: current }); });

  var top = document.getElementById("replay-top");
  top.replaceChildren();
  if (table.top) {
    top.appendChild(el("span", "top-by", fmt("top_by", { who: who(table.top.seat) })));
    top.appendChild(cardsNode(table.top.cards, "top-cards"));
  } else if (table.turn !== null && table.turn !== undefined) {
    top.appendChild(el("span", "", fmt("nothing_on_top", { who: who(table.turn) })));
  } else {
    top.appendChild(el("span", "", T.over));
  }
  if (table.luanchan) top.appendChild(el("span", "tag", T.luanchan));
  if (table.burners && table.burners.length) {
    top.appendChild(el("p", "small", fmt("could_burn", { who: table.burners.map(who).join(", ") })));
  }

  var rights = table.rights;
  document.querySelectorAll("#hands .hand").forEach(function (node) {
    var seat = parseInt(node.dataset.seat, 10);
    var bits = [fmt("cards", { n: table.counts[seat] })];
    if (table.places[seat]) bits.unshift(T["place_" + table.places[seat]]);
    node.querySelector('[data-role="state"]').textContent = bits.join(" · ");
    node.classList.toggle("turn", table.turn === seat);
    node.classList.toggle("acted", !!step && step.seat === seat);
    var why = node.querySelector('[data-role="why"]');
    why.replaceChildren();
    if (rights && rights.why[seat] !== "owner" && rights.why[seat] !== "out") {
      why.appendChild(el("b", rights.may[seat] ? "may" : "may-not", rights.may[seat] ? T.may : T.may_not));
      why.appendChild(document.createTextNode(" — " + (T["why_" + rights.why[seat]] || rights.why[seat])));
    }
    node.querySelector('[data-role="cards"]').replaceChildren(cardsNode(hands[at][seat], "hand-cards"));
  });
  var last = at === data.steps.length;
  document.getElementById("result").hidden = !last;
}

function controls() {
  document.querySelectorAll("[data-go]").forEach(function (button) {
    button.addEventListener("click", function () {
      var go = button.dataset.go;
      show(go === "first" ? 0 : go === "last" ? data.steps.length : go === "back" ? at - 1 : at + 1);
    });
  });
  document.getElementById("step-range").addEventListener("input", function (e) {
    show(parseInt(e.target.value, 10));
  });
  document.getElementById("round-jump").addEventListener("change", function (e) {
    show(parseInt(e.target.value, 10));
  });
  document.addEventListener("keydown", function (e) {
    if (e.target.tagName === "INPUT" || e.target.tagName === "SELECT") return;
    if (e.key === "ArrowRight") show(at + 1);
    if (e.key === "ArrowLeft") show(at - 1);
  });
}

fetch(LIVE.api, { headers: { Accept: "application/json" }, credentials: "same-origin" })
  .then(function (response) {
    if (!response.ok) throw new Error(response.status);
    return response.json();
  })
  .then(function (json) {
    data = json;
    build();
    renderResult();
    controls();
    show(0);
  })
  .catch(function () {
    document.getElementById("step-caption").textContent = T.offline;
  });
