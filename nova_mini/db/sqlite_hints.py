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

"""Table hints on SQLite: ``select(...).with_hint(table, 'INDEXED BY
<index>', 'sqlite')`` written after the table's name in the FROM clause.

SQLAlchemy's SQLite dialect drops the hints of ``with_hint`` (other
dialects write theirs). SQLite's planner, without statistics, takes
``instance_uuid IS NULL`` for a few rows of the unique index on
``instance_uuid`` and sorts every free node, where the partial index of
the free nodes serves the ranking in order: the scheduler's walks of the
free nodes name their index so.
"""

import sqlalchemy as sa
from sqlalchemy.ext import compiler


@compiler.compiles(sa.Table, 'sqlite')
def _table_with_hint(element, sql_compiler, **kw):
    text = sql_compiler.visit_table(element, **kw)
    hints = kw.get('fromhints')
    if kw.get('asfrom') and hints and element in hints:
        text += ' ' + hints[element]
    return text
