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

"""A rebuild's RequestSpec, and a new image checked against the server's
own node as a boot's candidates are checked.

Nova 34 reads the server's stored RequestSpec on every rebuild. When the
image changes, it saves the spec with the new image and has the
scheduler check the server's own host, with only the filters that apply
to a rebuild (``RUN_ON_REBUILD``), its conductor first checking the
image's required traits against the node's and against the flavor's
forbidden ones; a failure is ``NoValidHost``.

Here (``prepare``, in the rebuild's transaction): the stored spec is
read (one is made from the server's flavor if it has none); with a new
image its requirements are derived again
(``RequestSpec.replace_image``: the image's traits join the flavor's,
and an image trait the flavor forbids is refused), and the filters of
``[filter_scheduler] enabled_filters`` that say ``run_on_rebuild``
(ImagePropertiesFilter, TraitsFilter) check the node, the very code a
boot's candidates pass. TraitsFilter runs even when not enabled: a
boot's database query asks for the traits whatever filters run. A
refusal is ``RebuildNoValidHost`` (400, Nova's words); the caller leaves
the server as it was and records why. Otherwise the spec is saved with
the new image, and its required traits are what the node's
``instance_info['traits']`` then holds.
"""

import threading

from nova_mini import exception
from nova_mini.objects import image_meta
from nova_mini.objects import request_spec
from nova_mini.scheduler import candidates
from nova_mini.scheduler import filters
from nova_mini.scheduler.filters import traits as traits_filter

_ANOTHER_IMAGE = 'Either specify a different image during rebuild or ' \
    'create a new server with the specified image'


class RebuildNoValidHost(exception.Invalid):
    """The server's node (or flavor) does not suit the new image."""

    msg_fmt = 'No valid host was found. %(reason)s'


_loaded = {}
_loaded_lock = threading.Lock()


def rebuild_filters(names):
    """Return the filters a rebuild runs, of the enabled ``names``: those
    whose ``run_on_rebuild`` is true, TraitsFilter first if it is not
    among them; loaded once per process.
    """
    names = tuple(names)
    with _loaded_lock:
        if names not in _loaded:
            loaded = [node_filter for node_filter in filters.load(
                list(names)) if node_filter.run_on_rebuild]
            if not any(isinstance(node_filter, traits_filter.TraitsFilter)
                       for node_filter in loaded):
                loaded.insert(0, traits_filter.TraitsFilter())
            _loaded[names] = loaded
        return _loaded[names]


def _reason(node_filter, reason, image, node):
    if isinstance(node_filter, traits_filter.TraitsFilter):
        return ('Image traits cannot be satisfied by the current resource '
                'providers (node %s %s). %s.' % (node.uuid, reason,
                                                 _ANOTHER_IMAGE))
    return ('The server\'s node %s cannot run image %s (%s: %s). %s.' % (
        node.uuid, image.id, node_filter.name, reason, _ANOTHER_IMAGE))


def check(context, spec_obj, image, node_uuid, filter_names):
    """Make ``spec_obj`` ask for ``image`` and check the node (see the
    module).

    :param context: the request context.
    :param spec_obj: the server's RequestSpec (changed in place).
    :param image: the new ImageMeta.
    :param node_uuid: the server's node, or None (none to check).
    :param filter_names: ``[filter_scheduler] enabled_filters``.
    :raises RebuildNoValidHost: the flavor forbids a trait the image
        requires, or the node fails a filter.
    """
    flavor_forbids = set(spec_obj.forbidden_traits)
    try:
        spec_obj.replace_image(image)
    except exception.InvalidRequestSpec as exc:
        clash = sorted(set(image.properties.traits_required) & flavor_forbids)
        if clash:
            raise RebuildNoValidHost(reason=(
                'Image traits are part of forbidden traits in flavor '
                'associated with the server (%s). %s and a compatible '
                'flavor.' % (', '.join(clash), _ANOTHER_IMAGE)))
        raise RebuildNoValidHost(reason='%s. %s.' % (
            exc.format_message(), _ANOTHER_IMAGE))
    node = candidates.node_state_of(context, node_uuid) if node_uuid \
        else None
    if node is None:
        return
    for node_filter in rebuild_filters(filter_names):
        prepared = node_filter.for_request(context, spec_obj)
        if prepared is None:
            continue
        reason = prepared.check(node, spec_obj)
        if reason is not None:
            raise RebuildNoValidHost(
                reason=_reason(node_filter, reason, image, node))


def stored_spec(context, instance):
    """Return the server's stored RequestSpec, or one made from its flavor
    and image id when it has none (a server older than stored specs).
    """
    try:
        return request_spec.RequestSpec.get_by_instance_uuid(context,
                                                             instance.uuid)
    except exception.RequestSpecNotFound:
        return request_spec.RequestSpec.from_components(
            context, instance.flavor,
            image_meta.ImageMeta.from_dict({'id': instance.image_ref}),
            instance_uuids=[instance.uuid], project_id=instance.project_id,
            user_id=instance.user_id)


def prepare(context, instance, image, filter_names):
    """Return the RequestSpec a rebuild of ``instance`` with ``image``
    deploys: the stored one; for a new image, checked against the node
    (``check``) and saved. Run it in the rebuild's transaction.

    :raises RebuildNoValidHost: as ``check``.
    """
    spec_obj = stored_spec(context, instance)
    if image.id != instance.image_ref:
        check(context, spec_obj, image, instance.node_uuid, filter_names)
        spec_obj.save(context)
    return spec_obj
