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

Each endpoint gets bodies (or query strings) generated from its own JSON
schema (tests/fixtures/schema_strategies.py), mostly valid ones that reach the handler
and the database, mixed with arbitrary JSON that the schema must refuse
with a 4xx. The runs are derandomized (the same examples every time) and
small, a few hundred requests in all; set NOVA_MINI_FUZZ_EXAMPLES (per
endpoint, 30 by default) for a long run of the same strategies.
"""

import json
import os
import re
import urllib.parse

from hypothesis import given
from hypothesis import HealthCheck
from hypothesis import settings
from hypothesis import strategies as st
import pytest
import webtest

from nova_mini.api.baremetal.schemas import node_states as node_states_schema
from nova_mini.api.baremetal.schemas import node_traits as traits_schema
from nova_mini.api.baremetal.schemas import nodes as nodes_schema
from nova_mini.api.compute.schemas import flavor_access as access_schema
from nova_mini.api.compute.schemas import flavor_extra_specs as specs_schema
from nova_mini.api.compute.schemas import flavors as flavors_schema
from nova_mini.api.compute.schemas import server_groups as groups_schema
from nova_mini.api.compute.schemas import servers as servers_schema
from nova_mini.api import validation
from nova_mini.api.validation.extra_specs import registry as \
    extra_specs_registry
from nova_mini.tests.fixtures import api as api_fixture
from nova_mini.tests.fixtures import schema_strategies

COMPUTE = {'X-Auth-Token': 'admin:admin',
           'OpenStack-API-Version': 'compute latest'}
BAREMETAL = {'X-Auth-Token': 'admin:admin',
             'X-OpenStack-Ironic-API-Version': 'latest'}

# nova_mini's own format: names.
_FORMATS = {
    validation.NAME_FORMAT: st.from_regex(r'\A[a-zA-Z0-9][a-zA-Z0-9 _.-]'
                                          r'{0,20}[a-zA-Z0-9]\Z'),
}

# Real extra specs (the registry's examples) with their example values or
# any text, so that strict validation lets some requests through.
_EXAMPLES = sorted(
    tuple(spec.example.split('=', 1)) for spec in
    extra_specs_registry.build(include_plugins=False)
    if spec.example and re.match(r'[a-zA-Z0-9-_:. ]+=', spec.example))
_EXTRA_SPECS = st.lists(
    st.sampled_from(_EXAMPLES) |
    st.tuples(st.sampled_from([key for key, _value in _EXAMPLES]),
              st.text(max_size=10)),
    min_size=1, max_size=4).map(dict)

# Paths of a node a patch may touch (and a few it may not).
_NODE_PATHS = st.sampled_from([
    '/name', '/driver', '/properties/cpus', '/properties/memory_mb',
    '/properties/capabilities', '/extra/note', '/maintenance',
    '/instance_uuid', '/resource_class', '/driver_info/ipmi_password',
    '/instance_info/traits', '/uuid', '/provision_state', '/traits',
    '/owner', '/lessee'])

_SETTINGS = settings(
    max_examples=int(os.environ.get('NOVA_MINI_FUZZ_EXAMPLES', 30)),
    derandomize=True, database=None, deadline=None,
    suppress_health_check=[HealthCheck.too_slow,
                           HealthCheck.filter_too_much,
                           HealthCheck.data_too_large])


def _bodies(schema):
    """Bodies of ``schema`` (mostly valid) and arbitrary JSON."""
    return _mixed(schema_strategies.from_schema(schema, _FORMATS))


def _mixed(documents):
    """Mostly ``documents``, sometimes arbitrary JSON."""
    return st.one_of(documents, documents, schema_strategies.ANY_JSON)


def _merged(documents, key, overrides):
    """``documents`` whose ``key`` object has some values of
    ``overrides`` (a fixed_dictionaries of optional values) put in.
    """
    def merge(pair):
        body, extra = pair
        if isinstance(body.get(key), dict):
            body[key].update(extra)
        return body
    return st.tuples(documents, overrides).map(merge)


@pytest.fixture(scope='module')
def api():
    fixture = api_fixture.APIFixture()
    fixture.setUp()
    app = webtest.TestApp(fixture.app)
    app.post_json('/compute/v2.1/flavors', {'flavor': {
        'id': 'fuzz', 'name': 'fuzz', 'ram': 1, 'vcpus': 1, 'disk': 1}},
        headers=COMPUTE)
    app.post_json('/baremetal/v1/nodes', {'name': 'fuzz-node',
                                          'driver': 'fake-hardware'},
                  headers=BAREMETAL)
    yield app
    fixture.cleanUp()


def _send(api, method, path, body, headers):
    response = api.request(path, method=method, headers=headers,
                           body=json.dumps(body).encode(),
                           content_type='application/json',
                           expect_errors=True)
    assert response.status_int < 500, (
        '%s %s %r: %s %s' % (method, path, body, response.status,
                             response.text[:500]))
    return response


@_SETTINGS
@given(body=_bodies(flavors_schema.create_v255))
def test_flavor_create(api, body):
    _send(api, 'POST', '/compute/v2.1/flavors', body, COMPUTE)


@_SETTINGS
@given(body=_bodies(flavors_schema.update_v255))
def test_flavor_update(api, body):
    _send(api, 'PUT', '/compute/v2.1/flavors/fuzz', body, COMPUTE)


@_SETTINGS
@given(body=_mixed(st.fixed_dictionaries({'extra_specs': _EXTRA_SPECS})) |
       _bodies(specs_schema.create_v286))
def test_flavor_extra_specs(api, body):
    _send(api, 'POST', '/compute/v2.1/flavors/fuzz/os-extra_specs', body,
          COMPUTE)


@_SETTINGS
@given(body=_bodies(access_schema.add_tenant_access))
def test_flavor_access(api, body):
    _send(api, 'POST', '/compute/v2.1/flavors/fuzz/action', body, COMPUTE)


@_SETTINGS
@given(body=_bodies(groups_schema.create_v264))
def test_server_group_create(api, body):
    _send(api, 'POST', '/compute/v2.1/os-server-groups', body, COMPUTE)


@_SETTINGS
@given(body=_mixed(_merged(
    schema_strategies.from_schema(servers_schema.create_v257, _FORMATS),
    'server', st.fixed_dictionaries({}, optional={
        'flavorRef': st.just('fuzz'), 'networks': st.just('none'),
        'imageRef': st.uuids().map(str)}))))
def test_server_create(api, body):
    _send(api, 'POST', '/compute/v2.1/servers', body, COMPUTE)


@_SETTINGS
@given(query=st.dictionaries(
    st.sampled_from(['limit', 'marker', 'sort_key', 'sort_dir', 'name',
                     'status', 'flavor', 'changes-since', 'tags', 'all_tenants',
                     'deleted', 'bogus']),
    st.text(max_size=12), max_size=4))
def test_server_list_query(api, query):
    path = '/compute/v2.1/servers/detail?' + urllib.parse.urlencode(query)
    response = api.get(path, headers=COMPUTE, expect_errors=True)
    assert response.status_int < 500, (path, response.text[:500])


@_SETTINGS
@given(body=_bodies(flavors_schema.create))
def test_flavor_create_through_the_v2_root(api, body):
    # Nova's v2 compatibility root drops unknown properties.
    _send(api, 'POST', '/compute/v2/flavors', body, COMPUTE)


def _queries(schema):
    """Query strings of a query schema (a dict of lists of strings),
    with a parameter of no schema now and then.
    """
    documents = schema_strategies.from_schema(schema, _FORMATS)
    strays = st.dictionaries(st.text(max_size=8), st.lists(
        st.text(max_size=8), min_size=1, max_size=2), max_size=2)
    pairs = st.tuples(documents, strays).map(
        lambda pair: dict(pair[1], **pair[0]))
    return pairs.map(lambda query: urllib.parse.urlencode(
        {key: [str(v) for v in values] if isinstance(values, list)
         else str(values) for key, values in query.items()}, doseq=True))


@_SETTINGS
@given(query=_queries(flavors_schema.index_query_v275))
def test_flavor_list_query(api, query):
    response = api.get('/compute/v2.1/flavors/detail?' + query,
                       headers=COMPUTE, expect_errors=True)
    assert response.status_int < 500, (query, response.text[:500])


@_SETTINGS
@given(query=_queries(nodes_schema.list_query))
def test_node_list_query(api, query):
    response = api.get('/baremetal/v1/nodes/detail?' + query,
                       headers=BAREMETAL, expect_errors=True)
    assert response.status_int < 500, (query, response.text[:500])


@_SETTINGS
@given(body=_bodies(nodes_schema.create))
def test_node_create(api, body):
    _send(api, 'POST', '/baremetal/v1/nodes', body, BAREMETAL)


@_SETTINGS
@given(body=_mixed(st.lists(st.fixed_dictionaries(
    {'op': st.sampled_from(['add', 'replace', 'remove']),
     'path': _NODE_PATHS,
     'value': st.text(max_size=8) | st.integers(0, 64) | st.booleans() |
     st.none() | schema_strategies.ANY_JSON}), min_size=1,
    max_size=3)) | _bodies(nodes_schema.patch))
def test_node_patch(api, body):
    _send(api, 'PATCH', '/baremetal/v1/nodes/fuzz-node', body, BAREMETAL)


@_SETTINGS
@given(body=_bodies(traits_schema.set_traits))
def test_node_traits(api, body):
    _send(api, 'PUT', '/baremetal/v1/nodes/fuzz-node/traits', body,
          BAREMETAL)


@_SETTINGS
@given(body=_bodies(node_states_schema.provision))
def test_node_provision(api, body):
    _send(api, 'PUT', '/baremetal/v1/nodes/fuzz-node/states/provision', body,
          BAREMETAL)
