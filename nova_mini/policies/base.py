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

"""Rules the resource policies are built from.

Two families, as in the services nova_mini stands in for:

- /compute/v2.1 follows Nova: its rules are project scoped, and an
  administrator is a caller with the ``admin`` role (``ADMIN``,
  ``PROJECT_*_OR_ADMIN``; Nova's rule names, so an operator's Nova policy
  overrides read the same here).
- /baremetal/v1 follows Ironic's secure RBAC: the cloud's administrator is
  a *system*-scoped one (``SYSTEM_ADMIN``, ``SYSTEM_READER``); a project's
  administrator only has its project's rights on what the project owns or
  leases.

The system rules replace "any project's admin" of earlier releases; with
``[oslo_policy] enforce_new_defaults = False`` oslo.policy accepts that
old check string too (see doc/source/admin/policy.rst).
"""

from oslo_policy import policy

# Nova's administrator: the admin role, in any project.
ADMIN = 'rule:context_is_admin'
ANY = '@'
PROJECT_READER_OR_ADMIN = 'rule:project_reader_or_admin'
PROJECT_MEMBER_OR_ADMIN = 'rule:project_member_or_admin'

# Ironic's personas for /baremetal/v1.
SYSTEM_ADMIN = 'rule:system_admin_api'
SYSTEM_READER = 'rule:system_reader_api'
# An object owned by a project (its target's ``project_id``): the system,
# or that project (allocations).
SYSTEM_OR_PROJECT_READER = 'rule:system_or_project_reader'
SYSTEM_ADMIN_OR_PROJECT_MEMBER = 'rule:system_admin_or_project_member'

# The scope types of the rules of each API (oslo.policy refuses a token of
# another scope before looking at the check string): Nova 34 dropped
# system scope from its APIs, Ironic takes both.
COMPUTE_SCOPE_TYPES = ['project']
BAREMETAL_SCOPE_TYPES = ['system', 'project']

_LEGACY_ADMIN = 'role:admin'
_DEPRECATED_REASON = (
    'An administrator of any project was an administrator of the whole '
    'bare-metal service. Ironic\'s secure RBAC defaults give that power to '
    'system-scoped tokens only; a project\'s administrator keeps the '
    'rights of its project on the nodes it owns or leases.')
_DEPRECATED_SINCE = '2026.2'


def _legacy(name):
    return policy.DeprecatedRule(name=name, check_str=_LEGACY_ADMIN,
                                 deprecated_reason=_DEPRECATED_REASON,
                                 deprecated_since=_DEPRECATED_SINCE)


rules = [
    policy.RuleDefault('context_is_admin', _LEGACY_ADMIN,
                       'Decides who is an administrator of the compute '
                       'API (and of the request context\'s is_admin).'),
    policy.RuleDefault('project_reader_api',
                       'role:reader and project_id:%(project_id)s',
                       'A reader of the project that owns the target.'),
    policy.RuleDefault('project_reader_or_admin',
                       'rule:project_reader_api or rule:context_is_admin',
                       'A reader of the owning project, or an '
                       'administrator.'),
    policy.RuleDefault('project_member_api',
                       'role:member and project_id:%(project_id)s',
                       'A member of the project that owns the target.'),
    policy.RuleDefault('project_member_or_admin',
                       'rule:project_member_api or rule:context_is_admin',
                       'A member of the owning project, or an '
                       'administrator.'),
    policy.RuleDefault('system_admin_api', 'role:admin and system_scope:all',
                       'An administrator of the bare-metal service: the '
                       'admin role on a system-scoped token.',
                       deprecated_rule=_legacy('system_admin_api')),
    policy.RuleDefault('system_reader_api',
                       'role:reader and system_scope:all',
                       'A reader of everything in the bare-metal service: '
                       'the reader role on a system-scoped token.',
                       deprecated_rule=_legacy('system_reader_api')),
    policy.RuleDefault('system_or_project_reader',
                       'rule:system_reader_api or rule:project_reader_api',
                       'A system reader, or a reader of the project that '
                       'owns the target.'),
    policy.RuleDefault('system_admin_or_project_member',
                       'rule:system_admin_api or rule:project_member_api',
                       'A system administrator, or a member of the '
                       'project that owns the target.'),
]


def list_rules():
    return rules
