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

"""Definitions of the ``hw`` extra specs about guest CPUs: pinning policies,
real-time, topology and physical address bits.

Differences with Nova 34 (doc/source/reference/extra-spec-differences.rst):

* ``hw:maxphysaddr_mode`` and ``hw:maxphysaddr_bits`` are read by Nova's
  libvirt driver and by its ``ComputeCapabilitiesFilter``, yet Nova's
  validator has no definition for them and rejects both keys. They are
  defined here.
* The CPU mask pattern accepts exactly the masks Nova's does, but is written
  without nested optional groups: Nova's backtracks exponentially on a long
  invalid mask (a 66-character one takes Nova 34 over ten seconds), this one
  runs in linear time.
"""

from nova_mini.api.validation.extra_specs import base

# A CPU set: numbers and ranges, comma separated, each possibly excluded
# with '^' (e.g. '0-5,^2'). Same language as Nova's pattern.
CPU_MASK = r'\^?\d+(?:-\d+|,\^?\d+)*'

_LIBVIRT = ('libvirt',)

DEFINITIONS = [
    base.ExtraSpec(
        name='hw:cpu_policy',
        description=(
            'How guest CPUs map to host CPUs. ``shared`` (the default) lets '
            'them float over the host CPUs set aside for shared use, which '
            'may be overcommitted. ``dedicated`` pins each guest CPU to a '
            'host CPU of its own, which is never overcommitted. ``mixed`` '
            'pins only the guest CPUs named by ``hw:cpu_dedicated_mask`` '
            '(or by ``hw:cpu_realtime_mask``) and lets the others float.'
        ),
        value=base.Value(str, enum=('dedicated', 'shared', 'mixed')),
        drivers=_LIBVIRT,
        example='dedicated',
    ),
    base.ExtraSpec(
        name='hw:cpu_thread_policy',
        description=(
            'How pinned guest CPUs use host hyperthread siblings. '
            '``prefer`` (the default) places them on siblings when the '
            'host has SMT, ``require`` only accepts hosts with SMT and '
            'uses siblings, ``isolate`` only accepts hosts without SMT '
            '(or keeps each sibling of a used core idle).'
        ),
        value=base.Value(str, enum=('prefer', 'isolate', 'require')),
        drivers=_LIBVIRT,
        requires=('hw:cpu_policy=dedicated',),
        example='isolate',
    ),
    base.ExtraSpec(
        name='hw:emulator_threads_policy',
        description=(
            'Where the hypervisor\'s own threads for the guest (emulator '
            'and I/O threads) run: ``isolate`` gives them one more '
            'dedicated host CPU, ``share`` puts them on the host\'s shared '
            'CPU set.'
        ),
        value=base.Value(str, enum=('isolate', 'share')),
        drivers=_LIBVIRT,
        requires=('hw:cpu_policy=dedicated',),
        example='share',
    ),
    base.ExtraSpec(
        name='hw:cpu_dedicated_mask',
        description=(
            'With the ``mixed`` CPU policy, the guest CPUs to pin to '
            'dedicated host CPUs; the remaining guest CPUs float over the '
            'shared ones.'
        ),
        value=base.Value(
            str, pattern=CPU_MASK,
            description='A set of guest CPU numbers, e.g. ``0-3,^1``.'),
        drivers=_LIBVIRT,
        requires=('hw:cpu_policy=mixed',),
        example='2-3',
    ),
    base.ExtraSpec(
        name='hw:cpu_realtime',
        description=(
            'Run the guest\'s CPUs with real-time scheduling priority on '
            'the host. The guest must use pinned CPUs and should leave at '
            'least one CPU out through ``hw:cpu_realtime_mask`` for its '
            'housekeeping.'
        ),
        value=base.Value(bool),
        drivers=_LIBVIRT,
        requires=('hw:cpu_policy',),
        example='yes',
    ),
    base.ExtraSpec(
        name='hw:cpu_realtime_mask',
        description=(
            'Which guest CPUs get (or, with ``^``, do not get) real-time '
            'priority, e.g. ``^0-1`` for all but the first two.'
        ),
        value=base.Value(
            str, pattern=CPU_MASK,
            description='A set of guest CPU numbers.'),
        drivers=_LIBVIRT,
        requires=('hw:cpu_realtime=yes',),
        example='^0-1',
    ),
]

# The guest CPU topology: preferred values, then the limits that bound what
# an image may ask for with its hw_cpu_* properties.
for _part, _container in (('sockets', 'the guest'),
                          ('cores', 'each socket'),
                          ('threads', 'each core')):
    DEFINITIONS += [
        base.ExtraSpec(
            name='hw:cpu_' + _part,
            description=(
                'Number of CPU %s to present in %s. Nova picks a topology '
                'for the flavor\'s vCPUs that honours this value.'
                % (_part, _container)),
            value=base.Value(int, min=1),
            drivers=_LIBVIRT,
            example='2',
        ),
        base.ExtraSpec(
            name='hw:cpu_max_' + _part,
            description=(
                'Largest number of CPU %s in %s that an image may request '
                'with its ``hw_cpu_%s`` property.'
                % (_part, _container, _part)),
            value=base.Value(int, min=1),
            drivers=_LIBVIRT,
            example='4',
        ),
    ]

DEFINITIONS += [
    base.ExtraSpec(
        name='hw:maxphysaddr_mode',
        description=(
            'How many physical address bits the guest CPU reports: '
            '``passthrough`` copies the host\'s, ``emulate`` reports the '
            'number given by ``hw:maxphysaddr_bits``. Lets guests with '
            'very large memory address all of it.'
        ),
        value=base.Value(str, enum=('passthrough', 'emulate')),
        drivers=_LIBVIRT,
        example='emulate',
    ),
    base.ExtraSpec(
        name='hw:maxphysaddr_bits',
        description=(
            'Number of physical address bits the guest CPU reports when '
            '``hw:maxphysaddr_mode`` is ``emulate``; the scheduler only '
            'picks hosts whose CPUs support at least that many.'
        ),
        value=base.Value(int, min=1),
        drivers=_LIBVIRT,
        requires=('hw:maxphysaddr_mode=emulate',),
        example='42',
    ),
]
