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

"""Sphinx extension: an API root's microversion history, rendered from the
one list the API itself negotiates with (``HISTORY`` of
``nova_mini.api.compute.versions`` or ``nova_mini.api.baremetal.versions``),
so the reference can never disagree with the code. In a document::

    .. microversion-history:: nova_mini.api.compute.versions

renders a two-column table, version and what it changed, oldest first.
"""

import importlib

from docutils import nodes
from docutils.parsers.rst import Directive


class MicroversionHistory(Directive):
    required_arguments = 1

    def run(self):
        module = importlib.import_module(self.arguments[0])
        history = getattr(module, 'HISTORY', None)
        if not history:
            raise self.error('%s has no HISTORY list' % self.arguments[0])
        table = nodes.table()
        group = nodes.tgroup(cols=2)
        table += group
        group += nodes.colspec(colwidth=1)
        group += nodes.colspec(colwidth=6)
        head = nodes.thead()
        group += head
        head += self._row('Version', 'What it changed')
        body = nodes.tbody()
        group += body
        for version, change in history:
            body += self._row(version, change, literal=True)
        return [table]

    @staticmethod
    def _row(first, second, literal=False):
        row = nodes.row()
        for index, text in enumerate((first, second)):
            entry = nodes.entry()
            paragraph = nodes.paragraph()
            paragraph += (nodes.literal(text=text) if literal and index == 0
                          else nodes.Text(text))
            entry += paragraph
            row += entry
        return row


def setup(app):
    app.add_directive('microversion-history', MicroversionHistory)
    return {'version': '1.0', 'parallel_read_safe': True,
            'parallel_write_safe': True}
