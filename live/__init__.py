"""Live play (对局直播): a table plays its game on the service, act by act.

``models`` (the game's row), ``services`` (start, act, 托管, the timer), ``cache`` (this
process's engine games), ``queries`` (the seat-and-publication read), ``locks`` (the game's row
lock), ``notify`` and ``streams`` (waking and answering waiting clients), ``tasks`` (the timer
on Celery). Results of finished games are ``games``'; live calls ``games.services``.
"""
