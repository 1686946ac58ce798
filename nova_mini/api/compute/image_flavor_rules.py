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
400 ``Invalid image metadata. Error: ...``; an unknown property stays raw.

``check`` then applies, in Nova's order, the rules by which Nova's API
(and, for secure boot, its driver) refuses a flavor and an image that
contradict each other, each a 400 with Nova's message (``RULES``, one
function a rule): memory encryption, PMU, realtime CPUs, CPU policy and
thread policy, NUMA, memory page size, secure boot and, at boot, an image
trait the flavor forbids (at rebuild the scheduler's rebuild check answers
that, with Nova's conductor message). What applies to bare metal:
doc/source/admin/image-checks.rst.
"""

import re

from oslo_utils import strutils
from oslo_utils import units

from nova_mini.api.validation.image_properties import registry as ip_registry
from nova_mini import exception
from nova_mini.objects import image_meta as image_meta_obj

TRAIT_PREFIX = image_meta_obj.TRAIT_PREFIX
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
_MIXED_REQUIRED = ("Cannot specify 'hw:cpu_dedicated_mask' without the "
                   "'mixed' policy.")
_NUMA_FORBIDDEN = ("Image property '%s' is not permitted to override NUMA "
                   "configuration set against the flavor")


class Conflict(exception.Invalid):
    """The image and the flavor contradict each other (400)."""


def typed_properties(image):
    """Nova's typed fields of an ImageMeta (its ``properties`` set from them), or Nova's 400."""
    raw = image.get('raw_properties') or {}
    verdict, fields = ip_registry.read(dict(raw))
    if fields is None:
        raise exception.Invalid(ip_registry.NOVA_MESSAGE_PREFIX +
                                verdict.errors[0])
    image.properties = image_meta_obj.ImageMetaProps.from_typed(fields, raw)
    return fields


class _Request(object):
    """The flavor's specs, the image's typed properties, rules' results."""

    def __init__(self, flavor, image, props):
        self.flavor = flavor
        self.image = image
        self.specs = dict(flavor.extra_specs or {})
        self.props = props
        self.cpu_policy = None
        self.thread_policy = None
        self.numa_nodes = None
        self.page_size = None

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


def _mem_encryption_conflict(req, key, flavor_text, flavor_value,
                             image_value):
    if None not in (flavor_value, image_value) and \
            flavor_value != image_value:
        raise Conflict(
            "Flavor %s has hw:%s extra spec explicitly set to %s, "
            "conflicting with image %s which has hw_%s property explicitly "
            "set to %s" % (req.flavor.name, key, flavor_text,
                           req.image.get('name'), key, image_value))


def check_mem_encryption(req):
    flavor_text, image_value = req.both('mem_encryption')
    flavor_value = _bool(flavor_text)
    if not flavor_value and not image_value:
        return
    _mem_encryption_conflict(req, 'mem_encryption', flavor_text,
                             flavor_value, image_value)
    requesters = []
    if flavor_value:
        requesters.append('hw:mem_encryption extra spec in %s flavor'
                          % req.flavor.name)
    if image_value:
        requesters.append('hw_mem_encryption property of image %s'
                          % req.image.id)
    flavor_model, image_model = req.both('mem_encryption_model')
    _mem_encryption_conflict(req, 'mem_encryption_model', flavor_model,
                             flavor_model, image_model)
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


def _cpu_set(spec):
    # Nova's CPU set syntax: '0-3,^2,5'.
    wanted, unwanted = set(), set()
    for part in spec.split(','):
        part = part.strip()
        if not part:
            continue
        target = unwanted if part.startswith('^') else wanted
        first, _sep, last = part.lstrip('^').partition('-')
        try:
            target.update(range(int(first), int(last or first) + 1))
        except ValueError:
            raise Conflict('Invalid range expression %r' % part)
    return wanted - unwanted


def check_realtime(req):
    if not _bool(req.specs.get('hw:cpu_realtime')):
        return
    flavor_mask, image_mask = req.both('cpu_realtime_mask')
    mask = image_mask or flavor_mask
    cpus = set(range(req.flavor.vcpus))
    if not mask:
        realtime = set(cpus)
    elif mask.strip().startswith('^'):
        realtime = _cpu_set('0-%d,%s' % (req.flavor.vcpus - 1, mask))
    else:
        realtime = _cpu_set(mask)
    if not realtime or realtime == cpus and not req.specs.get(
            'hw:emulator_threads_policy'):
        raise Conflict('Use of realtime CPUs requires either one or more '
                       'non-realtime CPU(s) or offloaded emulator threads.')
    if not realtime <= cpus:
        raise Conflict(
            'Realtime policy vCPU(s) mask is configured with RT vCPUs that '
            'are not a subset of the vCPUs in the flavor. See '
            'hw:cpu_realtime_mask or hw_cpu_realtime_mask')


def _policies(req, key, what, known):
    values = req.both(key)
    for source, policy in zip(('flavor extra specs', 'image properties'),
                              values):
        if policy and policy not in known:
            raise Conflict("%s requested from '%s' is invalid, given: '%s', "
                           "available: '%s'." % (what, source, policy,
                                                 str(known)))
    return values


def check_cpu_policy(req):
    flavor_policy, image_policy = _policies(req, 'cpu_policy', 'CPU policy',
                                            CPU_POLICIES)
    if flavor_policy == 'mixed' and image_policy == 'dedicated' or \
            flavor_policy == 'shared' and image_policy in ('mixed',
                                                           'dedicated'):
        raise Conflict(_CPU_PINNING)
    req.cpu_policy = flavor_policy or image_policy


def check_cpu_thread_policy(req):
    flavor_policy, image_policy = _policies(
        req, 'cpu_thread_policy', 'CPU thread policy', CPU_THREAD_POLICIES)
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
    isolate = req.specs.get('hw:emulator_threads_policy') == 'isolate'
    if pcpus and isolate and req.flavor.vcpus + 1 != pcpus:
        raise Conflict(
            "You have requested 'hw:emulator_threads_policy=isolate' but "
            "have not requested sufficient PCPUs to handle this policy; you "
            "must allocate exactly flavor.vcpus + 1 PCPUs.")
    if pcpus and not isolate and req.flavor.vcpus != pcpus:
        raise Conflict(
            "There is a mismatch between the number of PCPUs requested via "
            "'resourcesNN:PCPU' and the flavor); you must allocate exactly "
            "flavor.vcpus PCPUs")
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
    _check_cpu_policy_needs(req, isolate)


def _check_cpu_policy_needs(req, isolate):
    # What the settled CPU policy requires of the thread policy, the
    # emulator threads, the dedicated and the realtime CPU masks (their
    # presence: the flavor's masks are its extra specs' validators' to
    # check).
    dedicated_mask = bool(req.specs.get('hw:cpu_dedicated_mask'))
    realtime = bool(_bool(req.specs.get('hw:cpu_realtime')))
    if req.cpu_policy in ('shared', None):
        if req.thread_policy:
            raise Conflict('Cannot set cpu thread pinning policy in a non '
                           'dedicated cpu pinning policy')
        if isolate:
            raise Conflict('An isolated CPU emulator threads option requires '
                           'a dedicated CPU policy option.')
        if dedicated_mask:
            raise Conflict(_MIXED_REQUIRED)
        if realtime:
            raise Conflict('Cannot set realtime policy in a non dedicated '
                           'cpu pinning policy')
    elif req.cpu_policy == 'dedicated':
        if dedicated_mask:
            raise Conflict(_MIXED_REQUIRED)
    elif realtime == dedicated_mask:
        raise Conflict(
            "Dedicated CPU set can be specified from either "
            "'hw:cpu_dedicated_mask' or 'hw:cpu_realtime_mask' when using "
            "'mixed' CPU policy. 'hw:cpu_dedicated_mask' and "
            "'hw:cpu_realtime_mask' can not be specified at the same time, "
            "or be specified with none of them.")


def check_numa_nodes(req):
    flavor_nodes, image_nodes = req.both('numa_nodes')
    if flavor_nodes and image_nodes:
        raise Conflict(_NUMA_FORBIDDEN % 'hw_numa_nodes')
    nodes = flavor_nodes or image_nodes
    if nodes is not None and (not strutils.is_int_like(nodes) or
                              int(nodes) < 1):
        raise Conflict("The property 'numa_nodes' cannot be '%s'. It must be "
                       "a number greater than 0" % nodes)
    req.numa_nodes = int(nodes) if nodes else None


def _mapping(req, key):
    flavor_has = any(name.startswith('hw:%s.' % key) for name in req.specs)
    image_list = req.props.get('hw_' + key)
    if flavor_has and image_list is not None:
        raise Conflict(_NUMA_FORBIDDEN % ('hw_' + key))
    if flavor_has:
        return [name for name in req.specs if name.startswith('hw:%s.' % key)]
    return image_list


def check_numa_mappings(req):
    # Nova reads the mappings only for a request that gets a NUMA topology.
    if not (req.numa_nodes or req.page_size or req.specs.get('hw:pmem') or
            req.cpu_policy in ('dedicated', 'mixed')):
        return
    nodes = req.numa_nodes or 1
    cpus, mem = _mapping(req, 'numa_cpus'), _mapping(req, 'numa_mem')
    if (cpus is None) != (mem is None) or cpus is not None and (
            len(cpus) != nodes or len(mem) != nodes):
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
    size = req.page_size = _page_size(flavor_size)
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
    ('realtime', check_realtime, True),
    ('cpu policy', check_cpu_policy, True),
    ('cpu thread policy', check_cpu_thread_policy, True),
    ('cpu resources and thread policy', check_cpu_resources, True),
    ('numa nodes', check_numa_nodes, True),
    ('memory page size', check_mem_page_size, True),
    ('numa mappings', check_numa_mappings, True),
    ('secure boot', check_secure_boot, True),
    ('forbidden traits', check_forbidden_traits, False),
)


def check(flavor, image, rebuild=False):
    """Type the ImageMeta ``image`` (once a request) and refuse it with
    ``flavor`` as Nova does (see the module); at rebuild, not the traits.

    :returns: the image's typed properties (``typed_properties``).
    :raises nova_mini.exception.Invalid: Nova's 400.
    """
    props = typed_properties(image)
    req = _Request(flavor, image, props)
    for _name, rule, at_rebuild in RULES:
        if at_rebuild or not rebuild:
            rule(req)
    return props
