import cProfile
import io
import json
import pstats
import random
import time

import pytest

from engine.bots import play_match
from tests.api.helpers import client_for, seats_of
from tests.factories import UserFactory
from tournaments import services

pytestmark = pytest.mark.django_db

def test_prof(event):
    for i in range(60):
        user = UserFactory(username=f"p{i:02d}")
        player = services.player_create(name=f"P {i:02d}", number=100 + i, user=user)
        services.entry_check_in(entry=services.entry_register(event=event, player=player))
    rnd = services.round_publish(round=services.round_draw(round_id=services.round_create(event=event).pk))
    tables = list(rnd.tables.all())
    jobs = []
    rng = random.Random(3)
    for t in tables:
        recs = [g.record() for g in play_match("dagang", 2, rng)]
        u = seats_of(t)[0].player.user
        c = client_for(u)
        assert c.post(f"/api/v1/tables/{t.pk}/results/", {"number": 1, "record": recs[0]}, format="json").status_code == 201
        jobs.append((c, t, json.dumps({"number": 2, "record": recs[1]})))
    pr = cProfile.Profile()
    t0 = time.perf_counter()
    pr.enable()
    for c, t, body in jobs:
        r = c.post(f"/api/v1/tables/{t.pk}/results/", data=body, content_type="application/json")
        assert r.status_code == 201
    pr.disable()
    print("per request ms", (time.perf_counter()-t0)/len(jobs)*1000)
    s = io.StringIO()
    pstats.Stats(pr, stream=s).sort_stats("tottime").print_stats(30)
    print(s.getvalue())
