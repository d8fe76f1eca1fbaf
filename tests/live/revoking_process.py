"""Another process on the database of tests/live/test_live_revocations.py's servers:

- ``build``: a table with a live game; prints (JSON) the game, its seat 0's private link, entry
  and player;
- ``revoke <entry> <player>``: revokes that link, and prints when it began (``time.monotonic``,
  the clock the test reads too).
"""

import json
import sys
import time

import django


def main(command: str, *args: str) -> None:
    django.setup()
    from rest_framework.test import APIClient

    from live import services as live
    from tests.live.helpers import make_live_table
    from tests.pages.test_live_table_views import links_of
    from tournaments.models import Entry, Player, Seat
    from tournaments.services.links import entry_link_revoke

    if command == "build":
        lt = make_live_table(client_cls=APIClient)
        live_id = live.live_start(table=lt.table).pk
        seat = Seat.objects.get(table=lt.table, seat=0)
        print(json.dumps({"live": live_id, "link": links_of(lt.table)[0],
                          "entry": seat.entry_id, "player": seat.player_id}))
    elif command == "revoke":
        at = time.monotonic()
        entry_link_revoke(entry=Entry.objects.get(pk=int(args[0])),
                                   player=Player.objects.get(pk=int(args[1])))
        print(at)


if __name__ == "__main__":
    main(*sys.argv[1:])
