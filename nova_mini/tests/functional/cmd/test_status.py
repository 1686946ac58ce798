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

"""``nova-mini-status upgrade check`` run as an operator runs it: a
config file, a SQLite database made by ``db sync``; the command's ``main``
in process, the console script itself in test_human_readable_table.
"""

from importlib import metadata
import json
import re

import pytest

import sqlalchemy as sa

from nova_mini.cmd import status as status_cmd
from nova_mini import context as nm_context
from nova_mini.db import models
from nova_mini.objects.baremetal import conductor as conductor_obj
from nova_mini.tests.fixtures import builders
from nova_mini.tests.fixtures import console_scripts

SUCCESS, WARNING, FAILURE = 0, 1, 2


def status(config_file):
    """Run the check with --json; return (exit status, {check: result})."""
    proc = console_scripts.call(status_cmd.main, config_file, 'upgrade',
                                'check', '--json', prog=None)
    assert proc.stdout, proc.stderr
    report = json.loads(proc.stdout)
    return proc.returncode, {check['check']: check
                             for check in report['checks']}


def test_a_ready_deployment_passes(synced):
    context = nm_context.get_admin_context()
    builders.create_flavor(context, 'good', extra_specs={
        'trait:CUSTOM_GOLD': 'required', 'hw:cpu_policy': 'dedicated'})
    builders.create_node(context, 'n1', traits=['CUSTOM_GOLD', 'HW_CPU_X86_AVX2'])

    code, checks = status(synced)

    assert code == SUCCESS
    assert {name: check['result'] for name, check in checks.items()} == {
        'Database schema': SUCCESS, 'Flavor extra specs': SUCCESS,
        'Node traits': SUCCESS, 'Bare-metal conductors': SUCCESS,
        'Metadata shared secret': SUCCESS,
        'Policy file JSON to YAML migration': SUCCESS}
    assert 'schema is at 0' in checks['Database schema']['details']


def test_an_empty_database_fails_and_says_what_to_run(tmp_path):
    _, config_file = console_scripts.config(
        tmp_path, '[metadata]\nmetadata_proxy_shared_secret = x\n')

    code, checks = status(config_file)

    assert code == FAILURE
    schema = checks['Database schema']
    assert schema['result'] == FAILURE
    assert 'nova-mini-manage db sync' in schema['details']
    # The checks that read tables do not run against a missing schema.
    for name in ('Flavor extra specs', 'Node traits'):
        assert checks[name]['result'] == FAILURE
        assert 'database is not ready' in checks[name]['details']


def test_flavors_and_traits_that_strict_validation_rejects_are_named(synced):
    context = nm_context.get_admin_context()
    builders.create_flavor(context, 'ok', extra_specs={'hw:cpu_policy':
                                                       'shared'})
    builders.create_flavor(context, 'typo', name='typo-flavor',
                           extra_specs={'hw:cpu_polcy': 'dedicated'})
    builders.create_flavor(context, 'bad-value', name='bad-value-flavor',
                           extra_specs={'hw:cpu_policy': 'sometimes'})
    # Rows an older release (or a direct database write) left behind: the
    # API refuses these names today.
    builders.create_node(context, 'n1', traits=['CUSTOM_OK', 'custom_lower'])
    builders.create_node(context, 'n2', traits=['custom_lower'])

    code, checks = status(synced)

    assert code == WARNING
    flavors = checks['Flavor extra specs']
    assert flavors['result'] == WARNING
    assert '2 flavor(s)' in flavors['details']
    assert 'bad-value (bad-value-flavor)' in flavors['details']
    assert 'typo (typo-flavor)' in flavors['details']
    assert 'ok (' not in flavors['details']
    traits = checks['Node traits']
    assert traits['result'] == WARNING
    assert 'custom_lower (2 nodes)' in traits['details']
    assert 'CUSTOM_OK' not in traits['details']
    # The advice names commands python-ironicclient has.
    advised = re.findall(r'openstack (baremetal node \w+ \w+)',
                         traits['details'])
    assert advised == ['baremetal node add trait',
                       'baremetal node remove trait']
    osc = {ep.name.replace('_', ' ') for ep in
           metadata.entry_points(group='openstack.baremetal.v1')}
    assert set(advised) <= osc, set(advised) - osc


@pytest.mark.parametrize('metadata, expected, words', [
    ('', FAILURE, 'will refuse to start'),
    ('insecure_unsigned_requests = true', WARNING, 'serves any instance'),
])
def test_missing_metadata_secret(tmp_path, metadata, expected, words):
    _, config_file = console_scripts.config(tmp_path,
                                            '[metadata]\n%s\n' % metadata)

    code, checks = status(config_file)

    secret = checks['Metadata shared secret']
    assert secret['result'] == expected
    assert words in secret['details']
    assert code == FAILURE  # the database is not synced either


def test_human_readable_table(synced):
    proc = console_scripts.run('nova-mini-status', synced, 'upgrade',
                               'check')
    assert proc.returncode == SUCCESS, proc.stdout + proc.stderr
    assert 'Check: Node traits' in proc.stdout
    assert 'Result: Success' in proc.stdout


def test_redfish_nodes_without_a_conductor_warn(synced, tmp_path):
    context = nm_context.get_admin_context()
    builders.create_node(context, 'r1', driver='redfish')
    builders.create_node(context, 'r2', driver='redfish')
    builders.create_node(context, 'r3', driver='redfish',
                         conductor_group='rack-9')
    # nova-mini-api only: fake-hardware.
    conductor_obj.register_host(context, 'api-1')

    code, checks = status(synced)

    assert code == WARNING
    check = checks['Bare-metal conductors']
    assert check['result'] == WARNING
    assert ('2 redfish node(s) of conductor group "" have no alive '
            'nova-mini-conductor driving redfish' in check['details'])
    assert ('1 redfish node(s) of conductor group "rack-9"'
            in check['details'])

    # A conductor of the default group: only the other group's node.
    conductor_obj.register_host(context, 'cond-1', ['redfish'])
    code, checks = status(synced)
    details = checks['Bare-metal conductors']['details']
    assert 'conductor group ""' not in details
    assert details.startswith('1 redfish node(s) of conductor group '
                              '"rack-9"')


def test_a_host_shared_by_the_api_and_a_conductor_warns(synced, tmp_path):
    # A row registered by both, as an earlier release allowed.
    context = nm_context.get_admin_context()
    conductor_obj.register_host(context, 'both-1', ['redfish'])
    engine = sa.create_engine('sqlite:///%s' % (tmp_path /
                                                'nova_mini.sqlite'))
    with engine.begin() as connection:
        connection.execute(models.Conductor.__table__.update().values(
            drivers=['fake-hardware', 'redfish']))
    engine.dispose()

    code, checks = status(synced)

    assert code == WARNING
    check = checks['Bare-metal conductors']
    assert check['result'] == WARNING
    assert check['details'].startswith(
        'Host(s) both-1 are registered by both nova-mini-api and '
        'nova-mini-conductor')
