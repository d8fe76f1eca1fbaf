"""Scoring (RULES.md §9, §11–§12): 开点 as the game goes, places (名次) and team points,
what the next game at the table owes (进贡) and who leads it.
"""

from __future__ import annotations

from .state import TRIBUTE_KINDS, opp

PLACE_POINTS = {1: 4, 2: 2, 3: 0, 4: 0, 5: -2, 6: -4}
PLACE_WORD = {1: "头科", 2: "二科", 3: "三科", 4: "四科", 5: "二落", 6: "大落"}


class Scoring:
    """开点, places, the result object, the tributes owed to the next game."""

    def _credit_win(self, w):
        """The round won by seat ``w`` (its top stood): a 够级 win before 开点 is judged opens
        its 点; a 够死级 of a revolution right counts towards the rights it must live."""
        if not self._dadian or self.kaidian_closed or self.top is None \
                or self.kaidian[w] is False:
            return
        if self.top_gousiji_right:
            self.gousiji_lived[w] += 1
            if self.gousiji_lived[w] >= self.rules["revolution_gousiji"] > 0:
                self.kaidian[w] = True
            return
        if opp(w) in self.revolutionaries:
            return
        if self.top_gouji and self.top.n_rj == 0 and not self.top_answers_dipai:
            self.kaidian[w] = True

    def _judge_kaidian(self, s):
        """开点 judgments when 头科 or 二科 is produced (大纲 第二十四条: 头科产生前 / 二科产生前)."""
        if not self._dadian:
            return
        if s == self.finish_order[0]:
            for t in (opp(s), s):
                if self.kaidian[t] is not True:
                    self.kaidian[t] = False
        else:
            head = self.finish_order[0]
            for t in range(6):
                if t != head and self.kaidian[t] is not True:
                    self.kaidian[t] = False
            self.kaidian_closed = True

    def _settle_kaidian(self):
        """At the end of the game: every seat not yet judged, and every revolutionary, is
        不开点."""
        if self._dadian:
            for s in range(6):
                if self.kaidian[s] is None:
                    self.kaidian[s] = False
            for s in self.revolutionaries:
                self.kaidian[s] = False

    # ------------------------------------------------------------------ results
    def places(self) -> list[int]:
        places = [0] * 6
        taken = set()
        fo = self.finish_order
        if len(self.revolutionaries) == 1:
            rv = self.revolutionaries[0]
            mates = {(rv + 2) % 6, (rv + 4) % 6}
            rp = None
            if fo and fo[0] not in mates:
                rp = 4
            elif len(fo) >= 2:
                rp = 3 if set(fo[:2]) == mates else 4
            elif self.state == "over":
                rp = 4
            if rp is not None:
                places[rv] = rp
                taken.add(rp)
        elim = sorted(range(len(self.eliminated)),
                      key=lambda i: (self.eliminated[i][1] != "failed_burn", i))
        bottom = 6
        for i in elim:
            while bottom in taken:
                bottom -= 1
            places[self.eliminated[i][0]] = bottom
            taken.add(bottom)
        top = 1
        for s in fo:
            while top in taken:
                top += 1
            places[s] = top
            taken.add(top)
        return places

    def result(self) -> dict:
        """The result object of RECORD.md for the game so far."""
        places = self.places()
        complete = self.state == "over"
        order = sorted((s for s in range(6) if places[s]), key=places.__getitem__) if \
            complete else [s for s in sorted(range(6), key=lambda s: places[s] or 9)
                           if places[s]]
        team_points = [0, 0]
        sweep = False
        if complete and not self.void:
            sums = [0, 0]
            for s in range(6):
                sums[s % 2] += PLACE_POINTS[places[s]]
            for t in (0, 1):
                if {places[t], places[t + 2], places[t + 4]} == {1, 2, 3}:
                    sweep = True
                    team_points[t] = 12
            if not sweep:
                team_points = [max(0, sums[0]), max(0, sums[1])]
        res = {
            "ok": True,
            "complete": complete,
            "void": self.void,
            "places": places,
            "order": order,
            "team_points": team_points,
            "sweep": sweep,
            "kaidian": (list(self.kaidian) if self._dadian else [None] * 6),
            "revolutions": list(self.revolutionaries),
            "eliminated": [{"seat": s, "reason": r} for s, r in self.eliminated],
            "burns": [{"burner": b["burner"], "burned": b["burned"], "counter": b["counter"]}
                      for b in self.burns],
            "smothers": list(self.smothers),
            "owed_tributes": self.owed_tributes() if complete else [],
            "next_leader": self.next_leader() if complete else None,
            "to_act": None if complete else self.to_act(),
        }
        return res

    def owed_tributes(self) -> list[dict]:
        """What the next game at this table must pay (RULES.md §9, §11)."""
        if self.void:
            return [dict(t) for t in self.owed_pre]
        if not self.rules["tribute"] or self.state != "over":
            return []
        owed: dict[tuple, int] = {}

        def add(kind, frm, to, n):
            if n > 0:
                owed[(kind, frm, to)] = owed.get((kind, frm, to), 0) + n

        if self._dadian:
            kd = self.kaidian
            mult = 2 if self.rules["fanche_double"] else 1
            for frm in range(6):
                to = opp(frm)
                n = 0
                if kd[frm] is False:
                    n = 1
                    if self.declared[to]:
                        n = 2 if self.declared[to] == "mingdian" else 4
                if self.declared[frm] and kd[to] is True:
                    n += (2 if self.declared[frm] == "mingdian" else 4) * mult
                add("dian", frm, to, n)
        for frm, to in self.men_owed:
            add("men", frm, to, 1)
        for b in self.burns:
            if not b.get("failed"):
                add("shao", b["burned"], b["burner"], 2 if b["counter"] else 1)
        places = self.places()
        sweep = any({places[t], places[t + 2], places[t + 4]} == {1, 2, 3} for t in (0, 1))
        if not sweep:
            at = {places[s]: s for s in range(6)}
            for giver, taker, n in ((6, 1, 2), (5, 2, 1)):
                g, t = at.get(giver), at.get(taker)
                if g is None or t is None:
                    continue
                if g % 2 == t % 2 and not self.rules["tribute_within_team"]:
                    continue
                add("luo", g, t, n)
        order = {k: i for i, k in enumerate(TRIBUTE_KINDS)}
        return [{"kind": k, "from": f, "to": t, "count": n}
                for (k, f, t), n in sorted(owed.items(), key=lambda kv: order[kv[0][0]])]

    def next_leader(self) -> int | None:
        if self.void:
            return self.leader if self.leader is not None else self.expected_leader()
        if self.rules["first_lead"] == "rotate":
            base = self.leader if self.leader is not None else self.opening_seat
            return (base + 1) % 6
        places = self.places()
        if any({places[t], places[t + 2], places[t + 4]} == {1, 2, 3} for t in (0, 1)):
            return None  # after 串三户 the next game is opened afresh (亮3)
        return places.index(6)
