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

"""Quotas of servers through python-openstackclient, unchanged, against
the stack's API as Keystone's catalog names it: ``openstack limits show
--absolute`` (limits and usage), ``openstack quota show`` (with
``--usage``), ``openstack quota set`` by an administrator and refused to
a member, a boot past the quota refused with Nova's 403, and ``openstack
quota delete`` back to the defaults.

The project is one of this module's own (made with the CLI, deleted at
the end): the stack's admin and demo projects have their server quotas
lifted for the other live tests (conftest), this one has [quota]'s
defaults, 10 servers, 20 vcpus and 51200 MiB, so five servers of
helpers.make_flavor's 4 vcpus and 4096 MiB.
"""

import json
import secrets
import types
import uuid

import pytest
import sqlalchemy as sa

from nova_mini.db import models
from nova_mini.tests.live import helpers
from nova_mini_deploy import glance as glance_harness

pytestmark = pytest.mark.live

RUN = uuid.uuid4().hex[:6]
PROJECT = 'quota-%s' % RUN


@pytest.fixture(scope='module')
def project(stack):
    """A project of this module with a member; a namespace with ``name``,
    ``id`` and ``env`` (the OS_* variables of its member).
    """
    password = secrets.token_urlsafe(12)
    made = json.loads(stack.openstack(
        'project', 'create', '--domain', 'default', PROJECT,
        '-f', 'json').stdout)
    try:
        stack.openstack('user', 'create', '--domain', 'default',
                        '--project', PROJECT, '--password', password,
                        PROJECT)
        try:
            stack.openstack('role', 'add', '--project', PROJECT, '--user',
                            PROJECT, 'member')
            yield types.SimpleNamespace(
                name=PROJECT, id=made['id'], env={
                    'OS_USERNAME': PROJECT, 'OS_PASSWORD': password,
                    'OS_PROJECT_NAME': PROJECT})
        finally:
            stack.openstack('user', 'delete', '--domain', 'default',
                            PROJECT, check=False)
    finally:
        stack.openstack('project', 'delete', '--domain', 'default',
                        PROJECT, check=False)


@pytest.fixture(scope='module')
def flavor(stack):
    return helpers.make_flavor(stack)


def _cli(stack, project, *args, check=True):
    """``openstack ARGS`` as the project's member."""
    return stack.openstack(*args, user='demo', check=check, **project.env)


def _cli_json(stack, project, *args):
    return json.loads(_cli(stack, project, *args, '-f', 'json').stdout)


def _admin_json(stack, *args):
    return json.loads(stack.openstack(*args, '-f', 'json').stdout)


def _limits(stack, project):
    """The absolute limits the member reads, by the names OSC prints."""
    rows = _cli_json(stack, project, 'limits', 'show', '--absolute')
    return {row['Name']: row['Value'] for row in rows}


def _quotas(stack, project, *options):
    """``openstack quota show`` of the project, as the admin:
    ``{resource: limit}``, or ``{resource: (limit, in use)}`` with
    ``--usage``.
    """
    rows = _admin_json(stack, 'quota', 'show', '--compute', *options,
                       project.name)
    if '--usage' in options:
        return {r['Resource']: (r['Limit'], r['In Use']) for r in rows}
    return {r['Resource']: r['Limit'] for r in rows}


def _used(limits):
    return (limits['max_total_instances'], limits['total_instances_used'],
            limits['max_total_cores'], limits['total_cores_used'],
            limits['max_total_ram_size'], limits['total_ram_used'])


def _boot(stack, project, flavor, name, check=True):
    """``openstack server create --wait`` as the member, on a new node."""
    if check:
        helpers.add_node(stack)
    return _cli(stack, project, 'server', 'create', '--flavor', flavor,
                '--image', glance_harness.CIRROS_ID, '--no-network',
                '--wait', name, check=check)


def _stored(stack, project):
    """The names of the project's instances, as stored."""
    instances = models.Instance.__table__
    engine = helpers.stack_engine(stack)
    try:
        with engine.connect() as connection:
            return sorted(connection.execute(
                sa.select(instances.c.name).where(
                    instances.c.project_id == project.id)).scalars())
    finally:
        engine.dispose()


def test_quotas_through_the_cli(stack, project, flavor):
    # The defaults, nothing used.
    assert _used(_limits(stack, project)) == (10, 0, 20, 0, 51200, 0)
    shown = _quotas(stack, project)
    assert (shown['instances'], shown['cores'], shown['ram']) == (
        10, 20, 51200)

    first = 'quota-%s-1' % RUN
    _boot(stack, project, flavor, first)
    assert _used(_limits(stack, project)) == (10, 1, 20, 4, 51200, 4096)
    usage = _quotas(stack, project, '--usage')
    assert (usage['instances'], usage['cores'], usage['ram']) == (
        (10, 1), (20, 4), (51200, 4096))

    # A member does not set its quotas (named by id: Keystone lets a
    # member read its own project, not look projects up by name).
    proc = _cli(stack, project, 'quota', 'set', '--instances', '100',
                project.id, check=False)
    assert proc.returncode == 1
    assert 'os_compute_api:os-quota-sets:update' in proc.stderr

    # Two servers for the project: the second fits, a third does not.
    assert stack.openstack('quota', 'set', '--instances', '2',
                           project.name).stdout == ''
    assert _quotas(stack, project)['instances'] == 2
    assert _used(_limits(stack, project))[:2] == (2, 1)
    second = 'quota-%s-2' % RUN
    _boot(stack, project, flavor, second)
    third = 'quota-%s-3' % RUN
    proc = _boot(stack, project, flavor, third, check=False)
    assert proc.returncode == 1
    assert ('Quota exceeded for instances: Requested 1, but already used '
            '2 of 2 instances' in proc.stderr), proc.stderr
    assert '403' in proc.stderr
    assert _stored(stack, project) == [first, second]

    # Not below what is used, unless forced.
    proc = stack.openstack('quota', 'set', '--instances', '1',
                           project.name, check=False)
    assert proc.returncode == 1
    assert ('Quota limit 1 for instances must be greater than or equal to '
            'already used and reserved 2' in proc.stderr), proc.stderr
    assert _quotas(stack, project)['instances'] == 2

    # The cores quota refuses as the instances one does.
    stack.openstack('quota', 'set', '--instances', '5', '--cores', '8',
                    project.name)
    proc = _boot(stack, project, flavor, third, check=False)
    assert proc.returncode == 1
    assert ('Quota exceeded for cores: Requested 4, but already used 8 of '
            '8 cores' in proc.stderr), proc.stderr
    assert _stored(stack, project) == [first, second]

    # Back to the defaults: the third fits.
    assert stack.openstack('quota', 'delete', '--compute',
                           project.name).stdout == ''
    shown = _quotas(stack, project)
    assert (shown['instances'], shown['cores'], shown['ram']) == (
        10, 20, 51200)
    _boot(stack, project, flavor, third)
    assert _used(_limits(stack, project)) == (10, 3, 20, 12, 51200, 12288)
    assert _stored(stack, project) == [first, second, third]

    _cli(stack, project, 'server', 'delete', '--wait', first, second, third)
    assert _used(_limits(stack, project)) == (10, 0, 20, 0, 51200, 0)
    assert _stored(stack, project) == []
