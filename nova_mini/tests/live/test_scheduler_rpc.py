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

"""The scheduler answers over a real RabbitMQ, on the test run's own
virtual host, and only there.

The virtual host is what keeps the run apart: oslo.messaging's rabbit
driver names a topic's queue after the topic alone ("scheduler"), so on a
shared virtual host the schedulers of other runs (or of a deployed stack)
would consume this run's calls whatever its exchange.
"""

import oslo_messaging as messaging
import pytest

from nova_mini import conf
from nova_mini import context as nm_context
from nova_mini import rpc
from nova_mini.scheduler import rpcapi
from nova_mini import version

pytestmark = pytest.mark.live

CONF = conf.CONF
# Long enough for a scheduler that listens to answer, short enough to keep
# the tests of silence fast.
SILENCE = 2


def _expected_reply(stack):
    return {'host': stack.nova.host, 'version': version.version_string(),
            'rpc_api_version': rpcapi.VERSION}


def test_manage_scheduler_ping(stack):
    proc = stack.nova.manage('scheduler', 'ping', '--timeout', '30')
    assert proc.stdout.strip() == (
        'scheduler on %(host)s answered (version %(version)s, RPC API '
        '%(rpc_api_version)s)' % _expected_reply(stack))


def test_stack_queues_are_on_its_virtual_host(stack):
    """The broker holds the scheduler's queues on the run's virtual host,
    consumed there, and not on the default one.
    """
    assert stack.virtual_host != '/'
    assert stack.virtual_host in stack.rabbit.virtual_host_names()
    own_queue = '%s.%s' % (rpcapi.TOPIC, stack.nova.host)
    queues = stack.rabbit.queues(stack.virtual_host)
    assert queues[rpcapi.TOPIC] >= 1
    assert queues[own_queue] == 1
    assert own_queue not in stack.rabbit.queues('/')


def test_manage_scheduler_ping_default_virtual_host_times_out(stack):
    """The same exchange and topic on the default virtual host: the run's
    scheduler does not consume there, so the ping goes unanswered.
    """
    other = stack.nova.write_extra_config('default-vhost', {
        'DEFAULT': {'transport_url': stack.rabbit.url('/')}})
    proc = stack.nova.manage(
        'scheduler', 'ping', '--timeout', SILENCE, check=False,
        config_files=[stack.nova.conf_path, other])
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert 'No scheduler answered within %ss' % SILENCE in proc.stderr


@pytest.fixture
def parsed_conf(stack):
    """The global CONF (oslo.messaging needs the global one) parsed from
    the stack's config file, and cleared again afterwards.
    """
    rpc.register_opts(CONF)
    CONF(['--config-file', stack.nova.conf_path], project='nova_mini',
         default_config_files=[])
    yield CONF
    rpc.cleanup()
    CONF.clear()


def test_rpcapi_ping(stack, parsed_conf):
    api = rpcapi.SchedulerAPI(parsed_conf)
    reply = api.ping(nm_context.get_admin_context(), timeout=30)
    assert reply == _expected_reply(stack)
    # A second call reuses the transport and is answered too.
    assert api.ping(nm_context.get_admin_context(), timeout=30) == reply


def _ping_own_scheduler(conf, host, timeout):
    """Ping the scheduler of ``host`` itself (its server queue), which no
    other scheduler consumes, wherever they run.
    """
    client = rpcapi.SchedulerAPI(conf).client
    cctxt = client.prepare(version='1.0', server=host, timeout=timeout)
    try:
        return cctxt.call(nm_context.get_admin_context(), 'ping')
    finally:
        rpc.cleanup()


def test_rpcapi_ping_run_scheduler_only_on_its_vhost(stack, parsed_conf):
    """A call to the run's scheduler by name is answered on the run's
    virtual host only: were the scheduler on the default one, it would
    answer there.
    """
    assert _ping_own_scheduler(parsed_conf, stack.nova.host,
                               30) == _expected_reply(stack)
    # The same call on the default virtual host: no answer.
    parsed_conf.set_override('transport_url', stack.rabbit.url('/'))
    try:
        with pytest.raises(messaging.MessagingTimeout):
            _ping_own_scheduler(parsed_conf, stack.nova.host, SILENCE)
    finally:
        # CONF.clear() keeps overrides.
        parsed_conf.clear_override('transport_url')
