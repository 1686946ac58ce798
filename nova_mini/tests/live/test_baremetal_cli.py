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

"""python-ironicclient's ``openstack baremetal`` commands, unchanged,
against nova-mini-api's /baremetal root, found in Keystone's catalog (the
harness registers a ``baremetal`` service whose endpoint is
``http://127.0.0.1:<api port>/baremetal``, like Ironic's root).

What each command prints is checked against what the same client prints
against a real Ironic 39 (captured in the issue's wire reference): tables,
``-f value``/``-f json`` output, the "Added trait"/"Removed trait" lines and
the error lines the client builds from Ironic's ``{"error_message": ...}``.
"""

import json
import uuid

import pytest
import requests


pytestmark = pytest.mark.live

VERSION = '1.37'


def baremetal(stack, *args, user='admin', version=VERSION, check=True):
    """``openstack baremetal [--os-baremetal-api-version V] ARGS``."""
    argv = ['baremetal']
    if version:
        argv += ['--os-baremetal-api-version', version]
    return stack.openstack(*argv, *args, user=user, check=check,
                           timeout=120)


def baremetal_json(stack, *args, **kwargs):
    return json.loads(baremetal(stack, *args, '-f', 'json',
                                **kwargs).stdout)


def table_rows(text):
    """The cells of each data row of a cliff table (header row included)."""
    return [[cell.strip() for cell in line.strip().strip('|').split('|')]
            for line in text.splitlines() if line.startswith('|')]


def client_error(proc):
    """The error line(s) the client printed, without Python warnings."""
    return '\n'.join(line for line in proc.stderr.splitlines()
                     if 'Warning' not in line and line.strip())


@pytest.fixture
def node(stack):
    """A node made with ``openstack baremetal node create``; deleted after."""
    name = 'bm-cli-%s' % uuid.uuid4().hex[:8]
    created = baremetal_json(stack, 'node', 'create', '--driver',
                             'fake-hardware', '--name', name,
                             '--resource-class', 'baremetal',
                             '--property', 'cpus=4',
                             '--property', 'memory_mb=4096')
    yield created
    baremetal(stack, 'node', 'delete', created['uuid'], check=False)


def test_catalog_lists_baremetal(stack):
    proc = stack.openstack('endpoint', 'list', '--service', 'baremetal',
                           '-f', 'json', check=False)
    assert proc.returncode == 0, proc.stderr
    endpoints = json.loads(proc.stdout)
    assert sorted(e['Interface'] for e in endpoints) == [
        'admin', 'internal', 'public']
    assert {e['URL'] for e in endpoints} == {stack.nova.baremetal_url}


def test_node_create_prints_the_node(stack, node):
    assert node['name'].startswith('bm-cli-')
    assert uuid.UUID(node['uuid'])
    assert node['traits'] == []
    assert node['resource_class'] == 'baremetal'
    assert node['provision_state'] in ('enroll', 'available')
    assert node['maintenance'] is False
    assert node['instance_uuid'] is None
    # The properties went through as given (the client sends strings
    # unless they parse as JSON numbers).
    assert node['properties']['cpus'] in (4, '4')
    assert node['properties']['memory_mb'] in (4096, '4096')

    shown = baremetal_json(stack, 'node', 'show', node['name'])
    assert shown['uuid'] == node['uuid']


def test_traits_lifecycle(stack, node):
    name, node_uuid = node['name'], node['uuid']

    # add trait: one line per trait, in the order given.
    proc = baremetal(stack, 'node', 'add', 'trait', name, 'CUSTOM_FOO',
                     'CUSTOM_BAR', 'HW_CPU_X86_AVX2')
    assert proc.stdout.splitlines() == [
        'Added trait CUSTOM_FOO', 'Added trait CUSTOM_BAR',
        'Added trait HW_CPU_X86_AVX2']
    # Adding one that is there already is fine (PUT is idempotent).
    proc = baremetal(stack, 'node', 'add', 'trait', node_uuid, 'CUSTOM_FOO')
    assert proc.stdout.splitlines() == ['Added trait CUSTOM_FOO']

    everything = ['CUSTOM_BAR', 'CUSTOM_FOO', 'HW_CPU_X86_AVX2']

    # trait list: a one-column table, sorted like Ironic's.
    table = baremetal(stack, 'node', 'trait', 'list', name).stdout
    assert table_rows(table) == [['traits']] + [[t] for t in everything]
    value = baremetal(stack, 'node', 'trait', 'list', name, '-f',
                      'value').stdout
    assert value.splitlines() == everything
    assert baremetal_json(stack, 'node', 'trait', 'list', node_uuid) == [
        {'traits': t} for t in everything]

    # node list --fields: the table shows the list's repr, JSON the list.
    listed = baremetal_json(stack, 'node', 'list', '--fields', 'uuid',
                            'name', 'traits')
    assert {'uuid': node_uuid, 'name': name, 'traits': everything} in listed
    assert all(set(entry) == {'uuid', 'name', 'traits'} for entry in listed)
    table = baremetal(stack, 'node', 'list', '--fields', 'uuid', 'name',
                      'traits').stdout
    rows = table_rows(table)
    assert rows[0] == ['uuid', 'name', 'traits']
    assert [node_uuid, name, repr(everything)] in rows

    # node show --fields traits
    table = baremetal(stack, 'node', 'show', name, '--fields',
                      'traits').stdout
    assert table_rows(table) == [['Field', 'Value'],
                                 ['traits', repr(everything)]]
    assert baremetal_json(stack, 'node', 'show', name, '--fields',
                          'traits') == {'traits': everything}

    # remove trait (one)
    proc = baremetal(stack, 'node', 'remove', 'trait', name, 'CUSTOM_FOO')
    assert proc.stdout.splitlines() == ['Removed trait CUSTOM_FOO']
    assert baremetal(stack, 'node', 'trait', 'list', name, '-f',
                     'value').stdout.splitlines() == [
        'CUSTOM_BAR', 'HW_CPU_X86_AVX2']

    # remove trait --all: silent, and the list is empty.
    proc = baremetal(stack, 'node', 'remove', 'trait', '--all', name)
    assert proc.stdout == ''
    assert baremetal_json(stack, 'node', 'trait', 'list', name) == []
    assert baremetal_json(stack, 'node', 'show', name, '--fields',
                          'traits') == {'traits': []}


def test_latest_version(stack, node):
    baremetal(stack, 'node', 'add', 'trait', node['name'], 'CUSTOM_LATEST',
              version='latest')
    assert baremetal_json(stack, 'node', 'trait', 'list', node['name'],
                          version='latest') == [{'traits': 'CUSTOM_LATEST'}]
    shown = baremetal_json(stack, 'node', 'show', node['uuid'],
                           version='latest')
    assert shown['traits'] == ['CUSTOM_LATEST']


def test_errors_the_client_reads(stack, node):
    name, node_uuid = node['name'], node['uuid']

    # A bad name: 400, the message readable (not raw JSON), exit 1.
    proc = baremetal(stack, 'node', 'add', 'trait', name, 'custom_bad',
                     check=False)
    assert proc.returncode == 1
    error = client_error(proc)
    assert error.startswith('Failed to add trait custom_bad: '), error
    assert '(HTTP 400)' in error
    assert 'error_message' not in error and 'faultstring' not in error

    # "CUSTOM_X\n" is refused too (Ironic stores it; the spec says no).
    proc = baremetal(stack, 'node', 'add', 'trait', name, 'CUSTOM_X\n',
                     check=False)
    assert proc.returncode == 1
    assert '(HTTP 400)' in client_error(proc)
    assert baremetal_json(stack, 'node', 'trait', 'list', name) == []

    # A trait the node does not have: 404, naming the trait.
    proc = baremetal(stack, 'node', 'remove', 'trait', name, 'CUSTOM_NOPE',
                     check=False)
    assert proc.returncode == 1
    error = client_error(proc)
    assert error.startswith('Failed to remove trait CUSTOM_NOPE: '), error
    assert 'CUSTOM_NOPE' in error[len('Failed to remove trait CUSTOM_NOPE:'):]
    assert '(HTTP 404)' in error

    # An unknown node: 404.
    missing = 'no-such-node-%s' % uuid.uuid4().hex[:6]
    proc = baremetal(stack, 'node', 'trait', 'list', missing, check=False)
    assert proc.returncode == 1
    error = client_error(proc)
    assert missing in error and '(HTTP 404)' in error, error

    # Below 1.37 the client refuses by itself, from the server's range.
    proc = baremetal(stack, 'node', 'trait', 'list', node_uuid,
                     version='1.36', check=False)
    assert proc.returncode == 1
    assert 'not supported' in client_error(proc)


def test_fifty_traits_at_most(stack, node):
    traits = ['CUSTOM_LIMIT_%02d' % i for i in range(51)]
    proc = baremetal(stack, 'node', 'add', 'trait', node['name'], *traits,
                     check=False)
    assert proc.returncode == 1
    assert proc.stdout.splitlines() == ['Added trait %s' % t
                                        for t in traits[:50]]
    error = client_error(proc)
    assert error.startswith('Failed to add trait CUSTOM_LIMIT_50: '), error
    assert '(HTTP 400)' in error
    value = baremetal(stack, 'node', 'trait', 'list', node['name'], '-f',
                      'value').stdout
    assert value.splitlines() == traits[:50]


def test_member_cannot_change_traits(stack, node):
    # The node is nobody's: a member of a project does not even find it
    # (Ironic's project scoping), so cannot change its traits.
    proc = baremetal(stack, 'node', 'add', 'trait', node['uuid'],
                     'CUSTOM_DEMO', user='demo', check=False)
    assert proc.returncode == 1
    assert '(HTTP 404)' in client_error(proc)
    proc = baremetal(stack, 'node', 'remove', 'trait', '--all',
                     node['uuid'], user='demo', check=False)
    assert proc.returncode != 0
    assert '(HTTP 404)' in client_error(proc)


def test_node_list_filters_by_traits(stack, node):
    """The trait filters, which Ironic's client has no options for: nodes
    given traits by the CLI, listed through the catalog's URL with a token
    of the same user.
    """
    other = baremetal_json(stack, 'node', 'create', '--driver',
                           'fake-hardware', '--name',
                           'bm-cli-%s' % uuid.uuid4().hex[:8])
    try:
        baremetal(stack, 'node', 'add', 'trait', node['uuid'], 'CUSTOM_RED',
                  'CUSTOM_BIG')
        baremetal(stack, 'node', 'add', 'trait', other['uuid'],
                  'CUSTOM_BLUE', 'CUSTOM_BIG')
        url = stack.nova.baremetal_url + '/v1/nodes'
        headers = {'X-Auth-Token': stack.token('admin'),
                   'X-OpenStack-Ironic-API-Version': VERSION}
        ours = {node['uuid'], other['uuid']}

        def found(**params):
            params['fields'] = 'uuid'
            resp = requests.get(url, headers=headers, params=params,
                                timeout=30)
            assert resp.status_code == 200, resp.text
            return {n['uuid'] for n in resp.json()['nodes']} & ours

        assert found(traits='CUSTOM_BIG') == ours
        assert found(traits='CUSTOM_BIG,CUSTOM_RED') == {node['uuid']}
        assert found(**{'not-traits': 'CUSTOM_RED'}) == {other['uuid']}
        assert found(**{'traits-any': 'CUSTOM_RED,CUSTOM_BLUE'}) == ours
        assert found(**{'not-traits-any': 'CUSTOM_RED,CUSTOM_BIG'}) == {
            other['uuid']}
        assert found(traits='CUSTOM_BIG',
                     **{'not-traits': 'CUSTOM_BLUE'}) == {node['uuid']}
    finally:
        baremetal(stack, 'node', 'delete', other['uuid'], check=False)


def test_owner_and_lessee(stack):
    """The client's --owner (1.50) and --lessee (1.65): the demo project's
    member lists only the node its project owns, may lease it out (and
    still sees it, as its owner) but may not give it away.
    """
    demo = stack.openstack('project', 'show', 'demo', '-f', 'value', '-c',
                           'id').stdout.strip()
    name = 'bm-owned-%s' % uuid.uuid4().hex[:8]
    created = baremetal_json(stack, 'node', 'create', '--driver',
                             'fake-hardware', '--name', name, '--owner',
                             demo, version='1.65')
    try:
        assert (created['owner'], created['lessee']) == (demo, None)
        listed = baremetal_json(stack, 'node', 'list', user='demo',
                                version='1.65')
        # The demo project's only node (the others are nobody's).
        assert len(listed) == 1 and name in json.dumps(listed), listed
        baremetal(stack, 'node', 'set', name, '--lessee', 'tenant-x',
                  user='demo', version='1.65')
        shown = baremetal_json(stack, 'node', 'show', name, user='demo',
                               version='1.65')
        assert (shown['owner'], shown['lessee']) == (demo, 'tenant-x')
        proc = baremetal(stack, 'node', 'set', name, '--owner', 'tenant-x',
                         user='demo', version='1.65', check=False)
        assert proc.returncode == 1
        assert '(HTTP 403)' in client_error(proc)
        assert 'baremetal:node:update:owner' in client_error(proc)
        # Before 1.50 the client itself refuses --owner.
        proc = baremetal(stack, 'node', 'set', name, '--owner', 'x',
                         version='1.49', check=False)
        assert proc.returncode != 0
    finally:
        baremetal(stack, 'node', 'delete', created['uuid'], check=False)
