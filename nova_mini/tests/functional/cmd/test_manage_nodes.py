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

"""``nova-mini-manage node list`` with the trait filters, run as an
operator runs it (its ``main`` in process; the console script itself in
test_no_filter_lists_every_node_in_a_table), beside the API's
``GET /v1/nodes`` on the same rows.
"""

import json
import random

import pytest

from nova_mini.cmd import manage
from nova_mini import context as nm_context
from nova_mini.tests.fixtures import builders
from nova_mini.tests.fixtures import console_scripts

_TRAITS = ['CUSTOM_T%d' % i for i in range(6)]


@pytest.fixture(scope='module')
def fleet(tmp_path_factory):
    """Twenty nodes with random subsets of six traits, made once for the
    module's tests (which only read); yields (config file, {name: set of
    traits}).
    """
    with console_scripts.synced_database(
            tmp_path_factory.mktemp('fleet')) as config_file:
        yield config_file, _make_fleet()


def _make_fleet():
    context = nm_context.get_admin_context()
    rng = random.Random(25)
    held = {}
    for i in range(20):
        traits = set(rng.sample(_TRAITS, rng.randint(0, 4)))
        builders.create_node(context, 'n%02d' % i, traits=sorted(traits),
                             resource_class='baremetal' if i % 2 else 'gpu')
        held['n%02d' % i] = traits
    return held


def _listed(config_file, *args):
    proc = console_scripts.call(manage.main, config_file, 'node', 'list',
                                '--format', 'json', *args)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.mark.parametrize('args, keep', [
    (['--trait', 'CUSTOM_T0', '--trait', 'CUSTOM_T1'],
     lambda t: {'CUSTOM_T0', 'CUSTOM_T1'} <= t),
    (['--trait', 'CUSTOM_T0,CUSTOM_T1'],
     lambda t: {'CUSTOM_T0', 'CUSTOM_T1'} <= t),
    (['--not-trait', 'CUSTOM_T2'], lambda t: 'CUSTOM_T2' not in t),
    (['--trait-any', 'CUSTOM_T3,CUSTOM_T4'],
     lambda t: bool(t & {'CUSTOM_T3', 'CUSTOM_T4'})),
    (['--not-trait-any', 'CUSTOM_T3,CUSTOM_T4'],
     lambda t: not {'CUSTOM_T3', 'CUSTOM_T4'} <= t),
    (['--trait', 'CUSTOM_T0', '--not-trait', 'CUSTOM_T1',
      '--trait-any', 'CUSTOM_T2,CUSTOM_T5'],
     lambda t: 'CUSTOM_T0' in t and 'CUSTOM_T1' not in t
     and bool(t & {'CUSTOM_T2', 'CUSTOM_T5'})),
])
def test_trait_filters_list_the_matching_nodes(fleet, args, keep):
    config_file, held = fleet
    expected = sorted(name for name, traits in held.items() if keep(traits))
    rows = _listed(config_file, *args)
    assert [row['name'] for row in rows] == expected
    for row in rows:
        assert set(row['traits']) == held[row['name']]


def test_filters_combine_with_the_resource_class(fleet):
    config_file, held = fleet
    rows = _listed(config_file, '--trait', 'CUSTOM_T0',
                   '--resource-class', 'gpu')
    assert [row['name'] for row in rows] == sorted(
        name for name, traits in held.items()
        if 'CUSTOM_T0' in traits and int(name[1:]) % 2 == 0)
    assert {row['resource_class'] for row in rows} <= {'gpu'}


def test_no_filter_lists_every_node_in_a_table(fleet):
    config_file, held = fleet
    proc = console_scripts.run('nova-mini-manage', config_file, 'node',
                               'list')
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].split() == ['uuid', 'name', 'provision_state',
                                'resource_class', 'traits']
    assert sorted(line.split()[1] for line in lines[1:]) == sorted(held)


@pytest.mark.parametrize('args, message', [
    (['--trait', 'custom_lower'], "Invalid trait 'custom_lower'"),
    (['--trait-any', ','.join('CUSTOM_X%d' % i for i in range(101))],
     'Too many traits in traits-any: at most 100 traits are allowed.'),
])
def test_bad_filters_are_refused_as_the_api_refuses_them(fleet, args,
                                                         message):
    config_file, _ = fleet
    proc = console_scripts.call(manage.main, config_file, 'node', 'list',
                                *args)
    assert proc.returncode == 1
    assert message in proc.stderr
    assert proc.stdout == ''
