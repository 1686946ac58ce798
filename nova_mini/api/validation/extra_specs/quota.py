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

"""Definitions of the ``quota`` extra specs: resource limits, reservations
and shares applied to the guest by the hypervisor (not Nova's project
quotas)."""

from nova_mini.api.validation.extra_specs import base

_LIBVIRT = ('libvirt',)
_VMWARE = ('vmware',)

DEFINITIONS = []

# VMware: limit, reservation and shares for four resources.
for _key, _what, _unit in (('cpu', 'CPU', 'MHz'),
                           ('memory', 'memory', 'MB'),
                           ('disk_io', 'disk I/O', 'IOPS'),
                           ('vif', 'network bandwidth', 'Mbps')):
    DEFINITIONS += [
        base.ExtraSpec(
            name='quota:%s_limit' % _key,
            description=(
                'Ceiling on the instance\'s %s, in %s, enforced even when '
                'the host has more to spare (for consistent performance). '
                '0 means no ceiling.' % (_what, _unit)),
            value=base.Value(int, min=0, description=_unit + '.'),
            drivers=_VMWARE,
            example='1000',
        ),
        base.ExtraSpec(
            name='quota:%s_reservation' % _key,
            description=(
                'Amount of %s, in %s, guaranteed to the instance.'
                % (_what, _unit)),
            value=base.Value(int, description=_unit + '.'),
            drivers=_VMWARE,
            example='500',
        ),
        base.ExtraSpec(
            name='quota:%s_shares_level' % _key,
            description=(
                'Share level of the instance for %s when instances '
                'compete for it: ``low``, ``normal`` or ``high``, or '
                '``custom`` to give the number of shares in '
                '``quota:%s_shares_share``.' % (_what, _key)),
            value=base.Value(str, enum=('custom', 'high', 'normal', 'low')),
            drivers=_VMWARE,
            example='high',
        ),
        base.ExtraSpec(
            name='quota:%s_shares_share' % _key,
            description=(
                'Number of %s shares of the instance when the share level '
                'is ``custom`` (ignored otherwise); only its ratio to other '
                'instances\' shares matters.' % _what),
            value=base.Value(int, min=0),
            drivers=_VMWARE,
            requires=('quota:%s_shares_level=custom' % _key,),
            example='2000',
        ),
    ]

# libvirt: CPU time control (cgroups).
DEFINITIONS += [
    base.ExtraSpec(
        name='quota:cpu_shares',
        description=(
            'Relative weight of the guest when host CPUs are contended: a '
            'guest with 2048 gets twice the CPU time of one with 1024. '
            'Unset, the host\'s default weight applies.'
        ),
        value=base.Value(int, min=0),
        drivers=_LIBVIRT,
        example='2048',
    ),
    base.ExtraSpec(
        name='quota:cpu_period',
        description=(
            'Length, in microseconds, of the accounting period for '
            '``quota:cpu_quota`` (1000 to 1000000; 0 leaves the default).'
        ),
        value=base.Value(int, min=0, description='Microseconds.'),
        drivers=_LIBVIRT,
        example='100000',
    ),
    base.ExtraSpec(
        name='quota:cpu_quota',
        description=(
            'CPU time, in microseconds, each guest vCPU may use in each '
            '``quota:cpu_period``: with a period of 100000, 50000 caps a '
            'vCPU at half a host CPU. A negative value means no cap.'
        ),
        value=base.Value(int, description='Microseconds.'),
        drivers=_LIBVIRT,
        requires=('quota:cpu_period',),
        example='50000',
    ),
]

# libvirt: disk I/O throttling, per disk.
for _direction, _verb in (
        ('read', 'read'), ('write', 'write'),
        ('total', 'read and write together (not combinable with the '
                  'separate read and write caps)')):
    for _metric, _unit, _example in (('bytes', 'bytes', '10485760'),
                                     ('iops', 'I/O operations', '500')):
        DEFINITIONS.append(base.ExtraSpec(
            name='quota:disk_%s_%s_sec' % (_direction, _metric),
            description=(
                'Cap on the %s per second each disk of the guest may %s.'
                % (_unit, _verb)),
            value=base.Value(int, min=0),
            drivers=_LIBVIRT,
            example=_example,
        ))

# libvirt: network bandwidth shaping, per interface.
for _direction in ('inbound', 'outbound'):
    for _metric, _meaning in (
            ('average', 'average rate, in KiB/s'),
            ('peak', 'highest rate allowed during bursts, in KiB/s'),
            ('burst', 'amount, in KiB, that may be sent at peak rate')):
        DEFINITIONS.append(base.ExtraSpec(
            name='quota:vif_%s_%s' % (_direction, _metric),
            description=(
                'Traffic shaping of the guest\'s %s network traffic, per '
                'interface: the %s.' % (_direction, _meaning)),
            value=base.Value(int, min=0),
            drivers=_LIBVIRT,
            example='10240',
        ))
