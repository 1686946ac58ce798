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

"""python-openstackclient, unchanged, against the API it finds in
Keystone's catalog.
"""

import json
import uuid

import pytest


pytestmark = pytest.mark.live


def openstack_json(stack, *args, **kwargs):
    return json.loads(stack.openstack(*args, '-f', 'json',
                                      **kwargs).stdout)


def test_catalog_lists_compute(stack):
    endpoints = openstack_json(stack, 'endpoint', 'list', '--service',
                               'compute')
    assert sorted(e['Interface'] for e in endpoints) == [
        'admin', 'internal', 'public']
    assert {e['URL'] for e in endpoints} == {stack.nova.compute_url}


def test_flavor_lifecycle(stack):
    name = 'cli-%s' % uuid.uuid4().hex[:8]

    created = openstack_json(stack, 'flavor', 'create', '--ram', '512',
                             '--disk', '1', '--vcpus', '2', '--public',
                             '--description', 'made by the live tests',
                             name)
    assert created['name'] == name
    assert (created['ram'], created['disk'], created['vcpus']) == (512, 1, 2)
    assert created['os-flavor-access:is_public'] is True
    flavor_id = created['id']

    listed = openstack_json(stack, 'flavor', 'list')
    assert {'ID': flavor_id, 'Name': name, 'RAM': 512, 'Disk': 1,
            'Ephemeral': 0, 'VCPUs': 2, 'Is Public': True} in listed

    # The table a person reads has the flavor on one row.
    table = stack.openstack('flavor', 'list').stdout
    row = [line for line in table.splitlines() if name in line]
    assert len(row) == 1
    assert [c.strip() for c in row[0].strip('|').split('|')] == [
        flavor_id, name, '512', '1', '0', '2', 'True']

    proc = stack.openstack('flavor', 'set', '--property',
                           'hw:cpu_policy=dedicated', '--property',
                           'hw:numa_nodes=1', name)
    assert proc.stdout == ''

    shown = openstack_json(stack, 'flavor', 'show', name)
    assert shown['id'] == flavor_id
    assert shown['description'] == 'made by the live tests'
    assert shown['properties'] == {'hw:cpu_policy': 'dedicated',
                                   'hw:numa_nodes': '1'}

    stack.openstack('flavor', 'unset', '--property', 'hw:numa_nodes', name)
    shown = openstack_json(stack, 'flavor', 'show', flavor_id)
    assert shown['properties'] == {'hw:cpu_policy': 'dedicated'}

    stack.openstack('flavor', 'delete', name)
    gone = stack.openstack('flavor', 'show', name, check=False)
    assert gone.returncode == 1
    assert 'No Flavor found for %s' % name in gone.stderr


def test_member_cannot_create_flavor(stack):
    proc = stack.openstack('flavor', 'create', '--ram', '512', '--vcpus',
                           '1', 'cli-demo-%s' % uuid.uuid4().hex[:8],
                           user='demo', check=False)
    assert proc.returncode == 1
    assert ("Policy doesn't allow os_compute_api:os-flavor-manage:create "
            "to be performed." in proc.stderr)
    assert 'ForbiddenException: 403' in proc.stderr
