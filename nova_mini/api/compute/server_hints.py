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

"""The scheduler hints of a server create: honoured, or refused with a 400
before anything is written.

A hint is honoured by the scheduler filter that reads it (see
nova_mini/scheduler/filters/affinity.py): ``same_host`` by the
SameHostFilter, ``different_host`` by the DifferentHostFilter, ``group``
by the filter of the group's policy (ServerGroupAffinityFilter,
ServerGroupAntiAffinityFilter; the soft policies are preferences Nova's
weighers follow, which never constrain here, a node holding one server).
The API reads ``[filter_scheduler] enabled_filters`` of its own
configuration, which must therefore match the schedulers'. A hint no
enabled filter reads is refused (Nova accepts and ignores it). An
empty value (``[]``) asks nothing and is dropped.
"""

import functools

from nova_mini import conf
from nova_mini import exception
from nova_mini import objects
from nova_mini.scheduler import filters
from nova_mini.scheduler.filters import affinity

CONF = conf.CONF


@functools.lru_cache(maxsize=8)
def _hints_read(enabled):
    return filters.hints_read(list(enabled))


def _not_enabled(what, filter_name):
    return exception.Invalid(
        '%s cannot be honoured: the %s is not enabled in this cloud '
        '([filter_scheduler] enabled_filters). Boot without it, or ask '
        'the operator to enable the filter.' % (what, filter_name))


def hints_of(req_body):
    """Return the create body's scheduler hints as lists of strings,
    without the empty ones.

    :param req_body: the request body (schema-checked).
    :returns: ``{hint: [value, ...]}``.
    """
    hints = (req_body.get('os:scheduler_hints') or
             req_body.get('OS-SCH-HNT:scheduler_hints') or {})
    result = {}
    for key, value in hints.items():
        values = value if isinstance(value, list) else [value]
        if values:
            result[key] = values
    return result


def _get_group(context, uuids):
    if len(uuids) > 1:
        raise exception.Invalid(
            'The group hint names %d server groups; a server joins one.'
            % len(uuids))
    try:
        group = objects.ServerGroup.get_by_uuid(context, uuids[0])
    except exception.ServerGroupNotFound as exc:
        raise exception.Invalid(exc.format_message())
    if group.project_id != context.project_id and not context.is_admin:
        # As if it did not exist: another project's group stays unseen.
        raise exception.Invalid(exception.ServerGroupNotFound(
            group_uuid=uuids[0]).format_message())
    return group


def check(context, hints):
    """Check that every hint will be honoured, and load the group the
    ``group`` hint names.

    :param context: the request context.
    :param hints: ``{hint: [value, ...]}`` (see ``hints_of``).
    :returns: the ServerGroup of the ``group`` hint, or None.
    :raises nova_mini.exception.Invalid: a hint whose filter is not
        enabled, an unknown hint, or a group that does not exist or is
        another project's.
    """
    enabled = tuple(CONF.filter_scheduler.enabled_filters)
    group = None
    for key in sorted(hints):
        if key == 'group':
            group = _get_group(context, hints[key])
            filter_name = affinity.FILTER_OF_POLICY.get(group.policy)
            if filter_name and filter_name not in enabled:
                raise _not_enabled(
                    'The group hint (a server group of policy %s)'
                    % group.policy, filter_name)
        elif key in affinity.FILTER_OF_HINT:
            if affinity.FILTER_OF_HINT[key] not in enabled:
                raise _not_enabled('The %s hint' % key,
                                   affinity.FILTER_OF_HINT[key])
        elif key not in _hints_read(enabled):
            raise exception.Invalid(
                'The scheduler hint %s cannot be honoured: no scheduler '
                'filter enabled in this cloud reads it. Boot without it.'
                % key)
    return group
