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

"""Seeded fuzzing of the request schemas: no input earns a 5xx.

Each endpoint of tests/fixtures/fuzz_targets.py (both roots) gets bodies
(or query strings) generated from its own JSON schema, mostly valid ones
that reach the handler and the database, mixed with arbitrary JSON that
the schema must refuse with a 4xx. The runs are derandomized (the same
examples every time) and small, a few hundred requests in all; set
NOVA_MINI_FUZZ_EXAMPLES (per endpoint, 30 by default) for a longer run of
the same strategies, or run tools/bench/api_fuzz.py (10,000 requests and
more, with a status histogram).
"""

import json
import os

from hypothesis import given
from hypothesis import HealthCheck
from hypothesis import settings
from hypothesis import strategies as st
import pytest
import webtest

from nova_mini.tests.fixtures import api as api_fixture
from nova_mini.tests.fixtures import fuzz_targets

_SETTINGS = settings(
    max_examples=int(os.environ.get('NOVA_MINI_FUZZ_EXAMPLES', 30)),
    derandomize=True, database=None, deadline=None,
    suppress_health_check=[HealthCheck.too_slow,
                           HealthCheck.filter_too_much,
                           HealthCheck.data_too_large])


@pytest.fixture(scope='module')
def api():
    fixture = api_fixture.APIFixture()
    fixture.setUp()
    app = webtest.TestApp(fixture.app)
    for method, path, headers, body in fuzz_targets.SETUP:
        app.request(path, method=method, headers=headers,
                    body=json.dumps(body).encode(),
                    content_type='application/json')
    yield app
    fixture.cleanUp()


@pytest.mark.parametrize('target', fuzz_targets.TARGETS,
                         ids=[t.name for t in fuzz_targets.TARGETS])
@_SETTINGS
@given(data=st.data())
def test_no_input_earns_a_5xx(api, target, data):
    method, path, body = fuzz_targets.request_of(
        target, data.draw(target.strategy, label='request'))
    kwargs = {}
    if body is not None or target.body:
        kwargs = {'body': json.dumps(body).encode(),
                  'content_type': 'application/json'}
    response = api.request(path, method=method, headers=target.headers,
                           expect_errors=True, **kwargs)
    assert response.status_int < 500, (
        '%s %s %r: %s %s' % (method, path, body, response.status,
                             response.text[:500]))
