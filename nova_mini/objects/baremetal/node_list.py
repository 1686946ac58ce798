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

"""NodeList: pages of bare-metal nodes, filtered and sorted by the
database (the filters: node_filters), with their traits if asked.
"""

from oslo_db.sqlalchemy import utils as sqlalchemyutils

from nova_mini.db import api as db_api
from nova_mini.db import models
from nova_mini import exception
from nova_mini import exception_baremetal
from nova_mini.objects.baremetal import node as node_obj
from nova_mini.objects.baremetal import node_filters
from nova_mini.objects.baremetal import node_trait
from nova_mini.objects import base
from nova_mini.objects import fields


@db_api.context_manager.reader
def _get_all(context, filters, sort_key, sort_dir, limit, marker,
             with_traits):
    query = node_filters.apply(context.session.query(models.Node), filters,
                               limit)
    marker_row = None
    if marker is not None:
        marker_query = context.session.query(models.Node).filter_by(
            uuid=marker)
        project = filters.get('project')
        if project is not None:
            # NOTE: a node the caller cannot see is no marker: answered
            # as one that does not exist, it reveals nothing.
            marker_query = marker_query.filter(
                *node_filters.conditions({'project': project}))
        marker_row = marker_query.first()
        if marker_row is None:
            # Ironic's answer to a marker naming no node.
            raise exception_baremetal.NodeNotFound(node=marker)
    if sort_key not in node_obj.SORT_KEYS:
        raise exception.InvalidSortKey(sort_key=sort_key)
    keys = [sort_key] if sort_key == 'id' else [sort_key, 'id']
    query = sqlalchemyutils.paginate_query(
        query, models.Node, limit, keys, marker=marker_row,
        sort_dir=sort_dir)
    rows = query.all()
    traits = None
    if with_traits:
        traits = node_trait.get_names_by_node_ids(
            context, [row.id for row in rows])
    return rows, traits


@base.NovaMiniObjectRegistry.register
class NodeList(base.ObjectListBase, base.NovaMiniObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'objects': fields.ListOfObjectsField('Node'),
    }

    @classmethod
    def get_all(cls, context, filters=None, sort_key='id', sort_dir='asc',
                limit=None, marker=None, with_traits=False):
        """Load the nodes matching ``filters``, evaluated by the database.

        :param context: the request context.
        :param filters: see objects.baremetal.node_filters (None: every node).
        :param sort_key: a column of node.SORT_KEYS (ties go by id).
        :param sort_dir: ``asc`` or ``desc``.
        :param limit: the most nodes returned (None: all).
        :param marker: the uuid of the node the page follows.
        :param with_traits: load their traits too, in one more query.
        :returns: a NodeList.
        :raises nova_mini.exception_baremetal.NodeNotFound: no node has the
            marker's uuid (of ``filters['project']``, if given).
        :raises nova_mini.exception.InvalidSortKey: not a sort key.
        """
        rows, traits = _get_all(context, filters or {}, sort_key, sort_dir,
                                limit, marker, with_traits)
        result = cls(context)
        result.objects = [
            node_obj.Node._from_db_object(
                context, node_obj.Node(), row,
                traits[row.id] if traits is not None else None)
            for row in rows]
        result.obj_reset_changes()
        return result
