"""Client side of the scheduler RPC API.

API version history:

* 1.0 - Initial version: ``ping``.
"""

import oslo_messaging as messaging

from nova_mini import conf
from nova_mini import rpc

CONF = conf.CONF

TOPIC = 'scheduler'
VERSION = '1.0'


class SchedulerAPI(object):
    """Calls to the scheduler, capped by ``[upgrade_levels] scheduler``."""

    def __init__(self, conf=CONF):
        target = messaging.Target(topic=TOPIC, version=VERSION)
        self.client = rpc.get_client(
            conf, target, version_cap=conf.upgrade_levels.scheduler)

    def ping(self, ctxt, timeout=None):
        """Ask any scheduler for its host and version (a health check)."""
        cctxt = self.client.prepare(version='1.0', timeout=timeout)
        return cctxt.call(ctxt, 'ping')
