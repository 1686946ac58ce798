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

"""A config drive end to end: one server booted through the compute API
with ``config_drive: true`` (Keystone, RabbitMQ, the scheduler's deploy),
its drive read back with ``nova-mini-manage metadata show --config-drive``
from what its node stores, and compared with what the stack's metadata
service serves the same server.
"""

import base64
import json
import uuid

import pytest

from nova_mini.tests.live import helpers

pytestmark = pytest.mark.live

RUN = uuid.uuid4().hex[:6]
USER_DATA = b'#cloud-config\nhostname: drive-%s\n' % RUN.encode()
META_DATA = 'openstack/latest/meta_data.json'


@pytest.fixture(scope='module')
def server(stack):
    flavor = helpers.make_flavor(stack)
    helpers.add_node(stack)
    url = stack.nova.compute_url
    headers = {'X-Auth-Token': stack.token('demo')}
    server_id = helpers.create_server(
        url, headers, flavor, 'drive-%s' % RUN, config_drive=True,
        metadata={'run': RUN},
        user_data=base64.b64encode(USER_DATA).decode('ascii'))
    server = helpers.wait_for_build(url, headers, server_id)
    yield server
    helpers.delete(stack, server_id)


def test_a_server_booted_with_a_config_drive_has_one(stack, server):
    assert (server['status'], server['config_drive']) == ('ACTIVE', 'True')
    listed = stack.nova.manage('metadata', 'show', server['id'],
                               '--config-drive').stdout.splitlines()
    assert {META_DATA, 'openstack/latest/user_data',
            'openstack/latest/vendor_data2.json',
            'openstack/2012-08-10/meta_data.json'} <= set(listed)
    assert listed == sorted(listed)
    shown = stack.nova.manage('metadata', 'show', server['name'],
                              '--config-drive', '--path', META_DATA)
    meta = json.loads(shown.stdout)
    assert (meta['uuid'], meta['meta']) == (server['id'], {'run': RUN})
    # The drive holds what the metadata service serves (random_seed is
    # drawn anew for every document, as Nova's).
    served = json.loads(stack.nova.manage(
        'metadata', 'show', server['id'], '--path',
        'latest/meta_data.json').stdout)
    assert served.pop('random_seed') != meta.pop('random_seed')
    assert served == meta
    user_data = stack.nova.manage('metadata', 'show', server['id'],
                                  '--config-drive', '--path',
                                  'latest/user_data')
    assert user_data.stdout.encode() == USER_DATA


def test_openstack_server_create_config_drive_true(stack):
    # What an operator types: python-openstackclient's --config-drive.
    flavor = helpers.make_flavor(stack)
    helpers.add_node(stack)
    name = 'drive-cli-%s' % RUN
    created = json.loads(stack.openstack(
        'server', 'create', '--flavor', flavor, '--image', helpers.IMAGE,
        '--config-drive', 'true', '--wait', name, '-f', 'json',
        user='demo').stdout)
    try:
        assert created['status'] == 'ACTIVE', created
        shown = stack.nova.manage('metadata', 'show', created['id'],
                                  '--config-drive', '--path', META_DATA)
        assert json.loads(shown.stdout)['uuid'] == created['id']
    finally:
        helpers.delete(stack, created['id'])
