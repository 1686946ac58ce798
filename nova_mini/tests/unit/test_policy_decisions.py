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

"""Remembered policy decisions (nova_mini.policy.Enforcer.allowed): the
same answers as oslo.policy, forgotten as soon as the rules change."""

import os

from oslo_policy import policy as oslo_policy
import pytest
import yaml

from nova_mini import context as nm_context
from nova_mini import exception
from nova_mini.policies.compute import flavor_extra_specs as specs_policies
from nova_mini.policies.compute import servers as server_policies
from nova_mini import policy


def _context(user, project, roles):
    return nm_context.RequestContext(user_id=user, project_id=project,
                                     roles=roles)


@pytest.fixture
def enforcer(conf, policy_reset):
    return policy.get_enforcer()


def test_a_decision_is_remembered_per_caller_and_target(enforcer):
    member = _context('demo', 'demo', ['member', 'reader'])
    other = _context('alt', 'alt', ['member', 'reader'])
    own = {'project_id': 'demo', 'user_id': 'demo'}
    assert enforcer.allowed(server_policies.SHOW, own, member)
    assert len(enforcer._decisions) == 1
    assert enforcer.allowed(server_policies.SHOW, own, member)
    assert len(enforcer._decisions) == 1
    # Another caller, the same target: decided on its own.
    assert not enforcer.allowed(server_policies.SHOW, own, other)
    assert len(enforcer._decisions) == 2
    # Roles are part of the key: a reader of the same project may not
    # delete what a member may.
    reader = _context('demo', 'demo', ['reader'])
    assert enforcer.allowed(server_policies.DELETE, own, member)
    assert not enforcer.allowed(server_policies.DELETE, own, reader)


def test_authorize_raises_as_before(enforcer):
    reader = _context('ro', 'ro', ['reader'])
    for _ in range(2):      # decided, then remembered
        with pytest.raises(exception.PolicyNotAuthorized) as caught:
            policy.authorize(reader, specs_policies.CREATE)
        assert caught.value.format_message() == (
            "Policy doesn't allow %s to be performed." % specs_policies.CREATE)


def test_unhashable_values_are_decided_every_time(enforcer):
    member = _context('demo', 'demo', ['member', 'reader'])
    target = {'project_id': 'demo', 'user_id': 'demo', 'tags': {'a': 1}}
    assert enforcer.allowed(server_policies.SHOW, target, member)
    assert enforcer._decisions == {}


def test_set_rules_forgets(enforcer):
    member = _context('demo', 'demo', ['member', 'reader'])
    own = {'project_id': 'demo', 'user_id': 'demo'}
    assert enforcer.allowed(server_policies.SHOW, own, member)
    enforcer.set_rules(oslo_policy.Rules.from_dict(
        {server_policies.SHOW: '!'}), overwrite=False, use_conf=False)
    assert enforcer._decisions == {}
    assert not enforcer.allowed(server_policies.SHOW, own, member)


def test_an_edited_policy_file_takes_effect(conf, policy_reset, tmp_path):
    path = tmp_path / 'policy.yaml'
    path.write_text(yaml.safe_dump({server_policies.SHOW: '@'}))
    conf.config(policy_file=str(path), group='oslo_policy')
    policy.reset()
    enforcer = policy.get_enforcer()
    enforcer.CHECK_INTERVAL = 0     # look at the file on every check
    nobody = _context('x', 'x', [])
    target = {'project_id': 'y', 'user_id': 'y'}
    assert enforcer.allowed(server_policies.SHOW, target, nobody)
    assert enforcer.allowed(server_policies.SHOW, target, nobody)
    path.write_text(yaml.safe_dump({server_policies.SHOW: '!'}))
    # oslo.policy notices the change by the file's mtime
    stat = path.stat()
    os.utime(path, (stat.st_atime + 5, stat.st_mtime + 5))
    assert not enforcer.allowed(server_policies.SHOW, target, nobody)


def test_credentials_key_reads_what_oslo_context_gives_policy():
    member = nm_context.RequestContext(
        user_id='demo', project_id='demo', roles=['member', 'reader'],
        user_domain_id='ud', project_domain_id='pd', domain_id='d',
        system_scope='all', is_admin_project=False,
        service_user_id='su', service_user_domain_id='sud',
        service_project_id='sp', service_project_domain_id='spd',
        service_roles=['service'])
    values = member.to_policy_values()
    # The names read directly are oslo.context's, in POLICY_VALUE_NAMES'
    # order, with the same values (lists as tuples).
    assert sorted(values) == sorted(policy.POLICY_VALUE_NAMES)
    assert policy._credentials_key(member) == tuple(
        tuple(values[name]) if isinstance(values[name], list)
        else values[name] for name in policy.POLICY_VALUE_NAMES)
    # Every value is part of the key.
    for name in policy.POLICY_VALUE_NAMES:
        other = nm_context.RequestContext.from_dict(member.to_dict())
        setattr(other, name, ['changed'] if name.endswith('roles')
                else 'changed')
        assert (policy._credentials_key(other)
                != policy._credentials_key(member)), name
    # A role added in place is seen at the next decision.
    member.roles.append('admin')
    assert 'admin' in policy._credentials_key(member)[
        policy.POLICY_VALUE_NAMES.index('roles')]


class _ExtraValuesContext(nm_context.RequestContext):

    def to_policy_values(self):
        values = super().to_policy_values()
        values['color'] = 'blue'
        return values


def test_a_context_with_its_own_policy_values_is_keyed_on_them(enforcer):
    context = _ExtraValuesContext(user_id='demo', project_id='demo',
                                  roles=['member', 'reader'])
    assert policy._credentials_key(context) == policy._frozen(
        context.to_policy_values())
    own = {'project_id': 'demo', 'user_id': 'demo'}
    plain = _context('demo', 'demo', ['member', 'reader'])
    assert enforcer.allowed(server_policies.SHOW, own, context)
    assert enforcer.allowed(server_policies.SHOW, own, plain)
    assert len(enforcer._decisions) == 2


def test_unhashable_credentials_are_decided_every_time(enforcer):
    member = _context('demo', 'demo', ['member', 'reader'])
    member.service_user_id = {'not': 'hashable'}
    own = {'project_id': 'demo', 'user_id': 'demo'}
    assert enforcer.allowed(server_policies.SHOW, own, member)
    assert enforcer._decisions == {}
