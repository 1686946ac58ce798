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

"""nova-mini-scheduler with ``[scheduler] workers = 2``: two schedulers
consuming the topic, a dead one replaced, SIGTERM passed on, and the
schedulers gone with their parent.
"""

import os
import signal
import uuid

import pytest

from nova_mini.scheduler import rpcapi
from nova_mini.tests.live import test_daemons
from nova_mini_deploy import nova
from nova_mini_deploy import util

pytestmark = pytest.mark.live

notify_socket = test_daemons.notify_socket


def _children(parent):
    found = []
    for entry in os.listdir('/proc'):
        if not entry.isdigit():
            continue
        try:
            with open('/proc/%s/stat' % entry) as stat:
                fields = stat.read().rsplit(')', 1)[1].split()
        except OSError:
            continue
        # After the name: state, ppid, ...; a zombie is not a scheduler.
        if int(fields[1]) == parent and fields[0] != 'Z':
            found.append(int(entry))
    return sorted(found)


def _alive(pid):
    try:
        with open('/proc/%d/stat' % pid) as stat:
            return stat.read().rsplit(')', 1)[1].split()[0] != 'Z'
    except OSError:
        return False


def _consumers(stack, vhost):
    return stack.rabbit.queues(vhost).get(rpcapi.TOPIC, 0)


def _ping(stack, url):
    extra = stack.nova.write_extra_config(
        'ping-%s' % uuid.uuid4().hex[:6], {'DEFAULT': {'transport_url': url}})
    return stack.nova.manage('scheduler', 'ping', '--timeout', '30',
                             config_files=[stack.nova.conf_path, extra])


def _start_workers(stack, url, address):
    return test_daemons._start(stack, nova.SCHEDULER, address, {
        'DEFAULT': {'transport_url': url, 'host': 'workers-test'},
        'scheduler': {'workers': 2}})


def test_two_schedulers_replaced_and_stopped(stack, notify_socket):
    sock, address = notify_socket
    vhost = 'nova_mini_workers_%s' % uuid.uuid4().hex[:8]
    with stack.rabbit.virtual_hosts(vhost) as urls:
        with _start_workers(stack, urls[0], address) as proc:
            assert 'READY=1' in test_daemons._receive_until(sock, 'READY=1')
            util.wait_until(lambda: len(_children(proc.pid)) == 2, 30,
                            'two schedulers')
            util.wait_until(lambda: _consumers(stack, vhost) == 2, 60,
                            'two consumers of the scheduler topic')
            assert 'workers-test answered' in _ping(stack, urls[0]).stdout

            # A scheduler that dies is replaced.
            first, second = _children(proc.pid)
            os.kill(first, signal.SIGKILL)
            util.wait_until(lambda: len(_children(proc.pid)) == 2
                            and first not in _children(proc.pid), 30,
                            'a new scheduler')
            util.wait_until(lambda: _consumers(stack, vhost) == 2, 60,
                            'two consumers again')
            assert second in _children(proc.pid)
            assert 'workers-test answered' in _ping(stack, urls[0]).stdout

            # SIGTERM reaches both; the parent exits 0 once they have.
            schedulers = _children(proc.pid)
            proc.send_signal(signal.SIGTERM)
            assert 'STOPPING=1' in test_daemons._receive_until(
                sock, 'STOPPING=1')
            assert proc.wait(120) == 0
            assert not [pid for pid in schedulers if _alive(pid)]


def test_schedulers_stop_when_their_parent_is_killed(stack, notify_socket):
    sock, address = notify_socket
    vhost = 'nova_mini_workers_%s' % uuid.uuid4().hex[:8]
    with stack.rabbit.virtual_hosts(vhost) as urls:
        with _start_workers(stack, urls[0], address) as proc:
            assert 'READY=1' in test_daemons._receive_until(sock, 'READY=1')
            util.wait_until(lambda: len(_children(proc.pid)) == 2, 30,
                            'two schedulers')
            schedulers = _children(proc.pid)
            proc.kill()
            proc.wait()
            util.wait_until(
                lambda: not [pid for pid in schedulers if _alive(pid)], 60,
                'the schedulers to stop')
