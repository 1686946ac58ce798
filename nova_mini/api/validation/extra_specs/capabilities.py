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

"""Definitions of the ``capabilities`` extra specs, read by the
``ComputeCapabilitiesFilter`` scheduler filter and, for bare metal, by the
Ironic virt driver.

The filter compares the value with an attribute of the host as the scheduler
sees it (or an entry of its ``stats``). The value is a literal, compared as
is, or an operator and its operand: ``=`` (numerically at least), ``==``,
``!=``, ``>=``, ``<=`` (numeric), ``s==``, ``s!=``, ``s<``, ``s<=``, ``s>``,
``s>=`` (string), ``<in>`` (substring), ``<all-in>`` (all of the operands)
or ``<or>`` (any of them), e.g. ``>= 4``, ``s== 2.1.0``, ``<in> avx2`` or
``<or> ssd <or> nvme``.

Only the namespaced form is defined: the bare form (``vcpus=...``) has been
deprecated since Grizzly, as in Nova.

Difference with Nova 34 (doc/source/reference/extra-spec-differences.rst):
Nova only knows the host attributes below and rejects, as unknown keys in a
known namespace, the capabilities every Ironic deployment uses:
``capabilities:boot_mode``, ``boot_option``, ``secure_boot``,
``trusted_boot``, ``disk_label`` (which the Ironic driver also copies into
the node's ``instance_info``, where Ironic accepts only the values listed
here), ``cpu_arch`` (reported by the Ironic driver for every node),
``cpus`` (the node's CPU count, a node property beside ``memory_mb`` and
``local_gb``) and ``profile`` (the usual node-to-flavor matching
capability). They are defined
here. Other node capabilities an operator invents can be declared through a
``nova_mini.extra_spec_validators`` plugin.
"""

from nova_mini.api.validation.extra_specs import base

_FILTER = 'ComputeCapabilitiesFilter'

# The operators of the filter (scheduler.filters.compute_capabilities):
# those comparing numbers, and all of them.
NUMERIC_OPERATORS = ('=', '==', '!=', '>=', '<=')
OPERATORS = NUMERIC_OPERATORS + ('s==', 's!=', 's<', 's<=', 's>', 's>=',
                                 '<in>', '<all-in>', '<or>')


class RequirementSpec(base.ExtraSpec):
    """A capability whose value is a literal or an operator expression;
    refuses the expressions no node can meet: an operator without an
    operand, a numeric operator whose operand is not a number (Nova's
    filter raises on them).
    """

    __slots__ = ()

    def check(self, value):
        super(RequirementSpec, self).check(value)
        words = value.split()
        if not words or words[0] not in OPERATORS:
            return
        if len(words) < 2:
            raise base.InvalidValue(
                "'%s' has no operand: give one after %s, e.g. '%s 4'"
                % (value, words[0], words[0]))
        if words[0] in NUMERIC_OPERATORS:
            try:
                float(words[1])
            except ValueError:
                raise base.InvalidValue(
                    "'%s': %s compares numbers and '%s' is not one; use "
                    "s%s to compare text, or a number" % (
                        value, words[0], words[1],
                        '==' if words[0] == '=' else words[0]))


# Plain attributes of the compute node and of the scheduler's host state.
_HOST_ATTRIBUTES = (
    'aggregates', 'cell_uuid', 'cpu_allocation_ratio', 'current_workload',
    'disk_allocation_ratio', 'disk_available_least', 'disk_mb_used',
    'failed_builds', 'free_disk_gb', 'free_disk_mb', 'free_ram_mb', 'host',
    'host_ip', 'hypervisor_hostname', 'hypervisor_type',
    'hypervisor_version', 'id', 'local_gb', 'local_gb_used', 'mapped',
    'memory_mb', 'memory_mb_used', 'num_instances', 'num_io_ops',
    'ram_allocation_ratio', 'running_vms', 'service_id',
    'total_usable_disk_gb', 'total_usable_ram_mb', 'updated', 'uuid',
    'vcpus', 'vcpus_total', 'vcpus_used',
)

# Attributes holding a dict or a JSON document, addressed further with
# ':field' parts, e.g. capabilities:cpu_info:features.
_NESTED_ATTRIBUTES = (
    'cpu_info', 'instances', 'limits', 'metrics', 'nodename',
    'numa_topology', 'pci_device_pools', 'pci_stats', 'stats',
    'supported_hv_specs', 'supported_instances',
)

DEFINITIONS = [
    RequirementSpec(
        name='capabilities:' + attribute,
        description=(
            'Only schedule to hosts whose ``%s`` satisfies the value (a '
            'literal or an operator expression). Needs the ``%s`` '
            'scheduler filter.' % (attribute, _FILTER)),
        value=base.Value(str, description='A literal or an operator '
                                          'expression.'),
        example='>= 1',
    )
    for attribute in _HOST_ATTRIBUTES
] + [
    RequirementSpec(
        name='capabilities:%s{path}' % attribute,
        description=(
            'Only schedule to hosts whose ``%s`` (or the field of it that '
            '``{path}`` names) satisfies the value. Needs the ``%s`` '
            'scheduler filter.' % (attribute, _FILTER)),
        parameters=[
            base.Parameter(
                'path', r'(:\w+)*',
                'Optional fields inside the attribute, each introduced by '
                'a colon, e.g. ``:arch`` or ``:topology:cores``.'),
        ],
        value=base.Value(str, description='A literal or an operator '
                                          'expression.'),
        example='capabilities:%s=<in> x' % attribute,
    )
    for attribute in _NESTED_ATTRIBUTES
]

# Capabilities of Ironic nodes. The Ironic driver reports cpu_arch and every
# 'key:value' pair of a node's properties/capabilities in the host stats,
# which the filter matches; it also hands all capabilities:* specs of the
# flavor to Ironic, which checks the deploy-related ones below against the
# exact values it supports (no operators there).
_IRONIC_DEPLOY = (
    ('boot_mode', ('bios', 'uefi'),
     'Firmware the node boots the instance with: legacy BIOS or UEFI. The '
     'node must list the same mode (or none) in its capabilities.',
     'uefi'),
    ('boot_option', ('local', 'netboot', 'ramdisk', 'kickstart'),
     'How Ironic boots the deployed instance: from its local disk '
     '(``local``, the default), over the network (``netboot``; check that '
     'your Ironic release still supports it), from a RAM disk (``ramdisk``) or through an '
     'Anaconda kickstart install (``kickstart``).',
     'local'),
    ('secure_boot', ('true', 'false'),
     'Whether the node boots the instance with UEFI Secure Boot. Ironic '
     'takes the lower-case words only.',
     'true'),
    ('trusted_boot', ('true', 'false'),
     'Whether the node boots the instance through a measured (TPM, tboot) '
     'trusted boot. Ironic takes the lower-case words only.',
     'false'),
    ('disk_label', ('msdos', 'gpt'),
     'Partition table Ironic writes when it partitions the disk for a '
     'partition image (it does not apply to whole disk images).',
     'gpt'),
)

DEFINITIONS += [
    base.ExtraSpec(
        name='capabilities:' + name,
        description=description + (
            ' The ``%s`` scheduler filter also keeps the flavor to nodes '
            'that report the same value.' % _FILTER),
        value=base.Value(str, enum=values),
        drivers=('ironic',),
        example=example,
    )
    for name, values, description, example in _IRONIC_DEPLOY
] + [
    RequirementSpec(
        name='capabilities:cpu_arch',
        description=(
            'Only schedule to bare metal nodes whose CPU architecture (the '
            'node\'s ``cpu_arch`` property, as Ironic reports it) satisfies '
            'the value, a literal or an operator expression. Needs the '
            '``%s`` scheduler filter.' % _FILTER),
        value=base.Value(str, description='An architecture, e.g. '
                                          '``x86_64``, or an expression.'),
        drivers=('ironic',),
        example='x86_64',
    ),
    RequirementSpec(
        name='capabilities:cpus',
        description=(
            'Only schedule to bare metal nodes whose CPU count (the node\'s '
            '``cpus`` property) satisfies the value, a number or an '
            'operator expression. Needs the ``%s`` scheduler filter.'
            % _FILTER),
        value=base.Value(str, description='A number, or an expression '
                                          'such as ``>= 8``.'),
        drivers=('ironic',),
        example='>= 8',
    ),
    RequirementSpec(
        name='capabilities:profile',
        description=(
            'Only schedule to bare metal nodes tagged with this profile '
            '(a ``profile:NAME`` entry in the node\'s capabilities), the '
            'usual way to tie a flavor to a class of nodes. Needs the '
            '``%s`` scheduler filter.' % _FILTER),
        value=base.Value(str, description='A profile name, or an operator '
                                          'expression.'),
        drivers=('ironic',),
        example='compute',
    ),
]
