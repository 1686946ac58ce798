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

"""The servers resource: /servers, /servers/detail, /servers/{id}.

POST makes the instances in BUILD and casts their build to a scheduler
(nova_mini.scheduler.manager.build_instances), answering 202 at once; the
client polls GET /servers/{id}. A build nobody finished within
``[DEFAULT] rpc_response_timeout`` seconds (no scheduler running, the
message lost) is turned into ERROR when the server is next read, so no
server stays in BUILD forever (doc/source/reference/scheduler.rst).

A server keeps what its create body gives (metadata, user data,
description, tags, access addresses, config drive) and shows it as Nova
does; PUT changes its name, description and access addresses, and its
metadata has a sub-resource of its own (server_metadata.py).

Real clients work unchanged (doc/source/reference/compute-api.rst):
openstacksdk boots with ``imageRef``, openstackclient with ``--image``
(which it looks up in Glance by name or id). The image is checked in
Glance and its properties take part in scheduling (nova_mini.image.glance).
"""

from oslo_log import log as logging
from oslo_utils import excutils
from oslo_utils import strutils
from oslo_utils import uuidutils
import pecan
from pecan import rest

from nova_mini.api.compute import image_flavor_rules
from nova_mini.api.compute import instance_actions
from nova_mini.api.compute.schemas import servers as schema
from nova_mini.api.compute import server_actions
from nova_mini.api.compute import server_common
from nova_mini.api.compute import server_filters
from nova_mini.api.compute import server_hints
from nova_mini.api.compute import server_metadata
from nova_mini.api.compute import versions
from nova_mini.api.compute.views import servers as server_views
from nova_mini.api import validation
from nova_mini.api import wsgi
from nova_mini import conf
from nova_mini.configdrive import required as configdrive_required
from nova_mini import exception
from nova_mini.image import glance
from nova_mini import objects
from nova_mini.objects.compute import instance as instance_obj
from nova_mini.objects.compute import instance_action
from nova_mini.objects.compute import instance_task
from nova_mini.objects.compute import quota
from nova_mini.objects.compute import server_group as server_group_obj
from nova_mini.objects import request_spec
from nova_mini.policies.compute import servers as policies
from nova_mini import policy
from nova_mini.scheduler import rpcapi as scheduler_rpcapi

CONF = conf.CONF
LOG = logging.getLogger(__name__)

# GET /servers and /servers/detail take the same query.
_validate_list_query = validation.query([
    (None, schema.index_query),
    (versions.STRICT_VALIDATION, schema.index_query_v275),
])

# Attempts to reach the broker for the build cast before the create is
# refused with 503 (oslo.messaging would otherwise retry for ever, holding
# the request): about 7 s with oslo.messaging's default intervals.
CAST_RETRIES = 2


def _get_flavor(context, flavor_ref):
    # A flavorRef may be a URL of the flavor: its id is the last segment.
    flavor_id = str(flavor_ref).rstrip('/').rsplit('/', 1)[-1]
    try:
        flavor = objects.Flavor.get_by_flavor_id(context, flavor_id)
    except exception.FlavorNotFound as exc:
        raise exception.Invalid(exc.format_message())
    if flavor.disabled:
        raise exception.Invalid('Flavor is disabled.')
    return flavor


def _get_counts(body):
    min_count = int(body.get('min_count', 1))
    max_count = int(body.get('max_count', min_count))
    if min_count > max_count:
        raise exception.Invalid('min_count must be <= max_count')
    return min_count, max_count


def _bad_mapping(details):
    return exception.Invalid('Block Device Mapping is Invalid: %s'
                             % details)


def _get_root_image(mappings):
    """The image of the root disk in ``block_device_mapping_v2``, or None.

    Bare metal deploys an image onto the node's own disk: the image root
    disk (source ``image``, destination ``local``, boot index 0) is the
    only mapping nova_mini can honour; it has no Block Storage service
    for the others.
    """
    root = None
    for mapping in mappings:
        boot_index = mapping.get('boot_index')
        boot_index = -1 if boot_index is None else int(boot_index)
        if (mapping.get('source_type') != 'image' or boot_index != 0 or
                mapping.get('destination_type') != 'local'):
            raise _bad_mapping(
                'nova_mini deploys an image onto the node and has no Block '
                'Storage service; the only mapping it takes is the image '
                'root disk (source_type image, destination_type local, '
                'boot_index 0).')
        if root is not None:
            raise _bad_mapping('Boot sequence for the instance and '
                               'image/block device mapping combination is '
                               'not valid.')
        root = mapping.get('uuid') or mapping.get('image_id')
        if not root:
            raise _bad_mapping('Missing device UUID.')
    return root


def _get_image_ref(body):
    """The image to deploy: ``imageRef``, else the image root disk."""
    image_ref = body.get('imageRef') or None
    root = _get_root_image(body.get('block_device_mapping_v2') or [])
    if image_ref and root and root != image_ref:
        raise _bad_mapping('the root disk image %s is not imageRef %s.'
                           % (root, image_ref))
    image_ref = image_ref or root
    if not image_ref:
        raise exception.Invalid('Missing imageRef attribute')
    return image_ref


def _description(req, body):
    # As Nova: below 2.19, where the body has none, a server's
    # description is its name.
    if not req.since(versions.SERVER_DESCRIPTION):
        return body['name']
    return body.get('description')


def _refuse_unsupported(body):
    """400 for what nova_mini cannot do, in Nova's words where Nova has
    them (it has no networks, reservation ids or file injection to use).
    """
    if body.get('personality'):
        server_common.refuse_personality()
    networks = body.get('networks')
    if isinstance(networks, list) and networks:
        raise exception.Invalid(
            'nova_mini has no Networking service: networks must be "auto", '
            '"none" or empty.')
    for group in body.get('security_groups') or []:
        # Every server is in the one group it shows, 'default'; others
        # would need a Networking service (Nova's words for an unknown
        # one).
        if group.get('name') != 'default':
            raise exception.Invalid(
                'Security group %s not found. nova_mini has no Networking '
                'service: leave security_groups out.' % group.get('name'))
    if strutils.bool_from_string(body.get('return_reservation_id')):
        raise exception.Invalid('return_reservation_id is not supported: '
                                'nova_mini keeps no reservation ids.')


def _get_destination(context, requested):
    """``(zone, forced nodes)`` of the ``availability_zone`` asked for:
    ``ZONE``, or for administrators ``ZONE::NODE`` (a node uuid or name)
    as in Nova, where the middle part names a compute host, which
    nova_mini does not have.
    """
    if not requested:
        return None, []
    zone, _sep, rest = requested.partition(':')
    host, _sep, node = rest.partition(':')
    if zone and zone != CONF.default_availability_zone:
        raise exception.Invalid(
            'The requested availability zone is not available')
    if not (host or node):
        return zone or None, []
    context.can(policies.CREATE_FORCED_HOST)
    if host or not node:
        raise exception.Invalid(
            'nova_mini has no compute hosts: name the node with '
            '"%s::<node uuid or name>".' % CONF.default_availability_zone)
    return zone or None, [node]


def _discard(context, instances):
    """Delete instances whose build could not be sent; a node a scheduler
    claimed for one all the same (a send that failed after the broker had
    taken it) is freed.
    """
    for instance in instances:
        instance.destroy()
        objects.Node.release(context, instance.uuid)
    instance_action.forget(context, [i.uuid for i in instances])


class ServersController(rest.RestController):
    _custom_actions = {'detail': ['GET']}

    @pecan.expose()
    def _lookup(self, server_id, *remainder):
        if remainder and remainder[0] == 'metadata':
            return (server_metadata.ServerMetadataController(server_id),
                    remainder[1:])
        if remainder and remainder[0] == 'action':
            return (server_actions.ServerActionController(server_id),
                    remainder[1:])
        if remainder and remainder[0] == 'os-instance-actions':
            return (instance_actions.InstanceActionsController(server_id),
                    remainder[1:])
        return None

    def _list(self, detail):
        req = pecan.request
        context = req.ctxt
        context.can(policies.INDEX, policy.own_target(context))
        query = server_filters.ServerQuery(req, context, detail)
        timeout = server_common.build_timeout()
        # Before the filters see the states: a build gone overdue is
        # listed (and filtered) as the ERROR it becomes.
        objects.InstanceList.expire_overdue_builds(
            context, query.project_id(context), timeout)
        page = objects.InstanceList.get_by_filters(
            context, query.filters, query.sort, limit=query.limit,
            marker=query.marker).objects
        for instance in page:
            instance.expire_build(timeout)
        return server_views.ServerView(req).index(
            page, detail, next_wanted=query.next_wanted(page),
            link_params=schema.index_query['properties'])

    @wsgi.expose()
    @_validate_list_query
    def get_all(self):
        return self._list(detail=False)

    @wsgi.expose()
    @_validate_list_query
    def detail(self):
        return self._list(detail=True)

    @wsgi.expose()
    def get_one(self, server_id):
        req = pecan.request
        instance = server_common.get_server(req.ctxt, server_id,
                                            policies.SHOW)
        return server_views.ServerView(req).show(instance)

    @wsgi.expose(status=202)
    @validation.body([(None, schema.create),
                      (versions.SERVER_DESCRIPTION, schema.create_v219),
                      (versions.SERVER_TAGS_ON_CREATE, schema.create_v252),
                      (versions.PERSONALITY_REMOVED, schema.create_v257)])
    def post(self):
        req = pecan.request
        context = req.ctxt
        body = req.json['server']
        server_common.check_user_data(body)
        context.can(policies.CREATE, policy.own_target(context))
        metadata = body.get('metadata') or {}
        instance_obj.check_metadata_quota(metadata)
        flavor = _get_flavor(context, body['flavorRef'])
        min_count, max_count = _get_counts(body)
        # Before anything is built: a count past the quota is refused (or
        # lowered to what fits, as Nova does) with no uuid made.
        count = quota.check_instances(context, context.project_id, flavor,
                                      min_count, max_count)
        image_ref = _get_image_ref(body)
        _refuse_unsupported(body)
        key_name, key_data = server_common.get_key_pair(
            context, body.get('key_name'))
        zone, force_nodes = _get_destination(context,
                                             body.get('availability_zone'))
        hints = server_hints.hints_of(req.json)
        group = server_hints.check(context, hints)
        # Before anything is written: an unknown or inactive image is a
        # 400, a Glance that does not answer a 503.
        image = glance.image_meta(image_ref,
                                  req.environ.get(glance.USER_AUTH_KEY))
        image_ref = image.id
        server_common.check_image_fits(flavor, image)
        configdrive_required.check_image(image)
        # As Nova, after those: the image typed (Nova's 400 "Invalid image
        # metadata") and checked against the flavor, before anything is
        # written.
        image_flavor_rules.check(flavor, image)
        auto_disk_config = server_common.get_image_disk_config(
            image, server_common.disk_config(body))
        uuids = [uuidutils.generate_uuid() for _index in range(count)]
        # The spec first: a flavor it cannot be derived from is refused
        # before anything is written.
        spec = request_spec.RequestSpec.from_components(
            context, flavor, image=image,
            instance_uuids=uuids, project_id=context.project_id,
            user_id=context.user_id,
            availability_zone=zone, force_nodes=force_nodes,
            scheduler_hints=hints)
        kept = {
            'metadata': metadata,
            'tags': body.get('tags') or [],
            'user_data': body.get('user_data'),
            'description': _description(req, body),
            'access_ip_v4': server_common.address(body.get('accessIPv4')),
            'access_ip_v6': server_common.address(body.get('accessIPv6')),
            'config_drive': strutils.bool_from_string(
                body.get('config_drive', False), strict=True),
            'boot_roles': list(context.roles or []),
            'key_name': key_name,
            'key_data': key_data,
            'auto_disk_config': auto_disk_config,
        }
        instances = []
        for index, uuid in enumerate(uuids):
            name = body['name']
            if count > 1:
                name = '%s-%d' % (name, index + 1)
            instances.append(objects.Instance(
                context, uuid=uuid, name=name,
                project_id=context.project_id, user_id=context.user_id,
                flavor=flavor, image_ref=image_ref,
                vm_state=instance_obj.BUILDING, node_uuid=None, fault=None,
                launch_index=index, **kept))
        if group is None:
            objects.InstanceList.create_all(context, instances, spec)
        else:
            # The servers join the group in the same transaction, within
            # the group's members quota.
            try:
                server_group_obj.create_in_group(context, instances, spec,
                                                 group)
            except exception.ServerGroupNotFound as exc:
                raise exception.Invalid(exc.format_message())
        try:
            scheduler_rpcapi.SchedulerAPI(CONF).build_instances(
                context, spec, uuids, retry=CAST_RETRIES)
        except Exception as exc:
            # Nothing stays behind a refused create: no scheduler took the
            # build (503 when the broker or its schedulers are away).
            with excutils.save_and_reraise_exception():
                LOG.error('Could not hand instances %s to a scheduler, '
                          'deleting them: %s', ', '.join(uuids), exc)
                _discard(context, instances)
        admin_pass = body.get('adminPass')
        if admin_pass is None:
            admin_pass = server_common.generate_password()
        created = server_views.ServerView(req).created(
            instances[0], admin_pass, body.get('security_groups'))
        # As Nova: Location is the new server's self link.
        location = created['server']['links'][0]['href']
        return wsgi.json_response(created, status=202,
                                  headers=[('Location', location)])

    @wsgi.expose()
    @validation.body([(None, schema.update),
                      (versions.SERVER_DESCRIPTION, schema.update_v219)])
    def put(self, server_id):
        """Change the name, description (2.19) or access addresses."""
        req = pecan.request
        context = req.ctxt
        instance = server_common.get_server(context, server_id,
                                            policies.UPDATE)
        body = req.json['server']
        values = server_common.details_of(body)
        if server_common.disk_config(body) is not None:
            # As Nova: kept, for the next rebuild to deploy.
            values['auto_disk_config'] = server_common.disk_config(body)
        if values:
            instance.update_details(**values)
        return server_views.ServerView(req).updated(instance)

    @wsgi.expose(status=204)
    def delete(self, server_id):
        context = pecan.request.ctxt
        instance = server_common.get_server(context, server_id,
                                            policies.DELETE)
        instance_task.check_lock(context, instance)
        # The row goes with its delete action in one transaction: an
        # error answered here has deleted nothing.
        instance.destroy()
        # After the row is gone: a scheduler finishing the build now fails
        # to mark it ACTIVE and frees the node itself.
        # A node it cannot free now is left to the schedulers' clean-up.
        node_uuid = objects.Node.release_of_deleted(context, instance.uuid)
        if node_uuid:
            LOG.info('Freed node %s of deleted instance %s', node_uuid,
                     instance.uuid)
