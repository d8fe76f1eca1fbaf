import sys

from .cli import main

try:
    code = main()
    sys.stdout.flush()
except BrokenPipeError:  # e.g. piped into head
    code = 0
raise SystemExit(code)
