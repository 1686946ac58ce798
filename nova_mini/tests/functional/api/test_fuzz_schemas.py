#    Licensed under the Apache License, Version 2.0 (the "License"); you may
#    not use this file except in compliance with the License. You may obtain
#    a copy of the License at
#
#         http://www.apache.org/licenses/LICENSE-2.0
#
#    Unless required by applicable law or agreed to in writing, software
#    distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
#    WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
#    License for the specific language governing permissions and limitations
#    under the License.

"""Seeded fuzzing of both API roots: no input earns a 5xx or logs a
traceback.

Each endpoint of tests/fixtures/fuzz_targets.py gets requests generated
from its own JSON schema (mostly valid ones that reach the handler and
the database, mixed with arbitrary JSON that the schema must refuse with
a 4xx) and, for half of them, hostile shapes: JSON nested 30,000 deep,
NaN and 2**70 in numeric fields, NUL bytes, bodies that are not UTF-8,
long microversion headers and tokens, regular expressions and 600-trait
filters. The runs are derandomized (the same examples every time) and
small, a few hundred requests in all; set NOVA_MINI_FUZZ_EXAMPLES (per
endpoint, 12 by default) for a longer run of the same strategies, or run
tools/bench/api_fuzz.py (10,000 requests and more, on SQLite and
PostgreSQL, with a status histogram and the tracebacks logged).
"""

import logging
import os

import fixtures
from hypothesis import given
from hypothesis import HealthCheck
from hypothesis import settings
from hypothesis import strategies as st
import pytest
import webtest

from nova_mini.tests.fixtures import api as api_fixture
from nova_mini.tests.fixtures import fuzz_targets

# A request cut after this long fails the test (a 500) instead of
# holding it: a worker stalled for seconds is a denial of service.
_DEADLINE = 10

_SETTINGS = settings(
    max_examples=int(os.environ.get('NOVA_MINI_FUZZ_EXAMPLES', 12)),
    derandomize=True, database=None, deadline=None,
    suppress_health_check=list(HealthCheck))


@pytest.fixture(scope='module')
def api():
    fixture = api_fixture.APIFixture()
    fixture.setUp()
    app = webtest.TestApp(fixture.app)
    deadline = fuzz_targets.Deadline(fixture.database.engine)

    def send(method, path, headers, body, content_type):
        kwargs = {'content_type': content_type} if content_type else {}
        with deadline(_DEADLINE):
            response = app.request(path, method=method, headers=headers,
                                   body=body, expect_errors=True, **kwargs)
        return response.status_int, response.text

    ids = fuzz_targets.setup(send)
    yield send, ids
    fixture.cleanUp()


@pytest.mark.parametrize('target', fuzz_targets.TARGETS,
                         ids=[t.name for t in fuzz_targets.TARGETS])
@_SETTINGS
@given(data=st.data())
def test_no_input_earns_a_5xx(api, target, data):
    send, ids = api
    request = data.draw(target.strategy, label='request')
    path = fuzz_targets.resolve(request.path, ids)
    # Records of WARNING and above, with their tracebacks.
    with fixtures.FakeLogger(level=logging.WARNING,
                             format='%(message)s') as logged:
        status, text = send(request.method, path, request.headers,
                            request.body, request.content_type)
    output = logged.output
    assert status < 500 and 'Traceback' not in output, (
        '%s %s (%s) %r: %s %s\n%s' % (
            request.method, path[:300], request.shape,
            (request.body or b'')[:300], status, text[:500],
            output[-3000:]))
