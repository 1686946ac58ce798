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

"""What a project member learns of the bare-metal resources of other
projects' nodes through the lists: a ``marker`` or a ``portgroup`` filter
naming one is answered as one that does not exist (Ironic's 404 for a
missing one), on every backend; an administrator pages past them.
"""

import json
import uuid

import pytest
import webtest

V1 = '/baremetal/v1'
ADMIN = {'X-Auth-Token': 'admin:admin',
         'X-OpenStack-Ironic-API-Version': '1.65'}
MEMBER = dict(ADMIN, **{'X-Auth-Token': 'demo:demo'})

pytestmark = pytest.mark.usefixtures('no_traceback')


@pytest.fixture
def app(api_fixture_factory, backend):
    return webtest.TestApp(api_fixture_factory(backend=backend).app)


def _post(app, path, body):
    return app.post_json(V1 + path, body, headers=ADMIN).json


def _fault(response):
    return json.loads(response.json['error_message'])['faultstring']


def _resources(app, project, mac):
    """A node of ``project`` with one port, port group, volume connector,
    volume target and allocation: {collection: uuid}.
    """
    node = _post(app, '/nodes', {'driver': 'fake-hardware', 'owner': project})
    ident = node['uuid']
    return {
        'ports': _post(app, '/ports', {'node_uuid': ident,
                                       'address': mac})['uuid'],
        'portgroups': _post(app, '/portgroups', {'node_uuid': ident})['uuid'],
        'volume/connectors': _post(app, '/volume/connectors', {
            'node_uuid': ident, 'type': 'iqn',
            'connector_id': 'iqn.%s' % project})['uuid'],
        'volume/targets': _post(app, '/volume/targets', {
            'node_uuid': ident, 'volume_type': 'iscsi',
            'volume_id': 'v-%s' % project, 'boot_index': 0})['uuid'],
        'allocations': _post(app, '/allocations', {
            'resource_class': 'x', 'owner': project})['uuid'],
        'node': ident,
    }


NOT_FOUND = {'ports': 'Port %s could not be found.',
             'portgroups': 'Portgroup %s could not be found.',
             'volume/connectors': 'Volume connector %s could not be found.',
             'volume/targets': 'Volume target %s could not be found.',
             'allocations': 'Allocation %s could not be found.'}
KEY = {'volume/connectors': 'connectors', 'volume/targets': 'targets'}


@pytest.fixture
def two_projects(app):
    return (_resources(app, 'demo', '52:54:00:00:00:01'),
            _resources(app, 'other', '52:54:00:00:00:02'))


@pytest.mark.parametrize('collection', sorted(NOT_FOUND))
def test_marker_the_caller_cannot_see(app, two_projects, collection):
    mine, theirs = two_projects
    key = KEY.get(collection, collection.replace('/', '_'))

    def page(marker, status=200, headers=MEMBER):
        return app.get('%s/%s?marker=%s' % (V1, collection, marker),
                       headers=headers, status=status)

    assert page(mine[collection]).json[key] == []
    missing = str(uuid.uuid4())
    unknown = page(missing, status=404)
    hidden = page(theirs[collection], status=404)
    # Ironic's answer to a marker that names nothing, for both.
    assert _fault(unknown) == NOT_FOUND[collection] % missing
    assert _fault(hidden) == NOT_FOUND[collection] % theirs[collection]
    # The detail list (where there is one) reads the marker the same way.
    if collection in ('ports', 'portgroups'):
        detail = app.get('%s/%s/detail?marker=%s' % (
            V1, collection, theirs[collection]), headers=MEMBER, status=404)
        assert _fault(detail) == _fault(hidden)
    # An administrator sees every row: any of them is a marker.
    listed = page(mine[collection], headers=ADMIN).json[key]
    assert [item['uuid'] for item in listed] == [theirs[collection]]


def test_marker_of_another_nodes_port_in_a_node_sub_list(app, two_projects):
    mine, theirs = two_projects
    response = app.get('%s/nodes/%s/ports?marker=%s' % (
        V1, mine['node'], theirs['ports']), headers=MEMBER, status=404)
    assert _fault(response) == NOT_FOUND['ports'] % theirs['ports']


def test_chassis_marker_that_names_nothing(app):
    """Ironic's answer (the chassis lists are an administrator's)."""
    missing = str(uuid.uuid4())
    response = app.get('%s/chassis?marker=%s' % (V1, missing),
                       headers=ADMIN, status=404)
    assert _fault(response) == 'Chassis %s could not be found.' % missing


def test_ports_of_a_port_group_the_caller_cannot_see(app, two_projects):
    mine, theirs = two_projects

    def ports(group, status=200):
        return app.get('%s/ports?portgroup=%s' % (V1, group),
                       headers=MEMBER, status=status)

    assert ports(mine['portgroups']).json['ports'] == []
    missing = str(uuid.uuid4())
    unknown = ports(missing, status=404)
    hidden = ports(theirs['portgroups'], status=404)
    assert _fault(unknown) == 'Portgroup %s could not be found.' % missing
    assert _fault(hidden) == (
        'Portgroup %s could not be found.' % theirs['portgroups'])
    # As the port group's own sub-list answers.
    sub = app.get('%s/portgroups/%s/ports' % (V1, theirs['portgroups']),
                  headers=MEMBER, status=404)
    assert _fault(sub) == _fault(hidden)
    admin = app.get('%s/ports?portgroup=%s' % (V1, theirs['portgroups']),
                    headers=ADMIN).json['ports']
    assert admin == []
