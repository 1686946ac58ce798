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

"""The scheduler RPC API end to end in one process, over oslo.messaging's
in-memory ``fake`` driver with the real serializer and threading server:
objects in and out, NoValidHost re-raised as itself, and the
``[upgrade_levels] scheduler`` pin.
"""

import datetime
import uuid

import oslo_messaging as messaging
import pytest

from nova_mini import context as nm_context
from nova_mini import exception
from nova_mini import objects
from nova_mini.objects import request_spec
from nova_mini import rpc
from nova_mini.scheduler import manager
from nova_mini.scheduler import rpcapi
from nova_mini import states
from nova_mini.tests.fixtures import builders


@pytest.fixture
def fake_rpc(conf):
    rpc.register_opts(conf.conf)
    conf.config(transport_url='fake:/')
    conf.config(control_exchange='nova_mini_unit_%s' % uuid.uuid4().hex)
    yield conf
    rpc.cleanup()


@pytest.fixture
def server(fake_rpc, db):
    target = messaging.Target(topic=rpcapi.TOPIC, server='unit')
    srv = rpc.get_server(fake_rpc.conf, target,
                         [manager.SchedulerManager('unit', fake_rpc.conf)])
    srv.start()
    yield srv
    srv.stop()
    srv.wait()


def _spec():
    flavor = objects.Flavor(
        id=1, flavorid='bm', name='bm', memory_mb=1024, vcpus=1, root_gb=1,
        ephemeral_gb=0, swap=0, rxtx_factor=1.0, vcpu_weight=None,
        is_public=True, disabled=False, description=None,
        extra_specs={'resources:CUSTOM_BAREMETAL': '1'},
        created_at=datetime.datetime(2026, 1, 1), updated_at=None)
    return request_spec.RequestSpec.from_components(None, flavor)


def _node(name):
    return builders.create_node(
        nm_context.get_admin_context(), name, resource_class='baremetal',
        provision_state=states.AVAILABLE,
        properties=builders.node_properties(1, 1024, 1))


def test_version_history_is_current():
    assert rpcapi.VERSION == '1.4'
    assert manager.SchedulerManager.target.version == rpcapi.VERSION


def test_select_and_claim_over_rpc(server, fake_rpc):
    node = _node('n1')
    api = rpcapi.SchedulerAPI(fake_rpc.conf)
    ctxt = nm_context.get_admin_context()
    instance = str(uuid.uuid4())
    [[selection]] = api.select_destinations(ctxt, _spec(), [instance],
                                            timeout=10)
    assert isinstance(selection, objects.Selection)
    assert selection.node_uuid == node.uuid
    [claimed] = api.claim_destinations(ctxt, _spec(), [instance], timeout=10)
    assert claimed.node_uuid == node.uuid
    with pytest.raises(exception.NoValidHost,
                       match='No valid host was found'):
        api.claim_destinations(ctxt, _spec(), [str(uuid.uuid4())],
                               timeout=10)


def test_pinned_to_1_0(fake_rpc):
    fake_rpc.config(scheduler='1.0', group='upgrade_levels')
    api = rpcapi.SchedulerAPI(fake_rpc.conf)
    with pytest.raises(exception.RPCVersionCapped, match='1.1'):
        api.select_destinations(nm_context.get_admin_context(), _spec(),
                                [str(uuid.uuid4())])
    with pytest.raises(exception.RPCVersionCapped):
        api.claim_destinations(nm_context.get_admin_context(), _spec(),
                               [str(uuid.uuid4())])
    with pytest.raises(exception.SchedulerUpgrading, match='1.2'):
        api.build_instances(nm_context.get_admin_context(), _spec(),
                            [str(uuid.uuid4())])


def test_pinned_to_1_1_refuses_builds(fake_rpc):
    fake_rpc.config(scheduler='1.1', group='upgrade_levels')
    api = rpcapi.SchedulerAPI(fake_rpc.conf)
    with pytest.raises(exception.SchedulerUpgrading, match='1.2'):
        api.build_instances(nm_context.get_admin_context(), _spec(),
                            [str(uuid.uuid4())])


def test_pinned_to_1_2_refuses_rebuilds_in_a_rebuild_s_words(fake_rpc):
    fake_rpc.config(scheduler='1.2', group='upgrade_levels')
    api = rpcapi.SchedulerAPI(fake_rpc.conf)
    with pytest.raises(exception.SchedulerUpgrading) as caught:
        api.rebuild_instance(nm_context.get_admin_context(),
                             str(uuid.uuid4()), str(uuid.uuid4()), {})
    message = caught.value.format_message()
    # The server exists: nothing is said to be "not created".
    assert 'Nothing was created' not in message
    assert 'The server was not rebuilt' in message
    assert 'needs 1.3' in message
