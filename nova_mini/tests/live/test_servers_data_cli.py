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

"""What servers keep, through python-openstackclient unchanged against
the real stack: ``openstack server create --property --user-data
--description --tag``, ``server set``/``unset`` (the server metadata API
and PUT /servers/{id}) and ``server show``, checked in the database too.

Fixtures (an API and scheduler on a virtual host of their own, flavors,
a node): test_servers_cli.py.
"""

import base64
import json
import os

import pytest
import sqlalchemy as sa

from nova_mini.db import models
from nova_mini.tests.live.test_servers_cli import admin  # noqa: F401
from nova_mini.tests.live.test_servers_cli import compute_url  # noqa
from nova_mini.tests.live.test_servers_cli import FLAVOR
from nova_mini.tests.live.test_servers_cli import flavors  # noqa
from nova_mini.tests.live.test_servers_cli import node  # noqa: F401
from nova_mini.tests.live.test_servers_cli import openstack_cli
from nova_mini.tests.live.test_servers_cli import ROOT_DISK
from nova_mini.tests.live.test_servers_cli import RUN

pytestmark = pytest.mark.live

USER_DATA = b'#cloud-config\nruncmd: [echo, hello]\n'


def _stored(stack, server_id):
    """``(instance row, metadata, tags)`` in the stack's database."""
    engine = sa.create_engine('sqlite:///%s' % os.path.join(
        stack.nova.state_dir, 'nova_mini.sqlite'))
    instances = models.Instance.__table__
    metadata = models.InstanceMetadata.__table__
    tags = models.InstanceTag.__table__
    try:
        with engine.connect() as connection:
            row = connection.execute(sa.select(instances).where(
                instances.c.uuid == server_id)).one()
            items = dict(connection.execute(
                sa.select(metadata.c.key, metadata.c.value).where(
                    metadata.c.instance_uuid == server_id)).all())
            names = sorted(tag for tag, in connection.execute(
                sa.select(tags.c.tag).where(
                    tags.c.instance_uuid == server_id)))
        return row, items, names
    finally:
        engine.dispose()


def test_openstack_server_properties(stack, compute_url, flavors,  # noqa
                                     node, tmp_path):  # noqa: F811
    def cli(*args, **kwargs):
        return openstack_cli(stack, compute_url, *args, **kwargs)

    def cli_json(*args, **kwargs):
        return json.loads(cli(*args, '-f', 'json', **kwargs).stdout)

    user_data = tmp_path / 'user-data'
    user_data.write_bytes(USER_DATA)
    name = 'data-%s' % RUN
    created = cli_json(
        'server', 'create', '--flavor', FLAVOR, '--block-device', ROOT_DISK,
        '--property', 'role=web', '--property', 'env=prod',
        '--user-data', str(user_data), '--description', 'front end',
        '--tag', 'blue', '--tag', 'green', '--config-drive', 'true',
        '--wait', name)
    assert created['status'] == 'ACTIVE', created
    server_id = created['id']

    shown = cli_json('server', 'show', server_id)
    assert shown['properties'] == {'role': 'web', 'env': 'prod'}
    assert shown['description'] == 'front end'
    assert sorted(shown['tags']) == ['blue', 'green']
    assert shown['config_drive'] == 'True'
    as_admin = cli_json('server', 'show', server_id, user='admin')
    assert base64.b64decode(
        as_admin['OS-EXT-SRV-ATTR:user_data']) == USER_DATA

    cli('server', 'set', '--property', 'role=db', '--property', 'new=1',
        '--description', 'back end', '--name', name + '-db', server_id)
    cli('server', 'unset', '--property', 'env', server_id)
    shown = cli_json('server', 'show', server_id)
    assert shown['name'] == name + '-db'
    assert shown['properties'] == {'role': 'db', 'new': '1'}
    assert shown['description'] == 'back end'

    row, items, names = _stored(stack, server_id)
    assert items == {'role': 'db', 'new': '1'}
    assert names == ['blue', 'green']
    assert row.description == 'back end'
    assert base64.b64decode(row.user_data) == USER_DATA
    assert row.config_drive is True
    assert 'member' in row.boot_roles
    assert row.updated_at > row.launched_at

    cli('server', 'delete', '--wait', server_id)
