"""Take a seat and play a live 够级 game against five bots in the terminal.

It goes through the same services as the API (``live.services``): the server deals, the engine
checks every act, bots act for the other seats, and the finished game becomes a table result.
"""

from __future__ import annotations

import random
import secrets
import sys

from django.core.management.base import BaseCommand

from engine.bots import HeuristicBot
from engine.cards import CARD_RANK, card_word
from live import services as live
from tournaments.services.draws import round_draw
from tournaments.services.entries import entry_check_in, entry_register
from tournaments.services.events import event_create
from tournaments.services.players import player_create
from tournaments.services.rounds import round_create

HELP = """Type cards to play them (e.g. `9S 9H 2C`, `10D`, `BJ`), or:
  p / pass     pass (过牌)          y / yield   yield (让牌)
  b CARDS      burn (烧牌)          d / decline decline a pre-play choice
  r CARDS      return cards (还贡)  buy 2S      buy a 3 paying with 2S (买3)
  ming / yu    declare 明点 / 预点   revolt      革命        hui3   会3
  auto         let the bot play your seat to the end (托管)
  ? / legal    list your legal acts            q          quit"""


def _hand_words(hand):
    groups = {}
    for c in hand:
        groups.setdefault(CARD_RANK[c], []).append(card_word(c))
    return "  ".join(" ".join(g) for _, g in sorted(groups.items()))


class Command(BaseCommand):
    help = "Play a live game in the terminal: you take a seat, five bots take the others."

    def add_arguments(self, parser):
        parser.add_argument("--seat", type=int, default=0, choices=range(6))
        parser.add_argument("--rules", default="dagang")
        parser.add_argument("--seed", type=int, default=None, help="bots' random seed")
        parser.add_argument("--bots-only", action="store_true", help="let a bot play your seat")

    def handle(self, *args, seat, rules, seed, bots_only, **opts):
        rng = random.Random(seed)
        slug = f"live-{secrets.token_hex(6)}"
        event = event_create(name="Live table", slug=slug, rules=rules,
                                      games_per_match=1, rounds_planned=1)
        for i in range(6):
            entry = entry_register(
                event=event, player=player_create(name=f"Seat {i}"))
            entry_check_in(entry=entry)
        rnd = round_create(event=event)
        rnd = round_draw(round_id=rnd.pk)
        table = rnd.tables.get()
        lg = live.live_start(table=table)
        bot = HeuristicBot(rng)
        out = self.stdout.write
        out(f"You are seat {seat} (联邦 {seat % 2}; your 对头 is seat {(seat + 3) % 6}). "
            f"Rules: {rules}. Type ? for help.\n")
        last_shown = 0
        while True:
            lg.refresh_from_db()
            game = live.live_game(lg)
            view = game.view(seat)
            for a in view["actions"][last_shown:]:
                who = "you" if a["seat"] == seat else f"seat {a['seat']}"
                what = " ".join(card_word(c) for c in a.get("cards", [])) or ""
                out(f"  {who}: {a['act']} {what}".rstrip())
            last_shown = len(view["actions"])
            if lg.status == "finished":
                res = view["result"]
                out("\nGame over. Places (seat: place): " + ", ".join(
                    f"{s}: {p}" for s, p in enumerate(res["places"])))
                out(f"Team points: 联邦 0 {res['team_points'][0]}, 联邦 1 "
                    f"{res['team_points'][1]}" + ("  (串三户!)" if res["sweep"] else ""))
                return
            to_act = view["to_act"] or {}
            actor = to_act.get("seat")
            hosted = bool(lg.hosted >> seat & 1)
            if actor != seat or bots_only or hosted:
                action = bot.choose(game, actor)
                live.live_act(live_id=lg.pk, seat=actor, action=action, version=lg.version,
                              auto=hosted and actor == seat)
                continue
            top = view["top"]
            out("")
            out("cards left: " + ", ".join(f"{s}:{n}" for s, n in enumerate(view["counts"])))
            if top:
                out(f"on the table: seat {top['seat']}: "
                    + " ".join(card_word(c) for c in top["cards"]))
            out(f"your hand: {_hand_words(view['hand'])}")
            out(f"you may: {', '.join(to_act.get('acts', []))}")
            try:
                line = input("> ").strip()
            except EOFError:
                return
            action = self._parse(line, view)
            if action == "quit":
                return
            if action == "auto":  # this terminal is the seat's player: nobody else to ask
                live.live_host(live_id=lg.pk, seat=seat, on=True, referee=True)
                out("托管: the bot plays your seat from now on")
                continue
            if action is None:
                continue
            try:
                live.live_act(live_id=lg.pk, seat=seat, action=action, version=lg.version)
            except Exception as exc:  # refused: show the engine's words, state unchanged
                out(f"refused: {getattr(exc, 'message', exc)}")

    def _parse(self, line, view):
        words = line.split()
        if not words:
            return None
        head = words[0].lower()
        if head in ("q", "quit", "exit"):
            return "quit"
        if head in ("auto", "托管"):
            return "auto"
        if head in ("?", "help", "h"):
            self.stdout.write(HELP)
            return None
        if head in ("legal", "l"):
            for a in view["legal"][:60]:
                self.stdout.write("  " + " ".join(f"{k}={v}" for k, v in a.items()))
            return None
        simple = {"p": "pass", "pass": "pass", "y": "yield", "yield": "yield",
                  "d": "decline", "decline": "decline", "revolt": "revolt", "hui3": "hui3",
                  "waive": "waive_gousiji"}
        if head in simple:
            return {"act": simple[head]}
        if head in ("ming", "yu"):
            return {"act": "declare", "kind": "mingdian" if head == "ming" else "yudian"}
        if head in ("b", "burn"):
            return {"act": "burn", "cards": words[1:]}
        if head in ("r", "return"):
            return {"act": "return", "cards": words[1:]}
        if head == "buy" and len(words) == 2:
            return {"act": "buy3", "give": words[1]}
        return {"act": "play", "cards": words}


if __name__ == "__main__":  # pragma: no cover
    sys.exit("run: python manage.py play_live")
