"""What a server's code holds: the tenant handle's awaited snapshot, and doubles that always carry an upstream.

Both came from a newcomer's server: awaiting the service's synchronous `snapshot` raised a bare TypeError, and
`Doubles.upstream` was typed Optional with nothing saying when it is None.
"""

from __future__ import annotations

import httpx
import pytest

from mcpbdd.kit.clock import FrozenClock
from mcpbdd.kit.doubles import Doubles, NoUpstream
from mcpbdd.storage import RequestCancelledError, StorageService


@pytest.mark.anyio
async def test_a_server_awaits_its_tenants_snapshot_and_sees_only_that_tenant() -> None:
    service = StorageService(clock=FrozenClock())
    acme, globex = service.tenant("acme"), service.tenant("globex")
    await acme.set("expenses/e-2", {"amount": 5})
    await acme.set("expenses/e-1", {"amount": 12})
    await globex.set("expenses/e-9", {"amount": 1})
    assert await acme.snapshot() == {"expenses/e-1": {"amount": 12}, "expenses/e-2": {"amount": 5}}
    assert await acme.snapshot() == service.snapshot("acme")  # the scenario's synchronous view agrees


@pytest.mark.anyio
async def test_a_cancelled_request_cannot_snapshot() -> None:
    service = StorageService(clock=FrozenClock())
    with pytest.raises(RequestCancelledError):
        await service.tenant("acme", cancelled=lambda: True).snapshot()


@pytest.mark.anyio
async def test_doubles_built_without_an_upstream_refuse_every_request_naming_the_fix() -> None:
    doubles = Doubles(StorageService(clock=FrozenClock()), FrozenClock())
    assert isinstance(doubles.upstream, NoUpstream)
    async with httpx.AsyncClient(transport=doubles.upstream.transport()) as client:
        with pytest.raises(httpx.ConnectError, match=r"no upstream double for GET https://pay\.example\.com/v1"):
            await client.get("https://pay.example.com/v1")
