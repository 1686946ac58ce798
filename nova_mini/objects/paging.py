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
"""

from oslo_db.sqlalchemy import utils as sqlalchemyutils

from nova_mini import exception


def page(session, query, model, sort_key, sort_dir, limit, marker):
    """The rows of ``query`` on the page after ``marker``.

    :param session: the reader session (looks the marker up).
    :param query: the filtered query of ``model`` rows.
    :param model: the model class (its ``uuid`` and ``id`` columns).
    :param sort_key: the column to sort by.
    :param sort_dir: ``asc`` or ``desc``.
    :param limit: the page size (None: all).
    :param marker: the uuid of the previous page's last row, or None.
    :raises nova_mini.exception.MarkerNotFound: no row has that uuid.
    """
    marker_row = None
    if marker is not None:
        marker_row = session.query(model).filter_by(uuid=marker).first()
        if marker_row is None:
            raise exception.MarkerNotFound(marker=marker)
    keys = [sort_key] if sort_key == 'id' else [sort_key, 'id']
    return sqlalchemyutils.paginate_query(
        query, model, limit, keys, marker=marker_row,
        sort_dir=sort_dir).all()
