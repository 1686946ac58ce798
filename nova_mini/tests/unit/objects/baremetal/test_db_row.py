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

"""db_row.DBRow without a database: an object filled from its row (NULL
documents read as empty ones, the joined values after the row), the
changes that are columns, and what every class using it declares.
"""

import types

from oslo_db import exception as db_exc
import pytest

from nova_mini.db import models
from nova_mini import objects
from nova_mini.objects.baremetal import db_row
from nova_mini.objects.baremetal import node_volume

# The bare-metal objects stored as one row each.
CLASSES = ('Port', 'Portgroup', 'Chassis', 'Allocation', 'DeployTemplate',
           'VolumeConnector', 'VolumeTarget', 'Node')
CHASSIS = '0f1e2d3c-4b5a-4697-8877-665544332211'


def _port_row(**values):
    row = dict(id=3, uuid='2b3c4d5e-6f70-4182-93a4-b5c6d7e8f901',
               address='52:54:00:aa:bb:cc', node_id=1, extra=None,
               local_link_connection={'switch_id': 'x'}, pxe_enabled=True,
               physical_network=None, internal_info=None, portgroup_id=None,
               created_at=None, updated_at=None)
    row.update(values)
    return types.SimpleNamespace(**row)


def test_filled_from_the_row_and_its_joined_values():
    node_uuid = '1a2b3c4d-5e6f-4071-8293-a4b5c6d7e8f9'
    context = object()
    port = objects.Port._from_db_object(
        context, objects.Port(), (_port_row(), node_uuid, 'own', None,
                                  None))
    assert (port.id, port.address, port.local_link_connection) == (
        3, '52:54:00:aa:bb:cc', {'switch_id': 'x'})
    assert (port.node_uuid, port.node_owner, port.node_lessee,
            port.portgroup_uuid) == (node_uuid, 'own', None, None)
    assert port._context is context
    assert not port.obj_what_changed()


def test_null_documents_are_empty_and_not_shared():
    rows = [(_port_row(), None, None, None, None) for _ in range(2)]
    first, second = objects.Port._from_rows(None, rows)
    assert (first.extra, first.internal_info) == ({}, {})
    first.extra['a'] = 1
    assert second.extra == {} and objects.Port.EMPTY['extra'] == {}


def test_a_row_alone_without_joined_columns():
    row = types.SimpleNamespace(id=1, uuid=CHASSIS, description=None,
                                extra=None, created_at=None, updated_at=None)
    chassis = objects.Chassis._from_db_object(None, objects.Chassis(), row)
    assert (chassis.description, chassis.extra) == (None, {})


def test_only_column_changes_are_written():
    port = objects.Port(None, address='52:54:00:aa:bb:cc',
                        node_uuid='1a2b3c4d-5e6f-4071-8293-a4b5c6d7e8f9',
                        extra={'a': 1})
    assert port._column_changes() == {'address': '52:54:00:aa:bb:cc',
                                      'extra': {'a': 1}}


def test_nothing_changed_writes_nothing():
    # No context: a write would fail.
    row = types.SimpleNamespace(id=1, uuid=CHASSIS, description='d',
                                extra={}, created_at=None, updated_at=None)
    chassis = objects.Chassis._from_db_object(None, objects.Chassis(), row)
    chassis._update_row(chassis._column_changes())
    assert chassis.updated_at is None and not chassis.obj_what_changed()


def test_write_errors_are_the_class_exceptions():
    duplicate = db_exc.DBDuplicateEntry(columns=['address'])
    assert type(objects.Port._write_error(
        duplicate, {'address': 'a'}, None)).__name__ == 'MACAlreadyExists'
    assert type(objects.Port._write_error(
        db_exc.DBReferenceError('t', 'c', 'k', 'n', ValueError()),
        {'node_id': 7}, 'u')).__name__ == 'NodeNotFound'
    assert type(objects.Node._write_error(
        db_exc.DBDuplicateEntry(columns=['instance_uuid']),
        {'instance_uuid': 'i'}, 'node-u')).__name__ == 'InstanceAssociated'
    assert type(objects.Chassis._not_found('x')).__name__ == \
        'ChassisNotFound'


def test_a_class_without_its_own_errors_keeps_oslo_db_s():
    class Bare(db_row.DBRow):
        pass
    error = db_exc.DBDuplicateEntry()
    assert Bare._write_error(error, {}, None) is error
    with pytest.raises(NotImplementedError):
        Bare._not_found('x')


@pytest.mark.parametrize('name', CLASSES)
def test_columns_are_fields_of_the_model(name):
    cls = getattr(objects, name)
    assert issubclass(cls, db_row.DBRow)
    table_columns = set(cls.MODEL.__table__.columns.keys())
    assert set(cls.COLUMNS) <= table_columns
    assert set(cls.COLUMNS) <= set(cls.fields)
    assert set(cls.EMPTY) <= set(cls.COLUMNS)
    assert set(cls.JOINED) <= set(cls.fields) - set(cls.COLUMNS)
    assert cls.MODEL in vars(models).values()


def test_a_list_of_rows():
    rows = [(_port_row(id=index), None, None, None, None)
            for index in (1, 2)]
    ports = objects.PortList._of_rows('ctx', rows)
    assert [port.id for port in ports] == [1, 2]
    assert ports._context == 'ctx' and not ports.obj_what_changed()


@pytest.mark.parametrize('name', ('VolumeConnector', 'VolumeTarget'))
def test_volume_resources_name_their_action(name):
    cls = getattr(objects, name)
    assert isinstance(cls, type) and issubclass(cls, node_volume.VolumeRow)
    assert cls.ACTION == 'volume ' + name[len('Volume'):].lower()
    assert cls.JOINED == ('node_uuid', 'node_owner', 'node_lessee')
