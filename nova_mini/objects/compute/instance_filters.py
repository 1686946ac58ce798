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

"""Filters, order and page of server lists, as SQL on the instances table.

The compute API parses a list's query (api/compute/server_filters.py)
into the filters below; the database evaluates all of them, orders the
servers and starts the page after the marker, so a page costs the same
few queries whatever the number of servers.

``filters`` keys:

* ``project_id``: the servers of this project only; the marker too must
  be one of them (without it: every project's).
* ``owner``: the servers of this project only (a filter: the marker may
  be of another project).
* ``uuid``, ``user_id``, ``image_ref``, ``flavorid``, ``vm_state``:
  equal to the value.
* ``vm_states``: sets of vm_states; the server's is in each of them.
* ``not_vm_states``: sets of vm_states; the server's is in none of them.
* ``config_drive``: the config drive flags (booleans) allowed.
* ``locked``: locked servers only (True) or unlocked ones (False).
* ``regex``: ``(column, pattern)`` pairs; the column (``name``,
  ``hostname``, ``node_uuid``, ``description``, ``access_ip_v4``,
  ``access_ip_v6``, ``launch_index``, ``key_name``) matches the regular
  expression anywhere (``re.search``), NULL never matches. See
  ``regex_condition``; the query runs within the budget of
  nova_mini.db.regexp.
* ``tags``: has every tag listed; ``tags_any``: at least one of them;
  ``not_tags``: lacks at least one of them; ``not_tags_any``: none.
* ``changes_since``, ``changes_before``: ``updated_at`` at or after, at or
  before the time (naive UTC).
* ``nothing``: true if no server can match.

A sort key is a column of the instances table, or ``(column, value)``:
whether the column equals the value (false first).
"""

import re
from re import _parser as re_parser
import warnings

import sqlalchemy as sa

from nova_mini import conf
from nova_mini.db import api as db_api
from nova_mini.db import models
from nova_mini.db import regexp
from nova_mini import exception
from nova_mini.objects.compute import instance_metadata

CONF = conf.CONF

_INSTANCES = models.Instance.__table__
_TAGS = models.InstanceTag.__table__

_EQUAL = ('uuid', 'user_id', 'image_ref', 'flavorid', 'vm_state')
_REGEX_COLUMNS = frozenset(['name', 'hostname', 'node_uuid', 'description',
                            'access_ip_v4', 'access_ip_v6', 'launch_index',
                            'key_name'])
# The server list filter of a column, in messages.
_REGEX_FILTER_NAMES = {'node_uuid': 'node'}

# Characters that end a literal prefix of a regular expression.
_SPECIAL = frozenset('.^$*+?{}[]\\|()')
_QUANTIFIERS = frozenset('*?{')


def check_pattern(name, pattern):
    """Return ``pattern`` once checked as the regular expression of filter
    ``name`` (nova_mini.db.regexp: its length, Python's syntax).

    :raises nova_mini.exception.InvalidRegexFilter: it is not one.
    """
    return regexp.check(name, pattern)


def config_drive_flags(name, pattern):
    """The config drive flags (booleans) whose text as Nova keeps it
    (``'True'`` or ``''``) filter ``name``'s ``pattern`` matches.

    :raises nova_mini.exception.InvalidRegexFilter: not a regular
        expression ``check_pattern`` takes.
    :raises nova_mini.exception.RegexFilterTimeout: past ``[api]
        regex_filter_timeout``.
    """
    pattern = check_pattern(name, pattern)
    try:
        return frozenset(flag for flag, text in ((True, 'True'), (False, ''))
                         if regexp.search(pattern, text))
    except TimeoutError:
        raise exception.RegexFilterTimeout(
            names=name, seconds=CONF.api.regex_filter_timeout)


def literal_prefix(pattern):
    """The text every string ``re.search(pattern, ...)`` matches starts
    with ('' if the pattern says nothing about the start): a pattern
    anchored with ``^`` followed by literal characters, and no ``|``.
    """
    if not pattern.startswith('^') or '|' in pattern:
        return ''
    prefix = []
    for char in pattern[1:]:
        if char in _SPECIAL:
            if char in _QUANTIFIERS and prefix:
                # The character before may be repeated zero times.
                prefix.pop()
            break
        prefix.append(char)
    return ''.join(prefix)


# Literal characters after which Python's re and the regex package (what
# SQLite's REGEXP runs) may read a pattern differently: regex's fuzzy
# matching (``(abc){e<=1}``) and POSIX classes (``[[:digit:]]``) are
# literal text to re. A pattern with one of them gets no required text.
_AMBIGUOUS = frozenset(map(ord, '{}]'))


def _literal_runs(items):
    """The runs of literal text every match of the parsed ``items`` (a
    sequence matched as a whole) contains.
    """
    runs, run = [], []
    for op, arg in items:
        if op is re_parser.LITERAL:
            run.append(chr(arg))
            continue
        if run:
            runs.append(''.join(run))
            run = []
        if op is re_parser.SUBPATTERN and not arg[1] and not arg[2]:
            runs.extend(_literal_runs(arg[3]))  # a group, no flags of its own
        elif op is re_parser.ATOMIC_GROUP:
            runs.extend(_literal_runs(arg))
        elif op in (re_parser.MAX_REPEAT, re_parser.MIN_REPEAT,
                    re_parser.POSSESSIVE_REPEAT) and arg[0] >= 1:
            runs.extend(_literal_runs(arg[2]))  # matched at least once
        # Anything else (a branch, a set, a look-around, an optional
        # part, a back reference) requires no text here.
    if run:
        runs.append(''.join(run))
    return runs


def _literals(arg):
    """The literal characters (codes) of a parsed pattern, at any depth
    outside sets.
    """
    if isinstance(arg, re_parser.SubPattern):
        for op, inner in arg:
            if op is re_parser.LITERAL:
                yield inner
            elif op is not re_parser.IN:
                yield from _literals(inner)
    elif isinstance(arg, (list, tuple)):
        for inner in arg:
            yield from _literals(inner)


def required_text(pattern):
    """The longest text every value ``pattern`` matches (``re.search``,
    as SQLite's REGEXP) contains, '' if none is known: a superset
    condition (``LIKE '%text%'``) the database checks far faster than the
    pattern, and never false where the pattern matches.

    Conservative: only runs of literal characters of the parts every match
    goes through (not in a branch, an optional or flagged group, a
    look-around); no text for a pattern ignoring case or one that
    Python's ``re`` and the ``regex`` package might read differently.
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            parsed = re_parser.parse(pattern)
    except (re.error, RecursionError, OverflowError, ValueError):
        return ''
    if parsed.state.flags & re.IGNORECASE or any(
            code in _AMBIGUOUS for code in _literals(parsed)):
        return ''
    runs = _literal_runs(parsed)
    if not runs:
        return ''
    text = max(runs, key=len)
    if any(0xD800 <= ord(char) <= 0xDFFF or char == '\0' for char in text):
        return ''
    return text


def _prefix_range(column, prefix):
    """``column`` starts with ``prefix``, as an index range (SQLite
    compares text by code point).
    """
    last = ord(prefix[-1])
    if last >= 0x10FFFF:
        return sa.true()
    return sa.and_(column >= prefix,
                   column < prefix[:-1] + chr(last + 1))


def regex_condition(column_name, pattern, dialect):
    """``column`` matches ``pattern`` anywhere; NULL never does.

    SQLite runs the ``regex`` package's search (nova_mini.db.regexp, the
    REGEXP function of every connection), PostgreSQL its ``~``
    operator and MySQL its REGEXP, as Nova's database does. A pattern
    anchored on literal text (``^web-1``) reads an index range of names:
    on SQLite through the range added here, on PostgreSQL through the
    planner's own (the name index has ``text_pattern_ops``). Otherwise, on
    SQLite, a text every match contains (``required_text``) is looked for
    with LIKE before REGEXP runs (PostgreSQL's and MySQL's own engines
    do that themselves).
    """
    column = _INSTANCES.c[column_name]
    if column_name == 'launch_index':
        column = sa.cast(column, sa.String)
    condition = column.regexp_match(pattern)
    if dialect != 'sqlite':
        return condition
    prefix = literal_prefix(pattern)
    if prefix and column_name == 'name':
        return sa.and_(_prefix_range(column, prefix), condition)
    text = required_text(pattern)
    if text and column_name != 'launch_index':
        # NOTE: LIKE first: SQLite evaluates the terms of an AND in
        # order, and calls REGEXP (Python, per row) only where LIKE (C,
        # ASCII case-insensitive: a superset) holds.
        return sa.and_(column.contains(text, autoescape=True), condition)
    return condition


def _tagged(tags):
    """The uuids of the instances having every tag of ``tags``."""
    tags = sorted(set(tags))
    return sa.select(_TAGS.c.instance_uuid).where(
        _TAGS.c.tag.in_(tags)).group_by(_TAGS.c.instance_uuid).having(
        sa.func.count() == len(tags))


def _any_tag(tags):
    return sa.exists().where(_TAGS.c.instance_uuid == _INSTANCES.c.uuid,
                             _TAGS.c.tag.in_(sorted(set(tags))))


def conditions(filters, dialect=None):
    """Return the SQL conditions (ANDed) of ``filters``.

    :param filters: the filters (see this module's docstring).
    :param dialect: the name of the database's dialect.
    :returns: a list of SQL conditions.
    :raises ValueError: a regular expression filter on a column that
        takes none.
    """
    if filters.get('nothing'):
        return [sa.false()]
    found = []
    for name in ('project_id', 'owner'):
        if filters.get(name) is not None:
            found.append(_INSTANCES.c.project_id == filters[name])
    for name in _EQUAL:
        if filters.get(name) is not None:
            found.append(_INSTANCES.c[name] == filters[name])
    for states in filters.get('vm_states') or ():
        found.append(_INSTANCES.c.vm_state.in_(sorted(states)))
    for states in filters.get('not_vm_states') or ():
        if states:
            found.append(_INSTANCES.c.vm_state.notin_(sorted(states)))
    if filters.get('locked') is not None:
        found.append(_INSTANCES.c.locked_by.isnot(None) if filters['locked']
                     else _INSTANCES.c.locked_by.is_(None))
    if filters.get('config_drive') is not None:
        found.append(_INSTANCES.c.config_drive.in_(
            sorted(filters['config_drive'])))
    for column_name, pattern in filters.get('regex') or ():
        if column_name not in _REGEX_COLUMNS:
            raise ValueError('Not a regular expression filter: %s'
                             % column_name)
        found.append(regex_condition(column_name, pattern, dialect))
    if filters.get('tags'):
        found.append(_INSTANCES.c.uuid.in_(_tagged(filters['tags'])))
    if filters.get('tags_any'):
        found.append(_any_tag(filters['tags_any']))
    if filters.get('not_tags'):
        found.append(_INSTANCES.c.uuid.notin_(_tagged(filters['not_tags'])))
    if filters.get('not_tags_any'):
        found.append(~_any_tag(filters['not_tags_any']))
    if filters.get('changes_since') is not None:
        found.append(_INSTANCES.c.updated_at >= filters['changes_since'])
    if filters.get('changes_before') is not None:
        found.append(_INSTANCES.c.updated_at <= filters['changes_before'])
    return found


def sort_column(key):
    """Return the SQL value of sort key ``key``.

    :param key: a column name, or ``(column name, value)``: 1 where the
        column has that value, else 0.
    :returns: an SQL expression.
    """
    if isinstance(key, tuple):
        column_name, value = key
        return sa.case((_INSTANCES.c[column_name] == value, 1), else_=0)
    return _INSTANCES.c[key]


# The dialects that order NULL below every value by themselves.
_NULLS_LOW = ('sqlite', 'mysql')


def order_by(sort, dialect=None):
    """Return the ORDER BY clauses of ``sort``: NULL before any value
    (after, descending), as SQLite and MySQL order them (and have no
    NULLS FIRST / LAST).

    :param sort: ``[(key, 'asc' or 'desc')]``.
    :param dialect: the name of the database's dialect.
    :returns: a list of clauses.
    """
    clauses = []
    for key, direction in sort:
        column = sort_column(key)
        if direction == 'desc':
            clause = column.desc()
            if dialect not in _NULLS_LOW and _nullable(key):
                clause = clause.nulls_last()
        else:
            clause = column.asc()
            if dialect not in _NULLS_LOW and _nullable(key):
                clause = clause.nulls_first()
        clauses.append(clause)
    return clauses


# Set on every instance the objects create, though nullable columns
# (oslo.db's TimestampMixin): ordered without NULLS FIRST / LAST, so the
# list indexes serve the order on PostgreSQL too.
_ALWAYS_SET = frozenset(['created_at', 'updated_at'])


def _nullable(key):
    return not isinstance(key, tuple) and key not in _ALWAYS_SET and (
        _INSTANCES.c[key].nullable)


def after(sort, marker):
    """Return the condition "ordered after the marker" for ``sort``.

    :param sort: ``[(key, direction)]`` ending with a unique key.
    :param marker: the marker's values of the keys, in that order.
    :returns: an SQL condition.
    """
    alternatives = []
    equal = []
    for (key, direction), value in zip(sort, marker):
        column = sort_column(key)
        if value is None:
            beyond = column.isnot(None) if direction == 'asc' else None
            same = column.is_(None)
        else:
            beyond = column > value if direction == 'asc' else sa.or_(
                column < value, column.is_(None))
            same = column == value
        if beyond is not None:
            alternatives.append(sa.and_(*(equal + [beyond])))
        equal.append(same)
    return sa.or_(*alternatives) if alternatives else sa.false()


@db_api.context_manager.reader
def get_page(context, filters, sort, limit=None, marker=None):
    """Read a page of instances with their metadata and tags: one query for
    the marker's place (if any), one for the page, one per child table.

    :param context: the request context.
    :param filters: the filters (see this module's docstring).
    :param sort: ``[(key, 'asc' or 'desc')]`` ending with a unique key.
    :param limit: the most instances read (None: all).
    :param marker: the uuid of the instance the page follows.
    :returns: ``[(row, metadata, tags)]`` (see InstanceList.get_by_filters).
    :raises nova_mini.exception.MarkerNotFound: no instance (of
        ``filters['project_id']`` if given) has the uuid ``marker``.
    :raises nova_mini.exception.RegexFilterTimeout: the regular
        expressions took more than ``[api] regex_filter_timeout``.
    :raises nova_mini.exception.InvalidRegexFilter: the database refuses
        a pattern.
    """
    dialect = context.session.get_bind().dialect.name
    where = conditions(filters, dialect)
    if marker is not None:
        scope = [_INSTANCES.c.uuid == marker]
        if filters.get('project_id') is not None:
            scope.append(_INSTANCES.c.project_id == filters['project_id'])
        place = context.session.execute(sa.select(*[
            sort_column(key) for key, _dir in sort]).where(*scope)).first()
        if place is None:
            raise exception.MarkerNotFound(marker=marker)
        where.append(after(sort, tuple(place)))
    query = sa.select(_INSTANCES).where(*where).order_by(
        *order_by(sort, dialect))
    if limit is not None:
        query = query.limit(limit)
    patterns = [] if filters.get('nothing') else [
        (_REGEX_FILTER_NAMES.get(column, column), pattern)
        for column, pattern in filters.get('regex') or ()]
    if not patterns:
        return _rows_and_children(context, query)
    # NOTE: the page's metadata and tags too: on PostgreSQL the budget
    # lasts until this reader's transaction ends (nova_mini.db.regexp).
    with regexp.budget(context.session, patterns):
        return _rows_and_children(context, query)


def _rows_and_children(context, query):
    rows = context.session.execute(query).all()
    metadata, tags = instance_metadata.children(
        context, [row.uuid for row in rows])
    return [(row, metadata[row.uuid], tags[row.uuid]) for row in rows]
