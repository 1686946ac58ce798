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

"""nova-mini-manage extra-specs and flavor audit, run as operators run
them: a config file, a database built by ``db sync``; the command's
``main`` in process (``manage``), the console script itself in
test_existing_commands_still_work.
"""

import json
import os

import jsonschema
import pytest

from nova_mini.cmd import manage as manage_cmd
from nova_mini import context as nm_context
from nova_mini import objects
from nova_mini.tests.fixtures import console_scripts
from nova_mini.tests.unit.extra_specs_tools import test_metadefs as tm


def manage(*args, config_file=None):
    """nova-mini-manage ``args``, its main in this process."""
    return console_scripts.call(manage_cmd.main, config_file, *args)


@pytest.fixture
def deployment(tmp_path):
    """A config file and its SQLite database, synced by the command; the
    in-process enginefacade points at the same file for making flavors.
    """
    with console_scripts.synced_database(tmp_path) as config_file:
        yield config_file


def make_flavor(flavorid, extra_specs, is_public=True):
    context = nm_context.get_admin_context()
    flavor = objects.Flavor(
        context=context, flavorid=flavorid, name='flavor-%s' % flavorid,
        memory_mb=512, vcpus=1, root_gb=1, is_public=is_public,
        extra_specs=extra_specs)
    flavor.create()
    return flavor


def test_existing_commands_still_work(deployment):
    # The console script itself starts and exits 0.
    result = console_scripts.run('nova-mini-manage', deployment,
                                 'db', 'version')
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() not in ('', 'None')


def test_audit_without_flavors(deployment):
    result = manage('flavor', 'audit', config_file=deployment)
    assert result.returncode == 0, result.stderr
    assert result.stdout == 'All 0 flavors valid.\n'


def test_audit_of_valid_flavors(deployment):
    make_flavor('1', {'hw:cpu_policy': 'dedicated', 'hw:numa_nodes': '2',
                      'hw:numa_cpus.0': '0-1', 'trait:HW_CPU_X86_AVX2':
                      'required', 'resources:VGPU': '1'})
    make_flavor('2', {}, is_public=False)
    result = manage('flavor', 'audit', config_file=deployment)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout == 'All 2 flavors valid.\n'


def test_audit_reports_every_problem(deployment):
    make_flavor('good', {'hw:cpu_policy': 'shared'})
    make_flavor('typo', {'hw:cpu_polcy': 'dedicated',
                         'hw:cpu_policy': 'dedicated'})
    make_flavor('values', {'hw:cpu_policy': 'sometimes',
                           'hw:numa_nodes': 'two'})
    make_flavor('private', {'nonsense:key': 'x'}, is_public=False)
    result = manage('flavor', 'audit', config_file=deployment)
    assert result.returncode == 1, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert lines[-1].startswith(
        '3 of 4 flavors have unknown or invalid extra specs')
    problems = lines[:-1]
    assert len(problems) == 4, problems
    assert any(line.startswith('Flavor typo (flavor-typo): ') and
               "'hw:cpu_polcy'" in line and "did you mean 'hw:cpu_policy'"
               in line for line in problems)
    assert any(line.startswith('Flavor values (flavor-values): ') and
               "'hw:cpu_policy'" in line and 'sometimes' in line
               for line in problems)
    assert any(line.startswith('Flavor values (flavor-values): ') and
               "'hw:numa_nodes'" in line and 'not an integer' in line
               for line in problems)
    # Private flavors are audited too.
    assert any(line.startswith('Flavor private (flavor-private): ') and
               "'nonsense'" in line for line in problems)
    assert not any('Flavor good' in line for line in problems)


def test_audit_notes_deprecated_keys(deployment):
    make_flavor('old', {'hide_hypervisor_id': 'true'})
    result = manage('flavor', 'audit', config_file=deployment)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert lines[-1] == 'All 1 flavor valid.'
    assert lines[0].startswith('Flavor old (flavor-old): note: '
                               'hide_hypervisor_id is deprecated')
    assert 'hw:hide_hypervisor_id' in lines[0]


def test_list():
    result = manage('extra-specs', 'list')
    assert result.returncode == 0, result.stderr
    rows = [line.split('|') for line in result.stdout.splitlines()
            if line.startswith('|')]
    assert [c.strip() for c in rows[0][1:-1]] == [
        'Name', 'Value', 'Status', 'Source']
    by_name = {r[1].strip(): [c.strip() for c in r[2:-1]] for r in rows[1:]}
    assert by_name['hw:cpu_policy'][0].startswith('one of: ')
    assert by_name['hw:cpu_policy'][1:] == ['supported', 'nova_mini (in tree)']
    assert by_name['hw:numa_mem.{num}'][0] == 'an integer of at least 1'
    assert by_name['hide_hypervisor_id'][1].startswith('deprecated since')
    assert 'trait{group}:{trait}' in by_name


def test_list_one_namespace():
    result = manage('extra-specs', 'list', '--namespace', 'quota')
    assert result.returncode == 0, result.stderr
    names = [line.split('|')[1].strip() for line in
             result.stdout.splitlines()[3:] if line.startswith('|')]
    assert names and all(n.startswith('quota:') for n in names)
    result = manage('extra-specs', 'list', '--namespace', 'nope')
    assert result.returncode == 1
    assert "No extra spec uses the namespace 'nope'" in result.stderr


def test_show():
    result = manage('extra-specs', 'show', 'hw:cpu_policy')
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == 'hw:cpu_policy'
    assert any(line.startswith('  Value:        one of: ')
               for line in lines)
    assert '  Source:       nova_mini (in tree)' in lines


def test_show_patterned():
    by_name = manage('extra-specs', 'show', 'hw:numa_cpus.{num}')
    by_key = manage('extra-specs', 'show', 'hw:numa_cpus.3')
    for result in (by_name, by_key):
        assert result.returncode == 0, result.stderr
        lines = result.stdout.splitlines()
        assert lines[0] == 'hw:numa_cpus.{num}'
        assert any(line.startswith('  Parameter:    {num} matches ')
                   for line in lines)
    assert by_key.stdout.splitlines()[1] == '  (matches hw:numa_cpus.3: num=3)'


def test_show_unknown():
    result = manage('extra-specs', 'show', 'hw:cpu_polcy')
    assert result.returncode == 1
    assert result.stdout == ''
    assert "did you mean 'hw:cpu_policy'" in result.stderr
    result = manage('extra-specs', 'show', 'nonsense:key')
    assert result.returncode == 1
    assert "no extra spec uses the namespace 'nonsense'" in result.stderr
    assert 'Namespaces: accel, ' in result.stderr


def test_metadefs(tmp_path):
    out = tmp_path / 'metadefs'
    result = manage('extra-specs', 'metadefs', '--output-dir', str(out))
    assert result.returncode == 0, result.stderr
    files = sorted(os.listdir(out))
    assert 'nova-mini-hw.json' in files and 'nova-mini.json' in files
    wrote = [line for line in result.stdout.splitlines()
             if line.startswith('Wrote ')]
    assert len(wrote) == len(files)
    assert any(line.startswith('Wrote %s: OS::Compute::NovaMini::hw, '
                               % (out / 'nova-mini-hw.json'))
               for line in wrote)
    assert '  left out hw:numa_cpus.{num} (patterned name)' in (
        result.stdout.splitlines())
    with open(tm.SCHEMA_PATH) as schema_file:
        schema = json.load(schema_file)
    for name in files:
        with open(out / name) as document_file:
            document = json.load(document_file)
        jsonschema.validate(document, schema,
                            format_checker=jsonschema.FormatChecker())
    with open(out / 'nova-mini-hw.json') as document_file:
        hw = json.load(document_file)
    assert hw['resource_type_associations'] == [
        {'name': 'OS::Nova::Flavor', 'prefix': 'hw:'}]
    assert hw['properties']['cpu_policy']['type'] == 'string'


def test_metadefs_needs_an_output_dir():
    result = manage('extra-specs', 'metadefs')
    assert result.returncode != 0
    assert '--output-dir' in result.stderr
