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

"""An image against the flavor it boots with, at boot and rebuild.

``typed_properties`` reads the image's Glance properties as Nova does
(``image_properties.registry.read``): a value Nova cannot coerce is Nova's
400 ``Invalid image metadata. Error: ...``; an unknown property is left
alone (it stays a raw property).

``check`` then applies, in Nova's order, the rules by which Nova's API
refuses a flavor and an image that contradict each other, each a 400 with
Nova's message (``RULES``, one function a rule):

* memory encryption (``hw:mem_encryption`` / ``hw_mem_encryption``, the
  model, the UEFI firmware, the q35 machine type, stateless firmware and
  the video device some models need);
* PMU (``hw:pmu`` / ``hw_pmu``);
* CPU policy and CPU thread policy (the image may not ask for more than
  the flavor allows; a thread policy needs dedicated CPUs; not with
  ``resources:VCPU``/``PCPU`` or the ``HW_CPU_HYPERTHREADING`` trait);
* NUMA: the image may not override the flavor's node count or CPU and
  memory mapping; both mappings or neither;
* memory page size (the image's only within a flavor's ``large`` or
  ``any``);
* secure boot (``os:secure_boot`` / ``os_secure_boot``: Nova's driver
  refuses a conflict on the compute host, nova_mini before anything is
  created);
* at boot, an image trait the flavor forbids (at rebuild the scheduler's
  rebuild check answers it, with Nova's conductor message).

None of the CPU, NUMA, page size, PMU and memory encryption settings
changes how a bare-metal node runs: they are checked so that a request
Nova refuses is refused here (doc/source/admin/image-checks.rst).
"""

import re

from oslo_utils import strutils
from oslo_utils import units

from nova_mini.api.validation.image_properties import registry as ip_registry
from nova_mini import exception

TRAIT_PREFIX = 'trait:'
HYPERTHREADING = 'HW_CPU_HYPERTHREADING'

CPU_POLICIES = ('dedicated', 'shared', 'mixed')
CPU_THREAD_POLICIES = ('prefer', 'isolate', 'require')

# Memory encryption models: (firmware, machine type, needs stateless
# firmware, needs hw_video_model=none), as Nova 34 has them.
MEM_ENCRYPTION_MODELS = {
    'amd-sev': ('uefi', 'q35', False, False),
    'amd-sev-es': ('uefi', 'q35', False, False),
    'amd-sev-snp': ('uefi', 'q35', True, False),
    'intel-tdx': ('uefi', 'q35', True, True),
}
DEFAULT_MEM_ENCRYPTION_MODEL = 'amd-sev'

_CONFLICT = ("Flavor %(flavor)s has %(prefix)s:%(key)s extra spec explicitly "
             "set to %(flavor_val)s, conflicting with image %(image)s which "
             "has %(prefix)s_%(key)s explicitly set to %(image_val)s.")
_CPU_PINNING = ("Image property 'hw_cpu_policy' is not permitted to override "
                "CPU pinning policy set against the flavor")
_THREAD_PINNING = ("Image property 'hw_cpu_thread_policy' is not permitted "
                   "to override CPU thread pinning policy set against the "
                   "flavor")
_NUMA_FORBIDDEN = ("Image property '%s' is not permitted to override NUMA "
                   "configuration set against the flavor")


class Conflict(exception.Invalid):
    """The image and the flavor contradict each other (400)."""


def typed_properties(image):
    """Nova's typed fields of ``image``'s properties.

    :param image: an ImageMeta (its ``raw_properties``, as Glance has them).
    :returns: ``{field: typed value}`` (``traits_required`` among them).
    :raises nova_mini.exception.Invalid: a value Nova refuses (400,
        Nova's message).
    """
    raw = image.get('raw_properties') or {}
    verdict, fields = ip_registry.read(dict(raw))
    if fields is None:
        raise exception.Invalid(ip_registry.NOVA_MESSAGE_PREFIX +
                                verdict.errors[0])
    return fields


class _Request(object):
    """What the rules read: the flavor's extra specs and the image's typed
    properties, and the results earlier rules settle.
    """

    def __init__(self, flavor, image, props):
        self.flavor = flavor
        self.image = image
        self.specs = dict(flavor.extra_specs or {})
        self.props = props
        self.cpu_policy = None
        self.thread_policy = None

    def both(self, key, prefix='hw'):
        return (self.specs.get('%s:%s' % (prefix, key)),
                self.props.get('%s_%s' % (prefix, key)))

    def conflict(self, key, flavor_val, image_val, prefix='hw'):
        return Conflict(_CONFLICT % {
            'flavor': self.flavor.name, 'prefix': prefix, 'key': key,
            'flavor_val': flavor_val, 'image': self.image.get('name'),
            'image_val': image_val})


def _bool(text):
    return None if text is None else strutils.bool_from_string(text)


def check_mem_encryption(req):
    flavor_text, image_value = req.both('mem_encryption')
    flavor_value = _bool(flavor_text)
    if not flavor_value and not image_value:
        return
    if flavor_value is not None and image_value is not None and \
            flavor_value != image_value:
        raise Conflict(
            "Flavor %s has hw:mem_encryption extra spec explicitly set to "
            "%s, conflicting with image %s which has hw_mem_encryption "
            "property explicitly set to %s" % (
                req.flavor.name, flavor_text, req.image.get('name'),
                image_value))
    requesters = []
    if flavor_value:
        requesters.append('hw:mem_encryption extra spec in %s flavor'
                          % req.flavor.name)
    if image_value:
        requesters.append('hw_mem_encryption property of image %s'
                          % req.image.id)
    flavor_model, image_model = req.both('mem_encryption_model')
    if flavor_model is not None and image_model is not None and \
            flavor_model != image_model:
        raise Conflict(
            "Flavor %s has hw:mem_encryption_model extra spec explicitly "
            "set to %s, conflicting with image %s which has "
            "hw_mem_encryption_model property explicitly set to %s" % (
                req.flavor.name, flavor_model, req.image.get('name'),
                image_model))
    model = image_model or flavor_model or DEFAULT_MEM_ENCRYPTION_MODEL
    if model not in MEM_ENCRYPTION_MODELS:
        raise Conflict('Invalid memory encryption model %r. Allowed values: '
                       '%s.' % (model, ', '.join(MEM_ENCRYPTION_MODELS)))
    firmware, machine, stateless, no_video = MEM_ENCRYPTION_MODELS[model]
    if req.props.get('hw_firmware_type') != firmware:
        raise Conflict(
            "Memory encryption is requested by %s but the image metadata "
            "doesn't have the 'hw_firmware_type' property set to '%s'" % (
                ' and '.join(requesters), firmware))
    machine_type = req.props.get('hw_machine_type')
    if machine_type is not None and machine not in machine_type:
        raise Conflict(
            "Machine type '%s' is not compatible with image %s (%s): %s "
            "type is required for %s to work" % (
                machine_type, req.image.get('name'), req.image.id, machine,
                model))
    if stateless and not req.props.get('hw_firmware_stateless'):
        raise Conflict(
            "The %s memory encryption model requires stateless firmware but "
            "the image metadata doesn't have the 'hw_firmware_stateless' "
            "property set to True" % model)
    if no_video and req.props.get('hw_video_model') != 'none':
        raise Conflict(
            "The %s memory encryption model is incompatible with an "
            "attached video device. Set the 'hw_video_model' image property "
            "to 'none' to disable it" % model)


def check_pmu(req):
    flavor_text, image_value = req.both('pmu')
    flavor_value = _bool(flavor_text)
    if flavor_value is not None and image_value is not None and \
            flavor_value != image_value:
        raise req.conflict('pmu', flavor_value, image_value)


def check_cpu_policy(req):
    flavor_policy, image_policy = req.both('cpu_policy')
    for source, policy in (('flavor extra specs', flavor_policy),
                           ('image properties', image_policy)):
        if policy and policy not in CPU_POLICIES:
            raise Conflict(
                "CPU policy requested from '%s' is invalid, given: '%s', "
                "available: '%s'." % (source, policy, list(CPU_POLICIES)))
    if flavor_policy == 'mixed' and image_policy == 'dedicated' or \
            flavor_policy == 'shared' and image_policy in ('mixed',
                                                           'dedicated'):
        raise Conflict(_CPU_PINNING)
    req.cpu_policy = flavor_policy or image_policy


def check_cpu_thread_policy(req):
    flavor_policy, image_policy = req.both('cpu_thread_policy')
    for source, policy in (('flavor extra specs', flavor_policy),
                           ('image properties', image_policy)):
        if policy and policy not in CPU_THREAD_POLICIES:
            raise Conflict(
                "CPU thread policy requested from '%s' is invalid, given: "
                "'%s', available: '%s'." % (source, policy,
                                            list(CPU_THREAD_POLICIES)))
    if flavor_policy in (None, 'prefer'):
        req.thread_policy = flavor_policy or image_policy
    elif image_policy and image_policy != flavor_policy:
        raise Conflict(_THREAD_PINNING)
    else:
        req.thread_policy = flavor_policy


def _amount(req, resource):
    pattern = re.compile(r'resources([1-9][0-9]*)?:%s$' % resource)
    total = 0
    for key, value in req.specs.items():
        if pattern.match(key):
            try:
                total += int(value)
            except ValueError:
                pass
    return total


def _hyperthreading(req):
    pattern = re.compile(r'trait([1-9][0-9]*)?:%s$' % HYPERTHREADING)
    for key, value in req.specs.items():
        if pattern.match(key):
            return value
    if HYPERTHREADING in req.props.get('traits_required', ()):
        return 'required'
    return None


def check_cpu_resources(req):
    vcpus, pcpus = _amount(req, 'VCPU'), _amount(req, 'PCPU')
    if req.cpu_policy and (vcpus or pcpus):
        raise Conflict(
            "It is not possible to use the 'resources:VCPU' or "
            "'resources:PCPU' extra specs in combination with the "
            "'hw:cpu_policy' extra spec or 'hw_cpu_policy' image metadata "
            "property; use one or the other")
    if vcpus and pcpus:
        raise Conflict(
            "It is not possible to specify both 'resources:VCPU' and "
            "'resources:PCPU' extra specs; use one or the other")
    if pcpus:
        req.cpu_policy = 'dedicated'
    if vcpus:
        req.cpu_policy = 'shared'
    trait = _hyperthreading(req)
    if req.thread_policy and trait:
        raise Conflict(
            "It is not possible to use the 'trait:HW_CPU_HYPERTHREADING' "
            "extra spec in combination with the 'hw:cpu_thread_policy' "
            "extra spec or 'hw_cpu_thread_policy' image metadata property; "
            "use one or the other")
    if trait == 'forbidden':
        req.thread_policy = 'isolate'
    elif trait == 'required':
        req.thread_policy = 'require'
    if req.cpu_policy in ('shared', None) and req.thread_policy:
        raise Conflict('Cannot set cpu thread pinning policy in a non '
                       'dedicated cpu pinning policy')


def _flavor_numbered(req, key):
    return any(name.startswith(key + '.') for name in req.specs)


def check_numa(req):
    flavor_nodes, image_nodes = req.both('numa_nodes')
    if flavor_nodes and image_nodes:
        raise Conflict(_NUMA_FORBIDDEN % 'hw_numa_nodes')
    nodes = flavor_nodes or image_nodes
    if nodes is not None and (not strutils.is_int_like(nodes) or
                              int(nodes) < 1):
        raise Conflict("The property 'numa_nodes' cannot be '%s'. It must be "
                       "a number greater than 0" % nodes)
    flavor_cpus = _flavor_numbered(req, 'hw:numa_cpus')
    flavor_mem = _flavor_numbered(req, 'hw:numa_mem')
    image_cpus = req.props.get('hw_numa_cpus')
    image_mem = req.props.get('hw_numa_mem')
    if flavor_cpus and image_cpus is not None:
        raise Conflict(_NUMA_FORBIDDEN % 'hw_numa_cpus')
    if flavor_mem and image_mem is not None:
        raise Conflict(_NUMA_FORBIDDEN % 'hw_numa_mem')
    if (flavor_cpus or image_cpus is not None) != \
            (flavor_mem or image_mem is not None):
        raise Conflict('CPU and memory allocation must be provided for all '
                       'NUMA nodes')


def _page_size(text):
    if text in ('any', 'large', 'small'):
        return text
    if text.isdigit():
        return int(text)
    try:
        return strutils.string_to_bytes(text, return_int=True) / units.Ki
    except ValueError:
        raise Conflict("Invalid memory page size '%s'" % text)


def check_mem_page_size(req):
    flavor_size, image_size = req.both('mem_page_size')
    if not flavor_size and image_size:
        raise Conflict("Page size %s forbidden against '<empty>'"
                       % image_size)
    if not flavor_size:
        return
    size = _page_size(flavor_size)
    if image_size and size in ('any', 'large'):
        _page_size(image_size)
    elif image_size:
        raise Conflict("Page size %s forbidden against '%s'"
                       % (image_size, flavor_size))


def check_secure_boot(req):
    flavor_value, image_value = req.both('secure_boot', prefix='os')
    if flavor_value and image_value and flavor_value != image_value:
        raise req.conflict('secure_boot', flavor_value, image_value,
                           prefix='os')


def check_forbidden_traits(req):
    forbidden = set(
        key[len(TRAIT_PREFIX):] for key, value in req.specs.items()
        if key.startswith(TRAIT_PREFIX) and value == 'forbidden')
    clash = sorted(forbidden & set(req.props.get('traits_required', ())))
    if clash:
        raise Conflict(
            'Image traits are part of forbidden traits in flavor %s (%s). '
            'Either specify a different image or a compatible flavor.'
            % (req.flavor.name, ', '.join(clash)))


# (name, function, at rebuild too), in the order Nova checks them.
RULES = (
    ('memory encryption', check_mem_encryption, True),
    ('pmu', check_pmu, True),
    ('cpu policy', check_cpu_policy, True),
    ('cpu thread policy', check_cpu_thread_policy, True),
    ('cpu resources and thread policy', check_cpu_resources, True),
    ('numa', check_numa, True),
    ('memory page size', check_mem_page_size, True),
    ('secure boot', check_secure_boot, True),
    ('forbidden traits', check_forbidden_traits, False),
)


def check(flavor, image, rebuild=False):
    """Refuse ``image`` with ``flavor`` as Nova does (see the module).

    :param flavor: the Flavor of the new or rebuilt server.
    :param image: the ImageMeta (from Glance).
    :param rebuild: a rebuild (the trait rule is the scheduler's then).
    :returns: the image's typed properties (``typed_properties``).
    :raises nova_mini.exception.Invalid: Nova's 400.
    """
    props = typed_properties(image)
    req = _Request(flavor, image, props)
    for _name, rule, at_rebuild in RULES:
        if at_rebuild or not rebuild:
            rule(req)
    return props
