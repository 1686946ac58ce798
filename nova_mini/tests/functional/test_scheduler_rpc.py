"""The scheduler answers over a real RabbitMQ, on the test run's own
exchange.
"""

import pytest

from nova_mini import conf
from nova_mini import context as nm_context
from nova_mini import rpc
from nova_mini.scheduler import rpcapi
from nova_mini import version

pytestmark = pytest.mark.live

CONF = conf.CONF


def test_manage_scheduler_ping(stack):
    proc = stack.nova.manage('scheduler', 'ping', '--timeout', '30')
    assert proc.stdout.strip() == (
        'scheduler on %s answered (version %s, RPC API %s)'
        % (stack.nova.host, version.version_string(), rpcapi.VERSION))


def test_manage_scheduler_ping_other_exchange_times_out(stack):
    """Nobody consumes another exchange: the ping of a nova_mini using one
    goes unanswered, so this run's RPC is really kept apart.
    """
    other = stack.nova.write_extra_config('other-exchange', {
        'DEFAULT': {'control_exchange': stack.exchange + '_nobody'}})
    proc = stack.nova.manage(
        'scheduler', 'ping', '--timeout', '2', check=False,
        config_files=[stack.nova.conf_path, other])
    assert proc.returncode == 1
    assert 'No scheduler answered within 2s' in proc.stderr


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
    assert reply == {'host': stack.nova.host,
                     'version': version.version_string(),
                     'rpc_api_version': rpcapi.VERSION}
    # A second call reuses the transport and is answered too.
    assert api.ping(nm_context.get_admin_context(), timeout=30) == reply
