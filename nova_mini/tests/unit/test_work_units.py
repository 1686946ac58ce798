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

"""The whole run's pytest-xdist work units at its end (nova_mini/tests/
conftest.py): ironic-tempest-plugin's run is a unit of its own, before the
quick start and the other Tempest modules, so that the two workers share
the last, longest units.
"""

import types

from nova_mini.tests import conftest

LIVE = 'nova_mini/tests/live/'


def _item(nodeid):
    return types.SimpleNamespace(nodeid=nodeid)


def test_baremetal_tempest_is_a_unit_of_its_own():
    baremetal = conftest._work_unit(
        LIVE + 'test_tempest_baremetal.py::test_ironic_tempest_plugin_x')
    others = {conftest._work_unit(LIVE + name) for name in (
        'test_tempest_compute.py::test_tempest_compute_api',
        'test_tempest_versions.py::test_tempest_compute_versions',
        'test_tempest_plugin.py::test_nova_mini_tempest_plugin')}
    assert len(others) == 1
    assert baremetal not in others
    assert baremetal != conftest._work_unit(LIVE + 'test_daemons.py::test_x')


def test_the_last_units_come_longest_first():
    nodeids = [
        LIVE + 'test_tempest_compute.py::test_tempest_compute_api',
        LIVE + 'test_quickstart.py::test_quickstart_commands_work_as_printed',
        'nova_mini/tests/unit/test_layout.py::test_module_sizes',
        LIVE + 'test_tempest_baremetal.py::test_ironic_tempest_plugin_x',
        LIVE + 'test_daemons.py::test_x',
    ]
    items = [_item(n) for n in nodeids]
    conftest.pytest_collection_modifyitems(None, items)
    assert [i.nodeid.rsplit('/', 1)[-1].split('::')[0] for i in items] == [
        'test_daemons.py', 'test_layout.py', 'test_tempest_baremetal.py',
        'test_quickstart.py', 'test_tempest_compute.py']
