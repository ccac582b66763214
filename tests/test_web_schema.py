"""Schemathesis over the server's OpenAPI schema, against the real server: whatever the
schema lets a client send to any operation, the answer is never a 5xx."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from web_helpers import running_server

from boardlab.ui.web.app import ServeSettings, create_app
from boardlab.ui.web.hall import HallSettings

SETTINGS = ServeSettings(
    hall=HallSettings(max_games=30, max_think=1.0, pace=0.0), analysis_seconds=0.5, analysis_agent="greedy"
)
schema = schemathesis.openapi.from_dict(create_app(SETTINGS).openapi())


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    with running_server(create_app(SETTINGS)) as url:
        yield url


# One test per operation, named by it (schemathesis's own parametrize gives every operation the
# same test id, and pytest-xdist then runs only one of them)
OPERATIONS = [result.ok() for result in schema.get_all_operations()]


@pytest.mark.parametrize("operation", OPERATIONS, ids=[operation.label for operation in OPERATIONS])
@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_no_operation_answers_a_server_error(operation: Any, data: st.DataObject, base_url: str) -> None:
    case = data.draw(operation.as_strategy())
    response = case.call(base_url=base_url, timeout=60)
    assert response.status_code < 500, (case.method, case.formatted_path, case.body, response.text)
