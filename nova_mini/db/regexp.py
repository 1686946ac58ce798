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

"""Regular-expression filters with a budget, on every backend.

Server lists filter with regular expressions, as Nova's do, and any
member may write the pattern: ``(a+)+$`` over a 30-character name takes
Python's ``re`` minutes, MariaDB's PCRE a third of a second per row. So:

* a pattern is at most ``MAX_PATTERN_LENGTH`` characters and must compile
  (``check``), without the ``regex`` package's fuzzy constraints
  (``a{e<=1}``: Python's ``re``, Nova's SQLite REGEXP, reads those braces
  as text, and inside a repeated group with an empty branch,
  ``((aa{e<=1}a|))*``, one match takes 600 MB in a second);
* the statement that matches has a time budget, ``[api]
  regex_filter_timeout`` (``budget``): on PostgreSQL its
  ``statement_timeout``, on MariaDB its ``max_statement_time`` (MySQL:
  ``max_execution_time``), on SQLite a deadline that the REGEXP function
  (``sqlite_regexp``, the ``regex`` package, whose own ``timeout`` stops
  a single match) checks at each call;
* SQLite's REGEXP reads at most ``MAX_SUBJECT_LENGTH`` characters of a
  value (the other databases' columns are that wide at most), and lets
  other threads of the process run while it matches;
* the database's refusals (a pattern its syntax does not take, or too
  complex for it) and the budget running out are domain exceptions,
  answered 400: ``InvalidRegexFilter``, ``RegexFilterTimeout``.
"""

import contextlib
import re
import threading
import time
import warnings

import regex
import sqlalchemy.exc as sa_exc

from nova_mini import conf
from nova_mini import exception

CONF = conf.CONF

# Longest pattern taken: as long as the widest column matched.
MAX_PATTERN_LENGTH = 255
# Characters of a value SQLite's REGEXP reads (PostgreSQL's and MariaDB's
# columns are no wider; a server's description is at most 255 in the
# API).
MAX_SUBJECT_LENGTH = 255

# The deadline (time.monotonic()) of the statement under way in this
# thread, read by SQLite's REGEXP, which runs in the thread that executes
# the statement; and why that statement's REGEXP gave up, if it did.
_statement = threading.local()

# PostgreSQL's SQLSTATEs: query_canceled (statement_timeout),
# invalid_regular_expression.
_PG_CANCELED = '57014'
_PG_INVALID = '2201B'
# MariaDB's and MySQL's error numbers: ER_STATEMENT_TIMEOUT (MariaDB),
# ER_QUERY_TIMEOUT (MySQL), ER_REGEXP_ERROR.
_MYSQL_TIMEOUTS = (1969, 3024)
_MYSQL_INVALID = 1139

# NOTE: re warns (FutureWarning, "Possible nested set ...") about some
# patterns it compiles; the pattern is the client's, so the warning would
# let any member write lines to the service's log. The refusal, if any,
# is the 400 of ``check``.
warnings.filterwarnings('ignore', category=FutureWarning,
                        module=r'nova_mini\.db\.regexp$')


# A {...} after an item that is not a repeat count ({2}, {1,3}, {,4}):
# the regex package's fuzzy constraint (e, i, d, s with costs and limits).
_REPEAT = re.compile(r'\s*\d*\s*(,\s*\d*\s*)?')
# Escapes followed by braces of their own: \p{Letter}, \N{SPACE} ...
_BRACED_ESCAPES = 'pPN'


def _fuzzy_constraint(pattern):
    """Return the first fuzzy constraint (``{e<=1}``...) ``pattern`` has
    outside escapes and character classes, or None.
    """
    i, n = 0, len(pattern)
    while i < n:
        char = pattern[i]
        if char == '\\':
            if (i + 2 < n and pattern[i + 1] in _BRACED_ESCAPES
                    and pattern[i + 2] == '{'):
                end = pattern.find('}', i + 3)
                i = n if end < 0 else end + 1
            else:
                i += 2
        elif char == '[':
            # A class: a ']' first (or after '^') is a member; escapes.
            i += 1
            if i < n and pattern[i] == '^':
                i += 1
            if i < n and pattern[i] == ']':
                i += 1
            while i < n and pattern[i] != ']':
                i += 2 if pattern[i] == '\\' else 1
            i += 1
        elif char == '{':
            end = pattern.find('}', i + 1)
            if end < 0:
                return None
            inside = pattern[i + 1:end]
            if not _REPEAT.fullmatch(inside) and re.search('[eids]', inside):
                return pattern[i:end + 1]
            i = end + 1
        else:
            i += 1
    return None


def check(name, pattern):
    """Return ``pattern`` once checked: short enough, and a regular
    expression of Python's syntax (what SQLite runs; PostgreSQL's and
    MariaDB's own refusals are caught at the query, see ``budget``).

    :param name: the filter's name, for the message.
    :param pattern: the pattern given.
    :returns: the pattern.
    :raises nova_mini.exception.InvalidRegexFilter: too long, or not a
        regular expression.
    """
    if len(pattern) > MAX_PATTERN_LENGTH:
        raise exception.InvalidRegexFilter(
            name=name, reason='at most %d characters are allowed, not %d.'
            % (MAX_PATTERN_LENGTH, len(pattern)))
    try:
        # NOTE: both: re is the syntax of Nova's SQLite, regex what runs.
        re.compile(pattern)
        regex.compile(pattern)
    except (re.error, regex.error, ValueError, OverflowError) as exc:
        raise exception.InvalidRegexFilter(
            name=name, reason='%s (%s)' % (pattern, exc))
    fuzzy = _fuzzy_constraint(pattern)
    if fuzzy is not None:
        raise exception.InvalidRegexFilter(
            name=name, reason='%s (fuzzy matching such as %s is not '
            'supported)' % (pattern, fuzzy))
    return pattern


def search(pattern, text, seconds=None):
    """Return whether ``pattern`` matches ``text`` somewhere, within the
    budget, outside any statement (e.g. a filter on a value the API
    computes).

    :param pattern: a pattern ``check`` took.
    :param text: the text searched (its first MAX_SUBJECT_LENGTH
        characters).
    :param seconds: the budget (default: ``[api] regex_filter_timeout``).
    :raises TimeoutError: past the budget.
    """
    if seconds is None:
        seconds = CONF.api.regex_filter_timeout
    return regex.search(pattern, text[:MAX_SUBJECT_LENGTH],
                        timeout=seconds, concurrent=True) is not None


def sqlite_regexp(dbapi_conn, _record):
    """Register REGEXP on a new SQLite connection (a ``connect`` event
    listener): ``value REGEXP pattern`` as ``re.search``, NULL matching
    nothing (as on the other databases; oslo.db's own matches NULL as the
    text 'None'), within the budget of the statement under way (see
    ``budget``; outside one, ``[api] regex_filter_timeout`` per match).
    """
    def regexp(pattern, value):
        if value is None:
            return None
        deadline = getattr(_statement, 'deadline', None)
        if deadline is None:
            seconds = CONF.api.regex_filter_timeout
        else:
            seconds = deadline - time.monotonic()
        try:
            if seconds <= 0:
                raise TimeoutError('regex budget spent')
            # NOTE: concurrent=True gives up the GIL while matching: the
            # worker's other threads (its heartbeat) keep running. The
            # compiled pattern is cached by the regex package.
            return regex.search(pattern, str(value)[:MAX_SUBJECT_LENGTH],
                                timeout=seconds,
                                concurrent=True) is not None
        except TimeoutError:
            _statement.failure = 'timeout'
            raise
        except (regex.error, ValueError) as exc:
            _statement.failure = str(exc)
            raise
        except MemoryError:
            # The regex package gives up on a match's backtracking state
            # (check refuses the patterns known to get there).
            _statement.failure = 'too complex to match'
            raise
    dbapi_conn.create_function('regexp', 2, regexp, deterministic=True)


def _dbapi_error(exc):
    """The DB-API exception beneath ``exc`` (oslo.db's wrapping or
    SQLAlchemy's), or None.
    """
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, sa_exc.DBAPIError):
            return exc.orig
        exc = getattr(exc, 'inner_exception', None) or exc.__cause__
    return None


def _mysql_errno(orig):
    args = getattr(orig, 'args', ())
    return args[0] if args and isinstance(args[0], int) else None


def _limit(connection, dialect, seconds):
    """Put the budget on the statements that follow on ``connection``
    (MariaDB, MySQL; PostgreSQL's comes with the check of its patterns);
    return the statement (or None) that takes it off again.
    """
    if dialect == 'mysql':
        if connection.dialect.is_mariadb:
            connection.exec_driver_sql(
                'SET @nova_mini_max_statement_time = @@max_statement_time, '
                'SESSION max_statement_time = %.3f' % seconds)
            return ('SET SESSION max_statement_time = '
                    '@nova_mini_max_statement_time')
        connection.exec_driver_sql(
            'SET @nova_mini_max_execution_time = @@max_execution_time, '
            'SESSION max_execution_time = %d' % max(1, seconds * 1000))
        return 'SET SESSION max_execution_time = @nova_mini_max_execution_time'
    return None


def _refusal(dialect, orig):
    """The database's words refusing a pattern, from its error ``orig``
    (None: another error).
    """
    if dialect == 'postgresql' and getattr(orig, 'pgcode', None) == (
            _PG_INVALID):
        return orig.diag.message_primary or str(orig)
    if dialect == 'mysql' and _mysql_errno(orig) == _MYSQL_INVALID:
        return str(orig.args[-1])
    return None


def _check_on_database(connection, dialect, patterns, seconds):
    """Have PostgreSQL or MariaDB compile each pattern (on an empty text)
    before the list's query does; on PostgreSQL, the first check also puts
    the budget on the transaction's statements that follow (``set_config``
    with ``is_local``: SET LOCAL, undone when the transaction ends,
    committed or rolled back), so it costs no statement of its own.

    NOTE: on a DB-API cursor of the session's connection, not through
    SQLAlchemy: oslo.db logs a traceback for every database error it
    wraps, and a member's typo is no error of the service's. A refusal
    leaves a PostgreSQL transaction failed: the InvalidRegexFilter raised
    ends it (the reader rolls back).
    """
    operator = {'postgresql': '~', 'mysql': 'REGEXP'}.get(dialect)
    if operator is None:
        return
    cursor = connection.connection.dbapi_connection.cursor()
    try:
        for number, (name, pattern) in enumerate(patterns):
            statement, values = "SELECT '' %s %%s" % operator, (pattern,)
            if dialect == 'postgresql' and not number:
                statement = ("SELECT set_config('statement_timeout', %s, "
                             "true), '' ~ %s")
                values = ('%dms' % max(1, seconds * 1000), pattern)
            try:
                cursor.execute(statement, values)
                cursor.fetchall()
            except Exception as exc:
                reason = _refusal(dialect, exc)
                if reason is None:
                    raise
                raise exception.InvalidRegexFilter(
                    name=name, reason='the database refuses it (%s)'
                    % reason.strip().splitlines()[0])
    finally:
        cursor.close()


@contextlib.contextmanager
def budget(session, patterns):
    """Run the statements of the block (the reads of a list filtered with
    regular expressions) within ``[api] regex_filter_timeout`` seconds
    each, once the database has taken the patterns.

    The budget is the statement's timeout on PostgreSQL, MariaDB and
    MySQL; on SQLite the deadline of every REGEXP call of this thread.

    On PostgreSQL the budget lasts until the transaction ends (SET LOCAL,
    taken off by the commit or the rollback, never left on the pooled
    connection): the block must be the last statements of its
    transaction, as in a reader of its own (InstanceList.get_by_filters,
    which reads the page's metadata and tags within it too). On MariaDB
    and MySQL it is the session's, taken off after the block.

    :param session: the reader session; the block runs on its connection.
    :param patterns: ``[(filter name, pattern)]``, each taken by ``check``.
    :raises nova_mini.exception.RegexFilterTimeout: the budget ran out.
    :raises nova_mini.exception.InvalidRegexFilter: the database refuses
        a pattern.
    """
    seconds = CONF.api.regex_filter_timeout
    names = [name for name, _pattern in patterns]
    connection = session.connection()
    dialect = connection.dialect.name
    _check_on_database(connection, dialect, patterns, seconds)
    undo = _limit(connection, dialect, seconds)
    _statement.deadline = time.monotonic() + seconds
    _statement.failure = None
    try:
        yield
    except Exception as exc:
        if undo is not None:
            # NOTE: the connection goes back to the pool: its session must
            # not keep the budget.
            _undo_quietly(connection, undo)
        _translate(exc, dialect, names, seconds)
        raise
    finally:
        _statement.deadline = None
        _statement.failure = None
    if undo is not None:
        connection.exec_driver_sql(undo)


def _undo_quietly(connection, undo):
    try:
        connection.exec_driver_sql(undo)
    except sa_exc.DBAPIError:
        # The connection is unusable: the pool will not hand it out again.
        pass


def _translate(exc, dialect, names, seconds):
    """Raise the domain exception of a statement's failure ``exc``, if it
    is the budget running out or a refusal of a pattern.
    """
    failure = _statement.failure
    orig = _dbapi_error(exc)
    if orig is None:
        return
    if failure == 'timeout' or getattr(orig, 'pgcode', None) == (
            _PG_CANCELED) or _mysql_errno(orig) in _MYSQL_TIMEOUTS:
        raise exception.RegexFilterTimeout(names=', '.join(names),
                                           seconds=seconds)
    reason = failure or _refusal(dialect, orig)
    if reason:
        raise exception.InvalidRegexFilter(
            name=', '.join(names),
            reason='the database refuses it (%s)'
            % reason.strip().splitlines()[0])
