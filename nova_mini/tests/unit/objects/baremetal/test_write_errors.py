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

"""What a write of a bare-metal row refused by the database raises, on a
real SQLite database (foreign keys on): each unique constraint of each
class its own exception and message (db_row.DBRow._write_error asks the
class's ``_duplicate``), a missing node or chassis its NotFound or
Invalid (``_missing_reference``).
"""

from oslo_db import exception as db_exc
import pytest

from nova_mini import context as nm_context
from nova_mini import exception
from nova_mini import exception_baremetal as exc
from nova_mini import objects
from nova_mini.objects.baremetal import db_row
from nova_mini.tests.fixtures import builders

UUID = '6a1c7e52-93f4-4d0b-8e6a-%012d'
MAC = '52:54:00:12:34:%02x'
INSTANCE = '0d5c1b3a-7e9f-4a62-b8d4-3c2e1f0a9b87'
STEPS = [{'interface': 'bios', 'step': 's', 'args': {}, 'priority': 10}]


@pytest.fixture(scope='module')
def backend():
    """SQLite alone (overrides conftest's backends)."""
    return 'sqlite'


def _create(admin, cls_name, /, **values):
    obj = getattr(objects, cls_name)(admin, **values)
    obj.create()
    return obj


@pytest.fixture
def rows(db):
    """A node holding one of each resource, their uuids UUID % 1..8."""
    admin = nm_context.get_admin_context()
    node = builders.create_node(admin, 'n1', uuid=UUID % 1,
                                instance_uuid=INSTANCE,
                                power_state='power off')
    made = {'Node': node}
    for index, (cls_name, values) in enumerate((
            ('Port', dict(node_id=node.id, address=MAC % 1)),
            ('Portgroup', dict(node_id=node.id, name='g1',
                               address=MAC % 2)),
            ('Chassis', {}),
            ('Allocation', dict(name='a1')),
            ('DeployTemplate', dict(name='CUSTOM_A', steps=STEPS)),
            ('VolumeConnector', dict(node_id=node.id, type='iqn',
                                     connector_id='c1')),
            ('VolumeTarget', dict(node_id=node.id, volume_type='iscsi',
                                  volume_id='v1', boot_index=0))), 2):
        made[cls_name] = _create(admin, cls_name, uuid=UUID % index,
                                 **values)
    return admin, made


def _node_id(made):
    return made['Node'].id


# (class, the values of a second row breaking one constraint (a callable
# of the first rows for a node id), its exception, its message)
CREATES = [
    ('Node', lambda made: dict(name='n1', driver='fake-hardware'),
     exc.NodeNameExists, 'A node with name n1 already exists.'),
    ('Node', lambda made: dict(name='n2', driver='fake-hardware',
                               uuid=UUID % 1),
     exc.NodeExists, 'A node with UUID %s already exists.' % (UUID % 1)),
    ('Port', lambda made: dict(node_id=_node_id(made), address=MAC % 1),
     exc.MACAlreadyExists,
     'A port with MAC address %s already exists.' % (MAC % 1)),
    ('Port', lambda made: dict(node_id=_node_id(made), address=MAC % 9,
                               uuid=UUID % 2),
     exc.PortExists, 'A port with UUID %s already exists.' % (UUID % 2)),
    ('Portgroup', lambda made: dict(node_id=_node_id(made), name='g2',
                                    address=MAC % 2),
     exc.PortgroupMACAlreadyExists,
     'A portgroup with MAC address %s already exists.' % (MAC % 2)),
    ('Portgroup', lambda made: dict(node_id=_node_id(made), name='g1'),
     exc.PortgroupDuplicateName, 'A portgroup with name g1 already exists.'),
    ('Portgroup', lambda made: dict(node_id=_node_id(made), name='g3',
                                    uuid=UUID % 3),
     exc.PortgroupExists,
     'A portgroup with UUID %s already exists.' % (UUID % 3)),
    ('Chassis', lambda made: dict(uuid=UUID % 4),
     exc.ChassisExists, 'A chassis with UUID %s already exists.' % (
         UUID % 4)),
    ('Allocation', lambda made: dict(name='a1'),
     exc.AllocationDuplicateName, 'An allocation with name a1 already '
     'exists.'),
    ('Allocation', lambda made: dict(name='a2', uuid=UUID % 5),
     exc.AllocationAlreadyExists,
     'An allocation with UUID %s already exists.' % (UUID % 5)),
    ('DeployTemplate', lambda made: dict(name='CUSTOM_A', steps=STEPS),
     exc.DeployTemplateDuplicateName,
     'A deploy template with name CUSTOM_A already exists: choose another '
     'name, or change that template.'),
    ('DeployTemplate', lambda made: dict(name='CUSTOM_B', steps=STEPS,
                                         uuid=UUID % 6),
     exc.DeployTemplateAlreadyExists,
     'A deploy template with UUID %s already exists.' % (UUID % 6)),
    ('VolumeConnector', lambda made: dict(
        node_id=_node_id(made), type='iqn', connector_id='c1'),
     exc.VolumeConnectorTypeAndIdAlreadyExists,
     'A volume connector with type iqn and connector ID c1 already exists: '
     'each connector ID belongs to one node.'),
    ('VolumeConnector', lambda made: dict(
        node_id=_node_id(made), type='iqn', connector_id='c2',
        uuid=UUID % 7),
     exc.VolumeConnectorAlreadyExists,
     'A volume connector with UUID %s already exists.' % (UUID % 7)),
    ('VolumeTarget', lambda made: dict(
        node_id=_node_id(made), volume_type='iscsi', volume_id='v2',
        boot_index=0),
     exc.VolumeTargetBootIndexAlreadyExists,
     "A volume target with boot index '0' for the same node already "
     "exists: choose another boot index."),
    ('VolumeTarget', lambda made: dict(
        node_id=_node_id(made), volume_type='iscsi', volume_id='v3',
        boot_index=1, uuid=UUID % 8),
     exc.VolumeTargetAlreadyExists,
     'A volume target with UUID %s already exists.' % (UUID % 8)),
]


@pytest.mark.parametrize('name,values,error,message', CREATES,
                         ids=['%s-%s' % (case[0], case[2].__name__)
                              for case in CREATES])
def test_a_duplicate_create_raises_the_class_s_exception(
        rows, name, values, error, message):
    admin, made = rows
    with pytest.raises(error) as raised:
        _create(admin, name, **values(made))
    assert type(raised.value) is error
    assert raised.value.format_message() == message


# (class, a second row's values, the change breaking a constraint, its
# exception, its message)
SAVES = [
    ('Node', dict(name='n2', driver='fake-hardware'),
     {'instance_uuid': INSTANCE}, exc.InstanceAssociated,
     'Instance %s is already associated with a node, it cannot be '
     'associated with node %s too.' % (INSTANCE, UUID % 11)),
    ('Port', dict(address=MAC % 11), {'address': MAC % 1},
     exc.MACAlreadyExists,
     'A port with MAC address %s already exists.' % (MAC % 1)),
    ('Portgroup', dict(name='g11'), {'name': 'g1'},
     exc.PortgroupDuplicateName, 'A portgroup with name g1 already exists.'),
    ('Allocation', dict(name='a11'), {'name': 'a1'},
     exc.AllocationDuplicateName, 'An allocation with name a1 already '
     'exists.'),
    ('DeployTemplate', dict(name='CUSTOM_K', steps=STEPS),
     {'name': 'CUSTOM_A'}, exc.DeployTemplateDuplicateName,
     'A deploy template with name CUSTOM_A already exists: choose another '
     'name, or change that template.'),
    ('VolumeTarget', dict(volume_type='iscsi', volume_id='v11',
                          boot_index=1), {'boot_index': 0},
     exc.VolumeTargetBootIndexAlreadyExists,
     "A volume target with boot index '0' for the same node already "
     "exists: choose another boot index."),
]


@pytest.mark.parametrize('name,values,change,error,message', SAVES,
                         ids=[case[0] for case in SAVES])
def test_a_duplicate_save_raises_the_class_s_exception(
        rows, name, values, change, error, message):
    admin, made = rows
    if 'node_id' in getattr(objects, name).fields and name != 'Node':
        values = dict(values, node_id=_node_id(made))
    obj = _create(admin, name, uuid=UUID % 11, **values)
    for field, value in change.items():
        setattr(obj, field, value)
    with pytest.raises(error) as raised:
        obj.save()
    assert type(raised.value) is error
    assert raised.value.format_message() == message


@pytest.mark.parametrize('name,values', [
    ('Port', dict(address=MAC % 20)),
    ('Portgroup', dict(name='g20')),
    ('VolumeConnector', dict(type='iqn', connector_id='c20')),
])
def test_a_missing_node_is_node_not_found(db, name, values):
    admin = nm_context.get_admin_context()
    with pytest.raises(exc.NodeNotFound) as raised:
        _create(admin, name, node_id=999, **values)
    assert raised.value.format_message() == 'Node 999 could not be found.'


def test_a_missing_chassis_is_invalid(db):
    admin = nm_context.get_admin_context()
    with pytest.raises(exception.Invalid) as raised:
        builders.create_node(admin, 'n1', chassis_id=999)
    assert raised.value.format_message() == 'Chassis 999 could not be found.'


def test_the_dispatch_asks_the_class_s_hooks():
    class Row(db_row.DBRow):
        @staticmethod
        def _duplicate(error, values, ident):
            return ('duplicate', error.columns, values, ident)

        @staticmethod
        def _missing_reference(error, values):
            return ('missing', values)

    duplicate = db_exc.DBDuplicateEntry(columns=['name'])
    assert Row._write_error(duplicate, {'name': 'x'}, 'u') == (
        'duplicate', ['name'], {'name': 'x'}, 'u')
    reference = db_exc.DBReferenceError('t', 'c', 'k', 'n', ValueError())
    assert Row._write_error(reference, {'node_id': 7}, 'u') == (
        'missing', {'node_id': 7})


@pytest.mark.parametrize('columns', [['address'], ['uniq_ports0address']])
def test_a_constraint_is_known_by_its_columns_or_its_name(columns):
    duplicate = db_exc.DBDuplicateEntry(columns=columns)
    assert objects.Port._duplicate_of(duplicate, 'address')
    assert not objects.Portgroup._duplicate_of(duplicate, 'name')


def test_a_constraint_the_model_does_not_have_is_an_error():
    with pytest.raises(ValueError):
        objects.Port._duplicate_of(db_exc.DBDuplicateEntry(), 'extra')
