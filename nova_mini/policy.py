"""The policy enforcer shared by the API handlers."""

import threading

from oslo_policy import policy as oslo_policy

from nova_mini import conf
from nova_mini import exception
from nova_mini import policies

CONF = conf.CONF
_ENFORCER = None
_LOCK = threading.Lock()


def get_enforcer():
    """The enforcer (also the oslo.policy.enforcer entry point)."""
    global _ENFORCER
    if _ENFORCER is None:
        with _LOCK:
            if _ENFORCER is None:
                enforcer = oslo_policy.Enforcer(CONF)
                enforcer.register_defaults(policies.list_rules())
                _ENFORCER = enforcer
    return _ENFORCER


def reset():
    global _ENFORCER
    with _LOCK:
        if _ENFORCER is not None:
            _ENFORCER.clear()
        _ENFORCER = None


def authorize(context, action, target=None):
    target = target or {'project_id': context.project_id,
                        'user_id': context.user_id}
    return get_enforcer().authorize(action, target, context, do_raise=True,
                                    exc=exception.PolicyNotAuthorized,
                                    action=action)


def check_is_admin(context):
    return get_enforcer().authorize('context_is_admin', {}, context)
