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

"""DBRow: what the bare-metal objects stored as one table row each
(ports, port groups, chassis, allocations, deploy templates, volume
connectors and targets, nodes) share: loading the object from its row,
and reading, inserting, updating and deleting that row by its id.

A class names its model, its columns (fields of the same names), the
empty value a NULL document column is read as, and, when its query
reads more than the row (its node's uuid, owner and lessee), the fields
those extra columns fill, in order. The writes map the database's
errors to the class's own (``_not_found``; ``_duplicate`` for a unique
constraint, ``_missing_reference`` for a foreign key), so no oslo.db
exception reaches a handler. Rules of one resource (a port
group holding ports, an allocation holding its node, a node's power
state for its volumes) stay in its module, in the same transactions.
"""

import copy

from oslo_db import exception as db_exc
from oslo_utils import timeutils
import sqlalchemy as sa

from nova_mini.db import api as db_api
from nova_mini import exception
from nova_mini import exception_baremetal


def node_gone(exc, values):
    """The exception of a write of ``values`` whose node (``node_id``)
    the foreign key did not find: NodeNotFound, as Ironic (a
    ``_missing_reference`` of the rows of a node).
    """
    return exception_baremetal.NodeNotFound(node=values.get('node_id'))


@db_api.context_manager.reader
def _read(context, cls, column, value, ident):
    result = cls._query(context.session).filter(
        getattr(cls.MODEL, column) == value).first()
    if result is None:
        raise cls._not_found(ident)
    return result


@db_api.context_manager.writer
def _insert(context, cls, values):
    row = cls.MODEL(**values)
    context.session.add(row)
    try:
        context.session.flush()
    except (db_exc.DBDuplicateEntry, db_exc.DBReferenceError) as exc:
        raise cls._write_error(exc, values, values.get('uuid'))
    if not cls.JOINED:
        return row
    return cls._query(context.session).filter(cls.MODEL.id == row.id).one()


@db_api.context_manager.writer
def _update(context, cls, row_id, ident, values):
    table = cls.MODEL.__table__
    try:
        count = context.session.execute(table.update().where(
            table.c.id == row_id).values(**values)).rowcount
    except (db_exc.DBDuplicateEntry, db_exc.DBReferenceError) as exc:
        raise cls._write_error(exc, values, ident)
    if not count:
        raise cls._not_found(ident)


@db_api.context_manager.writer
def _delete(context, cls, row_id, ident):
    table = cls.MODEL.__table__
    if not context.session.execute(table.delete().where(
            table.c.id == row_id)).rowcount:
        raise cls._not_found(ident)


class DBRow(object):
    """Mix-in of a versioned object stored as one row of ``MODEL``.

    ``COLUMNS``: the columns read into fields of the same names.
    ``EMPTY``: ``{column: empty value}`` of the document columns a NULL
    is read as (``{}``, ``[]``). ``JOINED``: the fields filled from the
    columns ``_query`` reads after the row, in order (none: the query
    reads the row alone).
    """

    MODEL = None
    COLUMNS = ()
    EMPTY = {}
    JOINED = ()

    @classmethod
    def _query(cls, session):
        """The query of the class's rows (with their JOINED columns)."""
        return session.query(cls.MODEL)

    @classmethod
    def _not_found(cls, ident):
        """The exception of no row named ``ident``."""
        raise NotImplementedError()

    @classmethod
    def _write_error(cls, exc, values, ident):
        """The exception of an insert or update of ``values`` (of the row
        named ``ident``) that oslo.db refused with ``exc``: the class's
        ``_duplicate`` of a unique constraint, its ``_missing_reference``
        of a foreign key.
        """
        if isinstance(exc, db_exc.DBDuplicateEntry):
            return cls._duplicate(exc, values, ident)
        return cls._missing_reference(exc, values)

    @classmethod
    def _duplicate(cls, exc, values, ident):
        """The exception of a write of ``values`` (to the row named
        ``ident``) that broke the unique constraint of ``exc.columns``
        (a DBDuplicateEntry): by default ``exc`` itself.
        """
        return exc

    @classmethod
    def _duplicate_of(cls, exc, *columns):
        """Whether ``exc`` (a DBDuplicateEntry) broke MODEL's unique
        constraint on ``columns``: oslo.db names the constraint's columns
        or, failing to parse them, the constraint itself.
        """
        for constraint in cls.MODEL.__table__.constraints:
            if (isinstance(constraint, sa.UniqueConstraint) and
                    set(constraint.columns.keys()) == set(columns)):
                return not set(exc.columns or ()).isdisjoint(
                    columns + (constraint.name,))
        raise ValueError('%s has no unique constraint on %s' % (
            cls.MODEL.__tablename__, ', '.join(columns)))

    @classmethod
    def _missing_reference(cls, exc, values):
        """The exception of a write of ``values`` naming a row that is
        gone (``exc``, a DBReferenceError): by default ``exc`` itself.
        """
        return exc

    @classmethod
    def _from_db_object(cls, context, obj, result):
        """Fill ``obj`` from ``result`` (a row, or a row and its JOINED
        values) and return it, without changes.
        """
        if cls.JOINED:
            row, joined = result[0], result[1:]
        else:
            row, joined = result, ()
        for name in cls.COLUMNS:
            value = getattr(row, name)
            if value is None and name in cls.EMPTY:
                value = copy.copy(cls.EMPTY[name])
            setattr(obj, name, value)
        for name, value in zip(cls.JOINED, joined):
            setattr(obj, name, value)
        obj._context = context
        obj.obj_reset_changes()
        return obj

    @classmethod
    def _from_rows(cls, context, rows):
        """The objects of ``rows`` (as ``_query`` reads them)."""
        return [cls._from_db_object(context, cls(), row) for row in rows]

    @classmethod
    def _get_by(cls, context, column, value):
        """Load the object whose ``column`` is ``value``; ``_not_found``
        if none.
        """
        return cls._from_db_object(context, cls(),
                                   _read(context, cls, column, value, value))

    def _reload(self):
        """Read the object's row again (the JOINED values too)."""
        self._from_db_object(self._context, self, _read(
            self._context, type(self), 'id', self.id, self.uuid))

    def _column_changes(self):
        """The changed fields that are columns, and their values."""
        return {name: value for name, value in self.obj_get_changes().items()
                if name in self.COLUMNS}

    def _insert_row(self, values):
        """Insert ``values`` (the EMPTY columns not given, empty) and load
        the object from the new row.
        """
        for name, empty in self.EMPTY.items():
            values.setdefault(name, copy.copy(empty))
        self._from_db_object(self._context, self,
                             _insert(self._context, type(self), values))

    def _update_row(self, values):
        """Write ``values`` (and a new ``updated_at``) to the object's
        row, if any, and set them on the object, without changes.
        """
        if values:
            values = dict(values, updated_at=timeutils.utcnow())
            _update(self._context, type(self), self.id, self.uuid, values)
            for name, value in values.items():
                if name in self.fields:
                    setattr(self, name, value)
        self.obj_reset_changes()

    def _delete_row(self):
        """Delete the object's row; ``_not_found`` if it is gone."""
        _delete(self._context, type(self), self.id, self.uuid)


class DBRowList(object):
    """Mix-in of the list of a DBRow class, ``ITEM``, whose pages
    ``_rows(context, filters, sort_key, sort_dir, limit, marker)`` reads
    (the class says which filters it takes), sorted by one of
    ``SORT_KEYS``.
    """

    ITEM = None
    SORT_KEYS = ()

    @classmethod
    def _rows(cls, context, filters, sort_key, sort_dir, limit, marker):
        raise NotImplementedError()

    @classmethod
    def _of_rows(cls, context, rows):
        """The list of the objects of ``rows`` (as ITEM's query reads
        them), without changes.
        """
        result = cls(context)
        result.objects = cls.ITEM._from_rows(context, rows)
        result.obj_reset_changes()
        return result

    @classmethod
    def get_all(cls, context, filters=None, sort_key='id', sort_dir='asc',
                limit=None, marker=None):
        """Load a page of the objects.

        :param context: the request context.
        :param filters: ``{filter: value}``, of the class's filters
            (``project``: the marker must be of its objects too); None
            values are ignored.
        :param sort_key: one of SORT_KEYS (ties go by id).
        :param sort_dir: ``asc`` or ``desc``.
        :param limit: the most returned (None: all).
        :param marker: the uuid of the object the page follows.
        :returns: a list of the class.
        :raises nova_mini.exception.NotFound: no object has the marker's
            uuid (ITEM's ``_not_found``).
        :raises nova_mini.exception.InvalidSortKey: not a sort key.
        """
        if sort_key not in cls.SORT_KEYS:
            raise exception.InvalidSortKey(sort_key=sort_key)
        return cls._of_rows(context, cls._rows(
            context, filters or {}, sort_key, sort_dir, limit, marker))
