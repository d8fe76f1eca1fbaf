/* Cards as the pages show them: "10H" → 10♥ (red), "BJ" → 小王, "RJ" → 大王. Each card is a
 * <span class="pcard" data-card="…">, so a test can read every card a page shows. Only display:
 * which cards a seat holds or may play is the server's (the engine's) to say. */
import { el } from "./common.js";

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
