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

"""Flavor: the size and extra specs of a server, with project access
(who may see it: flavor_access; its extra specs: flavor_extra_specs);
FlavorList and the flavor list read for display.
"""

import collections
import functools

from oslo_db import exception as db_exc
from oslo_db.sqlalchemy import utils as sqlalchemyutils
import sqlalchemy as sa

from nova_mini.db import api as db_api
from nova_mini.db import models
from nova_mini import exception
from nova_mini.objects import base
from nova_mini.objects.compute import flavor_access
from nova_mini.objects.compute import flavor_extra_specs
from nova_mini.objects import fields


# Columns a flavor list may be sorted by (Nova's set).
SORT_KEYS = ('created_at', 'description', 'disabled', 'ephemeral_gb',
             'flavorid', 'id', 'is_public', 'memory_mb', 'name', 'root_gb',
             'rxtx_factor', 'swap', 'updated_at', 'vcpu_weight', 'vcpus')


_COLUMNS = ('id', 'flavorid', 'name', 'memory_mb', 'vcpus', 'root_gb',
            'ephemeral_gb', 'swap', 'rxtx_factor', 'vcpu_weight',
            'is_public', 'disabled', 'description', 'created_at',
            'updated_at')
_FLAVORS = models.Flavor.__table__
_RECORD_COLUMNS = tuple(_FLAVORS.c[name] for name in _COLUMNS)


class FlavorRecord(collections.namedtuple(
        'FlavorRecord', _COLUMNS + ('extra_specs',))):
    """A flavor as read for display: its columns and its extra specs
    (sorted by key), with the attribute names of ``Flavor``; the
    timestamps are naive (UTC), as the database gives them.

    Lists are read into these rather than into ``Flavor`` objects: a
    versioned object coerces every field as it is set, which was a fifth
    of GET /flavors/detail.
    """

    __slots__ = ()


# Readers of Core statements only use a connection (``.reader.connection``,
# ``context.connection``), not an ORM session: the session's begin, state
# tracking and close are work a read of rows does not need (GET
# /flavors/detail: 4 % fewer calls). Inside a caller's session
# transaction they run on its connection.
@db_api.context_manager.reader.connection
def _get_by_flavor_id(context, flavor_id):
    """The flavor's row and its extra specs."""
    # A Core select (the row is only read): the ORM query cost more than
    # the rest of the request's database work.
    row = flavor_access.visible_row(context, flavor_id, _FLAVORS)
    return row, flavor_extra_specs.read(context, [row.id])[row.id]


@db_api.context_manager.writer
def _create(context, values, extra_specs, projects):
    # NOTE: when both the name and the id are taken, Nova reports the
    # name; which unique constraint fails first depends on the database
    # (PostgreSQL: the id), so the name is looked up first. The
    # constraints still decide races.
    taken = context.session.execute(sa.select(_FLAVORS.c.id).where(
        _FLAVORS.c.name == values['name'])).first()
    if taken is not None:
        raise exception.FlavorExists(name=values['name'])
    row = models.Flavor(**values)
    row.extra_specs = [models.FlavorExtraSpec(key=k, value=v)
                       for k, v in extra_specs.items()]
    row.projects = [models.FlavorProject(project_id=p) for p in projects]
    context.session.add(row)
    try:
        context.session.flush()
    except db_exc.DBDuplicateEntry as exc:
        if 'flavorid' in exc.columns:
            raise exception.FlavorIdExists(flavor_id=values['flavorid'])
        raise exception.FlavorExists(name=values['name'])
    return row


@db_api.context_manager.writer
def _update(context, flavor_db_id, values):
    count = context.session.query(models.Flavor).filter_by(
        id=flavor_db_id).update(values, synchronize_session=False)
    if not count:
        raise exception.FlavorNotFound(flavor_id=flavor_db_id)


@db_api.context_manager.writer
def _destroy(context, flavor_db_id, flavor_id):
    session = context.session
    # Children first: the schema cascades too, but not every SQLite
    # connection has foreign keys switched on.
    for model in (models.FlavorExtraSpec, models.FlavorProject):
        session.query(model).filter_by(flavor_id=flavor_db_id).delete(
            synchronize_session=False)
    if not session.query(models.Flavor).filter_by(id=flavor_db_id).delete(
            synchronize_session=False):
        raise exception.FlavorNotFound(flavor_id=flavor_id)


@base.NovaMiniObjectRegistry.register
class Flavor(base.NovaMiniPersistentObject, base.NovaMiniObject):
    """A flavor; ``projects`` (its access list) is loaded on demand."""

    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'id': fields.IntegerField(),
        'flavorid': fields.StringField(),
        'name': fields.StringField(),
        'memory_mb': fields.IntegerField(),
        'vcpus': fields.IntegerField(),
        'root_gb': fields.IntegerField(),
        'ephemeral_gb': fields.IntegerField(),
        'swap': fields.IntegerField(),
        'rxtx_factor': fields.FloatField(),
        'vcpu_weight': fields.IntegerField(nullable=True),
        'is_public': fields.BooleanField(),
        'disabled': fields.BooleanField(),
        'description': fields.StringField(nullable=True),
        'extra_specs': fields.DictOfStringsField(),
        'projects': fields.ListOfStringsField(),
    }

    @classmethod
    def _from_db_object(cls, context, flavor, row, extra_specs):
        for name in _COLUMNS:
            setattr(flavor, name, getattr(row, name))
        flavor.extra_specs = dict(sorted(extra_specs.items()))
        flavor._context = context
        flavor.obj_reset_changes()
        return flavor

    def obj_load_attr(self, attrname):
        if attrname != 'projects':
            raise NotImplementedError('Cannot load %s on demand' % attrname)
        self.projects = flavor_access.get_projects(self._context, self.id)
        self.obj_reset_changes(['projects'])

    @classmethod
    def get_by_flavor_id(cls, context, flavor_id):
        row, extra_specs = _get_by_flavor_id(context, flavor_id)
        return cls._from_db_object(context, cls(), row, extra_specs)

    def create(self):
        values = self.obj_get_changes()
        extra_specs = values.pop('extra_specs', {})
        projects = values.pop('projects', [])
        values.setdefault('ephemeral_gb', 0)
        values.setdefault('swap', 0)
        values.setdefault('rxtx_factor', 1.0)
        values.setdefault('is_public', True)
        values.setdefault('disabled', False)
        row = _create(self._context, values, extra_specs, projects)
        self._from_db_object(self._context, self, row, extra_specs)
        self.projects = list(projects)
        self.obj_reset_changes(['projects'])

    def save(self):
        """Store changed scalar fields (extra specs and access have their
        own methods, which write at once).
        """
        values = self.obj_get_changes()
        for name in ('extra_specs', 'projects'):
            if values.pop(name, None) is not None:
                raise exception.Invalid(
                    'Use the %s methods to change %s' % (name, name))
        if values:
            _update(self._context, self.id, values)
        self.obj_reset_changes()

    def destroy(self):
        _destroy(self._context, self.id, self.flavorid)

    def update_extra_specs(self, specs):
        """Add or replace ``specs`` (str to str) in one transaction."""
        flavor_extra_specs.merge(self._context, self.id, self.flavorid, specs)
        merged = dict(self.extra_specs)
        merged.update(specs)
        self.extra_specs = merged
        self.obj_reset_changes(['extra_specs'])

    def delete_extra_spec(self, key):
        flavor_extra_specs.delete(self._context, self.id, self.flavorid, key)
        remaining = dict(self.extra_specs)
        remaining.pop(key, None)
        self.extra_specs = remaining
        self.obj_reset_changes(['extra_specs'])

    def add_access(self, project_id, allow_public=False):
        if self.is_public and not allow_public:
            raise exception.FlavorAccessPublic()
        flavor_access.add_project(self._context, self.id, self.flavorid, project_id)
        self.obj_reset_changes(['projects'])
        if self.obj_attr_is_set('projects'):
            self.projects = self.projects + [project_id]
            self.obj_reset_changes(['projects'])

    def remove_access(self, project_id):
        flavor_access.remove_project(self._context, self.id, self.flavorid, project_id)
        if self.obj_attr_is_set('projects'):
            self.projects = [p for p in self.projects if p != project_id]
            self.obj_reset_changes(['projects'])


@db_api.context_manager.reader.connection
def _get_all(context, filters, sort_key, sort_dir, limit, marker):
    shape = _filter_shape(context, filters)
    values = {'project_id': context.project_id,
              'min_memory_mb': filters.get('min_memory_mb'),
              'min_root_gb': filters.get('min_root_gb')}
    marker_row = None
    if marker is not None:
        marker_row = context.connection.execute(
            flavor_access.visible_select(context, _RECORD_COLUMNS).where(
                _FLAVORS.c.flavorid == marker),
            {'project_id': context.project_id}).first()
        if marker_row is None:
            raise exception.MarkerNotFound(marker=marker)
    if sort_key not in SORT_KEYS:
        raise exception.InvalidSortKey(sort_key=sort_key)
    if marker_row is None and sort_dir in _DIRECTIONS:
        # The first page (most lists): the whole statement is built once
        # per shape, with the ORDER BY of oslo.db's paginate_query.
        query = _list_statement(shape, sort_key, sort_dir,
                                limit is not None)
        values['limit'] = limit
    else:
        query = _paginate(_list_statement(shape), sort_key, sort_dir, limit,
                          marker_row)
    rows = context.connection.execute(query, values).all()
    specs = flavor_extra_specs.read(context, [row.id for row in rows])
    return [FlavorRecord(*row, dict(sorted(specs[row.id].items())))
            for row in rows]


def _filter_shape(context, filters):
    """Which conditions a list has (not their values): the key of the
    statements ``_list_statement`` builds once.
    """
    public = filters.get('is_public')
    if public and context.project_id is not None:
        public = 'shared'       # public, or shared with the project
    return (not context.is_admin, public, filters.get('disabled'),
            filters.get('min_memory_mb') is not None,
            filters.get('min_root_gb') is not None)


@functools.lru_cache(maxsize=None)
def _list_statement(shape, sort_key=None, sort_dir=None, limited=False):
    """The flavor list's statement for a ``_filter_shape``, with bind
    parameters ``project_id``, ``min_memory_mb``, ``min_root_gb`` and
    ``limit``; ordered if ``sort_key`` is given.

    Built once per shape and order: building the statement cost as much
    as running it.
    """
    visible_only, public, disabled, min_memory, min_root = shape
    query = sa.select(*_RECORD_COLUMNS)
    if visible_only:
        query = query.where(flavor_access.PUBLIC_OR_SHARED)
    if public == 'shared':
        query = query.where(flavor_access.PUBLIC_OR_SHARED)
    elif public is not None:
        query = query.where(_FLAVORS.c.is_public.is_(public))
    if disabled is not None:
        query = query.where(_FLAVORS.c.disabled.is_(disabled))
    if min_memory:
        query = query.where(
            _FLAVORS.c.memory_mb >= sa.bindparam('min_memory_mb'))
    if min_root:
        query = query.where(_FLAVORS.c.root_gb >= sa.bindparam('min_root_gb'))
    if sort_key is not None:
        query = query.order_by(*_order_by(sort_key, sort_dir))
        if limited:
            query = query.limit(sa.bindparam('limit', type_=sa.Integer))
    return query


_DIRECTIONS = {'asc': sa.asc, 'desc': sa.desc}


@functools.lru_cache(maxsize=None)
def _order_by(sort_key, sort_dir):
    direction = _DIRECTIONS[sort_dir]
    return (direction(_FLAVORS.c[sort_key]), direction(_FLAVORS.c.id))


def _paginate(query, sort_key, sort_dir, limit, marker_row):
    try:
        return sqlalchemyutils.paginate_query(
            query, models.Flavor, limit, [sort_key, 'id'], marker=marker_row,
            sort_dir=sort_dir)
    except db_exc.InvalidSortKey:
        raise exception.InvalidSortKey(sort_key=sort_key)


def list_flavors(context, filters=None, sort_key='flavorid', sort_dir='asc',
                 limit=None, marker=None):
    """Read a page of the flavors the caller may see, for display.

    Two queries: the flavors, then their extra specs.

    :param context: the request context (admins see every flavor).
    :param filters: ``is_public`` (None: both), ``disabled``,
        ``min_memory_mb``, ``min_root_gb``; a missing or None one does not
        filter.
    :param sort_key: a column of ``SORT_KEYS``; ``id`` breaks ties.
    :param sort_dir: ``asc`` or ``desc``.
    :param limit: the page size, None for all.
    :param marker: the flavor id after which the page starts.
    :returns: a list of ``FlavorRecord``.
    :raises MarkerNotFound: no visible flavor has the marker's id.
    :raises InvalidSortKey: ``sort_key`` is not one of ``SORT_KEYS``.
    """
    return _get_all(context, filters or {}, sort_key, sort_dir, limit,
                    marker)


@base.NovaMiniObjectRegistry.register
class FlavorList(base.ObjectListBase, base.NovaMiniObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'objects': fields.ListOfObjectsField('Flavor'),
    }

    @classmethod
    def get_all(cls, context, filters=None, sort_key='flavorid',
                sort_dir='asc', limit=None, marker=None):
        records = list_flavors(context, filters, sort_key, sort_dir, limit,
                               marker)
        result = cls(context)
        result.objects = [
            Flavor._from_db_object(context, Flavor(), record,
                                   record.extra_specs)
            for record in records]
        result.obj_reset_changes()
        return result
