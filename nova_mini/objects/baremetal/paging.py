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

"""One page of a bare-metal collection (chassis, ports, port groups): the
marker is the uuid of the last row of the previous page, and the sort key
is followed by the id so that pages never overlap.

A marker the caller may not see is answered as one that names nothing
(Ironic's not found of the collection's resource): a member learns
nothing of other projects' rows by paging.
"""

from oslo_db.sqlalchemy import utils as sqlalchemyutils
import sqlalchemy as sa

from nova_mini.db import models
from nova_mini import exception


def page(session, query, model, sort_key, sort_dir, limit, marker,
         not_found=None, visible=None):
    """The rows of ``query`` on the page after ``marker``.

    :param session: the reader session (looks the marker up).
    :param query: the filtered query of ``model`` rows.
    :param model: the model class (its ``uuid`` and ``id`` columns).
    :param sort_key: the column to sort by.
    :param sort_dir: ``asc`` or ``desc``.
    :param limit: the page size (None: all).
    :param marker: the uuid of the previous page's last row, or None.
    :param not_found: called with the marker, the exception raised when
        it names no row the caller sees (default: MarkerNotFound).
    :param visible: ``query(model_query)``, the rows of ``model`` the
        caller may see (default: every row): the marker is one of them.
    :raises nova_mini.exception.MarkerNotFound: no row has that uuid,
        or what ``not_found`` returns.
    """
    marker_row = None
    if marker is not None:
        marker_query = session.query(model).filter(model.uuid == marker)
        if visible is not None:
            marker_query = visible(marker_query)
        marker_row = marker_query.first()
        if marker_row is None:
            if not_found is not None:
                raise not_found(marker)
            raise exception.MarkerNotFound(marker=marker)
    keys = [sort_key] if sort_key == 'id' else [sort_key, 'id']
    return sqlalchemyutils.paginate_query(
        query, model, limit, keys, marker=marker_row,
        sort_dir=sort_dir).all()


def of_nodes_of(project, model):
    """The ``visible`` of :func:`page` for rows of ``model`` (a resource
    of a node: its ``node_id`` column) that ``project`` sees: those of
    the nodes it owns or leases (None: every row).
    """
    if project is None:
        return None

    def visible(query):
        return query.join(models.Node, models.Node.id == model.node_id).filter(
            sa.or_(models.Node.owner == project,
                   models.Node.lessee == project))
    return visible
