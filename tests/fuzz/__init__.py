"""The differential fuzzer (see runner.py); `python -m tests.fuzz --help` runs it long."""
