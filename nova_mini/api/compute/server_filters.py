"""The query of a server list, as Nova 34 reads it: which filters a caller
may use, how they match, the sort order and the page.

NOTE: nova_mini.objects (shared with the scheduler) lists a project's
instances newest first and takes no other filter; a list that filters,
sorts or pages by marker reads the project's instances and selects here.
"""

import re

from oslo_utils import strutils
from oslo_utils import timeutils

from nova_mini.api.compute.schemas import servers as schema
from nova_mini.api.compute import server_view
from nova_mini.api.compute import versions
from nova_mini.api import microversion
from nova_mini import conf
from nova_mini import exception
from nova_mini.policies import servers as policies

CONF = conf.CONF
_V = microversion.APIVersion

# Every server status of Nova: from 2.38 any other is a bad filter.
STATUSES = frozenset([
    'ACTIVE', 'BUILD', 'DELETED', 'ERROR', 'HARD_REBOOT', 'MIGRATING',
    'PASSWORD', 'PAUSED', 'REBOOT', 'REBUILD', 'RESCUE', 'RESIZE',
    'REVERT_RESIZE', 'SHELVED', 'SHELVED_OFFLOADED', 'SHUTOFF',
    'SOFT_DELETED', 'SUSPENDED', 'UNKNOWN', 'VERIFY_RESIZE'])

# The filters of a caller without the allow_all_filters policy, from the
# version that allowed each; Nova ignores the others for them.
_MEMBER_FILTERS = (
    ('2.1', ('reservation_id', 'name', 'status', 'image', 'flavor', 'ip',
             'changes-since', 'all_tenants')),
    ('2.5', ('ip6',)),
    ('2.26', ('tags', 'tags-any', 'not-tags', 'not-tags-any')),
    ('2.66', ('changes-before',)),
    ('2.73', ('locked',)),
    ('2.83', ('availability_zone', 'config_drive', 'key_name', 'created_at',
              'launched_at', 'terminated_at', 'power_state', 'task_state',
              'vm_state', 'progress', 'user_id')),
)

# Not filters: the page, the order and the scope of the list.
_NOT_FILTERS = frozenset(['limit', 'marker', 'sort_key', 'sort_dir',
                          'all_tenants', 'project_id', 'tenant_id'])

# Parameters naming tables of Nova's: refused with Nova's message.
_JOINED = frozenset(['block_device_mapping', 'services', 'metadata',
                     'system_metadata', 'info_cache', 'security_groups',
                     'pci_devices'])

# Sort keys only administrators may use (Nova: 403 for the others).
_ADMIN_SORT_KEYS = ('host', 'node')

_DIRECTIONS = ('asc', 'desc')


def _regex(field):
    """A filter matching ``field`` of a server with a regular expression
    (``re.search``, as Nova's database does); none matches a server
    without the field.
    """
    def make(name, value):
        try:
            pattern = re.compile(value)
        except re.error as exc:
            raise exception.Invalid('Invalid regular expression for %s: '
                                    '%s (%s)' % (name, value, exc))

        def match(instance):
            text = field(instance)
            return text is not None and pattern.search(text) is not None
        return match
    return make


def _equal(field):
    def make(name, value):
        return lambda instance: field(instance) == value
    return make


def _time(name, value):
    try:
        return timeutils.normalize_time(timeutils.parse_isotime(value))
    except ValueError:
        raise exception.Invalid('Invalid filter field: %s.' % name)


def _changed(test):
    def make(name, value):
        stamp = _time(name, value)
        return lambda instance: instance.updated_at is not None and test(
            timeutils.normalize_time(instance.updated_at), stamp)
    return make


def _strict_bool(value):
    try:
        return strutils.bool_from_string(value, strict=True)
    except ValueError as exc:
        raise exception.Invalid(str(exc))


def _never_locked(name, value):
    locked = _strict_bool(value)
    # nova_mini servers are never locked.
    return lambda instance: not locked


def _never_deleted(name, value):
    # Deleted servers are gone at once: none is ever "deleted" (Nova reads
    # a value it does not know as false).
    deleted = strutils.bool_from_string(value)
    return lambda instance: not deleted


def _tags(test):
    """A tag filter: ``test(server's tags, the tags asked)``; the value is
    a comma-separated list, as in Nova.
    """
    def make(name, value):
        asked = set(value.split(','))
        return lambda instance: test(set(instance.tags), asked)
    return make


def _config_drive(instance):
    # As Nova keeps it, and its regular expressions read it.
    return 'True' if instance.config_drive else ''


# filter -> make(name, value), which checks the value (the last one
# given, as Nova) and returns match(instance).
_MATCHERS = {
    'name': _regex(lambda i: i.name),
    'display_name': _regex(lambda i: i.name),
    'hostname': _regex(lambda i: i.hostname),
    'node': _regex(lambda i: i.node_uuid),
    'flavor': _equal(lambda i: i.flavor.flavorid),
    'image': _equal(lambda i: i.image_ref),
    'image_ref': _equal(lambda i: i.image_ref),
    'uuid': _equal(lambda i: i.uuid),
    'user_id': _equal(lambda i: i.user_id),
    'vm_state': _equal(lambda i: i.vm_state),
    'task_state': _equal(server_view.task_state),
    'power_state': _equal(lambda i: str(server_view.power_state(i))),
    'locked': _never_locked,
    'deleted': _never_deleted,
    # Only says whether deleted servers include soft-deleted ones.
    'soft_deleted': lambda name, value: lambda instance: True,
    'description': _regex(lambda i: i.description),
    'display_description': _regex(lambda i: i.description),
    'access_ip_v4': _regex(lambda i: i.access_ip_v4),
    'access_ip_v6': _regex(lambda i: i.access_ip_v6),
    'config_drive': _regex(_config_drive),
    'launch_index': _regex(lambda i: str(i.launch_index)),
    # No server has a key pair yet: matches none.
    'key_name': _regex(lambda i: i.key_name),
    'tags': _tags(lambda has, asked: asked <= has),
    'tags-any': _tags(lambda has, asked: bool(asked & has)),
    'not-tags': _tags(lambda has, asked: not asked <= has),
    'not-tags-any': _tags(lambda has, asked: not asked & has),
    'changes-since': _changed(lambda at, stamp: at >= stamp),
    'changes-before': _changed(lambda at, stamp: at <= stamp),
}


def _same(instance):
    # A field every nova_mini server shows with the same value.
    return None


# sort_key -> the value sorted on (as the server view shows it).
_SORT_KEYS = dict(
    {key: _same for key in schema.SORT_KEYS},
    created_at=lambda i: i.created_at,
    updated_at=lambda i: i.updated_at,
    display_name=lambda i: i.name,
    hostname=lambda i: i.hostname,
    uuid=lambda i: i.uuid,
    vm_state=lambda i: i.vm_state,
    task_state=server_view.task_state,
    power_state=server_view.power_state,
    project_id=lambda i: i.project_id,
    user_id=lambda i: i.user_id,
    image_ref=lambda i: i.image_ref,
    instance_type_id=lambda i: i.flavor.flavorid,
    launched_at=lambda i: i.launched_at,
    display_description=lambda i: i.description,
    access_ip_v4=lambda i: i.access_ip_v4,
    access_ip_v6=lambda i: i.access_ip_v6,
    config_drive=_config_drive,
    launch_index=lambda i: i.launch_index,
    node=lambda i: i.node_uuid,
    # Not a key of the API: the last tie-break, as Nova's.
    id=lambda i: i.id,
)

# The order of a list that asks none, as the database reads it.
_DEFAULT_SORT = [('created_at', 'desc'), ('id', 'desc')]


def all_tenants(params):
    """Whether the query asks for every project (``all_tenants``; an
    empty value asks for it, as in Nova).
    """
    if 'all_tenants' not in params:
        return False
    if not params['all_tenants']:
        return True
    return _strict_bool(params['all_tenants'])


class ServerQuery(object):
    """The filters, order and page of one list request.

    :param detail: whether the list is /servers/detail (its own policy
        for every project).
    """

    def __init__(self, req, context, detail=False):
        self.version = req.api_version
        self.params = req.GET
        self.all_tenants = all_tenants(self.params)
        if self.all_tenants:
            context.can(policies.DETAIL_ALL_TENANTS if detail
                        else policies.INDEX_ALL_TENANTS)
        self.filters = self._filters(context)
        self.sort = self._sort(context)
        # As Nova: an empty marker is a marker no server has.
        self.marker = self.params.get('marker')
        limit = self.params.get('limit')
        self.limit = min(int(limit), CONF.api.max_limit) if limit else (
            CONF.api.max_limit)

    def _names(self, context):
        # Below 2.75 parameters Nova does not know are ignored (the
        # schema refuses them from 2.75).
        names = {name for name in self.params
                 if name in schema.NOVA_QUERY_PARAMETERS or
                 name.startswith('_')} - _NOT_FILTERS
        if context.can(policies.ALLOW_ALL_FILTERS, fatal=False):
            return names
        allowed = set()
        for version, filters in _MEMBER_FILTERS:
            if self.version >= _V(version):
                allowed.update(filters)
        return names & allowed

    def _filters(self, context):
        names = self._names(context)
        for name in sorted(names):
            if name in _JOINED or name.startswith('_'):
                raise exception.Invalid('Invalid filter field: %s.' % name)
            if name not in _MATCHERS and name != 'status':
                raise exception.Invalid(
                    'nova_mini cannot filter servers by %s: its servers do '
                    'not keep what this Nova filter reads.' % name)
        if {'changes-since', 'changes-before'} <= names and _time(
                'changes-before', self.params['changes-before']) < _time(
                'changes-since', self.params['changes-since']):
            raise exception.Invalid('The value of changes-since must be '
                                    'less than or equal to changes-before.')
        filters = [_MATCHERS[name](name, self.params[name])
                   for name in sorted(names) if name != 'status']
        if self.all_tenants:
            project = self.params.get('project_id',
                                      self.params.get('tenant_id'))
            if project is not None:
                filters.append(_equal(lambda i: i.project_id)(
                    'project_id', project))
        if 'status' in names:
            filters.append(self._status_filter(context))
        return filters

    def _status_filter(self, context):
        statuses = {s.upper() for s in self.params.getall('status')}
        if not statuses <= STATUSES and self.version >= _V(
                versions.SERVER_STATUS_FILTER_CHECKED):
            raise exception.Invalid('Invalid status value')
        if statuses == {'DELETED'} and not context.is_admin:
            raise exception.Forbidden(
                'Only administrators may list deleted instances')
        # Below 2.38 statuses Nova does not know match no server.
        return lambda instance: instance.status in statuses

    def _sort(self, context):
        """[(key, direction)], Nova's tie-breaks included."""
        keys = [k.strip() for k in self.params.getall('sort_key')]
        dirs = [d.strip() for d in self.params.getall('sort_dir')]
        keys = keys or ['created_at']
        dirs = dirs or ['desc']
        ignored = set(schema.LEGACY_SORT_KEYS)
        if self.version < _V(versions.SERVER_LOCKED_REASON):
            ignored.add('locked')
        # As Nova: an ignored key takes the direction at its place along.
        for key in list(keys):
            index = keys.index(key)
            if key in ignored:
                if len(dirs) > index:
                    dirs.pop(index)
                keys.pop(index)
            elif key in _ADMIN_SORT_KEYS and not context.is_admin:
                raise exception.Forbidden(
                    'Only administrators can sort servers by %s' % key)
        for direction in dirs:
            if direction not in _DIRECTIONS:
                raise exception.Invalid(
                    "Unknown sort direction, must be 'desc' or 'asc'")
        if len(dirs) > len(keys):
            raise exception.Invalid(
                'Sort direction size exceeds sort key size')
        # Keys without a direction, and the tie-breaks, take the first.
        first = dirs[0] if dirs else 'desc'
        dirs += [first] * (len(keys) - len(dirs))
        sort = list(zip(keys, dirs))
        sort += [(key, first) for key, _dir in _DEFAULT_SORT
                 if key not in keys]
        return sort

    @property
    def selects(self):
        """Whether the list is more than the newest ``limit`` servers."""
        return bool(self.filters or self.marker is not None or
                    self.sort != _DEFAULT_SORT)

    def project_id(self, context):
        """The project whose servers are read (None: every project)."""
        return None if self.all_tenants else context.project_id

    def page(self, instances):
        """The servers of ``instances`` (every server the caller may list)
        on this page.
        """
        # As Nova: the page follows the marker's place in the order,
        # whether or not the marker passes the filters (it may have
        # changed since the previous page), so it is kept for the sort.
        chosen = [i for i in instances
                  if i.uuid == self.marker or
                  all(match(i) for match in self.filters)]
        # Stable sorts, last key first; None before any value, as SQL.
        for key, direction in reversed(self.sort):
            value = _SORT_KEYS[key]
            chosen.sort(key=lambda i: (value(i) is not None, value(i)),
                        reverse=direction == 'desc')
        if self.marker is not None:
            uuids = [i.uuid for i in chosen]
            if self.marker not in uuids:
                raise exception.MarkerNotFound(marker=self.marker)
            chosen = chosen[uuids.index(self.marker) + 1:]
        return chosen[:self.limit]

    def next_wanted(self, page):
        """Whether the page is full (Nova then links to the next one)."""
        return bool(page) and len(page) == self.limit
