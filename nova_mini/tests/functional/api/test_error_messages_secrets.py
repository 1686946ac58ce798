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

"""A 400 for a badly typed secret does not quote it: the message goes back
to the client (maybe not the secret's owner) and into the logs. Nova's
"Invalid input for field/attribute X. Value: V." frame is kept, with V
masked.
"""

import logging

import pytest

from nova_mini import context as nm_context
from nova_mini.tests.fixtures import builders

# An image id (imageRef must be one).
IMAGE = 'c0ffee00-0000-4000-8000-000000000001'

SECRET = 'pw-Zq81xK'
IRONIC = {'X-Auth-Token': 'admin:admin',
          'X-OpenStack-Ironic-API-Version': '1.65'}
NOVA = {'X-Auth-Token': 'admin:admin',
        'OpenStack-API-Version': 'compute 2.47'}

CASES = [
    ('post', '/compute/v2.1/servers', NOVA,
     {'server': {'name': 's', 'flavorRef': 'bm', 'imageRef': IMAGE,
                 'adminPass': [SECRET]}}),
    ('post', '/compute/v2.1/servers/%(server)s/action', NOVA,
     {'rebuild': {'imageRef': IMAGE, 'adminPass': {'p': SECRET}}}),
    ('put', '/baremetal/v1/nodes/n/states/provision', IRONIC,
     {'target': 'rescue', 'rescue_password': [SECRET]}),
    ('post', '/baremetal/v1/heartbeat/n', IRONIC,
     {'callback_url': 'http://10.0.0.2:9999', 'agent_token': [SECRET]}),
    ('post', '/baremetal/v1/nodes', IRONIC,
     {'name': 'm', 'driver': 'fake-hardware',
      'driver_info': 'ipmi_password=%s' % SECRET}),
    ('post', '/baremetal/v1/nodes', IRONIC,
     {'name': 'm', 'driver': 'fake-hardware',
      'properties': {'cpus': 'x'}, 'extra': ['--password %s' % SECRET]}),
    ('patch', '/baremetal/v1/nodes/n', IRONIC,
     [{'op': 'add', 'path': '/driver_info/ipmi_password', 'value': SECRET,
       'unexpected': 1}]),
]


@pytest.mark.parametrize('method, url, headers, body', CASES,
                         ids=[c[1].rsplit('/', 1)[-1] + '-%d' % i
                              for i, c in enumerate(CASES)])
def test_bad_secret_is_not_quoted(api, caplog, method, url, headers, body):
    admin = nm_context.get_admin_context()
    builders.create_node(admin, 'n', driver='fake-hardware')
    builders.create_flavor(admin, 'bm')
    server = builders.boot_server(admin, 'a8f3bd52-93c1-4a6e-9c0e-3e2f1d7a3b11')
    caplog.set_level(logging.DEBUG)
    send = getattr(api, method + '_json')
    response = send(url % {'server': server.uuid}, body, headers=headers,
                    expect_errors=True)
    assert response.status_int == 400, response.text
    assert SECRET not in response.text
    assert SECRET not in caplog.text
