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

"""The scheduler's wait for its builds in progress after SIGTERM is
bounded (nova_mini.cmd.common.wait_rpc_server); the live test
test_fault_sigterm runs the whole stop.
"""

import threading
import time

from nova_mini.cmd import common


class _Server(object):
    """An RPC server whose calls in progress end when ``done`` is set."""

    def __init__(self):
        self.done = threading.Event()

    def wait(self):
        self.done.wait()


def test_builds_done_within_the_bound():
    server = _Server()
    threading.Timer(0.2, server.done.set).start()
    started = time.monotonic()
    assert common.wait_rpc_server(server, 10)
    assert time.monotonic() - started < 5


def test_builds_still_running_after_the_bound():
    server = _Server()
    started = time.monotonic()
    assert not common.wait_rpc_server(server, 0.5)
    assert 0.5 <= time.monotonic() - started < 5
    server.done.set()


def test_no_bound_waits_for_the_builds():
    server = _Server()
    threading.Timer(0.3, server.done.set).start()
    assert common.wait_rpc_server(server, None)
