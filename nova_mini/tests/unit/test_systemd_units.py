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

"""The unit files in etc/systemd: systemd's own ``systemd-analyze verify``
accepts them without a warning, and what they say matches the daemons
(console script, readiness by sd_notify, a stop timeout above the
daemon's graceful shutdown timeout).

Starting the units needs systemd as PID 1, which a test container does not
have; the daemons' sd_notify and SIGTERM handling are tested by
tests/unit/test_service*.py and tests/live/test_daemons.py.
"""

import configparser
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

from nova_mini import conf

UNITS = pathlib.Path(__file__).resolve().parents[3] / 'etc' / 'systemd'
DAEMONS = {
    'nova-mini-api': 'api',
    'nova-mini-metadata': 'metadata',
    'nova-mini-scheduler': 'filter_scheduler',
    'nova-mini-conductor': 'conductor',
}


def _unit(name):
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str
    parser.read(UNITS / ('%s.service' % name))
    return parser


def test_one_unit_per_daemon():
    assert sorted(path.stem for path in UNITS.glob('*.service')) == sorted(
        DAEMONS)


@pytest.mark.parametrize('daemon', sorted(DAEMONS))
def test_unit_matches_the_daemon(daemon):
    service = _unit(daemon)['Service']
    command = service['ExecStart'].split()
    assert os.path.basename(command[0]) == daemon
    assert command[1:] == ['--config-file', '/etc/nova_mini/nova_mini.conf']
    # The daemons send READY=1 from their main process.
    assert service['Type'] == 'notify'
    assert service['NotifyAccess'] == 'main'
    assert service['Restart'] == 'on-failure'
    # SIGTERM to the main process only: it drains its own workers.
    assert service['KillMode'] == 'mixed'
    group = DAEMONS[daemon]
    conf.CONF.reset()
    graceful = getattr(conf.CONF, group).graceful_shutdown_timeout
    assert int(service['TimeoutStopSec']) > graceful
    assert _unit(daemon)['Install']['WantedBy'] == 'multi-user.target'


@pytest.mark.skipif(not shutil.which('systemd-analyze'),
                    reason='systemd-analyze (Debian package systemd) is '
                           'not installed')
@pytest.mark.parametrize('daemon', sorted(DAEMONS))
def test_systemd_analyze_verify(daemon, tmp_path):
    # verify checks that ExecStart is executable: point it at this
    # environment's console script, as an operator adjusting the path does.
    script = os.path.join(os.path.dirname(sys.executable), daemon)
    if not os.path.exists(script):
        script = shutil.which(daemon)
    assert script, '%s is not installed in this environment' % daemon
    text = (UNITS / ('%s.service' % daemon)).read_text().replace(
        '/usr/local/bin/%s' % daemon, script)
    unit = tmp_path / ('%s.service' % daemon)
    unit.write_text(text)

    proc = subprocess.run(
        ['systemd-analyze', 'verify', '--man=no', str(unit)],
        capture_output=True, text=True, timeout=60)

    assert proc.returncode == 0, proc.stderr
    # Unknown keys and bad values are only warnings: there must be none.
    assert proc.stderr.strip() == '' and proc.stdout.strip() == '', (
        proc.stdout + proc.stderr)
