"""The policy enforcer shared by the API handlers."""

import threading
import time

from oslo_policy import policy as oslo_policy

from nova_mini import conf
from nova_mini import exception
from nova_mini import policies

CONF = conf.CONF
_ENFORCER = None
_LOCK = threading.Lock()


class Enforcer(oslo_policy.Enforcer):
    """oslo.policy's enforcer, looking for changed policy files at most
    once a second rather than on every check.

    oslo.policy searches the config directories for the policy file and
    policy.d (about ten stat calls) before every check: with several
    checks per request that was a tenth of a simple request's time. An
    edited policy file still takes effect without a restart, within a
    second. Registering, setting or clearing rules looks again at once.
    """

    CHECK_INTERVAL = 1.0
    _next_check = 0.0

    def load_rules(self, force_reload=False):
        now = time.monotonic()
        if force_reload or now >= self._next_check:
            super().load_rules(force_reload)
            self._next_check = now + self.CHECK_INTERVAL

    def register_default(self, default):
        super().register_default(default)
        self._next_check = 0.0

    def set_rules(self, *args, **kwargs):
        super().set_rules(*args, **kwargs)
        self._next_check = 0.0      # (clear() comes here too)


def get_enforcer():
    """The enforcer (also the oslo.policy.enforcer entry point)."""
    global _ENFORCER
    if _ENFORCER is None:
        with _LOCK:
            if _ENFORCER is None:
                enforcer = Enforcer(CONF)
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
