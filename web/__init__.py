"""The HTML side of the service: every page people open in a browser.

``views/`` holds one module per audience (``public.py`` today: event page, leaderboard, seating,
table page, projector, QR codes; the table-side pages, the results desk, the live table and
replays join it as ``table_side.py``, ``desk.py``, ``live.py``, ``replays.py``). Templates are in
``templates/web/``: one base layout (``base.html``), the shared parts beside it, and a folder
per views module (``public/``). Static files are in ``static/web/``: ``css/pages.css`` and small
plain JavaScript modules in ``js/`` (no build step), one per page plus what they share.

Views read through the models and selectors of the rooms below and write only through their
services; the JSON the page scripts poll is ``api/``'s.
"""
