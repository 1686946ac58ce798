"""The servers resource: /servers, /servers/detail, /servers/{id}.

POST makes the instances in BUILD and casts their build to a scheduler
(nova_mini.scheduler.manager.build_instances), answering 202 at once; the
client polls GET /servers/{id}. A build nobody finished within
``[DEFAULT] rpc_response_timeout`` seconds (no scheduler running, the
message lost) is turned into ERROR when the server is next read, so no
server stays in BUILD forever (doc/source/reference/scheduler.rst).
"""

from oslo_log import log as logging
from oslo_utils import strutils
from oslo_utils import uuidutils
import pecan
from pecan import rest

from nova_mini.api.compute.schemas import servers as schema
from nova_mini.api.compute import server_view
from nova_mini.api import validation
from nova_mini.api import wsgi
from nova_mini import conf
from nova_mini import exception
from nova_mini import objects
from nova_mini.objects import instance as instance_obj
from nova_mini.objects import request_spec
from nova_mini.policies import servers as policies
from nova_mini.scheduler import rpcapi as scheduler_rpcapi

CONF = conf.CONF
LOG = logging.getLogger(__name__)

# Attempts to reach the broker for the build cast before the servers are
# failed (oslo.messaging would otherwise retry forever, holding the
# request).
CAST_RETRIES = 2


def build_timeout(conf=CONF):
    """Seconds a server may stay in BUILD: ``[DEFAULT]
    rpc_response_timeout``, the time a scheduler call may take.
    """
    return getattr(conf, 'rpc_response_timeout', 60)


def _flavor(context, flavor_ref):
    # A flavorRef may be a URL of the flavor: its id is the last segment.
    flavor_id = str(flavor_ref).rstrip('/').rsplit('/', 1)[-1]
    try:
        flavor = objects.Flavor.get_by_flavor_id(context, flavor_id)
    except exception.FlavorNotFound as exc:
        raise exception.Invalid(exc.format_message())
    if flavor.disabled:
        raise exception.Invalid('Flavor is disabled.')
    return flavor


def _counts(body):
    min_count = int(body.get('min_count', 1))
    max_count = int(body.get('max_count', min_count))
    if min_count > max_count:
        raise exception.Invalid('min_count must be <= max_count')
    return min_count, max_count


def _hints(req_body):
    hints = (req_body.get('os:scheduler_hints') or
             req_body.get('OS-SCH-HNT:scheduler_hints') or {})
    return {key: value if isinstance(value, list) else [value]
            for key, value in hints.items()}


def _get(context, server_id, action):
    """The instance, if the caller may ``action`` it; an expired build is
    failed on the way.
    """
    instance = objects.Instance.get_by_uuid(context, server_id)
    # The rules compare the caller's project with the server's.
    context.can(action, {'project_id': instance.project_id,
                         'user_id': instance.user_id})
    instance.expire_build(build_timeout())
    return instance


class ServersController(rest.RestController):
    _custom_actions = {'detail': ['GET']}

    def _list(self, detail):
        req = pecan.request
        context = req.ctxt
        context.can(policies.INDEX)
        project_id = context.project_id
        if context.is_admin and strutils.bool_from_string(
                req.GET.get('all_tenants', 'false')):
            project_id = None
        limit = req.GET.get('limit')
        limit = min(int(limit), CONF.api.max_limit) if limit else (
            CONF.api.max_limit)
        instances = objects.InstanceList.get_all(context, project_id,
                                                 limit=limit)
        timeout = build_timeout()
        for instance in instances:
            instance.expire_build(timeout)
        return server_view.ServerView(req).index(instances.objects, detail)

    @wsgi.expose()
    @validation.query(schema.index_query)
    def get_all(self):
        return self._list(detail=False)

    @wsgi.expose()
    @validation.query(schema.index_query)
    def detail(self):
        return self._list(detail=True)

    @wsgi.expose()
    def get_one(self, server_id):
        req = pecan.request
        instance = _get(req.ctxt, server_id, policies.SHOW)
        return server_view.ServerView(req).show(instance)

    @wsgi.expose(status=202)
    @validation.body(schema.create)
    def post(self):
        req = pecan.request
        context = req.ctxt
        context.can(policies.CREATE)
        body = req.json['server']
        flavor = _flavor(context, body['flavorRef'])
        _min_count, count = _counts(body)
        image_ref = body.get('imageRef') or None
        instances = []
        for index in range(count):
            name = body['name']
            if count > 1:
                name = '%s-%d' % (name, index + 1)
            instance = objects.Instance(
                context, uuid=uuidutils.generate_uuid(), name=name,
                project_id=context.project_id, user_id=context.user_id,
                flavor=flavor, image_ref=image_ref,
                vm_state=instance_obj.BUILDING, node_uuid=None, fault=None)
            instance.create()
            instances.append(instance)
        uuids = [instance.uuid for instance in instances]
        spec = request_spec.RequestSpec.from_components(
            context, flavor, image={'id': image_ref},
            instance_uuids=uuids, project_id=context.project_id,
            user_id=context.user_id,
            availability_zone=body.get('availability_zone'),
            scheduler_hints=_hints(req.json))
        try:
            scheduler_rpcapi.SchedulerAPI(CONF).build_instances(
                context, spec, uuids, retry=CAST_RETRIES)
        except Exception as exc:
            LOG.error('Could not hand instances %s to a scheduler: %s',
                      ', '.join(uuids), exc)
            if isinstance(exc, exception.NovaMiniException):
                reason = exc.format_message()
            else:
                reason = exc.__class__.__name__
            for instance in instances:
                instance.mark_error('Could not reach a scheduler: %s'
                                    % reason)
        admin_pass = body.get('adminPass')
        if not isinstance(admin_pass, str):
            admin_pass = uuidutils.generate_uuid(dashed=False)[:12]
        return server_view.ServerView(req).created(instances[0], admin_pass)

    @wsgi.expose(status=204)
    def delete(self, server_id):
        context = pecan.request.ctxt
        instance = _get(context, server_id, policies.DELETE)
        instance.destroy()
        # After the row is gone: a scheduler finishing the build now fails
        # to mark it ACTIVE and frees the node itself.
        node_uuid = objects.Node.release(context, instance.uuid)
        if node_uuid:
            LOG.info('Freed node %s of deleted instance %s', node_uuid,
                     instance.uuid)
