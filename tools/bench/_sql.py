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

"""What the benchmarks ask the database: the SELECTs a call issues and
their plans (SQLite ``EXPLAIN QUERY PLAN``, PostgreSQL ``EXPLAIN
ANALYZE``).

Used by node_traits_filter.py and scheduler_select.py, which import it
from their own directory (``tools/bench`` is on their ``sys.path``).
"""

import contextlib

import sqlalchemy as sa


@contextlib.contextmanager
def captured_selects(engine):
    """Collect the SELECT statements run on ``engine`` inside the block.

    :param engine: a SQLAlchemy engine.
    :returns: (as the ``with`` target) a list that fills with
        ``(statement, parameters)`` as the driver received them.
    """
    statements = []

    def capture(conn, cursor, statement, parameters, context, many):
        if statement.lstrip().upper().startswith('SELECT'):
            statements.append((statement, parameters))

    sa.event.listen(engine, 'before_cursor_execute', capture)
    try:
        yield statements
    finally:
        sa.event.remove(engine, 'before_cursor_execute', capture)


def plans(engine, statements, summary=False):
    """Explain each statement on ``engine``: its plan lines.

    PostgreSQL runs the statement (``EXPLAIN ANALYZE``, without costs or
    timings, so that plans compare between runs).

    :param engine: the engine the statements were captured on.
    :param statements: ``(statement, parameters)`` pairs, as
        ``captured_selects`` collects them.
    :param summary: PostgreSQL: add the planning and execution summary.
    :returns: a list of ``{'sql': one-line statement, 'plan': [lines]}``.
    """
    options = 'ANALYZE, COSTS OFF, TIMING OFF' + (
        ', SUMMARY ON' if summary else '')
    result = []
    with engine.connect() as conn:
        raw = conn.connection.dbapi_connection
        for statement, parameters in statements:
            cursor = raw.cursor()
            if engine.dialect.name == 'sqlite':
                cursor.execute('EXPLAIN QUERY PLAN ' + statement, parameters)
                plan = [str(row[-1]) for row in cursor]
            else:
                cursor.execute('EXPLAIN (%s) %s' % (options, statement),
                               parameters)
                plan = [row[0] for row in cursor]
            cursor.close()
            result.append({'sql': ' '.join(statement.split()), 'plan': plan})
    return result
