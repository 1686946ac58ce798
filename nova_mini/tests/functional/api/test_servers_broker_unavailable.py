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

"""POST /servers when its build cannot be handed to a scheduler: 503 in
Nova's format with Retry-After, and nothing left in the database.

Real brokers, no mocks: a port nothing listens on (the broker is down),
and a virtual host of the machine's RabbitMQ that no scheduler has ever
declared its queue on (the broker returns the build). And the version pin
of an unfinished rolling upgrade, under which builds cannot be sent.
"""

import time
import uuid

import pytest
import sqlalchemy as sa
import webtest

from nova_mini import context as nm_context
from nova_mini.db import api as db_api
from nova_mini.db import models
from nova_mini import objects
from nova_mini import rpc
from nova_mini.scheduler import rpcapi
from nova_mini_deploy import rabbitmq
from nova_mini_deploy import util

V21 = '/compute/v2.1'
DEMO = {'X-Auth-Token': 'demo:demo',
        'OpenStack-API-Version': 'compute 2.64'}
# Short reconnection pauses: the refusal comes after CAST_RETRIES tries.
FAST_RETRIES = {'oslo_messaging_rabbit.kombu_reconnect_delay': 0.1,
                'oslo_messaging_rabbit.rabbit_retry_interval': 1,
                'oslo_messaging_rabbit.rabbit_retry_backoff': 1}


def _app(factory, transport_url, **overrides):
    fixture = factory(conf_overrides=dict(FAST_RETRIES, **dict(
        overrides, transport_url=transport_url)))
    admin = nm_context.get_admin_context()
    objects.Flavor(
        admin, flavorid='bm', name='bm', memory_mb=1024, vcpus=1,
        root_gb=10, is_public=True,
        extra_specs={'resources:CUSTOM_BAREMETAL': '1',
                     'resources:VCPU': '0', 'resources:MEMORY_MB': '0',
                     'resources:DISK_GB': '0'}).create()
    return webtest.TestApp(fixture.app)


def _rows():
    """Rows of every table a create writes, by table name."""
    counts = {}
    with db_api.context_manager.reader.using(
            nm_context.get_admin_context()) as session:
        for model in (models.Instance, models.RequestSpec,
                      models.ServerGroupMember, models.InstanceAction):
            counts[model.__tablename__] = session.execute(
                sa.select(sa.func.count()).select_from(
                    model.__table__)).scalar()
    return counts


def _assert_refused(app, message_start, retry_after=rpc.BROKER_RETRY_AFTER):
    group = app.post_json(
        V21 + '/os-server-groups',
        {'server_group': {'name': 'g', 'policy': 'anti-affinity'}},
        headers=DEMO).json['server_group']['id']
    for hints in ({}, {'group': group}):
        started = time.monotonic()
        response = app.post_json(
            V21 + '/servers',
            {'server': {'name': 'srv', 'flavorRef': 'bm',
                        'imageRef': 'c0ffee00-0000-4000-8000-000000000001', 'min_count': 2},
             'os:scheduler_hints': hints}, headers=DEMO, status=503)
        assert time.monotonic() - started < 30
        fault = response.json['serviceUnavailable']
        assert fault['code'] == 503
        assert fault['message'].startswith(message_start), fault
        assert 'Nothing was created' in fault['message']
        assert response.headers['Retry-After'] == str(retry_after)
        # No password or URL of the broker in the answer.
        assert 'guest' not in response.text
        assert _rows() == {'instances': 0, 'request_specs': 0,
                           'server_group_members': 0,
                           'instance_actions': 0}
    servers = app.get(V21 + '/servers/detail', headers=DEMO).json
    assert servers['servers'] == []
    members = app.get(V21 + '/os-server-groups/%s' % group,
                      headers=DEMO).json['server_group']['members']
    assert members == []


def test_broker_down(api_fixture_factory):
    port = util.free_port()
    app = _app(api_fixture_factory,
               'rabbit://guest:guest@127.0.0.1:%d/' % port)
    _assert_refused(app, 'The message broker does not answer')


def test_no_scheduler_queue_on_the_broker(api_fixture_factory):
    broker = rabbitmq.RabbitMQ()
    if not broker.accepts_amqp():
        pytest.skip('no RabbitMQ on 127.0.0.1:5672')
    name = 'nova_mini_unheard_%s' % uuid.uuid4().hex[:8]
    with broker.virtual_hosts(name) as [url]:
        app = _app(api_fixture_factory, url)
        _assert_refused(app, 'No scheduler listens on the message broker')


def test_pinned_below_builds(api_fixture_factory):
    app = _app(api_fixture_factory, 'fake:/',
               **{'upgrade_levels.scheduler': '1.1',
                  'control_exchange': 'nova_mini_pin_%s' % uuid.uuid4().hex})
    _assert_refused(app, 'The schedulers cannot build servers before they '
                    'are upgraded', rpcapi.UPGRADE_RETRY_AFTER)
