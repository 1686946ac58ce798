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

"""Redfish BMCs for the live tests: sushy-tools' emulator with its fake
systems (nova_mini_deploy.redfish_emulator), started on demand and
stopped at the end of the session (which fails if one does not exit 0 on
SIGTERM). live/conftest.py imports the fixtures:

- ``redfish_emulators``: a function ``start(systems=4, auth=None,
  tls=False, power_delay=None, **kwargs) -> RedfishEmulator`` for an
  emulator of a test's own (its own state directory, systems powered
  off); about half a second each.
- ``redfish_emulator``: one emulator shared by the session: 8 systems,
  plain HTTP, no authentication, the emulator's own power delays (0 to
  11 s). Its systems keep what earlier tests did to them.

A RedfishEmulator gives ``url``, ``systems`` (``name``, ``uuid``,
``system_id``, ``mac``), ``auth`` (None or ``(user, password)``),
``ca_file`` and ``verify`` (for ``requests``), ``log_path``.
"""

import os

import pytest

from nova_mini.tests.live import helpers
from nova_mini_deploy import redfish_emulator as emulator_deploy

SHARED_SYSTEMS = 8


@pytest.fixture(scope='session')
def redfish_emulators(tmp_path_factory):
    started = []

    def start(systems=4, auth=None, tls=False, power_delay=None, **kwargs):
        state_dir = str(tmp_path_factory.mktemp('redfish'))
        emulator = emulator_deploy.RedfishEmulator(
            state_dir, systems=systems, auth=auth, tls=tls,
            power_delay=power_delay, **kwargs)
        helpers.start_or_fail(emulator, 'the Redfish emulator')
        started.append(emulator)
        return emulator

    yield start
    bad = {}
    for emulator in started:
        code = emulator.stop()
        if code not in (0, None):
            bad[emulator.url] = (code, emulator.log_path)
    if bad:
        pytest.fail('Redfish emulators did not exit 0 on SIGTERM: %s' % bad,
                    pytrace=False)


@pytest.fixture(scope='session')
def redfish_emulator(redfish_emulators):
    return redfish_emulators(systems=SHARED_SYSTEMS)


def log_text(emulator):
    """The emulator's log so far."""
    if not os.path.exists(emulator.log_path):
        return ''
    with open(emulator.log_path, encoding='utf-8', errors='replace') as f:
        return f.read()
