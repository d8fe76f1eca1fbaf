"""What the tournaments room tells the rooms above it, which it cannot import."""

from django.dispatch import Signal

#: Sent inside the transaction of a change after which some users may no longer follow seats
#: they followed: a private link revoked or re-issued (``users``: the ids of its players'
#: logins), an event unpublished (``events``: its id). live.access ends the streams and
#: long-polls opened on that access at once.
access_ended = Signal()

#: Sent inside a penalty's transaction before a forced 大落 (罚为大落) is stored, with ``event``,
#: ``entry``, ``player``, ``table``, ``game_number``, ``reason`` and ``by``: games.services
#: rewrites that game's result with the player placed 大落; a ServiceError it raises refuses
#: the penalty.
forced_last = Signal()

#: Sent after an event starts or stops counting for the ratings (``Event.rated`` changed),
#: with ``event_id``: ratings.services re-rates it after the commit.
rated_changed = Signal()
