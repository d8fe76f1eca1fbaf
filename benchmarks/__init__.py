"""Load and speed benchmarks: management commands, the load client, the processes they start.

Everything here may use every other room of the project; nothing outside ``benchmarks/`` imports
it (``tests/test_layout.py`` checks).
"""
