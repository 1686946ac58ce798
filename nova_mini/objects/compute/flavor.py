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

"""Flavor: the size and extra specs of a server, with project access."""

import collections
import functools

from oslo_db import exception as db_exc
from oslo_db.sqlalchemy import utils as sqlalchemyutils
from oslo_utils import timeutils
import sqlalchemy as sa

from nova_mini.db import api as db_api
from nova_mini.db import models
from nova_mini import exception
from nova_mini.objects import base
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
_SPECS = models.FlavorExtraSpec.__table__
_PROJECTS = models.FlavorProject.__table__
_RECORD_COLUMNS = tuple(_FLAVORS.c[name] for name in _COLUMNS)
# Flavors per extra specs query (the bind parameters of one IN list).
_SPECS_BATCH = 500


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


def _visible_select(context, columns):
    """Flavors the caller may see: all for admins, else public ones and the
    private ones shared with the caller's project. Their extra specs come
    from ``_extra_specs``.
    """
    query = sa.select(*columns)
    if not context.is_admin:
        query = query.where(_PUBLIC_OR_SHARED)
    return query


# Statement parts built once, with bind parameters for what a request
# gives (``project_id``, ``flavor_db_ids``): building SQL expressions cost
# as much as running the queries. A project_id of None matches nothing, as
# the column is not nullable.
_PUBLIC = _FLAVORS.c.is_public.is_(True)
_SHARED = sa.exists().where(
    _PROJECTS.c.flavor_id == _FLAVORS.c.id,
    _PROJECTS.c.project_id == sa.bindparam('project_id'))
_PUBLIC_OR_SHARED = sa.or_(_PUBLIC, _SHARED)
_SPECS_OF = sa.select(_SPECS.c.flavor_id, _SPECS.c.key, _SPECS.c.value).where(
    _SPECS.c.flavor_id.in_(sa.bindparam('flavor_db_ids', expanding=True)))


def _extra_specs(context, flavor_db_ids):
    """``{flavor db id: {key: value}}`` for ``flavor_db_ids``.

    Read as plain rows, not ORM objects: a flavor list has many more extra
    specs than flavors, and building an ORM object per spec was the
    largest cost of GET /flavors/detail.
    """
    specs = {flavor_db_id: {} for flavor_db_id in flavor_db_ids}
    ids = list(specs)
    for start in range(0, len(ids), _SPECS_BATCH):
        rows = context.connection.execute(_SPECS_OF, {
            'flavor_db_ids': ids[start:start + _SPECS_BATCH]}).all()
        for flavor_db_id, key, value in rows:
            specs[flavor_db_id][key] = value
    return specs


def _visible_row(context, flavor_id, *columns):
    """The ``columns`` of flavor ``flavor_id`` if the caller may see it
    (administrators see every flavor), in the caller's transaction.
    """
    query = sa.select(*columns).where(_FLAVORS.c.flavorid == flavor_id)
    if not context.is_admin:
        query = query.where(_PUBLIC_OR_SHARED)
    row = context.connection.execute(
        query, {'project_id': context.project_id}).first()
    if row is None:
        raise exception.FlavorNotFound(flavor_id=flavor_id)
    return row


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
    row = _visible_row(context, flavor_id, _FLAVORS)
    return row, _extra_specs(context, [row.id])[row.id]


@db_api.context_manager.reader
def _get_projects(context, flavor_db_id):
    rows = context.session.query(models.FlavorProject.project_id).filter_by(
        flavor_id=flavor_db_id).order_by(models.FlavorProject.project_id)
    return [project_id for project_id, in rows]


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


@functools.lru_cache(maxsize=64)
def _upsert_specs(dialect, key_column, count):
    """One INSERT of ``count`` specs (``key0``, ``value0``, ...) of a
    flavor (``flavor_db_id``) that replaces the values of the keys the
    flavor has already (its unique key ``flavor_id, key``), at ``now``.

    Text, built once per backend and count: SQLAlchemy's multi-row INSERT
    is compiled again on every call (it has no cache key), which cost
    more than the rest of the write.
    """
    rows = ', '.join('(:flavor_db_id, :key%d, :value%d, :now)' % (i, i)
                     for i in range(count))
    if dialect in ('mysql', 'mariadb'):
        replace = ('ON DUPLICATE KEY UPDATE value = VALUES(value), '
                   'updated_at = :now')
    else:
        replace = ('ON CONFLICT (flavor_id, %s) DO UPDATE SET value = '
                   'excluded.value, updated_at = :now' % key_column)
    return sa.text(
        'INSERT INTO %s (flavor_id, %s, value, created_at) VALUES %s %s'
        % (_SPECS.name, key_column, rows, replace)).bindparams(
            sa.bindparam('now', type_=sa.DateTime()))


def _upsert(connection, flavor_db_id, flavor_id, specs):
    if not specs:
        return
    params = {'flavor_db_id': flavor_db_id, 'now': timeutils.utcnow()}
    for i, key in enumerate(sorted(specs)):
        params['key%d' % i] = key
        params['value%d' % i] = specs[key]
    try:
        connection.execute(_upsert_specs(
            connection.dialect.name,
            connection.dialect.identifier_preparer.quote('key'),
            len(specs)), params)
    except db_exc.DBReferenceError:
        # The flavor was deleted since its row id was read.
        raise exception.FlavorNotFound(flavor_id=flavor_id)


# NOTE: a merge is one statement, standing alone: every key of ``specs``
# is written at once (a concurrent merge or delete of the same keys comes
# wholly before or after it), and two merges adding the same new key
# cannot collide on the unique key. Rows are written in sorted key order,
# so that concurrent merges lock them in the same order (a deadlock is
# retried by the writer all the same, db/api.py).
@db_api.autocommit
@db_api.context_manager.writer.connection
def _merge_extra_specs(context, flavor_db_id, flavor_id, specs):
    _upsert(context.connection, flavor_db_id, flavor_id, specs)


# A flavor's row id and the stored values of some of its extra specs
# (``keys``): one row per stored key, or one row with a NULL key when it
# has none of them; no row when the caller may not see the flavor.
_SPECS_BY_KEY = sa.and_(
    _SPECS.c.flavor_id == _FLAVORS.c.id,
    _SPECS.c.key.in_(sa.bindparam('keys', expanding=True)))
_ROW_ID_AND_SPECS = sa.select(
    _FLAVORS.c.id, _SPECS.c.key, _SPECS.c.value).select_from(
        _FLAVORS.outerjoin(_SPECS, _SPECS_BY_KEY)).where(
            _FLAVORS.c.flavorid == sa.bindparam('flavor_id'))
_VISIBLE_ROW_ID_AND_SPECS = _ROW_ID_AND_SPECS.where(_PUBLIC_OR_SHARED)


# NOTE: the read and the merge are two statements standing alone, as two
# transactions would be (the merge is whole whatever was read), on one
# connection of the writer: one pool checkout and one transaction context
# per request instead of two.
@db_api.autocommit
@db_api.context_manager.writer.connection
def _merge_changed_specs(context, flavor_id, specs):
    query = (_ROW_ID_AND_SPECS if context.is_admin
             else _VISIBLE_ROW_ID_AND_SPECS)
    rows = context.connection.execute(query, {
        'flavor_id': flavor_id, 'keys': list(specs),
        'project_id': context.project_id}).all()
    if not rows:
        raise exception.FlavorNotFound(flavor_id=flavor_id)
    stored = {key: value for _, key, value in rows if key is not None}
    if any(stored.get(key) != value for key, value in specs.items()):
        _upsert(context.connection, rows[0].id, flavor_id, specs)


def merge_extra_specs(context, flavor_id, specs):
    """Add or replace extra specs of a flavor the caller may see.

    As ``Flavor.get_by_flavor_id(...).update_extra_specs(specs)``, without
    reading the flavor and its specs: one read gives its row id and the
    stored values of ``specs``' keys. When every one of them is stored
    already, nothing is written (the merge would change nothing), so
    no write transaction is opened and no write lock taken.

    :param context: the request context.
    :param flavor_id: the flavor's id (``flavorid``).
    :param specs: str to str.
    :raises FlavorNotFound: no flavor the caller may see has that id.
    """
    _merge_changed_specs(context, flavor_id, specs)


@db_api.context_manager.writer
def _delete_extra_spec(context, flavor_db_id, flavor_id, key):
    count = context.session.query(models.FlavorExtraSpec).filter_by(
        flavor_id=flavor_db_id, key=key).delete(synchronize_session=False)
    if not count:
        raise exception.FlavorExtraSpecsNotFound(flavor_id=flavor_id,
                                                 extra_specs_key=key)


@db_api.context_manager.writer
def _add_project(context, flavor_db_id, flavor_id, project_id):
    context.session.add(models.FlavorProject(flavor_id=flavor_db_id,
                                             project_id=project_id))
    try:
        context.session.flush()
    except db_exc.DBDuplicateEntry:
        raise exception.FlavorAccessExists(flavor_id=flavor_id,
                                           project_id=project_id)


@db_api.context_manager.writer
def _remove_project(context, flavor_db_id, flavor_id, project_id):
    count = context.session.query(models.FlavorProject).filter_by(
        flavor_id=flavor_db_id, project_id=project_id).delete(
            synchronize_session=False)
    if not count:
        raise exception.FlavorAccessNotFound(flavor_id=flavor_id,
                                             project_id=project_id)


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
        self.projects = _get_projects(self._context, self.id)
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
        _merge_extra_specs(self._context, self.id, self.flavorid, specs)
        merged = dict(self.extra_specs)
        merged.update(specs)
        self.extra_specs = merged
        self.obj_reset_changes(['extra_specs'])

    def delete_extra_spec(self, key):
        _delete_extra_spec(self._context, self.id, self.flavorid, key)
        remaining = dict(self.extra_specs)
        remaining.pop(key, None)
        self.extra_specs = remaining
        self.obj_reset_changes(['extra_specs'])

    def add_access(self, project_id, allow_public=False):
        if self.is_public and not allow_public:
            raise exception.FlavorAccessPublic()
        _add_project(self._context, self.id, self.flavorid, project_id)
        self.obj_reset_changes(['projects'])
        if self.obj_attr_is_set('projects'):
            self.projects = self.projects + [project_id]
            self.obj_reset_changes(['projects'])

    def remove_access(self, project_id):
        _remove_project(self._context, self.id, self.flavorid, project_id)
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
            _visible_select(context, _RECORD_COLUMNS).where(
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
    specs = _extra_specs(context, [row.id for row in rows])
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
        query = query.where(_PUBLIC_OR_SHARED)
    if public == 'shared':
        query = query.where(_PUBLIC_OR_SHARED)
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
