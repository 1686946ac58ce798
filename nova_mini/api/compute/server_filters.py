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

"""The query of a server list, as Nova 34 reads it: which filters a caller
may use, how they match, the sort order and the page.

The query is checked here, with Nova's messages, and becomes the filters
and sort keys of nova_mini.objects.compute.instance_filters: the database
filters, sorts and pages (InstanceList.get_by_filters).
"""

from oslo_utils import strutils
from oslo_utils import timeutils

from nova_mini.api.compute.schemas import servers as schema
from nova_mini.api.compute import versions
from nova_mini.api.compute.views import servers as server_views
from nova_mini.api import pagination
from nova_mini import exception
from nova_mini.objects.compute import instance as instance_obj
from nova_mini.objects.compute import instance_filters
from nova_mini.policies.compute import servers as policies


# Every server status of Nova: from 2.38 any other is a bad filter.
STATUSES = frozenset([
    'ACTIVE', 'BUILD', 'DELETED', 'ERROR', 'HARD_REBOOT', 'MIGRATING',
    'PASSWORD', 'PAUSED', 'REBOOT', 'REBUILD', 'RESCUE', 'RESIZE',
    'REVERT_RESIZE', 'SHELVED', 'SHELVED_OFFLOADED', 'SHUTOFF',
    'SOFT_DELETED', 'SUSPENDED', 'UNKNOWN', 'VERIFY_RESIZE'])

# The filters of a caller without the allow_all_filters policy, from the
# version that allowed each; Nova ignores the others for them.
_MEMBER_FILTERS = (
    (versions.BASE, ('reservation_id', 'name', 'status', 'image', 'flavor',
                     'ip', 'changes-since', 'all_tenants')),
    (versions.SERVER_IP6_FILTER, ('ip6',)),
    (versions.SERVER_TAGS, ('tags', 'tags-any', 'not-tags',
                            'not-tags-any')),
    (versions.SERVER_CHANGES_BEFORE_FILTER, ('changes-before',)),
    (versions.SERVER_LOCKED_REASON, ('locked',)),
    (versions.SERVER_MORE_FILTERS, (
        'availability_zone', 'config_drive', 'key_name', 'created_at',
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

# The most tags a tag filter lists (a server has at most schema.MAX_TAGS).
MAX_FILTER_TAGS = 100
# The tag filters asking for all of their tags: a server cannot have more
# than schema.MAX_TAGS, so a longer list matches no server (True) or
# every server (False: lacks at least one of them).
_ALL_OF_TAGS = {'tags': True, 'not_tags': False}


def _regex(column):
    """Return a filter matching ``column`` with a regular expression."""
    def add(filters, name, value):
        filters.setdefault('regex', []).append(
            (column, instance_filters.check_pattern(name, value)))
    return add


def _equal(key):
    def add(filters, name, value):
        if filters.get(key, value) != value:
            # Two filters asking different values of one field.
            filters['nothing'] = True
        filters[key] = value
    return add


def _nothing_if(test):
    """Return a filter no server passes when ``test(value)`` is true."""
    def add(filters, name, value):
        if test(value):
            filters['nothing'] = True
    return add


def _vm_states(filters, states):
    filters.setdefault('vm_states', []).append(frozenset(states))


def _parse_time(name, value):
    try:
        return timeutils.normalize_time(timeutils.parse_isotime(value))
    except ValueError:
        raise exception.Invalid('Invalid filter field: %s.' % name)


def _changed(key):
    def add(filters, name, value):
        filters[key] = _parse_time(name, value)
    return add


def _parse_strict_bool(value):
    try:
        return strutils.bool_from_string(value, strict=True)
    except ValueError as exc:
        raise exception.Invalid(str(exc))


def _tags(key):
    """Return a tag filter; the value is a comma-separated list, as in
    Nova, of at most MAX_FILTER_TAGS tags.
    """
    def add(filters, name, value):
        tags = value.split(',')
        if len(tags) > MAX_FILTER_TAGS:
            raise exception.TooManyFilterValues(
                what='tags', name=name, limit=MAX_FILTER_TAGS)
        tags = frozenset(tags)
        if len(tags) > schema.MAX_TAGS and key in _ALL_OF_TAGS:
            # No server has them all (nor lacks none of them).
            if _ALL_OF_TAGS[key]:
                filters['nothing'] = True
            return
        filters[key] = tags
    return add


def _task_state(filters, name, value):
    # As the server view shows it: scheduling while building, else none.
    _vm_states(filters, [instance_obj.BUILDING] if value == 'scheduling'
               else [])


def _power_state(filters, name, value):
    # As the server view shows it: running when active, shut down when
    # stopped, else no state.
    if value == str(server_views.RUNNING):
        _vm_states(filters, [instance_obj.ACTIVE])
    elif value == str(server_views.SHUTDOWN):
        _vm_states(filters, [instance_obj.STOPPED])
    elif value == str(server_views.NOSTATE):
        filters.setdefault('not_vm_states', []).append(
            frozenset([instance_obj.ACTIVE, instance_obj.STOPPED]))
    else:
        _vm_states(filters, [])


def _locked(filters, name, value):
    filters['locked'] = _parse_strict_bool(value)


def _config_drive(filters, name, value):
    # Matched against the flag as Nova keeps it: the text 'True' or ''.
    allowed = instance_filters.config_drive_flags(name, value)
    filters['config_drive'] = frozenset(
        allowed & filters.get('config_drive', allowed))


# filter -> add(filters, name, value), which checks the value (the last
# one given, as Nova) and adds what it asks to the filters of
# objects.compute.instance_filters.
_FILTERS = {
    'name': _regex('name'),
    'display_name': _regex('name'),
    'hostname': _regex('hostname'),
    'node': _regex('node_uuid'),
    'flavor': _equal('flavorid'),
    'image': _equal('image_ref'),
    'image_ref': _equal('image_ref'),
    'uuid': _equal('uuid'),
    'user_id': _equal('user_id'),
    'vm_state': _equal('vm_state'),
    'task_state': _task_state,
    'power_state': _power_state,
    'locked': _locked,
    # Deleted servers are gone at once: none is ever "deleted" (Nova reads
    # a value it does not know as false).
    'deleted': _nothing_if(strutils.bool_from_string),
    # Only says whether deleted servers include soft-deleted ones.
    'soft_deleted': lambda filters, name, value: None,
    'description': _regex('description'),
    'display_description': _regex('description'),
    'access_ip_v4': _regex('access_ip_v4'),
    'access_ip_v6': _regex('access_ip_v6'),
    'config_drive': _config_drive,
    'launch_index': _regex('launch_index'),
    'key_name': _regex('key_name'),
    'tags': _tags('tags'),
    'tags-any': _tags('tags_any'),
    'not-tags': _tags('not_tags'),
    'not-tags-any': _tags('not_tags_any'),
    'changes-since': _changed('changes_since'),
    'changes-before': _changed('changes_before'),
}

# Sort keys every nova_mini server shows the same value of: they leave
# the order to the next keys.
_CONSTANT_SORT_KEYS = frozenset(schema.SORT_KEYS) - frozenset([
    'created_at', 'updated_at', 'display_name', 'hostname', 'uuid',
    'vm_state', 'task_state', 'power_state', 'project_id', 'user_id',
    'image_ref', 'instance_type_id', 'launched_at', 'display_description',
    'access_ip_v4', 'access_ip_v6', 'config_drive', 'launch_index', 'node'])

# sort_key -> the key of objects.compute.instance_filters sorting as the server
# view shows the field (the others: the column of the same name).
_SORT_COLUMNS = {
    'display_name': 'name',
    'display_description': 'description',
    'instance_type_id': 'flavorid',
    'node': 'node_uuid',
    # None (not building) before 'scheduling'.
    'task_state': ('vm_state', instance_obj.BUILDING),
    # NOSTATE before RUNNING (active).
    'power_state': ('vm_state', instance_obj.ACTIVE),
}

# The order of a list that asks none, as the database reads it.
_DEFAULT_SORT = [('created_at', 'desc'), ('id', 'desc')]


def all_tenants(params):
    """Return whether the query asks for every project (``all_tenants``;
    an empty value asks for it, as in Nova).

    :param params: the query parameters.
    :raises nova_mini.exception.Invalid: a value that is not a boolean.
    """
    if 'all_tenants' not in params:
        return False
    if not params['all_tenants']:
        return True
    return _parse_strict_bool(params['all_tenants'])


class ServerQuery(object):
    """The filters, order and page of one list request.

    :param req: the request (its query and version).
    :param context: the request context (its project and policies).
    :param detail: whether the list is /servers/detail (its own policy
        for every project).
    :raises nova_mini.exception.Invalid: a filter, sort or page Nova
        refuses, or one nova_mini cannot honour.
    :raises nova_mini.exception.Forbidden: a filter or sort key only
        administrators may use.
    """

    def __init__(self, req, context, detail=False):
        self.req = req
        self.params = req.GET
        self.all_tenants = all_tenants(self.params)
        if self.all_tenants:
            context.can(policies.DETAIL_ALL_TENANTS if detail
                        else policies.INDEX_ALL_TENANTS)
        self.filters = self._filters(context)
        self.sort = self._sort(context)
        # As Nova: an empty marker is a marker no server has.
        self.marker = self.params.get('marker')
        # The schema has checked it: a number of digits.
        self.limit = pagination.limit(req)

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
            if self.req.since(version):
                allowed.update(filters)
        return names & allowed

    def _filters(self, context):
        names = self._names(context)
        for name in sorted(names):
            if name in _JOINED or name.startswith('_'):
                raise exception.Invalid('Invalid filter field: %s.' % name)
            if name not in _FILTERS and name != 'status':
                raise exception.Invalid(
                    'nova_mini cannot filter servers by %s: its servers do '
                    'not keep what this Nova filter reads.' % name)
        if {'changes-since', 'changes-before'} <= names and _parse_time(
                'changes-before', self.params['changes-before']) < _parse_time(
                'changes-since', self.params['changes-since']):
            raise exception.Invalid('The value of changes-since must be '
                                    'less than or equal to changes-before.')
        filters = {}
        for name in sorted(names - {'status'}):
            _FILTERS[name](filters, name, self.params[name])
        if self.all_tenants:
            project = self.params.get('project_id',
                                      self.params.get('tenant_id'))
            if project is not None:
                filters['owner'] = project
        else:
            filters['project_id'] = context.project_id
        if 'status' in names:
            self._status_filter(context, filters)
        return filters

    def _status_filter(self, context, filters):
        statuses = {s.upper() for s in self.params.getall('status')}
        if (not statuses <= STATUSES and
                self.req.since(versions.SERVER_STATUS_FILTER_CHECKED)):
            raise exception.Invalid('Invalid status value')
        if statuses == {'DELETED'} and not context.is_admin:
            raise exception.Forbidden(
                'Only administrators may list deleted instances')
        # Below 2.38 statuses Nova does not know match no server.
        states = {state for state, status in instance_obj.STATUS.items()
                  if status in statuses}
        if 'UNKNOWN' in statuses:
            # Any vm_state the API has no status for.
            filters.setdefault('not_vm_states', []).append(
                frozenset(instance_obj.STATUS) - states)
        else:
            _vm_states(filters, states)

    def _sort(self, context):
        """Return ``[(key, direction)]``, Nova's tie-breaks included."""
        keys = [k.strip() for k in self.params.getall('sort_key')]
        dirs = [d.strip() for d in self.params.getall('sort_dir')]
        keys = keys or ['created_at']
        dirs = dirs or ['desc']
        ignored = set(schema.LEGACY_SORT_KEYS)
        if not self.req.since(versions.SERVER_LOCKED_REASON):
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
        # NOTE: a key again orders nothing more, and each one makes the
        # marker's condition grow as the square of their number (500
        # repeats held SQLite for minutes): the first of each is kept.
        found = []
        for key, direction in sort:
            column = _SORT_COLUMNS.get(key, key)
            if key not in _CONSTANT_SORT_KEYS and column not in [
                    kept for kept, _dir in found]:
                found.append((column, direction))
        return found

    def project_id(self, context):
        """Return the project whose servers are read.

        :param context: the request context.
        :returns: a project id, or None for every project.
        """
        return None if self.all_tenants else context.project_id

    def next_wanted(self, page):
        """Return whether the page is full (Nova then links to the next
        one).

        :param page: the instances of the page.
        :returns: a bool.
        """
        return bool(page) and len(page) == self.limit
