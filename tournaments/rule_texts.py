"""The rules options as people read them: one label and one short explanation per option of
engine/rules.py, the words for their values, and the presets' names. The admin's settings form and
the public event page both read them here, so an option is named the same way everywhere."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

#: each rules option (RULES.md, engine/rules.py): (label, the rule book's short explanation), in
#: the order a rule book gives them
RULE_OPTIONS: dict[str, tuple] = {
    "dadian": (_("打点 (开点 against one's 对头)"), _(
        "Each seat must win a round against its 对头 (开点); a seat that does not pays 点贡 "
        "(RULES.md §9, §11).")),
    "bie3": (_("憋3 (a hand's last combo is its 3s)"), _(
        "Every seat's last play must be all its 3s, pure; a seat whose 3s are beaten is "
        "闷 (RULES.md §10).")),
    "men": (_("闷 (a smothered seat)"), _(
        "A seat 闷ed by 憋3: eliminated at once as 大落 (the Outline), or plays on and pays one "
        "闷贡 next game (online play).")),
    "first_lead": (_("first lead of a later game"), _(
        "Who leads a game: the previous game's 大落, or in turn after the previous game's first "
        "leader (RULES.md §3).")),
    "revolution": (_("革命 (revolution)"), _(
        "A seat dealt no joker and no 2 may declare revolution before play (RULES.md §8).")),
    "revolution_gousiji": (_("够死级 rights after a 革命"), _(
        "How many unbeatable 够级 plays the revolutionary's 对头 gets (0–9, default 3).")),
    "revolution_kaidian": (_("开点 of a revolutionary's 对头"), _(
        "The revolutionary's 对头 开点s only through its 够死级 rights, or at once.")),
    "tribute": (_("进贡 (tributes)"), _(
        "Places pay tribute (落贡) to the top places before the next game (RULES.md §9).")),
    "tribute_within_team": (_("落贡 between teammates"), _(
        "When giver and receiver of a 落贡 are teammates, no tribute is paid.")),
    "strict_burn": (_("烧牌 refused unless it can succeed"), _(
        "A burn is refused unless the burner can still finish it; off: any burn is accepted and "
        "a failed burn (诈烧) is placed 大落.")),
    "hui3": (_("会3 (the leader may remove the 3s)"), _(
        "Before the first lead, the leader may choose to remove the 3s' special role; never "
        "with 憋3.")),
    "show_counts": (_("报牌 (card counts shown)"), _(
        "Card counts shown to the table: always, or only at 10 cards or fewer.")),
    "rj_beats_any": (_("a 大王-attached combo beats any combo"), _(
        "A combo with a 大王 attached beats any plain or 小王-attached combo of its size.")),
    "closer_last": (_("the 对头 closes last (扣牌)"), _(
        "The owner's 对头, having passed early, is asked once more after everyone else passed "
        "(online play).")),
    "end_when_one_team_left": (_("a game ends when one 联邦 is left"), _(
        "The game ends as soon as every seat still holding cards is of one team; they take the "
        "remaining places by fewest cards.")),
    "fanche_double": (_("翻车 pays double"), _(
        "A 翻车 (the 对头 开点s against a 明点/预点) pays double: 4 and 8.")),
}

#: the words for an option's values (numbers are shown as they are)
VALUE_LABELS = {
    True: _("on"),
    False: _("off"),
    "last_place": _("eliminated as 大落"),
    "tribute": _("plays on, pays 闷贡"),
    "loser": _("the previous game's 大落"),
    "rotate": _("in turn"),
    "rights": _("through its 够死级 rights"),
    "auto": _("automatic (对门开点)"),
    "always": _("always"),
    "le10": _("at 10 cards or fewer"),
}

#: the presets as a choice (the admin) and as a sentence (the public event page)
PRESET_CHOICES = [
    ("dagang", _("大纲 (the Outline, default)")),
    ("basic", _("basic: the Outline's chapter-2 rules only")),
    ("online", _("online play (003)")),
]
PRESET_LABELS = {
    "dagang": _("大纲: the Qingdao competition outline"),
    "basic": _("basic: the outline's chapter-2 rules only"),
    "online": _("online: as common online servers play"),
}
