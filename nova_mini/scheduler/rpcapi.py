"""Client side of the scheduler RPC API.

API version history:

* 1.0 - Initial version: ``ping``.
* 1.1 - ``select_destinations`` and ``claim_destinations`` (RequestSpec
  in, Selections out).
"""

import oslo_messaging as messaging

from nova_mini import conf
from nova_mini import exception
from nova_mini import rpc

CONF = conf.CONF

TOPIC = 'scheduler'
VERSION = '1.1'


class SchedulerAPI(object):
    """Calls to the scheduler, capped by ``[upgrade_levels] scheduler``."""

    def __init__(self, conf=CONF):
        target = messaging.Target(topic=TOPIC, version=VERSION)
        self.cap = conf.upgrade_levels.scheduler
        self.client = rpc.get_client(conf, target, version_cap=self.cap)

    def _prepare(self, version, timeout):
        if not self.client.can_send_version(version):
            raise exception.RPCVersionCapped(api='scheduler',
                                             version=version, cap=self.cap)
        return self.client.prepare(version=version, timeout=timeout)

    def ping(self, ctxt, timeout=None):
        """Ask any scheduler for its host and version (a health check)."""
        cctxt = self.client.prepare(version='1.0', timeout=timeout)
        return cctxt.call(ctxt, 'ping')

    def select_destinations(self, ctxt, spec_obj, instance_uuids,
                            return_alternates=False, timeout=None):
        """One list of Selections per instance (chosen node first, then
        alternates); nothing is claimed. Raises NoValidHost.
        """
        cctxt = self._prepare('1.1', timeout)
        return cctxt.call(ctxt, 'select_destinations', spec_obj=spec_obj,
                          instance_uuids=instance_uuids,
                          return_alternates=return_alternates)

    def claim_destinations(self, ctxt, spec_obj, instance_uuids,
                           timeout=None):
        """Select and atomically claim one node per instance; one Selection
        per instance. Raises NoValidHost (and then claims nothing).
        """
        cctxt = self._prepare('1.1', timeout)
        return cctxt.call(ctxt, 'claim_destinations', spec_obj=spec_obj,
                          instance_uuids=instance_uuids)
