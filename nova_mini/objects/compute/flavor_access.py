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

"""Who may see a flavor: administrators every one, others the public
flavors and the private ones shared with their project (a flavor's
access list, which this module reads and writes).
"""

from oslo_db import exception as db_exc
import sqlalchemy as sa

from nova_mini.db import api as db_api
from nova_mini.db import models
from nova_mini import exception

_FLAVORS = models.Flavor.__table__
_PROJECTS = models.FlavorProject.__table__


def visible_select(context, columns):
    """Flavors the caller may see: all for admins, else public ones and the
    private ones shared with the caller's project. Their extra specs come
    from ``flavor_extra_specs.read``.
    """
    query = sa.select(*columns)
    if not context.is_admin:
        query = query.where(PUBLIC_OR_SHARED)
    return query


# Statement parts built once, with bind parameters for what a request
# gives (``project_id``, ``flavor_db_ids``): building SQL expressions cost
# as much as running the queries. A project_id of None matches nothing, as
# the column is not nullable.
_PUBLIC = _FLAVORS.c.is_public.is_(True)
_SHARED = sa.exists().where(
    _PROJECTS.c.flavor_id == _FLAVORS.c.id,
    _PROJECTS.c.project_id == sa.bindparam('project_id'))
PUBLIC_OR_SHARED = sa.or_(_PUBLIC, _SHARED)


def visible_row(context, flavor_id, *columns):
    """The ``columns`` of flavor ``flavor_id`` if the caller may see it
    (administrators see every flavor), in the caller's transaction.
    """
    query = sa.select(*columns).where(_FLAVORS.c.flavorid == flavor_id)
    if not context.is_admin:
        query = query.where(PUBLIC_OR_SHARED)
    row = context.connection.execute(
        query, {'project_id': context.project_id}).first()
    if row is None:
        raise exception.FlavorNotFound(flavor_id=flavor_id)
    return row


@db_api.context_manager.reader
def get_projects(context, flavor_db_id):
    rows = context.session.query(models.FlavorProject.project_id).filter_by(
        flavor_id=flavor_db_id).order_by(models.FlavorProject.project_id)
    return [project_id for project_id, in rows]


@db_api.context_manager.writer
def add_project(context, flavor_db_id, flavor_id, project_id):
    context.session.add(models.FlavorProject(flavor_id=flavor_db_id,
                                             project_id=project_id))
    try:
        context.session.flush()
    except db_exc.DBDuplicateEntry:
        raise exception.FlavorAccessExists(flavor_id=flavor_id,
                                           project_id=project_id)


@db_api.context_manager.writer
def remove_project(context, flavor_db_id, flavor_id, project_id):
    count = context.session.query(models.FlavorProject).filter_by(
        flavor_id=flavor_db_id, project_id=project_id).delete(
            synchronize_session=False)
    if not count:
        raise exception.FlavorAccessNotFound(flavor_id=flavor_id,
                                             project_id=project_id)
