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

"""A deploy's or rebuild's config drive, as Node.set_provision_state
stores it: in the node's stored instance_info, with the move, cleared by
the undeploy, never logged.
"""

import base64
import logging
import os

from oslo_utils import uuidutils
import pytest
import sqlalchemy as sa

from nova_mini.db import api as db_api
from nova_mini.db import models
from nova_mini import exception
from nova_mini import exception_baremetal
from nova_mini import objects
from nova_mini.tests.fixtures import builders

pytestmark = pytest.mark.usefixtures('db')

_NODES = models.Node.__table__
# Not base64 text of an ISO, but the object layer stores what it is given
# (the API checks the shape).
DRIVE = 'H4sIAAAAAAAC/0tJTUzPzEsFAAAA//8DAMCQ2Q=='
OTHER = 'https://example.com/configdrive/other.iso.gz'


@db_api.context_manager.reader
def _stored(context, node_id):
    """The node's row as the database has it."""
    return context.session.execute(sa.select(
        _NODES.c.provision_state, _NODES.c.instance_info).where(
            _NODES.c.id == node_id)).first()


def _node(admin, state='available', **values):
    return builders.create_node(
        admin, 'n', provision_state=state, power_state='power off',
        instance_info={'image_source': 'img'}, **values)


def test_deploy_stores_the_config_drive(admin):
    node = _node(admin)
    node.set_provision_state('active', configdrive=DRIVE)
    row = _stored(admin, node.id)
    assert row.provision_state == 'active'
    assert row.instance_info['configdrive'] == DRIVE
    assert row.instance_info['image_source'] == 'img'
    assert node.instance_info['configdrive'] == DRIVE


def test_deploy_of_a_claim_stores_it_with_the_disk_layout(admin):
    instance = uuidutils.generate_uuid()
    builders.boot_server(admin, instance)
    node = _node(admin, local_gb=100)
    assert objects.Node.claim(admin, node.uuid, instance,
                              {'traits': [], 'image_source': 'img'})
    node = objects.Node.get_by_uuid(admin, node.uuid)
    node.set_provision_state('active', instance_uuid=instance,
                             configdrive=DRIVE)
    info = _stored(admin, node.id).instance_info
    assert info['configdrive'] == DRIVE
    assert 'root_gb' in info


def test_deploy_without_one_stores_none(admin):
    node = _node(admin)
    node.set_provision_state('active')
    assert 'configdrive' not in _stored(admin, node.id).instance_info


def test_rebuild_replaces_it_and_keeps_it_when_given_none(admin):
    node = _node(admin)
    node.set_provision_state('active', configdrive=DRIVE)
    node.set_provision_state('rebuild', configdrive=OTHER)
    assert _stored(admin, node.id).instance_info['configdrive'] == OTHER
    # As Ironic's rebuild: no new config drive, the node's stays.
    node.set_provision_state('rebuild')
    assert _stored(admin, node.id).instance_info['configdrive'] == OTHER


def test_undeploy_clears_it(admin):
    node = _node(admin)
    node.set_provision_state('active', configdrive=DRIVE)
    node.set_provision_state('deleted')
    row = _stored(admin, node.id)
    assert row.provision_state == 'available'
    assert 'configdrive' not in (row.instance_info or {})


def test_other_actions_refuse_it_and_store_nothing(admin):
    node = _node(admin, state='manageable')
    with pytest.raises(exception.Invalid):
        node.set_provision_state('provide', configdrive=DRIVE)
    row = _stored(admin, node.id)
    assert row.provision_state == 'manageable'
    assert row.instance_info == {'image_source': 'img'}


def test_a_refused_deploy_stores_nothing(admin):
    node = _node(admin, maintenance=True)
    with pytest.raises(exception_baremetal.NodeInMaintenance):
        node.set_provision_state('active', configdrive=DRIVE)
    row = _stored(admin, node.id)
    assert row.provision_state == 'available'
    assert row.instance_info == {'image_source': 'img'}


def test_it_is_never_logged(admin, caplog):
    caplog.set_level(logging.DEBUG)
    node = _node(admin)
    node.set_provision_state('active', configdrive=DRIVE)
    node.set_provision_state('rebuild', configdrive=OTHER)
    node.set_provision_state('deleted')
    assert DRIVE not in caplog.text
    assert OTHER not in caplog.text


def test_a_drive_past_64_kib_is_stored_whole(admin):
    # An ISO with a little user data is past 64 KiB of base64 (MariaDB's
    # TEXT): the column holds it, as Ironic's LONGTEXT does.
    drive = base64.b64encode(os.urandom(300 * 1024)).decode('ascii')
    node = _node(admin)
    node.set_provision_state('active', configdrive=drive)
    assert _stored(admin, node.id).instance_info['configdrive'] == drive
