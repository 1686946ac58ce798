"""Policies of a bare-metal node's traits, with Ironic's names."""

from oslo_policy import policy

from nova_mini.policies import base

PREFIX = 'baremetal:node:traits:'
LIST = PREFIX + 'list'
SET = PREFIX + 'set'
DELETE = PREFIX + 'delete'

_PATH = '/nodes/{node_ident}/traits'

rules = [
    policy.DocumentedRuleDefault(
        name=LIST, check_str=base.PROJECT_READER_OR_ADMIN,
        description='List the traits of a node.',
        operations=[{'method': 'GET', 'path': _PATH}]),
    policy.DocumentedRuleDefault(
        name=SET, check_str=base.ADMIN,
        description='Replace the traits of a node, or add one.',
        operations=[{'method': 'PUT', 'path': _PATH},
                    {'method': 'PUT', 'path': _PATH + '/{trait}'}]),
    policy.DocumentedRuleDefault(
        name=DELETE, check_str=base.ADMIN,
        description='Remove one or all traits of a node.',
        operations=[{'method': 'DELETE', 'path': _PATH},
                    {'method': 'DELETE', 'path': _PATH + '/{trait}'}]),
]


def list_rules():
    return rules
