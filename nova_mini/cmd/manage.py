"""nova-mini-manage: operator commands.

    nova-mini-manage [--config-file F] db sync [--revision R]
    nova-mini-manage db version
    nova-mini-manage scheduler ping [--timeout S]
    nova-mini-manage extra-specs list [--namespace NS]
    nova-mini-manage extra-specs show KEY
    nova-mini-manage extra-specs metadefs --output-dir DIR
    nova-mini-manage flavor audit
    nova-mini-manage metadata show SERVER [--path latest/vendor_data2.json]

The extra-specs and flavor commands use the same definitions as the API:
the in-tree ones and those of installed operator plugins.
"""

import sys
import textwrap

from oslo_config import cfg
from oslo_log import log as logging
import oslo_messaging as messaging

from nova_mini.api.validation.extra_specs import base
from nova_mini.api.validation.extra_specs import metadefs
from nova_mini.api.validation.extra_specs import registry as xs_registry
from nova_mini.cmd import manage_metadata
from nova_mini import conf
from nova_mini import config
from nova_mini import context as nm_context
from nova_mini.db import api as db_api
from nova_mini.db import migration
from nova_mini import objects
from nova_mini import rpc

CONF = conf.CONF


def _db_sync():
    db_api.configure(CONF)
    migration.db_sync(revision=CONF.command.revision)
    print('Database is at revision %s' % migration.db_version())
    return 0


def _db_version():
    db_api.configure(CONF)
    print(migration.db_version() or 'None')
    return 0


def _scheduler_ping():
    from nova_mini.scheduler import rpcapi
    try:
        reply = rpcapi.SchedulerAPI(CONF).ping(
            nm_context.get_admin_context(), timeout=CONF.command.timeout)
    except messaging.MessagingTimeout:
        print('No scheduler answered within %ss' % CONF.command.timeout,
              file=sys.stderr)
        return 1
    finally:
        rpc.cleanup()
    print('scheduler on %(host)s answered (version %(version)s, RPC API '
          '%(rpc_api_version)s)' % reply)
    return 0


# Extra specs

def _rule(value):
    """A one-line summary of the values an extra spec takes."""
    if value.type is bool:
        return 'boolean'
    if value.type is int:
        if value.min is not None and value.max is not None:
            return 'integer %d..%d' % (value.min, value.max)
        if value.min is not None:
            return 'integer >= %d' % value.min
        if value.max is not None:
            return 'integer <= %d' % value.max
        return 'integer'
    if value.pattern is not None:
        return 'string matching %s' % value.pattern
    if value.enum:
        return 'one of: %s' % ', '.join(str(v) for v in value.enum)
    return 'string'


def _status(support):
    if support.status != base.DEPRECATED:
        return support.status
    text = 'deprecated'
    if support.since:
        text += ' since %s' % support.since
    if support.replacement:
        text += ', use %s' % support.replacement
    return text


def _source(spec):
    if spec.source == 'nova_mini':
        return 'nova_mini (in tree)'
    return 'plugin %s' % spec.source


def _table(headers, rows, max_width=60):
    def cut(text):
        return text if len(text) <= max_width else (
            text[:max_width - 3] + '...')

    rows = [[cut(cell) for cell in row] for row in rows]
    widths = [max([len(h)] + [len(r[i]) for r in rows])
              for i, h in enumerate(headers)]
    rule = '+' + '+'.join('-' * (w + 2) for w in widths) + '+'
    lines = [rule, _row(headers, widths), rule]
    lines.extend(_row(row, widths) for row in rows)
    lines.append(rule)
    return '\n'.join(lines)


def _row(cells, widths):
    return '|' + '|'.join(' %s ' % c.ljust(w)
                          for c, w in zip(cells, widths)) + '|'


def _extra_specs_list():
    registry = xs_registry.build()
    namespace = CONF.command.namespace
    specs = [s for s in registry
             if namespace is None or s.namespace == namespace]
    if not specs:
        print('No extra spec uses the namespace %r. Namespaces: %s'
              % (namespace, ', '.join(registry.namespaces())),
              file=sys.stderr)
        return 1
    print(_table(['Name', 'Value', 'Status', 'Source'],
                 [[s.name, _rule(s.value), _status(s.support), _source(s)]
                  for s in specs]))
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
    indent = ' ' * 16
    return textwrap.fill(metadefs.plain_text(text), width=width,
                         initial_indent='  %-14s' % label,
                         subsequent_indent=indent)


def _extra_specs_show():
    registry = xs_registry.build()
    key = CONF.command.key
    spec, values = _find_definition(registry, key)
    if spec is None:
        print(xs_registry.unknown_key_message(registry, key),
              file=sys.stderr)
        if not registry.namespace_known(key):
            print('Namespaces: %s. Run "nova-mini-manage extra-specs list" '
                  'for every extra spec.' % ', '.join(registry.namespaces()),
                  file=sys.stderr)
        return 1
    print(spec.name)
    if spec.name != key:
        print('  (matches %s: %s)' % (key, ', '.join(
            '%s=%s' % item for item in sorted(values.items()))))
    print(textwrap.fill(metadefs.plain_text(spec.description), width=79,
                        initial_indent='  ', subsequent_indent='  '))
    for parameter in spec.parameters:
        print(_wrapped('Parameter:', '{%s} matches %s. %s' % (
            parameter.name, parameter.pattern, parameter.description)))
    value = _rule(spec.value)
    if spec.value.description:
        value += '. ' + spec.value.description
    print(_wrapped('Value:', value))
    status = _status(spec.support)
    if spec.support.note:
        status += '. ' + spec.support.note
    print(_wrapped('Status:', status))
    if spec.drivers:
        print(_wrapped('Virt drivers:', ', '.join(spec.drivers)))
    if spec.requires:
        print(_wrapped('Requires:', ', '.join(spec.requires)))
    if spec.example is not None:
        print(_wrapped('Example:', str(spec.example)))
    print(_wrapped('Source:', _source(spec)))
    return 0


def _extra_specs_metadefs():
    registry = xs_registry.build()
    written = metadefs.write(registry, CONF.command.output_dir)
    for path, metadef in written:
        count = len(metadef.properties)
        print('Wrote %s: %s, %d %s' % (
            path, metadef.namespace, count,
            'property' if count == 1 else 'properties'))
        for skipped in metadef.skipped:
            print('  left out %s (%s)' % (skipped.name, skipped.reason))
    return 0


# Flavors

_AUDIT_BATCH = 500


def _all_flavors(context):
    marker = None
    while True:
        batch = objects.FlavorList.get_all(
            context, filters={'is_public': None}, limit=_AUDIT_BATCH,
            marker=marker)
        yield from batch
        if len(batch) < _AUDIT_BATCH:
            return
        marker = batch[-1].flavorid


def _flavor_audit():
    """Validate every stored flavor's extra specs as strict mode would."""
    db_api.configure(CONF)
    registry = xs_registry.build()
    context = nm_context.get_admin_context()
    total = invalid = 0
    for flavor in _all_flavors(context):
        total += 1
        verdict = xs_registry.validate(registry, flavor.extra_specs,
                                       xs_registry.STRICT)
        label = 'Flavor %s (%s)' % (flavor.flavorid, flavor.name)
        for error in verdict.errors:
            print('%s: %s' % (label, error))
        for key, spec in verdict.deprecated:
            print('%s: note: %s is deprecated (%s).' % (
                label, key, _status(spec.support)))
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


_COMMANDS = {
    ('db', 'sync'): _db_sync,
    ('db', 'version'): _db_version,
    ('scheduler', 'ping'): _scheduler_ping,
    ('extra-specs', 'list'): _extra_specs_list,
    ('extra-specs', 'show'): _extra_specs_show,
    ('extra-specs', 'metadefs'): _extra_specs_metadefs,
    ('flavor', 'audit'): _flavor_audit,
    ('metadata', 'show'): lambda: manage_metadata.show(CONF),
}


def _add_parsers(subparsers):
    db = subparsers.add_parser('db', help='Database schema')
    db_actions = db.add_subparsers(dest='action')
    db_actions.required = True
    sync = db_actions.add_parser('sync', help='Upgrade the schema')
    sync.add_argument('--revision', default='head',
                      help='Target revision (default: the newest).')
    db_actions.add_parser('version', help='Show the schema revision')

    scheduler = subparsers.add_parser('scheduler', help='Scheduler service')
    scheduler_actions = scheduler.add_subparsers(dest='action')
    scheduler_actions.required = True
    ping = scheduler_actions.add_parser(
        'ping', help='Check that a scheduler answers over RPC')
    ping.add_argument('--timeout', type=int, default=10,
                      help='Seconds to wait for an answer.')

    extra_specs = subparsers.add_parser(
        'extra-specs', help='Flavor extra spec definitions')
    extra_specs_actions = extra_specs.add_subparsers(dest='action')
    extra_specs_actions.required = True
    list_ = extra_specs_actions.add_parser(
        'list', help='List the known extra specs')
    list_.add_argument('--namespace', default=None,
                       help='Only the extra specs of this namespace '
                            '(e.g. hw).')
    show = extra_specs_actions.add_parser(
        'show', help='Show the definition matching a key')
    show.add_argument('key', help='An extra spec name (hw:cpu_policy) or '
                                  'key (hw:numa_cpus.0).')
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

    manage_metadata.add_parser(subparsers)


_command_opt = cfg.SubCommandOpt('command', title='Commands',
                                 handler=_add_parsers)


def main(argv=None):
    if 'command' not in CONF:
        CONF.register_cli_opt(_command_opt)
    if 'use_stderr' not in CONF:
        logging.register_options(CONF)
    # Results go to stdout, for scripts to read; log messages (unless a
    # log file is configured) to stderr.
    CONF.set_default('use_stderr', True)
    config.parse_args(argv or sys.argv)
    handler = _COMMANDS[(CONF.command.name, CONF.command.action)]
    return handler()
