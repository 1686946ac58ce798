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

"""What servers keep, through the compute API with a real scheduler (see
test_servers.py): the stored content behind the answers, updated_at
moving with every change, and the metadata quota over HTTP.

The HTTP details by microversion: gabbits/servers-data.yaml and
gabbits/with-scheduler/server-metadata.yaml.
"""

import time

from nova_mini import context as nm_context
from nova_mini import objects
from nova_mini.objects.compute import instance as instance_obj
from nova_mini.tests.functional.api.test_servers import _boot
from nova_mini.tests.functional.api.test_servers import _node
from nova_mini.tests.functional.api.test_servers import _wait
from nova_mini.tests.functional.api.test_servers import DEMO
from nova_mini.tests.functional.api.test_servers import stack  # noqa: F401
from nova_mini.tests.functional.api.test_servers import TRAIT
from nova_mini.tests.functional.api.test_servers import V21

USER_DATA = 'I2Nsb3VkLWNvbmZpZwpydW5jbWQ6IFtlY2hvLCBoaV0K'
V286 = dict(DEMO, **{'OpenStack-API-Version': 'compute 2.86'})


def _stored(uuid):
    return objects.Instance.get_by_uuid(nm_context.get_admin_context(),
                                        uuid)


def test_a_boot_stores_what_it_was_given(stack):  # noqa: F811
    app, _scheduler, _fixture = stack
    body = {'server': {
        'name': 'web', 'flavorRef': 'bm-gold', 'imageRef': 'c0ffee00-0000-4000-8000-000000000001',
        'metadata': {'role': 'web'}, 'user_data': USER_DATA,
        'description': 'front end', 'tags': ['b', 'a', 'b'],
        'accessIPv4': '192.0.2.1', 'accessIPv6': '2001:db8::1',
        'config_drive': True, 'min_count': 2}}
    response = app.post_json(V21 + '/servers', body, headers=V286)
    first = _stored(response.json['server']['id'])
    others = [i for i in objects.InstanceList.get_all(
        nm_context.get_admin_context()) if i.uuid != first.uuid]
    assert len(others) == 1
    for instance, index in ((first, 0), (others[0], 1)):
        assert instance.name == 'web-%d' % (index + 1)
        assert instance.launch_index == index
        assert instance.metadata == {'role': 'web'}
        assert instance.user_data == USER_DATA
        assert instance.description == 'front end'
        assert instance.tags == ['a', 'b']
        assert (instance.access_ip_v4, instance.access_ip_v6) == (
            '192.0.2.1', '2001:db8::1')
        assert instance.config_drive is True
        # The roles of the user who booted it (noauth2: demo's).
        assert instance.boot_roles == ['member', 'reader']
        assert instance.key_name is None


def test_changes_move_updated_at_not_launched_at(stack):  # noqa: F811
    app, _scheduler, _fixture = stack
    _node('n1', [TRAIT])
    server = _boot(app, metadata={'a': '1'})
    assert _wait(app, server['id'])['status'] == 'ACTIVE'
    active = _stored(server['id'])
    launched = active.launched_at
    assert launched is not None

    time.sleep(1.1)     # the API shows updated to the second
    url = V21 + '/servers/%s' % server['id']
    app.post_json(url + '/metadata', {'metadata': {'b': '2'}},
                  headers=V286)
    after_metadata = _stored(server['id'])
    assert after_metadata.metadata == {'a': '1', 'b': '2'}
    assert after_metadata.updated_at > active.updated_at
    assert after_metadata.launched_at == launched
    shown = app.get(url, headers=V286).json['server']
    assert shown['updated'] != shown['created']
    assert shown['OS-SRV-USG:launched_at'] == launched.strftime(
        '%Y-%m-%dT%H:%M:%S.%f')

    app.put_json(url, {'server': {'description': 'changed'}},
                 headers=V286)
    after_put = _stored(server['id'])
    assert after_put.description == 'changed'
    assert after_put.updated_at > after_metadata.updated_at


def test_metadata_quota_over_http(stack):  # noqa: F811
    app, _scheduler, _fixture = stack
    _node('n1', [TRAIT])
    limit = instance_obj.MAX_METADATA_ITEMS
    full = {'k%03d' % n: 'v' for n in range(limit)}
    server = _boot(app, metadata=full)
    assert _wait(app, server['id'])['status'] == 'ACTIVE'
    url = V21 + '/servers/%s/metadata' % server['id']
    for method, body in ((app.post_json, {'metadata': {'new': 'v'}}),
                         (app.put_json, {'metadata': dict(full, new='v')}),
                         (app.put_json, {'meta': {'new': 'v'}})):
        target = url + '/new' if 'meta' in body else url
        response = method(target, body, headers=V286, status=403)
        assert response.json == {'forbidden': {
            'code': 403,
            'message': 'Maximum number of metadata items exceeds 128'}}
    assert _stored(server['id']).metadata == full
    # Changing an item is fine at the limit.
    app.put_json(url + '/k000', {'meta': {'k000': 'changed'}},
                 headers=V286)
    assert _stored(server['id']).metadata['k000'] == 'changed'
