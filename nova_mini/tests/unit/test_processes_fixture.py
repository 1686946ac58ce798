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

"""nova_mini.tests.fixtures.processes.Daemon on real processes: SIGTERM
first, SIGKILL for one that ignores it, its process group with
kill_group, its output captured.
"""

import os
import select
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from nova_mini.tests.fixtures import processes

# Says it is ready once its SIGTERM handler is in place (argv[1]: what
# that handler does), then waits for signals.
_SCRIPT = textwrap.dedent('''
    import os
    import signal
    import sys
    import time

    def on_term(signum, frame):
        if sys.argv[1] == 'exit':
            print('stopping', flush=True)
            sys.exit(3)

    signal.signal(signal.SIGTERM, on_term)
    if len(sys.argv) > 2:
        child = os.fork()
        if child == 0:
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            while True:
                time.sleep(60)
    print('ready', flush=True)
    while True:
        time.sleep(60)
''')


def _wait_for_line(proc, line):
    """The lines ``proc`` printed, up to ``line``."""
    while line not in proc.output().splitlines():
        assert proc.poll() is None, proc.output()
        time.sleep(0.02)
    return proc.output().splitlines()


@pytest.mark.parametrize('on_term, status', [('exit', 3),
                                             ('ignore', -signal.SIGKILL)])
def test_sigterm_then_sigkill(on_term, status):
    with processes.Daemon([sys.executable, '-c', _SCRIPT, on_term],
                          stop_timeout=1, capture=True) as proc:
        _wait_for_line(proc, 'ready')
    assert proc.returncode == status
    assert ('stopping' in proc.output().splitlines()) == (on_term == 'exit')
    assert proc.stop() == status        # once stopped, as often as asked


def test_kill_group_kills_its_children():
    # The daemon and its child (which ignores SIGTERM) hold the write end
    # of a pipe: its read end sees the end of file once both are gone.
    read_end, write_end = os.pipe()
    try:
        proc = processes.Daemon(
            [sys.executable, '-c', _SCRIPT, 'exit', 'fork'], capture=True,
            kill_group=True, start_new_session=True, pass_fds=[write_end])
        os.close(write_end)
        try:
            _wait_for_line(proc, 'ready')
        finally:
            proc.close()
        assert proc.returncode == 3
        assert select.select([read_end], [], [], 60)[0], 'the child lives'
        assert os.read(read_end, 1) == b''
    finally:
        os.close(read_end)


def test_popen_arguments_pass_through():
    with processes.Daemon([sys.executable, '-c', 'print("out")'],
                          stdout=subprocess.PIPE) as proc:
        assert proc.stdout.read() == b'out\n'
    assert proc.returncode == 0
