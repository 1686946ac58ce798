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

"""The policy enforcer shared by the API handlers."""

import operator
import threading
import time

from oslo_context import context as oslo_context
from oslo_policy import policy as oslo_policy

from nova_mini import conf
from nova_mini import exception
from nova_mini import policies

CONF = conf.CONF
_ENFORCER = None
_LOCK = threading.Lock()


class Enforcer(oslo_policy.Enforcer):
    """oslo.policy's enforcer, looking for changed policy files at most
    once a second rather than on every check, and remembering decisions
    while the rules stay the same.

    oslo.policy searches the config directories for the policy file and
    policy.d (about ten stat calls) before every check: with several
    checks per request that was a tenth of a simple request's time. An
    edited policy file still takes effect without a restart, within a
    second. Registering, setting or clearing rules looks again at once.

    A decision depends only on the rules, the action, the target and the
    caller's credentials (nova_mini's rules are roles, rule references and
    comparisons of target and credential values: no external checks), and
    evaluating it costs more than a GET of a flavor's own work (oslo.policy
    inspects each check's signature on every call). So ``allowed``
    remembers it, keyed on those values, and forgets everything when the
    rules change.
    """

    CHECK_INTERVAL = 1.0
    # Distinct (action, target, credentials) remembered; a project's
    # callers times its targets stays far below in a deployment, and past
    # it the cache starts again rather than growing.
    MAX_DECISIONS = 10000
    _next_check = 0.0

    def __init__(self, *args, **kwargs):
        self._decisions = {}
        self._rules_seen = None
        super().__init__(*args, **kwargs)

    def load_rules(self, force_reload=False):
        now = time.monotonic()
        if force_reload or now >= self._next_check:
            super().load_rules(force_reload)
            self._next_check = now + self.CHECK_INTERVAL
            # The rules may change without set_rules (policy.d reloads
            # assign them, defaults are added): compare what is in force.
            rules = dict(self.rules)
            if rules != self._rules_seen:
                self._rules_seen = rules
                self._decisions = {}

    def register_default(self, default):
        super().register_default(default)
        self._next_check = 0.0

    def set_rules(self, *args, **kwargs):
        super().set_rules(*args, **kwargs)
        self._next_check = 0.0      # (clear() comes here too)
        self._decisions = {}

    def allowed(self, action, target, context):
        """Return whether policy allows ``action`` on ``target``.

        Decisions are remembered per action, target and caller until the
        rules change.

        :param action: a registered rule name.
        :param target: a dict of the object's attributes.
        :param context: the caller's RequestContext.
        :returns: a bool.
        :raises oslo_policy.policy.PolicyNotRegistered: unknown action.
        """
        self.load_rules()
        key = _decision_key(action, target, context)
        decisions = self._decisions
        decision = decisions.get(key) if key is not None else None
        if decision is None:
            decision = bool(self.authorize(action, target, context))
            if key is not None:
                if len(decisions) >= self.MAX_DECISIONS:
                    decisions.clear()
                decisions[key] = decision
        return decision


def _decision_key(action, target, context):
    """A hashable key of everything a decision depends on, or None when a
    value cannot be one (the decision is then not remembered).
    """
    try:
        key = (action, _frozen(target), _credentials_key(context))
        hash(key)
    except TypeError:
        return None
    return key


def _frozen(values):
    return frozenset(
        (name, tuple(value) if isinstance(value, list) else value)
        for name, value in values.items())


# What oslo.context's RequestContext.to_policy_values answers: these
# attributes, under their own names (test_policy_decisions checks it).
POLICY_VALUE_NAMES = (
    'user_id', 'user_domain_id', 'system_scope', 'domain_id', 'project_id',
    'project_domain_id', 'roles', 'is_admin_project', 'service_user_id',
    'service_user_domain_id', 'service_project_id',
    'service_project_domain_id', 'service_roles')
_policy_values = operator.attrgetter(*POLICY_VALUE_NAMES)
_OSLO_TO_POLICY_VALUES = oslo_context.RequestContext.to_policy_values


def _credentials_key(context):
    """The caller's policy values as a hashable key.

    A context whose class keeps oslo.context's ``to_policy_values`` has
    exactly the attributes of POLICY_VALUE_NAMES as its values: they are
    read directly, in that order, a tuple (oslo.context wraps them in a
    mapping whose every item goes through Python-level accessors: 5 % of
    a small write's CPU, twice per request). Any other context's
    ``to_policy_values()`` is frozen as it is. Either way a list (roles)
    becomes a tuple; the two kinds of key never equal each other.
    """
    if type(context).to_policy_values is _OSLO_TO_POLICY_VALUES:
        return tuple([tuple(value) if isinstance(value, list) else value
                      for value in _policy_values(context)])
    return _frozen(context.to_policy_values())


def get_enforcer():
    """Return the process's enforcer, built on first use.

    It is also the ``oslo.policy.enforcer`` entry point.

    :returns: an Enforcer with the rules of nova_mini.policies.
    """
    global _ENFORCER
    if _ENFORCER is None:
        with _LOCK:
            if _ENFORCER is None:
                enforcer = Enforcer(CONF)
                enforcer.register_defaults(policies.list_rules())
                _ENFORCER = enforcer
    return _ENFORCER


def reset():
    """Drop the enforcer, so that the next use loads the rules again."""
    global _ENFORCER
    with _LOCK:
        if _ENFORCER is not None:
            _ENFORCER.clear()
        _ENFORCER = None


def own_target(context):
    """Return the target of something the caller's own project and user
    own: for the rules a caller passes on its own behalf (listing its
    servers, creating one).

    :param context: the caller's RequestContext.
    :returns: a dict of ``project_id`` and ``user_id``.
    """
    return {'project_id': context.project_id, 'user_id': context.user_id}


def _checked_target(target):
    # NOTE: a missing target is no one's: it never stands for the caller's
    # own project (a handler that forgot its object's owner would pass
    # every project rule), and an attribute that is None matches nobody
    # (oslo.policy compares text, so a project-less caller's "None" would
    # equal a project-less object's).
    return {name: value for name, value in (target or {}).items()
            if value is not None}


def authorize(context, action, target=None):
    """Raise PolicyNotAuthorized unless policy allows ``action``.

    :param context: the caller's RequestContext.
    :param action: a registered rule name.
    :param target: the object's attributes (``own_target`` for the
        caller's own); None or empty is nobody's, so that no project or
        user rule matches it. Attributes that are None are left out.
    :returns: True.
    :raises nova_mini.exception.PolicyNotAuthorized: not allowed.
    """
    if not get_enforcer().allowed(action, _checked_target(target), context):
        raise exception.PolicyNotAuthorized(action=action)
    return True


def check_is_admin(context):
    """Return whether ``context`` passes the ``context_is_admin`` rule.

    :param context: a RequestContext.
    :returns: a bool.
    """
    return get_enforcer().allowed('context_is_admin', {}, context)
