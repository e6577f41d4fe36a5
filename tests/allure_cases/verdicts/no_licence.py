"""A server program that cannot start: it says why on stderr and exits with 3 before its first answer."""

import sys

print("notes server: no licence key in NOTES_LICENCE", file=sys.stderr)
sys.exit(3)
