"""Ports picked for servers are claimed, so that two mcpbdd pickers never get the same one (`ports.py`).

Without the claim, the OS may hand a second picker (another `--jobs` or test worker) the port the first one
picked and has not bound yet: one server then loses its port, or one harness talks to the other's server.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest

from mcpbdd.harness.processes import ports

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="claims live in Linux's abstract names")


def test_a_claimed_port_cannot_be_claimed_again_until_it_is_let_go() -> None:
    claim = ports.claim_port()
    assert claim.held is not None
    assert ports.try_claim(claim.port) is None, "a second picker must not get a port that is claimed"
    claim.close()
    again = ports.try_claim(claim.port)
    assert again is not None, "a port let go is free to claim"
    again.close()


def test_a_picker_given_a_claimed_port_picks_again(monkeypatch: pytest.MonkeyPatch) -> None:
    with ports.claim_port() as first, ports.claim_port() as other:
        spare = other.port
        other.close()
        picks: Iterator[int] = iter([first.port, first.port, spare])
        monkeypatch.setattr(ports, "_os_pick", lambda _host: next(picks))
        with ports.claim_port() as second:
            assert second.port == spare, f"the OS offered the claimed {first.port} twice; the picker took it"
            assert second.held is not None


def test_when_every_pick_is_claimed_the_last_is_given_unclaimed(monkeypatch: pytest.MonkeyPatch) -> None:
    with ports.claim_port() as first:
        monkeypatch.setattr(ports, "_os_pick", lambda _host: first.port)
        given = ports.claim_port()
        assert (given.port, given.held) == (first.port, None)


def test_free_port_keeps_its_recent_claims_and_lets_the_oldest_go(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ports, "RECENT_CLAIMS", 2)
    monkeypatch.setattr(ports, "_recent", type(ports._recent)())
    oldest, middle, newest = ports.free_port(), ports.free_port(), ports.free_port()
    assert ports.try_claim(middle) is None and ports.try_claim(newest) is None
    released = ports.try_claim(oldest)
    assert released is not None, "the oldest of three claims is let go once two are kept"
    released.close()
    for claim in ports._recent:
        claim.close()
