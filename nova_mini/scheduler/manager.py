"""Server side of the scheduler RPC API (see rpcapi for the history)."""

from oslo_log import log as logging
import oslo_messaging as messaging

from nova_mini import conf
from nova_mini import exception
from nova_mini.scheduler import filter_scheduler
from nova_mini.scheduler import rpcapi
from nova_mini import version

LOG = logging.getLogger(__name__)


class SchedulerManager(object):
    target = messaging.Target(version=rpcapi.VERSION)

    def __init__(self, host, conf=conf.CONF):
        self.host = host
        self.driver = filter_scheduler.FilterScheduler(conf)

    def ping(self, ctxt):
        return {'host': self.host, 'version': version.version_string(),
                'rpc_api_version': rpcapi.VERSION}

    @messaging.expected_exceptions(exception.NoValidHost)
    def select_destinations(self, ctxt, spec_obj, instance_uuids,
                            return_alternates=False):
        return self.driver.select_destinations(
            ctxt, spec_obj, instance_uuids, return_alternates)

    @messaging.expected_exceptions(exception.NoValidHost)
    def claim_destinations(self, ctxt, spec_obj, instance_uuids):
        selections = self.driver.claim_destinations(ctxt, spec_obj,
                                                    instance_uuids)
        for instance_uuid, selection in zip(instance_uuids, selections):
            LOG.info('Claimed node %s for instance %s',
                     selection.node_uuid, instance_uuid)
        return selections
