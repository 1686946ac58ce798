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

"""A flavor's extra specs in the database: read for many flavors at once,
merged in one statement, deleted by key (what they may hold is checked
by the API: nova_mini.api.validation.extra_specs).
"""

import functools

from oslo_db import exception as db_exc
from oslo_utils import timeutils
import sqlalchemy as sa

from nova_mini.db import api as db_api
from nova_mini.db import models
from nova_mini import exception
from nova_mini.objects.compute import flavor_access

_FLAVORS = models.Flavor.__table__
_SPECS = models.FlavorExtraSpec.__table__

# Flavors per extra specs query (the bind parameters of one IN list).
_SPECS_BATCH = 500
_SPECS_OF = sa.select(_SPECS.c.flavor_id, _SPECS.c.key, _SPECS.c.value).where(
    _SPECS.c.flavor_id.in_(sa.bindparam('flavor_db_ids', expanding=True)))


def read(context, flavor_db_ids):
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


def _named(dialect):
    """``dialect``, or one of its kind that renders bind parameters by
    name: the driver SQL of this module passes its parameters as a dict
    (sqlite3 takes ``:name`` whatever SQLAlchemy's ``qmark`` says;
    psycopg2 and PyMySQL take ``%(name)s``).
    """
    if dialect.paramstyle in ('named', 'pyformat'):
        return dialect
    return type(dialect)(paramstyle='named')


def _param(dialect, name):
    """Bind parameter ``name`` in the driver SQL of ``dialect``."""
    if dialect.paramstyle == 'pyformat':
        return '%%(%s)s' % name
    return ':%s' % name


@functools.lru_cache(maxsize=64)
def _upsert_specs(dialect, count):
    """One INSERT of ``count`` specs (``key0``, ``value0``, ...) of a
    flavor (``flavor_db_id``) that replaces the values of the keys the
    flavor has already (its unique key ``flavor_id, key``), at ``now``.

    Driver SQL, built once per dialect and count: SQLAlchemy's multi-row
    INSERT is compiled again on every call (it has no cache key), which
    cost more than the rest of the write, and even a ``text()`` statement
    costs a tenth of a write in SQLAlchemy's parameter handling. ``now``
    is given as the driver takes it (``_now``): it appears once per row.
    """
    key_column = dialect.identifier_preparer.quote('key')

    def param(name):
        return _param(dialect, name)

    rows = ', '.join('(%s, %s, %s, %s)' % (
        param('flavor_db_id'), param('key%d' % i), param('value%d' % i),
        param('now')) for i in range(count))
    if dialect.name in ('mysql', 'mariadb'):
        replace = ('ON DUPLICATE KEY UPDATE value = VALUES(value), '
                   'updated_at = %s' % param('now'))
    else:
        replace = ('ON CONFLICT (flavor_id, %s) DO UPDATE SET value = '
                   'excluded.value, updated_at = %s' % (key_column,
                                                        param('now')))
    return ('INSERT INTO %s (flavor_id, %s, value, created_at) VALUES %s %s'
            % (_SPECS.name, key_column, rows, replace))


@functools.lru_cache(maxsize=8)
def _datetime_processor(dialect):
    return sa.DateTime().bind_processor(dialect)


def _now(dialect):
    """The time now, as the dialect's DateTime type gives it to the
    driver (SQLite: its text): converted once per statement, not once
    per place it appears (SQLite's parameters are positional).
    """
    now = timeutils.utcnow()
    process = _datetime_processor(dialect)
    return process(now) if process else now


def _spec_params(specs):
    """``key0``, ``value0``, ... of ``specs``, in sorted key order."""
    params = {}
    for i, key in enumerate(sorted(specs)):
        params['key%d' % i] = key
        params['value%d' % i] = specs[key]
    return params


def _upsert(connection, flavor_db_id, flavor_id, specs, params=None):
    if not specs:
        return
    params = dict(params or _spec_params(specs), flavor_db_id=flavor_db_id,
                  now=_now(connection.dialect))
    try:
        connection.exec_driver_sql(
            _upsert_specs(connection.dialect, len(specs)), params)
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
def merge(context, flavor_db_id, flavor_id, specs):
    _upsert(context.connection, flavor_db_id, flavor_id, specs)


# A flavor's row id and the stored values of some of its extra specs
# (``key0``...): one row per stored key, or one row with a NULL key when
# it has none of them; no row when the caller may not see the flavor.
# Driver SQL, one statement per dialect, number of keys and visibility,
# each with a bind parameter per key: an expanding IN list is rendered
# again on every call (a tenth of the write's CPU), and even a cached
# statement costs as much again in SQLAlchemy's execution of it.
@functools.lru_cache(maxsize=128)
def _row_id_and_specs(dialect, count, admin):
    by_key = sa.and_(
        _SPECS.c.flavor_id == _FLAVORS.c.id,
        _SPECS.c.key.in_([sa.bindparam('key%d' % i) for i in range(count)])
        if count else sa.false())
    query = sa.select(_FLAVORS.c.id, _SPECS.c.key, _SPECS.c.value).select_from(
        _FLAVORS.outerjoin(_SPECS, by_key)).where(
            _FLAVORS.c.flavorid == sa.bindparam('flavor_id'))
    if not admin:
        query = query.where(flavor_access.PUBLIC_OR_SHARED)
    return str(query.compile(dialect=_named(dialect)))


# NOTE: the read and the merge are two statements standing alone, as two
# transactions would be (the merge is whole whatever was read), on one
# connection of the writer: one pool checkout and one transaction context
# per request instead of two.
@functools.lru_cache(maxsize=128)
def _merge_in_one_statement(dialect, count, admin):
    """PostgreSQL: the read and the upsert of a merge as one statement
    (psycopg2's parameters, run as driver SQL: nothing for SQLAlchemy to
    compile or convert), answering the flavor's row id, or no row when
    the caller may not see it.

    Its ``changed`` part compares the stored values of the ``count``
    keys (``key0``/``value0``...) with the new ones; only when one
    differs does the INSERT take every key of the merge, replacing the
    values of stored keys, in key order; otherwise it writes nothing.
    One snapshot for the comparison and the write, one round trip: the
    read before the upsert cost a round trip's client CPU on every
    write.
    """
    flavor = sa.select(_FLAVORS.c.id).where(
        _FLAVORS.c.flavorid == sa.bindparam('flavor_id'))
    if not admin:
        flavor = flavor.where(flavor_access.PUBLIC_OR_SHARED)
    flavor = str(flavor.compile(dialect=dialect))
    key = dialect.identifier_preparer.quote('key')
    new = ', '.join('(%%(key%d)s, %%(value%d)s)' % (i, i)
                    for i in range(count))
    return (
        'WITH flavor AS (%(flavor)s), '
        'new (%(key)s, value) AS (VALUES %(new)s), '
        'changed AS (SELECT 1 FROM flavor CROSS JOIN new '
        'LEFT OUTER JOIN %(specs)s AS stored ON stored.flavor_id = '
        'flavor.id AND stored.%(key)s = new.%(key)s '
        'WHERE stored.value IS DISTINCT FROM new.value LIMIT 1), '
        'written AS (INSERT INTO %(specs)s (flavor_id, %(key)s, value, '
        'created_at) SELECT flavor.id, new.%(key)s, new.value, %%(now)s '
        'FROM flavor CROSS JOIN new WHERE EXISTS (SELECT 1 FROM changed) '
        'ORDER BY new.%(key)s '
        'ON CONFLICT (flavor_id, %(key)s) DO UPDATE SET value = '
        'excluded.value, updated_at = %%(now)s RETURNING 1) '
        'SELECT flavor.id FROM flavor' % {
            'flavor': flavor, 'key': key, 'new': new, 'specs': _SPECS.name})


@db_api.autocommit
@db_api.context_manager.writer.connection
def _merge_changed_specs(context, flavor_id, specs):
    params = _spec_params(specs)
    connection = context.connection
    dialect = connection.dialect
    if (specs and dialect.name == 'postgresql'
            and dialect.paramstyle == 'pyformat'):
        params.update(flavor_id=flavor_id, project_id=context.project_id,
                      now=_now(dialect))
        try:
            row = connection.exec_driver_sql(_merge_in_one_statement(
                dialect, len(specs), bool(context.is_admin)),
                params).first()
        except db_exc.DBReferenceError:
            # The flavor was deleted since the statement's snapshot.
            raise exception.FlavorNotFound(flavor_id=flavor_id)
        if row is None:
            raise exception.FlavorNotFound(flavor_id=flavor_id)
        return
    rows = connection.exec_driver_sql(
        _row_id_and_specs(dialect, len(specs), bool(context.is_admin)),
        dict(params, flavor_id=flavor_id,
             project_id=context.project_id)).all()
    if not rows:
        raise exception.FlavorNotFound(flavor_id=flavor_id)
    stored = {key: value for _, key, value in rows if key is not None}
    if any(stored.get(key) != value for key, value in specs.items()):
        _upsert(connection, rows[0].id, flavor_id, specs, params)


def merge_extra_specs(context, flavor_id, specs):
    """Add or replace extra specs of a flavor the caller may see.

    As ``Flavor.get_by_flavor_id(...).update_extra_specs(specs)``, without
    reading the flavor and its specs: one read gives its row id and the
    stored values of ``specs``' keys. When every one of them is stored
    already, nothing is written (the merge would change nothing), so
    no write transaction is opened and no write lock taken. On
    PostgreSQL the read and the write are one statement
    (``_merge_in_one_statement``), which writes nothing in that case
    either.

    :param context: the request context.
    :param flavor_id: the flavor's id (``flavorid``).
    :param specs: str to str.
    :raises FlavorNotFound: no flavor the caller may see has that id.
    """
    _merge_changed_specs(context, flavor_id, specs)


@db_api.context_manager.writer
def delete(context, flavor_db_id, flavor_id, key):
    count = context.session.query(models.FlavorExtraSpec).filter_by(
        flavor_id=flavor_db_id, key=key).delete(synchronize_session=False)
    if not count:
        raise exception.FlavorExtraSpecsNotFound(flavor_id=flavor_id,
                                                 extra_specs_key=key)
