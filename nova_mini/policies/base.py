"""Rules the resource policies are built from."""

from oslo_policy import policy

ADMIN = 'rule:context_is_admin'
ANY = '@'
# Roles, as Keystone's default roles: admin implies member implies reader.
PROJECT_READER_OR_ADMIN = 'rule:context_is_admin or role:reader'

rules = [
    policy.RuleDefault('context_is_admin', 'role:admin',
                       'Decides who is an administrator.'),
]


def list_rules():
    return rules
