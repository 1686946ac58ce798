"""Server side of the scheduler RPC API (see rpcapi for the history)."""

import oslo_messaging as messaging

from nova_mini.scheduler import rpcapi
from nova_mini import version


class SchedulerManager(object):
    target = messaging.Target(version=rpcapi.VERSION)

    def __init__(self, host):
        self.host = host

    def ping(self, ctxt):
        return {'host': self.host, 'version': version.version_string(),
                'rpc_api_version': rpcapi.VERSION}
