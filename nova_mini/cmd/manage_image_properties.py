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

"""``nova-mini-manage image-properties list|show|validate|metadefs|audit``:
the image property definitions for operators, values checked against
them before they go into Glance, Glance metadata definitions of them,
and the images in Glance checked against them (``manage_image_audit``).

The same definitions as the API (the in-tree ones and those of installed
``nova_mini.image_property_validators`` plugins), the same wording of
value rules and support statuses as ``extra-specs`` (``Value.describe``,
``Support.describe``).
"""

import sys

from oslo_utils import strutils
import prettytable

from nova_mini.api.validation.image_properties import registry as ip_registry
from nova_mini.cmd import manage_extra_specs
from nova_mini.cmd import manage_image_audit
from nova_mini.cmd import manage_metadefs

MAX_CELL_WIDTH = manage_extra_specs.MAX_CELL_WIDTH
_source = manage_extra_specs._source


def list_(conf):
    """``image-properties list``: a table of the definitions, all or those
    of ``--namespace`` (``hw``, ``img``, ``os``, ``trait``, or ``legacy``
    for the names without one).

    :returns: the exit status: 1 for a namespace no property uses.
    """
    registry = ip_registry.build()
    namespace = conf.command.namespace
    if namespace == 'legacy':
        props = [p for p in registry if p.namespace is None]
    else:
        props = [p for p in registry
                 if namespace is None or p.namespace == namespace]
    if not props:
        print('No image property uses the namespace %r. Namespaces: %s, '
              'legacy' % (namespace, ', '.join(registry.namespaces())),
              file=sys.stderr)
        return 1
    table = prettytable.PrettyTable(['Name', 'Value', 'Flavor extra spec',
                                     'Status', 'Source'])
    table.align = 'l'
    table.max_width = MAX_CELL_WIDTH
    for prop in props:
        table.add_row([prop.name, prop.describe_value(), prop.mirrors or '',
                       prop.support.describe(), _source(prop)])
    print(table)
    return 0


def show(conf):
    """``image-properties show NAME``: the definition of a name, or the
    one a key matches (``hw_numa_cpus.1``), as text.

    :returns: the exit status: 1 for an unknown name.
    """
    registry = ip_registry.build()
    key = conf.command.property
    prop, values = manage_extra_specs._find_definition(registry, key)
    if prop is None:
        print(ip_registry.unknown_key_message(registry, key),
              file=sys.stderr)
        print('Run "nova-mini-manage image-properties list" for every image '
              'property.', file=sys.stderr)
        return 1
    value = prop.describe_value()
    if prop.value.description and prop.value.description.replace(
            '``', '').rstrip('.').lower() != value.lower():
        value += '. ' + prop.value.description
    lines = []
    if prop.mirrors:
        lines.append(('Flavor:', prop.mirrors))
    if prop.field != prop.name:
        lines.append(('Nova field:', prop.field))
    if prop.drivers:
        lines.append(('Read by:', ', '.join(prop.drivers)))
    if prop.requires:
        lines.append(('Requires:', ', '.join(prop.requires)))
    if prop.example is not None:
        lines.append(('Example:', str(prop.example)))
    manage_extra_specs.print_definition(prop, key, values, value, lines)
    return 0


def _shown(typed):
    if isinstance(typed, bool):
        return 'true' if typed else 'false'
    if isinstance(typed, (set, frozenset)):
        return '{%s}' % ', '.join(str(n) for n in sorted(typed))
    return repr(typed) if not isinstance(typed, str) else typed


def validate(conf):
    """``image-properties validate KEY=VALUE...``: check properties as
    they would be set on one image.

    Valid ones are printed with the value Nova reads; a refused value gets
    the API's message (with the accepted values), an unknown name the
    names it resembles, unless ``--permissive`` (the API's own behaviour:
    unknown properties stay raw).

    :returns: the exit status: 1 when a property is refused.
    """
    registry = ip_registry.build()
    properties = {}
    for argument in conf.command.properties:
        key, sep, value = argument.partition('=')
        if not sep or not key:
            print('%r is not KEY=VALUE' % argument, file=sys.stderr)
            return 1
        properties[key] = value
    mode = (ip_registry.PERMISSIVE if conf.command.permissive
            else ip_registry.STRICT)
    verdict = ip_registry.validate(registry, properties, mode)
    deprecated = dict(verdict.deprecated)
    for key, value in properties.items():
        if key in verdict.values:
            line = '%s=%s: valid, read as %s' % (
                key, value, _shown(verdict.values[key]))
            prop = registry.lookup(key)
            if (prop.value.type is bool and
                    strutils.bool_from_string(value, default=None) is None):
                line += ' (not a boolean spelling Nova knows)'
            print(line)
            if key in deprecated:
                print('  note: %s is %s.' % (
                    key, deprecated[key].support.describe()))
        elif key in verdict.ignored and mode == ip_registry.PERMISSIVE:
            print('%s=%s: ignored, as Nova ignores it (a number is missing '
                  'before it)' % (key, value))
        elif key in verdict.unknown and mode == ip_registry.PERMISSIVE:
            print('%s=%s: not an image property nova_mini knows; kept as '
                  'it is' % (key, value))
    for error in verdict.errors:
        if 'is not a known image property' in error or \
                'is ignored:' in error:
            print(error, file=sys.stderr)
        else:
            print(ip_registry.NOVA_MESSAGE_PREFIX + error, file=sys.stderr)
    return 0 if verdict else 1


def write_metadefs(conf):
    """``image-properties metadefs``: write the Glance metadef files of
    the image properties into ``--output-dir`` and say what each holds.

    :returns: the exit status, 0.
    """
    registry = ip_registry.build()
    written = manage_metadefs.write(
        registry, conf.command.output_dir,
        build=manage_metadefs.build_image_namespaces)
    for path, metadef in written:
        count = len(metadef.properties)
        print('Wrote %s: %s, %d %s' % (
            path, metadef.namespace, count,
            'property' if count == 1 else 'properties'))
        for skipped in metadef.skipped:
            print('  left out %s (%s)' % (skipped.name, skipped.reason))
    return 0


def add_parsers(subparsers):
    """The ``image-properties`` command (``list``, ``show``,
    ``validate``, ``metadefs``).

    :param subparsers: the argparse sub-parsers of nova-mini-manage.
    """
    command = subparsers.add_parser(
        'image-properties', help='Image property definitions')
    actions = command.add_subparsers(dest='action')
    actions.required = True
    list_parser = actions.add_parser(
        'list', help='List the known image properties')
    list_parser.add_argument(
        '--namespace', default=None,
        help='Only the properties of this prefix (hw, img, os, trait), or '
             'legacy for the legacy names.')
    show_parser = actions.add_parser(
        'show', help='Show the definition matching a name')
    # Not 'name': oslo.config's sub-command option holds the command
    # there.
    show_parser.add_argument(
        'property', metavar='NAME',
        help='An image property name (hw_cpu_policy) or key '
             '(hw_numa_cpus.0, trait:CUSTOM_X).')
    validate_parser = actions.add_parser(
        'validate', help='Check properties as set on one image; exit 1 if '
                         'any is refused')
    validate_parser.add_argument(
        'properties', nargs='+', metavar='KEY=VALUE',
        help='Image properties, e.g. hw_cpu_policy=dedicated.')
    validate_parser.add_argument(
        '--permissive', action='store_true',
        help='Accept unknown names, as the API does (they stay raw '
             'properties); by default they are errors.')
    generate = actions.add_parser(
        'metadefs', help='Write Glance metadata definition files, one per '
                         'image property prefix')
    generate.add_argument('--output-dir', required=True,
                          help='Directory to write the JSON files into '
                               '(created if missing).')
    manage_image_audit.add_parser(actions)


# (command, action) -> handler(conf), for nova-mini-manage's dispatch.
COMMANDS = {
    ('image-properties', 'list'): list_,
    ('image-properties', 'show'): show,
    ('image-properties', 'validate'): validate,
    ('image-properties', 'metadefs'): write_metadefs,
    ('image-properties', 'audit'): manage_image_audit.audit,
}
