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

"""Port and PortList: the network ports of bare-metal nodes, one per MAC
address (Ironic's ports).

Two ports never share a MAC address: the unique constraint decides
between concurrent creates (the loser gets MACAlreadyExists, 409), so no
check-then-insert race exists. A port is loaded with its node's uuid,
owner and lessee and its port group's uuid (joins), which its body and
its policy checks need.
"""

from oslo_utils import uuidutils
import sqlalchemy as sa

from nova_mini.db import api as db_api
from nova_mini.db import models
from nova_mini import exception_baremetal
from nova_mini.objects.baremetal import db_row
from nova_mini.objects.baremetal import paging
from nova_mini.objects import base
from nova_mini.objects import fields

COLUMNS = ('id', 'uuid', 'address', 'node_id', 'extra',
           'local_link_connection', 'pxe_enabled', 'physical_network',
           'internal_info', 'portgroup_id', 'created_at', 'updated_at')
_DICTS = ('extra', 'local_link_connection', 'internal_info')
SORT_KEYS = ('id', 'uuid', 'address', 'pxe_enabled', 'physical_network',
             'created_at', 'updated_at')


def _query(session):
    return session.query(
        models.Port, models.Node.uuid, models.Node.owner,
        models.Node.lessee, models.Portgroup.uuid).join(
        models.Node, models.Node.id == models.Port.node_id).outerjoin(
        models.Portgroup, models.Portgroup.id == models.Port.portgroup_id)


@base.NovaMiniObjectRegistry.register
class Port(db_row.DBRow, base.NovaMiniPersistentObject,
           base.NovaMiniObject):
    """A node's port; ``node_uuid``, ``node_owner`` and ``node_lessee``
    are its node's, read with it.
    """

    # Version 1.0: Initial version
    # Version 1.1: portgroup_id, portgroup_uuid
    VERSION = '1.1'
    MODEL = models.Port
    COLUMNS = COLUMNS
    EMPTY = dict.fromkeys(_DICTS, {})
    JOINED = ('node_uuid', 'node_owner', 'node_lessee', 'portgroup_uuid')

    fields = {
        'id': fields.IntegerField(),
        'uuid': fields.UUIDField(),
        'address': fields.StringField(),
        'portgroup_id': fields.IntegerField(nullable=True),
        'portgroup_uuid': fields.UUIDField(nullable=True),
        'node_id': fields.IntegerField(),
        'node_uuid': fields.UUIDField(nullable=True),
        'node_owner': fields.StringField(nullable=True),
        'node_lessee': fields.StringField(nullable=True),
        'extra': fields.FlexibleDictField(nullable=True),
        'local_link_connection': fields.FlexibleDictField(nullable=True),
        'pxe_enabled': fields.BooleanField(default=True),
        'physical_network': fields.StringField(nullable=True),
        'internal_info': fields.FlexibleDictField(nullable=True),
    }

    def obj_make_compatible(self, primitive, target_version):
        super().obj_make_compatible(primitive, target_version)
        target = tuple(int(part) for part in target_version.split('.'))
        if target < (1, 1):
            primitive.pop('portgroup_id', None)
            primitive.pop('portgroup_uuid', None)

    _query = staticmethod(_query)

    @staticmethod
    def _not_found(ident):
        return exception_baremetal.PortNotFound(port=ident)

    @classmethod
    def _duplicate(cls, exc, values, ident):
        if cls._duplicate_of(exc, 'address'):
            return exception_baremetal.MACAlreadyExists(mac=values.get('address'))
        return exception_baremetal.PortExists(uuid=values.get('uuid'))

    _missing_reference = staticmethod(db_row.node_gone)

    @classmethod
    def get_by_uuid(cls, context, uuid):
        """Load the port of uuid ``uuid``; PortNotFound if none."""
        return cls._get_by(context, 'uuid', uuid)

    @classmethod
    def get_by_address(cls, context, address):
        """Load the port of MAC ``address``; PortNotFound if none."""
        return cls._get_by(context, 'address', address)

    def create(self):
        """Insert the port.

        :raises nova_mini.exception_baremetal.MACAlreadyExists: its address is taken.
        :raises nova_mini.exception_baremetal.PortExists: its uuid is taken.
        """
        values = self._column_changes()
        values.setdefault('uuid', uuidutils.generate_uuid())
        values.setdefault('pxe_enabled', True)
        self._insert_row(values)

    def save(self):
        """Store the changed fields.

        :raises nova_mini.exception_baremetal.MACAlreadyExists: its new address is
            taken.
        :raises nova_mini.exception_baremetal.PortNotFound: it is gone.
        """
        values = self._column_changes()
        self._update_row(values)
        if 'node_id' in values or 'portgroup_id' in values:
            # The node's uuid and projects, the group's uuid, go too.
            self._reload()

    def destroy(self):
        """Delete the port; PortNotFound if it is gone."""
        self._delete_row()


@db_api.context_manager.reader
def _get_all(context, filters, sort_key, sort_dir, limit, marker):
    query = _query(context.session)
    if filters.get('node_id') is not None:
        query = query.filter(models.Port.node_id == filters['node_id'])
    if filters.get('node_uuid') is not None:
        query = query.filter(models.Node.uuid == filters['node_uuid'])
    if filters.get('portgroup_id') is not None:
        query = query.filter(
            models.Port.portgroup_id == filters['portgroup_id'])
    if filters.get('address') is not None:
        query = query.filter(models.Port.address == filters['address'])
    if filters.get('project') is not None:
        project = filters['project']
        query = query.filter(sa.or_(models.Node.owner == project,
                                    models.Node.lessee == project))
    return paging.page(
        context.session, query, models.Port, sort_key, sort_dir, limit,
        marker, not_found=lambda uuid: exception_baremetal.PortNotFound(port=uuid),
        visible=paging.of_nodes_of(filters.get('project'), models.Port))


@base.NovaMiniObjectRegistry.register
class PortList(db_row.DBRowList, base.ObjectListBase,
               base.NovaMiniObject):
    """Pages of ports (``get_all``); filters: ``node_id`` or
    ``node_uuid`` (a node's ports), ``portgroup_id`` (a port group's),
    ``address`` (a MAC, lower case), ``project`` (the ports of the nodes
    it owns or leases).
    """

    # Version 1.0: Initial version
    VERSION = '1.0'

    ITEM = Port
    SORT_KEYS = SORT_KEYS
    _rows = staticmethod(_get_all)

    fields = {
        'objects': fields.ListOfObjectsField('Port'),
    }
