"""What the tournaments room tells the rooms above it, which it cannot import."""

from django.dispatch import Signal

#: Sent inside the transaction of a change after which some users may no longer follow seats
#: they followed: a private link revoked or re-issued (``users``: the ids of its players'
#: logins), an event unpublished (``events``: its id). live.access ends the streams and
#: long-polls opened on that access at once.
access_ended = Signal()
