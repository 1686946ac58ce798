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
def merge(context, flavor_db_id, flavor_id, specs):
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
_VISIBLE_ROW_ID_AND_SPECS = _ROW_ID_AND_SPECS.where(flavor_access.PUBLIC_OR_SHARED)


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
def delete(context, flavor_db_id, flavor_id, key):
    count = context.session.query(models.FlavorExtraSpec).filter_by(
        flavor_id=flavor_db_id, key=key).delete(synchronize_session=False)
    if not count:
        raise exception.FlavorExtraSpecsNotFound(flavor_id=flavor_id,
                                                 extra_specs_key=key)
