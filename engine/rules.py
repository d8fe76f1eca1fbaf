"""Rule options and presets (RULES.md §13).

A rules spec is a preset name (``"dagang"``, ``"basic"``, ``"online"``) or
``{"preset": "dagang", "options": {"bie3": false}}``.
"""

from __future__ import annotations

from collections.abc import Mapping

#: Every option with its allowed values (a tuple) or type, and its default.
OPTION_CHOICES: dict[str, tuple] = {
    "dadian": (True, False),  # 打点 / 开点
    "bie3": (True, False),  # 憋3
    "men": ("last_place", "tribute"),  # 闷
    "first_lead": ("loser", "rotate"),
    "revolution": (True, False),  # 革命
    "revolution_gousiji": None,  # int >= 0
    "revolution_kaidian": ("rights", "auto"),  # the revolutionary's 对头: 开点 by rights, or at once
    "tribute": (True, False),  # 进贡
    "tribute_within_team": (True, False),
    "strict_burn": (True, False),  # 烧牌
    "hui3": (True, False),  # 会3
    "show_counts": ("always", "le10"),  # 报牌
    "rj_beats_any": (True, False),
    "closer_last": (True, False),
    "end_when_one_team_left": (True, False),
    "fanche_double": (True, False),  # 翻车加倍
}

DEFAULTS: dict[str, object] = {
    "dadian": True,
    "bie3": True,
    "men": "last_place",
    "first_lead": "rotate",
    "revolution": True,
    "revolution_gousiji": 3,
    "revolution_kaidian": "rights",
    "tribute": True,
    "tribute_within_team": False,
    "strict_burn": True,
    "hui3": False,
    "show_counts": "le10",
    "rj_beats_any": False,
    "closer_last": False,
    "end_when_one_team_left": True,
    "fanche_double": False,
}

PRESETS: dict[str, dict[str, object]] = {
    "dagang": {},
    "basic": {
        "dadian": False,
        "bie3": False,
        "first_lead": "loser",
        "hui3": True,
    },
    "online": {
        "men": "tribute",
        "strict_burn": False,
        "end_when_one_team_left": False,
        "closer_last": True,
        "revolution_kaidian": "auto",
        "show_counts": "always",
    },
}


#: one immutable :class:`Rules` per preset name, made on first use
_BY_PRESET: dict[str, Rules] = {}


class RulesError(ValueError):
    """A rules spec that names an unknown preset or option, or a bad value."""


class Rules(Mapping):
    """An immutable set of options; read them as ``rules["bie3"]`` or ``rules.bie3``."""

    __slots__ = ("preset", "_opts", "_spec")

    def __init__(self, preset: str = "dagang", options: Mapping | None = None):
        if preset not in PRESETS:
            raise RulesError(f"unknown rules preset {preset!r}; use one of {', '.join(PRESETS)}")
        opts = dict(DEFAULTS)
        opts.update(PRESETS[preset])
        for key, value in (options or {}).items():
            if key not in OPTION_CHOICES:
                raise RulesError(f"unknown rules option {key!r}")
            choices = OPTION_CHOICES[key]
            if choices is None:
                if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 9:
                    raise RulesError(f"option {key!r} must be a whole number from 0 to 9")
            elif value not in choices or type(value) is not type(choices[0]):
                raise RulesError(
                    f"option {key!r} must be one of {', '.join(map(repr, choices))}, not {value!r}"
                )
            opts[key] = value
        if opts["hui3"] and opts["bie3"]:
            if options and options.get("hui3") and options.get("bie3", True):
                raise RulesError("option 'hui3' (会3) cannot be used with 'bie3' (憋3)")
            opts["hui3"] = False
        self.preset = preset
        self._opts = opts
        self._spec = preset if not options else {"preset": preset, "options": dict(options)}

    @classmethod
    def from_spec(cls, spec) -> Rules:
        if isinstance(spec, Rules):
            return spec
        if spec is None:
            return cls()
        if isinstance(spec, str):
            got = _BY_PRESET.get(spec)
            if got is None:
                got = cls(spec)  # raises RulesError for an unknown preset
                _BY_PRESET[spec] = got
            return got
        if isinstance(spec, Mapping):
            extra = set(spec) - {"preset", "options"}
            if extra:
                raise RulesError(f"unknown key in rules: {', '.join(sorted(extra))}")
            preset = spec.get("preset", "dagang")
            options = spec.get("options") or {}
            if not isinstance(preset, str) or not isinstance(options, Mapping):
                raise RulesError("rules must be {'preset': name, 'options': {...}}")
            return cls(preset, options)
        raise RulesError(f"rules must be a preset name or an object, not {type(spec).__name__}")

    def spec(self):
        """The JSON form this was made from (a preset name or ``{"preset", "options"}``)."""
        return self._spec

    def __getitem__(self, key):
        return self._opts[key]

    def __getattr__(self, key):
        if key.startswith("_"):
            raise AttributeError(key)
        try:
            return self._opts[key]
        except KeyError:
            raise AttributeError(key) from None

    def __iter__(self):
        return iter(self._opts)

    def __len__(self):
        return len(self._opts)

    def __repr__(self):
        return f"Rules({self._spec!r})"

    def __eq__(self, other):
        return isinstance(other, Rules) and self._opts == other._opts

    def __hash__(self):
        return hash(tuple(sorted(self._opts.items())))

    def __copy__(self):
        return self  # immutable

    def __deepcopy__(self, memo):
        return self
