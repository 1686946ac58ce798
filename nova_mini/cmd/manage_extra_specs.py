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

"""``nova-mini-manage extra-specs list|show|metadefs`` and ``flavor
audit``: the extra spec definitions for operators, and the stored flavors
checked against them.

The commands use the same definitions as the API: the in-tree ones and
those of installed operator plugins. The wording of a value rule and of a
support status is the registry's (``Value.describe``,
``Support.describe``), as in API errors and the documentation.
"""

import sys
import textwrap

import prettytable

from nova_mini.api.validation.extra_specs import registry as xs_registry
from nova_mini.cmd import manage_metadefs
from nova_mini import context as nm_context
from nova_mini.db import api as db_api
from nova_mini import objects

# Longer cells of the list table wrap onto further lines.
MAX_CELL_WIDTH = 64
# Flavors read per query by the audit.
AUDIT_BATCH = 500


def _source(spec):
    if spec.source == 'nova_mini':
        return 'nova_mini (in tree)'
    return 'plugin %s' % spec.source


def list_(conf):
    """``extra-specs list``: a table of the definitions, all or those of
    ``--namespace``.

    :param conf: the parsed configuration (``conf.command`` holds the
        arguments).
    :returns: the exit status: 1 when no extra spec uses the namespace.
    """
    registry = xs_registry.build()
    namespace = conf.command.namespace
    specs = [s for s in registry
             if namespace is None or s.namespace == namespace]
    if not specs:
        print('No extra spec uses the namespace %r. Namespaces: %s'
              % (namespace, ', '.join(registry.namespaces())),
              file=sys.stderr)
        return 1
    table = prettytable.PrettyTable(['Name', 'Value', 'Status', 'Source'])
    table.align = 'l'
    table.max_width = MAX_CELL_WIDTH
    for spec in specs:
        table.add_row([spec.name, spec.value.describe(),
                       spec.support.describe(), _source(spec)])
    print(table)
    return 0


def _find_definition(registry, key):
    """(definition, parameter values) of ``key``: the definition of that
    name, or the one whose (patterned) name matches it.
    """
    for spec in registry:
        if spec.name == key:
            return spec, {}
    spec = registry.lookup(key)
    if spec is None:
        return None, {}
    values = spec.regex.fullmatch(key).groupdict() if spec.patterned else {}
    return spec, values


def _wrapped(label, text, width=79):
    return textwrap.fill(manage_metadefs.plain_text(text), width=width,
                         initial_indent='  %-14s' % label,
                         subsequent_indent=' ' * 16)


def show(conf):
    """``extra-specs show KEY``: the definition of a name, or the one a
    key matches, as text.

    :param conf: the parsed configuration (``conf.command.key``).
    :returns: the exit status: 1 for an unknown key.
    """
    registry = xs_registry.build()
    key = conf.command.key
    spec, values = _find_definition(registry, key)
    if spec is None:
        print(xs_registry.unknown_key_message(registry, key),
              file=sys.stderr)
        if not registry.namespace_known(key):
            print('Namespaces: %s. Run "nova-mini-manage extra-specs list" '
                  'for every extra spec.' % ', '.join(registry.namespaces()),
                  file=sys.stderr)
        return 1
    value = spec.value.describe()
    if spec.value.description:
        value += '. ' + spec.value.description
    lines = []
    if spec.drivers:
        lines.append(('Virt drivers:', ', '.join(spec.drivers)))
    if spec.requires:
        lines.append(('Requires:', ', '.join(spec.requires)))
    if spec.example is not None:
        lines.append(('Example:', str(spec.example)))
    print_definition(spec, key, values, value, lines)
    return 0


def print_definition(definition, key, values, value, lines=()):
    """Print a definition (an extra spec's or an image property's) as
    the ``show`` commands do: its name, what ``key`` matched, its
    description, parameters, value, status, ``lines`` and source.

    :param definition: the registry's definition.
    :param key: the key asked for.
    :param values: the parameters' values ``key`` matched.
    :param value: the text of the allowed value.
    :param lines: further ``(label, text)`` lines, after the status.
    """
    print(definition.name)
    if definition.name != key:
        print('  (matches %s: %s)' % (key, ', '.join(
            '%s=%s' % item for item in sorted(values.items()))))
    print(textwrap.fill(manage_metadefs.plain_text(definition.description),
                        width=79, initial_indent='  ',
                        subsequent_indent='  '))
    for parameter in definition.parameters:
        print(_wrapped('Parameter:', '{%s} matches %s. %s' % (
            parameter.name, parameter.pattern, parameter.description)))
    print(_wrapped('Value:', value))
    status = definition.support.describe()
    if definition.support.note:
        status += '. ' + definition.support.note
    print(_wrapped('Status:', status))
    for label, text in lines:
        print(_wrapped(label, text))
    print(_wrapped('Source:', _source(definition)))


def write_metadefs(conf):
    """``extra-specs metadefs``: write the Glance metadef files into
    ``--output-dir`` and say what each holds.

    :param conf: the parsed configuration (``conf.command.output_dir``).
    :returns: the exit status, 0.
    """
    registry = xs_registry.build()
    written = manage_metadefs.write(registry, conf.command.output_dir)
    for path, metadef in written:
        count = len(metadef.properties)
        print('Wrote %s: %s, %d %s' % (
            path, metadef.namespace, count,
            'property' if count == 1 else 'properties'))
        for skipped in metadef.skipped:
            print('  left out %s (%s)' % (skipped.name, skipped.reason))
    return 0


def _all_flavors(context):
    marker = None
    while True:
        batch = objects.FlavorList.get_all(
            context, filters={'is_public': None}, limit=AUDIT_BATCH,
            marker=marker)
        yield from batch
        if len(batch) < AUDIT_BATCH:
            return
        marker = batch[-1].flavorid


def flavor_verdicts(context, registry=None):
    """Each stored flavor with what strict validation says of its extra
    specs, as ``(flavor, verdict)`` pairs, a batch of flavors at a time.

    :param context: an admin request context.
    :param registry: the extra spec registry (default: built here).
    """
    registry = registry or xs_registry.build()
    for flavor in _all_flavors(context):
        yield flavor, xs_registry.validate(registry, flavor.extra_specs,
                                           xs_registry.STRICT)


def audit_flavors(conf):
    """``flavor audit``: validate every stored flavor's extra specs as
    strict mode would, and print each problem.

    :param conf: the parsed configuration (its ``[database]``).
    :returns: the exit status: 1 when a flavor has a problem.
    """
    db_api.configure(conf)
    context = nm_context.get_admin_context()
    total = invalid = 0
    for flavor, verdict in flavor_verdicts(context):
        total += 1
        label = 'Flavor %s (%s)' % (flavor.flavorid, flavor.name)
        for error in verdict.errors:
            print('%s: %s' % (label, error))
        for key, spec in verdict.deprecated:
            print('%s: note: %s is deprecated (%s).' % (
                label, key, spec.support.describe()))
        if verdict.errors:
            invalid += 1
    noun = 'flavor' if total == 1 else 'flavors'
    if invalid:
        print('%d of %d %s have unknown or invalid extra specs: fix them '
              '(openstack flavor set/unset) before relying on strict '
              'validation.' % (invalid, total, noun))
        return 1
    print('All %d %s valid.' % (total, noun))
    return 0


def add_parsers(subparsers):
    """The ``extra-specs`` command (``list``, ``show``, ``metadefs``) and
    the ``flavor`` command (``audit``).

    :param subparsers: the argparse sub-parsers of nova-mini-manage.
    """
    extra_specs = subparsers.add_parser(
        'extra-specs', help='Flavor extra spec definitions')
    extra_specs_actions = extra_specs.add_subparsers(dest='action')
    extra_specs_actions.required = True
    list_parser = extra_specs_actions.add_parser(
        'list', help='List the known extra specs')
    list_parser.add_argument('--namespace', default=None,
                             help='Only the extra specs of this namespace '
                                  '(e.g. hw).')
    show_parser = extra_specs_actions.add_parser(
        'show', help='Show the definition matching a key')
    show_parser.add_argument('key', help='An extra spec name (hw:cpu_policy) '
                                         'or key (hw:numa_cpus.0).')
    generate = extra_specs_actions.add_parser(
        'metadefs', help='Write Glance metadata definition files, one per '
                         'extra spec namespace')
    generate.add_argument('--output-dir', required=True,
                          help='Directory to write the JSON files into '
                               '(created if missing).')

    flavor = subparsers.add_parser('flavor', help='Stored flavors')
    flavor_actions = flavor.add_subparsers(dest='action')
    flavor_actions.required = True
    flavor_actions.add_parser(
        'audit', help='Report the stored extra specs that strict '
                      'validation would reject; exit 1 if there are any')


# (command, action) -> handler(conf), for nova-mini-manage's dispatch.
COMMANDS = {
    ('extra-specs', 'list'): list_,
    ('extra-specs', 'show'): show,
    ('extra-specs', 'metadefs'): write_metadefs,
    ('flavor', 'audit'): audit_flavors,
}
