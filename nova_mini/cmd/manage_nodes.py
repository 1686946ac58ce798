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

"""``nova-mini-manage node list``: bare-metal nodes filtered by traits.

python-ironicclient's ``openstack baremetal node list`` has no options
for the trait filters of the node list (``traits``, ``not-traits``,
``traits-any``, ``not-traits-any``: they are nova_mini's, not Ironic's).
This command takes them as options, checks them as the API does (trait
names, at most api.baremetal.node_query.MAX_FILTER_TRAITS a filter) and
reads the nodes from the database through the same object-layer query
the API's ``GET /v1/nodes`` runs, so both answer the same nodes.
"""

import json
import sys

from nova_mini.api.baremetal import node_query
from nova_mini.api.baremetal.schemas import nodes as schema
from nova_mini import context as nm_context
from nova_mini.db import api as db_api
from nova_mini import exception
from nova_mini import objects

# Option (as argparse stores it) -> the API's query parameter.
_OPTIONS = {'trait': 'traits', 'not_trait': 'not-traits',
            'trait_any': 'traits-any', 'not_trait_any': 'not-traits-any'}
_COLUMNS = ('uuid', 'name', 'provision_state', 'resource_class', 'traits')


def _values(given):
    """The traits of repeated options, each of which may list several
    comma-separated (as the API's parameter does).
    """
    return [trait for value in given or () for trait in value.split(',')
            if trait]


def filters(command):
    """The node list filters (objects.baremetal.node_filters) of the options.

    :raises nova_mini.exception.Invalid: a bad trait name, or too many
        traits in one filter (the API's 400s).
    """
    found = {}
    for option, param in _OPTIONS.items():
        traits = _values(getattr(command, option))
        if traits:
            node_query.trait_filter(found, param,
                                    schema.TRAIT_FILTERS[param],
                                    ','.join(traits))
    if command.resource_class:
        found['resource_class'] = command.resource_class
    if command.provision_state:
        found['provision_state'] = command.provision_state
    return found


def _rows(nodes):
    return [{'uuid': node.uuid, 'name': node.name,
             'provision_state': node.provision_state,
             'resource_class': node.resource_class,
             'traits': sorted(node.traits.get_trait_names())}
            for node in nodes]


def _print_table(rows):
    cells = [[', '.join(row[c]) if c == 'traits' else str(row[c] or '')
              for c in _COLUMNS] for row in rows]
    widths = [max([len(c)] + [len(line[i]) for line in cells])
              for i, c in enumerate(_COLUMNS)]
    print('  '.join(c.ljust(w) for c, w in zip(_COLUMNS, widths)).rstrip())
    for line in cells:
        print('  '.join(v.ljust(w) for v, w in zip(line, widths)).rstrip())


def list_nodes(conf):
    """The command: 0, or 1 with the reason on stderr for bad options."""
    command = conf.command
    try:
        wanted = filters(command)
    except exception.Invalid as exc:
        print(exc.format_message(), file=sys.stderr)
        return 1
    db_api.configure(conf)
    nodes = objects.NodeList.get_all(
        nm_context.get_admin_context(), filters=wanted, sort_key='id',
        limit=command.limit, with_traits=True)
    rows = _rows(nodes.objects)
    if command.format == 'json':
        print(json.dumps(rows, indent=2, sort_keys=True))
    else:
        _print_table(rows)
    return 0


COMMANDS = {('node', 'list'): list_nodes}


def add_parser(subparsers):
    """The ``node`` command and its ``list`` action."""
    node = subparsers.add_parser('node', help='Bare-metal nodes')
    actions = node.add_subparsers(dest='action')
    actions.required = True
    list_ = actions.add_parser(
        'list', help='List nodes, filtered by traits as GET /v1/nodes '
                     '?traits=...&not-traits=...&traits-any=... does')
    for option, param in _OPTIONS.items():
        list_.add_argument(
            '--' + option.replace('_', '-'), action='append', metavar='TRAIT',
            help='The query parameter %s: repeat the option or separate '
                 'traits with commas.' % param)
    list_.add_argument('--resource-class', default=None,
                       help='Only nodes of this resource class.')
    list_.add_argument('--provision-state', default=None,
                       help='Only nodes in this provision state.')
    list_.add_argument('--limit', type=int, default=None,
                       help='At most this many nodes (default: all).')
    list_.add_argument('--format', choices=('table', 'json'),
                       default='table', help='Output format (table).')
