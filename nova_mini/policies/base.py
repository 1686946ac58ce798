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

"""Rules the resource policies are built from (named as in Nova, so an
operator's Nova policy overrides read the same here)."""

from oslo_policy import policy

ADMIN = 'rule:context_is_admin'
ANY = '@'
PROJECT_READER_OR_ADMIN = 'rule:project_reader_or_admin'
PROJECT_MEMBER_OR_ADMIN = 'rule:project_member_or_admin'

rules = [
    policy.RuleDefault('context_is_admin', 'role:admin',
                       'Decides who is an administrator.'),
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
]


def list_rules():
    return rules
