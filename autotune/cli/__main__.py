"""`python -m autotune.cli ...` runs the CLI (tests and subprocesses use it)."""

from autotune.cli import main

main()
