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

"""nova-mini-manage image-properties list|show|validate, run as operators
run them: the command's ``main`` in process (test_manage's
test_existing_commands_still_work starts the console script itself)."""

from nova_mini.api.validation.image_properties import registry
from nova_mini.cmd import manage as manage_cmd
from nova_mini.tests.fixtures import console_scripts


def manage(*args):
    return console_scripts.call(manage_cmd.main, None, 'image-properties',
                                *args)


def _rows(stdout):
    return [[c.strip() for c in line.split('|')[1:-1]]
            for line in stdout.splitlines() if line.startswith('|')]


def test_list_everything():
    result = manage('list')
    assert result.returncode == 0, result.stderr
    rows = _rows(result.stdout)
    assert rows[0] == ['Name', 'Value', 'Flavor extra spec', 'Status',
                       'Source']
    names = [row[0] for row in rows[1:] if row[0]]
    built = registry.build()
    assert names == [p.name for p in built]
    policy = next(row for row in rows if row[0] == 'hw_cpu_policy')
    assert policy[1:] == ['one of: dedicated, shared, mixed',
                          'hw:cpu_policy', 'supported',
                          'nova_mini (in tree)']


def test_list_a_namespace_and_the_legacy_names():
    result = manage('list', '--namespace', 'os')
    assert result.returncode == 0, result.stderr
    names = [row[0] for row in _rows(result.stdout)[1:] if row[0]]
    assert names and all(n.startswith('os_') for n in names)
    legacy = manage('list', '--namespace', 'legacy')
    names = [row[0] for row in _rows(legacy.stdout)[1:] if row[0]]
    assert 'architecture' in names and 'vmware_adaptertype' in names
    assert not any(n.startswith('hw_') for n in names)
    result = manage('list', '--namespace', 'hw:')
    assert result.returncode == 1
    assert "No image property uses the namespace 'hw:'" in result.stderr


def test_show_a_patterned_key():
    result = manage('show', 'hw_numa_mem.1')
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[:2] == ['hw_numa_mem.{id}', '  (matches hw_numa_mem.1: id=1)']
    assert '  Value:        an integer' in lines
    assert '  Flavor:       hw:numa_mem.{num}' in lines
    assert '  Nova field:   hw_numa_mem' in lines


def test_show_a_legacy_name():
    result = manage('show', 'hypervisor_type')
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == 'hypervisor_type'
    assert ('  Status:       supported. An older name Nova still reads; '
            'img_hv_type wins') in lines
    assert '  Nova field:   img_hv_type' in lines
    deprecated = manage('show', 'xenapi_use_agent')
    assert ('  Status:       deprecated. Only the XenAPI driver read it, and '
            'Nova removed') in deprecated.stdout.splitlines()


def test_show_an_unknown_name_suggests():
    result = manage('show', 'hw_cpu_polcy')
    assert result.returncode == 1
    assert result.stdout == ''
    assert ("Image property 'hw_cpu_polcy' is not a known image property; "
            "did you mean 'hw_cpu_policy'?") in result.stderr


def test_validate_valid_properties():
    result = manage('validate', 'hw_cpu_policy=dedicated', 'hw_pmu=maybe',
                    'architecture=AMD64', 'img_use_agent=yes',
                    'hw_numa_cpus.0=0-3,^1',
                    'trait:CUSTOM_GPU=required', 'os_command_line=a=b')
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        'hw_cpu_policy=dedicated: valid, read as dedicated',
        'hw_pmu=maybe: valid, read as false (not a boolean spelling Nova '
        'knows)',
        'architecture=AMD64: valid, read as x86_64',
        'img_use_agent=yes: valid, read as true',
        '  note: img_use_agent is deprecated.',
        'hw_numa_cpus.0=0-3,^1: valid, read as {0, 2, 3}',
        'trait:CUSTOM_GPU=required: valid, read as required',
        'os_command_line=a=b: valid, read as a=b',
    ]
    assert result.stderr == ''


def test_validate_refusals_exit_1_with_the_api_message():
    result = manage('validate', 'hw_cpu_policy=Dedicated', 'hw_cpu_polcy=x',
                    'hw_cpu_cores=two', 'hw_cpu_sockets=2')
    assert result.returncode == 1
    assert result.stdout == 'hw_cpu_sockets=2: valid, read as 2\n'
    assert result.stderr.splitlines() == [
        "Invalid image metadata. Error: Image property 'hw_cpu_policy': "
        "'Dedicated' is not one of: dedicated, shared, mixed.",
        "Image property 'hw_cpu_polcy' is not a known image property; did "
        "you mean 'hw_cpu_policy'?",
        "Invalid image metadata. Error: Image property 'hw_cpu_cores' (an "
        "integer): 'two' is not an integer.",
    ]


def test_validate_permissive_keeps_unknown_names_and_numa_gaps():
    args = ('hw_cpu_polcy=x', 'hw_numa_mem.1=x')
    strict = manage('validate', *args)
    assert strict.returncode == 1
    assert "'hw_numa_mem.1' is ignored" in strict.stderr
    result = manage('validate', '--permissive', *args)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        'hw_cpu_polcy=x: not an image property nova_mini knows; kept as it '
        'is',
        'hw_numa_mem.1=x: ignored, as Nova ignores it (a number is missing '
        'before it)',
    ]


def test_validate_needs_key_value():
    result = manage('validate', 'hw_cpu_policy')
    assert result.returncode == 1
    assert "'hw_cpu_policy' is not KEY=VALUE" in result.stderr
