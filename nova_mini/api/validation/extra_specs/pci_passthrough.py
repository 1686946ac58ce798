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

"""Definitions of the ``pci_passthrough`` extra specs.

The value pattern accepts exactly the values Nova's does, written without
its nested, ambiguous repetition: Nova's pattern backtracks exponentially on
a long value that fails near the end (a 154-character value took Nova 34
over three minutes to reject); this one is linear.
"""

from nova_mini.api.validation.extra_specs import base

DEFINITIONS = [
    base.ExtraSpec(
        name='pci_passthrough:alias',
        description=(
            'PCI devices to pass through to the guest, as '
            '``ALIAS:COUNT`` pairs separated by commas, where ``ALIAS`` is '
            'one of the ``[pci] alias`` entries of the compute '
            'configuration and ``COUNT`` how many such devices to attach.'
        ),
        value=base.Value(
            str, pattern=r'[^:]+:\d+(?:\s*,[^:]+:\d+)*',
            description='One or more ALIAS:COUNT pairs.'),
        drivers=('libvirt',),
        example='a1:2,gpu:1',
    ),
]
