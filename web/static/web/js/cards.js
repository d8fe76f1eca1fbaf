/* Cards as the pages show them: "10H" → 10♥ (red), "BJ" → 小王, "RJ" → 大王. Each card is a
 * <span class="pcard" data-card="…">, so a test can read every card a page shows. Only display:
 * which cards a seat holds or may play is the server's (the engine's) to say. */
import { T, el, fmt } from "./common.js";

var SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
var JOKERS = { BJ: "小王", RJ: "大王" };

export function cardNode(card) {
  var node = el("span", "pcard");
  node.dataset.card = card;
  if (JOKERS[card]) {
    node.textContent = JOKERS[card];
    node.classList.add(card === "RJ" ? "joker-red" : "joker-black");
    return node;
  }
  var suit = card.slice(-1);
  node.textContent = card.slice(0, -1) + (SUITS[suit] || suit);
  if (suit === "H" || suit === "D") node.classList.add("red");
  return node;
}

export function cardsNode(cards, className) {
  var box = el("span", "cards" + (className ? " " + className : ""));
  (cards || []).forEach(function (card) { box.appendChild(cardNode(card)); });
  return box;
}

/* A pre-play event as one line (tributes, returns and 买3 show their cards: they are shown at
 * the table); `who(seat)` names a seat. */
export function preEventNode(ev, who) {
  var li = el("li", "pre");
  if (ev.type === "tribute" || ev.type === "return") {
    li.textContent = fmt("tribute", { kind: T["tribute_" + ev.kind] || T.returned || ev.type, from: who(ev.from), to: who(ev.to), cards: "" });
    li.appendChild(cardsNode(ev.cards));
  } else if (ev.type === "buy3") {
    li.textContent = fmt("buy3", { who: who(ev.seat), from: who(ev.from) });
    li.appendChild(cardsNode([ev.give, ev.take]));
  } else if (ev.type === "revolution") {
    li.textContent = fmt("revolution", { who: who(ev.seat) });
  } else if (ev.type === "declare") {
    li.textContent = fmt("declare", { who: who(ev.seat), kind: ev.kind });
  } else {
    li.textContent = (T["pre_" + ev.type] || ev.type) + (ev.seat !== undefined ? " · " + who(ev.seat) : "");
  }
  return li;
}
