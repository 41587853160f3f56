"""Command-line entry points report a ValueError (a bad path, another variant's checkpoint, a bad
option combination) as a usage error: the message and exit status 2, no traceback."""
import argparse
import contextlib


@contextlib.contextmanager
def value_errors_as_usage(ap: argparse.ArgumentParser):
    """Turns a ValueError raised in the block into ap.error(message)."""
    try:
        yield
    except ValueError as e:
        ap.error(str(e))
