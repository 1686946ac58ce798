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

"""Session-scoped fixtures that start the real services once for all live
tests: RabbitMQ (already running or started), Keystone and nova_mini's
three daemons on free ports, on a RabbitMQ virtual host of the run (deleted
at the end), so that no other test run or deployed stack on the broker
consumes their RPC.

When a live test fails, the end of every daemon's log is attached to its
report; the state directory (configs, logs) is kept and its path printed.
"""

import os
import signal
import time
import uuid

import pytest

from nova_mini.tests.live import helpers
# The Redfish emulator fixtures (sushy-tools): redfish_emulators,
# redfish_emulator.
from nova_mini.tests.live.redfish import redfish_emulator  # noqa: F401
from nova_mini.tests.live.redfish import redfish_emulators  # noqa: F401
import nova_mini_deploy
from nova_mini_deploy import nova
from nova_mini_deploy import util

_STATE = {'stack': None, 'state_dir': None}


def _interrupt(signum, frame):
    raise KeyboardInterrupt('signal %d' % signum)


def pytest_configure(config):
    # SIGTERM (e.g. from timeout(1)) ends the run like Ctrl-C does, so the
    # session fixtures still stop the services they started.
    signal.signal(signal.SIGTERM, _interrupt)


@pytest.fixture(scope='session')
def stack(tmp_path_factory):
    """The running stack (a nova_mini_deploy.Stack); stopped, and its virtual host
    deleted, at the end of the session, which fails if a daemon does not
    exit 0 on SIGTERM.
    """
    state_dir = str(tmp_path_factory.mktemp('stack'))
    run_id = uuid.uuid4().hex[:8]
    # NOTE: the virtual host is what keeps this run apart (a topic's queue
    # is named after the topic alone); the exchange only names it alike.
    name = 'nova_mini_test_%s' % run_id
    st = nova_mini_deploy.Stack(state_dir, exchange=name,
                                virtual_host=name,
                                host='nova-mini-test-%s' % run_id,
                                fast_passwords=True)
    # A conductor killed by a test (test_redfish_stack_live) leaves the
    # hash ring of every service, and is taken over, within 10 s rather
    # than Ironic's 60 (ten heartbeat intervals, Ironic's six); the
    # conductors a test starts and stops are in every service's ring
    # within a second rather than 15.
    st.nova.extra_sections['conductor'] = {'heartbeat_interval': 1,
                                           'heartbeat_timeout': 10}
    st.nova.extra_sections['DEFAULT'] = {'hash_ring_reset_interval': 1}
    _STATE.update(stack=st, state_dir=state_dir)
    try:
        st.up()
        # NOTE: every module of a session boots as admin or demo, some
        # of them fleets (the full fleet's 110 servers, the fault tests'
        # batches), and the servers a module keeps add up in the session:
        # these two projects get no server quota. The daemons keep
        # [quota]'s defaults, which the projects of Tempest and of
        # test_quotas_cli have.
        admin = {'X-Auth-Token': st.token('admin')}
        for project in ('admin', 'demo'):
            helpers.lift_server_quotas(st.nova.compute_url, admin,
                                       helpers.project_id(st, project))
    except BaseException as exc:
        # Whatever stopped it (ServiceError, Ctrl-C), stop what was
        # started and delete the virtual host.
        tails = _log_tails(st)
        st.adopt()
        st.down()
        if not isinstance(exc, nova_mini_deploy.ServiceError):
            raise
        pytest.fail('the live stack did not start: %s\n%s'
                    % (exc, tails), pytrace=False)
    yield st
    _STATE['stack'] = None
    codes = st.down()
    bad = {name: code for name, code in codes.items() if code != 0}
    if bad:
        pytest.fail('daemons did not exit 0 on SIGTERM: %s\n%s'
                    % (bad, _log_tails(st)), pytrace=False)


@pytest.fixture(scope='session')
def admin_token(stack):
    return stack.token('admin')


@pytest.fixture(scope='session')
def demo_token(stack):
    return stack.token('demo')


@pytest.fixture
def extra_api(stack, tmp_path):
    """Start another nova-mini-api of the stack on a free port (for tests
    that stop it or change its config); yields a function
    ``start(workers=1, sections=None) -> (Process, port)``, ``sections``
    being more config (``{group: {option: value}}``).
    """
    started = []

    def start(workers=1, sections=None):
        port = util.free_port()
        name = 'nova-mini-api-%s' % uuid.uuid4().hex[:6]
        sections = dict(sections or {})
        sections['api'] = dict(sections.get('api', {}), bind_port=port,
                               workers=workers)
        extra = stack.nova.write_extra_config(name, sections)
        proc = stack.nova.start(nova.API, name=name, port=port,
                                config_files=[stack.nova.conf_path, extra])
        started.append(proc.name)
        return proc, port

    yield start
    for name in started:
        stack.nova.stop(name, timeout=10)


@pytest.fixture
def engine(stack):
    """An engine on the stack's database, for a test's own rows."""
    eng = helpers.stack_engine(stack)
    yield eng
    eng.dispose()


def _log_tails(st, lines=30, since=None):
    """The last lines of the stack's logs (of those written to at or
    after ``since``, a time.time(), if given).
    """
    if st is None:
        return ''
    parts = []
    for path in st.log_files():
        if since is not None and os.path.getmtime(path) < since:
            continue
        parts.append('---- %s (last %d lines)\n%s'
                     % (path, lines, util.tail(path, lines)))
    return '\n'.join(parts)


_STARTED = pytest.StashKey()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    item.stash[_STARTED] = time.time()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.failed and _STATE['stack'] is not None and (
            'stack' in getattr(item, 'fixturenames', ())):
        # Only the logs the test wrote to: a whole session's daemons
        # would bury the failure.
        report.sections.append(('live stack logs', _log_tails(
            _STATE['stack'], since=item.stash.get(_STARTED, None))))


def pytest_terminal_summary(terminalreporter):
    if _STATE['state_dir']:
        terminalreporter.write_line(
            'live stack state and logs: %s' % _STATE['state_dir'])
